/* sample.c - temperature, top-k and top-p sampling (see sample.h). */
#include "sample.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int sample_check(const SampleOpts *o, TfErr *err)
{
    if (!(o->temperature >= SAMPLE_T_MIN && o->temperature <= SAMPLE_T_MAX))
        return tf_fail(err, "temperature %g is out of range %g..%g", o->temperature, SAMPLE_T_MIN,
                       SAMPLE_T_MAX);
    if (o->top_k < 0)
        return tf_fail(err, "top-k %d must be 0 (no limit) or more", o->top_k);
    if (!(o->top_p > 0 && o->top_p <= 1))
        return tf_fail(err, "top-p %g must be in (0, 1]", o->top_p);
    return 0;
}

/* Candidates in the order sampling ranks them: the more probable first,
 * ties the lower id first (a total order, so any selection by it keeps the
 * same set a full sort would). */
static int before(const SampleCand *a, const SampleCand *b)
{
    return a->p > b->p || (a->p == b->p && a->id < b->id);
}

static int by_prob(const void *a, const void *b)
{
    return before(a, b) ? -1 : before(b, a) ? 1 : 0;
}

static void swap_cand(SampleCand *a, SampleCand *b)
{
    SampleCand t = *a;
    *a = *b;
    *b = t;
}

/* Rearrange c[0..n) so that its first k (1 <= k <= n) are the k first in
 * rank, best first: a partial selection (Hoare's quickselect, O(n) on
 * average) and a sort of those k alone, not of the whole vocabulary. */
static void select_top(SampleCand *c, int n, int k)
{
    int lo = 0, hi = n - 1, want = k - 1;
    while (k < n && lo < hi) {
        int mid = lo + (hi - lo) / 2; /* the median of three as the pivot */
        if (before(&c[mid], &c[lo]))
            swap_cand(&c[mid], &c[lo]);
        if (before(&c[hi], &c[lo]))
            swap_cand(&c[hi], &c[lo]);
        if (before(&c[hi], &c[mid]))
            swap_cand(&c[hi], &c[mid]);
        SampleCand piv = c[mid];
        int i = lo, j = hi;
        while (i <= j) {
            while (before(&c[i], &piv))
                i++;
            while (before(&piv, &c[j]))
                j--;
            if (i <= j)
                swap_cand(&c[i++], &c[j--]);
        }
        if (want <= j)
            hi = j;
        else if (want >= i)
            lo = i;
        else
            break;
    }
    qsort(c, (size_t)k, sizeof *c, by_prob);
}

int sample_dist(const float *logits, int V, const SampleOpts *o, const unsigned char *banned,
                float *out, SampleCand *work)
{
    float T = o->temperature > 0 ? o->temperature : 1.0f;
    double mx = -INFINITY;
    for (int i = 0; i < V; i++)
        if (!(banned && banned[i]) && logits[i] > mx)
            mx = logits[i];
    double sum = 0;
    int n_pos = 0;
    for (int i = 0; i < V; i++) {
        double e = (banned && banned[i]) || !isfinite(logits[i]) ? 0 : exp(((double)logits[i] - mx) / T);
        out[i] = (float)e;
        sum += e;
    }
    if (!(sum > 0))
        return 0;
    int limit_k = o->top_k > 0 && o->top_k < V;
    int limit_p = o->top_p < 1;
    if (!limit_k && !limit_p) {
        for (int i = 0; i < V; i++) {
            out[i] = (float)(out[i] / sum);
            n_pos += out[i] > 0; /* what can be drawn: banned and underflowed tokens are not */
        }
        return n_pos;
    }
    SampleCand *c = work;
    for (int i = 0; i < V; i++)
        c[i] = (SampleCand){(float)(out[i] / sum), i};
    int keep = limit_k ? o->top_k : V;
    /* top-p: the smallest prefix whose mass reaches p, looked for among the
     * 64 best, then 4 times as many, ... (a flat distribution needs more) */
    int m = limit_p && keep > 64 ? 64 : keep;
    for (;;) {
        select_top(c, V, m);
        if (!limit_p)
            break;
        double acc = 0;
        int n = 0;
        while (n < m && (n == 0 || acc < o->top_p)) {
            acc += c[n].p;
            n++;
        }
        if (n < m || acc >= o->top_p || m == keep) {
            keep = n;
            break;
        }
        m = m < keep / 4 ? m * 4 : keep;
    }
    while (keep > 1 && c[keep - 1].p == 0) /* banned or underflowed: never drawn */
        keep--;
    double kept = 0;
    for (int i = 0; i < keep; i++)
        kept += c[i].p;
    memset(out, 0, (size_t)V * sizeof *out);
    for (int i = 0; i < keep; i++)
        out[c[i].id] = (float)(c[i].p / kept);
    return keep;
}

int sample_token(const float *logits, int V, const SampleOpts *o, const unsigned char *banned,
                 Rng *rng, float *scratch, SampleCand *work)
{
    if (sample_dist(logits, V, o, banned, scratch, work) == 0)
        return -1;
    double u = (double)rng_uniform(rng), acc = 0;
    int last = -1;
    for (int i = 0; i < V; i++) {
        if (scratch[i] <= 0)
            continue;
        acc += scratch[i];
        last = i;
        if (u < acc)
            return i;
    }
    return last; /* rounding left u above the total */
}
