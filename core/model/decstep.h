/* decstep.h - the decoder one position at a time, with a key/value cache.
 *
 * Autoregressive decoding feeds the decoder its own outputs: at step t the
 * decoder input is <start> y_1 .. y_t, and under the causal mask position t
 * depends only on positions 0..t. The keys and values of positions 0..t-1
 * are therefore the ones already computed at earlier steps: each decoder
 * layer keeps them (the cache) and a step runs only the new position through
 * the layers, its query against the cached keys. Cross-attention's keys and
 * values are projections of the encoder output, computed once per sentence.
 * A step costs one row per layer instead of t + 1, so a translation costs
 * time linear in its length (the attention itself grows with t, the
 * projections, which dominate, do not).
 *
 * R rows (beam hypotheses of one sentence, all of the same length) go
 * through one pass per step: every projection is one sgemm of R rows. After
 * a beam step, kv_reorder makes row r the continuation of old row parent[r].
 *
 * The experiments (tr->exp) apply as in the full pass, except no_causal:
 * without the causal mask earlier positions would see later ones, so the
 * cache would be stale after every step; kv_supported says so and the
 * decoder recomputes the whole prefix instead (decode.h). */
#ifndef TF_DECSTEP_H
#define TF_DECSTEP_H

#include "model.h"

typedef struct TfKvCache {
    int L, C, NH, F, V; /* layers, d_model, heads, d_ff, target vocabulary */
    int cap_R, cap_T;   /* rows and positions it holds */
    int R, T, S;        /* rows in use, positions filled, source length */
    TfExperiment exp;   /* the experiment of the pass (no_causal unsupported) */
    float *k, *v;       /* (L, cap_R, cap_T, C) self-attention keys, values */
    float *k2, *v2;     /* the same, for reordering */
    float *mem_kv;      /* (L, S, 2C) cross-attention [K | V] of the memory */
    const float *pe;    /* (cap_T, C) positional table (the model's or own) */
    float *own_pe;
    unsigned char *hide; /* (S) source keys hidden, or NULL */
    float *x, *nrm, *sum, *qkv, *heads, *out, *hid; /* step scratch, cap_R rows */
    float *mean, *rstd, *att;  /* LN statistics; (NH, max(cap_T, S) * cap_R) */
    float *logits;      /* (cap_R, V) the last step's logits */
    float *block;
} TfKvCache;

/* Can the cache reproduce the full pass under this experiment? */
int kv_supported(const TfExperiment *e);

/* A cache for up to cap_R rows of up to cap_T positions over the encoder
 * output memory (S, C) of one sentence (the trace's tr->memory after
 * tf_encode): cross-attention K/V are computed here, once. exp is the
 * trace's experiment. */
int kv_init(TfKvCache *kv, const TfModel *m, const TfExperiment *exp, const float *memory,
            int S, int cap_R, int cap_T, TfErr *err);
void kv_free(TfKvCache *kv);

/* One step: row r (0..R-1) gets token tok[r] at position kv->T; the rows
 * run through every decoder layer and the output projection; kv->logits
 * (R, V) holds their logits and kv->T grows by one. R must equal the rows
 * already cached (or any R <= cap_R at the first step). self_w (R, L, NH,
 * T+1) and cross_w (R, L, NH, S) receive the attention rows when not NULL.
 * Returns 0, or -1 with err set (no room). */
int kv_step(TfKvCache *kv, const TfModel *m, const int *tok, int R, float *self_w,
            float *cross_w, TfErr *err);

/* The bytes of weights one step reads (every decoder layer's
 * self-attention, cross-attention W_Q and W_O, feed-forward and LayerNorm
 * parameters, and the output projection): a step's memory traffic. */
double kv_step_bytes(const TfConfig *c);

/* Row r becomes old row parent[r], for r in 0..R-1 (R <= the rows cached). */
void kv_reorder(TfKvCache *kv, const int *parent, int R);

#endif
