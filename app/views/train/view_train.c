/* view_train.c - the train view: a Transformer learning in the window.
 *
 * The learner picks a task (copy, reverse, sort, en2zh or their own TSV
 * file of sentence pairs) and a size (a preset, or d_model, heads, layers,
 * d_ff, warm-up and learning-rate scale one by one), then starts training.
 * While the worker thread trains, the view shows the curves (loss,
 * accuracy, the learning-rate schedule with its warm-up, tokens/s) and a
 * probe sentence run through the model of the moment: its greedy output
 * and its attention heads, which start diffuse and sharpen into
 * alignments. Snapshots of the parameters are kept along the way; the
 * timeline scrubs back through them, and any of them can be opened in the
 * Decode view as the window's model, or the current one saved.
 *
 * This file holds the state, what the worker published, the actions and
 * the layout; the other parts are listed in view_train.h.
 *
 * Keys (only while this view is shown): P or Space start/pause, S one step,
 * R reset (a new model from the settings), W save a checkpoint, O open the
 * shown model in the Decode view, Left/Right the previous/next snapshot,
 * Home the first, End live, [ ] layer, 1-9 head, 0 all heads, Tab which
 * attention (Shift+Tab back), D task (Shift+D back), M size preset,
 * X the next setting and , . to change it, F type a file path, C colour map,
 * V curves or attention (a small window shows one at a time). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "file.h"
#include "view_train.h"

/* ---- flow layout and hover (shared with the other files) ---- */

/* ---- the worker and what it published ---- */

static int ensure_worker(ViewCtx *v, TrainUi *u)
{
    if (u->w)
        return 0;
    TfErr err;
    u->w = tw_new(&err);
    if (!u->w) {
        snprintf(u->err, sizeof u->err, "%s", err.msg);
        view_notice(v, 1, "%s", err.msg);
        return -1;
    }
    return 0;
}

/* A new run from the settings, paused at step 0. */
void tv_setup_run(ViewCtx *v, TrainUi *u)
{
    const Scene *sc = v->s;
    TfErr err;
    if (ensure_worker(v, u))
        return;
    TwSpec s;
    tv_spec(u, &s);
    if (s.path[0]) { /* a FIFO or a folder is refused here: the worker never waits on it */
        FILE *f = tf_fopen_regular(s.path, NULL, &err);
        if (!f) {
            view_notice(v, 1, "%s", err.msg);
            return;
        }
        fclose(f);
    }
    if (tw_setup(u->w, &s, &err)) {
        view_notice(v, 1, "%s", err.msg);
        return;
    }
    u->applied = s;
    u->have_applied = 1;
    u->msg[0] = 0;
    u->want_snap = -1;
    u->wake_until = sc->now + 1.0;
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

static void pull_params(ViewCtx *v, TrainUi *u, TwStatus *st, int fresh, int wait);

/* Copy what the worker published; remake the probe for a new run; fetch
 * the parameters to show when they changed, and run the probe on them.
 * While training, a frame does one of the three costly things at most:
 * new curves (a publication), the probe on new parameters, a snapshot
 * into the head-entropy curve; the others wait for the next frames, which
 * the view then asks for at once. */
static void pull(ViewCtx *v, TrainUi *u, int wait)
{
    const Scene *sc = v->s;
    if (!u->w)
        return;
    TwStatus *st = &u->st;
    TwState before = st->state;
    int fresh = tw_status(u->w, st, wait);
    if (fresh) {
        if (st->msg_seq != u->msg_seen) {
            u->msg_seen = st->msg_seq;
            view_notice(v, st->msg_error, "%s", st->msg);
            snprintf(u->msg, sizeof u->msg, "%s", st->msg_error ? st->msg : "");
        }
        if (st->state != before)
            u->wake_until = sc->now + 0.5;
    }
    u->ran_pass = 0;
    if (st->state == TW_BUILDING || st->n_params == 0)
        return;
    unsigned hh0 = u->hh.ver;
    pull_params(v, u, st, fresh, wait);
    /* a snapshot pass, or the probe's heads noted, without new curves
     * (those redraw the plots anyway) */
    u->ran_pass = !fresh && (u->ran_pass || u->hh.ver != hh0);
}

static void pull_params(ViewCtx *v, TrainUi *u, TwStatus *st, int fresh, int wait)
{
    if (st->gen != u->pm_gen)
        tv_probe_new_run(u);
    if (!u->have_pm)
        return;
    int curves = fresh && !wait && st->state == TW_RUNNING; /* this frame draws new curves */
    u->probe_due = 0;
    if (u->want_snap >= 0)
        u->want_snap = nearest_snap(st, u->want_snap);
    long long want = u->want_snap >= 0 ? u->want_snap : st->step;
    if (want == u->shown_step) {
        if (u->gen_step != u->shown_step && st->state != TW_RUNNING && !u->pdec_on)
            tv_probe_greedy(u); /* deferred while a big model trained */
        if (u->pdec_on)
            tv_probe_greedy_steps(u, wait); /* a few steps a frame */
        if (!curves)
            tv_hh_fill(u, 1); /* one snapshot a frame (dozens wait after a pause) */
        return;
    }
    /* While training, the live probe follows at a pace its cost allows
     * (a big model's probe must not take the window's time), not in the
     * frame that draws new curves; a snapshot, or a paused run, is shown
     * at once. */
    double t0 = tf_seconds();
    if (u->want_snap < 0 && st->state == TW_RUNNING && (curves || t0 < u->probe_next)) {
        u->probe_due = curves && t0 >= u->probe_next;
        if (!curves)
            tv_hh_fill(u, 1);
        return;
    }
    long long got;
    float loss;
    tv_probe_greedy_cancel(u); /* pm gets other parameters */
    if (tw_params(u->w, u->pm_gen, u->want_snap >= 0 ? want : -1, u->pm.block, u->pm.n_params,
                  &got, &loss) == 0) {
        u->shown_step = got;
        u->shown_loss = loss;
        /* greedy decoding reruns the decoder per token: for a big model
         * it waits until training pauses */
        tv_probe_run(u, st->state != TW_RUNNING || u->greedy_cost < TV_GREEDY_MAX);
        u->ran_pass = 1;
        if (wait && u->pdec_on)
            tv_probe_greedy_steps(u, 1); /* tests and tools see it whole */
        tv_hh_note(u); /* its heads' entropy, for the curve */
    }
    double cost = tf_seconds() - t0;
    u->probe_next = t0 + fmin(TV_PROBE_SHARE * cost, 5.0);
}

TrainUi *tv_get(ViewCtx *v)
{
    TrainUi *u = v->st;
    if (!u->ready) {
        u->ready = 1;
        u->hh.show = 1; /* the head-entropy curve in the fourth plot */
        tv_settings_init(u);
        u->want_snap = -1;
        u->shown_step = -1;
        u->layer = -1; /* the last layer, once the model is known */
    }
    pull(v, u, 0);
    return u;
}

/* The window clears a focus on u->path before it frees the state. */
static void view_train_free(void *st)
{
    TrainUi *u = st;
    tw_free(u->w); /* queued saves are written first */
    tv_probe_free(u);
    tv_hh_free(u);
    model_free(&u->opened);
}

/* ---- actions ---- */

void tv_play(ViewCtx *v, TrainUi *u)
{
    const Scene *sc = v->s;
    if (ensure_worker(v, u))
        return;
    if (u->st.state == TW_RUNNING) {
        tw_play(u->w, 0);
        u->wake_until = sc->now + 0.5;
        pull(v, u, 1);
        return;
    }
    u->apply_at = 0;
    if (u->st.step == 0 && (tv_settings_differ(u) || u->st.state == TW_EMPTY))
        tv_setup_run(v, u);
    if (u->msg[0] && u->st.state == TW_PAUSED && strstr(u->msg, "training stopped")) {
        view_notice(v, 1, "%s", _("training stopped after an error: change the settings and press Reset (R)"));
        return;
    }
    tw_play(u->w, 1);
    tv_live(u);
    u->wake_until = sc->now + 0.5;
    pull(v, u, 1);
}

void tv_step(ViewCtx *v, TrainUi *u)
{
    const Scene *sc = v->s;
    TfErr err;
    if (ensure_worker(v, u))
        return;
    u->apply_at = 0;
    if (u->st.step == 0 && (tv_settings_differ(u) || u->st.state == TW_EMPTY))
        tv_setup_run(v, u);
    if (tw_steps(u->w, 1, &err))
        view_notice(v, 1, "%s", err.msg);
    tv_live(u);
    u->wake_until = sc->now + 0.5;
}

void tv_reset(ViewCtx *v, TrainUi *u)
{
    if (u->task == TV_TASK_FILE && !u->path[0]) {
        view_notice(v, 1, "%s", _("type the path of a TSV file first (F)"));
        return;
    }
    u->apply_at = 0;
    tv_setup_run(v, u);
    view_notice(v, 0, "%s", _("a new model from random weights"));
}

void tv_save(ViewCtx *v, TrainUi *u)
{
    const Scene *sc = v->s;
    TfErr err;
    if (!u->w || u->st.state == TW_EMPTY || u->st.state == TW_BUILDING) {
        view_notice(v, 1, "%s", _("nothing to save yet: start training first"));
        return;
    }
    char path[1024];
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    char stem[900];
    snprintf(stem, sizeof stem, "%s%sstepformer-%s-%04d%02d%02d-%02d%02d%02d", u->save_dir,
             u->save_dir[0] ? "/" : "", u->st.data_name, tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
    /* a name no file and no earlier save (maybe still being written) has */
    int k = strcmp(stem, u->last_stem) == 0 ? u->last_seq + 1 : 1;
    for (;; k++) {
        if (k == 1)
            snprintf(path, sizeof path, "%s.safetensors", stem);
        else
            snprintf(path, sizeof path, "%s-%d.safetensors", stem, k);
        if (k >= 1000 || access(path, F_OK) != 0)
            break;
    }
    snprintf(u->last_stem, sizeof u->last_stem, "%s", stem);
    u->last_seq = k;
    if (tw_save(u->w, path, &err))
        view_notice(v, 1, "%s", err.msg);
    u->wake_until = sc->now + 2.0; /* until the worker says how it went */
}

/* The shown parameters become the window's model, and the Decode view
 * opens on the probe sentence with its true translation as the target:
 * teacher forcing beside generation, for a half-trained model too. */
void tv_open(ViewCtx *v, TrainUi *u)
{
    TfErr err;
    if (!u->have_pm || u->shown_step < 0) {
        view_notice(v, 1, "%s", _("no model to open yet"));
        return;
    }
    TfModel *m = &u->opened;
    model_free(m);
    if (model_build(m, &u->pm.cfg, &err)) {
        view_notice(v, 1, "%s", err.msg);
        return;
    }
    memcpy(m->block, u->pm.block, m->n_params * sizeof(float));
    if (vocab_copy(&m->src_vocab, &u->pm.src_vocab, &err) || vocab_copy(&m->tgt_vocab, &u->pm.tgt_vocab, &err)) {
        model_free(m);
        view_notice(v, 1, "%s", err.msg);
        return;
    }
    ViewOut *o = v->out;
    snprintf(o->use_label, sizeof o->use_label, _("%s · step %lld"), u->st.data_name,
             u->shown_step);
    o->use_model = m; /* then, if the window could use it: */
    o->set_src = u->st.probe_src;
    o->set_tgt = u->st.probe_ref;
    o->recompute = 1;
    ui_focus_clear(v->ui); /* the path field, if it had the keyboard */
    view_show(v, VIEW_DECODE);
    view_notice(v, 0, _("the Decode view shows the model of step %lld"), u->shown_step);
}

void tv_live(TrainUi *u)
{
    u->want_snap = -1;
}

void tv_scrub(TrainUi *u, int delta)
{
    const TwStatus *st = &u->st;
    if (st->n_snap < 1)
        return;
    int at = st->n_snap; /* live: one past the last snapshot */
    for (int i = 0; i < st->n_snap && u->want_snap >= 0; i++)
        if (st->snaps[i].step == u->want_snap)
            at = i;
    if (at == st->n_snap && st->snaps[st->n_snap - 1].step == st->step && delta < 0)
        at--; /* the last snapshot is the live step: skip it */
    at += delta;
    if (at < 0)
        at = 0;
    if (at >= st->n_snap)
        u->want_snap = -1;
    else
        u->want_snap = st->snaps[at].step;
}

static void set_layer(TrainUi *u, int layer)
{
    const TfConfig *c = &u->pm.cfg;
    int L = u->attn == TV_ENC ? c->n_enc : c->n_dec;
    if (!u->have_pm || L < 1)
        return;
    u->layer = layer < 0 ? 0 : layer >= L ? L - 1 : layer;
}

static int view_train_act(ViewCtx *v, ViewAct act, int arg)
{
    const Scene *sc = v->s;
    TrainUi *u = tv_get(v);
    if (!u)
        return 0;
    switch (act) {
    case VA_PLAY: tv_play(v, u); return 1;
    case VA_STEP: tv_step(v, u); return 1;
    case VA_RESTART: tv_reset(v, u); return 1;
    case VA_SAVE: tv_save(v, u); return 1;
    case VA_OPEN: tv_open(v, u); return 1;
    case VA_MOVE: tv_scrub(u, arg); return 1;
    case VA_FIRST: tv_scrub(u, -TW_SNAP_CAP - 1); return 1;
    case VA_LAST: tv_live(u); return 1;
    case VA_LAYER: set_layer(u, u->layer + arg); return 1;
    case VA_HEAD:
        if (arg < 0 || (u->have_pm && arg < u->pm.cfg.n_heads))
            u->head = arg;
        return 1;
    case VA_PANE:
        u->attn = (TvAttn)((u->attn + (arg < 0 ? TV_ATTN_COUNT - 1 : 1)) % TV_ATTN_COUNT);
        set_layer(u, u->layer);
        return 1;
    case VA_TASK: tv_set_task(v, u, u->task + arg); return 1;
    case VA_SIZE: tv_set_preset(v, u, tv_preset_of(u) + 1); return 1;
    case VA_FIELD:
        u->custom = 1;
        u->field = (u->field + (arg < 0 ? TVF_COUNT - 1 : 1)) % TVF_COUNT;
        return 1;
    case VA_VALUE: u->custom = 1; tv_set_field(v, u, (TvField)u->field, u->val[u->field] + arg); return 1;
    case VA_FILE: /* next frame: the "f" typed with this key must not land in the field */
        u->focus_path_next = 1;
        return 1;
    case VA_SWAP: u->pane = !u->pane; return 1;
    case VA_ENTROPY: u->hh.show = !u->hh.show; return 1; /* head entropy or tokens/s */
    case VA_CMAP:
        v->out->cmap_prob_set = 1;
        v->out->cmap_prob = (CmapId)((sc->cmap_prob + 1) % CMAP_COUNT);
        view_notice(v, 0, _("colour map: %s"), cmap_name(v->out->cmap_prob));
        return 1;
    default: return 0;
    }
}

/* ---- the view ---- */

/* Before the first model exists, or when it could not be made. */
static void draw_placeholder(ViewCtx *v, TrainUi *u, Rect body)
{
    const char *s = u->st.state == TW_BUILDING ? _("Making the data set and the model…")
                    : u->msg[0] ? _("No model to train: see the message above, change the settings and press Reset (R).")
                                : _("Choose a task and a size, then press Start (P): the model learns here, "
                                          "from random weights, while you watch its loss fall and its attention heads form.");
    ui_paragraph(v->r, v->g->ui, s, body.x + ui_px(v->g, 10), body.y + ui_px(v->g, 10),
                 body.w - ui_px(v->g, 20), v->th->dim);
}

/* Curves and probe side by side when the body is wide enough for the
 * probe's heatmap to be tall, else stacked (curves on top). */
static void draw_body(ViewCtx *v, TrainUi *u, Rect body)
{
    int gap = ui_px(v->g, 14);
    if (!u->have_pm || u->pm_gen != u->st.gen || u->st.state == TW_BUILDING) {
        draw_placeholder(v, u, body);
        return;
    }
    if (u->compact) { /* one pane at a time */
        if (u->pane == 0)
            tv_plots_draw(v, u, body);
        else
            tv_probe_draw(v, u, body);
        return;
    }
    if (body.w >= 1.15f * body.h) {
        int pw = (int)(body.w * 0.5f);
        tv_plots_draw(v, u, (Rect){body.x, body.y, pw - gap / 2, body.h});
        ren_rect(v->r, (Rect){body.x + pw, body.y, 1, body.h}, v->th->border);
        tv_probe_draw(v, u, (Rect){body.x + pw + gap / 2 + 1, body.y, body.w - pw - gap / 2 - 1, body.h});
        return;
    }
    int min_plot = 2 * (ren_font_height(v->g->small) * 2 + ui_px(v->g, 56));
    int ph = (int)(body.h * 0.42f);
    if (ph < min_plot)
        ph = min_plot < body.h / 2 ? min_plot : body.h / 2;
    tv_plots_draw(v, u, (Rect){body.x, body.y, body.w, ph});
    ren_rect(v->r, (Rect){body.x, body.y + ph + gap / 2, body.w, 1}, v->th->border);
    tv_probe_draw(v, u, (Rect){body.x, body.y + ph + gap, body.w, body.h - ph - gap});
}

/* A click outside the path field leaves it; leaving it tries the file. */
static void path_focus(ViewCtx *v, TrainUi *u, Rect field)
{
    int has = ui_editing(v->ui, u->path);
    int clicked = u->path_clicked;
    u->path_clicked = 0;
    if (has && v->in->pressed && !clicked && (field.w == 0 || !ui_over(v->in, field))) {
        ui_focus_clear(v->ui);
        has = 0;
    }
    if (u->path_focus_prev && !has && u->task == TV_TASK_FILE)
        tv_settings_changed(v, u);
    u->path_focus_prev = has;
}

static void view_train(ViewCtx *v)
{
    const Scene *sc = v->s;
    const Theme *th = v->th;
    TrainUi *u = tv_get(v);
    Rect area = v->area;
    if (!u) {
        ui_paragraph(v->r, v->g->ui, _("out of memory for the train view"), area.x + 10, area.y + 10,
                     area.w - 20, th->warn);
        return;
    }
    if (!u->w && !u->err[0])
        tv_setup_run(v, u); /* show the model it would train, at step 0 */
    tv_settings_settled(v, u);
    if (u->focus_path_next) {
        u->focus_path_next = 0;
        tv_focus_path(v, u);
    }
    memset(&u->hit, 0, sizeof u->hit);
    int pad = ui_px(v->g, 4), gap = ui_px(v->g, 8);
    u->compact = area.h < ui_px(v->g, 560) || area.w < ui_px(v->g, 560);
    UiFlow f = ui_flow(v->ui, (Rect){area.x, area.y + pad, area.w, area.h});
    tv_controls_draw(&f, v, u);
    ui_flow_break(&f);
    Rect field = {0, 0, 0, 0};
    if (!u->compact || u->show_settings)
        field = tv_settings_draw(&f, v, u);
    int top = area.y + pad + ui_flow_height(&f) + gap;
    top += tv_summary_draw(v, u, area.x, top, area.w);
    /* the keys at the bottom (two lines at most, one when compact), the
     * timeline above them */
    RenFont *sf = v->g->small;
    const char *keys = sc->tab_keys ? sc->tab_keys : ""; /* the window's command table's */
    int kn = ren_text_wrap(sf, keys, area.w, NULL, 0), kmax = u->compact ? 1 : 2;
    int kh = (kn < kmax ? kn : kmax) * ren_font_height(sf);
    int bottom = area.y + area.h - kh - pad;
    ren_clip_push(v->r, (Rect){area.x, bottom, area.w, kh});
    ui_paragraph(v->r, sf, keys, area.x, bottom, area.w, th->dim);
    ren_clip_pop(v->r);
    int tl_h = ren_font_height(sf) + ui_px(v->g, 14);
    Rect tl = {area.x, bottom - gap - tl_h, area.w, tl_h};
    if (u->have_pm && u->pm_gen == u->st.gen && u->st.state != TW_BUILDING)
        tv_timeline_draw(v, u, tl);
    Rect body = {area.x, top, area.w, tl.y - gap - top};
    /* a frame that ran a pass does not redraw the plots for the head
     * entropy it noted too (the next frame does) */
    int late = u->hh_shown != u->hh.ver && u->ran_pass && !u->hh_late;
    if (!late)
        u->hh_shown = u->hh.ver;
    u->hh_late = late;
    if (body.h > 40) {
        ren_clip_push(v->r, body);
        draw_body(v, u, body);
        ren_clip_pop(v->r);
    }
    path_focus(v, u, field);
    /* frames while training (the worker publishes every TV_WAKE s) */
    int busy = u->st.state == TW_RUNNING || u->st.state == TW_BUILDING;
    if (busy || sc->now < u->wake_until)
        v->out->wake_at = sc->now + TV_WAKE;
    if (u->pdec_on || u->probe_due || late || tv_hh_pending(u))
        v->out->wake_at = sc->now; /* a step of the probe's decoding, the probe, the plots, a snapshot: next frame */
}

/* ---- for shot, tests and benchmarks ---- */

int view_train_setup(ViewCtx *v, const char *task, long long steps)
{
    const Scene *sc = v->s;
    TfErr err;
    TrainUi *u = tv_get(v);
    if (!u || ensure_worker(v, u))
        return -1;
    tv_settings_task(u, task);
    if (sc->head == -1)
        u->head = -1;
    tv_setup_run(v, u);
    if (steps > 0 && tw_steps(u->w, steps, &err)) {
        view_notice(v, 1, "%s", err.msg);
        return -1;
    }
    tw_wait_idle(u->w);
    pull(v, u, 1);
    tv_hh_fill(u, TV_HH_CAP); /* tools and tests see the whole curve at once */
    return u->st.state == TW_PAUSED ? 0 : -1;
}

int view_train_start(ViewCtx *v, TwSpec *s)
{
    TfErr err;
    TrainUi *u = tv_get(v);
    if (!u || ensure_worker(v, u) || tw_setup(u->w, s, &err))
        return -1;
    u->applied = *s;
    u->applied.data = NULL;
    u->have_applied = 1;
    tw_play(u->w, 1);
    return 0;
}

void view_train_play(ViewCtx *v, int on)
{
    TrainUi *u = tv_get(v);
    if (u && u->w)
        tw_play(u->w, on);
}

/* Paced: the view trains its own copy of the model and reads nothing of
 * the session's pass, so a frame does not wait for it (the idle calls
 * finish it for the other views). */
const ViewDef VIEW_TRAIN_DEF = {"train", N_("Train"), view_train, view_train_act, sizeof(TrainUi),
                                view_train_free, SES_NEED_PACED};
