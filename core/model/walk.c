/* walk.c - the stages in the order the model computes them (see walk.h). */
#include "walk.h"

typedef struct Walk {
    StagePos *out;
    int n, max;
} Walk;

static void push(Walk *w, StageId st, int layer)
{
    if (w->n < w->max)
        w->out[w->n] = (StagePos){st, layer};
    w->n++;
}

static void push_attn(Walk *w, StageId block, int layer)
{
    for (int p = 0; p < AP_COUNT; p++)
        push(w, stage_attn_part(block, (AttnPart)p), layer);
}

/* A sub-layer in the walk: its body (an attention block's nine parts, or
 * the feed-forward network's hidden and output stages), the residual add and
 * its LayerNorm: post-LN puts the norm after the add, pre-LN before the body. */
typedef struct SubLayer {
    StageId body, body2; /* body2 = ST_COUNT: body is an attention block */
    StageId add, norm;
} SubLayer;

static const SubLayer ENC_SUBS[] = {
    {ST_ENC_SELF_Q, ST_COUNT, ST_ENC_ADD1, ST_ENC_NORM1},
    {ST_ENC_FFN_HIDDEN, ST_ENC_FFN_OUT, ST_ENC_ADD2, ST_ENC_NORM2},
};
static const SubLayer DEC_SUBS[] = {
    {ST_DEC_SELF_Q, ST_COUNT, ST_DEC_ADD1, ST_DEC_NORM1},
    {ST_DEC_CROSS_Q, ST_COUNT, ST_DEC_ADD2, ST_DEC_NORM2},
    {ST_DEC_FFN_HIDDEN, ST_DEC_FFN_OUT, ST_DEC_ADD3, ST_DEC_NORM3},
};

/* n_layers layers of n_subs sub-layers, then (pre-LN) the final norm. */
static void push_stack(Walk *w, const SubLayer *subs, int n_subs, int n_layers, int pre, StageId final)
{
    for (int l = 0; l < n_layers; l++) {
        for (const SubLayer *s = subs; s < subs + n_subs; s++) {
            if (pre)
                push(w, s->norm, l);
            if (s->body2 == ST_COUNT) {
                push_attn(w, s->body, l);
            } else {
                push(w, s->body, l);
                push(w, s->body2, l);
            }
            push(w, s->add, l);
            if (!pre)
                push(w, s->norm, l);
        }
    }
    if (pre)
        push(w, final, 0);
}

int tf_walk_build(const TfConfig *c, StagePos *out, int max)
{
    Walk w = {out, 0, max < 0 ? 0 : max};
    int pre = c->norm == TF_NORM_PRE;
    static const StageId SRC[] = {ST_SRC_TOKENS, ST_SRC_EMBED, ST_POS_ENC, ST_ENC_INPUT};
    static const StageId TGT[] = {ST_TGT_TOKENS, ST_TGT_EMBED, ST_DEC_INPUT};
    for (int k = 0; k < 4; k++)
        push(&w, SRC[k], 0);
    push_stack(&w, ENC_SUBS, 2, c->n_enc, pre, ST_ENC_FINAL);
    for (int k = 0; k < 3; k++)
        push(&w, TGT[k], 0);
    push_stack(&w, DEC_SUBS, 3, c->n_dec, pre, ST_DEC_FINAL);
    push(&w, ST_OUT_LOGITS, 0);
    push(&w, ST_OUT_PROBS, 0);
    return w.n;
}
