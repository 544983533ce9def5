/* view_norm.c - the Add & Norm view (stages *.add1/2/3, *.norm1/2/3 and the
 * pre-LN final norms).
 *
 * Every sub-layer of the Transformer is wrapped in a residual connection
 * and a layer normalisation. The paper (post-LN) computes
 *
 *     out = LayerNorm(x + Sublayer(x))
 *
 * and the pre-LN variant, which trains more easily in deep stacks,
 *
 *     out = x + Sublayer(LayerNorm(x))
 *
 * where LayerNorm(v) = γ · (v − μ) / √(σ² + ε) + β with μ and σ² the mean
 * and variance of the d_model values of one token (each token on its own).
 *
 * The top half shows the four matrices of the current step in the order
 * they are computed (each a heatmap with its own colour bar; zoom and pan
 * are shared, so the same cells stay lined up; a small window shows one at
 * a time under tabs). The bottom half shows what
 * normalisation does, one row per token: a histogram of the token's d_model
 * values before LayerNorm, with its mean and ±σ, beside the same for
 * (v − μ)/σ — always mean 0 and standard deviation ~1 — and the statistics
 * after γ and β. "Before" uses the mean and rstd = 1/√(σ² + ε) the engine
 * stored (NormAct); the rest is computed here from the stored matrices.
 *
 * Which buffer is which follows core/forward.c exactly; see norm_parts(). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "view.h"

#define NORM_MAX_BINS 96

/* The matrices of one Add & Norm step, in the order they are computed. */
typedef struct NormParts {
    int n;                /* 4, or 2 for a pre-LN final norm (no residual) */
    int dec, pre, step;   /* decoder side, pre-LN, step 1..3 (0: final) */
    int layer, b, rows, C;
    TfView m[4];          /* the matrices, sentence b */
    const char *what[4];  /* the paper's name of each */
    int ln_in, ln_out;    /* which of m[] goes into / comes out of LayerNorm */
    int current;          /* which of m[] is the stage being shown */
    const float *mean, *rstd; /* (rows) the engine's NormAct statistics */
} NormParts;

/* Per-token statistics of one row of values. */
typedef struct RowStats {
    float mean, std, lo, hi;
} RowStats;

/* ---- which buffer is which (core/forward.c) ---- */

/* The stage holding a layer's input x (the residual stream before step
 * `step`), and its layer. */
static StageId stream_in(int dec, int pre, int step, int layer, int *st_layer)
{
    *st_layer = layer;
    if (step == 1) { /* the layer's input: the previous layer's output */
        if (layer == 0)
            return dec ? ST_DEC_INPUT : ST_ENC_INPUT;
        *st_layer = layer - 1;
        if (dec)
            return pre ? ST_DEC_ADD3 : ST_DEC_NORM3;
        return pre ? ST_ENC_ADD2 : ST_ENC_NORM2;
    }
    /* the previous step's output: LN(sum) in post-LN, the sum in pre-LN */
    if (dec)
        return step == 2 ? (pre ? ST_DEC_ADD1 : ST_DEC_NORM1) : (pre ? ST_DEC_ADD2 : ST_DEC_NORM2);
    return pre ? ST_ENC_ADD1 : ST_ENC_NORM1;
}

static StageId sublayer_out(int dec, int step)
{
    if (!dec)
        return step == 1 ? ST_ENC_SELF_OUT : ST_ENC_FFN_OUT;
    return step == 1 ? ST_DEC_SELF_OUT : step == 2 ? ST_DEC_CROSS_OUT : ST_DEC_FFN_OUT;
}

/* "Sublayer = ..." for the formula line: which sub-layer this one is. */
static const char *sublayer_name(int dec, int step)
{
    if (!dec)
        return step == 1 ? _("Sublayer = self-attention") : _("Sublayer = the feed-forward network");
    return step == 1   ? _("Sublayer = masked self-attention")
           : step == 2 ? _("Sublayer = cross-attention (K, V from the encoder)")
                       : _("Sublayer = the feed-forward network");
}

/* Side and step of an add/norm stage; -1 for other stages. */
static int stage_step(StageId st, int *dec, int *is_norm)
{
    static const struct { StageId st; int dec, step, norm; } T[] = {
        {ST_ENC_ADD1, 0, 1, 0}, {ST_ENC_NORM1, 0, 1, 1}, {ST_ENC_ADD2, 0, 2, 0},
        {ST_ENC_NORM2, 0, 2, 1}, {ST_DEC_ADD1, 1, 1, 0}, {ST_DEC_NORM1, 1, 1, 1},
        {ST_DEC_ADD2, 1, 2, 0}, {ST_DEC_NORM2, 1, 2, 1}, {ST_DEC_ADD3, 1, 3, 0},
        {ST_DEC_NORM3, 1, 3, 1}, {ST_ENC_FINAL, 0, 0, 1}, {ST_DEC_FINAL, 1, 0, 1},
    };
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++)
        if (T[i].st == st) {
            *dec = T[i].dec;
            *is_norm = T[i].norm;
            return T[i].step;
        }
    return -1;
}

static const NormAct *norm_act(const TfTrace *tr, int dec, int step, int layer)
{
    if (step == 0)
        return dec ? &tr->dec_final : &tr->enc_final;
    if (dec) {
        const DecLayerAct *d = &tr->dec[layer];
        return step == 1 ? &d->n1 : step == 2 ? &d->n2 : &d->n3;
    }
    return step == 1 ? &tr->enc[layer].n1 : &tr->enc[layer].n2;
}

/* The final LayerNorm of a pre-LN stack: LN(last layer's output). */
static int final_parts(const TfTrace *tr, StageId st, int b, NormParts *np, TfErr *err)
{
    int dec = np->dec, last = (dec ? tr->cfg.n_dec : tr->cfg.n_enc) - 1;
    np->n = 2;
    if (tf_view(tr, dec ? ST_DEC_ADD3 : ST_ENC_ADD2, last, -1, b, &np->m[0], err) ||
        tf_view(tr, st, 0, -1, b, &np->m[1], err))
        return -1;
    np->what[0] = _("x (the last layer's output)");
    np->what[1] = _("LayerNorm(x), the stack's final norm");
    np->ln_in = 0;
    np->ln_out = 1;
    np->current = 1;
    return 0;
}

/* The matrices of the Add & Norm step that stage st (layer, sentence b)
 * belongs to, for either norm placement:
 *   post-LN  x, Sublayer(x), x + Sublayer(x) = add, LayerNorm(add) = norm
 *   pre-LN   x, LayerNorm(x) = norm, Sublayer(norm), x + Sublayer = add
 * x is the layer's input for step 1 (the embeddings + PE in layer 1) and
 * the previous step's output otherwise. Returns 0, or -1 with err when st
 * is not an add/norm stage or the trace cannot show it. */
static int norm_parts(const TfTrace *tr, StageId st, int layer, int b, NormParts *np, TfErr *err)
{
    memset(np, 0, sizeof *np);
    int dec, is_norm, step = stage_step(st, &dec, &is_norm);
    if (step < 0)
        return tf_fail(err, "%s is not an Add & Norm stage", stage_info(st) ? stage_info(st)->name : "?");
    np->dec = dec;
    np->pre = tr->cfg.norm == TF_NORM_PRE;
    np->step = step;
    np->layer = step ? layer : 0;
    np->b = b;
    np->C = tr->cfg.d_model;
    if (step == 0 ? final_parts(tr, st, b, np, err) : 0)
        return -1;
    if (step > 0) {
        int xl, pre = np->pre;
        StageId add = st, norm = st;
        if (is_norm)
            add = (StageId)(st - 1);
        else
            norm = (StageId)(st + 1);
        StageId xs = stream_in(dec, pre, step, layer, &xl), ss = sublayer_out(dec, step);
        StageId order[4] = {xs, pre ? norm : ss, pre ? ss : add, pre ? add : norm};
        for (int i = 0; i < 4; i++)
            if (tf_view(tr, order[i], i == 0 ? xl : layer, -1, b, &np->m[i], err))
                return -1;
        np->n = 4;
        np->ln_in = pre ? 0 : 2;
        np->ln_out = pre ? 1 : 3;
        np->current = pre ? (is_norm ? 1 : 3) : (is_norm ? 3 : 2);
    }
    const NormAct *na = norm_act(tr, dec, step, np->layer);
    int rows = np->m[0].rows;
    np->rows = rows;
    np->mean = na->mean + (size_t)b * rows;
    np->rstd = na->rstd + (size_t)b * rows;
    return 0;
}

/* norm_parts for tests and other views, without the struct: the matrices
 * in the order they are computed (views[4]), which of them is LayerNorm's
 * input and output, and the engine's statistics of sentence b. Returns the
 * number of matrices (4, or 2 for a pre-LN final norm) or -1. */
int norm_step_views(const TfTrace *tr, StageId st, int layer, int b, TfView *views,
                    int *ln_in, int *ln_out, const float **mean, const float **rstd)
{
    NormParts np;
    TfErr err;
    if (norm_parts(tr, st, layer, b, &np, &err))
        return -1;
    for (int i = 0; i < np.n; i++)
        views[i] = np.m[i];
    *ln_in = np.ln_in;
    *ln_out = np.ln_out;
    *mean = np.mean;
    *rstd = np.rstd;
    return np.n;
}

/* Does the pass shown leave out the residual (the experiment no-residual,
 * or the difference of that pass and the normal one)? Its add stages then
 * hold Sublayer(x) alone. */
static int shows_no_residual(const Scene *sc)
{
    return (sc->trace && sc->trace->exp.no_residual) || (sc->cmp == 2 && sc->exp && sc->exp->no_residual);
}

/* Paper names of the four matrices (set apart so norm_parts stays about
 * buffers); under no-residual the names of what was computed instead. */
static void name_parts(NormParts *np, int no_res)
{
    if (np->n != 4)
        return;
    if (no_res && np->pre) {
        np->what[0] = _("x (the residual stream)");
        np->what[1] = "LayerNorm(x)";
        np->what[2] = "Sublayer(LayerNorm(x))";
        np->what[3] = _("Sublayer(LayerNorm(x)), x not added");
    } else if (no_res) {
        np->what[0] = _("x (the sub-layer's input, not added)");
        np->what[1] = "Sublayer(x)";
        np->what[2] = _("Sublayer(x) alone: no residual");
        np->what[3] = "LayerNorm(Sublayer(x))";
    } else if (np->pre) {
        np->what[0] = _("x (the residual stream)");
        np->what[1] = "LayerNorm(x)";
        np->what[2] = "Sublayer(LayerNorm(x))";
        np->what[3] = "x + Sublayer(LayerNorm(x))";
    } else {
        np->what[0] = _("x (the sub-layer's input)");
        np->what[1] = "Sublayer(x)";
        np->what[2] = "x + Sublayer(x)";
        np->what[3] = "LayerNorm(x + Sublayer(x))";
    }
}

/* ---- statistics ---- */

static RowStats row_stats(const float *x, int C)
{
    RowStats s = {0, 0, INFINITY, -INFINITY};
    double m = 0, v = 0;
    for (int c = 0; c < C; c++) {
        m += x[c];
        s.lo = fminf(s.lo, x[c]);
        s.hi = fmaxf(s.hi, x[c]);
    }
    m /= C;
    for (int c = 0; c < C; c++)
        v += (x[c] - m) * (x[c] - m);
    s.mean = (float)m;
    s.std = (float)sqrt(v / C);
    return s;
}

/* Statistics of x̂ = (x − μ)·rstd with the engine's μ and rstd: the
 * LayerNorm output before γ and β. */
static RowStats norm_xhat_stats(const float *x, int C, float mean, float rstd)
{
    RowStats s = {0, 0, INFINITY, -INFINITY};
    double m = 0, v = 0;
    for (int c = 0; c < C; c++) {
        float h = (x[c] - mean) * rstd;
        m += h;
        s.lo = fminf(s.lo, h);
        s.hi = fmaxf(s.hi, h);
    }
    m /= C;
    for (int c = 0; c < C; c++) {
        double h = (x[c] - mean) * rstd - m;
        v += h * h;
    }
    s.mean = (float)m;
    s.std = (float)sqrt(v / C);
    return s;
}

static const float *row_of(const TfView *v, int r)
{
    return v->data + (size_t)r * v->stride;
}

/* ---- drawing ---- */

static Color with_alpha_c(Color c, int a)
{
    c.a = (uint8_t)a;
    return c;
}

static int token_label(const Scene *sc, const TfView *tv, int r, char *buf, size_t cap)
{
    view_tok_label(sc->trace, sc->model, tv, 0, r, buf, cap);
    int len = tv->row_kind == LBL_TGT ? sc->trace->tgt_len[tv->b] : sc->trace->src_len[tv->b];
    return r >= len; /* padding */
}

/* The token the statistics explain: the one under the mouse in any of the
 * matrices, else the clicked one, else the first. */
static int focus_row(ViewCtx *v, const NormParts *np)
{
    const Scene *sc = v->s;
    if (v->out->hover.valid && v->out->hover.b == np->b)
        for (int i = 0; i < np->n; i++)
            if (v->out->hover.stage == np->m[i].stage && v->out->hover.row < np->rows)
                return v->out->hover.row;
    int side = np->m[0].row_kind == LBL_TGT ? 2 : 1;
    if (sc->sel.side == side && sc->sel.index < np->rows)
        return sc->sel.index;
    return 0;
}

/* One matrix with its caption (the paper's name, then the stage); the
 * stage being shown gets an accent bar and an accent caption. */
static void draw_matrix(ViewCtx *v, Rect r, const NormParts *np, int i, int keys)
{
    const Theme *th = v->th;
    RenFont *f = v->g->ui, *sf = v->g->small;
    int fh = ren_font_height(f), cur = i == np->current;
    const TfView *tv = &np->m[i];
    char cap[200], stage[96];
    ui_stage_title(v->s->lang, v->s->head, (StagePos){tv->stage, tv->layer}, stage, sizeof stage);
    snprintf(cap, sizeof cap, "%s   ", np->what[i]);
    if (cur)
        ren_rect(v->r, (Rect){r.x, r.y, 4, r.h}, th->accent);
    int w = ui_text_fit(v->r, f, cap, r.x + 10, r.y, r.w - 10, cur ? th->accent : th->text);
    if (ren_text_width(sf, stage) <= r.w - 10 - w) /* the stage name only when it fits whole */
        ren_text(v->r, sf, stage, r.x + 10 + w, r.y + (fh - ren_font_height(sf)) / 2, th->dim);
    HeatOpts o = {0};
    o.colorbar = 1;
    o.show_values = 1;
    o.pz_slot = VIEW_NORM; /* shared: zoom one and all four follow */
    o.no_keys = !keys;
    heat_draw(v, tv, (Rect){r.x + 10, r.y + fh + 2, r.w - 10, r.h - fh - 2}, &o);
}

#define FOOT_LINES 8
typedef struct Wrapped {
    char text[900];
    int w, n;
    float scale;
    RenFont *f;
    RenLine lines[FOOT_LINES];
    unsigned used;
} Wrapped;

/* The view's state (owned by the window): which matrix a narrow layout
 * shows (one at a time; pick -1 follows the stage being shown, a click on
 * a tab picks one until the stage changes), and the last wrapped footers. */
typedef struct NormState {
    int ready;
    int pick;
    StageId stage;
    int layer;
    Wrapped slot[2];
    unsigned clock;
} NormState;

/* Tabs over a single matrix; returns the index to show. */
static int matrix_tabs(ViewCtx *v, Rect rc, const NormParts *np, int *used)
{
    static const char *post[4] = {"x", N_("Sublayer"), N_("Add"), N_("Norm")},
                      *pre[4] = {"x", N_("Norm"), N_("Sublayer"), N_("Add")};
    NormState *S = v->st;
    const TfView *cur = &np->m[np->current];
    if (S->stage != cur->stage || S->layer != cur->layer) {
        S->stage = cur->stage;
        S->layer = cur->layer;
        S->pick = -1;
    }
    int show = S->pick >= 0 && S->pick < np->n ? S->pick : np->current;
    int h = ren_font_height(v->g->small) + 8, x = rc.x;
    for (int i = 0; i < np->n; i++) {
        const char *lab = _(np->n == 2 ? (i ? "Norm" : "x") : np->pre ? pre[i] : post[i]);
        int w = ren_text_width(v->g->small, lab) + 16;
        if (x + w > rc.x + rc.w)
            break;
        if (ui_button(v->ui, (Rect){x, rc.y, w, h}, lab, i == show))
            S->pick = show = i;
        x += w + 4;
    }
    *used = h + 4;
    return show;
}

/* The matrices in reading order: a 2 x 2 grid when there is room for two
 * side by side, else one above the other, else (too little height for
 * them all to be readable) one at a time under tabs. The keyboard's cell
 * is in one of them at a time (Ctrl+PgUp / PgDn: which, in reading
 * order; under tabs the one shown), and its row is the token the
 * histograms below explain. */
static void draw_matrices(ViewCtx *v, Rect rc, const NormParts *np)
{
    int keyed = 0;
    view_key_thumb(v, 0, np->n, &keyed);
    int gap = 8, two = np->n == 4 && rc.w >= 2 * 300 * v->g->scale;
    int cols = two ? 2 : 1, rows = (np->n + cols - 1) / cols;
    int cw = (rc.w - gap * (cols - 1)) / cols, ch = (rc.h - gap * (rows - 1)) / rows;
    int min_h = ren_font_height(v->g->ui) + ren_font_height(v->g->small) + 56;
    if (ch < min_h) {
        int used;
        int i = matrix_tabs(v, rc, np, &used);
        draw_matrix(v, (Rect){rc.x, rc.y + used, rc.w, rc.h - used}, np, i, 1); /* the one shown */
        return;
    }
    for (int i = 0; i < np->n; i++) {
        Rect r = {rc.x + (i % cols) * (cw + gap), rc.y + (i / cols) * (ch + gap), cw, ch};
        draw_matrix(v, r, np, i, i == keyed);
    }
}

/* Count a token's values (v − shift)·scale into nb bins over [-R, R];
 * returns the largest count. */
static int histo_bins(const float *x, int C, float shift, float scale, float R, int nb, int *count)
{
    int top = 1;
    memset(count, 0, (size_t)nb * sizeof *count);
    for (int k = 0; k < C; k++) {
        float val = (x[k] - shift) * scale;
        int bin = (int)floorf((val + R) / (2 * R) * nb);
        bin = bin < 0 ? 0 : bin >= nb ? nb - 1 : bin;
        if (++count[bin] > top)
            top = count[bin];
    }
    return top;
}

/* A token's values as a small histogram over [-R, R] inside rc, with its
 * mean (a tick) and mean ± σ (a bar along the base). Rows too thin for
 * bars become a density strip: the more values in a bin, the stronger. */
static void histo_strip(ViewCtx *v, Rect rc, const int *count, int nb, int top, float R,
                        RowStats st, Color c)
{
    const Theme *th = v->th;
    int base = rc.y + rc.h - 1, bars = rc.h >= 8, hmax = rc.h - 3 > 2 ? rc.h - 3 : 2;
    if (bars)
        ren_rect(v->r, (Rect){rc.x, base, rc.w, 1}, th->border);
    for (int k = 0; k < nb; k++) {
        if (!count[k])
            continue;
        int x0 = rc.x + k * rc.w / nb, x1 = rc.x + (k + 1) * rc.w / nb;
        int w = x1 - x0 > 1 ? x1 - x0 - 1 : 1;
        if (bars) {
            int h = 1 + (hmax - 1) * count[k] / top;
            ren_rect(v->r, (Rect){x0, base - h, w, h}, c);
        } else {
            Color d = c;
            d.a = (uint8_t)(70 + 185 * count[k] / top);
            ren_rect(v->r, (Rect){x0, rc.y, w, rc.h}, d);
        }
    }
    float px0 = rc.x + (st.mean - st.std + R) / (2 * R) * rc.w;
    float px1 = rc.x + (st.mean + st.std + R) / (2 * R) * rc.w;
    float pm = rc.x + (st.mean + R) / (2 * R) * rc.w;
    if (bars)
        ren_rect(v->r, (Rect){(int)px0, base - 1, (int)fmaxf(px1 - px0, 1), 2}, th->text);
    ren_rect(v->r, (Rect){(int)pm - (bars ? 1 : 0), rc.y, bars ? 2 : 1, rc.h}, th->text);
}

typedef struct StatCols {
    int lab_x, lab_w;
    int s1_x, s2_x, s_w;  /* the two strips */
    int n1_x, n2_x, n3_x, n_w; /* numbers after each strip, and after γ,β */
    int numbers, gb;      /* show number columns / the γ,β column */
} StatCols;

static StatCols stat_cols(ViewCtx *v, Rect rc, const NormParts *np)
{
    RenFont *f = v->g->small;
    StatCols k = {0};
    char buf[200];
    int lw = 0;
    for (int r = 0; r < np->rows && r < 256; r++) {
        token_label(v->s, &np->m[0], r, buf, sizeof buf);
        int w = ren_text_width(f, buf);
        lw = w > lw ? w : lw;
    }
    int maxlw = ren_text_width(f, "0000000000");
    k.lab_w = (lw < maxlw ? lw : maxlw) + 8;
    k.n_w = ren_text_width(f, "μ -0.000  σ 00.00") + 12;
    k.lab_x = rc.x;
    int gap = 10, left = rc.w - k.lab_w;
    k.numbers = left - 2 * k.n_w >= 2 * 90;
    k.gb = k.numbers && left - 3 * k.n_w >= 2 * 110;
    int nums = k.numbers ? (k.gb ? 3 : 2) * k.n_w : 0;
    k.s_w = (left - nums - 2 * gap) / 2;
    k.s1_x = rc.x + k.lab_w;
    k.n1_x = k.s1_x + k.s_w + 6;
    k.s2_x = k.s1_x + k.s_w + gap + (k.numbers ? k.n_w : 0);
    k.n2_x = k.s2_x + k.s_w + 6;
    k.n3_x = k.n2_x + k.n_w;
    return k;
}

/* A statistic with 3 decimals (fewer for big values), so columns line up
 * and a normalised token reads "μ 0.000  σ 1.000". */
static void fmt3(char *buf, size_t cap, float x)
{
    float ax = fabsf(x);
    if (ax < 5e-4f)
        x = 0.0f; /* no "-0.000" */
    snprintf(buf, cap, ax >= 1000 ? "%.3g" : ax >= 100 ? "%.1f" : ax >= 10 ? "%.2f" : "%.3f", x);
}

static void fmt_ms(char *buf, size_t cap, float m, float s)
{
    char a[32], b[32];
    fmt3(a, sizeof a, m);
    fmt3(b, sizeof b, s);
    snprintf(buf, cap, "μ %s  σ %s", a, b);
}

/* One axis for both strips: the widest value before or after. */
static float stats_range(const NormParts *np)
{
    const TfView *in = &np->m[np->ln_in];
    float R = 1e-6f;
    for (int r = 0; r < np->rows; r++) {
        RowStats s = row_stats(row_of(in, r), np->C);
        RowStats h = norm_xhat_stats(row_of(in, r), np->C, np->mean[r], np->rstd[r]);
        R = fmaxf(R, fmaxf(fmaxf(fabsf(s.lo), fabsf(s.hi)), fmaxf(fabsf(h.lo), fabsf(h.hi))));
    }
    return R;
}

/* Column titles and the axis (−R, 0, R) under each strip; returns the
 * height used. */
static int stats_header(ViewCtx *v, const StatCols *k, int y, float R)
{
    const Theme *th = v->th;
    RenFont *f = v->g->small;
    int fh = ren_font_height(f), tw = k->s_w + (k->numbers ? k->n_w : 0);
    const char *h1[] = {_("before: LayerNorm's input"), _("before")},
               *h2[] = {_("after: (v − μ)/σ, before γ, β"), _("after")};
    ui_text_alt(v->r, f, h1, 2, k->s1_x, y, tw, th->text);
    ui_text_alt(v->r, f, h2, 2, k->s2_x, y, tw, th->text);
    if (k->gb)
        ui_text_fit(v->r, f, _("after γ, β"), k->n3_x, y, k->n_w, th->text);
    y += fh;
    char lo[32], hi[32], pm[40];
    ui_fmt(hi, sizeof hi, R);
    ui_fmt(lo, sizeof lo, -R);
    snprintf(pm, sizeof pm, "±%s", hi);
    int room = k->s_w >= 2 * ren_text_width(f, lo) + ren_text_width(f, "0") + 16;
    for (int s = 0; s < 2; s++) {
        int x = s ? k->s2_x : k->s1_x;
        if (!room) { /* too narrow for three numbers: the range */
            ren_text(v->r, f, pm, x, y, th->dim);
            continue;
        }
        ren_text(v->r, f, lo, x, y, th->dim);
        ren_text(v->r, f, "0", x + k->s_w / 2 - ren_text_width(f, "0") / 2, y, th->dim);
        ren_text(v->r, f, hi, x + k->s_w - ren_text_width(f, hi), y, th->dim);
    }
    return 2 * fh + 2;
}

/* The numbers of one token: μ and σ before (the engine's mean and 1/rstd),
 * after, and after γ, β. */
static void stat_numbers(ViewCtx *v, const StatCols *k, const NormParts *np, int r, int ty, RowStats h,
                         Color tc)
{
    RenFont *f = v->g->small;
    char buf[96];
    fmt_ms(buf, sizeof buf, np->mean[r], 1.0f / np->rstd[r]);
    ui_text_fit(v->r, f, buf, k->n1_x, ty, k->n_w - 6, tc);
    fmt_ms(buf, sizeof buf, h.mean, h.std);
    ui_text_fit(v->r, f, buf, k->n2_x, ty, k->n_w - 6, tc);
    if (k->gb) {
        RowStats g = row_stats(row_of(&np->m[np->ln_out], r), np->C);
        fmt_ms(buf, sizeof buf, g.mean, g.std);
        ui_text_fit(v->r, f, buf, k->n3_x, ty, k->n_w - 6, tc);
    }
}

/* One token's row: label, the two histograms, the numbers; a click on it
 * selects the token (followed across views). */
static void stat_row(ViewCtx *v, const StatCols *k, const NormParts *np, int r, Rect row, float R,
                     int label)
{
    const Scene *sc = v->s;
    const Theme *th = v->th;
    RenFont *f = v->g->small;
    int fh = ren_font_height(f), rh = row.h, C = np->C;
    const TfView *in = &np->m[np->ln_in];
    char buf[200];
    int pad = token_label(sc, in, r, buf, sizeof buf);
    Color tc = pad ? th->dim : th->text;
    if (label)
        ui_text_fit(v->r, f, buf, k->lab_x, row.y + (rh - fh) / 2, k->lab_w - 6, tc);
    const float *x = row_of(in, r);
    RowStats h = norm_xhat_stats(x, C, np->mean[r], np->rstd[r]);
    int inset = rh >= 4, count[NORM_MAX_BINS];
    Rect s1 = {k->s1_x, row.y + inset, k->s_w, rh - 2 * inset}, s2 = {k->s2_x, s1.y, k->s_w, s1.h};
    int nb = k->s_w / 3 < 8 ? 8 : k->s_w / 3 > NORM_MAX_BINS ? NORM_MAX_BINS : k->s_w / 3;
    int top = histo_bins(x, C, 0, 1, R, nb, count);
    histo_strip(v, s1, count, nb, top, R, (RowStats){np->mean[r], 1.0f / np->rstd[r], 0, 0},
                pad ? th->dim : th->accent2);
    top = histo_bins(x, C, np->mean[r], np->rstd[r], R, nb, count);
    histo_strip(v, s2, count, nb, top, R, h, pad ? th->dim : th->accent);
    if (k->numbers && rh >= fh)
        stat_numbers(v, k, np, r, row.y + (rh - fh) / 2, h, tc);
    if (ui_clicked(v->in, row)) {
        int side = in->row_kind == LBL_TGT ? 2 : 1;
        int same = sc->sel.side == side && sc->sel.index == r;
        view_select(v, same ? 0 : side, same ? 0 : r);
    }
}

/* Header, axis, one row per token (*used gets the height). The focus row
 * is highlighted: the row under the mouse, else focus_in. Returns it (-1
 * when nothing fits). */
static int draw_stats(ViewCtx *v, Rect rc, const NormParts *np, int focus_in, int *used)
{
    const Theme *th = v->th;
    RenFont *f = v->g->small;
    int fh = ren_font_height(f);
    StatCols k = stat_cols(v, rc, np);
    *used = 0;
    if (k.s_w < 24 || rc.h < 3 * fh)
        return -1;
    float R = stats_range(np);
    int y = rc.y + stats_header(v, &k, rc.y, R);
    int avail = rc.y + rc.h - y, rh = avail / (np->rows > 0 ? np->rows : 1);
    rh = rh > 2 * fh ? 2 * fh : rh < 2 ? 2 : rh;
    int fit = avail / rh < np->rows ? avail / rh : np->rows;
    if (fit < np->rows) { /* say so instead of cutting rows silently */
        char note[64];
        snprintf(note, sizeof note, _("first %d of %d tokens"), fit, np->rows);
        ren_text(v->r, f, note, k.lab_x, y - fh - 2, th->warn);
    }
    int every = 1; /* label every n-th row when rows are thin */
    while (every * rh < fh && every < np->rows)
        every++;
    int focus = focus_in;
    if (ui_over(v->in, (Rect){rc.x, y, rc.w, fit * rh}))
        focus = (v->in->my - y) / rh;
    for (int r = 0; r < fit; r++) {
        Rect row = {rc.x, y + r * rh, rc.w, rh};
        if (r == focus)
            ren_rect(v->r, row, with_alpha_c(th->select, 40));
        stat_row(v, &k, np, r, row, R, r % every == 0 || r == focus);
    }
    *used = y - rc.y + fit * rh;
    return focus;
}

/* Every number of the focus token in one paragraph; returns its height. */
static int footer_text(const Scene *sc, const NormParts *np, int r, char *buf, size_t cap)
{
    char tok[200], m[32], rs[32], sd[32], hm[32], hs[32], gm[32], gs[32];
    token_label(sc, &np->m[0], r, tok, sizeof tok);
    const TfView *in = &np->m[np->ln_in], *out = &np->m[np->ln_out];
    RowStats h = norm_xhat_stats(row_of(in, r), np->C, np->mean[r], np->rstd[r]);
    RowStats g = row_stats(row_of(out, r), np->C);
    ui_fmt(m, sizeof m, np->mean[r]);
    ui_fmt(rs, sizeof rs, np->rstd[r]);
    ui_fmt(sd, sizeof sd, 1.0f / np->rstd[r]);
    ui_fmt(hm, sizeof hm, fabsf(h.mean) < 5e-7f ? 0.0f : h.mean);
    snprintf(hs, sizeof hs, "%.6f", h.std);
    fmt3(gm, sizeof gm, g.mean);
    fmt3(gs, sizeof gs, g.std);
    return snprintf(buf, cap,
                    _("'%s' (row %d): the engine's LayerNorm stored mean μ = %s and rstd = 1/√(σ² + ε) = %s, "
                      "so σ ≈ %s. Normalised, (v − μ)·rstd has mean %s and standard deviation %s "
                      "(just under 1 because of ε = %g); after γ and β: mean %s, σ %s."),
                    tok, r, m, rs, sd, hm, hs, (double)sc->ln_eps, gm, gs);
}

/* The footer wrapped into lines, kept while its text, width and font stay
 * the same: wrapping measures many candidate lines, too many to redo every
 * frame. Two slots, for the clicked token and the one under the mouse. */

static const Wrapped *wrapped(ViewCtx *v, RenFont *f, const char *s, int w)
{
    NormState *S = v->st;
    Wrapped *slot = S->slot;
    Wrapped *c = NULL;
    for (int i = 0; i < 2 && !c; i++)
        if (slot[i].f == f && slot[i].w == w && slot[i].scale == v->g->scale && !strcmp(slot[i].text, s))
            c = &slot[i];
    if (!c) {
        c = slot[0].used <= slot[1].used ? &slot[0] : &slot[1];
        snprintf(c->text, sizeof c->text, "%s", s);
        c->f = f;
        c->w = w;
        c->scale = v->g->scale;
        int n = ren_text_wrap(f, c->text, w, c->lines, FOOT_LINES);
        c->n = n < FOOT_LINES ? n : FOOT_LINES;
    }
    c->used = ++S->clock;
    return c;
}

/* Heights of the three parts under the formula line: the matrices, the
 * statistics and the footer. The statistics want a header and a row per
 * token, the footer its lines, the matrices the rest (45..72%). When space
 * runs out the footer goes first, then the statistics; the matrices keep
 * enough for one of them under tabs. */
typedef struct NormLayout {
    int top, stats, foot;
} NormLayout;

static NormLayout norm_layout(ViewCtx *v, const NormParts *np, int H, int foot_lines)
{
    int fh = ren_font_height(v->g->small), uh = ren_font_height(v->g->ui);
    int min_top = uh + 2 * fh + 68;
    int rows_h = np->rows * (np->rows <= 12 ? 2 * fh : fh);
    rows_h = rows_h > H * 35 / 100 ? H * 35 / 100 : rows_h; /* long sentences: thin rows */
    NormLayout L = {0, 2 * fh + 2 + rows_h, foot_lines * fh};
    if (H - 10 - L.stats - 6 - L.foot < min_top)
        L.foot = 0;
    int top = H - 10 - L.stats - (L.foot ? 6 + L.foot : 0);
    top = top > H * 72 / 100 ? H * 72 / 100 : top < H * 45 / 100 ? H * 45 / 100 : top;
    top = top < min_top ? min_top : top;
    L.top = top < H ? top : H;
    L.stats = H - L.top - 10 - (L.foot ? 6 + L.foot : 0);
    if (L.stats < 3 * fh)
        L.stats = 0;
    return L;
}

static void view_norm(ViewCtx *v)
{
    NormState *S = v->st;
    if (!S->ready) {
        S->ready = 1;
        S->pick = -1;
        S->stage = ST_COUNT;
    }
    const Scene *sc = v->s;
    const Theme *th = v->th;
    Rect A = v->area;
    StagePos p = sc->pos;
    NormParts np;
    TfErr err;
    if (norm_parts(sc->trace, p.stage, p.layer, sc->batch, &np, &err)) {
        view_matrix(v); /* not an Add & Norm stage: the plain heatmap */
        return;
    }
    int no_res = shows_no_residual(sc);
    name_parts(&np, no_res);
    if (A.w < 80 || A.h < 60)
        return;
    RenFont *f = v->g->small, *uf = v->g->ui;
    int fh = ren_font_height(f), uh = ren_font_height(uf);
    ren_clip_push(v->r, A);
    char formula[256];
    const char *rule = np.pre ? _("pre-LN: x + Sublayer(LayerNorm(x))")
                              : _("post-LN (the paper): LayerNorm(x + Sublayer(x))");
    const char *brief = np.pre ? "x + Sublayer(LayerNorm(x))" : "LayerNorm(x + Sublayer(x))";
    if (no_res) {
        rule = np.pre ? _("experiment, no residual: Sublayer(LayerNorm(x))")
                      : _("experiment, no residual: LayerNorm(Sublayer(x))");
        brief = np.pre ? "Sublayer(LayerNorm(x))" : "LayerNorm(Sublayer(x))";
    }
    if (np.n == 2)
        snprintf(formula, sizeof formula, "%s", _("pre-LN: the stack ends with one more LayerNorm"));
    else
        snprintf(formula, sizeof formula, "%s   %s", rule, sublayer_name(np.dec, np.step));
    const char *alts[] = {formula, np.n == 2 ? _("final LayerNorm") : brief};
    ui_text_alt(v->r, uf, alts, 2, A.x, A.y, A.w, th->text);
    int y = A.y + uh + 6, H = A.y + A.h - y;
    char foot[900];
    int focus = focus_row(v, &np);
    footer_text(sc, &np, focus, foot, sizeof foot);
    int nl = wrapped(v, f, foot, A.w)->n + 1; /* a spare line for other tokens */
    NormLayout L = norm_layout(v, &np, H, nl < FOOT_LINES ? nl : FOOT_LINES);
    draw_matrices(v, (Rect){A.x, y, A.w, L.top}, &np);
    int hovered = focus_row(v, &np); /* the row of the cell the mouse or the keyboard's cell is on */
    if (hovered != focus) {
        focus = hovered;
        footer_text(sc, &np, focus, foot, sizeof foot);
    }
    y += L.top + 10;
    int used = 0;
    if (L.stats > 0) {
        int shown = draw_stats(v, (Rect){A.x, y, A.w, L.stats}, &np, focus, &used);
        if (shown >= 0 && shown != focus)
            footer_text(sc, &np, shown, foot, sizeof foot);
    }
    y += used + 6;
    const Wrapped *wp = wrapped(v, f, foot, A.w);
    for (int i = 0; L.foot > 0 && i < wp->n && y + fh <= A.y + A.h; i++, y += fh)
        ren_text_n(v->r, f, wp->text + wp->lines[i].start, wp->lines[i].len, A.x, y, th->dim);
    ren_clip_pop(v->r);
}

const ViewDef VIEW_NORM_DEF = {"norm", N_("Add & Norm"), view_norm, NULL, sizeof(NormState), NULL,
                               VIEW_NEED_STAGE, 0};
