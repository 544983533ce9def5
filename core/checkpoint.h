/* checkpoint.h - models in the safetensors format.
 *
 * Layout: an 8-byte little-endian header length N, N bytes of JSON, then the
 * raw little-endian F32 tensor data. The JSON maps each PyTorch parameter name
 * (see params.c) to {"dtype": "F32", "shape": [...], "data_offsets": [a, b]}
 * and holds "__metadata__", a map of strings: format ("stepformer-1"),
 * d_model, n_heads, d_ff, n_enc_layers, n_dec_layers, max_len, norm
 * ("post"/"pre"), tie_embeddings ("none"/"generator"/"all"), src_vocab and
 * tgt_vocab (JSON arrays of token strings), src_tokenize / tgt_tokenize
 * ("word"/"char"), src_lowercase, and any extra facts (training command,
 * evaluation figures), which are kept and written back.
 *
 * Loading checks everything before allocating: the header length against
 * the file, the JSON, every dtype, shape and offset against the config, that
 * offsets neither overlap nor leave the file, that no tensor is missing or
 * unknown. Saving is atomic: a temporary file in the same directory, fsync,
 * rename. */
#ifndef TF_CHECKPOINT_H
#define TF_CHECKPOINT_H

#include <stddef.h>

#include "err.h"
#include "model.h"

#define CKPT_FORMAT "stepformer-1"
#define CKPT_MAX_HEADER (64u << 20) /* 64 MiB of JSON is more than enough */

int ckpt_load(TfModel *m, const char *path, TfErr *err);
/* The same from a buffer in memory (used by the fuzzer and tests). */
int ckpt_load_mem(TfModel *m, const void *buf, size_t len, const char *name,
                  TfErr *err);
int ckpt_save(const TfModel *m, const char *path, TfErr *err);

#endif
