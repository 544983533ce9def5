/* test_decode.c - greedy, teacher forcing, beam search, sampling and
 * forced tokens. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "ops.h"
#include "test_util.h"

/* A small random model; sharpen multiplies the generator so that its
 * distributions are peaked like a trained model's. */
static void tiny_model(TfModel *m, int V, uint64_t seed, float sharpen)
{
    TfErr err;
    TfConfig c = tu_config((TuSize){.d_model = 16, .n_heads = 2, .d_ff = 32, .n_enc = 1, .n_dec = 2,
                                    .src_vocab = 9, .tgt_vocab = V, .max_len = 24});
    expect_true(model_init_random(m, &c, seed, &err) == 0, "model: %s", err.msg);
    for (size_t i = 0; i < (size_t)V * c.d_model; i++)
        m->p.gen_w[i] *= sharpen;
    /* make <eos> reasonably likely so that hypotheses finish */
    m->p.gen_b[TOK_EOS] = 1.0f;
}

/* tiny_model and a trace for cap_B sentences of 24 tokens. */
static void tiny_setup(TfModel *m, TfTrace *tr, int V, uint64_t seed, float sharpen, int cap_B, int flags)
{
    TfErr err;
    tiny_model(m, V, seed, sharpen);
    expect_true(trace_build(tr, &m->cfg, cap_B, 24, flags, &err) == 0, "trace: %s", err.msg);
}

/* tiny_setup for one recorded sentence, <eos> made unlikely: long outputs. */
static void long_setup(TfModel *m, TfTrace *tr, uint64_t seed)
{
    tiny_setup(m, tr, 12, seed, 3.0f, 1, TRACE_RECORD);
    m->p.gen_b[TOK_EOS] = -5.0f;
}

static void test_beam1_equals_greedy(void **state)
{
    (void)state;
    TfErr err;
    int agree = 0;
    for (uint64_t seed = 1; seed <= 6; seed++) {
        TfModel m;
        TfTrace tr;
        tiny_setup(&m, &tr, 12, seed, 3.0f, 4, TRACE_RECORD);
        for (int s = 0; s < 5; s++) {
            int src[6], S = 2 + s;
            for (int i = 0; i < S; i++)
                src[i] = 4 + (int)((seed * 7 + i * 3 + s) % 5);
            DecodeResult g;
            BeamResult b;
            expect_true(tf_greedy(&m, &tr, src, S, 12, 0, &g, &err) == 0, "greedy: %s", err.msg);
            expect_true(tf_beam(&m, &tr, src, S, 1, 0.6f, 12, &b, &err) == 0, "beam: %s", err.msg);
            int same = g.n == b.n && memcmp(g.ids, b.ids, (size_t)g.n * sizeof(int)) == 0;
            expect_true(same, "seed %llu sentence %d: beam 1 (%d tokens) equals greedy (%d tokens)",
                        (unsigned long long)seed, s, b.n, g.n);
            expect_true(fabs(g.logprob - b.logprob) < 1e-4, "same log-probability %.6f vs %.6f", g.logprob, b.logprob);
            agree++;
            decode_result_free(&g);
            beam_result_free(&b);
        }
        trace_free(&tr);
        model_free(&m);
    }
    printf("  %d sentences: beam size 1 = greedy\n", agree);
}

/* log P(y | x) of a whole output by one teacher-forced pass */
static double seq_logprob(const TfModel *m, TfTrace *tr, const int *src, int S,
                          const int *y, int n)
{
    int in[16], len = n, V = m->cfg.tgt_vocab;
    in[0] = TOK_BOS;
    memcpy(in + 1, y, (size_t)(n - 1) * sizeof(int));
    TfErr err;
    TfBatch b = {1, S, len, src, in, &S, &len};
    expect_true(tf_forward(m, tr, &b, 0, &err) == 0, "forward");
    double lp = 0;
    for (int t = 0; t < n; t++)
        lp += log((double)tr->probs[(size_t)t * V + y[t]]);
    return lp;
}

/* Every output of up to 3 tokens enumerated: beam search with a beam wide
 * enough to keep them all returns the one with the best penalised score. */
static void test_beam_finds_best_penalised(void **state)
{
    (void)state;
    TfErr err;
    const int V = 6, MAXO = 3, K = 40;
    float alphas[3] = {0.0f, 0.6f, 2.0f};
    for (uint64_t seed = 1; seed <= 4; seed++) {
        TfModel m;
        TfTrace tr;
        tiny_setup(&m, &tr, V, seed, 2.0f, K, 0);
        int src[3] = {4, 6, 5};
        for (int a = 0; a < 3; a++) {
            double best = -INFINITY;
            int best_y[3] = {0}, best_n = 0;
            /* y of length n: non-<eos> tokens then <eos>, or MAXO non-<eos> tokens */
            for (int n = 1; n <= MAXO; n++) {
                int combos = 1;
                for (int i = 0; i < n - 1; i++)
                    combos *= V - 1;
                for (int ends = 0; ends < (n == MAXO ? 2 : 1); ends++) {
                    int total = ends ? combos * (V - 1) : combos;
                    for (int k = 0; k < total; k++) {
                        int y[3], code = k, len = ends ? n : n - 1;
                        for (int i = 0; i < len; i++) {
                            int t = code % (V - 1);
                            code /= V - 1;
                            y[i] = t >= TOK_EOS ? t + 1 : t; /* skip <eos> */
                        }
                        if (!ends)
                            y[n - 1] = TOK_EOS;
                        double lp = seq_logprob(&m, &tr, src, 3, y, n);
                        double sc = lp / beam_length_penalty(n, alphas[a]);
                        if (sc > best) {
                            best = sc;
                            best_n = n;
                            memcpy(best_y, y, sizeof y);
                        }
                    }
                }
            }
            BeamResult b;
            expect_true(tf_beam(&m, &tr, src, 3, K, alphas[a], MAXO, &b, &err) == 0, "beam: %s", err.msg);
            printf("  seed %llu alpha %.1f: best by enumeration %.6f (%d tokens), beam %.6f (%d tokens)\n",
                   (unsigned long long)seed, alphas[a], best, best_n, b.score, b.n);
            printf("    enumeration: %d %d %d   beam: %d %d %d\n", best_y[0], best_y[1], best_y[2],
                   b.ids[0], b.n > 1 ? b.ids[1] : -1, b.n > 2 ? b.ids[2] : -1);
            expect_true(fabs(b.score - best) < 1e-4, "beam score equals the best penalised score");
            expect_true(b.n == best_n && memcmp(b.ids, best_y, (size_t)best_n * sizeof(int)) == 0,
                        "beam returns the best hypothesis");
            beam_result_free(&b);
        }
        trace_free(&tr);
        model_free(&m);
    }
}

/* The candidates of every beam step are the 2K best continuations over
 * every alive hypothesis and every token, as a plain scan of the whole
 * log-softmax finds them (logsumexp_naive over logits of a full pass of the
 * prefix): the decoder looks only at each row's 2K best logits and a
 * vectorised normaliser. Node by node in the tree: the same parent and
 * token in the same order, log-probabilities within 1e-5; with <eos>
 * allowed and banned (ignore_eos), V = 40 so that 2K = 8 is a real cut. */
typedef struct RefCand {
    double lp;
    int parent, token;
} RefCand;

static void check_beam_steps(TfModel *m, TfTrace *tr, const int *src, int S, int K, int ignore_eos)
{
    TfErr err;
    int V = m->cfg.tgt_vocab;
    DecodeOpts o;
    decode_opts_default(&o);
    o.beam = K;
    o.max_out = 8;
    o.ignore_eos = ignore_eos;
    TfDecoder d;
    DecodeResult res;
    BeamResult tree = {0};
    expect_true(tf_dec_start(&d, m, tr, src, S, &o, 0, &err) == 0, "start: %s", err.msg);
    expect_true(tf_dec_finish(&d, &res, &tree, &err) == 0, "finish: %s", err.msg);
    expect_true(tf_encode(m, tr, 1, S, src, &S, 0, &err) == 0, "encode: %s", err.msg);
    int alive[TF_MAX_BEAM] = {0}, n_alive = 1, checked = 0; /* the root: node 0 */
    for (int t = 0; t < o.max_out; t++) {
        RefCand c[TF_MAX_BEAM * 64];
        int nc = 0;
        for (int a = 0; a < n_alive; a++) {
            int seq[16], T = t + 1;
            for (int q = alive[a], i = t; q >= 0; q = tree.nodes[q].parent, i--)
                seq[i] = tree.nodes[q].token; /* the root's token is the start */
            expect_true(tf_decode(m, tr, T, seq, &T, 0, 0, &err) == 0, "decode: %s", err.msg);
            const float *z = tr->logits + (size_t)t * V;
            double ls = logsumexp_naive(z, V);
            for (int i = 0; i < V; i++)
                if (!(ignore_eos && i == TOK_EOS))
                    c[nc++] = (RefCand){tree.nodes[alive[a]].logprob + (double)z[i] - ls, alive[a], i};
        }
        for (int i = 1; i < nc; i++) /* stable: earlier hypothesis, lower token first among equals */
            for (int j = i; j > 0 && c[j].lp > c[j - 1].lp; j--) {
                RefCand x = c[j];
                c[j] = c[j - 1];
                c[j - 1] = x;
            }
        int at = 0, next = 0;
        for (int q = 0; q < tree.n_nodes; q++) {
            const BeamNode *nd = &tree.nodes[q];
            if (nd->step != t)
                continue;
            expect_true(at < 2 * K && nd->parent == c[at].parent && nd->token == c[at].token &&
                            fabs(nd->logprob - c[at].lp) < 1e-5,
                        "step %d candidate %d: node (%d, token %d, %.6f), scan (%d, token %d, %.6f)", t, at,
                        nd->parent, nd->token, nd->logprob, c[at].parent, c[at].token, c[at].lp);
            if (nd->state == BEAM_KEPT && nd->token != TOK_EOS)
                alive[next++] = q;
            at++;
            checked++;
        }
        if (at == 0)
            break;
        expect_true(at == (nc < 2 * K ? nc : 2 * K), "step %d: %d candidates of %d", t, at, nc);
        n_alive = next;
        if (n_alive == 0)
            break;
    }
    printf("  beam %d%s: %d candidates checked against the full scan\n", K, ignore_eos ? ", <eos> banned" : "",
           checked);
    expect_true(checked > 2 * K, "several steps checked");
    decode_result_free(&res);
    beam_result_free(&tree);
}

static void test_beam_candidates_match_full_scan(void **state)
{
    (void)state;
    TfModel m;
    TfTrace tr;
    tiny_setup(&m, &tr, 40, 11, 3.0f, 4, 0);
    int src[5] = {4, 5, 6, 7, 8};
    check_beam_steps(&m, &tr, src, 5, 4, 0);
    check_beam_steps(&m, &tr, src, 5, 4, 1);
    check_beam_steps(&m, &tr, src, 5, 2, 1);
    trace_free(&tr);
    model_free(&m);
}

static void test_beam_tree_and_errors(void **state)
{
    (void)state;
    TfErr err;
    TfModel m;
    TfTrace tr;
    tiny_setup(&m, &tr, 12, 5, 3.0f, 4, 0);
    int src[4] = {4, 5, 6, 7};
    BeamResult b;
    expect_true(tf_beam(&m, &tr, src, 4, 4, 0.6f, 10, &b, &err) == 0, "beam 4");
    int finished = 0, kept = 0;
    for (int i = 0; i < b.n_nodes; i++) {
        finished += b.nodes[i].state == BEAM_FINISHED;
        kept += b.nodes[i].state == BEAM_KEPT;
        expect_true(b.nodes[i].parent < i, "parents come before children");
    }
    expect_true(finished >= 1 && finished <= 4, "the finished set holds 1..4 hypotheses, got %d", finished);
    expect_true(b.nodes[b.best_node].state == BEAM_FINISHED || b.nodes[b.best_node].step == 9,
                "the winner is finished, or unfinished at max_out");
    printf("  %d nodes, %d kept, %d finished, best score %.4f\n", b.n_nodes, kept, finished, b.score);
    beam_result_free(&b);
    expect_true(tf_beam(&m, &tr, src, 4, TF_MAX_BEAM + 1, 0.6f, 10, &b, &err) != 0, "beam wider than TF_MAX_BEAM refused");
    expect_true(tf_beam(&m, &tr, src, 4, 5, 0.6f, 10, &b, &err) == 0 , "a beam wider than the trace: the rows live in the cache: %s", err.msg);
    beam_result_free(&b);
    expect_true(tf_beam(&m, &tr, src, 0, 2, 0.6f, 10, &b, &err) != 0, "empty source refused");
    printf("  -> %s\n", err.msg);
    expect_true(tf_beam(&m, &tr, src, 4, 2, NAN, 10, &b, &err) != 0, "NaN alpha refused");
    trace_free(&tr);
    model_free(&m);
}

static void test_teacher_forcing(void **state)
{
    (void)state;
    TfErr err;
    TfModel m;
    TfTrace tr, one;
    tiny_setup(&m, &tr, 12, 8, 2.0f, 1, TRACE_RECORD);
    expect_true(trace_build(&one, &m.cfg, 1, 24, TRACE_RECORD, &err) == 0, "trace");
    int src[3] = {4, 5, 6}, tgt[4] = {7, 8, 9, 10}, pred[5], truth[5];
    float loss[5];
    expect_true(tf_teacher_forced(&m, &tr, src, 3, tgt, 4, pred, truth, loss, &err) == 0, "teacher forced");
    int V = m.cfg.tgt_vocab;
    for (int t = 0; t < 5; t++) {
        /* the prediction at t is the argmax of a pass over <bos> + tgt[0..t) */
        int in[5] = {TOK_BOS}, T = t + 1, S = 3;
        memcpy(in + 1, tgt, (size_t)t * sizeof(int));
        TfBatch b = {1, 3, T, src, in, &S, &T};
        tf_forward(&m, &one, &b, 0, &err);
        const float *p = one.probs + (size_t)t * V;
        int am = 0;
        for (int v = 1; v < V; v++)
            if (p[v] > p[am])
                am = v;
        expect_true(pred[t] == am, "position %d: prediction %d is the argmax %d", t, pred[t], am);
        int want_truth = t < 4 ? tgt[t] : TOK_EOS;
        expect_true(truth[t] == want_truth, "position %d: true next token %d, got %d", t, want_truth, truth[t]);
        expect_true(fabsf(loss[t] + logf(p[want_truth])) < 1e-4f, "position %d: loss %.5f = -log p %.5f",
                    t, loss[t], -logf(p[want_truth]));
    }
    /* only the trace: the same pass */
    expect_true(tf_teacher_forced(&m, &one, src, 3, tgt, 4, NULL, NULL, NULL, &err) == 0, "trace only");
    expect_true(memcmp(one.logits, tr.logits, (size_t)5 * V * sizeof(float)) == 0, "the same logits");
    /* the model's own start and end tokens (MarianMT starts with <pad>, ends with </s>) */
    m.cfg.ids = (TfSpecials){0};
    m.cfg.ids.set = 1;
    m.cfg.ids.pad = 0;
    m.cfg.ids.start = 0;
    m.cfg.ids.eos = 11;
    m.cfg.ids.unk = 3;
    expect_true(tf_teacher_forced(&m, &tr, src, 3, tgt, 4, pred, truth, loss, &err) == 0, "teacher forced");
    expect_true(tr.tgt_ids[0] == 0 && truth[4] == 11, "decoder input starts with %d (want 0), ends at %d (want 11)",
                tr.tgt_ids[0], truth[4]);
    trace_free(&tr);
    trace_free(&one);
    model_free(&m);
}

/* The attention kept for each generated token equals the matching row of
 * one pass over the whole output (the causal mask makes them the same). */
static void test_greedy_steps(void **state)
{
    (void)state;
    TfErr err;
    TfModel m;
    TfTrace tr;
    long_setup(&m, &tr, 2);
    int src[5] = {4, 5, 6, 7, 8};
    DecodeResult g;
    expect_true(tf_greedy(&m, &tr, src, 5, 8, 1, &g, &err) == 0, "greedy");
    int NH = m.cfg.n_heads, T = tr.T;
    expect_true(T == g.n + 1 - (g.ids[g.n - 1] == TOK_EOS), "trace holds <bos> + output, T = %d", T);
    for (int t = 0; t < g.n && t < T; t++) {
        const DecodeStep *st = &g.steps[t];
        expect_true(st->token == g.ids[t], "step %d token", t);
        expect_true(st->top_id[0] == st->token, "chosen = top-1");
        for (int k = 1; k < DEC_TOPK; k++)
            expect_true(st->top_p[k] <= st->top_p[k - 1], "top-k sorted");
        for (int l = 0; l < m.cfg.n_dec; l++)
            for (int h = 0; h < NH; h++) {
                check_close("self row", st->self_w + ((size_t)l * NH + h) * (t + 1),
                            tr.dec[l].sa.weights + ((size_t)h * T + t) * T, (size_t)t + 1, 1e-5f, 1e-4f);
                check_close("cross row", st->cross_w + ((size_t)l * NH + h) * 5,
                            tr.dec[l].ca.weights + ((size_t)h * T + t) * 5, 5, 1e-5f, 1e-4f);
            }
    }
    decode_result_free(&g);
    trace_free(&tr);
    model_free(&m);
}

/* Sampling (tf_translate with o.sample): the same seed draws the same
 * translation, other seeds draw others, top-k 1 and a tiny temperature are
 * greedy, and <pad> / <bos> are never drawn even at a high temperature. */
static void test_sampling(void **state)
{
    (void)state;
    TfErr err;
    TfModel m;
    TfTrace tr;
    tiny_setup(&m, &tr, 12, 3, 1.0f, 1, 0);
    int src[4] = {4, 5, 6, 7}, S = 4, differ = 0, special = 0, draws = 0;
    DecodeOpts g0;
    decode_opts_default(&g0);
    g0.max_out = 12;
    DecodeResult g;
    expect_true(tf_translate(&m, &tr, src, S, &g0, &g, &err) == 0, "greedy: %s", err.msg);
    for (uint64_t seed = 1; seed <= 40; seed++) {
        DecodeOpts o = g0;
        o.sample = 1;
        o.sampling.temperature = 5.0f;
        o.seed = seed;
        DecodeResult a, b;
        expect_true(tf_translate(&m, &tr, src, S, &o, &a, &err) == 0, "sample: %s", err.msg);
        expect_true(tf_translate(&m, &tr, src, S, &o, &b, &err) == 0, "sample: %s", err.msg);
        expect_true(a.n == b.n && memcmp(a.ids, b.ids, (size_t)a.n * sizeof(int)) == 0,
                    "seed %llu draws the same translation twice", (unsigned long long)seed);
        differ += a.n != g.n || memcmp(a.ids, g.ids, (size_t)a.n * sizeof(int)) != 0;
        for (int k = 0; k < a.n; k++, draws++)
            special += a.ids[k] == TOK_PAD || a.ids[k] == TOK_BOS;
        decode_result_free(&a);
        decode_result_free(&b);
        /* greedy limits */
        for (int lim = 0; lim < 2; lim++) {
            o.sampling.temperature = lim ? SAMPLE_T_MIN : 3.0f;
            o.sampling.top_k = lim ? 0 : 1;
            expect_true(tf_translate(&m, &tr, src, S, &o, &a, &err) == 0, "sample: %s", err.msg);
            expect_true(a.n == g.n && memcmp(a.ids, g.ids, (size_t)a.n * sizeof(int)) == 0,
                        "seed %llu: %s gives the greedy output", (unsigned long long)seed,
                        lim ? "temperature 0.01" : "top-k 1");
            decode_result_free(&a);
        }
    }
    expect_true(differ >= 10, "at T 5 most seeds draw something other than greedy (%d of 40)", differ);
    expect_true(special == 0, "<pad>/<bos> drawn %d times in %d draws", special, draws);
    DecodeOpts bad = g0;
    bad.sample = 1;
    bad.sampling.temperature = 0;
    DecodeResult r;
    expect_true(tf_translate(&m, &tr, src, S, &bad, &r, &err) != 0 && strstr(err.msg, "temperature"),
                "temperature 0 refused: %s", err.msg);
    bad = g0;
    bad.beam = 2;
    bad.sample = 1;
    expect_true(tf_translate(&m, &tr, src, S, &bad, &r, &err) != 0, "sampling with a beam refused");
    printf("  40 seeds: reproducible, %d differ from greedy at T 5, %d draws without <pad>/<bos>\n",
           differ, draws);
    decode_result_free(&g);
    trace_free(&tr);
    model_free(&m);
}

/* A forced token appears at its step and generation continues from the
 * prefix it makes: the next token is the greedy choice after that prefix. */
static void test_force(void **state)
{
    (void)state;
    TfErr err;
    TfModel m;
    TfTrace tr;
    long_setup(&m, &tr, 5);
    int src[3] = {4, 6, 8}, S = 3;
    DecodeOpts o;
    decode_opts_default(&o);
    o.max_out = 10;
    DecodeResult g, f;
    expect_true(tf_translate(&m, &tr, src, S, &o, &g, &err) == 0, "greedy: %s", err.msg);
    expect_true(g.n >= 3, "greedy output has %d tokens", g.n);
    int tok = g.ids[1] == 7 ? 8 : 7;
    expect_true(decode_add_force(&o, "1:7", 12, &err) == 0, "force: %s", err.msg);
    o.force[0].token = tok;
    expect_true(tf_translate(&m, &tr, src, S, &o, &f, &err) == 0, "forced: %s", err.msg);
    expect_true(f.n >= 3 && f.ids[0] == g.ids[0] && f.ids[1] == tok,
                "step 0 as greedy (%d = %d), step 1 forced to %d (%d)", f.ids[0], g.ids[0], tok,
                f.ids[1]);
    /* the continuation is greedy given <bos> y0 tok */
    int tgt[2] = {f.ids[0], tok}, pred[3], truth[3];
    float loss[3];
    expect_true(tf_teacher_forced(&m, &tr, src, S, tgt, 2, pred, truth, loss, &err) == 0, "tf");
    expect_true(f.ids[2] == pred[2], "after the forced token generation continues: %d = %d",
                f.ids[2], pred[2]);
    /* kept steps mark the forced one */
    DecodeResult k;
    expect_true(tf_generate(&m, &tr, src, S, 10, 1, &o, &k, &err) == 0, "generate: %s", err.msg);
    expect_true(k.steps && k.steps[1].forced && !k.steps[0].forced && k.steps[1].token == tok,
                "step 1 is marked forced");
    expect_true(decode_add_force(&o, "1:12", 12, &err) != 0 && strstr(err.msg, "0..11"),
                "token outside the vocabulary refused: %s", err.msg);
    expect_true(decode_add_force(&o, "x", 12, &err) != 0 && strstr(err.msg, "STEP:TOKEN"),
                "malformed refused: %s", err.msg);
    decode_result_free(&g);
    decode_result_free(&f);
    decode_result_free(&k);
    trace_free(&tr);
    model_free(&m);
}

int main(void)
{
    TU_RUN(NULL, NULL,
           cmocka_unit_test(test_beam1_equals_greedy),
           cmocka_unit_test(test_beam_finds_best_penalised),
           cmocka_unit_test(test_beam_tree_and_errors),
           cmocka_unit_test(test_beam_candidates_match_full_scan),
           cmocka_unit_test(test_teacher_forcing),
           cmocka_unit_test(test_greedy_steps),
           cmocka_unit_test(test_sampling),
           cmocka_unit_test(test_force));
}
