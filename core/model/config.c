/* config.c - presets, validation, parameter and FLOP counts (see config.h). */
#include "config.h"
#include "ops.h"

#include <stddef.h>
#include <string.h>

/* A valid config's rows fit every op (layernorm_backward's scratch). */
_Static_assert(TF_MAX_DMODEL <= OPS_MAX_ROW, "d_model may exceed the widest row the ops take");

typedef struct Preset {
    const char *name;
    TfConfig cfg; /* vocabularies 0: set by whoever builds the model */
} Preset;

/* The paper's post-LN, untied, dropout and label smoothing 0.1. */
#define PRESET(D, H, F, L, T)                                                        \
    {.d_model = D, .n_heads = H, .d_ff = F, .n_enc = L, .n_dec = L, .max_len = T,    \
     .norm = TF_NORM_POST, .tie = TF_TIE_NONE, .dropout = 0.1f, .label_smoothing = 0.1f}

static const Preset PRESETS[] = {
    {"classroom", PRESET(64, 4, 256, 2, 64)},
    {"base", PRESET(512, 8, 2048, 6, 256)},
    {"big", PRESET(1024, 16, 4096, 6, 256)},
};
#define N_PRESETS ((int)(sizeof PRESETS / sizeof PRESETS[0]))

const CfgSize CFG_SIZES[CFG_N_SIZES] = {
    {"d_model", offsetof(TfConfig, d_model), 1, TF_MAX_DMODEL},
    {"n_heads", offsetof(TfConfig, n_heads), 1, TF_MAX_HEADS},
    {"d_ff", offsetof(TfConfig, d_ff), 1, TF_MAX_DFF},
    {"n_enc_layers", offsetof(TfConfig, n_enc), 1, TF_MAX_LAYERS},
    {"n_dec_layers", offsetof(TfConfig, n_dec), 1, TF_MAX_LAYERS},
    {"max_len", offsetof(TfConfig, max_len), 2, TF_MAX_LEN},
};

const char *cfg_tie_name(TfTie t)
{
    return t == TF_TIE_ALL ? "all" : t == TF_TIE_GENERATOR ? "generator" : "none";
}

const char *cfg_act_name(TfAct a)
{
    return a == TF_ACT_SILU ? "silu" : a == TF_ACT_GELU ? "gelu" : "relu";
}

const char *cfg_pe_name(TfPeLayout p)
{
    return p == TF_PE_HALVES ? "halves" : "interleaved";
}

int cfg_preset(TfConfig *cfg, const char *name, TfErr *err)
{
    for (int i = 0; i < N_PRESETS; i++) {
        if (strcmp(PRESETS[i].name, name) != 0)
            continue;
        *cfg = PRESETS[i].cfg;
        return 0;
    }
    return tf_fail(err, "unknown preset '%s' (known: classroom, base, big)", name);
}

static int in_range(TfErr *err, const char *what, int v, int lo, int hi)
{
    if (v < lo || v > hi)
        return tf_fail(err, "%s = %d is out of range [%d, %d]", what, v, lo, hi);
    return 0;
}

int cfg_validate(const TfConfig *c, TfErr *err)
{
    for (int k = 0; k < CFG_N_SIZES; k++)
        if (in_range(err, CFG_SIZES[k].key, cfg_size_of(c, k), CFG_SIZES[k].lo, CFG_SIZES[k].hi))
            return -1;
    if (in_range(err, "src vocabulary", c->src_vocab, 5, TF_MAX_VOCAB) ||
        in_range(err, "tgt vocabulary", c->tgt_vocab, 5, TF_MAX_VOCAB))
        return -1;
    if (c->d_model % c->n_heads != 0)
        return tf_fail(err, "d_model %d is not divisible by n_heads %d",
                       c->d_model, c->n_heads);
    if (c->norm != TF_NORM_POST && c->norm != TF_NORM_PRE)
        return tf_fail(err, "norm placement must be post or pre");
    if (c->tie < TF_TIE_NONE || c->tie > TF_TIE_ALL)
        return tf_fail(err, "unknown embedding tying %d", (int)c->tie);
    if (c->tie == TF_TIE_ALL && c->src_vocab != c->tgt_vocab)
        return tf_fail(err, "sharing all embeddings needs one vocabulary, "
                       "but src has %d tokens and tgt %d", c->src_vocab, c->tgt_vocab);
    if (c->act < TF_ACT_RELU || c->act > TF_ACT_GELU)
        return tf_fail(err, "unknown activation %d", (int)c->act);
    if (c->pe_layout != TF_PE_INTERLEAVED && c->pe_layout != TF_PE_HALVES)
        return tf_fail(err, "unknown positional-encoding layout %d", (int)c->pe_layout);
    if (c->ids.set) {
        const int id[4] = {c->ids.pad, c->ids.eos, c->ids.unk, c->ids.start};
        for (int i = 0; i < 4; i++)
            if (id[i] < 0 || id[i] >= c->tgt_vocab || id[i] >= c->src_vocab)
                return tf_fail(err, "special token id %d is outside the vocabulary of %d",
                               id[i], c->tgt_vocab);
    }
    if (!(c->dropout >= 0 && c->dropout < 1))
        return tf_fail(err, "dropout %g is not in [0, 1)", c->dropout);
    if (!(c->label_smoothing >= 0 && c->label_smoothing < 1))
        return tf_fail(err, "label smoothing %g is not in [0, 1)", c->label_smoothing);
    TfParamCount pc = cfg_param_count(c);
    if (pc.total > TF_MAX_PARAMS)
        return tf_fail(err, "model has %zu parameters, more than the limit of %llu",
                       pc.total, (unsigned long long)TF_MAX_PARAMS);
    return 0;
}

TfParamCount cfg_param_count(const TfConfig *c)
{
    size_t C = (size_t)c->d_model, F = (size_t)c->d_ff;
    size_t attn = 3 * C * C + 3 * C + C * C + C; /* in_proj + out_proj */
    size_t ffn = F * C + F + C * F + C;           /* linear1 + linear2 */
    size_t ln = 2 * C;
    TfParamCount pc = {0};
    pc.embed = (size_t)c->tgt_vocab * C;
    if (c->tie != TF_TIE_ALL)
        pc.embed += (size_t)c->src_vocab * C;
    pc.encoder = (size_t)c->n_enc * (attn + ffn + 2 * ln);
    pc.decoder = (size_t)c->n_dec * (2 * attn + ffn + 3 * ln);
    if (c->norm == TF_NORM_PRE) {
        pc.encoder += ln;
        pc.decoder += ln;
    }
    pc.generator = (size_t)c->tgt_vocab;
    if (c->tie == TF_TIE_NONE)
        pc.generator += (size_t)c->tgt_vocab * C;
    pc.total = pc.embed + pc.encoder + pc.decoder + pc.generator;
    return pc;
}

TfFlops cfg_flops(const TfConfig *c, int S, int T)
{
    double C = c->d_model, F = c->d_ff, s = S, t = T;
    /* per layer: projections, QK^T and weights.V over all heads, FFN */
    double enc_layer = 2 * (s * C * 3 * C + s * C * C + 2 * s * s * C + 2 * s * C * F);
    double dec_self = 2 * (t * C * 3 * C + t * C * C + 2 * t * t * C);
    double dec_cross = 2 * (t * C * C + s * C * 2 * C + t * C * C + 2 * t * s * C);
    double dec_ffn = 2 * (2 * t * C * F);
    TfFlops f;
    f.encoder = c->n_enc * enc_layer;
    f.decoder = c->n_dec * (dec_self + dec_cross + dec_ffn);
    f.generator = 2 * t * C * c->tgt_vocab;
    f.total = f.encoder + f.decoder + f.generator;
    return f;
}
