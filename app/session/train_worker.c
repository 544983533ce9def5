/* train_worker.c - the training thread of the window (see train_worker.h).
 *
 * Who owns what:
 *   the worker thread   the run: data set, model, Trainer, and `mine`, the
 *                       status the next publication will carry;
 *   the mutex           the command queue, the play flag, `pub` (the last
 *                       published status), `pub_params` (the parameters of
 *                       pub.step) and the snapshot buffers slot[i], which
 *                       always hold the parameters of pub.snaps[i];
 *   the caller (window) whatever it copied out under the mutex.
 * The model's parameters are written only by the worker, inside
 * trainer_step, with the mutex NOT held; they are read by others only as
 * the copies made at publication. */
#include "train_worker.h"

#include <cblas.h>
#include <errno.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "clock.h"
#include "data_args.h"
#include "parallel.h"

typedef enum CmdKind { CMD_SETUP, CMD_STEPS, CMD_SAVE } CmdKind;

typedef struct Cmd {
    CmdKind kind;
    long long n;    /* CMD_STEPS */
    TwSpec spec;    /* CMD_SETUP (spec.path is the SAVE path too) */
} Cmd;

struct TrainWorker {
    pthread_t thread;
    int has_thread;
    int coop;             /* no thread: tw_pump runs the work (set before any runs) */
    pthread_mutex_t mu;
    pthread_cond_t wake;  /* a command, play, quit */
    pthread_cond_t idle;  /* the worker went idle */

    /* ---- shared: under mu ---- */
    Cmd q[TW_QUEUE];
    int q_head, q_n;
    int play, quit, busy;
    long long steps_left;
    int have_run, can_train, building;
    TwStatus pub;
    float *pub_params;    /* (pub.n_params) of pub.step */
    float *slot[TW_SNAP_CAP]; /* slot[i]: parameters of pub.snaps[i] */
    Vocab voc_src, voc_tgt;   /* the run's vocabularies, for tw_model_like */
    int have_voc;

    /* ---- the worker thread's own ---- */
    Cmd cur;              /* the command being run (its queue slot is free) */
    TwStatus mine;
    Dataset d;
    TfModel m;
    Trainer t;
    int have_d, have_m, have_t;
    TwSpec spec;          /* of the current run (task, file) */
    int given_data;       /* the run's data set came ready-made */
    int unpublished;      /* mine changed since the last publication */
    float *spare[TW_SNAP_CAP]; /* snapshot buffers not in use */
    int n_spare;
    long long eval_every;
    double acc_loss, acc_acc, acc_tok; /* the curve point being summed */
    float acc_lr;
    int acc_n;
    double last_pub;
    int blas_before;      /* OpenBLAS threads before the worker existed */
};

void tw_spec_default(TwSpec *s)
{
    memset(s, 0, sizeof *s);
    snprintf(s->task, sizeof s->task, "en2zh");
    s->d_model = 64;
    s->n_heads = 4;
    s->d_ff = 256;
    s->n_layers = 2;
    s->max_len = 64;
    train_opts_default(&s->o);
    s->o.warmup = 800; /* the paper's 4000 is for 100,000 steps */
}

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

/* Say something: message `id` with its text and numbers (see TwMsg). */
static void message(TrainWorker *w, TwMsg id, const char *text, long long n0, long long n1)
{
    TwStatus *st = &w->mine;
    st->msg = id;
    snprintf(st->msg_text, sizeof st->msg_text, "%s", text ? text : "");
    st->msg_n[0] = n0;
    st->msg_n[1] = n1;
    st->msg_error = id != TW_MSG_SKIPPED_LINES && id != TW_MSG_SAVED;
    st->msg_seq++;
    w->unpublished = 1;
}

/* ---------------------------------------------------------------------- */
/* Curves, evaluations, snapshots                                          */
/* ---------------------------------------------------------------------- */

/* Merge neighbouring points pairwise (the curve keeps its shape at half the
 * resolution); each point stays the mean of the steps it covers. */
static void log_thin(TwStatus *st)
{
    int k = 0;
    for (int i = 0; i + 1 < st->n_log; i += 2) {
        const TwPoint *a = &st->log[i], *b = &st->log[i + 1];
        float n = (float)(a->n + b->n);
        TwPoint p = {b->step, (a->loss * a->n + b->loss * b->n) / n,
                     (a->acc * a->n + b->acc * b->n) / n, b->lr,
                     (a->tok_s * a->n + b->tok_s * b->n) / n, a->n + b->n};
        st->log[k++] = p;
    }
    if (st->n_log % 2)
        st->log[k++] = st->log[st->n_log - 1];
    st->n_log = k;
    st->log_stride *= 2;
}

static void log_add(TrainWorker *w, const TrainStats *s)
{
    w->acc_loss += s->loss;
    w->acc_acc += s->token_acc;
    w->acc_tok += s->tokens_per_s;
    w->acc_lr = (float)s->lr;
    if (++w->acc_n < w->mine.log_stride)
        return;
    TwStatus *st = &w->mine;
    if (st->n_log == TW_LOG_CAP)
        log_thin(st);
    double n = w->acc_n;
    st->log[st->n_log++] = (TwPoint){s->step, (float)(w->acc_loss / n), (float)(w->acc_acc / n),
                                     w->acc_lr, (float)(w->acc_tok / n), w->acc_n};
    w->acc_loss = w->acc_acc = w->acc_tok = 0;
    w->acc_n = 0;
}

/* ---- the held-out check ----
 * core's evaluator (trainer_eval, as `stepformer eval` uses it), kept cheap
 * enough to run every few dozen steps without slowing training: the
 * teacher-forced loss and token accuracy of the first TW_EVAL_PAIRS held-out
 * pairs, TW_EVAL_B a pass, and when with_exact the exact match of the first
 * TW_EXACT_PAIRS by greedy decoding, each stopped at its reference's length
 * + 1 (an output that has not ended by then cannot be exact; an untrained
 * model would otherwise babble to the maximum length). The pairs are cut
 * in two halves on two threads while the trainer's helper sleeps. */
static int eval_heldout(TrainWorker *w, TwEval *ev, int with_exact, TfErr *err)
{
    EvalOpts o;
    eval_opts_default(&o);
    o.max_pairs = TW_EVAL_PAIRS;
    o.batch = TW_EVAL_B;
    o.label_smoothing = w->t.o.label_smoothing;
    o.decode_pairs = with_exact ? TW_EXACT_PAIRS : -1;
    o.stop_at_ref = 1;
    if (w->coop) /* cooperative: no thread to split over */
        o.threads = 1;
    EvalStats s;
    if (trainer_eval(&w->t, &o, &s, err))
        return -1;
    ev->step = w->t.step;
    ev->loss = (float)s.loss;
    ev->acc = (float)s.token_acc;
    ev->exact = with_exact ? (float)s.exact : -1.0f;
    return 0;
}

/* Held-out figures at steps 0, 50, 100, ... (the interval doubles whenever
 * TW_EVAL_CAP are kept). */
static void maybe_eval(TrainWorker *w)
{
    TwStatus *st = &w->mine;
    long long step = w->t.step;
    if (st->n_heldout < 1 || !w->have_t || step % w->eval_every)
        return;
    if (st->n_eval == TW_EVAL_CAP) {
        int k = 0;
        for (int i = 0; i < st->n_eval; i += 2)
            st->evals[k++] = st->evals[i];
        st->n_eval = k;
        w->eval_every *= 2;
        if (step % w->eval_every)
            return;
    }
    TwEval e;
    TfErr err;
    /* decoding whole sentences costs more: every fourth check */
    if (eval_heldout(w, &e, step % (TW_EXACT_EVERY * w->eval_every) == 0, &err)) {
        message(w, TW_MSG_EVAL_FAILED, err.msg, 0, 0);
        return;
    }
    st->evals[st->n_eval++] = e;
}

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
        message(w, TW_MSG_SNAP_NO_MEMORY, NULL, step, 0);
        return;
    }
    memcpy(buf, w->m.block, n * sizeof(float));
    pthread_mutex_lock(&w->mu);
    w->slot[st->n_snap] = buf;
    st->snaps[st->n_snap++] = (TwSnap){step, loss};
    publish_locked(w);
    pthread_mutex_unlock(&w->mu);
}

/* ---------------------------------------------------------------------- */
/* Runs                                                                     */
/* ---------------------------------------------------------------------- */

/* Free the run. Shared buffers are detached under the mutex first. */
static void run_free(TrainWorker *w)
{
    float *old_pub, *old_slot[TW_SNAP_CAP];
    Vocab vs, vt;
    int had_voc;
    pthread_mutex_lock(&w->mu);
    old_pub = w->pub_params;
    w->pub_params = NULL;
    memcpy(old_slot, w->slot, sizeof old_slot);
    memset(w->slot, 0, sizeof w->slot);
    vs = w->voc_src;
    vt = w->voc_tgt;
    had_voc = w->have_voc;
    w->have_voc = 0;
    w->have_run = w->can_train = 0;
    pthread_mutex_unlock(&w->mu);
    free(old_pub);
    for (int i = 0; i < TW_SNAP_CAP; i++)
        free(old_slot[i]);
    for (int i = 0; i < w->n_spare; i++)
        free(w->spare[i]);
    w->n_spare = 0;
    if (had_voc) {
        vocab_free(&vs);
        vocab_free(&vt);
    }
    if (w->have_t)
        trainer_free(&w->t);
    if (w->have_m)
        model_free(&w->m);
    if (w->have_d)
        dataset_free(&w->d);
    w->have_t = w->have_m = w->have_d = 0;
}

/* The run's task or file, as `stepformer eval` will find it again. */
static void spec_data(const TwSpec *s, DataArgs *da)
{
    data_args_init(da);
    da->task = s->task[0] ? s->task : NULL;
    da->file = s->task[0] ? NULL : s->path;
    da->src_mode = da->tgt_mode = s->tokens_char ? TOK_CHAR : TOK_WORD;
    da->max_len = s->max_len > 2 ? s->max_len - 1 : 0;
}

static int load_data(TrainWorker *w, TwSpec *s, TwMsg *why, TfErr *err)
{
    if (s->data) { /* taken over */
        w->d = *s->data;
        free(s->data);
        s->data = NULL;
        w->have_d = 1;
        return 0;
    }
    if (!s->task[0] && !s->path[0]) {
        *why = TW_MSG_NO_PATH;
        return tf_fail(err, "no TSV file");
    }
    DataArgs da;
    spec_data(s, &da);
    int n_bad = 0;
    if (data_args_load(&w->d, &da, &n_bad, err))
        return -1;
    w->have_d = 1;
    if (n_bad > 0)
        message(w, TW_MSG_SKIPPED_LINES, s->path, n_bad, da.max_len);
    return 0;
}

/* The architecture of spec s for data set d, as trainer_model_new makes it. */
static TfConfig spec_config(const TwSpec *s, const Dataset *d)
{
    TfConfig c;
    cfg_preset(&c, "classroom", NULL);
    c.d_model = s->d_model;
    c.n_heads = s->n_heads;
    c.d_ff = s->d_ff;
    c.n_enc = c.n_dec = s->n_layers;
    c.max_len = s->max_len > 1 ? s->max_len : 64;
    int need = d->max_src > d->max_tgt + 1 ? d->max_src : d->max_tgt + 1;
    if (c.max_len < need)
        c.max_len = need;
    c.src_vocab = d->src.n;
    c.tgt_vocab = d->tgt.n;
    c.tie = trainer_default_tie(d);
    c.dropout = s->o.dropout;
    c.label_smoothing = s->o.label_smoothing;
    return c;
}

/* A sentence to watch while the model learns, and its true translation:
 * a showcase sentence of the task, else the first held-out pair. */
static void choose_probe(TrainWorker *w)
{
    static const char *const PROBES[][2] = {
        {"en2zh", "i read books at home today"}, {"copy", "attention"},
        {"reverse", "attention"}, {"sort", "attention"}};
    const Dataset *d = &w->d;
    TwStatus *st = &w->mine;
    st->probe_src[0] = st->probe_ref[0] = 0;
    for (size_t i = 0; i < sizeof PROBES / sizeof PROBES[0]; i++) {
        if (strcmp(w->spec.task, PROBES[i][0]) != 0 || w->given_data)
            continue;
        const char *src = PROBES[i][1];
        snprintf(st->probe_src, sizeof st->probe_src, "%s", src);
        if (dataset_find(d, src, st->probe_ref, sizeof st->probe_ref))
            return;
        /* the string tasks follow a rule: the same, reversed, or sorted */
        size_t n = strlen(src);
        for (size_t k = 0; k < n && k + 1 < sizeof st->probe_ref; k++)
            st->probe_ref[k] = i == 2 ? src[n - 1 - k] : src[k];
        st->probe_ref[n] = 0;
        if (i == 3)
            for (size_t a = 1; a < n; a++) /* insertion sort of the letters */
                for (size_t b = a; b > 0 && st->probe_ref[b - 1] > st->probe_ref[b]; b--) {
                    char t = st->probe_ref[b];
                    st->probe_ref[b] = st->probe_ref[b - 1];
                    st->probe_ref[b - 1] = t;
                }
        return;
    }
    const Pair *p = &d->pairs[d->n_train < d->n_pairs ? d->n_train : 0];
    vocab_decode(&d->src, d->ids + p->src_off, p->src_len, st->probe_src, sizeof st->probe_src);
    vocab_decode(&d->tgt, d->ids + p->tgt_off, p->tgt_len, st->probe_ref, sizeof st->probe_ref);
}

/* Data set, size check, model, trainer; *why says what failed (the text
 * argument is then err's message). */
static int run_build(TrainWorker *w, TwSpec *s, TwMsg *why, TfErr *err)
{
    *why = TW_MSG_SETUP_FAILED;
    if (load_data(w, s, why, err))
        return -1;
    if (w->d.n_train < 1) {
        *why = TW_MSG_NO_PAIRS;
        return tf_fail(err, "%s", w->d.name);
    }
    TfConfig c = spec_config(s, &w->d);
    int cap_T = w->d.max_src > w->d.max_tgt + 1 ? w->d.max_src : w->d.max_tgt + 1;
    if (tw_check_size(&c, s->o.batch, cap_T, err))
        return -1;
    if (trainer_model_new(&w->m, &c, &w->d, s->o.seed, err))
        return -1;
    w->have_m = 1;
    TrainOpts to = s->o;
    if (w->coop) /* cooperative: the trainer's helper thread cannot start either */
        to.threads = 1;
    if (trainer_init(&w->t, &w->m, &w->d, &to, err))
        return -1;
    w->have_t = 1;
    if (!w->given_data && (s->task[0] || s->path[0])) { /* `stepformer eval` finds the data again */
        DataArgs da;
        spec_data(s, &da);
        data_args_to_meta(&da, &w->d, &w->m, err);
    }
    return 0;
}

/* Share what the window needs of the new run: a parameter buffer and the
 * vocabularies (made before taking the mutex, installed under it). */
static int run_share(TrainWorker *w, TfErr *err)
{
    Vocab vs, vt;
    float *p = malloc(w->m.n_params * sizeof(float));
    if (!p || vocab_copy(&vs, &w->m.src_vocab, err)) {
        free(p);
        return tf_fail(err, "out of memory");
    }
    if (vocab_copy(&vt, &w->m.tgt_vocab, err)) {
        vocab_free(&vs);
        free(p);
        return -1;
    }
    pthread_mutex_lock(&w->mu);
    w->pub_params = p;
    w->voc_src = vs;
    w->voc_tgt = vt;
    w->have_voc = 1;
    w->have_run = w->can_train = 1;
    pthread_mutex_unlock(&w->mu);
    return 0;
}

/* A fresh status for a new run (messages keep counting). */
static void status_reset(TrainWorker *w)
{
    TwStatus *st = &w->mine;
    uint64_t msg_seq = st->msg_seq, gen = st->gen;
    TwMsg msg = st->msg;
    char text[TW_MSG_MAX];
    long long n0 = st->msg_n[0], n1 = st->msg_n[1];
    int msg_error = st->msg_error;
    memcpy(text, st->msg_text, sizeof text);
    memset(st, 0, sizeof *st);
    st->gen = gen + 1;
    st->msg = msg;
    memcpy(st->msg_text, text, sizeof text);
    st->msg_n[0] = n0;
    st->msg_n[1] = n1;
    st->msg_error = msg_error;
    st->msg_seq = msg_seq;
    st->log_stride = 1;
    st->snap_every = TW_SNAP_FIRST;
    w->eval_every = TW_EVAL_FIRST;
    w->acc_loss = w->acc_acc = w->acc_tok = 0;
    w->acc_n = 0;
}

static void do_setup(TrainWorker *w, TwSpec *s)
{
    TfErr err;
    TwMsg why;
    run_free(w);
    w->spec = *s;
    w->spec.data = NULL;
    w->given_data = s->data != NULL;
    status_reset(w);
    pthread_mutex_lock(&w->mu);
    w->building = 1;
    w->steps_left = 0;
    publish_locked(w);
    pthread_mutex_unlock(&w->mu);
    int rc = run_build(w, s, &why, &err);
    if (rc == 0)
        rc = run_share(w, &err);
    if (rc) {
        run_free(w);
        message(w, why, err.msg, 0, 0);
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
        choose_probe(w);
        maybe_eval(w);
    }
    pthread_mutex_lock(&w->mu);
    w->building = 0;
    publish_locked(w);
    pthread_mutex_unlock(&w->mu);
    if (rc == 0)
        maybe_snapshot(w, 0);
}

static void do_save(TrainWorker *w, const char *path)
{
    TfErr err;
    if (!w->have_t)
        message(w, TW_MSG_NOTHING_TO_SAVE, NULL, 0, 0);
    else if (trainer_save(&w->t, path, 1, &err))
        message(w, TW_MSG_SAVE_FAILED, err.msg, 0, 0);
    else
        message(w, TW_MSG_SAVED, path, w->t.step, 0);
    publish(w, 1);
}

/* One optimizer step and what follows it; last: the end of a Step command. */
static void train_one(TrainWorker *w, int last)
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
        message(w, TW_MSG_STOPPED, err.msg, 0, 0);
        publish(w, 1);
        return;
    }
    TwStatus *st = &w->mine;
    log_add(w, &s);
    st->step = s.step;
    st->last = s;
    maybe_eval(w);
    maybe_snapshot(w, (float)s.loss);
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
 * next queued command, or one training step. 0 when there was nothing to do. */
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
    if (w->can_train && (w->play || w->steps_left > 0)) {
        int last = 0;
        if (!w->play)
            last = --w->steps_left == 0;
        w->busy = 1;
        pthread_mutex_unlock(&w->mu);
        train_one(w, last);
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

int tw_model_like(TrainWorker *w, uint64_t gen, TfModel *m, TfErr *err)
{
    int rc = -1;
    pthread_mutex_lock(&w->mu);
    if (!w->have_voc || w->pub.gen != gen || w->building) {
        tf_fail(err, "the run changed");
    } else if (model_build(m, &w->pub.cfg, err) == 0) {
        if (vocab_copy(&m->src_vocab, &w->voc_src, err) ||
            vocab_copy(&m->tgt_vocab, &w->voc_tgt, err))
            model_free(m);
        else
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
    while (!w->play && (w->q_n > 0 || w->busy || (w->can_train && w->steps_left > 0)))
        pthread_cond_wait(&w->idle, &w->mu);
    pthread_mutex_unlock(&w->mu);
}
