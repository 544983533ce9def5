/* bleu.h - corpus BLEU-4 (Papineni et al., 2002), the score the Transformer
 * paper reports for translation.
 *
 * For n = 1..4 the modified precision p_n is
 *
 *     p_n = sum over sentences of clipped n-gram matches
 *           -------------------------------------------
 *           sum over sentences of n-grams in the hypothesis
 *
 * where an n-gram of the hypothesis counts at most as often as it occurs in
 * the reference ("clipping": "the the the" against "the cat" matches once).
 * The score is 100 * BP * exp((log p_1 + log p_2 + log p_3 + log p_4) / 4),
 * with the brevity penalty BP = exp(1 - r/c) when the corpus hypothesis
 * length c is shorter than the reference length r, else 1. Counts are summed
 * over the whole corpus before dividing, so this is corpus BLEU, not an
 * average of sentence scores. One reference per sentence, no smoothing. */
#ifndef TF_BLEU_H
#define TF_BLEU_H

#define BLEU_MAX_N 4

/* BLEU in [0, 100] of n_sent hypotheses against their references, each a
 * sequence of token ids (pass them without <bos>/<eos>/<pad>). Returns 0, never
 * NaN, when the score is undefined: an empty corpus, no hypothesis tokens, or
 * some n-gram order with no match (including hypotheses shorter than 4). */
double bleu_corpus(const int *const *hyp, const int *hyp_len,
                   const int *const *ref, const int *ref_len, int n_sent);

/* The pieces of the score, for a view that explains it. */
typedef struct BleuStats {
    long long match[BLEU_MAX_N]; /* clipped matches of (n+1)-grams */
    long long total[BLEU_MAX_N]; /* (n+1)-grams in the hypotheses */
    long long hyp_len, ref_len;  /* c and r */
} BleuStats;

/* Fill s with the corpus counts; bleu_from_stats turns them into the score. */
void bleu_stats(BleuStats *s, const int *const *hyp, const int *hyp_len,
                const int *const *ref, const int *ref_len, int n_sent);
double bleu_from_stats(const BleuStats *s);
/* Add one sentence's counts to s (start from a zeroed s): a corpus read
 * line by line need not keep its sentences. */
void bleu_stats_add(BleuStats *s, const int *hyp, int hyp_len, const int *ref, int ref_len);

#endif
