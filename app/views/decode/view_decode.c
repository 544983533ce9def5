/* view_decode.c - the decode view: where training and inference part ways.
 *
 * Training uses teacher forcing: the decoder reads <bos> + the TRUE target
 * and predicts every next token in one pass, the causal mask keeping each
 * position from peeking at the answer. Inference has no target: the decoder
 * reads its OWN earlier outputs and makes one token per step. This file
 * handles the view's keys and draws its control bar and its panes (the
 * window's decode lab computes what they show, view_decode.h):
 *
 *   "Training vs inference"  the position-by-position table (teacher
 *                            forcing | generation), and the inspected step
 *                            below it when the window has room
 *   "One step"               the inspected step alone, bigger, with the
 *                            generated tokens to click through
 *   "Beam search"            the tree of hypotheses
 *   "Sampling"               temperature, top-k, top-p, and the draws
 *
 * Keys (only while this view is shown): S step, P or Space play/pause,
 * R restart, Left/Right inspect the previous/next step, Home/End, B beam
 * size (Shift+B back), A length penalty, Tab next pane, [ ] decoder
 * layer, 1-9 head, 0 average of the heads. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "view_decode.h"

static int view_decode_act(ViewCtx *v, ViewAct act, int arg)
{
    const Scene *sc = v->s;
    DecodeUi *d = dec_get(v);
    if (!d)
        return 0;
    const DecShow *sh = sc->dec;
    int L = sc->model->cfg.n_dec;
    if (d->pane == DEC_PANE_SAMPLE && dec_sample_act(v, d, act, arg))
        return 1;
    switch (act) {
    case VA_UNFORCE: /* with no forced token the key is free */
        if (!sh->n_forced)
            return 0;
        d->wish.unforce = 1;
        return 1;
    case VA_STEP: dec_step(d, sh); return 1;
    case VA_PLAY: dec_play(v, d); return 1;
    case VA_RESTART: dec_restart(d); return 1;
    case VA_MOVE: dec_select(d, d->sel + arg); return 1;
    case VA_FIRST: dec_select(d, 0); return 1;
    case VA_LAST: dec_select(d, d->shown - 1); return 1;
    case VA_BEAM: dec_set_beam(d, d->beam_k + arg, d->alpha_i); return 1;
    case VA_ALPHA: dec_set_beam(d, d->beam_k, d->alpha_i + 1); return 1;
    case VA_PANE:
        dec_set_pane(v, d, (DecPane)((d->pane + (arg < 0 ? DEC_PANE_COUNT - 1 : 1)) % DEC_PANE_COUNT));
        return 1;
    case VA_LAYER:
        if (d->layer + arg >= 0 && d->layer + arg < L)
            d->layer += arg;
        return 1;
    case VA_HEAD: /* -1: the average of the heads */
        if (arg < sc->model->cfg.n_heads)
            view_set_head(v, arg);
        return 1;
    default: return 0;
    }
}

/* ---- drawing ---- */


/* A button's label without the key it ends with ("Play  P": "Play"), for
 * a narrow bar; the label itself when it names no key. */
static const char *without_key(const char *label, char *buf, size_t cap)
{
    size_t n = strlen(label);
    if (n < 4 || label[n - 3] != ' ' || label[n - 2] != ' ' || !isalpha((unsigned char)label[n - 1]))
        return label;
    snprintf(buf, cap, "%.*s", (int)(n - 3), label);
    return buf;
}

/* The generation buttons' width on one line, with ◀ or without. */
static int gen_bar_w(const UiFlow *f, const char *step, const char *play, const char *again, int back)
{
    Gfx *g = f->ui->g;
    int w = 2 * f->gap + ui_flow_button_w(g, step) + ui_flow_button_w(g, play) + ui_flow_button_w(g, again);
    return back ? w + f->gap + ui_flow_button_w(g, "◀") : w;
}

static void draw_bar_gen(ViewCtx *v, UiFlow *f, DecodeUi *d)
{
    const Theme *th = f->ui->th;
    const DecShow *sh = v->s->dec;
    /* with their keys when they share a line, else without; ◀ goes last
     * (a click on a row or ← does the same) */
    const char *step = _("Step ▶  S");
    const char *play = d->playing ? _("Pause  P") : _("Play  P");
    const char *again = _("Restart  R");
    char b[3][64];
    if (gen_bar_w(f, step, play, again, 1) > f->rc.w) {
        step = without_key(step, b[0], sizeof b[0]);
        play = without_key(play, b[1], sizeof b[1]);
        again = without_key(again, b[2], sizeof b[2]);
    }
    int back = gen_bar_w(f, step, play, again, 1) <= f->rc.w;
    if (f->x > f->rc.x && f->x + gen_bar_w(f, step, play, again, back) > f->rc.x + f->rc.w)
        ui_flow_break(f); /* the buttons together */
    if (back && ui_flow_button(f, "◀", 0))
        dec_select(d, d->sel - 1);
    if (ui_flow_button(f, step, 0))
        dec_step(d, sh);
    if (ui_flow_button(f, play, d->playing))
        dec_play(v, d);
    if (ui_flow_button(f, again, 0))
        dec_restart(d);
    if (sh->prog.on) /* still computing: the progress mark says how far */
        return;
    if (sh->n_forced && ui_flow_button(f, _("Unforce  F"), 1))
        d->wish.unforce = 1;
    char buf[160];
    int n = sh->gen_n;
    int ended = n > 0 && sh->gen_ids[n - 1] == sh->eos_id;
    if (d->shown < n)
        snprintf(buf, sizeof buf, _("%d of %d tokens generated"), d->shown, n);
    else if (ended)
        snprintf(buf, sizeof buf, _("all %d tokens generated, <eos> included"), n);
    else
        snprintf(buf, sizeof buf, _("%d tokens and no <eos>: stopped at the maximum length"), n);
    /* the count only when it fits on the line; the warning always */
    int w = ren_text_width(f->ui->g->small, buf) + ui_px(f->ui->g, 4);
    if (f->x + w <= f->rc.x + f->rc.w || (d->shown >= n && !ended))
        ui_flow_text(f, buf, d->shown < n || ended ? th->dim : th->warn);
}

/* The beam's settings: a button per size and per α when the sizes fit on a
 * line; else, on one line, − K + and the α in use (a click takes the next
 * one, as A does), under the name "K" when "beam size" leaves no room. */
static void draw_bar_beam(ViewCtx *v, UiFlow *f, DecodeUi *d)
{
    char buf[32];
    Gfx *g = f->ui->g;
    Color dim = f->ui->th->dim;
    const char *size = _("beam size"), *name = _("length penalty α");
    int all = ui_flow_text_w(g, size);
    for (int k = 1; k <= DEC_MAX_BEAM; k++) {
        snprintf(buf, sizeof buf, "%d", k);
        all += f->gap + ui_flow_button_w(g, buf);
    }
    if (all <= f->rc.w) {
        ui_flow_keep(f, all); /* the sizes on one line, after the panes or under them */
        ui_flow_text(f, size, dim);
        for (int k = 1; k <= DEC_MAX_BEAM; k++) {
            snprintf(buf, sizeof buf, "%d", k);
            if (ui_flow_button(f, buf, d->beam_k == k))
                dec_set_beam(d, k, d->alpha_i);
        }
        f->x += ui_px(g, 10);
        /* the values with their name on the rest of the line, else with α
         * alone, else on the next line (α alone if even that is short) */
        int w = 0, left = f->rc.x + f->rc.w - f->x;
        for (int i = 0; i < DEC_N_ALPHA; i++) {
            snprintf(buf, sizeof buf, "%g", DEC_ALPHAS[i]);
            w += f->gap + ui_flow_button_w(g, buf);
        }
        const char *label = name;
        if (ui_flow_text_w(g, name) + w > left && ui_flow_text_w(g, "α") + w <= left)
            label = "α";
        else if (ui_flow_text_w(g, name) + w > left)
            ui_flow_break(f);
        if (label == name && ui_flow_text_w(g, name) + w > f->rc.w)
            label = "α";
        ui_flow_text(f, label, dim);
        for (int i = 0; i < DEC_N_ALPHA; i++) {
            snprintf(buf, sizeof buf, "%g", DEC_ALPHAS[i]);
            if (ui_flow_button(f, buf, d->alpha_i == i))
                dec_set_beam(d, d->beam_k, i);
        }
        return;
    }
    snprintf(buf, sizeof buf, "%g", DEC_ALPHAS[d->alpha_i]);
    int rest = 5 * f->gap + ui_flow_button_w(g, "−") + ui_flow_button_w(g, "8") + ui_flow_button_w(g, "+") + ui_px(g, 10) +
               ui_flow_text_w(g, "α") + ui_flow_button_w(g, buf);
    ui_flow_break(f);
    ui_flow_text(f, ui_flow_text_w(g, size) + rest <= f->rc.w ? size : "K", dim);
    if (ui_flow_button(f, "−", 0) && d->beam_k > 1)
        dec_set_beam(d, d->beam_k - 1, d->alpha_i);
    char k[8];
    snprintf(k, sizeof k, "%d", d->beam_k);
    ui_flow_button(f, k, 1);
    if (ui_flow_button(f, "+", 0) && d->beam_k < DEC_MAX_BEAM)
        dec_set_beam(d, d->beam_k + 1, d->alpha_i);
    f->x += ui_px(g, 10);
    ui_flow_text(f, "α", dim);
    if (ui_flow_button(f, buf, 1))
        dec_set_beam(d, d->beam_k, d->alpha_i + 1);
}

static const char *KEYS_GEN =
    N_("S step · P play/pause · R restart · ←/→ inspect a step (or click it) · "
    "[ ] layer · 1-9 head, 0 average · J next pane");
static const char *KEYS_BEAM =
    N_("B beam size (Shift+B back) · A length penalty · the wheel scrolls the tree · "
    "hover a node for its numbers · J next pane");

static const char *KEYS_SAMPLE =
    N_("temperature: , down, . up · K top-k · U top-p · N sample · ←/→ the "
       "step whose next token is shown · J next pane");

static const char *PANE_NAMES[DEC_PANE_COUNT] = {N_("Training vs inference"), N_("One step"), N_("Beam search"),
                                                 N_("Sampling")};

/* The pane tabs: all of them when they fit on a line or the view is tall,
 * else the current one between ‹ and › (as Tab and Shift+Tab), on a line
 * of its own. */
static void draw_tabs(ViewCtx *v, UiFlow *f, DecodeUi *d, int tall)
{
    Gfx *g = v->g;
    int all = -f->gap;
    for (int p = 0; p < DEC_PANE_COUNT; p++)
        all += ui_flow_button_w(g, _(PANE_NAMES[p])) + f->gap;
    int to = -1;
    if (all <= f->rc.w || tall) {
        for (int p = 0; p < DEC_PANE_COUNT; p++)
            if (ui_flow_button(f, _(PANE_NAMES[p]), d->pane == (DecPane)p))
                to = p;
        f->x += ui_px(g, 12);
    } else {
        int w = 2 * f->gap + ui_flow_button_w(g, "‹") + ui_flow_button_w(g, _(PANE_NAMES[d->pane])) + ui_flow_button_w(g, "›");
        if (w <= f->rc.w && ui_flow_button(f, "‹", 0)) /* only › when the three do not fit */
            to = (d->pane + DEC_PANE_COUNT - 1) % DEC_PANE_COUNT;
        int cur = ui_flow_button(f, _(PANE_NAMES[d->pane]), 1);
        if (ui_flow_button(f, "›", 0) || cur)
            to = (d->pane + 1) % DEC_PANE_COUNT;
        ui_flow_break(f);
    }
    if (to >= 0)
        dec_set_pane(v, d, (DecPane)to);
}

/* The table with the step below it, or the table alone and a pointer to
 * the "One step" pane when the window is too small for both. */
static void draw_pane_gen(ViewCtx *v, DecodeUi *d, Rect body)
{
    const Theme *th = v->th;
    const DecShow *sh = v->s->dec;
    int gap = ui_px(v->g, 10);
    int step_min = dec_step_min_height(v);
    int table_h = dec_table_height(v, d, body.w);
    int rh = ren_font_height(v->g->ui) + ui_px(v->g, 6);
    int rows_min = sh->tf_n < 4 ? sh->tf_n : 4; /* a table worth reading */
    int table_min = table_h - (sh->tf_n > sh->gen_n ? sh->tf_n : sh->gen_n) * rh + rows_min * rh;
    if (table_min + gap + step_min > body.h) {
        RenFont *f = v->g->small;
        int fh = ren_font_height(f);
        dec_table_draw(v, d, (Rect){body.x, body.y, body.w, body.h - fh - gap});
        if (d->sel >= 0) {
            char buf[3][300];
            const char *tok = dec_tok(v->s, sh->gen_ids[d->sel]);
            snprintf(buf[0], sizeof buf[0], _("Step %d → '%s': its attention and top-k are in One step (J)"),
                     d->sel + 1, tok);
            snprintf(buf[1], sizeof buf[1], _("Step %d → '%s': see One step (J)"), d->sel + 1, tok);
            snprintf(buf[2], sizeof buf[2], _("Step %d → '%s'"), d->sel + 1, tok);
            const char *alts[3] = {buf[0], buf[1], buf[2]};
            ui_text_alt(v->r, f, alts, 3, body.x, body.y + body.h - fh, body.w, th->accent);
        }
        return;
    }
    if (table_h > body.h - step_min - gap)
        table_h = body.h - step_min - gap;
    Rect table = {body.x, body.y, body.w, table_h};
    Rect step = {body.x, body.y + table_h + gap, body.w, body.h - table_h - gap};
    dec_table_draw(v, d, table);
    ren_rect(v->r, (Rect){step.x, step.y - gap / 2 - 1, step.w, 1}, th->border);
    dec_step_draw(v, d, step);
}

static void draw_pane_step(ViewCtx *v, DecodeUi *d, Rect body)
{
    int h = dec_chips_draw(v, d, body) + ui_px(v->g, 10);
    dec_step_draw(v, d, (Rect){body.x, body.y + h, body.w, body.h - h});
}

static void view_decode(ViewCtx *v)
{
    const Theme *th = v->th;
    DecodeUi *d = dec_get(v);
    const DecShow *sh = v->s->dec;
    Rect area = v->area;
    if (!d) {
        ui_paragraph(v->r, v->g->ui, _("out of memory for the decode view"), area.x + 10,
                     area.y + 10, area.w - 20, th->warn);
        return;
    }
    dec_advance_play(v, d);
    int pad = ui_px(v->g, 4);
    /* the pane tabs and the pane's controls, wrapping when narrow */
    UiFlow f = ui_flow(v->ui, (Rect){area.x, area.y + pad, area.w, area.h});
    int rh = ren_font_height(v->g->ui) + ui_px(v->g, 6); /* a table row */
    draw_tabs(v, &f, d, area.h >= 14 * rh); /* short: every line of tabs is a row less */
    if (d->pane == DEC_PANE_BEAM)
        draw_bar_beam(v, &f, d);
    else if (d->pane == DEC_PANE_SAMPLE)
        dec_sample_bar(v, &f, d);
    else
        draw_bar_gen(v, &f, d);
    int top = area.y + pad + ui_flow_height(&f) + ui_px(v->g, 8);
    top += dec_exp_line(v, area.x, top, area.w); /* with an experiment: before → after */
    /* the keys, at the bottom (two lines at most) */
    RenFont *sf = v->g->small;
    const char *keys = _(d->pane == DEC_PANE_BEAM ? KEYS_BEAM : d->pane == DEC_PANE_SAMPLE ? KEYS_SAMPLE : KEYS_GEN);
    int kn = ren_text_wrap(sf, keys, area.w, NULL, 0);
    int kh = (kn < 2 ? kn : 2) * ren_font_height(sf);
    if (area.y + area.h - pad - top - kh < 8 * rh) /* eight rows: a pane worth reading */
        kh = 0; /* the pane before its keys, when room is short */
    int bottom = area.y + area.h - kh - pad;
    if (kh) {
        ren_clip_push(v->r, (Rect){area.x, bottom, area.w, kh + pad});
        ui_paragraph(v->r, sf, keys, area.x, bottom, area.w, th->dim);
        ren_clip_pop(v->r);
    }
    Rect body = {area.x, top, area.w, bottom - top - pad};
    if (body.h < 20)
        return;
    if (sh->err[0]) {
        ui_paragraph(v->r, v->g->ui, sh->err, body.x + 10, body.y + 10, body.w - 20, th->warn);
        return;
    }
    if (sh->prog.on && d->pane != DEC_PANE_BEAM) {
        ren_clip_push(v->r, body); /* a long output's tokens stop above the keys */
        dec_draw_progress(v, sh, body);
        ren_clip_pop(v->r);
        return;
    }
    ren_clip_push(v->r, body);
    switch (d->pane) {
    case DEC_PANE_BEAM: dec_beam_draw(v, d, body); break;
    case DEC_PANE_SAMPLE: dec_sample_pane(v, d, body); break;
    case DEC_PANE_STEP: draw_pane_step(v, d, body); break;
    default: draw_pane_gen(v, d, body); break;
    }
    ren_clip_pop(v->r);
}

const ViewDef VIEW_DECODE_DEF = {"decode", N_("Decode"), view_decode, view_decode_act, sizeof(DecodeUi),
                                 NULL, VIEW_NEED_PACED, 0};
