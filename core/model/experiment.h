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
 *   no_residual  every sub-layer without its residual connection: post-LN
 *              LN(Sublayer(x)) instead of LN(x + Sublayer(x)), pre-LN
 *              Sublayer(LN(x)) instead of x + Sublayer(LN(x)); the add
 *              stages then hold the sub-layer's output alone
 *   no_ffn     feed-forward networks (enc:L, dec:L) whose output is zeroed,
 *              bias included: the sub-layer adds nothing to the residual
 *              (its hidden layer is still computed and shown)
 *   patch      activation patching: one head's output (its d_v columns of
 *              concat, before W_O) taken from another pass, e.g. of another
 *              sentence of the same length (the traced pass only; the
 *              one-position decoder step ignores it)
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
#define TF_EXP_MAX_FFN 64

/* Which attention of the model: encoder self, decoder self, cross. */
typedef enum TfAttnKind { TF_ATTN_ENC = 0, TF_ATTN_DEC = 1, TF_ATTN_CROSS = 2 } TfAttnKind;

typedef struct TfHeadRef {
    int kind;  /* TfAttnKind */
    int layer; /* from 0 */
    int head;  /* from 0 */
} TfHeadRef;

/* A feed-forward network: kind TF_ATTN_ENC or TF_ATTN_DEC, layer from 0. */
typedef struct TfLayerRef {
    int kind, layer;
} TfLayerRef;

typedef struct TfExperiment {
    int no_scale, no_pe, no_causal;
    int n_ablate;
    TfHeadRef ablate[TF_EXP_MAX_ABLATE];
    int n_hide;
    int hide_src[TF_EXP_MAX_HIDE]; /* source positions, from 0 */
    int no_residual;
    int n_no_ffn;
    TfLayerRef no_ffn[TF_EXP_MAX_FFN];
    TfHeadRef patch;            /* the head patched, when patch_heads is set */
    const float *patch_heads;   /* (patch_rows, d_model) the donor pass's concat of that
                                   attention (not owned), or NULL: no patch */
    int patch_rows;             /* rows of the batch (sentence by sentence) it covers */
} TfExperiment;

/* Is it the normal pass? */
int tf_exp_is_none(const TfExperiment *e);
int tf_exp_equal(const TfExperiment *a, const TfExperiment *b);
int tf_exp_ablated(const TfExperiment *e, TfAttnKind kind, int layer, int head);
int tf_exp_hidden(const TfExperiment *e, int pos);
/* Is the FFN of layer `layer` of kind (TF_ATTN_ENC or TF_ATTN_DEC) off? */
int tf_exp_ffn_off(const TfExperiment *e, TfAttnKind kind, int layer);

/* Add a head ("enc:L:H", "dec:L:H", "cross:L:H") or a hidden position
 * ("I"), checked against cfg (and, for positions, against max_len): a
 * one-line error names the value and the range. Adding twice is a no-op;
 * toggling removes what is there (for the window's Alt+click). */
int tf_exp_add_head(TfExperiment *e, const char *spec, const TfConfig *cfg, TfErr *err);
int tf_exp_add_hide(TfExperiment *e, const char *spec, const TfConfig *cfg, TfErr *err);
int tf_exp_toggle_head(TfExperiment *e, TfAttnKind kind, int layer, int head);
int tf_exp_toggle_hide(TfExperiment *e, int pos);
/* A feed-forward network off ("enc:L", "dec:L"), checked against cfg, and
 * its toggle (1 on, 0 off, -1 no room). */
int tf_exp_add_ffn(TfExperiment *e, const char *spec, const TfConfig *cfg, TfErr *err);
int tf_exp_toggle_ffn(TfExperiment *e, TfAttnKind kind, int layer);

/* Hidden positions must lie inside the source: S is its length. */
int tf_exp_check_source(const TfExperiment *e, int S, TfErr *err);

/* An experiment as written down (the command line's flags, a link's exp
 * field): the switches and the specs tf_exp_add_head, _hide and _ffn read.
 * The strings are not owned. */
typedef struct TfExpSpec {
    int no_scale, no_pe, no_causal, no_residual;
    int n_ablate, n_hide, n_ffn;
    const char *ablate[TF_EXP_MAX_ABLATE];
    const char *hide[TF_EXP_MAX_HIDE];
    const char *ffn[TF_EXP_MAX_FFN];
} TfExpSpec;

/* The experiment s writes down, checked against cfg (the first bad spec:
 * -1, err names it); S > 0 also checks hidden positions against a source
 * of S tokens. */
int tf_exp_build(const TfExpSpec *s, const TfConfig *cfg, int S, TfExperiment *e, TfErr *err);

/* "no-scale, no-pe, ablate enc:0:1, hide-src 2, no-residual, no-ffn dec:1"
 * or "none". */
void tf_exp_describe(const TfExperiment *e, char *buf, size_t cap);

#endif
