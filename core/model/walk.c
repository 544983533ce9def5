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

int tf_walk_build(const TfConfig *c, StagePos *out, int max)
{
    Walk w = {out, 0, max < 0 ? 0 : max};
    int pre = c->norm == TF_NORM_PRE;
    push(&w, ST_SRC_TOKENS, 0);
    push(&w, ST_SRC_EMBED, 0);
    push(&w, ST_POS_ENC, 0);
    push(&w, ST_ENC_INPUT, 0);
    for (int l = 0; l < c->n_enc; l++) {
        if (pre)
            push(&w, ST_ENC_NORM1, l);
        push_attn(&w, ST_ENC_SELF_Q, l);
        push(&w, ST_ENC_ADD1, l);
        push(&w, pre ? ST_ENC_NORM2 : ST_ENC_NORM1, l);
        push(&w, ST_ENC_FFN_HIDDEN, l);
        push(&w, ST_ENC_FFN_OUT, l);
        push(&w, ST_ENC_ADD2, l);
        if (!pre)
            push(&w, ST_ENC_NORM2, l);
    }
    if (pre)
        push(&w, ST_ENC_FINAL, 0);
    push(&w, ST_TGT_TOKENS, 0);
    push(&w, ST_TGT_EMBED, 0);
    push(&w, ST_DEC_INPUT, 0);
    for (int l = 0; l < c->n_dec; l++) {
        if (pre)
            push(&w, ST_DEC_NORM1, l);
        push_attn(&w, ST_DEC_SELF_Q, l);
        push(&w, ST_DEC_ADD1, l);
        push(&w, pre ? ST_DEC_NORM2 : ST_DEC_NORM1, l);
        push_attn(&w, ST_DEC_CROSS_Q, l);
        push(&w, ST_DEC_ADD2, l);
        push(&w, pre ? ST_DEC_NORM3 : ST_DEC_NORM2, l);
        push(&w, ST_DEC_FFN_HIDDEN, l);
        push(&w, ST_DEC_FFN_OUT, l);
        push(&w, ST_DEC_ADD3, l);
        if (!pre)
            push(&w, ST_DEC_NORM3, l);
    }
    if (pre)
        push(&w, ST_DEC_FINAL, 0);
    push(&w, ST_OUT_LOGITS, 0);
    push(&w, ST_OUT_PROBS, 0);
    return w.n;
}
