/* test_forward.c - the forward pass: PyTorch's numbers (fixtures made by
 * tools/torch_reference.py), every stage's shape on a padded batch, a padded
 * batch against each sentence alone, recording against not recording. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"
#include "model.h"
#include "stage.h"
#include "gemm_small.h"
#include "test_util.h"
#include "torch_ref.h"


static void test_torch_post_ln(void **state)
{
    (void)state;
    torch_compare(FIX "post.safetensors", FIX "post.ref");
}

static void test_torch_pre_ln_tied(void **state)
{
    (void)state;
    torch_compare(FIX "pre_tied.safetensors", FIX "pre_tied.ref");
}

/* A model built, initialised and saved from PyTorch modules exactly as the
 * README shows (tools/torch_model.py) opens here and gives PyTorch's logits. */
static void test_model_saved_by_pytorch(void **state)
{
    (void)state;
    torch_compare(FIX "from_torch.safetensors", FIX "from_torch.ref");
}

/* ---- a small random model and a padded batch ---- */

typedef struct Fixture {
    TfModel m;
    TfTrace tr;
    int B, S, T;
    int src[4 * 9], tgt[4 * 7], sl[4], tl[4];
} Fixture;

static void make_fixture(Fixture *f, TfNorm norm, int flags)
{
    TfErr err;
    TfConfig c = tu_config((TuSize){.d_model = 32, .n_heads = 4, .d_ff = 48, .src_vocab = 17, .tgt_vocab = 19,
                                    .max_len = 16});
    c.norm = norm;
    expect_true(model_init_random(&f->m, &c, 3, &err) == 0, "model: %s", err.msg);
    expect_true(trace_build(&f->tr, &c, 4, 16, flags, &err) == 0, "trace: %s", err.msg);
    f->B = 4; f->S = 9; f->T = 7;
    int sl[4] = {9, 3, 1, 6}, tl[4] = {2, 7, 5, 1};
    Rng r;
    rng_seed(&r, 5);
    for (int b = 0; b < 4; b++) {
        f->sl[b] = sl[b];
        f->tl[b] = tl[b];
        for (int i = 0; i < f->S; i++)
            f->src[b * f->S + i] = i < sl[b] ? 4 + (int)rng_below(&r, 13) : TOK_PAD;
        for (int i = 0; i < f->T; i++)
            f->tgt[b * f->T + i] = i == 0 ? TOK_BOS : i < tl[b] ? 4 + (int)rng_below(&r, 15) : TOK_PAD;
    }
}

static void run_fixture(Fixture *f)
{
    TfErr err;
    TfBatch b = {f->B, f->S, f->T, f->src, f->tgt, f->sl, f->tl};
    expect_true(tf_forward(&f->m, &f->tr, &b, 0, &err) == 0, "forward: %s", err.msg);
}

/* A recording fixture with its batch already run. */
static void ready_fixture(Fixture *f, TfNorm norm)
{
    make_fixture(f, norm, TRACE_RECORD);
    run_fixture(f);
}

static void free_fixture(Fixture *f)
{
    trace_free(&f->tr);
    model_free(&f->m);
}

static void test_stage_shapes(void **state)
{
    (void)state;
    for (int norm = 0; norm < 2; norm++) {
        Fixture f;
        ready_fixture(&f, norm);
        const TfConfig *c = &f.m.cfg;
        int S = f.S, T = f.T, C = c->d_model, dk = C / c->n_heads;
        int n_views = 0;
        for (int id = 0; id < ST_COUNT; id++) {
            const StageInfo *si = stage_info(id);
            TfView v;
            TfErr err;
            if (!stage_exists(id, c)) {
                expect_true(tf_view(&f.tr, id, 0, 0, 0, &v, &err) != 0,
                            "%s refused for a post-LN model", si->name);
                continue;
            }
            int dec = (si->flags & SF_DECODER) != 0;
            int rows = dec ? T : S, cols = C;
            switch (si->kind) {
            case SK_TOKENS: cols = 1; break;
            case SK_PE: rows = S > T ? S : T; break;
            case SK_SCORES: case SK_WEIGHTS: case SK_MASK:
                cols = (id >= ST_DEC_SELF_Q && id <= ST_DEC_SELF_OUT) ? T : S;
                break;
            case SK_HIDDEN: cols = c->d_ff; break;
            case SK_LOGITS: case SK_PROBS: cols = c->tgt_vocab; break;
            default: break;
            }
            if (id == ST_DEC_CROSS_K || id == ST_DEC_CROSS_V)
                rows = S;
            for (int l = 0; l < stage_layers(id, c); l++) {
                for (int b = 0; b < f.B; b++) {
                    int head = (si->flags & SF_HEAD) ? 1 : -1;
                    int rc = tf_view(&f.tr, id, l, head, b, &v, &err);
                    expect_true(rc == 0, "view %s layer %d: %s", si->name, l, rc ? err.msg : "");
                    expect_true(v.rows == rows && v.cols == cols,
                                "%s is %d x %d, got %d x %d", si->name, rows, cols, v.rows, v.cols);
                    n_views++;
                    if (si->flags & SF_HEAD_OPT) {
                        tf_view(&f.tr, id, l, 2, b, &v, &err);
                        expect_true(v.cols == dk && v.col0 == 2 * dk,
                                    "%s head 2 is %d columns from %d, got %d from %d",
                                    si->name, dk, 2 * dk, v.cols, v.col0);
                    }
                }
            }
        }
        printf("  norm=%s: %d views checked\n", norm ? "pre" : "post", n_views);
        TfView v;
        TfErr err;
        expect_true(tf_view(&f.tr, ST_ENC_SELF_WEIGHTS, 2, 0, 0, &v, &err) != 0, "layer 2 refused");
        printf("  layer 2 -> %s\n", err.msg);
        expect_true(tf_view(&f.tr, ST_ENC_SELF_WEIGHTS, 0, 4, 0, &v, &err) != 0, "head 4 refused");
        expect_true(tf_view(&f.tr, ST_ENC_SELF_WEIGHTS, 0, 0, 4, &v, &err) != 0, "sentence 4 refused");
        free_fixture(&f);
    }
}

/* Each sentence of the padded batch, run alone, gives the same numbers on
 * its real positions. */
static void test_padded_batch_equals_alone(void **state)
{
    (void)state;
    for (int norm = 0; norm < 2; norm++) {
        Fixture f;
        ready_fixture(&f, norm);
        TfTrace one;
        TfErr err;
        expect_true(trace_build(&one, &f.m.cfg, 1, 16, TRACE_RECORD, &err) == 0, "trace");
        int V = f.m.cfg.tgt_vocab, NH = f.m.cfg.n_heads;
        for (int b = 0; b < f.B; b++) {
            TfBatch s = {1, f.sl[b], f.tl[b], f.src + b * f.S, f.tgt + b * f.T, &f.sl[b], &f.tl[b]};
            expect_true(tf_forward(&f.m, &one, &s, 0, &err) == 0, "forward alone: %s", err.msg);
            for (int t = 0; t < f.tl[b]; t++) {
                printf("  norm %d sentence %d position %d:\n", norm, b, t);
                check_close("logits", one.logits + (size_t)t * V,
                            f.tr.logits + ((size_t)b * f.T + t) * V, (size_t)V, 1e-5f, 1e-4f);
            }
            for (int h = 0; h < NH; h++)
                for (int i = 0; i < f.tl[b]; i++) {
                    const float *a = one.dec[1].ca.weights + ((size_t)h * f.tl[b] + i) * f.sl[b];
                    const float *w = f.tr.dec[1].ca.weights + (((size_t)b * NH + h) * f.T + i) * f.S;
                    check_close("cross weights", a, w, (size_t)f.sl[b], 1e-6f, 1e-5f);
                    for (int j = f.sl[b]; j < f.S; j++)
                        expect_true(w[j] == 0.0f, "padding key %d has weight exactly 0, got %g", j, w[j]);
                }
        }
        trace_free(&one);
        free_fixture(&f);
    }
}

static void test_record_equals_plain(void **state)
{
    (void)state;
    Fixture a, b;
    make_fixture(&a, TF_NORM_POST, TRACE_RECORD);
    make_fixture(&b, TF_NORM_POST, 0);
    run_fixture(&a);
    run_fixture(&b);
    size_t n = (size_t)a.B * a.T * a.m.cfg.tgt_vocab;
    check_close("probs with and without recording", a.tr.probs, b.tr.probs, n, 0, 0);
    TfView v;
    TfErr err;
    expect_true(tf_view(&b.tr, ST_ENC_SELF_WEIGHTS, 0, 0, 0, &v, &err) != 0,
                "a plain trace refuses views");
    free_fixture(&a);
    free_fixture(&b);
}

/* The output projection a few rows at a time (a window's pieces: 16 rows
 * or a multiple, from a multiple of 16) gives the bits of the whole, on a
 * padded batch big enough for the kernels a window's model uses. */
static void test_output_in_rows(void **state)
{
    (void)state;
    TfErr err;
    TfConfig c = tu_config((TuSize){.d_model = 512, .n_heads = 8, .d_ff = 64, .src_vocab = 40, .tgt_vocab = 20000,
                                    .max_len = 96});
    TfModel m;
    TfTrace tr;
    expect_true(model_init_random(&m, &c, 9, &err) == 0 && trace_build(&tr, &c, 2, 8, 0, &err) == 0, "%s",
                err.msg);
    /* T 80: more rows than the small-product kernels take at once */
    enum { B = 2, S = 5, T = 80 };
    int src[B * S], tgt[B * T], sl[B] = {5, 3}, tl[B] = {80, 20};
    for (int i = 0; i < B * S; i++)
        src[i] = 4 + i % 30;
    for (int i = 0; i < B * T; i++)
        tgt[i] = i % T == 0 ? TOK_BOS : 4 + (i * 7) % 19000;
    TfBatch in = {B, S, T, src, tgt, sl, tl};
    size_t n = (size_t)B * T * c.tgt_vocab;
    float *want = malloc(n * sizeof *want), *wl = malloc(n * sizeof *wl);
    /* the small-product kernels as the CPU has them, the AVX2 ones, none */
    static const int modes[] = {GEMM_SMALL_AUTO, GEMM_SMALL_AVX2, GEMM_SMALL_OFF};
    for (int mi = 0; mi < 3; mi++) {
        int was = gemm_small_set(modes[mi]);
        expect_true(tf_forward(&m, &tr, &in, 0, &err) == 0, "forward: %s", err.msg);
        memcpy(want, tr.probs, n * sizeof *want);
        memcpy(wl, tr.logits, n * sizeof *wl);
        for (int chunk = 16; chunk <= 48; chunk += 16) {
            memset(tr.probs, 0, n * sizeof *want);
            memset(tr.logits, 0, n * sizeof *wl);
            for (int b = 0; b < B; b++)
                for (int from = 0; from < T; from += chunk)
                    tf_decode_end_rows(&m, &tr, b, from, from + chunk);
            expect_true(memcmp(tr.probs, want, n * sizeof *want) == 0 && memcmp(tr.logits, wl, n * sizeof *wl) == 0,
                        "mode %d: the output in pieces of %d rows is the whole's, bit for bit", modes[mi], chunk);
        }
        gemm_small_set(was);
    }
    free(want);
    free(wl);
    trace_free(&tr);
    model_free(&m);
}

/* Probabilities lie in [0, 1] and sum to 1; masked weights are 0. */
static void test_probabilities(void **state)
{
    (void)state;
    Fixture f;
    ready_fixture(&f, TF_NORM_POST);
    int V = f.m.cfg.tgt_vocab;
    for (int r = 0; r < f.B * f.T; r++) {
        double s = 0;
        for (int v = 0; v < V; v++) {
            float p = f.tr.probs[(size_t)r * V + v];
            expect_true(p >= 0 && p <= 1, "probability in [0,1], got %g", p);
            s += p;
        }
        expect_true(fabs(s - 1) < 1e-5, "row %d sums to 1, got %.8f", r, s);
    }
    /* decoder self-attention of sentence 1 (7 real tokens): upper triangle 0 */
    TfView v;
    TfErr err;
    for (int h = 0; h < f.m.cfg.n_heads; h++) {
        tf_view(&f.tr, ST_DEC_SELF_WEIGHTS, 1, h, 1, &v, &err);
        for (int i = 0; i < v.rows; i++)
            for (int j = i + 1; j < v.cols; j++)
                expect_true(tf_view_at(&v, i, j) == 0.0f, "future (%d,%d) weight 0, got %g", i, j, tf_view_at(&v, i, j));
    }
    free_fixture(&f);
}

static void test_bad_batches(void **state)
{
    (void)state;
    Fixture f;
    make_fixture(&f, TF_NORM_POST, TRACE_RECORD);
    TfErr err;
    int bad_src[9] = {4, 5, 99};
    int sl = 3, tl = 1, tgt[1] = {TOK_BOS};
    TfBatch b = {1, 3, 1, bad_src, tgt, &sl, &tl};
    expect_true(tf_forward(&f.m, &f.tr, &b, 0, &err) != 0, "id 99 refused");
    printf("  -> %s\n", err.msg);
    b.src = f.src;
    b.S = 17;
    sl = 17;
    expect_true(tf_forward(&f.m, &f.tr, &b, 0, &err) != 0, "17 tokens refused (max 16)");
    printf("  -> %s\n", err.msg);
    b.S = 3;
    sl = 0;
    expect_true(tf_forward(&f.m, &f.tr, &b, 0, &err) != 0, "empty sentence refused");
    printf("  -> %s\n", err.msg);
    /* a batch larger than the trace grows it; more than 4096 is refused */
    int src5[5 * 3], sl5[5] = {3, 3, 3, 3, 3}, tl5[5] = {1, 1, 1, 1, 1}, tgt5[5] = {TOK_BOS, TOK_BOS, TOK_BOS, TOK_BOS, TOK_BOS};
    for (int i = 0; i < 15; i++)
        src5[i] = f.src[i % 3];
    TfBatch b5 = {5, 3, 1, src5, tgt5, sl5, tl5};
    expect_true(tf_forward(&f.m, &f.tr, &b5, 0, &err) == 0 && f.tr.cap_B >= 5, "5 sentences grow the trace: %s",
                err.msg);
    b5.B = 4097;
    expect_true(tf_forward(&f.m, &f.tr, &b5, 0, &err) != 0, "4097 sentences refused");
    printf("  -> %s\n", err.msg);
    free_fixture(&f);
}

int main(void)
{
    TU_RUN(NULL, NULL,
           cmocka_unit_test(test_torch_post_ln),
           cmocka_unit_test(test_torch_pre_ln_tied),
           cmocka_unit_test(test_model_saved_by_pytorch),
           cmocka_unit_test(test_stage_shapes),
           cmocka_unit_test(test_padded_batch_equals_alone),
           cmocka_unit_test(test_record_equals_plain),
           cmocka_unit_test(test_output_in_rows),
           cmocka_unit_test(test_probabilities),
           cmocka_unit_test(test_bad_batches));
}
