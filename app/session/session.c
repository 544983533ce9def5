/* session.c - the Session (session.h): the stage walk and navigation, the
 * input lines into a padded batch, the recompute units, the greedy
 * translation, and loading or adopting a model (the experiment's pieces
 * are session_exp.c's). No SDL, nothing of the window. */
#include "session.h"
#include "session_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "finite.h"
#include "model_open.h"
#include "ops.h"
#include "ses_measure.h"
#include "text.h"

const char *(*session_tr)(const char *msgid);
/* _() marks a notice for the catalog (po/) and translates it through the
 * window's lookup, if any */
static const char *ses_tr(const char *msgid) { return session_tr ? session_tr(msgid) : msgid; }
#define _(s) ses_tr(s)

void session_msg(Session *s, int error, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->msg, sizeof s->msg, fmt, ap);
    va_end(ap);
    s->msg_error = error;
    s->msg_seq++;
}

/* ---- the stage walk ---- */

static void build_walk(Session *s)
{
    static unsigned walks; /* ids unique in the process, whatever App */
    s->walk_id = ++walks;
    int n = tf_walk_build(&s->model.cfg, s->walk, SES_MAX_STEPS);
    s->n_walk = n < SES_MAX_STEPS ? n : SES_MAX_STEPS;
}

StagePos session_pos(const Session *s)
{
    if (s->n_walk == 0)
        return (StagePos){ST_SRC_TOKENS, 0};
    return s->walk[s->at];
}


int session_goto(Session *s, StageId st, int layer)
{
    int best = -1;
    for (int i = 0; i < s->n_walk; i++) {
        if (s->walk[i].stage != st)
            continue;
        if (best < 0 || s->walk[i].layer == layer)
            best = i;
        if (s->walk[i].layer == layer)
            break;
    }
    if (best < 0 || best == s->at)
        return 0;
    s->at = best;
    return 1;
}

int session_step(Session *s, int delta)
{
    int at = s->at + delta;
    if (at < 0)
        at = 0;
    if (at >= s->n_walk)
        at = s->n_walk - 1;
    if (at == s->at)
        return 0;
    s->at = at;
    return 1;
}

int session_change_layer(Session *s, int delta)
{
    StagePos p = session_pos(s);
    int n = stage_layers(p.stage, &s->model.cfg);
    int l = p.layer + delta;
    if (l < 0 || l >= n)
        return 0;
    return session_goto(s, p.stage, l);
}

/* Tab: the same kind of stage on the other side, or the other side's start. */
int session_toggle_side(Session *s)
{
    StagePos p = session_pos(s);
    const StageInfo *si = stage_info(p.stage);
    const char *name = si->name;
    char other[64];
    if (strncmp(name, "enc.self.", 9) == 0)
        snprintf(other, sizeof other, "dec.self.%s", name + 9);
    else if (strncmp(name, "dec.self.", 9) == 0 || strncmp(name, "dec.cross.", 10) == 0)
        snprintf(other, sizeof other, "enc.self.%s", strchr(name + 4, '.') + 1);
    else if (strncmp(name, "enc.", 4) == 0)
        snprintf(other, sizeof other, "dec.%s", name + 4);
    else if (strncmp(name, "dec.", 4) == 0)
        snprintf(other, sizeof other, "enc.%s", name + 4);
    else if (strcmp(name, "src.tokens") == 0)
        snprintf(other, sizeof other, "tgt.tokens");
    else if (strcmp(name, "src.embed") == 0)
        snprintf(other, sizeof other, "tgt.embed");
    else if (strcmp(name, "enc.input") == 0)
        snprintf(other, sizeof other, "dec.input");
    else if (si->flags & SF_DECODER)
        snprintf(other, sizeof other, "src.tokens");
    else
        snprintf(other, sizeof other, "tgt.tokens");
    int id = stage_find(other);
    if (id < 0 || !stage_exists(id, &s->model.cfg))
        id = (si->flags & SF_DECODER) ? ST_SRC_TOKENS : ST_TGT_TOKENS;
    int n = stage_layers(id, &s->model.cfg);
    return session_goto(s, id, p.layer < n ? p.layer : n - 1);
}

int session_set_head(Session *s, int head)
{
    if (head >= s->model.cfg.n_heads)
        return 0;
    s->head = head;
    return 1;
}

int session_set_batch(Session *s, int b)
{
    /* before the pass of an edit the sentences are not counted yet (the
     * pass keeps b within them); after it, b must be one of them (a
     * sentence tab drawn before the × cleared the line) */
    if (b < 0 || b >= SES_MAX_SENT || (!s->dirty && b >= (s->n_src > 0 ? s->n_src : 1)))
        return 0;
    s->batch = b;
    return 1;
}

void session_set_lazy(Session *s, int on)
{
    s->lazy = on != 0;
}


void session_set_text(Session *s, int which, const char *text)
{
    char *dst = which == 1 ? s->tgt : s->src_line;
    snprintf(dst, SES_TEXT_MAX, "%s", text);
    s->dirty = 1;
}

static int cap_T(const Session *s)
{
    return s->model.cfg.max_len < SES_CAP_T ? s->model.cfg.max_len : SES_CAP_T;
}

/* Tokenise one line into ids, and where each token is in the text (spans
 * may be NULL; the views mark unknown words with them, so nothing splits
 * the text again per frame); 0 on success, -1 with input_error set. */
static int encode_line(Session *s, int tgt, const char *text, int *ids, TokSpan *spans,
                       int max, int *n, const char *what)
{
    TfErr err;
    int unk = 0;
    int k = tf_text_ids(&s->model, tgt, text, ids, spans, max, &unk, &err);
    if (k < 0) {
        snprintf(s->input_error, sizeof s->input_error, "%s: %s", what, err.msg);
        return -1;
    }
    if (k > max) {
        s->truncated = 1;
        k = max;
    }
    if (!tgt && k == 1 && s->model.cfg.kind == TF_KIND_MARIAN)
        k = 0; /* </s> alone: nothing typed */
    s->n_unk += unk;
    *n = k;
    return 0;
}

static void fill_pad(int *a, size_t n, int pad)
{
    for (size_t i = 0; i < n; i++)
        a[i] = pad;
}

/* ---- greedy decoding of the targets, step by step ----
 *
 * With no typed target the decoder reads each sentence's greedy
 * translation. A base-size model takes tens of milliseconds a step, so the
 * window decodes between frames: a frame (and each idle call) runs pieces
 * until their cost passes SES_DEC_FRAME_BYTES, at least one (a base-size
 * model: one step a frame; a small one a whole sentence). Starting is a
 * piece: the cache's cross-attention K/V of the encoder output, which is
 * the shown pass's when that pass encoded exactly this sentence alone
 * (then the same bits as `translate`), else the sentence is encoded first,
 * a layer a piece. Handing over costs nothing: the tokens and the steps are
 * kept, and the trace the decode view reads is the pass's own. An edit
 * cancels the decoding in flight. */

static void decode_cancel(Session *s)
{
    if (s->gdec.on)
        tf_dec_free(&s->gdec.dec);
    s->gdec.on = 0;
    s->gdec.sent = 0;
    s->gdec.enc = 0;
}

/* A piece ran: what it cost, for the budget and the tests. */
static void spend(Session *s, double *spent, double cost, unsigned n)
{
    *spent += cost;
    s->work += cost;
    s->pieces += n;
}

/* Sentence i's target was decoded before for the same sentence: 1, else 0. */
static int target_kept(const Session *s, int i)
{
    return ses_targets_has(&s->targets, i, ses_target_key(s, i)) && (i != 0 || s->greedy.steps);
}

/* Sentence i's target from the last decode of the same sentence: 1 taken,
 * 0 it must be decoded. */
static int reuse_target(Session *s, int i)
{
    if (!target_kept(s, i))
        return 0;
    memcpy(s->tgt_ids[i], s->targets.ids[i], (size_t)s->targets.n[i] * sizeof(int));
    s->tgt_n[i] = s->targets.n[i];
    if (i == 0) { /* the normal translation, whatever the experiment did to it */
        snprintf(s->translation, sizeof s->translation, "%s", s->targets.text);
        snprintf(s->ext.base_translation, sizeof s->ext.base_translation, "%s", s->targets.text);
    }
    return 1;
}

/* <bos> + the greedy translation r of source i (without <eos>). */
static void take_target(Session *s, int i, DecodeResult *r)
{
    s->tgt_ids[i][0] = cfg_start_id(&s->model.cfg);
    s->tgt_n[i] = 1;
    for (int k = 0; k < r->n && r->ids[k] != cfg_eos_id(&s->model.cfg) && s->tgt_n[i] < cap_T(s); k++)
        s->tgt_ids[i][s->tgt_n[i]++] = r->ids[k];
    ses_targets_keep(&s->targets, i, ses_target_key(s, i), s->tgt_ids[i], s->tgt_n[i]);
    if (i == 0) {
        tf_text_decode_to(&s->model, r->ids, r->n, s->translation, sizeof s->translation);
        snprintf(s->ext.base_translation, sizeof s->ext.base_translation, "%s", s->translation);
        snprintf(s->targets.text, sizeof s->targets.text, "%s", s->translation);
        decode_result_free(&s->greedy);
        s->greedy = *r;
    } else {
        decode_result_free(r);
    }
}

/* What the next piece of decoding sentence s->gdec.sent costs (taking a
 * kept target and handing a decoding over cost nothing). */
static double target_cost(const Session *s)
{
    int i = s->gdec.sent;
    if (s->gdec.on)
        return s->gdec.dec.done ? 0 : kv_step_bytes(&s->model.cfg);
    if (s->gdec.enc == 0 && target_kept(s, i))
        return 0;
    return ses_dec_begin_cost(s, i, &(TfExperiment){0}, s->gdec.enc);
}

/* A piece of decoding sentence s->gdec.sent (sentence 0 keeps its steps for
 * the decode view): starting it (ses_dec_begin), its decoder steps within
 * budget bytes of weight reads (0: all) through tf_dec_run, or handing it
 * over; what it cost goes to *spent. 0, or -1 on error; the sentence is done
 * when s->gdec.sent moved on. */
static int target_step(Session *s, double budget, double *spent)
{
    TfErr err;
    int i = s->gdec.sent;
    double cost = target_cost(s);
    if (!s->gdec.on && s->gdec.enc == 0 && reuse_target(s, i)) {
        s->gdec.sent++;
        return 0;
    }
    if (!s->gdec.on) {
        memset(&s->scratch.exp, 0, sizeof s->scratch.exp); /* decoder input: the normal one */
        DecodeOpts o;
        decode_opts_default(&o);
        o.no_trace = 1; /* the pass itself is what is shown */
        int rc = ses_dec_begin(s, &s->gdec.dec, i, &o, i == 0, &s->gdec.enc, &err);
        if (rc < 0)
            goto fail;
        s->gdec.on = rc;
        s->gdec.steps += (unsigned)rc;
        spend(s, spent, cost, 1);
        return 0;
    }
    if (!s->gdec.dec.done) {
        int t = s->gdec.dec.t;
        if (tf_dec_run(&s->gdec.dec, budget, &err) < 0) {
            tf_dec_free(&s->gdec.dec);
            goto fail;
        }
        s->gdec.steps += (unsigned)(s->gdec.dec.t - t);
        spend(s, spent, (s->gdec.dec.t - t) * cost, (unsigned)(s->gdec.dec.t - t));
        return 0;
    }
    DecodeResult r;
    s->gdec.on = 0;
    if (tf_dec_finish(&s->gdec.dec, &r, NULL, &err))
        goto fail;
    take_target(s, i, &r);
    s->gdec.sent++;
    return 0;
fail:
    s->gdec.on = 0;
    s->gdec.enc = 0;
    ses_targets_forget(&s->targets, i);
    snprintf(s->input_error, sizeof s->input_error, "%s", err.msg);
    return -1;
}


/* Split the source line at '|' into at most SES_MAX_SENT sentences. */
static void split_sources(Session *s)
{
    const char *p = s->src_line, *left = NULL; /* left: the text after the last sentence kept */
    s->n_src = 0;
    while (s->n_src < SES_MAX_SENT) {
        const char *bar = strchr(p, '|');
        size_t n = bar ? (size_t)(bar - p) : strlen(p);
        if (n >= SES_TEXT_MAX)
            n = SES_TEXT_MAX - 1;
        memcpy(s->src[s->n_src], p, n);
        s->src[s->n_src][n] = 0;
        /* a blank sentence between bars (while typing) is skipped */
        if (strspn(s->src[s->n_src], " \t") != n || s->n_src == 0)
            s->n_src++;
        if (!bar)
            break;
        p = bar + 1;
        if (s->n_src == SES_MAX_SENT)
            left = p;
    }
    /* sentences in what is left are left out (blank ones are none) */
    s->dropped = 0;
    for (const char *rest = left; rest;) {
        const char *bar = strchr(rest, '|');
        size_t n = bar ? (size_t)(bar - rest) : strlen(rest), blank = strspn(rest, " \t");
        s->dropped += blank < n;
        rest = bar ? bar + 1 : NULL;
    }
}

/* ---- recomputation, one unit at a time ----
 *
 * After an edit the pass is redone in units: 0 the source embeddings,
 * 1..n_enc the encoder layers, then the decoder inputs (the typed target or
 * greedy decoding), the target embeddings, the decoder layers and the
 * output. A frame computes the units its stage needs whatever they cost
 * (decoding excepted: it goes by the budget); the window runs the rest
 * while it is idle (session_idle_work), pieces within SES_DEC_FRAME_BYTES
 * a call, at least one: a unit, a decoding piece, or some rows of the
 * output (a base-size model's output over 80 positions is several
 * decoding steps' work). So an edit redraws at once even for a big model,
 * and no call runs much more than a decoding step. A paced view (the decode
 * view) needs nothing at once: its frames compute nothing, the idle calls
 * all of it. Headless use (lazy off) computes everything at once. */

enum { U_ENC_EMBED = 0 };
static int u_targets(const Session *s) { return s->model.cfg.n_enc + 1; }
static int u_dec_embed(const Session *s) { return s->model.cfg.n_enc + 2; }
static int u_total(const Session *s) { return s->model.cfg.n_enc + s->model.cfg.n_dec + 4; }

/* The unit that computes a stage (of layer l). */
static int stage_unit(const Session *s, StageId st, int l)
{
    const TfConfig *c = &s->model.cfg;
    const StageInfo *si = stage_info(st);
    if (st == ST_OUT_LOGITS || st == ST_OUT_PROBS)
        return u_total(s) - 1;
    if (st == ST_ENC_FINAL)
        return c->n_enc;
    if (st == ST_DEC_FINAL)
        return u_dec_embed(s) + c->n_dec;
    if (si->flags & SF_DECODER)
        return (si->flags & SF_LAYER) ? u_dec_embed(s) + 1 + l : u_dec_embed(s);
    if (si->flags & SF_LAYER)
        return 1 + l;
    return U_ENC_EMBED;
}

/* What the current frame needs computed. */
static int needed_unit(const Session *s, SesNeed need)
{
    if (!s->lazy || need >= SES_NEED_ALL)
        return u_total(s) - 1;
    StagePos p = session_pos(s);
    int l = p.layer;
    if (need == SES_NEED_STACK) /* every layer of the stack */
        l = stage_layers(p.stage, &s->model.cfg) - 1;
    return stage_unit(s, p.stage, l);
}

/* Tokenise the input and start a new pass; the units follow. */
static void start_pass(Session *s)
{
    int T = cap_T(s);
    s->input_error[0] = 0;
    s->nonfinite = 0;
    s->n_unk = 0;
    s->truncated = 0;
    decode_cancel(s);           /* an edit cancels a decoding in flight */
    ses_exp_cancel(s);          /* ... and the experiment's pieces */
    s->ext.pending = session_has_exp(s);
    s->ext.base_translation[0] = 0;
    s->units_done = u_total(s); /* nothing to run unless the input is good */
    s->out_rows = 0;
    s->trace.T = 0;             /* no decoder stage is valid until computed */
    s->trace.exp = s->exp;      /* the pass shown applies the experiment */
    s->translation[0] = 0;
    s->version++;
    split_sources(s);
    if (s->batch >= s->n_src) /* fewer sentences, even when one of them is in error (the × cleared them) */
        s->batch = s->n_src > 0 ? s->n_src - 1 : 0;
    for (int i = 0; i < s->n_src; i++) {
        if (encode_line(s, 0, s->src[i], s->src_ids[i], s->src_spans[i], T, &s->src_n[i], "source"))
            return;
        if (s->src_n[i] == 0) {
            if (s->n_src > 1) { /* drop a blank first sentence of a batch */
                memmove(s->src[i], s->src[i + 1], (size_t)(s->n_src - i - 1) * SES_TEXT_MAX);
                s->n_src--;
                i--;
                continue;
            }
            snprintf(s->input_error, sizeof s->input_error, "%s", _("type a sentence to run the model"));
            return;
        }
    }
    int B = s->n_src, S = 1;
    for (int i = 0; i < B; i++)
        if (s->src_n[i] > S)
            S = s->src_n[i];
    fill_pad(s->pad.src, sizeof s->pad.src / sizeof *s->pad.src, cfg_pad_id(&s->model.cfg));
    for (int i = 0; i < B; i++)
        memcpy(s->pad.src + i * S, s->src_ids[i], (size_t)s->src_n[i] * sizeof(int));
    s->pad.S = S;
    if (s->batch >= B)
        s->batch = B - 1;
    s->units_done = 0;
    if (s->truncated)
        session_msg(s, 1, _("a sentence was longer than %d tokens and was cut"), T);
    if (s->dropped)
        session_msg(s, 1, _("at most %d sentences in a batch: the %d after them are left out"), SES_MAX_SENT,
                    s->dropped);
}

/* The decoder inputs: the typed target for sentence 0, else greedy; the
 * greedy translation of sentence 0 is kept either way (hint, decode view).
 * 0 when made, 1 when decoding pieces remain, -1 on error. */
static int make_targets(Session *s, int may, double *spent)
{
    int T = cap_T(s);
    while (s->gdec.sent < s->n_src) {
        if (!ses_fits(may, *spent, target_cost(s)))
            return 1;
        if (target_step(s, ses_budget_left(may, *spent), spent) < 0)
            return -1;
    }
    s->gdec.sent = 0;
    s->tgt_auto = 1;
    /* the typed target: one sentence per source sentence, split at '|' like
     * the source line; a blank piece keeps that sentence's greedy output */
    const char *p = s->tgt;
    for (int i = 0; i < s->n_src && p && *p; i++) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        char piece[SES_TEXT_MAX];
        if (len >= sizeof piece)
            len = sizeof piece - 1;
        memcpy(piece, p, len);
        piece[len] = 0;
        p = bar ? bar + 1 : NULL;
        int one = i == 0 && !bar; /* no bar: sentence 1's reference, even an empty one */
        if (!one && strspn(piece, " \t") == len)
            continue;
        int n, ids[SES_CAP_T];
        if (encode_line(s, 1, piece, ids, NULL, T - 1, &n, "target"))
            return -1;
        if (n == 0 && !one)
            continue;
        s->tgt_ids[i][0] = cfg_start_id(&s->model.cfg);
        memcpy(s->tgt_ids[i] + 1, ids, (size_t)n * sizeof(int));
        s->tgt_n[i] = n + 1;
        if (i == 0)
            s->tgt_auto = 0;
    }
    int TT = 1;
    for (int i = 0; i < s->n_src; i++)
        if (s->tgt_n[i] > TT)
            TT = s->tgt_n[i];
    fill_pad(s->pad.tgt, sizeof s->pad.tgt / sizeof *s->pad.tgt, cfg_pad_id(&s->model.cfg));
    for (int i = 0; i < s->n_src; i++)
        memcpy(s->pad.tgt + i * TT, s->tgt_ids[i], (size_t)s->tgt_n[i] * sizeof(int));
    s->pad.T = TT;
    return 0;
}

/* What unit u costs (the targets and the output go by pieces): a SesPass
 * unit's, whose numbers skip the targets. */
static double unit_cost(const Session *s, int u)
{
    return ses_unit_cost(&s->model.cfg, u < u_targets(s) ? u : u - 1, s->n_src, s->pad.S, s->pad.T);
}

/* The output projection, some rows a piece (a sentence at once unless
 * budgeted): 0 when done, 1 when rows remain. */
static int output_rows(Session *s, int may, double *spent)
{
    const TfConfig *c = &s->model.cfg;
    while (s->out_rows < s->trace.B * s->trace.T) {
        double cost = ses_out_piece_cost(c, &s->trace, s->out_rows, may);
        if (!ses_fits(may, *spent, cost))
            return 1;
        ses_out_piece(&s->model, &s->trace, &s->out_rows, may);
        spend(s, spent, cost, 1);
    }
    return 0;
}

/* Unit u, or this call's pieces of it: 0 when done, 1 when pieces remain
 * (the budget is spent), -1 on error. */
static int run_unit(Session *s, int u, int may, double *spent)
{
    const TfModel *m = &s->model;
    int n_enc = m->cfg.n_enc;
    TfErr err;
    int rc = 0;
    if (u == u_targets(s))
        return make_targets(s, may, spent);
    if (u == u_total(s) - 1)
        return output_rows(s, may, spent);
    double cost = unit_cost(s, u);
    if (!ses_fits(may, *spent, cost))
        return 1;
    spend(s, spent, cost, cost > 0);
    if (u == U_ENC_EMBED)
        rc = tf_encode_begin(m, &s->trace, s->n_src, s->pad.S, s->pad.src, s->src_n, 0, &err);
    else if (u <= n_enc)
        tf_encode_layer(m, &s->trace, u - 1, 0);
    else if (u == u_dec_embed(s))
        rc = tf_decode_begin(m, &s->trace, s->pad.T, s->pad.tgt, s->tgt_n, 0, &err);
    else
        tf_decode_layer(m, &s->trace, u - u_dec_embed(s) - 1, 0);
    if (rc)
        snprintf(s->input_error, sizeof s->input_error, "%s", err.msg);
    return rc;
}


void session_set_exp(Session *s, const TfExperiment *e)
{
    if (tf_exp_equal(&s->exp, e))
        return;
    s->exp = *e;
    s->dirty = 1;
}

int session_base_ready(const Session *s)
{
    return s->ext.have_base && !s->dirty && !s->input_error[0] && s->units_done >= u_total(s) &&
           s->ext.base_key == ses_input_key(s);
}

/* After the last unit: a pass whose numbers overflowed says where; with an
 * experiment the pieces above begin (the kept normal pass is reused). */
static void check_pass(Session *s)
{
    TfErr err;
    if (tf_check_finite(&s->trace, &err)) {
        s->nonfinite = 1;
        s->translation[0] = 0; /* a "translation" of NaN is not one */
        decode_result_free(&s->greedy);
        ses_targets_forget(&s->targets, 0);
        snprintf(s->input_error, sizeof s->input_error, "%s", err.msg);
        session_msg(s, 1, "%s", err.msg);
        return;
    }
    if (session_has_exp(s))
        ses_exp_begin(s);
}

/* Run units up to need: those up to free_to whatever they cost (the
 * decoding excepted), the others, with may SES_BUDGET, while the call's
 * budget lasts (at least one piece). */
static void compute_until(Session *s, int need, int free_to, int may)
{
    double spent = 0;
    while (!s->input_error[0] && s->units_done <= need && s->units_done < u_total(s)) {
        int u = s->units_done;
        int m = may == SES_BUDGET && (u > free_to || u == u_targets(s)) ? SES_BUDGET : SES_ALL;
        int rc = run_unit(s, u, m, &spent);
        if (rc > 0) /* the budget is spent: the frame goes on, the rest later */
            return;
        if (rc) {
            s->units_done = u_total(s);
            return;
        }
        if (++s->units_done == u_total(s)) {
            check_pass(s);
            if (may == SES_BUDGET)
                return; /* the experiment's pieces from the next call on */
        }
    }
    if (!s->input_error[0] && s->units_done >= u_total(s) && s->ext.phase)
        ses_exp_extras(s, may);
}

const SesCost *session_cost(Session *s)
{
    return ses_measure_cost(&s->measure, &s->model.cfg);
}

const float *session_dots(Session *s, int i)
{
    return ses_measure_dots(&s->measure, i);
}

const TfHeadMetrics *session_head_metrics(Session *s, const TfTrace *tr, TfAttnKind k, int b)
{
    /* the pass changes with a new one (version) or more of it computed */
    uint64_t stamp = s->version << 24 ^ (uint64_t)s->units_done << 16 ^ (uint64_t)s->out_rows;
    return ses_measure_heads(&s->measure, tr, stamp, k, b);
}

int session_pass_ready(const Session *s, int *done, int *total)
{
    int n = u_total(s);
    if (done)
        *done = s->units_done < n ? s->units_done : n;
    if (total)
        *total = n;
    return !s->dirty && !s->input_error[0] && s->units_done >= n;
}

int session_teacher_forcing(const Session *s, const int *src, int S, const int *tgt, int n)
{
    if (s->dirty || s->input_error[0] || s->n_src != 1 || session_has_exp(s) || s->units_done <= u_targets(s) ||
        s->src_n[0] != S || memcmp(s->src_ids[0], src, (size_t)S * sizeof *src) != 0 || s->tgt_n[0] != n + 1 ||
        s->tgt_ids[0][0] != cfg_start_id(&s->model.cfg) ||
        memcmp(s->tgt_ids[0] + 1, tgt, (size_t)n * sizeof *tgt) != 0)
        return -1;
    return s->units_done >= u_total(s);
}

int session_decoding(const Session *s, int *done, int *max_out)
{
    int on = s->units_done <= u_targets(s) && !s->input_error[0] && !s->dirty;
    if (done)
        *done = on && s->gdec.on ? s->gdec.dec.t : 0;
    if (max_out)
        *max_out = on && s->gdec.on ? s->gdec.dec.max_out : 0;
    return on;
}

void session_update(Session *s, SesNeed need)
{
    if (s->dirty) {
        s->dirty = 0;
        start_pass(s);
    }
    if (s->lazy && need == SES_NEED_PACED)
        return; /* all of it in idle calls, a budget each: a frame adds nothing to wait for */
    /* lazy (the window): one budget of pieces at most, whatever the stage
     * needs; the rest of it in the idle calls, while the window says the
     * stage is being computed (session_stage_ready) */
    int u = needed_unit(s, need);
    compute_until(s, u, s->lazy ? -1 : u, s->lazy ? SES_BUDGET : SES_ALL);
}

int session_stage_ready(const Session *s, SesNeed need)
{
    if (s->input_error[0] || (s->lazy && need == SES_NEED_PACED))
        return 1;
    return !s->dirty && s->units_done > needed_unit(s, need);
}

void session_compute_all(Session *s)
{
    session_update(s, SES_NEED_STAGE);
    compute_until(s, u_total(s) - 1, u_total(s) - 1, SES_ALL);
}

int session_idle_work(Session *s)
{
    if (s->input_error[0] || (s->units_done >= u_total(s) && !s->ext.phase))
        return 0;
    compute_until(s, u_total(s) - 1, -1, SES_BUDGET);
    return (s->units_done < u_total(s) || s->ext.phase) && !s->input_error[0] ? 1 : 2;
}


/* ---- models ---- */

/* The positional table the PE view draws, for the positions the window
 * shows: the one stored in the model's files, else its layout's. */
static float *pe_table_of(const TfModel *m, TfErr *err)
{
    int rows = m->cfg.max_len < SES_CAP_T ? m->cfg.max_len : SES_CAP_T, C = m->cfg.d_model;
    float *pe = malloc((size_t)rows * (size_t)C * sizeof *pe);
    if (!pe) {
        tf_fail(err, "out of memory for the positional table");
        return NULL;
    }
    if (m->pe_src)
        memcpy(pe, m->pe_src, (size_t)rows * (size_t)C * sizeof *pe);
    else
        pe_table_layout(pe, rows, C, m->cfg.pe_layout == TF_PE_HALVES);
    return pe;
}

static int adopt(Session *s, TfModel *m, const char *path, int untrained, TfErr *err)
{
    TfTrace tr, sc;
    /* small: the traces grow with the input (trace_reserve), never for max_len */
    int T = m->cfg.max_len < SES_TRACE_T0 ? m->cfg.max_len : SES_TRACE_T0;
    float *pe = pe_table_of(m, err);
    if (!pe)
        return -1;
    if (trace_build(&tr, &m->cfg, 1, T, TRACE_RECORD, err)) {
        free(pe);
        return -1;
    }
    TfTrace bt;
    if (trace_build(&sc, &m->cfg, 1, T, TRACE_RECORD, err)) {
        trace_free(&tr);
        free(pe);
        return -1;
    }
    if (trace_build(&bt, &m->cfg, 1, T, TRACE_RECORD, err)) {
        trace_free(&tr);
        trace_free(&sc);
        free(pe);
        return -1;
    }
    decode_cancel(s); /* it reads the old model and traces */
    ses_exp_cancel(s);
    trace_free(&s->trace);
    trace_free(&s->scratch);
    trace_free(&s->ext.base);
    s->ext.base = bt;
    s->ext.have_base = 0;
    memset(&s->exp, 0, sizeof s->exp); /* its heads may not exist in the new model */
    model_free(&s->model);
    decode_result_free(&s->greedy);
    s->model = *m;
    s->trace = tr;
    s->scratch = sc;
    free(s->pe);
    s->pe = pe;
    s->have_model = 1;
    s->untrained = untrained;
    snprintf(s->model_path, sizeof s->model_path, "%s", path);
    const char *slash = strrchr(path, '/');
    snprintf(s->model_label, sizeof s->model_label, "%s%s", slash ? slash + 1 : path,
             untrained ? " (untrained)" : "");
    StagePos p = session_pos(s);
    build_walk(s);
    s->at = 0;
    int moved = session_goto(s, p.stage, p.layer);
    if (s->head >= m->cfg.n_heads)
        s->head = 0;
    s->dirty = 1;
    s->version++;
    return moved;
}

int session_load_model(Session *s, const char *path)
{
    TfModel m;
    TfErr err;
    if (tf_model_open(path, &m, &err)) {
        session_msg(s, 1, _("could not open the model: %s"), err.msg);
        return -1;
    }
    const char *tr = model_meta_get(&m, "trained");
    int moved = adopt(s, &m, path, tr && strcmp(tr, "false") == 0, &err);
    if (moved < 0) {
        model_free(&m);
        session_msg(s, 1, _("could not use the model: %s"), err.msg);
        return -1;
    }
    return moved;
}

int session_use_model(Session *s, TfModel *m, const char *label)
{
    TfErr err;
    int moved = adopt(s, m, label, 0, &err);
    if (moved < 0) {
        model_free(m);
        session_msg(s, 1, _("could not use the model: %s"), err.msg);
        return -1;
    }
    return moved;
}

/* A random classroom model with a small English/Chinese vocabulary, so the
 * window has something honest to show when no trained model is found. */
static int random_model(Session *s, TfErr *err)
{
    TfConfig c;
    cfg_preset(&c, "classroom", err);
    static const char *src[] = {"i", "you", "love", "like", "read", "china", "books", "tea", "today"};
    static const char *tgt[] = {"我", "你", "爱", "喜欢", "读", "中国", "书", "茶", "今天"};
    TfModel m;
    memset(&m, 0, sizeof m);
    Vocab sv, tv;
    if (vocab_init(&sv, TOK_WORD, err) || vocab_init(&tv, TOK_WORD, err))
        return -1;
    sv.lower = 1;
    for (int i = 0; i < 9; i++) {
        vocab_add(&sv, src[i], (int)strlen(src[i]), err);
        vocab_add(&tv, tgt[i], (int)strlen(tgt[i]), err);
    }
    c.src_vocab = sv.n;
    c.tgt_vocab = tv.n;
    if (model_build(&m, &c, err)) {
        vocab_free(&sv);
        vocab_free(&tv);
        return -1;
    }
    params_init(&m.p, &c, 1);
    m.src_vocab = sv;
    m.tgt_vocab = tv;
    if (adopt(s, &m, "random classroom model", 1, err) < 0) {
        model_free(&m);
        return -1;
    }
    return 0;
}


int session_init(Session *s, const char *path, int fallback, TfErr *err)
{
    memset(s, 0, sizeof *s);
    snprintf(s->src_line, SES_TEXT_MAX, "i love china");
    TfModel m;
    TfErr lerr;
    if (tf_model_open(path, &m, &lerr) == 0) {
        const char *tr = model_meta_get(&m, "trained");
        if (adopt(s, &m, path, tr && strcmp(tr, "false") == 0, err) >= 0)
            return 0;
        model_free(&m);
        lerr = *err;
    }
    if (!fallback) {
        tf_fail(err, "%s", lerr.msg);
        return -1;
    }
    if (random_model(s, err))
        return -1;
    session_msg(s, 0, _("no trained model found (%s): showing an untrained random model"), lerr.msg);
    return 0;
}

void session_free(Session *s)
{
    decode_cancel(s);
    ses_exp_cancel(s);
    trace_free(&s->ext.base);
    trace_free(&s->trace);
    trace_free(&s->scratch);
    decode_result_free(&s->greedy);
    free(s->pe);
    ses_measure_free(s->measure);
    model_free(&s->model);
}
