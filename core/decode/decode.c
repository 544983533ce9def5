/* decode.c - a whole sentence at once: teacher forcing, greedy decoding,
 * sampling, beam search and tf_translate, the one entry point choosing
 * between them (decode.h); all but teacher forcing run the step-by-step
 * decoder of decoder.c to the end. */
#include "decode.h"
#include "num.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
    /* digits only: no sign, space or 0x, as --src-ids */
    const char *colon = strchr(spec, ':');
    int step, tok;
    if (!colon || tf_parse_int(spec, (size_t)(colon - spec), 0, TF_MAX_LEN - 1, &step))
        return tf_fail(err, "--force %s: expected STEP:TOKEN, the step 0..%d (from 0)", spec,
                       TF_MAX_LEN - 1);
    if (tf_parse_int(colon + 1, strlen(colon + 1), 0, V - 1, &tok))
        return tf_fail(err, "--force %s: the token must be an id 0..%d of the target vocabulary",
                       spec, V - 1);
    for (int k = 0; k < o->n_force; k++)
        if (o->force[k].step == step && o->force[k].token != tok)
            return tf_fail(err, "--force %s: step %d is forced twice, also to %d", spec, step,
                           o->force[k].token);
        else if (o->force[k].step == step)
            return 0; /* the same again */
    if (o->n_force >= DEC_MAX_FORCE)
        return tf_fail(err, "--force %s: at most %d forced tokens", spec, DEC_MAX_FORCE);
    o->force[o->n_force++] = (DecodeForce){step, tok};
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
