/* view_matrix.c - a stage as a heatmap: token labels on both axes, a colour
 * bar with its numeric range (diverging around 0 for signed values, a fixed
 * 0..1 scale for probabilities), values printed in cells when they fit,
 * -inf cells hatched, mouse-wheel zoom and drag pan (cglm affine2d) so a
 * 512-wide matrix can be explored, and hover for the exact value. */
#include <cglm/cglm.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "view.h"

/* ---- pan and zoom: screen = translate(o) * scale(zoom) * cell space ---- */

static void pz_transform(const PanZoom *pz, mat3 m)
{
    glm_mat3_identity(m);
    glm_translate2d(m, (vec2){pz->ox, pz->oy});
    glm_scale2d_uni(m, pz->zoom);
}

/* Zoom by f keeping the content point under (mx, my) still. */
static void pz_zoom_at(PanZoom *pz, float f, float mx, float my)
{
    mat3 m, inv;
    pz_transform(pz, m);
    glm_mat3_inv(m, inv);
    vec3 p, s = {mx, my, 1};
    glm_mat3_mulv(inv, s, p); /* the content point under the cursor */
    float z = pz->zoom * f;
    if (z < 1.0f)
        z = 1.0f;
    if (z > 64.0f)
        z = 64.0f;
    pz->zoom = z;
    pz->ox = mx - z * p[0];
    pz->oy = my - z * p[1];
}

static void pz_clamp(PanZoom *pz, float content_w, float content_h, float view_w, float view_h)
{
    float w = content_w * pz->zoom, h = content_h * pz->zoom;
    float minx = w > view_w ? view_w - w : 0, miny = h > view_h ? view_h - h : 0;
    if (pz->ox > 0) pz->ox = 0;
    if (pz->oy > 0) pz->oy = 0;
    if (pz->ox < minx) pz->ox = minx;
    if (pz->oy < miny) pz->oy = miny;
    if (pz->zoom <= 1.0f)
        pz->ox = pz->oy = 0;
}

/* ---- helpers ---- */

static int label_is_padding(const Scene *sc, const TfView *tv, int axis, int i)
{
    LabelKind k = axis ? tv->col_kind : tv->row_kind;
    const TfTrace *tr = sc->trace;
    if (k == LBL_SRC)
        return i >= tr->src_len[tv->b];
    if (k == LBL_TGT)
        return i >= tr->tgt_len[tv->b];
    return 0;
}

static int label_selected(const Scene *sc, const TfView *tv, int axis, int i)
{
    LabelKind k = axis ? tv->col_kind : tv->row_kind;
    return (k == LBL_SRC && sc->sel.side == 1 && sc->sel.index == i) ||
           (k == LBL_TGT && sc->sel.side == 2 && sc->sel.index == i);
}

static void toggle_select(ViewCtx *v, LabelKind k, int i)
{
    int side = k == LBL_SRC ? 1 : k == LBL_TGT ? 2 : 0;
    if (side)
        view_toggle_select(v, side, i);
}

static void value_range(const TfView *tv, const HeatOpts *o, float *lo, float *hi)
{
    if (o->lo < o->hi) {
        *lo = o->lo;
        *hi = o->hi;
        return;
    }
    if (o->prob) {
        *lo = 0;
        *hi = 1;
        return;
    }
    float m = 0;
    for (int r = 0; r < tv->rows; r++)
        for (int c = 0; c < tv->cols; c++) {
            float x = fabsf(tf_view_at(tv, r, c));
            if (isfinite(x) && x > m)
                m = x;
        }
    if (m == 0)
        m = 1;
    *lo = -m;
    *hi = m;
}

/* Draw the matrix image, tiled when it is wider or taller than a texture. */
static void draw_cells(ViewCtx *v, const TfView *tv, Rect grid, float cw, float ch,
                       float lo, float hi, CmapId cmap, uint64_t key)
{
    const Scene *sc = v->s;
    int maxs = ren_image_max_size(v->r);
    if (maxs < 16)
        maxs = 16;
    uint32_t masked = cmap_pack(v->th->masked);
    for (int r0 = 0; r0 < tv->rows; r0 += maxs) {
        for (int c0 = 0; c0 < tv->cols; c0 += maxs) {
            TfView t = *tv;
            t.rows = tv->rows - r0 < maxs ? tv->rows - r0 : maxs;
            t.cols = tv->cols - c0 < maxs ? tv->cols - c0 : maxs;
            if (t.data)
                t.data = tv->data + (size_t)r0 * tv->stride + c0;
            int tile = (r0 / maxs) * 64 + c0 / maxs;
            RenImage *img = heat_image(v->g, sc->version, key + (uint64_t)tile * 0x1000000000000ull,
                                       &t, lo, hi, cmap, masked);
            if (!img)
                continue;
            int x0 = grid.x + (int)lroundf(c0 * cw), x1 = grid.x + (int)lroundf((c0 + t.cols) * cw);
            int y0 = grid.y + (int)lroundf(r0 * ch), y1 = grid.y + (int)lroundf((r0 + t.rows) * ch);
            ren_image_draw(v->r, img, (Rect){0, 0, 0, 0}, (Rect){x0, y0, x1 - x0, y1 - y0});
        }
    }
}

static void draw_cell_marks(ViewCtx *v, const TfView *tv, Rect clip, Rect grid, float cw,
                            float ch, float lo, float hi, CmapId cmap, const HeatOpts *o)
{
    const Theme *th = v->th;
    RenFont *f = v->g->small;
    int fh = ren_font_height(f);
    int vw = ren_text_width(f, "-0.000") + 4;
    int print = o->show_values && cw >= vw && ch >= fh + 2;
    int c_first = (int)floorf((clip.x - grid.x) / cw), c_last = (int)ceilf((clip.x + clip.w - grid.x) / cw);
    int r_first = (int)floorf((clip.y - grid.y) / ch), r_last = (int)ceilf((clip.y + clip.h - grid.y) / ch);
    if (c_first < 0) c_first = 0;
    if (r_first < 0) r_first = 0;
    if (c_last > tv->cols) c_last = tv->cols;
    if (r_last > tv->rows) r_last = tv->rows;
    if ((long)(c_last - c_first) * (r_last - r_first) > 6000)
        return; /* too many cells on screen to annotate */
    char buf[32];
    for (int r = r_first; r < r_last; r++) {
        for (int c = c_first; c < c_last; c++) {
            float x = tf_view_at(tv, r, c);
            Rect cell = {grid.x + (int)lroundf(c * cw), grid.y + (int)lroundf(r * ch),
                         (int)lroundf((c + 1) * cw) - (int)lroundf(c * cw),
                         (int)lroundf((r + 1) * ch) - (int)lroundf(r * ch)};
            if (isinf(x) && x < 0) {
                if (cw >= 8 && ch >= 8) /* hatch: masked, not a colour value */
                    gfx_hatch_lines(v->r, cell, 1, 6, th->masked_text);
                if (print)
                    ui_text_center(v->r, f, "−∞", cell, th->text);
                continue;
            }
            if (o->zeros_marked && x == 0 && cw >= 4 && ch >= 4) {
                int d = (int)fminf(cw, ch) / 4 + 1;
                ren_rect(v->r, (Rect){cell.x + cell.w / 2 - d / 2, cell.y + cell.h / 2 - d / 2, d, d},
                         th->masked);
            }
            if (print) {
                float t = hi > lo ? (x - lo) / (hi - lo) : 0.5f;
                Color bg = cmap_color(cmap, t);
                Color fg = cmap_ink_on(bg);
                ui_fmt(buf, sizeof buf, x);
                if (ren_text_width(f, buf) > cell.w - 2) /* 4.47e-06 in a narrow cell: what fits */
                    snprintf(buf, sizeof buf, fabsf(x) < 5e-4f ? "≈0" : "%.3f", (double)x);
                ui_text_center(v->r, f, buf, cell, fg);
            }
        }
    }
}

/* Labels along one axis, every `every`-th one when they crowd. */
static void draw_labels(ViewCtx *v, const TfView *tv, int axis, Rect band, Rect grid,
                        float step, int n, int up)
{
    const Scene *sc = v->s;
    const Theme *th = v->th;
    RenFont *f = v->g->small;
    int fh = ren_font_height(f);
    char buf[300];
    LabelKind kind = axis ? tv->col_kind : tv->row_kind;
    int need = axis ? (up ? fh * 3 / 4 : kind == LBL_DIM ? ren_text_width(f, "000") + 6 : 36) : fh;
    int every = 1;
    while (every * step < need && every < n)
        every *= 2;
    ren_clip_push(v->r, band);
    for (int i = 0; i < n; i += every) {
        view_tok_label(sc->trace, sc->model, tv, axis, i, buf, sizeof buf);
        int pad = label_is_padding(sc, tv, axis, i), sel = label_selected(sc, tv, axis, i);
        Color c = sel ? th->select : pad ? th->dim : th->text;
        Rect hit;
        if (axis) {
            int cx = grid.x + (int)lroundf((i + 0.5f) * step);
            int w = ren_text_width(f, buf);
            int maxw = (int)(step * every) - 2;
            hit = (Rect){cx - (int)(step / 2), band.y, (int)step, band.h};
            if (up) { /* turned: reading upwards from the bottom of the band, cut to it */
                char cut[300];
                ui_text_cut(f, buf, band.h - 6, cut, sizeof cut);
                ren_text_up(v->r, f, cut, cx - fh / 2, band.y + band.h - 2, c);
            } else if (w <= maxw || every > 1)
                ren_text(v->r, f, buf, cx - w / 2, band.y + band.h - fh - 2, c);
            else
                ui_text_fit(v->r, f, buf, cx - maxw / 2, band.y + band.h - fh - 2, maxw, c);
        } else {
            int cy = grid.y + (int)lroundf((i + 0.5f) * step);
            hit = (Rect){band.x, cy - (int)(step / 2), band.w, (int)step};
            int w = ren_text_width(f, buf);
            int x = band.x + band.w - w - 6;
            if (x < band.x)
                x = band.x;
            ui_text_fit(v->r, f, buf, x, cy - fh / 2, band.w - 6, c);
        }
        if (sel)
            ren_rect_line(v->r, hit, 1, th->select);
        if (kind == LBL_SRC && sc->exp && tf_exp_hidden(sc->exp, i)) /* hidden (Alt+click) */
            ren_line(v->r, (float)hit.x + 2, hit.y + hit.h * 0.5f, (float)(hit.x + hit.w - 2),
                     hit.y + hit.h * 0.5f, 2, th->warn);
        if (ui_clicked(v->in, hit) && ui_over(v->in, band))
            toggle_select(v, kind, i);
    }
    ren_clip_pop(v->r);
}

/* ---- one heatmap: layout, pan and zoom, then the layers drawn in order ---- */

/* Where a heatmap's parts go. The grid is the cells as drawn (panned and
 * zoomed, so it may reach outside area, which clips it). */
typedef struct HeatLayout {
    Rect rc;        /* the whole heatmap, shrunk round a centred matrix */
    Rect area;      /* where cells may show: the clip of the grid */
    Rect grid;      /* the cells at the current pan and zoom */
    int lw, cbw;    /* widths of the row-label band and the colour-bar band */
    int top;        /* height of the column-label band */
    int up;         /* column tokens turned, reading upwards (narrow columns) */
    float cw, ch;   /* a cell at zoom 1 */
    float zcw, zch; /* a cell as drawn */
} HeatLayout;

/* The caption above the heatmap, if any; rc shrinks below it. */
static void heat_caption(ViewCtx *v, const HeatOpts *o, Rect *rc)
{
    if (o->caption) {
        ui_text_fit(v->r, v->g->ui, o->caption, rc->x, rc->y, rc->w, v->th->text);
        int ch = ren_font_height(v->g->ui) + 4;
        rc->y += ch;
        rc->h -= ch;
    }
    if (o->axes && rc->h > 8 * ren_font_height(v->g->small)) {
        ui_text_fit(v->r, v->g->small, o->axes, rc->x, rc->y, rc->w, v->th->dim);
        int ah = ren_font_height(v->g->small) + 4;
        rc->y += ah;
        rc->h -= ah;
    }
}

/* Lines between the heads of a matrix that holds them side by side (Q, K,
 * V of all heads, their concatenation), and each head's number under the
 * grid where there is room. */
static void draw_head_bounds(ViewCtx *v, const TfView *tv, const HeatLayout *hl, int per)
{
    if (per <= 0 || per >= tv->cols)
        return;
    RenFont *f = v->g->small;
    int fh = ren_font_height(f), n = (tv->cols + per - 1) / per;
    ren_clip_push(v->r, hl->area);
    for (int k = 1; k < n; k++) { /* light in dark: seen on light cells and on dark ones */
        int x = hl->grid.x + (int)lroundf(k * per * hl->zcw);
        ren_rect(v->r, (Rect){x - 2, hl->grid.y, 4, hl->grid.h}, v->th->bg);
        ren_rect(v->r, (Rect){x - 1, hl->grid.y, 2, hl->grid.h}, v->th->text);
    }
    ren_clip_pop(v->r);
    int y = hl->area.y + hl->area.h + 2;
    if (y + fh > hl->rc.y + hl->rc.h + fh || per * hl->zcw < ren_text_width(f, "h8"))
        return;
    char buf[32];
    for (int k = 0; k < n; k++) {
        int x0 = hl->grid.x + (int)lroundf(k * per * hl->zcw), w = (int)lroundf(per * hl->zcw);
        snprintf(buf, sizeof buf, w >= ren_text_width(f, "head 10") + 4 ? _("head %d") : "h%d", k + 1);
        Rect band = {x0, y, w, fh};
        if (band.x + band.w <= hl->area.x || band.x >= hl->area.x + hl->area.w)
            continue;
        ui_text_center(v->r, f, buf, band, v->th->dim);
    }
}

/* The cell size at zoom 1: as large as fits, at most 72 points; square
 * when both axes are tokens. */
static void heat_cell_size(const ViewCtx *v, const TfView *tv, Rect area, float *cw, float *ch)
{
    *cw = (float)area.w / tv->cols;
    *ch = (float)area.h / tv->rows;
    int square = tv->row_kind != LBL_DIM && tv->col_kind != LBL_DIM && tv->col_kind != LBL_VOCAB;
    float maxc = 72.0f * v->g->scale;
    if (square) {
        *cw = *ch = fminf(fminf(*cw, *ch), maxc);
        return;
    }
    *cw = fminf(*cw, maxc);
    *ch = fminf(*ch, maxc);
}

/* Bands for the labels and the colour bar around the cell area, the cell
 * size, and the matrix centred with its colour bar following it. 0 when
 * the cells have no room. */
static int heat_layout(const ViewCtx *v, const TfView *tv, const HeatOpts *o, Rect rc, HeatLayout *hl)
{
    RenFont *f = v->g->small;
    hl->lw = ui_label_width(v->s, tv, 0, f) + 10; /* as wide as the labels, at most a quarter */
    if (hl->lw > rc.w / 4)
        hl->lw = rc.w / 4;
    hl->cbw = o->colorbar ? ren_text_width(f, "-0.0000") + 22 : 0;
    int fh = ren_font_height(f);
    hl->top = fh + 6;
    hl->up = 0;
    hl->area = (Rect){rc.x + hl->lw, rc.y + hl->top, rc.w - hl->lw - hl->cbw - 8, rc.h - hl->top};
    if (hl->area.w < 10 || hl->area.h < 10)
        return 0;
    heat_cell_size(v, tv, hl->area, &hl->cw, &hl->ch);
    /* token columns narrower than their tokens but as wide as a line of
     * text: the tokens turned, each whole over its own column */
    int tokens = tv->col_kind == LBL_SRC || tv->col_kind == LBL_TGT;
    int kw = tokens ? ui_label_width(v->s, tv, 1, f) : 0, cap = (int)(70 * v->g->scale);
    if (tokens && hl->cw < kw + 4 && hl->cw >= fh * 3 / 4 && rc.h > 4 * (kw < cap ? kw : cap)) {
        hl->up = 1;
        hl->top = (kw < cap ? kw : cap) + 8;
        hl->area = (Rect){rc.x + hl->lw, rc.y + hl->top, rc.w - hl->lw - hl->cbw - 8, rc.h - hl->top};
        heat_cell_size(v, tv, hl->area, &hl->cw, &hl->ch);
    }
    int content_w = (int)lroundf(hl->cw * tv->cols), content_h = (int)lroundf(hl->ch * tv->rows);
    int slack = hl->area.w - content_w;
    if (slack > 0) {
        int shift = slack / 2;
        hl->area.x += shift;
        hl->area.w = content_w;
        rc.x += shift;
        rc.w = hl->lw + content_w + hl->cbw + 8;
    }
    if (hl->area.h > content_h)
        hl->area.h = content_h;
    hl->rc = rc;
    return 1;
}

/* Wheel zoom, drag pan and right-click reset inside the cell area, then
 * the pan kept within the matrix. */
static void heat_pan_zoom(ViewCtx *v, const TfView *tv, const HeatLayout *hl, PanZoom *pz)
{
    const UiInput *in = v->in;
    if (ui_over(in, hl->area)) {
        if (in->wheel)
            pz_zoom_at(pz, powf(1.25f, (float)in->wheel), (float)(in->mx - hl->area.x),
                       (float)(in->my - hl->area.y));
        if (in->rpressed)
            *pz = (PanZoom){1, 0, 0};
    }
    int dx, dy; /* a drag that started in the cells pans them (its id: the pan it moves) */
    if (ui_drag(v->ui, ui_id_ptr(v->ui, pz), hl->area, &dx, &dy)) {
        pz->ox += (float)dx;
        pz->oy += (float)dy;
    }
    pz_clamp(pz, hl->cw * tv->cols, hl->ch * tv->rows, (float)hl->area.w, (float)hl->area.h);
}

/* The cells' rectangle at the pan and zoom pz. */
static void heat_place_grid(const TfView *tv, const PanZoom *pz, HeatLayout *hl)
{
    mat3 m;
    pz_transform(pz, m);
    vec3 o0, p0 = {0, 0, 1};
    glm_mat3_mulv(m, p0, o0);
    hl->zcw = hl->cw * pz->zoom;
    hl->zch = hl->ch * pz->zoom;
    hl->grid = (Rect){hl->area.x + (int)lroundf(o0[0]), hl->area.y + (int)lroundf(o0[1]),
                     (int)lroundf(hl->zcw * tv->cols), (int)lroundf(hl->zch * tv->rows)};
}

/* Row i (axis 0) or column i (axis 1) of the grid. */
static Rect heat_band(const HeatLayout *hl, int axis, int i)
{
    const Rect g = hl->grid;
    return axis ? (Rect){g.x + (int)lroundf(i * hl->zcw), g.y, (int)lroundf(hl->zcw), g.h}
                : (Rect){g.x, g.y + (int)lroundf(i * hl->zch), g.w, (int)lroundf(hl->zch)};
}

/* Padding rows and columns get a veil so the real tokens stand out. */
static void draw_padding_veils(ViewCtx *v, const TfView *tv, const HeatLayout *hl)
{
    Color veil = {v->th->pad.r, v->th->pad.g, v->th->pad.b, 110};
    for (int axis = 0; axis < 2; axis++) {
        int n = axis ? tv->cols : tv->rows;
        for (int i = 0; i < n; i++) {
            if (!label_is_padding(v->s, tv, axis, i))
                continue;
            Rect s = heat_band(hl, axis, i);
            if (axis)
                s.w = (int)ceilf(hl->zcw);
            else
                s.h = (int)ceilf(hl->zch);
            ren_rect(v->r, s, veil);
        }
    }
}

/* The selected token: its row or column outlined. */
static void draw_selection(ViewCtx *v, const TfView *tv, const HeatLayout *hl)
{
    for (int axis = 0; axis < 2; axis++) {
        int n = axis ? tv->cols : tv->rows;
        for (int i = 0; i < n; i++)
            if (label_selected(v->s, tv, axis, i))
                ren_rect_line(v->r, heat_band(hl, axis, i), 2, v->th->select);
    }
}

/* The cell under the mouse: its value in the status line, an outline;
 * else the keyboard's cell, unless it is in another heatmap (no_keys). */
static void draw_hover(ViewCtx *v, const TfView *tv, const HeatLayout *hl, int no_keys)
{
    const UiInput *in = v->in;
    const Rect g = hl->grid;
    int r, c, keys = 0;
    if (!ui_over(in, hl->area) || in->mx >= g.x + g.w || in->my >= g.y + g.h || in->mx < g.x || in->my < g.y) {
        if (no_keys || !view_key_cell(v, tv->rows, tv->cols, &r, &c)) /* no mouse over the grid: the keyboard's cell */
            return;
        keys = 1;
    } else {
        if (!no_keys)
            view_key_cell(v, tv->rows, tv->cols, &r, &c); /* its room, for the keys */
        c = (int)((in->mx - g.x) / hl->zcw);
        r = (int)((in->my - g.y) / hl->zch);
    }
    if (r < 0 || r >= tv->rows || c < 0 || c >= tv->cols)
        return;
    ui_hover_cell(v, tv, r, c);
    int w = (int)lroundf(hl->zcw), h = (int)lroundf(hl->zch);
    Rect cell = {g.x + (int)lroundf(c * hl->zcw), g.y + (int)lroundf(r * hl->zch), w > 2 ? w : 2, h > 2 ? h : 2};
    if (keys)
        view_key_outline(v, cell);
    else
        ren_rect_line(v->r, (Rect){cell.x - 1, cell.y - 1, cell.w + 2, cell.h + 2}, 2, v->th->select);
}

/* A frame round the visible part of the grid. */
static void draw_frame(ViewCtx *v, const HeatLayout *hl)
{
    const Rect a = hl->area, g = hl->grid;
    ren_rect_line(v->r, (Rect){a.x - 1, a.y - 1, (g.w < a.w ? g.w : a.w) + 2, (g.h < a.h ? g.h : a.h) + 2}, 1,
                  v->th->border);
}

/* The colour bar right of the grid, as tall as the grid (at least 120
 * points when there is room). */
static void draw_colorbar(ViewCtx *v, const HeatLayout *hl, CmapId cmap, float lo, float hi, int prob)
{
    int bh = hl->grid.h < hl->area.h ? hl->grid.h : hl->area.h;
    if (bh < 120)
        bh = hl->area.h < 120 ? hl->area.h : 120;
    ui_colorbar(v, (Rect){hl->rc.x + hl->rc.w - hl->cbw + 8, hl->area.y, 16, bh}, cmap, lo, hi, prob ? NULL : "0");
}

/* "zoom 2.0x": below the grid when there is room, else in the label band. */
static void draw_zoom_note(ViewCtx *v, const HeatLayout *hl, float zoom)
{
    RenFont *f = v->g->small;
    int fh = ren_font_height(f);
    char z[64];
    snprintf(z, sizeof z, _("zoom %.1fx  (right-click resets)"), zoom);
    int zy = hl->area.y + hl->area.h + 4;
    if (zy + fh > hl->rc.y + hl->rc.h)
        zy = hl->rc.y;
    int zw = ren_text_width(f, z);
    Rect zr = {hl->area.x + hl->area.w - zw - 4, zy, zw + 4, fh};
    if (zy == hl->rc.y)
        ren_rect(v->r, zr, v->th->bg);
    ren_text(v->r, f, z, zr.x + 2, zy, v->th->dim);
}

/* One heatmap in rc: layout, input, then cells, marks, veils, selection
 * and hover under the clip, and the frame, labels, colour bar and zoom
 * note around it. */
/* Q, K, V of all heads and the heads' concatenation hold the heads side
 * by side, d_k columns each: a line between the blocks, and each block's
 * head number over it, so "head 2 uses the next d_k columns" can be seen. */
static void draw_head_blocks(ViewCtx *v, const TfView *tv, const HeatLayout *hl)
{
    const Scene *sc = v->s;
    const StageInfo *si = stage_info(tv->stage);
    int H = sc->model->cfg.n_heads, C = sc->model->cfg.d_model;
    if (sc->head >= 0 || H < 2 || tv->cols != C || C % H || (si->kind != SK_QKV && si->kind != SK_HEADS))
        return;
    int dk = C / H;
    RenFont *f = v->g->small;
    for (int h = 0; h < H; h++) {
        float x = hl->grid.x + h * dk * hl->zcw;
        if (h > 0)
            ren_rect(v->r, (Rect){(int)x - 1, hl->grid.y, 2, (int)(tv->rows * hl->zch)}, v->th->bg);
        char lab[16];
        snprintf(lab, sizeof lab, _("head %d"), h + 1);
        int lw = ren_text_width(f, lab);
        if (lw + 8 < dk * hl->zcw && hl->zch >= ren_font_height(f) + 4) {
            int lx = (int)(x + (dk * hl->zcw - lw) / 2);
            ren_rect(v->r, (Rect){lx - 3, hl->grid.y + 2, lw + 6, ren_font_height(f)}, v->th->panel);
            ren_text(v->r, f, lab, lx, hl->grid.y + 2, v->th->text);
        }
    }
}

static void heat_draw_one(ViewCtx *v, const TfView *tv, Rect rc, const HeatOpts *o)
{
    const Scene *sc = v->s;
    if (rc.w < 40 || rc.h < 30 || tv->rows < 1 || tv->cols < 1)
        return;
    heat_caption(v, o, &rc);
    HeatLayout hl;
    if (!heat_layout(v, tv, o, rc, &hl))
        return;
    PanZoom none = {1, 0, 0}, *pz = o->pz_slot >= 0 ? &v->pz[o->pz_slot] : &none;
    if (o->pz_slot >= 0)
        heat_pan_zoom(v, tv, &hl, pz);
    heat_place_grid(tv, pz, &hl);

    float lo, hi;
    value_range(tv, o, &lo, &hi);
    CmapId cmap = o->diverging ? CMAP_DIVERGING : o->prob ? sc->cmap_prob : sc->cmap_signed;
    uint64_t key = heat_key(tv->stage, tv->layer, tv->head, tv->b, cmap, o->zeros_marked);
    if (o->pz_slot == VIEW_MATRIX || o->diverging) /* the main heatmap, or a difference */
        v->out->heat = (HeatGeo){1, hl.grid, hl.zcw, hl.zch, tv->rows, tv->cols, lo, hi, cmap, tv->stage};
    ren_clip_push(v->r, hl.area);
    draw_cells(v, tv, hl.grid, hl.zcw, hl.zch, lo, hi, cmap, key);
    draw_cell_marks(v, tv, hl.area, hl.grid, hl.zcw, hl.zch, lo, hi, cmap, o);
    draw_padding_veils(v, tv, &hl);
    draw_head_blocks(v, tv, &hl);
    draw_selection(v, tv, &hl);
    draw_hover(v, tv, &hl, o->no_keys);
    ren_clip_pop(v->r);
    draw_head_bounds(v, tv, &hl, o->head_cols);
    draw_frame(v, &hl);
    draw_labels(v, tv, 0, (Rect){hl.rc.x, hl.area.y, hl.lw, hl.area.h}, hl.grid, hl.zch, tv->rows, 0);
    /* column labels may reach left over the row-label band (the first one) */
    draw_labels(v, tv, 1, (Rect){hl.rc.x, hl.rc.y, hl.area.x + hl.area.w - hl.rc.x, hl.top}, hl.grid, hl.zcw,
                tv->cols, hl.up);
    if (o->colorbar)
        draw_colorbar(v, &hl, cmap, lo, hi, o->prob);
    if (pz->zoom > 1.0f)
        draw_zoom_note(v, &hl, pz->zoom);
}

/* ---- token stages: the sentence as chips with ids ---- */

/* A row of token chips (text, id, position) from (x, y) in width w;
 * returns the y below it. kind says whose tokens these are (selection). */
static int token_chips(ViewCtx *v, const Vocab *voc, const int *ids, int n, LabelKind kind,
                       int n_real, int x0, int y, int w, int show_ids, int stage,
                       const int *min_w, const char *text, const TokSpan *spans, int n_spans)
{
    const Scene *sc = v->s;
    const Theme *th = v->th;
    RenFont *f = v->g->title, *s = v->g->small;
    int fh = ren_font_height(f), sh = ren_font_height(s);
    int x = x0, row_h = fh + 14 + (show_ids ? 2 * sh + 4 : 0) + 12;
    char id[64], surface[VOCAB_MAX_TOKEN_BYTES + 1];
    for (int i = 0; i < n; i++) {
        char tb[VOCAB_MAX_TOKEN_BYTES + 1];
        const char *t = view_token(voc, ids[i], tb, sizeof tb);
        int unk_id = cfg_unk_id(&sc->model->cfg);
        int unk_word = ids[i] == unk_id && text && i < n_spans && spans[i].len > 0 &&
                       spans[i].len <= VOCAB_MAX_TOKEN_BYTES; /* a MarianMT piece that spells no text: none */
        if (unk_word) { /* show the word the learner typed, marked unknown */
            memcpy(surface, text + spans[i].off, (size_t)spans[i].len);
            surface[spans[i].len] = 0;
            t = surface;
        }
        int cw = ren_text_width(f, t) + 24;
        if (cw < 56)
            cw = 56;
        if (show_ids) { /* the id under the chip ("<unk> id 3") fits it too */
            snprintf(id, sizeof id, unk_word ? "<unk> id %d" : "id %d", ids[i]);
            int iw = ren_text_width(s, id) + 10;
            cw = iw > cw ? iw : cw;
        }
        if (min_w && cw < min_w[i]) /* aligned with another row */
            cw = min_w[i];
        if (x + cw > x0 + w && x > x0) {
            x = x0;
            y += row_h;
        }
        Rect chip = {x, y, cw, fh + 14};
        int pad = i >= n_real, unk = ids[i] == unk_id;
        int hidden = kind == LBL_SRC && sc->exp && tf_exp_hidden(sc->exp, i); /* Alt+click */
        int sel = ui_side_of(kind) == sc->sel.side && sc->sel.index == i && sc->sel.side;
        ren_rect(v->r, chip, pad ? th->pad : th->panel2);
        ren_rect_line(v->r, chip, sel ? 3 : 1, sel ? th->select : unk || hidden ? th->warn : th->border);
        ui_text_center(v->r, f, t, chip, unk ? th->warn : hidden ? th->dim : th->text);
        if (hidden) /* struck through, as its key column in the heatmaps */
            ren_line(v->r, (float)chip.x + 4, chip.y + chip.h * 0.5f, (float)(chip.x + chip.w - 4),
                     chip.y + chip.h * 0.5f, 2, th->warn);
        if (show_ids) {
            snprintf(id, sizeof id, unk_word ? "<unk> id %d" : "id %d", ids[i]);
            ui_text_center(v->r, s, id, (Rect){x, y + chip.h + 2, cw, sh}, th->dim);
            snprintf(id, sizeof id, _("pos %d"), i);
            ui_text_center(v->r, s, id, (Rect){x, y + chip.h + 2 + sh, cw, sh}, th->dim);
        }
        if (stage >= 0 && ui_clicked(v->in, chip))
            toggle_select(v, kind, i);
        if (stage >= 0 && ui_over(v->in, chip)) {
            v->out->hover.valid = 1;
            v->out->hover.stage = (StageId)stage;
            v->out->hover.row = i;
            v->out->hover.col = 0;
            v->out->hover.value = (float)ids[i];
            snprintf(v->out->hover.where, sizeof v->out->hover.where, _("token %d '%s'"), i, t);
        }
        x += cw + 10;
    }
    return y + row_h;
}

/* Token stages: the sentence as chips with ids; for the source also what
 * the model makes of it, for the decoder input the shift by one place. */
/* Tokens as plain chips, a run of three or more of the same token as one
 * chip "t30651 ×47" (an untrained model repeats itself); returns the y
 * below them. */
static int run_chips(ViewCtx *v, const Vocab *voc, const int *ids, int n, int x0, int y, int w)
{
    RenFont *f = v->g->title;
    int fh = ren_font_height(f), x = x0, row_h = fh + 14 + 12;
    for (int i = 0; i < n;) {
        int k = 1;
        while (i + k < n && ids[i + k] == ids[i])
            k++;
        int run = k >= 3 ? k : 1;
        char tb[VOCAB_MAX_TOKEN_BYTES + 1], t[VOCAB_MAX_TOKEN_BYTES + 24];
        view_token(voc, ids[i], tb, sizeof tb);
        if (run > 1)
            snprintf(t, sizeof t, "%s ×%d", tb, run);
        else
            snprintf(t, sizeof t, "%s", tb);
        int cw = ren_text_width(f, t) + 24;
        if (cw < 56)
            cw = 56;
        if (cw > w)
            cw = w;
        if (x + cw > x0 + w && x > x0) {
            x = x0;
            y += row_h;
        }
        Rect chip = {x, y, cw, fh + 14};
        ren_rect(v->r, chip, v->th->panel2);
        ren_rect_line(v->r, chip, 1, v->th->border);
        ren_clip_push(v->r, chip);
        int tw = ren_text_width(f, t);
        ui_text_fit(v->r, f, t, tw > cw - 8 ? chip.x + 4 : chip.x + (cw - tw) / 2, chip.y + 7, cw - 8, v->th->text);
        ren_clip_pop(v->r);
        x += cw + 10;
        i += run;
    }
    return y + row_h;
}

static void tokens_draw(ViewCtx *v, const TfView *tv)
{
    const Scene *sc = v->s;
    const Theme *th = v->th;
    const TfTrace *tr = sc->trace;
    RenFont *ui = v->g->ui;
    int x = v->area.x + 10, w = v->area.w - 20, y = v->area.y + 16;
    int lh = ren_font_height(ui) + 6;
    int src = tv->stage == ST_SRC_TOKENS;
    const Vocab *voc = src ? &sc->model->src_vocab : &sc->model->tgt_vocab;
    int n_real = src ? tr->src_len[tv->b] : tr->tgt_len[tv->b];
    /* the decoder input and, under each position, the token it must
     * predict there: the next one, <eos> at the end */
    int next[VIEW_CAP_T], widths[VIEW_CAP_T];
    int n_next = 0;
    if (!src) {
        n_next = n_real < VIEW_CAP_T ? n_real : VIEW_CAP_T;
        RenFont *tf = v->g->title;
        for (int i = 0; i < tv->rows && i < VIEW_CAP_T; i++) {
            next[i] = i + 1 < n_real ? tv->ids[i + 1] : cfg_eos_id(&sc->model->cfg);
            char t1[VOCAB_MAX_TOKEN_BYTES + 1], t2[VOCAB_MAX_TOKEN_BYTES + 1];
            int a1 = ren_text_width(tf, view_token(voc, tv->ids[i], t1, sizeof t1)),
                a2 = ren_text_width(tf, view_token(voc, next[i], t2, sizeof t2));
            widths[i] = (a1 > a2 ? a1 : a2) + 24;
        }
        ren_text(v->r, ui, _("the decoder reads"), x, y, th->dim);
        y += lh;
    }
    const SceneSent *typed = src && tv->b < sc->n_src ? &sc->sent[tv->b] : NULL;
    y = token_chips(v, voc, tv->ids, tv->rows, tv->row_kind, n_real, x, y, w, 1, tv->stage,
                    src ? NULL : widths, typed ? typed->text : NULL, typed ? typed->spans : NULL,
                    typed ? typed->n : 0);
    if (n_next > 0) {
        ren_text(v->r, ui, _("and at each position must predict the next token"), x, y, th->dim);
        y += lh;
        y = token_chips(v, voc, next, n_next, LBL_NONE, n_next, x, y, w, 0, -1, widths, NULL, NULL, 0);
    }
    int exp_on = sc->exp && !tf_exp_is_none(sc->exp);
    if (src && exp_on && sc->exp->n_hide && tv->b == 0) {
        y += ui_paragraph(v->r, v->g->small, _("Struck through: hidden from attention by the experiment (a −∞ key in "
                                               "encoder self-attention and cross-attention); it is still embedded."),
                          x, y, w, th->warn) + 6;
    }
    if (src && sc->translation[0] && tv->b == 0) {
        y += 6;
        ren_text(v->r, ui, exp_on ? _("the normal model translates it (greedy) as: both passes read this as the "
                                      "decoder input")
                                  : _("the model translates it (greedy) as"),
                 x, y, th->dim);
        y += lh;
        int n = 0;
        int out[VIEW_CAP_T];
        for (int i = 0; i < sc->greedy_n && n < VIEW_CAP_T && sc->greedy_ids[i] != cfg_eos_id(&sc->model->cfg); i++)
            out[n++] = sc->greedy_ids[i];
        y = run_chips(v, &sc->model->tgt_vocab, out, n, x, y, w);
        if (exp_on) { /* the experiment's own translation, which no pass shown reads */
            char buf[VIEW_TEXT_MAX + 160];
            snprintf(buf, sizeof buf, _("under the experiment the model translates it as «%s»"), sc->translation);
            y += ui_paragraph(v->r, ui, buf, x, y, w, th->warn) + 6;
        }
    }
    y += 8;
    if (sc->n_unk && src) {
        y += ui_paragraph(v->r, ui, _("Words outside the model's vocabulary become <unk> (in red): the model sees only that id and cannot tell them apart."),
                          x, y, w, th->warn) + 8;
    }
    ui_paragraph(v->r, v->g->small, _("→ steps through the model stage by stage; a block on the left jumps to it."),
                 x, y, w, th->dim);
}

void view_matrix(ViewCtx *v)
{
    const Scene *sc = v->s;
    StagePos p = sc->pos;
    const StageInfo *si = stage_info(p.stage);
    int head = sc->head;
    if ((si->flags & SF_HEAD) && head < 0)
        head = 0;
    TfView tv;
    TfErr err;
    if (tf_view(sc->trace, p.stage, p.layer, head, sc->batch, &tv, &err)) {
        ui_paragraph(v->r, v->g->ui, err.msg, v->area.x + 10, v->area.y + 10, v->area.w - 20, v->th->warn);
        return;
    }
    if (si->kind == SK_TOKENS) {
        tokens_draw(v, &tv);
        return;
    }
    HeatOpts o = {0};
    o.prob = si->kind == SK_WEIGHTS || si->kind == SK_PROBS;
    o.show_values = 1;
    o.colorbar = 1;
    o.zeros_marked = si->kind == SK_HIDDEN;
    o.pz_slot = VIEW_MATRIX;
    char axes[256];
    o.axes = view_axes_text(&tv, si->kind, axes, sizeof axes);
    const TfConfig *c = &sc->model->cfg;
    if ((si->kind == SK_QKV || si->kind == SK_HEADS) && tv.col_kind == LBL_DIM && tv.cols == c->d_model &&
        c->n_heads > 1)
        o.head_cols = c->d_model / c->n_heads;
    if (sc->rollout && sc->roll && si->kind == SK_WEIGHTS) {
        /* R: attention rollout through the layers up to this one, all heads */
        TfView rv = tv;
        rv.data = sc->roll;
        rv.rows = sc->roll_rows;
        rv.cols = sc->roll_cols;
        rv.stride = sc->roll_cols;
        rv.head = -1;
        rv.name = sc->roll_cross ? "dec.cross.rollout" : "enc.rollout";
        char cap[200];
        snprintf(cap, sizeof cap, sc->roll_cross ? _("Cross rollout to layer %d: mean of the heads · R of the encoder (R: off)")
                                                 : _("Attention rollout to layer %d: R_l = Â_l · R_(l−1) (R: off)"),
                 p.layer + 1);
        o.caption = cap;
        heat_draw(v, &rv, v->area, &o);
        if (v->out->hover.valid)
            v->out->hover.own = 1; /* not one head's weight: no "how it was computed" */
        return;
    }
    heat_draw(v, &tv, v->area, &o);
}

/* What an axis of a matrix lists, for its title: [axis][attention][kind]
 * (rows 0, columns 1; attention: queries and keys), whole phrases so that
 * each language words them its own way. */
static const char *axis_title(int axis, int attn, LabelKind k)
{
    switch (k) {
    case LBL_SRC:
        return axis ? (attn ? _("columns: keys (source tokens)") : _("columns: source tokens"))
                    : (attn ? _("rows: queries (source tokens)") : _("rows: source tokens"));
    case LBL_TGT:
        return axis ? (attn ? _("columns: keys (decoder input)") : _("columns: decoder input"))
                    : (attn ? _("rows: queries (decoder input)") : _("rows: decoder input"));
    case LBL_POS: return axis ? _("columns: positions") : _("rows: positions");
    case LBL_DIM: return axis ? _("columns: dimensions") : _("rows: dimensions");
    case LBL_VOCAB: return axis ? _("columns: vocabulary") : _("rows: vocabulary");
    default: return NULL;
    }
}

const char *view_axes_text(const TfView *tv, StageKind kind, char *buf, size_t cap)
{
    int attn = kind == SK_SCORES || kind == SK_WEIGHTS || kind == SK_MASK;
    const char *r = axis_title(0, attn, tv->row_kind), *c = axis_title(1, attn, tv->col_kind);
    if (!r || !c)
        return NULL;
    snprintf(buf, cap, "%s · %s", r, c);
    return buf;
}

/* Is tv the trace's own matrix (not a view's copy or selection)? */
static int trace_matrix(const Scene *sc, const TfView *tv)
{
    TfView t;
    TfErr err;
    return tv->data && !tf_view(sc->trace, tv->stage, tv->layer, tv->head, tv->b, &t, &err) &&
           t.data == tv->data && t.stride == tv->stride && t.rows == tv->rows && t.cols == tv->cols;
}

void view_diff_hover(ViewCtx *v, const TfView *tv)
{
    const Scene *sc = v->s;
    Hover *h = &v->out->hover;
    TfView ev, bv;
    TfErr err;
    if (!h->valid || h->stage != tv->stage || h->row >= tv->rows || h->col >= tv->cols ||
        tf_view(sc->trace, tv->stage, tv->layer, tv->head, tv->b, &ev, &err) ||
        tf_view(sc->base, tv->stage, tv->layer, tv->head, tv->b, &bv, &err) || bv.rows != ev.rows ||
        bv.cols != ev.cols)
        return;
    size_t n = strlen(h->where);
    float e = tf_view_at(&ev, h->row, h->col), b = tf_view_at(&bv, h->row, h->col);
    /* the sign as a glyph as well as a colour (for those who cannot tell
     * the diverging map's two arms apart) */
    const char *sign = e == b ? "=" : e > b ? "▲" : "▼";
    snprintf(h->where + n, sizeof h->where - n, _(" · experiment %.6g, normal %.6g, %s difference"), e, b, sign);
}

/* In difference mode (D) a matrix of the trace is drawn as experiment −
 * normal on a diverging scale centred at 0, with its own colour bar and
 * range, and the hover says both values. */
void heat_draw(ViewCtx *v, const TfView *tv, Rect rc, const HeatOpts *o)
{
    const Scene *sc = v->s;
    float *diff = sc->cmp == 2 && sc->base && !o->diverging && trace_matrix(sc, tv)
                      ? view_diff(sc, tv, tv->head)
                      : NULL;
    if (!diff) {
        heat_draw_one(v, tv, rc, o);
        return;
    }
    TfView d = *tv;
    d.data = diff;
    d.stride = d.cols;
    HeatOpts od = *o;
    od.prob = 0;
    od.diverging = 1;
    od.zeros_marked = 0;
    od.lo = od.hi = 0;
    char cap[300], base[200];
    snprintf(base, sizeof base, o->caption ? _("%s: experiment − normal") : "%s",
             o->caption ? o->caption : _("experiment − normal"));
    snprintf(cap, sizeof cap, "%s  %s", base, _("(▲ higher, ▼ lower in the experiment)"));
    od.caption = cap;
    heat_draw_one(v, &d, rc, &od);
    view_diff_hover(v, tv);
    free(diff);
}

float *view_diff(const Scene *sc, const TfView *tv, int head)
{
    TfView bv;
    TfErr err;
    if (!tv->data || tf_view(sc->base, tv->stage, tv->layer, head, tv->b, &bv, &err) ||
        bv.rows != tv->rows || bv.cols != tv->cols)
        return NULL;
    float *d = malloc((size_t)tv->rows * tv->cols * sizeof(float));
    if (!d)
        return NULL;
    for (int r = 0; r < tv->rows; r++)
        for (int c = 0; c < tv->cols; c++) {
            float x = tf_view_at(tv, r, c), y = tf_view_at(&bv, r, c);
            /* -inf - -inf (a mask both applied) is no difference */
            d[(size_t)r * tv->cols + c] = x == y ? 0.0f : x - y;
        }
    return d;
}

const ViewDef VIEW_MATRIX_DEF = {"matrix", N_("Heatmap"), view_matrix, NULL, 0, NULL, VIEW_NEED_STAGE, 0};
