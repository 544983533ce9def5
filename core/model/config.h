/* config.h - the hyper-parameters of an encoder-decoder Transformer.
 *
 * Named presets: "classroom" (the small models shipped with the app),
 * "base" and "big" (Vaswani et al. 2017, Table 3). Parameter and FLOP counts
 * are derived from the config alone, so `stepformer info` can report them
 * without building a model. */
#ifndef TF_CONFIG_H
#define TF_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

typedef enum TfNorm {
    TF_NORM_POST = 0, /* x = LN(x + Sublayer(x))   - the paper */
    TF_NORM_PRE = 1   /* x = x + Sublayer(LN(x)), final LN per stack */
} TfNorm;

typedef enum TfTie {
    TF_TIE_NONE = 0,      /* three separate matrices */
    TF_TIE_GENERATOR = 1, /* pre-softmax projection = target embedding */
    TF_TIE_ALL = 2        /* source embedding = target embedding = projection
                             (one shared vocabulary, as in the paper) */
} TfTie;

/* The feed-forward network's activation (the paper: ReLU; OPUS-MT: SiLU,
 * which Hugging Face calls "swish"; GELU the exact erf form). */
typedef enum TfAct { TF_ACT_RELU = 0, TF_ACT_SILU = 1, TF_ACT_GELU = 2 } TfAct;

/* How the sinusoidal table lays out its columns: the paper's (and our)
 * interleaved sin/cos pairs, or Marian's halves (sin in columns 0..d/2-1,
 * cos in d/2..d-1, same frequencies). */
typedef enum TfPeLayout { TF_PE_INTERLEAVED = 0, TF_PE_HALVES = 1 } TfPeLayout;

/* Where the model comes from and so which conventions it follows. Marian
 * (Hugging Face MarianMT / OPUS-MT): the decoder starts with its start id
 * (= pad), decoder self-attention has the causal mask only, pad is never
 * generated. */
typedef enum TfKind { TF_KIND_STEPFORMER = 0, TF_KIND_MARIAN = 1 } TfKind;

/* Special ids of the model's vocabulary. A zeroed TfSpecials (set = 0)
 * means ours: <pad> 0, <bos> 1, <eos> 2, <unk> 3 (see vocab.h). */
typedef struct TfSpecials {
    int set;
    int pad, eos, unk, start; /* start: first decoder input (<bos> / pad) */
} TfSpecials;

/* Limits that keep every allocation sized from a config sane. */
#define TF_MAX_DMODEL 8192
#define TF_MAX_HEADS 128
#define TF_MAX_DFF 65536
#define TF_MAX_LAYERS 64
#define TF_MAX_VOCAB 1000000
#define TF_MAX_LEN 4096
#define TF_MAX_PARAMS (1ull << 31) /* floats: 8 GiB */

typedef struct TfConfig {
    int d_model;   /* C: width of every residual stream vector */
    int n_heads;   /* NH: heads per attention layer; d_k = d_model / n_heads */
    int d_ff;      /* inner width of the feed-forward network */
    int n_enc;     /* encoder layers */
    int n_dec;     /* decoder layers */
    int src_vocab; /* Vs */
    int tgt_vocab; /* Vt */
    int max_len;   /* longest sequence (positional table size) */
    TfNorm norm;
    TfTie tie;
    float dropout;         /* P_drop during training (0.1 in the paper) */
    float label_smoothing; /* epsilon_ls during training (0.1 in the paper) */
    /* Zero for all of these is our own model (the paper's conventions). */
    TfKind kind;
    TfAct act;
    TfPeLayout pe_layout;
    int no_embed_scale; /* embeddings are not multiplied by sqrt(d_model) */
    TfSpecials ids;
    int gen_max_length; /* Marian: generation's max_length (start token
                           included), 0 when unset */
} TfConfig;

static inline int cfg_pad_id(const TfConfig *c) { return c->ids.set ? c->ids.pad : 0; }
static inline int cfg_start_id(const TfConfig *c) { return c->ids.set ? c->ids.start : 1; }
static inline int cfg_eos_id(const TfConfig *c) { return c->ids.set ? c->ids.eos : 2; }
static inline int cfg_unk_id(const TfConfig *c) { return c->ids.set ? c->ids.unk : 3; }
/* "relu", "silu", "gelu"; "interleaved", "halves". */
const char *cfg_act_name(TfAct a);
const char *cfg_pe_name(TfPeLayout p);

/* Fill cfg from a preset name; vocab sizes are left for the caller.
 * Returns -1 with a message listing the presets on an unknown name. */
/* The sizes of a config under the names checkpoints and `info --json` give
 * them, in that order, with the range a checkpoint may hold. */
typedef struct CfgSize {
    const char *key;
    size_t off; /* of the int in TfConfig */
    int lo, hi;
} CfgSize;
#define CFG_N_SIZES 6
extern const CfgSize CFG_SIZES[CFG_N_SIZES];
static inline int *cfg_size(TfConfig *c, int k) { return (int *)((char *)c + CFG_SIZES[k].off); }
static inline int cfg_size_of(const TfConfig *c, int k)
{
    return *(const int *)((const char *)c + CFG_SIZES[k].off);
}

/* "none", "generator" or "all". */
const char *cfg_tie_name(TfTie t);

int cfg_preset(TfConfig *cfg, const char *name, TfErr *err);

/* Check every field (ranges, d_model divisible by n_heads, tie needs equal
 * vocabularies, total parameters within TF_MAX_PARAMS). */
int cfg_validate(const TfConfig *cfg, TfErr *err);

static inline int cfg_dk(const TfConfig *c) { return c->d_model / c->n_heads; }

/* Parameter counts by component, derived from the architecture. */
typedef struct TfParamCount {
    size_t embed;     /* source + target embeddings (shared counted once) */
    size_t encoder;   /* all encoder layers, plus the final LN for pre-LN */
    size_t decoder;   /* all decoder layers, plus the final LN for pre-LN */
    size_t generator; /* pre-softmax projection (0 if tied) + its bias */
    size_t total;
} TfParamCount;
TfParamCount cfg_param_count(const TfConfig *cfg);

/* Multiply-add FLOPs (2 per MAC) of one forward pass over one sentence pair
 * with S source and T target tokens: matrix products only, split out. */
typedef struct TfFlops {
    double encoder, decoder, generator, total;
} TfFlops;
TfFlops cfg_flops(const TfConfig *cfg, int S, int T);

#endif
