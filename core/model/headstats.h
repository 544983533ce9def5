/* headstats.h - what a head does, in numbers: how spread out its weights
 * are (entropy), how sure it is (mean largest weight), where it looks
 * relative to the query (the most common offset of its argmax), how much
 * weight lands on the first key ("sink" heads), and for cross-attention
 * whether its argmax moves forward through the source as the target does
 * (an alignment). `stepformer heads` prints these; the all-heads grid
 * shows them and labels a head where one number is clear. */
#ifndef TF_HEADSTATS_H
#define TF_HEADSTATS_H

#include "err.h"
#include "experiment.h"
#include "trace.h"

typedef struct TfHeadMetrics {
    int rows;            /* real query rows measured */
    int keys;            /* real keys of the sentence */
    double entropy;      /* mean over rows of -sum_j w ln w, nats (0 ln 0 = 0) */
    double max_weight;   /* mean over rows of max_j w */
    int offset;          /* most common argmax_j - i (ties: the smaller |offset|) */
    double offset_share; /* share of rows whose argmax is at that offset */
    double first_share;  /* mean weight on key 0 */
    double monotonic;    /* share of rows whose argmax >= the previous row's */
} TfHeadMetrics;

/* Metrics of a rows x cols weight matrix (row stride stride): rows whose
 * weights are all 0 (every key hidden) are left out. */
void tf_metrics_of(const float *w, int rows, int cols, int stride, TfHeadMetrics *out);

/* Metrics of one head of the trace's current pass, for sentence b: real
 * query rows and real keys only (padding left out). */
int tf_head_metrics(const TfTrace *tr, TfAttnKind kind, int layer, int head, int b,
                    TfHeadMetrics *out, TfErr *err);

/* A plain-language label where a metric is clear, else "" (English; the
 * window translates it): "sink", "previous token", "diagonal",
 * "next token", "aligns with the source", "broad". */
const char *tf_head_label(const TfHeadMetrics *m, TfAttnKind kind);

/* "enc", "dec", "cross" */
const char *tf_attn_kind_name(TfAttnKind kind);

#endif
