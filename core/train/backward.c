/* backward.c - the backward pass of the encoder-decoder (see train.h).
 *
 * The forward pass (forward.c) is walked in reverse, one op at a time, each
 * forward line restated in a comment above the call that differentiates it.
 * Parameter gradients accumulate (+=) into a TfParams laid out like the
 * model's; because tied matrices are aliases in that layout, the gradients
 * of the target embedding, the source embedding (TF_TIE_ALL) and the
 * pre-softmax projection add up in the same floats, as they must.
 *
 * Activation gradients live in a TfBackWork: the residual stream needs only
 * two buffers (the gradient arriving at a layer's output and a spare), the
 * encoder output (memory) one more, summed over every decoder layer's
 * cross-attention, and each sub-layer a few scratch buffers reused by the
 * next. "d_x" below always means dLoss/dx.
 *
 * Shapes: B sentences, S source and T target positions, C = d_model,
 * F = d_ff, NH heads, V = target vocabulary; N = B*T (or B*S) rows. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"
#include "train.h"

/* ---------------------------------------------------------------------- */
/* Workspace                                                               */
/* ---------------------------------------------------------------------- */

int backwork_build(TfBackWork *w, const TfConfig *cfg, int cap_B, int cap_T,
                   TfErr *err)
{
    memset(w, 0, sizeof *w);
    if (cfg_validate(cfg, err))
        return -1;
    if (cap_B < 1 || cap_B > 4096 || cap_T < 1 || cap_T > cfg->max_len)
        return tf_fail(err, "backward workspace for %d x %d tokens is out of range",
                       cap_B, cap_T);
    size_t BT = (size_t)cap_B * cap_T, C = (size_t)cfg->d_model;
    size_t F = (size_t)cfg->d_ff, V = (size_t)cfg->tgt_vocab;
    size_t sizes[] = {BT * V, BT * C, BT * C, BT * C, BT * C, BT * C,
                      BT * C, BT * 3 * C, BT * 2 * C, BT * F,
                      (size_t)cap_T * cap_T};
    float **slots[] = {&w->d_logits, &w->d_a, &w->d_b, &w->d_ea, &w->d_mem,
                       &w->d_out, &w->d_heads, &w->d_qkv, &w->d_kv,
                       &w->d_hidden, &w->scratch};
    enum { NSLOT = sizeof sizes / sizeof sizes[0] };
    size_t total = 0;
    for (int i = 0; i < NSLOT; i++)
        total += (sizes[i] + 15) & ~(size_t)15;
    w->block = aligned_alloc(64, total * sizeof(float));
    if (!w->block)
        return tf_fail(err, "out of memory for the backward pass (%.1f MiB)",
                       (double)total * 4 / (1 << 20));
    memset(w->block, 0, total * sizeof(float));
    float *at = w->block;
    for (int i = 0; i < NSLOT; i++) {
        *slots[i] = at;
        at += (sizes[i] + 15) & ~(size_t)15;
    }
    w->cfg = *cfg;
    w->cap_B = cap_B;
    w->cap_T = cap_T;
    w->n_floats = total;
    return 0;
}

void backwork_free(TfBackWork *w)
{
    if (w) {
        free(w->block);
        *w = (TfBackWork){0};
    }
}

/* ---------------------------------------------------------------------- */
/* Sub-layers                                                              */
/* ---------------------------------------------------------------------- */

/* Everything a sub-layer backward needs besides its own inputs. */
typedef struct Ctx {
    const TfConfig *c;
    const TfTrace *tr;
    TfBackWork *w;
    int B;
} Ctx;

static void zero(float *x, size_t n) { memset(x, 0, n * sizeof *x); }

/* The residual step sum = x + dropout(out) passes d_sum unchanged to x and
 * d_sum * mask to the sub-layer output. Returns d_out (d_sum itself when
 * no mask was applied). */
static const float *branch(Ctx *x, const float *d_sum, const float *mask,
                           int dropped, size_t n)
{
    if (!dropped || !mask)
        return d_sum;
    /* forward: sum = x + out * mask */
    zero(x->w->d_out, n);
    dropout_backward(x->w->d_out, d_sum, mask, n);
    return x->w->d_out;
}

/* LayerNorm: out = LN(inp) * w + b, statistics from the trace. */
static void ln_back(float *d_inp, const LayerParams *G, const LayerParams *W, int i,
                    const float *d_out, const float *inp, const NormAct *n,
                    int N, int C)
{
    layernorm_backward(d_inp, G->ln_w[i], G->ln_b[i], d_out, inp, W->ln_w[i],
                       n->mean, n->rstd, N, C);
}

/* Self-attention block over T positions of input x; d_out is the gradient
 * of a->out; accumulates d_x and the block's parameter gradients. */
static void self_attn_back(Ctx *x, const AttnAct *a, const AttnParams *W,
                           const AttnParams *G, float *d_x, const float *in,
                           const float *d_out, int T, const int *len, int causal)
{
    TfBackWork *w = x->w;
    int C = x->c->d_model, N = x->B * T;
    /* out = heads @ W_O^T + b_O */
    zero(w->d_heads, (size_t)N * C);
    linear_backward(w->d_heads, G->o_w, G->o_b, d_out, a->heads, W->o_w, N, C, C);
    /* heads = per-head softmax(Q K^T / sqrt(d_k) + mask) V */
    zero(w->d_qkv, (size_t)N * 3 * C);
    AttnDims d = {x->B, T, T, C, x->c->n_heads, a->qs, a->kvs, causal, len, 0, NULL};
    attention_backward(w->d_qkv, w->d_qkv + C, w->d_qkv + 2 * C, w->scratch,
                       w->d_heads, a->weights, a->q, a->k, a->v, &d);
    /* [Q | K | V] = x @ W_QKV^T + b_QKV */
    linear_backward(d_x, G->qkv_w, G->qkv_b, w->d_qkv, in, W->qkv_w, N, C, 3 * C);
}

/* Cross-attention: Q from the decoder stream x, K and V from the encoder
 * output (memory), whose gradient goes to w->d_mem. */
static void cross_attn_back(Ctx *x, const AttnAct *a, const AttnParams *W,
                            const AttnParams *G, float *d_x, const float *in,
                            const float *d_out)
{
    TfBackWork *w = x->w;
    const TfTrace *tr = x->tr;
    int C = x->c->d_model, T = tr->T, S = tr->S, N = x->B * T, Ns = x->B * S;
    size_t CC = (size_t)C * C;
    /* out = heads @ W_O^T + b_O */
    zero(w->d_heads, (size_t)N * C);
    linear_backward(w->d_heads, G->o_w, G->o_b, d_out, a->heads, W->o_w, N, C, C);
    /* heads = per-head softmax(Q K^T / sqrt(d_k) + padding mask) V */
    zero(w->d_qkv, (size_t)N * C);
    zero(w->d_kv, (size_t)Ns * 2 * C);
    AttnDims d = {x->B, T, S, C, x->c->n_heads, a->qs, a->kvs, 0, tr->src_len, 0, NULL};
    attention_backward(w->d_qkv, w->d_kv, w->d_kv + C, w->scratch, w->d_heads,
                       a->weights, a->q, a->k, a->v, &d);
    /* Q = x @ W_Q^T + b_Q            (rows 0..C of in_proj) */
    linear_backward(d_x, G->qkv_w, G->qkv_b, w->d_qkv, in, W->qkv_w, N, C, C);
    /* [K | V] = memory @ W_KV^T + b_KV   (rows C..3C of in_proj) */
    linear_backward(w->d_mem, G->qkv_w + CC, G->qkv_b + C, w->d_kv, tr->memory,
                    W->qkv_w + CC, Ns, C, 2 * C);
}

/* Feed-forward: out = relu(in @ W1^T + b1) @ W2^T + b2. */
static void ffn_back(Ctx *x, const LayerParams *W, const LayerParams *G, float *d_x,
                     const float *in, const float *hidden, const float *d_out,
                     int N)
{
    TfBackWork *w = x->w;
    int C = x->c->d_model, F = x->c->d_ff;
    /* out = hidden @ W2^T + b2 */
    zero(w->d_hidden, (size_t)N * F);
    linear_backward(w->d_hidden, G->f2w, G->f2b, d_out, hidden, W->f2w, N, F, C);
    /* hidden = max(0, pre) */
    relu_backward_inplace(w->d_hidden, hidden, (size_t)N * F);
    /* pre = in @ W1^T + b1 */
    linear_backward(d_x, G->f1w, G->f1b, w->d_hidden, in, W->f1w, N, C, F);
}

/* ---------------------------------------------------------------------- */
/* Layers. Each takes the gradient of its output in *da and leaves the     */
/* gradient of its input there; *db is a spare buffer (they may swap).     */
/* ---------------------------------------------------------------------- */

static void swap(float **a, float **b)
{
    float *t = *a;
    *a = *b;
    *b = t;
}

static void enc_layer_back(Ctx *x, const TfModel *m, TfParams *g, int l,
                           const float *in, float **da, float **db)
{
    const TfTrace *tr = x->tr;
    const EncLayerAct *e = &tr->enc[l];
    LayerParams W = params_enc_layer(&m->p, x->c, l), G = params_enc_layer(g, x->c, l);
    int C = x->c->d_model, S = tr->S, N = x->B * S, drop = tr->enc_dropped;
    size_t nC = (size_t)N * C;
    float *A = *da, *Bf = *db;
    const float *br;
    if (x->c->norm == TF_NORM_POST) {
        /* n2.norm = LN2(n2.sum) */
        zero(Bf, nC);
        ln_back(Bf, &G, &W, 1, A, e->n2.sum, &e->n2, N, C);
        /* n2.sum = n1.norm + dropout(ffn(n1.norm)) */
        br = branch(x, Bf, e->ffn_drop, drop, nC);
        ffn_back(x, &W, &G, Bf, e->n1.norm, e->ffn_hidden, br, N);
        /* n1.norm = LN1(n1.sum) */
        zero(A, nC);
        ln_back(A, &G, &W, 0, Bf, e->n1.sum, &e->n1, N, C);
        /* n1.sum = in + dropout(self_attn(in)) */
        br = branch(x, A, e->sa.drop, drop, nC);
        self_attn_back(x, &e->sa, &W.sa, &G.sa, A, in, br, S, tr->src_len, 0);
        return;
    }
    /* n2.sum = n1.sum + dropout(ffn(n2.norm)),  n2.norm = LN2(n1.sum) */
    br = branch(x, A, e->ffn_drop, drop, nC);
    zero(Bf, nC);
    ffn_back(x, &W, &G, Bf, e->n2.norm, e->ffn_hidden, br, N);
    ln_back(A, &G, &W, 1, Bf, e->n1.sum, &e->n2, N, C);
    /* n1.sum = in + dropout(self_attn(n1.norm)),  n1.norm = LN1(in) */
    br = branch(x, A, e->sa.drop, drop, nC);
    zero(Bf, nC);
    self_attn_back(x, &e->sa, &W.sa, &G.sa, Bf, e->n1.norm, br, S, tr->src_len, 0);
    ln_back(A, &G, &W, 0, Bf, in, &e->n1, N, C);
}

/* The pre-LN decoder layer: the gradient of its output in A, of its input
 * left in A; Bf is scratch. */
static void dec_layer_back_pre(Ctx *x, const DecLayerAct *d, const LayerParams *W,
                               const LayerParams *G, const float *in, float *A, float *Bf, int N)
{
    const TfTrace *tr = x->tr;
    int C = x->c->d_model, T = tr->T, drop = tr->dec_dropped;
    size_t nC = (size_t)N * C;
    const float *br;
    /* n3.sum = n2.sum + dropout(ffn(n3.norm)),  n3.norm = LN3(n2.sum) */
    br = branch(x, A, d->ffn_drop, drop, nC);
    zero(Bf, nC);
    ffn_back(x, W, G, Bf, d->n3.norm, d->ffn_hidden, br, N);
    ln_back(A, G, W, 2, Bf, d->n2.sum, &d->n3, N, C);
    /* n2.sum = n1.sum + dropout(cross_attn(n2.norm, memory)),  n2.norm = LN2(n1.sum) */
    br = branch(x, A, d->ca.drop, drop, nC);
    zero(Bf, nC);
    cross_attn_back(x, &d->ca, &W->ca, &G->ca, Bf, d->n2.norm, br);
    ln_back(A, G, W, 1, Bf, d->n1.sum, &d->n2, N, C);
    /* n1.sum = in + dropout(masked_self_attn(n1.norm)),  n1.norm = LN1(in) */
    br = branch(x, A, d->sa.drop, drop, nC);
    zero(Bf, nC);
    self_attn_back(x, &d->sa, &W->sa, &G->sa, Bf, d->n1.norm, br, T, tr->tgt_len, 1);
    ln_back(A, G, W, 0, Bf, in, &d->n1, N, C);
}

static void dec_layer_back(Ctx *x, const DecLayerAct *d, const LayerParams *W,
                           const LayerParams *G, const float *in, float **da, float **db)
{
    const TfTrace *tr = x->tr;
    int C = x->c->d_model, T = tr->T, N = x->B * T, drop = tr->dec_dropped;
    size_t nC = (size_t)N * C;
    float *A = *da, *Bf = *db;
    const float *br;
    if (x->c->norm == TF_NORM_PRE) {
        dec_layer_back_pre(x, d, W, G, in, A, Bf, N);
        return;
    }
    /* n3.norm = LN3(n3.sum) */
    zero(Bf, nC);
    ln_back(Bf, G, W, 2, A, d->n3.sum, &d->n3, N, C);
    /* n3.sum = n2.norm + dropout(ffn(n2.norm)) */
    br = branch(x, Bf, d->ffn_drop, drop, nC);
    ffn_back(x, W, G, Bf, d->n2.norm, d->ffn_hidden, br, N);
    /* n2.norm = LN2(n2.sum) */
    zero(A, nC);
    ln_back(A, G, W, 1, Bf, d->n2.sum, &d->n2, N, C);
    /* n2.sum = n1.norm + dropout(cross_attn(n1.norm, memory)) */
    br = branch(x, A, d->ca.drop, drop, nC);
    cross_attn_back(x, &d->ca, &W->ca, &G->ca, A, d->n1.norm, br);
    /* n1.norm = LN1(n1.sum) */
    zero(Bf, nC);
    ln_back(Bf, G, W, 0, A, d->n1.sum, &d->n1, N, C);
    /* n1.sum = in + dropout(masked_self_attn(in)) */
    br = branch(x, Bf, d->sa.drop, drop, nC);
    self_attn_back(x, &d->sa, &W->sa, &G->sa, Bf, in, br, T, tr->tgt_len, 1);
    swap(da, db);
}

/* The input of layer l of a stack: the embeddings for layer 0, else the
 * previous layer's output (the LN output post-LN, the residual sum pre-LN). */
static const float *enc_in(const TfTrace *tr, int l)
{
    if (l == 0)
        return tr->enc_in;
    const EncLayerAct *e = &tr->enc[l - 1];
    return tr->cfg.norm == TF_NORM_POST ? e->n2.norm : e->n2.sum;
}

static const float *dec_in(const TfTrace *tr, int l)
{
    if (l == 0)
        return tr->dec_in;
    const DecLayerAct *d = &tr->dec[l - 1];
    return tr->cfg.norm == TF_NORM_POST ? d->n3.norm : d->n3.sum;
}

/* ---------------------------------------------------------------------- */
/* The whole pass                                                          */
/* ---------------------------------------------------------------------- */

static int check(const TfModel *m, const TfTrace *tr, const TfBackWork *w,
                 TfErr *err)
{
    const TfConfig *a = &m->cfg, *b = &tr->cfg, *c = &w->cfg;
    if (!(tr->flags & TRACE_RECORD))
        return tf_fail(err, "the backward pass needs a trace built with TRACE_RECORD");
    if (a->d_model != b->d_model || a->d_ff != b->d_ff || a->n_heads != b->n_heads ||
        a->n_enc != b->n_enc || a->n_dec != b->n_dec || a->norm != b->norm ||
        a->tgt_vocab != b->tgt_vocab || a->d_model != c->d_model ||
        a->d_ff != c->d_ff || a->tgt_vocab != c->tgt_vocab)
        return tf_fail(err, "model, trace and backward workspace have different shapes");
    if (tr->B < 1 || tr->B > w->cap_B || tr->S > w->cap_T || tr->T > w->cap_T)
        return tf_fail(err, "a batch of %d x (%d, %d) tokens exceeds the backward "
                       "workspace (%d x %d)", tr->B, tr->S, tr->T, w->cap_B, w->cap_T);
    return 0;
}

/* Decoder side: generator, final LN, layers top to bottom, target
 * embedding. Leaves dLoss/dmemory in w->d_mem. */
static void decoder_back(Ctx *x, const TfModel *m, TfParams *g)
{
    const TfConfig *c = x->c;
    const TfTrace *tr = x->tr;
    TfBackWork *w = x->w;
    int C = c->d_model, V = c->tgt_vocab, N = x->B * tr->T;
    size_t nC = (size_t)N * C;
    float *da = w->d_a, *db = w->d_b;
    /* logits = dec_out @ W_gen^T + b_gen */
    zero(da, nC);
    linear_backward(da, g->gen_w, g->gen_b, w->d_logits, tr->dec_out, m->p.gen_w,
                    N, C, V);
    if (c->norm == TF_NORM_PRE) {
        /* dec_out = LN_final(output of the last layer) */
        zero(db, nC);
        layernorm_backward(db, g->dec_lnf_w, g->dec_lnf_b, da, dec_in(tr, c->n_dec),
                           m->p.dec_lnf_w, tr->dec_final.mean, tr->dec_final.rstd, N, C);
        swap(&da, &db);
    }
    zero(w->d_mem, (size_t)x->B * tr->S * C);
    for (int l = c->n_dec - 1; l >= 0; l--) {
        LayerParams W = params_dec_layer(&m->p, c, l), G = params_dec_layer(g, c, l);
        dec_layer_back(x, &tr->dec[l], &W, &G, dec_in(tr, l), &da, &db);
    }
    /* dec_in = dropout(E_tgt[token] * sqrt(C) + PE) */
    const float *br = branch(x, da, tr->tgt_drop, tr->dec_dropped, nC);
    embed_backward(g->tgt_embed, br, tr->tgt_ids, sqrtf((float)C), N, C);
}

/* Encoder side, from dLoss/dmemory down to the source embedding. */
static void encoder_back(Ctx *x, const TfModel *m, TfParams *g)
{
    const TfConfig *c = x->c;
    const TfTrace *tr = x->tr;
    TfBackWork *w = x->w;
    int C = c->d_model, N = x->B * tr->S;
    size_t nC = (size_t)N * C;
    float *da = w->d_mem, *db = w->d_ea;
    if (c->norm == TF_NORM_PRE) {
        /* memory = LN_final(output of the last layer) */
        zero(db, nC);
        layernorm_backward(db, g->enc_lnf_w, g->enc_lnf_b, da, enc_in(tr, c->n_enc),
                           m->p.enc_lnf_w, tr->enc_final.mean, tr->enc_final.rstd, N, C);
        swap(&da, &db);
    }
    for (int l = c->n_enc - 1; l >= 0; l--)
        enc_layer_back(x, m, g, l, enc_in(tr, l), &da, &db);
    /* enc_in = dropout(E_src[token] * sqrt(C) + PE) */
    const float *br = branch(x, da, tr->src_drop, tr->enc_dropped, nC);
    embed_backward(g->src_embed, br, tr->src_ids, sqrtf((float)C), N, C);
}

int tf_backward(const TfModel *m, const TfTrace *tr, TfBackWork *w,
                TfParams *g, TfErr *err)
{
    if (check(m, tr, w, err))
        return -1;
    Ctx x = {&m->cfg, tr, w, tr->B};
    decoder_back(&x, m, g);
    encoder_back(&x, m, g);
    return 0;
}
