/* session_exp.c - with an experiment on: the Session's normal pass on the
 * same input and the greedy translation under the experiment, made in
 * pieces after the shown pass (SesExtras in session.h). */
#include <stdio.h>
#include <string.h>

#include "session.h"
#include "session_int.h"
#include "text.h"

int session_has_exp(const Session *s)
{
    return !tf_exp_is_none(&s->exp);
}

void ses_exp_cancel(Session *s)
{
    if (s->ext.dec_on)
        tf_dec_free(&s->ext.dec);
    s->ext.dec_on = 0;
    s->ext.phase = 0;
    s->ext.enc = 0;
}

/* ---- with an experiment: the normal pass and the translation, in pieces ----
 *
 * After the shown pass (under the experiment) the normal pass on the same
 * input is made a unit at a time (unless it is there already: only the
 * experiment changed; its output some rows a piece), then the greedy
 * translation under the experiment a step at a time (its source encoded
 * a layer a piece first, unless the shown pass encoded exactly it). Each
 * call runs pieces while their cost (session.h) stays within
 * SES_DEC_FRAME_BYTES, at least one, so a base-size model never holds a
 * frame for a whole pass or a whole sentence. */

int session_exp_pending(const Session *s)
{
    return session_has_exp(s) && s->ext.pending && !s->input_error[0];
}

/* What the next piece costs (what the budget counts). */
static double exp_piece_bytes(const Session *s)
{
    const TfConfig *c = &s->model.cfg;
    if (s->ext.phase == 2 && !s->ext.dec_on)
        return ses_dec_begin_cost(s, 0, &s->exp, s->ext.enc);
    if (s->ext.phase == 2)
        return s->ext.dec.done ? 0 : kv_step_bytes(c);
    return ses_pass_piece_cost(&s->model, &s->ext.base, &s->ext.pass);
}

/* The translation under this experiment was made before for the same
 * sentence and model: take it (1), else 0. */
static int exp_translation_kept(Session *s)
{
    const char *t = ses_kept_find(&s->ext.kept, ses_target_key(s, 0), &s->exp);
    if (!t)
        return 0;
    snprintf(s->translation, sizeof s->translation, "%s", t);
    s->ext.pending = 0;
    return 1;
}

/* One piece of the normal pass into s->ext.base (SesPass); 0, or -1 with err. */
static int base_unit(Session *s, TfErr *err)
{
    const TfModel *m = &s->model;
    if (s->ext.pass.unit == 0) {
        s->ext.have_base = 0;
        memset(&s->ext.base.exp, 0, sizeof s->ext.base.exp);
        TfBatch in = {s->n_src, s->pad.S, s->pad.T, s->pad.src, s->pad.tgt, s->src_n, s->tgt_n};
        ses_pass_start(&s->ext.pass, &in);
    }
    if (ses_pass_piece(m, &s->ext.base, &s->ext.pass, err))
        return -1;
    if (ses_pass_done(m, &s->ext.pass)) {
        s->ext.have_base = 1;
        s->ext.base_key = ses_input_key(s);
        s->ext.base_passes++;
        s->ext.phase = exp_translation_kept(s) ? 0 : 2;
    }
    return 0;
}

/* The greedy translation of sentence 0 under the experiment: starting it,
 * its decoder steps within budget bytes (0: all; tf_dec_run), or handing it
 * over. The pieces run, or -1 with err. */
static int exp_translate_step(Session *s, double budget, TfErr *err)
{
    if (!s->ext.dec_on) {
        DecodeOpts o;
        decode_opts_default(&o);
        o.no_trace = 1; /* only the tokens are wanted */
        s->scratch.exp = s->exp;
        int rc = ses_dec_begin(s, &s->ext.dec, 0, &o, 0, &s->ext.enc, err);
        if (rc < 0)
            return -1;
        s->ext.dec_on = rc;
        return 1;
    }
    if (!s->ext.dec.done) {
        int t = s->ext.dec.t;
        return tf_dec_run(&s->ext.dec, budget, err) < 0 ? -1 : s->ext.dec.t - t;
    }
    DecodeResult r;
    s->ext.dec_on = 0;
    s->ext.phase = 0;
    int rc = tf_dec_finish(&s->ext.dec, &r, NULL, err);
    memset(&s->scratch.exp, 0, sizeof s->scratch.exp);
    if (rc)
        return -1;
    tf_text_decode_to(&s->model, r.ids, r.n, s->translation, sizeof s->translation);
    decode_result_free(&r);
    s->ext.pending = 0;
    ses_kept_put(&s->ext.kept, ses_target_key(s, 0), &s->exp, s->translation);
    return 1;
}

int ses_exp_extras(Session *s, int may)
{
    TfErr err;
    double spent = 0;
    while (s->ext.phase) {
        double cost = exp_piece_bytes(s);
        if (!ses_fits(may, spent, cost))
            break;
        int n = 1, rc;
        if (s->ext.phase == 1) {
            rc = base_unit(s, &err);
        } else { /* decoder steps: as many as the rest of the budget holds */
            n = exp_translate_step(s, ses_budget_left(may, spent), &err);
            rc = n < 0 ? -1 : 0;
            n = n < 0 ? 0 : n;
        }
        spent += n * cost;
        s->ext.pieces += (unsigned)n;
        s->ext.bytes += n * cost;
        if (rc) {
            ses_exp_cancel(s);
            snprintf(s->input_error, sizeof s->input_error, "%s", err.msg);
            return -1;
        }
    }
    return s->ext.phase != 0;
}

void ses_exp_begin(Session *s)
{
    s->ext.pending = 1;
    s->ext.pass.unit = 0;
    s->ext.phase = s->ext.have_base && s->ext.base_key == ses_input_key(s) ? 2 : 1;
    if (s->ext.phase == 2 && exp_translation_kept(s))
        s->ext.phase = 0;
}
