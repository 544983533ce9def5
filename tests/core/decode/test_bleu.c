/* test_bleu.c - corpus BLEU-4 (core/bleu.c) against hand-computed values. */
#include <math.h>
#include <string.h>

#include "test_util.h"
#include "bleu.h"

/* Letters stand for token ids, so examples read like text. */
#define MAXS 8
typedef struct Corpus {
    int n;
    int hyp[MAXS][32], ref[MAXS][32];
    int hl[MAXS], rl[MAXS];
    const int *hp[MAXS], *rp[MAXS];
} Corpus;

static void to_ids(const char *s, int *ids, int *n)
{
    *n = 0;
    for (; *s; s++)
        if (*s != ' ')
            ids[(*n)++] = *s;
}

static void add(Corpus *c, const char *hyp, const char *ref)
{
    to_ids(hyp, c->hyp[c->n], &c->hl[c->n]);
    to_ids(ref, c->ref[c->n], &c->rl[c->n]);
    c->hp[c->n] = c->hyp[c->n];
    c->rp[c->n] = c->ref[c->n];
    c->n++;
}

static double score(const Corpus *c)
{
    return bleu_corpus(c->hp, c->hl, c->rp, c->rl, c->n);
}

static void expect_score(const Corpus *c, double want, const char *what)
{
    double got = score(c);
    printf("  %s: BLEU %.9f, want %.9f\n", what, got, want);
    expect_true(isfinite(got) && fabs(got - want) < 1e-6, "%s: %.9f, got %.9f",
                what, want, got);
}

static void test_identical(void **state)
{
    (void)state;
    Corpus c = {0};
    add(&c, "a b c d e f", "a b c d e f");
    add(&c, "x y", "x y"); /* too short for 4-grams, fine in a corpus */
    add(&c, "p q r s t", "p q r s t");
    expect_score(&c, 100.0, "identical corpus");
}

/* The worked example.
 *
 * sentence 1  hyp a b c d e f    ref a b c d x f
 *   1-grams: a b c d f match, e does not                 5 / 6
 *   2-grams: ab bc cd match; de ef do not                3 / 5
 *   3-grams: abc bcd match; cde def do not               2 / 4
 *   4-grams: abcd matches; bcde cdef do not              1 / 3
 * sentence 2  hyp a a a b        ref a b a b c
 *   1-grams: a occurs 3 times but only 2 in the ref (clipped), b once  3 / 4
 *   2-grams: aa aa ab -> only ab is in the ref           1 / 3
 *   3-grams: aaa aab -> none                             0 / 2
 *   4-grams: aaab -> none                                0 / 1
 * corpus: p1 = 8/10, p2 = 4/8, p3 = 2/6, p4 = 1/4
 *         c = 10 hypothesis tokens < r = 11 reference tokens,
 *         BP = exp(1 - 11/10) = exp(-0.1)
 * BLEU = 100 * exp(-0.1) * (0.8 * 0.5 * 1/3 * 0.25)^(1/4) = 38.66253 */
static void test_worked_example(void **state)
{
    (void)state;
    Corpus c = {0};
    add(&c, "a b c d e f", "a b c d x f");
    add(&c, "a a a b", "a b a b c");
    BleuStats s;
    bleu_stats(&s, c.hp, c.hl, c.rp, c.rl, c.n);
    const long long match[4] = {8, 4, 2, 1}, total[4] = {10, 8, 6, 4};
    for (int n = 0; n < 4; n++)
        expect_true(s.match[n] == match[n] && s.total[n] == total[n],
                    "p%d = %lld/%lld, got %lld/%lld", n + 1, match[n], total[n],
                    s.match[n], s.total[n]);
    expect_true(s.hyp_len == 10 && s.ref_len == 11, "c = 10, r = 11, got %lld %lld",
                s.hyp_len, s.ref_len);
    double want = 100.0 * exp(1.0 - 11.0 / 10.0) *
                  pow(0.8 * 0.5 * (1.0 / 3.0) * 0.25, 0.25);
    expect_score(&c, want, "worked example");
    expect_true(fabs(want - 38.66253) < 1e-5, "the example is 38.66253, got %.6f", want);
    /* the same counts summed sentence by sentence (a corpus read line by line) */
    BleuStats one;
    memset(&one, 0, sizeof one);
    for (int i = 0; i < c.n; i++)
        bleu_stats_add(&one, c.hp[i], c.hl[i], c.rp[i], c.rl[i]);
    expect_true(memcmp(&one, &s, sizeof s) == 0 && bleu_from_stats(&one) == bleu_from_stats(&s),
                "added line by line: %.6f, the corpus at once %.6f", bleu_from_stats(&one), bleu_from_stats(&s));
}

static void test_clipping(void **state)
{
    (void)state;
    /* Papineni's example: "the the the the the the the" against a reference
     * with two "the": the unigram precision is 2/7, not 7/7. */
    Corpus c = {0};
    add(&c, "t t t t t t t", "t c a t o m");
    BleuStats s;
    bleu_stats(&s, c.hp, c.hl, c.rp, c.rl, c.n);
    expect_true(s.match[0] == 2 && s.total[0] == 7, "p1 = 2/7, got %lld/%lld",
                s.match[0], s.total[0]);
    expect_score(&c, 0.0, "no bigram match -> 0");
}

static void test_brevity(void **state)
{
    (void)state;
    /* a correct prefix of half the length: every p_n = 1, BP = exp(1 - 8/4) */
    Corpus c = {0};
    add(&c, "a b c d", "a b c d e f g h");
    expect_score(&c, 100.0 * exp(-1.0), "half-length prefix");
    /* longer than the reference: no penalty, only precision drops:
     * p = 4/5, 3/4, 2/3, 1/2 */
    Corpus l = {0};
    add(&l, "a b c d e", "a b c d");
    expect_score(&l, 100.0 * pow(0.8 * 0.75 * (2.0 / 3.0) * 0.5, 0.25),
                 "longer hypothesis");
}

static void test_degenerate(void **state)
{
    (void)state;
    Corpus c = {0};
    add(&c, "", "a b c d");
    expect_score(&c, 0.0, "empty hypothesis");
    Corpus e = {0};
    add(&e, "", "");
    expect_score(&e, 0.0, "empty hypothesis and reference");
    expect_score(&(Corpus){0}, 0.0, "empty corpus");
    Corpus s = {0};
    add(&s, "a b c", "a b c");
    expect_score(&s, 0.0, "no 4-grams anywhere");
    /* an empty hypothesis among good ones only lowers the score */
    Corpus m = {0};
    add(&m, "a b c d e", "a b c d e");
    add(&m, "", "f g h");
    double got = score(&m), want = 100.0 * exp(1.0 - 8.0 / 5.0);
    expect_true(fabs(got - want) < 1e-6, "BP only: %.6f, got %.6f", want, got);
}

int main(void)
{
    TU_RUN(NULL, NULL,
           cmocka_unit_test(test_identical),
           cmocka_unit_test(test_worked_example),
           cmocka_unit_test(test_clipping),
           cmocka_unit_test(test_brevity),
           cmocka_unit_test(test_degenerate));
}
