/* test_trace_growth.c - memory follows the input, not the model's max_len:
 * a trace starts small and grows in steps (trace_reserve) when a longer
 * input arrives, keeping what it holds; the results are bit-identical to a
 * trace built big from the start; a request that cannot fit in the memory
 * available is refused up front with both figures in the message. */
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "model.h"
#include "sysmem.h"
#include "test_util.h"

/* A wide model with a long table: 32 heads, max_len 4096. Sized for
 * max_len, one trace of it needed gigabytes. */
static void wide_model(TfModel *m, int max_len)
{
    tu_model(m, 7, 32, 32, 8, 1, 1, 16, 16, max_len);
}

static void fill(int *ids, int n, int V, int seed)
{
    for (int i = 0; i < n; i++)
        ids[i] = 4 + (i * 7 + seed) % (V - 4);
}

/* A recording trace for one sentence, built for cap_T (which must work). */
static void build(TfTrace *tr, const TfModel *m, int cap_T)
{
    TfErr err;
    expect_true(trace_build(tr, &m->cfg, 1, cap_T, TRACE_RECORD, &err) == 0, "build for %d: %s", cap_T, err.msg);
}

/* wide_model(max_len) and a trace of it built for 8 tokens. */
static void wide_setup(TfModel *m, TfTrace *tr, int max_len)
{
    wide_model(m, max_len);
    build(tr, m, 8);
}

static void wide_free(TfModel *m, TfTrace *tr)
{
    trace_free(tr);
    model_free(m);
}

/* A forward pass of S / T tokens in a trace built for cap_T. */
static void run(const TfModel *m, TfTrace *tr, int cap_T, int S, int T)
{
    TfErr err;
    int src[256], tgt[256];
    fill(src, S, m->cfg.src_vocab, 1);
    fill(tgt, T, m->cfg.tgt_vocab, 2);
    tgt[0] = TOK_BOS;
    build(tr, m, cap_T);
    TfBatch b = {1, S, T, src, tgt, &S, &T};
    expect_true(tf_forward(m, tr, &b, 0, &err) == 0, "forward: %s", err.msg);
}

static void test_grown_trace_equals_a_big_one(void **state)
{
    (void)state;
    TfModel m;
    wide_model(&m, 4096);
    static const int lens[][2] = {{3, 2}, {9, 17}, {40, 33}, {130, 5}};
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        int S = lens[k][0], T = lens[k][1];
        TfTrace small, big;
        run(&m, &small, 2, S, T);
        run(&m, &big, 256, S, T);
        int need = S > T ? S : T;
        expect_true(small.cap_T >= need && small.cap_T <= 2 * need + 8,
                    "S %d T %d: grown to cap_T %d", S, T, small.cap_T);
        size_t n = (size_t)T * m.cfg.tgt_vocab;
        expect_true(memcmp(small.logits, big.logits, n * sizeof(float)) == 0,
                    "S %d T %d: logits bit-identical", S, T);
        size_t w = (size_t)m.cfg.n_heads * T * S;
        expect_true(memcmp(small.dec[0].ca.weights, big.dec[0].ca.weights, w * sizeof(float)) == 0,
                    "S %d T %d: cross weights bit-identical", S, T);
        trace_free(&small);
        trace_free(&big);
    }
    model_free(&m);
}

/* The encoder's output survives a growth between encoding and decoding. */
static void test_reserve_keeps_contents(void **state)
{
    (void)state;
    TfModel m;
    TfTrace tr;
    wide_setup(&m, &tr, 512);
    TfErr err;
    int S = 6, src[6];
    fill(src, S, 16, 3);
    expect_true(tf_encode(&m, &tr, 1, S, src, &S, 0, &err) == 0, "encode: %s", err.msg);
    size_t n = (size_t)S * m.cfg.d_model;
    float *before = malloc(n * sizeof *before);
    memcpy(before, tr.memory, n * sizeof *before);
    expect_true(trace_reserve(&tr, 3, 100, &err) == 0, "reserve: %s", err.msg);
    expect_true(tr.cap_B >= 3 && tr.cap_T >= 100, "caps %d x %d", tr.cap_B, tr.cap_T);
    expect_true(tr.B == 1 && tr.S == S, "B %d S %d", tr.B, tr.S);
    expect_true(memcmp(before, tr.memory, n * sizeof *before) == 0, "memory kept");
    expect_true(memcmp(src, tr.src_ids, (size_t)S * sizeof(int)) == 0, "source ids kept");
    free(before);
    wide_free(&m, &tr);
}

/* Decoding a two-word sentence with a max_len 4096 model keeps the trace
 * near the sentence's length (it was sized for 4096 before). */
static void test_decoding_keeps_memory_small(void **state)
{
    (void)state;
    TfModel m;
    TfTrace tr;
    wide_setup(&m, &tr, 4096);
    TfErr err;
    int src[2] = {4, 5}, S = 2;
    DecodeResult r;
    int max_out = decode_max_out(&m, &tr, S);
    expect_true(max_out == 52, "max_out %d (S + 50)", max_out);
    expect_true(tf_greedy(&m, &tr, src, S, max_out, 1, &r, &err) == 0, "greedy: %s", err.msg);
    expect_true(tr.cap_T <= 64, "cap_T %d after %d tokens", tr.cap_T, r.n);
    size_t bytes = trace_bytes(&m.cfg, tr.cap_B, tr.cap_T, tr.flags);
    printf("  trace after decoding: %d x %d, %.1f MiB (sized for max_len: %.0f MiB)\n", tr.cap_B,
           tr.cap_T, bytes / 1048576.0, trace_bytes(&m.cfg, 1, 4096, tr.flags) / 1048576.0);
    decode_result_free(&r);
    BeamResult br;
    expect_true(tf_beam(&m, &tr, src, S, 4, 0.6f, max_out, &br, &err) == 0, "beam: %s", err.msg);
    expect_true(tr.cap_T <= 64, "beam trace %d x %d (the 4 rows live in the key/value cache)", tr.cap_B,
                tr.cap_T);
    beam_result_free(&br);
    wide_free(&m, &tr);
}

static void test_too_big_is_refused_with_figures(void **state)
{
    (void)state;
    TfModel m;
    wide_model(&m, 4096);
    TfErr err = {{0}};
    setenv("STEPFORMER_MEM_LIMIT", "50000000", 1); /* 50 MB */
    TfTrace tr;
    int rc = trace_build(&tr, &m.cfg, 4, 4096, TRACE_RECORD, &err);
    expect_true(rc < 0 && strstr(err.msg, "needs") && strstr(err.msg, "MiB are available") &&
                    strstr(err.msg, "may be used (a tenth is kept"),
                "rc %d: \"%s\"", rc, err.msg);
    /* a small trace still works, and growing past the limit is refused */
    build(&tr, &m, 8);
    rc = trace_reserve(&tr, 4, 4096, &err);
    expect_true(rc < 0 && strstr(err.msg, "needs"), "grow: rc %d \"%s\"", rc, err.msg);
    expect_true(tr.cap_T == 8 && tr.block != NULL, "the old trace is kept (cap_T %d)", tr.cap_T);
    trace_free(&tr);
    unsetenv("STEPFORMER_MEM_LIMIT");
    model_free(&m);
}

static void test_mem_available_is_sane(void **state)
{
    (void)state;
    size_t a = tf_mem_available();
    expect_true(a > ((size_t)16 << 20), "available %zu bytes", a);
    setenv("STEPFORMER_MEM_LIMIT", "1000", 1);
    expect_true(tf_mem_available() == 1000, "limit honoured: %zu", tf_mem_available());
    unsetenv("STEPFORMER_MEM_LIMIT");
    TfErr err;
    expect_true(tf_mem_check(1024, "a kilobyte", &err) == 0, "1 KiB fits");
    expect_true(tf_mem_check((size_t)1 << 62, "an exabyte", &err) < 0 &&
                    strstr(err.msg, "an exabyte needs"),
                "an exabyte does not fit: %s", err.msg);
}

int main(void)
{
    TU_RUN(NULL, NULL, cmocka_unit_test(test_grown_trace_equals_a_big_one),
           cmocka_unit_test(test_reserve_keeps_contents), cmocka_unit_test(test_decoding_keeps_memory_small),
           cmocka_unit_test(test_too_big_is_refused_with_figures),
           cmocka_unit_test(test_mem_available_is_sane));
}
