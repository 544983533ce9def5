/* view_decode_act.c - what the decode view's keys and buttons do: reveal
 * the generated tokens one at a time (Step, Play, Restart), inspect a step,
 * change the pane or the beam's settings. They change only the view's own
 * state (DecodeUi) and its wishes for the window's decode lab; the panes
 * call them, they call nothing back. */
#include <math.h>
#include <string.h>

#include "view_decode.h"

const float DEC_ALPHAS[DEC_N_ALPHA] = {0.0f, 0.6f, 1.0f};

/* What the view shows first, and again whenever the lab made new results:
 * every generated token revealed, the step generation chose inspected. */
static void follow_results(const Scene *sc, DecodeUi *d, const DecShow *sh)
{
    if (d->computes != sh->computes) { /* dropped: nothing to reveal yet */
        d->computes = sh->computes;
        d->shown = 0;
        d->sel = -1;
        d->playing = 0;
        d->scroll = d->follow = 0;
    }
    if (d->made != sh->made) {
        d->made = sh->made;
        d->shown = sh->gen_n;
        d->sel = sh->sel_first;
        d->sel_auto = sh->sel_first_auto;
        int L = sc->model->cfg.n_dec;
        if (d->layer >= L)
            d->layer = L - 1;
    }
    if (d->beams != sh->beams) { /* a new tree: from its first column */
        d->beams = sh->beams;
        d->beam_x0 = 0;
    }
}

DecodeUi *dec_get(ViewCtx *v)
{
    const Scene *sc = v->s;
    DecodeUi *d = v->st;
    const DecShow *sh = sc->dec;
    if (!d || !sh)
        return NULL;
    if (!d->ready) {
        d->ready = 1;
        d->beam_k = 4;
        d->alpha_i = 1; /* 0.6, the paper's value */
        d->layer = sc->model->cfg.n_dec - 1; /* the last layer: its cross-
                                                attention aligns best */
        d->smp.temp = 1.0f;
        d->smp.top_k = 0;
        d->smp.top_p = 1.0f;
    }
    follow_results(sc, d, sh);
    if (sh->busy && v->out) /* the lab's next pieces in the next frame */
        v->out->wake_at = sc->now;
    return d;
}

/* Generation controls bring back a pane that shows generation. */
static void show_generation(DecodeUi *d)
{
    if (d->pane == DEC_PANE_BEAM)
        d->pane = DEC_PANE_GEN;
}

void dec_restart(DecodeUi *d)
{
    show_generation(d);
    d->shown = 0;
    d->sel = -1;
    d->playing = 0;
    d->follow = 1;
}

void dec_step(DecodeUi *d, const DecShow *sh)
{
    show_generation(d);
    d->playing = 0;
    if (d->shown >= sh->gen_n) { /* at the end: start again from <bos> */
        dec_restart(d);
        return;
    }
    d->shown++;
    d->sel = d->shown - 1;
    d->follow = 1;
}

void dec_play(ViewCtx *v, DecodeUi *d)
{
    const DecShow *sh = v->s->dec;
    show_generation(d);
    if (d->playing) {
        d->playing = 0;
        return;
    }
    if (sh->gen_n < 1)
        return;
    if (d->shown >= sh->gen_n)
        dec_restart(d);
    d->playing = 1;
    d->next_at = v->s->now + DEC_PACE / 2;
}

void dec_select(DecodeUi *d, int step)
{
    show_generation(d);
    if (d->shown < 1)
        return;
    if (step < 0)
        step = 0;
    if (step > d->shown - 1)
        step = d->shown - 1;
    d->sel = step;
    d->sel_auto = 0;
    d->playing = 0;
    d->follow = 1;
}

void dec_set_beam(DecodeUi *d, int k, int alpha_i)
{
    d->beam_k = k < 1 ? DEC_MAX_BEAM : k > DEC_MAX_BEAM ? 1 : k;
    d->alpha_i = ((alpha_i % DEC_N_ALPHA) + DEC_N_ALPHA) % DEC_N_ALPHA;
    d->pane = DEC_PANE_BEAM;
    d->playing = 0;
    d->wish.refresh = 1; /* search now, so what the key changed is there to read */
}

/* The generated step the model was least sure of (the lowest probability
 * of the token it chose, forced steps aside; the first of equals), or -1. */
static int least_sure_step(const DecShow *sh)
{
    int best = -1;
    for (int i = 0; sh->steps && i < sh->gen_n; i++)
        if (!sh->steps[i].forced && (best < 0 || sh->steps[i].prob < sh->steps[best].prob))
            best = i;
    return best;
}

/* Show pane p. The Sampling pane, entered while the inspected step is
 * still the one generation ended on (where the model is usually sure of
 * <eos>), inspects the step it was least sure of instead: where a draw
 * can go another way. */
void dec_set_pane(ViewCtx *v, DecodeUi *d, DecPane p)
{
    const DecShow *sh = v->s->dec;
    d->pane = p;
    d->wish.refresh = 1;
    if (p == DEC_PANE_SAMPLE && d->sel_auto && !sh->prog.on) {
        int s = least_sure_step(sh);
        if (s >= 0 && s < d->shown)
            d->sel = s;
        d->sel_auto = 0;
    }
}

int view_decode_setup(ViewCtx *v, const char *pane, int k, float alpha)
{
    static const char *names[DEC_PANE_COUNT] = {"gen", "step", "beam", "sample"};
    int p = -1;
    for (int i = 0; i < DEC_PANE_COUNT; i++)
        if (pane && strcmp(pane, names[i]) == 0)
            p = i;
    DecodeUi *d = dec_get(v);
    if (p < 0 || !d)
        return -1;
    int ai = d->alpha_i;
    if (alpha >= 0)
        for (int i = 0; i < DEC_N_ALPHA; i++)
            if (fabsf(DEC_ALPHAS[i] - alpha) < fabsf(DEC_ALPHAS[ai] - alpha))
                ai = i;
    d->beam_k = k >= 1 && k <= DEC_MAX_BEAM ? k : d->beam_k;
    d->alpha_i = ai;
    dec_set_pane(v, d, (DecPane)p);
    return 0;
}

void dec_advance_play(ViewCtx *v, DecodeUi *d)
{
    const Scene *sc = v->s;
    int n = sc->dec->gen_n;
    if (!d->playing)
        return;
    if (sc->now >= d->next_at) {
        if (d->shown < n) {
            d->shown++;
            d->sel = d->shown - 1;
            d->follow = 1;
        }
        d->next_at = sc->now + DEC_PACE;
        if (d->shown >= n)
            d->playing = 0;
    }
    /* ask the window loop for a frame when the next token is due, unless
     * one is asked for sooner (the beam search's next steps) */
    if (d->playing && !(v->out->wake_at > 0 && v->out->wake_at <= d->next_at))
        v->out->wake_at = d->next_at;
}

float dec_temp_at(float u)
{
    u = u < 0 ? 0 : u > 1 ? 1 : u;
    return DEC_T_MIN * powf(DEC_T_MAX / DEC_T_MIN, u);
}

float dec_temp_pos(float t)
{
    return logf(t / DEC_T_MIN) / logf(DEC_T_MAX / DEC_T_MIN);
}
