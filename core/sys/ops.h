/* ops.h - the operations of the Transformer, each a forward/backward pair.
 *
 * Row-major float tensors. Conventions as in llm.c: outputs first, then the
 * caches a backward needs, then inputs, weights and dimensions. Backward
 * functions ACCUMULATE (+=) into their gradient outputs; callers zero them.
 * Every matrix product goes through cblas_sgemm (op_gemm); op_gemm_naive is
 * the triple loop it is tested against. */
#ifndef TF_OPS_H
#define TF_OPS_H

#include <stddef.h>

#define TF_LN_EPS 1e-5f
/* The widest row layernorm_backward takes: it keeps two rows of scratch on
 * the stack (config.c checks that TF_MAX_DMODEL fits). */
#define OPS_MAX_ROW 8192

/* C(M,N) = alpha * op(A) op(B) + beta * C, row-major with leading dims.
 * op(A) is A (M,K) or, with ta, A^T where A is (K,M); likewise B. */
void op_gemm(int ta, int tb, int M, int N, int K, float alpha, const float *A,
             int lda, const float *B, int ldb, float beta, float *C, int ldc);
void op_gemm_naive(int ta, int tb, int M, int N, int K, float alpha,
                   const float *A, int lda, const float *B, int ldb, float beta,
                   float *C, int ldc);

/* out(M,N) = inp(M,K) @ w(N,K)^T + b(N)      (a PyTorch Linear; b may be NULL)
 * Up to GEMM_SMALL_MAX_M rows (one sentence) through gemm_small, which reads
 * w where it lies; more rows (training, batches) through op_gemm. */
void linear_forward(float *out, const float *inp, const float *w, const float *b,
                    int M, int K, int N);
/* The same followed by a ReLU when relu (max(0, .), NaN -> 0, as
 * relu_forward), applied as gemm_small stores each block: the bits of
 * linear_forward then relu_forward, without a second pass. */
void linear_relu_forward(float *out, const float *inp, const float *w, const float *b,
                         int M, int K, int N, int relu);
/* dinp += dout @ w;  dw += dout^T @ inp;  db += column sums of dout.
 * Any of dinp, dw, db may be NULL. */
void linear_backward(float *dinp, float *dw, float *db, const float *dout,
                     const float *inp, const float *w, int M, int K, int N);

/* out[t] = table[ids[t]] * scale + pe[t % T]   for t in 0..N-1, rows of C
 * (the N rows are B sentences of T positions; pe may be NULL). */
void embed_forward(float *out, const int *ids, const float *table, float scale,
                   const float *pe, int N, int T, int C);
/* dtable[ids[t]] += dout[t] * scale */
void embed_backward(float *dtable, const float *dout, const int *ids,
                    float scale, int N, int C);

/* The sinusoidal table (max_len, C):
 * PE(pos, 2i) = sin(pos / 10000^(2i/C)), PE(pos, 2i+1) = cos(same). */
void pe_table(float *pe, int max_len, int C);
/* Marian's layout of the same frequencies: PE[pos, k] = sin(pos w_k) for
 * k < ceil(C/2), PE[pos, ceil(C/2) + k] = cos(pos w_k), w_k = 10000^(-2k/C). */
void pe_table_halves(float *pe, int max_len, int C);
/* The table of a model's layout: halves (MarianMT) or the paper's interleaving. */
void pe_table_layout(float *pe, int max_len, int C, int halves);

/* out = LayerNorm(inp) * w + b per row of C, biased variance, eps 1e-5.
 * mean and rstd (N) are kept for the backward pass and for display. */
void layernorm_forward(float *out, float *mean, float *rstd, const float *inp,
                       const float *w, const float *b, int N, int C);
void layernorm_backward(float *dinp, float *dw, float *db, const float *dout,
                        const float *inp, const float *w, const float *mean,
                        const float *rstd, int N, int C);

/* out = max(0, inp), in place allowed */
void relu_forward(float *out, const float *inp, size_t n);
/* SiLU x * sigmoid(x) ("swish") and GELU x * Phi(x) (erf form); forward
 * only: training is for ReLU models. */
void silu_forward(float *out, const float *inp, size_t n);
void gelu_forward(float *out, const float *inp, size_t n);
/* dinp += dout * (out > 0) */
void relu_backward(float *dinp, const float *dout, const float *out, size_t n);
/* The same in place, for a buffer that holds dLoss/dout and is to hold
 * dLoss/dinp: d = d * (out > 0). */
void relu_backward_inplace(float *d, const float *out, size_t n);

/* out = a + b */
void add_forward(float *out, const float *a, const float *b, size_t n);
/* out = inp * mask (mask holds 0 or 1/(1-p)); out = inp when mask == NULL */
void dropout_apply(float *out, const float *inp, const float *mask, size_t n);
/* dinp += dout * mask (dinp += dout when mask == NULL) */
void dropout_backward(float *dinp, const float *dout, const float *mask, size_t n);

/* Row softmax of (x + add) in place over rows of n; add (may be NULL) is an
 * additive mask row. -inf entries get weight exactly 0; a row holding +inf
 * (overflowed scores) gets its limit, the weight shared by the +inf entries. */
void softmax_rows(float *x, const float *add, int rows, int n, int add_stride);
/* y = the row softmax of x (no mask), the same bits as copying x to y and
 * calling softmax_rows there, without the copy; y may equal x. */
void softmax_rows_to(float *y, const float *x, int rows, int n);
/* ls[r] = log(sum_j e^x[r][j]) for rows of n: the normaliser of a
 * log-softmax, log p_j = x_j - ls. The terms are exp_poly's (2 ulp) summed
 * in floats within blocks and in double across them, so it agrees with
 * logsumexp_naive (libm's exp, all in double) to about 1e-6; rows are
 * shared with the product helper. -inf when every x is -inf, +inf when one
 * is +inf. */
void logsumexp_rows(double *ls, const float *x, int rows, int n);
double logsumexp_naive(const float *x, int n);
/* dx += y * (dy - sum(y * dy)) per row */
void softmax_backward_rows(float *dx, const float *dy, const float *y,
                           int rows, int n);

/* Multi-head scaled dot-product attention for a batch.
 *   q:  (B, Tq, C) rows at stride qs;  k, v: (B, Tk, C) rows at stride kvs
 *   scores  (B, NH, Tq, Tk) = Q_h K_h^T / sqrt(dk), before the mask
 *   mask    (B, Tq, Tk) additive 0 / -inf, written here from klen and causal
 *           (may be NULL: the same mask is then applied without being stored)
 *   weights (B, NH, Tq, Tk) = softmax(scores + mask); may equal scores
 *   heads   (B, Tq, C): head h fills columns h*dk .. h*dk+dk-1 with weights.V
 * klen[b] is the number of real (non-padding) keys of sentence b; causal
 * masks key j > query i as well. */
typedef struct AttnDims {
    int B, Tq, Tk, C, NH, qs, kvs, causal;
    const int *klen;
    int no_scale;              /* scores = Q K^T without 1/sqrt(d_k) */
    const unsigned char *khide; /* (Tk) keys masked in every sentence, or NULL */
} AttnDims;
void attention_forward(float *heads, float *scores, float *mask, float *weights,
                       const float *q, const float *k, const float *v,
                       const AttnDims *d);
/* Gradients of the above: dq, dk, dv accumulate (same strides as q, k, v);
 * scratch is (Tq, Tk) floats. */
void attention_backward(float *dq, float *dk, float *dv, float *scratch,
                        const float *dheads, const float *weights,
                        const float *q, const float *k, const float *v,
                        const AttnDims *d);

#endif
