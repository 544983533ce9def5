/* train_probe.c - the train tab's probe sentence (see train_probe.h).
 *
 * One fixed sentence of the task (a showcase sentence such as "i read
 * books at home today" for en2zh, "attention" for the string tasks, the
 * first held-out pair of a TSV file) runs through the model of the step
 * shown. Early on every attention row is nearly uniform, its entropy
 * close to ln(keys); when a head learns a pattern (the source word a
 * target word comes from, the previous token) its entropy drops, often
 * suddenly: the head "snaps". */
#include "train_probe.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "headstats.h"
#include "session.h"

/* The window's words (session_tr, its gettext lookup). */
#define _(s) (session_tr ? session_tr(s) : (s))

void tp_init(TrainProbe *p)
{
    memset(p, 0, sizeof *p);
    p->step = -1;
    p->out_step = -1;
    p->hh.hw = -1;
}

static void hh_free(TpHeadHist *h)
{
    if (h->have_m)
        model_free(&h->m);
    if (h->have_tr)
        trace_free(&h->tr);
    h->have_m = h->have_tr = 0;
}

/* The model and its passes (the history stays). */
static void probe_free(TrainProbe *p)
{
    tp_greedy_cancel(p);
    if (p->have_m)
        model_free(&p->m);
    if (p->have_tr)
        trace_free(&p->tr);
    if (p->have_gtr)
        trace_free(&p->gtr);
    p->have_m = p->have_tr = p->have_gtr = 0;
}

void tp_free(TrainProbe *p)
{
    probe_free(p);
    hh_free(&p->hh);
}

/* ---- the model and the passes ---- */

/* Ids of the probe and its reference in the run's vocabularies. */
static int probe_encode(TrainProbe *p, const TwStatus *st, TfErr *err)
{
    int T = p->m.cfg.max_len < TP_CAP_T ? p->m.cfg.max_len : TP_CAP_T, unk = 0;
    int n = vocab_encode(&p->m.src_vocab, st->probe_src, p->src, NULL, T, &unk, err);
    if (n < 0)
        return -1;
    p->S = n < T ? n : T;
    if (p->S < 1)
        return tf_fail(err, "%s", _("the probe sentence is empty"));
    n = vocab_encode(&p->m.tgt_vocab, st->probe_ref, p->ref, NULL, T - 1, NULL, err);
    if (n < 0)
        return -1;
    p->ref_n = n < T - 1 ? n : T - 1;
    return 0;
}

void tp_new_run(TrainProbe *p, TrainWorker *w, const TwStatus *st)
{
    TfErr err;
    probe_free(p);
    p->gen = st->gen; /* tried once per run, even when it fails */
    p->step = -1;
    p->out_n = 0;
    p->out_step = -1;
    p->greedy_cost = 0;
    p->err[0] = 0;
    if (tw_model_like(w, st->gen, &p->m, &err)) {
        snprintf(p->err, sizeof p->err, "%s", err.msg);
        return;
    }
    p->have_m = 1;
    const TfConfig *c = &p->m.cfg;
    int T = c->max_len < 8 ? c->max_len : 8; /* small: the traces grow with the probe */
    if (trace_build(&p->tr, c, 1, T, TRACE_RECORD, &err) == 0)
        p->have_tr = 1;
    if (p->have_tr && trace_build(&p->gtr, c, 1, T, 0, &err) == 0)
        p->have_gtr = 1;
    if (!p->have_gtr || probe_encode(p, st, &err)) {
        snprintf(p->err, sizeof p->err, "%s", err.msg);
        probe_free(p);
    }
}

/* ---- what the model says on its own, a step at a time ----
 *
 * Greedy decoding, a little past the reference's length (enough to see
 * whether it stops in time). A base-size model takes tens of milliseconds a
 * step and a big one more (10 tokens: about 0.4 s and 0.7 s here), so the
 * probe decodes between frames like the session's targets: each call runs
 * steps while their weight reads stay within SES_DEC_FRAME_BYTES, at least
 * one (a classroom model still decodes in one call). New parameters in m
 * cancel a decoding in flight (tp_greedy_cancel). */

void tp_greedy_cancel(TrainProbe *p)
{
    if (p->dec_on)
        tf_dec_free(&p->dec);
    p->dec_on = 0;
}

static void probe_fail(TrainProbe *p, const TfErr *err)
{
    tp_greedy_cancel(p);
    snprintf(p->err, sizeof p->err, "%s", err->msg);
}

int tp_greedy_steps(TrainProbe *p, int all)
{
    TfErr err;
    double t0 = tf_seconds();
    if (p->dec_on && !p->dec.done) {
        int t = p->dec.t;
        if (tf_dec_run(&p->dec, all ? 0 : SES_DEC_FRAME_BYTES, &err) < 0)
            probe_fail(p, &err);
        else
            p->dec_steps += (unsigned)(p->dec.t - t);
    }
    if (p->dec_on && p->dec.done) { /* no final pass (no_trace): only the hand-over */
        DecodeResult r;
        p->dec_on = 0;
        if (tf_dec_finish(&p->dec, &r, NULL, &err) == 0) {
            p->out_n = r.n < TP_CAP_T ? r.n : TP_CAP_T;
            memcpy(p->out, r.ids, (size_t)p->out_n * sizeof(int));
            p->out_step = p->dec_for;
            decode_result_free(&r);
        } else {
            snprintf(p->err, sizeof p->err, "%s", err.msg);
        }
    }
    p->greedy_cost += tf_seconds() - t0;
    return p->dec_on;
}

void tp_greedy(TrainProbe *p)
{
    TfErr err;
    tp_greedy_cancel(p);
    p->greedy_cost = 0;
    double t0 = tf_seconds();
    DecodeOpts o;
    decode_opts_default(&o);
    o.max_out = decode_max_out(&p->m, &p->gtr, p->S);
    if (o.max_out > p->ref_n + 3)
        o.max_out = p->ref_n + 3;
    o.no_trace = 1; /* only the tokens are shown */
    if (tf_dec_start(&p->dec, &p->m, &p->gtr, p->src, p->S, &o, 0, &err)) {
        snprintf(p->err, sizeof p->err, "%s", err.msg);
        return;
    }
    p->dec_on = 1;
    p->dec_for = p->step;
    p->dec_steps++; /* the encoder counts as a step */
    p->greedy_cost = tf_seconds() - t0;
}

void tp_run(TrainProbe *p, int with_greedy)
{
    TfErr err;
    if (!p->have_m || p->S < 1)
        return;
    p->err[0] = 0;
    if (with_greedy) {
        tp_greedy(p);
        tp_greedy_steps(p, 0);
    }
    /* teacher forced: <bos> + the reference, the pass training makes */
    if (tf_teacher_forced(&p->m, &p->tr, p->src, p->S, p->ref, p->ref_n, NULL, NULL, NULL, &err))
        snprintf(p->err, sizeof p->err, "%s", err.msg);
    p->ver++;
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

/* While training, a frame does one of the three costly things at most:
 * new curves (the caller's), the probe on new parameters, a snapshot into
 * the head-entropy history; the others wait for the next frames. */
void tp_follow(TrainProbe *p, TrainWorker *w, const TwStatus *st, long long *want, int curves, int wait)
{
    p->ran_pass = 0;
    if (st->gen != p->gen) {
        tp_new_run(p, w, st);
        *want = -1;
    }
    if (!p->have_m)
        return;
    p->due = 0;
    if (*want >= 0)
        *want = nearest_snap(st, *want);
    int snap = *want >= 0;
    long long at = snap ? *want : st->step;
    if (at == p->step) {
        if (p->out_step != p->step && st->state != TW_RUNNING && !p->dec_on)
            tp_greedy(p); /* deferred while a big model trained */
        if (p->dec_on)
            tp_greedy_steps(p, wait); /* a few steps a frame */
        if (!curves)
            tp_hh_fill(p, w, st, 1); /* one snapshot a frame (dozens wait after a pause) */
        return;
    }
    /* While training, the live probe follows at a pace its cost allows
     * (a big model's probe must not take the window's time), not in the
     * frame that draws new curves; a snapshot, or a paused run, is shown
     * at once. */
    double t0 = tf_seconds();
    if (!snap && st->state == TW_RUNNING && (curves || t0 < p->next)) {
        p->due = curves && t0 >= p->next;
        if (!curves)
            tp_hh_fill(p, w, st, 1);
        return;
    }
    long long got;
    float loss;
    tp_greedy_cancel(p); /* m gets other parameters */
    if (tw_params(w, p->gen, snap ? at : -1, p->m.block, p->m.n_params, &got, &loss) == 0) {
        p->step = got;
        p->loss = loss;
        /* greedy decoding reruns the decoder per token: for a big model
         * it waits until training pauses */
        tp_run(p, st->state != TW_RUNNING || p->greedy_cost < TP_GREEDY_MAX);
        p->ran_pass = 1;
        if (wait && p->dec_on)
            tp_greedy_steps(p, 1); /* tests and tools see it whole */
        tp_hh_note(p); /* its heads' entropy, for the curve */
    }
    double cost = tf_seconds() - t0;
    p->next = t0 + fmin(TP_SHARE * cost, 5.0);
}

int tp_copy_model(const TrainProbe *p, TfModel *out, TfErr *err)
{
    if (!p->have_m || p->step < 0)
        return tf_fail(err, "%s", _("no model to open yet"));
    if (model_build(out, &p->m.cfg, err))
        return -1;
    memcpy(out->block, p->m.block, out->n_params * sizeof(float));
    if (vocab_copy(&out->src_vocab, &p->m.src_vocab, err) || vocab_copy(&out->tgt_vocab, &p->m.tgt_vocab, err)) {
        model_free(out);
        return -1;
    }
    return 0;
}

/* ---- head entropy over training ---- */

TfAttnKind tp_attn_kind(TpAttn a)
{
    return a == TP_ENC ? TF_ATTN_ENC : a == TP_DEC ? TF_ATTN_DEC : TF_ATTN_CROSS;
}

int tp_hh_heads(const TrainProbe *p, TpAttn a)
{
    const TfConfig *c = &p->m.cfg;
    int n = (a == TP_ENC ? c->n_enc : c->n_dec) * c->n_heads;
    return n < TP_HH_HEADS ? n : TP_HH_HEADS;
}

/* A new run: an empty history. */
static void hh_reset(TrainProbe *p)
{
    TpHeadHist *h = &p->hh;
    hh_free(h);
    h->gen = p->gen;
    h->n = 0;
    h->H_max = 0;
    h->hw = -1;
    h->ver++;
}

/* Room for a point at step; its index, or -1 when it is there already. */
static int hh_slot(TpHeadHist *h, long long step)
{
    int at = 0;
    while (at < h->n && h->step[at] < step)
        at++;
    if (at < h->n && h->step[at] == step)
        return -1;
    if (h->n == TP_HH_CAP) { /* full: drop every other point after the first */
        int k = 1;
        for (int i = 2; i < h->n; i += 2, k++) {
            h->step[k] = h->step[i];
            memcpy(h->H[k], h->H[i], sizeof h->H[k]);
        }
        h->n = k;
        at = 0;
        while (at < h->n && h->step[at] < step)
            at++;
    }
    memmove(h->step + at + 1, h->step + at, (size_t)(h->n - at) * sizeof h->step[0]);
    memmove(h->H[at + 1], h->H[at], (size_t)(h->n - at) * sizeof h->H[0]);
    h->step[at] = step;
    h->n++;
    return at;
}

/* Record the heads of tr (the probe's teacher-forced pass) at step. */
static void hh_record(TrainProbe *p, const TfTrace *tr, long long step)
{
    TpHeadHist *h = &p->hh;
    if (h->gen != p->gen)
        hh_reset(p);
    int at = hh_slot(h, step);
    if (at < 0)
        return; /* already there */
    int NH = p->m.cfg.n_heads;
    for (int a = 0; a < TP_ATTN_COUNT; a++) {
        int n = tp_hh_heads(p, (TpAttn)a);
        for (int k = 0; k < n; k++) {
            TfHeadMetrics m;
            TfErr err;
            h->H[at][a][k] = tf_head_metrics(tr, tp_attn_kind((TpAttn)a), k / NH, k % NH, 0, &m, &err)
                                 ? NAN
                                 : (float)m.entropy;
        }
    }
    int keys = p->S > p->ref_n + 1 ? p->S : p->ref_n + 1;
    h->H_max = keys > 1 ? logf((float)keys) : 1.0f;
    h->ver++;
}

void tp_hh_note(TrainProbe *p)
{
    if (p->have_tr && p->step >= 0 && !p->err[0])
        hh_record(p, &p->tr, p->step);
}

static int in_history(const TpHeadHist *h, long long step)
{
    for (int i = 0; i < h->n; i++)
        if (h->step[i] == step)
            return 1;
    return 0;
}

int tp_hh_pending(const TrainProbe *p, const TwStatus *st)
{
    const TpHeadHist *h = &p->hh;
    if (!p->have_m || p->S < 1 || st->n_snap < 1)
        return 0;
    return h->gen != p->gen || st->snaps[st->n_snap - 1].step > h->hw;
}

/* The model and trace the snapshots are run on, made on first use. */
static int hh_model(TrainProbe *p, TrainWorker *w, TfErr *err)
{
    TpHeadHist *h = &p->hh;
    if (!h->have_m) {
        if (tw_model_like(w, p->gen, &h->m, err))
            return -1;
        h->have_m = 1;
    }
    if (!h->have_tr) {
        int T = h->m.cfg.max_len < 8 ? h->m.cfg.max_len : 8;
        if (trace_build(&h->tr, &h->m.cfg, 1, T, TRACE_RECORD, err))
            return -1;
        h->have_tr = 1;
    }
    return 0;
}

void tp_hh_fill(TrainProbe *p, TrainWorker *w, const TwStatus *st, int budget)
{
    TpHeadHist *h = &p->hh;
    TfErr err;
    if (!p->have_m || p->S < 1)
        return;
    if (h->gen != p->gen)
        hh_reset(p);
    /* snapshots come in step order and thinning only drops some: those up
     * to the mark are done, even if the history has thinned them since */
    for (int i = 0; i < st->n_snap && budget > 0; i++) {
        long long step = st->snaps[i].step;
        if (step <= h->hw)
            continue;
        if (in_history(h, step)) {
            h->hw = step;
            continue;
        }
        if (hh_model(p, w, &err)) {
            h->hw = st->snaps[st->n_snap - 1].step; /* nothing to run them on: none waits */
            return;
        }
        long long got;
        float loss;
        h->hw = step; /* run now, or gone from the worker: either way done */
        if (tw_params(w, p->gen, step, h->m.block, h->m.n_params, &got, &loss))
            continue;
        /* the probe's teacher-forced pass (its start token, its checks) */
        if (tf_teacher_forced(&h->m, &h->tr, p->src, p->S, p->ref, p->ref_n, NULL, NULL, NULL, &err))
            return;
        hh_record(p, &h->tr, got);
        budget--;
    }
}
