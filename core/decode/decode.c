/* decode.c - teacher forcing, greedy decoding, beam search and tf_translate,
 * the one entry point choosing between them (decode.h). */
#include "decode.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void decode_result_free(DecodeResult *r)
{
    if (r) {
        free(r->ids);
        free(r->steps);
        free(r->pool);
        *r = (DecodeResult){0};
    }
}

void beam_result_free(BeamResult *r)
{
    if (r) {
        free(r->ids);
        free(r->nodes);
        *r = (BeamResult){0};
    }
}

int decode_max_out(const TfModel *m, const TfTrace *tr, int S)
{
    int n = S + 50;
    (void)tr; /* the trace grows as needed (trace_reserve) */
    if (m->cfg.kind == TF_KIND_MARIAN && m->cfg.gen_max_length > 1)
        n = m->cfg.gen_max_length - 1; /* max_length counts the start token */
    if (n > m->cfg.max_len)
        n = m->cfg.max_len;
    return n;
}

/* Index of the largest value (the lowest index among equals). */
static int argmax(const float *p, int n)
{
    int best = 0;
    for (int i = 1; i < n; i++)
        if (p[i] > p[best])
            best = i;
    return best;
}

/* Marian's greedy rules on step t of max_out: pad is never generated,
 * </s> is forced at the last step; ties go to the lowest index (logits). */
static int marian_pick(const TfConfig *c, const float *logits, int t, int max_out)
{
    int pad = cfg_pad_id(c), eos = cfg_eos_id(c);
    if (t == max_out - 1)
        return eos;
    int best = pad == 0 ? 1 : 0;
    for (int i = best + 1; i < c->tgt_vocab; i++)
        if (i != pad && logits[i] > logits[best])
            best = i;
    return best;
}

/* The k largest of p[0..n), best first (ties: lower index first). */
static int top_k(const float *p, int n, int k, int *ids, float *vals)
{
    if (k > n)
        k = n;
    int have = 0;
    for (int i = 0; i < n; i++) {
        if (have == k && !(p[i] > vals[k - 1]))
            continue;
        int at = have < k ? have++ : k - 1;
        while (at > 0 && p[i] > vals[at - 1]) {
            vals[at] = vals[at - 1];
            ids[at] = ids[at - 1];
            at--;
        }
        vals[at] = p[i];
        ids[at] = i;
    }
    return have;
}

/* The source fits the model and its vocabulary, and 1..max_out outputs fit
 * the model's max_len (the trace grows as needed). */
static int check_src(const TfModel *m, const TfTrace *tr, const int *src, int S, int max_out,
                     TfErr *err)
{
    if (max_out < 1 || max_out > m->cfg.max_len)
        return tf_fail(err, "output length %d is out of range 1..%d", max_out, m->cfg.max_len);
    if (S < 1)
        return tf_fail(err, "the source sentence is empty");
    (void)tr;
    if (S > m->cfg.max_len)
        return tf_fail(err, "the source has %d tokens; the model's limit is %d", S,
                       m->cfg.max_len);
    for (int i = 0; i < S; i++)
        if (src[i] < 0 || src[i] >= m->cfg.src_vocab)
            return tf_fail(err, "source token id %d is outside the vocabulary", src[i]);
    return 0;
}

/* Copy position t's attention rows out of the trace into a step. */
static void keep_rows(const TfModel *m, const TfTrace *tr, DecodeStep *st,
                      int t, float **pool)
{
    const TfConfig *c = &m->cfg;
    int NH = c->n_heads, T = tr->T, S = tr->S;
    st->self_w = *pool;
    *pool += (size_t)c->n_dec * NH * (t + 1);
    st->cross_w = *pool;
    *pool += (size_t)c->n_dec * NH * S;
    for (int l = 0; l < c->n_dec; l++) {
        for (int h = 0; h < NH; h++) {
            const float *sw = tr->dec[l].sa.weights + ((size_t)h * T + t) * T;
            const float *cw = tr->dec[l].ca.weights + ((size_t)h * T + t) * S;
            memcpy(st->self_w + ((size_t)l * NH + h) * (t + 1), sw, (size_t)(t + 1) * sizeof(float));
            memcpy(st->cross_w + ((size_t)l * NH + h) * S, cw, (size_t)S * sizeof(float));
        }
    }
}

/* The token forced at step t, or -1. */
static int forced_at(const DecodeOpts *o, int t)
{
    for (int k = 0; o && k < o->n_force; k++)
        if (o->force[k].step == t)
            return o->force[k].token;
    return -1;
}

int tf_greedy(const TfModel *m, TfTrace *tr, const int *src, int S,
              int max_out, int keep_steps, DecodeResult *out, TfErr *err)
{
    return tf_generate(m, tr, src, S, max_out, keep_steps, NULL, out, err);
}

int tf_generate(const TfModel *m, TfTrace *tr, const int *src, int S, int max_out,
                int keep_steps, const DecodeOpts *o, DecodeResult *out, TfErr *err)
{
    memset(out, 0, sizeof *out);
    if (check_src(m, tr, src, S, max_out, err))
        return -1;
    int sampling = o && o->sample;
    if (sampling && sample_check(&o->sampling, err))
        return -1;
    keep_steps = keep_steps && (tr->flags & TRACE_RECORD);
    const TfConfig *c = &m->cfg;
    int V = c->tgt_vocab;
    int *tgt = malloc((size_t)(max_out + 1) * sizeof *tgt);
    out->ids = malloc((size_t)max_out * sizeof *out->ids);
    out->S = S;
    Rng rng;
    rng_seed(&rng, o ? o->seed : 0);
    float *scratch = sampling ? malloc((size_t)V * sizeof *scratch) : NULL;
    unsigned char *banned = sampling ? calloc((size_t)V, 1) : NULL;
    if (banned) { /* never drawn: padding, and the start token */
        banned[cfg_pad_id(c)] = 1;
        banned[cfg_start_id(c)] = 1;
    }
    float *pool = NULL;
    if (keep_steps) {
        size_t per = (size_t)c->n_dec * c->n_heads;
        size_t rows = per * ((size_t)max_out * (max_out + 1) / 2 + (size_t)max_out * S);
        out->steps = calloc((size_t)max_out, sizeof *out->steps);
        out->pool = pool = malloc(rows * sizeof(float));
    }
    if (!tgt || !out->ids || (keep_steps && (!out->steps || !out->pool)) ||
        (sampling && (!scratch || !banned))) {
        tf_fail(err, "out of memory for decoding");
        goto fail;
    }
    if (tf_encode(m, tr, 1, S, src, &S, 0, err))
        goto fail;
    tgt[0] = cfg_start_id(c);
    for (int t = 0; t < max_out; t++) {
        int T = t + 1;
        if (tf_decode(m, tr, T, tgt, &T, t, 0, err))
            goto fail;
        const float *p = tr->probs + (size_t)t * V;
        int forced = forced_at(o, t), tok = forced;
        if (tok < 0 && sampling)
            tok = sample_token(tr->logits + (size_t)t * V, V, &o->sampling, banned, &rng, scratch);
        if (tok < 0)
            tok = c->kind == TF_KIND_MARIAN ? marian_pick(c, tr->logits + (size_t)t * V, t, max_out)
                                            : argmax(p, V);
        out->ids[out->n++] = tok;
        out->logprob += log((double)p[tok]);
        if (keep_steps) {
            DecodeStep *st = &out->steps[t];
            st->token = tok;
            st->forced = forced >= 0;
            st->prob = p[tok];
            top_k(p, V, DEC_TOPK, st->top_id, st->top_p);
            keep_rows(m, tr, st, t, &pool);
        }
        if (tok == cfg_eos_id(c))
            break;
        tgt[T] = tok;
    }
    /* Leave the trace holding <bos> + every non-<eos> output token. */
    int T = out->n + 1;
    if (out->ids[out->n - 1] == cfg_eos_id(c))
        T--;
    if (T != tr->T && T <= m->cfg.max_len) {
        if (tf_decode(m, tr, T, tgt, &T, 0, 0, err))
            goto fail;
    }
    free(tgt);
    free(scratch);
    free(banned);
    return 0;
fail:
    free(tgt);
    free(scratch);
    free(banned);
    decode_result_free(out);
    return -1;
}

int tf_teacher_forced(const TfModel *m, TfTrace *tr, const int *src, int S,
                      const int *tgt, int n, int *pred, int *truth,
                      float *loss, TfErr *err)
{
    if (check_src(m, tr, src, S, 1, err))
        return -1;
    int T = n + 1, V = m->cfg.tgt_vocab;
    if (n < 0 || T > m->cfg.max_len)
        return tf_fail(err, "the target has %d tokens; the model's limit is %d", n,
                       m->cfg.max_len - 1);
    int *in = malloc((size_t)T * sizeof *in);
    if (!in)
        return tf_fail(err, "out of memory");
    in[0] = TOK_BOS;
    memcpy(in + 1, tgt, (size_t)n * sizeof *in);
    TfBatch b = {1, S, T, src, in, &S, &T};
    int rc = tf_forward(m, tr, &b, 0, err);
    free(in);
    if (rc)
        return -1;
    for (int i = 0; i < T; i++) {
        const float *p = tr->probs + (size_t)i * V;
        pred[i] = argmax(p, V);
        truth[i] = i < n ? tgt[i] : TOK_EOS;
        loss[i] = -logf(p[truth[i]] > 0 ? p[truth[i]] : 1e-30f);
    }
    return 0;
}

/* ---- beam search ---- */

double beam_length_penalty(int len, float alpha)
{
    return pow((5.0 + len) / 6.0, alpha);
}

typedef struct Cand {
    double logprob;
    int beam, token;
} Cand;

static int cmp_cand(const void *a, const void *b)
{
    const Cand *x = a, *y = b;
    if (x->logprob != y->logprob)
        return x->logprob > y->logprob ? -1 : 1;
    if (x->beam != y->beam)
        return x->beam - y->beam;
    return x->token - y->token;
}

static int add_node(BeamResult *r, BeamNode nd)
{
    if (r->n_nodes == r->cap_nodes) {
        int cap = r->cap_nodes ? r->cap_nodes * 2 : 256;
        BeamNode *p = realloc(r->nodes, (size_t)cap * sizeof *p);
        if (!p)
            return -1;
        r->nodes = p;
        r->cap_nodes = cap;
    }
    r->nodes[r->n_nodes] = nd;
    return r->n_nodes++;
}

/* Tokens of the hypothesis ending at node (root excluded), into ids. */
static int node_tokens(const BeamResult *r, int node, int *ids)
{
    int n = 0;
    for (int k = node; k >= 0 && r->nodes[k].parent >= 0; k = r->nodes[k].parent)
        n++;
    int i = n;
    for (int k = node; k >= 0 && r->nodes[k].parent >= 0; k = r->nodes[k].parent)
        ids[--i] = r->nodes[k].token;
    return n;
}

int tf_beam(const TfModel *m, TfTrace *tr, const int *src, int S, int K,
            float alpha, int max_out, BeamResult *out, TfErr *err)
{
    memset(out, 0, sizeof *out);
    if (check_src(m, tr, src, S, max_out, err))
        return -1;
    if (K < 1 || K > TF_MAX_BEAM)
        return tf_fail(err, "beam size %d is out of range 1..%d", K, TF_MAX_BEAM);
    if (!(alpha >= 0 && alpha <= 10))
        return tf_fail(err, "length penalty alpha %g is out of range 0..10", alpha);
    const TfConfig *c = &m->cfg;
    int V = c->tgt_vocab, C = c->d_model;
    int W = max_out + 1;
    int *tgt = malloc((size_t)K * W * sizeof *tgt);     /* alive hypotheses */
    int *next = malloc((size_t)K * W * sizeof *next);
    int *alive_node = malloc((size_t)K * sizeof *alive_node);
    int *next_node = malloc((size_t)K * sizeof *next_node);
    int *len = malloc((size_t)K * sizeof *len);
    Cand *cand = malloc((size_t)K * K * sizeof *cand);
    int *kid = malloc((size_t)K * sizeof *kid);
    float *kval = malloc((size_t)K * sizeof *kval);
    out->ids = malloc((size_t)max_out * sizeof *out->ids);
    int rc = -1;
    if (!tgt || !next || !alive_node || !next_node || !len || !cand || !kid ||
        !kval || !out->ids) {
        tf_fail(err, "out of memory for beam search");
        goto done;
    }
    if (tf_encode(m, tr, 1, S, src, &S, 0, err) || trace_reserve(tr, K, S, err))
        goto done;
    /* every hypothesis reads the same encoder output */
    for (int b = 1; b < K; b++) {
        memcpy(tr->memory + (size_t)b * S * C, tr->memory, (size_t)S * C * sizeof(float));
        memcpy(tr->src_ids + (size_t)b * S, tr->src_ids, (size_t)S * sizeof(int));
        tr->src_len[b] = S;
    }
    int root = add_node(out, (BeamNode){-1, TOK_BOS, -1, 0, 0, BEAM_KEPT});
    if (root < 0) {
        tf_fail(err, "out of memory for beam search");
        goto done;
    }
    int n_alive = 1, n_finished = 0;
    double best_score = -INFINITY;
    out->best_node = -1;
    tgt[0] = TOK_BOS;
    alive_node[0] = root;
    for (int t = 0; t < max_out && n_alive > 0; t++) {
        int T = t + 1;
        tr->B = n_alive;
        for (int b = 0; b < n_alive; b++)
            len[b] = T;
        if (tf_decode(m, tr, T, tgt, len, t, 0, err))
            goto done;
        /* each beam's K best next tokens are the only ones that can win */
        int nc = 0;
        for (int b = 0; b < n_alive; b++) {
            const float *p = tr->probs + ((size_t)b * T + t) * V;
            int k = top_k(p, V, K, kid, kval);
            double base = out->nodes[alive_node[b]].logprob;
            for (int j = 0; j < k; j++)
                cand[nc++] = (Cand){base + log((double)kval[j]), b, kid[j]};
        }
        qsort(cand, (size_t)nc, sizeof *cand, cmp_cand);
        int slots = K - n_finished, kept = 0;
        for (int j = 0; j < nc; j++) {
            Cand *cd = &cand[j];
            int parent = alive_node[cd->beam];
            double score = cd->logprob / beam_length_penalty(t + 1, alpha);
            BeamState st = BEAM_PRUNED;
            if (j < slots)
                st = (cd->token == TOK_EOS || t == max_out - 1) ? BEAM_FINISHED : BEAM_KEPT;
            int node = add_node(out, (BeamNode){parent, cd->token, t, cd->logprob, score, st});
            if (node < 0) {
                tf_fail(err, "out of memory for beam search");
                goto done;
            }
            if (st == BEAM_FINISHED) {
                n_finished++;
                if (score > best_score) {
                    best_score = score;
                    out->best_node = node;
                }
            } else if (st == BEAM_KEPT) {
                int *row = next + (size_t)kept * W;
                memcpy(row, tgt + (size_t)cd->beam * T, (size_t)T * sizeof *row);
                row[T] = cd->token;
                next_node[kept] = node;
                kept++;
            }
        }
        /* rows for the next step: the kept hypotheses, T + 1 tokens each */
        for (int b = 0; b < kept; b++) {
            memcpy(tgt + (size_t)b * (T + 1), next + (size_t)b * W, (size_t)(T + 1) * sizeof *tgt);
            alive_node[b] = next_node[b];
        }
        n_alive = kept;
    }
    if (out->best_node < 0) {
        tf_fail(err, "beam search finished no hypothesis");
        goto done;
    }
    out->n = node_tokens(out, out->best_node, out->ids);
    out->logprob = out->nodes[out->best_node].logprob;
    out->score = best_score;
    rc = 0;
done:
    free(tgt);
    free(next);
    free(alive_node);
    free(next_node);
    free(len);
    free(cand);
    free(kid);
    free(kval);
    if (rc)
        beam_result_free(out);
    return rc;
}

/* ---- one entry point ---- */

void decode_opts_default(DecodeOpts *o)
{
    memset(o, 0, sizeof *o);
    o->beam = 1;
    o->alpha = 0.6f;
    o->sampling = (SampleOpts){1.0f, 0, 1.0f};
}

int decode_add_force(DecodeOpts *o, const char *spec, int V, TfErr *err)
{
    char *end;
    errno = 0;
    long step = strtol(spec, &end, 10);
    if (end == spec || *end != ':' || errno || step < 0 || step >= TF_MAX_LEN)
        return tf_fail(err, "--force %s: expected STEP:TOKEN, the step 0..%d (from 0)", spec,
                       TF_MAX_LEN - 1);
    const char *t = end + 1;
    long tok = strtol(t, &end, 10);
    if (end == t || *end || errno || tok < 0 || tok >= V)
        return tf_fail(err, "--force %s: the token must be an id 0..%d of the target vocabulary",
                       spec, V - 1);
    for (int k = 0; k < o->n_force; k++)
        if (o->force[k].step == step) {
            o->force[k].token = (int)tok;
            return 0;
        }
    if (o->n_force >= DEC_MAX_FORCE)
        return tf_fail(err, "--force %s: at most %d forced tokens", spec, DEC_MAX_FORCE);
    o->force[o->n_force++] = (DecodeForce){(int)step, (int)tok};
    return 0;
}

int tf_translate(const TfModel *m, TfTrace *tr, const int *src, int S,
                 const DecodeOpts *o, DecodeResult *out, TfErr *err)
{
    memset(out, 0, sizeof *out);
    int max_out = decode_max_out(m, tr, S);
    if (o->max_out > 0 && o->max_out < max_out)
        max_out = o->max_out;
    if (o->beam <= 1)
        return tf_generate(m, tr, src, S, max_out, 0, o, out, err);
    if (o->sample || o->n_force)
        return tf_fail(err, "sampling and forced tokens go with greedy decoding, not beam search");
    BeamResult b;
    if (tf_beam(m, tr, src, S, o->beam, o->alpha, max_out, &b, err))
        return -1;
    out->ids = b.ids; /* (max_out) */
    out->n = b.n;
    out->logprob = b.logprob;
    out->S = S;
    b.ids = NULL;
    beam_result_free(&b);
    return 0;
}
