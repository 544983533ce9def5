/* explain_model.c - the explanation panel's sentences that depend on the
 * model: where a MarianMT / OPUS-MT model differs from the paper (tokens
 * are sentencepiece pieces ending in </s>, the decoder starts with <pad>,
 * positions in halves, SiLU instead of ReLU, final_logits_bias, a large
 * vocabulary), the panel says what this model does. explain.c calls
 * explain_model() and explain_model_how() and keeps its own text for the
 * rest. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "explain_model.h"
#include "panels.h"

static const char *act_name(TfAct a) { return a == TF_ACT_GELU ? "GELU" : a == TF_ACT_SILU ? "SiLU" : "ReLU"; }

const char *explain_step_label(const App *a, StageId st, const char *label)
{
    TfAct act = a->ses.model.cfg.act;
    if ((st == ST_ENC_FFN_HIDDEN || st == ST_DEC_FFN_HIDDEN) && act != TF_ACT_RELU)
        return act == TF_ACT_GELU ? "GELU(xW₁+b₁)" : "SiLU(xW₁+b₁)";
    return label;
}

const char *explain_view_label(const App *a, ViewId v, const char *label)
{
    if (v == VIEW_FFN && a->ses.model.cfg.act != TF_ACT_RELU)
        return act_name(a->ses.model.cfg.act);
    return label;
}

/* ---- each stage's words where this model is not the paper's: 1 with the
 * formula and text set, 0 to keep the paper's (expl_stage.c) ---- */

/* The text a model-dependent sentence is formatted into, and its formula. */
static char g_text[1024], g_formula[256];

static int src_tokens(const TfModel *m, const char **formula, const char **text)
{
    if (m->cfg.kind != TF_KIND_MARIAN)
        return 0;
    *formula = "x = (pieces of source.spm, </s>)";
    *text = _("source.spm splits the sentence into sentencepiece pieces (· marks the start of a word); each piece "
              "is looked up in vocab.json (a piece missing there becomes <unk>) and </s> ends the sentence. A "
              "leading >>lang<< tag stays one token: it tells the model which language to write.");
    return 1;
}

static int tgt_tokens(const TfModel *m, const char **formula, const char **text)
{
    const TfConfig *c = &m->cfg;
    if (c->kind != TF_KIND_MARIAN)
        return 0;
    snprintf(g_formula, sizeof g_formula, "y_in = (%s, y₁, …, yₘ)", vocab_token(&m->tgt_vocab, cfg_start_id(c)));
    *formula = g_formula;
    snprintf(g_text, sizeof g_text,
             _("The decoder reads the target shifted one place right. This model has no <bos>: it starts with "
               "decoder_start_token_id, %s (id %d). At position i it must predict token i+1; the last one to "
               "predict is </s>."),
             vocab_token(&m->tgt_vocab, cfg_start_id(c)), cfg_start_id(c));
    *text = g_text;
    return 1;
}

static int embed(const TfModel *m, const char **formula, const char **text)
{
    const TfConfig *c = &m->cfg;
    if (c->kind != TF_KIND_MARIAN)
        return 0;
    *formula = c->no_embed_scale ? "E[token]" : "E[token] · √d_model";
    *text = c->no_embed_scale
                ? _("Each id selects one row of the embedding matrix. This model's scale_embedding is false: "
                    "unlike the paper, the row is not multiplied by √d_model. One matrix serves the encoder "
                    "input, the decoder input and the output layer.")
                : _("Each id selects one row of the embedding matrix, multiplied by √d_model as in the paper "
                    "(scale_embedding). One matrix serves the encoder input, the decoder input and the output "
                    "layer.");
    return 1;
}

static int pos_enc(const TfModel *m, const char **formula, const char **text)
{
    if (m->cfg.pe_layout != TF_PE_HALVES)
        return 0;
    *formula = "PE(pos, i) = sin(pos/10000^(2i/d)), i < d/2\nPE(pos, d/2 + i) = cos(pos/10000^(2i/d))";
    snprintf(g_text, sizeof g_text,
             _("The paper's frequencies, laid out in halves: this model puts the sines in the first d/2 "
               "channels and the cosines in the second, instead of interleaving them (pair i is channels i "
               "and d/2 + i). The table has max_position_embeddings = %d rows: no sentence may be longer."),
             m->cfg.max_len);
    *text = g_text;
    return 1;
}

static int dec_self_mask(const TfModel *m, const char **formula, const char **text)
{
    if (m->cfg.kind != TF_KIND_MARIAN)
        return 0;
    *formula = "M[i,j] = −∞ if j > i";
    *text = _("The decoder must not look ahead: position i may only attend to positions ≤ i. This model applies "
              "only this causal mask here; a padding mask from the ids would hide its start token, which is "
              "<pad> itself.");
    return 1;
}

static int ffn_hidden(const TfModel *m, const char **formula, const char **text)
{
    const TfConfig *c = &m->cfg;
    if (c->act == TF_ACT_RELU)
        return 0;
    *formula = c->act == TF_ACT_GELU ? "h = GELU(x·W₁ + b₁),  GELU(z) = z·Φ(z)" : "h = SiLU(x·W₁ + b₁),  SiLU(z) = z·σ(z)";
    snprintf(g_text, sizeof g_text,
             _("The same two-layer network is applied to every position separately. The first layer widens each "
               "vector to d_ff numbers, then %s (activation_function) instead of the paper's ReLU: a negative "
               "input gives a small negative value (at least %s), not exactly 0."),
             act_name(c->act), c->act == TF_ACT_GELU ? "−0.17" : "−0.28");
    *text = g_text;
    return 1;
}

static int out_logits(const TfModel *m, const char **formula, const char **text)
{
    if (m->cfg.kind != TF_KIND_MARIAN)
        return 0;
    *formula = "z = y·Eᵀ + final_logits_bias";
    snprintf(g_text, sizeof g_text,
             _("The output layer is the shared embedding matrix, transposed, plus final_logits_bias: a score for "
               "each of the %d tokens of the vocabulary at every position. <pad> is never generated."),
             m->cfg.tgt_vocab);
    *text = g_text;
    return 1;
}

/* The stages a model can change the words of; NULL: the paper's always. */
typedef int (*ModelText)(const TfModel *m, const char **formula, const char **text);
static const ModelText MODEL_TEXT[ST_COUNT] = {
    [ST_SRC_TOKENS] = src_tokens,
    [ST_TGT_TOKENS] = tgt_tokens,
    [ST_SRC_EMBED] = embed,
    [ST_TGT_EMBED] = embed,
    [ST_POS_ENC] = pos_enc,
    [ST_DEC_SELF_MASK] = dec_self_mask,
    [ST_ENC_FFN_HIDDEN] = ffn_hidden,
    [ST_DEC_FFN_HIDDEN] = ffn_hidden,
    [ST_OUT_LOGITS] = out_logits,
};

int explain_model(const App *a, StageId st, const char **title, const char **formula, const char **text)
{
    if ((int)st < 0 || st >= ST_COUNT || !MODEL_TEXT[st])
        return 0;
    if (st == ST_DEC_SELF_MASK && a->ses.model.cfg.kind == TF_KIND_MARIAN)
        *title = N_("Causal mask"); /* no padding part (dec_self_mask); the caller translates */
    return MODEL_TEXT[st](&a->ses.model, formula, text);
}

int explain_model_how(const App *a, char *buf, size_t cap)
{
    const Hover *h = &a->hover;
    const TfConfig *c = &a->ses.model.cfg;
    StageKind k = stage_info(h->stage)->kind;
    if (k == SK_HIDDEN && c->act != TF_ACT_RELU)
        return snprintf(buf, cap,
                        h->value < 0 ? _("%s output %.6f: x·W₁ + b₁ was negative here (ReLU would give 0)")
                                     : _("%s output %.6f"),
                        act_name(c->act), h->value);
    if (k == SK_PE && c->pe_layout == TF_PE_HALVES) {
        int half = (c->d_model + 1) / 2, cosine = h->col >= half, i = cosine ? h->col - half : h->col;
        double ang = h->row / pow(10000.0, 2.0 * i / c->d_model);
        return snprintf(buf, cap, "%s(%d / 10000^(%d/%d))\n= %s(%.5f) = %.6f\n%s", cosine ? "cos" : "sin", h->row,
                        2 * i, c->d_model, cosine ? "cos" : "sin", ang, h->value,
                        cosine ? _("a cosine: the second half of the channels") : _("a sine: the first half of the channels"));
    }
    return 0;
}
