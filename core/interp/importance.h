/* importance.h - how much each attention head matters, by ablation: the
 * change of the teacher-forced loss and token accuracy when the head's
 * output is zeroed before W_O (as `--ablate` does).
 *
 * Each pair (source; reference) is run alone, one sentence at a time: the
 * decoder reads <bos> + reference and is scored on reference + <eos>. Over
 * every target position of every pair,
 *
 *   delta_nll = mean(-log p(ref token) | head ablated) - mean(-log p(ref token))
 *   delta_acc = mean(argmax == ref token | head ablated) - mean(argmax == ref token)
 *
 * for every head of every attention (enc, dec, cross; every layer). A pair
 * costs one normal pass and one per head, but no more than it must: the
 * encoder runs once for all decoder-side heads, and an ablation in layer l
 * recomputes only layers l and above (layers run top down, so the ones
 * below are always the normal pass's). A pair is added either at once
 * (tf_imp_add) or one ablation at a time (tf_imp_begin, tf_imp_step), so a
 * window can spread a large model's work over its frames. */
#ifndef TF_IMPORTANCE_H
#define TF_IMPORTANCE_H

#include "experiment.h"
#include "model.h"

typedef struct TfHeadImportance {
    TfHeadRef ref;    /* kind (TfAttnKind), layer, head */
    double delta_nll; /* nats */
    double delta_acc; /* share of positions, -1..1 */
} TfHeadImportance;

typedef struct TfImportance {
    const TfModel *m;
    int n_heads;           /* (n_enc + 2 n_dec) * n_heads: enc, then dec, then cross */
    int pairs;             /* pairs added */
    long long positions;   /* target positions scored */
    double base_nll, base_right; /* sums over positions, normal pass */
    double *nll, *right;   /* (n_heads) the same sums with each head ablated */
    int *order;            /* (n_heads) the schedule: heads in the order they run */
    int next;              /* the current pair's next step in order; n_heads: done */
    int tgt[TF_MAX_LEN], want[TF_MAX_LEN], T; /* the current pair's decoder input and targets */
    TfTrace tr;
} TfImportance;

int tf_imp_init(TfImportance *im, const TfModel *m, TfErr *err);
void tf_imp_free(TfImportance *im);

/* Start a pair: src as the encoder reads it (S ids), ref the reference
 * without <bos> or <eos> (R ids); runs the normal pass. */
int tf_imp_begin(TfImportance *im, const int *src, int S, const int *ref, int R, TfErr *err);
/* Ablations of the current pair still to run (0: the pair is counted). */
int tf_imp_left(const TfImportance *im);
/* Run the next one. */
int tf_imp_step(TfImportance *im, TfErr *err);
/* A whole pair: begin, then every step. */
int tf_imp_add(TfImportance *im, const int *src, int S, const int *ref, int R, TfErr *err);

/* Which head index i (0..n_heads-1) is. */
TfHeadRef tf_imp_head(const TfConfig *c, int i);
/* The pairs so far: out gets n_heads entries in index order. */
void tf_imp_result(const TfImportance *im, TfHeadImportance *out);

/* One pair of a data set, for tf_importance. */
typedef struct TfImpPair {
    const int *src, *ref;
    int S, R;
} TfImpPair;

/* Every pair, on two threads when threads >= 2 and there are two pairs or
 * more (each half its own trace; sums added at the end). out gets n_heads
 * entries. */
int tf_importance(const TfModel *m, const TfImpPair *pairs, int n, int threads, TfHeadImportance *out,
                  TfErr *err);

#endif
