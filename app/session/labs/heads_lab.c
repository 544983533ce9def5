/* heads_lab.c - the window's heads lab (see heads_lab.h). */
#include "heads_lab.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "lens.h"
#include "rollout.h"

HeadsLab *hlab_new(void)
{
    return calloc(1, sizeof(HeadsLab));
}

static void lens_free(HlabLens *l)
{
    free(l->ids);
    free(l->p);
    free(l->ref_id);
    free(l->ref_rank);
    free(l->ref_p);
    memset(l, 0, sizeof *l);
}

static void qk_free(HlabQk *q)
{
    tf_qkmap_free(&q->map);
    tf_qk_points_free(&q->pts);
    tf_qk_points_free(&q->all);
    free(q->w);
    free(q->sent);
    free(q->wall);
    free(q->qsent);
    free(q->ksent);
    memset(q, 0, sizeof *q);
}

void hlab_imp_reset(HeadsLab *h)
{
    if (h->imp.nll)
        tf_imp_free(&h->imp);
    heads_pairs_free(&h->pairs);
    free(h->imp_res);
    free(h->imp_nll);
    free(h->imp_acc);
    h->imp_res = NULL;
    h->imp_nll = h->imp_acc = NULL;
    h->imp_state = HLAB_IMP_NONE;
    h->imp_model = NULL;
    h->imp_block = NULL;
    h->imp_begun = 0;
    h->imp_what[0] = h->imp_error[0] = 0;
}

void hlab_free(HeadsLab *h)
{
    if (!h)
        return;
    hlab_imp_reset(h);
    lens_free(&h->lens);
    free(h->roll);
    qk_free(&h->qk);
    qkd_free(&h->qkd);
    free(h);
}

int hlab_imp_start(HeadsLab *h, const TfModel *m, const char *task, const char *file, int max_pairs)
{
    hlab_imp_reset(h);
    TfErr err;
    h->imp_model = m;
    h->imp_block = m->block;
    if (heads_pairs_load(m, task, file, max_pairs, &h->pairs, &err) || tf_imp_init(&h->imp, m, &err)) {
        snprintf(h->imp_error, sizeof h->imp_error, "%s", err.msg);
        h->imp_state = HLAB_IMP_FAILED;
        return -1;
    }
    int n = h->imp.n_heads;
    h->imp_res = calloc((size_t)n, sizeof *h->imp_res);
    h->imp_nll = calloc((size_t)n, sizeof *h->imp_nll);
    h->imp_acc = calloc((size_t)n, sizeof *h->imp_acc);
    if (!h->imp_res || !h->imp_nll || !h->imp_acc) {
        snprintf(h->imp_error, sizeof h->imp_error, "out of memory");
        h->imp_state = HLAB_IMP_FAILED;
        return -1;
    }
    snprintf(h->imp_what, sizeof h->imp_what, "%s · %d", h->pairs.name, h->pairs.n);
    h->imp_state = HLAB_IMP_RUNNING;
    return 0;
}

/* the figures of the pairs done so far into the plain arrays */
static void publish(HeadsLab *h)
{
    tf_imp_result(&h->imp, h->imp_res);
    for (int i = 0; i < h->imp.n_heads; i++) {
        h->imp_nll[i] = h->imp_res[i].delta_nll;
        h->imp_acc[i] = h->imp_res[i].delta_acc;
    }
}

int hlab_imp_run(HeadsLab *h, double budget_s)
{
    if (h->imp_state != HLAB_IMP_RUNNING)
        return 0;
    double t0 = tf_seconds();
    TfErr err;
    do {
        int rc;
        if (tf_imp_left(&h->imp) > 0) {
            rc = tf_imp_step(&h->imp, &err);
            if (!rc && tf_imp_left(&h->imp) == 0)
                publish(h);
        } else if (h->imp_begun < h->pairs.n) {
            const TfImpPair *p = &h->pairs.pairs[h->imp_begun++];
            rc = tf_imp_begin(&h->imp, p->src, p->S, p->ref, p->R, &err);
        } else {
            h->imp_state = HLAB_IMP_DONE;
            return 0;
        }
        if (rc) {
            snprintf(h->imp_error, sizeof h->imp_error, "%s", err.msg);
            h->imp_state = HLAB_IMP_FAILED;
            return 0;
        }
    } while (tf_seconds() - t0 < budget_s);
    if (h->imp_begun >= h->pairs.n && tf_imp_left(&h->imp) == 0)
        h->imp_state = HLAB_IMP_DONE;
    return h->imp_state == HLAB_IMP_RUNNING;
}

int hlab_imp_done(const HeadsLab *h)
{
    return h->imp_begun - (tf_imp_left(&h->imp) > 0 ? 1 : 0);
}

/* ---- lens ---- */

const HlabLens *hlab_lens(HeadsLab *h, const TfModel *m, const TfTrace *tr, int b, uint64_t stamp)
{
    uint64_t of[3] = {stamp, (uint64_t)b, (uint64_t)(uintptr_t)m};
    if (h->lens.ids && memcmp(of, h->lens_of, sizeof of) == 0)
        return &h->lens;
    lens_free(&h->lens);
    memset(h->lens_of, 0, sizeof h->lens_of);
    if (b < 0 || b >= tr->B || tr->T < 1 || !(tr->flags & TRACE_RECORD))
        return NULL;
    int L = m->cfg.n_dec, T = tr->T, V = m->cfg.tgt_vocab, K = HLAB_LENS_K < V ? HLAB_LENS_K : V;
    HlabLens *l = &h->lens;
    size_t cells = (size_t)L * T;
    l->ids = malloc(cells * K * sizeof *l->ids);
    l->p = malloc(cells * K * sizeof *l->p);
    l->ref_id = malloc((size_t)T * sizeof *l->ref_id);
    l->ref_rank = malloc(cells * sizeof *l->ref_rank);
    l->ref_p = malloc(cells * sizeof *l->ref_p);
    float *probs = malloc((size_t)T * V * sizeof *probs);
    if (!l->ids || !l->p || !l->ref_id || !l->ref_rank || !l->ref_p || !probs) {
        free(probs);
        lens_free(l);
        return NULL;
    }
    l->layers = L;
    l->T = T;
    l->k = K;
    int len = tr->tgt_len[b];
    for (int t = 0; t < T; t++)
        l->ref_id[t] = t + 1 < len ? tr->tgt_ids[(size_t)b * T + t + 1] : cfg_eos_id(&m->cfg);
    TfErr err;
    for (int layer = 0; layer < L; layer++) {
        if (tf_lens(m, tr, layer, b, probs, &err)) {
            free(probs);
            lens_free(l);
            return NULL;
        }
        for (int t = 0; t < T; t++) {
            const float *row = probs + (size_t)t * V;
            int *ids = l->ids + ((size_t)layer * T + t) * K;
            float *p = l->p + ((size_t)layer * T + t) * K;
            /* top K by insertion, ties to the smaller id; the reference's rank */
            int n = 0, rank = 1, ref = l->ref_id[t];
            float pr = row[ref];
            for (int v = 0; v < V; v++) {
                rank += row[v] > pr || (row[v] == pr && v < ref);
                int at = n < K ? n : K;
                while (at > 0 && row[v] > p[at - 1])
                    at--;
                if (at >= K)
                    continue;
                for (int j = (n < K ? n : K - 1); j > at; j--) {
                    ids[j] = ids[j - 1];
                    p[j] = p[j - 1];
                }
                ids[at] = v;
                p[at] = row[v];
                if (n < K)
                    n++;
            }
            l->ref_rank[(size_t)layer * T + t] = rank;
            l->ref_p[(size_t)layer * T + t] = pr;
        }
    }
    free(probs);
    memcpy(h->lens_of, of, sizeof of);
    return l;
}

/* ---- rollout ---- */

const float *hlab_rollout(HeadsLab *h, const TfTrace *tr, int cross, int layer, int b, uint64_t stamp, int *rows,
                          int *cols)
{
    uint64_t of[4] = {stamp, (uint64_t)cross, (uint64_t)layer, (uint64_t)b};
    if (h->roll && memcmp(of, h->roll_of, sizeof of) == 0) {
        *rows = h->roll_rows;
        *cols = h->roll_cols;
        return h->roll;
    }
    free(h->roll);
    h->roll = NULL;
    int r = cross ? tr->T : tr->S, c = tr->S;
    if (r < 1 || c < 1)
        return NULL;
    h->roll = malloc((size_t)r * c * sizeof *h->roll);
    TfErr err;
    if (!h->roll || (cross ? tf_rollout_cross(tr, layer, b, h->roll, &err) : tf_rollout_enc(tr, layer, b, h->roll, &err))) {
        free(h->roll);
        h->roll = NULL;
        return NULL;
    }
    h->roll_rows = *rows = r;
    h->roll_cols = *cols = c;
    memcpy(h->roll_of, of, sizeof of);
    return h->roll;
}

/* ---- the query/key map ---- */

static void side_copy(TfQkSide *to, int at, const TfQkSide *from, int n, int dk)
{
    memcpy(to->x + (size_t)at * dk, from->x, (size_t)n * dk * sizeof *to->x);
    memcpy(to->pos + at, from->pos, (size_t)n * sizeof *to->pos);
    memcpy(to->tok + at, from->tok, (size_t)n * sizeof *to->tok);
}

static int side_alloc(TfQkSide *s, int n, int dk)
{
    s->x = malloc((size_t)(n ? n : 1) * dk * sizeof *s->x);
    s->pos = malloc((size_t)(n ? n : 1) * sizeof *s->pos);
    s->tok = malloc((size_t)(n ? n : 1) * sizeof *s->tok);
    s->n = n;
    return s->x && s->pos && s->tok ? 0 : -1;
}

/* The map's points: the sentence's (q->pts, q->w) alone, or followed by
 * every pair of the data set d for head `head`. */
static int qk_points(HlabQk *q, const HlabQkData *d, int head)
{
    const TfQkPoints *pt = &q->pts;
    int nq0 = pt->q.n, nk0 = pt->k.n, np = d ? d->pairs.n : 0;
    const TfQkPoints *dp = d ? &d->pts[head] : NULL;
    int nq = nq0 + (dp ? dp->q.n : 0), nk = nk0 + (dp ? dp->k.n : 0), dk = pt->dk;
    size_t w0 = (size_t)nq0 * nk0, wn = w0 + (d ? d->w_len : 0);
    q->n_sent = 1 + np;
    q->sent = calloc((size_t)q->n_sent, sizeof *q->sent);
    q->qsent = malloc((size_t)(nq ? nq : 1) * sizeof *q->qsent);
    q->ksent = malloc((size_t)(nk ? nk : 1) * sizeof *q->ksent);
    q->wall = malloc((wn ? wn : 1) * sizeof *q->wall);
    q->all.dk = dk;
    q->all.cap = nq > nk ? nq : nk;
    if (!q->sent || !q->qsent || !q->ksent || !q->wall || side_alloc(&q->all.q, nq, dk) ||
        side_alloc(&q->all.k, nk, dk))
        return -1;
    q->sent[0] = (QkdSent){0, nq0, 0, nk0, 0, NULL};
    side_copy(&q->all.q, 0, &pt->q, nq0, dk);
    side_copy(&q->all.k, 0, &pt->k, nk0, dk);
    memcpy(q->wall, q->w, w0 * sizeof *q->wall);
    if (dp) {
        side_copy(&q->all.q, nq0, &dp->q, dp->q.n, dk);
        side_copy(&q->all.k, nk0, &dp->k, dp->k.n, dk);
        memcpy(q->wall + w0, d->w[head], d->w_len * sizeof *q->wall);
        for (int i = 0; i < np; i++) {
            QkdSent s = d->sent[i];
            s.q0 += nq0;
            s.k0 += nk0;
            s.w += w0;
            q->sent[1 + i] = s;
        }
    }
    for (int i = 0; i < q->n_sent; i++) {
        for (int j = 0; j < q->sent[i].nq; j++)
            q->qsent[q->sent[i].q0 + j] = i;
        for (int j = 0; j < q->sent[i].nk; j++)
            q->ksent[q->sent[i].k0 + j] = i;
    }
    q->data = dp != NULL;
    return 0;
}

const HlabQk *hlab_qk(HeadsLab *h, const TfTrace *tr, TfAttnKind kind, int layer, int head, int b, uint64_t stamp)
{
    const HlabQkData *d = &h->qkd;
    int data = h->qkd_on && d->state == QKD_DONE && d->kind == (int)kind && d->layer == layer && head < d->NH &&
               d->m && d->m->cfg.d_model == tr->cfg.d_model && d->m->cfg.n_heads == tr->cfg.n_heads;
    uint64_t of[6] = {stamp, (uint64_t)kind, (uint64_t)layer, (uint64_t)head, (uint64_t)b,
                      data ? (uint64_t)d->gen + 1 : 0};
    if (memcmp(of, h->qk_of, sizeof of) == 0)
        return h->qk_ok ? &h->qk : NULL;
    qk_free(&h->qk);
    memcpy(h->qk_of, of, sizeof of);
    h->qk_ok = 0;
    h->qk_error[0] = 0;
    HlabQk *q = &h->qk;
    const TfQkPoints *pt = &q->pts;
    TfErr err;
    if (tf_qk_points_add(&q->pts, tr, kind, layer, head, b, &err)) {
        snprintf(h->qk_error, sizeof h->qk_error, "%s", err.msg);
    } else if (!(q->w = malloc((size_t)(pt->q.n ? pt->q.n : 1) * (pt->k.n ? pt->k.n : 1) * sizeof *q->w))) {
        snprintf(h->qk_error, sizeof h->qk_error, "out of memory");
    } else {
        int Tq = kind == TF_ATTN_ENC ? tr->S : tr->T, Tk = kind == TF_ATTN_DEC ? tr->T : tr->S;
        const AttnAct *a = kind == TF_ATTN_ENC ? &tr->enc[layer].sa
                           : kind == TF_ATTN_DEC ? &tr->dec[layer].sa : &tr->dec[layer].ca;
        const float *w = a->weights + ((size_t)b * tr->cfg.n_heads + head) * Tq * Tk;
        for (int i = 0; i < pt->q.n; i++)
            for (int j = 0; j < pt->k.n; j++)
                q->w[(size_t)i * pt->k.n + j] = w[(size_t)pt->q.pos[i] * Tk + pt->k.pos[j]];
        const TfQkPoints *all = &q->all;
        if (qk_points(q, data ? d : NULL, head)) {
            snprintf(h->qk_error, sizeof h->qk_error, "out of memory for the map's points");
        } else if (tf_qkmap(all->q.x, all->q.n, all->dk, all->k.x, all->k.n, all->dk, all->dk, &q->map, &err)) {
            snprintf(h->qk_error, sizeof h->qk_error, "%s", err.msg);
        } else {
            q->kind = kind;
            q->layer = layer;
            q->head = head;
            q->b = b;
            h->qk_ok = 1;
        }
    }
    if (!h->qk_ok) {
        char keep[512];
        memcpy(keep, h->qk_error, sizeof keep);
        qk_free(q);
        memcpy(h->qk_error, keep, sizeof keep);
        return NULL;
    }
    return q;
}

/* ---- the query/key map over a data set ---- */

int hlab_qkd_start(HeadsLab *h, const TfModel *m, const char *file, int max_pairs)
{
    h->qkd_on = 1;
    return qkd_start(&h->qkd, m, file, max_pairs);
}

void hlab_qkd_stop(HeadsLab *h)
{
    h->qkd_on = 0;
    qkd_free(&h->qkd);
}

int hlab_qkd_run(HeadsLab *h, const TfModel *m, int kind, int layer, double budget_s)
{
    if (!h->qkd_on)
        return 0;
    if (h->qkd.state != QKD_NONE && (h->qkd.m != m || h->qkd.block != m->block)) {
        hlab_qkd_stop(h); /* another model: its heads are not these */
        return 0;
    }
    return qkd_run(&h->qkd, kind, layer, budget_s);
}
