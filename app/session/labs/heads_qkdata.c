/* heads_qkdata.c - the Q/K map's points over a data set (heads_qkdata.h). */
#include "heads_qkdata.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "text.h"

/* What was gathered (points, weights, texts), the pairs kept. */
static void drop_points(HlabQkData *d)
{
    for (int h = 0; h < d->NH; h++) {
        if (d->pts)
            tf_qk_points_free(&d->pts[h]);
        if (d->w)
            free(d->w[h]);
    }
    free(d->pts);
    free(d->w);
    d->pts = NULL;
    d->w = NULL;
    if (d->sent)
        for (int i = 0; i < d->pairs.n; i++)
            free(d->sent[i].text);
    free(d->sent);
    d->sent = NULL;
    d->w_len = d->w_cap = 0;
    d->next = 0;
}

void qkd_free(HlabQkData *d)
{
    drop_points(d);
    heads_pairs_free(&d->pairs);
    if (d->tr_built)
        trace_free(&d->tr);
    unsigned gen = d->gen;
    memset(d, 0, sizeof *d);
    d->gen = gen + 1; /* a map made of the old points is stale */
}

static int fail(HlabQkData *d, const char *msg)
{
    snprintf(d->error, sizeof d->error, "%s", msg);
    d->state = QKD_FAILED;
    return -1;
}

int qkd_start(HlabQkData *d, const TfModel *m, const char *file, int max_pairs)
{
    qkd_free(d);
    TfErr err;
    d->m = m;
    d->block = m->block;
    d->kind = d->layer = -1;
    if (heads_pairs_load(m, NULL, file, max_pairs, &d->pairs, &err))
        return fail(d, err.msg);
    if (trace_build(&d->tr, &m->cfg, 1, 8, TRACE_RECORD, &err))
        return fail(d, err.msg);
    d->tr_built = 1;
    snprintf(d->what, sizeof d->what, "%s · %d", d->pairs.name, d->pairs.n);
    d->state = QKD_RUNNING;
    return 0;
}

/* A new gathering of (kind, layer): room for every head and pair. */
static int begin(HlabQkData *d, int kind, int layer)
{
    drop_points(d);
    d->kind = kind;
    d->layer = layer;
    d->NH = d->m->cfg.n_heads;
    d->pts = calloc((size_t)d->NH, sizeof *d->pts);
    d->w = calloc((size_t)d->NH, sizeof *d->w);
    d->sent = calloc((size_t)d->pairs.n, sizeof *d->sent);
    if (!d->pts || !d->w || !d->sent)
        return fail(d, "out of memory");
    d->state = QKD_RUNNING;
    return 0;
}

/* "source → reference" of pair i, tokens as the model's vocabularies write them. */
static char *pair_text(const TfModel *m, const TfImpPair *p)
{
    size_t cap = 16;
    for (int k = 0; k < p->S; k++)
        cap += strlen(vocab_token(&m->src_vocab, p->src[k])) + 1;
    char *ref = NULL;
    TfErr err;
    if (tf_text_decode(m, p->ref, p->R, &ref, &err) < 0)
        ref = NULL;
    cap += ref ? strlen(ref) : 0;
    char *s = malloc(cap);
    if (s) {
        size_t n = 0;
        for (int k = 0; k < p->S; k++)
            n += (size_t)snprintf(s + n, cap - n, "%s%s", k ? " " : "", vocab_token(&m->src_vocab, p->src[k]));
        snprintf(s + n, cap - n, " → %s", ref ? ref : "");
    }
    free(ref);
    return s;
}

/* Pair i through the model and its points and weights into every head's arrays. */
static int gather_one(HlabQkData *d, int i, TfErr *err)
{
    const TfModel *m = d->m;
    const TfImpPair *p = &d->pairs.pairs[i];
    int S = p->S, T = p->R + 1;
    static int tgt[TF_MAX_LEN];
    tgt[0] = cfg_start_id(&m->cfg);
    memcpy(tgt + 1, p->ref, (size_t)p->R * sizeof *tgt);
    TfBatch b = {1, S, T, p->src, tgt, &S, &T};
    if (tf_forward(m, &d->tr, &b, 0, err))
        return -1;
    const TfTrace *tr = &d->tr;
    QkdSent *s = &d->sent[i];
    s->q0 = d->pts[0].q.n;
    s->k0 = d->pts[0].k.n;
    s->nq = d->kind == TF_ATTN_ENC ? S : T;
    s->nk = d->kind == TF_ATTN_DEC ? T : S;
    if (s->q0 + s->nq > QKD_MAX_POINTS || s->k0 + s->nk > QKD_MAX_POINTS)
        return tf_fail(err, "more than %d points: fewer pairs, please", QKD_MAX_POINTS);
    size_t cells = (size_t)s->nq * s->nk;
    if (d->w_len + cells > d->w_cap) {
        size_t cap = d->w_cap ? 2 * d->w_cap : 4096;
        while (cap < d->w_len + cells)
            cap *= 2;
        for (int h = 0; h < d->NH; h++) {
            float *w = realloc(d->w[h], cap * sizeof *w);
            if (!w)
                return tf_fail(err, "out of memory for the map's weights");
            d->w[h] = w;
        }
        d->w_cap = cap;
    }
    s->w = d->w_len;
    const AttnAct *a = d->kind == TF_ATTN_ENC   ? &tr->enc[d->layer].sa
                       : d->kind == TF_ATTN_DEC ? &tr->dec[d->layer].sa
                                                : &tr->dec[d->layer].ca;
    int Tq = d->kind == TF_ATTN_ENC ? tr->S : tr->T, Tk = d->kind == TF_ATTN_DEC ? tr->T : tr->S;
    for (int h = 0; h < d->NH; h++) {
        if (tf_qk_points_add(&d->pts[h], tr, (TfAttnKind)d->kind, d->layer, h, 0, err))
            return -1;
        const float *w = a->weights + (size_t)h * Tq * Tk; /* sentence 0 of the batch */
        for (int qi = 0; qi < s->nq; qi++)
            memcpy(d->w[h] + s->w + (size_t)qi * s->nk, w + (size_t)qi * Tk, (size_t)s->nk * sizeof(float));
    }
    d->w_len += cells;
    s->text = pair_text(m, p);
    return 0;
}

int qkd_run(HlabQkData *d, int kind, int layer, double budget_s)
{
    if (d->state == QKD_NONE || d->state == QKD_FAILED)
        return 0;
    if ((kind != d->kind || layer != d->layer) && begin(d, kind, layer))
        return 0;
    if (d->state != QKD_RUNNING)
        return 0;
    double t0 = tf_seconds();
    TfErr err;
    do {
        if (d->next >= d->pairs.n) {
            d->state = QKD_DONE;
            d->gen++;
            return 0;
        }
        if (gather_one(d, d->next, &err)) {
            drop_points(d);
            fail(d, err.msg);
            return 0;
        }
        d->next++;
    } while (tf_seconds() - t0 < budget_s);
    if (d->next >= d->pairs.n) {
        d->state = QKD_DONE;
        d->gen++;
    }
    return d->state == QKD_RUNNING;
}
