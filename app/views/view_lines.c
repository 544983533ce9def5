/* view_lines.c - attention as lines between two columns of tokens, the
 * picture BertViz made familiar: queries on the left, keys on the right
 * (for cross-attention the target tokens on the left and the source tokens
 * on the right), one curve from query i to key j whose width and opacity
 * grow with the weight A[i,j]. One head at a time, or every head at once,
 * each in its own colour from a colour-blind-safe palette (Okabe & Ito);
 * the head buttons double as the legend.
 *
 * Hovering a token brings its lines forward, dims the rest and prints the
 * weights next to the other column; clicking selects it (the selection
 * every view highlights). Masked pairs have weight exactly 0 and draw
 * nothing. The padding of a batch is folded into one dimmed "<pad> ×n" row;
 * a padded query's lines (computed, then ignored) appear only while it is
 * pointed at. The curves are painted by the view itself into a cached
 * image (see "the curves" below), so even thousands of them cost one
 * image per frame. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "colormap.h"
#include "hash.h"
#include "view.h"

#define LINES_SEG 24 /* straight pieces of the polyline a curve is painted from */

/* Where the two columns are. Column 0 holds the queries, column 1 the keys. */
typedef struct LinesGeo {
    StageId st;          /* the weights stage shown */
    int layer, head, b, NH;
    int n[2], real[2];   /* tokens per column, and how many are not <pad> */
    int shown[2];        /* rows drawn: the real tokens and one <pad> row
                            standing for all of them */
    LabelKind kind[2];
    int text_x[2];       /* column 0: right edge of its labels; 1: left edge */
    int line_x[2];       /* where the curves start and end */
    int lab_w, val_w;    /* label column; room for printed weights (0: none) */
    float top[2], pitch[2]; /* token i of column c sits at top[c] + (i + .5) pitch[c] */
    Rect band[2];        /* the label columns, for hovering */
    int fcol, fi;        /* the focused token (hovered or selected), or -1 */
    int kr, kc;          /* the keyboard's line: query kr to key kc, or -1 */
    const TfView *roll;  /* R: the attention rollout drawn instead of the heads, or NULL */
} LinesGeo;

typedef struct Canvas {
    uint32_t *px;     /* w * h pixels 0xRRGGBBAA, grown, never shrunk */
    size_t cap;
    int w, h;
    uint64_t key, version, sum; /* what a base canvas holds */
} Canvas;

/* What the view remembers between frames (owned by the window). */
typedef struct LinesState {
    /* which column a click in self-attention came from, so that selecting
     * a key shows its incoming lines */
    int sel_col;
    Canvas base, out; /* the picture without focus; the one shown */
} LinesState;


/* Okabe & Ito's palette without black: distinct under every common colour
 * vision deficiency. Head h keeps its colour in every mode. */
static Color head_color(const Theme *th, int h)
{
    static const Color P[8] = {
        {230, 159, 0, 255}, {86, 180, 233, 255}, {0, 158, 115, 255}, {240, 228, 66, 255},
        {0, 114, 178, 255}, {213, 94, 0, 255},   {204, 121, 167, 255}, {150, 150, 150, 255}};
    Color c = P[h % 8];
    if (cmap_luminance(th->bg) > 128) /* on a light page the pale ones need more ink */
        c = ui_mix(c, (Color){0, 0, 0, 255}, h % 8 == 3 ? 0.35f : 0.15f);
    return c;
}

static float tok_y(const LinesGeo *G, int col, int i)
{
    return G->top[col] + (i + 0.5f) * G->pitch[col];
}

/* ---- layout ---- */

static void lines_layout(ViewCtx *v, const TfView *tv, Rect body, LinesGeo *G)
{
    RenFont *f = v->g->ui;
    float sc = v->g->scale;
    int fh = ren_font_height(f);
    int val_w = ren_text_width(v->g->small, "0.000") + (int)(10 * sc);
    int lw = ui_label_width(v->s, tv, 0, f), rw = ui_label_width(v->s, tv, 1, f);
    if (G->shown[0] < G->n[0] || G->shown[1] < G->n[1]) {
        int pw = ren_text_width(f, "<pad> ×000");
        lw = lw > pw ? lw : pw;
    }
    G->lab_w = (lw > rw ? lw : rw) + (int)(12 * sc);
    if (G->lab_w > body.w / 4)
        G->lab_w = body.w / 4;
    /* a narrow area gives up the printed weights before the curves */
    if (body.w - 2 * (val_w + G->lab_w) < 140 * sc)
        val_w = 0;
    G->val_w = val_w;
    /* the columns stand at most ~560 px apart, centred in the area */
    int span = body.w - 2 * (val_w + G->lab_w);
    int maxspan = (int)(560 * sc);
    int x = body.x;
    if (span > maxspan) {
        x += (span - maxspan) / 2;
        span = maxspan;
    }
    G->text_x[0] = x + val_w + G->lab_w;
    G->text_x[1] = G->text_x[0] + span;
    G->line_x[0] = G->text_x[0] + (int)(8 * sc);
    G->line_x[1] = G->text_x[1] - (int)(8 * sc);
    /* each column spreads its tokens over the height, centred */
    float h = 0;
    for (int c = 0; c < 2; c++) {
        G->pitch[c] = fminf((float)body.h / (float)G->shown[c], 3.0f * fh);
        h = fmaxf(h, G->pitch[c] * G->shown[c]);
    }
    float y0 = body.y + (body.h - h) / 3; /* a little above the middle */
    for (int c = 0; c < 2; c++) {
        G->top[c] = y0 + (h - G->pitch[c] * G->shown[c]) / 2;
        G->band[c] = (Rect){c ? G->text_x[1] : G->text_x[0] - G->lab_w, (int)G->top[c], G->lab_w,
                            (int)ceilf(G->pitch[c] * G->shown[c])};
    }
}

/* ---- focus: the hovered token, else the selected one ---- */

static void find_focus(ViewCtx *v, LinesGeo *G)
{
    const Scene *sc = v->s;
    G->fcol = G->fi = G->kr = G->kc = -1;
    int kr, kc, keys = view_key_cell(v, G->shown[0], G->shown[1], &kr, &kc);
    for (int c = 0; c < 2; c++) {
        if (!ui_over(v->in, G->band[c]))
            continue;
        int i = (int)floorf((v->in->my - G->top[c]) / G->pitch[c]);
        if (i < 0 || i >= G->shown[c])
            continue;
        G->fcol = c;
        G->fi = i;
        if (v->in->pressed) {
            int side = ui_side_of(G->kind[c]);
            view_toggle_select(v, side, i);
            ((LinesState *)v->st)->sel_col = c;
        }
        return;
    }
    if (keys) { /* no token under the mouse: the keyboard's line, and its query's lines */
        G->kr = G->fi = kr;
        G->kc = kc;
        G->fcol = 0;
        return;
    }
    if (!sc->sel.side)
        return;
    int match0 = ui_side_of(G->kind[0]) == sc->sel.side && sc->sel.index < G->shown[0];
    int match1 = ui_side_of(G->kind[1]) == sc->sel.side && sc->sel.index < G->shown[1];
    if (match0 && match1)
        G->fcol = ((const LinesState *)v->st)->sel_col;
    else if (match0 || match1)
        G->fcol = match1;
    if (G->fcol >= 0)
        G->fi = sc->sel.index;
}

/* ---- the curves, rasterised into a cached image ----
 *
 * A sentence of 30 tokens and 8 heads asks for thousands of curves, which
 * would cost far too much drawn one by one through the renderer every
 * frame. The view paints them itself into an opaque image of the strip
 * between the two columns (on the page colour, so no blending is needed to
 * show it) and keeps the image in the heatmap texture cache: it is painted
 * again only when the trace, the head, the focus or the size changes.
 * Pointing at a token must stay quick even then: the picture without a
 * focus is kept, and a focus fades a copy of it and paints only the
 * focused token's lines on top. */


static int canvas_size(Canvas *cv, int w, int h)
{
    size_t n = (size_t)w * h;
    if (n > cv->cap) {
        uint32_t *p = realloc(cv->px, n * sizeof *p);
        if (!p)
            return -1;
        cv->px = p;
        cv->cap = n;
    }
    cv->w = w;
    cv->h = h;
    return 0;
}

static void canvas_fill(Canvas *cv, Color bg)
{
    uint32_t fill = cmap_pack(bg);
    for (size_t i = 0, n = (size_t)cv->w * cv->h; i < n; i++)
        cv->px[i] = fill;
}

/* out = bg + (base - bg) * keep / 256: the whole picture faded */
static void canvas_fade(Canvas *out, const Canvas *base, Color bg, int keep)
{
    for (size_t i = 0, n = (size_t)base->w * base->h; i < n; i++) {
        uint32_t p = base->px[i];
        int r = bg.r + ((int)(p >> 24) - bg.r) * keep / 256;
        int g = bg.g + ((int)((p >> 16) & 255) - bg.g) * keep / 256;
        int b = bg.b + ((int)((p >> 8) & 255) - bg.b) * keep / 256;
        out->px[i] = (uint32_t)r << 24 | (uint32_t)g << 16 | (uint32_t)b << 8 | 255u;
    }
}

/* dst += (c - dst) * a / 256, on an opaque canvas (a = cover * c.a) */
static inline void canvas_blend(uint32_t *d, Color c, int a)
{
    int r = (int)(*d >> 24), g = (int)((*d >> 16) & 255), b = (int)((*d >> 8) & 255);
    r += (c.r - r) * a / 256;
    g += (c.g - g) * a / 256;
    b += (c.b - b) * a / 256;
    *d = (uint32_t)r << 24 | (uint32_t)g << 16 | (uint32_t)b << 8 | 255u;
}

/* A cubic Bézier with horizontal tangents at both ends (control points
 * half-way across at the heights of its ends): it leaves the query flat,
 * bends, and arrives flat at the key. Its x only grows, so it is painted
 * column by column: in each pixel column the centre height yc and slope s
 * come from a fine polyline, and a pixel at vertical distance dy from the
 * centre is at distance dy / sqrt(1 + s²) from the curve. Coverage falls
 * from 1 to 0 over one pixel at the edge; curves thinner than a pixel keep
 * that footprint and fade, as ren_polyline does. */
static void canvas_curve(Canvas *cv, float x0, float y0, float x1, float y1, float width, Color c)
{
    float px[LINES_SEG + 1], py[LINES_SEG + 1];
    float xm = 0.5f * (x0 + x1);
    for (int k = 0; k <= LINES_SEG; k++) {
        float t = (float)k / LINES_SEG, u = 1 - t;
        float b0 = u * u * u, b1 = 3 * u * u * t, b2 = 3 * u * t * t, b3 = t * t * t;
        px[k] = b0 * x0 + (b1 + b2) * xm + b3 * x1;
        py[k] = (b0 + b1) * y0 + (b2 + b3) * y1;
    }
    float hw = fmaxf(width, 1.0f) * 0.5f, amul = fminf(width, 1.0f), rad = hw + 0.5f;
    int xa = (int)floorf(x0) < 0 ? 0 : (int)floorf(x0), xb = (int)ceilf(x1) > cv->w ? cv->w : (int)ceilf(x1);
    int seg = 0;
    for (int x = xa; x < xb; x++) {
        float cx = x + 0.5f;
        while (seg < LINES_SEG - 1 && px[seg + 1] < cx)
            seg++;
        float dx = px[seg + 1] - px[seg];
        float t = dx > 0 ? (cx - px[seg]) / dx : 0;
        t = t < 0 ? 0 : t > 1 ? 1 : t;
        float yc = py[seg] + t * (py[seg + 1] - py[seg]);
        float sl = dx > 0 ? (py[seg + 1] - py[seg]) / dx : 0;
        float k = sqrtf(1 + sl * sl), reach = rad * k;
        int ya = (int)floorf(yc - reach), yb = (int)ceilf(yc + reach);
        if (ya < 0)
            ya = 0;
        if (yb > cv->h)
            yb = cv->h;
        float ik = 1.0f / k, am = amul * c.a * (256.0f / 255);
        uint32_t *col = cv->px + x;
        for (int y = ya; y < yb; y++) {
            float cover = rad - fabsf(y + 0.5f - yc) * ik;
            if (cover > 0)
                canvas_blend(col + (size_t)y * cv->w, c, (int)((cover > 1 ? 1 : cover) * am + 0.5f));
        }
    }
}

/* The lines of one head: every line (focused 0), or only those through the
 * focused token (focused 1), at full strength. */
static void paint_head(ViewCtx *v, const LinesGeo *G, Canvas *cv, Rect reg, const TfView *w, int h,
                       int focused)
{
    float sc = v->g->scale;
    int all = G->head < 0;
    float maxw = (all ? 7.0f : 12.0f) * sc;
    /* with every head shown, each head's ends sit a little apart */
    float p = fminf(G->pitch[0], G->pitch[1]);
    float off = all ? (h - (G->NH - 1) * 0.5f) * fminf(2.0f * sc, p * 0.5f / G->NH) : 0;
    Color base = head_color(v->th, h);
    for (int i = 0; i < G->shown[0]; i++) {
        for (int j = 0; j < G->shown[1]; j++) {
            float a = tf_view_at(w, i, j);
            if (!(a > 0))
                continue; /* masked: exactly 0, nothing to draw */
            int through = (G->fcol == 0 && G->fi == i) || (G->fcol == 1 && G->fi == j);
            if (focused && !through)
                continue;
            /* a padded query's row is computed and never used: its lines
             * show only while the learner points at it */
            if (i >= G->real[0] && !(focused && G->fcol == 0))
                continue;
            float alpha = 0.25f + 0.75f * a;
            if (alpha * fminf(a * maxw, 1.0f) < 0.02f)
                continue; /* would change no pixel by more than a few levels */
            Color c = base;
            c.a = (uint8_t)(255 * fminf(alpha, 1.0f) + 0.5f);
            canvas_curve(cv, (float)(G->line_x[0] - reg.x), tok_y(G, 0, i) + off - reg.y,
                         (float)(G->line_x[1] - reg.x), tok_y(G, 1, j) + off - reg.y, a * maxw, c);
        }
    }
}

/* Difference mode (D): a line per pair whose weight the experiment
 * changed, as thick as |experiment − normal| and coloured by the diverging
 * map (warm: the experiment's weight is larger, cool: smaller). */
static void paint_head_diff(ViewCtx *v, const LinesGeo *G, Canvas *cv, Rect reg, const TfView *w,
                            const TfView *bw, int h, int focused)
{
    float sc = v->g->scale, maxw = (G->head < 0 ? 7.0f : 12.0f) * sc;
    float p = fminf(G->pitch[0], G->pitch[1]);
    float off = G->head < 0 ? (h - (G->NH - 1) * 0.5f) * fminf(2.0f * sc, p * 0.5f / G->NH) : 0;
    float dmax = 0.01f; /* the colour runs to the ends of the map at the largest change */
    for (int i = 0; i < G->shown[0] && i < G->real[0]; i++)
        for (int j = 0; j < G->shown[1]; j++) {
            float d = fabsf(tf_view_at(w, i, j) - tf_view_at(bw, i, j));
            if (isfinite(d) && d > dmax)
                dmax = d;
        }
    for (int i = 0; i < G->shown[0] && i < G->real[0]; i++)
        for (int j = 0; j < G->shown[1]; j++) {
            float d = tf_view_at(w, i, j) - tf_view_at(bw, i, j);
            int through = (G->fcol == 0 && G->fi == i) || (G->fcol == 1 && G->fi == j);
            if (!isfinite(d) || fabsf(d) < 0.01f || (focused && !through))
                continue;
            Color c = cmap_color(CMAP_DIVERGING, 0.5f + 0.5f * d / dmax);
            c.a = (uint8_t)(255 * fminf(0.35f + 0.65f * fabsf(d), 1.0f));
            canvas_curve(cv, (float)(G->line_x[0] - reg.x), tok_y(G, 0, i) + off - reg.y,
                         (float)(G->line_x[1] - reg.x), tok_y(G, 1, j) + off - reg.y,
                         fmaxf(fabsf(d) * maxw, 1.0f * sc), c);
        }
}

static void paint_heads(ViewCtx *v, const LinesGeo *G, Canvas *cv, Rect reg, int focused)
{
    TfErr err;
    const Scene *s = v->s;
    if (G->roll) { /* one set of lines: the rollout through the layers */
        paint_head(v, G, cv, reg, G->roll, 0, focused);
        return;
    }
    for (int h = 0; h < G->NH; h++) {
        TfView wh, bh;
        if (!(G->head < 0 || h == G->head) || tf_view(s->trace, G->st, G->layer, h, G->b, &wh, &err))
            continue;
        if (s->cmp == 2 && s->base && !tf_view(s->base, G->st, G->layer, h, G->b, &bh, &err))
            paint_head_diff(v, G, cv, reg, &wh, &bh, h, focused);
        else
            paint_head(v, G, cv, reg, &wh, h, focused);
    }
}

/* Everything the painted image depends on, folded into a cache key (FNV-1a);
 * the trace's version is kept beside it. */
static uint64_t image_key(const ViewCtx *v, const LinesGeo *G, Rect reg, int with_focus)
{
    int f[] = {(int)G->st, G->layer, G->head, G->b, with_focus ? G->fcol : -1, with_focus ? G->fi : -1,
               (int)v->s->theme,
               reg.x, reg.y, reg.w, reg.h, (int)lroundf(v->g->scale * 100),
               (int)lroundf(G->top[0]), (int)lroundf(G->top[1]),
               (int)lroundf(G->pitch[0] * 16), (int)lroundf(G->pitch[1] * 16), G->roll != NULL};
    uint64_t k = tf_fnv_ints(TF_FNV_SEED, f, sizeof f / sizeof f[0]);
    return k | 0xA100000000000000ull; /* never a heatmap's key */
}

/* A checksum of the weights drawn (FNV-1a over their bits), so a kept
 * base picture is never taken for another model's with the same version. */
static uint64_t weights_sum(const ViewCtx *v, const LinesGeo *G)
{
    uint64_t k = TF_FNV_SEED;
    TfErr err;
    for (int h = 0; h < G->NH; h++) {
        TfView w;
        if (G->roll && h > 0)
            break;
        if (G->roll)
            w = *G->roll;
        else if ((G->head >= 0 && h != G->head) || tf_view(v->s->trace, G->st, G->layer, h, G->b, &w, &err))
            continue;
        for (int i = 0; i < G->shown[0]; i++)
            for (int j = 0; j < G->shown[1]; j++) {
                float x = tf_view_at(&w, i, j);
                uint32_t u;
                memcpy(&u, &x, sizeof u);
                k = tf_fnv_word(k, u);
            }
    }
    return k;
}

/* Paint the picture for reg: the base (every line, no focus) when it is
 * not at hand, then, with a focus, a faded copy and the focused lines. */
static int paint(ViewCtx *v, const LinesGeo *G, Rect reg)
{
    uint64_t key = image_key(v, G, reg, 0), sum = weights_sum(v, G);
    LinesState *S = v->st;
    if (S->base.key != key || S->base.version != v->s->version ||
        S->base.sum != sum || S->base.w != reg.w || S->base.h != reg.h) {
        if (canvas_size(&S->base, reg.w, reg.h))
            return 0;
        canvas_fill(&S->base, v->th->bg);
        paint_heads(v, G, &S->base, reg, 0);
        S->base.key = key;
        S->base.sum = sum;
        S->base.version = v->s->version;
    }
    if (G->fcol < 0)
        return 1;
    if (canvas_size(&S->out, reg.w, reg.h))
        return 0;
    canvas_fade(&S->out, &S->base, v->th->bg, 40); /* the others at ~15% */
    paint_heads(v, G, &S->out, reg, 1);
    return 1;
}

static void draw_curves(ViewCtx *v, const LinesGeo *G, Rect body)
{
    const Scene *sc = v->s;
    /* the strip between the columns, as tall as the tokens plus the widest
     * line, within the body */
    int pad = (int)ceilf(8 * v->g->scale);
    float top = fminf(G->top[0], G->top[1]) - pad;
    float bot = fmaxf(G->top[0] + G->pitch[0] * G->shown[0], G->top[1] + G->pitch[1] * G->shown[1]) + pad;
    Rect reg = {G->line_x[0], (int)floorf(top), G->line_x[1] - G->line_x[0], (int)ceilf(bot - top)};
    if (reg.y < body.y) {
        reg.h -= body.y - reg.y;
        reg.y = body.y;
    }
    if (reg.y + reg.h > body.y + body.h)
        reg.h = body.y + body.h - reg.y;
    int maxs = ren_image_max_size(v->r);
    if (reg.w < 2 || reg.h < 2 || reg.w > maxs || reg.h > maxs)
        return;
    int fresh;
    RenImage *img = gfx_image(v->g, sc->version, image_key(v, G, reg, 1), reg.w, reg.h, 0, 0, &fresh);
    if (!img)
        return;
    if (fresh && paint(v, G, reg))
        ren_image_update(img, G->fcol >= 0 ? ((LinesState *)v->st)->out.px : ((LinesState *)v->st)->base.px);
    ren_image_draw(v->r, img, (Rect){0, 0, 0, 0}, reg);
}

/* The weight of each pair through the focused token, printed beside the
 * other column (one head only). */
static void draw_values(ViewCtx *v, const LinesGeo *G, const TfView *w)
{
    RenFont *f = v->g->small;
    int fh = ren_font_height(f), oc = 1 - G->fcol;
    char buf[32];
    if (G->pitch[oc] < fh || G->val_w == 0)
        return;
    for (int k = 0; k < G->shown[oc]; k++) {
        float a = G->fcol == 0 ? tf_view_at(w, G->fi, k) : tf_view_at(w, k, G->fi);
        ui_fmt(buf, sizeof buf, a);
        int y = (int)lroundf(tok_y(G, oc, k)) - fh / 2;
        int x = oc == 1 ? G->text_x[1] + G->lab_w + 4 : G->text_x[0] - G->lab_w - 4 - ren_text_width(f, buf);
        ren_text(v->r, f, buf, x, y, a > 0 ? v->th->select : v->th->dim);
    }
}

static void draw_tokens(ViewCtx *v, const LinesGeo *G, int col, const TfView *tv)
{
    const Scene *sc = v->s;
    RenFont *f = v->g->ui;
    int fh = ren_font_height(f), last = -(1 << 30);
    char buf[300];
    for (int i = 0; i < G->shown[col]; i++) {
        int y = (int)lroundf(tok_y(G, col, i)) - fh / 2;
        int focus = G->fcol == col && G->fi == i;
        int sel = sc->sel.side == ui_side_of(G->kind[col]) && sc->sel.index == i;
        if (y < last && !focus)
            continue; /* crowded: every token keeps its line, not every label */
        view_tok_label(sc->trace, sc->model, tv, col, i, buf, sizeof buf);
        if (i == G->real[col] && G->n[col] - i > 1) /* one row for all the padding */
            snprintf(buf, sizeof buf, "<pad> ×%d", G->n[col] - i);
        int w = ren_text_width(f, buf);
        if (w > G->lab_w - 8)
            w = G->lab_w - 8;
        int x = col == 0 ? G->text_x[0] - w : G->text_x[1];
        Rect box = {x - 4, y - 1, w + 8, fh + 2};
        if (focus)
            ren_rect(v->r, box, v->th->panel2);
        if (sel)
            ren_rect_line(v->r, box, 2, v->th->select);
        Color c = i >= G->real[col] ? v->th->dim : focus ? v->th->select : v->th->text;
        ui_text_fit(v->r, f, buf, x, y, G->lab_w - 8, c);
        last = y + fh;
    }
}

/* "queries" over the left column, "keys" over the right; shorter words
 * when the columns are close. */
static void column_titles(ViewCtx *v, const LinesGeo *G, Rect body, int y)
{
    RenFont *f = v->g->small;
    int self = G->kind[0] == G->kind[1];
    const char *l = self ? _("queries (row i)") : _("target · queries");
    const char *r = self ? _("keys (column j)") : _("source · keys");
    int half = (G->text_x[1] - G->text_x[0]) / 2 - 6;
    int lroom = G->text_x[0] - body.x + half, rroom = body.x + body.w - G->text_x[1];
    rroom = rroom < half * 2 ? rroom : half * 2;
    if (ren_text_width(f, l) > lroom || ren_text_width(f, r) > rroom) {
        l = self ? _("queries") : _("target");
        r = self ? _("keys") : _("source");
    }
    int lw = ren_text_width(f, l);
    int lx = G->text_x[0] - lw < body.x ? body.x : G->text_x[0] - lw;
    ui_text_fit(v->r, f, l, lx, y, lroom, v->th->dim);
    ui_text_fit(v->r, f, r, G->text_x[1], y, rroom, v->th->dim);
}

/* "all 1 2 3 4": the head buttons, each with its colour: the legend. */
static int head_buttons(ViewCtx *v, const LinesGeo *G, int x, int y)
{
    const Scene *sc = v->s;
    RenFont *f = v->g->small;
    int fh = ren_font_height(f), h = fh + 8;
    float gs = v->g->scale;
    int sw = (int)(10 * gs);
    x += ren_text(v->r, f, _("head"), x, y + 4, v->th->dim) + (int)(8 * gs);
    for (int k = -1; k < G->NH; k++) {
        char buf[16];
        snprintf(buf, sizeof buf, k < 0 ? _("all") : "%d", k + 1);
        int w = ren_text_width(f, buf) + (k < 0 ? 16 : sw + 20);
        if (x + w > v->area.x + v->area.w)
            break;
        Rect rc = {x, y, w, h};
        int active = sc->head == k;
        ren_rect(v->r, rc, active ? v->th->panel2 : v->th->panel);
        ren_rect_line(v->r, rc, active ? 2 : 1, active ? v->th->select : v->th->border);
        int tx = x + 8;
        if (k >= 0) {
            Color c = head_color(v->th, k);
            if (sc->head >= 0 && !active)
                c.a = 110;
            ren_rect(v->r, (Rect){tx, y + (h - sw) / 2, sw, sw}, c);
            tx += sw + 4;
        }
        ren_text(v->r, f, buf, tx, y + 4, active ? v->th->select : v->th->text);
        if (ui_hit(v->ui, rc, "head")) /* a click, or Tab then Enter */
            view_set_head(v, k);
        x += w + 4;
    }
    return h;
}

/* The keyboard's line, query kr to key kc: read out as its cell of the
 * weights (of the head shown; with every head shown, of the head whose
 * line is the strongest there), drawn as a thick ring round the curve
 * and its two tokens. */
static void key_line(ViewCtx *v, const LinesGeo *G)
{
    const Scene *sc = v->s;
    TfView w, bw;
    TfErr err;
    float best = -1;
    if (G->roll) {
        bw = *G->roll;
    } else {
        for (int h = 0; h < G->NH; h++) {
            if ((G->head >= 0 && h != G->head) || tf_view(sc->trace, G->st, G->layer, h, G->b, &w, &err))
                continue;
            float x = tf_view_at(&w, G->kr, G->kc);
            if (best < 0 || x > best)
                best = x, bw = w;
        }
        if (best < 0)
            return;
    }
    ui_hover_cell(v, &bw, G->kr, G->kc);
    if (sc->cmp == 2 && sc->base && !G->roll)
        view_diff_hover(v, &bw);
    float x0 = (float)G->line_x[0], y0 = tok_y(G, 0, G->kr), x1 = (float)G->line_x[1], y1 = tok_y(G, 1, G->kc);
    float xy[2 * (LINES_SEG + 1)], xm = 0.5f * (x0 + x1);
    for (int k = 0; k <= LINES_SEG; k++) { /* the curve canvas_curve paints */
        float t = (float)k / LINES_SEG, u = 1 - t;
        float b0 = u * u * u, b1 = 3 * u * u * t, b2 = 3 * u * t * t, b3 = t * t * t;
        xy[2 * k] = b0 * x0 + (b1 + b2) * xm + b3 * x1;
        xy[2 * k + 1] = (b0 + b1) * y0 + (b2 + b3) * y1;
    }
    float wd = 3.0f * v->g->scale;
    ren_polyline(v->r, xy, LINES_SEG + 1, wd + 4, v->th->bg);
    ren_polyline(v->r, xy, LINES_SEG + 1, wd, v->th->select);
    for (int c = 0; c < 2; c++) {
        int i = c ? G->kc : G->kr;
        int y = (int)lroundf(G->top[c] + i * G->pitch[c]);
        view_key_outline(v, (Rect){G->band[c].x, y, G->band[c].w, (int)lroundf(G->pitch[c])});
    }
}

/* The status line names the strongest pair through the hovered token (of
 * the head shown, of any head when all are shown, or of the rollout when R
 * shows it). */
static void set_hover(ViewCtx *v, const LinesGeo *G)
{
    const Scene *sc = v->s;
    if (G->kr >= 0) {
        key_line(v, G);
        return;
    }
    if (G->fcol < 0 || G->fi >= G->shown[G->fcol])
        return;
    int best = 0, best_h = G->head < 0 ? 0 : G->head;
    float bv = -1;
    TfView w, bw;
    TfErr err;
    for (int h = 0; h < (G->roll ? 1 : G->NH); h++) {
        if (G->roll)
            w = *G->roll;
        else if ((G->head >= 0 && h != G->head) || tf_view(sc->trace, G->st, G->layer, h, G->b, &w, &err))
            continue;
        for (int k = 0; k < G->shown[1 - G->fcol]; k++) {
            float x = G->fcol == 0 ? tf_view_at(&w, G->fi, k) : tf_view_at(&w, k, G->fi);
            if (x > bv) {
                bv = x;
                best = k;
                best_h = h;
                bw = w;
            }
        }
    }
    if (bv < 0)
        return;
    char rl[200], cl[200];
    int r = G->fcol == 0 ? G->fi : best, c = G->fcol == 0 ? best : G->fi;
    Hover *hv = &v->out->hover;
    hv->valid = 1;
    hv->stage = G->st;
    hv->layer = G->layer;
    hv->head = G->roll ? -1 : best_h;
    hv->b = G->b;
    hv->row = r;
    hv->col = c;
    hv->value = bv;
    view_cell_name(sc, &bw, 0, r, rl, sizeof rl);
    view_cell_name(sc, &bw, 1, c, cl, sizeof cl);
    if (G->roll)
        snprintf(hv->where, sizeof hv->where, _("rollout to layer %d, the strongest line through the token: row %s, col %s"),
                 G->layer + 1, rl, cl);
    else
        snprintf(hv->where, sizeof hv->where, _("head %d, the strongest line through the token: row %s, col %s"),
                 best_h + 1, rl, cl);
    if (sc->cmp == 2 && sc->base && !G->roll)
        view_diff_hover(v, &bw);
}

/* The header's second line in difference mode. */
static void diff_caption(const Scene *sc, char *s, size_t cap)
{
    if (sc->cmp == 2 && sc->base)
        snprintf(s, cap, "%s", _("difference: width |experiment − normal| · warm more, cool less"));
}

static void draw_header(ViewCtx *v, const LinesGeo *G, Rect *body)
{
    const Scene *sc = v->s;
    RenFont *ui = v->g->ui, *f = v->g->small;
    char t[256], s[300], sent[48] = "";
    const char *what = G->st == ST_DEC_CROSS_WEIGHTS ? _("cross-attention")
                       : G->st == ST_DEC_SELF_WEIGHTS ? _("decoder self-attention") : _("encoder self-attention");
    if (G->roll)
        snprintf(t, sizeof t, _("Attention rollout to layer %d · %s · R: one layer's weights"), G->layer + 1, what);
    else if (G->head < 0)
        snprintf(t, sizeof t, _("Layer %d · all %d heads · %s"), G->layer + 1, G->NH, what);
    else
        snprintf(t, sizeof t, _("Layer %d · head %d · %s"), G->layer + 1, G->head + 1, what);
    if (sc->n_src > 1)
        snprintf(sent, sizeof sent, _("sentence %d of %d · "), G->b + 1, sc->n_src);
    snprintf(s, sizeof s, "%s%s", sent, _("line width and opacity = attention weight · hover or click a token"));
    diff_caption(sc, s, sizeof s);
    int y = body->y;
    ui_text_fit(v->r, ui, t, body->x, y, body->w, v->th->text);
    y += ren_font_height(ui) + 2;
    ui_text_fit(v->r, f, s, body->x, y, body->w, v->th->dim);
    y += ren_font_height(f) + 6;
    if (!G->roll) /* the rollout is every head's mean: no head to pick */
        y += head_buttons(v, G, body->x, y) + 8;
    body->h -= y - body->y;
    body->y = y;
}

static void lines_draw(ViewCtx *v)
{
    const Scene *sc = v->s;
    LinesGeo G;
    memset(&G, 0, sizeof G);
    G.st = ui_attn_stage(sc, AP_WEIGHTS, &G.layer);
    G.NH = sc->model->cfg.n_heads;
    G.head = sc->head < G.NH ? sc->head : 0;
    G.b = sc->batch;
    TfView w;
    TfErr err;
    if (tf_view(sc->trace, G.st, G.layer, G.head < 0 ? 0 : G.head, G.b, &w, &err)) {
        ui_paragraph(v->r, v->g->ui, err.msg, v->area.x + 10, v->area.y + 10, v->area.w - 20, v->th->warn);
        return;
    }
    TfView rv;
    if (sc->rollout && sc->roll && G.st != ST_DEC_SELF_WEIGHTS && sc->roll_rows == w.rows &&
        sc->roll_cols == w.cols) {
        rv = w;
        rv.data = sc->roll;
        rv.stride = sc->roll_cols;
        rv.head = -1;
        G.roll = &rv;
    }
    G.n[0] = w.rows;
    G.n[1] = w.cols;
    G.kind[0] = w.row_kind;
    G.kind[1] = w.col_kind;
    for (int c = 0; c < 2; c++) {
        G.real[c] = G.kind[c] == LBL_SRC ? sc->trace->src_len[G.b] : sc->trace->tgt_len[G.b];
        G.shown[c] = G.real[c] < G.n[c] ? G.real[c] + 1 : G.n[c];
    }
    Rect body = {v->area.x + 4, v->area.y + 4, v->area.w - 8, v->area.h - 8};
    draw_header(v, &G, &body);
    int fh = ren_font_height(v->g->small);
    Rect cols = {body.x, body.y + fh + 6, body.w, body.h - fh - 6};
    if (cols.h < 20 || cols.w < 120)
        return;
    lines_layout(v, &w, cols, &G);
    column_titles(v, &G, body, body.y);
    body = cols;
    find_focus(v, &G);
    ren_clip_push(v->r, body);
    draw_curves(v, &G, body);
    draw_tokens(v, &G, 0, &w);
    draw_tokens(v, &G, 1, &w);
    if (G.fcol >= 0 && (G.head >= 0 || G.roll))
        draw_values(v, &G, G.roll ? G.roll : &w);
    ren_clip_pop(v->r);
    set_hover(v, &G);
}

static void view_lines(ViewCtx *v)
{
    ui_draw_inside(v, lines_draw);
}

static void lines_free(void *st)
{
    LinesState *S = st;
    free(S->base.px);
    free(S->out.px);
}

const ViewDef VIEW_LINES_DEF = {"lines", N_("Lines"), view_lines, NULL, sizeof(LinesState), lines_free,
                                VIEW_NEED_STAGE, 0};
