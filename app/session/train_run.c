/* train_run.c - what a run of the training worker is made of (see
 * train_worker.h): its data set, architecture, model and trainer, the
 * probe sentence it is watched on, the points of its training curves, its
 * held-out checks, and the messages it leaves for the window. Everything
 * here runs on the worker's thread and writes only its own state (`mine`
 * and the run): the mutex, the publications and the snapshots are
 * train_worker.c's, which calls these and is never called back. */
#include "train_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data_args.h"
#include "train_state.h"

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

/* Say something: message `id` with its text and numbers (see TwMsg). */
void twr_message(TrainWorker *w, TwMsg id, const char *text, long long n0, long long n1)
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

void twr_log_add(TrainWorker *w, const TrainStats *s)
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
void twr_maybe_eval(TrainWorker *w)
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
        twr_message(w, TW_MSG_EVAL_FAILED, err.msg, 0, 0);
        return;
    }
    st->evals[st->n_eval++] = e;
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
        twr_message(w, TW_MSG_SKIPPED_LINES, s->path, n_bad, da.max_len);
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
void twr_choose_probe(TrainWorker *w)
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
int twr_run_build(TrainWorker *w, TwSpec *s, TwMsg *why, TfErr *err)
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

/* A fresh status for a new run (messages keep counting). */
void twr_status_reset(TrainWorker *w)
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
