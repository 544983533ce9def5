/* stage.c - the stage table and views into a trace (see stage.h). */
#include "stage.h"

#include <stdio.h>
#include <string.h>

#define L SF_LAYER
#define E SF_ENCODER
#define D SF_DECODER
/* An attention block's nine stages (ID_Q .. ID_OUT, named NAME.q ..
 * NAME.out), in the order attn_view numbers them */
#define ATTN_STAGES(ID, NAME, SIDE)                                         \
    [ID##_Q] = {NAME ".q", SK_QKV, SIDE | L | SF_HEAD_OPT},                 \
    [ID##_K] = {NAME ".k", SK_QKV, SIDE | L | SF_HEAD_OPT},                 \
    [ID##_V] = {NAME ".v", SK_QKV, SIDE | L | SF_HEAD_OPT},                 \
    [ID##_SCORES] = {NAME ".scores", SK_SCORES, SIDE | L | SF_HEAD},        \
    [ID##_MASK] = {NAME ".mask", SK_MASK, SIDE | L},                        \
    [ID##_WEIGHTS] = {NAME ".weights", SK_WEIGHTS, SIDE | L | SF_HEAD},     \
    [ID##_HEADS] = {NAME ".heads", SK_HEADS, SIDE | L | SF_HEAD_OPT},       \
    [ID##_CONCAT] = {NAME ".concat", SK_HEADS, SIDE | L},                   \
    [ID##_OUT] = {NAME ".out", SK_VECTORS, SIDE | L},
/* A residual sum and the LayerNorm after it: NAME.addN, NAME.normN */
#define ADD_NORM(ID, NAME, N, SIDE)                                         \
    [ID##_ADD##N] = {NAME ".add" #N, SK_ADD, SIDE | L},                     \
    [ID##_NORM##N] = {NAME ".norm" #N, SK_NORM, SIDE | L},
/* The feed-forward net: its hidden layer after ReLU and its output */
#define FFN_STAGES(ID, NAME, SIDE)                                          \
    [ID##_FFN_HIDDEN] = {NAME ".ffn.hidden", SK_HIDDEN, SIDE | L},          \
    [ID##_FFN_OUT] = {NAME ".ffn.out", SK_VECTORS, SIDE | L},
/* In computing order, as the paper's figure draws a layer: each sublayer
 * (attention, the feed-forward net) followed by its Add & Norm. */
static const StageInfo STAGES[ST_COUNT] = {
    [ST_SRC_TOKENS] = {"src.tokens", SK_TOKENS, E},
    [ST_SRC_EMBED] = {"src.embed", SK_VECTORS, E},
    [ST_POS_ENC] = {"pos.enc", SK_PE, 0},
    [ST_ENC_INPUT] = {"enc.input", SK_VECTORS, E},
    ATTN_STAGES(ST_ENC_SELF, "enc.self", E)
    ADD_NORM(ST_ENC, "enc", 1, E)
    FFN_STAGES(ST_ENC, "enc", E)
    ADD_NORM(ST_ENC, "enc", 2, E)
    [ST_ENC_FINAL] = {"enc.final_norm", SK_NORM, E | SF_PRE_LN},
    [ST_TGT_TOKENS] = {"tgt.tokens", SK_TOKENS, D},
    [ST_TGT_EMBED] = {"tgt.embed", SK_VECTORS, D},
    [ST_DEC_INPUT] = {"dec.input", SK_VECTORS, D},
    ATTN_STAGES(ST_DEC_SELF, "dec.self", D)
    ADD_NORM(ST_DEC, "dec", 1, D)
    ATTN_STAGES(ST_DEC_CROSS, "dec.cross", D)
    ADD_NORM(ST_DEC, "dec", 2, D)
    FFN_STAGES(ST_DEC, "dec", D)
    ADD_NORM(ST_DEC, "dec", 3, D)
    [ST_DEC_FINAL] = {"dec.final_norm", SK_NORM, D | SF_PRE_LN},
    [ST_OUT_LOGITS] = {"out.logits", SK_LOGITS, D},
    [ST_OUT_PROBS] = {"out.probs", SK_PROBS, D},
};
#undef ATTN_STAGES
#undef ADD_NORM
#undef FFN_STAGES
#undef L
#undef E
#undef D

const StageInfo *stage_info(StageId id)
{
    if ((int)id < 0 || id >= ST_COUNT)
        return NULL;
    return &STAGES[id];
}

int stage_find(const char *name)
{
    for (int i = 0; i < ST_COUNT; i++)
        if (strcmp(STAGES[i].name, name) == 0)
            return i;
    return -1;
}

int stage_exists(StageId id, const TfConfig *cfg)
{
    if ((int)id < 0 || id >= ST_COUNT)
        return 0;
    if ((STAGES[id].flags & SF_PRE_LN) && cfg->norm != TF_NORM_PRE)
        return 0;
    return 1;
}

StageId stage_attn_block(StageId id)
{
    if (id >= ST_DEC_CROSS_Q)
        return ST_DEC_CROSS_Q;
    if (id >= ST_TGT_TOKENS)
        return ST_DEC_SELF_Q;
    return ST_ENC_SELF_Q;
}

int stage_layers(StageId id, const TfConfig *cfg)
{
    unsigned f = STAGES[id].flags;
    if (!(f & SF_LAYER))
        return 1;
    return (f & SF_DECODER) ? cfg->n_dec : cfg->n_enc;
}

/* A (rows, cols) window at base for sentence b of a (B, rows, stride) buffer */
static void set_mat(TfView *v, const float *base, int b, int rows, int cols,
                    int stride, LabelKind rk, LabelKind ck)
{
    v->data = base + (size_t)b * rows * stride;
    v->rows = rows;
    v->cols = cols;
    v->stride = stride;
    v->row_kind = rk;
    v->col_kind = ck;
}

/* q, k, v or heads: all heads (head -1) or columns of one head */
static void set_heads(TfView *v, const float *base, int b, int rows,
                      int stride, int C, int dk, int head, LabelKind rk)
{
    set_mat(v, base, b, rows, head < 0 ? C : dk, stride, rk, LBL_DIM);
    if (head >= 0) {
        v->data += (size_t)head * dk;
        v->col0 = head * dk;
    }
}

static void attn_view(TfView *v, const AttnAct *a, int which, int b, int head,
                      int Tq, int Tk, int C, int NH, LabelKind qk, LabelKind kk)
{
    int dk = C / NH;
    size_t hw = (size_t)Tq * Tk;
    switch (which) {
    case 0: set_heads(v, a->q, b, Tq, a->qs, C, dk, head, qk); break;
    case 1: set_heads(v, a->k, b, Tk, a->kvs, C, dk, head, kk); break;
    case 2: set_heads(v, a->v, b, Tk, a->kvs, C, dk, head, kk); break;
    case 3:
        set_mat(v, a->scores + ((size_t)b * NH + head) * hw, 0, Tq, Tk, Tk, qk, kk);
        break;
    case 4: set_mat(v, a->mask + (size_t)b * hw, 0, Tq, Tk, Tk, qk, kk); break;
    case 5:
        set_mat(v, a->weights + ((size_t)b * NH + head) * hw, 0, Tq, Tk, Tk, qk, kk);
        break;
    case 6: set_heads(v, a->heads, b, Tq, C, C, dk, head, qk); break;
    case 7: set_heads(v, a->heads, b, Tq, C, C, dk, -1, qk); break;
    default: set_mat(v, a->out, b, Tq, C, C, qk, LBL_DIM); break;
    }
}

static int check_args(const TfTrace *tr, StageId id, int *layer, int *head,
                      int b, TfErr *err)
{
    const TfConfig *c = &tr->cfg;
    const StageInfo *si = stage_info(id);
    if (!si)
        return tf_fail(err, "unknown stage %d", (int)id);
    if (!(tr->flags & TRACE_RECORD))
        return tf_fail(err, "this trace was computed without recording stages");
    if (!stage_exists(id, c))
        return tf_fail(err, "stage %s exists only in pre-LN models", si->name);
    if (tr->B < 1 || tr->S < 1)
        return tf_fail(err, "nothing has been computed yet");
    if ((si->flags & SF_DECODER) && tr->T < 1)
        return tf_fail(err, "stage %s needs a decoder input", si->name);
    if (b < 0 || b >= tr->B)
        return tf_fail(err, "sentence %d is not in the batch (0..%d)", b, tr->B - 1);
    int nl = stage_layers(id, c);
    if (!(si->flags & SF_LAYER))
        *layer = 0;
    else if (*layer < 0 || *layer >= nl)
        return tf_fail(err, "layer %d is out of range for %s (0..%d)", *layer,
                       si->name, nl - 1);
    if (si->flags & SF_HEAD) {
        if (*head < 0 || *head >= c->n_heads)
            return tf_fail(err, "stage %s needs a head in 0..%d", si->name,
                           c->n_heads - 1);
    } else if (si->flags & SF_HEAD_OPT) {
        if (*head < -1 || *head >= c->n_heads)
            return tf_fail(err, "head %d is out of range (0..%d, or -1 for all)",
                           *head, c->n_heads - 1);
    } else {
        *head = -1;
    }
    return 0;
}

/* The Add & Norm whose sum or norm stage id is, or NULL */
static const NormAct *add_norm(const TfTrace *tr, StageId id, int layer)
{
    const EncLayerAct *e = &tr->enc[layer];
    const DecLayerAct *d = &tr->dec[layer];
    switch (id) {
    case ST_ENC_ADD1: case ST_ENC_NORM1: return &e->n1;
    case ST_ENC_ADD2: case ST_ENC_NORM2: return &e->n2;
    case ST_ENC_FINAL: return &tr->enc_final;
    case ST_DEC_ADD1: case ST_DEC_NORM1: return &d->n1;
    case ST_DEC_ADD2: case ST_DEC_NORM2: return &d->n2;
    case ST_DEC_ADD3: case ST_DEC_NORM3: return &d->n3;
    case ST_DEC_FINAL: return &tr->dec_final;
    default: return NULL;
    }
}

/* The (B, rows, cols) buffer of a stage shown as one row per token, or NULL
 * for the others (tokens, the positional encoding, attention) */
static const float *row_buffer(const TfTrace *tr, StageId id, int layer)
{
    const NormAct *n = add_norm(tr, id, layer);
    if (n)
        return STAGES[id].kind == SK_ADD ? n->sum : n->norm;
    int dec = (STAGES[id].flags & SF_DECODER) != 0;
    switch (id) {
    case ST_SRC_EMBED: return tr->src_embed;
    case ST_ENC_INPUT: return tr->enc_in;
    case ST_TGT_EMBED: return tr->tgt_embed;
    case ST_DEC_INPUT: return tr->dec_in;
    case ST_ENC_FFN_HIDDEN:
    case ST_DEC_FFN_HIDDEN: return dec ? tr->dec[layer].ffn_hidden : tr->enc[layer].ffn_hidden;
    case ST_ENC_FFN_OUT:
    case ST_DEC_FFN_OUT: return dec ? tr->dec[layer].ffn_out : tr->enc[layer].ffn_out;
    case ST_OUT_LOGITS: return tr->logits;
    case ST_OUT_PROBS: return tr->probs;
    default: return NULL;
    }
}

int tf_view(const TfTrace *tr, StageId id, int layer, int head, int b,
            TfView *v, TfErr *err)
{
    if (check_args(tr, id, &layer, &head, b, err))
        return -1;
    const TfConfig *c = &tr->cfg;
    const StageInfo *si = &STAGES[id];
    int S = tr->S, T = tr->T, C = c->d_model, NH = c->n_heads;
    memset(v, 0, sizeof *v);
    v->stage = id;
    v->layer = layer;
    v->head = head;
    v->b = b;
    int dec = (si->flags & SF_DECODER) != 0, rows = dec ? T : S;
    LabelKind rk = dec ? LBL_TGT : LBL_SRC;
    const float *buf = row_buffer(tr, id, layer);
    if (buf) {
        int out = si->kind == SK_LOGITS || si->kind == SK_PROBS;
        int cols = out ? c->tgt_vocab : si->kind == SK_HIDDEN ? c->d_ff : C;
        set_mat(v, buf, b, rows, cols, cols, rk, out ? LBL_VOCAB : LBL_DIM);
        return 0;
    }
    StageId blk = stage_attn_block(id);
    if (id >= blk && id <= blk + (ST_ENC_SELF_OUT - ST_ENC_SELF_Q)) {
        int cross = blk == ST_DEC_CROSS_Q;
        const AttnAct *a = !dec ? &tr->enc[layer].sa : cross ? &tr->dec[layer].ca : &tr->dec[layer].sa;
        attn_view(v, a, id - blk, b, head, rows, cross ? S : rows, C, NH, rk, cross ? LBL_SRC : rk);
        return 0;
    }
    switch (id) {
    case ST_SRC_TOKENS:
    case ST_TGT_TOKENS:
        v->ids = dec ? tr->tgt_ids + (size_t)b * T : tr->src_ids + (size_t)b * S;
        v->rows = rows; v->cols = 1; v->stride = 1;
        v->row_kind = rk;
        break;
    case ST_POS_ENC:
        set_mat(v, tr->pe, 0, S > T ? S : T, C, C, LBL_POS, LBL_DIM);
        break;
    default:
        return tf_fail(err, "unknown stage %d", (int)id);
    }
    return 0;
}

const char *tf_view_label(const TfTrace *tr, const TfModel *m,
                          const TfView *v, int axis, int i, char *buf,
                          size_t cap)
{
    LabelKind k = axis ? v->col_kind : v->row_kind;
    switch (k) {
    case LBL_SRC:
        if (i >= 0 && i < tr->S)
            snprintf(buf, cap, "%s",
                     vocab_token(&m->src_vocab, tr->src_ids[(size_t)v->b * tr->S + i]));
        else
            snprintf(buf, cap, "?");
        break;
    case LBL_TGT:
        if (i >= 0 && i < tr->T)
            snprintf(buf, cap, "%s",
                     vocab_token(&m->tgt_vocab, tr->tgt_ids[(size_t)v->b * tr->T + i]));
        else
            snprintf(buf, cap, "?");
        break;
    case LBL_VOCAB: snprintf(buf, cap, "%s", vocab_token(&m->tgt_vocab, i)); break;
    case LBL_POS: snprintf(buf, cap, "%d", i); break;
    case LBL_DIM: snprintf(buf, cap, "%d", v->col0 + i); break;
    default: snprintf(buf, cap, "%d", i); break;
    }
    return buf;
}
