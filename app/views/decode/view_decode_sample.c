/* view_decode_sample.c - the decode view's Sampling pane: the temperature
 * (a slider on a log scale), top-k and top-p, the seed of the next draw;
 * the distribution of the next token after the inspected step's prefix as
 * bars, with the model's own (T = 1) beside each; and the translations
 * drawn, the newest first.
 *
 * Instead of taking the most probable token, sampling draws it from
 * softmax(z / T): the scores z divided by a temperature T before the
 * softmax. T < 1 sharpens the distribution (T -> 0 is greedy), T > 1
 * flattens it; top-k keeps only the k most probable tokens, top-p the
 * smallest set whose probability reaches p. The bars follow the settings
 * at once; Sample draws a whole new translation, each draw with the next
 * seed (the window's decode lab computes both). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "view_decode.h"

static const float TOPK_CHOICES[] = {0, 1, 5, 10, 40}; /* 0: all */
static const float TOPP_CHOICES[] = {1.0f, 0.95f, 0.9f, 0.5f};
#define N_TOPK ((int)(sizeof TOPK_CHOICES / sizeof TOPK_CHOICES[0]))
#define N_TOPP ((int)(sizeof TOPP_CHOICES / sizeof TOPP_CHOICES[0]))

/* ---- drawing ---- */

/* The temperature slider: a track on a log scale from DEC_T_MIN to
 * DEC_T_MAX; press or drag to set it. */
static void temp_slider(ViewCtx *v, UiFlow *f, DecSample *m)
{
    char buf[64];
    snprintf(buf, sizeof buf, _("temperature T = %.2f"), m->temp);
    ui_flow_text(f, buf, v->th->text);
    Rect rc = ui_flow_next(f, ui_px(v->g, 180));
    Rect track = {rc.x + 4, rc.y + rc.h / 2 - 2, rc.w - 8, 4};
    ren_rect(v->r, track, v->th->panel2);
    m->slider = track;
    /* T = 1, the model's own distribution, marked on the track */
    int x1 = track.x + (int)lroundf(dec_temp_pos(1.0f) * track.w);
    ren_rect(v->r, (Rect){x1, rc.y + 2, 1, rc.h - 4}, v->th->dim);
    UiId id = ui_id_ptr(v->ui, &m->temp); /* pressed on the slider: held until released */
    ui_control(v->ui, id, rc);
    int held = v->ui->active == id && v->in->down;
    if (held)
        m->temp = dec_temp_at((float)(v->in->mx - track.x) / (float)(track.w > 1 ? track.w : 1));
    int kx = track.x + (int)lroundf(dec_temp_pos(m->temp) * track.w);
    ren_rect(v->r, (Rect){kx - 5, rc.y + 2, 10, rc.h - 4}, held ? v->th->select : v->th->accent);
}

/* The index of cur in c[0..n), or -1. */
static int choice_at(const float *c, int n, float cur)
{
    for (int i = 0; i < n; i++)
        if (c[i] == cur)
            return i;
    return -1;
}

/* The width of a label and its buttons, to keep them on one line. */
static int group_w(const UiFlow *f, const char *label, const char *const *buttons, int n)
{
    int w = label ? ui_flow_text_w(f->ui->g, label) : 0;
    for (int i = 0; i < n; i++)
        w += f->gap + ui_flow_button_w(f->ui->g, buttons[i]);
    return w;
}

/* A label and a button per choice, on one line, the one at `on` lit: the
 * index of the one pressed, or -1. */
static int choice_row(ViewCtx *v, UiFlow *f, const char *label, char names[][16], int n, int on)
{
    const char *btn[8];
    for (int i = 0; i < n && i < 8; i++)
        btn[i] = names[i];
    ui_flow_keep(f, group_w(f, label, btn, n));
    ui_flow_text(f, label, v->th->dim);
    int pick = -1;
    for (int i = 0; i < n; i++)
        if (ui_flow_button(f, names[i], i == on))
            pick = i;
    return pick;
}

void dec_sample_bar(ViewCtx *v, UiFlow *f, DecodeUi *d)
{
    DecSample *m = &d->smp;
    char buf[64], names[8][16];
    char tl[64];
    snprintf(tl, sizeof tl, _("temperature T = %.2f"), 5.0);
    ui_flow_keep(f, ui_flow_text_w(v->g, tl) + f->gap + ui_px(v->g, 180));
    temp_slider(v, f, m);
    for (int i = 0; i < N_TOPK; i++) {
        if (TOPK_CHOICES[i])
            snprintf(names[i], sizeof names[i], "%d", (int)TOPK_CHOICES[i]);
        else
            snprintf(names[i], sizeof names[i], "%s", _("all"));
    }
    int k = choice_row(v, f, _("top-k"), names, N_TOPK, choice_at(TOPK_CHOICES, N_TOPK, (float)m->top_k));
    if (k >= 0)
        m->top_k = (int)TOPK_CHOICES[k];
    for (int i = 0; i < N_TOPP; i++)
        snprintf(names[i], sizeof names[i], "%g", TOPP_CHOICES[i]);
    int p = choice_row(v, f, _("top-p"), names, N_TOPP, choice_at(TOPP_CHOICES, N_TOPP, m->top_p));
    if (p >= 0)
        m->top_p = TOPP_CHOICES[p];
    uint64_t seed = v->s->dec->seed + (uint64_t)(int64_t)d->wish.seed_delta;
    snprintf(buf, sizeof buf, _("seed %llu"), (unsigned long long)seed);
    const char *pm[3] = {"−", "+", _("Sample  N")};
    ui_flow_keep(f, group_w(f, buf, pm, 3)); /* the seed, its − and +, and Sample together */
    ui_flow_text(f, buf, v->th->dim);
    if (ui_flow_button(f, "−", 0) && seed > 0)
        d->wish.seed_delta--;
    if (ui_flow_button(f, "+", 0))
        d->wish.seed_delta++;
    if (ui_flow_button(f, _("Sample  N"), 0))
        d->wish.draw = 1;
}

/* Bars of the distribution sampling draws from, the top DEC_SHOW_K, each with
 * the model's own probability (T = 1) as a thin mark beside it. */
static int draw_dist(ViewCtx *v, DecodeUi *d, Rect rc)
{
    const DecShow *ds = v->s->dec;
    const Scene *sc = v->s;
    const Theme *th = v->th;
    Gfx *g = v->g;
    DecSample *m = &d->smp;
    int at = ds->bars_at;
    int sh = ren_font_height(g->small), lh = ren_font_height(g->ui);
    if (ds->bars_wait) { /* the pass over the prefix: the rest in the next frames */
        ui_text_fit(v->r, g->small, _("computing the distribution of the next token…"), rc.x, rc.y, rc.w,
                    th->dim);
        if (v->out)
            v->out->wake_at = sc->now;
        return sh;
    }
    if (at < 0) {
        ui_text_fit(v->r, g->small, _("no distribution to show"), rc.x, rc.y, rc.w, th->warn);
        return sh;
    }
    char buf[300];
    snprintf(buf, sizeof buf,
             _("after '%s' (step %d): softmax(z/T) over the %d tokens top-k and top-p keep; the thin mark is T = 1"),
             dec_tok(sc, at > 0 ? ds->gen_ids[at - 1] : ds->start_id), at + 1, ds->n_set);
    ui_text_fit(v->r, g->small, buf, rc.x, rc.y, rc.w, th->dim);
    int y = rc.y + sh + ui_px(g, 4), rh = lh + ui_px(g, 3);
    const int *id = ds->bar_id;
    const float *p = ds->bar_p, *p1 = ds->bar_own;
    int n = ds->n_bars;
    int lw = rc.w / 4, vw = ren_text_width(g->small, "0.000") + ui_px(g, 6), bw = rc.w - lw - vw;
    int fit = (rc.y + rc.h - y) / rh, shown = n < fit ? n : fit, kr = -1, kc;
    /* the keyboard's bar (Ctrl+up/down) when the mouse is not over them */
    if (!view_key_cell(v, shown, 1, &kr, &kc) || ui_over(v->in, (Rect){rc.x, y, rc.w, shown * rh}))
        kr = -1;
    for (int i = 0; i < n && y + rh <= rc.y + rc.h; i++, y += rh) {
        const char *tok = dec_tok(sc, id[i]);
        int tw = ren_text_width(g->ui, tok);
        ui_text_fit(v->r, g->ui, tok, rc.x + (tw < lw - 8 ? lw - 8 - tw : 0), y + (rh - lh) / 2, lw - 8,
                    i == 0 ? th->select : th->text);
        int bh = rh - ui_px(g, 6);
        Rect track = {rc.x + lw, y + (rh - bh) / 2, bw, bh};
        ren_rect(v->r, track, th->panel2);
        if (i == 0) {
            m->bar0 = track;
            m->bar0_id = id[0];
        }
        ren_rect(v->r, (Rect){track.x, track.y, (int)lroundf(p[i] * bw), bh}, th->accent);
        int x1 = track.x + (int)lroundf(p1[i] * bw);
        ren_rect(v->r, (Rect){x1, track.y - 2, 2, bh + 4}, th->text);
        snprintf(buf, sizeof buf, "%.3f", p[i]);
        ren_text(v->r, g->small, buf, track.x + bw + 4, y + (rh - sh) / 2, th->text);
        if (i == kr)
            view_key_outline(v, track);
        if (i == kr || ui_over(v->in, (Rect){rc.x, y, rc.w, rh}))
            ui_hover_own(v, p[i], _("p('%s') at T = %.2f (the model's own, T = 1: %.4f)"), tok, m->temp, p1[i]);
    }
    return y - rc.y;
}

static void draw_samples(ViewCtx *v, DecodeUi *d, Rect rc)
{
    const Scene *sc = v->s;
    const Theme *th = v->th;
    Gfx *g = v->g;
    const DecShow *ds = sc->dec;
    const DecProgress *p = &ds->draw_prog;
    int sh = ren_font_height(g->small), lh = ren_font_height(g->ui), y = rc.y;
    if (ds->smp_err[0]) {
        y += ui_paragraph(v->r, g->small, ds->smp_err, rc.x, y, rc.w, th->warn);
    }
    if (p->on) { /* a draw in flight, a step a frame */
        char line[256];
        dec_progress_line(line, sizeof line, p->done, p->total);
        int h = ren_font_height(g->ui) * 2 + ui_px(g, 28);
        dec_draw_progress_of(v, (Rect){rc.x - ui_px(g, 10), y - ui_px(g, 10), rc.w + ui_px(g, 20), h}, line,
                             p->done, p->total, p->text);
        y += h;
    }
    if (!ds->n_samples) {
        ui_paragraph(v->r, g->small, _("Sample (N) draws a translation token by token from these distributions."),
                     rc.x, y, rc.w, th->dim);
        return;
    }
    ui_text_fit(v->r, g->small, _("translations drawn (the newest first)"), rc.x, y, rc.w, th->dim);
    y += sh + 2;
    for (int i = 0; i < ds->n_samples && y + lh <= rc.y + rc.h; i++, y += lh + 2) {
        char line[1200];
        /* the numbers first: a long translation is cut at its end, not them */
        int n = snprintf(line, sizeof line, _("seed %llu · log p %.2f:"), (unsigned long long)ds->sample_seed[i],
                         ds->sample_lp[i]);
        for (int k = 0; k < ds->sample_n[i] && n < (int)sizeof line - 64; k++)
            n += snprintf(line + n, sizeof line - n, " %s", dec_tok(sc, ds->sample_ids[i][k]));
        ui_text_fit(v->r, g->ui, line, rc.x, y, rc.w, i == 0 ? th->text : th->dim);
    }
}

void dec_sample_pane(ViewCtx *v, DecodeUi *d, Rect rc)
{
    Gfx *g = v->g;
    RenFont *f = g->small;
    const char *what = _("T divides the scores z before the softmax: T below 1 sharpens the distribution "
                         "(T → 0 is greedy decoding), T above 1 flattens it, so rarer tokens get drawn. "
                         "Top-k keeps the k most probable tokens, top-p the fewest whose probability reaches p.");
    int wh = ui_paragraph(v->r, f, what, rc.x, rc.y, rc.w, v->th->dim) + ui_px(g, 8);
    Rect top = {rc.x, rc.y + wh, rc.w, (rc.h - wh) * 62 / 100};
    int used = draw_dist(v, d, top);
    int y = top.y + used + ui_px(g, 10);
    draw_samples(v, d, (Rect){rc.x, y, rc.w, rc.y + rc.h - y});
}

/* The index after cur's in c[0..n), round; 0 when cur is not there. */
static int next_choice(const float *c, int n, float cur)
{
    return (choice_at(c, n, cur) + 1) % n;
}

int dec_sample_act(ViewCtx *v, DecodeUi *d, ViewAct act, int arg)
{
    DecSample *m = &d->smp;
    switch (act) {
    case VA_TEMP:
        m->temp = arg < 0 ? m->temp / 1.25f : m->temp * 1.25f;
        m->temp = m->temp < DEC_T_MIN ? DEC_T_MIN : m->temp > DEC_T_MAX ? DEC_T_MAX : m->temp;
        return 1;
    case VA_TOP_K: m->top_k = (int)TOPK_CHOICES[next_choice(TOPK_CHOICES, N_TOPK, (float)m->top_k)]; return 1;
    case VA_TOP_P: m->top_p = TOPP_CHOICES[next_choice(TOPP_CHOICES, N_TOPP, m->top_p)]; return 1;
    case VA_DRAW: d->wish.draw = 1; return 1;
    default: return 0;
    }
}
