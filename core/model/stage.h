/* stage.h - the named stages of the Transformer and matrix views of them.
 *
 * Stage names are stable: the CLI (`dump --stage`), the GUI's navigator and
 * the lessons all use them. A view is one matrix of a trace (rows, cols,
 * stride, data) with what its rows and columns are labelled by, taken for
 * one sentence of the batch, one layer and, for per-head stages, one head.
 * Views point into the trace; nothing is copied or recomputed. */
#ifndef TF_STAGE_H
#define TF_STAGE_H

#include <stddef.h>

#include "err.h"
#include "model.h"
#include "trace.h"

typedef enum StageId {
    ST_SRC_TOKENS, ST_SRC_EMBED, ST_POS_ENC, ST_ENC_INPUT,
    ST_ENC_SELF_Q, ST_ENC_SELF_K, ST_ENC_SELF_V, ST_ENC_SELF_SCORES,
    ST_ENC_SELF_MASK, ST_ENC_SELF_WEIGHTS, ST_ENC_SELF_HEADS,
    ST_ENC_SELF_CONCAT, ST_ENC_SELF_OUT,
    ST_ENC_ADD1, ST_ENC_NORM1, ST_ENC_FFN_HIDDEN, ST_ENC_FFN_OUT,
    ST_ENC_ADD2, ST_ENC_NORM2, ST_ENC_FINAL,
    ST_TGT_TOKENS, ST_TGT_EMBED, ST_DEC_INPUT,
    ST_DEC_SELF_Q, ST_DEC_SELF_K, ST_DEC_SELF_V, ST_DEC_SELF_SCORES,
    ST_DEC_SELF_MASK, ST_DEC_SELF_WEIGHTS, ST_DEC_SELF_HEADS,
    ST_DEC_SELF_CONCAT, ST_DEC_SELF_OUT,
    ST_DEC_ADD1, ST_DEC_NORM1,
    ST_DEC_CROSS_Q, ST_DEC_CROSS_K, ST_DEC_CROSS_V, ST_DEC_CROSS_SCORES,
    ST_DEC_CROSS_MASK, ST_DEC_CROSS_WEIGHTS, ST_DEC_CROSS_HEADS,
    ST_DEC_CROSS_CONCAT, ST_DEC_CROSS_OUT,
    ST_DEC_ADD2, ST_DEC_NORM2, ST_DEC_FFN_HIDDEN, ST_DEC_FFN_OUT,
    ST_DEC_ADD3, ST_DEC_NORM3, ST_DEC_FINAL,
    ST_OUT_LOGITS, ST_OUT_PROBS,
    ST_COUNT
} StageId;

/* The nine stages of one attention block, in order, as offsets from the
 * block's q stage (ST_ENC_SELF_Q, ST_DEC_SELF_Q or ST_DEC_CROSS_Q). */
typedef enum AttnPart {
    AP_Q, AP_K, AP_V, AP_SCORES, AP_MASK, AP_WEIGHTS, AP_HEADS, AP_CONCAT, AP_OUT,
    AP_COUNT
} AttnPart;

/* The stage of part p of the attention block whose q stage is block. */
static inline StageId stage_attn_part(StageId block, AttnPart p)
{
    return (StageId)((int)block + (int)p);
}

/* What kind of picture a stage wants. */
typedef enum StageKind {
    SK_TOKENS,  /* a column of token ids */
    SK_VECTORS, /* one d_model vector per token (embeddings, sums, outputs) */
    SK_PE,      /* the positional encoding */
    SK_QKV,     /* projections, per head or all heads */
    SK_SCORES,  /* scaled scores, signed, per head */
    SK_MASK,    /* the additive 0 / -inf mask */
    SK_WEIGHTS, /* attention probabilities, 0..1, per head */
    SK_HEADS,   /* per-head outputs / their concatenation */
    SK_ADD,     /* a residual sum */
    SK_NORM,    /* a LayerNorm output */
    SK_HIDDEN,  /* FFN hidden activations after ReLU */
    SK_LOGITS,  /* scores over the target vocabulary */
    SK_PROBS    /* output probabilities, 0..1 */
} StageKind;

enum {
    SF_LAYER = 1,     /* takes a layer index */
    SF_HEAD = 2,      /* takes a head index (required) */
    SF_HEAD_OPT = 4,  /* takes a head index; -1 means all heads */
    SF_PRE_LN = 8,    /* exists only in pre-LN models */
    SF_DECODER = 16,  /* target side (needs a decoder input) */
    SF_ENCODER = 32   /* source side */
};

typedef struct StageInfo {
    const char *name; /* e.g. "enc.self.weights" */
    StageKind kind;
    unsigned flags;
} StageInfo;

const StageInfo *stage_info(StageId id);
/* Id of a stage name, or -1. */
int stage_find(const char *name);
/* Does the stage exist for this config (pre-LN-only stages)? */
int stage_exists(StageId id, const TfConfig *cfg);
/* The first stage (q) of the attention block a stage belongs to: encoder
 * self-attention, decoder self-attention or cross-attention; stages outside
 * attention map to the block nearest before them in the walk. */
StageId stage_attn_block(StageId id);

/* Layers a stage ranges over (n_enc or n_dec), 1 if not per layer. */
int stage_layers(StageId id, const TfConfig *cfg);

typedef enum LabelKind {
    LBL_NONE, LBL_SRC, LBL_TGT, LBL_POS, LBL_DIM, LBL_VOCAB
} LabelKind;

typedef struct TfView {
    StageId stage;
    const char *name;     /* a derived stage's name (dec.lens, enc.rollout, ...);
                             NULL: stage_info(stage)->name */
    int layer, head, b;
    int rows, cols, stride;
    const float *data;    /* NULL for token stages */
    const int *ids;       /* token stages: rows ids */
    LabelKind row_kind, col_kind;
    int col0;             /* first dimension index of LBL_DIM columns */
} TfView;

/* A view of stage id for sentence b of the trace's current batch. Layer and
 * head are checked against the config; head -1 asks for all heads where the
 * stage allows it. */
int tf_view(const TfTrace *tr, StageId id, int layer, int head, int b,
            TfView *v, TfErr *err);

/* Text of row (axis 0) or column (axis 1) label i: a token, a position or a
 * dimension index. Returns buf. */
const char *tf_view_label(const TfTrace *tr, const TfModel *m,
                          const TfView *v, int axis, int i, char *buf,
                          size_t cap);

/* Value at (r, c); for token stages, the id. */
static inline float tf_view_at(const TfView *v, int r, int c)
{
    return v->data ? v->data[(size_t)r * v->stride + c] : (float)v->ids[r];
}

#endif
