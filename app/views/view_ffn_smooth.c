/* view_ffn_smooth.c - the feed-forward view for a model whose activation is
 * not the paper's ReLU (OPUS-MT's SiLU "swish", or GELU): view_ffn.c hands
 * the hidden stage over here.
 *
 * SiLU(x) = x·σ(x) and GELU(x) = x·Φ(x) are smooth: a negative input gives
 * a small negative value (SiLU at least −0.278, at x ≈ −1.278; GELU at least
 * −0.170, at x ≈ −0.752), never the exact zeros of max(0, x). So the view
 * shows, from the trace:
 *   - a headline: how many of the d_ff units are below 0 for the token,
 *     and the smallest value;
 *   - the hidden layer on the signed colour map (negatives visible);
 *   - per token, the share of units below 0 and its smallest value;
 *   - the activation's curve beside the paper's ReLU, its minimum marked. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "view.h"

/* The activation and the point where it is smallest. */
typedef struct Act {
    const char *name, *formula;
    float min_x, min_y;
} Act;

static Act act_of(TfAct a)
{
    if (a == TF_ACT_GELU)
        return (Act){"GELU", "GELU(x) = x·Φ(x)", -0.7518f, -0.1700f};
    return (Act){"SiLU", "SiLU(x) = x·σ(x)", -1.2785f, -0.2785f};
}

static float act_f(TfAct a, float x)
{
    if (a == TF_ACT_GELU)
        return 0.5f * x * (1.0f + erff(x / sqrtf(2.0f)));
    return x / (1.0f + expf(-x));
}

/* Units below 0 in row r of tv, and the row's smallest value. */
static int row_negatives(const TfView *tv, int r, float *min)
{
    const float *x = tv->data + (size_t)r * tv->stride;
    int n = 0;
    *min = INFINITY;
    for (int c = 0; c < tv->cols; c++) {
        n += x[c] < 0.0f;
        *min = fminf(*min, x[c]);
    }
    return n;
}

void ffn_smooth_sentence(char *buf, size_t cap, TfAct a, int neg, int F, float min, const char *tok)
{
    char m[32];
    ui_fmt(m, sizeof m, min);
    snprintf(buf, cap, _("%d of the %d hidden units are below 0 for '%s' (smallest %s): %s gives small negatives, not zeros"),
             neg, F, tok, m, act_of(a).name);
}

static void headline(ViewCtx *v, const TfView *tv, Rect rc, int focus, char *said, size_t cap)
{
    const Scene *sc = v->s;
    TfAct a = sc->model->cfg.act;
    Act A = act_of(a);
    char tok[200], line[400];
    float min;
    int neg = row_negatives(tv, focus, &min);
    view_tok_label(sc->trace, sc->model, tv, 0, focus, tok, sizeof tok);
    ffn_smooth_sentence(said, cap, a, neg, tv->cols, min, tok);
    char mid[300], brief[200];
    snprintf(mid, sizeof mid, _("%d of %d units below 0 for '%s': small negatives, no zeros"), neg, tv->cols, tok);
    snprintf(brief, sizeof brief, _("%d of %d below 0 for '%s'"), neg, tv->cols, tok);
    const char *heads[] = {said, mid, brief};
    ui_text_alt(v->r, v->g->title, heads, 3, rc.x, rc.y, rc.w, v->th->text);
    snprintf(line, sizeof line,
             _("%s: a negative input gives a small negative value (at least %.3f, at x = %.2f); "
               "the paper's ReLU max(0, x) would give exactly 0"),
             A.formula, A.min_y, A.min_x);
    snprintf(mid, sizeof mid, _("%s: negatives stay slightly negative (ReLU would give 0)"), A.formula);
    const char *lines[] = {line, mid};
    ui_text_alt(v->r, v->g->small, lines, 2, rc.x, rc.y + ren_font_height(v->g->title) + 2, rc.w, v->th->dim);
}

/* Per token: the share of units below 0 (bar) and the smallest value. */
static int bars(ViewCtx *v, const TfView *tv, Rect rc, int focus)
{
    const Scene *sc = v->s;
    const Theme *th = v->th;
    RenFont *f = v->g->small;
    int fh = ren_font_height(f), rows = tv->rows < VIEW_CAP_T ? tv->rows : VIEW_CAP_T;
    ui_text_fit(v->r, f, _("units below 0, per token (and the smallest value)"), rc.x, rc.y, rc.w, th->text);
    int y0 = rc.y + fh + 4, avail = rc.y + rc.h - y0;
    if (avail < 4 || rows < 1)
        return -1;
    int rh = avail / rows;
    rh = rh > 2 * fh ? 2 * fh : rh < 2 ? 2 : rh;
    int fit = avail / rh < rows ? avail / rh : rows, every = 1, hover = -1;
    while (every * rh < fh && every < rows)
        every++;
    int lw = ren_text_width(f, "0000000") + 6, pw = ren_text_width(f, "100% -0.000") + 8;
    if (ui_over(v->in, (Rect){rc.x, y0, rc.w, fit * rh}))
        hover = (v->in->my - y0) / rh;
    char buf[200], m[32];
    for (int r = 0; r < fit; r++) {
        Rect row = {rc.x, y0 + r * rh, rc.w, rh};
        float min;
        int neg = row_negatives(tv, r, &min), cur = r == (hover >= 0 ? hover : focus);
        if (cur)
            ren_rect(v->r, row, (Color){th->select.r, th->select.g, th->select.b, 40});
        float frac = tv->cols ? (float)neg / tv->cols : 0;
        Rect b = {rc.x + lw, row.y + (rh > 4 ? 1 : 0), rc.w - lw - pw, rh > 4 ? rh - 2 : rh};
        ren_rect(v->r, b, th->panel2);
        ren_rect(v->r, (Rect){b.x, b.y, (int)lroundf(frac * b.w), b.h}, cmap_color(CMAP_DIVERGING, 0.3f));
        if (r % every == 0 || cur) {
            view_tok_label(sc->trace, sc->model, tv, 0, r, buf, sizeof buf);
            ui_text_fit(v->r, f, buf, rc.x, row.y + (rh - fh) / 2, lw - 6, th->text);
            ui_fmt(m, sizeof m, min);
            snprintf(buf, sizeof buf, "%d%% %s", (int)lround(100.0 * frac), m);
            ren_text(v->r, f, buf, rc.x + rc.w - pw + 6, row.y + (rh - fh) / 2, th->text);
        }
        if (ui_clicked(v->in, row)) {
            int side = tv->row_kind == LBL_TGT ? 2 : 1, same = sc->sel.side == side && sc->sel.index == r;
            view_select(v, same ? 0 : side, same ? 0 : r);
        }
    }
    return hover;
}

/* The activation and the paper's ReLU on x in [-4, 4]. */
static void curve(ViewCtx *v, Rect rc)
{
    const Theme *th = v->th;
    RenFont *f = v->g->small;
    TfAct a = v->s->model->cfg.act;
    Act A = act_of(a);
    int fh = ren_font_height(f);
    char title[200];
    snprintf(title, sizeof title, _("%s (line) and the paper's ReLU (grey)"), A.name);
    ui_text_fit(v->r, f, title, rc.x, rc.y, rc.w, th->text);
    Rect p = {rc.x + 30, rc.y + fh + 6, rc.w - 40, rc.h - 2 * fh - 12};
    if (p.w < 40 || p.h < 30)
        return;
    const float X0 = -4, X1 = 4, Y0 = -1, Y1 = 4;
#define PX(u) (p.x + ((u) - X0) / (X1 - X0) * p.w)
#define PY(u) (p.y + p.h - ((u) - Y0) / (Y1 - Y0) * p.h)
    ren_rect(v->r, p, th->panel);
    ren_line(v->r, p.x, PY(0), p.x + p.w, PY(0), 1, th->border);
    ren_line(v->r, PX(0), p.y, PX(0), p.y + p.h, 1, th->border);
    float relu[4] = {PX(X0), PY(0), PX(0), PY(0)}, relu2[4] = {PX(0), PY(0), PX(Y1), PY(Y1)};
    ren_polyline(v->r, relu, 2, 2.0f * v->g->scale, th->dim);
    ren_polyline(v->r, relu2, 2, 2.0f * v->g->scale, th->dim);
    float xy[2 * 128];
    for (int i = 0; i < 128; i++) {
        float x = X0 + (X1 - X0) * i / 127.0f;
        xy[2 * i] = PX(x);
        xy[2 * i + 1] = PY(act_f(a, x));
    }
    ren_polyline(v->r, xy, 128, 2.5f * v->g->scale, th->accent);
    char buf[64];
    snprintf(buf, sizeof buf, "%.3f", A.min_y);
    ren_rect(v->r, (Rect){(int)PX(A.min_x) - 3, (int)PY(A.min_y) - 3, 6, 6}, th->accent);
    ren_text(v->r, f, buf, (int)PX(A.min_x) - ren_text_width(f, buf) / 2, (int)PY(A.min_y) + 5, th->accent);
    ren_text(v->r, f, "-4", p.x, p.y + p.h + 2, th->dim);
    ren_text(v->r, f, "4", p.x + p.w - ren_text_width(f, "4"), p.y + p.h + 2, th->dim);
    ren_text(v->r, f, "0", (int)PX(0) - ren_text_width(f, "0") / 2, p.y + p.h + 2, th->dim);
#undef PX
#undef PY
}

void view_ffn_smooth(ViewCtx *v, const TfView *tv, char *said, size_t cap)
{
    const Scene *sc = v->s;
    Rect A = v->area;
    RenFont *f = v->g->small;
    int fh = ren_font_height(f), top = ren_font_height(v->g->title) + fh + 8;
    int focus = 0, side = tv->row_kind == LBL_TGT ? 2 : 1;
    if (v->out->hover.valid && v->out->hover.stage == tv->stage && v->out->hover.b == tv->b &&
        v->out->hover.row < tv->rows)
        focus = v->out->hover.row;
    else if (sc->sel.side == side && sc->sel.index < tv->rows)
        focus = sc->sel.index;
    ren_clip_push(v->r, A);
    int y = A.y + top, H = A.y + A.h - y, heat_h = H * 55 / 100;
    int need = 2 * fh + 12 + tv->rows * (int)(64 * v->g->scale);
    heat_h = heat_h > need ? need : heat_h;
    if (heat_h > 40) {
        HeatOpts o = {0};
        o.colorbar = 1;
        o.show_values = 1;
        o.pz_slot = VIEW_FFN;
        heat_draw(v, tv, (Rect){A.x, y, A.w, heat_h}, &o);
    } else {
        heat_h = 0;
    }
    Rect low = {A.x, y + heat_h + 10, A.w, A.y + A.h - y - heat_h - 10};
    if (low.h > 3 * fh) {
        int bw = low.w * 48 / 100;
        int h = bars(v, tv, (Rect){low.x, low.y, bw, low.h}, focus);
        if (h >= 0 && h < tv->rows)
            focus = h;
        curve(v, (Rect){low.x + bw + 16, low.y, low.w - bw - 16, low.h});
    }
    headline(v, tv, (Rect){A.x, A.y, A.w, top}, focus, said, cap);
    ren_clip_pop(v->r);
}
