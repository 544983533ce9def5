/* view_pe.c - the positional encoding view (stage pos.enc).
 *
 * Attention alone cannot tell word order, so the paper adds to every token
 * embedding a fixed vector that depends only on its position:
 *
 *     PE(pos, 2i)   = sin(pos · ω_i)      ω_i = 1 / 10000^(2i / d_model)
 *     PE(pos, 2i+1) = cos(pos · ω_i)
 *
 * Three pictures of the table the engine used (trace pe, (cap_T, d_model)):
 *   waves     PE(pos, d) over the positions for a few chosen dimensions d;
 *             the current sentence's positions are dots labelled with their
 *             tokens. Fast dimensions (small d) wiggle, slow ones barely move.
 *   PE table  the table itself, positions x dimensions, on a fixed -1..1
 *             scale: every column is one of those waves.
 *   rotation  for one sin/cos pair i the point (PE(pos,2i), PE(pos,2i+1)) =
 *             (sin pos·ω, cos pos·ω) lies on the unit circle, and moving k
 *             positions turns it by the angle k·ω: PE(pos+k) = R(k·ω)·PE(pos)
 *             with the same matrix R for every pos. That is why "the model
 *             can easily learn to attend by relative positions" (section
 *             3.5). R is built with cglm and applied to the table's PE(pos);
 *             the result is printed beside the table's own PE(pos+k).
 *
 * Every number on screen comes from the engine's table, except the
 * rotation being demonstrated (and the faint continuous curves between the
 * integer positions, drawn from the formula as a guide to the eye).
 *
 * Choices (dimensions, pair, pos, k) live in a small struct of this file:
 * they are view settings that no other part of the app reads. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view.h"
#include "view_pe_base.h"
#include "view_pe_rot.h"

/* ---- the waves' colours ---- */

/* The colour of wave slot s: four theme colours that stay apart in every
 * theme (and the chips also say which dimension each curve is). */
static Color wave_color(const Theme *th, int s)
{
    const Color c[PE_WAVES] = {th->accent, th->accent2, th->good, th->bad};
    return c[s % PE_WAVES];
}

/* ---- state ---- */

/* Defaults for a new d_model: the fastest pair (dims 0, 1) and two slower
 * sines whose periods (2π·10000^(2i/d) ≈ 20 and 63 positions) do not depend
 * on d_model; the rotation turns by about a radian for k = 2. */
static void ui_fit(ViewCtx *v, const PeData *d)
{
    const Scene *sc = v->s;
    PeUi *u = v->st;
    int C = d->C;
    if (u->C != C + (d->halves << 20)) { /* the sine and cosine of pair 0, two slower sines */
        int slow = PE_COL(d, C / 16, 0), slower = PE_COL(d, C / 8, 0);
        u->C = C + (d->halves << 20);
        u->dim[0] = 0;
        u->dim[1] = PE_COL(d, 0, 1) < C ? PE_COL(d, 0, 1) : 0;
        u->dim[2] = slow < C ? slow : 0;
        u->dim[3] = slower < C ? slower : 0;
        u->slot = PE_WAVES - 1;
        u->pair = C / 32; /* ω = 10000^(-1/16) ≈ 0.56 rad per position for any d_model */
        u->pos = 1;
        u->k = 2;
    }
    for (int s = 0; s < PE_WAVES; s++)
        u->dim[s] = u->dim[s] < 0 ? 0 : u->dim[s] >= C ? C - 1 : u->dim[s];
    int npair = C / 2 > 0 ? C / 2 : 1;
    u->pair = u->pair < 0 ? 0 : u->pair >= npair ? npair - 1 : u->pair;
    /* follow a clicked source token */
    int sel = sc->sel.side == 1 ? sc->sel.index + 1 : 0;
    if (sel != u->sel_seen) {
        u->sel_seen = sel;
        if (sel)
            u->pos = sel - 1;
    }
    int last = d->rows - 1;
    u->pos = u->pos < 0 ? 0 : u->pos > last ? last : u->pos;
    if (u->pos + u->k > last)
        u->k = last - u->pos;
    if (u->pos + u->k < 0)
        u->k = -u->pos;
}

/* ---- waves ---- */

/* The text of wave chip s; with_omega adds its frequency. */
static void chip_text(char *buf, size_t cap, int dim, const PeData *d, int with_omega)
{
    if (with_omega)
        snprintf(buf, cap, PE_IS_COS(d, dim) ? _("dim %d cos ω=%.3g") : _("dim %d sin ω=%.3g"), dim,
                 pe_omega(PE_PAIR(d, dim), d->C));
    else
        snprintf(buf, cap, PE_IS_COS(d, dim) ? _("dim %d cos") : _("dim %d sin"), dim);
}

/* The chips that choose the plotted dimensions, in one row when they fit
 * (the frequencies are left out before wrapping); returns the height used
 * and where the last row ends (*right).
 * The swatch of a chip is a button too: the chosen one (outlined) is the
 * wave a click on the PE table replaces. */
static int wave_chips(ViewCtx *v, Rect rc, const PeData *d, int *right)
{
    PeUi *u = v->st;
    RenFont *f = v->g->small;
    int h = ren_font_height(f) + 8, sw = h, gap = 8, w;
    int x = rc.x, y = rc.y, total = 0, omega = 1;
    char val[64];
    for (int s = 0; s < PE_WAVES; s++) {
        chip_text(val, sizeof val, u->dim[s], d, 1);
        pe_stepper(v, 0, 0, h, -1, "", val, v->th->text, &w);
        total += sw + w + gap;
    }
    if (total > rc.w)
        omega = 0;
    for (int s = 0; s < PE_WAVES; s++) {
        chip_text(val, sizeof val, u->dim[s], d, omega);
        pe_stepper(v, 0, 0, h, -1, "", val, v->th->text, &w);
        if (x > rc.x && x + sw + w > rc.x + rc.w) {
            x = rc.x;
            y += h + 4;
        }
        if (y + h > rc.y + rc.h)
            break;
        Rect sr = {x, y, sw, h};
        Color c = wave_color(v->th, s);
        ren_rect(v->r, (Rect){x + 3, y + h / 2 - 2, sw - 6, 4}, c);
        if (u->slot == s)
            ren_rect_line(v->r, sr, 1, v->th->select);
        if (ui_hit(v->ui, sr, "wave"))
            u->slot = s;
        int step = pe_stepper(v, x + sw, y, h, rc.x + rc.w - x - sw, "", val, c, &w);
        u->dim[s] += step;
        if (u->dim[s] < 0)
            u->dim[s] = d->C - 1;
        if (u->dim[s] >= d->C)
            u->dim[s] = 0;
        x += sw + w + gap;
    }
    *right = x; /* where the last row of chips ends */
    return y + h - rc.y;
}

/* x pixel of a (possibly fractional) position in the plot */
static float pos_x(Rect plot, const PeData *d, float pos)
{
    int n = d->npos > 1 ? d->npos - 1 : 1;
    return plot.x + pos * plot.w / n;
}

static float val_y(Rect plot, float val)
{
    return plot.y + (1.0f - val) * 0.5f * plot.h;
}

static void wave_axes(ViewCtx *v, Rect plot, const PeData *d)
{
    const Theme *th = v->th;
    RenFont *f = v->g->small;
    int fh = ren_font_height(f);
    ren_rect(v->r, plot, th->panel);
    const char *ylab[3] = {"1", "0", "−1"};
    for (int k = 0; k < 3; k++) {
        int y = (int)lroundf(val_y(plot, 1.0f - k));
        ren_rect(v->r, (Rect){plot.x, y, plot.w, 1}, k == 1 ? th->border : pe_with_alpha(th->border, 120));
        int w = ren_text_width(f, ylab[k]);
        ren_text(v->r, f, ylab[k], plot.x - w - 6, y - fh / 2, th->dim);
    }
    /* position ticks, spaced so their numbers never touch */
    int lw = ren_text_width(f, "000") + 12, every = 1;
    static const int nice[] = {1, 2, 5, 10, 20, 25, 50, 100};
    for (int i = 0; i < 8; i++) {
        every = nice[i];
        if (pos_x(plot, d, (float)every) - pos_x(plot, d, 0) >= lw)
            break;
    }
    char buf[16];
    for (int p = 0; p < d->npos; p += every) {
        int x = (int)lroundf(pos_x(plot, d, (float)p));
        ren_rect(v->r, (Rect){x, plot.y + plot.h, 1, 4}, th->dim);
        snprintf(buf, sizeof buf, "%d", p);
        int w = ren_text_width(f, buf);
        ren_text(v->r, f, buf, x - w / 2, plot.y + plot.h + 4, th->dim);
    }
    ren_rect_line(v->r, (Rect){plot.x - 1, plot.y - 1, plot.w + 2, plot.h + 2}, 1, th->border);
}

/* Token labels under the axis, one rule for every sentence: level and
 * centred on their positions when every one finds room in one of three
 * staggered lines (a thin leader joins a lower one to its position), else
 * each turned to read
 * upwards in its own column, its end at the axis, cut with an ellipsis to
 * the band (the whole token beside the mouse); when the positions are
 * closer than a turned label is thick, every k-th position is labelled (k
 * the same for all), never two labels over each other. */
#define PE_TOK_GAP 6 /* pixels between two level labels, at text ×1 */

static int tokens_shown(const PeData *d)
{
    return d->len < d->npos ? d->len : d->npos;
}

static const char *pos_token(ViewCtx *v, const PeData *d, int p, char *tok, size_t cap)
{
    const Scene *sc = v->s;
    view_token(&sc->model->src_vocab, sc->trace->src_ids[(size_t)d->b * sc->trace->S + p], tok, cap);
    return tok;
}

#define PE_TOK_ROWS 3         /* staggered lines of level labels, at most */
#define PE_TOK_LEVEL_MAX 256  /* more tokens than that are never level */

/* The line (0 .. PE_TOK_ROWS - 1) each level label goes on, the first
 * where it clears the label before it (row[p]; NULL: only count); returns
 * the lines used, 0 when some label finds no room: then they are turned. */
static int tokens_level(ViewCtx *v, Rect plot, const PeData *d, int *row)
{
    RenFont *f = v->g->small;
    int gap = (int)lroundf(PE_TOK_GAP * v->g->scale), used = 0;
    int right[PE_TOK_ROWS];
    for (int r = 0; r < PE_TOK_ROWS; r++)
        right[r] = v->area.x - 100000;
    char tok[200];
    for (int p = 0; p < tokens_shown(d); p++) {
        int w = ren_text_width(f, pos_token(v, d, p, tok, sizeof tok));
        int x = (int)lroundf(pos_x(plot, d, (float)p)) - w / 2, r = 0;
        if (x < v->area.x)
            x = v->area.x;
        while (r < PE_TOK_ROWS && x < right[r] + gap)
            r++;
        if (r == PE_TOK_ROWS)
            return 0;
        right[r] = x + w;
        used = r + 1 > used ? r + 1 : used;
        if (row)
            row[p] = r;
    }
    return used;
}

/* The height the labels take under the axis numbers: a line when level,
 * else the longest turned token, at most max_h. */
static int tokens_height(ViewCtx *v, Rect plot, const PeData *d, int max_h)
{
    RenFont *f = v->g->small;
    int fh = ren_font_height(f), h = fh, lines = tokens_level(v, plot, d, NULL);
    if (lines && tokens_shown(d) <= PE_TOK_LEVEL_MAX)
        return lines * fh;
    char tok[200];
    for (int p = 0; p < tokens_shown(d); p++) {
        int w = ren_text_width(f, pos_token(v, d, p, tok, sizeof tok));
        h = w > h ? w : h;
    }
    return h < max_h ? h : max_h;
}

static void wave_tokens(ViewCtx *v, Rect plot, const PeData *d, int y0, int band_h)
{
    const Scene *sc = v->s;
    RenFont *f = v->g->small;
    int fh = ren_font_height(f), n = tokens_shown(d), right = -100000;
    int row[PE_TOK_LEVEL_MAX];
    int level = n <= PE_TOK_LEVEL_MAX ? tokens_level(v, plot, d, row) : 0;
    float step = n > 1 ? pos_x(plot, d, 1.0f) - pos_x(plot, d, 0.0f) : (float)fh;
    int thick = fh * 3 / 4 + (int)lroundf(2 * v->g->scale); /* a turned line's letters */
    int every = level || step >= (float)thick ? 1 : (int)ceilf((float)thick / step);
    char tok[200], cut[200];
    int tip = -1;
    for (int p = 0; p < n; p += every) {
        pos_token(v, d, p, tok, sizeof tok);
        int cx = (int)lroundf(pos_x(plot, d, (float)p)), w = ren_text_width(f, tok);
        int sel = sc->sel.side == 1 && sc->sel.index == p;
        Color c = sel ? v->th->select : v->th->text;
        Rect col;
        if (level) {
            int x = cx - w / 2 < v->area.x ? v->area.x : cx - w / 2, ry = y0 + row[p] * fh;
            if (row[p] > 0) /* a leader up to its position */
                ren_rect(v->r, (Rect){cx, y0 - 2, 1, row[p] * fh + 2}, v->th->border);
            ren_text(v->r, f, tok, x, ry, c);
            col = (Rect){x, ry, w, fh};
            right = x + w > right ? x + w : right;
        } else { /* turned: the token's end at the axis, cut to the band */
            ui_text_cut(f, tok, band_h, cut, sizeof cut);
            int h = ren_text_width(f, cut), x = cx - fh / 2;
            ren_text_up(v->r, f, cut, x, y0 + h, c);
            int cw = (int)(step * every) > fh ? (int)(step * every) : fh;
            col = (Rect){cx - cw / 2, y0, cw, band_h};
            right = x + fh;
        }
        if (ui_over(v->in, col))
            tip = p;
    }

    /* what the marks are, in the last line when the tokens leave room */
    const char *legend = _("dots: the engine's table · lines: the formula in between");
    int lw = ren_text_width(f, legend), lx = plot.x + plot.w - lw;
    if (lx > right + 16 && lx > plot.x)
        ren_text(v->r, f, legend, lx, y0 + band_h - fh, v->th->dim);
    if (tip >= 0) { /* the whole token and its position beside the mouse */
        char buf[240];
        snprintf(buf, sizeof buf, _("position %d: %s"), tip, pos_token(v, d, tip, tok, sizeof tok));
        RenFont *tf = v->g->ui;
        int w = ren_text_width(tf, buf) + 12, h = ren_font_height(tf) + 6;
        int x = v->in->mx + 12, y = v->in->my - h - 8;
        if (x + w > v->area.x + v->area.w)
            x = v->area.x + v->area.w - w;
        ren_rect(v->r, (Rect){x, y, w, h}, v->th->panel2);
        ren_rect_line(v->r, (Rect){x, y, w, h}, 1, v->th->select);
        ren_text(v->r, tf, buf, x + 6, y + 3, v->th->text);
    }
}

/* Report the table value under the mouse (nearest position, nearest
 * curve), or else at the keyboard's cell (Ctrl+left/right the position,
 * Ctrl+up/down the curve, in the order of the chips). */
static void wave_hover(ViewCtx *v, Rect plot, const PeData *d)
{
    if (d->npos < 1)
        return;
    int p, best = 0, kr, kc;
    int keyed = view_key_cell(v, PE_WAVES, d->npos, &kr, &kc) && !ui_over(v->in, plot); /* the mouse wins */
    if (keyed) {
        best = kr;
        p = kc;
    } else if (ui_over(v->in, plot)) {
        int n = d->npos > 1 ? d->npos - 1 : 1;
        p = (int)lroundf((float)(v->in->mx - plot.x) * n / plot.w);
        p = p < 0 ? 0 : p >= d->npos ? d->npos - 1 : p;
        float bd = 1e9f;
        for (int s = 0; s < PE_WAVES; s++) {
            float dy = fabsf(val_y(plot, pe_value(d, p, PE_UI(v)->dim[s])) - v->in->my);
            if (dy < bd) {
                bd = dy;
                best = s;
            }
        }
    } else {
        return;
    }
    int dim = PE_UI(v)->dim[best];
    float x = pos_x(plot, d, (float)p), y = val_y(plot, pe_value(d, p, dim));
    pe_ring(v->r, x, y, 7.0f * v->g->scale, 2.0f, v->th->select);
    if (keyed) /* the keyboard's focus: a second, thicker ring */
        pe_ring(v->r, x, y, 11.0f * v->g->scale, 3.0f, v->th->select);
    Hover *h = &v->out->hover;
    h->valid = 1;
    h->stage = ST_POS_ENC;
    h->layer = 0;
    h->head = -1;
    h->b = d->b;
    h->row = p;
    h->col = dim;
    h->value = pe_value(d, p, dim);
    snprintf(h->where, sizeof h->where, _("PE(pos %d, dim %d) = %s(%d · %.6g)"), p, dim,
             PE_IS_COS(d, dim) ? "cos" : "sin", p, pe_omega(PE_PAIR(d, dim), d->C));
}

/* Wave slot s: the formula between the integer positions as a thin curve
 * (a guide for the eye), the table's values at the integer positions as
 * dots, and bigger dots at the sentence's positions. */
static void wave_curve(ViewCtx *v, Rect plot, const PeData *d, int s)
{
    const Theme *th = v->th;
    int dim = PE_UI(v)->dim[s];
    Color c = wave_color(th, s);
    float sc = v->g->scale, spacing = pos_x(plot, d, 1.0f) - pos_x(plot, d, 0.0f);
    double w = pe_omega(PE_PAIR(d, dim), d->C);
    float xy[PE_SAMPLES * 2];
    /* a point every 0.2 rad of the wave, at most every 8 pixels: smooth,
     * and few segments for the slow waves (each segment costs its
     * antialiased pixels) */
    double px_per_rad = (pos_x(plot, d, 1.0f) - pos_x(plot, d, 0.0f)) / w;
    double step = fmin(8.0, fmax(2.0, 0.2 * px_per_rad));
    int n = (int)(plot.w / step) + 2;
    n = n > PE_SAMPLES ? PE_SAMPLES : n;
    for (int i = 0; i < n; i++) {
        double pos = (double)i * (d->npos - 1) / (n - 1);
        double val = PE_IS_COS(d, dim) ? cos(pos * w) : sin(pos * w);
        xy[2 * i] = pos_x(plot, d, (float)pos);
        xy[2 * i + 1] = val_y(plot, (float)val);
    }
    ren_polyline(v->r, xy, n, 1.3f * sc, pe_with_alpha(c, 160));
    if (spacing >= 5.0f)
        for (int p = 0; p < d->npos; p++)
            pe_disc(v->r, pos_x(plot, d, (float)p), val_y(plot, pe_value(d, p, dim)), 2.0f * sc, c);
    for (int p = 0; p < d->len && p < d->npos; p++) {
        float x = pos_x(plot, d, (float)p), y = val_y(plot, pe_value(d, p, dim));
        pe_disc(v->r, x, y, 4.5f * sc, th->bg);
        pe_disc(v->r, x, y, 3.5f * sc, c);
    }
}

/* What the wave layer shows (dimensions, positions, table, layout, theme). */
static uint64_t waves_key(const ViewCtx *v, const PeData *d, Rect plot, Rect lay)
{
    const int *dim = PE_UI(v)->dim; /* PE_WAVES = 4 of them */
    uint64_t w[] = {(uint64_t)dim[0], (uint64_t)dim[1], (uint64_t)dim[2], (uint64_t)dim[3],
                    (uint64_t)d->npos, (uint64_t)d->len, (uint64_t)d->C, (uint64_t)d->b,
                    (uint64_t)d->rows, (uint64_t)(uintptr_t)d->pe};
    Rect at = {plot.x - lay.x, plot.y - lay.y, plot.w, plot.h}; /* the plot within its layer */
    return ui_layer_key(v, 0x9E, at, w, (int)(sizeof w / sizeof w[0]));
}

static void draw_waves(ViewCtx *v, Rect rc, const PeData *d)
{
    const Theme *th = v->th;
    RenFont *f = v->g->small;
    int fh = ren_font_height(f);
    ren_clip_push(v->r, rc);
    int right;
    int ch = wave_chips(v, (Rect){rc.x, rc.y, rc.w, 3 * (fh + 12)}, d, &right);
    int ylw = ren_text_width(f, "−1") + 10;
    Rect plot = {rc.x + ylw, rc.y + ch + 8, rc.w - ylw - 8, 0};
    int band = tokens_height(v, plot, d, 5 * fh); /* the token labels under the axis numbers */
    plot.h = rc.y + rc.h - (fh + 6 + band + 4) - plot.y;
    if (plot.h < 24 || plot.w < 40) {
        ren_clip_pop(v->r);
        return;
    }
    /* axes and curves: drawn once into a cached layer (hover ring on top) */
    Rect lay = {rc.x, plot.y - 8, rc.w, plot.h + 8 + 4 + fh + 2};
    GfxLayer L;
    if (gfx_layer_begin(v->g, &L, v->s->version, waves_key(v, d, plot, lay), lay, th->bg)) {
        wave_axes(v, plot, d);
        for (int p = 0; p < d->len && p < d->npos; p++) { /* the sentence: faint columns */
            int x = (int)lroundf(pos_x(plot, d, (float)p));
            ren_rect(v->r, (Rect){x - 1, plot.y, 3, plot.h}, pe_with_alpha(th->select, 40));
        }
        ren_clip_push(v->r, (Rect){plot.x - 8, plot.y - 8, plot.w + 16, plot.h + 16});
        for (int s = PE_WAVES - 1; s >= 0; s--)
            wave_curve(v, plot, d, s);
        ren_clip_pop(v->r);
    }
    gfx_layer_end(v->g, &L);
    ren_clip_push(v->r, (Rect){plot.x - 8, plot.y - 8, plot.w + 16, plot.h + 16});
    PE_UI(v)->waves_keys = 1;
    wave_hover(v, plot, d);
    ren_clip_pop(v->r);
    wave_tokens(v, plot, d, plot.y + plot.h + fh + 6, band);
    ren_clip_pop(v->r);
}

/* ---- the table ---- */

/* Difference mode (D): the PE table is the same in both passes, so what
 * is drawn instead is what the experiment changed in the encoder input
 * (with no-pe it is exactly −PE of the sentence's positions). */
static int draw_table_diff(ViewCtx *v, Rect rc, const PeData *d)
{
    const Scene *sc = v->s;
    TfView tv;
    TfErr err;
    if (sc->cmp != 2 || !sc->base || tf_view(sc->trace, ST_ENC_INPUT, 0, -1, d->b, &tv, &err))
        return 0;
    HeatOpts o = {0};
    o.colorbar = 1;
    o.show_values = 1;
    o.pz_slot = VIEW_PE;
    o.no_keys = PE_UI(v)->waves_keys;
    o.caption = _("encoder input");
    heat_draw(v, &tv, rc, &o);
    return 1;
}

static void draw_table(ViewCtx *v, Rect rc, const PeData *d)
{
    const Scene *sc = v->s;
    if (draw_table_diff(v, rc, d))
        return;
    TfView tv;
    TfErr err;
    if (tf_view(sc->trace, ST_POS_ENC, 0, -1, d->b, &tv, &err)) {
        ui_paragraph(v->r, v->g->ui, err.msg, rc.x, rc.y, rc.w, v->th->warn);
        return;
    }
    tv.rows = d->npos; /* rows of the engine's table beyond the sentence too */
    tv.data = d->pe;   /* (the trace's own table holds only what the input needs) */
    tv.stride = d->C;
    char cap[160];
    snprintf(cap, sizeof cap, d->halves ? _("PE table: positions 0–%d × dims 0–%d (sin 0–%d | cos %d–%d)")
                                        : _("PE table: positions 0–%d × dims 0–%d"), d->npos - 1, d->C - 1,
             (d->C + 1) / 2 - 1, (d->C + 1) / 2, d->C - 1);
    if (ren_text_width(v->g->ui, cap) > rc.w)
        snprintf(cap, sizeof cap, "%s", d->halves ? _("PE table: sin | cos halves") : _("PE table"));
    int fh = ren_font_height(v->g->small);
    HeatOpts o = {0};
    o.colorbar = 1;
    o.show_values = 1;
    o.pz_slot = VIEW_PE;
    o.lo = -1.0f;
    o.hi = 1.0f;
    o.no_keys = PE_UI(v)->waves_keys; /* the waves above have the keyboard's cell */
    o.caption = cap;
    Rect hr = {rc.x, rc.y, rc.w, rc.h - fh - 4};
    heat_draw(v, &tv, hr, &o);
    const char *hint[] = {_("each column is one wave: click a column to plot it"), _("click a column to plot it")};
    ui_text_alt(v->r, v->g->small, hint, 2, rc.x, rc.y + rc.h - fh, rc.w, v->th->dim);
    /* a click on a cell plots that dimension and rotates its pair */
    if (v->in->pressed && ui_over(v->in, hr) && v->out->hover.valid && v->out->hover.stage == ST_POS_ENC) {
        PE_UI(v)->dim[PE_UI(v)->slot] = v->out->hover.col;
        PE_UI(v)->pair = PE_PAIR(d, v->out->hover.col);
        if (d->C % 2 && PE_UI(v)->pair >= d->C / 2)
            PE_UI(v)->pair = d->C / 2 - 1;
    }
}

/* ---- the rotation ---- */

static int gather(const Scene *sc, PeUi *u, PeData *d)
{
    const TfTrace *tr = sc->trace;
    memset(d, 0, sizeof *d);
    if (!tr->pe || tr->cap_T < 1 || tr->B < 1)
        return -1;
    d->pe = sc->pe; /* the model's own: halves, stored or the paper's */
    d->rows = sc->pe_rows;
    d->halves = tr->cfg.pe_layout == TF_PE_HALVES;
    if (!d->pe)
        return -1;
    d->C = tr->cfg.d_model;
    d->b = sc->batch < tr->B ? sc->batch : 0;
    d->len = tr->src_len[d->b];
    int need = tr->S > tr->T ? tr->S : tr->T;
    if (need < PE_MIN_POS)
        need = PE_MIN_POS;
    d->npos = need < d->rows ? need : d->rows;
    return 0;
}

/* Narrow layouts: buttons choosing the panel; returns the height used. */
static int panel_tabs(ViewCtx *v, Rect rc, int first)
{
    static const char *names[PANEL_COUNT] = {N_("Waves"), N_("PE table"), N_("Rotation")};
    int h = ren_font_height(v->g->small) + 8, x = rc.x;
    if (PE_UI(v)->panel < first)
        PE_UI(v)->panel = first;
    for (int p = first; p < PANEL_COUNT; p++) {
        int w = ren_text_width(v->g->small, _(names[p])) + 18;
        if (x + w > rc.x + rc.w)
            break;
        if (ui_button(v->ui, (Rect){x, rc.y, w, h}, _(names[p]), PE_UI(v)->panel == p))
            PE_UI(v)->panel = p;
        x += w + 4;
    }
    return h + 6;
}

/* Each panel's drawing, in PePanel's order. */
static void (*const PANEL_DRAW[PANEL_COUNT])(ViewCtx *v, Rect rc, const PeData *d) = {
    [PANEL_WAVES] = draw_waves, [PANEL_TABLE] = draw_table, [PANEL_ROT] = pe_draw_rotation};

static void draw_panel(ViewCtx *v, int p, Rect rc, const PeData *d)
{
    PANEL_DRAW[p >= 0 && p < PANEL_COUNT ? p : PANEL_ROT](v, rc, d);
}

static void view_pe(ViewCtx *v)
{
    const Scene *sc = v->s;
    Rect A = v->area;
    PeData d;
    if (gather(sc, PE_UI(v), &d) || A.w < 60 || A.h < 40)
        return;
    ui_fit(v, &d);
    PE_UI(v)->waves_keys = 0;
    int fh = ren_font_height(v->g->ui);
    int rot_w = pe_rot_eq_w(v) + 8;
    int heat_w = 14 * fh, gap = 12;
    int waves_h = A.h * 40 / 100;
    if (waves_h < 11 * fh)
        waves_h = 11 * fh;
    int bottom_h = A.h - waves_h - gap;
    int wide = A.w >= rot_w + heat_w + gap, tall = bottom_h >= 15 * fh;
    ren_clip_push(v->r, A);
    if (wide && tall) {
        Rect w = {A.x, A.y, A.w, waves_h};
        /* the rotation gets what its numbers need, the table the rest
         * (40..55%) */
        int hw = A.w - gap - rot_w - 16, lo = (A.w - gap) * 40 / 100, hi = (A.w - gap) * 55 / 100;
        hw = hw < lo ? lo : hw > hi ? hi : hw;
        if (A.w - gap - hw < rot_w)
            hw = A.w - gap - rot_w;
        Rect t = {A.x, A.y + waves_h + gap, hw, bottom_h};
        Rect r = {A.x + hw + gap, t.y, A.w - hw - gap, bottom_h};
        draw_waves(v, w, &d);
        draw_table(v, t, &d);
        pe_draw_rotation(v, r, &d);
    } else if (tall) {
        draw_waves(v, (Rect){A.x, A.y, A.w, waves_h}, &d);
        Rect b = {A.x, A.y + waves_h + gap, A.w, bottom_h};
        int th = panel_tabs(v, b, PANEL_TABLE);
        draw_panel(v, PE_UI(v)->panel, (Rect){b.x, b.y + th, b.w, b.h - th}, &d);
    } else {
        int th = panel_tabs(v, A, PANEL_WAVES);
        draw_panel(v, PE_UI(v)->panel, (Rect){A.x, A.y + th, A.w, A.h - th}, &d);
    }
    ren_clip_pop(v->r);
}

/* The view's current choices, for tests: the plotted dimensions (PE_WAVES
 * of them), the rotation's pair, pos and k. */
void view_pe_choices(const void *st, int *dims, int *pair, int *pos, int *k)
{
    const PeUi *pe_ui = st;
    for (int s = 0; s < PE_WAVES; s++)
        dims[s] = pe_ui->dim[s];
    *pair = pe_ui->pair;
    *pos = pe_ui->pos;
    *k = pe_ui->k;
}

int view_pe_panel(void *st, const char *name)
{
    static const char *names[PANEL_COUNT] = {"waves", "table", "rotation"};
    for (int p = 0; p < PANEL_COUNT; p++)
        if (st && name && strcmp(name, names[p]) == 0) {
            ((PeUi *)st)->panel = p;
            return 0;
        }
    return -1;
}

const ViewDef VIEW_PE_DEF = {"pe", N_("Waves"), view_pe, NULL, sizeof(PeUi), NULL, VIEW_NEED_STAGE, 0};
