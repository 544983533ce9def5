/* params.c - the size table, pointer fix-up and initialisation (params.h). */
#include "params.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#define F(x) offsetof(TfParams, x)

static int add(ParamDesc *out, int n, int max, size_t field, ParamStack st,
               int rows, int cols, ParamInit init, const char *name)
{
    if (n < max)
        out[n] = (ParamDesc){field, st, rows, cols, init, name};
    return n + 1;
}

/* The attention block rows shared by encoder self-attention and the two
 * decoder attentions. */
static int add_attn(ParamDesc *o, int n, int max, ParamStack st, int C,
                    size_t qkv_w, size_t qkv_b, size_t o_w, size_t o_b,
                    const char *const names[4])
{
    n = add(o, n, max, qkv_w, st, 3 * C, C, INIT_XAVIER, names[0]);
    n = add(o, n, max, qkv_b, st, 3 * C, 0, INIT_ZERO, names[1]);
    n = add(o, n, max, o_w, st, C, C, INIT_XAVIER, names[2]);
    n = add(o, n, max, o_b, st, C, 0, INIT_ZERO, names[3]);
    return n;
}

static const char *const ENC_FF[4] = {"encoder.layers.%d.linear1.weight", "encoder.layers.%d.linear1.bias",
                                     "encoder.layers.%d.linear2.weight", "encoder.layers.%d.linear2.bias"};
static const char *const DEC_FF[4] = {"decoder.layers.%d.linear1.weight", "decoder.layers.%d.linear1.bias",
                                     "decoder.layers.%d.linear2.weight", "decoder.layers.%d.linear2.bias"};

/* linear1 (F x C) and linear2 (C x F) of a layer's feed-forward network. */
static int add_ffn(ParamDesc *o, int n, int max, ParamStack st, int C, int FF, size_t w1, size_t b1,
                   size_t w2, size_t b2, const char *const nm[4])
{
    n = add(o, n, max, w1, st, FF, C, INIT_XAVIER, nm[0]);
    n = add(o, n, max, b1, st, FF, 0, INIT_ZERO, nm[1]);
    n = add(o, n, max, w2, st, C, FF, INIT_XAVIER, nm[2]);
    return add(o, n, max, b2, st, C, 0, INIT_ZERO, nm[3]);
}

/* The names of a stack's LayerNorms: weight and bias of each layer norm,
 * then of the final norm (pre-LN only). */
static const char *const ENC_LN[] = {"encoder.layers.%d.norm1.weight", "encoder.layers.%d.norm1.bias",
                                     "encoder.layers.%d.norm2.weight", "encoder.layers.%d.norm2.bias",
                                     "encoder.norm.weight", "encoder.norm.bias"};
static const char *const DEC_LN[] = {"decoder.layers.%d.norm1.weight", "decoder.layers.%d.norm1.bias",
                                     "decoder.layers.%d.norm2.weight", "decoder.layers.%d.norm2.bias",
                                     "decoder.layers.%d.norm3.weight", "decoder.layers.%d.norm3.bias",
                                     "decoder.norm.weight", "decoder.norm.bias"};

/* k per-layer LayerNorms (gain 1, bias 0) at field[0..2k), then the final
 * norm at field[2k], field[2k+1] when pre. */
static int add_norms(ParamDesc *o, int n, int max, ParamStack stack, int C, const size_t *field, int k,
                     int pre, const char *const *names)
{
    for (int j = 0; j < k + pre; j++) {
        ParamStack st = j < k ? stack : STACK_NONE;
        n = add(o, n, max, field[2 * j], st, C, 0, INIT_ONE, names[2 * j]);
        n = add(o, n, max, field[2 * j + 1], st, C, 0, INIT_ZERO, names[2 * j + 1]);
    }
    return n;
}

int params_table(const TfConfig *c, ParamDesc *o, int max)
{
    int C = c->d_model, FF = c->d_ff, n = 0;
    static const char *const enc_sa[4] = {
        "encoder.layers.%d.self_attn.in_proj_weight",
        "encoder.layers.%d.self_attn.in_proj_bias",
        "encoder.layers.%d.self_attn.out_proj.weight",
        "encoder.layers.%d.self_attn.out_proj.bias"};
    static const char *const dec_sa[4] = {
        "decoder.layers.%d.self_attn.in_proj_weight",
        "decoder.layers.%d.self_attn.in_proj_bias",
        "decoder.layers.%d.self_attn.out_proj.weight",
        "decoder.layers.%d.self_attn.out_proj.bias"};
    static const char *const dec_ca[4] = {
        "decoder.layers.%d.multihead_attn.in_proj_weight",
        "decoder.layers.%d.multihead_attn.in_proj_bias",
        "decoder.layers.%d.multihead_attn.out_proj.weight",
        "decoder.layers.%d.multihead_attn.out_proj.bias"};

    if (c->tie != TF_TIE_ALL)
        n = add(o, n, max, F(src_embed), STACK_NONE, c->src_vocab, C, INIT_XAVIER,
                "src_embed.weight");
    n = add(o, n, max, F(tgt_embed), STACK_NONE, c->tgt_vocab, C, INIT_XAVIER,
            "tgt_embed.weight");
    if (c->tie == TF_TIE_NONE)
        n = add(o, n, max, F(gen_w), STACK_NONE, c->tgt_vocab, C, INIT_XAVIER,
                "generator.weight");
    n = add(o, n, max, F(gen_b), STACK_NONE, c->tgt_vocab, 0, INIT_ZERO,
            "generator.bias");

    int pre = c->norm == TF_NORM_PRE;
    n = add_attn(o, n, max, STACK_ENC, C, F(enc_qkv_w), F(enc_qkv_b), F(enc_o_w),
                 F(enc_o_b), enc_sa);
    n = add_ffn(o, n, max, STACK_ENC, C, FF, F(enc_ff1_w), F(enc_ff1_b), F(enc_ff2_w), F(enc_ff2_b), ENC_FF);
    static const size_t enc_ln[] = {F(enc_ln1_w), F(enc_ln1_b), F(enc_ln2_w), F(enc_ln2_b), F(enc_lnf_w), F(enc_lnf_b)};
    n = add_norms(o, n, max, STACK_ENC, C, enc_ln, 2, pre, ENC_LN);

    n = add_attn(o, n, max, STACK_DEC, C, F(dec_sqkv_w), F(dec_sqkv_b), F(dec_so_w),
                 F(dec_so_b), dec_sa);
    n = add_attn(o, n, max, STACK_DEC, C, F(dec_cqkv_w), F(dec_cqkv_b), F(dec_co_w),
                 F(dec_co_b), dec_ca);
    n = add_ffn(o, n, max, STACK_DEC, C, FF, F(dec_ff1_w), F(dec_ff1_b), F(dec_ff2_w), F(dec_ff2_b), DEC_FF);
    static const size_t dec_ln[] = {F(dec_ln1_w), F(dec_ln1_b), F(dec_ln2_w), F(dec_ln2_b),
                                    F(dec_ln3_w), F(dec_ln3_b), F(dec_lnf_w), F(dec_lnf_b)};
    n = add_norms(o, n, max, STACK_DEC, C, dec_ln, 3, pre, DEC_LN);
    return n;
}

size_t param_desc_numel(const ParamDesc *d)
{
    return (size_t)d->rows * (size_t)(d->cols ? d->cols : 1);
}

static int stack_layers(const TfConfig *c, ParamStack st)
{
    return st == STACK_ENC ? c->n_enc : st == STACK_DEC ? c->n_dec : 1;
}

size_t params_size(const TfConfig *c)
{
    ParamDesc d[PARAMS_MAX_DESC];
    int n = params_table(c, d, PARAMS_MAX_DESC);
    size_t total = 0;
    for (int i = 0; i < n; i++)
        total += param_desc_numel(&d[i]) * (size_t)stack_layers(c, d[i].stack);
    return total;
}

void params_point(TfParams *p, const TfConfig *c, float *block)
{
    ParamDesc d[PARAMS_MAX_DESC];
    int n = params_table(c, d, PARAMS_MAX_DESC);
    memset(p, 0, sizeof *p);
    float *at = block;
    for (int i = 0; i < n; i++) {
        *(float **)((char *)p + d[i].field) = at;
        at += param_desc_numel(&d[i]) * (size_t)stack_layers(c, d[i].stack);
    }
    if (c->tie == TF_TIE_ALL)
        p->src_embed = p->tgt_embed;
    if (c->tie != TF_TIE_NONE)
        p->gen_w = p->tgt_embed;
}

float *params_tensor(const TfParams *p, const ParamDesc *d, int layer)
{
    float *base = *(float *const *)((const char *)p + d->field);
    if (d->stack == STACK_NONE)
        return base;
    return base + (size_t)layer * param_desc_numel(d);
}

/* Layer l's feed-forward (ff: linear1 w, b, linear2 w, b) and LayerNorm
 * (ln: weight, bias of each) pointers into the stacked tensors. */
static LayerParams point_ffn_ln(float *const ff[4], float *const *ln, int n_ln, int l, size_t C, size_t F)
{
    LayerParams r;
    memset(&r, 0, sizeof r);
    r.f1w = ff[0] + l * F * C;
    r.f1b = ff[1] + l * F;
    r.f2w = ff[2] + l * C * F;
    r.f2b = ff[3] + l * C;
    for (int k = 0; k < n_ln; k++) {
        r.ln_w[k] = ln[2 * k] + l * C;
        r.ln_b[k] = ln[2 * k + 1] + l * C;
    }
    return r;
}

LayerParams params_enc_layer(const TfParams *p, const TfConfig *c, int l)
{
    size_t C = (size_t)c->d_model, F = (size_t)c->d_ff;
    float *const ff[4] = {p->enc_ff1_w, p->enc_ff1_b, p->enc_ff2_w, p->enc_ff2_b};
    float *const ln[4] = {p->enc_ln1_w, p->enc_ln1_b, p->enc_ln2_w, p->enc_ln2_b};
    LayerParams r = point_ffn_ln(ff, ln, 2, l, C, F);
    r.sa = (AttnParams){p->enc_qkv_w + l * 3 * C * C, p->enc_qkv_b + l * 3 * C,
                        p->enc_o_w + l * C * C, p->enc_o_b + l * C};
    return r;
}

LayerParams params_dec_layer(const TfParams *p, const TfConfig *c, int l)
{
    size_t C = (size_t)c->d_model, F = (size_t)c->d_ff;
    float *const ff[4] = {p->dec_ff1_w, p->dec_ff1_b, p->dec_ff2_w, p->dec_ff2_b};
    float *const ln[6] = {p->dec_ln1_w, p->dec_ln1_b, p->dec_ln2_w, p->dec_ln2_b, p->dec_ln3_w, p->dec_ln3_b};
    LayerParams r = point_ffn_ln(ff, ln, 3, l, C, F);
    r.sa = (AttnParams){p->dec_sqkv_w + l * 3 * C * C, p->dec_sqkv_b + l * 3 * C,
                        p->dec_so_w + l * C * C, p->dec_so_b + l * C};
    r.ca = (AttnParams){p->dec_cqkv_w + l * 3 * C * C, p->dec_cqkv_b + l * 3 * C,
                        p->dec_co_w + l * C * C, p->dec_co_b + l * C};
    return r;
}

void params_init(TfParams *p, const TfConfig *c, uint64_t seed)
{
    ParamDesc d[PARAMS_MAX_DESC];
    int n = params_table(c, d, PARAMS_MAX_DESC);
    Rng rng;
    rng_seed(&rng, seed);
    for (int i = 0; i < n; i++) {
        int L = stack_layers(c, d[i].stack);
        size_t numel = param_desc_numel(&d[i]);
        for (int l = 0; l < L; l++) {
            float *t = params_tensor(p, &d[i], l);
            if (d[i].init == INIT_XAVIER) {
                /* fan_out = rows, fan_in = cols, as torch's xavier_uniform_ */
                float a = sqrtf(6.0f / (float)(d[i].rows + d[i].cols));
                for (size_t k = 0; k < numel; k++)
                    t[k] = (2.0f * rng_uniform(&rng) - 1.0f) * a;
            } else {
                float v = d[i].init == INIT_ONE ? 1.0f : 0.0f;
                for (size_t k = 0; k < numel; k++)
                    t[k] = v;
            }
        }
    }
}
