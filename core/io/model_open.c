/* model_open.c - the one door to a model on disk (model_open.h). */
#include "model_open.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "checkpoint.h"
#include "file.h"
#include "marian.h"

/* The files save_pretrained and the Hub put in a MarianMT folder. */
static const char *const MARIAN_FILES[] = {
    "config.json", "generation_config.json", "vocab.json",        "source.spm",
    "target.spm",  "tokenizer_config.json",  "pytorch_model.bin", "model.safetensors"};

/* path names one of MARIAN_FILES with a config.json beside it. */
static int marian_file(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    for (size_t i = 0; i < sizeof MARIAN_FILES / sizeof *MARIAN_FILES; i++)
        if (!strcmp(base, MARIAN_FILES[i])) {
            char cfg[4096];
            snprintf(cfg, sizeof cfg, "%.*sconfig.json", (int)(base - path), path);
            struct stat st;
            return stat(cfg, &st) == 0 && S_ISREG(st.st_mode);
        }
    return 0;
}

const char *tf_model_source(const char *path, char *buf, size_t cap)
{
    if (tf_path_is_dir(path) || !marian_file(path))
        return path;
    const char *slash = strrchr(path, '/');
    snprintf(buf, cap, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    return buf;
}

int tf_model_open(const char *path, TfModel *m, TfErr *err)
{
    char dir[4096];
    const char *src = tf_model_source(path, dir, sizeof dir);
    if (tf_path_is_dir(src))
        return marian_load(m, src, err);
    return ckpt_load(m, src, err);
}
