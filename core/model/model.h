/* model.h - a Transformer model: config, parameters, vocabularies, metadata,
 * and the forward pass that fills a trace.
 *
 * The forward pass follows Vaswani et al. (2017) and PyTorch's
 * nn.TransformerEncoderLayer / nn.TransformerDecoderLayer (batch_first,
 * ReLU, post-LN by default or norm_first): embeddings are scaled by
 * sqrt(d_model) and added to the sinusoidal table, attention is multi-head
 * scaled dot-product with packed Q/K/V projections and W_O, padding keys are
 * masked in every attention and future positions in decoder self-attention. */
#ifndef TF_MODEL_H
#define TF_MODEL_H

#include <stddef.h>

#include "config.h"
#include "err.h"
#include "params.h"
#include "trace.h"
#include "vocab.h"

typedef struct TfMeta {
    char *key, *val;
} TfMeta;

typedef struct TfModel {
    TfConfig cfg;
    TfParams p;        /* points into block */
    float *block;      /* params_size(cfg) floats */
    size_t n_params;
    Vocab src_vocab, tgt_vocab;
    float *pe_src, *pe_tgt; /* (max_len, C) stored positional tables (Marian
                               files hold them), owned; NULL: the formula */
    void *tok;                  /* a MarianMT folder's sentencepiece models */
    void (*tok_free)(void *);   /* (marian_tok.h), or NULL */
    TfMeta *meta;      /* extra metadata kept from the checkpoint */
    int n_meta;
} TfModel;

/* Allocate zeroed parameters for cfg (vocabularies left empty). */
int model_build(TfModel *m, const TfConfig *cfg, TfErr *err);
void model_free(TfModel *m);

/* A randomly initialised model whose vocabularies are <pad> <bos> <eos>
 * <unk> t4 t5 ... (word-level), sized from cfg->src_vocab / tgt_vocab. */
int model_init_random(TfModel *m, const TfConfig *cfg, uint64_t seed, TfErr *err);

/* Extra metadata (strings), copied. Setting an existing key replaces it. */
int model_meta_set(TfModel *m, const char *key, const char *val);
const char *model_meta_get(const TfModel *m, const char *key);
/* Set n pairs at once (a checkpoint's whole __metadata__): time n log n,
 * not n^2; of keys given twice the later value wins, and keys keep the
 * order of their first appearance after those already set. */
int model_meta_set_many(TfModel *m, const char *const *keys,
                        const char *const *vals, int n);

/* A padded batch: B sentences, src (B, S) and decoder input tgt (B, T), each
 * padded with <pad> after its length. tgt[b] starts with <bos>. */
typedef struct TfBatch {
    int B, S, T;
    const int *src;     /* (B, S) */
    const int *tgt;     /* (B, T) */
    const int *src_len; /* (B) in 1..S */
    const int *tgt_len; /* (B) in 1..T */
} TfBatch;

/* Check a batch against the model and the trace capacity. */
int tf_check_batch(const TfModel *m, const TfTrace *tr, const TfBatch *in,
                   TfErr *err);

/* The whole pass: encoder, decoder, logits and probabilities. With train
 * set (and a TRACE_TRAIN trace), dropout is applied as in the paper. */
int tf_forward(const TfModel *m, TfTrace *tr, const TfBatch *in, int train,
               TfErr *err);

/* The encoder alone on B sentences of S tokens: fills the trace's source
 * side and tr->memory. */
int tf_encode(const TfModel *m, TfTrace *tr, int B, int S, const int *src,
              const int *src_len, int train, TfErr *err);

/* The same passes one unit at a time, for a window that computes what it
 * shows first: begin (embeddings), then every layer in order (a pre-LN
 * stack's final LayerNorm runs with its last layer), then, for the decoder,
 * end (the generator and softmax). tf_encode and tf_decode are exactly
 * these calls in order. */
int tf_encode_begin(const TfModel *m, TfTrace *tr, int B, int S, const int *src,
                    const int *src_len, int train, TfErr *err);
void tf_encode_layer(const TfModel *m, TfTrace *tr, int l, int train);
int tf_decode_begin(const TfModel *m, TfTrace *tr, int T, const int *tgt,
                    const int *tgt_len, int train, TfErr *err);
void tf_decode_layer(const TfModel *m, TfTrace *tr, int l, int train);
void tf_decode_end(const TfModel *m, TfTrace *tr, int out_from);
/* tf_decode_end for positions from..to-1 of sentence b (a window computes
 * the output projection a few rows at a time). Pieces of a multiple of 16
 * rows, each from a multiple of 16, give the bits of the whole: both run
 * the product in pieces of gemm_small_rows() (where a row's sums do not
 * depend on the rows beside it), or of 16 rows on OpenBLAS where that path
 * is off (its sgemm works in tiles of 16 rows or fewer dividing 16, and a
 * row's dot products depend only on its place in a tile); smaller or
 * unaligned pieces may round differently. test_forward checks. */
void tf_decode_end_rows(const TfModel *m, TfTrace *tr, int b, int from, int to);

/* The decoder and output over the B sentences already encoded in tr. Logits
 * and probabilities are computed for positions out_from..T-1 only (0 for
 * all); decoding one token at a time needs just the last. */
int tf_decode(const TfModel *m, TfTrace *tr, int T, const int *tgt,
              const int *tgt_len, int out_from, int train, TfErr *err);

#endif
