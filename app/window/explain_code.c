/* explain_code.c - the explanation panel's tabs: "Explanation" (explain.c's
 * text) and "Code", the few lines of PyTorch that compute the stage shown
 * (our own sketch, for one sentence of n tokens, in the order this program
 * runs them: post-LN as in the paper unless the model is pre-LN; Q/K/V/O
 * have biases, as nn.Linear does). On the cost view the panel says what is
 * measured instead. explain_draw calls explain_code_draw first: it draws
 * the tabs, and the code when that tab is chosen (returning 1), or leaves
 * the area below the tabs to the explanation (returning 0). */
#include <stdio.h>
#include <string.h>

#include "panels.h"

static const char *code_of(StageId st, int pre)
{
    const StageInfo *si = stage_info(st);
    int cross = st >= ST_DEC_CROSS_Q && st <= ST_DEC_CROSS_OUT;
    int dec_self = st >= ST_DEC_SELF_Q && st <= ST_DEC_SELF_OUT;
    switch (st) {
    case ST_ENC_SELF_CONCAT: case ST_DEC_SELF_CONCAT: case ST_DEC_CROSS_CONCAT:
        return "concat = heads.transpose(0, 1).reshape(n_q, h * d_v)  # (n_q, d_model)";
    case ST_ENC_SELF_OUT: case ST_DEC_SELF_OUT: case ST_DEC_CROSS_OUT:
        return "W_o = nn.Linear(h * d_v, d_model)\n"
               "out = W_o(concat)  # (n_q, d_model)";
    case ST_SRC_TOKENS:
        return "ids = torch.tensor([src_vocab[w] for w in src.split()])  # (n,)";
    case ST_TGT_TOKENS:
        return "y = torch.tensor([tgt_vocab[w] for w in tgt.split()])\n"
               "# shifted right: <bos> first, the last token dropped\n"
               "y_in = torch.cat([torch.tensor([BOS]), y])  # (m+1,)";
    case ST_POS_ENC:
        return "pos = torch.arange(n).unsqueeze(1)         # (n, 1)\n"
               "i2 = torch.arange(0, d_model, 2)           # 2i\n"
               "angle = pos / 10000 ** (i2 / d_model)      # (n, d_model/2)\n"
               "pe = torch.zeros(n, d_model)\n"
               "pe[:, 0::2] = torch.sin(angle)\n"
               "pe[:, 1::2] = torch.cos(angle)";
    case ST_ENC_FINAL: case ST_DEC_FINAL:
        return "final_norm = nn.LayerNorm(d_model)\n"
               "x = final_norm(x)  # pre-LN: once after the last layer";
    case ST_OUT_LOGITS:
        return "generator = nn.Linear(d_model, tgt_vocab_size)\n"
               "logits = generator(dec_out)  # (m+1, V)";
    case ST_OUT_PROBS:
        return "probs = torch.softmax(logits, dim=-1)  # each row sums to 1\n"
               "next_id = probs[-1].argmax()          # greedy decoding";
    default:
        break;
    }
    switch (si->kind) {
    case SK_VECTORS:
        if (st == ST_SRC_EMBED || st == ST_TGT_EMBED)
            return "emb = nn.Embedding(vocab_size, d_model)\n"
                   "x = emb(ids) * math.sqrt(d_model)  # (n, d_model)";
        if (st == ST_ENC_INPUT || st == ST_DEC_INPUT)
            return "x = emb(ids) * math.sqrt(d_model) + pe[:n]\n"
                   "x = dropout(x)  # p = 0.1, training only";
        break;
    case SK_QKV:
        if (cross)
            return "# queries from the decoder, keys and values from the encoder\n"
                   "q = W_q(y)       # nn.Linear(d_model, d_model)\n"
                   "k = W_k(memory)  # memory: the encoder's output\n"
                   "v = W_v(memory)\n"
                   "q = q.view(-1, h, d_k).transpose(0, 1)  # (h, m, d_k)";
        return "q, k, v = W_q(x), W_k(x), W_v(x)  # nn.Linear(d_model, d_model)\n"
               "# split into h heads of d_k = d_model / h\n"
               "q = q.view(n, h, d_k).transpose(0, 1)  # (h, n, d_k)\n"
               "k = k.view(n, h, d_k).transpose(0, 1)\n"
               "v = v.view(n, h, d_k).transpose(0, 1)";
    case SK_SCORES:
        return "scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # (h, n_q, n_k)";
    case SK_MASK:
        if (dec_self)
            return "# a query may not see later positions (causal mask)\n"
                   "mask = torch.triu(torch.full((m, m), float('-inf')), diagonal=1)\n"
                   "mask[:, tgt_len:] = float('-inf')  # padded keys too";
        return "mask = torch.zeros(n_q, n_k)\n"
               "mask[:, src_len:] = float('-inf')  # padded source keys";
    case SK_WEIGHTS:
        return "weights = torch.softmax(scores + mask, dim=-1)  # (h, n_q, n_k)\n"
               "weights = dropout(weights)  # p = 0.1, training only";
    case SK_HEADS:
        return "heads = weights @ v  # (h, n_q, d_v): each row a weighted average of values";
    case SK_ADD:
        return pre ? "# pre-LN: the sublayer reads LayerNorm(x)\n"
                     "x = x + dropout(sublayer(norm(x)))"
                   : "s = x + dropout(sublayer_out)  # the residual connection, p = 0.1";
    case SK_NORM:
        return pre ? "norm = nn.LayerNorm(d_model)\n"
                     "h_in = norm(x)  # what the next sublayer reads"
                   : "norm = nn.LayerNorm(d_model)\n"
                     "x = norm(s)  # post-LN, as in the paper: LayerNorm(x + Sublayer(x))";
    case SK_HIDDEN:
        return "W_1 = nn.Linear(d_model, d_ff)\n"
               "hidden = torch.relu(W_1(x))  # (n, d_ff)";
    default:
        break;
    }
    if (st == ST_ENC_FFN_OUT || st == ST_DEC_FFN_OUT)
        return "W_2 = nn.Linear(d_ff, d_model)\n"
               "out = W_2(hidden)  # (n, d_model)";
    return NULL;
}

const char *explain_code(StageId st, int pre)
{
    return code_of(st, pre);
}

/* The cost view: how the figures are made, and the same in PyTorch. */
static const char *COST_CODE =
    "x = torch.randn(n, d_model)\n"
    "t0 = time.perf_counter()\n"
    "q, k, v = W_q(x), W_k(x), W_v(x)   # n·d² each\n"
    "w = torch.softmax(q @ k.T / math.sqrt(d_k), -1)  # n²·d\n"
    "out = W_o(w @ v)                   # n²·d + n·d²\n"
    "t_attn = time.perf_counter() - t0\n"
    "ffn = W_2(torch.relu(W_1(x)))      # 2·n·d·d_ff";

static void draw_cost_text(ViewCtx *v, Rect rc)
{
    int x = rc.x + 14, w = rc.w - 24, y = rc.y + 8;
    y += ui_paragraph(v->r, v->g->title, _("What attention costs"), x, y, w, v->th->text) + 8;
    ui_paragraph(v->r, v->g->ui,
                 _("Self-attention compares every token with every other: its scores and weights are n × n per "
                   "head, so doubling n makes them four times bigger, while the FFN works on each token alone and "
                   "only doubles. Both pay about n·d² for their linear layers, so at short n the FFN costs more. "
                   "Table 1 counts only the part that mixes positions: what self-attention wins over a recurrent "
                   "layer is O(1) sequential steps and path length instead of O(n)."),
                 x, y, w, v->th->text);
}

int explain_code_draw(ViewCtx *v)
{
    App *a = win_app(v);
    const Theme *th = v->th;
    Rect rc = v->area;
    StagePos p = app_pos(a);
    ViewId view = app_current_view(a);
    int pre = a->ses.model.cfg.norm == TF_NORM_PRE;
    const char *code = view == VIEW_COST ? COST_CODE
                       : view == VIEW_DECODE || view == VIEW_TRAIN ? NULL
                                                                    : code_of(p.stage, pre);
    if (!code) { /* nothing to show in code: the explanation alone */
        if (view == VIEW_COST)
            draw_cost_text(v, rc);
        return view == VIEW_COST;
    }
    RenFont *f = v->g->small;
    int bh = ren_font_height(f) + 8, x = rc.x + 14, y = rc.y + 8;
    const char *tabs[2] = {_("Explanation"), _("Code")};
    for (int i = 0; i < 2; i++) {
        int w = ren_text_width(f, tabs[i]) + 18;
        if (ui_button(v, (Rect){x, y, w, bh}, tabs[i], a->explain_tab == i))
            a->explain_tab = i;
        x += w + 4;
    }
    Rect below = {rc.x, y + bh + 2, rc.w, rc.h - bh - 10};
    if (a->explain_tab != 1) {
        if (view == VIEW_COST) {
            draw_cost_text(v, below);
            return 1;
        }
        v->area = below; /* the explanation, under the tabs */
        return 0;
    }
    x = rc.x + 14;
    int w = rc.w - 24;
    y = below.y + 8;
    const char *title = view == VIEW_COST ? _("The cost, measured in PyTorch") : _("This stage in PyTorch");
    y += ui_paragraph(v->r, v->g->ui, title, x, y, w, th->text) + 4;
    y += ui_paragraph(v->r, f, _("Our own sketch for one sentence; the program computes the same in C."), x, y, w,
                      th->dim) + 8;
    int ch = ui_paragraph_height(v->g->mono, code, w - 16);
    ren_rect(v->r, (Rect){x, y, w, ch + 16}, th->bg);
    ren_rect_line(v->r, (Rect){x, y, w, ch + 16}, 1, th->border);
    ui_paragraph(v->r, v->g->mono, code, x + 8, y + 8, w - 16, th->accent);
    if (view != VIEW_COST)
        ren_text(v->r, f, stage_info(p.stage)->name, x, y + ch + 24, th->dim);
    return 1;
}
