/* batch.h - the one padded-batch builder: sentence pairs of a data set into
 * the id arrays of a teacher-forced pass (training, evaluation and the
 * window's trainer all build their batches here).
 *
 * For pairs x -> y of a batch of B sentences:
 *   src      (B, S)  x1 .. xm <pad> ..            S = longest source
 *   tgt_in   (B, T)  <bos> y1 .. yn <pad> ..      T = longest target + 1
 *   tgt_out  (B, T)  y1 .. yn <eos> <pad> ..      (the next token to predict)
 *   src_len  (B)     m
 *   tgt_len  (B)     n + 1
 * Data-set ids become model ids through a map (map[id] < 0: <unk>); a NULL
 * map keeps them. */
#ifndef TF_BATCH_H
#define TF_BATCH_H

#include "dataset.h"
#include "model.h"

typedef struct PadBatch {
    int cap_B, cap_T;  /* what the arrays hold */
    int B, S, T;       /* of the batch filled last */
    int *src;          /* (cap_B * cap_T) rows of S */
    int *tgt_in;       /* (cap_B * cap_T) rows of T */
    int *tgt_out;      /* (cap_B * cap_T) rows of T */
    int *src_len, *tgt_len; /* (cap_B) */
    int *block;        /* the one allocation */
} PadBatch;

/* Room for cap_B sentences of up to cap_T tokens (source or <bos> + target).
 * Returns 0, or -1 with err set. */
int batch_build(PadBatch *b, int cap_B, int cap_T, TfErr *err);
void batch_free(PadBatch *b);

/* Fill b with n pairs of d: pairs idx[0..n), or first..first+n-1 when idx is
 * NULL. The caller makes sure they fit (n <= cap_B, lengths within cap_T).
 * n = 0 gives an empty batch with S = T = 1. */
void batch_fill(PadBatch *b, const Dataset *d, const int *idx, int first, int n,
                const int *src_map, const int *tgt_map);

/* The filled batch as the forward pass reads it. */
TfBatch batch_input(const PadBatch *b);

/* Target tokens of the filled batch (<eos> included), and source tokens. */
int batch_tgt_tokens(const PadBatch *b);
int batch_src_tokens(const PadBatch *b);

#endif
