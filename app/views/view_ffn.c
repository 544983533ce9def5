/* view_ffn.c - the feed-forward view (stages enc.ffn.hidden, dec.ffn.hidden).
 *
 * The position-wise feed-forward network of the paper,
 *
 *     FFN(x) = max(0, x·W₁ + b₁)·W₂ + b₂,
 *
 * widens every token to d_ff hidden units (4 × d_model), keeps only the
 * positive part (ReLU) and projects back. This view shows the hidden layer
 * after the ReLU, one row per token:
 *   - a heatmap on a sequential scale from 0 to the largest activation
 *     (the probability colour map, or the signed one once C has made it
 *     sequential),
 *     where the units the ReLU set to exactly 0 are a flat grey that no
 *     colour of the scale uses (CMAP_NAN_COLOR), visible at any zoom;
 *     wheel zoom and drag pan explore d_ff = 2048;
 *   - how many units are exactly 0, per token and overall, in words
 *     ("62% of the 256 hidden units are exactly 0 for 'love'") and bars;
 *   - each token's activations sorted from largest to smallest: the shape
 *     says how few units carry most of the signal, and where the zeros
 *     begin.
 * All numbers are counted from the trace; the token described is the one
 * under the mouse, else the clicked one, else the first. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view.h"

/* The heatmap's data: a copy of the hidden layer with every exact 0
 * replaced by NaN, so the heatmap paints it CMAP_NAN_COLOR (heat_image maps
 * NaN to its own grey). The copy and the sorted profiles are remade only
 * when the trace or the stage changes. */
typedef struct FfnCache {
    float *marked;        /* (rows, F) zeros as NaN */
    float *sorted;        /* (rows, F) each row sorted, largest first */
    size_t cap;           /* floats allocated in each */
    uint64_t key[6];      /* the trace's version, stage, layer, sentence, rows, F */
    int rows, F;
    int zeros[VIEW_CAP_T]; /* exact zeros per row */
    long total_zeros;
    float max;            /* largest activation */
} FfnCache;

/* The view's state (owned by the window). */
typedef struct FfnState {
    FfnCache cache;
    char said[256]; /* the sentence last shown, for tests */
} FfnState;

/* Variant of the heat cache key: this matrix differs from the plain
 * heatmap of the same stage (zeros are NaN), so it must not share an
 * image with it. */
#define FFN_HEAT_VARIANT 2

/* ---- counting ---- */

/* Exact zeros per row of a (rows, cols) view; returns their total. */
long ffn_count_zeros(const TfView *tv, int *per_row)
{
    long total = 0;
    for (int r = 0; r < tv->rows; r++) {
        const float *x = tv->data + (size_t)r * tv->stride;
        int z = 0;
        for (int c = 0; c < tv->cols; c++)
            z += x[c] == 0.0f;
        if (per_row)
            per_row[r] = z;
        total += z;
    }
    return total;
}

static int by_value_desc(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x < y) - (x > y);
}

static int cache_grow(FfnCache *k, size_t n)
{
    if (n <= k->cap)
        return 0;
    float *m = realloc(k->marked, n * sizeof *m);
    if (!m)
        return -1;
    k->marked = m;
    float *s = realloc(k->sorted, n * sizeof *s);
    if (!s)
        return -1;
    k->sorted = s;
    k->cap = n;
    return 0;
}

/* Bring the cache up to date with view tv; -1 when memory runs out. */
static int cache_update(ViewCtx *v, const TfView *tv)
{
    const Scene *sc = v->s;
    FfnCache *k = &((FfnState *)v->st)->cache;
    int rows = tv->rows < VIEW_CAP_T ? tv->rows : VIEW_CAP_T, F = tv->cols;
    uint64_t key[6] = {sc->version, (uint64_t)tv->stage, (uint64_t)tv->layer, (uint64_t)tv->b, (uint64_t)rows,
                       (uint64_t)F};
    if (k->marked && memcmp(k->key, key, sizeof key) == 0)
        return 0;
    if (cache_grow(k, (size_t)rows * F))
        return -1;
    k->max = 0;
    for (int r = 0; r < rows; r++) {
        const float *x = tv->data + (size_t)r * tv->stride;
        float *m = k->marked + (size_t)r * F, *s = k->sorted + (size_t)r * F;
        for (int c = 0; c < F; c++) {
            m[c] = x[c] == 0.0f ? NAN : x[c];
            k->max = fmaxf(k->max, x[c]);
        }
        memcpy(s, x, (size_t)F * sizeof *s);
        qsort(s, (size_t)F, sizeof *s, by_value_desc);
    }
    TfView t = *tv;
    t.rows = rows;
    k->total_zeros = ffn_count_zeros(&t, k->zeros);
    memcpy(k->key, key, sizeof key);
    k->rows = rows;
    k->F = F;
    return 0;
}

/* The sentence of the headline. */
static void ffn_sentence(char *buf, size_t cap, int zeros, int F, const char *token)
{
    int pct = F > 0 ? (int)lround(100.0 * zeros / F) : 0;
    snprintf(buf, cap, _("%d%% of the %d hidden units are exactly 0 for '%s'"), pct, F, token);
}

/* What the view said last (tests compare it with the trace). */
const char *view_ffn_said(const void *st)
{
    return ((const FfnState *)st)->said;
}

/* ---- drawing ---- */

static int real_len(const Scene *sc, const TfView *tv)
{
    return tv->row_kind == LBL_TGT ? sc->trace->tgt_len[tv->b] : sc->trace->src_len[tv->b];
}

static int focus_token(ViewCtx *v, const TfView *tv, int bars_hover)
{
    const Scene *sc = v->s;
    if (bars_hover >= 0)
        return bars_hover;
    if (v->out->hover.valid && v->out->hover.stage == tv->stage && v->out->hover.b == tv->b && v->out->hover.row < tv->rows)
        return v->out->hover.row;
    int side = tv->row_kind == LBL_TGT ? 2 : 1;
    if (sc->sel.side == side && sc->sel.index < tv->rows)
        return sc->sel.index;
    return 0;
}

/* The heatmap of the marked copy; the hover reports the real value. */
/* Difference mode (D): the activations experiment − normal, on the
 * diverging map (heat_draw makes the difference of a trace matrix). */
static int draw_heat_diff(ViewCtx *v, const TfView *tv, Rect rc)
{
    if (v->s->cmp != 2 || !v->s->base)
        return 0;
    HeatOpts o = {0};
    o.colorbar = 1;
    o.show_values = 1;
    o.pz_slot = VIEW_FFN;
    heat_draw(v, tv, rc, &o);
    return 1;
}

static void draw_heat(ViewCtx *v, const TfView *tv, Rect rc)
{
    const Scene *sc = v->s;
    if (draw_heat_diff(v, tv, rc))
        return;
    FfnCache *k = &((FfnState *)v->st)->cache;
    TfView t = *tv;
    t.data = k->marked;
    t.stride = k->F;
    t.rows = k->rows;
    HeatOpts o = {0};
    /* a sequential colour map from 0 to the largest activation: the
     * probability map, unless C has made the signed map sequential too
     * (C on this stage cycles the signed one) */
    o.prob = sc->cmap_signed == CMAP_DIVERGING;
    o.lo = 0.0f;
    o.hi = k->max > 0 ? k->max : 1.0f;
    o.colorbar = 1;
    o.show_values = 1;
    o.zeros_marked = FFN_HEAT_VARIANT; /* see FFN_HEAT_VARIANT */
    o.pz_slot = VIEW_FFN;
    heat_draw(v, &t, rc, &o);
    Hover *h = &v->out->hover;
    if (h->valid && h->stage == tv->stage && h->b == tv->b && isnan(h->value)) {
        h->value = 0.0f;
        size_t n = strlen(h->where);
        snprintf(h->where + n, sizeof h->where - n, "%s", _(" (ReLU: was negative)"));
    }
}

/* The legend: the zero grey and the scale. */
static int draw_legend(ViewCtx *v, int x, int y, int w)
{
    RenFont *f = v->g->small;
    int fh = ren_font_height(f);
    ren_rect(v->r, (Rect){x, y + 2, fh - 4, fh - 4}, CMAP_NAN_COLOR);
    ren_rect_line(v->r, (Rect){x, y + 2, fh - 4, fh - 4}, 1, v->th->border);
    const char *alts[] = {_("= exactly 0: the ReLU cut a negative value off (max(0, x·W₁ + b₁))"),
                          _("= exactly 0 (cut by the ReLU)")};
    ui_text_alt(v->r, f, alts, 2, x + fh + 2, y, w - fh - 2, v->th->dim);
    return fh + 4;
}

/* Bars of the zero fraction per token; returns the row under the mouse. */
static int draw_bars(ViewCtx *v, const TfView *tv, Rect rc, int focus)
{
    const Scene *sc = v->s;
    const Theme *th = v->th;
    FfnCache *k = &((FfnState *)v->st)->cache;
    RenFont *f = v->g->small;
    int fh = ren_font_height(f);
    const char *title[] = {_("units at exactly 0, per token"), _("zeros per token")};
    ui_text_alt(v->r, f, title, 2, rc.x, rc.y, rc.w, th->text);
    int y0 = rc.y + fh + 4, avail = rc.y + rc.h - y0;
    if (avail < 4 || k->rows < 1)
        return -1;
    int rh = avail / k->rows;
    rh = rh > 2 * fh ? 2 * fh : rh < 2 ? 2 : rh;
    int lw = ren_text_width(f, "0000000") + 6, pw = ren_text_width(f, "100%") + 8;
    Rect bar_area = {rc.x + lw, y0, rc.w - lw - pw, 0};
    int hover = -1, every = 1, len = real_len(sc, tv);
    while (every * rh < fh && every < k->rows)
        every++;
    int fit = avail / rh < k->rows ? avail / rh : k->rows;
    if (fit < k->rows) { /* say so instead of cutting rows silently */
        char note[64];
        snprintf(note, sizeof note, _("first %d of %d"), fit, k->rows);
        ren_text(v->r, f, note, rc.x + rc.w - ren_text_width(f, note), rc.y, th->warn);
    }
    if (ui_over(v->in, (Rect){rc.x, y0, rc.w, fit * rh}))
        hover = (v->in->my - y0) / rh;
    char buf[200];
    for (int r = 0; r < fit; r++) {
        Rect row = {rc.x, y0 + r * rh, rc.w, rh};
        int cur = r == (hover >= 0 ? hover : focus);
        if (cur)
            ren_rect(v->r, row, (Color){th->select.r, th->select.g, th->select.b, 40});
        float frac = k->F ? (float)k->zeros[r] / k->F : 0;
        Rect b = {bar_area.x, row.y + (rh > 4 ? 1 : 0), bar_area.w, rh > 4 ? rh - 2 : rh};
        ren_rect(v->r, b, th->panel2);
        ren_rect(v->r, (Rect){b.x, b.y, (int)lroundf(frac * b.w), b.h}, CMAP_NAN_COLOR);
        Color tc = r >= len ? th->dim : th->text;
        if (r % every == 0 || cur) {
            view_tok_label(sc->trace, sc->model, tv, 0, r, buf, sizeof buf);
            ui_text_fit(v->r, f, buf, rc.x, row.y + (rh - fh) / 2, lw - 6, tc);
            snprintf(buf, sizeof buf, "%d%%", (int)lround(100.0 * frac));
            ren_text(v->r, f, buf, rc.x + rc.w - pw + 6, row.y + (rh - fh) / 2, tc);
        }
        if (ui_clicked(v->in, row)) {
            int side = tv->row_kind == LBL_TGT ? 2 : 1;
            int same = sc->sel.side == side && sc->sel.index == r;
            view_select(v, same ? 0 : side, same ? 0 : r);
        }
    }
    return hover;
}

/* The plot of sorted activations: x = rank 1..F, y = 0..max. */
typedef struct Profile {
    Rect p;
    int F;
    float top;
} Profile;

static float prof_x(const Profile *P, int rank)
{
    return P->p.x + (float)rank * P->p.w / (P->F > 1 ? P->F - 1 : 1);
}

static float prof_y(const Profile *P, float val)
{
    return P->p.y + P->p.h - val / P->top * P->p.h;
}

/* The other tokens as a band from their smallest to their largest value
 * at each rank (one rectangle per two pixel columns: cheaper and calmer
 * than a line per token). */
static void prof_band(ViewCtx *v, const Profile *P, int focus)
{
    FfnCache *k = &((FfnState *)v->st)->cache;
    Color band = {v->th->dim.r, v->th->dim.g, v->th->dim.b, 80};
    for (int x = 0; x < P->p.w && k->rows > 1; x += 2) {
        int rank = (int)((long)x * (P->F - 1) / (P->p.w > 1 ? P->p.w - 1 : 1));
        float lo = INFINITY, hi = -INFINITY;
        for (int r = 0; r < k->rows; r++) {
            if (r == focus)
                continue;
            lo = fminf(lo, k->sorted[(size_t)r * P->F + rank]);
            hi = fmaxf(hi, k->sorted[(size_t)r * P->F + rank]);
        }
        int y0 = (int)lroundf(prof_y(P, hi)), y1 = (int)lroundf(prof_y(P, lo));
        ren_rect(v->r, (Rect){P->p.x + x, y0, 2, y1 - y0 + 1}, band);
    }
}

/* The focus token's profile (a point per pixel column at most) and the
 * rank where its zeros begin. */
static void prof_line(ViewCtx *v, const Profile *P, int focus)
{
    FfnCache *k = &((FfnState *)v->st)->cache;
    RenFont *f = v->g->small;
    int F = P->F, fh = ren_font_height(f);
    float xy[2 * 512];
    int n = P->p.w < 512 ? P->p.w : 512;
    n = n > F ? F : n < 2 ? 2 : n;
    const float *s = k->sorted + (size_t)focus * F;
    for (int i = 0; i < n; i++) {
        int rank = (int)((long)i * (F - 1) / (n - 1));
        xy[2 * i] = prof_x(P, rank);
        xy[2 * i + 1] = prof_y(P, s[rank]);
    }
    ren_polyline(v->r, xy, n, 2.5f * v->g->scale, v->th->accent);
    int z = k->zeros[focus];
    if (z <= 0 || z >= F || P->p.h < 2 * fh)
        return;
    float x = prof_x(P, F - z);
    char buf[64];
    ren_rect(v->r, (Rect){(int)x, P->p.y, 1, P->p.h}, v->th->accent);
    snprintf(buf, sizeof buf, _("zeros from rank %d"), F - z + 1);
    int w = ren_text_width(f, buf), tx = (int)x - w - 4;
    if (tx < P->p.x + 2) /* no room on the left: right of the line, inside */
        tx = (int)x + 4 + w <= P->p.x + P->p.w ? (int)x + 4 : P->p.x + P->p.w - w - 2;
    ren_text(v->r, f, buf, tx, P->p.y + 4, v->th->accent);
}

/* Every token's activations sorted, largest first: the focus token as a
 * line, the others as a band, with the rank where the zeros begin. */
static void draw_profile(ViewCtx *v, const TfView *tv, Rect rc, int focus)
{
    const Theme *th = v->th;
    FfnCache *k = &((FfnState *)v->st)->cache;
    RenFont *f = v->g->small;
    int fh = ren_font_height(f);
    char title[300], mid[300], tok[200], hi[32], buf[64];
    view_tok_label(v->s->trace, v->s->model, tv, 0, focus, tok, sizeof tok);
    snprintf(title, sizeof title, _("activations sorted, largest first: '%s' (line), the other tokens (band)"), tok);
    snprintf(mid, sizeof mid, _("sorted activations: '%s' line, others band"), tok);
    const char *alts[] = {title, mid, _("sorted activations")};
    ui_text_alt(v->r, f, alts, 3, rc.x, rc.y, rc.w, th->text);
    ui_fmt(hi, sizeof hi, k->max);
    int yl = ren_text_width(f, hi) + 8;
    Profile P = {{rc.x + yl, rc.y + fh + 6, rc.w - yl - 4, rc.h - 2 * fh - 12}, k->F, k->max > 0 ? k->max : 1};
    if (P.p.w < 30 || P.p.h < 20 || P.F < 1)
        return;
    ren_rect(v->r, P.p, th->panel);
    ren_rect_line(v->r, (Rect){P.p.x - 1, P.p.y - 1, P.p.w + 2, P.p.h + 2}, 1, th->border);
    ren_text(v->r, f, hi, P.p.x - yl + 2, P.p.y - fh / 2, th->dim);
    ren_text(v->r, f, "0", P.p.x - ren_text_width(f, "0") - 6, P.p.y + P.p.h - fh / 2, th->dim);
    ren_text(v->r, f, "1", P.p.x, P.p.y + P.p.h + 2, th->dim);
    snprintf(buf, sizeof buf, _("rank %d"), P.F);
    ren_text(v->r, f, buf, P.p.x + P.p.w - ren_text_width(f, buf), P.p.y + P.p.h + 2, th->dim);
    prof_band(v, &P, focus);
    prof_line(v, &P, focus);
}

/* The headline for the focus token and the overall count. */
static int draw_headline(ViewCtx *v, const TfView *tv, Rect rc, int focus)
{
    const Scene *sc = v->s;
    FfnCache *k = &((FfnState *)v->st)->cache;
    RenFont *t = v->g->title, *f = v->g->small;
    char tok[200], line[400], shorter[200];
    view_tok_label(sc->trace, sc->model, tv, 0, focus, tok, sizeof tok);
    char *said = ((FfnState *)v->st)->said;
    ffn_sentence(said, sizeof ((FfnState *)v->st)->said, k->zeros[focus], k->F, tok);
    char mid[260], brief[260];
    int pct = k->F ? (int)lround(100.0 * k->zeros[focus] / k->F) : 0;
    snprintf(mid, sizeof mid, _("%d%% of %d units are 0 for '%s'"), pct, k->F, tok);
    snprintf(brief, sizeof brief, _("%d%% zeros for '%s'"), pct, tok);
    const char *heads[] = {said, mid, brief};
    ui_text_alt(v->r, t, heads, 3, rc.x, rc.y, rc.w, v->th->text);
    int y = rc.y + ren_font_height(t) + 2;
    long n = (long)k->rows * k->F;
    double all = n ? 100.0 * k->total_zeros / n : 0.0;
    snprintf(line, sizeof line, _("%d of %d for this token · all %d tokens: %ld of %ld activations are 0 (%.1f%%)"),
             k->zeros[focus], k->F, k->rows, k->total_zeros, n, all);
    snprintf(shorter, sizeof shorter, _("%d of %d · all tokens: %.1f%% are 0"), k->zeros[focus], k->F, all);
    const char *alts[] = {line, shorter};
    ui_text_alt(v->r, f, alts, 2, rc.x, y, rc.w, v->th->dim);
    return y + ren_font_height(f) + 4 - rc.y;
}

static void view_ffn(ViewCtx *v)
{
    const Scene *sc = v->s;
    Rect A = v->area;
    StagePos p = sc->pos;
    TfView tv;
    TfErr err;
    if (stage_info(p.stage)->kind != SK_HIDDEN ||
        tf_view(sc->trace, p.stage, p.layer, -1, sc->batch, &tv, &err)) {
        view_matrix(v); /* not an FFN stage: the plain heatmap */
        return;
    }
    if (sc->model->cfg.act != TF_ACT_RELU && A.w >= 80 && A.h >= 60) { /* SiLU, GELU: no zeros */
        view_ffn_smooth(v, &tv, ((FfnState *)v->st)->said, sizeof ((FfnState *)v->st)->said);
        return;
    }
    if (A.w < 80 || A.h < 60 || cache_update(v, &tv))
        return;
    RenFont *f = v->g->small;
    int fh = ren_font_height(f), th_h = ren_font_height(v->g->title) + fh + 6;
    ren_clip_push(v->r, A);
    /* headline (drawn last: it names the token under the mouse), legend,
     * heatmap, then bars and profile side by side */
    int y = A.y + th_h;
    y += draw_legend(v, A.x, y, A.w);
    /* the heatmap gets what its rows can use (heat_draw caps cells at 64
     * px), at most 58% */
    int H = A.y + A.h - y, heat_h = H * 58 / 100;
    int need = 2 * fh + 12 + tv.rows * (int)(64 * v->g->scale);
    heat_h = heat_h > need ? need : heat_h;
    if (H - heat_h < 5 * fh)
        heat_h = H - 5 * fh;
    if (heat_h > 40)
        draw_heat(v, &tv, (Rect){A.x, y, A.w, heat_h});
    else
        heat_h = 0;
    Rect low = {A.x, y + heat_h + 10, A.w, A.y + A.h - y - heat_h - 10};
    int bw = low.w * 42 / 100;
    int focus = focus_token(v, &tv, -1);
    int bh = -1;
    if (low.h > 2 * fh) {
        bh = draw_bars(v, &tv, (Rect){low.x, low.y, bw, low.h}, focus);
        if (bh >= 0)
            focus = bh;
        draw_profile(v, &tv, (Rect){low.x + bw + 16, low.y, low.w - bw - 16, low.h}, focus);
    }
    draw_headline(v, &tv, (Rect){A.x, A.y, A.w, th_h}, focus);
    ren_clip_pop(v->r);
}

static void ffn_free(void *st)
{
    FfnCache *k = &((FfnState *)st)->cache;
    free(k->marked);
    free(k->sorted);
}

const ViewDef VIEW_FFN_DEF = {"ffn", N_("ReLU"), view_ffn, NULL, sizeof(FfnState), ffn_free, VIEW_NEED_STAGE, 0};
