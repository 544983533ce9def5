/* view_decode.c - the decode view: where training and inference part ways.
 *
 * Training uses teacher forcing: the decoder reads <bos> + the TRUE target
 * and predicts every next token in one pass, the causal mask keeping each
 * position from peeking at the answer. Inference has no target: the decoder
 * reads its OWN earlier outputs and makes one token per step. This file
 * keeps the view's state (view_decode.h), recomputes it when the input, the
 * model or a setting changes, handles the keys and draws the control bar
 * and the three panes:
 *
 *   "Training vs inference"  the position-by-position table (teacher
 *                            forcing | generation), and the inspected step
 *                            below it when the window has room
 *   "One step"               the inspected step alone, bigger, with the
 *                            generated tokens to click through
 *   "Beam search"            the tree of hypotheses
 *
 * Keys (only while this view is shown): S step, P or Space play/pause,
 * R restart, Left/Right inspect the previous/next step, Home/End, B beam
 * size (Shift+B back), A length penalty, Tab next pane, [ ] decoder
 * layer, 1-9 head, 0 average of the heads. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view_decode.h"

const float DEC_ALPHAS[DEC_N_ALPHA] = {0.0f, 0.6f, 1.0f};

/* ---- small shared helpers ---- */

const char *dec_tok(const Scene *sc, int id)
{
    static char buf[8][VOCAB_MAX_TOKEN_BYTES + 1]; /* a few alive at once (one frame's labels) */
    static int next;
    next = (next + 1) % 8;
    return view_token(&sc->model->tgt_vocab, id, buf[next], sizeof buf[next]);
}

int dec_gen_input(const DecodeUi *d, int s)
{
    if (s <= 0)
        return d->start_id;
    return s <= d->gen.n ? d->gen.ids[s - 1] : -1; /* past the output: nothing read there */
}

/* ---- computing: only when the input, the model or a setting changed ---- */

/* The longest decoder input the view handles for this model. */
static int dec_cap(const DecodeUi *d)
{
    return d->cfg.max_len < DEC_CAP_T ? d->cfg.max_len : DEC_CAP_T;
}

/* Traces made for the model (rebuilt when its shape changes) small: they
 * grow with the sentence decoded (trace_reserve), never for max_len. */
static int ensure_traces(const Scene *sc, DecodeUi *d, TfErr *err)
{
    const TfConfig *c = &sc->model->cfg;
    if (d->have_traces && memcmp(&d->cfg, c, sizeof *c) == 0)
        return 0;
    if (d->have_traces) {
        trace_free(&d->tr);
        d->have_traces = 0;
    }
    int T = c->max_len < DEC_TRACE_T0 ? c->max_len : DEC_TRACE_T0;
    if (trace_build(&d->tr, c, 1, T, TRACE_RECORD, err))
        return -1;
    d->cfg = *c;
    d->have_traces = 1;
    return 0;
}

/* The beam's trace (DEC_MAX_BEAM sentences, nothing recorded) is made the
 * first time the tree is shown: a model too big for it still decodes. */
static int ensure_beam_trace(DecodeUi *d, TfErr *err)
{
    if (d->have_btr && memcmp(&d->btr.cfg, &d->cfg, sizeof d->cfg) == 0)
        return 0;
    if (d->have_btr)
        trace_free(&d->btr);
    d->have_btr = 0;
    int T = d->cfg.max_len < DEC_TRACE_T0 ? d->cfg.max_len : DEC_TRACE_T0;
    if (trace_build(&d->btr, &d->cfg, 1, T, 0, err)) /* grows to the beam */
        return -1;
    d->have_btr = 1;
    return 0;
}

/* Where does generation first leave the reference, and where afterwards
 * does teacher forcing (reading the true prefix) predict something else
 * than generation (reading its own)? Prefer a position where teacher
 * forcing is right and generation is wrong: exposure bias in one row. */
static void find_divergence(DecodeUi *d)
{
    d->diverge = d->contrast = -1;
    if (!d->ref)
        return;
    int n = d->tf_n < d->gen.n ? d->tf_n : d->gen.n;
    for (int i = 0; i < n && d->diverge < 0; i++)
        if (d->gen.ids[i] != d->tf_truth[i])
            d->diverge = i;
    if (d->diverge < 0)
        return;
    int any = -1;
    for (int i = d->diverge + 1; i < n; i++) {
        if (d->tf_pred[i] == d->gen.ids[i])
            continue;
        if (any < 0)
            any = i;
        if (d->tf_pred[i] == d->tf_truth[i] && d->gen.ids[i] != d->tf_truth[i]) {
            d->contrast = i;
            return;
        }
    }
    d->contrast = any;
}

/* Is the view's own teacher forcing in d->tr the pass over target[0..n)? */
static int own_tf_is(const DecodeUi *d, const int *target, int n)
{
    return d->tfo_done && d->tfo_T == n + 1 && d->tfo_S == d->S &&
           memcmp(d->tfo_in + 1, target, (size_t)n * sizeof(int)) == 0;
}

/* Start the view's own teacher forcing of <bos> + target[0..n) in d->tr
 * (SesPass: a budget of pieces a frame, dec_tf_advance; all now when
 * headless). 0, or -1 with err. */
static int own_tf_start(const Scene *sc, DecodeUi *d, const int *target, int n, TfErr *err)
{
    if (decode_check_src(sc->model, d->src, d->S, 1, err))
        return -1;
    d->tfo_T = n + 1;
    d->tfo_S = d->S;
    d->tfo_in[0] = cfg_start_id(&sc->model->cfg); /* <bos>, or MarianMT's <pad> */
    memcpy(d->tfo_in + 1, target, (size_t)n * sizeof(int));
    TfBatch in = {1, d->tfo_S, d->tfo_T, d->src, d->tfo_in, &d->tfo_S, &d->tfo_T};
    ses_pass_start(&d->tfo, &in);
    d->tfo_on = 1;
    d->tfo_done = 0;
    d->tf_passes++;
    return 0;
}

int dec_tf_advance(const Scene *sc, DecodeUi *d, int may, TfErr *err)
{
    if (!d->tfo_on)
        return 1;
    double spent = 0;
    int rc = ses_pass_run(sc->model, &d->tr, &d->tfo, may, &spent, err);
    if (rc != 0)
        d->tfo_on = 0;
    d->tfo_done = rc > 0;
    return rc;
}

/* Teacher forcing over <bos> + target[0..n): predictions, losses and the
 * mask the pass applied, copied out of the trace: the session's when its
 * pass is this one (d->tf_wait while the window still computes it between
 * frames), else the view's own (d->tfo_on while it runs). */
static int teacher_force(const Scene *sc, DecodeUi *d, const int *target, int n, TfErr *err)
{
    if (n > dec_cap(d) - 1)
        n = dec_cap(d) - 1;
    const TfTrace *tr = &d->tr;
    int ses = tf_exp_is_none(&d->tr.exp) ? session_teacher_forcing(sc->ses, d->src, d->S, target, n) : -1;
    d->tf_wait = ses == 0;
    if (d->tf_wait)
        return 0;
    if (ses > 0) {
        tr = &sc->ses->trace;
    } else if (!own_tf_is(d, target, n)) {
        if (own_tf_start(sc, d, target, n, err))
            return -1;
        if (sc->ses->lazy)
            return 0; /* the window: d->tfo_on, a budget a frame, drawn when complete */
        if (dec_tf_advance(sc, d, SES_ALL, err) < 0) /* headless: all now */
            return -1;
    }
    tf_teacher_forced_read(sc->model, tr, target, n, d->tf_pred, d->tf_truth, d->tf_loss);
    int T = n + 1, V = sc->model->cfg.tgt_vocab;
    d->tf_n = T;
    d->tf_in[0] = cfg_start_id(&sc->model->cfg);
    memcpy(d->tf_in + 1, target, (size_t)n * sizeof(int));
    /* B = 1: the mask is (T, T), the same in every layer */
    memcpy(d->tf_mask, tr->dec[0].sa.mask, (size_t)T * T * sizeof(float));
    double sum = 0;
    d->tf_right = 0;
    for (int i = 0; i < T; i++) {
        d->tf_pred_p[i] = tr->probs[(size_t)i * V + d->tf_pred[i]];
        sum += d->tf_loss[i];
        d->tf_right += d->tf_pred[i] == d->tf_truth[i];
    }
    d->tf_mean_loss = (float)(sum / T);
    return 0;
}

static void compute_rest(const Scene *sc, DecodeUi *d);

static void compute(const Scene *sc, DecodeUi *d)
{
    TfErr err;
    dec_gen_stop(d); /* an edit or a new forcing cancels the generation in flight */
    dec_sample_stop(&d->smp); /* ... and a draw of the sampling pane */
    d->version = sc->version;
    d->batch = sc->batch;
    d->err[0] = 0;
    d->tf_n = 0;
    d->tf_wait = 0;
    d->tfo_on = d->tfo_done = 0; /* the pass in d->tr is no longer one to read */
    d->smp.lg_on = 0;             /* nor the bars' pass and logits, made from d->src and */
    d->smp.logits_at = -1;        /* d->tr.exp (a new sentence or experiment keeps version) */
    d->pending = 0; /* also on the early returns below: else every dec_get computed again */
    d->diverge = d->contrast = -1;
    decode_result_free(&d->gen);
    d->beam_version = 0; /* the beam follows on demand */
    d->shown = 0;
    d->sel = -1;
    d->playing = 0;
    d->scroll = d->follow = 0;
    if (sc->ses->input_error[0]) {
        snprintf(d->err, sizeof d->err, "%s", sc->ses->input_error);
        if (d->have_traces)
            dec_exp_apply(sc, d); /* nothing to decode under it, but it is the one asked for */
        return;
    }
    if (ensure_traces(sc, d, &err)) {
        snprintf(d->err, sizeof d->err, "%s", err.msg);
        return;
    }
    int b = sc->batch >= 0 && sc->batch < sc->n_src ? sc->batch : 0;
    d->S = sc->ses->src_n[b] < dec_cap(d) ? sc->ses->src_n[b] : dec_cap(d);
    memcpy(d->src, sc->ses->src_ids[b], (size_t)d->S * sizeof(int));
    d->max_out = decode_max_out(sc->model, &d->tr, d->S);
    d->start_id = cfg_start_id(&sc->model->cfg);
    d->eos_id = cfg_eos_id(&sc->model->cfg);
    dec_exp_apply(sc, d); /* the experiment, unless D shows the normal pass */
    /* the session's own greedy decoding, unless forced tokens or an experiment change it */
    int from = d->smp.force.n_force || !tf_exp_is_none(&d->tr.exp) ? -1 : dec_from_session(sc, d, b);
    if (from == 0) /* 1 taken, 0 still decoding, -1 do it here */
        return;
    if (from < 0 && dec_gen_start(sc, d, &err)) /* greedy, with the tokens the learner forced */
        snprintf(d->err, sizeof d->err, "%s", err.msg);
    else if (from > 0)
        compute_rest(sc, d);
}

/* With the generation in d->gen: teacher forcing beside it. */
static void compute_rest(const Scene *sc, DecodeUi *d)
{
    TfErr err;
    int b = d->batch >= 0 && d->batch < sc->n_src ? d->batch : 0;
    /* the target: typed by the learner, else the model's own greedy output */
    d->ref = b == 0 && !sc->ses->tgt_auto;
    int rc;
    if (d->ref) {
        rc = teacher_force(sc, d, sc->ses->tgt_ids[0] + 1, sc->ses->tgt_n[0] - 1, &err);
    } else {
        int n = d->gen.n;
        if (n > 0 && d->gen.ids[n - 1] == d->eos_id)
            n--;
        rc = teacher_force(sc, d, d->gen.ids, n, &err);
    }
    if (rc) {
        snprintf(d->err, sizeof d->err, "%s", err.msg);
        return;
    }
    if (d->tf_wait || d->tfo_on) /* the session's pass or the view's: drawn when complete */
        return;
    find_divergence(d);
    d->shown = d->gen.n;
    d->sel = d->gen.n - 1;
    d->sel_auto = 1;
    if (d->smp.force.n_force && d->smp.force_sel >= 0 && d->smp.force_sel < d->gen.n) {
        d->sel = d->smp.force_sel; /* the step just forced */
        d->sel_auto = 0;
    }
    int L = sc->model->cfg.n_dec;
    if (d->layer >= L)
        d->layer = L - 1;
}

static void compute_beam(const Scene *sc, DecodeUi *d)
{
    TfErr err;
    d->beam_version = d->version;
    d->beam_batch = d->batch;
    d->beam_for_k = d->beam_k;
    d->beam_for_alpha = DEC_ALPHAS[d->alpha_i];
    d->beam_err[0] = 0;
    d->beam_x0 = 0;
    dec_beam_stop(d);
    beam_result_free(&d->beam);
    if (d->err[0] || d->S < 1)
        return;
    if (ensure_beam_trace(d, &err)) {
        snprintf(d->beam_err, sizeof d->beam_err, _("no room for beam search: %s"), err.msg);
        return;
    }
    if (dec_beam_start(sc, d, &err)) /* it runs a few steps a frame */
        snprintf(d->beam_err, sizeof d->beam_err, "%s", err.msg);
}

DecodeUi *dec_get(ViewCtx *v)
{
    const Scene *sc = v->s;
    DecodeUi *d = v->st;
    if (!d->ready) {
        d->ready = 1;
        d->beam_k = 4;
        d->alpha_i = 1; /* 0.6, the paper's value */
        d->layer = sc->model->cfg.n_dec - 1; /* the last layer: its cross-
                                                attention aligns best */
        dec_sample_init(&d->smp);
    }
    int started = 0; /* the encoder was this call's step */
    if (d->version != sc->version || d->batch != sc->batch || dec_decoded(sc, d) || dec_exp_changed(sc, d)) {
        compute(sc, d);
        started = d->gen_on && sc->ses->lazy;
        if (started && v->out)
            v->out->wake_at = sc->now; /* its steps from the next frame on */
    }
    if (d->tf_wait && session_pass_ready(sc->ses, NULL, NULL))
        compute_rest(sc, d); /* the session's teacher forcing is complete */
    if (d->tfo_on && !started) { /* the view's own, a budget a frame */
        TfErr err;
        int rc = dec_tf_advance(sc, d, SES_BUDGET, &err);
        if (rc < 0)
            snprintf(d->err, sizeof d->err, "%s", err.msg);
        else if (rc > 0)
            compute_rest(sc, d);
    }
    if (d->gen_on && !started) { /* the view's own generation, a budget a frame */
        TfErr err;
        int rc = dec_gen_advance(v, d, &err);
        if (rc < 0)
            snprintf(d->err, sizeof d->err, "%s", err.msg);
        else if (rc > 0)
            compute_rest(sc, d);
    }
    if (d->tfo_on && v->out) /* begun or still running: its next pieces next frame */
        v->out->wake_at = sc->now;
    if (d->smp.sdec_on && !started)
        dec_sample_advance(sc, d, v->out);
    if (d->pane == DEC_PANE_BEAM &&
        (d->beam_version != d->version || d->beam_batch != d->batch ||
         d->beam_for_k != d->beam_k || d->beam_for_alpha != DEC_ALPHAS[d->alpha_i])) {
        compute_beam(sc, d);
        if (d->beam_on && sc->ses->lazy) { /* the encoder was this call's step */
            if (v->out)
                v->out->wake_at = sc->now;
            return d;
        }
    }
    if (d->pane == DEC_PANE_BEAM)
        dec_beam_advance(v, d);
    return d;
}

static void view_decode_free(void *st)
{
    DecodeUi *d = st;
    if (d->have_traces)
        trace_free(&d->tr);
    if (d->have_btr)
        trace_free(&d->btr);
    dec_gen_stop(d);
    decode_result_free(&d->gen);
    dec_beam_stop(d);
    beam_result_free(&d->beam);
    dec_beam_free(d);
    dec_sample_free(&d->smp);
}

/* ---- actions ---- */

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

void dec_step(DecodeUi *d)
{
    show_generation(d);
    d->playing = 0;
    if (d->shown >= d->gen.n) { /* at the end: start again from <bos> */
        dec_restart(d);
        return;
    }
    d->shown++;
    d->sel = d->shown - 1;
    d->follow = 1;
}

void dec_play(ViewCtx *v, DecodeUi *d)
{
    show_generation(d);
    if (d->playing) {
        d->playing = 0;
        return;
    }
    if (d->gen.n < 1)
        return;
    if (d->shown >= d->gen.n)
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

void dec_set_beam(ViewCtx *v, DecodeUi *d, int k, int alpha_i)
{
    d->beam_k = k < 1 ? DEC_MAX_BEAM : k > DEC_MAX_BEAM ? 1 : k;
    d->alpha_i = ((alpha_i % DEC_N_ALPHA) + DEC_N_ALPHA) % DEC_N_ALPHA;
    d->pane = DEC_PANE_BEAM;
    d->playing = 0;
    dec_get(v); /* search now, so what the key changed is there to read */
}

/* The generated step the model was least sure of (the lowest probability
 * of the token it chose, forced steps aside; the first of equals), or -1. */
static int least_sure_step(const DecodeUi *d)
{
    int best = -1;
    for (int i = 0; d->gen.steps && i < d->gen.n; i++)
        if (!d->gen.steps[i].forced && (best < 0 || d->gen.steps[i].prob < d->gen.steps[best].prob))
            best = i;
    return best;
}

/* Show pane p. The Sampling pane, entered while the inspected step is
 * still the one generation ended on (where the model is usually sure of
 * <eos>), inspects the step it was least sure of instead: where a draw
 * can go another way. */
static void set_pane(ViewCtx *v, DecodeUi *d, DecPane p)
{
    d->pane = p;
    dec_get(v);
    if (p == DEC_PANE_SAMPLE && d->sel_auto && !d->pending && !d->tf_wait && !d->tfo_on) {
        int s = least_sure_step(d);
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
    set_pane(v, d, (DecPane)p);
    return 0;
}

/* Play: reveal the next token when its time has come, and keep the window
 * waking up until the last one. */
static void advance_play(ViewCtx *v, DecodeUi *d)
{
    const Scene *sc = v->s;
    if (!d->playing)
        return;
    if (sc->now >= d->next_at) {
        if (d->shown < d->gen.n) {
            d->shown++;
            d->sel = d->shown - 1;
            d->follow = 1;
        }
        d->next_at = sc->now + DEC_PACE;
        if (d->shown >= d->gen.n)
            d->playing = 0;
    }
    /* ask the window loop for a frame when the next token is due, unless
     * one is asked for sooner (the beam search's next steps) */
    if (d->playing && !(v->out->wake_at > 0 && v->out->wake_at <= d->next_at))
        v->out->wake_at = d->next_at;
}

static int view_decode_act(ViewCtx *v, ViewAct act, int arg)
{
    const Scene *sc = v->s;
    DecodeUi *d = dec_get(v);
    if (!d)
        return 0;
    int L = sc->model->cfg.n_dec;
    if (d->pane == DEC_PANE_SAMPLE && dec_sample_act(v, d, act, arg))
        return 1;
    switch (act) {
    case VA_UNFORCE: /* with no forced token the key is free */
        if (!d->smp.force.n_force)
            return 0;
        dec_unforce(d);
        return 1;
    case VA_STEP: dec_step(d); return 1;
    case VA_PLAY: dec_play(v, d); return 1;
    case VA_RESTART: dec_restart(d); return 1;
    case VA_MOVE: dec_select(d, d->sel + arg); return 1;
    case VA_FIRST: dec_select(d, 0); return 1;
    case VA_LAST: dec_select(d, d->shown - 1); return 1;
    case VA_BEAM: dec_set_beam(v, d, d->beam_k + arg, d->alpha_i); return 1;
    case VA_ALPHA: dec_set_beam(v, d, d->beam_k, d->alpha_i + 1); return 1;
    case VA_PANE:
        set_pane(v, d, (DecPane)((d->pane + (arg < 0 ? DEC_PANE_COUNT - 1 : 1)) % DEC_PANE_COUNT));
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
    Gfx *g = f->v->g;
    int w = 2 * f->gap + ui_flow_button_w(g, step) + ui_flow_button_w(g, play) + ui_flow_button_w(g, again);
    return back ? w + f->gap + ui_flow_button_w(g, "◀") : w;
}

static void draw_bar_gen(UiFlow *f, DecodeUi *d)
{
    const Theme *th = f->v->th;
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
        dec_step(d);
    if (ui_flow_button(f, play, d->playing))
        dec_play(f->v, d);
    if (ui_flow_button(f, again, 0))
        dec_restart(d);
    if (d->pending || d->tf_wait || d->tfo_on) /* still computing: the progress mark says how far */
        return;
    if (d->smp.force.n_force && ui_flow_button(f, _("Unforce  F"), 1))
        dec_unforce(d);
    char buf[160];
    int n = d->gen.n;
    int ended = n > 0 && d->gen.ids[n - 1] == d->eos_id;
    if (d->shown < n)
        snprintf(buf, sizeof buf, _("%d of %d tokens generated"), d->shown, n);
    else if (ended)
        snprintf(buf, sizeof buf, _("all %d tokens generated, <eos> included"), n);
    else
        snprintf(buf, sizeof buf, _("%d tokens and no <eos>: stopped at the maximum length"), n);
    /* the count only when it fits on the line; the warning always */
    int w = ren_text_width(f->v->g->small, buf) + ui_px(f->v->g, 4);
    if (f->x + w <= f->rc.x + f->rc.w || (d->shown >= n && !ended))
        ui_flow_text(f, buf, d->shown < n || ended ? th->dim : th->warn);
}

/* The beam's settings: a button per size and per α when the sizes fit on a
 * line; else, on one line, − K + and the α in use (a click takes the next
 * one, as A does), under the name "K" when "beam size" leaves no room. */
static void draw_bar_beam(UiFlow *f, DecodeUi *d)
{
    char buf[32];
    Gfx *g = f->v->g;
    Color dim = f->v->th->dim;
    const char *size = _("beam size"), *name = _("length penalty α");
    int all = ui_flow_text_w(g, size);
    for (int k = 1; k <= DEC_MAX_BEAM; k++) {
        snprintf(buf, sizeof buf, "%d", k);
        all += f->gap + ui_flow_button_w(g, buf);
    }
    if (all <= f->rc.w) {
        ui_flow_text(f, size, dim);
        for (int k = 1; k <= DEC_MAX_BEAM; k++) {
            snprintf(buf, sizeof buf, "%d", k);
            if (ui_flow_button(f, buf, d->beam_k == k))
                dec_set_beam(f->v, d, k, d->alpha_i);
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
                dec_set_beam(f->v, d, d->beam_k, i);
        }
        return;
    }
    snprintf(buf, sizeof buf, "%g", DEC_ALPHAS[d->alpha_i]);
    int rest = 5 * f->gap + ui_flow_button_w(g, "−") + ui_flow_button_w(g, "8") + ui_flow_button_w(g, "+") + ui_px(g, 10) +
               ui_flow_text_w(g, "α") + ui_flow_button_w(g, buf);
    ui_flow_break(f);
    ui_flow_text(f, ui_flow_text_w(g, size) + rest <= f->rc.w ? size : "K", dim);
    if (ui_flow_button(f, "−", 0) && d->beam_k > 1)
        dec_set_beam(f->v, d, d->beam_k - 1, d->alpha_i);
    char k[8];
    snprintf(k, sizeof k, "%d", d->beam_k);
    ui_flow_button(f, k, 1);
    if (ui_flow_button(f, "+", 0) && d->beam_k < DEC_MAX_BEAM)
        dec_set_beam(f->v, d, d->beam_k + 1, d->alpha_i);
    f->x += ui_px(g, 10);
    ui_flow_text(f, "α", dim);
    if (ui_flow_button(f, buf, 1))
        dec_set_beam(f->v, d, d->beam_k, d->alpha_i + 1);
}

static const char *KEYS_GEN =
    N_("S step · P play/pause · R restart · ←/→ inspect a step (or click it) · "
    "[ ] layer · 1-9 head, 0 average · Tab next pane");
static const char *KEYS_BEAM =
    N_("B beam size (Shift+B back) · A length penalty · the wheel scrolls the tree · "
    "hover a node for its numbers · Tab next pane");

static const char *KEYS_SAMPLE =
    N_("T temperature up (Shift+T down) · K top-k · U top-p · N sample · ←/→ the step whose next token is shown · "
       "Tab next pane");

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
        set_pane(f->v, d, (DecPane)to);
}

/* The table with the step below it, or the table alone and a pointer to
 * the "One step" pane when the window is too small for both. */
static void draw_pane_gen(ViewCtx *v, DecodeUi *d, Rect body)
{
    const Theme *th = v->th;
    int gap = ui_px(v->g, 10);
    int step_min = dec_step_min_height(v);
    int table_h = dec_table_height(v, d, body.w);
    int rh = ren_font_height(v->g->ui) + ui_px(v->g, 6);
    int rows_min = d->tf_n < 4 ? d->tf_n : 4; /* a table worth reading */
    int table_min = table_h - (d->tf_n > d->gen.n ? d->tf_n : d->gen.n) * rh + rows_min * rh;
    if (table_min + gap + step_min > body.h) {
        RenFont *f = v->g->small;
        int fh = ren_font_height(f);
        dec_table_draw(v, d, (Rect){body.x, body.y, body.w, body.h - fh - gap});
        if (d->sel >= 0) {
            char buf[3][300];
            const char *tok = dec_tok(v->s, d->gen.ids[d->sel]);
            snprintf(buf[0], sizeof buf[0], _("Step %d → '%s': its attention and top-k are in One step (Tab)"),
                     d->sel + 1, tok);
            snprintf(buf[1], sizeof buf[1], _("Step %d → '%s': see One step (Tab)"), d->sel + 1, tok);
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
    Rect area = v->area;
    if (!d) {
        ui_paragraph(v->r, v->g->ui, _("out of memory for the decode view"), area.x + 10,
                     area.y + 10, area.w - 20, th->warn);
        return;
    }
    advance_play(v, d);
    if (d->gen_on || d->smp.sdec_on) /* decoding a step a frame (a draw may start below) */
        v->out->wake_at = v->s->now;
    int pad = ui_px(v->g, 4);
    /* the pane tabs and the pane's controls, wrapping when narrow */
    UiFlow f = ui_flow(v, (Rect){area.x, area.y + pad, area.w, area.h});
    int rh = ren_font_height(v->g->ui) + ui_px(v->g, 6); /* a table row */
    draw_tabs(v, &f, d, area.h >= 14 * rh); /* short: every line of tabs is a row less */
    if (d->pane == DEC_PANE_BEAM)
        draw_bar_beam(&f, d);
    else if (d->pane == DEC_PANE_SAMPLE)
        dec_sample_bar(&f, d);
    else
        draw_bar_gen(&f, d);
    if (d->smp.sdec_on) /* Sample may have been pressed just now */
        v->out->wake_at = v->s->now;
    int top = area.y + pad + ui_flow_height(&f) + ui_px(v->g, 8);
    top += dec_exp_line(v, d, area.x, top, area.w); /* with an experiment: before → after */
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
    if (d->err[0]) {
        ui_paragraph(v->r, v->g->ui, d->err, body.x + 10, body.y + 10, body.w - 20, th->warn);
        return;
    }
    if ((d->pending || d->tf_wait || d->tfo_on) && d->pane != DEC_PANE_BEAM) {
        ren_clip_push(v->r, body); /* a long output's tokens stop above the keys */
        dec_draw_progress(v, d, body);
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
                                 view_decode_free, VIEW_NEED_PACED, 0};
