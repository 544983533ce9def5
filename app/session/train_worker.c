/* train_worker.c - the training thread of the window (see train_worker.h).
 *
 * Who owns what:
 *   the worker thread   the run: data set, model, Trainer, and `mine`, the
 *                       status the next publication will carry;
 *   the mutex           the command queue, the play flag, `pub` (the last
 *                       published status, the probe's results with it),
 *                       the snapshot buffers slot[i], which always hold
 *                       the parameters of pub.snaps[i], the indices of the
 *                       probe's three passes, and the parameters the
 *                       probe shows (tp.m);
 *   the caller (window) whatever it copied out under the mutex, and the
 *                       pass it took (tw_take), which the worker leaves
 *                       alone until it is handed back.
 * The model's parameters are written only by the worker, inside
 * trainer_step, with the mutex NOT held; others read only copies made
 * under it (snapshots, the probe's).
 *
 * The probe (train_probe.h) runs here too, between steps: after a setup,
 * at the end of a Step command, while playing at a pace its cost allows
 * (with a periodic publication), on a snapshot when one is asked for, and
 * in pieces while idle (a big model's greedy output). Each pass is
 * written into a buffer of its own and handed over whole, so the window's
 * frame never computes and never copies a trace: it draws the pass it
 * holds.
 *
 * What a run is made of (its data, model, curves, held-out checks and
 * messages) is train_run.c's; this file is the thread, its commands, the
 * publications and the snapshots, and calls train_run.c one way. */
#include "train_worker.h"

#include <cblas.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "clock.h"
#include "parallel.h"
#include "train_run.h"
#include "train_state.h"

/* ---------------------------------------------------------------------- */
/* Publication                                                              */
/* ---------------------------------------------------------------------- */

static TwState state_locked(const TrainWorker *w)
{
    if (w->building)
        return TW_BUILDING;
    if (!w->have_run)
        return TW_EMPTY;
    if (!w->can_train)
        return TW_STOPPED;
    return w->play || w->steps_left > 0 ? TW_RUNNING : TW_PAUSED;
}

/* Copy mine and the parameters out (mu held). */
static void publish_locked(TrainWorker *w)
{
    w->mine.seq = w->pub.seq + 1;
    w->mine.state = state_locked(w);
    w->mine.steps_left = w->steps_left;
    w->mine.probe = w->tp.o;
    w->pub = w->mine;
    w->unpublished = 0;
    if (w->pub_params && w->have_m)
        memcpy(w->pub_params, w->m.block, w->m.n_params * sizeof(float));
    w->last_pub = tf_seconds();
}

/* Periodic publications give way when the mutex is busy; forced ones wait. */
static void publish(TrainWorker *w, int force)
{
    if (!force && tf_seconds() - w->last_pub < TW_PUBLISH_S)
        return;
    if (force)
        pthread_mutex_lock(&w->mu);
    else if (pthread_mutex_trylock(&w->mu) != 0)
        return;
    publish_locked(w);
    pthread_mutex_unlock(&w->mu);
}


/* ---------------------------------------------------------------------- */
/* Snapshots                                                              */
/* ---------------------------------------------------------------------- */


/* Drop every other snapshot (they are at multiples of snap_every, so the
 * ones at multiples of twice that stay) and double the interval. mu held:
 * slot[] changes, and is published at once so pub.snaps matches it. */
static void snaps_thin_locked(TrainWorker *w)
{
    TwStatus *st = &w->mine;
    long long every = st->snap_every * 2;
    int k = 0;
    for (int i = 0; i < st->n_snap; i++) {
        if (st->snaps[i].step % every == 0) {
            st->snaps[k] = st->snaps[i];
            w->slot[k++] = w->slot[i];
        } else {
            w->spare[w->n_spare++] = w->slot[i];
        }
    }
    for (int i = k; i < st->n_snap; i++)
        w->slot[i] = NULL;
    st->n_snap = k;
    st->snap_every = every;
}

/* Every snapshot buffer, made and written now: a page written for the
 * first time costs a fault (thousands per snapshot, several milliseconds
 * each time in the middle of training). Written with real numbers, not
 * zeros: pages of zeros may be left unbacked and fault again later. */
static void snaps_prealloc(TrainWorker *w)
{
    size_t n = w->m.n_params;
    while (w->n_spare < w->mine.snap_cap) {
        float *buf = malloc(n * sizeof(float));
        if (!buf)
            break; /* made when needed, or a message then */
        memcpy(buf, w->m.block, n * sizeof(float));
        w->spare[w->n_spare++] = buf;
    }
}

static void maybe_snapshot(TrainWorker *w, float loss)
{
    TwStatus *st = &w->mine;
    long long step = w->t.step;
    if (st->snap_cap < 1 || step % st->snap_every)
        return;
    if (st->n_snap == st->snap_cap) {
        pthread_mutex_lock(&w->mu);
        snaps_thin_locked(w);
        publish_locked(w);
        pthread_mutex_unlock(&w->mu);
        if (step % st->snap_every)
            return;
    }
    /* the copy is made before the buffer is shared: no lock needed */
    size_t n = w->m.n_params;
    float *buf = w->n_spare ? w->spare[--w->n_spare] : malloc(n * sizeof(float));
    if (!buf) {
        twr_message(w, TW_MSG_SNAP_NO_MEMORY, NULL, step, 0);
        return;
    }
    memcpy(buf, w->m.block, n * sizeof(float));
    tp_hh_snapshot(&w->tp, &w->m, step); /* the probe's heads at this step, for the curve */
    pthread_mutex_lock(&w->mu);
    w->slot[st->n_snap] = buf;
    st->snaps[st->n_snap++] = (TwSnap){step, loss};
    publish_locked(w);
    pthread_mutex_unlock(&w->mu);
}

/* ---------------------------------------------------------------------- */
/* The probe (train_probe.h), run here between steps                        */
/* ---------------------------------------------------------------------- */

/* Hand pass[back] over (mu held): it becomes the newest, published with
 * the status; the one it replaces is the worker's to fill next. */
static void pass_publish_locked(TrainWorker *w)
{
    int t = w->ready;
    w->ready = w->back;
    w->back = t;
    w->ready_new = 1;
    publish_locked(w);
}

/* The kept snapshot nearest to `step` (-1: none). */
static int snap_nearest(const TwStatus *st, long long step)
{
    int best = -1;
    for (int i = 0; i < st->n_snap; i++)
        if (best < 0 || llabs(st->snaps[i].step - step) < llabs(st->snaps[best].step - step))
            best = i;
    return best;
}

/* The probe on the parameters of the snapshot nearest `want` (-1: the live
 * ones), its pass handed over. The parameters are copied into the probe's
 * model under mu (tw_shown_model reads it there); the snapshot buffers
 * change only on this thread, so reading them needs no lock. */
static void probe_run(TrainWorker *w, long long want, int with_greedy)
{
    TrainProbe *p = &w->tp;
    const TwStatus *st = &w->mine;
    if (!p->o.have || !w->have_m)
        return;
    const float *from = w->m.block;
    long long step = st->step;
    float loss = (float)st->last.loss;
    int i = want >= 0 ? snap_nearest(st, want) : -1;
    if (i >= 0 && w->slot[i]) {
        from = w->slot[i];
        step = st->snaps[i].step;
        loss = st->snaps[i].loss;
    }
    pthread_mutex_lock(&w->mu);
    memcpy(tp_params(p), from, w->m.n_params * sizeof(float));
    w->shown_step = step;
    pthread_mutex_unlock(&w->mu);
    tp_pass(p, &w->pass[w->back], step, loss, with_greedy);
    pthread_mutex_lock(&w->mu);
    pass_publish_locked(w);
    pthread_mutex_unlock(&w->mu);
}

/* After a training step: while playing, the live probe follows at a pace
 * its cost allows (at most every TP_SHARE times what it took, with a
 * periodic publication); a Step command shows its last step only (so a
 * run of N steps shows the same whatever the machine's speed); a greedy
 * output in flight goes on a piece a step. */
static void probe_follow(TrainWorker *w, int last, int playing)
{
    TrainProbe *p = &w->tp;
    if (!p->o.have)
        return;
    double now = tf_seconds();
    int paced = playing && now >= p->next && now - w->last_pub >= TW_PUBLISH_S;
    if (w->shown_want < 0 && (last || paced)) {
        probe_run(w, -1, last || p->greedy_cost < TP_GREEDY_MAX);
        p->next = now + fmin(TP_SHARE * p->cost, 5.0);
    } else if (p->dec_on) {
        tp_greedy_steps(p, 0);
        w->unpublished = 1;
    }
}

/* Probe work that waits (mu held): another step asked to be shown, a
 * paused run's live step not run yet, a greedy output to start or finish. */
static int probe_due_locked(const TrainWorker *w)
{
    const TrainProbe *p = &w->tp;
    if (!p->o.have || p->o.err[0] || w->building || !w->have_run)
        return 0;
    if (w->show_want != w->shown_want)
        return 1;
    if (w->play || (w->can_train && w->steps_left > 0))
        return 0; /* training: probe_follow keeps up */
    if (w->shown_want < 0 && p->step != w->mine.step)
        return 1;
    return p->dec_on || (p->step >= 0 && p->o.out_step != p->step);
}

/* One piece of it (mu not held): a pass when the step shown changed (the
 * caller took want and noted it as shown under mu), else a piece of the
 * greedy output. */
static void probe_turn(TrainWorker *w, long long want, int changed, int with_greedy)
{
    TrainProbe *p = &w->tp;
    if (changed || (want < 0 && p->step != w->mine.step)) {
        probe_run(w, want, with_greedy);
        return;
    }
    if (p->dec_on)
        tp_greedy_steps(p, 0);
    else
        tp_greedy(p); /* put off while a big model trained */
    publish(w, 1);
}

/* ---------------------------------------------------------------------- */
/* Runs                                                                     */
/* ---------------------------------------------------------------------- */

/* Free the run. Shared buffers are detached under the mutex first. */
static void run_free(TrainWorker *w)
{
    float *old_pub, *old_slot[TW_SNAP_CAP];
    pthread_mutex_lock(&w->mu);
    old_pub = w->pub_params;
    w->pub_params = NULL;
    memcpy(old_slot, w->slot, sizeof old_slot);
    memset(w->slot, 0, sizeof w->slot);
    w->have_run = w->can_train = 0;
    pthread_mutex_unlock(&w->mu);
    free(old_pub);
    for (int i = 0; i < TW_SNAP_CAP; i++)
        free(old_slot[i]);
    for (int i = 0; i < w->n_spare; i++)
        free(w->spare[i]);
    w->n_spare = 0;
    if (w->have_t)
        trainer_free(&w->t);
    if (w->have_m)
        model_free(&w->m);
    if (w->have_d)
        dataset_free(&w->d);
    w->have_t = w->have_m = w->have_d = 0;
}

static void do_setup(TrainWorker *w, TwSpec *s)
{
    TfErr err;
    TwMsg why;
    run_free(w);
    w->spec = *s;
    w->spec.data = NULL;
    w->given_data = s->data != NULL;
    twr_status_reset(w);
    pthread_mutex_lock(&w->mu);
    w->building = 1;
    w->steps_left = 0;
    w->show_want = w->shown_want = -1; /* a new run is shown live */
    w->shown_step = -1;
    publish_locked(w);
    pthread_mutex_unlock(&w->mu);
    int rc = twr_run_build(w, s, &why, &err);
    float *pub = rc ? NULL : malloc(w->m.n_params * sizeof(float));
    if (rc == 0 && !pub)
        rc = tf_fail(&err, "out of memory");
    if (rc) {
        run_free(w);
        twr_message(w, why, err.msg, 0, 0);
        tp_free(&w->tp); /* no run, no probe */
        tp_init(&w->tp);
        w->tp.o.gen = w->tp.o.hh.gen = w->mine.gen;
    } else {
        TwStatus *st = &w->mine;
        snprintf(st->data_name, sizeof st->data_name, "%s", w->d.name);
        st->n_train = w->d.n_train;
        st->n_heldout = w->d.n_pairs - w->d.n_train;
        st->n_params = w->m.n_params;
        st->cfg = w->m.cfg;
        st->o = w->t.o;
        size_t each = w->m.n_params * sizeof(float);
        size_t fit = each ? TW_SNAP_BUDGET / each : TW_SNAP_CAP;
        st->snap_cap = fit < 2 ? 2 : fit > TW_SNAP_CAP ? TW_SNAP_CAP : (int)fit;
        snaps_prealloc(w);
        twr_choose_probe(w);
        tp_new_run(&w->tp, &w->m, st->gen, st->probe_src, st->probe_ref); /* or tp.o.err says why */
        twr_maybe_eval(w);
        pthread_mutex_lock(&w->mu);
        w->pub_params = pub; /* the live parameters, copied at each publication */
        w->have_run = w->can_train = 1;
        pthread_mutex_unlock(&w->mu);
    }
    pthread_mutex_lock(&w->mu);
    w->building = 0;
    publish_locked(w);
    pthread_mutex_unlock(&w->mu);
    if (rc == 0) {
        maybe_snapshot(w, 0);
        probe_run(w, -1, 1);
    }
}

static void do_save(TrainWorker *w, const char *path)
{
    TfErr err;
    if (!w->have_t)
        twr_message(w, TW_MSG_NOTHING_TO_SAVE, NULL, 0, 0);
    else if (trainer_save(&w->t, path, 1, &err))
        twr_message(w, TW_MSG_SAVE_FAILED, err.msg, 0, 0);
    else
        twr_message(w, TW_MSG_SAVED, path, w->t.step, 0);
    publish(w, 1);
}

/* One optimizer step and what follows it; last: the end of a Step
 * command; playing: the run plays (taken under mu). */
static void train_one(TrainWorker *w, int last, int playing)
{
    double t0 = tf_seconds();
    TrainStats s;
    TfErr err;
    if (trainer_step(&w->t, &s, &err)) {
        pthread_mutex_lock(&w->mu);
        w->can_train = 0;
        w->play = 0;
        w->steps_left = 0;
        pthread_mutex_unlock(&w->mu);
        twr_message(w, TW_MSG_STOPPED, err.msg, 0, 0);
        publish(w, 1);
        return;
    }
    TwStatus *st = &w->mine;
    twr_log_add(w, &s);
    st->step = s.step;
    st->last = s;
    twr_maybe_eval(w);
    maybe_snapshot(w, (float)s.loss);
    probe_follow(w, last, playing);
    st->train_tokens += s.tokens;
    st->train_seconds += tf_seconds() - t0;
    w->unpublished = 1;
    publish(w, last);
}

/* ---------------------------------------------------------------------- */
/* The thread                                                              */
/* ---------------------------------------------------------------------- */

static void run_cmd(TrainWorker *w, Cmd *c)
{
    switch (c->kind) {
    case CMD_SETUP: do_setup(w, &c->spec); break;
    case CMD_SAVE: do_save(w, c->spec.path); break;
    case CMD_STEPS:
        pthread_mutex_lock(&w->mu);
        w->play = 0;
        if (w->can_train)
            w->steps_left += c->n;
        pthread_mutex_unlock(&w->mu);
        break;
    }
}

/* Training takes both cores; the window's thread draws its frames in
 * between. At equal priority each of the three busy threads got two
 * thirds of a core, so a frame took half as long again (and more behind
 * other programs). This thread, and the ones it starts (the trainer's
 * helper, the held-out check's), run nicer: the frame gets a core when it
 * wants one, training the rest. Linux sets it per thread. */
static void lower_priority(void)
{
#ifdef __linux__
    id_t tid = (id_t)syscall(SYS_gettid);
    errno = 0;
    int nice = getpriority(PRIO_PROCESS, tid);
    if (errno == 0)
        setpriority(PRIO_PROCESS, tid, nice + TW_NICE > 19 ? 19 : nice + TW_NICE);
#endif
}

/* One turn of the worker, with mu held (and held again on return): the
 * next queued command, the probe on another step asked to be shown, one
 * training step, or a piece of the probe's work. 0 when there was nothing
 * to do. */
static int turn_locked(TrainWorker *w)
{
    /* a Step command finishes before the commands queued after it */
    if (w->q_n > 0 && (w->steps_left == 0 || !w->can_train)) {
        /* copied out: the slot may be reused as soon as it is free */
        Cmd *c = &w->cur;
        *c = w->q[w->q_head];
        w->q_head = (w->q_head + 1) % TW_QUEUE;
        w->q_n--;
        w->busy = 1;
        pthread_mutex_unlock(&w->mu);
        run_cmd(w, c);
        pthread_mutex_lock(&w->mu);
        return 1;
    }
    int training = w->can_train && (w->play || w->steps_left > 0);
    if (w->show_want != w->shown_want && !probe_due_locked(w))
        w->shown_want = w->show_want; /* no probe to show it with */
    if (probe_due_locked(w) && (!training || w->show_want != w->shown_want)) {
        long long want = w->show_want;
        int changed = want != w->shown_want;
        /* the greedy output with a pass: when the run does not train, or
         * it is cheap (a big model's waits for a pause) */
        int greedy = !training || w->tp.greedy_cost < TP_GREEDY_MAX;
        w->shown_want = want;
        w->busy = 1;
        pthread_mutex_unlock(&w->mu);
        probe_turn(w, want, changed, greedy);
        pthread_mutex_lock(&w->mu);
        return 1;
    }
    if (training) {
        int last = 0, playing = w->play;
        if (!playing)
            last = --w->steps_left == 0;
        w->busy = 1;
        pthread_mutex_unlock(&w->mu);
        train_one(w, last, playing);
        pthread_mutex_lock(&w->mu);
        return 1;
    }
    return 0;
}

/* Nothing left to do (mu held): say so. */
static void go_idle_locked(TrainWorker *w)
{
    if (w->unpublished || w->pub.state != state_locked(w)) /* just paused */
        publish_locked(w);
    w->busy = 0;
    pthread_cond_broadcast(&w->idle);
}

static void *tw_main(void *arg)
{
    TrainWorker *w = arg;
    lower_priority();
    pthread_mutex_lock(&w->mu);
    for (;;) {
        if (turn_locked(w))
            continue;
        /* stop only when every command asked for before is done: a save
         * queued just before closing the window is written */
        if (w->quit)
            break;
        go_idle_locked(w);
        pthread_cond_wait(&w->wake, &w->mu);
    }
    w->busy = 0;
    pthread_cond_broadcast(&w->idle);
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

static int g_cooperative; /* tw_set_cooperative */

void tw_set_cooperative(int on)
{
    g_cooperative = on != 0;
}

int tw_pump(TrainWorker *w, double seconds)
{
    if (!w || !w->coop)
        return 0;
    double t0 = tf_seconds();
    int more = 1;
    pthread_mutex_lock(&w->mu);
    do
        more = turn_locked(w);
    while (more && tf_seconds() - t0 < seconds);
    if (!more)
        go_idle_locked(w);
    pthread_mutex_unlock(&w->mu);
    return more;
}

TrainWorker *tw_new(TfErr *err)
{
    TrainWorker *w = calloc(1, sizeof *w);
    if (!w) {
        tf_fail(err, "out of memory for the training worker");
        return NULL;
    }
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->wake, NULL);
    pthread_cond_init(&w->idle, NULL);
    w->mine.log_stride = 1;
    w->mine.snap_every = TW_SNAP_FIRST;
    w->eval_every = TW_EVAL_FIRST;
    tp_init(&w->tp);
    w->front = 0;
    w->ready = 1;
    w->back = 2;
    w->show_want = w->shown_want = w->shown_step = -1;
    /* The trainer runs BLAS single-threaded on its own threads and sets
     * this itself; setting it here first, on the caller's thread, means the
     * worker never changes it while the window is inside a BLAS call. */
    w->blas_before = openblas_get_num_threads();
    openblas_set_num_threads(1);
    par_init(); /* the product helper is started here, at the window's priority */
    if (g_cooperative) { /* no thread: tw_pump runs the work */
        w->coop = 1;
        return w;
    }
    if (pthread_create(&w->thread, NULL, tw_main, w) != 0) {
        tf_fail(err, "cannot start the training thread");
        tw_free(w);
        return NULL;
    }
    w->has_thread = 1;
    return w;
}

/* Ask the thread to quit (it finishes the step it is in) and wait for it. */
static void stop_thread(TrainWorker *w)
{
    pthread_mutex_lock(&w->mu);
    w->quit = 1;
    w->play = 0;
    pthread_cond_broadcast(&w->wake);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
}

void tw_free(TrainWorker *w)
{
    if (!w)
        return;
    if (w->has_thread)
        stop_thread(w);
    /* commands never reached (no thread) may hold a data set */
    for (int i = 0; i < w->q_n; i++) {
        Cmd *c = &w->q[(w->q_head + i) % TW_QUEUE];
        if (c->kind == CMD_SETUP && c->spec.data) {
            dataset_free(c->spec.data);
            free(c->spec.data);
        }
    }
    run_free(w);
    tp_free(&w->tp);
    for (int i = 0; i < 3; i++)
        tp_pass_free(&w->pass[i]);
    if (w->blas_before > 0)
        openblas_set_num_threads(w->blas_before);
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->wake);
    pthread_cond_destroy(&w->idle);
    free(w);
}

/* ---------------------------------------------------------------------- */
/* Commands and reading                                                     */
/* ---------------------------------------------------------------------- */

static int enqueue(TrainWorker *w, const Cmd *c, TfErr *err)
{
    pthread_mutex_lock(&w->mu);
    if (w->q_n == TW_QUEUE || w->quit) {
        pthread_mutex_unlock(&w->mu);
        return tf_fail(err, "the training thread is busy: try again in a moment");
    }
    w->q[(w->q_head + w->q_n) % TW_QUEUE] = *c;
    w->q_n++;
    pthread_cond_broadcast(&w->wake);
    pthread_mutex_unlock(&w->mu);
    return 0;
}

int tw_setup(TrainWorker *w, const TwSpec *s, TfErr *err)
{
    Cmd c;
    memset(&c, 0, sizeof c);
    c.kind = CMD_SETUP;
    c.spec = *s;
    if (enqueue(w, &c, err) == 0)
        return 0;
    if (s->data) { /* taken over whatever happens */
        dataset_free(s->data);
        free(s->data);
    }
    return -1;
}

int tw_steps(TrainWorker *w, long long n, TfErr *err)
{
    Cmd c;
    memset(&c, 0, sizeof c);
    c.kind = CMD_STEPS;
    c.n = n;
    tw_play(w, 0);
    return enqueue(w, &c, err);
}

int tw_save(TrainWorker *w, const char *path, TfErr *err)
{
    Cmd c;
    memset(&c, 0, sizeof c);
    c.kind = CMD_SAVE;
    snprintf(c.spec.path, sizeof c.spec.path, "%s", path);
    return enqueue(w, &c, err);
}

void tw_play(TrainWorker *w, int on)
{
    pthread_mutex_lock(&w->mu);
    w->play = on;
    if (!on)
        w->steps_left = 0;
    /* say it at once (the worker confirms at its next publication) */
    if (w->have_run && !w->building) {
        w->pub.state = state_locked(w);
        w->pub.seq++;
    }
    pthread_cond_broadcast(&w->wake);
    pthread_mutex_unlock(&w->mu);
}

int tw_status(TrainWorker *w, TwStatus *out, int wait)
{
    if (wait)
        pthread_mutex_lock(&w->mu);
    else if (pthread_mutex_trylock(&w->mu) != 0)
        return 0;
    int fresh = out->seq == 0 || out->seq != w->pub.seq;
    if (fresh)
        *out = w->pub;
    pthread_mutex_unlock(&w->mu);
    return fresh;
}

int tw_take(TrainWorker *w, TwStatus *out, const TpPass **pass, int hold, int wait)
{
    if (wait)
        pthread_mutex_lock(&w->mu);
    else if (pthread_mutex_trylock(&w->mu) != 0)
        return 0;
    int got = 0, fresh = out->seq == 0 || out->seq != w->pub.seq;
    int held = w->ready_new && hold && fresh && w->pub.state == TW_RUNNING;
    if (fresh) { /* a held pass keeps the probe's results of the pass shown */
        memcpy(out, &w->pub, held ? offsetof(TwStatus, probe) : sizeof *out);
        got |= TW_TOOK_STATUS;
    }
    if (w->ready_new && !held) {
        int t = w->front;
        w->front = w->ready;
        w->ready = t;
        w->ready_new = 0;
        if (!fresh)
            out->probe = w->pub.probe;
        got |= TW_TOOK_PASS;
    }
    if (held)
        got |= TW_PASS_WAITS;
    *pass = &w->pass[w->front];
    pthread_mutex_unlock(&w->mu);
    return got;
}

void tw_show(TrainWorker *w, long long step)
{
    pthread_mutex_lock(&w->mu);
    if (w->show_want != step) {
        w->show_want = step;
        pthread_cond_broadcast(&w->wake);
    }
    pthread_mutex_unlock(&w->mu);
}

int tw_params(TrainWorker *w, uint64_t gen, long long step, float *out,
              size_t n, long long *step_out, float *loss)
{
    int rc = -1;
    pthread_mutex_lock(&w->mu);
    const TwStatus *p = &w->pub;
    if (p->gen == gen && p->n_params == n && w->pub_params && !w->building) {
        if (step < 0) {
            memcpy(out, w->pub_params, n * sizeof(float));
            *step_out = p->step;
            *loss = (float)p->last.loss;
            rc = 0;
        }
        for (int i = 0; step >= 0 && i < p->n_snap; i++)
            if (p->snaps[i].step == step && w->slot[i]) {
                memcpy(out, w->slot[i], n * sizeof(float));
                *step_out = step;
                *loss = p->snaps[i].loss;
                rc = 0;
                break;
            }
    }
    pthread_mutex_unlock(&w->mu);
    return rc;
}

int tw_shown_model(TrainWorker *w, uint64_t gen, TfModel *m, long long *step, TfErr *err)
{
    int rc = -1;
    pthread_mutex_lock(&w->mu);
    if (w->building || w->tp.gen != gen || !w->have_run)
        tf_fail(err, "the run changed");
    else if (tp_copy_model(&w->tp, w->shown_step, m, err) == 0) {
        *step = w->shown_step;
        rc = 0;
    }
    pthread_mutex_unlock(&w->mu);
    return rc;
}

void tw_wait_idle(TrainWorker *w)
{
    if (w->coop) { /* cooperative: do the work here */
        pthread_mutex_lock(&w->mu);
        int left = !w->play;
        pthread_mutex_unlock(&w->mu);
        while (left && tw_pump(w, 1.0))
            ;
        return;
    }
    pthread_mutex_lock(&w->mu);
    while (!w->play && (w->q_n > 0 || w->busy || (w->can_train && w->steps_left > 0) ||
                        w->show_want != w->shown_want))
        pthread_cond_wait(&w->idle, &w->mu);
    pthread_mutex_unlock(&w->mu);
}
