/* blocks.c - the stage walk grouped into the blocks of the paper's Figure 1
 * ("Multi-Head Attention", "Add & Norm", "Feed Forward", ...). The
 * navigator draws blocks; the step strip above the main view shows the
 * stages inside the current block. */
#include <string.h>

#include "panels.h"

static int attn_group(StageId st)
{
    if (st >= ST_ENC_SELF_Q && st <= ST_ENC_SELF_OUT) return 1;
    if (st >= ST_DEC_SELF_Q && st <= ST_DEC_SELF_OUT) return 2;
    if (st >= ST_DEC_CROSS_Q && st <= ST_DEC_CROSS_OUT) return 3;
    return 0;
}

static int is_ffn(StageId st)
{
    return st == ST_ENC_FFN_HIDDEN || st == ST_ENC_FFN_OUT || st == ST_DEC_FFN_HIDDEN ||
           st == ST_DEC_FFN_OUT;
}

static int kind_of(StageId st)
{
    StageKind k = stage_info(st)->kind;
    if (st == ST_ENC_FINAL || st == ST_DEC_FINAL)
        return 10;
    return k == SK_ADD ? 1 : k == SK_NORM ? 2 : 0;
}

/* Do walk entries i-1 and i belong to the same block? */
static int same_block(const App *a, int i)
{
    StagePos p = a->ses.walk[i - 1], q = a->ses.walk[i];
    if (p.layer != q.layer && (stage_info(q.stage)->flags & SF_LAYER))
        return 0;
    int g = attn_group(p.stage);
    if (g)
        return g == attn_group(q.stage);
    if (is_ffn(p.stage))
        return is_ffn(q.stage);
    if (p.stage == ST_POS_ENC)
        return q.stage == ST_ENC_INPUT;
    if (p.stage == ST_OUT_LOGITS)
        return 0;
    /* post-LN: Add then Norm form "Add & Norm" */
    return kind_of(p.stage) == 1 && kind_of(q.stage) == 2 && a->ses.model.cfg.norm == TF_NORM_POST;
}

static const char *block_label(const App *a, int first, int n)
{
    StageId st = a->ses.walk[first].stage;
    switch (attn_group(st)) {
    case 1: return N_("Multi-Head Attention");
    case 2: return N_("Masked Multi-Head Attention");
    case 3: return N_("Multi-Head Attention (encoder K, V)");
    default: break;
    }
    if (is_ffn(st))
        return N_("Feed Forward");
    switch (st) {
    case ST_SRC_TOKENS: return N_("Inputs");
    case ST_TGT_TOKENS: return N_("Outputs (shifted right)");
    case ST_SRC_EMBED: return N_("Input Embedding");
    case ST_TGT_EMBED: return N_("Output Embedding");
    case ST_POS_ENC: case ST_ENC_INPUT: case ST_DEC_INPUT: return N_("⊕ Positional Encoding");
    case ST_OUT_LOGITS: return N_("Linear");
    case ST_OUT_PROBS: return N_("Softmax");
    case ST_ENC_FINAL: case ST_DEC_FINAL: return N_("LayerNorm (final)");
    default: break;
    }
    if (n == 2)
        return N_("Add & Norm");
    return kind_of(st) == 1 ? N_("Add (residual)") : N_("LayerNorm");
}

int blocks_build(const App *a, NavBlock *out, int max)
{
    int n = 0;
    for (int i = 0; i < a->ses.n_walk; i++) {
        if (i > 0 && n > 0 && same_block(a, i)) {
            out[n - 1].count++;
            continue;
        }
        if (n >= max)
            break;
        const StageInfo *si = stage_info(a->ses.walk[i].stage);
        NavBlock *b = &out[n++];
        b->first = i;
        b->count = 1;
        b->decoder = (si->flags & SF_DECODER) != 0;
        b->layer = (si->flags & SF_LAYER) ? a->ses.walk[i].layer : -1;
        b->cross = attn_group(a->ses.walk[i].stage) == 3;
    }
    for (int k = 0; k < n; k++)
        out[k].label = block_label(a, out[k].first, out[k].count);
    return n;
}

const NavBlock *blocks_of(App *a, int *n)
{
    if (a->nav.walk != a->ses.walk_id) { /* the walk changed: group it again */
        a->nav.n_blocks = blocks_build(a, a->nav.blocks, BLOCKS_MAX);
        a->nav.walk = a->ses.walk_id;
    }
    *n = a->nav.n_blocks;
    return a->nav.blocks;
}

int blocks_current(const NavBlock *b, int n, int at)
{
    for (int k = 0; k < n; k++)
        if (at >= b[k].first && at < b[k].first + b[k].count)
            return k;
    return 0;
}

const char *step_label(StageId st)
{
    static const char *label[AP_COUNT] = {
        [AP_Q] = "Q", [AP_K] = "K", [AP_V] = "V", [AP_SCORES] = "QKᵀ/√d_k", [AP_MASK] = N_("mask"),
        [AP_WEIGHTS] = "softmax", [AP_HEADS] = "A·V", [AP_CONCAT] = N_("concat"), [AP_OUT] = "·W_O"};
    static const StageId first[4] = {0, ST_ENC_SELF_Q, ST_DEC_SELF_Q, ST_DEC_CROSS_Q};
    int grp = attn_group(st);
    if (grp)
        return label[st - first[grp]];
    switch (st) {
    case ST_SRC_TOKENS: case ST_TGT_TOKENS: return N_("tokens");
    case ST_SRC_EMBED: case ST_TGT_EMBED: return "E·√d_model";
    case ST_POS_ENC: return "PE";
    case ST_ENC_INPUT: case ST_DEC_INPUT: return "E·√d + PE";
    case ST_ENC_FFN_HIDDEN: case ST_DEC_FFN_HIDDEN: return "ReLU(xW₁+b₁)";
    case ST_ENC_FFN_OUT: case ST_DEC_FFN_OUT: return "·W₂+b₂";
    case ST_OUT_LOGITS: return "logits";
    case ST_OUT_PROBS: return "softmax";
    default: break;
    }
    return kind_of(st) == 1 ? N_("Add") : N_("Norm");
}
