/* view_decode_sample.c - the decode view's experiments (issue 12):
 *
 * Sampling. Instead of taking the most probable token, draw it from
 * softmax(z / T): the scores z divided by a temperature T before the
 * softmax. T < 1 sharpens the distribution (T -> 0 is greedy), T > 1
 * flattens it; top-k keeps only the k most probable tokens, top-p the
 * smallest set whose probability reaches p. The pane's bars are that
 * distribution for the next token after the inspected step's prefix and
 * follow the slider at once; Sample draws a whole new translation through
 * tf_translate (DecodeOpts.sample), each draw with the next seed.
 *
 * Forcing. A click on a top-k token of a generation step puts it there
 * whatever the model prefers, and generation goes on from that prefix:
 * exposure bias made visible (does the model recover from a prefix it
 * never produced itself?). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sample.h"
#include "view_decode.h"

#define SHOW_K DEC_SHOW_K

static const int TOPK_CHOICES[] = {0, 1, 5, 10, 40};
static const float TOPK_CHOICES_F[] = {0, 1, 5, 10, 40}; /* the same, for next_choice */
static const float TOPP_CHOICES[] = {1.0f, 0.95f, 0.9f, 0.5f};
#define N_TOPK ((int)(sizeof TOPK_CHOICES / sizeof TOPK_CHOICES[0]))
#define N_TOPP ((int)(sizeof TOPP_CHOICES / sizeof TOPP_CHOICES[0]))

void dec_sample_init(DecSample *m)
{
    m->temp = 1.0f;
    m->top_k = 0;
    m->top_p = 1.0f;
    m->seed = 1;
    m->logits_at = -1;
    m->force_sel = -1;
    decode_opts_default(&m->force);
}

static void dec_sample_free_bufs(DecSample *m)
{
    free(m->logits);
    free(m->dist);
    free(m->own);
    free(m->work);
    free(m->banned);
    m->logits = m->dist = m->own = NULL;
    m->work = NULL;
    m->banned = NULL;
    m->V = 0;
    m->bars_seq = 0;
}

void dec_sample_free(DecSample *m)
{
    dec_sample_stop(m);
    if (m->have_str) {
        trace_free(&m->str);
        trace_free(&m->dtr);
    }
    m->have_str = 0;
    dec_sample_free_bufs(m);
}

float dec_temp_at(float u)
{
    u = u < 0 ? 0 : u > 1 ? 1 : u;
    return DEC_T_MIN * powf(DEC_T_MAX / DEC_T_MIN, u);
}

float dec_temp_pos(float t)
{
    return logf(t / DEC_T_MIN) / logf(DEC_T_MAX / DEC_T_MIN);
}

/* ---- forcing ---- */

int dec_gen_start(const Scene *sc, DecodeUi *d, TfErr *err)
{
    DecSample *m = &d->smp;
    if (m->force.n_force && (m->force_version != sc->version || m->force_batch != sc->batch)) {
        m->force.n_force = 0; /* made for another input */
        m->force_sel = -1;
    }
    DecodeOpts o;
    if (m->force.n_force)
        o = m->force;
    else
        decode_opts_default(&o);
    o.beam = 1;
    o.max_out = d->max_out;
    o.no_trace = 1; /* teacher forcing fills the trace next */
    dec_gen_stop(d);
    if (tf_dec_start(&d->gdec, sc->model, &d->tr, d->src, d->S, &o, 1, err))
        return -1;
    d->gen_on = d->pending = 1;
    d->gen_steps++; /* the encoder counts as a step */
    return 0;
}

/* This frame's steps of a decoding the view runs (the generation or a
 * draw): within SES_DEC_FRAME_BYTES in the window, all of them headless;
 * steps counted in d->gen_steps. 1 when it is ready to hand over, 0 when
 * the next frame was asked for (more steps, or the hand-over: in the
 * window a frame that finished the steps leaves it to the next), -1 with
 * err (the caller stops it). */
static int run_steps(const Scene *sc, DecodeUi *d, TfDecoder *dec, ViewOut *out, TfErr *err)
{
    if (dec->done)
        return 1;
    int lazy = sc->ses->lazy, t = dec->t;
    int rc = tf_dec_run(dec, lazy ? SES_DEC_FRAME_BYTES : 0, err);
    d->gen_steps += (unsigned)(dec->t - t);
    if (rc < 0)
        return -1;
    if (rc == 0 || lazy) {
        if (out)
            out->wake_at = sc->now;
        return 0;
    }
    return 1;
}

int dec_gen_advance(ViewCtx *v, DecodeUi *d, TfErr *err)
{
    if (!d->gen_on)
        return 1;
    int rc = run_steps(v->s, d, &d->gdec, v->out, err); /* then teacher forcing */
    if (rc < 0) {
        d->gen_on = d->pending = 0;
        tf_dec_free(&d->gdec);
        return -1;
    }
    if (rc == 0)
        return 0;
    d->gen_on = d->pending = 0;
    decode_result_free(&d->gen);
    d->gen_steps++; /* the hand-over (no final pass) */
    return tf_dec_finish(&d->gdec, &d->gen, NULL, err) ? -1 : 1;
}

void dec_gen_stop(DecodeUi *d)
{
    if (d->gen_on)
        tf_dec_free(&d->gdec);
    d->gen_on = 0;
}

void dec_force(DecodeUi *d, int s, int id)
{
    DecSample *m = &d->smp;
    int n = 0;
    for (int i = 0; i < m->force.n_force; i++) /* keep what was forced before s */
        if (m->force.force[i].step < s)
            m->force.force[n++] = m->force.force[i];
    m->force.n_force = n;
    if (n < DEC_MAX_FORCE)
        m->force.force[m->force.n_force++] = (DecodeForce){s, id};
    m->force_version = d->version;
    m->force_batch = d->batch;
    m->force_sel = s;
    d->version = 0; /* generate again on the next dec_get */
}

void dec_unforce(DecodeUi *d)
{
    if (!d->smp.force.n_force)
        return;
    d->smp.force.n_force = 0;
    d->smp.force_sel = -1;
    d->version = 0;
}

void dec_force_click(ViewCtx *v, DecodeUi *d, Rect rc, int s, int id)
{
    if (ui_over(v->in, rc) && s >= 0 && s < d->gen.n && id != d->gen.ids[s])
        ren_rect_line(v->r, rc, 1, v->th->warn); /* a click would force it */
    if (ui_clicked(v->in, rc) && s >= 0 && s < d->gen.n && id >= 0 && id != d->gen.ids[s]) {
        dec_force(d, s, id);
        view_notice(v, 0, _("step %d forced to '%s': generation goes on from there"), s + 1, dec_tok(v->s, id));
    }
}

/* ---- under an experiment ---- */

/* The experiment the view decodes under: the session's once its normal
 * pass is there (sc->base), unless D shows the normal pass. */
static TfExperiment exp_wanted(const Scene *sc)
{
    TfExperiment e = {0};
    if (sc->base && sc->cmp != 1) /* experiment or difference: the experiment's decoding */
        e = sc->ses->exp;
    return e;
}

void dec_exp_apply(const Scene *sc, DecodeUi *d)
{
    d->tr.exp = exp_wanted(sc);
}

int dec_exp_changed(const Scene *sc, const DecodeUi *d)
{
    TfExperiment e = exp_wanted(sc);
    return d->have_traces && !tf_exp_equal(&e, &d->tr.exp);
}

int dec_exp_line(ViewCtx *v, DecodeUi *d, int x, int y, int w)
{
    const Scene *sc = v->s;
    if (!sc->base)
        return 0;
    (void)d;
    char desc[256], buf[2600];
    tf_exp_describe(&sc->ses->exp, desc, sizeof desc);
    const char *after = session_exp_pending(sc->ses) ? "…" : sc->ses->translation; /* still decoding */
    if (sc->cmp == 1)
        snprintf(buf, sizeof buf, _("the normal pass (D) · the experiment (%s) translates it as %s"), desc, after);
    else
        snprintf(buf, sizeof buf, _("decoding under the experiment (%s) · greedy before → after: %s → %s"), desc,
                 sc->ses->ext.base_translation, after);
    RenFont *f = v->g->small;
    ui_text_fit(v->r, f, buf, x, y, w, v->th->warn);
    return ren_font_height(f) + ui_px(v->g, 6);
}

/* ---- sampling ---- */

/* The pane's traces: str for the bars' teacher-forced pass, dtr for the
 * draw in flight (both 1 sentence, nothing recorded). */
static int ensure_str(DecodeUi *d, TfErr *err)
{
    DecSample *m = &d->smp;
    if (m->have_str && memcmp(&m->str.cfg, &d->cfg, sizeof d->cfg) == 0)
        return 0;
    dec_sample_stop(m); /* it decodes in dtr */
    if (m->have_str) {
        trace_free(&m->str);
        trace_free(&m->dtr);
    }
    m->have_str = 0;
    int T = d->cfg.max_len < DEC_TRACE_T0 ? d->cfg.max_len : DEC_TRACE_T0;
    if (trace_build(&m->str, &d->cfg, 1, T, 0, err))
        return -1;
    if (trace_build(&m->dtr, &d->cfg, 1, T, 0, err)) {
        trace_free(&m->str);
        return -1;
    }
    m->have_str = 1;
    return 0;
}

static SampleOpts sample_opts(const DecSample *m)
{
    SampleOpts o = {m->temp, m->top_k, m->top_p};
    return o;
}

void dec_sample_stop(DecSample *m)
{
    if (m->sdec_on)
        tf_dec_free(&m->sdec);
    m->sdec_on = 0;
}

int dec_sample_draw_one(const Scene *sc, DecodeUi *d)
{
    DecSample *m = &d->smp;
    TfErr err;
    m->err[0] = 0;
    if (d->err[0] || d->S < 1)
        return -1;
    if (m->samples_version != d->version)
        m->n_samples = 0; /* drawn for another input */
    m->samples_version = d->version;
    if (ensure_str(d, &err)) {
        snprintf(m->err, sizeof m->err, "%s", err.msg);
        return -1;
    }
    DecodeOpts o; /* what tf_translate does with these options, a step at a time */
    decode_opts_default(&o);
    o.sample = 1;
    o.sampling = sample_opts(m);
    o.seed = m->seed;
    o.max_out = d->max_out;
    o.no_trace = 1; /* only the tokens are shown */
    dec_sample_stop(m); /* a draw in flight starts again */
    m->dtr.exp = d->tr.exp; /* under the experiment, as the view decodes */
    if (tf_dec_start(&m->sdec, sc->model, &m->dtr, d->src, d->S, &o, 0, &err)) {
        snprintf(m->err, sizeof m->err, "%s", err.msg);
        return -1;
    }
    m->sdec_on = 1;
    d->gen_steps++; /* the encoder counts as a step */
    return sc->ses->lazy ? 0 : dec_sample_advance(sc, d, NULL); /* headless: all now */
}

int dec_sample_advance(const Scene *sc, DecodeUi *d, ViewOut *out)
{
    DecSample *m = &d->smp;
    TfErr err;
    if (!m->sdec_on)
        return 0;
    int rc = run_steps(sc, d, &m->sdec, out, &err);
    if (rc < 0) {
        dec_sample_stop(m);
        snprintf(m->err, sizeof m->err, "%s", err.msg);
        return -1;
    }
    if (rc == 0)
        return 0;
    DecodeResult r = {0};
    m->sdec_on = 0;
    d->gen_steps++;
    if (tf_dec_finish(&m->sdec, &r, NULL, &err)) {
        snprintf(m->err, sizeof m->err, "%s", err.msg);
        return -1;
    }
    int keep = m->n_samples < DEC_N_SAMPLES ? m->n_samples : DEC_N_SAMPLES - 1;
    for (int i = keep; i > 0; i--) { /* the newest first */
        memcpy(m->sample_ids[i], m->sample_ids[i - 1], sizeof m->sample_ids[i]);
        m->sample_n[i] = m->sample_n[i - 1];
        m->sample_lp[i] = m->sample_lp[i - 1];
        m->sample_seed[i] = m->sample_seed[i - 1];
    }
    m->sample_n[0] = r.n < DEC_CAP_T ? r.n : DEC_CAP_T;
    memcpy(m->sample_ids[0], r.ids, (size_t)m->sample_n[0] * sizeof(int));
    m->sample_lp[0] = r.logprob;
    m->sample_seed[0] = m->seed;
    m->n_samples = keep + 1;
    m->seed++;
    decode_result_free(&r);
    return 0;
}

/* The logits of the next token after the inspected step's prefix
 * (<bos> + the generated tokens before it): a teacher-forced pass over the
 * prefix, redone only when the input or the prefix changes, in the window
 * a budget of pieces a frame (NULL with *wait set until it is complete). */
static const float *next_logits(const Scene *sc, DecodeUi *d, int *at, int *wait)
{
    DecSample *m = &d->smp;
    int V = sc->model->cfg.tgt_vocab;
    *wait = 0;
    int s = d->sel >= 0 ? d->sel : 0;
    if (s > d->gen.n)
        s = d->gen.n;
    *at = s;
    if (m->V != V) {
        dec_sample_free_bufs(m);
        m->logits = malloc((size_t)V * sizeof(float));
        m->dist = malloc((size_t)V * sizeof(float));
        m->own = malloc((size_t)V * sizeof(float));
        m->work = malloc((size_t)V * sizeof *m->work);
        m->banned = malloc((size_t)V);
        m->V = m->logits && m->dist && m->own && m->work && m->banned ? V : 0;
        m->logits_at = -1;
        if (!m->V)
            return NULL;
        decode_sample_banned(&sc->model->cfg, m->banned); /* as the draws: never <pad> or <bos> */
    }
    int same = m->logits_at == s && m->logits_version == d->version && m->prefix_n == s &&
               memcmp(m->prefix, d->gen.ids, (size_t)s * sizeof(int)) == 0;
    if (same)
        return m->logits;
    m->logits_at = -1;
    if (s >= DEC_CAP_T - 1)
        return NULL;
    TfErr err;
    int running = m->lg_on && m->lg_version == d->version && m->lg_T == s + 1 && m->lg_S == d->S &&
                  memcmp(m->lg_in + 1, d->gen.ids, (size_t)s * sizeof(int)) == 0;
    if (!running) { /* <bos> + the prefix, under the view's experiment */
        if (ensure_str(d, &err))
            return NULL;
        m->str.exp = d->tr.exp;
        m->lg_S = d->S;
        m->lg_T = s + 1;
        m->lg_in[0] = cfg_start_id(&sc->model->cfg);
        memcpy(m->lg_in + 1, d->gen.ids, (size_t)s * sizeof(int));
        TfBatch in = {1, m->lg_S, m->lg_T, d->src, m->lg_in, &m->lg_S, &m->lg_T};
        ses_pass_start(&m->lgp, &in);
        m->lg_on = 1;
        m->lg_version = d->version;
    }
    if (sc->ses->lazy && m->sdec_on) { /* a draw spends this frame's budget: the bars after it */
        *wait = 1;
        return NULL;
    }
    double spent = 0;
    int rc = ses_pass_run(sc->model, &m->str, &m->lgp, sc->ses->lazy ? SES_BUDGET : SES_ALL, &spent, &err);
    if (rc == 0) {
        *wait = 1;
        return NULL;
    }
    m->lg_on = 0;
    if (rc < 0)
        return NULL;
    memcpy(m->logits, m->str.logits + (size_t)s * V, (size_t)V * sizeof(float));
    m->logits_seq++; /* the bars follow (bars_for) */
    memcpy(m->prefix, d->gen.ids, (size_t)s * sizeof(int));
    m->prefix_n = s;
    m->logits_at = s;
    m->logits_version = d->version;
    return m->logits;
}

/* ---- drawing ---- */

/* The temperature slider: a track on a log scale from DEC_T_MIN to
 * DEC_T_MAX; press or drag to set it. */
static void temp_slider(UiFlow *f, DecSample *m)
{
    ViewCtx *v = f->v;
    char buf[64];
    snprintf(buf, sizeof buf, _("temperature T = %.2f"), m->temp);
    ui_flow_text(f, buf, v->th->text);
    Rect rc = ui_flow_next(f, ui_px(v->g, 180));
    Rect track = {rc.x + 4, rc.y + rc.h / 2 - 2, rc.w - 8, 4};
    ren_rect(v->r, track, v->th->panel2);
    m->slider = track;
    /* T = 1, the model's own distribution, marked on the track */
    int x1 = track.x + (int)lroundf(dec_temp_pos(1.0f) * track.w);
    ren_rect(v->r, (Rect){x1, rc.y + 2, 1, rc.h - 4}, v->th->dim);
    if (v->in->pressed && ui_over(v->in, rc))
        m->dragging = 1;
    if (!v->in->down)
        m->dragging = 0;
    if (m->dragging)
        m->temp = dec_temp_at((float)(v->in->mx - track.x) / (float)(track.w > 1 ? track.w : 1));
    int kx = track.x + (int)lroundf(dec_temp_pos(m->temp) * track.w);
    ren_rect(v->r, (Rect){kx - 5, rc.y + 2, 10, rc.h - 4}, m->dragging ? v->th->select : v->th->accent);
}

void dec_sample_bar(UiFlow *f, DecodeUi *d)
{
    DecSample *m = &d->smp;
    ViewCtx *v = f->v;
    char buf[64];
    temp_slider(f, m);
    ui_flow_text(f, _("top-k"), v->th->dim);
    for (int i = 0; i < N_TOPK; i++) {
        if (TOPK_CHOICES[i])
            snprintf(buf, sizeof buf, "%d", TOPK_CHOICES[i]);
        else
            snprintf(buf, sizeof buf, "%s", _("all"));
        if (ui_flow_button(f, buf, m->top_k == TOPK_CHOICES[i]))
            m->top_k = TOPK_CHOICES[i];
    }
    ui_flow_text(f, _("top-p"), v->th->dim);
    for (int i = 0; i < N_TOPP; i++) {
        snprintf(buf, sizeof buf, "%g", TOPP_CHOICES[i]);
        if (ui_flow_button(f, buf, m->top_p == TOPP_CHOICES[i]))
            m->top_p = TOPP_CHOICES[i];
    }
    snprintf(buf, sizeof buf, _("seed %llu"), (unsigned long long)m->seed);
    ui_flow_text(f, buf, v->th->dim);
    if (ui_flow_button(f, "−", 0) && m->seed > 0)
        m->seed--;
    if (ui_flow_button(f, "+", 0))
        m->seed++;
    if (ui_flow_button(f, _("Sample  N"), 0))
        dec_sample_draw_one(v->s, d);
}

/* The bars' numbers: the distribution sampling draws from with the pane's
 * settings and the model's own (T = 1), the SHOW_K most probable; computed
 * when the logits or a setting change, not every frame. */
static void bars_for(DecSample *m, const float *z)
{
    SampleOpts o = sample_opts(m), one = {1.0f, 0, 1.0f};
    if (m->bars_seq == m->logits_seq && memcmp(&m->bars_opts, &o, sizeof o) == 0)
        return;
    m->bars_seq = m->logits_seq;
    m->bars_opts = o;
    m->bars_made++;
    int V = m->V;
    m->n_set = sample_dist(z, V, &o, m->banned, m->dist, m->work);
    sample_dist(z, V, &one, m->banned, m->own, m->work);
    float p[SHOW_K];
    int n = decode_top_k(m->dist, V, SHOW_K, m->bar_id, p);
    while (n > 0 && !(p[n - 1] > 0)) /* only tokens in the set */
        n--;
    m->n_bars = n;
    for (int i = 0; i < n; i++) {
        m->bar_p[i] = p[i];
        m->bar_own[i] = m->own[m->bar_id[i]];
    }
}

/* Bars of the distribution sampling draws from, the top SHOW_K, each with
 * the model's own probability (T = 1) as a thin mark beside it. */
static int draw_dist(ViewCtx *v, DecodeUi *d, Rect rc)
{
    const Scene *sc = v->s;
    const Theme *th = v->th;
    Gfx *g = v->g;
    DecSample *m = &d->smp;
    int at, wait;
    const float *z = next_logits(sc, d, &at, &wait);
    int sh = ren_font_height(g->small), lh = ren_font_height(g->ui);
    if (!z && wait) { /* the pass over the prefix: the rest in the next frames */
        ui_text_fit(v->r, g->small, _("computing the distribution of the next token…"), rc.x, rc.y, rc.w,
                    th->dim);
        if (v->out)
            v->out->wake_at = sc->now;
        return sh;
    }
    if (!z) {
        ui_text_fit(v->r, g->small, _("no distribution to show"), rc.x, rc.y, rc.w, th->warn);
        return sh;
    }
    bars_for(m, z);
    char buf[300];
    snprintf(buf, sizeof buf,
             _("after '%s' (step %d): softmax(z/T) over the %d tokens top-k and top-p keep; the thin mark is T = 1"),
             dec_tok(sc, at > 0 ? d->gen.ids[at - 1] : cfg_start_id(&sc->model->cfg)), at + 1, m->n_set);
    ui_text_fit(v->r, g->small, buf, rc.x, rc.y, rc.w, th->dim);
    int y = rc.y + sh + ui_px(g, 4), rh = lh + ui_px(g, 3);
    const int *id = m->bar_id;
    const float *p = m->bar_p, *p1 = m->bar_own;
    int n = m->n_bars;
    int lw = rc.w / 4, vw = ren_text_width(g->small, "0.000") + ui_px(g, 6), bw = rc.w - lw - vw;
    for (int i = 0; i < n && y + rh <= rc.y + rc.h; i++, y += rh) {
        const char *tok = dec_tok(sc, id[i]);
        int tw = ren_text_width(g->ui, tok);
        ui_text_fit(v->r, g->ui, tok, rc.x + (tw < lw - 8 ? lw - 8 - tw : 0), y + (rh - lh) / 2, lw - 8,
                    i == 0 ? th->select : th->text);
        int bh = rh - ui_px(g, 6);
        Rect track = {rc.x + lw, y + (rh - bh) / 2, bw, bh};
        ren_rect(v->r, track, th->panel2);
        if (i == 0) {
            m->bar0 = track;
            m->bar0_id = id[0];
        }
        ren_rect(v->r, (Rect){track.x, track.y, (int)lroundf(p[i] * bw), bh}, th->accent);
        int x1 = track.x + (int)lroundf(p1[i] * bw);
        ren_rect(v->r, (Rect){x1, track.y - 2, 2, bh + 4}, th->text);
        snprintf(buf, sizeof buf, "%.3f", p[i]);
        ren_text(v->r, g->small, buf, track.x + bw + 4, y + (rh - sh) / 2, th->text);
        if (ui_over(v->in, (Rect){rc.x, y, rc.w, rh}))
            ui_hover_own(v, p[i], _("p('%s') at T = %.2f (the model's own, T = 1: %.4f)"), tok, m->temp, p1[i]);
    }
    return y - rc.y;
}

static void draw_samples(ViewCtx *v, DecodeUi *d, Rect rc)
{
    const Scene *sc = v->s;
    const Theme *th = v->th;
    Gfx *g = v->g;
    DecSample *m = &d->smp;
    int sh = ren_font_height(g->small), lh = ren_font_height(g->ui), y = rc.y;
    if (m->err[0]) {
        y += ui_paragraph(v->r, g->small, m->err, rc.x, y, rc.w, th->warn);
    }
    if (m->sdec_on) { /* a draw in flight, a step a frame */
        char line[256];
        dec_progress_line(line, sizeof line, m->sdec.t, m->sdec.max_out);
        int h = ren_font_height(g->ui) * 2 + ui_px(g, 28);
        dec_draw_progress_of(v, (Rect){rc.x - ui_px(g, 10), y - ui_px(g, 10), rc.w + ui_px(g, 20), h}, line,
                             m->sdec.t, m->sdec.max_out, m->sdec.res.ids, m->sdec.res.n);
        y += h;
    }
    if (m->samples_version != d->version || !m->n_samples) {
        ui_paragraph(v->r, g->small, _("Sample (N) draws a translation token by token from these distributions."),
                     rc.x, y, rc.w, th->dim);
        return;
    }
    ui_text_fit(v->r, g->small, _("translations drawn (the newest first)"), rc.x, y, rc.w, th->dim);
    y += sh + 2;
    for (int i = 0; i < m->n_samples && y + lh <= rc.y + rc.h; i++, y += lh + 2) {
        char line[1200];
        int n = snprintf(line, sizeof line, _("seed %llu:"), (unsigned long long)m->sample_seed[i]);
        for (int k = 0; k < m->sample_n[i] && n < (int)sizeof line - 64; k++)
            n += snprintf(line + n, sizeof line - n, " %s", dec_tok(sc, m->sample_ids[i][k]));
        snprintf(line + n, sizeof line - n, _("   (log p %.2f)"), m->sample_lp[i]);
        ui_text_fit(v->r, g->ui, line, rc.x, y, rc.w, i == 0 ? th->text : th->dim);
    }
}

void dec_sample_pane(ViewCtx *v, DecodeUi *d, Rect rc)
{
    Gfx *g = v->g;
    RenFont *f = g->small;
    const char *what = _("T divides the scores z before the softmax: T below 1 sharpens the distribution "
                         "(T → 0 is greedy decoding), T above 1 flattens it, so rarer tokens get drawn. "
                         "Top-k keeps the k most probable tokens, top-p the fewest whose probability reaches p.");
    int wh = ui_paragraph(v->r, f, what, rc.x, rc.y, rc.w, v->th->dim) + ui_px(g, 8);
    Rect top = {rc.x, rc.y + wh, rc.w, (rc.h - wh) * 62 / 100};
    int used = draw_dist(v, d, top);
    int y = top.y + used + ui_px(g, 10);
    draw_samples(v, d, (Rect){rc.x, y, rc.w, rc.y + rc.h - y});
}

/* The index after cur's in c[0..n), round; 0 when cur is not there. */
static int next_choice(const float *c, int n, float cur)
{
    int i = 0;
    while (i < n && c[i] != cur)
        i++;
    return (i + 1) % n;
}

int dec_sample_act(ViewCtx *v, DecodeUi *d, ViewAct act, int arg)
{
    DecSample *m = &d->smp;
    switch (act) {
    case VA_TEMP:
        m->temp = arg < 0 ? m->temp / 1.25f : m->temp * 1.25f;
        m->temp = m->temp < DEC_T_MIN ? DEC_T_MIN : m->temp > DEC_T_MAX ? DEC_T_MAX : m->temp;
        return 1;
    case VA_TOP_K: m->top_k = TOPK_CHOICES[next_choice(TOPK_CHOICES_F, N_TOPK, (float)m->top_k)]; return 1;
    case VA_TOP_P: m->top_p = TOPP_CHOICES[next_choice(TOPP_CHOICES, N_TOPP, m->top_p)]; return 1;
    case VA_DRAW: dec_sample_draw_one(v->s, d); return 1;
    default: return 0;
    }
}
