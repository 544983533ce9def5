/* ses_measure.c - what the cost and scale views show that is not of the
 * pass (ses_measure.h).
 *
 * The cost: one layer of the loaded model's size (d_model, h, d_ff) run by
 * the engine's own ops at n = 8, 16, ..., 256 tokens, self-attention (Q/K/V
 * projections, QKᵀ, softmax, A·V, W_O) beside the feed-forward network,
 * timed, and the bytes the trace records for it. Measuring never freezes
 * the window: each call measures the next n until a small time budget is
 * spent (at least one n); the window calls again in the next frame. The
 * memory figures are counted from the trace's layout (AttnAct: packed
 * Q|K|V, scores, mask, weights, heads, out; FFN: hidden, out), so they are
 * exact and the same on every machine; the times are this machine's.
 *
 * The dots: q·k of random unit-variance vectors, whose spread grows like
 * √d_k (why the scores are divided by it). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "ops.h"
#include "parallel.h"
#include "rng.h"
#include "ses_measure.h"

const int SES_COST_NS[SES_COST_N] = {8, 16, 32, 64, 128, 256};
#define COST_TRIALS 5
#define COST_BUDGET 0.040 /* seconds of measuring per call */

void ses_cost_bytes(int n, int C, int NH, int F, double *attn, double *ffn)
{
    double nn = (double)n * n;
    *attn = 4.0 * (3.0 * n * C + NH * nn + nn + NH * nn + (double)n * C + (double)n * C);
    *ffn = 4.0 * ((double)n * F + (double)n * C);
}

/* The buffers of one layer for the largest n, laid out in one block. */
typedef struct CostBufs {
    float *x, *wqkv, *bqkv, *qkv, *scores, *mask, *weights, *heads, *wo, *bo, *out;
    float *w1, *b1, *hidden, *w2, *b2, *out2;
} CostBufs;

static size_t bufs_layout(CostBufs *b, float *base, int C, int NH, int F)
{
    size_t N = (size_t)SES_COST_NS[SES_COST_N - 1], at = 0;
    float *p = base;
#define TAKE(f, cnt) do { b->f = p ? p + at : NULL; at += (cnt); } while (0)
    TAKE(x, N * C);
    TAKE(wqkv, (size_t)3 * C * C);
    TAKE(bqkv, (size_t)3 * C);
    TAKE(qkv, N * 3 * C);
    TAKE(scores, (size_t)NH * N * N);
    TAKE(mask, N * N);
    TAKE(weights, (size_t)NH * N * N);
    TAKE(heads, N * C);
    TAKE(wo, (size_t)C * C);
    TAKE(bo, (size_t)C);
    TAKE(out, N * C);
    TAKE(w1, (size_t)F * C);
    TAKE(b1, (size_t)F);
    TAKE(hidden, N * F);
    TAKE(w2, (size_t)C * F);
    TAKE(b2, (size_t)C);
    TAKE(out2, N * C);
#undef TAKE
    return at;
}

static void run_attn(const CostBufs *b, int n, int C, int NH)
{
    linear_forward(b->qkv, b->x, b->wqkv, b->bqkv, n, C, 3 * C);
    AttnDims d = {1, n, n, C, NH, 3 * C, 3 * C, 0, &n, 0, NULL};
    attention_forward(b->heads, b->scores, b->mask, b->weights, b->qkv, b->qkv + C, b->qkv + 2 * C, &d);
    linear_forward(b->out, b->heads, b->wo, b->bo, n, C, C);
}

static void run_ffn(const CostBufs *b, int n, int C, int F)
{
    linear_forward(b->hidden, b->x, b->w1, b->b1, n, C, F);
    relu_forward(b->hidden, b->hidden, (size_t)n * F);
    linear_forward(b->out2, b->hidden, b->w2, b->b2, n, F, C);
}

static double est_flops(int n, int C, int F);

/* Seconds per call: repeated until 0.3 ms have passed, the fastest of
 * COST_TRIALS such means (the least disturbed by other programs). */
static double time_one(const CostBufs *b, int which, int n, int C, int NH, int F)
{
    /* on one core: the products are not split with the helper thread (whose
     * wake-up on a busy machine would show as a jump, not as a cost of n) */
    int own = par_claim();
    /* a big layer at a long n is timed once (no warm-up): five of them
     * would hold one frame for most of a second */
    int trials = est_flops(n, C, F) > 1e8 ? 1 : COST_TRIALS;
    double t[COST_TRIALS];
    if (trials > 1)
        which ? run_ffn(b, n, C, F) : run_attn(b, n, C, NH); /* warm the caches */
    for (int k = 0; k < trials; k++) {
        int reps = 0;
        double t0 = tf_seconds(), el;
        do {
            which ? run_ffn(b, n, C, F) : run_attn(b, n, C, NH);
            reps++;
            el = tf_seconds() - t0;
        } while (el < 3e-4 && reps < 4096);
        t[k] = el / reps;
    }
    if (own)
        par_release();
    double best = t[0];
    for (int k = 1; k < trials; k++)
        best = t[k] < best ? t[k] : best;
    return best;
}

/* Multiply-adds of one call of each, to guess its time before measuring. */
static double est_flops(int n, int C, int F)
{
    return 2.0 * n * C * 3 * C + 4.0 * n * n * C + 2.0 * n * C * C + 4.0 * n * C * F;
}

/* On opening, the lengths a small model runs in a few milliseconds are all
 * measured at once (the picture is complete in the first frame, and in
 * `shot`); the rest one a call. */
void ses_cost_measure(SesCost *u, const TfConfig *cfg)
{
    if (u->C != cfg->d_model || u->NH != cfg->n_heads || u->F != cfg->d_ff) {
        free(u->mem);
        memset(u, 0, sizeof *u);
        u->C = cfg->d_model;
        u->NH = cfg->n_heads;
        u->F = cfg->d_ff;
    }
    if (u->done >= SES_COST_N || u->failed)
        return;
    CostBufs b;
    if (!u->mem) {
        size_t n = bufs_layout(&b, NULL, u->C, u->NH, u->F);
        u->mem = malloc(n * sizeof(float));
        if (!u->mem) {
            u->failed = 1;
            return;
        }
        for (size_t i = 0; i < n; i++) /* small values, no denormals */
            u->mem[i] = 0.02f * sinf(0.37f * (float)(i % 1000));
    }
    bufs_layout(&b, u->mem, u->C, u->NH, u->F);
    double t0 = tf_seconds();
    int first = u->done == 0;
    do {
        int k = u->done, n = SES_COST_NS[k];
        u->attn_s[k] = time_one(&b, 0, n, u->C, u->NH, u->F);
        u->ffn_s[k] = time_one(&b, 1, n, u->C, u->NH, u->F);
        ses_cost_bytes(n, u->C, u->NH, u->F, &u->attn_b[k], &u->ffn_b[k]);
        u->done++;
    } while (u->done < SES_COST_N &&
             (tf_seconds() - t0 < COST_BUDGET || (first && est_flops(SES_COST_NS[u->done], u->C, u->F) < 5e7)));
}


void ses_cost_free(SesCost *u)
{
    free(u->mem);
    u->mem = NULL;
}

/* ---- q·k of random vectors ---- */

static const int DOTS_DK[SES_DOTS_DK] = {8, 64};

int ses_dots_dk(int i)
{
    return i >= 0 && i < SES_DOTS_DK ? DOTS_DK[i] : 0;
}

void ses_random_dots(int dk, int n, uint64_t seed, float *out)
{
    Rng r;
    rng_seed(&r, seed);
    for (int i = 0; i < n; i++) {
        double s = 0;
        for (int k = 0; k < dk; k++) {
            float q = rng_normal(&r), kk = rng_normal(&r);
            s += (double)q * kk;
        }
        out[i] = (float)s;
    }
}

/* ---- a Session's measurements ---- */

#define DOTS_SEED 17

static SesMeasure *measure_of(SesMeasure **m)
{
    if (!*m)
        *m = calloc(1, sizeof **m);
    return *m;
}

const SesCost *ses_measure_cost(SesMeasure **mp, const TfConfig *cfg)
{
    SesMeasure *m = measure_of(mp);
    if (!m)
        return NULL;
    ses_cost_measure(&m->cost, cfg);
    return &m->cost;
}

const float *ses_measure_dots(SesMeasure **mp, int i)
{
    SesMeasure *m = measure_of(mp);
    if (!m || i < 0 || i >= SES_DOTS_DK)
        return NULL;
    if (!m->have_dots) {
        for (int k = 0; k < SES_DOTS_DK; k++)
            ses_random_dots(DOTS_DK[k], SES_DOTS_N, DOTS_SEED + (uint64_t)k, m->dots[k]);
        m->have_dots = 1;
    }
    return m->dots[i];
}

void ses_measure_free(SesMeasure *m)
{
    if (!m)
        return;
    ses_cost_free(&m->cost);
    free(m->heads);
    free(m);
}


const TfHeadMetrics *ses_measure_heads(SesMeasure **mp, const TfTrace *tr, uint64_t stamp, TfAttnKind k, int b)
{
    SesMeasure *m = measure_of(mp);
    if (!m)
        return NULL;
    const TfConfig *c = &tr->cfg;
    int n = (k == TF_ATTN_ENC ? c->n_enc : c->n_dec) * c->n_heads;
    /* what the table depends on: the pass (which trace, and its stamp), the
     * attention and the sentence */
    uint64_t of[4] = {(uintptr_t)tr, stamp, (uint64_t)k, (uint64_t)b};
    if (m->heads && !memcmp(m->heads_of, of, sizeof of))
        return m->heads;
    if (n > m->heads_cap) {
        TfHeadMetrics *p = realloc(m->heads, (size_t)n * sizeof *p);
        if (!p)
            return NULL;
        m->heads = p;
        m->heads_cap = n;
    }
    for (int i = 0; i < n; i++) {
        TfErr err;
        if (tf_head_metrics(tr, k, i / c->n_heads, i % c->n_heads, b, &m->heads[i], &err))
            memset(&m->heads[i], 0, sizeof m->heads[i]);
    }
    memcpy(m->heads_of, of, sizeof of);
    return m->heads;
}
