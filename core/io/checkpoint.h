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
 * rename.
 *
 * Training checkpoints may also hold Adam's state, so that training resumes
 * exactly where it stopped: for every parameter tensor NAME two tensors
 * "optimizer.m.NAME" and "optimizer.v.NAME" of the same shape (first and
 * second moments), and the metadata "optimizer" ("adam") and
 * "optimizer_step" (steps taken). They come all together or not at all;
 * loading checks them like the parameters (every one present, shapes,
 * offsets, no overlap, finite values, v >= 0). Models meant for use, like
 * the shipped ones, leave them out: they triple the file. ckpt_load
 * accepts training checkpoints and ignores the optimizer state after
 * checking its header entries.
 *
 * These read and write our files only; a path the user gives (which may
 * name a MarianMT folder too) is opened with tf_model_open (model_open.h). */
#ifndef TF_CHECKPOINT_H
#define TF_CHECKPOINT_H

#include <stddef.h>

#include "err.h"
#include "model.h"

#define CKPT_FORMAT "stepformer-1"

#define CKPT_OPTIM_M "optimizer.m."
#define CKPT_OPTIM_V "optimizer.v."

/* Adam's state for a model: two blocks mirroring the parameter block. */
typedef struct CkptOptim {
    float *m, *v;    /* (n_params) each; m owns one allocation of both */
    long long step;  /* optimizer steps taken ("optimizer_step") */
} CkptOptim;

int ckpt_load(TfModel *m, const char *path, TfErr *err);
/* The same from a buffer in memory (used by the fuzzer and tests). */
int ckpt_load_mem(TfModel *m, const void *buf, size_t len, const char *name,
                  TfErr *err);
int ckpt_save(const TfModel *m, const char *path, TfErr *err);

/* Load a model and, when opt is not NULL, its optimizer state: opt->m is
 * NULL (and step 0) when the file has none. ckpt_optim_free releases it. */
int ckpt_load_full(TfModel *m, CkptOptim *opt, const char *path, TfErr *err);
int ckpt_load_mem_full(TfModel *m, CkptOptim *opt, const void *buf,
                       size_t len, const char *name, TfErr *err);
/* Save with the optimizer state (opt NULL: the same as ckpt_save). */
int ckpt_save_full(const TfModel *m, const CkptOptim *opt, const char *path,
                   TfErr *err);
/* Allocate zeroed moments for n parameters. */
int ckpt_optim_alloc(CkptOptim *opt, size_t n, TfErr *err);
void ckpt_optim_free(CkptOptim *opt);

#endif
