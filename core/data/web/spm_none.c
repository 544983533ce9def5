/* spm_none.c - the browser build has no sentencepiece (core/data/spm.cc is
 * C++ over libsentencepiece): Marian (OPUS-MT) folders are refused when
 * they are opened, with one line saying so; the shipped models and the
 * user's own safetensors files need no sentencepiece. */
#include <stdlib.h>

#include "spm.h"

SpmModel *spm_load(const char *path, TfErr *err)
{
    tf_fail(err, "%s: Marian (OPUS-MT) models need sentencepiece, which the browser build leaves out; "
                 "open them in the desktop program",
            path ? path : "sentencepiece model");
    return NULL;
}

void spm_free(SpmModel *s) { (void)s; }

int spm_encode(const SpmModel *s, const char *text, char ***pieces, TfErr *err)
{
    (void)s, (void)text;
    *pieces = NULL;
    return tf_fail(err, "sentencepiece is not in the browser build");
}

void spm_pieces_free(char **pieces, int n)
{
    for (int i = 0; pieces && i < n; i++)
        free(pieces[i]);
    free(pieces);
}

long spm_decode(const SpmModel *s, const char *const *pieces, int n, char **out, TfErr *err)
{
    (void)s, (void)pieces, (void)n;
    *out = NULL;
    return tf_fail(err, "sentencepiece is not in the browser build");
}
