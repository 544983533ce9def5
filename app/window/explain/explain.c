/* explain.c - the explanation panel: what the current stage computes in two
 * or three sentences, its formula in plain Unicode, the tensor's shape, and
 * for the cell under the mouse how that exact number was computed from the
 * numbers before it (all read from the trace, nothing recomputed apart from
 * the arithmetic being shown). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "explain_model.h"
#include "expl_stage.h"
#include "panels.h"
#include "view_decode.h"

typedef struct Expl {
    const char *title, *formula, *text;
} Expl;

/* A stage's or a view's words (expl_stage.c) for a post-LN or pre-LN model. */
static Expl expl_of(const StageText *t, int pre)
{
    return (Expl){t->title, expl_pick(pre, t->formula, t->formula_pre), expl_pick(pre, t->text, t->text_pre)};
}

_Static_assert(DEC_PANE_GEN == 0 && EXPL_DEC_GEN + DEC_PANE_COUNT == EXPL_TRAIN, "the panes' words in DecPane's order");

/* The view's own words where the view explains itself (the Decode tab the
 * pane it shows), or NULL: the stage's. */
static const StageText *view_words(const App *a, ViewId view, StageId st)
{
    if (view == VIEW_TRAIN)
        return expl_view(EXPL_TRAIN);
    if (view == VIEW_DECODE) {
        const DecodeUi *d = a->vstate[VIEW_DECODE];
        return expl_view(EXPL_DEC_GEN + (d && d->pane < DEC_PANE_COUNT ? d->pane : DEC_PANE_GEN));
    }
    if (view == VIEW_LENS)
        return expl_view(EXPL_LENS);
    if (view == VIEW_QKMAP)
        return expl_view(EXPL_QKMAP);
    if (a->rollout && (view == VIEW_MATRIX || view == VIEW_LINES) && stage_info(st)->kind == SK_WEIGHTS &&
        stage_attn_block(st) != ST_DEC_SELF_Q)
        return expl_view(stage_attn_block(st) == ST_DEC_CROSS_Q ? EXPL_ROLLOUT_CROSS : EXPL_ROLLOUT);
    return NULL;
}

/* ---- how the hovered number was computed ---- */

static int vec_text(char *buf, size_t cap, const float *x, int n, int stride)
{
    int k = snprintf(buf, cap, "(");
    for (int i = 0; i < n && i < 4 && (size_t)k < cap; i++)
        k += snprintf(buf + k, cap - (size_t)k, "%s%.3f", i ? ", " : "", x[(size_t)i * stride]);
    if (n > 4 && (size_t)k < cap)
        k += snprintf(buf + k, cap - (size_t)k, _(", … %d dims"), n);
    if ((size_t)k < cap)
        k += snprintf(buf + k, cap - (size_t)k, ")");
    return k;
}

/* The attention block a stage belongs to. */
static const AttnAct *attn_of(const TfTrace *tr, StageId st, int layer, int *Tq, int *Tk)
{
    if (st >= ST_ENC_SELF_Q && st <= ST_ENC_SELF_OUT) {
        *Tq = *Tk = tr->S;
        return &tr->enc[layer].sa;
    }
    if (st >= ST_DEC_SELF_Q && st <= ST_DEC_SELF_OUT) {
        *Tq = *Tk = tr->T;
        return &tr->dec[layer].sa;
    }
    if (st >= ST_DEC_CROSS_Q && st <= ST_DEC_CROSS_OUT) {
        *Tq = tr->T;
        *Tk = tr->S;
        return &tr->dec[layer].ca;
    }
    return NULL;
}

static int how_attention(const App *a, const Hover *h, char *buf, size_t cap)
{
    const TfTrace *tr = app_shown_trace(a); /* the normal pass beside an experiment in D's normal mode */
    const TfConfig *c = &a->ses.model.cfg;
    int Tq, Tk, NH = c->n_heads, dk = c->d_model / NH, C = c->d_model;
    const AttnAct *at = attn_of(tr, h->stage, h->layer, &Tq, &Tk);
    if (!at || h->head < 0)
        return 0;
    int b = h->b, i = h->row, j = h->col, hd = h->head;
    const float *q = at->q + ((size_t)b * Tq + i) * at->qs + hd * dk;
    const float *k = at->k + ((size_t)b * Tk + j) * at->kvs + hd * dk;
    double dot = 0;
    for (int d = 0; d < dk; d++)
        dot += (double)q[d] * k[d];
    size_t cell = (((size_t)b * NH + hd) * Tq + i) * Tk + j;
    float score = at->scores[cell], mask = at->mask[((size_t)b * Tq + i) * Tk + j];
    const float *wrow = at->weights + (((size_t)b * NH + hd) * Tq + i) * Tk;
    const float *srow = at->scores + (((size_t)b * NH + hd) * Tq + i) * Tk;
    const float *mrow = at->mask + ((size_t)b * Tq + i) * Tk;
    double mx = -INFINITY, sum = 0;
    for (int t = 0; t < Tk; t++)
        if (srow[t] + mrow[t] > mx)
            mx = srow[t] + mrow[t];
    for (int t = 0; t < Tk; t++)
        if (isfinite(srow[t] + mrow[t]))
            sum += exp(srow[t] + mrow[t] - mx);
    char qs[160], ks[160];
    vec_text(qs, sizeof qs, q, dk, 1);
    vec_text(ks, sizeof ks, k, dk, 1);
    int n = tr->exp.no_scale
                ? snprintf(buf, cap, _("q_%d = %s\nk_%d = %s\nq·k = %.5f\nnot divided by √d_k (experiment) → score %.5f\n"),
                           i, qs, j, ks, dot, score)
                : snprintf(buf, cap, _("q_%d = %s\nk_%d = %s\nq·k = %.5f\n÷ √d_k = √%d = %.4f → score %.5f\n"),
                           i, qs, j, ks, dot, dk, sqrt((double)dk), score);
    if (isinf(mask))
        n += snprintf(buf + n, cap - (size_t)n, "%s", _("mask = −∞ → weight exactly 0\n"));
    else
        n += snprintf(buf + n, cap - (size_t)n, _("mask = 0\nsoftmax: e^(%.4f − %.4f) / %.5f = %.6f\n"),
                      score, mx, sum, exp(score - mx) / sum);
    n += snprintf(buf + n, cap - (size_t)n, _("weight = %.6f; the row sums to 1\n"), wrow[j]);
    (void)C;
    return n;
}

static int how_norm(const App *a, const Hover *h, char *buf, size_t cap)
{
    const TfTrace *tr = &a->ses.trace;
    const TfParams *p = &a->ses.model.p;
    int C = a->ses.model.cfg.d_model, pre = a->ses.model.cfg.norm == TF_NORM_PRE;
    const NormAct *na = NULL;
    const float *w = NULL, *bb = NULL;
    int T = tr->S, l = h->layer;
    switch (h->stage) {
    case ST_ENC_NORM1: na = &tr->enc[l].n1; w = p->enc_ln1_w; bb = p->enc_ln1_b; break;
    case ST_ENC_NORM2: na = &tr->enc[l].n2; w = p->enc_ln2_w; bb = p->enc_ln2_b; break;
    case ST_DEC_NORM1: na = &tr->dec[l].n1; w = p->dec_ln1_w; bb = p->dec_ln1_b; T = tr->T; break;
    case ST_DEC_NORM2: na = &tr->dec[l].n2; w = p->dec_ln2_w; bb = p->dec_ln2_b; T = tr->T; break;
    case ST_DEC_NORM3: na = &tr->dec[l].n3; w = p->dec_ln3_w; bb = p->dec_ln3_b; T = tr->T; break;
    default: return 0;
    }
    w += (size_t)l * C;
    bb += (size_t)l * C;
    size_t row = (size_t)h->b * T + h->row;
    float mean = na->mean[row], rstd = na->rstd[row];
    /* the LN input: post-LN normalises the residual sum; pre-LN the block input */
    float x = pre ? (h->value - bb[h->col]) / (w[h->col] * rstd) + mean
                  : na->sum[row * C + h->col];
    return snprintf(buf, cap, _("μ = %.5f, σ = %.5f over %d dims\n(x − μ)/σ = (%.5f − %.5f) × %.4f\n× γ %.4f + β %.4f\n= %.6f%s"),
                    mean, 1.0 / rstd, C, x, mean, rstd, w[h->col], bb[h->col], h->value,
                    pre ? _("\n(pre-LN: x is this sub-layer's input)") : "");
}

static int how_probs(const App *a, const Hover *h, char *buf, size_t cap)
{
    const TfTrace *tr = &a->ses.trace;
    int V = a->ses.model.cfg.tgt_vocab;
    const float *z = tr->logits + ((size_t)h->b * tr->T + h->row) * V;
    double mx = -INFINITY, sum = 0;
    for (int v = 0; v < V; v++)
        if (z[v] > mx)
            mx = z[v];
    for (int v = 0; v < V; v++)
        sum += exp(z[v] - mx);
    return snprintf(buf, cap, _("logit z = %.5f\nsoftmax: e^(z − max) / Σ = e^(%.4f) / %.4f\n= %.6f"),
                    z[h->col], z[h->col] - mx, sum, exp(z[h->col] - mx) / sum);
}

static int how(const App *a, char *buf, size_t cap)
{
    const Hover *h = &a->hover;
    const StageInfo *si = stage_info(h->stage);
    const TfConfig *c = &a->ses.model.cfg;
    int k = explain_model_how(a, buf, cap);
    if (k > 0)
        return k;
    switch (si->kind) {
    case SK_WEIGHTS: case SK_SCORES: return how_attention(a, h, buf, cap);
    case SK_NORM: return how_norm(a, h, buf, cap);
    case SK_PROBS: return how_probs(a, h, buf, cap);
    case SK_MASK:
        return snprintf(buf, cap, "%s",
                        !isinf(h->value) ? _("0: the query may attend to this key")
                        : h->stage == ST_DEC_SELF_MASK && h->col > h->row
                            ? _("−∞: this key is in the future, so it gets weight 0")
                            : _("−∞: this key is padding, so it gets weight 0"));
    case SK_PE: {
        int i2 = h->col / 2 * 2;
        double ang = h->row / pow(10000.0, (double)i2 / c->d_model);
        return snprintf(buf, cap, "%s(%d / 10000^(%d/%d))\n= %s(%.5f) = %.6f", h->col % 2 ? "cos" : "sin",
                        h->row, i2, c->d_model, h->col % 2 ? "cos" : "sin", ang, h->value);
    }
    case SK_HIDDEN:
        return snprintf(buf, cap, h->value == 0 ? _("ReLU output 0: x·W₁ + b₁ was ≤ 0 here") : _("ReLU passed a positive value: %.6f"), h->value);
    default:
        return 0;
    }
}

/* The stage's formula as the experiment on changes it (English, for _()),
 * or NULL where the experiment leaves it as the paper writes it (pre: a
 * pre-LN model). */
static const char *exp_formula(const TfExperiment *e, StageId st, int pre)
{
    int scores = st == ST_ENC_SELF_SCORES || st == ST_DEC_SELF_SCORES || st == ST_DEC_CROSS_SCORES;
    int weights = st == ST_ENC_SELF_WEIGHTS || st == ST_DEC_SELF_WEIGHTS || st == ST_DEC_CROSS_WEIGHTS;
    int heads = st == ST_ENC_SELF_HEADS || st == ST_DEC_SELF_HEADS || st == ST_DEC_CROSS_HEADS ||
                st == ST_ENC_SELF_CONCAT || st == ST_DEC_SELF_CONCAT || st == ST_DEC_CROSS_CONCAT;
    int src_keys = st == ST_ENC_SELF_MASK || st == ST_DEC_CROSS_MASK;
    if (e->no_scale && scores)
        return N_("S = Q_h·K_hᵀ   (experiment: not divided by √d_k)");
    if (e->no_scale && weights)
        return N_("A = softmax(QKᵀ + M)   (experiment: no 1/√d_k)");
    if (e->n_ablate && weights) /* why a difference of an ablated head's weights is all 0 */
        return N_("A = softmax(QKᵀ/√d_k + M): an ablated head keeps these weights; the experiment zeroes its "
                  "A·V after them");
    if (e->n_hide && src_keys)
        return N_("M[i,j] = −∞ if key j is <pad> or a hidden source token (experiment)");
    if (e->no_causal && st == ST_DEC_SELF_MASK)
        return N_("M[i,j] = −∞ if key j is <pad>   (experiment: no causal mask)");
    if (e->n_ablate && heads)
        return N_("head_h = A_h·V_h, and 0 for an ablated head (experiment)");
    int add = st == ST_ENC_ADD1 || st == ST_ENC_ADD2 || st == ST_DEC_ADD1 || st == ST_DEC_ADD2 || st == ST_DEC_ADD3;
    int norm = st == ST_ENC_NORM1 || st == ST_ENC_NORM2 || st == ST_DEC_NORM1 || st == ST_DEC_NORM2 ||
               st == ST_DEC_NORM3;
    if (e->no_residual && add)
        return pre ? N_("Sublayer(LN(x)) alone   (experiment: no residual, x is not added)")
                   : N_("Sublayer(x) alone   (experiment: no residual, x is not added)");
    if (e->no_residual && norm && !pre)
        return N_("LN(Sublayer(x))   (experiment: no residual, x is not added)");
    if (e->no_pe && (st == ST_ENC_INPUT || st == ST_DEC_INPUT))
        return N_("x = E[token]·√d   (experiment: no positional encoding)");
    return NULL;
}

/* The box's words: 0 when the mouse is over no cell whose computation can
 * be told, else its title and the sums (in buf) and the height they take
 * at width w, in the monospaced font, or in the small one (*f) when that
 * is taller than room. */
static int how_text(UiCtx *ui, App *a, int w, int room, char *buf, size_t cap, const char **title, RenFont **f)
{
    if (!a->hover.valid || a->hover.own || a->hover.stage != app_pos(a).stage)
        return 0;
    if (how(a, buf, cap) <= 0)
        return 0;
    *title = _("How this number was computed");
    int th = ui_paragraph_height(ui->g->ui, *title, w - 20) + 18;
    *f = ui->g->mono;
    int h = th + ui_paragraph_height(*f, buf, w - 28);
    if (h > room && ui->g->small) { /* large text in a small window: the sums whole in the small font */
        *f = ui->g->small;
        h = th + ui_paragraph_height(*f, buf, w - 28);
    }
    return h;
}

int explain_how_height(UiCtx *ui, App *a, int w)
{
    char buf[1200];
    const char *title;
    RenFont *f;
    return how_text(ui, a, w, 1 << 30, buf, sizeof buf, &title, &f);
}

int explain_how_box(UiCtx *ui, App *a, Rect area, int keep)
{
    a->expl.how_need = a->expl.how_h = 0;
    char buf[1200];
    const char *title = NULL;
    RenFont *f = NULL;
    int h = how_text(ui, a, area.w, area.h - keep, buf, sizeof buf, &title, &f);
    if (!h)
        return 0;
    const Theme *th = ui->th;
    int x = area.x + 10, w = area.w - 20;
    /* the room the sums need, up to all of the area but `keep` at its top:
     * the box is there while the mouse is over a cell, and what it covers
     * comes back when the mouse leaves */
    int cap = area.h - keep;
    a->expl.how_need = h;
    if (h > cap) /* a very small window: the end of the sums is cut */
        h = cap;
    a->expl.how_h = h;
    Rect box = {area.x + 4, area.y + area.h - h, area.w - 8, h};
    ren_rect(ui->r, box, th->panel2);
    ren_rect_line(ui->r, box, 1, th->select);
    ren_clip_push(ui->r, box);
    int y = box.y + 6;
    y += ui_paragraph(ui->r, ui->g->ui, title, x, y, w, th->select) + 4;
    ui_paragraph(ui->r, f, buf, x + 4, y, w - 8, th->text);
    ren_clip_pop(ui->r);
    return h + 4;
}

void panel_scroll_bar(UiCtx *ui, Rect area, int content, int off)
{
    const Theme *th = ui->th;
    int max_scroll = content - area.h;
    if (max_scroll <= 0 || area.h <= 0)
        return;
    int bh = area.h * area.h / content, sh = ren_font_height(ui->g->small);
    int by = area.y + (area.h - bh) * off / max_scroll;
    ren_rect(ui->r, (Rect){area.x + area.w - 6, area.y, 3, area.h}, th->panel2);
    ren_rect(ui->r, (Rect){area.x + area.w - 6, by, 3, bh}, th->accent);
    if (off < max_scroll)
        ren_text(ui->r, ui->g->small, "▼", area.x + area.w - 22, area.y + area.h - sh, th->accent);
}

void explain_draw(UiCtx *ui, App *a, Rect area)
{
    if (explain_code_draw(ui, a, &area)) /* the "code" tab (explain_code.c) */
        return;
    const Theme *th = ui->th;
    StagePos p = app_pos(a);
    int pre = a->ses.model.cfg.norm == TF_NORM_PRE;
    Expl e = expl_of(expl_stage(p.stage), pre);
    explain_model(a, p.stage, &e.title, &e.formula, &e.text); /* where this model is not the paper's */
    ViewId view = app_current_view(a);
    int own_view = view == VIEW_DECODE || view == VIEW_TRAIN;
    const StageText *vw = view_words(a, view, p.stage);
    if (vw)
        e = expl_of(vw, 0);
    e.title = _(e.title);
    e.text = _(e.text);
    const char *xf = own_view ? NULL : exp_formula(&a->ses.exp, p.stage, pre);
    if (xf && a->cmp != CMP_NORMAL) /* the pass shown is the experiment's */
        e.formula = xf;
    e.formula = _(e.formula); /* the formulas with words; the rest stay as they are */
    /* the box of the hovered cell at the bottom; the text above it scrolls */
    Rect rc = area;
    rc.h -= explain_how_box(ui, a, area, 2 * ren_font_height(ui->g->ui) + 8);
    if (a->expl.at != a->ses.at || a->expl.view != view) { /* another stage or view: from the top */
        a->expl.at = a->ses.at;
        a->expl.view = view;
        a->expl.scroll = 0;
    }
    int max_scroll = a->expl.content > rc.h ? a->expl.content - rc.h : 0;
    if (ui->in.wheel && ui_over(&ui->in, rc))
        a->expl.scroll -= ui->in.wheel * 3 * ren_font_height(ui->g->ui);
    if (a->expl.scroll > max_scroll)
        a->expl.scroll = max_scroll;
    if (a->expl.scroll < 0)
        a->expl.scroll = 0;
    ren_clip_push(ui->r, rc);
    int x = rc.x + 14, w = rc.w - 24, y0 = rc.y + 12 - a->expl.scroll, y = y0;
    y += ui_paragraph(ui->r, ui->g->title, e.title, x, y, w, th->text) + 6;
    if (!own_view) {
        ren_text(ui->r, ui->g->small, stage_info(p.stage)->name, x, y, th->dim);
        y += ren_font_height(ui->g->small) + 10;
    }
    if (e.formula[0]) {
        int fh = ui_paragraph(ui->r, ui->g->ui, e.formula, x + 10, y + 6, w - 20, th->accent);
        ren_rect_line(ui->r, (Rect){x, y, w, fh + 12}, 1, th->border);
        y += fh + 22;
    }
    TfView tv;
    TfErr err;
    int head = a->ses.head < 0 && (stage_info(p.stage)->flags & SF_HEAD) ? 0 : a->ses.head;
    if (!own_view && !a->ses.input_error[0] && tf_view(&a->ses.trace, p.stage, p.layer, head, a->ses.batch, &tv, &err) == 0) {
        char shape[96];
        snprintf(shape, sizeof shape, _("shape %d × %d"), tv.rows, tv.cols);
        ren_text(ui->r, ui->g->ui, shape, x, y, th->dim);
        y += ren_font_height(ui->g->ui) + 8;
    }
    y += ui_paragraph(ui->r, ui->g->ui, e.text, x, y, w, th->text) + 8;
    ren_clip_pop(ui->r);
    a->expl.content = y - y0 + 12;
    panel_scroll_bar(ui, rc, a->expl.content, a->expl.scroll);
}
