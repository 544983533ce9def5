/* params.h - every weight of the model in one contiguous block.
 *
 * A size table (params_table) lists each tensor: its field in TfParams, how
 * many layers it is stacked over, its per-layer shape as PyTorch stores it
 * (a Linear's weight is [out, in]) and its PyTorch state-dict name. From that
 * one table come the allocation (malloc once, point every field into it),
 * the initialisation, the checkpoint names and the optimizer's flat loop.
 * Gradients and Adam moments are TfParams too, pointed into blocks of the
 * same size. Tied matrices are aliases: the pre-softmax projection points at
 * the target embedding, so its gradient accumulates into the same floats. */
#ifndef TF_PARAMS_H
#define TF_PARAMS_H

#include <stddef.h>

#include "config.h"
#include "rng.h"

typedef struct TfParams {
    /* embeddings and output */
    float *src_embed; /* (Vs, C)   alias of tgt_embed when tie == ALL */
    float *tgt_embed; /* (Vt, C) */
    float *gen_w;     /* (Vt, C)   alias of tgt_embed when tied */
    float *gen_b;     /* (Vt) */
    /* encoder, L = n_enc */
    float *enc_qkv_w; /* (L, 3C, C)  rows: W_Q, W_K, W_V stacked */
    float *enc_qkv_b; /* (L, 3C) */
    float *enc_o_w;   /* (L, C, C)   W_O */
    float *enc_o_b;   /* (L, C) */
    float *enc_ff1_w; /* (L, F, C) */
    float *enc_ff1_b; /* (L, F) */
    float *enc_ff2_w; /* (L, C, F) */
    float *enc_ff2_b; /* (L, C) */
    float *enc_ln1_w, *enc_ln1_b; /* (L, C) */
    float *enc_ln2_w, *enc_ln2_b; /* (L, C) */
    float *enc_lnf_w, *enc_lnf_b; /* (C) pre-LN only, else NULL */
    /* decoder, L = n_dec */
    float *dec_sqkv_w; /* (L, 3C, C) masked self-attention */
    float *dec_sqkv_b; /* (L, 3C) */
    float *dec_so_w;   /* (L, C, C) */
    float *dec_so_b;   /* (L, C) */
    float *dec_cqkv_w; /* (L, 3C, C) cross-attention: Q from the decoder,
                          K and V from the encoder output */
    float *dec_cqkv_b; /* (L, 3C) */
    float *dec_co_w;   /* (L, C, C) */
    float *dec_co_b;   /* (L, C) */
    float *dec_ff1_w;  /* (L, F, C) */
    float *dec_ff1_b;  /* (L, F) */
    float *dec_ff2_w;  /* (L, C, F) */
    float *dec_ff2_b;  /* (L, C) */
    float *dec_ln1_w, *dec_ln1_b; /* (L, C) */
    float *dec_ln2_w, *dec_ln2_b; /* (L, C) */
    float *dec_ln3_w, *dec_ln3_b; /* (L, C) */
    float *dec_lnf_w, *dec_lnf_b; /* (C) pre-LN only, else NULL */
} TfParams;

typedef enum ParamInit {
    INIT_XAVIER = 0, /* uniform(+-sqrt(6 / (fan_in + fan_out))) */
    INIT_ZERO,
    INIT_ONE
} ParamInit;

typedef enum ParamStack { STACK_NONE, STACK_ENC, STACK_DEC } ParamStack;

/* One row of the size table. */
typedef struct ParamDesc {
    size_t field;      /* offsetof(TfParams, ...) */
    ParamStack stack;  /* stacked over encoder or decoder layers, or not */
    int rows, cols;    /* per-layer shape; cols = 0 for vectors */
    ParamInit init;
    const char *name;  /* PyTorch name; "%d" is the layer index */
} ParamDesc;

/* The table for this config: tensors that exist (tied and pre-LN-only ones
 * are left out when absent). Writes up to max rows, returns the count. */
int params_table(const TfConfig *cfg, ParamDesc *out, int max);
#define PARAMS_MAX_DESC 64

/* Floats in one block for this config. */
size_t params_size(const TfConfig *cfg);

/* Point every field into block (params_size floats), aliases included. */
void params_point(TfParams *p, const TfConfig *cfg, float *block);

/* Address of a table row's tensor for one layer (layer ignored when not
 * stacked). */
float *params_tensor(const TfParams *p, const ParamDesc *d, int layer);
size_t param_desc_numel(const ParamDesc *d);

/* The tensors of one layer, as pointers into a parameter block (weights or
 * gradients alike): the forward and backward passes take them from here
 * instead of each working out the offsets. */
typedef struct AttnParams {
    float *qkv_w, *qkv_b, *o_w, *o_b;
} AttnParams;

typedef struct LayerParams {
    AttnParams sa, ca;            /* ca: decoder only */
    float *f1w, *f1b, *f2w, *f2b; /* feed-forward */
    float *ln_w[3], *ln_b[3];     /* norm1..norm3 (norm3: decoder only) */
} LayerParams;

LayerParams params_enc_layer(const TfParams *p, const TfConfig *c, int l);
LayerParams params_dec_layer(const TfParams *p, const TfConfig *c, int l);

/* Xavier/Glorot uniform for matrices, zeros for biases, ones for LayerNorm
 * gains; deterministic for a seed. */
void params_init(TfParams *p, const TfConfig *cfg, uint64_t seed);

#endif
