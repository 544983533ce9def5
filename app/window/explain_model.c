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

int explain_model(const App *a, StageId st, const char **title, const char **formula, const char **text)
{
    const TfModel *m = &a->ses.model;
    const TfConfig *c = &m->cfg;
    static char t[1024], f[256];
    int marian = c->kind == TF_KIND_MARIAN;
    (void)title;
    switch (st) {
    case ST_SRC_TOKENS:
        if (!marian)
            return 0;
        *formula = "x = (pieces of source.spm, </s>)";
        *text = _("source.spm splits the sentence into sentencepiece pieces (· marks the start of a word); each piece "
                  "is looked up in vocab.json (a piece missing there becomes <unk>) and </s> ends the sentence. A "
                  "leading >>lang<< tag stays one token: it tells the model which language to write.");
        return 1;
    case ST_TGT_TOKENS:
        if (!marian)
            return 0;
        snprintf(f, sizeof f, "y_in = (%s, y₁, …, yₘ)", vocab_token(&m->tgt_vocab, cfg_start_id(c)));
        *formula = f;
        snprintf(t, sizeof t,
                 _("The decoder reads the target shifted one place right. This model has no <bos>: it starts with "
                   "decoder_start_token_id, %s (id %d). At position i it must predict token i+1; the last one to "
                   "predict is </s>."),
                 vocab_token(&m->tgt_vocab, cfg_start_id(c)), cfg_start_id(c));
        *text = t;
        return 1;
    case ST_SRC_EMBED: case ST_TGT_EMBED:
        if (!marian)
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
    case ST_POS_ENC:
        if (c->pe_layout != TF_PE_HALVES)
            return 0;
        *formula = "PE(pos, i) = sin(pos/10000^(2i/d)), i < d/2\nPE(pos, d/2 + i) = cos(pos/10000^(2i/d))";
        snprintf(t, sizeof t,
                 _("The paper's frequencies, laid out in halves: this model puts the sines in the first d/2 "
                   "channels and the cosines in the second, instead of interleaving them (pair i is channels i "
                   "and d/2 + i). The table has max_position_embeddings = %d rows: no sentence may be longer."),
                 c->max_len);
        *text = t;
        return 1;
    case ST_DEC_SELF_MASK:
        if (!marian)
            return 0;
        *formula = "M[i,j] = −∞ if j > i";
        *text = _("The decoder must not look ahead: position i may only attend to positions ≤ i. This model applies "
                  "only this causal mask here; a padding mask from the ids would hide its start token, which is "
                  "<pad> itself.");
        return 1;
    case ST_ENC_FFN_HIDDEN: case ST_DEC_FFN_HIDDEN:
        if (c->act == TF_ACT_RELU)
            return 0;
        *formula = c->act == TF_ACT_GELU ? "h = GELU(x·W₁ + b₁),  GELU(z) = z·Φ(z)" : "h = SiLU(x·W₁ + b₁),  SiLU(z) = z·σ(z)";
        snprintf(t, sizeof t,
                 _("The same two-layer network is applied to every position separately. The first layer widens each "
                   "vector to d_ff numbers, then %s (activation_function) instead of the paper's ReLU: a negative "
                   "input gives a small negative value (at least %s), not exactly 0."),
                 act_name(c->act), c->act == TF_ACT_GELU ? "−0.17" : "−0.28");
        *text = t;
        return 1;
    case ST_OUT_LOGITS:
        if (!marian)
            return 0;
        *formula = "z = y·Eᵀ + final_logits_bias";
        snprintf(t, sizeof t,
                 _("The output layer is the shared embedding matrix, transposed, plus final_logits_bias: a score for "
                   "each of the %d tokens of the vocabulary at every position. <pad> is never generated."),
                 c->tgt_vocab);
        *text = t;
        return 1;
    default:
        return 0;
    }
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
