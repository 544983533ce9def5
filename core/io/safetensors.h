/* safetensors.h - the part of the safetensors format every reader shares:
 * a byte source (an open file or a buffer) and the header, read with one
 * set of checks and one set of one-line errors naming the file. The
 * checkpoint loader (checkpoint.c) and the MarianMT folder reader
 * (marian.c) both read through it. */
#ifndef TF_SAFETENSORS_H
#define TF_SAFETENSORS_H

#include <stddef.h>
#include <stdio.h>

#include <cJSON.h>

#include "err.h"

#define SFT_MAX_HEADER (64u << 20) /* 64 MiB of JSON is more than enough */

/* Bytes from a file (f) or from memory (mem), size of them, named name in
 * errors. */
typedef struct SftSrc {
    FILE *f;
    const unsigned char *mem;
    size_t size;
    const char *name;
} SftSrc;

/* n bytes at off into dst; -1 (err set) past the end or on a read error. */
int sft_read(const SftSrc *s, size_t off, void *dst, size_t n, TfErr *err);

/* Does JSON text hold a \u0000 escape inside a string (which cJSON would
 * decode into a NUL, silently cutting the string short)? */
int sft_has_nul_escape(const char *s, size_t n);

/* The header: its 8-byte length checked against the source and
 * SFT_MAX_HEADER before anything is allocated, a JSON object padded with
 * spaces only, no NUL in its strings. Returns the parsed object
 * (cJSON_Delete it) and in *data_at where the tensor data begins, or NULL
 * with err set. */
cJSON *sft_header_read(const SftSrc *src, size_t *data_at, TfErr *err);

#endif
