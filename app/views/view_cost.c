/* view_cost.c - what attention costs, measured on this machine: one layer of
 * the loaded model's size (d_model, h, d_ff) at n = 8, 16, ..., 256 tokens,
 * self-attention (Q/K/V projections, QKᵀ, softmax, A·V, W_O) beside the
 * feed-forward network, as time per layer and as the bytes the trace
 * records for it, both on log-log axes; below, Table 1 of the paper
 * (complexity per layer, sequential operations, maximum path length).
 *
 * The window measures (ses_measure.c: the next n each frame within a small
 * time budget) and hands the figures over in Scene.cost; the view draws
 * them and asks for another frame while lengths remain. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "view.h"

/* ---- drawing ---- */

typedef struct Axis {
    double lo, hi; /* decades: 10^lo .. 10^hi */
} Axis;

static Axis axis_of(const double *a, const double *b, int n)
{
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < n; i++) {
        double x = fmin(a[i], b[i]), y = fmax(a[i], b[i]);
        lo = fmin(lo, x);
        hi = fmax(hi, y);
    }
    if (!(lo > 0) || !isfinite(hi))
        return (Axis){0, 1};
    Axis ax = {floor(log10(lo)), ceil(log10(hi))};
    if (ax.hi <= ax.lo)
        ax.hi = ax.lo + 1;
    return ax;
}

/* "1 µs", "10 ms", "1 KB", "10 MB": the value 10^e in the unit's steps. */
static void decade_label(int e, int time, char *buf, size_t cap)
{
    static const char *T[] = {"ns", "µs", "ms", "s"};
    static const char *B[] = {"B", "kB", "MB", "GB"};
    int base = time ? e + 9 : e; /* time in seconds from 1 ns */
    int step = base < 0 ? 0 : base / 3;
    if (step > 3)
        step = 3;
    int rest = base - 3 * step;
    double v = pow(10.0, rest);
    snprintf(buf, cap, "%g %s", v, time ? T[step] : B[step]);
}

static double xpos(Rect p, int n, int k) { return p.x + (double)p.w * k / (n - 1); }
static double ypos(Rect p, Axis ax, double v)
{
    double t = (log10(v) - ax.lo) / (ax.hi - ax.lo);
    return p.y + p.h - t * p.h;
}

/* The hovered point of a plot's series s: a value per layer, per n. */
static void point_hover(ViewCtx *v, int time, int s, double value, int n)
{
    if (time)
        ui_hover_own(v, (float)(value * 1e3), s ? _("FFN, n = %d: ms per layer") : _("self-attention, n = %d: ms per layer"),
                     n);
    else
        ui_hover_own(v, (float)(value / 1000.0),
                     s ? _("FFN, n = %d: kB the trace records") : _("self-attention, n = %d: kB the trace records"), n);
}

/* One log-log plot: attention and FFN against n. The keyboard's cell is
 * a point: its column n, its row the series, time's two then memory's
 * (what the mouse is over wins: the cell reads out only when nothing
 * else did). */
static void plot(ViewCtx *v, Rect rc, const char *title, const double *attn, const double *ffn, int time)
{
    const SceneCost *c = &v->s->cost;
    int n = c->done;
    const Theme *th = v->th;
    RenFont *f = v->g->small;
    int fh = ren_font_height(f);
    ui_text_fit(v->r, v->g->ui, title, rc.x, rc.y, rc.w, th->text);
    char buf[64];
    int lw = ren_text_width(f, "100 ms") + 8;
    Rect p = {rc.x + lw, rc.y + ren_font_height(v->g->ui) + 8, rc.w - lw - 12,
              rc.h - ren_font_height(v->g->ui) - 8 - 2 * fh - 10};
    if (p.w < 40 || p.h < 30)
        return;
    ren_rect_line(v->r, p, 1, th->border);
    Axis ax = n ? axis_of(attn, ffn, n) : (Axis){time ? -6 : 3, time ? -3 : 6};
    for (int e = (int)ax.lo; e <= (int)ax.hi; e++) {
        int y = (int)ypos(p, ax, pow(10.0, e));
        ren_rect(v->r, (Rect){p.x, y, p.w, 1}, ui_mix(th->bg, th->border, 0.6f));
        decade_label(e, time, buf, sizeof buf);
        ren_text(v->r, f, buf, p.x - ren_text_width(f, buf) - 4, y - fh / 2, th->dim);
    }
    int every = (int)xpos(p, c->n, 1) - (int)xpos(p, c->n, 0) < ren_text_width(f, "2560") ? 2 : 1;
    for (int k = 0; k < c->n; k++) {
        int x = (int)xpos(p, c->n, k);
        ren_rect(v->r, (Rect){x, p.y + p.h, 1, 4}, th->border);
        snprintf(buf, sizeof buf, "%d", c->ns[k]);
        if ((c->n - 1 - k) % every == 0)
            ren_text(v->r, f, buf, x - ren_text_width(f, buf) / 2, p.y + p.h + 4, th->dim);
    }
    const char *xl = _("n, tokens (log scale)");
    int xw = ren_text_width(f, xl) < p.w ? ren_text_width(f, xl) : p.w;
    ui_text_fit(v->r, f, xl, p.x + (p.w - xw) / 2, p.y + p.h + 6 + fh, p.w, th->dim);
    const double *ser[2] = {attn, ffn};
    Color col[2] = {th->accent2, th->accent};
    int kr, kc, keyed = n > 0 && view_key_cell(v, 4, n < VIEW_COST_MAX ? n : VIEW_COST_MAX, &kr, &kc);
    for (int s = 0; s < 2; s++) {
        float xy[2 * VIEW_COST_MAX];
        for (int k = 0; k < n && k < VIEW_COST_MAX; k++) {
            xy[2 * k] = (float)xpos(p, c->n, k);
            xy[2 * k + 1] = (float)ypos(p, ax, ser[s][k]);
            ren_rect(v->r, (Rect){(int)xy[2 * k] - 3, (int)xy[2 * k + 1] - 3, 7, 7}, col[s]);
            Rect hit = {(int)xy[2 * k] - 6, (int)xy[2 * k + 1] - 6, 13, 13};
            if (ui_over(v->in, hit))
                point_hover(v, time, s, ser[s][k], c->ns[k]);
            if (keyed && kr == (time ? 0 : 2) + s && kc == k) {
                view_key_outline(v, (Rect){(int)xy[2 * k] - 3, (int)xy[2 * k + 1] - 3, 7, 7});
                if (!v->out->hover.valid)
                    point_hover(v, time, s, ser[s][k], c->ns[k]);
            }
        }
        if (n > 1)
            ren_polyline(v->r, xy, n < VIEW_COST_MAX ? n : VIEW_COST_MAX, 2.0f, col[s]);
    }
}

/* Table 1 of the paper. */
static const char *TABLE1[5][4] = {
    {N_("Layer type"), N_("Complexity per layer"), N_("Sequential operations"), N_("Maximum path length")},
    {N_("Self-attention"), "O(n²·d)", "O(1)", "O(1)"},
    {N_("Recurrent"), "O(n·d²)", "O(n)", "O(n)"},
    {N_("Convolutional"), "O(k·n·d²)", "O(1)", "O(log_k(n))"},
    {N_("Self-attention (restricted)"), "O(r·n·d)", "O(1)", "O(n/r)"},
};

static const char *TABLE_NOTE = N_("Table 1 of the paper: n the sequence length, d the representation dimension, "
                                   "k the kernel size of convolutions, r the neighbourhood of restricted "
                                   "self-attention.");

/* The table (and its note when with_note); returns its height. */
static int table_draw(ViewCtx *v, Rect rc, int draw, int with_note)
{
    const Theme *th = v->th;
    RenFont *f = v->g->small;
    int fh = ren_font_height(f), rh = fh + 6;
    int w0 = 0;
    for (int r = 1; r < 5; r++) {
        int w = ren_text_width(f, _(TABLE1[r][0]));
        w0 = w > w0 ? w : w0;
    }
    w0 += 16;
    if (w0 > rc.w / 3)
        w0 = rc.w / 3;
    int cw = (rc.w - w0) / 3, hh = 0; /* the header wraps in narrow columns */
    for (int c = 0; c < 4; c++) {
        int h = ui_paragraph_height(f, _(TABLE1[0][c]), (c ? cw : w0) - 8);
        hh = h > hh ? h : hh;
    }
    hh += 6;
    int note_h = with_note ? ui_paragraph_height(f, _(TABLE_NOTE), rc.w) + 4 : 0;
    if (!draw)
        return hh + 4 * rh + note_h;
    ren_rect(v->r, (Rect){rc.x, rc.y, rc.w, hh}, th->panel2);
    ren_rect(v->r, (Rect){rc.x, rc.y + hh, rc.w, rh}, ui_mix(th->bg, th->accent2, 0.15f));
    for (int c = 0; c < 4; c++) {
        int x = c == 0 ? rc.x + 6 : rc.x + w0 + (c - 1) * cw + 6;
        ui_paragraph(v->r, f, _(TABLE1[0][c]), x, rc.y + 3, (c ? cw : w0) - 8, th->dim);
        for (int r = 1; r < 5; r++)
            ui_text_fit(v->r, f, c == 0 ? _(TABLE1[r][0]) : TABLE1[r][c], x, rc.y + hh + (r - 1) * rh + 3,
                        (c ? cw : w0) - 8, th->text);
    }
    if (with_note)
        ui_paragraph(v->r, f, _(TABLE_NOTE), rc.x, rc.y + hh + 4 * rh + 4, rc.w, th->dim);
    return hh + 4 * rh + note_h;
}

static void cost_draw(ViewCtx *v)
{
    const Scene *sc = v->s;
    const Theme *th = v->th;
    const SceneCost *u = &sc->cost;
    Rect A = v->area;
    if (u->done < u->n && !u->failed) /* the next n in the next frame */
        v->out->wake_at = sc->now + 0.01;
    RenFont *f = v->g->small, *ui = v->g->ui;
    int fh = ren_font_height(f), pad = 10;
    int y = A.y + 4;
    char buf[256], said[512];
    snprintf(buf, sizeof buf, _("One layer of this model (d_model %d, h %d, d_ff %d), one sentence, one core of this machine"), u->C, u->NH, u->F);
    y += ui_paragraph(v->r, ui, buf, A.x + pad, y, A.w - 2 * pad, th->text) + 4;
    /* the legend, on two lines when one is too narrow */
    const char *leg[2] = {_("self-attention: Q, K, V, QKᵀ, softmax, A·V, W_O"),
                          _("feed-forward network: two linear layers and ReLU")};
    Color lc[2] = {th->accent2, th->accent};
    int x = A.x + pad;
    int one_line = 40 + ren_text_width(f, leg[0]) + 18 + ren_text_width(f, leg[1]) < A.w - 2 * pad;
    for (int i = 0; i < 2; i++) {
        ren_rect(v->r, (Rect){x, y + fh / 2 - 2, 14, 4}, lc[i]);
        x += 20;
        int w = ui_text_fit(v->r, f, leg[i], x, y, A.x + A.w - pad - x, th->text);
        if (one_line)
            x += w + 18;
        else {
            x = A.x + pad;
            y += fh + 2;
        }
    }
    y += one_line ? fh + 8 : 6;
    int W = A.w - 2 * pad;
    int with_note = 1, table_h = table_draw(v, (Rect){A.x + pad, 0, W, 0}, 0, 1);
    if (u->failed)
        snprintf(said, sizeof said, "%s", _("not enough memory to measure this model"));
    else if (u->done < u->n || u->n < 6)
        snprintf(said, sizeof said, _("measuring… %d of %d lengths"), u->done, u->n);
    else
        snprintf(said, sizeof said,
                 _("From n = 128 to 256: self-attention ×%.1f in time and ×%.1f in memory, the FFN ×%.1f and ×%.1f "
                   "(doubling n: n² grows ×4, n ×2)."),
                 u->attn_s[5] / u->attn_s[4], u->attn_b[5] / u->attn_b[4], u->ffn_s[5] / u->ffn_s[4],
                 u->ffn_b[5] / u->ffn_b[4]);
    int said_h = ui_paragraph_height(f, said, W) + 14;
    int plots_h = A.y + A.h - y - table_h - said_h;
    if (plots_h < 120) { /* a small window: the note goes first */
        with_note = 0;
        table_h = table_draw(v, (Rect){A.x + pad, 0, W, 0}, 0, 0);
        plots_h = A.y + A.h - y - table_h - said_h;
    }
    if (plots_h < 80)
        plots_h = 80;
    int half = (A.w - 3 * pad) / 2;
    plot(v, (Rect){A.x + pad, y, half, plots_h}, _("Time per layer (log scale)"), u->attn_s, u->ffn_s, 1);
    plot(v, (Rect){A.x + 2 * pad + half, y, half, plots_h}, _("Memory the trace records (log scale)"), u->attn_b,
         u->ffn_b, 0);
    y += plots_h + 6;
    y += ui_paragraph(v->r, f, said, A.x + pad, y, W, u->done < u->n ? th->warn : th->select) + 8;
    table_draw(v, (Rect){A.x + pad, y, W, 0}, 1, with_note);
}

const ViewDef VIEW_COST_DEF = {"cost", N_("Cost"), cost_draw, NULL, 0, NULL, VIEW_NEED_STAGE, VIEW_WANT_COST};
