/* test_ops.c - the operations: BLAS against the naive reference, softmax,
 * LayerNorm, positional encoding, a hand-worked attention example, masks,
 * and every backward against central finite differences. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "ops.h"
#include "rng.h"
#include "test_util.h"

static void fill(float *x, size_t n, uint64_t seed, float scale)
{
    Rng r;
    rng_seed(&r, seed);
    for (size_t i = 0; i < n; i++)
        x[i] = (2 * rng_uniform(&r) - 1) * scale;
}

static void test_gemm_vs_naive(void **state)
{
    (void)state;
    int shapes[][3] = {{1, 1, 1}, {7, 5, 3}, {32, 48, 64}, {65, 33, 17}, {128, 96, 200}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int M = shapes[s][0], N = shapes[s][1], K = shapes[s][2];
        for (int ta = 0; ta < 2; ta++) {
            for (int tb = 0; tb < 2; tb++) {
                int lda = (ta ? M : K) + 3, ldb = (tb ? K : N) + 1, ldc = N + 2;
                float *A = malloc(sizeof(float) * (size_t)lda * (ta ? K : M));
                float *B = malloc(sizeof(float) * (size_t)ldb * (tb ? N : K));
                float *C1 = malloc(sizeof(float) * (size_t)ldc * M);
                float *C2 = malloc(sizeof(float) * (size_t)ldc * M);
                fill(A, (size_t)lda * (ta ? K : M), 1 + s, 1);
                fill(B, (size_t)ldb * (tb ? N : K), 2 + s, 1);
                fill(C1, (size_t)ldc * M, 3, 1);
                memcpy(C2, C1, sizeof(float) * (size_t)ldc * M);
                op_gemm(ta, tb, M, N, K, 0.7f, A, lda, B, ldb, 0.3f, C1, ldc);
                op_gemm_naive(ta, tb, M, N, K, 0.7f, A, lda, B, ldb, 0.3f, C2, ldc);
                printf("gemm %dx%dx%d ta=%d tb=%d\n", M, N, K, ta, tb);
                check_close("sgemm vs naive", C1, C2, (size_t)ldc * M, 1e-5f, 1e-4f);
                free(A); free(B); free(C1); free(C2);
            }
        }
    }
}

/* A large product is split in two over the product helper thread: the
 * result equals the unsplit product to rounding (the kernel may add in
 * another order at panel edges), and the same inputs give the same bits
 * every time. */
static void test_split_product_is_exact(void **state)
{
    (void)state;
    int shapes[][3] = {{32, 1536, 512}, {512, 64, 256}, {33, 3001, 77}};
    for (int s = 0; s < 3; s++) {
        for (int tb = 0; tb < 2; tb++) {
            int M = shapes[s][0], N = shapes[s][1], K = shapes[s][2];
            float *A = malloc(sizeof(float) * (size_t)M * K), *B = malloc(sizeof(float) * (size_t)N * K);
            float *C1 = malloc(sizeof(float) * (size_t)M * N), *C2 = malloc(sizeof(float) * (size_t)M * N);
            fill(A, (size_t)M * K, 10 + s, 1);
            fill(B, (size_t)N * K, 20 + s, 1);
            op_gemm(0, tb, M, N, K, 1.0f, A, K, B, tb ? K : N, 0.0f, C1, N);
            cblas_sgemm(CblasRowMajor, CblasNoTrans, tb ? CblasTrans : CblasNoTrans, M, N, K, 1.0f, A, K,
                        B, tb ? K : N, 0.0f, C2, N);
            printf("  %d x %d x %d tb=%d:\n", M, N, K, tb);
            check_close("split vs unsplit", C1, C2, (size_t)M * N, 1e-5f, 1e-5f);
            op_gemm(0, tb, M, N, K, 1.0f, A, K, B, tb ? K : N, 0.0f, C2, N);
            expect_true(memcmp(C1, C2, sizeof(float) * (size_t)M * N) == 0, "a second split product is bit-identical");
            free(A); free(B); free(C1); free(C2);
        }
    }
}

static void test_softmax_rows_sum_to_one(void **state)
{
    (void)state;
    int rows = 9, n = 13;
    float x[9 * 13], add[9 * 13];
    fill(x, sizeof x / sizeof *x, 5, 20);
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < n; j++)
            add[i * n + j] = (j > i) ? -INFINITY : 0.0f;
    softmax_rows(x, add, rows, n, n);
    for (int i = 0; i < rows; i++) {
        double s = 0;
        for (int j = 0; j < n; j++) {
            s += x[i * n + j];
            expect_true(x[i * n + j] >= 0 && x[i * n + j] <= 1, "p in [0,1], got %g", x[i * n + j]);
            if (j > i)
                expect_true(x[i * n + j] == 0.0f, "masked cell (%d,%d) exactly 0, got %g", i, j, x[i * n + j]);
        }
        expect_true(fabs(s - 1) < 1e-6, "row %d sums to 1, got %.9f", i, s);
    }
    /* large values must not overflow */
    float big[3] = {1000, 1001, 999};
    softmax_rows(big, NULL, 1, 3, 0);
    expect_true(fabsf(big[1] - 0.66524096f) < 1e-6f, "softmax(1000,1001,999)[1] = 0.665241, got %.7f", big[1]);
    /* overflowed scores (+inf) take their limit, not NaN */
    float inf[4] = {INFINITY, 3, INFINITY, -INFINITY};
    softmax_rows(inf, NULL, 1, 4, 0);
    for (int j = 0; j < 4; j++)
        expect_true(inf[j] == (j == 0 || j == 2 ? 0.5f : 0.0f), "softmax(inf,3,inf,-inf)[%d] = %g, got %g", j,
                    j == 0 || j == 2 ? 0.5 : 0.0, inf[j]);
}

/* Long rows (the output softmax over a vocabulary: eight lanes and a tail,
 * the largest score in every lane position and in the tail, NaN-free)
 * against softmax in double precision. */
static void test_softmax_long_rows(void **state)
{
    (void)state;
    enum { R = 19, V = 1003 };
    static float x[R * V], want[R * V];
    fill(x, R * V, 77, 30);
    for (int r = 0; r < R; r++) {
        float *row = x + (size_t)r * V;
        row[(r * 131) % V] = 40.0f + r; /* the maximum, at a different lane each row */
        double mx = -INFINITY, sum = 0;
        for (int j = 0; j < V; j++)
            mx = row[j] > mx ? row[j] : mx;
        for (int j = 0; j < V; j++)
            sum += exp((double)row[j] - mx);
        for (int j = 0; j < V; j++)
            want[(size_t)r * V + j] = (float)(exp((double)row[j] - mx) / sum);
    }
    softmax_rows(x, NULL, R, V, 0);
    check_close("long softmax rows vs double", x, want, (size_t)R * V, 1e-9f, 1e-5f);
}

/* softmax_rows_to (the output probabilities, read from the logits) gives
 * the bits of copying the logits and softmaxing them in place, on rows of
 * a vocabulary shared over the two cores, with a +inf row and an all -inf
 * row, and in place (y == x) too. */
static void test_softmax_rows_to_is_copy_then_softmax(void **state)
{
    (void)state;
    enum { R = 6, V = 37003 };
    static float x[R * V], inplace[R * V], out[R * V];
    fill(x, R * V, 91, 25);
    x[2 * V + 17] = INFINITY;
    for (int j = 0; j < V; j++)
        x[4 * V + j] = -INFINITY;
    memcpy(inplace, x, sizeof x);
    softmax_rows(inplace, NULL, R, V, 0);
    memset(out, 0xff, sizeof out); /* NaN bits: every entry must be written */
    softmax_rows_to(out, x, R, V);
    expect_true(memcmp(out, inplace, sizeof out) == 0, "out of place equals copy + in place, bit for bit");
    expect_true(out[2 * V + 17] == 1.0f && out[4 * V] == 0.0f, "the +inf row is one-hot, the -inf row zero");
    softmax_rows_to(x, x, R, V);
    expect_true(memcmp(x, inplace, sizeof x) == 0, "y == x is the in-place softmax");
}

/* logsumexp_rows against the plain double loop: rows of every length up to
 * past one block of 256 and a vocabulary's 37000, spreads from flat to
 * peaked (terms down to e^-80 and below e^-87, which exp_poly flushes to
 * 0), -inf entries, a row of only -inf, one holding +inf; one row and four
 * (the helper's split). */
static void test_logsumexp_rows(void **state)
{
    (void)state;
    Rng r;
    rng_seed(&r, 99);
    static const int lens[] = {1, 7, 16, 255, 256, 257, 1000, 37000};
    static const float spread[] = {0.1f, 3.0f, 40.0f, 200.0f};
    float *x = malloc(4 * 37000 * sizeof *x);
    double ls[4], worst = 0;
    for (size_t a = 0; a < sizeof lens / sizeof lens[0]; a++)
        for (size_t b = 0; b < sizeof spread / sizeof spread[0]; b++) {
            int n = lens[a];
            for (int i = 0; i < 4 * n; i++)
                x[i] = spread[b] * (2.0f * rng_uniform(&r) - 1.0f);
            if (n > 3)
                x[2] = -INFINITY;
            for (int rows = 1; rows <= 4; rows += 3) {
                logsumexp_rows(ls, x, rows, n);
                for (int k = 0; k < rows; k++) {
                    double want = logsumexp_naive(x + (size_t)k * n, n), d = fabs(ls[k] - want);
                    worst = d > worst ? d : worst;
                    expect_true(d <= 2e-6 * (1 + fabs(want)), "n %d spread %g row %d: %.9f, plain %.9f", n,
                                (double)spread[b], k, ls[k], want);
                }
            }
        }
    for (int i = 0; i < 300; i++)
        x[i] = -INFINITY;
    logsumexp_rows(ls, x, 1, 300);
    expect_true(ls[0] == -INFINITY && logsumexp_naive(x, 300) == -INFINITY, "every term -inf: -inf");
    x[5] = INFINITY;
    logsumexp_rows(ls, x, 1, 300);
    expect_true(ls[0] == INFINITY, "a +inf logit: +inf");
    printf("  worst difference from the plain loop: %.3g\n", worst);
    free(x);
}

static void test_layernorm_stats(void **state)
{
    (void)state;
    int N = 5, C = 37;
    float x[5 * 37], y[5 * 37], w[37], b[37], mean[5], rstd[5];
    fill(x, sizeof x / sizeof *x, 9, 3);
    for (int c = 0; c < C; c++) {
        w[c] = 1;
        b[c] = 0;
    }
    for (int c = 0; c < C; c++)
        x[c] += 100; /* a row far from zero */
    layernorm_forward(y, mean, rstd, x, w, b, N, C);
    for (int t = 0; t < N; t++) {
        double m = 0, v = 0;
        for (int c = 0; c < C; c++)
            m += y[t * C + c];
        m /= C;
        for (int c = 0; c < C; c++)
            v += (y[t * C + c] - m) * (y[t * C + c] - m);
        v /= C;
        /* variance of the normalised row is var/(var+eps) */
        double var_x = 1.0 / ((double)rstd[t] * rstd[t]) - 1e-5;
        double want_v = var_x / (var_x + 1e-5);
        expect_true(fabs(m) < 1e-5, "row %d mean 0, got %g", t, m);
        expect_true(fabs(v - want_v) < 1e-4, "row %d variance %.6f, got %.6f", t, want_v, v);
    }
    /* a hand-worked row: x = (1, 2, 3, 4): mean 2.5, var 1.25 */
    float h[4] = {1, 2, 3, 4}, ho[4], hw[4] = {1, 1, 2, 1}, hb[4] = {0, 0, 0, 1}, hm, hr;
    layernorm_forward(ho, &hm, &hr, h, hw, hb, 1, 4);
    float s = 1.0f / sqrtf(1.25f + 1e-5f);
    float want[4] = {-1.5f * s, -0.5f * s, 2 * 0.5f * s, 1.5f * s + 1};
    check_close("layernorm (1,2,3,4)", ho, want, 4, 1e-6f, 1e-6f);
    expect_true(hm == 2.5f, "mean 2.5, got %g", hm);
}

static void test_positional_encoding(void **state)
{
    (void)state;
    int L = 50, C = 16;
    float *pe = malloc(sizeof(float) * L * C);
    pe_table(pe, L, C);
    for (int pos = 0; pos < L; pos++) {
        for (int i = 0; i < C / 2; i++) {
            double ang = pos / pow(10000.0, 2.0 * i / C);
            float s = pe[pos * C + 2 * i], c = pe[pos * C + 2 * i + 1];
            expect_true(fabs(s - sin(ang)) < 1e-6 && fabs(c - cos(ang)) < 1e-6,
                        "PE(%d, %d) = (sin, cos)(%g) = (%g, %g), got (%g, %g)", pos,
                        2 * i, ang, sin(ang), cos(ang), s, c);
        }
    }
    expect_true(pe[0] == 0.0f && pe[1] == 1.0f, "PE(0) = (0, 1, ...), got (%g, %g)", pe[0], pe[1]);
    free(pe);
}

/* A 2-token, 1-head attention worked out by hand.
 * q = [[1, 0], [0, 1]], k = [[1, 0], [1, 1]], v = [[1, 2], [3, 4]], d_k = 2.
 * scores = q k^T / sqrt(2) = [[1, 1], [0, 1]] / 1.41421356
 *        = [[0.70710678, 0.70710678], [0, 0.70710678]]
 * row 0: equal scores -> weights (0.5, 0.5) -> head = (2, 3)
 * row 1: softmax(0, 0.7071) = (1/(1+e^0.7071), e^0.7071/(1+e^0.7071))
 *        = (0.33023845, 0.66976155) -> head = (2.33952310, 3.33952310)
 * With the causal mask, row 0 sees only key 0 -> weights (1, 0), head (1, 2). */
static void test_attention_by_hand(void **state)
{
    (void)state;
    float q[4] = {1, 0, 0, 1}, k[4] = {1, 0, 1, 1}, v[4] = {1, 2, 3, 4};
    float heads[4], scores[4], mask[4], w[4];
    int klen[1] = {2};
    AttnDims d = {1, 2, 2, 2, 1, 2, 2, 0, klen, 0, NULL};
    attention_forward(heads, scores, mask, w, q, k, v, &d);
    float ws[4] = {0.70710678f, 0.70710678f, 0, 0.70710678f};
    float ww[4] = {0.5f, 0.5f, 0.33023845f, 0.66976155f};
    float wh[4] = {2, 3, 2.33952310f, 3.33952310f};
    check_close("scores", scores, ws, 4, 1e-6f, 1e-6f);
    check_close("weights", w, ww, 4, 1e-6f, 1e-6f);
    check_close("heads", heads, wh, 4, 1e-6f, 1e-6f);
    d.causal = 1;
    attention_forward(heads, scores, mask, w, q, k, v, &d);
    float cw[4] = {1, 0, 0.33023845f, 0.66976155f};
    float cm[4] = {0, -INFINITY, 0, 0};
    check_close("causal weights", w, cw, 4, 1e-6f, 1e-6f);
    check_close("causal mask", mask, cm, 4, 0, 0);
    expect_true(w[1] == 0.0f, "masked weight exactly 0, got %g", w[1]);
    float ch[4] = {1, 2, 2.33952310f, 3.33952310f};
    check_close("causal heads", heads, ch, 4, 1e-6f, 1e-6f);
}

/* Causal plus padding mask: shape and values for every cell. */
static void test_masks(void **state)
{
    (void)state;
    int B = 2, T = 5, C = 8, NH = 2;
    int klen[2] = {5, 3};
    size_t n = (size_t)B * T * C;
    float *q = malloc(sizeof(float) * n), *k = malloc(sizeof(float) * n),
          *v = malloc(sizeof(float) * n), *h = malloc(sizeof(float) * n);
    float *s = malloc(sizeof(float) * B * NH * T * T), *w = malloc(sizeof(float) * B * NH * T * T);
    float *m = malloc(sizeof(float) * B * T * T);
    fill(q, n, 1, 2);
    fill(k, n, 2, 2);
    fill(v, n, 3, 2);
    AttnDims d = {B, T, T, C, NH, C, C, 1, klen, 0, NULL};
    attention_forward(h, s, m, w, q, k, v, &d);
    int masked = 0;
    for (int b = 0; b < B; b++)
        for (int i = 0; i < T; i++)
            for (int j = 0; j < T; j++) {
                int want_masked = j > i || j >= klen[b];
                float mv = m[(b * T + i) * T + j];
                expect_true(want_masked ? mv == -INFINITY : mv == 0.0f,
                            "mask[%d][%d][%d] = %s, got %g", b, i, j, want_masked ? "-inf" : "0", mv);
                for (int hh = 0; hh < NH; hh++) {
                    float wv = w[(((size_t)b * NH + hh) * T + i) * T + j];
                    if (want_masked) {
                        expect_true(wv == 0.0f, "weight[%d][%d][%d][%d] exactly 0, got %g", b, hh, i, j, wv);
                        masked++;
                    }
                }
            }
    /* causal: 10 cells in each 5x5; padding adds (3,3), (4,3), (4,4) in the second */
    expect_true(masked == NH * (10 + 10 + 3), "23 masked cells per head, got %d", masked / NH);
    free(q); free(k); free(v); free(h); free(s); free(w); free(m);
}

/* ---- finite-difference checks of every backward ---- */

typedef double (*LossFn)(void *ctx);

/* Compare analytic gradient g of x against central differences of f. */
static void fd_check(const char *what, LossFn f, void *ctx, float *x,
                     const float *g, size_t n, float tol)
{
    double worst = 0;
    size_t at = 0, step = n > 400 ? n / 200 : 1;
    double got_at = 0, want_at = 0;
    for (size_t i = 0; i < n; i += step) {
        float old = x[i], eps = 1e-2f * fmaxf(1.0f, fabsf(old));
        x[i] = old + eps;
        double lp = f(ctx);
        x[i] = old - eps;
        double lm = f(ctx);
        x[i] = old;
        double num = (lp - lm) / (2.0 * eps);
        double err = fabs(num - g[i]) / (1e-2 + fabs(num));
        if (err > worst) {
            worst = err;
            at = i;
            got_at = g[i];
            want_at = num;
        }
    }
    printf("  %s: worst relative error %.2e at [%zu] analytic %.6g numeric %.6g\n",
           what, worst, at, got_at, want_at);
    expect_true(worst < tol, "%s gradient matches finite differences", what);
}

/* loss = sum(out * r) for a fixed random r, so dout = r */
/* sum_i a[i] * r[i]: a scalar loss whose gradient with respect to a is r. */
static double dot(const float *a, const float *r, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += (double)a[i] * r[i];
    return s;
}

typedef struct LinCtx {
    int M, K, N;
    float *inp, *w, *b, *out, *r;
} LinCtx;

static double lin_loss(void *p)
{
    LinCtx *c = p;
    linear_forward(c->out, c->inp, c->w, c->b, c->M, c->K, c->N);
    return dot(c->out, c->r, c->M * c->N);
}

static void test_linear_backward(void **state)
{
    (void)state;
    LinCtx c = {6, 5, 4, NULL, NULL, NULL, NULL, NULL};
    float inp[30], w[20], b[4], out[24], r[24], di[30] = {0}, dw[20] = {0}, db[4] = {0};
    c.inp = inp; c.w = w; c.b = b; c.out = out; c.r = r;
    fill(inp, 30, 1, 1); fill(w, 20, 2, 1); fill(b, 4, 3, 1); fill(r, 24, 4, 1);
    linear_backward(di, dw, db, r, inp, w, 6, 5, 4);
    fd_check("linear dinp", lin_loss, &c, inp, di, 30, 1e-2f);
    fd_check("linear dw", lin_loss, &c, w, dw, 20, 1e-2f);
    fd_check("linear db", lin_loss, &c, b, db, 4, 1e-2f);
}

typedef struct LnCtx {
    int N, C;
    float *inp, *w, *b, *out, *r, *mean, *rstd;
} LnCtx;

static double ln_loss(void *p)
{
    LnCtx *c = p;
    layernorm_forward(c->out, c->mean, c->rstd, c->inp, c->w, c->b, c->N, c->C);
    return dot(c->out, c->r, c->N * c->C);
}

static void test_layernorm_backward(void **state)
{
    (void)state;
    enum { N = 4, C = 9 };
    float inp[N * C], w[C], b[C], out[N * C], r[N * C], mean[N], rstd[N];
    float di[N * C] = {0}, dw[C] = {0}, db[C] = {0};
    LnCtx c = {N, C, inp, w, b, out, r, mean, rstd};
    fill(inp, N * C, 1, 2); fill(w, C, 2, 1); fill(b, C, 3, 1); fill(r, N * C, 4, 1);
    ln_loss(&c);
    layernorm_backward(di, dw, db, r, inp, w, mean, rstd, N, C);
    fd_check("layernorm dinp", ln_loss, &c, inp, di, N * C, 2e-2f);
    fd_check("layernorm dw", ln_loss, &c, w, dw, C, 1e-2f);
    fd_check("layernorm db", ln_loss, &c, b, db, C, 1e-2f);
}

typedef struct SmCtx {
    int rows, n;
    float *x, *y, *r;
} SmCtx;

static double sm_loss(void *p)
{
    SmCtx *c = p;
    memcpy(c->y, c->x, sizeof(float) * c->rows * c->n);
    softmax_rows(c->y, NULL, c->rows, c->n, 0);
    return dot(c->y, c->r, c->rows * c->n);
}

static void test_softmax_and_relu_backward(void **state)
{
    (void)state;
    enum { R = 3, N = 7 };
    float x[R * N], y[R * N], r[R * N], dx[R * N] = {0};
    SmCtx c = {R, N, x, y, r};
    fill(x, R * N, 1, 2); fill(r, R * N, 2, 1);
    sm_loss(&c);
    softmax_backward_rows(dx, r, y, R, N);
    fd_check("softmax dx", sm_loss, &c, x, dx, R * N, 1e-2f);

    /* ReLU: gradient passes where the output is positive */
    float in[6] = {-1, 2, 0.5f, -0.1f, 3, 0}, out[6], d[6] = {0}, g[6] = {1, 1, 1, 1, 1, 1};
    relu_forward(out, in, 6);
    relu_backward(d, g, out, 6);
    float want[6] = {0, 1, 1, 0, 1, 0};
    check_close("relu backward", d, want, 6, 0, 0);
}

typedef struct AtCtx {
    AttnDims d;
    float *q, *k, *v, *h, *s, *w, *r;
} AtCtx;

static double at_loss(void *p)
{
    AtCtx *c = p;
    attention_forward(c->h, c->s, NULL, c->w, c->q, c->k, c->v, &c->d);
    return dot(c->h, c->r, c->d.B * c->d.Tq * c->d.C);
}

static void test_attention_backward(void **state)
{
    (void)state;
    for (int cross = 0; cross < 2; cross++) {
        int B = 2, Tq = 4, Tk = cross ? 5 : 4, C = 8, NH = 2;
        int klen[2] = {Tk, Tk - 2};
        int qs = cross ? C : 3 * C, kvs = cross ? 2 * C : 3 * C;
        size_t nq = (size_t)B * Tq * qs, nk = (size_t)B * Tk * kvs;
        float *qb = calloc(nq, 4), *kvb = cross ? calloc(nk, 4) : qb;
        float *dqb = calloc(nq, 4), *dkvb = cross ? calloc(nk, 4) : dqb;
        fill(qb, nq, 1, 1);
        if (cross)
            fill(kvb, nk, 2, 1);
        AtCtx c;
        c.d = (AttnDims){B, Tq, Tk, C, NH, qs, kvs, !cross, klen, 0, NULL};
        c.q = qb;
        c.k = cross ? kvb : qb + C;
        c.v = cross ? kvb + C : qb + 2 * C;
        c.h = calloc((size_t)B * Tq * C, 4);
        c.s = calloc((size_t)B * NH * Tq * Tk, 4);
        c.w = calloc((size_t)B * NH * Tq * Tk, 4);
        c.r = calloc((size_t)B * Tq * C, 4);
        fill(c.r, (size_t)B * Tq * C, 3, 1);
        float *scratch = calloc((size_t)Tq * Tk, 4);
        at_loss(&c);
        attention_backward(dqb, cross ? dkvb : dqb + C, cross ? dkvb + C : dqb + 2 * C,
                           scratch, c.r, c.w, c.q, c.k, c.v, &c.d);
        fd_check(cross ? "cross-attention dq" : "self-attention dqkv", at_loss, &c, qb, dqb, nq, 2e-2f);
        if (cross)
            fd_check("cross-attention dkv", at_loss, &c, kvb, dkvb, nk, 2e-2f);
        free(qb); free(dqb);
        if (cross) { free(kvb); free(dkvb); }
        free(c.h); free(c.s); free(c.w); free(c.r); free(scratch);
    }
}

static void test_embed_backward(void **state)
{
    (void)state;
    int ids[5] = {2, 0, 2, 1, 3};
    float dt[4 * 3] = {0}, g[5 * 3];
    for (int i = 0; i < 15; i++)
        g[i] = (float)(i + 1);
    embed_backward(dt, g, ids, 2.0f, 5, 3);
    /* row 2 gets rows 0 and 2 of g (1,2,3)+(7,8,9) times 2 */
    float want[12] = {8, 10, 12, 20, 22, 24, 16, 20, 24, 26, 28, 30};
    check_close("embedding gradient accumulates per id", dt, want, 12, 0, 0);
}

int main(void)
{
    TU_RUN(NULL, NULL,
           cmocka_unit_test(test_gemm_vs_naive),
           cmocka_unit_test(test_split_product_is_exact),
           cmocka_unit_test(test_softmax_rows_sum_to_one),
           cmocka_unit_test(test_softmax_long_rows),
           cmocka_unit_test(test_softmax_rows_to_is_copy_then_softmax),
           cmocka_unit_test(test_logsumexp_rows),
           cmocka_unit_test(test_layernorm_stats),
           cmocka_unit_test(test_positional_encoding),
           cmocka_unit_test(test_attention_by_hand),
           cmocka_unit_test(test_masks),
           cmocka_unit_test(test_linear_backward),
           cmocka_unit_test(test_layernorm_backward),
           cmocka_unit_test(test_softmax_and_relu_backward),
           cmocka_unit_test(test_attention_backward),
           cmocka_unit_test(test_embed_backward));
}
