/* test_kvcache.c - incremental decoding with the key/value cache equals the
 * full recompute (logits, tokens, beams, attention rows) on post-LN, pre-LN,
 * tied, untied and Marian models and under every experiment; beam search
 * equals a plain, unbatched implementation of tensor2tensor's policy; the
 * trace after decoding is the one a fresh pass over the output gives. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "model_open.h"
#include "test_util.h"

/* The model kinds: 0 post-LN untied, 1 pre-LN untied, 2 post-LN tied
 * generator, 3 pre-LN all tied. */
static void kind_model(TfModel *m, int kind, int V, uint64_t seed)
{
    TfErr err;
    TfConfig c = tu_config((TuSize){.d_model = 16, .n_heads = 2, .d_ff = 32, .n_enc = 2, .n_dec = 2,
                                    .src_vocab = kind == 3 ? V : 11, .tgt_vocab = V, .max_len = 40});
    c.norm = kind & 1 ? TF_NORM_PRE : TF_NORM_POST;
    c.tie = kind == 2 ? TF_TIE_GENERATOR : kind == 3 ? TF_TIE_ALL : TF_TIE_NONE;
    expect_true(model_init_random(m, &c, seed, &err) == 0, "model: %s", err.msg);
    for (size_t i = 0; i < (size_t)V * c.d_model; i++)
        m->p.gen_w[i] *= 2.5f;
    m->p.gen_b[cfg_eos_id(&c)] += 0.5f;
}

static const char *const KIND[] = {"post-LN untied", "pre-LN untied", "post-LN tied", "pre-LN all tied"};

/* Experiments applied in turn: none, no_scale, no_pe, ablate, hide_src, all four. */
static void set_exp(TfExperiment *e, int which)
{
    memset(e, 0, sizeof *e);
    if (which == 1 || which == 5)
        e->no_scale = 1;
    if (which == 2 || which == 5)
        e->no_pe = 1;
    if (which == 3 || which == 5) {
        e->ablate[e->n_ablate++] = (TfHeadRef){TF_ATTN_DEC, 0, 1};
        e->ablate[e->n_ablate++] = (TfHeadRef){TF_ATTN_CROSS, 1, 0};
        e->ablate[e->n_ablate++] = (TfHeadRef){TF_ATTN_ENC, 0, 0};
    }
    if (which == 4 || which == 5)
        e->hide_src[e->n_hide++] = 1;
    if (which == 6)
        e->no_residual = 1;
    if (which == 7) {
        e->no_ffn[e->n_no_ffn++] = (TfLayerRef){TF_ATTN_ENC, 0};
        e->no_ffn[e->n_no_ffn++] = (TfLayerRef){TF_ATTN_DEC, 1};
    }
}

/* Step logits from the cache equal the full pass's at every position. */
static void cached_logits_match(const TfModel *m, const TfExperiment *e, const int *src, int S,
                                const int *tgt, int T, const char *what)
{
    TfErr err;
    TfTrace tr;
    int V = m->cfg.tgt_vocab;
    expect_true(trace_build(&tr, &m->cfg, 1, 8, 0, &err) == 0, "trace: %s", err.msg);
    tr.exp = *e;
    expect_true(tf_encode(m, &tr, 1, S, src, &S, 0, &err) == 0, "encode");
    TfKvCache kv;
    expect_true(kv_init(&kv, m, e, tr.memory, S, 1, T, &err) == 0, "cache: %s", err.msg);
    float *step = malloc((size_t)T * V * sizeof *step);
    for (int t = 0; t < T; t++) {
        expect_true(kv_step(&kv, m, &tgt[t], 1, NULL, NULL, &err) == 0, "step: %s", err.msg);
        memcpy(step + (size_t)t * V, kv.logits, (size_t)V * sizeof(float));
    }
    int Tl = T;
    expect_true(tf_decode(m, &tr, T, tgt, &Tl, 0, 0, &err) == 0, "decode");
    printf("  %s ", what);
    check_close("logits", step, tr.logits, (size_t)T * V, 1e-5f, 1e-5f);
    free(step);
    kv_free(&kv);
    trace_free(&tr);
}

static void test_step_equals_full_pass(void **state)
{
    (void)state;
    int src[5] = {4, 7, 5, 9, 6}, tgt[9] = {TOK_BOS, 5, 9, 4, 4, 11, 6, 7, 8};
    for (int kind = 0; kind < 4; kind++) {
        TfModel m;
        kind_model(&m, kind, 13, 11 + kind);
        for (int x = 0; x < 8; x++) {
            TfExperiment e;
            set_exp(&e, x);
            char what[96];
            snprintf(what, sizeof what, "%s, experiment %d:", KIND[kind], x);
            cached_logits_match(&m, &e, src, 5, tgt, 9, what);
        }
        model_free(&m);
    }
    TfErr err;
    TfExperiment e = {.no_causal = 1};
    TfModel m;
    kind_model(&m, 0, 13, 3);
    TfKvCache kv;
    float mem[5 * 16] = {0};
    expect_true(!kv_supported(&e) && kv_init(&kv, &m, &e, mem, 5, 1, 4, &err) != 0,
                "no_causal: the cache refuses (later positions would change earlier ones)");
    model_free(&m);
}

/* Greedy, sampling, forcing and beam: the cache gives the recompute's output
 * token for token, and the same log P. */
static void same_output(const TfModel *m, const TfExperiment *e, const DecodeOpts *o, const int *src,
                        int S, const char *what)
{
    TfErr err;
    TfTrace tr;
    expect_true(trace_build(&tr, &m->cfg, 1, 8, TRACE_RECORD, &err) == 0, "trace");
    tr.exp = *e;
    DecodeOpts ref = *o;
    ref.recompute = 1;
    DecodeResult a, b;
    expect_true(tf_translate(m, &tr, src, S, o, &a, &err) == 0, "%s cached: %s", what, err.msg);
    expect_true(tf_translate(m, &tr, src, S, &ref, &b, &err) == 0, "%s recompute: %s", what, err.msg);
    expect_true(a.n == b.n && memcmp(a.ids, b.ids, (size_t)a.n * sizeof(int)) == 0,
                "%s: cached %d tokens = recomputed %d tokens", what, a.n, b.n);
    expect_true(fabs(a.logprob - b.logprob) <= 1e-4 * (1 + fabs(b.logprob)),
                "%s: log P %.6f cached, %.6f recomputed", what, a.logprob, b.logprob);
    decode_result_free(&a);
    decode_result_free(&b);
    trace_free(&tr);
}

static void test_cached_equals_recompute(void **state)
{
    (void)state;
    int src[6] = {4, 7, 5, 9, 6, 8};
    int cases = 0;
    for (int kind = 0; kind < 4; kind++) {
        for (uint64_t seed = 1; seed <= 3; seed++) {
            TfModel m;
            kind_model(&m, kind, 14, seed * 7 + kind);
            for (int x = 0; x < 9; x++) {
                TfExperiment e;
                set_exp(&e, x < 8 ? x : 0);
                e.no_causal = x == 8; /* falls back to the recompute: the same */
                DecodeOpts o;
                decode_opts_default(&o);
                o.max_out = 20;
                char what[96];
                snprintf(what, sizeof what, "%s seed %d exp %d", KIND[kind], (int)seed, x);
                same_output(&m, &e, &o, src, 6, what); /* greedy */
                o.sample = 1;
                o.seed = seed;
                o.sampling = (SampleOpts){0.8f, 5, 0.95f};
                same_output(&m, &e, &o, src, 6, what);
                o.sample = 0;
                o.force[o.n_force++] = (DecodeForce){1, 5};
                same_output(&m, &e, &o, src, 6, what);
                o.n_force = 0;
                for (int K = 2; K <= 5; K += 3)
                    for (int a = 0; a < 2; a++) {
                        o.beam = K;
                        o.alpha = a ? 0.6f : 0.0f;
                        same_output(&m, &e, &o, src, 6, what);
                    }
                cases += 7;
            }
            model_free(&m);
        }
    }
    printf("  %d decodings: cached = recomputed (greedy, sampled, forced, beam 2 and 5)\n", cases);
}

/* Marian models (start token = pad, no padding mask in decoder
 * self-attention, SiLU / GELU, final_logits_bias, halves PE, </s> forced). */
static void test_marian_cached(void **state)
{
    (void)state;
    const char *dirs[] = {"tests/fixtures/marian/swish_f32", "tests/fixtures/marian/relu_f16_hub",
                          "tests/fixtures/marian/gelu_bf16"};
    int src[5] = {5, 9, 12, 7, 0};
    for (int i = 0; i < 3; i++) {
        TfModel m;
        TfErr err;
        expect_true(tf_model_open(dirs[i], &m, &err) == 0, "%s: %s", dirs[i], err.msg);
        int S = 4;
        src[S++] = cfg_eos_id(&m.cfg);
        for (int k = 0; k < S; k++)
            src[k] %= m.cfg.src_vocab;
        TfExperiment e = {0};
        int tgt[6] = {cfg_start_id(&m.cfg), 5, 8, 3, 9, 4};
        cached_logits_match(&m, &e, src, S, tgt, 6, dirs[i]);
        DecodeOpts o;
        decode_opts_default(&o);
        same_output(&m, &e, &o, src, S, dirs[i]);
        o.beam = 3;
        same_output(&m, &e, &o, src, S, dirs[i]);
        model_free(&m);
    }
}

/* ---- a plain reference of tensor2tensor's beam search ---- */

typedef struct Hyp {
    int n, ids[48];
    double lp;
} Hyp;

/* log-softmax of the next token after prefix h, by one whole forward pass. */
static void next_logprobs(const TfModel *m, TfTrace *tr, const int *src, int S, const Hyp *h,
                          double *out)
{
    TfErr err;
    int in[49], T = h->n + 1, V = m->cfg.tgt_vocab;
    in[0] = TOK_BOS;
    memcpy(in + 1, h->ids, (size_t)h->n * sizeof(int));
    TfBatch b = {1, S, T, src, in, &S, &T};
    expect_true(tf_forward(m, tr, &b, 0, &err) == 0, "forward: %s", err.msg);
    const float *z = tr->logits + (size_t)(T - 1) * V;
    double mx = -INFINITY, s = 0;
    for (int i = 0; i < V; i++)
        mx = fmax(mx, z[i]);
    for (int i = 0; i < V; i++)
        s += exp(z[i] - mx);
    for (int i = 0; i < V; i++)
        out[i] = z[i] - mx - log(s);
}

/* The policy as the issue states it, one hypothesis at a time; returns the
 * best score, its tokens in *best. */
static double ref_beam(const TfModel *m, TfTrace *tr, const int *src, int S, int K, float alpha,
                       int max_out, Hyp *best)
{
    int V = m->cfg.tgt_vocab;
    Hyp alive[64], fin[64], next[64];
    Hyp *cand = malloc((size_t)64 * V * sizeof *cand);
    double fsc[64], *lsm = malloc((size_t)V * sizeof *lsm);
    int n_alive = 1, n_fin = 0;
    alive[0] = (Hyp){0};
    int t = 0;
    for (; t < max_out; t++) {
        /* every expansion in beam-major order, a stable sort by log P, the 2K first */
        int nc = 0;
        for (int a = 0; a < n_alive; a++) {
            next_logprobs(m, tr, src, S, &alive[a], lsm);
            for (int v = 0; v < V; v++) {
                Hyp h = alive[a];
                h.ids[h.n++] = v;
                h.lp += lsm[v];
                int at = nc++;
                cand[at] = h;
                for (; at > 0 && cand[at].lp > cand[at - 1].lp; at--) {
                    Hyp x = cand[at];
                    cand[at] = cand[at - 1];
                    cand[at - 1] = x;
                }
            }
        }
        if (nc > 2 * K)
            nc = 2 * K;
        double lpl = beam_length_penalty(t + 1, alpha);
        int kept = 0;
        for (int j = 0; j < nc; j++) {
            if (cand[j].ids[cand[j].n - 1] == TOK_EOS) {
                fin[n_fin] = cand[j];
                fsc[n_fin++] = cand[j].lp / lpl;
                /* keep the K best finished (stable: older first) */
                for (int i = n_fin - 1; i > 0 && fsc[i] > fsc[i - 1]; i--) {
                    double s = fsc[i];
                    fsc[i] = fsc[i - 1];
                    fsc[i - 1] = s;
                    Hyp x = fin[i];
                    fin[i] = fin[i - 1];
                    fin[i - 1] = x;
                }
                if (n_fin > K)
                    n_fin = K;
            } else if (kept < K) {
                next[kept++] = cand[j];
            }
        }
        memcpy(alive, next, (size_t)kept * sizeof *alive);
        n_alive = kept;
        if (t + 1 < max_out && n_fin > 0 &&
            fsc[n_fin - 1] > alive[0].lp / beam_length_penalty(max_out, alpha)) {
            t++;
            break;
        }
    }
    double bs = -INFINITY;
    for (int i = 0; i < n_fin; i++)
        if (fsc[i] > bs) {
            bs = fsc[i];
            *best = fin[i];
        }
    if (t == max_out)
        for (int a = 0; a < n_alive; a++) {
            double s = alive[a].lp / beam_length_penalty(max_out, alpha);
            if (s > bs) {
                bs = s;
                *best = alive[a];
            }
        }
    free(lsm);
    free(cand);
    return bs;
}

static void test_beam_equals_reference(void **state)
{
    (void)state;
    TfErr err;
    int agree = 0, total = 0;
    for (uint64_t seed = 1; seed <= 8; seed++) {
        TfModel m;
        kind_model(&m, (int)(seed % 4), 10, seed + 100);
        TfTrace tr, rt;
        expect_true(trace_build(&tr, &m.cfg, 1, 8, 0, &err) == 0, "trace");
        expect_true(trace_build(&rt, &m.cfg, 1, 8, 0, &err) == 0, "trace");
        int src[4] = {4, 5 + (int)seed % 5, 7, 6};
        int Ks[3] = {2, 4, 8};
        float alphas[3] = {0.0f, 0.6f, 1.0f};
        for (int k = 0; k < 3; k++)
            for (int a = 0; a < 3; a++) {
                int max_out = 12;
                Hyp best = {0};
                double want = ref_beam(&m, &rt, src, 4, Ks[k], alphas[a], max_out, &best);
                BeamResult b;
                expect_true(tf_beam(&m, &tr, src, 4, Ks[k], alphas[a], max_out, &b, &err) == 0,
                            "beam: %s", err.msg);
                int same = b.n == best.n && memcmp(b.ids, best.ids, (size_t)b.n * sizeof(int)) == 0;
                expect_true(same && fabs(b.score - want) < 1e-6 * (1 + fabs(want)),
                            "seed %d K %d alpha %.1f: beam %d tokens score %.6f, reference %d tokens %.6f",
                            (int)seed, Ks[k], alphas[a], b.n, b.score, best.n, want);
                agree += same;
                total++;
                beam_result_free(&b);
            }
        trace_free(&tr);
        trace_free(&rt);
        model_free(&m);
    }
    printf("  %d of %d (model, K, alpha): batched beam = the plain reference\n", agree, total);
}

/* After decoding, the trace is what a fresh pass over <bos> + the output
 * gives (what `dump` shows), bit for bit. */
static void test_trace_after_decoding(void **state)
{
    (void)state;
    TfErr err;
    TfModel m;
    kind_model(&m, 1, 14, 42);
    int src[6] = {4, 7, 5, 9, 6, 8};
    for (int K = 1; K <= 4; K += 3) {
        TfTrace tr, fresh;
        expect_true(trace_build(&tr, &m.cfg, 1, 8, TRACE_RECORD, &err) == 0, "trace");
        expect_true(trace_build(&fresh, &m.cfg, 1, 8, TRACE_RECORD, &err) == 0, "trace");
        DecodeOpts o;
        decode_opts_default(&o);
        o.beam = K;
        o.max_out = 20;
        DecodeResult r;
        expect_true(tf_translate(&m, &tr, src, 6, &o, &r, &err) == 0, "translate: %s", err.msg);
        int in[64], T = r.n + 1;
        if (r.ids[r.n - 1] == TOK_EOS)
            T--;
        in[0] = TOK_BOS;
        memcpy(in + 1, r.ids, (size_t)(T - 1) * sizeof(int));
        int S = 6;
        TfBatch b = {1, S, T, src, in, &S, &T};
        expect_true(tf_forward(&m, &fresh, &b, 0, &err) == 0, "forward: %s", err.msg);
        int V = m.cfg.tgt_vocab, C = m.cfg.d_model, L = m.cfg.n_dec, NH = m.cfg.n_heads;
        expect_true(tr.T == T && tr.B == 1 && tr.S == 6, "beam %d: the trace holds 1 x %d (has %d x %d)", K, T,
                    tr.B, tr.T);
        expect_true(memcmp(tr.probs, fresh.probs, (size_t)T * V * sizeof(float)) == 0 &&
                        memcmp(tr.dec_out, fresh.dec_out, (size_t)T * C * sizeof(float)) == 0 &&
                        memcmp(tr.tgt_ids, fresh.tgt_ids, (size_t)T * sizeof(int)) == 0,
                    "beam %d: probabilities and decoder output as a fresh pass", K);
        for (int l = 0; l < L; l++)
            expect_true(memcmp(tr.dec[l].sa.weights, fresh.dec[l].sa.weights,
                               (size_t)NH * T * T * sizeof(float)) == 0 &&
                            memcmp(tr.dec[l].ca.weights, fresh.dec[l].ca.weights,
                                   (size_t)NH * T * S * sizeof(float)) == 0,
                        "beam %d layer %d: attention as a fresh pass", K, l);
        DecodeResult q;
        o.no_trace = 1;
        int T0 = tr.T;
        tr.T = 0;
        expect_true(tf_translate(&m, &tr, src, 6, &o, &q, &err) == 0 && q.n == r.n &&
                        memcmp(q.ids, r.ids, (size_t)r.n * sizeof(int)) == 0,
                    "beam %d: no_trace gives the same tokens", K);
        expect_true(K > 1 || tr.T != T0, "greedy no_trace: the last step's pass is not redone");
        decode_result_free(&q);
        decode_result_free(&r);
        trace_free(&tr);
        trace_free(&fresh);
    }
    model_free(&m);
}

/* The resumable decoder: step by step gives what one call gives; freeing
 * half-way (an edit cancels it) leaks nothing and leaves a usable trace. */
static void test_step_by_step(void **state)
{
    (void)state;
    TfErr err;
    TfModel m;
    kind_model(&m, 0, 14, 5);
    TfTrace tr;
    expect_true(trace_build(&tr, &m.cfg, 1, 8, TRACE_RECORD, &err) == 0, "trace");
    int src[6] = {4, 7, 5, 9, 6, 8};
    for (int K = 1; K <= 4; K += 3) {
        DecodeOpts o;
        decode_opts_default(&o);
        o.beam = K;
        DecodeResult whole, r;
        expect_true(tf_translate(&m, &tr, src, 6, &o, &whole, &err) == 0, "translate");
        TfDecoder d;
        expect_true(tf_dec_start(&d, &m, &tr, src, 6, &o, 1, &err) == 0, "start: %s", err.msg);
        int steps = 0, rc;
        while ((rc = tf_dec_step(&d, &err)) == 0)
            steps++;
        expect_true(rc == 1 && d.t == steps + 1 && d.t <= d.max_out, "beam %d: %d steps", K, d.t);
        expect_true(tf_dec_finish(&d, &r, NULL, &err) == 0, "finish");
        expect_true(r.n == whole.n && memcmp(r.ids, whole.ids, (size_t)r.n * sizeof(int)) == 0,
                    "beam %d: stepped = whole", K);
        expect_true(K > 1 || r.steps != NULL, "greedy keeps its steps");
        decode_result_free(&r);
        decode_result_free(&whole);
        expect_true(tf_dec_start(&d, &m, &tr, src, 6, &o, 1, &err) == 0, "start");
        expect_true(tf_dec_step(&d, &err) >= 0, "one step");
        tf_dec_free(&d); /* cancelled */
    }
    trace_free(&tr);
    model_free(&m);
}

/* Starting from an encoder output already made gives translate's result:
 * another trace's (a window's pass; only with the cache and no final pass,
 * else the source is encoded again), or the decoder trace's own encoded a
 * layer at a time (then the trace after decoding is translate's too). */
static void test_start_from_memory(void **state)
{
    (void)state;
    TfErr err;
    int src[6] = {4, 7, 5, 9, 6, 8}, S = 6;
    for (int kind = 0; kind < 4; kind++)
        for (int which = 0; which < 3; which++) { /* none, hidden source, no_causal (no cache) */
            TfModel m;
            kind_model(&m, kind, 14, 11 + kind);
            TfExperiment e = {0};
            if (which == 1)
                e.hide_src[e.n_hide++] = 2;
            e.no_causal = which == 2;
            TfTrace pass, tr, ref;
            expect_true(trace_build(&pass, &m.cfg, 1, 8, TRACE_RECORD, &err) == 0 &&
                            trace_build(&tr, &m.cfg, 1, 8, TRACE_RECORD, &err) == 0 &&
                            trace_build(&ref, &m.cfg, 1, 8, TRACE_RECORD, &err) == 0,
                        "traces");
            pass.exp = tr.exp = ref.exp = e;
            expect_true(tf_encode(&m, &pass, 1, S, src, &S, 0, &err) == 0, "the window's pass");
            for (int K = 1; K <= 4; K += 3)
                for (int own = 0; own < 2; own++) {
                    DecodeOpts o;
                    decode_opts_default(&o);
                    o.beam = K;
                    o.no_trace = !own;
                    DecodeResult want, got;
                    expect_true(tf_translate(&m, &ref, src, S, &o, &want, &err) == 0, "translate: %s", err.msg);
                    if (own) { /* encoded in pieces by the caller */
                        expect_true(tf_encode_begin(&m, &tr, 1, S, src, &S, 0, &err) == 0, "begin");
                        for (int l = 0; l < m.cfg.n_enc; l++)
                            tf_encode_layer(&m, &tr, l, 0);
                    }
                    TfDecoder d;
                    expect_true(tf_dec_start_from(&d, &m, &tr, src, S, &o, 0, own ? tr.memory : pass.memory,
                                                  &err) == 0 &&
                                    tf_dec_finish(&d, &got, NULL, &err) == 0,
                                "decode: %s", err.msg);
                    expect_true(got.n == want.n && memcmp(got.ids, want.ids, (size_t)got.n * sizeof(int)) == 0 &&
                                    got.logprob == want.logprob,
                                "%s, experiment %d, beam %d, %s memory: translate's %d tokens (got %d)", KIND[kind],
                                which, K, own ? "its own" : "another trace's", want.n, got.n);
                    if (own)
                        expect_true(tr.T == ref.T && memcmp(tr.probs, ref.probs, (size_t)tr.T * m.cfg.tgt_vocab *
                                                                                     sizeof(float)) == 0,
                                    "the trace after decoding is translate's");
                    decode_result_free(&want);
                    decode_result_free(&got);
                }
            trace_free(&pass);
            trace_free(&tr);
            trace_free(&ref);
            model_free(&m);
        }
}

int main(void)
{
    TU_RUN(NULL, NULL, cmocka_unit_test(test_step_equals_full_pass), cmocka_unit_test(test_cached_equals_recompute),
           cmocka_unit_test(test_marian_cached), cmocka_unit_test(test_beam_equals_reference),
           cmocka_unit_test(test_trace_after_decoding), cmocka_unit_test(test_step_by_step),
           cmocka_unit_test(test_start_from_memory));
}
