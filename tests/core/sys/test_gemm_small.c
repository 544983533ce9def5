/* test_gemm_small.c - the few-rows product (gemm_small.h) against a plain
 * triple loop in double precision: every row count 1..70 (above 64 the path
 * declines), column and depth counts that are not multiples of 16, leading
 * dimensions wider than the rows, pointers off 64-byte alignment, alpha,
 * beta, bias and ReLU, for the AVX-512F and the AVX2 kernels; the split over
 * two cores gives the same bits as one core, both kernel sets give the same
 * bits, and linear_forward equals the reference through it. */
#include <stdlib.h>
#include <string.h>

#include "gemm_small.h"
#include "ops.h"
#include "parallel.h"
#include "rng.h"
#include "test_util.h"

static void fill(float *x, size_t n, uint64_t seed)
{
    Rng r;
    rng_seed(&r, seed);
    for (size_t i = 0; i < n; i++)
        x[i] = 2 * rng_uniform(&r) - 1;
}

/* C = act(alpha A B^T + beta C + bias), summed in double */
static void reference(int M, int N, int K, float alpha, const float *A, int lda, const float *B, int ldb,
                      float beta, float *C, int ldc, const float *bias, int relu)
{
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            double s = 0;
            for (int k = 0; k < K; k++)
                s += (double)A[(size_t)m * lda + k] * B[(size_t)n * ldb + k];
            double x = alpha * s + (beta == 0 ? 0 : (double)beta * C[(size_t)m * ldc + n]);
            if (bias)
                x += bias[n];
            C[(size_t)m * ldc + n] = (float)(relu && !(x > 0) ? 0 : x);
        }
}

/* The most rows the path computes in this mode on this CPU (0: none). */
static int max_rows(int mode)
{
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    int avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (mode != GEMM_SMALL_AVX2 && __builtin_cpu_supports("avx512f"))
        return GEMM_SMALL_MAX_M;
    return avx2 ? GEMM_SMALL_MAX_M_AVX2 : 0;
#else
    (void)mode;
    return 0;
#endif
}

/* One case; returns gemm_small's result. Buffers start one float past an
 * allocation (never 64-byte aligned). */
static int run_case(int M, int N, int K, float alpha, float beta, int with_bias, int relu, uint64_t seed)
{
    int lda = K + 3, ldb = K + 1, ldc = N + 2;
    float *a = malloc(sizeof(float) * ((size_t)lda * M + 1)), *b = malloc(sizeof(float) * ((size_t)ldb * N + 1));
    float *c1 = malloc(sizeof(float) * ((size_t)ldc * M + 1)), *c2 = malloc(sizeof(float) * ((size_t)ldc * M + 1));
    float *bias = malloc(sizeof(float) * ((size_t)N + 1));
    float *A = a + 1, *B = b + 1, *C1 = c1 + 1, *C2 = c2 + 1, *bs = with_bias ? bias + 1 : NULL;
    fill(A, (size_t)lda * M, seed);
    fill(B, (size_t)ldb * N, seed + 1);
    fill(C1, (size_t)ldc * M, seed + 2);
    fill(bias + 1, (size_t)N, seed + 3);
    if (beta == 0) /* beta 0: old contents ignored, NaN included */
        for (size_t i = 0; i < (size_t)ldc * M; i += 7)
            C1[i] = NAN;
    memcpy(C2, C1, sizeof(float) * (size_t)ldc * M);
    int rc = gemm_small(M, N, K, alpha, A, lda, B, ldb, beta, C1, ldc, bs, relu);
    if (rc == 0) {
        reference(M, N, K, alpha, A, lda, B, ldb, beta, C2, ldc, bs, relu);
        /* float sums of K products of |x| <= 1: within K * 2^-24 of the exact sum */
        float atol = 1e-6f * (float)(K + 4);
        int bad = 0;
        for (int m = 0; m < M && !bad; m++)
            for (int n = 0; n < N; n++) {
                float g = C1[(size_t)m * ldc + n], w = C2[(size_t)m * ldc + n];
                if (!(fabsf(g - w) <= atol + 1e-6f * fabsf(w))) {
                    printf("  M %d N %d K %d alpha %g beta %g bias %d relu %d: C[%d][%d] = %.9g, want %.9g\n",
                           M, N, K, alpha, beta, with_bias, relu, m, n, g, w);
                    bad = 1;
                    break;
                }
            }
        expect_true(!bad, "every element within %g of the double-precision sum", atol);
        /* the padding columns between rows are left alone */
        for (int m = 0; m < M; m++)
            for (int n = N; n < ldc; n++) {
                float g = C1[(size_t)m * ldc + n], w = C2[(size_t)m * ldc + n];
                expect_true(memcmp(&g, &w, sizeof g) == 0, "C[%d][%d] past N untouched", m, n);
            }
    } else {
        expect_true(memcmp(C1, C2, sizeof(float) * (size_t)ldc * M) == 0, "a declined call writes nothing");
    }
    free(a); free(b); free(c1); free(c2); free(bias);
    return rc;
}

/* Both kernel sets (AVX-512F where the CPU has it, and AVX2 + FMA). */
static void odd_shapes(int mode)
{
    static const int NK[][2] = {{1, 1}, {5, 3}, {13, 17}, {17, 15}, {25, 33}, {29, 100}, {49, 7}};
    int done = 0, declined = 0, was = gemm_small_set(mode);
    for (int M = 1; M <= 70; M++)
        for (size_t s = 0; s < sizeof NK / sizeof NK[0]; s++) {
            int variant = (M + (int)s) % 4;
            float alpha = variant & 1 ? 0.7f : 1.0f, beta = variant & 2 ? 0.3f : 0.0f;
            int rc = run_case(M, NK[s][0], NK[s][1], alpha, beta, M % 3 != 0, M % 2, (uint64_t)(M * 100 + s));
            done += rc == 0;
            declined += rc != 0;
            int most = max_rows(mode);
            if (M > most)
                expect_true(rc == -1, "%d rows (more than %d here) are declined", M, most);
            else
                expect_true(rc == 0, "%d rows (at most %d here) are computed", M, most);
        }
    gemm_small_set(was);
    printf("  mode %d: %d cases computed, %d declined\n", mode, done, declined);
}

static void test_odd_shapes_vs_triple_loop(void **state)
{
    (void)state;
    odd_shapes(GEMM_SMALL_AUTO);
    odd_shapes(GEMM_SMALL_AVX2);
}

/* Products large enough to split over the two cores, with a column count
 * that leaves a ragged last block (2047 at 32 rows: 170 blocks of 12, one
 * of the 4-column edge kernel and three single columns). */
static void test_large_products(void **state)
{
    (void)state;
    static const int S[][3] = {{32, 1537, 515}, {1, 3001, 64}, {64, 777, 129}, {47, 2048, 512},
                               {32, 2047, 512}, {16, 37003, 64}};
    for (int mode = GEMM_SMALL_AUTO; mode <= GEMM_SMALL_AVX2; mode++) {
        int was = gemm_small_set(mode);
        for (size_t s = 0; s < sizeof S / sizeof S[0]; s++)
            run_case(S[s][0], S[s][1], S[s][2], 1.0f, 0.0f, 1, (int)s & 1, 40 + s);
        gemm_small_set(was);
    }
}

/* The same product with the helper thread free (split in two) and held
 * (one core) is bit-identical, and so is a repeat, and so are the AVX2
 * kernels (every element the same fused multiply-adds in the same order). */
static void test_split_is_bit_identical(void **state)
{
    (void)state;
    if (max_rows(GEMM_SMALL_AVX2) < 32) {
        printf("  no AVX2 + FMA: the path declines, nothing to compare\n");
        return;
    }
    int M = 32, N = 2050, K = 515;
    float *A = malloc(sizeof(float) * (size_t)M * K), *B = malloc(sizeof(float) * (size_t)N * K);
    float *C1 = malloc(sizeof(float) * (size_t)M * N), *C2 = malloc(sizeof(float) * (size_t)M * N);
    float *C3 = malloc(sizeof(float) * (size_t)M * N), *bias = malloc(sizeof(float) * (size_t)N);
    fill(A, (size_t)M * K, 1);
    fill(B, (size_t)N * K, 2);
    fill(bias, (size_t)N, 3);
    expect_true(gemm_small(M, N, K, 1.0f, A, K, B, K, 0.0f, C1, N, bias, 0) == 0, "split product computed");
    expect_true(par_claim(), "the helper thread is free to hold");
    expect_true(gemm_small(M, N, K, 1.0f, A, K, B, K, 0.0f, C2, N, bias, 0) == 0, "one-core product computed");
    par_release();
    expect_true(gemm_small(M, N, K, 1.0f, A, K, B, K, 0.0f, C3, N, bias, 0) == 0, "repeat computed");
    expect_true(memcmp(C1, C2, sizeof(float) * (size_t)M * N) == 0, "split and one-core products are the same bits");
    expect_true(memcmp(C1, C3, sizeof(float) * (size_t)M * N) == 0, "a repeat gives the same bits");
    int was = gemm_small_set(GEMM_SMALL_AVX2);
    for (int i = 0; i < M * N; i += 3) /* relu and beta too */
        C2[i] = C3[i] = (float)i;
    expect_true(gemm_small(M, N, K, 0.5f, A, K, B, K, 0.25f, C2, N, bias, 1) == 0, "AVX2 product computed");
    gemm_small_set(GEMM_SMALL_AUTO);
    expect_true(gemm_small(M, N, K, 0.5f, A, K, B, K, 0.25f, C3, N, bias, 1) == 0, "widest product computed");
    gemm_small_set(was);
    expect_true(memcmp(C2, C3, sizeof(float) * (size_t)M * N) == 0, "AVX2 and the widest kernels give the same bits");
    free(A); free(B); free(C1); free(C2); free(C3); free(bias);
}

/* linear_forward goes through the path at a few rows and still equals the
 * reference; switched off, it declines and cblas_sgemm gives the same to
 * rounding. */
static void test_linear_forward_through_it(void **state)
{
    (void)state;
    int M = 32, K = 77, N = 301;
    float *x = malloc(sizeof(float) * (size_t)M * K), *w = malloc(sizeof(float) * (size_t)N * K);
    float *b = malloc(sizeof(float) * (size_t)N), *y1 = malloc(sizeof(float) * (size_t)M * N);
    float *y2 = malloc(sizeof(float) * (size_t)M * N), *y3 = malloc(sizeof(float) * (size_t)M * N);
    fill(x, (size_t)M * K, 7);
    fill(w, (size_t)N * K, 8);
    fill(b, (size_t)N, 9);
    linear_forward(y1, x, w, b, M, K, N);
    reference(M, N, K, 1.0f, x, K, w, K, 0.0f, y2, N, b, 0);
    check_close("linear_forward vs double reference", y1, y2, (size_t)M * N, 1e-5f, 1e-5f);
    expect_true(gemm_small_set(GEMM_SMALL_OFF) == GEMM_SMALL_AUTO, "the path was on");
    expect_true(gemm_small(M, N, K, 1.0f, x, K, w, K, 0.0f, y3, N, b, 0) == -1, "switched off, it declines");
    linear_forward(y3, x, w, b, M, K, N);
    expect_true(gemm_small_set(GEMM_SMALL_AUTO) == GEMM_SMALL_OFF, "it was off");
    check_close("linear_forward with cblas_sgemm", y3, y2, (size_t)M * N, 1e-5f, 1e-5f);
    free(x); free(w); free(b); free(y1); free(y2); free(y3);
}

int main(void)
{
    TU_RUN(NULL, NULL,
           cmocka_unit_test(test_odd_shapes_vs_triple_loop),
           cmocka_unit_test(test_large_products),
           cmocka_unit_test(test_split_is_bit_identical),
           cmocka_unit_test(test_linear_forward_through_it));
}
