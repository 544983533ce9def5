/* test_blas_own.c - the plain-C sgemm and sgemv of the browser build
 * (core/sys/blas_own.c) against OpenBLAS: every transpose pair, shapes that
 * cross the panel and tile edges, leading dimensions wider than the rows,
 * beta 0 (which must overwrite NaN), 1 and another value. */
#include "test_util.h"

#include <cblas.h>

#include "blas_own.h"

static void fill(float *x, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = (float)((seed >> 8) & 0xffff) / 32768.0f - 1.0f;
    }
}

static void test_sgemm_matches_openblas(void **state)
{
    (void)state;
    static const int shapes[][3] = {{1, 1, 1}, {3, 5, 7}, {4, 16, 8}, {17, 33, 65}, {32, 512, 64},
                                    {5, 530, 300}, {9, 70, 600}, {64, 48, 257}};
    static const float betas[] = {0.0f, 1.0f, 0.5f};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++)
                for (size_t bi = 0; bi < 3; bi++) {
                    int M = shapes[s][0], N = shapes[s][1], K = shapes[s][2];
                    int lda = (ta ? M : K) + 3, ldb = (tb ? K : N) + 1, ldc = N + 2;
                    size_t na = (size_t)(ta ? K : M) * lda, nb = (size_t)(tb ? N : K) * ldb, nc = (size_t)M * ldc;
                    float *A = malloc(na * 4), *B = malloc(nb * 4), *C = malloc(nc * 4), *W = malloc(nc * 4);
                    fill(A, na, 1 + (unsigned)s);
                    fill(B, nb, 7 + (unsigned)s);
                    fill(W, nc, 11);
                    memcpy(C, W, nc * 4);
                    if (betas[bi] == 0)
                        for (size_t i = 0; i < nc; i++)
                            C[i] = NAN;
                    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, M,
                                N, K, 0.75f, A, lda, B, ldb, betas[bi], W, ldc);
                    own_sgemm(ta, tb, M, N, K, 0.75f, A, lda, B, ldb, betas[bi], C, ldc);
                    char what[96];
                    snprintf(what, sizeof what, "%dx%dx%d ta %d tb %d beta %g", M, N, K, ta, tb, betas[bi]);
                    for (int i = 0; i < M; i++) { /* the padding columns are not C's: pack the rows */
                        memmove(C + (size_t)i * N, C + (size_t)i * ldc, (size_t)N * 4);
                        memmove(W + (size_t)i * N, W + (size_t)i * ldc, (size_t)N * 4);
                    }
                    check_close(what, C, W, (size_t)M * N, 1e-5f, 1e-5f);
                    free(A);
                    free(B);
                    free(C);
                    free(W);
                }
}

static void test_sgemv_matches_openblas(void **state)
{
    (void)state;
    int M = 37, N = 300, lda = 301;
    static float A[37 * 301], x[300], y[37], w[37];
    fill(A, sizeof A / 4, 3);
    fill(x, 300, 5);
    fill(y, 37, 9);
    memcpy(w, y, sizeof y);
    cblas_sgemv(CblasRowMajor, CblasNoTrans, M, N, 1.5f, A, lda, x, 1, 0.25f, w, 1);
    own_sgemv(M, N, 1.5f, A, lda, x, 0.25f, y);
    check_close("sgemv", y, w, (size_t)M, 1e-5f, 1e-5f);
}

int main(void)
{
    TU_RUN(NULL, NULL, cmocka_unit_test(test_sgemm_matches_openblas), cmocka_unit_test(test_sgemv_matches_openblas));
}
