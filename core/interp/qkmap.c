/* qkmap.c - the joint query/key map (see qkmap.h). */
#include "qkmap.h"

#include "headstats.h"
#include "sysmem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define QK_MAX_DK 1024

/* Eigen-decomposition of the symmetric n x n matrix a (destroyed) by
 * cyclic Jacobi rotations: eigenvalues in w, eigenvectors in the columns of
 * v. */
static void jacobi(double *a, int n, double *w, double *v)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            v[i * n + j] = i == j;
    for (int sweep = 0; sweep < 100; sweep++) {
        double off = 0, diag = 0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                if (i != j)
                    off += a[i * n + j] * a[i * n + j];
                else
                    diag += a[i * n + i] * a[i * n + i];
        if (off <= 1e-30 * (diag > 0 ? diag : 1))
            break;
        for (int p = 0; p < n; p++)
            for (int q = p + 1; q < n; q++) {
                double apq = a[p * n + q];
                if (fabs(apq) < 1e-300)
                    continue;
                double theta = (a[q * n + q] - a[p * n + p]) / (2 * apq);
                double t = (theta >= 0 ? 1 : -1) / (fabs(theta) + sqrt(theta * theta + 1));
                double cs = 1 / sqrt(t * t + 1), sn = t * cs;
                for (int k = 0; k < n; k++) { /* columns p and q */
                    double akp = a[k * n + p], akq = a[k * n + q];
                    a[k * n + p] = cs * akp - sn * akq;
                    a[k * n + q] = sn * akp + cs * akq;
                }
                for (int k = 0; k < n; k++) { /* rows p and q */
                    double apk = a[p * n + k], aqk = a[q * n + k];
                    a[p * n + k] = cs * apk - sn * aqk;
                    a[q * n + k] = sn * apk + cs * aqk;
                }
                for (int k = 0; k < n; k++) {
                    double vkp = v[k * n + p], vkq = v[k * n + q];
                    v[k * n + p] = cs * vkp - sn * vkq;
                    v[k * n + q] = sn * vkp + cs * vkq;
                }
            }
    }
    for (int i = 0; i < n; i++)
        w[i] = a[i * n + i];
}

void tf_qkmap_free(TfQkMap *m)
{
    free(m->q);
    free(m->k);
    m->q = m->k = NULL;
}

int tf_qkmap(const float *q, int nq, int qs, const float *k, int nk, int ks, int dk, TfQkMap *out,
             TfErr *err)
{
    memset(out, 0, sizeof *out);
    if (nq < 1 || nk < 1)
        return tf_fail(err, "a query/key map needs a query and a key (got %d and %d)", nq, nk);
    if (dk < 1 || dk > QK_MAX_DK)
        return tf_fail(err, "a head of %d dimensions (1..%d)", dk, QK_MAX_DK);
    int n = nq + nk;
    double *x = malloc((size_t)n * dk * sizeof *x);
    double *cov = calloc((size_t)dk * dk, sizeof *cov), *vec = malloc((size_t)dk * dk * sizeof *vec);
    double *w = malloc((size_t)dk * sizeof *w), *mq = calloc((size_t)dk, sizeof *mq);
    double *mk = calloc((size_t)dk, sizeof *mk), *mu = calloc((size_t)dk, sizeof *mu);
    out->q = malloc((size_t)nq * 2 * sizeof *out->q);
    out->k = malloc((size_t)nk * 2 * sizeof *out->k);
    int rc = -1;
    if (!x || !cov || !vec || !w || !mq || !mk || !mu || !out->q || !out->k) {
        tf_fail(err, "out of memory for a map of %d points", n);
        goto done;
    }
    out->nq = nq;
    out->nk = nk;
    /* rows: q_i, then k_j translated so that mean(k) = mean(q) */
    for (int i = 0; i < nq; i++)
        for (int d = 0; d < dk; d++) {
            x[(size_t)i * dk + d] = q[(size_t)i * qs + d];
            mq[d] += q[(size_t)i * qs + d] / nq;
        }
    for (int j = 0; j < nk; j++)
        for (int d = 0; d < dk; d++)
            mk[d] += k[(size_t)j * ks + d] / (double)nk;
    for (int j = 0; j < nk; j++)
        for (int d = 0; d < dk; d++)
            x[(size_t)(nq + j) * dk + d] = k[(size_t)j * ks + d] - mk[d] + mq[d];
    /* c = sqrt(mean |k| / mean |q|): q * c, k / c */
    double nqm = 0, nkm = 0;
    for (int i = 0; i < n; i++) {
        double s = 0;
        for (int d = 0; d < dk; d++)
            s += x[(size_t)i * dk + d] * x[(size_t)i * dk + d];
        if (i < nq)
            nqm += sqrt(s) / nq;
        else
            nkm += sqrt(s) / nk;
    }
    double c = nqm > 0 && nkm > 0 ? sqrt(nkm / nqm) : 1.0;
    out->scale = c;
    for (int i = 0; i < n; i++)
        for (int d = 0; d < dk; d++)
            x[(size_t)i * dk + d] *= i < nq ? c : 1.0 / c;
    /* PCA: centre on the joint mean, covariance, its two largest axes */
    for (int i = 0; i < n; i++)
        for (int d = 0; d < dk; d++)
            mu[d] += x[(size_t)i * dk + d] / n;
    for (int i = 0; i < n; i++) {
        double *r = x + (size_t)i * dk;
        for (int d = 0; d < dk; d++)
            r[d] -= mu[d];
        for (int a = 0; a < dk; a++)
            for (int b = a; b < dk; b++)
                cov[a * dk + b] += r[a] * r[b] / n;
    }
    for (int a = 0; a < dk; a++)
        for (int b = 0; b < a; b++)
            cov[a * dk + b] = cov[b * dk + a];
    jacobi(cov, dk, w, vec);
    int ax[2] = {-1, -1};
    double total = 0;
    for (int d = 0; d < dk; d++) {
        total += w[d] > 0 ? w[d] : 0;
        if (ax[0] < 0 || w[d] > w[ax[0]]) {
            ax[1] = ax[0];
            ax[0] = d;
        } else if (ax[1] < 0 || w[d] > w[ax[1]]) {
            ax[1] = d;
        }
    }
    for (int a = 0; a < 2; a++) {
        int col = ax[a];
        double u[QK_MAX_DK];
        int big = 0;
        for (int d = 0; d < dk; d++) {
            u[d] = col >= 0 ? vec[d * dk + col] : 0;
            big = fabs(u[d]) > fabs(u[big]) ? d : big;
        }
        if (u[big] < 0) /* the sign: the largest component positive */
            for (int d = 0; d < dk; d++)
                u[d] = -u[d];
        out->explained[a] = col >= 0 && total > 0 && w[col] > 0 ? w[col] / total : 0;
        for (int i = 0; i < n; i++) {
            double s = 0;
            for (int d = 0; d < dk; d++)
                s += x[(size_t)i * dk + d] * u[d];
            if (i < nq)
                out->q[i * 2 + a] = s;
            else
                out->k[(i - nq) * 2 + a] = s;
        }
    }
    rc = 0;
done:
    free(x);
    free(cov);
    free(vec);
    free(w);
    free(mq);
    free(mk);
    free(mu);
    if (rc)
        tf_qkmap_free(out);
    return rc;
}

int tf_qk_rows(const TfTrace *tr, TfAttnKind kind, int layer, int head, int b, float *q, int *qpos, int *nq,
               float *k, int *kpos, int *nk, int cap, TfErr *err)
{
    const TfConfig *c = &tr->cfg;
    if (!(tr->flags & TRACE_RECORD))
        return tf_fail(err, "this trace was computed without recording stages");
    int layers = kind == TF_ATTN_ENC ? c->n_enc : c->n_dec;
    if (layer < 0 || layer >= layers)
        return tf_fail(err, "layer %d is out of range for %s (0..%d)", layer, tf_attn_kind_name(kind), layers - 1);
    if (head < 0 || head >= c->n_heads)
        return tf_fail(err, "head %d is out of range (0..%d)", head, c->n_heads - 1);
    if (b < 0 || b >= tr->B || (kind != TF_ATTN_ENC && tr->T < 1))
        return tf_fail(err, "sentence %d has not been computed", b);
    const AttnAct *a = kind == TF_ATTN_ENC ? &tr->enc[layer].sa
                       : kind == TF_ATTN_DEC ? &tr->dec[layer].sa : &tr->dec[layer].ca;
    int dk = c->d_model / c->n_heads;
    int Tq = kind == TF_ATTN_ENC ? tr->S : tr->T, Tk = kind == TF_ATTN_DEC ? tr->T : tr->S;
    int lq = kind == TF_ATTN_ENC ? tr->src_len[b] : tr->tgt_len[b];
    int lk = kind == TF_ATTN_DEC ? tr->tgt_len[b] : tr->src_len[b];
    if (*nq + lq > cap || *nk + lk > cap)
        return tf_fail(err, "more than %d points in the map", cap);
    for (int i = 0; i < lq; i++) {
        memcpy(q + (size_t)*nq * dk, a->q + ((size_t)b * Tq + i) * a->qs + (size_t)head * dk, (size_t)dk * sizeof *q);
        qpos[(*nq)++] = i;
    }
    for (int j = 0; j < lk; j++) {
        memcpy(k + (size_t)*nk * dk, a->k + ((size_t)b * Tk + j) * a->kvs + (size_t)head * dk, (size_t)dk * sizeof *k);
        kpos[(*nk)++] = j;
    }
    return 0;
}

static int side_grow(TfQkSide *s, int cap, int dk)
{
    int bad = 0;
    s->x = tf_regrow(s->x, (size_t)cap * dk * sizeof *s->x, &bad);
    s->pos = tf_regrow(s->pos, (size_t)cap * sizeof *s->pos, &bad);
    s->tok = tf_regrow(s->tok, (size_t)cap * sizeof *s->tok, &bad);
    return bad ? -1 : 0;
}

int tf_qk_points_add(TfQkPoints *p, const TfTrace *tr, TfAttnKind kind, int layer, int head, int b, TfErr *err)
{
    const TfConfig *c = &tr->cfg;
    int dk = c->d_model / c->n_heads, need = tr->S > tr->T ? tr->S : tr->T;
    if (p->dk && p->dk != dk)
        return tf_fail(err, "a map cannot hold heads of %d and of %d dimensions", p->dk, dk);
    p->dk = dk;
    if (p->q.n + need > p->cap || p->k.n + need > p->cap) {
        int cap = p->cap ? p->cap : need;
        while (cap < p->q.n + need || cap < p->k.n + need)
            cap *= 2;
        if (side_grow(&p->q, cap, dk) || side_grow(&p->k, cap, dk))
            return tf_fail(err, "out of memory for %d points", cap);
        p->cap = cap;
    }
    int q0 = p->q.n, k0 = p->k.n;
    if (tf_qk_rows(tr, kind, layer, head, b, p->q.x, p->q.pos, &p->q.n, p->k.x, p->k.pos, &p->k.n, p->cap, err))
        return -1;
    int Tq = kind == TF_ATTN_ENC ? tr->S : tr->T, Tk = kind == TF_ATTN_DEC ? tr->T : tr->S;
    const int *qids = (kind == TF_ATTN_ENC ? tr->src_ids : tr->tgt_ids) + (size_t)b * Tq;
    const int *kids = (kind == TF_ATTN_DEC ? tr->tgt_ids : tr->src_ids) + (size_t)b * Tk;
    for (int i = q0; i < p->q.n; i++)
        p->q.tok[i] = qids[p->q.pos[i]];
    for (int j = k0; j < p->k.n; j++)
        p->k.tok[j] = kids[p->k.pos[j]];
    return 0;
}

static void side_free(TfQkSide *s)
{
    free(s->x);
    free(s->pos);
    free(s->tok);
}

void tf_qk_points_free(TfQkPoints *p)
{
    side_free(&p->q);
    side_free(&p->k);
    memset(p, 0, sizeof *p);
}
