/* decode_lab.c - the decode tab's computations (decode_lab.h): teacher
 * forcing beside greedy generation, and the results the tab shows, made
 * when the input, the model or a setting changes and otherwise kept. The
 * beam search and its tree are in decode_lab_beam.c, sampling and forcing
 * in decode_lab_sample.c.
 *
 * Training uses teacher forcing: the decoder reads <bos> + the TRUE target
 * and predicts every next token in one pass, the causal mask keeping each
 * position from peeking at the answer. Inference has no target: the decoder
 * reads its OWN earlier outputs and makes one token per step. A base-size
 * model takes tens of milliseconds a step, so in the window both run a
 * budget of weight reads a call (SES_DEC_FRAME_BYTES, at least one piece)
 * and the tab shows how far they have got; headless they run at once. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode_lab.h"
#include "decode_lab_impl.h"

DecodeLab *dlab_new(void)
{
    DecodeLab *L = calloc(1, sizeof *L);
    if (!L)
        return NULL;
    L->smp.seed = 1;
    L->smp.logits_at = -1;
    L->smp.force_sel = -1;
    L->sel_first = -1;
    decode_opts_default(&L->smp.force);
    return L;
}

void dlab_free(DecodeLab *L)
{
    if (!L)
        return;
    if (L->have_traces)
        trace_free(&L->tr);
    if (L->have_btr)
        trace_free(&L->btr);
    dlab_gen_stop(L);
    decode_result_free(&L->gen);
    dlab_beam_stop(L);
    beam_result_free(&L->beam);
    dlab_beam_free(L);
    dlab_sample_free(&L->smp);
    free(L);
}

int dlab_gen_input(const DecodeLab *L, int s)
{
    if (s <= 0)
        return L->start_id;
    return s <= L->gen.n ? L->gen.ids[s - 1] : -1; /* past the output: nothing read there */
}

/* The longest decoder input the lab handles for this model. */
static int lab_cap(const DecodeLab *L)
{
    return L->cfg.max_len < DLAB_CAP_T ? L->cfg.max_len : DLAB_CAP_T;
}

/* The lab's trace (1 sentence, recorded: teacher forcing and greedy) for
 * the model, made again only when its shape changes. */
static int ensure_traces(const TfModel *m, DecodeLab *L, TfErr *err)
{
    if (dlab_trace_for(&L->tr, &L->have_traces, &m->cfg, 1, TRACE_RECORD, err))
        return -1;
    L->cfg = m->cfg;
    return 0;
}

/* Where does generation first leave the reference, and where afterwards
 * does teacher forcing (reading the true prefix) predict something else
 * than generation (reading its own)? Prefer a position where teacher
 * forcing is right and generation is wrong: exposure bias in one row. */
static void find_divergence(DecodeLab *L)
{
    L->diverge = L->contrast = -1;
    if (!L->ref)
        return;
    int n = L->tf_n < L->gen.n ? L->tf_n : L->gen.n;
    for (int i = 0; i < n && L->diverge < 0; i++)
        if (L->gen.ids[i] != L->tf_truth[i])
            L->diverge = i;
    if (L->diverge < 0)
        return;
    int any = -1;
    for (int i = L->diverge + 1; i < n; i++) {
        if (L->tf_pred[i] == L->gen.ids[i])
            continue;
        if (any < 0)
            any = i;
        if (L->tf_pred[i] == L->tf_truth[i] && L->gen.ids[i] != L->tf_truth[i]) {
            L->contrast = i;
            return;
        }
    }
    L->contrast = any;
}

/* ---- the generation: the session's when it can be taken ---- */

/* The session decodes sentence 0 step by step between frames (session.c):
 * take its decode (every step's attention rows included) instead of
 * decoding it a second time. 1 taken, 0 the session is still decoding
 * (L->pending set), -1 the lab must decode itself (another sentence or
 * length). */
static int from_session(const Session *s, DecodeLab *L, int b)
{
    L->pending = 0;
    if (b != 0 || L->S != s->src_n[0])
        return -1; /* only sentence 0 keeps its steps */
    if (session_decoding(s, NULL, NULL)) {
        L->pending = 1;
        return 0;
    }
    if (s->greedy.n < 1 || !s->greedy.steps || s->greedy.S != L->S)
        return -1;
    const TfConfig *c = &s->model.cfg;
    return decode_result_copy(&L->gen, &s->greedy, c->n_dec, c->n_heads) == 0 ? 1 : -1;
}

/* The decoding the lab waited for has ended: compute again. */
static int session_decoded(const Session *s, const DecodeLab *L)
{
    return L->pending && !L->gen_on && !session_decoding(s, NULL, NULL);
}

/* ---- teacher forcing ---- */

/* Is the lab's own teacher forcing in L->tr the pass over target[0..n)? */
static int own_tf_is(const DecodeLab *L, const int *target, int n)
{
    return L->tfo_done && L->tfo_T == n + 1 && L->tfo_S == L->S &&
           memcmp(L->tfo_in + 1, target, (size_t)n * sizeof(int)) == 0;
}

/* Start the lab's own teacher forcing of <bos> + target[0..n) in L->tr
 * (SesPass: a budget of pieces a call, tf_advance; all now when headless).
 * 0, or -1 with err. */
static int own_tf_start(const TfModel *m, DecodeLab *L, const int *target, int n, TfErr *err)
{
    if (decode_check_src(m, L->src, L->S, 1, err))
        return -1;
    L->tfo_T = n + 1;
    L->tfo_S = L->S;
    L->tfo_in[0] = cfg_start_id(&m->cfg); /* <bos>, or MarianMT's <pad> */
    memcpy(L->tfo_in + 1, target, (size_t)n * sizeof(int));
    TfBatch in = {1, L->tfo_S, L->tfo_T, L->src, L->tfo_in, &L->tfo_S, &L->tfo_T};
    ses_pass_start(&L->tfo, &in);
    L->tfo_on = 1;
    L->tfo_done = 0;
    L->tf_passes++;
    return 0;
}

/* The pieces of the lab's own teacher forcing that fit this call (may:
 * SES_BUDGET or SES_ALL): 1 when it is complete (or none runs), 0 when more
 * remain, -1 with err. */
static int tf_advance(const TfModel *m, DecodeLab *L, int may, TfErr *err)
{
    if (!L->tfo_on)
        return 1;
    double spent = 0;
    int rc = ses_pass_run(m, &L->tr, &L->tfo, may, &spent, err);
    if (rc != 0)
        L->tfo_on = 0;
    L->tfo_done = rc > 0;
    return rc;
}

/* Teacher forcing over <bos> + target[0..n): predictions, losses and the
 * mask the pass applied, copied out of the trace: the session's when its
 * pass is this one (L->tf_wait while the window still computes it between
 * frames), else the lab's own (L->tfo_on while it runs). */

/* -sum_k q(k) log p(k) for one row: q puts 1 - eps on y and eps / (V - 2)
 * on every token but y and pad (the training loss, core/train/loss.c). */
static double smoothed_ce(const float *p, int V, int y, int pad, float eps)
{
    double off = V > 2 ? (double)eps / (V - 2) : 0, h = 0;
    for (int k = 0; k < V; k++) {
        double q = k == y ? 1.0 - eps : k == pad ? 0.0 : off;
        if (q > 0)
            h -= q * log(p[k] > 1e-30f ? (double)p[k] : 1e-30);
    }
    return h;
}

static int teacher_force(const Session *s, DecodeLab *L, const int *target, int n, TfErr *err)
{
    const TfModel *m = &s->model;
    if (n > lab_cap(L) - 1)
        n = lab_cap(L) - 1;
    const TfTrace *tr = &L->tr;
    int ses = tf_exp_is_none(&L->tr.exp) ? session_teacher_forcing(s, L->src, L->S, target, n) : -1;
    L->tf_wait = ses == 0;
    if (L->tf_wait)
        return 0;
    if (ses > 0) {
        tr = &s->trace;
    } else if (!own_tf_is(L, target, n)) {
        if (own_tf_start(m, L, target, n, err))
            return -1;
        if (s->lazy)
            return 0; /* the window: L->tfo_on, a budget a call, shown when complete */
        if (tf_advance(m, L, SES_ALL, err) < 0) /* headless: all now */
            return -1;
    }
    tf_teacher_forced_read(m, tr, target, n, L->tf_pred, L->tf_truth, L->tf_loss);
    int T = n + 1, V = m->cfg.tgt_vocab;
    L->tf_n = T;
    L->tf_in[0] = cfg_start_id(&m->cfg);
    memcpy(L->tf_in + 1, target, (size_t)n * sizeof(int));
    /* B = 1: the mask is (T, T), the same in every layer */
    memcpy(L->tf_mask, tr->dec[0].sa.mask, (size_t)T * T * sizeof(float));
    double sum = 0, smooth = 0;
    L->tf_right = 0;
    for (int i = 0; i < T; i++) {
        L->tf_pred_p[i] = tr->probs[(size_t)i * V + L->tf_pred[i]];
        sum += L->tf_loss[i];
        smooth += smoothed_ce(tr->probs + (size_t)i * V, V, L->tf_truth[i], cfg_pad_id(&m->cfg),
                              m->cfg.label_smoothing);
        L->tf_right += L->tf_pred[i] == L->tf_truth[i];
    }
    L->tf_mean_loss = (float)(sum / T);
    L->tf_smooth_loss = (float)(smooth / T);
    L->tf_eps = m->cfg.label_smoothing;
    double eps = L->tf_eps, off = V > 2 ? eps / (V - 2) : 0;
    L->tf_smooth_floor = eps > 0 && eps < 1 && off > 0 ? (float)(-(1 - eps) * log(1 - eps) - eps * log(off)) : 0;
    return 0;
}

/* ---- the results ---- */

/* With the generation in L->gen: teacher forcing beside it. */
static void compute_rest(const Session *s, DecodeLab *L)
{
    TfErr err;
    int b = L->batch >= 0 && L->batch < s->n_src ? L->batch : 0;
    /* the target: typed by the learner, else the model's own greedy output */
    L->ref = b == 0 && !s->tgt_auto;
    int rc;
    if (L->ref) {
        rc = teacher_force(s, L, s->tgt_ids[0] + 1, s->tgt_n[0] - 1, &err);
    } else {
        int n = L->gen.n;
        if (n > 0 && L->gen.ids[n - 1] == L->eos_id)
            n--;
        rc = teacher_force(s, L, L->gen.ids, n, &err);
    }
    if (rc) {
        snprintf(L->err, sizeof L->err, "%s", err.msg);
        return;
    }
    if (L->tf_wait || L->tfo_on) /* the session's pass or the lab's: shown when complete */
        return;
    find_divergence(L);
    const DlabSample *m = &L->smp;
    L->sel_first = L->gen.n - 1;
    L->sel_first_auto = 1;
    if (m->force.n_force && m->force_sel >= 0 && m->force_sel < L->gen.n) {
        L->sel_first = m->force_sel; /* the step just forced */
        L->sel_first_auto = 0;
    }
    L->made++;
}

static void compute(const Session *s, DecodeLab *L, const DlabInput *in)
{
    TfErr err;
    dlab_gen_stop(L); /* an edit or a new forcing cancels the generation in flight */
    dlab_sample_stop(&L->smp); /* ... and a draw */
    L->version = in->version;
    L->batch = in->batch;
    L->computes++;
    L->sel_first = -1;
    L->err[0] = 0;
    L->tf_n = 0;
    L->tf_wait = 0;
    L->tfo_on = L->tfo_done = 0; /* the pass in L->tr is no longer one to read */
    L->smp.lg_on = 0;            /* nor the bars' pass and logits, made from L->src and */
    L->smp.logits_at = -1;       /* L->tr.exp (a new sentence or experiment keeps version) */
    L->pending = 0; /* also on the early returns below: else every update computed again */
    L->diverge = L->contrast = -1;
    decode_result_free(&L->gen);
    L->beam_version = 0; /* the beam follows on demand */
    if (s->input_error[0]) {
        snprintf(L->err, sizeof L->err, "%s", s->input_error);
        if (L->have_traces)
            L->tr.exp = in->exp; /* nothing to decode under it, but it is the one asked for */
        return;
    }
    if (ensure_traces(&s->model, L, &err)) {
        snprintf(L->err, sizeof L->err, "%s", err.msg);
        return;
    }
    int b = in->batch >= 0 && in->batch < s->n_src ? in->batch : 0;
    L->S = s->src_n[b] < lab_cap(L) ? s->src_n[b] : lab_cap(L);
    memcpy(L->src, s->src_ids[b], (size_t)L->S * sizeof(int));
    L->max_out = decode_max_out(&s->model, &L->tr, L->S);
    L->start_id = cfg_start_id(&s->model.cfg);
    L->eos_id = cfg_eos_id(&s->model.cfg);
    L->tr.exp = in->exp; /* the experiment, unless the window shows the normal pass */
    /* the session's own greedy decoding, unless forced tokens or an experiment change it */
    int from = L->smp.force.n_force || !tf_exp_is_none(&L->tr.exp) ? -1 : from_session(s, L, b);
    if (from == 0) /* 1 taken, 0 still decoding, -1 do it here */
        return;
    if (from < 0 && dlab_gen_start(s, L, &err)) /* greedy, with the tokens the learner forced */
        snprintf(L->err, sizeof L->err, "%s", err.msg);
    else if (from > 0)
        compute_rest(s, L);
}

/* The experiment to decode under is not the one L->tr has (the normal
 * pass arrived, or the window toggled it): compute again. */
static int exp_changed(const DecodeLab *L, const DlabInput *in)
{
    return L->have_traces && !tf_exp_equal(&in->exp, &L->tr.exp);
}

/* Advance the work in flight that this call may run; started: the results
 * were computed again in this call and its first step was this call's. */
static void advance(const Session *s, DecodeLab *L, int may, int started)
{
    TfErr err;
    if (L->tf_wait && session_pass_ready(s, NULL, NULL))
        compute_rest(s, L); /* the session's teacher forcing is complete */
    if (L->tfo_on && !started) { /* the lab's own, a budget a call */
        int rc = tf_advance(&s->model, L, SES_BUDGET, &err);
        if (rc < 0)
            snprintf(L->err, sizeof L->err, "%s", err.msg);
        else if (rc > 0)
            compute_rest(s, L);
    }
    if (L->gen_on && !started) { /* the lab's own generation, a budget a call */
        int rc = dlab_gen_advance(L, may, &err);
        if (rc < 0)
            snprintf(L->err, sizeof L->err, "%s", err.msg);
        else if (rc > 0)
            compute_rest(s, L);
    }
    if (L->smp.sdec_on && !started)
        dlab_draw_advance(L, may);
}

void dlab_update(DecodeLab *L, const Session *s, const DlabInput *in, int may)
{
    L->busy = 0;
    L->smp.bars_wait = 0;
    int started = 0; /* the encoder was this call's step */
    if (L->version != in->version || L->batch != in->batch || session_decoded(s, L) || exp_changed(L, in)) {
        compute(s, L, in);
        started = L->gen_on && may == SES_BUDGET;
    }
    advance(s, L, may, started);
    if (in->want_beam && dlab_beam_wanted(L, in)) {
        dlab_beam_compute(s, L, in);
        if (L->beam_on && may == SES_BUDGET) { /* the encoder was this call's step */
            L->busy = 1;
            return;
        }
    }
    if (in->want_beam)
        dlab_beam_advance(L, may);
    if (in->want_bars && !L->err[0] && !L->pending && !L->tf_wait && !L->tfo_on)
        dlab_bars(s, L, in, may);
    L->busy |= L->gen_on || L->tfo_on || L->smp.sdec_on || L->beam_on || L->smp.bars_wait;
}

/* ---- progress ---- */

DlabProgress dlab_progress(const DecodeLab *L, const Session *s)
{
    DlabProgress p = {0};
    if (L->gen_on) { /* the lab's own: forced tokens or an experiment */
        p = (DlabProgress){1, 0, L->gdec.t, L->gdec.max_out, L->gdec.res.ids, L->gdec.res.n};
        return p;
    }
    if (L->tf_wait || L->tfo_on) { /* the generation is there, the pass beside it not yet */
        p.on = p.tf = 1;
        if (L->tfo_on)
            ses_pass_progress(&s->model, &L->tfo, &p.done, &p.total);
        else
            session_pass_ready(s, &p.done, &p.total);
        p.ids = L->gen.ids;
        p.n = L->gen.n;
        return p;
    }
    if (!L->pending)
        return p;
    p.on = 1;
    session_decoding(s, &p.done, &p.total);
    if (s->gdec.on && s->gdec.dec.res.n > 0) {
        p.ids = s->gdec.dec.res.ids;
        p.n = s->gdec.dec.res.n;
    }
    return p;
}
