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
    p->o.out_step = -1;
}

/* The model and its traces (what is published stays). */
static void probe_free(TrainProbe *p)
{
    tp_greedy_cancel(p);
    if (p->have_m)
        model_free(&p->m);
    if (p->have_gtr)
        trace_free(&p->gtr);
    if (p->have_htr)
        trace_free(&p->htr);
    p->have_m = p->have_gtr = p->have_htr = 0;
}

void tp_free(TrainProbe *p)
{
    probe_free(p);
}

void tp_pass_free(TpPass *q)
{
    if (q->have_tr)
        trace_free(&q->tr);
    if (q->have_labels)
        model_free(&q->labels);
    q->have_tr = q->have_labels = 0;
    q->gen = 0;
}

/* ---- a new run ---- */

/* Ids of the probe and its reference in the run's vocabularies. */
static int probe_encode(TrainProbe *p, const char *src, const char *ref, TfErr *err)
{
    int T = p->m.cfg.max_len < TP_CAP_T ? p->m.cfg.max_len : TP_CAP_T, unk = 0;
    int n = vocab_encode(&p->m.src_vocab, src, p->src, NULL, T, &unk, err);
    if (n < 0)
        return -1;
    p->S = n < T ? n : T;
    if (p->S < 1)
        return tf_fail(err, "%s", _("the probe sentence is empty"));
    n = vocab_encode(&p->m.tgt_vocab, ref, p->o.ref, NULL, T - 1, NULL, err);
    if (n < 0)
        return -1;
    p->o.ref_n = n < T - 1 ? n : T - 1;
    return 0;
}

/* A model shaped like `run`: its config and vocabularies, zero parameters. */
static int model_like(TfModel *m, const TfModel *run, TfErr *err)
{
    if (model_build(m, &run->cfg, err))
        return -1;
    if (vocab_copy(&m->src_vocab, &run->src_vocab, err) || vocab_copy(&m->tgt_vocab, &run->tgt_vocab, err)) {
        model_free(m);
        return -1;
    }
    return 0;
}

static int heads_of(const TfConfig *c, TpAttn a)
{
    int n = (a == TP_ENC ? c->n_enc : c->n_dec) * c->n_heads;
    return n < TP_HH_HEADS ? n : TP_HH_HEADS;
}

int tp_new_run(TrainProbe *p, const TfModel *run, uint64_t gen, const char *src, const char *ref)
{
    TfErr err;
    probe_free(p);
    unsigned hh_ver = p->o.hh.ver;
    memset(&p->o, 0, sizeof p->o);
    p->o.gen = p->gen = gen;
    p->o.out_step = -1;
    p->o.hh.gen = gen;
    p->o.hh.ver = hh_ver + 1; /* the history restarts */
    p->step = -1;
    p->greedy_cost = p->cost = 0;
    p->next = 0;
    if (model_like(&p->m, run, &err)) {
        snprintf(p->o.err, sizeof p->o.err, "%s", err.msg);
        return -1;
    }
    p->have_m = 1;
    const TfConfig *c = &p->m.cfg;
    int T = c->max_len < 8 ? c->max_len : 8; /* small: the traces grow with the probe */
    if (trace_build(&p->gtr, c, 1, T, 0, &err) == 0)
        p->have_gtr = 1;
    if (p->have_gtr && trace_build(&p->htr, c, 1, T, TRACE_RECORD, &err) == 0)
        p->have_htr = 1;
    if (!p->have_htr || probe_encode(p, src, ref, &err)) {
        snprintf(p->o.err, sizeof p->o.err, "%s", err.msg);
        probe_free(p);
        return -1;
    }
    for (int a = 0; a < TP_ATTN_COUNT; a++)
        p->o.heads[a] = heads_of(c, (TpAttn)a);
    p->o.have = 1;
    return 0;
}

/* ---- what the model says on its own, a step at a time ----
 *
 * Greedy decoding, a little past the reference's length (enough to see
 * whether it stops in time). A base-size model takes tens of milliseconds a
 * step and a big one more (10 tokens: about 0.4 s and 0.7 s here), so the
 * probe decodes in pieces, like the session's targets: each call runs
 * steps while their weight reads stay within SES_DEC_FRAME_BYTES, at least
 * one (a classroom model still decodes in one call), and the worker looks
 * at its commands in between. New parameters in m cancel a decoding in
 * flight (tp_greedy_cancel). */

static void dec_shown(TrainProbe *p)
{
    p->o.decoding = p->dec_on;
    p->o.dec_t = p->dec_on ? p->dec.t : 0;
    p->o.dec_max = p->dec_on ? p->dec.max_out : 0;
}

void tp_greedy_cancel(TrainProbe *p)
{
    if (p->dec_on)
        tf_dec_free(&p->dec);
    p->dec_on = 0;
    dec_shown(p);
}

static void probe_fail(TrainProbe *p, const TfErr *err)
{
    tp_greedy_cancel(p);
    snprintf(p->o.err, sizeof p->o.err, "%s", err->msg);
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
            p->o.out_n = r.n < TP_CAP_T ? r.n : TP_CAP_T;
            memcpy(p->o.out, r.ids, (size_t)p->o.out_n * sizeof(int));
            p->o.out_step = p->dec_for;
            decode_result_free(&r);
        } else {
            snprintf(p->o.err, sizeof p->o.err, "%s", err.msg);
        }
    }
    p->greedy_cost += tf_seconds() - t0;
    dec_shown(p);
    return p->dec_on;
}

void tp_greedy(TrainProbe *p)
{
    TfErr err;
    tp_greedy_cancel(p);
    if (!p->have_m || p->S < 1 || p->step < 0)
        return;
    p->greedy_cost = 0;
    double t0 = tf_seconds();
    DecodeOpts o;
    decode_opts_default(&o);
    o.max_out = decode_max_out(&p->m, &p->gtr, p->S);
    if (o.max_out > p->o.ref_n + 3)
        o.max_out = p->o.ref_n + 3;
    o.no_trace = 1; /* only the tokens are shown */
    if (tf_dec_start(&p->dec, &p->m, &p->gtr, p->src, p->S, &o, 0, &err)) {
        snprintf(p->o.err, sizeof p->o.err, "%s", err.msg);
        return;
    }
    p->dec_on = 1;
    p->dec_for = p->step;
    p->dec_steps++; /* the encoder counts as a step */
    p->greedy_cost = tf_seconds() - t0;
    dec_shown(p);
}

/* ---- the teacher-forced pass ---- */

float *tp_params(TrainProbe *p)
{
    return p->have_m ? p->m.block : NULL;
}

/* q made for this run: a trace and the vocabularies that label it. */
static int pass_ready(TrainProbe *p, TpPass *q, TfErr *err)
{
    if (q->gen == p->gen && q->have_tr && q->have_labels)
        return 0;
    tp_pass_free(q);
    const TfConfig *c = &p->m.cfg;
    int T = c->max_len < 8 ? c->max_len : 8;
    if (trace_build(&q->tr, c, 1, T, TRACE_RECORD, err))
        return -1;
    q->have_tr = 1;
    memset(&q->labels, 0, sizeof q->labels);
    q->labels.cfg = *c;
    if (vocab_copy(&q->labels.src_vocab, &p->m.src_vocab, err) ||
        vocab_copy(&q->labels.tgt_vocab, &p->m.tgt_vocab, err)) {
        model_free(&q->labels);
        return -1;
    }
    q->have_labels = 1;
    q->gen = p->gen;
    return 0;
}

static void hh_record(TrainProbe *p, const TfTrace *tr, long long step);

int tp_pass(TrainProbe *p, TpPass *q, long long step, float loss, int with_greedy)
{
    TfErr err;
    if (!p->o.have || p->S < 1)
        return -1;
    double t0 = tf_seconds();
    tp_greedy_cancel(p); /* m has other parameters */
    p->step = step;
    p->loss = loss;
    p->o.err[0] = 0;
    if (pass_ready(p, q, &err)) {
        snprintf(p->o.err, sizeof p->o.err, "%s", err.msg);
        return -1;
    }
    /* teacher forced: <bos> + the reference, the pass training makes */
    if (tf_teacher_forced(&p->m, &q->tr, p->src, p->S, p->o.ref, p->o.ref_n, NULL, NULL, NULL, &err)) {
        snprintf(p->o.err, sizeof p->o.err, "%s", err.msg);
        return -1;
    }
    q->step = step;
    q->loss = loss;
    q->ver = ++p->ver;
    hh_record(p, &q->tr, step); /* its heads' entropy, for the curve */
    if (with_greedy) {
        tp_greedy(p);
        tp_greedy_steps(p, 0);
    }
    p->cost = tf_seconds() - t0;
    return 0;
}

int tp_copy_model(const TrainProbe *p, long long step, TfModel *out, TfErr *err)
{
    if (!p->have_m || step < 0)
        return tf_fail(err, "%s", _("no model to open yet"));
    if (model_like(out, &p->m, err))
        return -1;
    memcpy(out->block, p->m.block, out->n_params * sizeof(float));
    return 0;
}

/* ---- head entropy over training ---- */

TfAttnKind tp_attn_kind(TpAttn a)
{
    return a == TP_ENC ? TF_ATTN_ENC : a == TP_DEC ? TF_ATTN_DEC : TF_ATTN_CROSS;
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

/* Record the heads of tr (a teacher-forced pass of the probe) at step. */
static void hh_record(TrainProbe *p, const TfTrace *tr, long long step)
{
    TpHeadHist *h = &p->o.hh;
    int at = hh_slot(h, step);
    if (at < 0)
        return; /* already there */
    int NH = p->m.cfg.n_heads;
    for (int a = 0; a < TP_ATTN_COUNT; a++) {
        int n = p->o.heads[a];
        for (int k = 0; k < n; k++) {
            TfHeadMetrics m;
            TfErr err;
            h->H[at][a][k] = tf_head_metrics(tr, tp_attn_kind((TpAttn)a), k / NH, k % NH, 0, &m, &err)
                                 ? NAN
                                 : (float)m.entropy;
        }
    }
    int keys = p->S > p->o.ref_n + 1 ? p->S : p->o.ref_n + 1;
    h->H_max = keys > 1 ? logf((float)keys) : 1.0f;
    h->ver++;
}

void tp_hh_snapshot(TrainProbe *p, const TfModel *m, long long step)
{
    TfErr err;
    if (!p->o.have || p->S < 1 || !p->have_htr)
        return;
    /* the probe's teacher-forced pass (its start token, its checks) */
    if (tf_teacher_forced(m, &p->htr, p->src, p->S, p->o.ref, p->o.ref_n, NULL, NULL, NULL, &err) == 0)
        hh_record(p, &p->htr, step);
}
