/* bench_heads.c - the heads lab in `stepformer bench`:
 *
 *   heads_importance_en2zh_500   every one of the bundled en2zh model's 48
 *                                heads ablated over 500 held-out pairs, one
 *                                sentence at a time, teacher forced, on two
 *                                threads (`heads --importance --pairs 500`);
 *                                goal < 10 s on 2 cores
 *
 * Each run is seconds long: the median of three (one with --quick), after
 * no warm-up but the loading of the model and the pairs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cli.h"
#include "heads_pairs.h"
#include "importance.h"

#define HEADS_GOAL_MS 10000.0

void bench_heads(double secs, const char *only)
{
    const char *name = "heads_importance_en2zh_500";
    if (only && strncmp(name, only, strlen(only)) != 0)
        return;
    TfModel m;
    TfErr err;
    if (cli_load_model(&m, NULL, "bench"))
        return;
    HeadsPairs p;
    if (heads_pairs_load(&m, "en2zh", NULL, 500, &p, &err)) {
        cli_fail("bench", "%s: %s", name, err.msg);
        model_free(&m);
        return;
    }
    int n = (m.cfg.n_enc + 2 * m.cfg.n_dec) * m.cfg.n_heads, reps = secs < 1 ? 1 : 3;
    TfHeadImportance *h = malloc((size_t)n * sizeof *h);
    double ms[3];
    int done = 0;
    for (; h && done < reps; done++) {
        double t0 = tf_seconds();
        if (tf_importance(&m, p.pairs, p.n, 2, h, &err)) {
            cli_fail("bench", "%s: %s", name, err.msg);
            break;
        }
        ms[done] = (tf_seconds() - t0) * 1e3;
    }
    if (done == reps) {
        BenchStats s = bench_stats_of(ms, reps);
        BenchExtra x[] = {{"pairs", p.n}, {"heads", n}, {"goal_ms", HEADS_GOAL_MS},
                          {"fraction_of_goal", s.median_ms / HEADS_GOAL_MS}};
        bench_print_extras(name, &s, 0, 0, 0, x, (int)(sizeof x / sizeof x[0]));
    }
    free(h);
    heads_pairs_free(&p);
    model_free(&m);
}
