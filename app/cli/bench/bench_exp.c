/* bench_exp.c - experiments (interventions) in `stepformer bench`:
 *
 *   experiment_toggle_en2zh      from switching an intervention on or off
 *                                to the redrawn view, on the bundled model,
 *                                as the window does it (lazy: the frame
 *                                computes what it shows); goal <= 16 ms
 *   experiment_compare_base_s32  the experiment's traced pass plus the
 *                                normal pass for the base model at 32
 *                                tokens, as a ratio to one traced forward
 *                                pass measured in the same run; goal <= 2.2
 *
 * The toggle checks the Session's counter: the normal pass is computed
 * once for the input, never again when only the experiment changes
 * (tests/session/test_session_exp.c checks it too). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "bench.h"
#include "checkpoint.h"

static void toggle_body(void *p)
{
    BenchApp *t = p;
    App *a = t->a;
    TfExperiment e = a->ses.exp;
    e.no_scale = !e.no_scale;
    e.no_pe = 1; /* never none: the normal pass stays beside it */
    app_set_exp(a, &e);
    a->now += 1.0;
    a->ui.in.mx = 700 + (t->tick * 37) % 300;
    a->ui.in.my = 300 + (t->tick++ * 23) % 300;
    app_frame(a, t->r);
}

static void bench_toggle(double secs)
{
    static App a;
    Ren *r = bench_app(&a, 1280, 800, "enc.self.weights");
    if (!r)
        return;
    session_set_lazy(&a.ses, 1); /* as the window runs it */
    TfExperiment e = {0};
    e.no_pe = 1;
    app_set_exp(&a, &e);
    app_compute_all(&a);
    unsigned passes = a.ses.ext.base_passes;
    BenchApp t = {&a, r, 0};
    BenchStats s = bench_run(toggle_body, &t, 30, secs);
    app_compute_all(&a);
    if (a.ses.ext.base_passes != passes)
        fprintf(stderr, "bench: the normal pass was recomputed %u times by toggles\n", a.ses.ext.base_passes - passes);
    bench_print("experiment_toggle_en2zh", &s, 0, 0, 0, "goal_ms", 16);
    app_free(&a);
    ren_close(r);
}

/* ---- the base model at 32 tokens ---- */

#define CMP_S 32

typedef struct PassCtx {
    const TfModel *m;
    TfTrace *tr;
    TfBatch in;
    TfExperiment exp; /* of the second pass (none: one pass only) */
    int two;
} PassCtx;

static void pass_body(void *p)
{
    PassCtx *c = p;
    TfErr err;
    memset(&c->tr->exp, 0, sizeof c->tr->exp);
    if (tf_forward(c->m, c->tr, &c->in, 0, &err))
        fprintf(stderr, "bench: %s\n", err.msg);
    if (!c->two)
        return;
    c->tr->exp = c->exp; /* the same trace: the experiment's own pass */
    if (tf_forward(c->m, c->tr, &c->in, 0, &err))
        fprintf(stderr, "bench: %s\n", err.msg);
}

static void bench_compare(double secs)
{
    TfErr err;
    TfModel m;
    if (bench_base_model(&m, 1000, 64, 3, &err)) {
        fprintf(stderr, "bench: %s\n", err.msg);
        return;
    }
    int src[CMP_S], tgt[CMP_S + 1], sl = CMP_S, tl = CMP_S + 1;
    tgt[0] = TOK_BOS;
    for (int i = 0; i < CMP_S; i++) {
        src[i] = 10 + i;
        tgt[i + 1] = 50 + i;
    }
    TfTrace tr;
    if (trace_build(&tr, &m.cfg, 1, CMP_S + 1, TRACE_RECORD, &err)) {
        fprintf(stderr, "bench: %s\n", err.msg);
        model_free(&m);
        return;
    }
    PassCtx one = {&m, &tr, {1, CMP_S, CMP_S + 1, src, tgt, &sl, &tl}, {0}, 0};
    PassCtx two = one;
    two.two = 1;
    two.exp.no_scale = 1;
    two.exp.no_pe = 1;
    two.exp.n_ablate = 1;
    two.exp.ablate[0] = (TfHeadRef){TF_ATTN_ENC, 0, 1};
    BenchStats s1 = bench_run(pass_body, &one, 5, secs);
    BenchStats s2 = bench_run(pass_body, &two, 5, secs);
    bench_print("experiment_compare_base_s32", &s2, 0, 0, 0, "ratio", s2.median_ms / s1.median_ms);
    trace_free(&tr);
    model_free(&m);
}

void bench_exp(double secs, const char *only)
{
    if (!only || strncmp("experiment_toggle_en2zh", only, strlen(only)) == 0)
        bench_toggle(secs);
    if (!only || strncmp("experiment_compare_base_s32", only, strlen(only)) == 0)
        bench_compare(secs);
}
