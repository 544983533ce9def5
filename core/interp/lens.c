/* lens.c - the logit lens (see lens.h). */
#include "lens.h"

#include <stdlib.h>
#include <string.h>

#include "gemm_small.h"
#include "ops.h"

static int check(const TfModel *m, const TfTrace *tr, int layer, int b, TfErr *err)
{
    if (!(tr->flags & TRACE_RECORD))
        return tf_fail(err, "this trace was computed without recording stages");
    if (tr->B < 1 || tr->T < 1)
        return tf_fail(err, "stage dec.lens needs a decoder input");
    if (layer < 0 || layer >= m->cfg.n_dec)
        return tf_fail(err, "layer %d is out of range for dec.lens (0..%d)", layer, m->cfg.n_dec - 1);
    if (b < 0 || b >= tr->B)
        return tf_fail(err, "sentence %d is not in the batch (0..%d)", b, tr->B - 1);
    return 0;
}

/* Decoder layer l's output: post-LN the third LayerNorm, pre-LN the sum. */
static const float *layer_out(const TfTrace *tr, int l)
{
    const DecLayerAct *d = &tr->dec[l];
    return tr->cfg.norm == TF_NORM_POST ? d->n3.norm : d->n3.sum;
}

int tf_lens(const TfModel *m, const TfTrace *tr, int layer, int b, float *out, TfErr *err)
{
    if (check(m, tr, layer, b, err))
        return -1;
    const TfConfig *c = &m->cfg;
    int T = tr->T, C = c->d_model, V = c->tgt_vocab;
    const float *y = layer_out(tr, layer) + (size_t)b * T * C;
    float *normed = NULL;
    if (layer == c->n_dec - 1) {
        y = tr->dec_out + (size_t)b * T * C; /* exactly what the generator read */
    } else if (c->norm == TF_NORM_PRE) {
        /* n(y) = the final LayerNorm, as the last layer's output gets it */
        normed = malloc((size_t)T * C * sizeof *normed + 2 * (size_t)T * sizeof(float));
        if (!normed)
            return tf_fail(err, "out of memory for the lens of %d positions", T);
        float *mean = normed + (size_t)T * C, *rstd = mean + T;
        layernorm_forward(normed, mean, rstd, y, m->p.dec_lnf_w, m->p.dec_lnf_b, T, C);
        y = normed;
    }
    /* logits = n(y) W_gen^T + b; in the pieces tf_decode_end_rows uses, so
     * the last layer gives out.probs' bits */
    int piece = gemm_small_rows() > 0 ? gemm_small_rows() : 16;
    for (int r0 = 0; r0 < T;) {
        int r1 = (r0 / piece + 1) * piece;
        r1 = r1 < T ? r1 : T;
        linear_forward(out + (size_t)r0 * V, y + (size_t)r0 * C, m->p.gen_w, m->p.gen_b, r1 - r0, C, V);
        softmax_rows(out + (size_t)r0 * V, NULL, r1 - r0, V, 0);
        r0 = r1;
    }
    free(normed);
    return 0;
}

void tf_lens_view(const TfTrace *tr, int layer, int b, const float *data, TfView *v)
{
    memset(v, 0, sizeof *v);
    v->stage = ST_OUT_PROBS;
    v->name = "dec.lens";
    v->layer = layer;
    v->head = -1;
    v->b = b;
    v->rows = tr->T;
    v->cols = tr->cfg.tgt_vocab;
    v->stride = v->cols;
    v->data = data;
    v->row_kind = LBL_TGT;
    v->col_kind = LBL_VOCAB;
}
