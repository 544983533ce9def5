/* headstats.c - per-head metrics of attention weights (see headstats.h). */
#include "headstats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stage.h"

const char *tf_attn_kind_name(TfAttnKind kind)
{
    static const char *const names[3] = {"enc", "dec", "cross"};
    return (int)kind >= 0 && kind <= TF_ATTN_CROSS ? names[kind] : "?";
}

void tf_metrics_of(const float *w, int rows, int cols, int stride, TfHeadMetrics *out)
{
    memset(out, 0, sizeof *out);
    out->keys = cols;
    if (rows <= 0 || cols <= 0)
        return;
    /* offsets range over -(rows-1) .. cols-1 */
    int span = rows + cols;
    int *count = calloc((size_t)span, sizeof *count);
    int prev = -1, n_mono = 0, n_pairs = 0;
    for (int i = 0; i < rows; i++) {
        const float *r = w + (size_t)i * stride;
        int arg = 0;
        double h = 0, sum = 0;
        for (int j = 0; j < cols; j++) {
            sum += r[j];
            if (r[j] > r[arg])
                arg = j;
            if (r[j] > 0)
                h -= (double)r[j] * log((double)r[j]);
        }
        if (sum == 0) /* no key to attend to */
            continue;
        out->rows++;
        out->entropy += h;
        out->max_weight += r[arg];
        out->first_share += r[0];
        if (count)
            count[arg - i + rows - 1]++;
        if (prev >= 0) {
            n_pairs++;
            n_mono += arg >= prev;
        }
        prev = arg;
    }
    if (out->rows == 0) {
        free(count);
        return;
    }
    out->entropy /= out->rows;
    out->max_weight /= out->rows;
    out->first_share /= out->rows;
    out->monotonic = n_pairs ? (double)n_mono / n_pairs : 1.0;
    int best = -1;
    for (int k = 0; count && k < span; k++) {
        int off = k - (rows - 1);
        if (best < 0 || count[k] > count[best] ||
            (count[k] == count[best] && abs(off) < abs(best - (rows - 1))))
            best = k;
    }
    if (count && best >= 0) {
        out->offset = best - (rows - 1);
        out->offset_share = (double)count[best] / out->rows;
    }
    free(count);
}

int tf_head_metrics(const TfTrace *tr, TfAttnKind kind, int layer, int head, int b,
                    TfHeadMetrics *out, TfErr *err)
{
    static const StageId block[3] = {ST_ENC_SELF_Q, ST_DEC_SELF_Q, ST_DEC_CROSS_Q};
    if ((int)kind < 0 || kind > TF_ATTN_CROSS)
        return tf_fail(err, "unknown attention kind %d", (int)kind);
    TfView v;
    if (tf_view(tr, stage_attn_part(block[kind], AP_WEIGHTS), layer, head, b, &v, err))
        return -1;
    int rows = kind == TF_ATTN_ENC ? tr->src_len[b] : tr->tgt_len[b];
    int cols = kind == TF_ATTN_DEC ? tr->tgt_len[b] : tr->src_len[b];
    tf_metrics_of(v.data, rows, cols, v.stride, out);
    return 0;
}

const char *tf_head_label(const TfHeadMetrics *m, TfAttnKind kind)
{
    if (m->rows < 2)
        return "";
    if (m->first_share >= 0.6 && m->keys > 2)
        return "sink";
    if (kind != TF_ATTN_CROSS && m->offset_share >= 0.7) {
        if (m->offset == -1)
            return "previous token";
        if (m->offset == 0)
            return "diagonal";
        if (m->offset == 1)
            return "next token";
    }
    if (kind == TF_ATTN_CROSS && m->monotonic >= 0.8 && m->max_weight >= 0.5)
        return "aligns with the source";
    /* nearly uniform: entropy close to that of spreading over every key */
    if (m->keys > 2 && m->entropy >= 0.8 * log((double)m->keys))
        return "broad";
    return "";
}
