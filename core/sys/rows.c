/* rows.c - a few rows times a weight matrix, reading each weight once
 * (rows.h).
 *
 * Each (row, output) pair is one dot product over K, summed in the same
 * order whatever R is: lane-wise partial sums over blocks of the vector
 * width, then the lanes added, then the tail. So a hypothesis gets the same
 * bits in a beam of 2 as in a beam of 8. The vector width is chosen once by
 * the CPU (AVX-512, AVX2 with FMA, or plain C); the build itself stays
 * baseline x86-64. */
#include "rows.h"

#include "cpu.h"

#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define ROWS_X86 1
#include <immintrin.h>
#endif

static void rows_plain(float *out, const float *in, const float *w, int R, int K, int n0, int n1,
                       int N)
{
    typedef float v4f __attribute__((vector_size(16)));
    for (int n = n0; n < n1; n++) {
        const float *wr = w + (size_t)n * K;
        for (int r = 0; r < R; r++) {
            const float *x = in + (size_t)r * K;
            v4f a0 = {0, 0, 0, 0}, a1 = {0, 0, 0, 0};
            int k = 0;
            for (; k + 8 <= K; k += 8) {
                v4f w0, w1, x0, x1;
                memcpy(&w0, wr + k, sizeof w0);
                memcpy(&w1, wr + k + 4, sizeof w1);
                memcpy(&x0, x + k, sizeof x0);
                memcpy(&x1, x + k + 4, sizeof x1);
                a0 += w0 * x0;
                a1 += w1 * x1;
            }
            v4f a = a0 + a1;
            float sum = (a[0] + a[1]) + (a[2] + a[3]);
            for (; k < K; k++)
                sum += wr[k] * x[k];
            out[(size_t)r * N + n] += sum;
        }
    }
}

#ifdef ROWS_X86
/* Per weight row, the rows go four, two and one at a time, with named
 * accumulators (so they stay in registers); the weight row is in L1 after
 * the first group. One accumulator per row: the same sum in every group.
 * With four rows of arithmetic per weight the hardware prefetcher falls
 * behind; asking for the weights 2 KiB ahead keeps the stream near sgemv's
 * speed (a prefetch past the matrix's end is harmless: it never faults). */
#define AHEAD(p) _mm_prefetch((const char *)((p) + 512), _MM_HINT_T0)
#define ROWS_KERNEL(NAME, TARGET, VEC, W, ZERO, LOAD, FMA, HSUM)                                  \
    __attribute__((target(TARGET))) static void NAME(float *out, const float *in, const float *w, \
                                                     int R, int K, int n0, int n1, int N)          \
    {                                                                                              \
        int KV = K & ~(W - 1);                                                                     \
        for (int n = n0; n < n1; n++) {                                                            \
            const float *wr = w + (size_t)n * K;                                                   \
            float *o = out + n;                                                                    \
            int r = 0;                                                                             \
            for (; r + 4 <= R; r += 4) {                                                           \
                const float *x0 = in + (size_t)r * K, *x1 = x0 + K, *x2 = x1 + K, *x3 = x2 + K;    \
                VEC a0 = ZERO, a1 = ZERO, a2 = ZERO, a3 = ZERO;                                    \
                for (int k = 0; k < KV; k += W) {                                                  \
                    VEC wv = LOAD(wr + k);                                                         \
                    AHEAD(wr + k);                                                                 \
                    a0 = FMA(wv, LOAD(x0 + k), a0);                                                \
                    a1 = FMA(wv, LOAD(x1 + k), a1);                                                \
                    a2 = FMA(wv, LOAD(x2 + k), a2);                                                \
                    a3 = FMA(wv, LOAD(x3 + k), a3);                                                \
                }                                                                                  \
                o[(size_t)r * N] += tail(HSUM(a0), wr, x0, KV, K);                                 \
                o[(size_t)(r + 1) * N] += tail(HSUM(a1), wr, x1, KV, K);                           \
                o[(size_t)(r + 2) * N] += tail(HSUM(a2), wr, x2, KV, K);                           \
                o[(size_t)(r + 3) * N] += tail(HSUM(a3), wr, x3, KV, K);                           \
            }                                                                                      \
            if (r + 2 <= R) {                                                                      \
                const float *x0 = in + (size_t)r * K, *x1 = x0 + K;                                \
                VEC a0 = ZERO, a1 = ZERO;                                                          \
                for (int k = 0; k < KV; k += W) {                                                  \
                    VEC wv = LOAD(wr + k);                                                         \
                    AHEAD(wr + k);                                                                 \
                    a0 = FMA(wv, LOAD(x0 + k), a0);                                                \
                    a1 = FMA(wv, LOAD(x1 + k), a1);                                                \
                }                                                                                  \
                o[(size_t)r * N] += tail(HSUM(a0), wr, x0, KV, K);                                 \
                o[(size_t)(r + 1) * N] += tail(HSUM(a1), wr, x1, KV, K);                           \
                r += 2;                                                                            \
            }                                                                                      \
            if (r < R) {                                                                           \
                const float *x0 = in + (size_t)r * K;                                              \
                VEC a0 = ZERO;                                                                     \
                for (int k = 0; k < KV; k += W) {                                                  \
                    AHEAD(wr + k);                                                                 \
                    a0 = FMA(LOAD(wr + k), LOAD(x0 + k), a0);                                      \
                }                                                                                  \
                o[(size_t)r * N] += tail(HSUM(a0), wr, x0, KV, K);                                 \
            }                                                                                      \
        }                                                                                          \
    }

/* the scalar end of a dot product, after the vector part */
static inline float tail(float sum, const float *wr, const float *x, int k, int K)
{
    for (; k < K; k++)
        sum += wr[k] * x[k];
    return sum;
}

__attribute__((target("avx2,fma"))) static inline float hsum256(__m256 a)
{
    __m128 h = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
    h = _mm_add_ps(h, _mm_movehl_ps(h, h));
    h = _mm_add_ss(h, _mm_movehdup_ps(h));
    return _mm_cvtss_f32(h);
}

__attribute__((target("avx512f"))) static inline float hsum512(__m512 a)
{
    return _mm512_reduce_add_ps(a);
}

ROWS_KERNEL(rows_avx2, "avx2,fma", __m256, 8, _mm256_setzero_ps(), _mm256_loadu_ps,
            _mm256_fmadd_ps, hsum256)
ROWS_KERNEL(rows_avx512, "avx512f", __m512, 16, _mm512_setzero_ps(), _mm512_loadu_ps,
            _mm512_fmadd_ps, hsum512)
#endif

typedef void (*RowsFn)(float *, const float *, const float *, int, int, int, int, int);

/* index: ROWS_PLAIN, ROWS_AVX2, ROWS_AVX512; NULL where the CPU lacks it */
static RowsFn rows_fn(int kernel)
{
    if (kernel == ROWS_PLAIN)
        return rows_plain;
#ifdef ROWS_X86
    int level = cpu_vec_level();
    if (kernel == ROWS_AVX2 && level >= CPU_VEC_AVX2)
        return rows_avx2;
    if (kernel == ROWS_AVX512 && level >= CPU_VEC_AVX512)
        return rows_avx512;
#endif
    return NULL;
}

int rows_best_kernel(void)
{
    static const int order[] = {ROWS_AVX512, ROWS_AVX2};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        if (rows_fn(order[i]))
            return order[i];
    return ROWS_PLAIN;
}

const char *rows_kernel_name(int kernel)
{
    return kernel == ROWS_AVX512 ? "avx512" : kernel == ROWS_AVX2 ? "avx2" : "plain";
}

int rows_dot_with(int kernel, float *out, const float *in, const float *w, int R, int K, int n0,
                  int n1, int N)
{
    RowsFn f = rows_fn(kernel);
    if (!f)
        return -1;
    if (R >= 1 && R <= ROWS_MAX && n1 > n0)
        f(out, in, w, R, K, n0, n1, N);
    return 0;
}

void rows_dot(float *out, const float *in, const float *w, int R, int K, int n0, int n1, int N)
{
    /* the choice is a pure function of the CPU: two threads racing to
     * make it store the same pointer */
    static RowsFn fn;
    RowsFn f = __atomic_load_n(&fn, __ATOMIC_RELAXED);
    if (!f) {
        f = rows_fn(rows_best_kernel());
        __atomic_store_n(&fn, f, __ATOMIC_RELAXED);
    }
    if (R >= 1 && R <= ROWS_MAX && n1 > n0)
        f(out, in, w, R, K, n0, n1, N);
}
