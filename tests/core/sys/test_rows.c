/* test_rows.c - the beam's few-row kernel (rows.h): every kernel the CPU
 * has against a double-precision dot product on odd shapes and unaligned
 * pointers, only the asked outputs touched, and a row's bits independent
 * of how many rows go with it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "rows.h"
#include "test_util.h"

static void fill(float *x, size_t n, uint64_t seed)
{
    Rng r;
    rng_seed(&r, seed);
    for (size_t i = 0; i < n; i++)
        x[i] = 2 * rng_uniform(&r) - 1;
}

static void test_kernels_vs_double(void **state)
{
    (void)state;
    int Ks[] = {1, 7, 8, 15, 16, 17, 33, 100, 512, 515};
    int ran = 0;
    for (int kern = 0; kern < ROWS_NKERNELS; kern++) {
        for (size_t ki = 0; ki < sizeof Ks / sizeof Ks[0]; ki++) {
            int K = Ks[ki], N = 37, n0 = 3, n1 = 34;
            for (int R = 1; R <= ROWS_MAX; R++) {
                /* +1: every operand starts one float past an aligned block */
                float *wb = malloc(sizeof(float) * ((size_t)N * K + 1)), *w = wb + 1;
                float *xb = malloc(sizeof(float) * ((size_t)R * K + 1)), *x = xb + 1;
                float *ob = malloc(sizeof(float) * ((size_t)R * N + 1)), *o = ob + 1;
                fill(w, (size_t)N * K, 10 + K);
                fill(x, (size_t)R * K, 20 + R);
                fill(o, (size_t)R * N, 30);
                float *o0 = malloc(sizeof(float) * (size_t)R * N);
                memcpy(o0, o, sizeof(float) * (size_t)R * N);
                if (rows_dot_with(kern, o, x, w, R, K, n0, n1, N) < 0) {
                    free(wb); free(xb); free(ob); free(o0);
                    continue;
                }
                ran++;
                for (int r = 0; r < R; r++)
                    for (int n = 0; n < N; n++) {
                        float got = o[(size_t)r * N + n], was = o0[(size_t)r * N + n];
                        if (n < n0 || n >= n1) {
                            expect_true(got == was, "%s R=%d K=%d: output %d outside [%d,%d) "
                                        "changed", rows_kernel_name(kern), R, K, n, n0, n1);
                            continue;
                        }
                        double want = was, mag = fabs(was);
                        for (int k = 0; k < K; k++) {
                            double p = (double)w[(size_t)n * K + k] * x[(size_t)r * K + k];
                            want += p;
                            mag += fabs(p);
                        }
                        expect_true(fabs(got - want) <= 1e-6 * mag + 1e-7,
                                    "%s R=%d K=%d r=%d n=%d: %.9g, want %.9g",
                                    rows_kernel_name(kern), R, K, r, n, got, want);
                    }
                free(wb); free(xb); free(ob); free(o0);
            }
        }
    }
    expect_true(ran >= 8 * 10, "the plain kernel at least ran on every shape (%d)", ran);
}

/* A hypothesis gets the same bits in a beam of 8 as alone or in a beam of
 * 3: the batched step equals the rows done one at a time. */
static void test_row_bits_independent_of_R(void **state)
{
    (void)state;
    int K = 515, N = 40;
    float *w = malloc(sizeof(float) * (size_t)N * K), *x = malloc(sizeof(float) * ROWS_MAX * K);
    fill(w, (size_t)N * K, 5);
    fill(x, (size_t)ROWS_MAX * K, 6);
    for (int kern = 0; kern < ROWS_NKERNELS; kern++) {
        float all[ROWS_MAX * 40] = {0};
        if (rows_dot_with(kern, all, x, w, ROWS_MAX, K, 0, N, N) < 0)
            continue;
        for (int R = 1; R < ROWS_MAX; R++)
            for (int r0 = 0; r0 + R <= ROWS_MAX; r0 += R) {
                float part[ROWS_MAX * 40] = {0};
                rows_dot_with(kern, part, x + (size_t)r0 * K, w, R, K, 0, N, N);
                expect_true(!memcmp(part, all + (size_t)r0 * N, sizeof(float) * (size_t)R * N),
                            "%s: rows %d..%d alone differ from the same rows in a beam of %d",
                            rows_kernel_name(kern), r0, r0 + R - 1, ROWS_MAX);
            }
    }
    /* rows_dot runs the best kernel */
    float a[40] = {0}, b[40] = {0};
    rows_dot(a, x, w, 1, K, 0, N, N);
    rows_dot_with(rows_best_kernel(), b, x, w, 1, K, 0, N, N);
    expect_true(!memcmp(a, b, sizeof a), "rows_dot runs %s", rows_kernel_name(rows_best_kernel()));
    free(w);
    free(x);
}

int main(void)
{
    TU_RUN(NULL, NULL,
           cmocka_unit_test(test_kernels_vs_double),
           cmocka_unit_test(test_row_bits_independent_of_R));
}
