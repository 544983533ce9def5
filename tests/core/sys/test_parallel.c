/* test_parallel.c - the second core for matrix products (core/sys/parallel.c
 * and op_gemm's split in core/sys/ops.c).
 *
 * par_two runs each part once, part 1 on the helper thread when it is free
 * and on the caller when the helper is claimed; the claim is exclusive. A
 * product split in two equals the same product done by one cblas_sgemm
 * call within 1e-5 absolute + 1e-5 relative (parallel.h: the kernel may add
 * in another order at panel edges, i.e. a few units in the last place at
 * these magnitudes), for odd sizes, every transpose and beta; and where to
 * split depends only on the shape, so the helper thread and the caller
 * alone give the same bits. A thread that runs alone (par_solo, as each of
 * the trainer's two shard threads does) never splits: par_two runs both
 * parts on it even with the helper free, and op_gemm is one cblas_sgemm
 * call with exactly its bits. */
#include "test_util.h"

#include <cblas.h>
#include <pthread.h>
#include <stdatomic.h>
#include <strings.h>
#include <stdlib.h>

#include "clock.h"
#include "ops.h"
#include "parallel.h"
#include "rng.h"

typedef struct Parts {
    int calls[2];
    pthread_t who[2];
} Parts;

static void record(void *ctx, int part)
{
    Parts *p = ctx;
    p->calls[part]++;
    p->who[part] = pthread_self();
}

/* Part 0 waits (up to a second) for part 1 to start, so that the helper
 * takes part 1 instead of the caller taking it back once part 0 is done. */
static atomic_int g_part1_started;

static void record_wait(void *ctx, int part)
{
    if (part == 1)
        atomic_store(&g_part1_started, 1);
    else
        for (double t0 = tf_seconds(); !atomic_load(&g_part1_started) && tf_seconds() - t0 < 1.0;)
            ;
    record(ctx, part);
}

/* A part 0 that is done before the helper wakes: the caller runs part 1
 * itself (par_two returns 0) or the helper does (1); each part runs once. */
static void test_par_two_takes_back_a_late_part(void **state)
{
    (void)state;
    for (int i = 0; i < 200; i++) {
        Parts p = {{0, 0}, {0, 0}};
        int split = par_two(record, &p);
        expect_true(p.calls[0] == 1 && p.calls[1] == 1, "each part once, got %d and %d", p.calls[0], p.calls[1]);
        expect_true(pthread_equal(p.who[1], pthread_self()) == !split, "part 1 ran where par_two says (%d)", split);
    }
}

static void test_par_two_runs_both_parts(void **state)
{
    (void)state;
    Parts p = {{0, 0}, {0, 0}};
    atomic_store(&g_part1_started, 0);
    int split = par_two(record_wait, &p);
    expect_true(p.calls[0] == 1 && p.calls[1] == 1, "each part once, got %d and %d", p.calls[0], p.calls[1]);
    expect_true(pthread_equal(p.who[0], pthread_self()), "part 0 on the calling thread");
    if (split)
        expect_true(!pthread_equal(p.who[1], pthread_self()), "split: part 1 on the helper thread");
    else
        printf("  (no helper thread here: both parts ran on the caller)\n");

    expect_true(par_claim() == 1, "the free helper can be claimed");
    expect_true(par_claim() == 0, "a claimed helper cannot be claimed again");
    Parts q = {{0, 0}, {0, 0}};
    int split2 = par_two(record, &q);
    expect_true(split2 == 0 && q.calls[0] == 1 && q.calls[1] == 1, "claimed: not split (%d), each part once", split2);
    expect_true(pthread_equal(q.who[1], pthread_self()), "claimed: part 1 on the caller too");
    par_release();
    expect_true(par_claim() == 1, "released: it can be claimed again");
    par_release();
}

/* par_solo: with the helper free and waiting (part 0 waits up to a
 * second for part 1 to start elsewhere), both parts still run here. */
static void test_solo_thread_never_splits(void **state)
{
    (void)state;
    expect_true(par_is_solo() == 0, "threads share their products by default");
    expect_true(par_solo(1) == 0, "par_solo returns the previous setting");
    Parts p = {{0, 0}, {0, 0}};
    atomic_store(&g_part1_started, 0);
    int split = par_two(record_wait, &p);
    expect_true(split == 0 && p.calls[0] == 1 && p.calls[1] == 1, "solo: not split (%d), each part once", split);
    expect_true(pthread_equal(p.who[1], pthread_self()), "solo: part 1 on the caller");
    expect_true(par_solo(0) == 1 && !par_is_solo(), "back to sharing");
}

typedef struct Case {
    int ta, tb, M, N, K;
    float beta;
} Case;

/* Odd shapes over the split threshold (M*N*K >= 2^19, the longer side >= 32),
 * split along N (N >= M) or along M. */
static const Case CASES[] = {
    {0, 0, 37, 301, 67, 0.0f}, {0, 1, 37, 301, 67, 0.0f}, {1, 0, 37, 301, 67, 0.5f},
    {1, 1, 37, 301, 67, 1.0f}, {0, 1, 517, 33, 41, 0.0f}, {1, 0, 517, 33, 41, 1.0f},
    {0, 0, 129, 129, 63, 0.25f}, {0, 1, 33, 1031, 17, 0.0f},
};

static float *randoms(size_t n, Rng *r)
{
    float *x = malloc(n * sizeof *x);
    for (size_t i = 0; i < n; i++)
        x[i] = 2.0f * rng_uniform(r) - 1.0f;
    return x;
}

/* C = op(A) op(B) (+ beta C) three ways: one cblas_sgemm, op_gemm with the
 * helper free, op_gemm with the helper claimed. */
static void check_case(const Case *c, Rng *r)
{
    int M = c->M, N = c->N, K = c->K;
    int lda = c->ta ? M : K, ldb = c->tb ? K : N;
    float *A = randoms((size_t)M * K, r), *B = randoms((size_t)K * N, r);
    float *C0 = randoms((size_t)M * N, r);
    float *one = malloc((size_t)M * N * sizeof(float)), *split = malloc((size_t)M * N * sizeof(float));
    float *alone = malloc((size_t)M * N * sizeof(float));
    memcpy(one, C0, (size_t)M * N * sizeof(float));
    memcpy(split, C0, (size_t)M * N * sizeof(float));
    memcpy(alone, C0, (size_t)M * N * sizeof(float));
    cblas_sgemm(CblasRowMajor, c->ta ? CblasTrans : CblasNoTrans, c->tb ? CblasTrans : CblasNoTrans, M, N, K,
                1.0f, A, lda, B, ldb, c->beta, one, N);
    op_gemm(c->ta, c->tb, M, N, K, 1.0f, A, lda, B, ldb, c->beta, split, N);
    expect_true(par_claim() == 1, "claim the helper");
    op_gemm(c->ta, c->tb, M, N, K, 1.0f, A, lda, B, ldb, c->beta, alone, N);
    par_release();
    float *solo = malloc((size_t)M * N * sizeof(float));
    memcpy(solo, C0, (size_t)M * N * sizeof(float));
    par_solo(1);
    op_gemm(c->ta, c->tb, M, N, K, 1.0f, A, lda, B, ldb, c->beta, solo, N);
    par_solo(0);
    char what[96];
    snprintf(what, sizeof what, "ta %d tb %d %dx%dx%d beta %g: split vs one call", c->ta, c->tb, M, N, K,
             (double)c->beta);
    check_close(what, split, one, (size_t)M * N, 1e-5f, 1e-5f);
    expect_true(memcmp(split, alone, (size_t)M * N * sizeof(float)) == 0,
                "%s: the helper thread and the caller alone give the same bits", what);
    expect_true(memcmp(solo, one, (size_t)M * N * sizeof(float)) == 0,
                "%s: a solo thread's product is the one call, bit for bit", what);
    free(solo);
    free(A);
    free(B);
    free(C0);
    free(one);
    free(split);
    free(alone);
}

static void test_split_equals_unsplit(void **state)
{
    (void)state;
    Rng r;
    rng_seed(&r, 2024);
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++)
        check_case(&CASES[i], &r);
}

/* The same product twice gives the same bits (the split is by shape only). */
static void test_split_is_deterministic(void **state)
{
    (void)state;
    Rng r;
    rng_seed(&r, 7);
    int M = 65, N = 255, K = 97;
    float *A = randoms((size_t)M * K, &r), *B = randoms((size_t)N * K, &r);
    float *x = calloc((size_t)M * N, sizeof(float)), *y = calloc((size_t)M * N, sizeof(float));
    op_gemm(0, 1, M, N, K, 1.0f, A, K, B, K, 0.0f, x, N);
    for (int rep = 0; rep < 5; rep++) {
        op_gemm(0, 1, M, N, K, 1.0f, A, K, B, K, 0.0f, y, N);
        expect_true(memcmp(x, y, (size_t)M * N * sizeof(float)) == 0, "repeat %d: the same bits", rep);
    }
    free(A);
    free(B);
    free(x);
    free(y);
}

/* OpenBLAS runs the kernels the CPU has: a CPU with AVX2 and FMA never
 * gets the SSE3 (Prescott) fallback an older OpenBLAS picks for a CPU
 * model it does not know (unless the user forced it). */
static void test_blas_kernels_fit_the_cpu(void **state)
{
    (void)state;
    const char *name = par_blas_kernels();
    printf("  OpenBLAS kernels: %s\n", name ? name : "?");
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    if (!getenv("OPENBLAS_CORETYPE") && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        expect_true(name && strcasecmp(name, "prescott") != 0, "AVX2 kernels or better, got %s", name);
#endif
}

int main(void)
{
    TU_RUN(NULL, NULL,
           cmocka_unit_test(test_par_two_runs_both_parts),
           cmocka_unit_test(test_par_two_takes_back_a_late_part),
           cmocka_unit_test(test_solo_thread_never_splits),
           cmocka_unit_test(test_split_equals_unsplit),
           cmocka_unit_test(test_split_is_deterministic), cmocka_unit_test(test_blas_kernels_fit_the_cpu));
}
