/* blas_own.c - C = alpha op(A) op(B) + beta C and y = alpha A x + beta y in
 * plain C (blas_own.h), for builds without OpenBLAS (the browser).
 *
 * The product is blocked for the cache: op(B) is copied, a panel of KC x NC
 * at a time, into row-major order (so a transposed B costs one pass), and
 * each row i of C accumulates a[i][k] * Bp[k][0..NC) over the panel: the
 * innermost loop is a contiguous axpy, which the compiler turns into vector
 * code; with SIMD128 an explicit kernel keeps 4 x 16 floats of C in
 * registers. Every C[i][j] is summed over k in increasing order in each
 * path, so the result does not depend on the blocking. */
#include "blas_own.h"

#include <stdlib.h>
#include <string.h>

#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#endif

#define KC 256
#define NC 512

static float a_at(const float *A, int lda, int ta, int i, int k)
{
    return ta ? A[(size_t)k * lda + i] : A[(size_t)i * lda + k];
}

/* c[0..n) += s * b[0..n) */
static void axpy(float *restrict c, const float *restrict b, float s, int n)
{
    int j = 0;
#ifdef __wasm_simd128__
    v128_t vs = wasm_f32x4_splat(s);
    for (; j + 4 <= n; j += 4)
        wasm_v128_store(c + j, wasm_f32x4_add(wasm_v128_load(c + j), wasm_f32x4_mul(vs, wasm_v128_load(b + j))));
#endif
    for (; j < n; j++)
        c[j] += s * b[j];
}

#ifdef __wasm_simd128__
/* 4 rows x 16 columns of C += A[4 rows][k0..k1) Bp[k][j..j+16), in registers */
static void tile_4x16(float *C, int ldc, const float *A, int lda, int ta, int i, int k0, int kn,
                      const float *Bp, int nb, int j)
{
    v128_t c[4][4];
    for (int r = 0; r < 4; r++)
        for (int q = 0; q < 4; q++)
            c[r][q] = wasm_v128_load(C + (size_t)(i + r) * ldc + j + 4 * q);
    for (int k = 0; k < kn; k++) {
        const float *b = Bp + (size_t)k * nb + j;
        v128_t b0 = wasm_v128_load(b), b1 = wasm_v128_load(b + 4), b2 = wasm_v128_load(b + 8),
               b3 = wasm_v128_load(b + 12);
        for (int r = 0; r < 4; r++) {
            v128_t a = wasm_f32x4_splat(a_at(A, lda, ta, i + r, k0 + k));
            c[r][0] = wasm_f32x4_add(c[r][0], wasm_f32x4_mul(a, b0));
            c[r][1] = wasm_f32x4_add(c[r][1], wasm_f32x4_mul(a, b1));
            c[r][2] = wasm_f32x4_add(c[r][2], wasm_f32x4_mul(a, b2));
            c[r][3] = wasm_f32x4_add(c[r][3], wasm_f32x4_mul(a, b3));
        }
    }
    for (int r = 0; r < 4; r++)
        for (int q = 0; q < 4; q++)
            wasm_v128_store(C + (size_t)(i + r) * ldc + j + 4 * q, c[r][q]);
}
#endif

/* C[0..M)[j0..j0+nb) += op(A)[.., k0..k0+kn) Bp, Bp kn x nb row-major */
static void panel(float *C, int ldc, const float *A, int lda, int ta, int M, int k0, int kn, const float *Bp,
                  int nb, int j0)
{
    int i = 0;
#ifdef __wasm_simd128__
    for (; i + 4 <= M; i += 4) {
        int j = 0;
        for (; j + 16 <= nb; j += 16)
            tile_4x16(C + j0, ldc, A, lda, ta, i, k0, kn, Bp, nb, j);
        for (int r = i; r < i + 4; r++)
            for (int k = 0; k < kn; k++)
                axpy(C + (size_t)r * ldc + j0 + j, Bp + (size_t)k * nb + j, a_at(A, lda, ta, r, k0 + k), nb - j);
    }
#endif
    for (; i < M; i++) {
        float *c = C + (size_t)i * ldc + j0;
        for (int k = 0; k < kn; k++)
            axpy(c, Bp + (size_t)k * nb, a_at(A, lda, ta, i, k0 + k), nb);
    }
}

void own_sgemm(int ta, int tb, int M, int N, int K, float alpha, const float *A, int lda, const float *B,
               int ldb, float beta, float *C, int ldc)
{
    if (M <= 0 || N <= 0)
        return;
    for (int i = 0; i < M; i++) {
        float *c = C + (size_t)i * ldc;
        if (beta == 0)
            memset(c, 0, (size_t)N * sizeof *c);
        else if (beta != 1)
            for (int j = 0; j < N; j++)
                c[j] *= beta;
    }
    if (K <= 0 || alpha == 0)
        return;
    /* alpha goes into the packed panel, so C gets alpha * sum exactly once */
    static _Thread_local float *Bp; /* one panel per thread, kept */
    static _Thread_local size_t cap;
    size_t need = (size_t)KC * NC;
    if (cap < need) {
        float *p = realloc(Bp, need * sizeof *p);
        if (!p) { /* no room for a panel: the plain triple loop */
            for (int i = 0; i < M; i++)
                for (int k = 0; k < K; k++) {
                    float s = alpha * a_at(A, lda, ta, i, k);
                    for (int j = 0; j < N; j++)
                        C[(size_t)i * ldc + j] += s * (tb ? B[(size_t)j * ldb + k] : B[(size_t)k * ldb + j]);
                }
            return;
        }
        Bp = p;
        cap = need;
    }
    for (int j0 = 0; j0 < N; j0 += NC) {
        int nb = N - j0 < NC ? N - j0 : NC;
        for (int k0 = 0; k0 < K; k0 += KC) {
            int kn = K - k0 < KC ? K - k0 : KC;
            for (int k = 0; k < kn; k++) {
                float *row = Bp + (size_t)k * nb;
                if (tb)
                    for (int j = 0; j < nb; j++)
                        row[j] = alpha * B[(size_t)(j0 + j) * ldb + k0 + k];
                else
                    for (int j = 0; j < nb; j++)
                        row[j] = alpha * B[(size_t)(k0 + k) * ldb + j0 + j];
            }
            panel(C, ldc, A, lda, ta, M, k0, kn, Bp, nb, j0);
        }
    }
}

void own_sgemv(int M, int N, float alpha, const float *A, int lda, const float *x, float beta, float *y)
{
    for (int i = 0; i < M; i++) {
        const float *a = A + (size_t)i * lda;
        float s = 0;
        for (int j = 0; j < N; j++)
            s += a[j] * x[j];
        y[i] = alpha * s + (beta == 0 ? 0 : beta * y[i]);
    }
}
