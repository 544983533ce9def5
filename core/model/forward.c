/* forward.c - the forward pass of the encoder-decoder, recording every stage
 * into a trace (see model.h and trace.h).
 *
 * Shapes: B sentences, S source and T target positions, C = d_model,
 * F = d_ff, NH heads, V = target vocabulary. Every (B, T, C) buffer is
 * treated as B*T rows of C for the projections, so each Linear is a single
 * cblas_sgemm over the whole batch. */
#include <math.h>
#include <string.h>

#include "model.h"
#include "gemm_small.h"
#include "ops.h"
#include "ops_model.h"

/* The key mask of hidden source positions lives on the stack: room for
 * the longest source a model may have. */
#define TF_MAX_LEN_HIDE TF_MAX_LEN

int tf_check_batch(const TfModel *m, const TfTrace *tr, const TfBatch *in,
                   TfErr *err)
{
    (void)tr;
    if (in->B < 1 || in->B > 4096)
        return tf_fail(err, "batch of %d sentences; 1..4096 are possible", in->B);
    if (in->S < 1 || in->S > m->cfg.max_len || in->T < 1 || in->T > m->cfg.max_len)
        return tf_fail(err, "sequence of %d source / %d target tokens; the "
                       "model's limit is %d", in->S, in->T, m->cfg.max_len);
    for (int b = 0; b < in->B; b++) {
        if (in->src_len[b] < 1 || in->src_len[b] > in->S)
            return tf_fail(err, "sentence %d: source length %d not in 1..%d",
                           b, in->src_len[b], in->S);
        if (in->tgt_len[b] < 1 || in->tgt_len[b] > in->T)
            return tf_fail(err, "sentence %d: target length %d not in 1..%d",
                           b, in->tgt_len[b], in->T);
    }
    for (size_t i = 0; i < (size_t)in->B * in->S; i++)
        if (in->src[i] < 0 || in->src[i] >= m->cfg.src_vocab)
            return tf_fail(err, "source token id %d is outside the vocabulary "
                           "of %d", in->src[i], m->cfg.src_vocab);
    for (size_t i = 0; i < (size_t)in->B * in->T; i++)
        if (in->tgt[i] < 0 || in->tgt[i] >= m->cfg.tgt_vocab)
            return tf_fail(err, "target token id %d is outside the vocabulary "
                           "of %d", in->tgt[i], m->cfg.tgt_vocab);
    return 0;
}

/* Is dropout on for this pass? */
static int dropping(const TfTrace *tr, int train)
{
    return train && (tr->flags & TRACE_TRAIN) && tr->cfg.dropout > 0;
}

/* Fill a dropout mask: 0 with probability p, else 1/(1-p). NULL when off.
 * The generator's 64-bit draws are read as 16-bit uniforms u (four per
 * draw), and an element is dropped when u < round(p * 65536): p is thereby
 * rounded to a multiple of 2^-16 (0.1 becomes 0.100006). (Which 16 bits
 * come first follows the machine's byte order; either way they are a
 * uniform stream fixed by the seed.) */
static const float *dropout_mask(TfTrace *tr, float *mask, size_t n, int train)
{
    if (!dropping(tr, train) || !mask)
        return NULL;
    float p = tr->cfg.dropout, keep = 1.0f / (1.0f - p);
    uint16_t thr = (uint16_t)((double)p * 65536.0 + 0.5);
    enum { DRAWS = 256 };
    uint64_t r[DRAWS];
    uint16_t u[4 * DRAWS];
    for (size_t i = 0; i < n; i += 4 * DRAWS) {
        size_t m = n - i < 4 * DRAWS ? n - i : 4 * DRAWS;
        rng_fill(&tr->drop_rng, r, (m + 3) / 4);
        memcpy(u, r, (m + 3) / 4 * sizeof *r);
        for (size_t k = 0; k < m; k++) /* compare and select: vectorises */
            mask[i + k] = u[k] < thr ? 0.0f : keep;
    }
    return mask;
}

/* sum = x + dropout(y); dropout(y) alone when x is NULL (the no-residual
 * experiment) */
static void residual(float *sum, const float *x, const float *y,
                     const float *mask, size_t n)
{
    if (!x) {
        if (mask)
            for (size_t i = 0; i < n; i++)
                sum[i] = y[i] * mask[i];
        else
            memcpy(sum, y, n * sizeof *sum);
    } else if (mask)
        for (size_t i = 0; i < n; i++)
            sum[i] = x[i] + y[i] * mask[i];
    else
        add_forward(sum, x, y, n);
}

/* The source positions an experiment hides, as a key mask (Tk bytes), or
 * NULL when none is hidden. */
static const unsigned char *hidden_keys(const TfTrace *tr, unsigned char *buf, int Tk)
{
    const TfExperiment *e = &tr->exp;
    if (e->n_hide == 0)
        return NULL;
    memset(buf, 0, (size_t)Tk);
    for (int i = 0; i < e->n_hide; i++)
        if (e->hide_src[i] < Tk)
            buf[e->hide_src[i]] = 1;
    return buf;
}

/* Self-attention block: qkv projection, attention, W_O. */
static void self_attention(TfTrace *tr, AttnAct *a, const float *x,
                           const float *w_qkv, const float *b_qkv,
                           const float *w_o, const float *b_o, int T,
                           const int *len, TfAttnKind kind, int layer)
{
    int B = tr->B, C = tr->cfg.d_model;
    int N = B * T;
    const TfExperiment *e = &tr->exp;
    int causal = kind == TF_ATTN_DEC && !e->no_causal;
    /* Marian: only the causal mask in decoder self-attention (a padding
     * mask from id == pad would hide its start token) */
    if (kind == TF_ATTN_DEC && tr->cfg.kind == TF_KIND_MARIAN)
        len = NULL;
    unsigned char hide[TF_MAX_LEN_HIDE];
    const unsigned char *kh = kind == TF_ATTN_ENC && T <= TF_MAX_LEN_HIDE ? hidden_keys(tr, hide, T) : NULL;
    linear_forward(a->qkv, x, w_qkv, b_qkv, N, C, 3 * C);
    AttnDims d = {B, T, T, C, tr->cfg.n_heads, a->qs, a->kvs, causal, len, e->no_scale, kh};
    attention_forward(a->heads, a->scores, a->mask, a->weights, a->q, a->k, a->v, &d);
    ablate_heads(a->heads, e, kind, layer, N, C, tr->cfg.n_heads); /* zeroed before W_O */
    patch_heads(a->heads, e, kind, layer, N, C, tr->cfg.n_heads);  /* or another pass's */
    linear_forward(a->out, a->heads, w_o, b_o, N, C, C);
}

/* The no-ffn experiment: the network's output, bias included, is 0. */
static void ffn_ablate(const TfTrace *tr, float *out, TfAttnKind kind, int layer, int N)
{
    if (tf_exp_ffn_off(&tr->exp, kind, layer))
        memset(out, 0, (size_t)N * tr->cfg.d_model * sizeof *out);
}

static void ffn(const TfConfig *c, float *hidden, float *out, const float *x,
                const float *w1, const float *b1, const float *w2,
                const float *b2, int N)
{
    /* ReLU (the paper's) as the product stores its blocks; others after */
    int relu = c->act == TF_ACT_RELU;
    linear_relu_forward(hidden, x, w1, b1, N, c->d_model, c->d_ff, relu);
    if (!relu)
        act_forward(c->act, hidden, (size_t)N * c->d_ff);
    linear_forward(out, hidden, w2, b2, N, c->d_ff, c->d_model);
}

static void layernorm(NormAct *n, const float *inp, const float *w,
                      const float *b, int N, int C)
{
    layernorm_forward(n->norm, n->mean, n->rstd, inp, w, b, N, C);
}

/* A sub-layer's input: x, or LN(x) (into n) pre-LN. */
static const float *sub_in(NormAct *n, const float *x, const float *w, const float *b, int post, int N,
                           int C)
{
    if (post)
        return x;
    layernorm(n, x, w, b, N, C);
    return n->norm;
}

/* A sub-layer's output from its body's out: n->sum = x + dropout(out)
 * (without x under the no-residual experiment), and post-LN LN(n->sum)
 * (into n); returns the one the next sub-layer reads. */
static const float *sub_out(const TfTrace *tr, NormAct *n, const float *x, const float *out,
                            const float *mask, const float *w, const float *b, int post, int N, int C)
{
    residual(n->sum, tr->exp.no_residual ? NULL : x, out, mask, (size_t)N * C);
    if (!post)
        return n->sum;
    layernorm(n, n->sum, w, b, N, C);
    return n->norm;
}

/* Sublayer 1 of a layer: x + SelfAttn(LN(x)) (pre-LN) or LN(x + SelfAttn(x))
 * (post-LN) with W's self-attention and first norm, over T positions. */
static const float *self_sublayer(TfTrace *tr, NormAct *n, AttnAct *a, const float *x, const LayerParams *W,
                                  const float *drop, int T, const int *len, TfAttnKind kind, int l, int post)
{
    int C = tr->cfg.d_model, N = tr->B * T;
    const float *in = sub_in(n, x, W->ln_w[0], W->ln_b[0], post, N, C);
    self_attention(tr, a, in, W->sa.qkv_w, W->sa.qkv_b, W->sa.o_w, W->sa.o_b, T, len, kind, l);
    return sub_out(tr, n, x, a->out, drop, W->ln_w[0], W->ln_b[0], post, N, C);
}

/* The last sublayer: the same around the position-wise feed-forward
 * network, with W's norm number ln, over N rows. */
static void ffn_sublayer(const TfConfig *c, TfTrace *tr, NormAct *n, float *hidden, float *out, const float *x,
                         const LayerParams *W, int ln, const float *drop, TfAttnKind kind, int l, int post, int N)
{
    int C = c->d_model;
    const float *in = sub_in(n, x, W->ln_w[ln], W->ln_b[ln], post, N, C);
    ffn(c, hidden, out, in, W->f1w, W->f1b, W->f2w, W->f2b, N);
    ffn_ablate(tr, out, kind, l, N);
    sub_out(tr, n, x, out, drop, W->ln_w[ln], W->ln_b[ln], post, N, C);
}

static void encoder_layer(const TfModel *m, TfTrace *tr, int l, const float *x,
                          int train)
{
    const TfConfig *c = &m->cfg;
    EncLayerAct *e = &tr->enc[l];
    int C = c->d_model, S = tr->S, N = tr->B * S;
    size_t nC = (size_t)N * C;
    LayerParams W = params_enc_layer(&m->p, c, l);
    const float *d1 = dropout_mask(tr, e->sa.drop, nC, train);
    const float *d2 = dropout_mask(tr, e->ffn_drop, nC, train);

    int post = c->norm == TF_NORM_POST;
    /* post-LN: x1 = LN(x + SelfAttn(x));  x2 = LN(x1 + FFN(x1))
     * pre-LN:  x1 = x + SelfAttn(LN(x));  x2 = x1 + FFN(LN(x1)) */
    const float *x1 = self_sublayer(tr, &e->n1, &e->sa, x, &W, d1, S, tr->src_len, TF_ATTN_ENC, l, post);
    ffn_sublayer(c, tr, &e->n2, e->ffn_hidden, e->ffn_out, x1, &W, 1, d2, TF_ATTN_ENC, l, post, N);
}

/* The output of encoder layer l (the next layer's input). */
static const float *enc_layer_out(const TfTrace *tr, int l)
{
    const EncLayerAct *e = &tr->enc[l];
    return tr->cfg.norm == TF_NORM_POST ? e->n2.norm : e->n2.sum;
}

static const float *dec_layer_out(const TfTrace *tr, int l)
{
    const DecLayerAct *d = &tr->dec[l];
    return tr->cfg.norm == TF_NORM_POST ? d->n3.norm : d->n3.sum;
}

/* out[t] = x[t] + PE[t % T] over N rows */
static void add_positions(float *out, const float *x, const float *pe, int N,
                          int T, int C)
{
    for (int t = 0; t < N; t++)
        add_forward(out + (size_t)t * C, x + (size_t)t * C,
                    pe + (size_t)(t % T) * C, (size_t)C);
}

/* One side's input, B sentences of L tokens: the ids and lengths kept in
 * the trace (side.ids, side.len), embed = E[token] * sqrt(C) (or E[token]
 * when the model does not scale), input = embed + PE (the model's stored
 * table when it has one, else the trace's), with dropout when training. */
typedef struct Side {
    int *ids, *len;
    float *embed, *input, *drop;
    const float *E, *pe;
} Side;

static void embed_inputs(TfTrace *tr, Side s, const int *ids, const int *len, int B, int L, int C,
                         int train)
{
    int N = B * L;
    size_t nC = (size_t)N * C;
    memcpy(s.ids, ids, (size_t)N * sizeof *ids);
    memcpy(s.len, len, (size_t)B * sizeof *len);
    float *embed = s.embed, *input = s.input, *drop = s.drop;
    float scale = tr->cfg.no_embed_scale ? 1.0f : sqrtf((float)C);
    embed_forward(embed, s.ids, s.E, scale, NULL, N, L, C);
    if (tr->exp.no_pe) /* experiment: the embeddings alone */
        memcpy(input, embed, nC * sizeof(float));
    else
        add_positions(input, embed, s.pe ? s.pe : tr->pe, N, L, C);
    const float *dm = dropout_mask(tr, drop, nC, train);
    if (dm)
        dropout_apply(input, input, dm, nC);
}

int tf_encode_begin(const TfModel *m, TfTrace *tr, int B, int S, const int *src,
                    const int *src_len, int train, TfErr *err)
{
    const TfConfig *c = &m->cfg;
    if (B < 1 || S < 1)
        return tf_fail(err, "encoder input of %d x %d tokens is empty", B, S);
    if (trace_reserve(tr, B, S, err))
        return -1;
    train = train && (tr->flags & TRACE_TRAIN);
    tr->enc_dropped = dropping(tr, train);
    tr->B = B;
    tr->S = S;
    /* src.embed = E[token] * sqrt(C);  enc.input = src.embed + PE */
    Side side = {tr->src_ids, tr->src_len, tr->src_embed, tr->enc_in, tr->src_drop, m->p.src_embed, m->pe_src};
    embed_inputs(tr, side, src, src_len, B, S, c->d_model, train);
    return 0;
}

/* pre-LN: a stack's final LayerNorm follows its last layer (N rows). */
static void final_norm(const TfModel *m, NormAct *out, const float *x, const float *w, const float *b, int N)
{
    if (m->cfg.norm == TF_NORM_PRE)
        layernorm(out, x, w, b, N, m->cfg.d_model);
}

void tf_encode_layer(const TfModel *m, TfTrace *tr, int l, int train)
{
    train = train && (tr->flags & TRACE_TRAIN);
    encoder_layer(m, tr, l, l == 0 ? tr->enc_in : enc_layer_out(tr, l - 1), train);
    if (l == m->cfg.n_enc - 1)
        final_norm(m, &tr->enc_final, enc_layer_out(tr, l), m->p.enc_lnf_w, m->p.enc_lnf_b, tr->B * tr->S);
}

int tf_encode(const TfModel *m, TfTrace *tr, int B, int S, const int *src,
              const int *src_len, int train, TfErr *err)
{
    if (tf_encode_begin(m, tr, B, S, src, src_len, train, err))
        return -1;
    for (int l = 0; l < m->cfg.n_enc; l++)
        tf_encode_layer(m, tr, l, train);
    return 0;
}

static void decoder_layer(const TfModel *m, TfTrace *tr, int l, const float *x,
                          int train)
{
    const TfConfig *c = &m->cfg;
    DecLayerAct *d = &tr->dec[l];
    int C = c->d_model, T = tr->T, B = tr->B, N = B * T;
    size_t nC = (size_t)N * C;
    LayerParams W = params_dec_layer(&m->p, c, l);
    const float *cqkv_w = W.ca.qkv_w, *cqkv_b = W.ca.qkv_b, *co_w = W.ca.o_w, *co_b = W.ca.o_b;
    const float *ln2w = W.ln_w[1], *ln2b = W.ln_b[1];
    const float *d1 = dropout_mask(tr, d->sa.drop, nC, train);
    const float *d2 = dropout_mask(tr, d->ca.drop, nC, train);
    const float *d3 = dropout_mask(tr, d->ffn_drop, nC, train);
    int post = c->norm == TF_NORM_POST;

    /* 1. masked self-attention over the decoder input */
    const float *x1 = self_sublayer(tr, &d->n1, &d->sa, x, &W, d1, T, tr->tgt_len, TF_ATTN_DEC, l, post);

    /* 2. cross-attention: queries from the decoder, keys and values from
     *    the encoder output (memory) */
    const float *ca_in = sub_in(&d->n2, x1, ln2w, ln2b, post, N, C);
    AttnAct *a = &d->ca;
    linear_forward(a->qkv, ca_in, cqkv_w, cqkv_b, N, C, C);
    linear_forward(a->kv, tr->memory, cqkv_w + (size_t)C * C, cqkv_b + C,
                   B * tr->S, C, 2 * C);
    unsigned char hide[TF_MAX_LEN_HIDE];
    const unsigned char *kh = tr->S <= TF_MAX_LEN_HIDE ? hidden_keys(tr, hide, tr->S) : NULL;
    AttnDims ad = {B, T, tr->S, C, c->n_heads, a->qs, a->kvs, 0, tr->src_len, tr->exp.no_scale, kh};
    attention_forward(a->heads, a->scores, a->mask, a->weights, a->q, a->k, a->v, &ad);
    ablate_heads(a->heads, &tr->exp, TF_ATTN_CROSS, l, N, C, tr->cfg.n_heads);
    patch_heads(a->heads, &tr->exp, TF_ATTN_CROSS, l, N, C, tr->cfg.n_heads);
    linear_forward(a->out, a->heads, co_w, co_b, N, C, C);
    const float *x2 = sub_out(tr, &d->n2, x1, a->out, d2, ln2w, ln2b, post, N, C);

    /* 3. position-wise feed-forward */
    ffn_sublayer(c, tr, &d->n3, d->ffn_hidden, d->ffn_out, x2, &W, 2, d3, TF_ATTN_DEC, l, post, N);
}

int tf_decode_begin(const TfModel *m, TfTrace *tr, int T, const int *tgt,
                    const int *tgt_len, int train, TfErr *err)
{
    const TfConfig *c = &m->cfg;
    if (T < 1)
        return tf_fail(err, "the decoder input is empty");
    if (trace_reserve(tr, tr->B, T, err))
        return -1;
    train = train && (tr->flags & TRACE_TRAIN);
    tr->dec_dropped = dropping(tr, train);
    tr->T = T;
    /* tgt.embed = E[token] * sqrt(C);  dec.input = tgt.embed + PE */
    Side side = {tr->tgt_ids, tr->tgt_len, tr->tgt_embed, tr->dec_in, tr->tgt_drop, m->p.tgt_embed, m->pe_tgt};
    embed_inputs(tr, side, tgt, tgt_len, tr->B, T, c->d_model, train);
    return 0;
}

void tf_decode_layer(const TfModel *m, TfTrace *tr, int l, int train)
{
    train = train && (tr->flags & TRACE_TRAIN);
    decoder_layer(m, tr, l, l == 0 ? tr->dec_in : dec_layer_out(tr, l - 1), train);
    if (l == m->cfg.n_dec - 1)
        final_norm(m, &tr->dec_final, dec_layer_out(tr, l), m->p.dec_lnf_w, m->p.dec_lnf_b, tr->B * tr->T);
}

void tf_decode_end_rows(const TfModel *m, TfTrace *tr, int b, int from, int to)
{
    const TfConfig *c = &m->cfg;
    int T = tr->T, C = c->d_model, V = c->tgt_vocab;
    /* out.logits = dec_out @ W_gen^T + b;  out.probs = softmax(logits) */
    if (from < 0)
        from = 0;
    if (from >= T)
        from = T - 1;
    if (to > T)
        to = T;
    if (to <= from)
        to = from + 1;
    /* in pieces that start at multiples of `piece` from the sentence's
     * first row: the whole pass and a window's few rows at a time then make
     * the same calls on every row, so the same bits (model.h) */
    int piece = gemm_small_rows() > 0 ? gemm_small_rows() : 16;
    for (int r0 = from; r0 < to;) {
        int r1 = (r0 / piece + 1) * piece;
        r1 = r1 < to ? r1 : to;
        size_t row = (size_t)b * T + r0;
        int rows = r1 - r0;
        linear_forward(tr->logits + row * V, tr->dec_out + row * C, m->p.gen_w, m->p.gen_b, rows, C, V);
        softmax_rows_to(tr->probs + row * V, tr->logits + row * V, rows, V);
        r0 = r1;
    }
}

void tf_decode_end(const TfModel *m, TfTrace *tr, int out_from)
{
    for (int b = 0; b < tr->B; b++)
        tf_decode_end_rows(m, tr, b, out_from, tr->T);
}

int tf_decode(const TfModel *m, TfTrace *tr, int T, const int *tgt,
              const int *tgt_len, int out_from, int train, TfErr *err)
{
    if (tf_decode_begin(m, tr, T, tgt, tgt_len, train, err))
        return -1;
    for (int l = 0; l < m->cfg.n_dec; l++)
        tf_decode_layer(m, tr, l, train);
    tf_decode_end(m, tr, out_from);
    return 0;
}

int tf_forward(const TfModel *m, TfTrace *tr, const TfBatch *in, int train,
               TfErr *err)
{
    if (tf_check_batch(m, tr, in, err))
        return -1;
    if (tf_encode(m, tr, in->B, in->S, in->src, in->src_len, train, err))
        return -1;
    return tf_decode(m, tr, in->T, in->tgt, in->tgt_len, 0, train, err);
}
