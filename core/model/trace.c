/* trace.c - one allocation for every intermediate of a forward pass. */
#include "trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"
#include "sysmem.h"

/* Two passes over the same layout: the first counts, the second hands out
 * pointers into the block. */
typedef struct Plan {
    float *base;
    size_t used;
    size_t *sizes; /* if not NULL, the size of every slice, in order */
    int n;         /* slices taken */
} Plan;

static float *take(Plan *p, size_t n)
{
    float *at = p->base ? p->base + p->used : NULL;
    if (p->sizes)
        p->sizes[p->n] = n;
    p->n++;
    p->used += (n + 15) & ~(size_t)15; /* 64-byte aligned slices */
    return at;
}

static void plan_attn(Plan *p, AttnAct *a, int cross, size_t BT, size_t BS,
                      size_t C, size_t att, size_t msk, int train, int record)
{
    if (cross) {
        a->qkv = take(p, BT * C);
        a->kv = take(p, BS * 2 * C);
        a->q = a->qkv;
        a->k = a->kv;
        a->v = a->kv ? a->kv + C : NULL;
        a->qs = (int)C;
        a->kvs = (int)(2 * C);
    } else {
        a->qkv = take(p, BT * 3 * C);
        a->kv = NULL;
        a->q = a->qkv;
        a->k = a->qkv ? a->qkv + C : NULL;
        a->v = a->qkv ? a->qkv + 2 * C : NULL;
        a->qs = a->kvs = (int)(3 * C);
    }
    a->scores = take(p, att);
    a->weights = record ? take(p, att) : a->scores;
    a->mask = record ? take(p, msk) : NULL;
    a->heads = take(p, BT * C);
    a->out = take(p, BT * C);
    a->drop = train ? take(p, BT * C) : NULL;
}

/* A feed-forward sub-layer: hidden (BT, F), output and its dropout mask. */
static void plan_ffn(Plan *p, float **hidden, float **out, float **drop, size_t BT, size_t C,
                     size_t F, int train)
{
    *hidden = take(p, BT * F);
    *out = take(p, BT * C);
    *drop = train ? take(p, BT * C) : NULL;
}

static void plan_norm(Plan *p, NormAct *n, size_t BT, size_t C)
{
    n->sum = take(p, BT * C);
    n->norm = take(p, BT * C);
    n->mean = take(p, BT);
    n->rstd = take(p, BT);
}

static void plan(Plan *p, TfTrace *tr)
{
    const TfConfig *c = &tr->cfg;
    int train = (tr->flags & TRACE_TRAIN) != 0;
    int record = (tr->flags & TRACE_RECORD) != 0;
    size_t C = (size_t)c->d_model, F = (size_t)c->d_ff, NH = (size_t)c->n_heads;
    size_t BT = (size_t)tr->cap_B * tr->cap_T;
    size_t att = BT * tr->cap_T * NH, msk = BT * tr->cap_T;

    tr->pe = take(p, (size_t)tr->cap_T * C);
    tr->src_embed = take(p, BT * C);
    tr->enc_in = take(p, BT * C);
    tr->src_drop = train ? take(p, BT * C) : NULL;
    tr->tgt_embed = take(p, BT * C);
    tr->dec_in = take(p, BT * C);
    tr->tgt_drop = train ? take(p, BT * C) : NULL;
    /* without TRACE_RECORD every layer reuses the first layer's buffers */
    int n_enc = record ? c->n_enc : 1, n_dec = record ? c->n_dec : 1;
    for (int l = 0; l < n_enc; l++) {
        EncLayerAct *e = &tr->enc[l];
        plan_attn(p, &e->sa, 0, BT, BT, C, att, msk, train, record);
        plan_norm(p, &e->n1, BT, C);
        plan_norm(p, &e->n2, BT, C);
        plan_ffn(p, &e->ffn_hidden, &e->ffn_out, &e->ffn_drop, BT, C, F, train);
    }
    for (int l = n_enc; l < c->n_enc; l++)
        tr->enc[l] = tr->enc[0];
    for (int l = 0; l < n_dec; l++) {
        DecLayerAct *d = &tr->dec[l];
        plan_attn(p, &d->sa, 0, BT, BT, C, att, msk, train, record);
        plan_attn(p, &d->ca, 1, BT, BT, C, att, msk, train, record);
        for (int k = 0; k < 3; k++)
            plan_norm(p, k == 0 ? &d->n1 : k == 1 ? &d->n2 : &d->n3, BT, C);
        plan_ffn(p, &d->ffn_hidden, &d->ffn_out, &d->ffn_drop, BT, C, F, train);
    }
    for (int l = n_dec; l < c->n_dec; l++)
        tr->dec[l] = tr->dec[0];
    if (c->norm == TF_NORM_PRE) {
        plan_norm(p, &tr->enc_final, BT, C);
        plan_norm(p, &tr->dec_final, BT, C);
    } else {
        memset(&tr->enc_final, 0, sizeof tr->enc_final);
        memset(&tr->dec_final, 0, sizeof tr->dec_final);
    }
    tr->logits = take(p, BT * (size_t)c->tgt_vocab);
    tr->probs = take(p, BT * (size_t)c->tgt_vocab);
}

static void set_outputs(TfTrace *tr)
{
    const TfConfig *c = &tr->cfg;
    if (c->norm == TF_NORM_PRE) {
        tr->memory = tr->enc_final.norm;
        tr->dec_out = tr->dec_final.norm;
    } else {
        tr->memory = tr->enc[c->n_enc - 1].n2.norm;
        tr->dec_out = tr->dec[c->n_dec - 1].n3.norm;
    }
}

/* Lay out a trace of cfg for (cap_B, cap_T) without allocating: the total
 * and, if sizes is not NULL, every slice's size in plan order. */
static Plan plan_dry(const TfConfig *cfg, int cap_B, int cap_T, int flags, size_t *sizes)
{
    TfTrace tr;
    memset(&tr, 0, sizeof tr);
    tr.cfg = *cfg;
    tr.cap_B = cap_B;
    tr.cap_T = cap_T;
    tr.flags = flags;
    EncLayerAct enc[TF_MAX_LAYERS];
    DecLayerAct dec[TF_MAX_LAYERS];
    tr.enc = enc;
    tr.dec = dec;
    Plan p = {NULL, 0, sizes, 0};
    plan(&p, &tr);
    return p;
}

size_t trace_floats(const TfConfig *cfg, int cap_B, int cap_T, int flags)
{
    return plan_dry(cfg, cap_B, cap_T, flags, NULL).used;
}

size_t trace_bytes(const TfConfig *cfg, int cap_B, int cap_T, int flags)
{
    return trace_floats(cfg, cap_B, cap_T, flags) * sizeof(float) +
           (size_t)cap_B * (2 * (size_t)cap_T + 2) * sizeof(int) +
           (size_t)(cfg->n_enc * sizeof(EncLayerAct) + cfg->n_dec * sizeof(DecLayerAct));
}

int trace_build(TfTrace *tr, const TfConfig *cfg, int cap_B, int cap_T,
                int flags, TfErr *err)
{
    memset(tr, 0, sizeof *tr);
    if (cfg_validate(cfg, err))
        return -1;
    if (cap_B < 1 || cap_B > 4096)
        return tf_fail(err, "batch capacity %d is out of range [1, 4096]", cap_B);
    if (cap_T < 1 || cap_T > cfg->max_len)
        return tf_fail(err, "sequence capacity %d is out of range [1, %d]",
                       cap_T, cfg->max_len);
    size_t n = trace_floats(cfg, cap_B, cap_T, flags);
    char what[96];
    snprintf(what, sizeof what, "a trace for %d x %d tokens", cap_B, cap_T);
    if (tf_mem_check(trace_bytes(cfg, cap_B, cap_T, flags), what, err))
        return -1;
    tr->cfg = *cfg;
    tr->cap_B = cap_B;
    tr->cap_T = cap_T;
    tr->flags = flags;
    tr->enc = calloc((size_t)cfg->n_enc, sizeof *tr->enc);
    tr->dec = calloc((size_t)cfg->n_dec, sizeof *tr->dec);
    tr->block = aligned_alloc(64, ((n * sizeof(float)) + 63) & ~(size_t)63);
    tr->iblock = calloc((size_t)cap_B * (2 * (size_t)cap_T + 2), sizeof(int));
    if (!tr->enc || !tr->dec || !tr->block || !tr->iblock) {
        trace_free(tr);
        return tf_fail(err, "out of memory for a trace of %.1f MiB",
                       (double)n * 4 / (1 << 20));
    }
    memset(tr->block, 0, n * sizeof(float));
    tr->n_floats = n;
    Plan p = {tr->block, 0, NULL, 0};
    plan(&p, tr);
    set_outputs(tr);
    tr->src_ids = tr->iblock;
    tr->tgt_ids = tr->src_ids + (size_t)cap_B * cap_T;
    tr->src_len = tr->tgt_ids + (size_t)cap_B * cap_T;
    tr->tgt_len = tr->src_len + cap_B;
    pe_table_layout(tr->pe, cap_T, cfg->d_model, cfg->pe_layout == TF_PE_HALVES);
    rng_seed(&tr->drop_rng, 0x5eed);
    return 0;
}

void trace_free(TfTrace *tr)
{
    if (!tr)
        return;
    free(tr->enc);
    free(tr->dec);
    free(tr->block);
    free(tr->iblock);
    memset(tr, 0, sizeof *tr);
}

/* The next capacity for n, growing in steps (powers of two up to the
 * limit), so that typing a longer sentence rebuilds the trace only a few
 * times. */
static int grown(int have, int n, int limit)
{
    if (n <= have)
        return have;
    int c = 8;
    while (c < n)
        c *= 2;
    return c < limit ? c : limit;
}

/* Copy what the old trace holds into the new one: buffers are compact for
 * the current B, S, T, so every slice's contents are a prefix of it and
 * the new slice (at least as large) takes it whole. */
static void copy_contents(TfTrace *to, const TfTrace *from, const size_t *old_sz,
                          const size_t *new_sz, int n)
{
    size_t po = 0, pn = 0;
    for (int i = 0; i < n; i++) {
        memcpy(to->block + pn, from->block + po, old_sz[i] * sizeof(float));
        po += (old_sz[i] + 15) & ~(size_t)15;
        pn += (new_sz[i] + 15) & ~(size_t)15;
    }
    size_t BS = (size_t)from->B * from->S, BT = (size_t)from->B * from->T;
    memcpy(to->src_ids, from->src_ids, BS * sizeof(int));
    memcpy(to->tgt_ids, from->tgt_ids, BT * sizeof(int));
    memcpy(to->src_len, from->src_len, (size_t)from->B * sizeof(int));
    memcpy(to->tgt_len, from->tgt_len, (size_t)from->B * sizeof(int));
    to->B = from->B;
    to->S = from->S;
    to->T = from->T;
    to->drop_rng = from->drop_rng;
    to->exp = from->exp;
    to->enc_dropped = from->enc_dropped;
    to->dec_dropped = from->dec_dropped;
}

int trace_reserve(TfTrace *tr, int B, int T, TfErr *err)
{
    if (B <= tr->cap_B && T <= tr->cap_T)
        return 0;
    const TfConfig *c = &tr->cfg;
    if (T > c->max_len)
        return tf_fail(err, "%d tokens are more than the model's max_len of %d", T, c->max_len);
    if (B > 4096)
        return tf_fail(err, "a batch of %d sentences is more than 4096", B);
    int nB = B > tr->cap_B ? B : tr->cap_B;
    int nT = grown(tr->cap_T, T, c->max_len);
    /* a step that would not fit may still fit exactly */
    if (nT > T && tf_mem_check(trace_bytes(c, nB, nT, tr->flags), "", NULL))
        nT = T > tr->cap_T ? T : tr->cap_T;
    int n_slices = plan_dry(c, nB, nT, tr->flags, NULL).n;
    size_t *sz = malloc(2 * (size_t)n_slices * sizeof *sz);
    if (!sz)
        return tf_fail(err, "out of memory growing a trace");
    plan_dry(c, tr->cap_B, tr->cap_T, tr->flags, sz);
    plan_dry(c, nB, nT, tr->flags, sz + n_slices);
    TfTrace next;
    if (trace_build(&next, c, nB, nT, tr->flags, err)) {
        free(sz);
        return -1;
    }
    copy_contents(&next, tr, sz, sz + n_slices, n_slices);
    free(sz);
    trace_free(tr);
    *tr = next;
    return 0;
}
