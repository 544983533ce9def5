/* bench_decode.c - autoregressive decoding in `stepformer bench`.
 *
 * A random model of preset base (512/8/2048/6+6) with one shared, tied
 * vocabulary of 37000 tokens decodes one source sentence of 32 tokens into
 * exactly 32 or 128 tokens (<eos> ignored: DecodeOpts.ignore_eos), greedy
 * over the key/value cache, greedy recomputing the prefix at every step (the
 * old method, for the ratio), and beam 4 over the cache.
 *
 * bandwidth_fraction: at one sentence a step is bound by reading the
 * weights, not by the sgemm peak. The bytes one step must read (every
 * decoder layer's self-attention, cross-attention query and output, feed-
 * forward and LayerNorm parameters, and the output projection) over a read
 * bandwidth measured in the same run (both cores reading a 256 MiB buffer)
 * give the shortest possible step; its ratio to the measured step time is
 * the fraction (the step time here includes the encoder; the final full pass
 * over the output that fills the trace for display is left out,
 * DecodeOpts.no_trace, and timed alone: decode_base_final_pass_s32). The ratios
 * decode_ratios prints are taken in this run; beam4_over_greedy_paired
 * alternates the two decodings five rounds on one model and takes the
 * median round's ratio. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "decode.h"
#include "parallel.h"
#include "rows.h"

typedef struct DecCtx {
    TfModel m;
    TfTrace tr;
    DecodeOpts o;
    int src[32], S, failed, made;
} DecCtx;

static void dec_body(void *p)
{
    DecCtx *x = p;
    TfErr err;
    DecodeResult r;
    TfDecoder d;
    if (x->failed)
        return;
    /* tf_dec_start, not tf_translate: 128 tokens exceed S + 50 */
    if (tf_dec_start(&d, &x->m, &x->tr, x->src, x->S, &x->o, 0, &err) ||
        tf_dec_finish(&d, &r, NULL, &err)) {
        fprintf(stderr, "bench: %s\n", err.msg);
        x->failed = 1;
        return;
    }
    x->made = r.n;
    decode_result_free(&r);
}

typedef struct ReadCtx {
    const uint64_t *a;
    size_t n;
    volatile uint64_t sink[2];
} ReadCtx;

/* Half the buffer each: XORs (one cycle, eight chains) keep the loop bound
 * by memory, not by the latency of floating-point adds. */
static void read_part(void *p, int part)
{
    ReadCtx *r = p;
    size_t half = r->n / 2, lo = part ? half : 0, hi = part ? r->n : half;
    uint64_t s[8] = {0};
    for (size_t i = lo; i + 8 <= hi; i += 8)
        for (int k = 0; k < 8; k++)
            s[k] ^= r->a[i + k];
    r->sink[part] = s[0] ^ s[1] ^ s[2] ^ s[3] ^ s[4] ^ s[5] ^ s[6] ^ s[7];
}

static void read_body(void *p)
{
    par_two(read_part, p); /* both cores, as the decoding step uses them */
}

double bench_read_bandwidth(double secs)
{
    ReadCtx r = {NULL, (size_t)32 << 20, {0, 0}}; /* 256 MiB */
    uint64_t *a = malloc(r.n * sizeof *a);
    if (!a)
        return 0;
    for (size_t i = 0; i < r.n; i++)
        a[i] = i * 0x9E3779B97F4A7C15ull;
    r.a = a;
    BenchStats s = bench_run(read_body, &r, 5, secs);
    free(a);
    return s.median_ms > 0 ? (double)r.n * sizeof(uint64_t) / (s.median_ms * 1e-3) : 0;
}

static int dec_setup(DecCtx *x, int beam, int n_out, int recompute)
{
    TfErr err;
    memset(x, 0, sizeof *x);
    if (bench_base_model(&x->m, 37000, 0, 13, &err) || trace_build(&x->tr, &x->m.cfg, 1, 64, 0, &err)) {
        fprintf(stderr, "bench: %s\n", err.msg);
        return -1;
    }
    x->S = 32;
    for (int i = 0; i < x->S; i++)
        x->src[i] = 4 + (i * 7919) % (x->m.cfg.src_vocab - 4);
    decode_opts_default(&x->o);
    x->o.beam = beam;
    x->o.max_out = n_out;
    x->o.recompute = recompute;
    x->o.ignore_eos = 1;
    x->o.no_trace = 1; /* the pass that fills the trace: its own entry */
    return 0;
}

static void dec_free(DecCtx *x)
{
    trace_free(&x->tr);
    model_free(&x->m);
}

/* One entry; returns its median milliseconds (0 when it failed). */
static double bench_one(const char *name, int beam, int n_out, int recompute, double bw, double secs)
{
    DecCtx x;
    if (dec_setup(&x, beam, n_out, recompute)) {
        dec_free(&x);
        return 0;
    }
    BenchStats s = bench_run(dec_body, &x, recompute ? 2 : 3, secs);
    double ideal_ms = bw > 0 ? kv_step_bytes(&x.m.cfg) / bw * 1e3 : 0;
    double step_ms = s.median_ms / n_out;
    if (!x.failed && x.made != n_out)
        fprintf(stderr, "bench: %s made %d tokens, not %d\n", name, x.made, n_out);
    bench_print(name, &s, 0, 0, n_out, "bandwidth_fraction", step_ms > 0 ? ideal_ms / step_ms : 0);
    int failed = x.failed;
    dec_free(&x);
    return failed ? 0 : s.median_ms;
}

/* The pass that leaves the trace as `dump` shows it after a decoding. */
static void final_body(void *p)
{
    DecCtx *x = p;
    TfErr err;
    int in[33], T = 33;
    for (int i = 0; i < T; i++)
        in[i] = i ? x->src[i - 1] : TOK_BOS;
    if (!x->failed && tf_decode(&x->m, &x->tr, T, in, &T, 0, 0, &err))
        x->failed = 1;
}

static void bench_final_pass(double secs)
{
    DecCtx x;
    TfErr err;
    if (dec_setup(&x, 1, 32, 0) || tf_encode(&x.m, &x.tr, 1, x.S, x.src, &x.S, 0, &err)) {
        dec_free(&x);
        return;
    }
    BenchStats s = bench_run(final_body, &x, 3, secs);
    bench_print("decode_base_final_pass_s32", &s, 0, 0, 0, NULL, 0);
    dec_free(&x);
}

static int wanted(const char *only, const char *name)
{
    return !only || strncmp(name, only, strlen(only)) == 0;
}

/* Beam 4 over greedy with the two alternating on one model, round by round
 * (the median of the per-round ratios): on a shared machine the load moves
 * between two entries measured a minute apart. */
static double paired_beam_ratio(int rounds)
{
    DecCtx x;
    if (dec_setup(&x, 1, 32, 0)) {
        dec_free(&x);
        return 0;
    }
    double ratio[16];
    int n = 0;
    dec_body(&x); /* warm: first touch of the weights */
    for (int i = 0; i < rounds && i < 16 && !x.failed; i++) {
        double t0 = tf_seconds();
        x.o.beam = 1;
        dec_body(&x);
        double t1 = tf_seconds();
        x.o.beam = 4;
        dec_body(&x);
        double t2 = tf_seconds();
        ratio[n++] = (t2 - t1) / (t1 - t0);
    }
    dec_free(&x);
    if (n == 0)
        return 0;
    BenchStats s = bench_stats_of(ratio, n);
    return s.median_ms;
}

void bench_decode(double secs, const char *only)
{
    static const char *const NAMES[] = {"decode_base_greedy_s32", "decode_base_greedy_s128",
                                        "decode_base_greedy_s32_recompute", "decode_base_beam4_s32",
                                        "decode_base_final_pass_s32"};
    int on[5], any = 0;
    for (int i = 0; i < 5; i++)
        any |= on[i] = wanted(only, NAMES[i]);
    if (!any)
        return;
    double bw = bench_read_bandwidth(secs < 1 ? secs : 1);
    printf("{\"name\": \"read_bandwidth\", \"gb_per_s\": %.2f, \"beam_rows_kernel\": \"%s\"}\n",
           bw * 1e-9, rows_kernel_name(rows_best_kernel()));
    double g32 = 0, g128 = 0, rec = 0, b4 = 0;
    if (on[0])
        g32 = bench_one(NAMES[0], 1, 32, 0, bw, secs);
    if (on[1])
        g128 = bench_one(NAMES[1], 1, 128, 0, bw, secs);
    if (on[2])
        rec = bench_one(NAMES[2], 1, 32, 1, bw, secs);
    if (on[3])
        b4 = bench_one(NAMES[3], 4, 32, 0, bw, secs);
    if (on[4])
        bench_final_pass(secs);
    double paired = on[0] && on[3] ? paired_beam_ratio(5) : 0;
    if (g32 > 0)
        printf("{\"name\": \"decode_ratios\", \"s128_over_s32\": %.3f, \"recompute_over_cached\": %.3f, "
               "\"beam4_over_greedy\": %.3f, \"beam4_over_greedy_paired\": %.3f}\n",
               g128 / g32, rec / g32, b4 / g32, paired);
    fflush(stdout);
}
