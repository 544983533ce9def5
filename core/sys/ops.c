/* ops.c - forward and backward of every Transformer operation (ops.h). */
#include "ops.h"
#include "cpu.h"
#include "gemm_small.h"
#include "parallel.h"

#include <cblas.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

/* One half of a product split along its longer output side. */
typedef struct GemmJob {
    int ta, tb, M, N, K, ldc, lda, ldb, cut, along_n;
    float alpha, beta;
    const float *A, *B;
    float *C;
} GemmJob;

static void gemm_part(void *p, int part)
{
    const GemmJob *j = p;
    int from = part ? j->cut : 0, to = part ? (j->along_n ? j->N : j->M) : j->cut;
    if (to <= from)
        return;
    const float *A = j->A, *B = j->B;
    float *C = j->C;
    int M = j->M, N = j->N;
    if (j->along_n) { /* columns from..to of op(B) and C */
        B += j->tb ? (size_t)from * j->ldb : (size_t)from;
        C += from;
        N = to - from;
    } else { /* rows from..to of op(A) and C */
        A += j->ta ? (size_t)from : (size_t)from * j->lda;
        C += (size_t)from * j->ldc;
        M = to - from;
    }
    cblas_sgemm(CblasRowMajor, j->ta ? CblasTrans : CblasNoTrans,
                j->tb ? CblasTrans : CblasNoTrans, M, N, j->K, j->alpha, A, j->lda,
                B, j->ldb, j->beta, C, j->ldc);
}

/* Products below this many multiply-adds are not worth a second thread. */
#define GEMM_SPLIT_MIN (1 << 19)

void op_gemm(int ta, int tb, int M, int N, int K, float alpha, const float *A,
             int lda, const float *B, int ldb, float beta, float *C, int ldc)
{
    if (M <= 0 || N <= 0)
        return;
    par_init();
    if (K <= 0) { /* nothing to add; honour beta like BLAS does */
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++)
                C[(size_t)i * ldc + j] = beta == 0 ? 0 : beta * C[(size_t)i * ldc + j];
        return;
    }
    int along_n = N >= M;
    int side = along_n ? N : M;
    if ((double)M * N * K < GEMM_SPLIT_MIN || side < 32 || par_is_solo()) {
        cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
                    tb ? CblasTrans : CblasNoTrans, M, N, K, alpha, A, lda, B, ldb,
                    beta, C, ldc);
        return;
    }
    GemmJob j = {ta, tb, M, N, K, ldc, lda, ldb, (side / 2 + 15) & ~15, along_n,
                 alpha, beta, A, B, C};
    par_two(gemm_part, &j);
}

void op_gemm_naive(int ta, int tb, int M, int N, int K, float alpha,
                   const float *A, int lda, const float *B, int ldb, float beta,
                   float *C, int ldc)
{
    for (int i = 0; i < M; i++) {
        for (int j = 0; j < N; j++) {
            double acc = 0;
            for (int p = 0; p < K; p++) {
                float a = ta ? A[(size_t)p * lda + i] : A[(size_t)i * lda + p];
                float b = tb ? B[(size_t)j * ldb + p] : B[(size_t)p * ldb + j];
                acc += (double)a * b;
            }
            float *c = &C[(size_t)i * ldc + j];
            *c = (float)(alpha * acc + (beta == 0 ? 0 : beta * *c));
        }
    }
}

void linear_relu_forward(float *out, const float *inp, const float *w, const float *b,
                         int M, int K, int N, int relu)
{
    /* a few rows (one sentence): the weights read where they lie, the
     * ReLU applied as each block is stored */
    if (gemm_small(M, N, K, 1.0f, inp, K, w, K, 0.0f, out, N, b, relu) == 0)
        return;
    if (b) {
        for (int i = 0; i < M; i++)
            memcpy(out + (size_t)i * N, b, (size_t)N * sizeof *b);
    }
    op_gemm(0, 1, M, N, K, 1.0f, inp, K, w, K, b ? 1.0f : 0.0f, out, N);
    if (relu)
        relu_forward(out, out, (size_t)M * N);
}

void linear_forward(float *out, const float *inp, const float *w, const float *b,
                    int M, int K, int N)
{
    linear_relu_forward(out, inp, w, b, M, K, N, 0);
}

void linear_backward(float *dinp, float *dw, float *db, const float *dout,
                     const float *inp, const float *w, int M, int K, int N)
{
    /* forward: out = inp @ w^T + b */
    if (dinp)
        op_gemm(0, 0, M, K, N, 1.0f, dout, N, w, K, 1.0f, dinp, K);
    if (dw)
        op_gemm(1, 0, N, K, M, 1.0f, dout, N, inp, K, 1.0f, dw, K);
    if (db) {
        for (int i = 0; i < M; i++) {
            const float *d = dout + (size_t)i * N;
            for (int j = 0; j < N; j++)
                db[j] += d[j];
        }
    }
}

void embed_forward(float *out, const int *ids, const float *table, float scale,
                   const float *pe, int N, int T, int C)
{
    for (int t = 0; t < N; t++) {
        const float *e = table + (size_t)ids[t] * C;
        float *o = out + (size_t)t * C;
        if (pe) {
            const float *p = pe + (size_t)(t % T) * C;
            for (int c = 0; c < C; c++)
                o[c] = e[c] * scale + p[c];
        } else {
            for (int c = 0; c < C; c++)
                o[c] = e[c] * scale;
        }
    }
}

void embed_backward(float *dtable, const float *dout, const int *ids,
                    float scale, int N, int C)
{
    /* forward: out[t] = table[ids[t]] * scale + pe[t] */
    for (int t = 0; t < N; t++) {
        float *d = dtable + (size_t)ids[t] * C;
        const float *g = dout + (size_t)t * C;
        for (int c = 0; c < C; c++)
            d[c] += g[c] * scale;
    }
}

void pe_table(float *pe, int max_len, int C)
{
    for (int pos = 0; pos < max_len; pos++) {
        for (int i = 0; i < C; i += 2) {
            double angle = pos / pow(10000.0, (double)i / C);
            pe[(size_t)pos * C + i] = (float)sin(angle);
            if (i + 1 < C)
                pe[(size_t)pos * C + i + 1] = (float)cos(angle);
        }
    }
}

void pe_table_halves(float *pe, int max_len, int C)
{
    int half = (C + 1) / 2;
    for (int pos = 0; pos < max_len; pos++) {
        for (int j = 0; j < C; j++) {
            int k = j < half ? j : j - half;
            double angle = pos / pow(10000.0, 2.0 * k / C);
            pe[(size_t)pos * C + j] = (float)(j < half ? sin(angle) : cos(angle));
        }
    }
}

/* Sum of n floats in eight interleaved partial sums added in a fixed order:
 * the same result every time, and each lane's additions are independent,
 * so the compiler can keep the lanes in one vector register. */
static inline float sum8(const float *x, int n)
{
    float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0}, tail = 0;
    int c = 0;
    for (; c + 8 <= n; c += 8)
        for (int k = 0; k < 8; k++)
            acc[k] += x[c + k];
    for (; c < n; c++)
        tail += x[c];
    return ((acc[0] + acc[1]) + (acc[2] + acc[3])) +
           ((acc[4] + acc[5]) + (acc[6] + acc[7])) + tail;
}

/* the largest of n floats (NaN skipped, -inf when none), in eight lanes the
 * same way: max is exact, so the lanes find what one running max would */
static inline float max8(const float *x, int n)
{
    float acc[8] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY};
    float mx = -INFINITY;
    int c = 0;
    for (; c + 8 <= n; c += 8)
        for (int k = 0; k < 8; k++)
            acc[k] = x[c + k] > acc[k] ? x[c + k] : acc[k];
    for (; c < n; c++)
        mx = x[c] > mx ? x[c] : mx;
    for (int k = 0; k < 8; k++)
        mx = acc[k] > mx ? acc[k] : mx;
    return mx;
}

/* sum of (x - m)^2, the same way */
static inline float sumsq8(const float *x, float m, int n)
{
    float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0}, tail = 0;
    int c = 0;
    for (; c + 8 <= n; c += 8)
        for (int k = 0; k < 8; k++) {
            float d = x[c + k] - m;
            acc[k] += d * d;
        }
    for (; c < n; c++)
        tail += (x[c] - m) * (x[c] - m);
    return ((acc[0] + acc[1]) + (acc[2] + acc[3])) +
           ((acc[4] + acc[5]) + (acc[6] + acc[7])) + tail;
}

/* sum of a * b, the same way */
static inline float dot8(const float *a, const float *b, int n)
{
    float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0}, tail = 0;
    int c = 0;
    for (; c + 8 <= n; c += 8)
        for (int k = 0; k < 8; k++)
            acc[k] += a[c + k] * b[c + k];
    for (; c < n; c++)
        tail += a[c] * b[c];
    return ((acc[0] + acc[1]) + (acc[2] + acc[3])) +
           ((acc[4] + acc[5]) + (acc[6] + acc[7])) + tail;
}

void layernorm_forward(float *out, float *mean, float *rstd, const float *inp,
                       const float *w, const float *b, int N, int C)
{
    for (int t = 0; t < N; t++) {
        const float *x = inp + (size_t)t * C;
        float *o = out + (size_t)t * C;
        float m = sum8(x, C) / C;
        float v = sumsq8(x, m, C) / C;
        float s = 1.0f / sqrtf(v + TF_LN_EPS);
        for (int c = 0; c < C; c++)
            o[c] = (x[c] - m) * s * w[c] + b[c];
        mean[t] = m;
        rstd[t] = s;
    }
}

void layernorm_backward(float *dinp, float *dw, float *db, const float *dout,
                        const float *inp, const float *w, const float *mean,
                        const float *rstd, int N, int C)
{
    /* forward: xhat = (x - mean) * rstd;  out = xhat * w + b
     * dxhat = dout * w;  dx = (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)) * rstd */
    float xhat[OPS_MAX_ROW], dxhat[OPS_MAX_ROW];
    for (int t = 0; t < N; t++) {
        const float *x = inp + (size_t)t * C, *g = dout + (size_t)t * C;
        float *dx = dinp + (size_t)t * C;
        float m = mean[t], s = rstd[t];
        for (int c = 0; c < C; c++) {
            xhat[c] = (x[c] - m) * s;
            dxhat[c] = g[c] * w[c];
        }
        if (dw)
            for (int c = 0; c < C; c++)
                dw[c] += g[c] * xhat[c];
        if (db)
            for (int c = 0; c < C; c++)
                db[c] += g[c];
        float mean_g = sum8(dxhat, C) / C, mean_gx = dot8(dxhat, xhat, C) / C;
        for (int c = 0; c < C; c++)
            dx[c] += (dxhat[c] - mean_g - xhat[c] * mean_gx) * s;
    }
}

void relu_forward(float *out, const float *inp, size_t n)
{
    /* a compare-and-select (NaN -> 0, as fmaxf), which vectorises */
    for (size_t i = 0; i < n; i++)
        out[i] = inp[i] > 0.0f ? inp[i] : 0.0f;
}

void silu_forward(float *out, const float *inp, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = inp[i] / (1.0f + expf(-inp[i]));
}

void gelu_forward(float *out, const float *inp, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = 0.5f * inp[i] * (1.0f + erff(inp[i] * 0.70710678118654752f));
}

void relu_backward(float *dinp, const float *dout, const float *out, size_t n)
{
    /* forward: out = max(0, inp); a select, not a branch, so it vectorises */
    for (size_t i = 0; i < n; i++)
        dinp[i] += out[i] > 0.0f ? dout[i] : 0.0f;
}

void relu_backward_inplace(float *d, const float *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        d[i] = out[i] > 0.0f ? d[i] : 0.0f;
}

void add_forward(float *out, const float *a, const float *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = a[i] + b[i];
}

void dropout_apply(float *out, const float *inp, const float *mask, size_t n)
{
    if (!mask) {
        if (out != inp)
            memcpy(out, inp, n * sizeof *out);
        return;
    }
    for (size_t i = 0; i < n; i++)
        out[i] = inp[i] * mask[i];
}

void dropout_backward(float *dinp, const float *dout, const float *mask, size_t n)
{
    /* forward: out = inp * mask */
    if (!mask) {
        for (size_t i = 0; i < n; i++)
            dinp[i] += dout[i];
        return;
    }
    for (size_t i = 0; i < n; i++)
        dinp[i] += dout[i] * mask[i];
}

/* e^x to within 2 ulp, written so that a loop over it vectorises (glibc's
 * expf is a call per element). e^x = 2^k e^r with k = round(x / ln 2) and
 * r = x - k ln 2 in [-ln2/2, ln2/2], where the Taylor series to degree 7
 * is accurate to 5e-9; 2^k is built in the exponent bits. Arguments below
 * -87 (e^-87 = 1.6e-38, the edge of the normal floats), -inf included, give
 * exactly 0; NaN stays NaN. */
static inline float exp_poly(float x)
{
    const float LOG2E = 1.44269504f, LN2_HI = 0.693359375f, LN2_LO = -2.12194440e-4f;
    const float ROUND = 12582912.0f; /* 1.5 * 2^23: adding it rounds to an integer */
    float lo = x < -87.0f ? -87.0f : x, xc = lo > 88.0f ? 88.0f : lo;
    float t = xc * LOG2E + ROUND, k = t - ROUND;
    uint32_t ki; /* unsigned: well defined even for the bits of a NaN */
    memcpy(&ki, &t, sizeof ki);
    ki -= 0x4b400000u; /* the bits of ROUND: what is left is k */
    float r = (xc - k * LN2_HI) - k * LN2_LO;
    float p = 1.0f + r * (1.0f + r * (0.5f + r * (1.0f / 6 + r * (1.0f / 24 +
              r * (1.0f / 120 + r * (1.0f / 720 + r * (1.0f / 5040)))))));
    uint32_t bits = (ki + 127u) << 23;
    float scale;
    memcpy(&scale, &bits, sizeof scale);
    return x < -87.0f ? 0.0f : p * scale;
}

static void softmax_rows_serial(float *y, const float *x, const float *add, int rows, int n, int add_stride);

typedef struct SoftmaxJob {
    float *y;
    const float *x, *add;
    int rows, n, add_stride, cut;
} SoftmaxJob;

static void softmax_part(void *p, int part)
{
    const SoftmaxJob *j = p;
    int r0 = part ? j->cut : 0, r1 = part ? j->rows : j->cut;
    softmax_rows_serial(j->y + (size_t)r0 * j->n, j->x + (size_t)r0 * j->n,
                        j->add ? j->add + (size_t)r0 * j->add_stride : NULL, r1 - r0, j->n, j->add_stride);
}

static void softmax_rows_any(float *y, const float *x, const float *add, int rows, int n, int add_stride)
{
    /* the output softmax over a large vocabulary: half the rows on the
     * product helper's thread (rows are independent) */
    if (rows >= 2 && (size_t)rows * n >= (1u << 16)) {
        SoftmaxJob j = {y, x, add, rows, n, add_stride, rows / 2};
        par_two(softmax_part, &j);
        return;
    }
    softmax_rows_serial(y, x, add, rows, n, add_stride);
}

void softmax_rows(float *x, const float *add, int rows, int n, int add_stride)
{
    softmax_rows_any(x, x, add, rows, n, add_stride);
}

void softmax_rows_to(float *y, const float *x, int rows, int n)
{
    softmax_rows_any(y, x, NULL, rows, n, 0);
}

/* The rows one after another; inlined into one copy per instruction set
 * below (the same operations in the same order: the same bits). */
static inline __attribute__((always_inline)) void softmax_rows_body(float *y, const float *x, const float *add,
                                                                    int rows, int n, int add_stride)
{
    for (int r = 0; r < rows; r++) {
        float *row = y + (size_t)r * n;
        const float *in = x + (size_t)r * n; /* row itself when in place (add only then) */
        const float *a = add ? add + (size_t)r * add_stride : NULL;
        if (a)
            for (int j = 0; j < n; j++)
                row[j] += a[j];
        float mx = max8(in, n);
        if (mx == -INFINITY) { /* every entry masked: no valid key */
            memset(row, 0, (size_t)n * sizeof *row);
            continue;
        }
        if (mx == INFINITY) { /* overflowed scores: the limit, shared by the +inf entries */
            int k = 0;
            for (int j = 0; j < n; j++)
                k += in[j] == INFINITY;
            for (int j = 0; j < n; j++)
                row[j] = in[j] == INFINITY ? 1.0f / k : 0.0f;
            continue;
        }
        for (int j = 0; j < n; j++) /* -inf - mx = -inf: weight exactly 0 */
            row[j] = exp_poly(in[j] - mx);
        float inv = 1.0f / sum8(row, n);
        for (int j = 0; j < n; j++)
            row[j] *= inv;
    }
}

#if defined(__x86_64__) && defined(__GNUC__)
static __attribute__((target("avx512f"))) void softmax_rows_512(float *y, const float *x, const float *add,
                                                                 int rows, int n, int add_stride)
{
    softmax_rows_body(y, x, add, rows, n, add_stride);
}

static __attribute__((target("avx2"))) void softmax_rows_256(float *y, const float *x, const float *add,
                                                             int rows, int n, int add_stride)
{
    softmax_rows_body(y, x, add, rows, n, add_stride);
}
#endif

/* The widest vectors the CPU has (cpu.h). */
static void softmax_rows_serial(float *y, const float *x, const float *add, int rows, int n, int add_stride)
{
#if defined(__x86_64__) && defined(__GNUC__)
    int level = cpu_vec_level();
    if (level == CPU_VEC_AVX512) {
        softmax_rows_512(y, x, add, rows, n, add_stride);
        return;
    }
    if (level == CPU_VEC_AVX2) {
        softmax_rows_256(y, x, add, rows, n, add_stride);
        return;
    }
#endif
    softmax_rows_body(y, x, add, rows, n, add_stride);
}

/* ---- log-sum-exp of rows (beam search's log-softmax) ---- */

/* One row: its maximum plus the log of the sum of e^(x - max), the terms by
 * exp_poly in blocks of 256 floats, each block summed by sum8 and the
 * blocks added in double. */
static inline __attribute__((always_inline)) double logsumexp_body(const float *x, int n)
{
    float mx = max8(x, n), e[256];
    if (mx == -INFINITY || mx == INFINITY)
        return mx; /* nothing finite (every term -inf), or an overflowed logit */
    double s = 0;
    for (int j0 = 0; j0 < n; j0 += 256) {
        int m = n - j0 < 256 ? n - j0 : 256;
        for (int j = 0; j < m; j++)
            e[j] = exp_poly(x[j0 + j] - mx);
        s += sum8(e, m);
    }
    return (double)mx + log(s);
}

#if defined(__x86_64__) && defined(__GNUC__)
static __attribute__((target("avx512f"))) double logsumexp_512(const float *x, int n)
{
    return logsumexp_body(x, n);
}

static __attribute__((target("avx2"))) double logsumexp_256(const float *x, int n)
{
    return logsumexp_body(x, n);
}
#endif

static double logsumexp_one(const float *x, int n)
{
#if defined(__x86_64__) && defined(__GNUC__)
    int level = cpu_vec_level();
    if (level == CPU_VEC_AVX512)
        return logsumexp_512(x, n);
    if (level == CPU_VEC_AVX2)
        return logsumexp_256(x, n);
#endif
    return logsumexp_body(x, n);
}

typedef struct LseJob {
    double *ls;
    const float *x;
    int rows, n;
} LseJob;

static void lse_part(void *p, int part)
{
    const LseJob *j = p;
    for (int r = part ? j->rows / 2 : 0; r < (part ? j->rows : j->rows / 2); r++)
        j->ls[r] = logsumexp_one(j->x + (size_t)r * j->n, j->n);
}

void logsumexp_rows(double *ls, const float *x, int rows, int n)
{
    LseJob j = {ls, x, rows, n};
    if (rows >= 2 && (size_t)rows * n >= (1u << 16)) /* rows are independent */
        par_two(lse_part, &j);
    else
        for (int r = 0; r < rows; r++)
            ls[r] = logsumexp_one(x + (size_t)r * n, n);
}

double logsumexp_naive(const float *x, int n)
{
    double mx = -INFINITY, s = 0;
    for (int i = 0; i < n; i++)
        if (x[i] > mx)
            mx = x[i];
    if (mx == -INFINITY || mx == INFINITY)
        return mx;
    for (int i = 0; i < n; i++)
        s += exp((double)x[i] - mx);
    return mx + log(s);
}

void softmax_backward_rows(float *dx, const float *dy, const float *y,
                           int rows, int n)
{
    /* forward: y_j = exp(x_j) / sum_k exp(x_k) */
    for (int r = 0; r < rows; r++) {
        const float *yr = y + (size_t)r * n, *gr = dy + (size_t)r * n;
        float *dr = dx + (size_t)r * n;
        float dot = 0;
        for (int j = 0; j < n; j++)
            dot += yr[j] * gr[j];
        for (int j = 0; j < n; j++)
            dr[j] += yr[j] * (gr[j] - dot);
    }
}

/* Additive mask value of query i, key j for sentence b. */
static inline float mask_value(const AttnDims *d, int b, int i, int j)
{
    if (d->klen && j >= d->klen[b])
        return -INFINITY;
    if (d->khide && d->khide[j])
        return -INFINITY;
    if (d->causal && j > i)
        return -INFINITY;
    return 0.0f;
}

typedef struct AttnJob {
    float *heads, *scores, *mask, *weights;
    const float *q, *k, *v;
    const AttnDims *d;
    int cut; /* (sentence, head) pairs [0, cut) on one thread, the rest on the other */
} AttnJob;

/* One head of one sentence: scores, softmax with the mask, weights . V. */
static void attn_head(const AttnJob *j, int b, int h)
{
    const AttnDims *d = j->d;
    int Tq = d->Tq, Tk = d->Tk, C = d->C, NH = d->NH, dk = C / NH;
    float alpha = d->no_scale ? 1.0f : 1.0f / sqrtf((float)dk);
    size_t hw = (size_t)Tq * Tk;
    const float *qb = j->q + (size_t)b * Tq * d->qs;
    const float *kb = j->k + (size_t)b * Tk * d->kvs;
    const float *vb = j->v + (size_t)b * Tk * d->kvs;
    float *mrow = j->mask ? j->mask + (size_t)b * hw : NULL;
    float *s = j->scores + ((size_t)b * NH + h) * hw;
    float *w = j->weights + ((size_t)b * NH + h) * hw;
    /* scores = Q_h K_h^T / sqrt(dk) */
    op_gemm(0, 1, Tq, Tk, dk, alpha, qb + h * dk, d->qs, kb + h * dk, d->kvs, 0.0f, s, Tk);
    if (w != s)
        memcpy(w, s, hw * sizeof *w);
    if (mrow) {
        softmax_rows(w, mrow, Tq, Tk, Tk);
    } else {
        for (int i = 0; i < Tq; i++)
            for (int c = 0; c < Tk; c++)
                w[(size_t)i * Tk + c] += mask_value(d, b, i, c);
        softmax_rows(w, NULL, Tq, Tk, Tk);
    }
    /* head_h = weights . V_h */
    op_gemm(0, 0, Tq, dk, Tk, 1.0f, w, Tk, vb + h * dk, d->kvs, 0.0f,
            j->heads + (size_t)b * Tq * C + h * dk, C);
}

static void attn_part(void *p, int part)
{
    const AttnJob *j = p;
    int n = j->d->B * j->d->NH;
    for (int i = part ? j->cut : 0; i < (part ? n : j->cut); i++)
        attn_head(j, i / j->d->NH, i % j->d->NH);
}

void attention_forward(float *heads, float *scores, float *mask, float *weights,
                       const float *q, const float *k, const float *v,
                       const AttnDims *d)
{
    int B = d->B, Tq = d->Tq, Tk = d->Tk;
    size_t hw = (size_t)Tq * Tk;
    if (mask)
        for (int b = 0; b < B; b++)
            for (int i = 0; i < Tq; i++)
                for (int j = 0; j < Tk; j++)
                    mask[(size_t)b * hw + (size_t)i * Tk + j] = mask_value(d, b, i, j);
    AttnJob job = {heads, scores, mask, weights, q, k, v, d, 0};
    int n = B * d->NH;
    /* the heads are independent: half of them on the product helper */
    if (n >= 2 && (double)n * Tq * Tk * d->C / d->NH >= (1 << 17)) {
        job.cut = n / 2;
        par_two(attn_part, &job);
    } else {
        job.cut = n;
        attn_part(&job, 0);
    }
}

void attention_backward(float *dq, float *dk_, float *dv, float *scratch,
                        const float *dheads, const float *weights,
                        const float *q, const float *k, const float *v,
                        const AttnDims *d)
{
    int B = d->B, Tq = d->Tq, Tk = d->Tk, C = d->C, NH = d->NH, dk = C / NH;
    float alpha = d->no_scale ? 1.0f : 1.0f / sqrtf((float)dk);
    size_t hw = (size_t)Tq * Tk;
    for (int b = 0; b < B; b++) {
        size_t qo = (size_t)b * Tq * d->qs, ko = (size_t)b * Tk * d->kvs;
        const float *dh = dheads + (size_t)b * Tq * C;
        for (int h = 0; h < NH; h++) {
            const float *w = weights + ((size_t)b * NH + h) * hw;
            /* forward: head = W V_h  ->  dW = dhead V_h^T,  dV_h += W^T dhead */
            op_gemm(0, 1, Tq, Tk, dk, 1.0f, dh + h * dk, C, v + ko + h * dk,
                    d->kvs, 0.0f, scratch, Tk);
            op_gemm(1, 0, Tk, dk, Tq, 1.0f, w, Tk, dh + h * dk, C, 1.0f,
                    dv + ko + h * dk, d->kvs);
            /* forward: W = softmax(S + mask)  ->  dS = W * (dW - rowsum(W dW)) */
            for (int i = 0; i < Tq; i++) {
                float *g = scratch + (size_t)i * Tk;
                const float *y = w + (size_t)i * Tk;
                float dot = 0;
                for (int j = 0; j < Tk; j++)
                    dot += y[j] * g[j];
                for (int j = 0; j < Tk; j++)
                    g[j] = y[j] * (g[j] - dot);
            }
            /* forward: S = alpha Q_h K_h^T -> dQ_h += alpha dS K_h, dK_h += alpha dS^T Q_h */
            op_gemm(0, 0, Tq, dk, Tk, alpha, scratch, Tk, k + ko + h * dk,
                    d->kvs, 1.0f, dq + qo + h * dk, d->qs);
            op_gemm(1, 0, Tk, dk, Tq, alpha, scratch, Tk, q + qo + h * dk,
                    d->qs, 1.0f, dk_ + ko + h * dk, d->kvs);
        }
    }
}

void pe_table_layout(float *pe, int max_len, int C, int halves)
{
    if (halves)
        pe_table_halves(pe, max_len, C);
    else
        pe_table(pe, max_len, C);
}
