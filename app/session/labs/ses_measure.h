/* ses_measure.h - what views show beyond the trace itself, measured here
 * so that the views only draw it: what every head of a pass does (the
 * all-heads grid's metrics, once per pass), what one layer of the model's
 * size costs on this machine against the sequence length (the cost view),
 * and q·k of random vectors (the scale view's histograms). No SDL. */
#ifndef APP_SES_MEASURE_H
#define APP_SES_MEASURE_H

#include <stdint.h>

#include "config.h"
#include "headstats.h"

#define SES_COST_N 6        /* lengths measured: n = 8 << k */
#define SES_DOTS_N 4000     /* random pairs per d_k */
#define SES_DOTS_DK 2       /* the d_k they are drawn for (ses_dots_dk) */

/* One layer's self-attention and FFN timed at each n, and the bytes the
 * trace records for them, for the shape (C, NH, F) of the last model. */
typedef struct SesCost {
    int C, NH, F;            /* the shape measured for */
    int done;                /* values of n measured */
    double attn_s[SES_COST_N], ffn_s[SES_COST_N]; /* seconds per layer, fastest of 5 */
    double attn_b[SES_COST_N], ffn_b[SES_COST_N]; /* bytes the trace records */
    float *mem;              /* weights and activations for the largest n */
    int failed;              /* no memory for the buffers */
} SesCost;

/* The lengths measured (8, 16, ..., 256). */
extern const int SES_COST_NS[SES_COST_N];

/* Measure the next values of n for the model's shape cfg within a frame's
 * time budget (at least one; on opening, the lengths a small model runs in
 * a few milliseconds all at once); a new shape starts again. */
void ses_cost_measure(SesCost *u, const TfConfig *cfg);
void ses_cost_free(SesCost *u);
/* Bytes the trace records for one layer's self-attention and FFN at n
 * tokens, batch 1 (trace.h: AttnAct, EncLayerAct). */
void ses_cost_bytes(int n, int C, int NH, int F, double *attn, double *ffn);

/* q·k of n pairs of random vectors of dk components, each drawn from the
 * standard normal distribution with the given seed (the same numbers for
 * the same seed). ses_dots_dk: the d_k of the scale view's rows. */
void ses_random_dots(int dk, int n, uint64_t seed, float *out);
int ses_dots_dk(int i);

/* A Session's measurements (Session.measure), made on first use and kept
 * for the Session's life: the functions below take the pointer to it (NULL
 * at first) and make it. */
typedef struct SesMeasure {
    TfHeadMetrics *heads;         /* the last table of every head of one attention */
    int heads_cap;                /* ... room for so many */
    uint64_t heads_of[4];         /* ... of what (ses_head_metrics) */
    SesCost cost;
    int have_dots;
    float dots[SES_DOTS_DK][SES_DOTS_N]; /* ses_random_dots at ses_dots_dk(i), seed 17 + i */
} SesMeasure;
/* The cost of a layer of shape cfg, with the next lengths measured
 * (ses_cost_measure); NULL when out of memory. */
const SesCost *ses_measure_cost(SesMeasure **m, const TfConfig *cfg);
/* The random q·k at ses_dots_dk(i), SES_DOTS_N of them; NULL when out of memory. */
const float *ses_measure_dots(SesMeasure **m, int i);
/* The metrics of every head of attention k in trace tr, sentence b:
 * [layer * n_heads + head], kept while the pass stays the same (stamp
 * changes with it: a frame of the same picture computes nothing); NULL
 * when out of memory. */
const TfHeadMetrics *ses_measure_heads(SesMeasure **m, const TfTrace *tr, uint64_t stamp, TfAttnKind k, int b);
void ses_measure_free(SesMeasure *m);

#endif
