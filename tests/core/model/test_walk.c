/* test_walk.c - the stage walk (core/model/walk.c): every stage in the order
 * the model computes it, post-LN and pre-LN, one entry per layer, and a
 * walk cut short at max still counting the whole. */
#include "test_util.h"

#include "walk.h"

#define MAXW 512

static const char *const ATTN[] = {"q", "k", "v", "scores", "mask", "weights", "heads", "concat", "out"};

typedef struct Names {
    char s[MAXW][48];
    int n, layer; /* entries, and the layer the next ones belong to */
} Names;

/* Append name@layer; "X.*" stands for the nine parts of attention block X. */
static void add(Names *w, const char *name)
{
    size_t n = strlen(name);
    if (n < 2 || strcmp(name + n - 2, ".*") != 0) {
        snprintf(w->s[w->n++], sizeof w->s[0], "%s@%d", name, w->layer);
        return;
    }
    for (int p = 0; p < 9; p++)
        snprintf(w->s[w->n++], sizeof w->s[0], "%.*s.%s@%d", (int)n - 2, name, ATTN[p], w->layer);
}

/* Append each name of a NULL-terminated list. */
static void add_all(Names *w, const char *const *names)
{
    for (; *names; names++)
        add(w, *names);
}

/* One layer of each stack as the paper draws it (post) and with every norm
 * moved before its sub-layer (pre). */
static const char *const ENC_POST[] = {"enc.self.*", "enc.add1", "enc.norm1", "enc.ffn.hidden", "enc.ffn.out",
                                       "enc.add2", "enc.norm2", NULL};
static const char *const ENC_PRE[] = {"enc.norm1", "enc.self.*", "enc.add1", "enc.norm2", "enc.ffn.hidden",
                                      "enc.ffn.out", "enc.add2", NULL};
static const char *const DEC_POST[] = {"dec.self.*", "dec.add1", "dec.norm1", "dec.cross.*", "dec.add2",
                                       "dec.norm2", "dec.ffn.hidden", "dec.ffn.out", "dec.add3", "dec.norm3", NULL};
static const char *const DEC_PRE[] = {"dec.norm1", "dec.self.*", "dec.add1", "dec.norm2", "dec.cross.*",
                                      "dec.add2", "dec.norm3", "dec.ffn.hidden", "dec.ffn.out", "dec.add3", NULL};
static const char *const SRC_SIDE[] = {"src.tokens", "src.embed", "pos.enc", "enc.input", NULL};
static const char *const TGT_SIDE[] = {"tgt.tokens", "tgt.embed", "dec.input", NULL};

/* The walk written out by hand, as "name@layer": each stack's inputs, its
 * layers, its final norm (pre-LN), then the output. */
static void expected(Names *w, int n_enc, int n_dec, int pre)
{
    const struct {
        const char *const *inputs, *const *layer;
        int n;
        const char *final;
    } stacks[2] = {{SRC_SIDE, pre ? ENC_PRE : ENC_POST, n_enc, "enc.final_norm"},
                   {TGT_SIDE, pre ? DEC_PRE : DEC_POST, n_dec, "dec.final_norm"}};
    w->n = 0;
    for (int k = 0; k < 2; k++) {
        w->layer = 0;
        add_all(w, stacks[k].inputs);
        for (w->layer = 0; w->layer < stacks[k].n; w->layer++)
            add_all(w, stacks[k].layer);
        w->layer = 0;
        if (pre)
            add(w, stacks[k].final);
    }
    add(w, "out.logits");
    add(w, "out.probs");
}

static void check_walk(int n_enc, int n_dec, TfNorm norm)
{
    TfConfig c;
    expect_true(cfg_preset(&c, "classroom", NULL) == 0, "the classroom preset");
    c.n_enc = n_enc;
    c.n_dec = n_dec;
    c.norm = norm;
    static StagePos got[MAXW];
    static Names want;
    int pre = norm == TF_NORM_PRE;
    expected(&want, n_enc, n_dec, pre);
    int n = tf_walk_build(&c, got, MAXW);
    expect_true(n == want.n, "%d+%d layers %s-LN: %d stages, got %d", n_enc, n_dec, pre ? "pre" : "post",
                want.n, n);
    expect_true(n == 4 + 15 * n_enc + 3 + 26 * n_dec + 2 + 2 * pre, "the count formula: got %d", n);
    for (int i = 0; i < n; i++) {
        char name[64];
        snprintf(name, sizeof name, "%s@%d", stage_info(got[i].stage)->name, got[i].layer);
        expect_true(strcmp(name, want.s[i]) == 0, "%s-LN entry %d: %s, got %s", pre ? "pre" : "post", i,
                    want.s[i], name);
    }
}

static void test_post_ln_order(void **state)
{
    (void)state;
    check_walk(1, 1, TF_NORM_POST);
    check_walk(2, 3, TF_NORM_POST);
}

static void test_pre_ln_order(void **state)
{
    (void)state;
    check_walk(1, 1, TF_NORM_PRE);
    check_walk(3, 2, TF_NORM_PRE);
}

/* max cuts the output, never the count; nothing past max is written. */
static void test_max_truncates(void **state)
{
    (void)state;
    TfConfig c;
    cfg_preset(&c, "classroom", NULL);
    StagePos full[MAXW], cut[8];
    int n = tf_walk_build(&c, full, MAXW);
    for (int i = 0; i < 8; i++)
        cut[i] = (StagePos){ST_COUNT, -7};
    int m = tf_walk_build(&c, cut, 5);
    expect_true(m == n, "max 5 still returns the full count %d, got %d", n, m);
    for (int i = 0; i < 5; i++)
        expect_true(cut[i].stage == full[i].stage && cut[i].layer == full[i].layer,
                    "entry %d as in the full walk", i);
    for (int i = 5; i < 8; i++)
        expect_true(cut[i].stage == ST_COUNT && cut[i].layer == -7, "entry %d past max left alone", i);
    expect_true(tf_walk_build(&c, NULL, 0) == n, "max 0 with no array: the count only");
    expect_true(tf_walk_build(&c, NULL, -3) == n, "a negative max is 0");
}

int main(void)
{
    TU_RUN(NULL, NULL,
           cmocka_unit_test(test_post_ln_order),
           cmocka_unit_test(test_pre_ln_order),
           cmocka_unit_test(test_max_truncates));
}
