/* marian.h - Hugging Face MarianMT / OPUS-MT directories as models.
 *
 * A directory as save_pretrained writes it: config.json (model_type
 * "marian"), generation_config.json (optional; its ids and max_length
 * override the config's), vocab.json (an object piece -> id) and the
 * weights in model.safetensors (F32, F16 or BF16, converted to F32).
 *
 * The semantics carried over (see README, "MarianMT"): separate q/k/v/out
 * projections with biases, packed into our in_proj rows [W_Q; W_K; W_V];
 * one shared embedding for encoder input, decoder input and output, tied
 * under any of model.shared / model.{encoder,decoder}.embed_tokens /
 * lm_head; final_logits_bias as the output bias (zeros when absent);
 * embeddings scaled by sqrt(d_model) only with scale_embedding; the
 * sinusoidal table in halves (the stored embed_positions when present);
 * post-LN; the FFN activation from activation_function; special ids from
 * the config (</s> eos, <unk>, <pad>, decoder start = pad for OPUS-MT). */
#ifndef TF_MARIAN_H
#define TF_MARIAN_H
#include "err.h"
#include "model.h"
#include "pickle.h" /* tf_f16_to_f32, tf_bf16_to_f32 */

/* A stored positional table within this of the formula (every entry) is
 * the formula, rounded to its dtype (F16's half-ulp at 1 is 4.9e-4). */
#define MARIAN_PE_SAME 1e-3

/* Load the directory dir into m. On failure err holds one line naming the
 * file and the reason, and m is left empty. */
int marian_load(TfModel *m, const char *dir, TfErr *err);

/* The Marian settings (kind, activation, pe_layout, embed_scale, special
 * ids, gen_max_length) as strings in a safetensors __metadata__ object, so
 * that a converted model opens anywhere; get leaves ours untouched when
 * "kind" is absent. */
struct cJSON;
void marian_meta_put(const TfConfig *c, struct cJSON *meta);
int marian_meta_get(TfConfig *c, const struct cJSON *meta, const char *name, TfErr *err);

/* dir/vocab.json into v: V ids (V <= 0: the largest id + 1). */
int marian_vocab_read(const char *dir, Vocab *v, int V, TfErr *err);

/* The same readers over text in memory (the fuzzer): config.json (and
 * generation_config.json when gen is not NULL) into a config, vocab.json
 * into v. */
int marian_config_parse(const char *cfg, size_t n, const char *gen, size_t gn, TfConfig *out, TfErr *err);
int marian_vocab_parse(const char *json, size_t n, Vocab *v, int V, TfErr *err);

#endif
