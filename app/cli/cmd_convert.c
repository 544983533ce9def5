/* cmd_convert.c - `stepformer convert DIR --out FILE.safetensors`: a
 * MarianMT / OPUS-MT directory into our own format, with the Marian
 * settings (activation, PE layout, embedding scale, special ids,
 * max_length) in the metadata, so the converted model opens anywhere a
 * Stepformer model does. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "checkpoint.h"
#include "cli.h"
#include "commands.h"
#include "file.h"
#include "marian.h"

static const char *HELP =
    "usage: stepformer convert DIR --out FILE.safetensors\n"
    "\n"
    "Read a Hugging Face MarianMT directory (config.json, generation_config.json,\n"
    "vocab.json, model.safetensors or pytorch_model.bin) and write it as one\n"
    "Stepformer safetensors file (F32). A stored positional table (the Hub's\n"
    "files have model.{encoder,decoder}.embed_positions.weight) is dropped when\n"
    "it equals the sinusoid formula in halves up to its dtype's rounding (the\n"
    "converted model computes it, and says so); a table that differs is\n"
    "refused, since our format has no place for it. --out must not be in\n"
    "DIR (it would write over or beside the model's own files).\n";

/* The one positional argument: the folder. */
static int positional(char **argv, int argc, int *i, void *ctx, const char *cmd, int *bad)
{
    (void)argc;
    const char **dir = ctx;
    if (argv[*i][0] == '-')
        return 0;
    if (*dir) {
        fprintf(stderr, "stepformer %s: one folder only ('%s' is a second)\n", cmd, argv[*i]);
        *bad = 1;
        return 1;
    }
    *dir = argv[*i];
    return 1;
}

/* 1 when out would land in dir or below it (its folder is dir, or dir is
 * one of its folder's ancestors, by device and inode: symlinks and ".."
 * do not hide it), so the conversion would write over or beside its own
 * input. */
static int out_inside(const char *dir, const char *out)
{
    struct stat d, a;
    if (stat(dir, &d) != 0)
        return 0;
    char folder[PATH_MAX];
    const char *slash = strrchr(out, '/');
    snprintf(folder, sizeof folder, "%.*s", slash ? (int)(slash - out) : 1, slash ? out : ".");
    if (slash == out)
        snprintf(folder, sizeof folder, "/");
    char real[PATH_MAX];
    if (!realpath(folder, real))
        return 0; /* a missing folder: the save says so */
    for (;;) {
        if (stat(real, &a) == 0 && a.st_dev == d.st_dev && a.st_ino == d.st_ino)
            return 1;
        char *up = strrchr(real, '/');
        if (!up || up == real) {
            return stat("/", &a) == 0 && a.st_dev == d.st_dev && a.st_ino == d.st_ino;
        }
        *up = 0;
    }
}

int cmd_convert(int argc, char **argv)
{
    const char *C = "convert", *out = NULL;
    const CliOpt opts[] = {CLI_STR_OPT("out", &out)};
    const char *dir = NULL;
    int rc = cli_parse(argc, argv, opts, CLI_N(opts), positional, &dir, C, HELP);
    if (rc)
        return rc < 0 ? 0 : 1;
    if (!dir || !out)
        return cli_fail(C, "give the model folder and --out FILE.safetensors");
    TfModel m;
    TfErr err;
    if (!tf_path_is_dir(dir))
        return cli_fail(C, "%s: not a folder (a MarianMT directory is converted)", dir);
    if (out_inside(dir, out))
        return cli_fail(C, "--out %s is inside the folder being converted (%s): write it elsewhere", out, dir);
    if (marian_load(&m, dir, &err))
        return cli_fail(C, "%s", err.msg);
    const char *pd = model_meta_get(&m, "marian.pe_stored_diff");
    if (pd && atof(pd) > MARIAN_PE_SAME) {
        cli_fail(C, "%s: its stored positional table differs from the sinusoid formula (max |diff| %s); "
                    "our format stores no table, so the converted model would compute other numbers", dir, pd);
        model_free(&m);
        return 1;
    }
    if (pd)
        printf("positional table: the stored one equals the formula (halves) to %s, its dtype's rounding; "
               "the converted model computes it\n", pd);
    model_meta_set(&m, "converted_from", dir);
    rc = ckpt_save(&m, out, &err);
    model_free(&m);
    if (rc)
        return cli_fail(C, "%s", err.msg);
    printf("wrote %s\n", out);
    return 0;
}
