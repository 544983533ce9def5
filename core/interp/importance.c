/* importance.c - head importance by ablation (see importance.h). */
#include "importance.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "parallel.h"

TfHeadRef tf_imp_head(const TfConfig *c, int i)
{
    int NH = c->n_heads, ne = c->n_enc * NH, nd = c->n_dec * NH;
    if (i < ne)
        return (TfHeadRef){TF_ATTN_ENC, i / NH, i % NH};
    if (i < ne + nd)
        return (TfHeadRef){TF_ATTN_DEC, (i - ne) / NH, (i - ne) % NH};
    return (TfHeadRef){TF_ATTN_CROSS, (i - ne - nd) / NH, (i - ne - nd) % NH};
}

/* The schedule: encoder heads from the top layer down, then decoder-side
 * heads (self and cross of a layer together) from the top layer down, so
 * that an ablation's layers below it hold the normal pass. */
static void make_order(const TfConfig *c, int *order)
{
    int NH = c->n_heads, ne = c->n_enc * NH, nd = c->n_dec * NH, k = 0;
    for (int l = c->n_enc - 1; l >= 0; l--)
        for (int h = 0; h < NH; h++)
            order[k++] = l * NH + h;
    for (int l = c->n_dec - 1; l >= 0; l--) {
        for (int h = 0; h < NH; h++)
            order[k++] = ne + l * NH + h;
        for (int h = 0; h < NH; h++)
            order[k++] = ne + nd + l * NH + h;
    }
}

int tf_imp_init(TfImportance *im, const TfModel *m, TfErr *err)
{
    memset(im, 0, sizeof *im);
    im->m = m;
    const TfConfig *c = &m->cfg;
    im->n_heads = (c->n_enc + 2 * c->n_dec) * c->n_heads;
    im->nll = calloc((size_t)im->n_heads, sizeof *im->nll);
    im->right = calloc((size_t)im->n_heads, sizeof *im->right);
    im->order = calloc((size_t)im->n_heads, sizeof *im->order);
    if (!im->nll || !im->right || !im->order) {
        tf_imp_free(im);
        return tf_fail(err, "out of memory for the importance of %d heads", im->n_heads);
    }
    make_order(c, im->order);
    im->next = im->n_heads;
    if (trace_build(&im->tr, c, 1, 8, TRACE_RECORD, err)) {
        tf_imp_free(im);
        return -1;
    }
    return 0;
}

void tf_imp_free(TfImportance *im)
{
    free(im->nll);
    free(im->right);
    free(im->order);
    if (im->tr.block)
        trace_free(&im->tr);
    memset(im, 0, sizeof *im);
}

/* The current pass's sums over the pair's positions: -log p(want) from the
 * logits in double (log-sum-exp), and argmax == want (first of equals). */
static void score(const TfImportance *im, double *nll, double *right)
{
    int V = im->m->cfg.tgt_vocab;
    double s_nll = 0, s_right = 0;
    for (int t = 0; t < im->T; t++) {
        const float *z = im->tr.logits + (size_t)t * V;
        int best = 0;
        for (int v = 1; v < V; v++)
            best = z[v] > z[best] ? v : best;
        double mx = z[best], sum = 0;
        for (int v = 0; v < V; v++)
            sum += exp((double)z[v] - mx);
        s_nll += mx + log(sum) - (double)z[im->want[t]];
        s_right += best == im->want[t];
    }
    *nll = s_nll;
    *right = s_right;
}

int tf_imp_begin(TfImportance *im, const int *src, int S, const int *ref, int R, TfErr *err)
{
    const TfConfig *c = &im->m->cfg;
    if (S < 1 || R < 0 || R + 1 > c->max_len || R + 1 > TF_MAX_LEN)
        return tf_fail(err, "a pair of %d source and %d reference tokens does not fit the model (max_len %d)",
                       S, R, c->max_len);
    im->T = R + 1;
    im->tgt[0] = cfg_start_id(c);
    memcpy(im->tgt + 1, ref, (size_t)R * sizeof *ref);
    memcpy(im->want, ref, (size_t)R * sizeof *ref);
    im->want[R] = cfg_eos_id(c);
    memset(&im->tr.exp, 0, sizeof im->tr.exp);
    TfBatch b = {1, S, im->T, src, im->tgt, &S, &im->T};
    if (tf_forward(im->m, &im->tr, &b, 0, err))
        return -1;
    double nll, right;
    score(im, &nll, &right);
    im->base_nll += nll;
    im->base_right += right;
    im->positions += im->T;
    im->pairs++;
    im->next = 0;
    return 0;
}

int tf_imp_left(const TfImportance *im)
{
    return im->n_heads - im->next;
}

int tf_imp_step(TfImportance *im, TfErr *err)
{
    if (im->next >= im->n_heads)
        return tf_fail(err, "no pair is being measured");
    const TfModel *m = im->m;
    const TfConfig *c = &m->cfg;
    TfTrace *tr = &im->tr;
    int i = im->order[im->next];
    TfHeadRef h = tf_imp_head(c, i);
    int prev_enc = im->next > 0 && tf_imp_head(c, im->order[im->next - 1]).kind == TF_ATTN_ENC;
    memset(&tr->exp, 0, sizeof tr->exp);
    if (h.kind != TF_ATTN_ENC && prev_enc) {
        /* the encoder, and the decoder layers below the top, back to the
         * normal pass */
        for (int l = 0; l < c->n_enc; l++)
            tf_encode_layer(m, tr, l, 0);
        for (int l = 0; l < c->n_dec - 1; l++)
            tf_decode_layer(m, tr, l, 0);
    }
    tr->exp.n_ablate = 1;
    tr->exp.ablate[0] = h;
    if (h.kind == TF_ATTN_ENC) {
        for (int l = h.layer; l < c->n_enc; l++)
            tf_encode_layer(m, tr, l, 0);
        if (tf_decode(m, tr, im->T, im->tgt, &im->T, 0, 0, err))
            return -1;
    } else {
        for (int l = h.layer; l < c->n_dec; l++)
            tf_decode_layer(m, tr, l, 0);
        tf_decode_end(m, tr, 0);
    }
    double nll, right;
    score(im, &nll, &right);
    im->nll[i] += nll;
    im->right[i] += right;
    im->next++;
    return 0;
}

int tf_imp_add(TfImportance *im, const int *src, int S, const int *ref, int R, TfErr *err)
{
    if (tf_imp_begin(im, src, S, ref, R, err))
        return -1;
    while (tf_imp_left(im) > 0)
        if (tf_imp_step(im, err))
            return -1;
    return 0;
}

void tf_imp_result(const TfImportance *im, TfHeadImportance *out)
{
    double P = im->positions > 0 ? (double)im->positions : 1.0;
    for (int i = 0; i < im->n_heads; i++) {
        out[i].ref = tf_imp_head(&im->m->cfg, i);
        out[i].delta_nll = (im->nll[i] - im->base_nll) / P;
        out[i].delta_acc = (im->right[i] - im->base_right) / P;
    }
}

typedef struct ImpPart {
    TfImportance im;
    const TfImpPair *pairs;
    int from, to, rc;
    TfErr err;
} ImpPart;

static void *run_part(void *arg)
{
    ImpPart *p = arg;
    for (int k = p->from; k < p->to && !p->rc; k++)
        p->rc = tf_imp_add(&p->im, p->pairs[k].src, p->pairs[k].S, p->pairs[k].ref, p->pairs[k].R, &p->err);
    return NULL;
}

int tf_importance(const TfModel *m, const TfImpPair *pairs, int n, int threads, TfHeadImportance *out,
                  TfErr *err)
{
    if (n < 1)
        return tf_fail(err, "no pair to measure the heads on");
    int parts = threads >= 2 && n >= 2 ? 2 : 1, rc = -1;
    ImpPart part[2];
    memset(part, 0, sizeof part);
    for (int k = 0; k < parts; k++) {
        if (tf_imp_init(&part[k].im, m, err))
            goto done;
        part[k].pairs = pairs;
        part[k].from = (int)((long long)n * k / parts);
        part[k].to = (int)((long long)n * (k + 1) / parts);
    }
    if (parts == 1)
        run_part(&part[0]);
    else if (par_run_pair(run_part, &part[0], &part[1])) {
        tf_fail(err, "cannot start a thread");
        goto done;
    }
    for (int k = 0; k < parts; k++)
        if (part[k].rc) {
            if (err)
                *err = part[k].err;
            goto done;
        }
    if (parts == 2) { /* the second half's sums into the first's */
        TfImportance *a = &part[0].im, *b = &part[1].im;
        a->base_nll += b->base_nll;
        a->base_right += b->base_right;
        a->positions += b->positions;
        a->pairs += b->pairs;
        for (int i = 0; i < a->n_heads; i++) {
            a->nll[i] += b->nll[i];
            a->right[i] += b->right[i];
        }
    }
    tf_imp_result(&part[0].im, out);
    rc = 0;
done:
    for (int k = 0; k < parts; k++)
        tf_imp_free(&part[k].im);
    return rc;
}
