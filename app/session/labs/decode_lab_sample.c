/* decode_lab_sample.c - the decode lab's own decodings, a budget a call:
 * the greedy generation with the tokens the learner forced, and the
 * translations sampling draws; and the distribution the sampling pane
 * shows.
 *
 * Sampling. Instead of taking the most probable token, draw it from
 * softmax(z / T): the scores z divided by a temperature T before the
 * softmax. T < 1 sharpens the distribution (T -> 0 is greedy), T > 1
 * flattens it; top-k keeps only the k most probable tokens, top-p the
 * smallest set whose probability reaches p. The bars are that distribution
 * for the next token after the inspected step's prefix; a draw makes a
 * whole new translation as tf_translate does (DecodeOpts.sample), each with
 * the next seed.
 *
 * Forcing. A token put at a generation step whatever the model prefers,
 * and generation goes on from that prefix: exposure bias made visible
 * (does the model recover from a prefix it never produced itself?). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode_lab.h"
#include "decode_lab_impl.h"
#include "topk.h"

/* ---- generation, with forced tokens ---- */

int dlab_gen_start(const Session *s, DecodeLab *L, TfErr *err)
{
    DlabSample *m = &L->smp;
    if (m->force.n_force && (m->force_version != L->version || m->force_batch != L->batch)) {
        m->force.n_force = 0; /* made for another input */
        m->force_sel = -1;
    }
    DecodeOpts o;
    if (m->force.n_force)
        o = m->force;
    else
        decode_opts_default(&o);
    o.beam = 1;
    o.max_out = L->max_out;
    o.no_trace = 1; /* teacher forcing fills the trace next */
    dlab_gen_stop(L);
    if (tf_dec_start(&L->gdec, &s->model, &L->tr, L->src, L->S, &o, 1, err))
        return -1;
    L->gen_on = L->pending = 1;
    L->gen_steps++; /* the encoder counts as a step */
    return 0;
}

/* This call's steps of a decoding the lab runs (the generation or a draw):
 * within SES_DEC_FRAME_BYTES in the window, all of them headless; steps
 * counted in L->gen_steps. 1 when it is ready to hand over, 0 when the next
 * call was asked for (more steps, or the hand-over: in the window a call
 * that finished the steps leaves it to the next), -1 with err (the caller
 * stops it). */
static int run_steps(DecodeLab *L, TfDecoder *dec, int may, TfErr *err)
{
    if (dec->done)
        return 1;
    int lazy = may == SES_BUDGET, t = dec->t;
    int rc = tf_dec_run(dec, lazy ? SES_DEC_FRAME_BYTES : 0, err);
    L->gen_steps += (unsigned)(dec->t - t);
    if (rc < 0)
        return -1;
    if (rc == 0 || lazy) {
        L->busy = 1;
        return 0;
    }
    return 1;
}

int dlab_gen_advance(DecodeLab *L, int may, TfErr *err)
{
    if (!L->gen_on)
        return 1;
    int rc = run_steps(L, &L->gdec, may, err); /* then teacher forcing */
    if (rc < 0) {
        L->gen_on = L->pending = 0;
        tf_dec_free(&L->gdec);
        return -1;
    }
    if (rc == 0)
        return 0;
    L->gen_on = L->pending = 0;
    decode_result_free(&L->gen);
    L->gen_steps++; /* the hand-over (no final pass) */
    return tf_dec_finish(&L->gdec, &L->gen, NULL, err) ? -1 : 1;
}

void dlab_gen_stop(DecodeLab *L)
{
    if (L->gen_on)
        tf_dec_free(&L->gdec);
    L->gen_on = 0;
}

void dlab_force(DecodeLab *L, int s, int id)
{
    DlabSample *m = &L->smp;
    int n = 0;
    for (int i = 0; i < m->force.n_force; i++) /* keep what was forced before s */
        if (m->force.force[i].step < s)
            m->force.force[n++] = m->force.force[i];
    m->force.n_force = n;
    if (n < DEC_MAX_FORCE)
        m->force.force[m->force.n_force++] = (DecodeForce){s, id};
    m->force_version = L->version;
    m->force_batch = L->batch;
    m->force_sel = s;
    L->version = 0; /* generate again on the next update */
}

void dlab_unforce(DecodeLab *L)
{
    if (!L->smp.force.n_force)
        return;
    L->smp.force.n_force = 0;
    L->smp.force_sel = -1;
    L->version = 0;
}

/* ---- the draws ---- */

static void free_bufs(DlabSample *m)
{
    free(m->logits); /* the block of all three distributions */
    free(m->work);
    free(m->banned);
    m->logits = m->dist = m->own = NULL;
    m->work = NULL;
    m->banned = NULL;
    m->V = 0;
    m->bars_seq = 0;
}

void dlab_sample_free(DlabSample *m)
{
    dlab_sample_stop(m);
    if (m->have_str) {
        trace_free(&m->str);
        trace_free(&m->dtr);
    }
    m->have_str = 0;
    free_bufs(m);
}

/* The traces: str for the bars' teacher-forced pass, dtr for the draw in
 * flight (both 1 sentence, nothing recorded). */
static int ensure_str(DecodeLab *L, TfErr *err)
{
    DlabSample *m = &L->smp;
    if (m->have_str && memcmp(&m->str.cfg, &L->cfg, sizeof L->cfg) == 0)
        return 0;
    dlab_sample_stop(m); /* it decodes in dtr */
    int have_dtr = m->have_str;
    if (dlab_trace_for(&m->str, &m->have_str, &L->cfg, 1, 0, err) ||
        dlab_trace_for(&m->dtr, &have_dtr, &L->cfg, 1, 0, err)) {
        if (m->have_str)
            trace_free(&m->str);
        if (have_dtr)
            trace_free(&m->dtr);
        m->have_str = 0;
        return -1;
    }
    return 0;
}

void dlab_sample_stop(DlabSample *m)
{
    if (m->sdec_on)
        tf_dec_free(&m->sdec);
    m->sdec_on = 0;
}

int dlab_draw(DecodeLab *L, const Session *s, const DlabInput *in)
{
    DlabSample *m = &L->smp;
    TfErr err;
    m->err[0] = 0;
    if (L->err[0] || L->S < 1)
        return -1;
    if (m->samples_version != L->version)
        m->n_samples = 0; /* drawn for another input */
    m->samples_version = L->version;
    if (ensure_str(L, &err)) {
        snprintf(m->err, sizeof m->err, "%s", err.msg);
        return -1;
    }
    DecodeOpts o; /* what tf_translate does with these options, a step at a time */
    decode_opts_default(&o);
    o.sample = 1;
    o.sampling = in->sampling;
    o.seed = m->seed;
    o.max_out = L->max_out;
    o.no_trace = 1; /* only the tokens are shown */
    dlab_sample_stop(m); /* a draw in flight starts again */
    m->dtr.exp = L->tr.exp; /* under the experiment, as the lab decodes */
    if (tf_dec_start(&m->sdec, &s->model, &m->dtr, L->src, L->S, &o, 0, &err)) {
        snprintf(m->err, sizeof m->err, "%s", err.msg);
        return -1;
    }
    m->sdec_on = 1;
    L->gen_steps++; /* the encoder counts as a step */
    if (s->lazy) { /* the window: its steps from the next call on */
        L->busy = 1;
        return 0;
    }
    dlab_draw_advance(L, SES_ALL); /* headless: all now */
    return m->err[0] ? -1 : 0;
}

void dlab_draw_advance(DecodeLab *L, int may)
{
    DlabSample *m = &L->smp;
    TfErr err;
    if (!m->sdec_on)
        return;
    int rc = run_steps(L, &m->sdec, may, &err);
    if (rc < 0) {
        dlab_sample_stop(m);
        snprintf(m->err, sizeof m->err, "%s", err.msg);
        return;
    }
    if (rc == 0)
        return;
    DecodeResult r = {0};
    m->sdec_on = 0;
    L->gen_steps++;
    if (tf_dec_finish(&m->sdec, &r, NULL, &err)) {
        snprintf(m->err, sizeof m->err, "%s", err.msg);
        return;
    }
    int keep = m->n_samples < DLAB_N_SAMPLES ? m->n_samples : DLAB_N_SAMPLES - 1;
    for (int i = keep; i > 0; i--) { /* the newest first */
        memcpy(m->sample_ids[i], m->sample_ids[i - 1], sizeof m->sample_ids[i]);
        m->sample_n[i] = m->sample_n[i - 1];
        m->sample_lp[i] = m->sample_lp[i - 1];
        m->sample_seed[i] = m->sample_seed[i - 1];
    }
    m->sample_n[0] = r.n < DLAB_CAP_T ? r.n : DLAB_CAP_T;
    memcpy(m->sample_ids[0], r.ids, (size_t)m->sample_n[0] * sizeof(int));
    m->sample_lp[0] = r.logprob;
    m->sample_seed[0] = m->seed;
    m->n_samples = keep + 1;
    m->seed++;
    decode_result_free(&r);
}

DlabProgress dlab_draw_progress(const DecodeLab *L)
{
    DlabProgress p = {0};
    const TfDecoder *d = &L->smp.sdec;
    if (L->smp.sdec_on)
        p = (DlabProgress){1, 0, d->t, d->max_out, d->res.ids, d->res.n};
    return p;
}

/* ---- the bars ---- */

/* The buffers of the bars for a vocabulary of V: 0, or -1 out of memory. */
static int ensure_bufs(const TfModel *mod, DlabSample *m)
{
    int V = mod->cfg.tgt_vocab;
    if (m->V == V)
        return 0;
    free_bufs(m);
    m->logits = malloc(3 * (size_t)V * sizeof(float)); /* the logits, dist and own in one block */
    m->work = malloc((size_t)V * sizeof *m->work);
    m->banned = malloc((size_t)V);
    m->V = m->logits && m->work && m->banned ? V : 0;
    if (m->V) {
        m->dist = m->logits + V;
        m->own = m->logits + 2 * (size_t)V;
    }
    m->logits_at = -1;
    if (!m->V)
        return -1;
    decode_sample_banned(&mod->cfg, m->banned); /* as the draws: never <pad> or <bos> */
    return 0;
}

/* The logits of the next token after the inspected step's prefix
 * (<bos> + the generated tokens before it): a teacher-forced pass over the
 * prefix, redone only when the input or the prefix changes, in the window
 * a budget of pieces a call (NULL with bars_wait set until it is complete). */
static const float *next_logits(const Session *s, DecodeLab *L, int sel, int may)
{
    DlabSample *m = &L->smp;
    const TfModel *mod = &s->model;
    int V = mod->cfg.tgt_vocab;
    int at = sel >= 0 ? sel : 0;
    if (at > L->gen.n)
        at = L->gen.n;
    if (ensure_bufs(mod, m))
        return NULL;
    int same = m->logits_at == at && m->logits_version == L->version && m->prefix_n == at &&
               memcmp(m->prefix, L->gen.ids, (size_t)at * sizeof(int)) == 0;
    if (same)
        return m->logits;
    m->logits_at = -1;
    if (at >= DLAB_CAP_T - 1)
        return NULL;
    TfErr err;
    int running = m->lg_on && m->lg_version == L->version && m->lg_T == at + 1 && m->lg_S == L->S &&
                  memcmp(m->lg_in + 1, L->gen.ids, (size_t)at * sizeof(int)) == 0;
    if (!running) { /* <bos> + the prefix, under the lab's experiment */
        if (ensure_str(L, &err))
            return NULL;
        m->str.exp = L->tr.exp;
        m->lg_S = L->S;
        m->lg_T = at + 1;
        m->lg_in[0] = cfg_start_id(&mod->cfg);
        memcpy(m->lg_in + 1, L->gen.ids, (size_t)at * sizeof(int));
        TfBatch in = {1, m->lg_S, m->lg_T, L->src, m->lg_in, &m->lg_S, &m->lg_T};
        ses_pass_start(&m->lgp, &in);
        m->lg_on = 1;
        m->lg_version = L->version;
    }
    if (may == SES_BUDGET && m->sdec_on) { /* a draw spends this call's budget: the bars after it */
        m->bars_wait = 1;
        return NULL;
    }
    double spent = 0;
    int rc = ses_pass_run(mod, &m->str, &m->lgp, may, &spent, &err);
    if (rc == 0) {
        m->bars_wait = 1;
        return NULL;
    }
    m->lg_on = 0;
    if (rc < 0)
        return NULL;
    memcpy(m->logits, m->str.logits + (size_t)at * V, (size_t)V * sizeof(float));
    m->logits_seq++; /* the bars follow (bars_for) */
    memcpy(m->prefix, L->gen.ids, (size_t)at * sizeof(int));
    m->prefix_n = at;
    m->logits_at = at;
    m->logits_version = L->version;
    return m->logits;
}

/* The bars' numbers: the distribution sampling draws from with o and the
 * model's own (T = 1), the DLAB_SHOW_K most probable; computed when the
 * logits or a setting change, not every call. */
static void bars_for(DlabSample *m, const float *z, SampleOpts o)
{
    SampleOpts one = {1.0f, 0, 1.0f};
    if (m->bars_seq == m->logits_seq && memcmp(&m->bars_opts, &o, sizeof o) == 0)
        return;
    m->bars_seq = m->logits_seq;
    m->bars_opts = o;
    m->bars_made++;
    int V = m->V;
    m->n_set = sample_dist(z, V, &o, m->banned, m->dist, m->work);
    sample_dist(z, V, &one, m->banned, m->own, m->work);
    float p[DLAB_SHOW_K];
    int n = tf_top_k(m->dist, V, DLAB_SHOW_K, m->bar_id, p);
    while (n > 0 && !(p[n - 1] > 0)) /* only tokens in the set */
        n--;
    m->n_bars = n;
    for (int i = 0; i < n; i++) {
        m->bar_p[i] = p[i];
        m->bar_own[i] = m->own[m->bar_id[i]];
    }
}

void dlab_bars(const Session *s, DecodeLab *L, const DlabInput *in, int may)
{
    const float *z = next_logits(s, L, in->sel, may);
    if (z)
        bars_for(&L->smp, z, in->sampling);
}
