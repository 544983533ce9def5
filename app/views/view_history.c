/* view_history.c - "Before the Transformer", the two pictures the history
 * lesson talks about, drawn for the sentence on screen: an RNN encoder-
 * decoder that squeezes the whole source into one vector c, and additive
 * (Bahdanau) attention, which keeps every encoder state and weighs them
 * again for each word it writes. The weights drawn are this model's own
 * cross-attention (the last decoder layer, the head shown) for one decoder
 * row, standing in for Bahdanau's alignment; the picture says so. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "view.h"

#define HIST_MAX 10 /* tokens drawn per side */

/* A small box with a label centred in it. */
static void box(ViewCtx *v, Rect rc, const char *label, Color fill, Color edge, Color text)
{
    ren_rect(v->r, rc, fill);
    ren_rect_line(v->r, rc, 1, edge);
    RenFont *f = v->g->small;
    int tw = ren_text_width(f, label);
    ui_text_fit(v->r, f, label, rc.x + (tw < rc.w - 4 ? (rc.w - tw) / 2 : 2), rc.y + (rc.h - ren_font_height(f)) / 2,
                rc.w - 4, text);
}

/* A token's text centred on x (cut to w when it does not fit). */
static void label(ViewCtx *v, const char *t, int x, int y, int w, Color c)
{
    RenFont *f = v->g->small;
    int tw = ren_text_width(f, t);
    ui_text_fit(v->r, f, t, tw < w ? x - tw / 2 : x - w / 2, y, w, c);
}

static void arrow(ViewCtx *v, float x0, float y0, float x1, float y1, float w, Color c)
{
    ren_line(v->r, x0, y0, x1, y1, w, c);
    float dx = x1 - x0, dy = y1 - y0, len = dx * dx + dy * dy > 0 ? sqrtf(dx * dx + dy * dy) : 1;
    float ux = dx / len, uy = dy / len, s = 6;
    ren_line(v->r, x1, y1, x1 - s * ux + s * 0.6f * uy, y1 - s * uy - s * 0.6f * ux, w, c);
    ren_line(v->r, x1, y1, x1 - s * ux - s * 0.6f * uy, y1 - s * uy + s * 0.6f * ux, w, c);
}

/* The source tokens of the sentence shown, and the decoder's input. */
static int tokens(const Scene *sc, int tgt, char lab[][48], int cap)
{
    const SceneSent *st = &sc->sent[sc->batch >= 0 && sc->batch < sc->n_src ? sc->batch : 0];
    const int *ids = tgt ? st->tgt_ids : st->ids;
    int n = tgt ? st->tgt_n : st->n;
    if (n > cap)
        n = cap;
    for (int i = 0; i < n; i++)
        view_token(tgt ? &sc->model->tgt_vocab : &sc->model->src_vocab, ids[i], lab[i], sizeof lab[i]);
    return n;
}

/* Top: x₁ … xₙ into a chain of states, the last one is c, the decoder
 * writes from c alone. */
static void draw_rnn(ViewCtx *v, Rect rc, char src[][48], int n, char tgt[][48], int m)
{
    const Theme *th = v->th;
    RenFont *f = v->g->ui, *sm = v->g->small;
    int y = rc.y;
    ren_text(v->r, f, _("RNN encoder-decoder (2014): the whole source in one vector c"), rc.x, y, th->text);
    y += ren_font_height(f) + 10;
    int gap = 14, bh = ren_font_height(sm) + 10, bw = (rc.w - 44 - 3 * gap) / (n + m > 0 ? n + m : 1) - gap;
    bw = bw > 64 ? 64 : bw < 24 ? 24 : bw;
    int cx = rc.x + n * (bw + gap) + 10;
    int ys = y + bh + 26; /* the states' row, tokens below them */
    for (int i = 0; i < n; i++) {
        int x = rc.x + i * (bw + gap);
        char h[16];
        snprintf(h, sizeof h, "h%d", i + 1);
        label(v, src[i], x + bw / 2, ys + bh + 26, bw + gap - 2, th->text);
        arrow(v, x + bw / 2.0f, ys + bh + 24, x + bw / 2.0f, ys + bh + 2, 1.5f, th->dim);
        box(v, (Rect){x, ys, bw, bh}, h, th->panel, th->accent, th->text);
        if (i > 0)
            arrow(v, x - gap, ys + bh / 2.0f, x - 1, ys + bh / 2.0f, 1.5f, th->accent);
    }
    /* the last state is all the decoder gets */
    Rect c = {cx, ys, 44, bh};
    arrow(v, rc.x + (n - 1) * (bw + gap) + bw, ys + bh / 2.0f, c.x - 1, ys + bh / 2.0f, 2.5f, th->warn);
    box(v, c, "c", ui_mix(th->panel, th->warn, 0.35f), th->warn, th->text);
    int dx = c.x + c.w + gap;
    for (int j = 0; j < m; j++) {
        int x = dx + j * (bw + gap);
        char s[16];
        snprintf(s, sizeof s, "s%d", j + 1);
        box(v, (Rect){x, ys, bw, bh}, s, th->panel, th->accent2, th->text);
        arrow(v, x + bw / 2.0f, ys - 2, x + bw / 2.0f, ys - 22, 1.5f, th->dim);
        label(v, tgt[j], x + bw / 2, ys - 24 - ren_font_height(v->g->small), bw + gap - 2, th->text);
        arrow(v, x - gap, ys + bh / 2.0f, x - 1, ys + bh / 2.0f, 1.5f, j ? th->accent2 : th->warn);
    }
    ui_paragraph(v->r, sm, _("hₜ = f(hₜ₋₁, xₜ): n steps one after another, and the decoder sees only c, the same 64 "
                             "numbers for six words or sixty."),
                 rc.x, ys + 2 * bh + 34, rc.w, th->dim);
}

/* Bottom: every encoder state h_j, one decoder state, lines weighted by α. */
static void draw_additive(ViewCtx *v, Rect rc, char src[][48], int n, char tgt[][48], int m)
{
    const Theme *th = v->th;
    const Scene *sc = v->s;
    RenFont *f = v->g->ui, *sm = v->g->small;
    int y = rc.y;
    ren_text(v->r, f, _("Additive attention (Bahdanau et al., 2014): every state, weighed again for each word"), rc.x,
             y, th->text);
    y += ren_font_height(f) + 8;
    /* the row: the selected target token, else the decoder input after <bos> */
    int row = sc->sel.side == 2 ? sc->sel.index : (m > 1 ? 1 : 0);
    TfView w;
    TfErr err;
    int b = sc->batch >= 0 && sc->batch < sc->n_src ? sc->batch : 0;
    int layer = sc->model->cfg.n_dec - 1, head = sc->head < 0 ? 0 : sc->head;
    int ok = m > 0 && n > 0 && tf_view(sc->trace, ST_DEC_CROSS_WEIGHTS, layer, head, b, &w, &err) == 0 &&
             row < w.rows;
    int bw = 64, gap = 14, bh = ren_font_height(sm) + 10;
    if (n * (bw + gap) > rc.w - 20)
        bw = (rc.w - 20) / n - gap < 28 ? 28 : (rc.w - 20) / n - gap;
    int yh = y + 8, ys = yh + bh + 70;
    int sx = rc.x + (n * (bw + gap) - gap) / 2 - bw / 2;
    for (int j = 0; j < n; j++) {
        int x = rc.x + j * (bw + gap);
        char h[16];
        snprintf(h, sizeof h, "h%d", j + 1);
        box(v, (Rect){x, yh, bw, bh}, h, th->panel, th->accent, th->text);
        ren_text(v->r, sm, src[j], x + 2, yh - ren_font_height(sm) - 2 < rc.y ? yh + bh + 2 : yh + bh + 2, th->dim);
        if (ok) {
            float a = tf_view_at(&w, row, j);
            Color lc = ui_mix(th->panel2, th->accent2, a < 0.15f ? 0.15f + a : a);
            ren_line(v->r, x + bw / 2.0f, yh + bh + ren_font_height(sm) + 4, sx + bw / 2.0f, ys - 2, 1 + 7 * a, lc);
            char num[16];
            snprintf(num, sizeof num, "α=%.2f", a);
            ren_text(v->r, sm, num, x + 2, yh + bh + ren_font_height(sm) + 6, a > 0.3f ? th->accent2 : th->dim);
        }
    }
    char sl[120];
    snprintf(sl, sizeof sl, _("s: the row «%s»"), row < m ? tgt[row] : "?");
    int slw = ren_text_width(sm, sl) + 16;
    box(v, (Rect){sx + bw / 2 - slw / 2, ys, slw, bh}, sl, ui_mix(th->panel, th->accent2, 0.25f), th->accent2,
        th->text);
    int ty = ys + bh + 10;
    ty += ui_paragraph(v->r, sm, _("eⱼ = vᵀ·tanh(W·s + U·hⱼ),  α = softmax(e),  c = Σⱼ αⱼ·hⱼ: a new c for every word "
                                   "written."),
                       rc.x, ty, rc.w, th->text) + 4;
    char note[300];
    snprintf(note, sizeof note,
             _("The weights drawn are this Transformer's cross-attention (decoder layer %d, head %d) for that row: a "
               "scaled dot product in place of Bahdanau's small network. Click a target token to pick another row."),
             layer + 1, head + 1);
    ui_paragraph(v->r, sm, note, rc.x, ty, rc.w, th->dim);
}

static void history_draw(ViewCtx *v)
{
    const Scene *sc = v->s;
    Rect a = v->area;
    ren_rect(v->r, a, v->th->bg);
    if (sc->input_error && sc->input_error[0]) {
        ui_paragraph(v->r, v->g->ui, sc->input_error, a.x + 20, a.y + 20, a.w - 40, v->th->warn);
        return;
    }
    char src[HIST_MAX][48], tgt[HIST_MAX][48];
    int n = tokens(sc, 0, src, HIST_MAX), m = tokens(sc, 1, tgt, HIST_MAX);
    /* the RNN decoder writes the target (after <bos>) */
    Rect top = {a.x + 20, a.y + 16, a.w - 40, a.h / 2 - 24};
    Rect bot = {a.x + 20, a.y + a.h / 2 + 4, a.w - 40, a.h / 2 - 20};
    draw_rnn(v, top, src, n, tgt + (m > 1), m > 1 ? m - 1 : 0);
    ren_rect(v->r, (Rect){a.x + 20, a.y + a.h / 2 - 6, a.w - 40, 1}, v->th->border);
    draw_additive(v, bot, src, n, tgt, m);
}

const ViewDef VIEW_HISTORY_DEF = {"history", N_("History"), history_draw, NULL, 0, NULL, VIEW_NEED_ALL, 0};
