/* spm.h - a small C wrapper over Debian's libsentencepiece (C++): the one
 * C++ file of core (spm.cc); everything else stays C. */
#ifndef TF_SPM_H
#define TF_SPM_H
#include <stddef.h>

#include "err.h"

typedef struct SpmModel SpmModel;

/* Load a .spm model file; NULL with err naming the file on failure. */
SpmModel *spm_load(const char *path, TfErr *err);
void spm_free(SpmModel *s);

/* Split text into pieces: *pieces gets n malloc'd NUL-terminated strings
 * in one malloc'd array (spm_pieces_free). Returns n or -1. */
int spm_encode(const SpmModel *s, const char *text, char ***pieces, TfErr *err);
void spm_pieces_free(char **pieces, int n);

/* Join pieces into text (malloc'd in *out). Returns its length or -1. */
long spm_decode(const SpmModel *s, const char *const *pieces, int n, char **out, TfErr *err);

#endif
