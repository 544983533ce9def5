/* bench.h - timing helpers and the result line of `stepformer bench`.
 *
 * Each benchmark runs its body repeatedly (after warm-up) until it has both
 * a minimum number of repetitions and a minimum time, and reports the median:
 * the machine is shared and noisy, medians are what we quote. Ratios such as
 * peak_fraction are measured within the same run. */
#ifndef APP_BENCH_H
#define APP_BENCH_H

#include <stddef.h>
#include <stdint.h>

struct TfModel;
struct TfErr;

#include "clock.h" /* tf_seconds: the wall time every benchmark reads */

typedef void (*BenchFn)(void *ctx);

/* What a timed body of the window's benchmarks (bench_gui.c, bench_exp.c)
 * works on: the app, its renderer and a count of the calls so far. */
typedef struct BenchApp {
    struct App *a;
    struct Ren *r;
    int tick;
} BenchApp;

typedef struct BenchStats {
    double median_ms, p95_ms, min_ms;
    /* the calling thread's CPU time (bench_run only, else 0): steadier than
     * wall time on a loaded machine, but blind to helper threads */
    double cpu_median_ms, cpu_p95_ms;
    int reps;
} BenchStats;

/* A random model of preset base (the paper's sizes) with its embeddings
 * tied, vocabularies of vocab tokens and max_len (0 keeps the preset's):
 * what the benchmarks that stand for "the paper's model" run on. */
int bench_base_model(struct TfModel *m, int vocab, int max_len, uint64_t seed, struct TfErr *err);

BenchStats bench_run(BenchFn fn, void *ctx, int min_reps, double min_seconds);
/* Median, p95 and min of n times already measured (milliseconds). */
BenchStats bench_stats_of(double *ms, int n);

/* One JSON line: name, median_ms, p95_ms, gflops (if flops > 0),
 * peak_fraction (if peak_gflops > 0), tokens_per_s (if tokens > 0), an
 * optional extra "key": value pair (extra_key NULL for none), and
 * cpu_median_ms, cpu_p95_ms when measured. */
void bench_print(const char *name, const BenchStats *s, double flops,
                 double peak_gflops, double tokens, const char *extra_key,
                 double extra_val);
/* The same with n extra "key": value pairs. */
typedef struct BenchExtra {
    const char *key;
    double val;
} BenchExtra;
void bench_print_extras(const char *name, const BenchStats *s, double flops,
                        double peak_gflops, double tokens, const BenchExtra *extra, int n);

/* frame_<view> (and frame_train_over_matrix, their p95 ratio),
 * edit_redraw_base_s32, idle_focused_line (a focused field in an idle
 * window), edit_stall_base_s32[_translate|_deep][_loaded] (typing into a
 * base-size model in the window's loop, alone and against two busy
 * threads) and training in the window (bench_gui.c); train_ref_tok_s is
 * train_classroom_b32_s16's tokens/s when it was measured in this run
 * (else 0). */
void bench_gui(double secs, const char *only, double train_ref_tok_s);

/* The window on the bundled model with "i read books at home today" at
 * stage (NULL: the first), on a w x h headless renderer (NULL after a
 * message), for bench_gui.c and bench_exp.c. Declared with the App's tag:
 * bench.h includes nothing. */
struct App;
struct Ren *bench_app(struct App *a, int w, int h, const char *stage);

/* experiment_toggle_en2zh and experiment_compare_base_s32 (bench_exp.c,
 * run by cmd_bench.c after bench_gui) */
void bench_exp(double secs, const char *only);

/* decode_base_* (bench_decode.c): greedy over the key/value cache at 32 and
 * 128 tokens, greedy recomputing the prefix, beam 4; tokens_per_s and
 * bandwidth_fraction, and their ratios. */
void bench_decode(double secs, const char *only);

/* heads_importance_en2zh_500 (bench_heads.c): every head of the bundled
 * en2zh model ablated over 500 held-out pairs, against its 10 s goal. */
void bench_heads(double secs, const char *only);

/* Bytes per second both cores read from memory (bench_decode.c; 0 when it
 * cannot tell). */
double bench_read_bandwidth(double secs);

#endif
