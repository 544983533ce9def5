/* decoder.c - greedy decoding, sampling, forcing and beam search, one step
 * at a time over the key/value cache (decstep.h) or, as the reference, by
 * recomputing the prefix (decode.h: TfDecoder); and what every decoding
 * shares: its results, the longest output, the source check, the tokens
 * sampling never draws, argmax and top-k. */
#include "decode.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"
#include "topk.h"

/* ---- results, and the rules every decoding follows ---- */

void decode_result_free(DecodeResult *r)
{
    if (r) {
        free(r->ids);
        free(r->steps);
        free(r->pool);
        *r = (DecodeResult){0};
    }
}

int decode_result_copy(DecodeResult *dst, const DecodeResult *src, int n_dec, int n_heads)
{
    *dst = *src;
    dst->ids = NULL;
    dst->pool = NULL;
    dst->steps = NULL;
    size_t per = (size_t)n_dec * n_heads, rows = 0;
    for (int t = 0; src->steps && t < src->n; t++)
        rows += per * (t + 1 + (size_t)src->S);
    dst->ids = malloc((size_t)(src->n > 0 ? src->n : 1) * sizeof *dst->ids);
    if (src->steps) {
        dst->steps = malloc((size_t)(src->n > 0 ? src->n : 1) * sizeof *dst->steps);
        dst->pool = malloc((rows ? rows : 1) * sizeof(float));
    }
    if (!dst->ids || (src->steps && (!dst->steps || !dst->pool))) {
        decode_result_free(dst);
        return -1;
    }
    memcpy(dst->ids, src->ids, (size_t)src->n * sizeof *dst->ids);
    float *p = dst->pool;
    for (int t = 0; src->steps && t < src->n; t++) {
        size_t ns = per * (t + 1), nc = per * (size_t)src->S;
        dst->steps[t] = src->steps[t];
        dst->steps[t].self_w = p;
        memcpy(p, src->steps[t].self_w, ns * sizeof(float));
        p += ns;
        dst->steps[t].cross_w = p;
        memcpy(p, src->steps[t].cross_w, nc * sizeof(float));
        p += nc;
    }
    return 0;
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

void decode_sample_banned(const TfConfig *c, unsigned char *banned)
{
    memset(banned, 0, (size_t)c->tgt_vocab);
    banned[cfg_pad_id(c)] = 1;
    banned[cfg_start_id(c)] = 1;
}

/* Index of the largest value (the lowest index among equals). */
int decode_argmax(const float *p, int n)
{
    int best = 0;
    for (int i = 1; i < n; i++)
        if (p[i] > p[best])
            best = i;
    return best;
}

/* The source fits the model and its vocabulary, and 1..max_out outputs fit
 * the model's max_len (the trace grows as needed). */
int decode_check_src(const TfModel *m, const int *src, int S, int max_out, TfErr *err)
{
    if (max_out < 1 || max_out > m->cfg.max_len)
        return tf_fail(err, "output length %d is out of range 1..%d", max_out, m->cfg.max_len);
    if (S < 1)
        return tf_fail(err, "the source sentence is empty");
    if (S > m->cfg.max_len)
        return tf_fail(err, "the source has %d tokens; the model's limit is %d", S,
                       m->cfg.max_len);
    for (int i = 0; i < S; i++)
        if (src[i] < 0 || src[i] >= m->cfg.src_vocab)
            return tf_fail(err, "source token id %d is outside the vocabulary", src[i]);
    return 0;
}

/* ---- the step-by-step decoder ---- */

typedef struct Cand {
    double logprob;
    int beam, token;
} Cand;

double beam_length_penalty(int len, float alpha)
{
    return pow((5.0 + len) / 6.0, alpha);
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

/* A layout in one block: with base NULL it only counts the bytes (at), then
 * it hands out the same pieces of base, each rounded up to 64 bytes. */
typedef struct Carve {
    char *base;
    size_t at;
} Carve;

static void *carve(Carve *c, size_t bytes)
{
    void *p = c->base ? c->base + c->at : NULL;
    c->at += (bytes + 63) & ~(size_t)63;
    return p;
}

/* The decoder's arrays for a beam of K over V tokens (the sampling ones
 * only when it samples, else they stay NULL), carved from c. */
static void carve_arrays(TfDecoder *d, Carve *c, int K, int V, int sample)
{
    size_t KW = (size_t)K * d->W, K2 = 2 * (size_t)K, K1 = (size_t)K + 1;
    d->seq = carve(c, KW * sizeof *d->seq);
    d->seq2 = carve(c, KW * sizeof *d->seq2);
    d->rowtok = carve(c, (size_t)K * sizeof *d->rowtok);
    d->parent = carve(c, K2 * sizeof *d->parent);
    d->alive_node = carve(c, K2 * sizeof *d->alive_node);
    d->alive_lp = carve(c, K2 * sizeof *d->alive_lp);
    d->fin_score = carve(c, K1 * sizeof *d->fin_score);
    d->fin_node = carve(c, K1 * sizeof *d->fin_node);
    d->ls = carve(c, (size_t)K * sizeof *d->ls);
    d->cand = carve(c, K2 * sizeof(Cand));
    d->probs = carve(c, (size_t)V * sizeof *d->probs);
    if (sample) {
        d->scratch = carve(c, (size_t)V * sizeof *d->scratch);
        d->swork = carve(c, (size_t)V * sizeof *d->swork);
        d->banned = carve(c, (size_t)V);
    }
}

void tf_dec_free(TfDecoder *d)
{
    if (!d)
        return;
    kv_free(&d->kv);
    free(d->block);
    decode_result_free(&d->res);
    beam_result_free(&d->tree);
    memset(d, 0, sizeof *d);
}

/* The token forced at step t, or -1. */
static int forced_at(const DecodeOpts *o, int t)
{
    for (int k = 0; k < o->n_force; k++)
        if (o->force[k].step == t)
            return o->force[k].token;
    return -1;
}

static int check_opts(const TfDecoder *d, TfErr *err)
{
    const DecodeOpts *o = &d->o;
    if (o->beam < 1 || o->beam > TF_MAX_BEAM)
        return tf_fail(err, "beam size %d is out of range 1..%d", o->beam, TF_MAX_BEAM);
    if (!(o->alpha >= 0 && o->alpha <= 10))
        return tf_fail(err, "length penalty alpha %g is out of range 0..10", o->alpha);
    if (o->beam > 1 && (o->sample || o->n_force))
        return tf_fail(err, "sampling and forced tokens go with greedy decoding, not beam search");
    if (o->sample && sample_check(&o->sampling, err))
        return -1;
    return 0;
}

/* Recompute mode: every row reads the same encoder output. */
static int replicate_memory(TfDecoder *d, TfErr *err)
{
    TfTrace *tr = d->tr;
    int S = d->S, C = d->m->cfg.d_model;
    if (trace_reserve(tr, d->K, S, err))
        return -1;
    for (int b = 1; b < d->K; b++) {
        memcpy(tr->memory + (size_t)b * S * C, tr->memory, (size_t)S * C * sizeof(float));
        memcpy(tr->src_ids + (size_t)b * S, tr->src_ids, (size_t)S * sizeof(int));
        tr->src_len[b] = S;
    }
    return 0;
}

int tf_dec_start(TfDecoder *d, const TfModel *m, TfTrace *tr, const int *src, int S,
                 const DecodeOpts *o, int keep_steps, TfErr *err)
{
    return tf_dec_start_from(d, m, tr, src, S, o, keep_steps, NULL, err);
}

int tf_dec_start_from(TfDecoder *d, const TfModel *m, TfTrace *tr, const int *src, int S,
                      const DecodeOpts *o, int keep_steps, const float *memory, TfErr *err)
{
    memset(d, 0, sizeof *d);
    d->m = m;
    d->tr = tr;
    d->o = *o;
    d->S = S;
    d->max_out = o->max_out > 0 ? o->max_out : decode_max_out(m, tr, S);
    if (decode_check_src(m, src, S, d->max_out, err) || check_opts(d, err))
        return -1;
    const TfConfig *c = &m->cfg;
    int V = c->tgt_vocab, K = d->K = o->beam;
    d->cached = !o->recompute && kv_supported(&tr->exp);
    d->keep_steps = keep_steps = K == 1 && keep_steps && (d->cached || (tr->flags & TRACE_RECORD));
    d->W = d->max_out + 1;
    Carve lay = {NULL, 0};
    carve_arrays(d, &lay, K, V, o->sample); /* the size */
    lay = (Carve){d->block = malloc(lay.at), 0};
    if (d->block)
        carve_arrays(d, &lay, K, V, o->sample);
    d->res.ids = malloc((size_t)d->max_out * sizeof *d->res.ids);
    d->res.S = S;
    int fail = !d->block || !d->res.ids;
    if (o->sample && d->block)
        decode_sample_banned(c, d->banned);
    if (keep_steps && !fail) {
        size_t per = (size_t)c->n_dec * c->n_heads, n = (size_t)d->max_out;
        d->res.steps = calloc(n, sizeof *d->res.steps);
        d->res.pool = d->pool = malloc(per * (n * (n + 1) / 2 + n * S) * sizeof(float));
        fail = !d->res.steps || !d->res.pool;
    }
    if (fail) {
        tf_dec_free(d);
        return tf_fail(err, "out of memory for decoding");
    }
    rng_seed(&d->rng, o->seed);
    /* the encoder output given: tr's own (encoded by the caller), or another
     * trace's, which only the cache reads (no step and no final pass reads tr) */
    int encode = !memory || (memory != tr->memory && (!d->cached || !o->no_trace));
    if ((encode && tf_encode(m, tr, 1, S, src, &S, 0, err)) ||
        (d->cached ? kv_init(&d->kv, m, &tr->exp, encode ? tr->memory : memory, S, K, d->max_out, err)
                   : K > 1 && replicate_memory(d, err))) {
        tf_dec_free(d);
        return -1;
    }
    d->seq[0] = cfg_start_id(c);
    d->n_alive = 1;
    d->alive_lp[0] = 0;
    d->alive_node[0] = add_node(&d->tree, (BeamNode){-1, d->seq[0], -1, 0, 0, BEAM_KEPT});
    if (d->alive_node[0] < 0) {
        tf_dec_free(d);
        return tf_fail(err, "out of memory for decoding");
    }
    d->tree.best_node = -1;
    return 0;
}

/* Run the decoder over the n_alive prefixes of length t + 1: their logits at
 * position t (row r at *logits + r * V). Attention rows for a kept step. */
static int run_step(TfDecoder *d, const float **logits, DecodeStep *st, TfErr *err)
{
    const TfModel *m = d->m;
    TfTrace *tr = d->tr;
    int t = d->t, R = d->n_alive, V = m->cfg.tgt_vocab, W = d->W;
    if (st) {
        size_t per = (size_t)m->cfg.n_dec * m->cfg.n_heads;
        st->self_w = d->pool;
        st->cross_w = d->pool + per * (t + 1);
        d->pool += per * (t + 1 + d->S);
    }
    if (d->cached) {
        for (int r = 0; r < R; r++)
            d->rowtok[r] = d->seq[(size_t)r * W + t];
        if (kv_step(&d->kv, m, d->rowtok, R, st ? st->self_w : NULL, st ? st->cross_w : NULL, err))
            return -1;
        *logits = d->kv.logits;
        return 0;
    }
    /* the reference: the whole prefix of every row again, as one batch */
    int T = t + 1;
    for (int r = 0; r < R; r++) {
        memmove(d->seq2 + (size_t)r * T, d->seq + (size_t)r * W, (size_t)T * sizeof(int));
        d->rowtok[r] = T;
    }
    tr->B = R;
    if (tf_decode(m, tr, T, d->seq2, d->rowtok, t, 0, err))
        return -1;
    for (int r = 0; r < R; r++) /* rows r * T + t, compacted to r */
        memmove(tr->logits + (size_t)r * V, tr->logits + ((size_t)r * T + t) * V,
                (size_t)V * sizeof(float));
    *logits = tr->logits;
    if (st) {
        int NH = m->cfg.n_heads, S = tr->S;
        for (int l = 0; l < m->cfg.n_dec; l++)
            for (int h = 0; h < NH; h++) {
                memcpy(st->self_w + ((size_t)l * NH + h) * T,
                       tr->dec[l].sa.weights + ((size_t)h * T + t) * T, (size_t)T * sizeof(float));
                memcpy(st->cross_w + ((size_t)l * NH + h) * S,
                       tr->dec[l].ca.weights + ((size_t)h * T + t) * S, (size_t)S * sizeof(float));
            }
    }
    return 0;
}

/* Marian's greedy pick: pad is never generated (</s> at the last step is
 * greedy_step's); ties go to the lowest index (logits). */
static int marian_pick(const TfConfig *c, const float *logits)
{
    int pad = cfg_pad_id(c);
    int best = pad == 0 ? 1 : 0;
    for (int i = best + 1; i < c->tgt_vocab; i++)
        if (i != pad && logits[i] > logits[best])
            best = i;
    return best;
}

static int greedy_step(TfDecoder *d, TfErr *err)
{
    const TfConfig *c = &d->m->cfg;
    int t = d->t, V = c->tgt_vocab;
    DecodeStep *st = d->keep_steps ? &d->res.steps[t] : NULL;
    const float *z;
    if (run_step(d, &z, st, err))
        return -1;
    float *p = d->probs;
    softmax_rows_to(p, z, 1, V);
    int forced = forced_at(&d->o, t), tok = forced;
    if (tok < 0 && c->kind == TF_KIND_MARIAN && t == d->max_out - 1)
        tok = cfg_eos_id(c); /* Marian's rule, sampling included */
    if (tok < 0 && d->o.sample)
        tok = sample_token(z, V, &d->o.sampling, d->banned, &d->rng, d->scratch, d->swork);
    if (tok < 0)
        tok = c->kind == TF_KIND_MARIAN ? marian_pick(c, z) : decode_argmax(p, V);
    DecodeResult *r = &d->res;
    r->ids[r->n++] = tok;
    r->logprob += log((double)p[tok]);
    if (st) {
        st->token = tok;
        st->forced = forced >= 0;
        st->prob = p[tok];
        tf_top_k(p, V, DEC_TOPK, st->top_id, st->top_p);
    }
    d->seq[t + 1] = tok;
    d->t = t + 1;
    int end = (tok == cfg_eos_id(c) && !d->o.ignore_eos) || d->t == d->max_out;
    int node = add_node(&d->tree, (BeamNode){d->alive_node[0], tok, t, r->logprob,
                                             r->logprob / beam_length_penalty(r->n, d->o.alpha),
                                             end ? BEAM_FINISHED : BEAM_KEPT});
    if (node < 0)
        return tf_fail(err, "out of memory for decoding");
    d->alive_node[0] = node;
    if (end)
        d->tree.best_node = node;
    return end;
}

/* Insert into the n best candidates (cap of them, best first; equal values
 * keep the earlier first, as a stable top-k over beam * V + token). */
static void cand_insert(Cand *c, int *n, int cap, Cand x)
{
    if (*n == cap && !(x.logprob > c[cap - 1].logprob))
        return;
    int at = *n < cap ? (*n)++ : cap - 1;
    while (at > 0 && x.logprob > c[at - 1].logprob) {
        c[at] = c[at - 1];
        at--;
    }
    c[at] = x;
}

/* Add a finished hypothesis to the K best; the one pushed out (or this one,
 * when it does not make it) is marked pruned. */
static void finish_hyp(TfDecoder *d, int node, double score)
{
    int K = d->K, n = d->n_fin;
    if (n == K && !(score > d->fin_score[K - 1])) {
        d->tree.nodes[node].state = BEAM_PRUNED;
        return;
    }
    if (n == K)
        d->tree.nodes[d->fin_node[--n]].state = BEAM_PRUNED;
    int at = n++;
    while (at > 0 && score > d->fin_score[at - 1]) {
        d->fin_score[at] = d->fin_score[at - 1];
        d->fin_node[at] = d->fin_node[at - 1];
        at--;
    }
    d->fin_score[at] = score;
    d->fin_node[at] = node;
    d->n_fin = n;
}

static int beam_step(TfDecoder *d, TfErr *err)
{
    const TfConfig *c = &d->m->cfg;
    int t = d->t, V = c->tgt_vocab, K = d->K, W = d->W, eos = cfg_eos_id(c);
    int marian = c->kind == TF_KIND_MARIAN, pad = cfg_pad_id(c);
    const float *z;
    if (run_step(d, &z, NULL, err))
        return -1;
    Cand *cand = d->cand;
    int nc = 0;
    /* log p_r(i) = z_r[i] - ls_r. A row's candidates rank as its logits do,
     * so only its 2K best allowed tokens (tf_top_k) can be among the 2K best overall:
     * those (ties to the lower id), offered in the order of their ids as a
     * scan of every token would offer them, give the same candidates. */
    int last = marian && t == d->max_out - 1; /* Marian: </s> alone, at the last step */
    int ban_eos = d->o.ignore_eos && !last, ban_pad = marian, want = 2 * K;
    logsumexp_rows(d->ls, z, d->n_alive, V);
    for (int r = 0; r < d->n_alive; r++) {
        const float *zr = z + (size_t)r * V;
        int ids[2 * TF_MAX_BEAM + 2], n = 0;
        float vals[2 * TF_MAX_BEAM + 2];
        if (last) {
            ids[n++] = eos;
        } else {
            int got = tf_top_k(zr, V, want + ban_eos + ban_pad, ids, vals);
            for (int q = 0; q < got; q++) /* the banned ones out, the best 2K kept */
                if (!(ban_eos && ids[q] == eos) && !(ban_pad && ids[q] == pad) && n < want)
                    ids[n++] = ids[q];
            for (int a = 1; a < n; a++) /* by id, as a scan finds them */
                for (int b = a; b > 0 && ids[b] < ids[b - 1]; b--) {
                    int tmp = ids[b];
                    ids[b] = ids[b - 1];
                    ids[b - 1] = tmp;
                }
        }
        for (int q = 0; q < n; q++) {
            double lp = d->alive_lp[r] + ((double)zr[ids[q]] - d->ls[r]);
            if (lp > -INFINITY)
                cand_insert(cand, &nc, 2 * K, (Cand){lp, r, ids[q]});
        }
    }
    double lp_len = beam_length_penalty(t + 1, d->o.alpha);
    int kept = 0;
    for (int j = 0; j < nc; j++) {
        Cand *cd = &cand[j];
        int fin = cd->token == eos, keep = !fin && kept < K;
        BeamState st = fin ? BEAM_FINISHED : keep ? BEAM_KEPT : BEAM_PRUNED;
        int node = add_node(&d->tree, (BeamNode){d->alive_node[cd->beam], cd->token, t, cd->logprob,
                                                 cd->logprob / lp_len, st});
        if (node < 0)
            return tf_fail(err, "out of memory for beam search");
        if (fin) {
            finish_hyp(d, node, cd->logprob / lp_len);
        } else if (keep) {
            int *row = d->seq2 + (size_t)kept * W;
            memcpy(row, d->seq + (size_t)cd->beam * W, (size_t)(t + 1) * sizeof *row);
            row[t + 1] = cd->token;
            d->parent[kept] = cd->beam;
            d->alive_lp[K + kept] = cd->logprob;
            d->alive_node[K + kept] = node;
            kept++;
        }
    }
    int *s = d->seq;
    d->seq = d->seq2;
    d->seq2 = s;
    for (int r = 0; r < kept; r++) {
        d->alive_lp[r] = d->alive_lp[K + r];
        d->alive_node[r] = d->alive_node[K + r];
    }
    if (d->cached && kept > 0)
        kv_reorder(&d->kv, d->parent, kept);
    d->n_alive = kept;
    d->t = t + 1;
    if (kept == 0 || d->t == d->max_out)
        return 1;
    /* no live hypothesis can beat the worst finished one any more */
    double bound = d->alive_lp[0] / beam_length_penalty(d->max_out, d->o.alpha);
    return d->n_fin > 0 && d->fin_score[d->n_fin - 1] > bound;
}

int tf_dec_step(TfDecoder *d, TfErr *err)
{
    if (d->done)
        return 1;
    int rc = d->K == 1 ? greedy_step(d, err) : beam_step(d, err);
    if (rc > 0)
        d->done = 1;
    return rc;
}

int tf_dec_run(TfDecoder *d, double budget, TfErr *err)
{
    double step = kv_step_bytes(&d->m->cfg), spent = 0;
    int rc = d->done;
    while (rc == 0 && (budget <= 0 || spent == 0 || spent + step <= budget)) {
        rc = tf_dec_step(d, err);
        spent += step;
    }
    return rc;
}

/* The beam's answer: the best finished, or an unfinished one at max_out
 * when it scores higher. */
static void beam_pick(TfDecoder *d)
{
    BeamResult *b = &d->tree;
    double best = -INFINITY;
    b->best_node = -1;
    if (d->n_fin > 0) {
        best = d->fin_score[0];
        b->best_node = d->fin_node[0];
    }
    if (d->t == d->max_out)
        for (int r = 0; r < d->n_alive; r++) {
            double sc = d->alive_lp[r] / beam_length_penalty(d->max_out, d->o.alpha);
            if (sc > best) {
                best = sc;
                b->best_node = d->alive_node[r];
            }
        }
}

int tf_dec_finish(TfDecoder *d, DecodeResult *out, BeamResult *tree, TfErr *err)
{
    memset(out, 0, sizeof *out);
    if (tree)
        memset(tree, 0, sizeof *tree);
    if (tf_dec_run(d, 0, err) < 0)
        goto fail;
    const TfConfig *c = &d->m->cfg;
    DecodeResult *r = &d->res;
    BeamResult *b = &d->tree;
    if (d->K > 1) {
        beam_pick(d);
        if (b->best_node < 0) {
            tf_fail(err, "beam search finished no hypothesis");
            goto fail;
        }
        r->n = node_tokens(b, b->best_node, r->ids);
        r->logprob = b->nodes[b->best_node].logprob;
    }
    b->n = r->n;
    b->logprob = b->nodes[b->best_node].logprob;
    b->score = b->nodes[b->best_node].score;
    if (d->K > 1 && b->nodes[b->best_node].state != BEAM_FINISHED)
        b->score = b->logprob / beam_length_penalty(d->max_out, d->o.alpha);
    /* the trace: one full pass over <start> + the output without <eos> */
    int T = r->n + 1;
    if (r->ids[r->n - 1] == cfg_eos_id(c))
        T--;
    if (T > c->max_len)
        T = c->max_len;
    int *in = d->seq2;
    in[0] = cfg_start_id(c);
    memcpy(in + 1, r->ids, (size_t)(T - 1) * sizeof *in);
    d->tr->B = 1;
    if (!d->o.no_trace && tf_decode(d->m, d->tr, T, in, &T, 0, 0, err))
        goto fail;
    *out = *r;
    d->res = (DecodeResult){0};
    if (tree) {
        b->ids = malloc((size_t)(out->n > 0 ? out->n : 1) * sizeof *b->ids);
        if (!b->ids) {
            decode_result_free(out);
            tf_fail(err, "out of memory for decoding");
            goto fail;
        }
        memcpy(b->ids, out->ids, (size_t)out->n * sizeof *b->ids);
        *tree = *b;
        d->tree = (BeamResult){0};
    }
    tf_dec_free(d);
    return 0;
fail:
    tf_dec_free(d);
    return -1;
}
