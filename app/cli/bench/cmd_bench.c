/* cmd_bench.c - `stepformer bench`: performance figures as JSON lines.
 *
 * The sgemm peak is measured first, in the same run, with a large square
 * cblas_sgemm; every other entry reports its achieved GFLOP/s (matrix
 * products only, 2 FLOPs per multiply-add, as `stepformer info` counts them)
 * as a fraction of that peak. tokens_per_s counts sentences x sequence
 * length (source and target have the same length in these benchmarks).
 * The train_* entries time one optimizer step (forward with dropout, loss,
 * backward, gradient reduction, Adam) through the trainer of core/train.h;
 * train_in_app_classroom (bench_gui.c) trains the same on the window's
 * worker thread while the train view is drawn, and reports its ratio to
 * train_classroom_b32_s16, which is measured first for it.
 * forward_base_b1_s32 also says how close the pass is to what the machine
 * allows (weight_bytes over the read bandwidth, FLOPs over the peak:
 * roofline_fraction) and is run a second time with every product on
 * cblas_sgemm (forward_base_b1_s32_blas, small_gemm_speedup). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cli.h"
#include "commands.h"
#include "gemm_small.h"
#include "model.h"
#include "ops.h"
#include "parallel.h"
#include <cblas.h>
#include "train.h"

static const char *HELP =
    "usage: stepformer bench [--json] [--quick] [--only PREFIX]\n"
    "\n"
    "Measure the engine and print one JSON object per line: name, median_ms,\n"
    "p95_ms, gflops, peak_fraction (over the sgemm peak measured in the same\n"
    "run) and tokens_per_s where it applies. --quick runs fewer repetitions;\n"
    "--only runs the entries whose name starts with PREFIX.\n";

typedef struct GemmCtx {
    int n;
    float *a, *b, *c;
} GemmCtx;

static void gemm_body(void *p)
{
    GemmCtx *g = p;
    op_gemm(0, 0, g->n, g->n, g->n, 1.0f, g->a, g->n, g->b, g->n, 0.0f, g->c, g->n);
}

static void gemm_openblas(void *p)
{
    GemmCtx *g = p;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, g->n, g->n, g->n, 1.0f, g->a, g->n,
                g->b, g->n, 0.0f, g->c, g->n);
}

/* The peak's operands: three 1536 x 1536 matrices, a and b filled; 0, or
 * -1 (nothing to free) when memory is short. */
static int gemm_ctx_init(GemmCtx *g)
{
    *g = (GemmCtx){1536, NULL, NULL, NULL};
    size_t nn = (size_t)g->n * g->n;
    g->a = malloc(nn * sizeof(float));
    g->b = malloc(nn * sizeof(float));
    g->c = malloc(nn * sizeof(float));
    if (!g->a || !g->b || !g->c) {
        free(g->a); free(g->b); free(g->c);
        return -1;
    }
    for (size_t i = 0; i < nn; i++) {
        g->a[i] = (float)(i % 7) * 0.01f;
        g->b[i] = (float)(i % 5) * 0.01f;
    }
    return 0;
}

static void gemm_ctx_free(GemmCtx *g)
{
    free(g->a); free(g->b); free(g->c);
}

static double sgemm_peak(double secs)
{
    GemmCtx g;
    if (gemm_ctx_init(&g))
        return 0;
    /* two ways to use both cores: Stepformer's own split (op_gemm, OpenBLAS
     * single-threaded) and OpenBLAS's own two threads on one call; the
     * faster is the peak every ratio is measured against */
    BenchStats s = bench_run(gemm_body, &g, 10, secs);
    par_init();
    openblas_set_num_threads(2);
    BenchStats o = bench_run(gemm_openblas, &g, 10, secs);
    openblas_set_num_threads(1);
    double flops = 2.0 * g.n * g.n * g.n;
    printf("{\"name\": \"blas_kernels\", \"openblas_core\": \"%s\"}\n", par_blas_kernels());
    BenchStats *best = o.median_ms < s.median_ms ? &o : &s;
    bench_print("sgemm_peak", best, flops, 0, 0, "openblas_threads", best == &o ? 2 : 1);
    bench_print("sgemm_peak_split", &s, flops, 0, 0, NULL, 0);
    bench_print("sgemm_peak_openblas_2t", &o, flops, 0, 0, NULL, 0);
    gemm_ctx_free(&g);
    return flops / (best->median_ms * 1e-3) * 1e-9;
}

/* The peak's product once with both ways of using two cores, the faster
 * (as sgemm_peak takes it), in GFLOP/s; the thread count is set outside
 * the timed calls. */
static double gemm_once_gflops(GemmCtx *g)
{
    double t0 = tf_seconds();
    gemm_body(g);
    double t1 = tf_seconds();
    openblas_set_num_threads(2);
    double t2 = tf_seconds();
    gemm_openblas(g);
    double t3 = tf_seconds();
    openblas_set_num_threads(1);
    double best = t1 - t0 < t3 - t2 ? t1 - t0 : t3 - t2;
    return best > 0 ? 2.0 * g->n * g->n * g->n / best * 1e-9 : 0;
}

typedef struct FwdCtx {
    TfModel m;
    TfTrace tr;
    TfBatch b;
    int *src, *tgt, *sl, *tl;
} FwdCtx;

static void fwd_body(void *p)
{
    FwdCtx *f = p;
    TfErr err;
    tf_forward(&f->m, &f->tr, &f->b, 0, &err);
}

/* OPUS-MT's shape and conventions on a base config (opus-mt-en-zh: 65,001
 * tokens, SiLU, positions in halves up to 512, </s> 0, <unk> 1, the
 * decoder starting with <pad> = V - 1). */
static void marian_shape(TfConfig *c)
{
    c->kind = TF_KIND_MARIAN;
    c->act = TF_ACT_SILU;
    c->pe_layout = TF_PE_HALVES;
    c->max_len = 512;
    c->ids = (TfSpecials){1, c->tgt_vocab - 1, 0, 1, c->tgt_vocab - 1};
}

static int fwd_setup(FwdCtx *f, const char *preset, int vocab, int B, int L,
                     int flags)
{
    TfConfig cfg;
    TfErr err;
    memset(f, 0, sizeof *f);
    if (cfg_preset(&cfg, strcmp(preset, "marian") ? preset : "base", &err))
        return -1;
    cfg.src_vocab = cfg.tgt_vocab = vocab;
    cfg.tie = TF_TIE_ALL;
    if (!strcmp(preset, "marian"))
        marian_shape(&cfg);
    if (model_init_random(&f->m, &cfg, 1, &err) ||
        trace_build(&f->tr, &cfg, B, L, flags, &err)) {
        fprintf(stderr, "bench: %s\n", err.msg);
        return -1;
    }
    f->src = malloc((size_t)B * L * sizeof(int));
    f->tgt = malloc((size_t)B * L * sizeof(int));
    f->sl = malloc((size_t)B * sizeof(int));
    f->tl = malloc((size_t)B * sizeof(int));
    if (!f->src || !f->tgt || !f->sl || !f->tl)
        return -1;
    Rng r;
    rng_seed(&r, 7);
    for (int i = 0; i < B * L; i++) {
        f->src[i] = TOK_NSPECIAL + (int)rng_below(&r, (uint32_t)(vocab - TOK_NSPECIAL - 1));
        f->tgt[i] = i % L == 0 ? cfg_start_id(&cfg) : TOK_NSPECIAL + (int)rng_below(&r, (uint32_t)(vocab - TOK_NSPECIAL - 1));
    }
    for (int b = 0; b < B; b++)
        f->sl[b] = f->tl[b] = L;
    f->b = (TfBatch){B, L, L, f->src, f->tgt, f->sl, f->tl};
    return 0;
}

static void fwd_free(FwdCtx *f)
{
    model_free(&f->m);
    trace_free(&f->tr);
    free(f->src);
    free(f->tgt);
    free(f->sl);
    free(f->tl);
}

/* Forward pass with the full trace; when with_plain, also without recording
 * and report the recording overhead as a ratio. */
static double bench_forward(const char *name, const char *preset, int vocab,
                            int B, int L, double peak, double secs, int with_plain)
{
    FwdCtx f;
    if (fwd_setup(&f, preset, vocab, B, L, TRACE_RECORD)) {
        fwd_free(&f);
        return 0;
    }
    TfFlops fl = cfg_flops(&f.m.cfg, L, L);
    BenchStats s = bench_run(fwd_body, &f, 5, secs);
    fwd_free(&f);
    if (!with_plain) {
        bench_print(name, &s, fl.total * B, peak, (double)B * L, NULL, 0);
        return s.median_ms;
    }
    FwdCtx g;
    if (fwd_setup(&g, preset, vocab, B, L, 0)) {
        fwd_free(&g);
        return s.median_ms;
    }
    BenchStats s2 = bench_run(fwd_body, &g, 5, secs);
    fwd_free(&g);
    bench_print(name, &s, fl.total * B, peak, (double)B * L, "trace_overhead",
                s.median_ms / s2.median_ms - 1.0);
    char plain[128];
    snprintf(plain, sizeof plain, "%s_notrace", name);
    bench_print(plain, &s2, fl.total * B, peak, (double)B * L, NULL, 0);
    return s.median_ms;
}

/* The machine is shared, and the sgemm peak measured once at the start of
 * a run moves with the neighbours' load (204-295 GFLOP/s on one day): the
 * peak fraction of a pass measured seconds later is then partly the
 * neighbours'. Here the two alternate, rounds times: in each round the
 * peak's product (median of 3, each the faster of op_gemm and OpenBLAS's
 * two threads) and then the pass (one untimed, then the median of 5);
 * each round gives a ratio and the median ratio is peak_fraction_paired. */
static double paired_peak_fraction(void (*body)(void *), void *ctx, double flops, int rounds,
                                   double *peak_median)
{
    GemmCtx g;
    double ratio[16], peaks[16];
    int n = 0;
    if (!gemm_ctx_init(&g)) {
        for (int r = 0; r < rounds && r < 16; r++) {
            double pk[3], ms[5];
            for (int i = 0; i < 3; i++)
                pk[i] = gemm_once_gflops(&g);
            body(ctx); /* untimed: OpenBLAS's threads may still spin after the peak's calls */
            for (int i = 0; i < 5; i++) {
                double t0 = tf_seconds();
                body(ctx);
                ms[i] = (tf_seconds() - t0) * 1e3;
            }
            double peak = bench_stats_of(pk, 3).median_ms, t = bench_stats_of(ms, 5).median_ms;
            if (peak > 0 && t > 0) {
                peaks[n] = peak;
                ratio[n++] = flops / (t * 1e-3) * 1e-9 / peak;
            }
        }
        gemm_ctx_free(&g);
    }
    *peak_median = n ? bench_stats_of(peaks, n).median_ms : 0;
    return n ? bench_stats_of(ratio, n).median_ms : 0;
}

/* forward_base_b1_s32 against what the machine allows: at one sentence the
 * pass reads every weight once (weight_bytes, the parameter block, the tied
 * embedding counted once as the output projection reads it all) and makes
 * cfg_flops' products. memory_floor_ms = weight_bytes / the read bandwidth
 * measured here, compute_floor_ms = FLOPs / the sgemm peak; roofline_fraction
 * = the larger floor / the measured time (1 would be the machine's limit).
 * forward_base_b1_s32_blas runs the same pass with every product on
 * cblas_sgemm (gemm_small off), side by side, for small_gemm_speedup. Then
 * the _notrace entry as bench_forward prints it. peak_fraction_paired
 * (and the median peak of its rounds, paired_peak_gflops) measures the
 * pass against the peak in alternation (paired_peak_fraction). */
static double bench_forward_b1(double peak, double secs)
{
    FwdCtx f;
    if (fwd_setup(&f, "base", 37000, 1, 32, TRACE_RECORD)) {
        fwd_free(&f);
        return 0;
    }
    double bw = bench_read_bandwidth(secs < 1 ? secs : 1);
    TfFlops fl = cfg_flops(&f.m.cfg, 32, 32);
    double bytes = (double)f.m.n_params * sizeof(float);
    BenchStats s = bench_run(fwd_body, &f, 5, secs);
    double paired_peak = 0;
    double paired = paired_peak_fraction(fwd_body, &f, fl.total, secs < 1 ? 3 : 9, &paired_peak);
    int was = gemm_small_set(GEMM_SMALL_OFF);
    BenchStats sb = bench_run(fwd_body, &f, 5, secs);
    gemm_small_set(was);
    fwd_free(&f);
    double mem_ms = bw > 0 ? bytes / bw * 1e3 : 0, flop_ms = peak > 0 ? fl.total / (peak * 1e9) * 1e3 : 0;
    double floor_ms = mem_ms > flop_ms ? mem_ms : flop_ms;
    FwdCtx g;
    double plain_ms = 0;
    BenchStats s2 = {0};
    if (!fwd_setup(&g, "base", 37000, 1, 32, 0)) {
        s2 = bench_run(fwd_body, &g, 5, secs);
        plain_ms = s2.median_ms;
    }
    fwd_free(&g);
    BenchExtra x[] = {{"trace_overhead", plain_ms > 0 ? s.median_ms / plain_ms - 1.0 : 0},
                      {"weight_bytes", bytes},
                      {"read_gb_per_s", bw * 1e-9},
                      {"memory_floor_ms", mem_ms},
                      {"compute_floor_ms", flop_ms},
                      {"ms_at_0.65_peak", flop_ms / 0.65},
                      {"roofline_fraction", s.median_ms > 0 ? floor_ms / s.median_ms : 0},
                      {"peak_fraction_paired", paired},
                      {"paired_peak_gflops", paired_peak}};
    bench_print_extras("forward_base_b1_s32", &s, fl.total, peak, 32, x, (int)(sizeof x / sizeof x[0]));
    bench_print("forward_base_b1_s32_blas", &sb, fl.total, peak, 32, "small_gemm_speedup",
                s.median_ms > 0 ? sb.median_ms / s.median_ms : 0);
    if (plain_ms > 0)
        bench_print("forward_base_b1_s32_notrace", &s2, fl.total, peak, 32, NULL, 0);
    return s.median_ms;
}

/* A random model of opus-mt-en-zh's shape (marian_shape), one sentence of
 * 32 tokens with the full trace, as a ratio to the base preset's forward
 * (37,000 tokens) measured in the same run: the window's cost of a real
 * model beside the one it is tuned for. */
static void bench_forward_marian(double base_ms, double peak, double secs)
{
    FwdCtx f;
    if (fwd_setup(&f, "marian", 65001, 1, 32, TRACE_RECORD)) {
        fwd_free(&f);
        return;
    }
    TfFlops fl = cfg_flops(&f.m.cfg, 32, 32);
    BenchStats s = bench_run(fwd_body, &f, 5, secs);
    fwd_free(&f);
    bench_print("forward_marian_base_s32", &s, fl.total, peak, 32, "ratio_to_base",
                base_ms > 0 ? s.median_ms / base_ms : 0);
}

/* ---- training: forward + backward + Adam step ---- */

typedef struct TrainCtx {
    Dataset d;
    TfModel m;
    Trainer t;
    int failed;
} TrainCtx;

static void train_body(void *p)
{
    TrainCtx *x = p;
    TfErr err;
    if (!x->failed && trainer_step(&x->t, NULL, &err)) {
        fprintf(stderr, "bench: %s\n", err.msg);
        x->failed = 1;
    }
}

/* One optimizer step on B sentences of L source tokens and L target
 * positions (<bos> + L-1 tokens in, L-1 tokens + <eos> out), random tokens
 * from a vocabulary shared by both sides and tied as in the paper. FLOPs
 * are counted as three forward passes (the backward pass computes two
 * products for each one of the forward pass). */
static double bench_train(const char *name, const char *preset, int vocab, int B,
                          int L, double peak, double secs)
{
    double tok_s = 0;
    TrainCtx x;
    TfConfig cfg;
    TfErr err;
    memset(&x, 0, sizeof x);
    TrainOpts o;
    train_opts_default(&o);
    o.batch = B;
    if (cfg_preset(&cfg, preset, &err) ||
        dataset_random(&x.d, B * 10, vocab, L, L - 1, 7, &err)) {
        fprintf(stderr, "bench: %s\n", err.msg);
        return 0;
    }
    cfg.tie = TF_TIE_ALL;
    if (trainer_model_new(&x.m, &cfg, &x.d, 1, &err) ||
        trainer_init(&x.t, &x.m, &x.d, &o, &err)) {
        fprintf(stderr, "bench: %s\n", err.msg);
        model_free(&x.m);
        dataset_free(&x.d);
        return 0;
    }
    TfFlops fl = cfg_flops(&x.m.cfg, L, L);
    BenchStats s = bench_run(train_body, &x, 5, secs);
    if (!x.failed) {
        /* tokens_per_s counts sentences x length (one side); the second
         * figure counts source and target tokens, as batch sizes are
         * counted in the paper and as PyTorch's ~29,000 for this model must
         * have been (tools/torch_train_bench.py measures both) */
        bench_print(name, &s, 3 * fl.total * B, peak, (double)B * L, "tokens_per_s_src_tgt",
                    2.0 * B * L / (s.median_ms * 1e-3));
        tok_s = (double)B * L / (s.median_ms * 1e-3);
    }
    trainer_free(&x.t);
    model_free(&x.m);
    dataset_free(&x.d);
    return tok_s;
}

static int want(const char *only, const char *name)
{
    return !only || strncmp(name, only, strlen(only)) == 0;
}

int cmd_bench(int argc, char **argv)
{
    const char *only = NULL;
    int quick = 0, json = 0; /* JSON lines are the only output format */
    const CliOpt opts[] = {CLI_FLAG_OPT("json", &json), CLI_FLAG_OPT("quick", &quick), CLI_STR_OPT("only", &only)};
    int rc = cli_parse(argc, argv, opts, CLI_N(opts), NULL, NULL, "bench", HELP);
    if (rc)
        return rc < 0 ? 0 : 1;
    double secs = quick ? 0.3 : 2.0;
    double peak = sgemm_peak(secs);
    double base_ms = 0;
    if (want(only, "forward_base_b1_s32") || want(only, "forward_marian_base_s32"))
        base_ms = bench_forward_b1(peak, secs);
    if (want(only, "forward_marian_base_s32"))
        bench_forward_marian(base_ms, peak, secs);
    if (want(only, "forward_base_b8_s64"))
        bench_forward("forward_base_b8_s64", "base", 37000, 8, 64, peak, secs, 0);
    if (want(only, "forward_classroom_b32_s16"))
        bench_forward("forward_classroom_b32_s16", "classroom", 32, 32, 16, peak, secs, 1);
    double train_ref = 0;
    if (want(only, "train_classroom_b32_s16") || want(only, "train_in_app_classroom"))
        train_ref = bench_train("train_classroom_b32_s16", "classroom", 32, 32, 16, peak, secs);
    if (want(only, "train_base_b8_s64"))
        bench_train("train_base_b8_s64", "base", 37000, 8, 64, peak, secs);
    bench_decode(secs, only);
    bench_gui(secs, only, train_ref);
    bench_exp(secs, only);
    bench_heads(secs, only);
    return 0;
}
