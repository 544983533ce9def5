/* test_sample.c - sampling draws from softmax(z/T) restricted to the top-k
 * / top-p set: thousands of seeded draws are compared with that
 * distribution by total variation and a chi-square statistic, which a wrong
 * temperature fails; the same seed gives the same draws; top-k 1 and a tiny
 * temperature are greedy. */
#include <math.h>
#include <stdlib.h>

#include "sample.h"
#include "test_util.h"

#include "test_alloc.h"

#define V 12

static const float Z[V] = {2.0f, 1.5f, 1.4f, 0.3f, 0.0f, -0.2f, -1.0f, -1.1f, -2.0f, -3.0f, 0.9f, 1.5f};

/* Expected distribution computed here independently in double. */
static void expected(const SampleOpts *o, double *p)
{
    double w[V], s = 0;
    for (int i = 0; i < V; i++)
        s += w[i] = exp(Z[i] / o->temperature);
    int order[V];
    for (int i = 0; i < V; i++)
        order[i] = i;
    for (int i = 0; i < V; i++) /* sort by weight, ties by id */
        for (int j = i + 1; j < V; j++)
            if (w[order[j]] > w[order[i]] || (w[order[j]] == w[order[i]] && order[j] < order[i])) {
                int t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
    int keep = o->top_k > 0 ? o->top_k : V;
    if (o->top_p < 1) {
        double acc = 0;
        int n = 0;
        while (n < keep && (n == 0 || acc < o->top_p))
            acc += w[order[n++]] / s;
        keep = n;
    }
    double kept = 0;
    for (int i = 0; i < keep; i++)
        kept += w[order[i]];
    for (int i = 0; i < V; i++)
        p[i] = 0;
    for (int i = 0; i < keep; i++)
        p[order[i]] = w[order[i]] / kept;
}

typedef struct Case {
    SampleOpts o;
} Case;

static void draws(const SampleOpts *o, uint64_t seed, int n, int *count)
{
    Rng r;
    rng_seed(&r, seed);
    float scratch[V];
    SampleCand work[V];
    memset(count, 0, V * sizeof *count);
    for (int i = 0; i < n; i++) {
        int t = sample_token(Z, V, o, NULL, &r, scratch, work);
        expect_true(t >= 0 && t < V, "token %d", t);
        count[t]++;
    }
}

static void test_frequencies_match(void **state)
{
    (void)state;
    static const Case cases[] = {
        {{1.0f, 0, 1.0f}}, {{0.5f, 0, 1.0f}}, {{2.0f, 0, 1.0f}}, {{1.0f, 3, 1.0f}},
        {{1.5f, 5, 1.0f}}, {{1.0f, 0, 0.8f}}, {{0.7f, 4, 0.9f}}, {{5.0f, 0, 0.5f}},
    };
    const int N = 20000;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const SampleOpts *o = &cases[k].o;
        double p[V];
        expected(o, p);
        int count[V];
        draws(o, 100 + k, N, count);
        double tv = 0, chi = 0;
        int dof = -1;
        for (int i = 0; i < V; i++) {
            double f = (double)count[i] / N;
            tv += fabs(f - p[i]) / 2;
            if (p[i] > 0) {
                chi += (count[i] - N * p[i]) * (count[i] - N * p[i]) / (N * p[i]);
                dof++;
            } else {
                expect_true(count[i] == 0, "T %g k %d p %g: token %d outside the set drawn %d times",
                            o->temperature, o->top_k, o->top_p, i, count[i]);
            }
        }
        /* chi-square with dof degrees of freedom: mean dof, sd sqrt(2 dof);
         * allow mean + 5 sd */
        double lim = dof + 5 * sqrt(2.0 * (dof > 0 ? dof : 1));
        printf("  T %.1f top-k %d top-p %.1f: TV %.4f, chi2 %.1f (limit %.1f, %d dof)\n", o->temperature,
               o->top_k, o->top_p, tv, chi, lim, dof);
        expect_true(tv < 0.02 && chi < lim, "frequencies follow softmax(z/T) on the set");
        /* the engine's own distribution agrees with the double one */
        float d[V];
        SampleCand work[V];
        sample_dist(Z, V, o, NULL, d, work);
        for (int i = 0; i < V; i++)
            expect_true(fabs(d[i] - p[i]) < 1e-6, "dist[%d] %g vs %g", i, d[i], p[i]);
    }
}

/* A wrong temperature is caught: draws at T = 1 against the T = 1.3
 * distribution fail the same bound. */
static void test_wrong_temperature_fails_the_bound(void **state)
{
    (void)state;
    SampleOpts drawn = {1.0f, 0, 1.0f}, claimed = {1.3f, 0, 1.0f};
    double p[V];
    expected(&claimed, p);
    int count[V];
    const int N = 20000;
    draws(&drawn, 7, N, count);
    double chi = 0;
    for (int i = 0; i < V; i++)
        chi += (count[i] - N * p[i]) * (count[i] - N * p[i]) / (N * p[i]);
    double lim = (V - 1) + 5 * sqrt(2.0 * (V - 1));
    printf("  drawn at T 1, compared with T 1.3: chi2 %.1f (limit %.1f)\n", chi, lim);
    expect_true(chi > lim, "the test would notice a wrong temperature");
}

static void test_seed_greedy_and_banned(void **state)
{
    (void)state;
    SampleOpts o = {1.0f, 0, 1.0f};
    int a[V], b[V];
    draws(&o, 42, 500, a);
    draws(&o, 42, 500, b);
    expect_true(memcmp(a, b, sizeof a) == 0, "same seed, same draws");
    float s[V];
    SampleCand w[V];
    Rng r;
    rng_seed(&r, 1);
    SampleOpts k1 = {1.0f, 1, 1.0f}, cold = {SAMPLE_T_MIN, 0, 1.0f};
    for (int i = 0; i < 200; i++) {
        expect_true(sample_token(Z, V, &k1, NULL, &r, s, w) == 0, "top-k 1 is greedy");
        expect_true(sample_token(Z, V, &cold, NULL, &r, s, w) == 0, "T = 0.01 is greedy");
    }
    unsigned char banned[V] = {1, 0};
    for (int i = 0; i < 500; i++)
        expect_true(sample_token(Z, V, &o, banned, &r, s, w) != 0, "a banned token is never drawn");
    TfErr err;
    SampleOpts bad[] = {{0, 0, 1}, {1, -1, 1}, {1, 0, 0}, {1, 0, 1.5f}, {NAN, 0, 1}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_true(sample_check(&bad[i], &err) < 0, "bad options %zu refused", i);
}

/* The reference: every token sorted (probability, then id), the prefix
 * top-k and top-p keep, renormalised, as sample_dist did before it selected
 * the best tokens without a full sort. */
typedef struct RefCand {
    float p;
    int id;
} RefCand;
static int ref_cmp(const void *a, const void *b)
{
    const RefCand *x = a, *y = b;
    if (x->p != y->p)
        return x->p < y->p ? 1 : -1;
    return (x->id > y->id) - (x->id < y->id);
}
static int ref_dist(const float *z, int n, const SampleOpts *o, float *out, RefCand *c)
{
    double mx = -INFINITY, sum = 0;
    for (int i = 0; i < n; i++)
        mx = z[i] > mx ? z[i] : mx;
    for (int i = 0; i < n; i++)
        sum += out[i] = (float)exp(((double)z[i] - mx) / o->temperature);
    for (int i = 0; i < n; i++)
        c[i] = (RefCand){(float)(out[i] / sum), i};
    qsort(c, (size_t)n, sizeof *c, ref_cmp);
    int keep = o->top_k > 0 && o->top_k < n ? o->top_k : n;
    if (o->top_p < 1) {
        double acc = 0;
        int k = 0;
        while (k < keep && (k == 0 || acc < o->top_p))
            acc += c[k++].p;
        keep = k;
    }
    double kept = 0;
    for (int i = 0; i < keep; i++)
        kept += c[i].p;
    memset(out, 0, (size_t)n * sizeof *out);
    for (int i = 0; i < keep; i++)
        out[c[i].id] = (float)(c[i].p / kept);
    return keep;
}

/* A vocabulary of 37000 (with many equal scores): the partial selection
 * gives exactly the full sort's distribution, for top-k small and large,
 * top-p narrow and wide (a flat distribution needs thousands of tokens);
 * and no draw allocates. */
static void test_large_vocabulary_selection(void **state)
{
    (void)state;
    enum { NV = 37000 };
    float *z = malloc(NV * sizeof *z), *got = malloc(NV * sizeof *got), *want = malloc(NV * sizeof *want);
    SampleCand *work = malloc(NV * sizeof *work);
    RefCand *rc = malloc(NV * sizeof *rc);
    Rng r;
    rng_seed(&r, 5);
    for (int i = 0; i < NV; i++) /* quantised: equal scores everywhere */
        z[i] = (float)(int)(8 * rng_uniform(&r) * 6) / 8.0f - 3;
    z[123] = 6; /* a clear favourite */
    static const SampleOpts cases[] = {{1, 1, 1},   {1, 10, 1},    {1, 40, 1},   {1.3f, 5000, 1}, {1, 0, 0.9f},
                                       {5, 0, 0.95f}, {100, 0, 0.5f}, {1, 40, 0.9f}, {0.5f, 0, 0.99f}, {3, 30000, 0.7f},
                                       {0.1f, 0, 0.9f}, {0.2f, 0, 0.999f}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const SampleOpts *o = &cases[k];
        int n1 = sample_dist(z, NV, o, NULL, got, work), n2 = ref_dist(z, NV, o, want, rc);
        expect_true(n1 == n2 && memcmp(got, want, NV * sizeof *got) == 0,
                    "T %g top-k %d top-p %g: %d tokens kept, the full sort keeps %d%s", o->temperature, o->top_k,
                    o->top_p, n1, n2, n1 == n2 ? " (but other probabilities)" : "");
        printf("  T %g top-k %d top-p %g: %d tokens, as the full sort\n", o->temperature, o->top_k, o->top_p, n1);
    }
    g_allocs = 0;
    g_counting = 1;
    for (int i = 0; i < 50; i++)
        sample_token(z, NV, &cases[i % (int)(sizeof cases / sizeof cases[0])], NULL, &r, got, work);
    g_counting = 0;
#ifndef __SANITIZE_ADDRESS__
    expect_true(g_allocs == 0, "50 draws made %ld allocations (none wanted)", g_allocs);
#endif
    free(z);
    free(got);
    free(want);
    free(work);
    free(rc);
}

/* The set size counts the tokens that can be drawn: at T 0.1 a token 20
 * logits below the best has exp(-200) = 0 in float, and top-k 5 over three
 * possible tokens (two banned) keeps three. */
static void test_set_size_counts_drawable_tokens(void **state)
{
    (void)state;
    float z[6] = {5, 4.5f, -15, -16, 3, 2}, out[6];
    SampleCand work[6];
    unsigned char banned[6] = {0, 0, 0, 0, 1, 1};
    SampleOpts cold = {0.1f, 0, 1};
    int n = sample_dist(z, 6, &cold, banned, out, work);
    int pos = 0;
    for (int i = 0; i < 6; i++)
        pos += out[i] > 0;
    expect_true(n == pos && n == 2, "T 0.1: %d in the set, %d with p > 0 (want 2)", n, pos);
    SampleOpts k5 = {0.1f, 5, 1};
    n = sample_dist(z, 6, &k5, banned, out, work);
    pos = 0;
    for (int i = 0; i < 6; i++)
        pos += out[i] > 0;
    expect_true(n == pos && n == 2, "top-k 5 at T 0.1: %d in the set, %d with p > 0 (want 2)", n, pos);
}

int main(void)
{
    TU_RUN(NULL, NULL, cmocka_unit_test(test_frequencies_match),
           cmocka_unit_test(test_wrong_temperature_fails_the_bound),
           cmocka_unit_test(test_seed_greedy_and_banned), cmocka_unit_test(test_large_vocabulary_selection),
           cmocka_unit_test(test_set_size_counts_drawable_tokens));
}
