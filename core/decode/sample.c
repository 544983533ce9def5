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

typedef struct Cand {
    float p;
    int id;
} Cand;

static int by_prob(const void *a, const void *b)
{
    const Cand *x = a, *y = b;
    if (x->p != y->p)
        return x->p < y->p ? 1 : -1;
    return (x->id > y->id) - (x->id < y->id); /* ties: the lower id first */
}

int sample_dist(const float *logits, int V, const SampleOpts *o, const unsigned char *banned,
                float *out)
{
    float T = o->temperature > 0 ? o->temperature : 1.0f;
    double mx = -INFINITY;
    for (int i = 0; i < V; i++)
        if (!(banned && banned[i]) && logits[i] > mx)
            mx = logits[i];
    double sum = 0;
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
        for (int i = 0; i < V; i++)
            out[i] = (float)(out[i] / sum);
        return V;
    }
    Cand *c = malloc((size_t)V * sizeof *c);
    if (!c)
        return 0;
    for (int i = 0; i < V; i++)
        c[i] = (Cand){(float)(out[i] / sum), i};
    qsort(c, (size_t)V, sizeof *c, by_prob);
    int keep = limit_k ? o->top_k : V;
    if (limit_p) { /* the smallest prefix whose mass reaches p */
        double acc = 0;
        int n = 0;
        while (n < keep && (n == 0 || acc < o->top_p)) {
            acc += c[n].p;
            n++;
        }
        keep = n;
    }
    double kept = 0;
    for (int i = 0; i < keep; i++)
        kept += c[i].p;
    memset(out, 0, (size_t)V * sizeof *out);
    for (int i = 0; i < keep; i++)
        out[c[i].id] = (float)(c[i].p / kept);
    free(c);
    return keep;
}

int sample_token(const float *logits, int V, const SampleOpts *o, const unsigned char *banned,
                 Rng *rng, float *scratch)
{
    if (sample_dist(logits, V, o, banned, scratch) == 0)
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
