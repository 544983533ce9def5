/* bench.c - repeat, time, take the median (see bench.h). */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>

#include "config.h"
#include "model.h"

int bench_base_model(TfModel *m, int vocab, int max_len, uint64_t seed, TfErr *err)
{
    TfConfig c;
    if (cfg_preset(&c, "base", err))
        return -1;
    c.src_vocab = c.tgt_vocab = vocab;
    c.tie = TF_TIE_ALL;
    if (max_len > 0)
        c.max_len = max_len;
    return model_init_random(m, &c, seed, err);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

BenchStats bench_run(BenchFn fn, void *ctx, int min_reps, double min_seconds)
{
    BenchStats s = {0};
    fn(ctx); /* warm-up: caches, thread pools, lazy page faults */
    fn(ctx);
    int cap = 64, n = 0;
    double *t = malloc((size_t)cap * sizeof *t), *c = malloc((size_t)cap * sizeof *c);
    if (!t || !c) {
        free(t);
        free(c);
        return s;
    }
    double start = tf_seconds();
    while (n < min_reps || tf_seconds() - start < min_seconds) {
        double t0 = tf_seconds(), c0 = tf_thread_seconds();
        fn(ctx);
        double dt = tf_seconds() - t0, dc = tf_thread_seconds() - c0;
        if (n == cap) {
            double *p = realloc(t, (size_t)cap * 2 * sizeof *t);
            if (p)
                t = p;
            double *q = p ? realloc(c, (size_t)cap * 2 * sizeof *c) : NULL;
            if (!q)
                break;
            c = q;
            cap *= 2;
        }
        c[n] = dc * 1e3;
        t[n++] = dt * 1e3;
        if (n >= 100000)
            break;
    }
    s = bench_stats_of(t, n);
    BenchStats cs = bench_stats_of(c, n);
    s.cpu_median_ms = cs.median_ms;
    s.cpu_p95_ms = cs.p95_ms;
    free(t);
    free(c);
    return s;
}

BenchStats bench_stats_of(double *t, int n)
{
    BenchStats s = {0};
    if (n < 1)
        return s;
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    s.reps = n;
    s.median_ms = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
    s.p95_ms = t[(int)(0.95 * (n - 1) + 0.5)];
    s.min_ms = t[0];
    return s;
}

void bench_print(const char *name, const BenchStats *s, double flops,
                 double peak_gflops, double tokens, const char *extra_key,
                 double extra_val)
{
    BenchExtra x = {extra_key, extra_val};
    bench_print_extras(name, s, flops, peak_gflops, tokens, &x, extra_key ? 1 : 0);
}

void bench_print_extras(const char *name, const BenchStats *s, double flops,
                        double peak_gflops, double tokens, const BenchExtra *extra, int n)
{
    printf("{\"name\": \"%s\", \"median_ms\": %.4f, \"p95_ms\": %.4f, \"reps\": %d",
           name, s->median_ms, s->p95_ms, s->reps);
    if (flops > 0) {
        double gf = flops / (s->median_ms * 1e-3) * 1e-9;
        printf(", \"gflops\": %.2f", gf);
        if (peak_gflops > 0)
            printf(", \"peak_fraction\": %.3f", gf / peak_gflops);
    }
    if (tokens > 0)
        printf(", \"tokens_per_s\": %.0f", tokens / (s->median_ms * 1e-3));
    for (int i = 0; i < n; i++)
        printf(", \"%s\": %.4f", extra[i].key, extra[i].val);
    if (s->cpu_median_ms > 0)
        printf(", \"cpu_median_ms\": %.4f, \"cpu_p95_ms\": %.4f", s->cpu_median_ms, s->cpu_p95_ms);
    printf("}\n");
    fflush(stdout);
}
