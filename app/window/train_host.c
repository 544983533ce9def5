/* train_host.c - the window's side of the train view (see train_host.h):
 * the worker and the probe, what the view is shown, what it asked for.
 *
 * A frame of the train view runs:
 *
 *     app_train_update   take what the worker published, the probe's pass
 *                        with it (while training, a new pass waits a
 *                        frame when the curves are new: one costly redraw
 *                        a frame), tell the worker which step to show,
 *                        apply settled settings, fill the TrainShow, ask
 *                        for the next frame
 *     the view draws     from Scene.train, leaving wishes in its state
 *     app_train_apply    the wishes: commands to the worker, the snapshot
 *                        shown, the model opened in Decode, notices */
#include "train_host.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert((int)TV_STOPPED == (int)TW_STOPPED && (int)TV_RUNNING == (int)TW_RUNNING &&
                   (int)TV_EMPTY == (int)TW_EMPTY,
               "the view's states are the worker's");
_Static_assert(TV_HH_CAP == TP_HH_CAP && TV_HH_HEADS == TP_HH_HEADS && (int)TV_ATTN_COUNT == (int)TP_ATTN_COUNT,
               "the view reads the probe's head-entropy history as it is laid out");
_Static_assert(TV_LOG_CAP >= TW_LOG_CAP && TV_EVAL_CAP >= TW_EVAL_CAP && TV_SNAP_CAP >= TW_SNAP_CAP &&
                   TV_CAP_T == TP_CAP_T && TV_PATH_MAX <= TW_PATH_MAX && TV_PATH_MAX == SES_TEXT_MAX,
               "the view's room holds what the worker publishes");

static TrainUi *view_ui(App *a)
{
    return tv_state(a->vstate[VIEW_TRAIN]);
}

TrainHost *app_train(App *a)
{
    if (a->train)
        return a->train;
    TrainHost *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    h->want_snap = h->want_sent = -1;
    a->train = h;
    return h;
}

void app_train_free(App *a)
{
    TrainHost *h = a->train;
    if (!h)
        return;
    tw_free(h->w); /* queued saves are written first (the pass lent goes with it) */
    free(h);
    a->train = NULL;
}

static void busy(App *a)
{
    app_notice(a, 1, "%s", _("the training thread is busy: try again in a moment"));
}

static int ensure_worker(App *a, TrainHost *h)
{
    if (h->w)
        return 0;
    TfErr err;
    h->w = tw_new(&err);
    if (!h->w) {
        snprintf(h->err, sizeof h->err, _("the training thread could not start: %s"), err.msg);
        app_notice(a, 1, "%s", h->err);
        return -1;
    }
    return 0;
}

/* ---- the worker's messages, in the window's language ---- */

static void msg_text(const TwStatus *st, char *buf, size_t cap)
{
    const char *t = st->msg_text;
    long long n0 = st->msg_n[0], n1 = st->msg_n[1];
    switch (st->msg) {
    case TW_MSG_NO_PATH: snprintf(buf, cap, "%s", _("type the path of a TSV file first (F)")); break;
    case TW_MSG_NO_PAIRS: snprintf(buf, cap, _("%s: no training pairs"), t); break;
    case TW_MSG_SKIPPED_LINES:
        snprintf(buf, cap,
                 n0 == 1 ? _("%s: skipped %lld line that could not be used (no tab, an empty side, longer than "
                             "%lld tokens, ...)")
                         : _("%s: skipped %lld lines that could not be used (no tab, an empty side, longer than "
                             "%lld tokens, ...)"),
                 t, n0, n1);
        break;
    case TW_MSG_STOPPED: snprintf(buf, cap, _("training stopped: %s"), t); break;
    case TW_MSG_EVAL_FAILED: snprintf(buf, cap, _("held-out check failed: %s"), t); break;
    case TW_MSG_SNAP_NO_MEMORY: snprintf(buf, cap, _("out of memory for a snapshot at step %lld"), n0); break;
    case TW_MSG_NOTHING_TO_SAVE: snprintf(buf, cap, "%s", _("nothing to save yet: start training first")); break;
    case TW_MSG_SAVE_FAILED: snprintf(buf, cap, _("could not save the model (training goes on): %s"), t); break;
    case TW_MSG_SAVED:
        snprintf(buf, cap, _("saved %s (step %lld, with the optimizer state: stepformer train --resume continues it)"),
                 t, n0);
        break;
    default: snprintf(buf, cap, "%s", t); break; /* the engine's reason */
    }
}

/* ---- the settings of the next run ---- */

static void current_spec(App *a, TwSpec *s)
{
    TrainChoice c;
    tv_choice(view_ui(a), &c);
    tw_spec_default(s);
    snprintf(s->task, sizeof s->task, "%s", c.task);
    if (!c.task[0]) {
        snprintf(s->path, sizeof s->path, "%s", c.path ? c.path : "");
        s->tokens_char = c.tokens_char;
    }
    s->d_model = c.d_model;
    s->n_heads = c.n_heads;
    s->n_layers = c.n_layers;
    s->d_ff = c.d_ff;
    s->o.warmup = c.warmup;
    s->o.lr_scale = c.lr_scale;
}

/* Do the settings differ from those of the current run? */
static int settings_differ(App *a, const TrainHost *h)
{
    if (!h->have_applied)
        return 1;
    TwSpec s;
    current_spec(a, &s);
    const TwSpec *r = &h->applied;
    return strcmp(s.task, r->task) || strcmp(s.path, r->path) || s.tokens_char != r->tokens_char ||
           s.d_model != r->d_model || s.n_heads != r->n_heads || s.n_layers != r->n_layers ||
           s.d_ff != r->d_ff || s.o.warmup != r->o.warmup || s.o.lr_scale != r->o.lr_scale;
}

/* A new run from the settings, paused at step 0. Returns 0 or -1. */
static int setup_run(App *a, TrainHost *h)
{
    TfErr err;
    if (ensure_worker(a, h))
        return -1;
    TwSpec s;
    current_spec(a, &s);
    if (s.path[0] && tw_data_file_check(s.path, &err)) { /* the current run stays */
        app_notice(a, 1, "%s", err.msg);
        return -1;
    }
    if (tw_setup(h->w, &s, &err)) {
        busy(a);
        return -1;
    }
    h->applied = s;
    h->have_applied = 1;
    h->msg_kept = 0;
    h->want_snap = -1;
    h->wake_until = a->now + 1.0;
    return 0;
}

/* Apply the settings once they have settled: a run that has not trained
 * follows them, a trained one waits for Reset. */
static void settle(App *a, TrainHost *h)
{
    TrainUi *u = view_ui(a);
    if (h->apply_at <= 0 || a->now < h->apply_at)
        return;
    if (ui_editing(&a->ui, u->path))
        return; /* still typing */
    h->apply_at = 0;
    if (h->st.step > 0 || h->st.state == TW_RUNNING)
        return;
    if (u->task == TV_TASK_FILE && !u->path[0])
        return;
    if (settings_differ(a, h))
        setup_run(a, h);
}

/* ---- what the worker published ---- */

/* Take what the worker published (its news as a notice) and the probe's
 * newest pass. While training, a frame that gets new curves leaves a new
 * pass for the next frame, which is asked for at once: each redraws a
 * layer, and together they made the slow frames. */
static void pull(App *a, TrainHost *h, int wait)
{
    TwStatus *st = &h->st;
    h->ran_pass = 0;
    if (!h->w)
        return;
    TwState before = st->state;
    uint64_t gen = st->gen;
    int got = tw_take(h->w, st, &h->pass, !wait, wait);
    int fresh = got & TW_TOOK_STATUS;
    if (fresh) {
        if (st->msg_seq != h->msg_seen) {
            char buf[TV_MSG_MAX];
            h->msg_seen = st->msg_seq;
            msg_text(st, buf, sizeof buf);
            app_notice(a, st->msg_error, "%s", buf);
            h->msg_kept = st->msg_error;
        }
        if (st->state != before)
            h->wake_until = a->now + 0.5;
        if (st->gen != gen) { /* a new run is shown live (said again: a
                                 snapshot asked for meanwhile was of the old run) */
            h->want_snap = -1;
            h->want_sent = -2;
        }
    }
    if (got)
        h->due = (got & TW_PASS_WAITS) != 0;
    /* a pass without new curves (those redraw the plots anyway) */
    h->ran_pass = !fresh && (got & TW_TOOK_PASS);
}

/* The snapshot kept nearest to `step`. */
static long long nearest_snap(const TwStatus *st, long long step)
{
    long long best = -1;
    for (int i = 0; i < st->n_snap; i++)
        if (best < 0 || llabs(st->snaps[i].step - step) < llabs(best - step))
            best = st->snaps[i].step;
    return best;
}

/* Tell the worker the step to show (a kept snapshot, or live). */
static void ask_shown(TrainHost *h)
{
    if (!h->w)
        return;
    if (h->want_snap >= 0)
        h->want_snap = nearest_snap(&h->st, h->want_snap);
    if (h->want_snap != h->want_sent) {
        tw_show(h->w, h->want_snap);
        h->want_sent = h->want_snap;
    }
}

/* Does the view wait for the worker's probe (a snapshot asked for, a
 * paused run's pass or greedy output)? */
static int probe_waits(const TrainHost *h)
{
    const TwStatus *st = &h->st;
    const TpOut *o = &st->probe;
    if (!h->w || !o->have || o->err[0] || o->gen != st->gen || st->state == TW_BUILDING)
        return 0;
    long long shown = h->pass && h->pass->gen == o->gen ? h->pass->step : -1;
    if (o->decoding)
        return 1;
    if (h->want_snap >= 0)
        return shown != h->want_snap;
    return st->state != TW_RUNNING && (shown != st->step || o->out_step != shown);
}

/* ---- the show ---- */

static void show_run(TrainShow *t, const TrainHost *h, int differ)
{
    const TwStatus *st = &h->st;
    t->gen = st->gen;
    t->seq = st->seq;
    t->state = (TvState)st->state;
    t->step = st->step;
    t->epoch = st->last.epoch;
    t->tok_s = (float)st->last.tokens_per_s;
    snprintf(t->data_name, sizeof t->data_name, "%s", st->data_name);
    t->n_train = st->n_train;
    t->n_heldout = st->n_heldout;
    t->n_params = st->n_params;
    t->cfg = st->cfg;
    t->batch = st->o.batch;
    t->warmup = st->o.warmup;
    t->lr_scale = st->o.lr_scale;
    snprintf(t->probe_src, sizeof t->probe_src, "%s", st->probe_src);
    snprintf(t->probe_ref, sizeof t->probe_ref, "%s", st->probe_ref);
    t->err = h->err;
    t->msg[0] = 0;
    if (h->msg_kept) /* worded each frame: Z switches the language */
        msg_text(st, t->msg, sizeof t->msg);
    t->stopped = h->msg_kept && st->msg == TW_MSG_STOPPED;
    t->differ = differ;
}

static void show_curves(TrainShow *t, const TwStatus *st)
{
    t->n_log = st->n_log;
    for (int i = 0; i < st->n_log; i++) {
        const TwPoint *p = &st->log[i];
        t->log[i] = (TvPoint){p->step, p->loss, p->acc, p->tok_s, p->n};
    }
    t->n_eval = st->n_eval;
    for (int i = 0; i < st->n_eval; i++) {
        const TwEval *e = &st->evals[i];
        t->evals[i] = (TvEval){e->step, e->loss, e->acc, e->exact};
    }
    t->n_snap = st->n_snap;
    for (int i = 0; i < st->n_snap; i++)
        t->snaps[i] = st->snaps[i].step;
}

/* The schedule lrate = scale · d_model^-0.5 · min(step^-0.5, step ·
 * warmup^-1.5) over its own axis: long enough to show the warm-up peak
 * and the decay after it, or the whole run when that is longer. */
static void show_schedule(TrainShow *t, const TwStatus *st)
{
    int C = st->cfg.d_model > 0 ? st->cfg.d_model : 1, W = st->o.warmup > 0 ? st->o.warmup : 1;
    double scale = st->o.lr_scale;
    t->lr_x1 = fmax(3.0 * W, 1.15 * (double)st->step);
    t->lr_peak = lr_schedule(C, W, scale, W);
    t->lr_now = st->step > 0 ? lr_schedule(C, W, scale, st->step) : 0;
    for (int i = 0; i <= TV_LR_N; i++)
        t->lr[i] = (float)lr_schedule(C, W, scale, (long long)(1 + (t->lr_x1 - 1) * i / TV_LR_N));
}

static void show_probe(TrainShow *t, const TrainHost *h)
{
    const TpOut *o = &h->st.probe;
    const TpPass *q = h->pass;
    const TpHeadHist *hh = &o->hh;
    int have = o->have && q && q->gen == o->gen && q->have_tr && q->have_labels;
    t->want_snap = h->want_snap;
    t->probe = (TvProbe){.have = have, .model = have ? &q->labels : NULL, .trace = have ? &q->tr : NULL,
                         .step = have ? q->step : -1, .gen = o->gen, .ver = have ? q->ver : 0, .ref = o->ref,
                         .ref_n = o->ref_n, .out = o->out, .out_n = o->out_n, .out_step = o->out_step,
                         .decoding = o->decoding, .dec_t = o->dec_t, .dec_max = o->dec_max, .err = o->err};
    t->hh = (TvHeads){.n = hh->n, .step = hh->step, .H = &hh->H[0][0][0], .max = hh->H_max,
                      .gen = hh->gen, .ver = h->hh_shown};
    for (int k = 0; k < TV_ATTN_COUNT; k++)
        t->hh.heads[k] = o->have ? o->heads[k] : 0;
}

/* Frames while training (the worker publishes every TH_WAKE s), at once
 * when a pass waits or the plots are late, and every TH_POLL s while the
 * view waits for the worker's probe. */
static void wake(App *a, TrainHost *h, int late)
{
    double at = 0;
    int busy_run = h->st.state == TW_RUNNING || h->st.state == TW_BUILDING;
    if (busy_run || a->now < h->wake_until)
        at = a->now + TH_WAKE;
    if (probe_waits(h))
        at = a->now + TH_POLL;
    if (h->due || late)
        at = a->now;
    if (at > 0)
        a->wake_at = at;
}

void app_train_update(App *a)
{
    TrainHost *h = app_train(a);
    if (!h || !view_ui(a))
        return;
    /* without threads (the browser) the trainer runs here, a slice of each
     * frame, and asks for the next frame at once while it has work */
    if (h->w && tw_pump(h->w, TH_PUMP_S))
        a->wake_at = a->now;
    pull(a, h, 0);
    if (!h->w && !h->err[0])
        setup_run(a, h); /* show the model it would train, at step 0 */
    settle(a, h);
    ask_shown(h);
    /* a frame that took a new pass does not redraw the plots for the head
     * entropy that came with it too (the next frame does) */
    unsigned hh_ver = h->st.probe.hh.ver;
    int late = h->hh_shown != hh_ver && h->ran_pass && !h->hh_late;
    if (!late)
        h->hh_shown = hh_ver;
    h->hh_late = late;
    show_run(&h->show, h, settings_differ(a, h));
    show_curves(&h->show, &h->st);
    show_schedule(&h->show, &h->st);
    show_probe(&h->show, h);
    wake(a, h, late);
}

/* ---- the wishes ---- */

static void do_play(App *a, TrainHost *h)
{
    if (ensure_worker(a, h))
        return;
    if (h->st.state == TW_RUNNING) {
        tw_play(h->w, 0);
        h->wake_until = a->now + 0.5;
        pull(a, h, 1);
        return;
    }
    h->apply_at = 0;
    if (h->st.step == 0 && (settings_differ(a, h) || h->st.state == TW_EMPTY))
        setup_run(a, h);
    if (h->msg_kept && h->st.state == TW_STOPPED) {
        app_notice(a, 1, "%s", _("training stopped after an error: change the settings and press Reset (R)"));
        return;
    }
    tw_play(h->w, 1);
    h->want_snap = -1;
    h->wake_until = a->now + 0.5;
    pull(a, h, 1);
}

static void do_step(App *a, TrainHost *h)
{
    TfErr err;
    if (ensure_worker(a, h))
        return;
    h->apply_at = 0;
    if (h->st.step == 0 && (settings_differ(a, h) || h->st.state == TW_EMPTY))
        setup_run(a, h);
    if (tw_steps(h->w, 1, &err))
        busy(a);
    h->want_snap = -1;
    h->wake_until = a->now + 0.5;
}

static void do_reset(App *a, TrainHost *h)
{
    TrainUi *u = view_ui(a);
    if (u->task == TV_TASK_FILE && !u->path[0]) {
        app_notice(a, 1, "%s", _("type the path of a TSV file first (F)"));
        return;
    }
    h->apply_at = 0;
    if (setup_run(a, h) == 0)
        app_notice(a, 0, "%s", _("a new model from random weights"));
}

static void do_save(App *a, TrainHost *h)
{
    TfErr err;
    if (!h->w || h->st.state == TW_EMPTY || h->st.state == TW_BUILDING) {
        app_notice(a, 1, "%s", _("nothing to save yet: start training first"));
        return;
    }
    /* the first save into a folder asks first: it writes a file there */
    if (!h->save_confirmed || strcmp(h->save_ok_dir, h->save_dir) != 0) {
        if (a->now > h->save_armed) {
            h->save_armed = a->now + TH_SAVE_CONFIRM;
            app_notice(a, 0, _("W again saves the model as stepformer-%s-….safetensors in %s"), h->st.data_name,
                       h->save_dir[0] ? h->save_dir : _("the folder the window was started in"));
            return;
        }
        snprintf(h->save_ok_dir, sizeof h->save_ok_dir, "%s", h->save_dir);
        h->save_confirmed = 1;
    }
    h->save_armed = 0;
    if (tw_save_new(h->w, &h->saved, h->save_dir, h->st.data_name, &err))
        busy(a);
    h->wake_until = a->now + 2.0; /* until the worker says how it went */
}

/* The shown parameters become the window's model, and the Decode view
 * opens on the probe sentence with its true translation as the target:
 * teacher forcing beside generation, for a half-trained model too. */
static void do_open(App *a, TrainHost *h)
{
    TfModel m;
    TfErr err;
    long long step = -1;
    if (!h->w || tw_shown_model(h->w, h->st.gen, &m, &step, &err)) {
        app_notice(a, 1, "%s", h->w ? err.msg : _("no model to open yet"));
        return;
    }
    char label[128];
    snprintf(label, sizeof label, _("%s · step %lld"), h->st.data_name, step);
    if (app_use_model(a, &m, label)) /* m freed, the error a notice */
        return;
    app_set_text(a, APP_LINE_SRC, h->st.probe_src);
    app_set_text(a, APP_LINE_TGT, h->st.probe_ref);
    app_update(a);
    ui_focus_clear(&a->ui); /* the path field, if it had the keyboard */
    a->view = VIEW_DECODE;
    a->anim_start = a->now;
    a->redraw_soon = 1;
    app_notice(a, 0, _("the Decode view shows the model of step %lld"), step);
}

/* The previous (delta < 0) or next kept snapshot; past the last, live. */
static void scrub(TrainHost *h, int delta)
{
    const TwStatus *st = &h->st;
    if (st->n_snap < 1)
        return;
    int at = st->n_snap; /* live: one past the last snapshot */
    for (int i = 0; i < st->n_snap && h->want_snap >= 0; i++)
        if (st->snaps[i].step == h->want_snap)
            at = i;
    if (at == st->n_snap && st->snaps[st->n_snap - 1].step == st->step && delta < 0)
        at--; /* the last snapshot is the live step: skip it */
    at += delta;
    if (at < 0)
        at = 0;
    h->want_snap = at >= st->n_snap ? -1 : st->snaps[at].step;
}

void app_train_apply(App *a)
{
    TrainUi *u = view_ui(a);
    if (!u || !u->wish.any)
        return;
    TrainWish w = u->wish;
    memset(&u->wish, 0, sizeof u->wish);
    TrainHost *h = app_train(a);
    if (!h)
        return;
    if (w.settings) {
        h->apply_at = a->now + TH_SETTLE; /* a burst of clicks makes one model */
        h->wake_until = h->apply_at + 0.1;
    }
    if (w.scrub)
        scrub(h, w.scrub);
    if (w.live)
        h->want_snap = -1;
    if (w.pick)
        h->want_snap = w.pick_step;
    if (w.step)
        do_step(a, h);
    if (w.play)
        do_play(a, h);
    if (w.reset)
        do_reset(a, h);
    if (w.save)
        do_save(a, h);
    if (w.open)
        do_open(a, h);
    ask_shown(h);
    wake(a, h, 0);
}

/* ---- for shot, tests and benchmarks (app.h) ---- */

int app_train_setup(App *a, const char *task, long long steps)
{
    TfErr err;
    TrainHost *h = app_train(a);
    TrainUi *u = view_ui(a);
    if (!h || !u || ensure_worker(a, h))
        return -1;
    tv_settings_task(u, task);
    if (a->ses.head == -1)
        u->head = -1;
    setup_run(a, h);
    if (steps > 0 && tw_steps(h->w, steps, &err)) {
        busy(a);
        return -1;
    }
    tw_wait_idle(h->w);
    pull(a, h, 1);
    return h->st.state == TW_PAUSED || h->st.state == TW_STOPPED ? 0 : -1;
}

int app_train_settings(App *a, const char *task, int heads)
{
    TrainUi *u = view_ui(a);
    if (!u)
        return -1;
    tv_settings_task(u, task);
    tv_wish(u, &u->wish.settings);
    return heads ? tv_set_heads(u, heads) : 0;
}

int app_train_start(App *a, TwSpec *s)
{
    TfErr err;
    TrainHost *h = app_train(a);
    if (!h || ensure_worker(a, h) || tw_setup(h->w, s, &err))
        return -1;
    h->applied = *s;
    h->applied.data = NULL;
    h->have_applied = 1;
    tw_play(h->w, 1);
    return 0;
}

void app_train_play(App *a, int on)
{
    TrainHost *h = app_train(a);
    if (h && h->w)
        tw_play(h->w, on);
}
