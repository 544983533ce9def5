/* explain_model.c - the explanation panel's sentences that depend on the
 * model: where a MarianMT / OPUS-MT model differs from the paper (tokens
 * are sentencepiece pieces ending in </s>, the decoder starts with <pad>,
 * positions in halves, SiLU instead of ReLU, final_logits_bias, a large
 * vocabulary), the panel says what this model does. explain.c calls
 * explain_model() and explain_model_how() and keeps its own text for the
 * rest. */
#include <math.h>
#include <stdarg.h>
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

/* ---- each stage's words where this model is not the paper's ---- */

/* The text a sentence with this model's numbers is formatted into, and its
 * formula. */
static char g_text[1024], g_formula[256];

static const char *say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static const char *say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_text, sizeof g_text, fmt, ap);
    va_end(ap);
    return g_text;
}

static void tgt_tokens(const TfModel *m, const char **formula, const char **text)
{
    const char *start = vocab_token(&m->tgt_vocab, cfg_start_id(&m->cfg));
    snprintf(g_formula, sizeof g_formula, "y_in = (%s, y₁, …, yₘ)", start);
    *formula = g_formula;
    *text = say(_("The decoder reads the target shifted one place right. This model has no <bos>: it starts with "
                  "decoder_start_token_id, %s (id %d). At position i it must predict token i+1; the last one to "
                  "predict is </s>."),
                start, cfg_start_id(&m->cfg));
}

static void embed(const TfModel *m, const char **formula, const char **text)
{
    int plain = m->cfg.no_embed_scale;
    *formula = plain ? "E[token]" : "E[token] · √d_model";
    *text = plain ? N_("Each id selects one row of the embedding matrix. This model's scale_embedding is false: "
                       "unlike the paper, the row is not multiplied by √d_model. One matrix serves the encoder "
                       "input, the decoder input and the output layer.")
                  : N_("Each id selects one row of the embedding matrix, multiplied by √d_model as in the paper "
                       "(scale_embedding). One matrix serves the encoder input, the decoder input and the output "
                       "layer.");
}

static void pos_enc(const TfModel *m, const char **formula, const char **text)
{
    *formula = "PE(pos, i) = sin(pos/10000^(2i/d)), i < d/2\nPE(pos, d/2 + i) = cos(pos/10000^(2i/d))";
    *text = say(_("The paper's frequencies, laid out in halves: this model puts the sines in the first d/2 "
                  "channels and the cosines in the second, instead of interleaving them (pair i is channels i "
                  "and d/2 + i). The table has max_position_embeddings = %d rows: no sentence may be longer."),
                m->cfg.max_len);
}

static void ffn_hidden(const TfModel *m, const char **formula, const char **text)
{
    TfAct act = m->cfg.act;
    *formula = act == TF_ACT_GELU ? "h = GELU(x·W₁ + b₁),  GELU(z) = z·Φ(z)" : "h = SiLU(x·W₁ + b₁),  SiLU(z) = z·σ(z)";
    *text = say(_("The same two-layer network is applied to every position separately. The first layer widens each "
                  "vector to d_ff numbers, then %s (activation_function) instead of the paper's ReLU: a negative "
                  "input gives a small negative value (at least %s), not exactly 0."),
                act_name(act), act == TF_ACT_GELU ? "−0.17" : "−0.28");
}

static void out_logits(const TfModel *m, const char **formula, const char **text)
{
    *formula = "z = y·Eᵀ + final_logits_bias";
    *text = say(_("The output layer is the shared embedding matrix, transposed, plus final_logits_bias: a score for "
                  "each of the %d tokens of the vocabulary at every position. <pad> is never generated."),
                m->cfg.tgt_vocab);
}

/* The models a stage's words are for. */
typedef enum { FOR_MARIAN, FOR_HALVES, FOR_NOT_RELU } ModelKind;

static int is_for(const TfConfig *c, ModelKind k)
{
    return k == FOR_MARIAN ? c->kind == TF_KIND_MARIAN : k == FOR_HALVES ? c->pe_layout == TF_PE_HALVES
                                                                        : c->act != TF_ACT_RELU;
}

/* Each stage a model can change the words of: for which models, and the
 * words, fixed (N_(): the caller translates; the title NULL keeps the
 * paper's) or made from the model's numbers by fn. */
typedef void (*ModelText)(const TfModel *m, const char **formula, const char **text);
typedef struct ModelWords {
    StageId st;
    ModelKind when;
    ModelText fn;
    const char *title, *formula, *text;
} ModelWords;

static const ModelWords MODEL_WORDS[] = {
    {ST_SRC_TOKENS, FOR_MARIAN, NULL, NULL, "x = (pieces of source.spm, </s>)",
     N_("source.spm splits the sentence into sentencepiece pieces (· marks the start of a word); each piece "
        "is looked up in vocab.json (a piece missing there becomes <unk>) and </s> ends the sentence. A "
        "leading >>lang<< tag stays one token: it tells the model which language to write.")},
    {ST_DEC_SELF_MASK, FOR_MARIAN, NULL, N_("Causal mask"), "M[i,j] = −∞ if j > i",
     N_("The decoder must not look ahead: position i may only attend to positions ≤ i. This model applies "
        "only this causal mask here; a padding mask from the ids would hide its start token, which is "
        "<pad> itself.")},
    {ST_TGT_TOKENS, FOR_MARIAN, tgt_tokens, NULL, NULL, NULL},
    {ST_SRC_EMBED, FOR_MARIAN, embed, NULL, NULL, NULL},
    {ST_TGT_EMBED, FOR_MARIAN, embed, NULL, NULL, NULL},
    {ST_POS_ENC, FOR_HALVES, pos_enc, NULL, NULL, NULL},
    {ST_ENC_FFN_HIDDEN, FOR_NOT_RELU, ffn_hidden, NULL, NULL, NULL},
    {ST_DEC_FFN_HIDDEN, FOR_NOT_RELU, ffn_hidden, NULL, NULL, NULL},
    {ST_OUT_LOGITS, FOR_MARIAN, out_logits, NULL, NULL, NULL},
};

int explain_model(const App *a, StageId st, const char **title, const char **formula, const char **text)
{
    const TfModel *m = &a->ses.model;
    for (size_t k = 0; k < sizeof MODEL_WORDS / sizeof MODEL_WORDS[0]; k++) {
        const ModelWords *w = &MODEL_WORDS[k];
        if (w->st != st || !is_for(&m->cfg, w->when))
            continue;
        if (w->title)
            *title = w->title;
        if (w->fn) {
            w->fn(m, formula, text);
        } else {
            *formula = w->formula;
            *text = w->text;
        }
        return 1;
    }
    return 0;
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
