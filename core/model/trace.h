/* trace.h - every intermediate of a forward pass, kept for display and for
 * the backward pass (llm.c calls this the activations).
 *
 * A trace is built for a capacity (cap_B sentences of up to cap_T tokens)
 * with one allocation; any input within that capacity fits without
 * reallocating, and a longer one grows it (trace_reserve). Buffers are laid out compactly for the current B, S, T:
 * a (B, S, C) buffer holds sentence b, position s at (b * S + s) * C.
 *
 * With TRACE_RECORD every layer keeps its own buffers, the pre-mask scores
 * are kept apart from the weights and the additive mask matrix is stored.
 * Without it (the fastest inference) the layers of a stack share one set of
 * buffers and only the last layer's values survive. TRACE_TRAIN adds the
 * dropout masks training needs. */
#ifndef TF_TRACE_H
#define TF_TRACE_H

#include <stddef.h>

#include "config.h"
#include "err.h"
#include "experiment.h"
#include "rng.h"

enum { TRACE_RECORD = 1, TRACE_TRAIN = 2 };

/* One multi-head attention block. Q rows have stride qs, K/V rows kvs. */
typedef struct AttnAct {
    float *qkv;     /* self: (B, T, 3C) packed [Q | K | V]; cross: (B, Tq, C) Q */
    float *kv;      /* cross only: (B, S, 2C) packed [K | V] from the encoder */
    float *q, *k, *v;    /* views into qkv / kv */
    int qs, kvs;         /* row strides of q and of k, v */
    float *scores;  /* (B, NH, Tq, Tk) Q K^T / sqrt(d_k), before the mask */
    float *mask;    /* (B, Tq, Tk) additive 0 / -inf; NULL without RECORD */
    float *weights; /* (B, NH, Tq, Tk) softmax(scores + mask) */
    float *heads;   /* (B, Tq, C) per-head weights.V, concatenated */
    float *out;     /* (B, Tq, C) heads @ W_O^T + b_O */
    float *drop;    /* (B, Tq, C) dropout mask on out (TRAIN), else NULL */
} AttnAct;

/* A residual + LayerNorm step: sum = x + dropout(sublayer), then LN. In
 * pre-LN models the LN is applied to the step's input instead (see norm). */
typedef struct NormAct {
    float *sum;        /* (B, T, C) residual sum */
    float *norm;       /* (B, T, C) LayerNorm output */
    float *mean, *rstd; /* (B, T) statistics of the normalised rows */
} NormAct;

typedef struct EncLayerAct {
    AttnAct sa;
    NormAct n1, n2;
    float *ffn_hidden; /* (B, S, F) after ReLU */
    float *ffn_out;    /* (B, S, C) */
    float *ffn_drop;   /* (B, S, C) dropout mask (TRAIN) */
} EncLayerAct;

typedef struct DecLayerAct {
    AttnAct sa, ca;
    NormAct n1, n2, n3;
    float *ffn_hidden; /* (B, T, F) */
    float *ffn_out;    /* (B, T, C) */
    float *ffn_drop;
} DecLayerAct;

typedef struct TfTrace {
    TfConfig cfg;
    int cap_B, cap_T, flags;
    int B, S, T;          /* current batch and padded lengths */
    int *src_ids;         /* (B, S) padded with <pad> */
    int *tgt_ids;         /* (B, T) decoder input: <bos> + target, padded */
    int *src_len;         /* (B) real source tokens */
    int *tgt_len;         /* (B) real decoder input tokens */
    float *pe;            /* (cap_T, C) the sinusoidal table */
    float *src_embed;     /* (B, S, C) E_src[token] * sqrt(C) */
    float *enc_in;        /* (B, S, C) src_embed + PE (then dropout) */
    float *src_drop;      /* (B, S, C) dropout mask (TRAIN) */
    float *tgt_embed;     /* (B, T, C) E_tgt[token] * sqrt(C) */
    float *dec_in;        /* (B, T, C) tgt_embed + PE (then dropout) */
    float *tgt_drop;
    EncLayerAct *enc;     /* (n_enc) */
    DecLayerAct *dec;     /* (n_dec) */
    NormAct enc_final;    /* pre-LN only: the encoder stack's last LN */
    NormAct dec_final;    /* pre-LN only */
    float *memory;        /* (B, S, C) encoder output read by cross-attention */
    float *dec_out;       /* (B, T, C) decoder output fed to the generator */
    float *logits;        /* (B, T, Vt) */
    float *probs;         /* (B, T, Vt) softmax of logits */
    TfExperiment exp;     /* the intervention the pass applies (zero: none) */
    Rng drop_rng;         /* dropout stream (TRAIN) */
    int enc_dropped;      /* the last encoder pass applied dropout masks */
    int dec_dropped;      /* the last decoder pass applied dropout masks */
    float *block;         /* the one allocation */
    int *iblock;
    size_t n_floats;
} TfTrace;

/* Allocate for cap_B sentences of up to cap_T tokens (cap_T <= max_len). */
int trace_build(TfTrace *tr, const TfConfig *cfg, int cap_B, int cap_T,
                int flags, TfErr *err);
void trace_free(TfTrace *tr);
/* Floats trace_build would allocate (to check memory before trying), and
 * all the bytes it would take. trace_build refuses a trace that does not fit
 * in the memory available (sysmem.h) with a message saying both figures. */
size_t trace_floats(const TfConfig *cfg, int cap_B, int cap_T, int flags);
size_t trace_bytes(const TfConfig *cfg, int cap_B, int cap_T, int flags);
/* Make room for B sentences of T tokens, keeping what the trace holds: a
 * trace is built small and grows in steps (powers of two, up to max_len) as
 * longer input arrives, so memory follows the input and not the model's
 * max_len. Never shrinks. The forward pass calls it; pointers into the
 * trace's buffers taken before a call are invalid after it. */
int trace_reserve(TfTrace *tr, int B, int T, TfErr *err);

#endif
