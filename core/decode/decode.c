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

/* The k largest of p[0..n), best first (ties: lower index first). */
int decode_top_k(const float *p, int n, int k, int *ids, float *vals)
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

int tf_greedy(const TfModel *m, TfTrace *tr, const int *src, int S,
              int max_out, int keep_steps, DecodeResult *out, TfErr *err)
{
    return tf_generate(m, tr, src, S, max_out, keep_steps, NULL, out, err);
}

int tf_generate(const TfModel *m, TfTrace *tr, const int *src, int S, int max_out,
                int keep_steps, const DecodeOpts *o, DecodeResult *out, TfErr *err)
{
    DecodeOpts g;
    if (o)
        g = *o;
    else
        decode_opts_default(&g);
    g.beam = 1;
    g.max_out = max_out;
    memset(out, 0, sizeof *out);
    if (max_out < 1)
        return decode_check_src(m, src, S, max_out, err);
    TfDecoder d;
    if (tf_dec_start(&d, m, tr, src, S, &g, keep_steps, err))
        return -1;
    return tf_dec_finish(&d, out, NULL, err);
}

int tf_teacher_forced(const TfModel *m, TfTrace *tr, const int *src, int S,
                      const int *tgt, int n, int *pred, int *truth,
                      float *loss, TfErr *err)
{
    if (decode_check_src(m, src, S, 1, err))
        return -1;
    int T = n + 1;
    if (n < 0 || T > m->cfg.max_len)
        return tf_fail(err, "the target has %d tokens; the model's limit is %d", n,
                       m->cfg.max_len - 1);
    int *in = malloc((size_t)T * sizeof *in);
    if (!in)
        return tf_fail(err, "out of memory");
    in[0] = cfg_start_id(&m->cfg); /* <bos>, or MarianMT's <pad> */
    memcpy(in + 1, tgt, (size_t)n * sizeof *in);
    TfBatch b = {1, S, T, src, in, &S, &T};
    int rc = tf_forward(m, tr, &b, 0, err);
    free(in);
    if (rc)
        return -1;
    if (pred)
        tf_teacher_forced_read(m, tr, tgt, n, pred, truth, loss);
    return 0;
}

void tf_teacher_forced_read(const TfModel *m, const TfTrace *tr, const int *tgt, int n, int *pred,
                            int *truth, float *loss)
{
    int V = m->cfg.tgt_vocab;
    for (int i = 0; i <= n; i++) {
        const float *p = tr->probs + (size_t)i * V;
        pred[i] = decode_argmax(p, V);
        truth[i] = i < n ? tgt[i] : cfg_eos_id(&m->cfg);
        loss[i] = -logf(p[truth[i]] > 0 ? p[truth[i]] : 1e-30f);
    }
}

/* ---- beam search ---- */

int tf_beam(const TfModel *m, TfTrace *tr, const int *src, int S, int K,
            float alpha, int max_out, BeamResult *out, TfErr *err)
{
    memset(out, 0, sizeof *out);
    DecodeOpts o;
    decode_opts_default(&o);
    o.beam = K;
    o.alpha = alpha;
    o.max_out = max_out;
    if (max_out < 1)
        return decode_check_src(m, src, S, max_out, err);
    TfDecoder d;
    DecodeResult r;
    if (tf_dec_start(&d, m, tr, src, S, &o, 0, err) || tf_dec_finish(&d, &r, out, err))
        return -1;
    decode_result_free(&r);
    return 0;
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
    DecodeOpts g = *o;
    int max_out = decode_max_out(m, tr, S);
    if (g.max_out <= 0 || g.max_out > max_out)
        g.max_out = max_out;
    TfDecoder d;
    if (tf_dec_start(&d, m, tr, src, S, &g, 0, err))
        return -1;
    return tf_dec_finish(&d, out, NULL, err);
}
