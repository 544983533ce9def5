/* explain.c - the explanation panel: what the current stage computes in two
 * or three sentences, its formula in plain Unicode, the tensor's shape, and
 * for the cell under the mouse how that exact number was computed from the
 * numbers before it (all read from the trace, nothing recomputed apart from
 * the arithmetic being shown). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "explain_model.h"
#include "panels.h"
#include "view_decode.h"

typedef struct Expl {
    const char *title, *formula, *text;
} Expl;

static Expl expl_of(StageId st, int pre)
{
    switch (st) {
    case ST_SRC_TOKENS:
        return (Expl){N_("Source tokens"), "x = (x₁, …, xₙ)",
                      N_("The sentence is split into tokens and each token is looked up in the vocabulary. "
                         "The model only ever sees these ids; a word it has never seen becomes <unk>.")};
    case ST_TGT_TOKENS:
        return (Expl){N_("Decoder input (shifted right)"), "y_in = (<bos>, y₁, …, yₘ)",
                      N_("The decoder reads the target shifted one place right, starting with <bos>. "
                         "At position i it must predict token i+1, seeing only tokens up to i.")};
    case ST_SRC_EMBED: case ST_TGT_EMBED:
        return (Expl){N_("Token embeddings"), "E[token] · √d_model",
                      N_("Each id selects one row of the embedding matrix: a learned vector of d_model numbers. "
                         "The paper multiplies it by √d_model without giving a reason. A common reading: the "
                         "learned entries are small, and the factor brings each vector to about the size of the "
                         "positional encoding added to it (entries between −1 and 1), so neither swamps the other.")};
    case ST_POS_ENC:
        return (Expl){N_("Positional encoding"), "PE(pos,2i) = sin(pos/10000^(2i/d))\nPE(pos,2i+1) = cos(pos/10000^(2i/d))",
                      N_("Attention by itself ignores word order, so every position gets a fixed pattern of sines and cosines "
                         "of different wavelengths. PE(pos+k) is a rotation of PE(pos), so relative offsets are easy to read.")};
    case ST_ENC_INPUT: case ST_DEC_INPUT:
        return (Expl){N_("Embedding + position"), "x = E[token]·√d + PE(pos)",
                      N_("The token's meaning and its position are simply added. This sum is the input to the first layer "
                         "(during training, dropout 0.1 is applied to it).")};
    case ST_ENC_SELF_Q: case ST_DEC_SELF_Q: case ST_DEC_CROSS_Q:
        return (Expl){N_("Queries (Q)"), "Q = X·W_Q + b_Q",
                      st == ST_DEC_CROSS_Q ? N_("In cross-attention the queries come from the decoder: each target position asks what in the source it needs.")
                                           : N_("Each token's query vector says what it is looking for. Every head h uses its own d_k columns of Q.")};
    case ST_ENC_SELF_K: case ST_DEC_SELF_K: case ST_DEC_CROSS_K:
        return (Expl){N_("Keys (K)"), "K = X·W_K + b_K",
                      st == ST_DEC_CROSS_K ? N_("In cross-attention keys come from the encoder output, one per source token.")
                                           : N_("Each token's key vector says what it offers. A query matches a key by their dot product.")};
    case ST_ENC_SELF_V: case ST_DEC_SELF_V: case ST_DEC_CROSS_V:
        return (Expl){N_("Values (V)"), "V = X·W_V + b_V",
                      N_("Values are what a token hands over when it is attended to: the output of a head is a weighted "
                         "average of values. Every head h uses its own d_v columns of V (d_v = d_k = d_model / h here, "
                         "as in the paper).")};
    case ST_ENC_SELF_SCORES: case ST_DEC_SELF_SCORES: case ST_DEC_CROSS_SCORES:
        return (Expl){N_("Scaled scores"), "S = Q_h·K_hᵀ / √d_k",
                      N_("Every query is compared with every key by a dot product. Dividing by √d_k keeps the scores from growing "
                         "with the dimension, which would push the softmax into regions with tiny gradients.")};
    case ST_ENC_SELF_MASK:
        return (Expl){N_("Padding mask"), N_("M[i,j] = −∞ if key j is <pad>, else 0"),
                      N_("Sentences in a batch are padded to the same length. The mask adds −∞ to scores of padding keys so "
                         "that they get exactly zero attention. Padded query rows are computed but ignored.")};
    case ST_DEC_SELF_MASK:
        return (Expl){N_("Causal + padding mask"), N_("M[i,j] = −∞ if j > i or key j is <pad>"),
                      N_("The decoder must not look ahead: position i may only attend to positions ≤ i. This mask is what "
                         "lets training compute every position of the target in one parallel pass without cheating. "
                         "Teacher forcing is a separate idea: the decoder reads the true previous tokens, not its own "
                         "guesses (RNN decoders did that too, one step at a time).")};
    case ST_DEC_CROSS_MASK:
        return (Expl){N_("Source padding mask"), N_("M[i,j] = −∞ if source token j is <pad>"),
                      N_("Cross-attention may look at every real source token, never at padding.")};
    case ST_ENC_SELF_WEIGHTS: case ST_DEC_SELF_WEIGHTS: case ST_DEC_CROSS_WEIGHTS:
        return (Expl){N_("Attention weights"), "A = softmax(QKᵀ/√d_k + M)",
                      N_("Softmax turns each row of scores into probabilities that sum to 1: how much each query token takes "
                         "from each key token. Masked cells are exactly 0.")};
    case ST_ENC_SELF_HEADS: case ST_DEC_SELF_HEADS: case ST_DEC_CROSS_HEADS:
        return (Expl){N_("Head outputs"), "head_h = A_h·V_h",
                      N_("Each head averages the value vectors with its attention weights, giving d_v numbers per token.")};
    case ST_ENC_SELF_CONCAT: case ST_DEC_SELF_CONCAT: case ST_DEC_CROSS_CONCAT:
        return (Expl){N_("Concatenated heads"), "Concat(head₁, …, head_h)",
                      N_("The h head outputs are placed side by side: h × d_v = d_model numbers per token.")};
    case ST_ENC_SELF_OUT: case ST_DEC_SELF_OUT: case ST_DEC_CROSS_OUT:
        return (Expl){N_("Output projection"), "MultiHead = Concat(heads)·W_O + b_O",
                      N_("W_O mixes the heads back into one d_model vector per token: the sub-layer's output.")};
    case ST_ENC_ADD1: case ST_ENC_ADD2: case ST_DEC_ADD1: case ST_DEC_ADD2: case ST_DEC_ADD3:
        return (Expl){N_("Residual connection"), pre ? "x + Sublayer(LN(x))" : "x + Sublayer(x)",
                      N_("The sub-layer's output is added to its input, so information and gradients can flow straight "
                         "through the stack. (Dropout 0.1 is applied to the sub-layer output during training.)")};
    case ST_ENC_NORM1: case ST_ENC_NORM2: case ST_DEC_NORM1: case ST_DEC_NORM2: case ST_DEC_NORM3:
        return (Expl){N_("Layer normalisation"), "LN(x) = (x − μ)/√(σ² + ε) · γ + β",
                      pre ? N_("Pre-LN (common today): each sub-layer normalises its input, and the residual sum is left unnormalised.")
                          : N_("Post-LN as in the paper: each token's vector is shifted to mean 0 and scaled to variance 1, then "
                               "stretched by learned γ and β.")};
    case ST_ENC_FINAL: case ST_DEC_FINAL:
        return (Expl){N_("Final LayerNorm"), "LN(x)", N_("Pre-LN models normalise the output of the whole stack once more.")};
    case ST_ENC_FFN_HIDDEN: case ST_DEC_FFN_HIDDEN:
        return (Expl){N_("Feed-forward, hidden"), "h = max(0, x·W₁ + b₁)",
                      N_("The same two-layer network is applied to every position separately. The first layer widens each "
                         "vector to d_ff numbers; ReLU sets the negative ones to exactly 0.")};
    case ST_ENC_FFN_OUT: case ST_DEC_FFN_OUT:
        return (Expl){N_("Feed-forward, output"), "FFN(x) = h·W₂ + b₂",
                      N_("The second layer brings the vector back to d_model numbers.")};
    case ST_OUT_LOGITS:
        return (Expl){N_("Logits"), "z = y·W_gen + b",
                      N_("A linear layer scores every word of the target vocabulary at every position. In the paper this "
                         "matrix is shared with the embeddings.")};
    case ST_OUT_PROBS:
        return (Expl){N_("Output probabilities"), N_("P(next token) = softmax(z)"),
                      N_("Softmax turns the scores into a probability for every word. Greedy decoding picks the most likely "
                         "one; beam search keeps several candidates.")};
    default:
        return (Expl){stage_info(st)->name, "", ""};
    }
}

/* The decode view explains the pane it shows, the train view itself, not
 * the current stage. */
static const Expl DECODE_EXPL[DEC_PANE_COUNT] = {
    [DEC_PANE_GEN] = {N_("Training vs inference"), "P(y) = Π P(y_t | y_<t, x)",
      N_("Left, training: the decoder reads the true previous tokens (teacher forcing), and thanks to the causal "
         "mask all positions are computed in one pass. Right, inference: there is no reference, so each step reads "
         "the model's own earlier outputs and one wrong token changes every prefix after it. The model never "
         "learned what to do after a mistake of its own, so errors can compound in a way the training loss never "
         "measured: exposure bias. Where the two sides read different tokens, teacher forcing may still predict "
         "correctly while generation goes wrong (≠).")},
    [DEC_PANE_STEP] = {N_("One generation step"), "y_t = argmax P(y | y_<t, x)",
      N_("Inference runs one token at a time: the decoder reads <bos> and the tokens generated so far. Its masked "
         "self-attention row looks back over them, its cross-attention row picks the source words it needs, and the "
         "bars show the probabilities of the next token. Greedy decoding takes the most likely one, appends it and "
         "repeats until <eos>; the keys and values of earlier steps are kept, so each step adds one position.")},
    [DEC_PANE_BEAM] = {N_("Beam search"), "score = log P(y | x) / lp(y),  lp(y) = ((5 + |y|) / 6)^α",
      N_("Instead of committing to the best token at every step, beam search keeps the K most probable partial "
         "translations (the paper uses K = 4, α = 0.6). Each step extends every live hypothesis and keeps the K "
         "best; finished ones (ending in <eos>) are compared after the length penalty, so short outputs do not win "
         "just because they multiply fewer probabilities. The tree shows kept, finished and pruned hypotheses; the "
         "highlighted path is the winner.")},
    [DEC_PANE_SAMPLE] = {N_("Sampling with a temperature"), "P_T(y) = softmax(z / T),  T ∈ [0.1, 5]",
      N_("Instead of taking the most likely token, sampling draws the next token at random from the model's "
         "distribution. The temperature T divides the logits z before the softmax: T < 1 sharpens the distribution "
         "towards the greedy choice, T > 1 flattens it so unlikely tokens are drawn more often. Top-k keeps only the "
         "k most likely tokens, top-p the smallest set whose probabilities add up to p; the rest get 0 and the kept "
         "ones are renormalised. The same seed always draws the same translation.")},
};
static const Expl TRAIN_EXPL = {N_("Training"), "lrate = d_model^−0.5 · min(step^−0.5, step · warmup^−1.5)",
      N_("The decoder reads the true target shifted right (teacher forcing), and the causal mask lets it predict "
         "every next token in one parallel pass. The model follows the gradient of the cross-entropy, with label "
         "smoothing 0.1, dropout 0.1 and Adam (β₁ 0.9, β₂ 0.98, ε 10⁻⁹). The learning rate rises during warm-up and "
         "then decays as 1/√step. Watch the heads of the probe sentence form: diffuse at first, then sharp "
         "alignments.")};


/* ---- how the hovered number was computed ---- */

static int vec_text(char *buf, size_t cap, const float *x, int n, int stride)
{
    int k = snprintf(buf, cap, "(");
    for (int i = 0; i < n && i < 4 && (size_t)k < cap; i++)
        k += snprintf(buf + k, cap - (size_t)k, "%s%.3f", i ? ", " : "", x[(size_t)i * stride]);
    if (n > 4 && (size_t)k < cap)
        k += snprintf(buf + k, cap - (size_t)k, _(", … %d dims"), n);
    if ((size_t)k < cap)
        k += snprintf(buf + k, cap - (size_t)k, ")");
    return k;
}

/* The attention block a stage belongs to. */
static const AttnAct *attn_of(const TfTrace *tr, StageId st, int layer, int *Tq, int *Tk)
{
    if (st >= ST_ENC_SELF_Q && st <= ST_ENC_SELF_OUT) {
        *Tq = *Tk = tr->S;
        return &tr->enc[layer].sa;
    }
    if (st >= ST_DEC_SELF_Q && st <= ST_DEC_SELF_OUT) {
        *Tq = *Tk = tr->T;
        return &tr->dec[layer].sa;
    }
    if (st >= ST_DEC_CROSS_Q && st <= ST_DEC_CROSS_OUT) {
        *Tq = tr->T;
        *Tk = tr->S;
        return &tr->dec[layer].ca;
    }
    return NULL;
}

static int how_attention(const App *a, const Hover *h, char *buf, size_t cap)
{
    const TfTrace *tr = &a->ses.trace;
    const TfConfig *c = &a->ses.model.cfg;
    int Tq, Tk, NH = c->n_heads, dk = c->d_model / NH, C = c->d_model;
    const AttnAct *at = attn_of(tr, h->stage, h->layer, &Tq, &Tk);
    if (!at || h->head < 0)
        return 0;
    int b = h->b, i = h->row, j = h->col, hd = h->head;
    const float *q = at->q + ((size_t)b * Tq + i) * at->qs + hd * dk;
    const float *k = at->k + ((size_t)b * Tk + j) * at->kvs + hd * dk;
    double dot = 0;
    for (int d = 0; d < dk; d++)
        dot += (double)q[d] * k[d];
    size_t cell = (((size_t)b * NH + hd) * Tq + i) * Tk + j;
    float score = at->scores[cell], mask = at->mask[((size_t)b * Tq + i) * Tk + j];
    const float *wrow = at->weights + (((size_t)b * NH + hd) * Tq + i) * Tk;
    const float *srow = at->scores + (((size_t)b * NH + hd) * Tq + i) * Tk;
    const float *mrow = at->mask + ((size_t)b * Tq + i) * Tk;
    double mx = -INFINITY, sum = 0;
    for (int t = 0; t < Tk; t++)
        if (srow[t] + mrow[t] > mx)
            mx = srow[t] + mrow[t];
    for (int t = 0; t < Tk; t++)
        if (isfinite(srow[t] + mrow[t]))
            sum += exp(srow[t] + mrow[t] - mx);
    char qs[160], ks[160];
    vec_text(qs, sizeof qs, q, dk, 1);
    vec_text(ks, sizeof ks, k, dk, 1);
    int n = snprintf(buf, cap, _("q_%d = %s\nk_%d = %s\nq·k = %.5f\n÷ √d_k = √%d = %.4f → score %.5f\n"),
                     i, qs, j, ks, dot, dk, sqrt((double)dk), score);
    if (isinf(mask))
        n += snprintf(buf + n, cap - (size_t)n, "%s", _("mask = −∞ → weight exactly 0\n"));
    else
        n += snprintf(buf + n, cap - (size_t)n, _("mask = 0\nsoftmax: e^(%.4f − %.4f) / %.5f = %.6f\n"),
                      score, mx, sum, exp(score - mx) / sum);
    n += snprintf(buf + n, cap - (size_t)n, _("weight = %.6f; the row sums to 1\n"), wrow[j]);
    (void)C;
    return n;
}

static int how_norm(const App *a, const Hover *h, char *buf, size_t cap)
{
    const TfTrace *tr = &a->ses.trace;
    const TfParams *p = &a->ses.model.p;
    int C = a->ses.model.cfg.d_model, pre = a->ses.model.cfg.norm == TF_NORM_PRE;
    const NormAct *na = NULL;
    const float *w = NULL, *bb = NULL;
    int T = tr->S, l = h->layer;
    switch (h->stage) {
    case ST_ENC_NORM1: na = &tr->enc[l].n1; w = p->enc_ln1_w; bb = p->enc_ln1_b; break;
    case ST_ENC_NORM2: na = &tr->enc[l].n2; w = p->enc_ln2_w; bb = p->enc_ln2_b; break;
    case ST_DEC_NORM1: na = &tr->dec[l].n1; w = p->dec_ln1_w; bb = p->dec_ln1_b; T = tr->T; break;
    case ST_DEC_NORM2: na = &tr->dec[l].n2; w = p->dec_ln2_w; bb = p->dec_ln2_b; T = tr->T; break;
    case ST_DEC_NORM3: na = &tr->dec[l].n3; w = p->dec_ln3_w; bb = p->dec_ln3_b; T = tr->T; break;
    default: return 0;
    }
    w += (size_t)l * C;
    bb += (size_t)l * C;
    size_t row = (size_t)h->b * T + h->row;
    float mean = na->mean[row], rstd = na->rstd[row];
    /* the LN input: post-LN normalises the residual sum; pre-LN the block input */
    float x = pre ? (h->value - bb[h->col]) / (w[h->col] * rstd) + mean
                  : na->sum[row * C + h->col];
    return snprintf(buf, cap, _("μ = %.5f, σ = %.5f over %d dims\n(x − μ)/σ = (%.5f − %.5f) × %.4f\n× γ %.4f + β %.4f\n= %.6f%s"),
                    mean, 1.0 / rstd, C, x, mean, rstd, w[h->col], bb[h->col], h->value,
                    pre ? _("\n(pre-LN: x is this sub-layer's input)") : "");
}

static int how_probs(const App *a, const Hover *h, char *buf, size_t cap)
{
    const TfTrace *tr = &a->ses.trace;
    int V = a->ses.model.cfg.tgt_vocab;
    const float *z = tr->logits + ((size_t)h->b * tr->T + h->row) * V;
    double mx = -INFINITY, sum = 0;
    for (int v = 0; v < V; v++)
        if (z[v] > mx)
            mx = z[v];
    for (int v = 0; v < V; v++)
        sum += exp(z[v] - mx);
    return snprintf(buf, cap, _("logit z = %.5f\nsoftmax: e^(z − max) / Σ = e^(%.4f) / %.4f\n= %.6f"),
                    z[h->col], z[h->col] - mx, sum, exp(z[h->col] - mx) / sum);
}

static int how(const App *a, char *buf, size_t cap)
{
    const Hover *h = &a->hover;
    const StageInfo *si = stage_info(h->stage);
    const TfConfig *c = &a->ses.model.cfg;
    int k = explain_model_how(a, buf, cap);
    if (k > 0)
        return k;
    switch (si->kind) {
    case SK_WEIGHTS: case SK_SCORES: return how_attention(a, h, buf, cap);
    case SK_NORM: return how_norm(a, h, buf, cap);
    case SK_PROBS: return how_probs(a, h, buf, cap);
    case SK_MASK:
        return snprintf(buf, cap, "%s",
                        !isinf(h->value) ? _("0: the query may attend to this key")
                        : h->stage == ST_DEC_SELF_MASK && h->col > h->row
                            ? _("−∞: this key is in the future, so it gets weight 0")
                            : _("−∞: this key is padding, so it gets weight 0"));
    case SK_PE: {
        int i2 = h->col / 2 * 2;
        double ang = h->row / pow(10000.0, (double)i2 / c->d_model);
        return snprintf(buf, cap, "%s(%d / 10000^(%d/%d))\n= %s(%.5f) = %.6f", h->col % 2 ? "cos" : "sin",
                        h->row, i2, c->d_model, h->col % 2 ? "cos" : "sin", ang, h->value);
    }
    case SK_HIDDEN:
        return snprintf(buf, cap, h->value == 0 ? _("ReLU output 0: x·W₁ + b₁ was ≤ 0 here") : _("ReLU passed a positive value: %.6f"), h->value);
    default:
        return 0;
    }
}

void explain_draw(ViewCtx *v)
{
    if (explain_code_draw(v)) /* the "code" tab (explain_code.c) */
        return;
    App *a = win_app(v);
    const Theme *th = v->th;
    Rect rc = v->area;
    StagePos p = app_pos(a);
    int pre = a->ses.model.cfg.norm == TF_NORM_PRE;
    Expl e = expl_of(p.stage, pre);
    explain_model(a, p.stage, &e.title, &e.formula, &e.text); /* where this model is not the paper's */
    ViewId view = app_current_view(a);
    int own_view = view == VIEW_DECODE || view == VIEW_TRAIN;
    if (view == VIEW_TRAIN) {
        e = TRAIN_EXPL;
    } else if (view == VIEW_DECODE) {
        const DecodeUi *d = a->vstate[VIEW_DECODE];
        e = DECODE_EXPL[d && d->pane < DEC_PANE_COUNT ? d->pane : DEC_PANE_GEN];
    }
    e.title = _(e.title);
    e.text = _(e.text);
    e.formula = _(e.formula); /* the formulas with words; the rest stay as they are */
    int x = rc.x + 14, w = rc.w - 24, y = rc.y + 12;
    y += ui_paragraph(v->r, v->g->title, e.title, x, y, w, th->text) + 6;
    if (!own_view) {
        ren_text(v->r, v->g->small, stage_info(p.stage)->name, x, y, th->dim);
        y += ren_font_height(v->g->small) + 10;
    }
    if (e.formula[0]) {
        int fh = ui_paragraph(v->r, v->g->ui, e.formula, x + 10, y + 6, w - 20, th->accent);
        ren_rect_line(v->r, (Rect){x, y, w, fh + 12}, 1, th->border);
        y += fh + 22;
    }
    TfView tv;
    TfErr err;
    int head = a->ses.head < 0 && (stage_info(p.stage)->flags & SF_HEAD) ? 0 : a->ses.head;
    if (!own_view && !a->ses.input_error[0] && tf_view(&a->ses.trace, p.stage, p.layer, head, a->ses.batch, &tv, &err) == 0) {
        char shape[96];
        snprintf(shape, sizeof shape, _("shape %d × %d"), tv.rows, tv.cols);
        ren_text(v->r, v->g->ui, shape, x, y, th->dim);
        y += ren_font_height(v->g->ui) + 8;
    }
    y += ui_paragraph(v->r, v->g->ui, e.text, x, y, w, th->text) + 14;
    if (a->hover.valid && !a->hover.own && a->hover.stage == p.stage) {
        char buf[1200];
        if (how(a, buf, sizeof buf) > 0) {
            ren_text(v->r, v->g->ui, _("How this number was computed"), x, y, th->select);
            y += ren_font_height(v->g->ui) + 4;
            ui_paragraph(v->r, v->g->mono, buf, x, y, w, th->text);
        }
    }
}
