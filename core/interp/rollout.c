/* rollout.c - attention rollout (see rollout.h). */
#include "rollout.h"

#include <stdlib.h>
#include <string.h>

static int check(const TfTrace *tr, int n_layers, int layer, int b, int dec, const char *name, TfErr *err)
{
    if (!(tr->flags & TRACE_RECORD))
        return tf_fail(err, "this trace was computed without recording stages");
    if (tr->B < 1 || tr->S < 1)
        return tf_fail(err, "nothing has been computed yet");
    if (dec && tr->T < 1)
        return tf_fail(err, "stage %s needs a decoder input", name);
    if (layer < 0 || layer >= n_layers)
        return tf_fail(err, "layer %d is out of range for %s (0..%d)", layer, name, n_layers - 1);
    if (b < 0 || b >= tr->B)
        return tf_fail(err, "sentence %d is not in the batch (0..%d)", b, tr->B - 1);
    return 0;
}

/* mean over heads of the (B, NH, Tq, Tk) weights of sentence b, into
 * out[Tq x Tk] (double) */
static void head_mean(double *out, const float *w, int b, int NH, int Tq, int Tk)
{
    size_t hw = (size_t)Tq * Tk;
    memset(out, 0, hw * sizeof *out);
    for (int h = 0; h < NH; h++) {
        const float *a = w + ((size_t)b * NH + h) * hw;
        for (size_t i = 0; i < hw; i++)
            out[i] += a[i];
    }
    for (size_t i = 0; i < hw; i++)
        out[i] /= NH;
}

/* out = x . r: (rows x S) times (S x S), in double */
static void mul_rows(double *out, const double *x, const double *r, int rows, int S)
{
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < S; j++) {
            double s = 0;
            for (int k = 0; k < S; k++)
                s += x[(size_t)i * S + k] * r[(size_t)k * S + j];
            out[(size_t)i * S + j] = s;
        }
}

/* R_layer (S x S, double) into r, using tmp (2 S x S) */
static void rollout(const TfTrace *tr, int layer, int b, double *r, double *tmp)
{
    int S = tr->S, NH = tr->cfg.n_heads;
    size_t ss = (size_t)S * S;
    double *a = tmp, *next = tmp + ss;
    for (int l = 0; l <= layer; l++) {
        head_mean(a, tr->enc[l].sa.weights, b, NH, S, S);
        for (size_t i = 0; i < ss; i++)
            a[i] *= 0.5;
        for (int i = 0; i < S; i++)
            a[(size_t)i * S + i] += 0.5;
        if (l == 0) {
            memcpy(r, a, ss * sizeof *r);
            continue;
        }
        mul_rows(next, a, r, S, S); /* next = A^_l . R_{l-1} */
        memcpy(r, next, ss * sizeof *r);
    }
}

/* rows x S doubles to floats, padded key columns (>= the source length) 0 */
static void store(float *out, const double *x, int rows, int S, int len)
{
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < S; j++)
            out[(size_t)i * S + j] = j < len ? (float)x[(size_t)i * S + j] : 0.0f;
}

int tf_rollout_enc(const TfTrace *tr, int layer, int b, float *out, TfErr *err)
{
    if (check(tr, tr->cfg.n_enc, layer, b, 0, "enc.rollout", err))
        return -1;
    size_t ss = (size_t)tr->S * tr->S;
    double *buf = malloc(3 * ss * sizeof *buf);
    if (!buf)
        return tf_fail(err, "out of memory for the rollout of %d positions", tr->S);
    rollout(tr, layer, b, buf, buf + ss);
    store(out, buf, tr->S, tr->S, tr->src_len[b]);
    free(buf);
    return 0;
}

int tf_rollout_cross(const TfTrace *tr, int layer, int b, float *out, TfErr *err)
{
    if (check(tr, tr->cfg.n_dec, layer, b, 1, "dec.cross.rollout", err))
        return -1;
    int S = tr->S, T = tr->T;
    size_t ss = (size_t)S * S, ts = (size_t)T * S;
    double *buf = malloc((3 * ss + 2 * ts) * sizeof *buf);
    if (!buf)
        return tf_fail(err, "out of memory for the rollout of %d x %d positions", T, S);
    double *r = buf, *x = buf + 3 * ss, *y = x + ts;
    rollout(tr, tr->cfg.n_enc - 1, b, r, buf + ss);
    head_mean(x, tr->dec[layer].ca.weights, b, tr->cfg.n_heads, T, S);
    mul_rows(y, x, r, T, S);
    store(out, y, T, S, tr->src_len[b]);
    free(buf);
    return 0;
}

void tf_rollout_view(const TfTrace *tr, int cross, int layer, int b, const float *data, TfView *v)
{
    memset(v, 0, sizeof *v);
    v->stage = cross ? ST_DEC_CROSS_WEIGHTS : ST_ENC_SELF_WEIGHTS;
    v->name = cross ? "dec.cross.rollout" : "enc.rollout";
    v->layer = layer;
    v->head = -1;
    v->b = b;
    v->rows = cross ? tr->T : tr->S;
    v->cols = tr->S;
    v->stride = tr->S;
    v->data = data;
    v->row_kind = cross ? LBL_TGT : LBL_SRC;
    v->col_kind = LBL_SRC;
}
