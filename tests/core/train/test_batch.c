/* test_batch.c - the one padded-batch builder (core/train/batch.c): for a
 * few pairs of different lengths, the source, decoder input and target rows
 * written out by hand (<pad> after each sentence, <bos> before and <eos>
 * after each target), the lengths, pairs picked by index, ids mapped (an
 * unknown one becomes <unk>), an empty batch, and the token counts. */
#include "test_util.h"

#include "batch.h"

enum { P = TOK_PAD, B = TOK_BOS, E = TOK_EOS, U = TOK_UNK };

/* Three pairs: x -> y with 3 -> 2, 1 -> 4 and 2 -> 0 tokens. */
static void three_pairs(Dataset *d)
{
    static const int x0[] = {5, 6, 7}, y0[] = {8, 9}, x1[] = {10}, y1[] = {11, 12, 13, 14}, x2[] = {4, 5};
    TfErr err;
    memset(d, 0, sizeof *d);
    expect_true(dataset_push(d, x0, 3, y0, 2, &err) == 0, "pair 0: %s", err.msg);
    expect_true(dataset_push(d, x1, 1, y1, 4, &err) == 1, "pair 1: %s", err.msg);
    expect_true(dataset_push(d, x2, 2, NULL, 0, &err) == 2, "pair 2: %s", err.msg);
}

/* The three pairs and a batch of cap_B x cap_T for them. */
static void fixture(Dataset *d, PadBatch *b, int cap_B, int cap_T)
{
    TfErr err;
    three_pairs(d);
    expect_true(batch_build(b, cap_B, cap_T, &err) == 0, "%s", err.msg);
}

static void expect_ids(const char *what, const int *got, const int *want, int n)
{
    for (int i = 0; i < n; i++)
        expect_true(got[i] == want[i], "%s[%d]: %d, got %d", what, i, want[i], got[i]);
}

typedef struct Want {
    int B, S, T;
    int src[16], tin[16], tout[16], src_len[4], tgt_len[4];
    int tgt_tokens, src_tokens; /* batch_tgt_tokens (<eos> included), batch_src_tokens */
} Want;

static void expect_batch(const PadBatch *b, const Want *w)
{
    expect_true(b->B == w->B && b->S == w->S && b->T == w->T, "B S T %d %d %d, got %d %d %d", w->B, w->S, w->T,
                b->B, b->S, b->T);
    expect_ids("src", b->src, w->src, w->B * w->S);
    expect_ids("tgt_in", b->tgt_in, w->tin, w->B * w->T);
    expect_ids("tgt_out", b->tgt_out, w->tout, w->B * w->T);
    expect_ids("src_len", b->src_len, w->src_len, w->B);
    expect_ids("tgt_len", b->tgt_len, w->tgt_len, w->B);
    expect_true(batch_tgt_tokens(b) == w->tgt_tokens && batch_src_tokens(b) == w->src_tokens,
                "%d target and %d source tokens, got %d %d", w->tgt_tokens, w->src_tokens, batch_tgt_tokens(b),
                batch_src_tokens(b));
}

/* The cases: which pairs (idx when by_index, else first..first+n-1), mapped or not, and
 * the batch written out by hand. The map adds 20 to every ordinary id and
 * does not know id 6. */
static const struct {
    const char *what;
    int idx[3], by_index, first, n, mapped;
    Want want;
} CASES[] = {
    {"pairs 0..2", {0}, 0, 0, 3, 0,
     {3, 3, 5, {5, 6, 7, 10, P, P, 4, 5, P}, {B, 8, 9, P, P, B, 11, 12, 13, 14, B, P, P, P, P},
      {8, 9, E, P, P, 11, 12, 13, 14, E, E, P, P, P, P}, {3, 1, 2}, {3, 5, 1}, 9, 6}},
    {"pair 1 alone", {0}, 0, 1, 1, 0, {1, 1, 5, {10}, {B, 11, 12, 13, 14}, {11, 12, 13, 14, E}, {1}, {5}, 5, 1}},
    {"pairs 2 and 0 by index (first ignored), mapped", {2, 0}, 1, 99, 2, 1,
     {2, 3, 3, {24, 25, P, 25, U, 27}, {B, P, P, B, 28, 29}, {E, P, P, 28, 29, E}, {2, 3}, {1, 3}, 4, 5}},
    /* no pairs: B 0, S = T = 1, no tokens */
    {"no pairs", {0}, 0, 0, 0, 0, {0, 1, 1, {0}, {0}, {0}, {0}, {0}, 0, 0}},
};

static void test_cases(void **state)
{
    (void)state;
    Dataset d;
    PadBatch b;
    fixture(&d, &b, 4, 8);
    int map[16];
    for (int i = 0; i < 16; i++)
        map[i] = i < TOK_NSPECIAL ? i : i + 20;
    map[6] = -1; /* a token the model does not know becomes <unk> */
    for (size_t k = 0; k < sizeof CASES / sizeof CASES[0]; k++) {
        printf("  %s\n", CASES[k].what);
        const int *m = CASES[k].mapped ? map : NULL;
        batch_fill(&b, &d, CASES[k].by_index ? CASES[k].idx : NULL, CASES[k].first, CASES[k].n, m, m);
        expect_batch(&b, &CASES[k].want);
    }
    batch_free(&b);
    batch_free(&b); /* safe twice */
    dataset_free(&d);
}

/* The forward pass's view of the first case. */
static void test_counts_and_input(void **state)
{
    (void)state;
    Dataset d;
    PadBatch b;
    fixture(&d, &b, 4, 8);
    batch_fill(&b, &d, NULL, 0, 3, NULL, NULL);
    TfBatch in = batch_input(&b);
    expect_true(in.B == 3 && in.S == 3 && in.T == 5 && in.src == b.src && in.tgt == b.tgt_in &&
                    in.src_len == b.src_len && in.tgt_len == b.tgt_len,
                "batch_input is the decoder input side of the batch");
    batch_free(&b);
    dataset_free(&d);
}

int main(void)
{
    TU_RUN(NULL, NULL,
           cmocka_unit_test(test_cases),
           cmocka_unit_test(test_counts_and_input));
}
