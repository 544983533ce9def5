/* bleu.c - corpus BLEU-4 over token id sequences (see bleu.h).
 *
 * Sentences here are short (tens of tokens), so n-grams are counted by direct
 * comparison instead of a hash table: for each n-gram of the hypothesis that
 * is its first occurrence there, count how often it occurs in the hypothesis
 * and in the reference, and add the smaller number. Quadratic in sentence
 * length, which is fine for the lengths this program handles. */
#include "bleu.h"

#include <math.h>
#include <string.h>

static int ngram_eq(const int *a, const int *b, int n)
{
    for (int k = 0; k < n; k++)
        if (a[k] != b[k])
            return 0;
    return 1;
}

/* How many times the n-gram g occurs in seq[0..len). */
static long long ngram_count(const int *g, int n, const int *seq, int len)
{
    long long c = 0;
    for (int i = 0; i + n <= len; i++)
        c += ngram_eq(g, seq + i, n);
    return c;
}

/* Clipped matches of the n-grams of hyp against ref:
 * sum over distinct n-grams g of hyp of min(count_hyp(g), count_ref(g)). */
static long long clipped_matches(const int *hyp, int hl, const int *ref,
                                 int rl, int n)
{
    long long m = 0;
    for (int i = 0; i + n <= hl; i++) {
        if (ngram_count(hyp + i, n, hyp, i + n - 1) > 0)
            continue; /* g already counted at its first occurrence */
        long long ch = ngram_count(hyp + i, n, hyp, hl);
        long long cr = ngram_count(hyp + i, n, ref, rl);
        m += ch < cr ? ch : cr;
    }
    return m;
}

void bleu_stats_add(BleuStats *s, const int *hyp, int hyp_len, const int *ref, int ref_len)
{
    int hl = hyp_len > 0 ? hyp_len : 0, rl = ref_len > 0 ? ref_len : 0;
    s->hyp_len += hl;
    s->ref_len += rl;
    for (int n = 1; n <= BLEU_MAX_N; n++) {
        if (hl >= n)
            s->total[n - 1] += hl - n + 1;
        s->match[n - 1] += clipped_matches(hyp, hl, ref, rl, n);
    }
}

void bleu_stats(BleuStats *s, const int *const *hyp, const int *hyp_len,
                const int *const *ref, const int *ref_len, int n_sent)
{
    memset(s, 0, sizeof *s);
    for (int i = 0; i < n_sent; i++)
        bleu_stats_add(s, hyp[i], hyp_len[i], ref[i], ref_len[i]);
}

double bleu_from_stats(const BleuStats *s)
{
    /* log of the geometric mean of p_1..p_4; any zero precision makes the
     * geometric mean 0 (and its log undefined), so BLEU is 0 */
    double log_mean = 0;
    for (int n = 0; n < BLEU_MAX_N; n++) {
        if (s->total[n] == 0 || s->match[n] == 0)
            return 0;
        log_mean += log((double)s->match[n] / (double)s->total[n]);
    }
    log_mean /= BLEU_MAX_N;
    double c = (double)s->hyp_len, r = (double)s->ref_len;
    double log_bp = c < r ? 1.0 - r / c : 0.0; /* c > 0 here: total[0] > 0 */
    return 100.0 * exp(log_bp + log_mean);
}

double bleu_corpus(const int *const *hyp, const int *hyp_len,
                   const int *const *ref, const int *ref_len, int n_sent)
{
    BleuStats s;
    bleu_stats(&s, hyp, hyp_len, ref, ref_len, n_sent);
    return bleu_from_stats(&s);
}
