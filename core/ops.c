/* ops.c - forward and backward of every Transformer operation (ops.h). */
#include "ops.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

void op_gemm(int ta, int tb, int M, int N, int K, float alpha, const float *A,
             int lda, const float *B, int ldb, float beta, float *C, int ldc)
{
    if (M <= 0 || N <= 0)
        return;
    if (K <= 0) { /* nothing to add; honour beta like BLAS does */
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++)
                C[(size_t)i * ldc + j] = beta == 0 ? 0 : beta * C[(size_t)i * ldc + j];
        return;
    }
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
                tb ? CblasTrans : CblasNoTrans, M, N, K, alpha, A, lda, B, ldb,
                beta, C, ldc);
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

void linear_forward(float *out, const float *inp, const float *w, const float *b,
                    int M, int K, int N)
{
    if (b) {
        for (int i = 0; i < M; i++)
            memcpy(out + (size_t)i * N, b, (size_t)N * sizeof *b);
    }
    op_gemm(0, 1, M, N, K, 1.0f, inp, K, w, K, b ? 1.0f : 0.0f, out, N);
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

void layernorm_forward(float *out, float *mean, float *rstd, const float *inp,
                       const float *w, const float *b, int N, int C)
{
    for (int t = 0; t < N; t++) {
        const float *x = inp + (size_t)t * C;
        float *o = out + (size_t)t * C;
        float m = 0;
        for (int c = 0; c < C; c++)
            m += x[c];
        m /= C;
        float v = 0;
        for (int c = 0; c < C; c++) {
            float d = x[c] - m;
            v += d * d;
        }
        v /= C;
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
    /* forward: xhat = (x - mean) * rstd;  out = xhat * w + b */
    for (int t = 0; t < N; t++) {
        const float *x = inp + (size_t)t * C, *g = dout + (size_t)t * C;
        float *dx = dinp + (size_t)t * C;
        float m = mean[t], s = rstd[t];
        float sum_g = 0, sum_gx = 0; /* sums of dxhat and dxhat*xhat */
        for (int c = 0; c < C; c++) {
            float xhat = (x[c] - m) * s;
            float dxhat = g[c] * w[c];
            sum_g += dxhat;
            sum_gx += dxhat * xhat;
            if (dw)
                dw[c] += g[c] * xhat;
            if (db)
                db[c] += g[c];
        }
        sum_g /= C;
        sum_gx /= C;
        for (int c = 0; c < C; c++) {
            float xhat = (x[c] - m) * s;
            float dxhat = g[c] * w[c];
            dx[c] += (dxhat - sum_g - xhat * sum_gx) * s;
        }
    }
}

void relu_forward(float *out, const float *inp, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = fmaxf(inp[i], 0.0f);
}

void relu_backward(float *dinp, const float *dout, const float *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (out[i] > 0)
            dinp[i] += dout[i];
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

void softmax_rows(float *x, const float *add, int rows, int n, int add_stride)
{
    for (int r = 0; r < rows; r++) {
        float *row = x + (size_t)r * n;
        const float *a = add ? add + (size_t)r * add_stride : NULL;
        float mx = -INFINITY;
        for (int j = 0; j < n; j++) {
            float v = a ? row[j] + a[j] : row[j];
            row[j] = v;
            if (v > mx)
                mx = v;
        }
        if (mx == -INFINITY) { /* every entry masked: no valid key */
            memset(row, 0, (size_t)n * sizeof *row);
            continue;
        }
        float sum = 0;
        for (int j = 0; j < n; j++) {
            float e = row[j] == -INFINITY ? 0.0f : expf(row[j] - mx);
            row[j] = e;
            sum += e;
        }
        float inv = 1.0f / sum;
        for (int j = 0; j < n; j++)
            row[j] *= inv;
    }
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
    if (d->causal && j > i)
        return -INFINITY;
    return 0.0f;
}

void attention_forward(float *heads, float *scores, float *mask, float *weights,
                       const float *q, const float *k, const float *v,
                       const AttnDims *d)
{
    int B = d->B, Tq = d->Tq, Tk = d->Tk, C = d->C, NH = d->NH, dk = C / NH;
    float alpha = 1.0f / sqrtf((float)dk);
    size_t hw = (size_t)Tq * Tk;
    for (int b = 0; b < B; b++) {
        float *mrow = mask ? mask + (size_t)b * hw : NULL;
        if (mrow)
            for (int i = 0; i < Tq; i++)
                for (int j = 0; j < Tk; j++)
                    mrow[(size_t)i * Tk + j] = mask_value(d, b, i, j);
        const float *qb = q + (size_t)b * Tq * d->qs;
        const float *kb = k + (size_t)b * Tk * d->kvs;
        const float *vb = v + (size_t)b * Tk * d->kvs;
        for (int h = 0; h < NH; h++) {
            float *s = scores + ((size_t)b * NH + h) * hw;
            float *w = weights + ((size_t)b * NH + h) * hw;
            /* scores = Q_h K_h^T / sqrt(dk) */
            op_gemm(0, 1, Tq, Tk, dk, alpha, qb + h * dk, d->qs, kb + h * dk,
                    d->kvs, 0.0f, s, Tk);
            if (w != s)
                memcpy(w, s, hw * sizeof *w);
            if (mrow) {
                softmax_rows(w, mrow, Tq, Tk, Tk);
            } else {
                for (int i = 0; i < Tq; i++)
                    for (int j = 0; j < Tk; j++)
                        w[(size_t)i * Tk + j] += mask_value(d, b, i, j);
                softmax_rows(w, NULL, Tq, Tk, Tk);
            }
            /* head_h = weights . V_h */
            op_gemm(0, 0, Tq, dk, Tk, 1.0f, w, Tk, vb + h * dk, d->kvs, 0.0f,
                    heads + (size_t)b * Tq * C + h * dk, C);
        }
    }
}

void attention_backward(float *dq, float *dk_, float *dv, float *scratch,
                        const float *dheads, const float *weights,
                        const float *q, const float *k, const float *v,
                        const AttnDims *d)
{
    int B = d->B, Tq = d->Tq, Tk = d->Tk, C = d->C, NH = d->NH, dk = C / NH;
    float alpha = 1.0f / sqrtf((float)dk);
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
