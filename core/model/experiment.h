/* experiment.h - switching a part of the Transformer off to see what it is
 * for. One TfExperiment value rides in the trace (tr->exp) and the forward
 * pass applies it; the zero value is "none" and gives a pass bit-identical
 * to the normal one.
 *
 *   no_scale   scores = Q K^T, without the 1/sqrt(d_k)
 *   no_pe      the positional encoding is not added
 *   no_causal  decoder self-attention may look at later positions (the
 *              padding masks stay)
 *   ablate     heads whose output is zeroed before W_O (their d_v columns
 *              of concat are 0; W_O and its bias still apply)
 *   hide_src   source positions masked as keys (-inf, like padding) in
 *              encoder self-attention and in every cross-attention
 *
 * Every stage of the trace shows the experiment: `mask` is the mask that
 * was applied, `scores` what was fed to the softmax. Training ignores it. */
#ifndef TF_EXPERIMENT_H
#define TF_EXPERIMENT_H

#include <stddef.h>

#include "config.h"
#include "err.h"

#define TF_EXP_MAX_ABLATE 64
#define TF_EXP_MAX_HIDE 64

/* Which attention of the model: encoder self, decoder self, cross. */
typedef enum TfAttnKind { TF_ATTN_ENC = 0, TF_ATTN_DEC = 1, TF_ATTN_CROSS = 2 } TfAttnKind;

typedef struct TfHeadRef {
    int kind;  /* TfAttnKind */
    int layer; /* from 0 */
    int head;  /* from 0 */
} TfHeadRef;

typedef struct TfExperiment {
    int no_scale, no_pe, no_causal;
    int n_ablate;
    TfHeadRef ablate[TF_EXP_MAX_ABLATE];
    int n_hide;
    int hide_src[TF_EXP_MAX_HIDE]; /* source positions, from 0 */
} TfExperiment;

/* Is it the normal pass? */
int tf_exp_is_none(const TfExperiment *e);
int tf_exp_equal(const TfExperiment *a, const TfExperiment *b);
int tf_exp_ablated(const TfExperiment *e, TfAttnKind kind, int layer, int head);
int tf_exp_hidden(const TfExperiment *e, int pos);

/* Add a head ("enc:L:H", "dec:L:H", "cross:L:H") or a hidden position
 * ("I"), checked against cfg (and, for positions, against max_len): a
 * one-line error names the value and the range. Adding twice is a no-op;
 * toggling removes what is there (for the window's Alt+click). */
int tf_exp_add_head(TfExperiment *e, const char *spec, const TfConfig *cfg, TfErr *err);
int tf_exp_add_hide(TfExperiment *e, const char *spec, const TfConfig *cfg, TfErr *err);
int tf_exp_toggle_head(TfExperiment *e, TfAttnKind kind, int layer, int head);
int tf_exp_toggle_hide(TfExperiment *e, int pos);

/* Hidden positions must lie inside the source: S is its length. */
int tf_exp_check_source(const TfExperiment *e, int S, TfErr *err);

/* "no-scale, no-pe, ablate enc:0:1, hide-src 2" or "none". */
void tf_exp_describe(const TfExperiment *e, char *buf, size_t cap);

#endif
