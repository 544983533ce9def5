/* decstep.c - one decoder position at a time over a key/value cache
 * (decstep.h). The arithmetic is the full pass's (forward.c): the same ops,
 * the same order of the sub-layers, post-LN or pre-LN. */
#include "decstep.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "ops.h"
#include "ops_model.h"
#include "parallel.h"
#include "rows.h"

/* A few rows through a Linear, out(R,N) = in(R,K) @ w(N,K)^T + b. A step
 * reads every weight once and does little arithmetic with it: at one row
 * sgemv (sgemm of a single row first repacks the matrix), at 2..8 rows
 * (beam hypotheses) rows_dot, which reads each weight row once for all R
 * rows with the CPU's widest vectors.
 * The output columns are split between the two cores by shape (the same
 * bits every run). */
typedef struct RowsJob {
    float *out;
    const float *in, *w;
    int R, K, N;
} RowsJob;

static void rows_part(void *p, int part)
{
    RowsJob *j = p;
    int h = j->N / 2, n0 = part ? h : 0, n1 = part ? j->N : h, K = j->K;
    if (n1 <= n0)
        return;
    if (j->R == 1)
        cblas_sgemv(CblasRowMajor, CblasNoTrans, n1 - n0, K, 1.0f, j->w + (size_t)n0 * K, K, j->in, 1,
                    1.0f, j->out + n0, 1);
    else
        rows_dot(j->out, j->in, j->w, j->R, K, n0, n1, j->N);
}

static void step_linear(float *out, const float *in, const float *w, const float *b, int R, int K,
                        int N)
{
    if (R > ROWS_MAX) {
        linear_forward(out, in, w, b, R, K, N);
        return;
    }
    for (int r = 0; r < R; r++)
        if (b)
            memcpy(out + (size_t)r * N, b, (size_t)N * sizeof *b);
        else
            memset(out + (size_t)r * N, 0, (size_t)N * sizeof *out);
    RowsJob j = {out, in, w, R, K, N};
    if ((size_t)N * K >= (1u << 16))
        par_two(rows_part, &j);
    else {
        rows_part(&j, 0);
        rows_part(&j, 1);
    }
}

int kv_supported(const TfExperiment *e)
{
    return !e->no_causal;
}

void kv_free(TfKvCache *kv)
{
    if (kv) {
        free(kv->block);
        free(kv->hide);
        *kv = (TfKvCache){0};
    }
}

int kv_init(TfKvCache *kv, const TfModel *m, const TfExperiment *exp, const float *memory,
            int S, int cap_R, int cap_T, TfErr *err)
{
    const TfConfig *c = &m->cfg;
    memset(kv, 0, sizeof *kv);
    if (cap_R < 1 || cap_T < 1 || cap_T > c->max_len || S < 1 || S > c->max_len)
        return tf_fail(err, "a key/value cache of %d rows x %d positions (source %d) does not fit "
                       "the model's limit of %d", cap_R, cap_T, S, c->max_len);
    if (!kv_supported(exp))
        return tf_fail(err, "incremental decoding cannot reproduce the no-causal experiment");
    *kv = (TfKvCache){.L = c->n_dec, .C = c->d_model, .NH = c->n_heads, .F = c->d_ff,
                      .V = c->tgt_vocab, .cap_R = cap_R, .cap_T = cap_T, .S = S, .exp = *exp};
    size_t L = (size_t)kv->L, C = (size_t)kv->C, R = (size_t)cap_R, Tc = (size_t)cap_T;
    size_t cache = L * R * Tc * C, kmax = Tc > (size_t)S ? Tc : (size_t)S;
    size_t cache2 = cap_R > 1 ? cache : 0; /* the reorder's second copy: beam only */
    size_t n = 2 * cache + 2 * cache2 + L * S * 2 * C + (m->pe_tgt ? 0 : Tc * C) + R * C * 5 + R * 3 * C +
               R * kv->F + 2 * R + (size_t)kv->NH * R * kmax + R * kv->V;
    float *p = kv->block = malloc(n * sizeof(float));
    if (!p)
        return tf_fail(err, "out of memory for a key/value cache of %.1f MiB",
                       (double)n * 4 / (1 << 20));
#define TAKE(field, count) (kv->field = p, p += (count))
    TAKE(k, cache);
    TAKE(v, cache);
    TAKE(k2, cache2);
    TAKE(v2, cache2);
    TAKE(mem_kv, L * S * 2 * C);
    if (!m->pe_tgt)
        TAKE(own_pe, Tc * C);
    TAKE(x, R * C);
    TAKE(nrm, R * C);
    TAKE(sum, R * C);
    TAKE(heads, R * C);
    TAKE(out, R * C);
    TAKE(qkv, R * 3 * C);
    TAKE(hid, R * kv->F);
    TAKE(mean, R);
    TAKE(rstd, R);
    TAKE(att, (size_t)kv->NH * R * kmax);
    TAKE(logits, R * kv->V);
#undef TAKE
    if (m->pe_tgt) {
        kv->pe = m->pe_tgt;
    } else {
        pe_table_layout(kv->own_pe, cap_T, c->d_model, c->pe_layout == TF_PE_HALVES);
        kv->pe = kv->own_pe;
    }
    if (exp->n_hide) {
        kv->hide = calloc((size_t)S, 1);
        if (!kv->hide) {
            kv_free(kv);
            return tf_fail(err, "out of memory for a key/value cache");
        }
        for (int i = 0; i < exp->n_hide; i++)
            if (exp->hide_src[i] < S)
                kv->hide[exp->hide_src[i]] = 1;
    }
    /* cross-attention K/V: the memory through W_K, W_V, once per sentence */
    for (int l = 0; l < kv->L; l++) {
        LayerParams W = params_dec_layer(&m->p, c, l);
        linear_forward(kv->mem_kv + (size_t)l * S * 2 * C, memory, W.ca.qkv_w + C * C,
                       W.ca.qkv_b + C, S, (int)C, (int)(2 * C));
    }
    return 0;
}

/* A sub-layer's input: x, or LN(x) pre-LN. */
static const float *sub_in(TfKvCache *kv, const float *x, const float *w, const float *b, int post,
                           int R)
{
    if (post)
        return x;
    layernorm_forward(kv->nrm, kv->mean, kv->rstd, x, w, b, R, kv->C);
    return kv->nrm;
}

/* x = x + out (out alone under no-residual), then LN post-LN (in place:
 * the step keeps one residual row). */
static void sub_out(TfKvCache *kv, float *x, const float *out, const float *w, const float *b,
                    int post, int R)
{
    size_t n = (size_t)R * kv->C;
    if (kv->exp.no_residual)
        memcpy(kv->sum, out, n * sizeof(float));
    else
        add_forward(kv->sum, x, out, n);
    if (post)
        layernorm_forward(x, kv->mean, kv->rstd, kv->sum, w, b, R, kv->C);
    else
        memcpy(x, kv->sum, n * sizeof(float));
}

/* Masked self-attention of the new position of each row over its cache. */
static void self_step(TfKvCache *kv, int l, int R, float *self_w)
{
    int C = kv->C, NH = kv->NH, t = kv->T, Tk = t + 1;
    size_t lay = (size_t)l * kv->cap_R * kv->cap_T * C;
    for (int r = 0; r < R; r++) {
        size_t row = lay + ((size_t)r * kv->cap_T + t) * C;
        memcpy(kv->k + row, kv->qkv + (size_t)r * 3 * C + C, (size_t)C * sizeof(float));
        memcpy(kv->v + row, kv->qkv + (size_t)r * 3 * C + 2 * C, (size_t)C * sizeof(float));
    }
    for (int r = 0; r < R; r++) {
        size_t base = lay + (size_t)r * kv->cap_T * C;
        /* one query against keys 0..t: everything it may see, no mask */
        AttnDims d = {1, 1, Tk, C, NH, 3 * C, C, 0, &Tk, kv->exp.no_scale, NULL};
        attention_forward(kv->heads + (size_t)r * C, kv->att, NULL, kv->att,
                          kv->qkv + (size_t)r * 3 * C, kv->k + base, kv->v + base, &d);
        if (self_w)
            for (int h = 0; h < NH; h++)
                memcpy(self_w + (((size_t)r * kv->L + l) * NH + h) * Tk, kv->att + (size_t)h * Tk,
                       (size_t)Tk * sizeof(float));
    }
}

/* Cross-attention of the R queries over the memory: one sentence of R
 * query rows (no causal mask in cross-attention). */
static void cross_step(TfKvCache *kv, int l, int R, float *cross_w)
{
    int C = kv->C, NH = kv->NH, S = kv->S;
    const float *kvm = kv->mem_kv + (size_t)l * S * 2 * C;
    AttnDims d = {1, R, S, C, NH, C, 2 * C, 0, &S, kv->exp.no_scale, kv->hide};
    attention_forward(kv->heads, kv->att, NULL, kv->att, kv->qkv, kvm, kvm + C, &d);
    if (cross_w)
        for (int r = 0; r < R; r++)
            for (int h = 0; h < NH; h++)
                memcpy(cross_w + (((size_t)r * kv->L + l) * NH + h) * S,
                       kv->att + ((size_t)h * R + r) * S, (size_t)S * sizeof(float));
}

static void ffn_step(TfKvCache *kv, const TfConfig *c, const float *in, const LayerParams *W, int R)
{
    step_linear(kv->hid, in, W->f1w, W->f1b, R, kv->C, kv->F);
    act_forward(c->act, kv->hid, (size_t)R * kv->F);
    step_linear(kv->out, kv->hid, W->f2w, W->f2b, R, kv->F, kv->C);
}

int kv_step(TfKvCache *kv, const TfModel *m, const int *tok, int R, float *self_w,
            float *cross_w, TfErr *err)
{
    const TfConfig *c = &m->cfg;
    int C = kv->C, t = kv->T;
    if (t >= kv->cap_T || R < 1 || R > kv->cap_R || (t > 0 && R > kv->R))
        return tf_fail(err, "the key/value cache holds %d rows x %d positions: no room for "
                       "%d rows at position %d", kv->cap_R, kv->cap_T, R, t);
    for (int r = 0; r < R; r++)
        if (tok[r] < 0 || tok[r] >= c->tgt_vocab)
            return tf_fail(err, "target token id %d is outside the vocabulary of %d", tok[r],
                           c->tgt_vocab);
    /* dec.input = E[token] * sqrt(C) + PE[t] */
    float scale = c->no_embed_scale ? 1.0f : sqrtf((float)C);
    embed_forward(kv->x, tok, m->p.tgt_embed, scale, kv->exp.no_pe ? NULL : kv->pe + (size_t)t * C,
                  R, 1, C);
    int post = c->norm == TF_NORM_POST;
    for (int l = 0; l < kv->L; l++) {
        LayerParams W = params_dec_layer(&m->p, c, l);
        /* 1. masked self-attention: the new row's K, V join the cache */
        const float *in = sub_in(kv, kv->x, W.ln_w[0], W.ln_b[0], post, R);
        step_linear(kv->qkv, in, W.sa.qkv_w, W.sa.qkv_b, R, C, 3 * C);
        self_step(kv, l, R, self_w);
        ablate_heads(kv->heads, &kv->exp, TF_ATTN_DEC, l, R, C, kv->NH);
        step_linear(kv->out, kv->heads, W.sa.o_w, W.sa.o_b, R, C, C);
        sub_out(kv, kv->x, kv->out, W.ln_w[0], W.ln_b[0], post, R);
        /* 2. cross-attention: the query is new, K/V were computed once */
        in = sub_in(kv, kv->x, W.ln_w[1], W.ln_b[1], post, R);
        step_linear(kv->qkv, in, W.ca.qkv_w, W.ca.qkv_b, R, C, C);
        cross_step(kv, l, R, cross_w);
        ablate_heads(kv->heads, &kv->exp, TF_ATTN_CROSS, l, R, C, kv->NH);
        step_linear(kv->out, kv->heads, W.ca.o_w, W.ca.o_b, R, C, C);
        sub_out(kv, kv->x, kv->out, W.ln_w[1], W.ln_b[1], post, R);
        /* 3. feed-forward */
        in = sub_in(kv, kv->x, W.ln_w[2], W.ln_b[2], post, R);
        ffn_step(kv, c, in, &W, R);
        if (tf_exp_ffn_off(&kv->exp, TF_ATTN_DEC, l))
            memset(kv->out, 0, (size_t)R * C * sizeof(float));
        sub_out(kv, kv->x, kv->out, W.ln_w[2], W.ln_b[2], post, R);
    }
    const float *y = kv->x;
    if (c->norm == TF_NORM_PRE) {
        layernorm_forward(kv->nrm, kv->mean, kv->rstd, kv->x, m->p.dec_lnf_w, m->p.dec_lnf_b, R, C);
        y = kv->nrm;
    }
    step_linear(kv->logits, y, m->p.gen_w, m->p.gen_b, R, C, kv->V);
    kv->R = R;
    kv->T = t + 1;
    return 0;
}

void kv_reorder(TfKvCache *kv, const int *parent, int R)
{
    if (kv->cap_R == 1) /* one row: its parent is itself, and there is no second copy */
        return;
    int same = 1; /* each row its own parent: the rows stay where they are */
    for (int r = 0; r < R && same; r++)
        same = parent[r] == r;
    if (same) {
        kv->R = R;
        return;
    }
    size_t C = (size_t)kv->C, per = (size_t)kv->cap_T * C, used = (size_t)kv->T * C;
    for (int l = 0; l < kv->L; l++) {
        size_t lay = (size_t)l * kv->cap_R * per;
        for (int r = 0; r < R; r++) {
            memcpy(kv->k2 + lay + r * per, kv->k + lay + (size_t)parent[r] * per, used * sizeof(float));
            memcpy(kv->v2 + lay + r * per, kv->v + lay + (size_t)parent[r] * per, used * sizeof(float));
        }
    }
    float *t = kv->k;
    kv->k = kv->k2;
    kv->k2 = t;
    t = kv->v;
    kv->v = kv->v2;
    kv->v2 = t;
    kv->R = R;
}

double kv_step_bytes(const TfConfig *c)
{
    double C = c->d_model, F = c->d_ff, V = c->tgt_vocab;
    double layer = (3 * C * C + 3 * C) + (C * C + C) /* self-attention */
                   + (C * C + C) + (C * C + C)       /* cross: W_Q and W_O */
                   + (2 * C * F + F + C)             /* feed-forward */
                   + 6 * C;                          /* LayerNorms */
    return 4.0 * (c->n_dec * layer + V * C + V);
}
