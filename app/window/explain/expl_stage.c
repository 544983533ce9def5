/* expl_stage.c - the words of every stage (expl_stage.h), and of the views
 * that explain themselves instead (the Decode and Train tabs, the heads
 * lab's, rollout): each
 * distinct explanation is written once, as a StageText, and STAGE_TEXT
 * maps every StageId to one of them (the encoder's and the decoder's
 * embeddings share one, the three attention blocks share theirs but for
 * where queries, keys and the mask differ).
 *
 * The code is our own sketch for one sentence of n tokens, in the order
 * this program runs them: post-LN as in the paper unless the model is
 * pre-LN; Q/K/V/O have biases, as nn.Linear does. */
#include "expl_stage.h"

#include <assert.h>
#include <stddef.h>

#include "ui.h"

/* ---- code more than one stage shows ---- */

static const char QKV_SELF_CODE[] =
    "q, k, v = W_q(x), W_k(x), W_v(x)  # nn.Linear(d_model, d_model)\n"
    "# split into h heads of d_k = d_model / h\n"
    "q = q.view(n, h, d_k).transpose(0, 1)  # (h, n, d_k)\n"
    "k = k.view(n, h, d_k).transpose(0, 1)\n"
    "v = v.view(n, h, d_k).transpose(0, 1)";

static const char QKV_CROSS_CODE[] =
    "# queries from the decoder, keys and values from the encoder\n"
    "q = W_q(y)       # nn.Linear(d_model, d_model)\n"
    "k = W_k(memory)  # memory: the encoder's output\n"
    "v = W_v(memory)\n"
    "q = q.view(-1, h, d_k).transpose(0, 1)  # (h, m, d_k)";

static const char PAD_MASK_CODE[] =
    "mask = torch.zeros(n_q, n_k)\n"
    "mask[:, src_len:] = float('-inf')  # padded source keys";

/* ---- the input: tokens, embeddings, positions ---- */

static const StageText SRC_TOKENS = {
    .title = N_("Source tokens"),
    .formula = "x = (x₁, …, xₙ)",
    .text = N_("The sentence is split into tokens and each token is looked up in the vocabulary. "
               "The model only ever sees these ids; a word it has never seen becomes <unk>."),
    .code = "ids = torch.tensor([src_vocab[w] for w in src.split()])  # (n,)",
};

static const StageText TGT_TOKENS = {
    .title = N_("Decoder input (shifted right)"),
    .formula = "y_in = (<bos>, y₁, …, yₘ)",
    .text = N_("The decoder reads the target shifted one place right, starting with <bos>. "
               "At position i it must predict token i+1, seeing only tokens up to i."),
    .code = "y = torch.tensor([tgt_vocab[w] for w in tgt.split()])\n"
            "# shifted right: <bos> first, the last token dropped\n"
            "y_in = torch.cat([torch.tensor([BOS]), y])  # (m+1,)",
};

static const StageText EMBED = {
    .title = N_("Token embeddings"),
    .formula = "E[token] · √d_model",
    .text = N_("Each id selects one row of the embedding matrix: a learned vector of d_model numbers. "
               "The paper multiplies it by √d_model without giving a reason. A common reading: the "
               "learned entries are small, and the factor brings each vector to about the size of the "
               "positional encoding added to it (entries between −1 and 1), so neither swamps the other."),
    .code = "emb = nn.Embedding(vocab_size, d_model)\n"
            "x = emb(ids) * math.sqrt(d_model)  # (n, d_model)",
};

static const StageText POS_ENC = {
    .title = N_("Positional encoding"),
    .formula = "PE(pos,2i) = sin(pos/10000^(2i/d))\nPE(pos,2i+1) = cos(pos/10000^(2i/d))",
    .text = N_("Attention by itself ignores word order, so every position gets a fixed pattern of sines and cosines "
               "of different wavelengths. PE(pos+k) is a rotation of PE(pos), so relative offsets are easy to read."),
    .code = "pos = torch.arange(n).unsqueeze(1)         # (n, 1)\n"
            "i2 = torch.arange(0, d_model, 2)           # 2i\n"
            "angle = pos / 10000 ** (i2 / d_model)      # (n, d_model/2)\n"
            "pe = torch.zeros(n, d_model)\n"
            "pe[:, 0::2] = torch.sin(angle)\n"
            "pe[:, 1::2] = torch.cos(angle)",
};

static const StageText INPUT = {
    .title = N_("Embedding + position"),
    .formula = "x = E[token]·√d + PE(pos)",
    .text = N_("The token's meaning and its position are simply added. This sum is the input to the first layer "
               "(during training, dropout 0.1 is applied to it)."),
    .code = "x = emb(ids) * math.sqrt(d_model) + pe[:n]\n"
            "x = dropout(x)  # p = 0.1, training only",
};

/* ---- attention: the nine stages of a block ---- */

static const StageText Q_CROSS = {
    .title = N_("Queries (Q)"),
    .formula = "Q = X·W_Q + b_Q",
    .text = N_("In cross-attention the queries come from the decoder: each target position asks what in the source "
               "it needs."),
    .code = QKV_CROSS_CODE,
};

static const StageText Q_SELF = {
    .title = N_("Queries (Q)"),
    .formula = "Q = X·W_Q + b_Q",
    .text = N_("Each token's query vector says what it is looking for. Every head h uses its own d_k columns of Q."),
    .code = QKV_SELF_CODE,
};

static const StageText K_CROSS = {
    .title = N_("Keys (K)"),
    .formula = "K = X·W_K + b_K",
    .text = N_("In cross-attention keys come from the encoder output, one per source token."),
    .code = QKV_CROSS_CODE,
};

static const StageText K_SELF = {
    .title = N_("Keys (K)"),
    .formula = "K = X·W_K + b_K",
    .text = N_("Each token's key vector says what it offers. A query matches a key by their dot product."),
    .code = QKV_SELF_CODE,
};

static const char V_TITLE[] = N_("Values (V)");
static const char V_TEXT[] =
    N_("Values are what a token hands over when it is attended to: the output of a head is a weighted "
       "average of values. Every head h uses its own d_v columns of V (d_v = d_k = d_model / h here, "
       "as in the paper).");

static const StageText V_SELF = {.title = V_TITLE, .formula = "V = X·W_V + b_V", .text = V_TEXT,
                                 .code = QKV_SELF_CODE};
static const StageText V_CROSS = {.title = V_TITLE, .formula = "V = X·W_V + b_V", .text = V_TEXT,
                                  .code = QKV_CROSS_CODE};

static const StageText SCORES = {
    .title = N_("Scaled scores"),
    .formula = "S = Q_h·K_hᵀ / √d_k",
    .text = N_("Every query is compared with every key by a dot product. Dividing by √d_k keeps the scores from growing "
               "with the dimension, which would push the softmax into regions with tiny gradients."),
    .code = "scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # (h, n_q, n_k)",
};

static const StageText ENC_MASK = {
    .title = N_("Padding mask"),
    .formula = N_("M[i,j] = −∞ if key j is <pad>, else 0"),
    .text = N_("Sentences in a batch are padded to the same length. The mask adds −∞ to scores of padding keys so "
               "that they get exactly zero attention. Padded query rows are computed but ignored."),
    .code = PAD_MASK_CODE,
};

static const StageText DEC_MASK = {
    .title = N_("Causal + padding mask"),
    .formula = N_("M[i,j] = −∞ if j > i or key j is <pad>"),
    .text = N_("The decoder must not look ahead: position i may only attend to positions ≤ i. This mask is what "
               "lets training compute every position of the target in one parallel pass without cheating. "
               "Teacher forcing is a separate idea: the decoder reads the true previous tokens, not its own "
               "guesses (RNN decoders did that too, one step at a time)."),
    .code = "# a query may not see later positions (causal mask)\n"
            "mask = torch.triu(torch.full((m, m), float('-inf')), diagonal=1)\n"
            "mask[:, tgt_len:] = float('-inf')  # padded keys too",
};

static const StageText CROSS_MASK = {
    .title = N_("Source padding mask"),
    .formula = N_("M[i,j] = −∞ if source token j is <pad>"),
    .text = N_("Cross-attention may look at every real source token, never at padding."),
    .code = PAD_MASK_CODE,
};

static const StageText WEIGHTS = {
    .title = N_("Attention weights"),
    .formula = "A = softmax(QKᵀ/√d_k + M)",
    .text = N_("Softmax turns each row of scores into probabilities that sum to 1: how much each query token takes "
               "from each key token. Masked cells are exactly 0."),
    .code = "weights = torch.softmax(scores + mask, dim=-1)  # (h, n_q, n_k)\n"
            "weights = dropout(weights)  # p = 0.1, training only",
};

static const StageText HEADS = {
    .title = N_("Head outputs"),
    .formula = "head_h = A_h·V_h",
    .text = N_("Each head averages the value vectors with its attention weights, giving d_v numbers per token."),
    .code = "heads = weights @ v  # (h, n_q, d_v): each row a weighted average of values",
};

static const StageText CONCAT = {
    .title = N_("Concatenated heads"),
    .formula = "Concat(head₁, …, head_h)",
    .text = N_("The h head outputs are placed side by side: h × d_v = d_model numbers per token."),
    .code = "concat = heads.transpose(0, 1).reshape(n_q, h * d_v)  # (n_q, d_model)",
};

static const StageText ATTN_OUT = {
    .title = N_("Output projection"),
    .formula = "MultiHead = Concat(heads)·W_O + b_O",
    .text = N_("W_O mixes the heads back into one d_model vector per token: the sub-layer's output."),
    .code = "W_o = nn.Linear(h * d_v, d_model)\n"
            "out = W_o(concat)  # (n_q, d_model)",
};

/* ---- around every sub-layer: the residual sum and the LayerNorm ---- */

static const StageText ADD = {
    .title = N_("Residual connection"),
    .formula = "x + Sublayer(x)",
    .formula_pre = "x + Sublayer(LN(x))",
    .text = N_("The sub-layer's output is added to its input, so information and gradients can flow straight "
               "through the stack. (Dropout 0.1 is applied to the sub-layer output during training.)"),
    .code = "s = x + dropout(sublayer_out)  # the residual connection, p = 0.1",
    .code_pre = "# pre-LN: the sublayer reads LayerNorm(x)\n"
                "x = x + dropout(sublayer(norm(x)))",
};

static const StageText NORM = {
    .title = N_("Layer normalisation"),
    .formula = "LN(x) = (x − μ)/√(σ² + ε) · γ + β",
    .text_pre = N_("Pre-LN (common today): each sub-layer normalises its input, and the residual sum is left "
                   "unnormalised."),
    .text = N_("Post-LN as in the paper: each token's vector is shifted to mean 0 and scaled to variance 1, then "
               "stretched by learned γ and β."),
    .code = "norm = nn.LayerNorm(d_model)\n"
            "x = norm(s)  # post-LN, as in the paper: LayerNorm(x + Sublayer(x))",
    .code_pre = "norm = nn.LayerNorm(d_model)\n"
                "h_in = norm(x)  # what the next sublayer reads",
};

static const StageText FINAL_NORM = {
    .title = N_("Final LayerNorm"),
    .formula = "LN(x)",
    .text = N_("Pre-LN models normalise the output of the whole stack once more."),
    .code = "final_norm = nn.LayerNorm(d_model)\n"
            "x = final_norm(x)  # pre-LN: once after the last layer",
};

/* ---- the feed-forward net and the output ---- */

static const StageText FFN_HIDDEN = {
    .title = N_("Feed-forward, hidden"),
    .formula = "h = max(0, x·W₁ + b₁)",
    .text = N_("The same two-layer network is applied to every position separately. The first layer widens each "
               "vector to d_ff numbers; ReLU sets the negative ones to exactly 0."),
    .code = "W_1 = nn.Linear(d_model, d_ff)\n"
            "hidden = torch.relu(W_1(x))  # (n, d_ff)",
};

static const StageText FFN_OUT = {
    .title = N_("Feed-forward, output"),
    .formula = "FFN(x) = h·W₂ + b₂",
    .text = N_("The second layer brings the vector back to d_model numbers."),
    .code = "W_2 = nn.Linear(d_ff, d_model)\n"
            "out = W_2(hidden)  # (n, d_model)",
};

static const StageText LOGITS = {
    .title = N_("Logits"),
    .formula = "z = y·W_gen + b",
    .text = N_("A linear layer scores every word of the target vocabulary at every position. In the paper this "
               "matrix is shared with the embeddings."),
    .code = "generator = nn.Linear(d_model, tgt_vocab_size)\n"
            "logits = generator(dec_out)  # (m+1, V)",
};

static const StageText PROBS = {
    .title = N_("Output probabilities"),
    .formula = N_("P(next token) = softmax(z)"),
    .text = N_("Softmax turns the scores into a probability for every word. Greedy decoding picks the most likely "
               "one; beam search keeps several candidates."),
    .code = "probs = torch.softmax(logits, dim=-1)  # each row sums to 1\n"
            "next_id = probs[-1].argmax()          # greedy decoding",
};

/* ---- every stage, in the order of StageId ---- */

static const StageText *const STAGE_TEXT[] = {
    [ST_SRC_TOKENS] = &SRC_TOKENS, [ST_SRC_EMBED] = &EMBED, [ST_POS_ENC] = &POS_ENC, [ST_ENC_INPUT] = &INPUT,
    /* encoder self-attention */
    [ST_ENC_SELF_Q] = &Q_SELF, [ST_ENC_SELF_K] = &K_SELF, [ST_ENC_SELF_V] = &V_SELF,
    [ST_ENC_SELF_SCORES] = &SCORES, [ST_ENC_SELF_MASK] = &ENC_MASK, [ST_ENC_SELF_WEIGHTS] = &WEIGHTS,
    [ST_ENC_SELF_HEADS] = &HEADS, [ST_ENC_SELF_CONCAT] = &CONCAT, [ST_ENC_SELF_OUT] = &ATTN_OUT,
    [ST_ENC_ADD1] = &ADD, [ST_ENC_NORM1] = &NORM, [ST_ENC_FFN_HIDDEN] = &FFN_HIDDEN, [ST_ENC_FFN_OUT] = &FFN_OUT,
    [ST_ENC_ADD2] = &ADD, [ST_ENC_NORM2] = &NORM, [ST_ENC_FINAL] = &FINAL_NORM,
    [ST_TGT_TOKENS] = &TGT_TOKENS, [ST_TGT_EMBED] = &EMBED, [ST_DEC_INPUT] = &INPUT,
    /* decoder self-attention: causal */
    [ST_DEC_SELF_Q] = &Q_SELF, [ST_DEC_SELF_K] = &K_SELF, [ST_DEC_SELF_V] = &V_SELF,
    [ST_DEC_SELF_SCORES] = &SCORES, [ST_DEC_SELF_MASK] = &DEC_MASK, [ST_DEC_SELF_WEIGHTS] = &WEIGHTS,
    [ST_DEC_SELF_HEADS] = &HEADS, [ST_DEC_SELF_CONCAT] = &CONCAT, [ST_DEC_SELF_OUT] = &ATTN_OUT,
    [ST_DEC_ADD1] = &ADD, [ST_DEC_NORM1] = &NORM,
    /* cross-attention: queries from the decoder, keys and values from the encoder */
    [ST_DEC_CROSS_Q] = &Q_CROSS, [ST_DEC_CROSS_K] = &K_CROSS, [ST_DEC_CROSS_V] = &V_CROSS,
    [ST_DEC_CROSS_SCORES] = &SCORES, [ST_DEC_CROSS_MASK] = &CROSS_MASK, [ST_DEC_CROSS_WEIGHTS] = &WEIGHTS,
    [ST_DEC_CROSS_HEADS] = &HEADS, [ST_DEC_CROSS_CONCAT] = &CONCAT, [ST_DEC_CROSS_OUT] = &ATTN_OUT,
    [ST_DEC_ADD2] = &ADD, [ST_DEC_NORM2] = &NORM, [ST_DEC_FFN_HIDDEN] = &FFN_HIDDEN, [ST_DEC_FFN_OUT] = &FFN_OUT,
    [ST_DEC_ADD3] = &ADD, [ST_DEC_NORM3] = &NORM, [ST_DEC_FINAL] = &FINAL_NORM,
    [ST_OUT_LOGITS] = &LOGITS, [ST_OUT_PROBS] = &PROBS,
};
/* A stage added to StageId at the end needs its words here; one added in
 * the middle leaves a NULL, which test_explain_code finds. */
static_assert(sizeof STAGE_TEXT / sizeof STAGE_TEXT[0] == ST_COUNT, "every stage has its words");

const StageText *expl_stage(StageId st)
{
    static const StageText NONE = {"", "", "", NULL, NULL, NULL, NULL};
    if ((int)st < 0 || st >= ST_COUNT || !STAGE_TEXT[st])
        return &NONE;
    return STAGE_TEXT[st];
}

/* ---- the views that explain themselves rather than the stage ---- */

static const StageText VIEW_TEXT[EXPL_VIEW_COUNT] = {
    [EXPL_DEC_GEN] = {
        .title = N_("Training vs inference"),
        .formula = "P(y) = Π P(y_t | y_<t, x)",
        .text = N_("Left, training: the decoder reads the true previous tokens (teacher forcing), and thanks to "
                   "the causal mask all positions are computed in one pass. Right, inference: there is no "
                   "reference, so each step reads the model's own earlier outputs and one wrong token changes "
                   "every prefix after it. The model never learned what to do after a mistake of its own, so "
                   "errors can compound in a way the training loss never measured: exposure bias. Where the two "
                   "sides read different tokens, teacher forcing may still predict correctly while generation "
                   "goes wrong (≠)."),
    },
    [EXPL_DEC_STEP] = {
        .title = N_("One generation step"),
        .formula = "y_t = argmax P(y | y_<t, x)",
        .text = N_("Inference runs one token at a time: the decoder reads <bos> and the tokens generated so far. "
                   "Its masked self-attention row looks back over them, its cross-attention row picks the source "
                   "words it needs, and the bars show the probabilities of the next token. Greedy decoding takes "
                   "the most likely one, appends it and repeats until <eos>; the keys and values of earlier "
                   "steps are kept, so each step adds one position."),
    },
    [EXPL_DEC_BEAM] = {
        .title = N_("Beam search"),
        .formula = "score = log P(y | x) / lp(y),  lp(y) = ((5 + |y|) / 6)^α",
        .text = N_("Instead of committing to the best token at every step, beam search keeps the K most probable "
                   "partial translations (the paper uses K = 4, α = 0.6). Each step extends every live "
                   "hypothesis and keeps the K best; finished ones (ending in <eos>) are compared after the "
                   "length penalty, so short outputs do not win just because they multiply fewer probabilities. "
                   "The tree shows kept, finished and pruned hypotheses; the highlighted path is the winner."),
    },
    [EXPL_DEC_SAMPLE] = {
        .title = N_("Sampling with a temperature"),
        .formula = "P_T(y) = softmax(z / T),  T ∈ [0.1, 5]",
        .text = N_("Instead of taking the most likely token, sampling draws the next token at random from the "
                   "model's distribution. The temperature T divides the logits z before the softmax: T < 1 "
                   "sharpens the distribution towards the greedy choice, T > 1 flattens it so unlikely tokens "
                   "are drawn more often. Top-k keeps only the k most likely tokens, top-p the smallest set "
                   "whose probabilities add up to p; the rest get 0 and the kept ones are renormalised. The same "
                   "seed always draws the same translation."),
    },
    [EXPL_TRAIN] = {
        .title = N_("Training"),
        .formula = "lrate = d_model^−0.5 · min(step^−0.5, step · warmup^−1.5)",
        .text = N_("The decoder reads the true target shifted right (teacher forcing), and the causal mask lets "
                   "it predict every next token in one parallel pass. The model follows the gradient of the "
                   "cross-entropy, with label smoothing 0.1, dropout 0.1 and Adam (β₁ 0.9, β₂ 0.98, ε 10⁻⁹). The "
                   "learning rate rises during warm-up and then decays as 1/√step. Watch the heads of the probe "
                   "sentence form: diffuse at first, then sharp alignments."),
    },
    [EXPL_LENS] = {
        .title = N_("Logit lens"),
        .formula = N_("p_L = softmax(W_gen · n(y_L) + b)"),
        .text = N_("What the decoder would output if it stopped after layer L: the output layer applied to that "
                   "layer's result (n is the final LayerNorm of a pre-LN model, nothing in a post-LN one). The "
                   "last layer's lens is the output. A reference token whose rank falls to 1 only in a late "
                   "layer is decided late."),
    },
    [EXPL_QKMAP] = {
        .title = N_("Queries and keys in one plane"),
        .formula = N_("k' = k − mean(k) + mean(q);  q·c, k'/c;  PCA of [q; k']"),
        .text = N_("Each point is one token's query (a disc) or key (a square) of the head shown. Moving every "
                   "key by the same vector adds a constant to each row of scores and scaling q by c and k by 1/c "
                   "keeps every dot product, so the softmax does not change; then the two directions of largest "
                   "spread are kept. A query lands near the keys it attends to (AttentionViz)."),
    },
    [EXPL_ROLLOUT] = {
        .title = N_("Attention rollout"),
        .formula = N_("R_l = Â_l · R_(l−1),  Â_l = ½ · mean_h A_(l,h) + ½ · I,  R_0 = Â_0"),
        .text = N_("How much of each source token reaches each position through every layer so far, counting the "
                   "residual path as half of each layer (Abnar & Zuidema, 2020). Each row sums to 1. Padded keys "
                   "are 0. Press R for one layer's weights again."),
    },
    [EXPL_ROLLOUT_CROSS] = {
        .title = N_("Cross-attention rollout"),
        .formula = N_("X̄_L · R_(N−1),  X̄_L = mean_h X_(L,h)"),
        .text = N_("The cross-attention of this layer, averaged over its heads, times the encoder's rollout: how "
                   "much of each source token reaches the decoder through the whole encoder. Press R for one "
                   "layer's weights again."),
    },
};

const StageText *expl_view(ExplView v)
{
    static const StageText NONE = {"", "", "", NULL, NULL, NULL, NULL};
    return (int)v < 0 || v >= EXPL_VIEW_COUNT ? &NONE : &VIEW_TEXT[v];
}
