/* test_backward.c - the gradient of the whole model against central finite
 * differences, on tiny configs: post-LN and pre-LN, untied, tied generator
 * and all three matrices shared, a padded batch (so masked keys and ignored
 * positions are exercised), with and without dropout (the masks are held
 * fixed by reseeding the dropout generator before every pass).
 *
 * The loss is the label-smoothed mean cross-entropy of train.h. For every
 * parameter tensor a few coordinates are drawn; each is nudged by +-h and
 * the slope of the loss compared with the analytic gradient. The forward
 * pass is float32 (the loss is summed in double), so h cannot be tiny; a
 * large h feels the curvature of this very non-linear model (d_model 8)
 * and may cross a ReLU kink. Each coordinate therefore takes the best of
 * three step sizes, and each tensor must also agree in direction (cosine
 * of the numeric and analytic vectors). A wrong gradient - a missing term,
 * a transposed product, a wrong mask - fails both by far. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "train.h"
#include "test_util.h"

typedef struct Setup {
    TfModel m;
    TfTrace tr;
    TfBackWork w;
    float *grad;
    TfParams g;
    int src[3 * 5], tgt[3 * 4], out[3 * 4], sl[3], tl[3];
    TfBatch b;
    Rng drop0; /* dropout stream at the start of every pass */
    int train;
    float eps;
} Setup;

static void setup(Setup *s, TfNorm norm, TfTie tie, int train)
{
    TfErr err;
    memset(s, 0, sizeof *s);
    TfConfig c = tu_config((TuSize){.d_model = 8, .n_heads = 2, .d_ff = 12, .n_enc = 2, .n_dec = 2,
                                    .src_vocab = tie == TF_TIE_ALL ? 11 : 9, .tgt_vocab = 11, .max_len = 8});
    c.norm = norm;
    c.tie = tie;
    c.dropout = 0.1f;
    expect_true(model_init_random(&s->m, &c, 11 + norm * 3 + tie, &err) == 0, "model: %s", err.msg);
    /* biases and LayerNorm gains away from their 0 / 1 start, so that their
     * gradients are generic */
    Rng r;
    rng_seed(&r, 5);
    ParamDesc d[PARAMS_MAX_DESC];
    int nd = params_table(&c, d, PARAMS_MAX_DESC);
    for (int i = 0; i < nd; i++) {
        if (d[i].init == INIT_XAVIER)
            continue;
        int L = d[i].stack == STACK_ENC ? c.n_enc : d[i].stack == STACK_DEC ? c.n_dec : 1;
        for (int l = 0; l < L; l++) {
            float *t = params_tensor(&s->m.p, &d[i], l);
            for (size_t k = 0; k < param_desc_numel(&d[i]); k++)
                t[k] += 0.2f * (2 * rng_uniform(&r) - 1);
        }
    }
    expect_true(trace_build(&s->tr, &c, 3, 5, TRACE_RECORD | TRACE_TRAIN, &err) == 0, "trace: %s", err.msg);
    expect_true(backwork_build(&s->w, &c, 3, 5, &err) == 0, "work: %s", err.msg);
    s->grad = calloc(s->m.n_params, sizeof(float));
    params_point(&s->g, &c, s->grad);
    /* three sentences: sources of 5, 3 and 4 tokens (S = 5), decoder
     * inputs <bos> + 3, 1 and 2 tokens (T = 4); targets shifted by one
     * with <eos>, <pad> beyond */
    int sl[3] = {5, 3, 4}, tl[3] = {4, 2, 3};
    for (int b = 0; b < 3; b++) {
        s->sl[b] = sl[b];
        s->tl[b] = tl[b];
        for (int i = 0; i < 5; i++)
            s->src[b * 5 + i] = i < sl[b] ? 4 + (int)rng_below(&r, (uint32_t)c.src_vocab - 4) : TOK_PAD;
        int y[4];
        for (int i = 0; i < 4; i++)
            y[i] = 4 + (int)rng_below(&r, 7);
        for (int i = 0; i < 4; i++) {
            s->tgt[b * 4 + i] = i == 0 ? TOK_BOS : i < tl[b] ? y[i - 1] : TOK_PAD;
            s->out[b * 4 + i] = i < tl[b] - 1 ? y[i] : i == tl[b] - 1 ? TOK_EOS : TOK_PAD;
        }
    }
    s->b = (TfBatch){3, 5, 4, s->src, s->tgt, s->sl, s->tl};
    rng_seed(&s->drop0, 77);
    s->train = train;
    s->eps = 0.1f;
}

static void teardown_setup(Setup *s)
{
    model_free(&s->m);
    trace_free(&s->tr);
    backwork_free(&s->w);
    free(s->grad);
}

/* Mean smoothed loss of the batch; n tokens in *n. */
static double loss_of(Setup *s, int *n)
{
    TfErr err;
    s->tr.drop_rng = s->drop0;
    expect_true(tf_forward(&s->m, &s->tr, &s->b, s->train, &err) == 0, "forward: %s", err.msg);
    int scored = 0;
    double sum = loss_forward(NULL, s->tr.logits, s->tr.probs, s->out, 3 * 4,
                              s->m.cfg.tgt_vocab, s->eps, &scored, NULL);
    if (n)
        *n = scored;
    return sum / scored;
}

static void analytic(Setup *s)
{
    TfErr err;
    int n = 0;
    loss_of(s, &n);
    expect_true(n == 4 + 2 + 3, "9 scored positions, got %d", n);
    if (s->train)
        expect_true(s->tr.enc_dropped && s->tr.dec_dropped, "dropout applied");
    memset(s->grad, 0, s->m.n_params * sizeof(float));
    memset(s->w.d_logits, 0, sizeof(float) * 12 * s->m.cfg.tgt_vocab);
    loss_backward(s->w.d_logits, s->tr.probs, s->out, 12, s->m.cfg.tgt_vocab, s->eps, 1.0f / n);
    expect_true(tf_backward(&s->m, &s->tr, &s->w, &s->g, &err) == 0, "backward: %s", err.msg);
}

/* A fingerprint of which FFN units are active (ReLU input > 0) in the last
 * pass: if it differs between x+h and x-h, the loss is not smooth on that
 * interval and the difference quotient says nothing about the slope. */
static uint64_t relu_pattern(const Setup *s)
{
    const TfTrace *tr = &s->tr;
    uint64_t h = TF_FNV_SEED;
    size_t F = (size_t)s->m.cfg.d_ff;
    for (int l = 0; l < s->m.cfg.n_enc; l++)
        for (size_t i = 0; i < (size_t)tr->B * tr->S * F; i++)
            h = tf_fnv_word(h, tr->enc[l].ffn_hidden[i] > 0);
    for (int l = 0; l < s->m.cfg.n_dec; l++)
        for (size_t i = 0; i < (size_t)tr->B * tr->T * F; i++)
            h = tf_fnv_word(h, tr->dec[l].ffn_hidden[i] > 0);
    return h;
}

/* Central difference of the loss along coordinate x at step h; *kink says
 * whether a ReLU switched between the two passes. */
static double slope(Setup *s, float *x, float h, int *kink)
{
    float old = *x;
    *x = old + h;
    double lp = loss_of(s, NULL);
    uint64_t pp = relu_pattern(s);
    *x = old - h;
    double lm = loss_of(s, NULL);
    *kink = relu_pattern(s) != pp;
    *x = old;
    return (lp - lm) / (2.0 * (double)h);
}

/* Relative disagreement, with a floor so that near-zero gradients are
 * judged against the gradient's overall scale: a gradient below 1% of the
 * largest one is at the level of float32 noise in a difference quotient. */
static double rel_err(double num, double ana, double floor_)
{
    return fabs(num - ana) / (fabs(num) + fabs(ana) + floor_);
}

/* For every tensor (and layer) six random coordinates, all of the
 * embedding tables: the best agreement
 * over the step sizes whose interval holds no ReLU kink (a large step feels
 * the curvature of this tiny, very non-linear model, a small one float32
 * rounding), and the cosine between the numeric and analytic vectors. A
 * coordinate with a kink within every step is skipped and counted. */
static int check_model(Setup *s, const char *what)
{
    static const float HS[4] = {1e-2f, 3e-3f, 1e-3f, 3e-4f};
    ParamDesc d[PARAMS_MAX_DESC];
    const TfConfig *c = &s->m.cfg;
    int nd = params_table(c, d, PARAMS_MAX_DESC), checked = 0, bad = 0, skipped = 0;
    double gmax = 0;
    for (size_t i = 0; i < s->m.n_params; i++)
        gmax = fmax(gmax, fabs(s->grad[i]));
    double floor_ = 1e-2 * gmax, worst = 0, worst_cos = 1;
    const char *worst_name = "";
    Rng r;
    rng_seed(&r, 99);
    printf("%s: %zu parameters, largest gradient %.3g\n", what, s->m.n_params, gmax);
    for (int i = 0; i < nd; i++) {
        int L = d[i].stack == STACK_ENC ? c->n_enc : d[i].stack == STACK_DEC ? c->n_dec : 1;
        size_t numel = param_desc_numel(&d[i]);
        double tworst = 0, tnum = 0, tana = 0, dot = 0, nn = 0, aa = 0;
        for (int l = 0; l < L; l++) {
            float *t = params_tensor(&s->m.p, &d[i], l);
            float *g = params_tensor(&s->g, &d[i], l);
            /* embedding tables (and the generator): every coordinate, so
             * that each token's row and each dropout mask is covered */
            int all = d[i].stack == STACK_NONE && d[i].cols > 0;
            for (int k = 0; k < (all ? (int)numel : 6); k++) {
                size_t j = all ? (size_t)k : rng_below(&r, (uint32_t)numel);
                double ana = g[j], best = INFINITY, num = 0;
                for (int q = 0; q < 4; q++) {
                    int kink;
                    double n = slope(s, &t[j], HS[q] * fmaxf(0.5f, fabsf(t[j])), &kink);
                    double e = rel_err(n, ana, floor_);
                    if (!kink && e < best) {
                        best = e;
                        num = n;
                    }
                }
                if (best == INFINITY) {
                    skipped++;
                    continue;
                }
                if (best > tworst) {
                    tworst = best;
                    tnum = num;
                    tana = ana;
                }
                dot += num * ana;
                nn += num * num;
                aa += ana * ana;
                bad += best > 0.05;
                checked++;
            }
        }
        double cosv = nn > 0 && aa > 0 ? dot / sqrt(nn * aa) : (nn == aa ? 1 : 0);
        char name[96];
        snprintf(name, sizeof name, d[i].name, 0);
        printf("  %-48s cos %.6f worst %.1e (numeric %.6g, analytic %.6g)\n", name,
               cosv, tworst, tnum, tana);
        if (tworst > worst) {
            worst = tworst;
            worst_name = d[i].name;
        }
        if (cosv < worst_cos)
            worst_cos = cosv;
    }
    printf("  %d coordinates (%d more skipped: a ReLU kink within every step), "
           "%d beyond 5%% relative error; worst %.2e in %s; lowest cosine %.6f\n",
           checked, skipped, bad, worst, worst_name, worst_cos);
    expect_true(checked >= 300 && skipped <= checked / 20, "%s: at least 300 coordinates "
                "checked and few skipped (checked %d, skipped %d)", what, checked, skipped);
    /* float32 rounding and curvature leave a handful of small gradients a
     * few per cent off; anything systematic is far beyond these bounds */
    expect_true(bad <= checked / 100, "%s: analytic gradient matches finite "
                "differences within 5%% (got %d of %d beyond)", what, bad, checked);
    expect_true(worst < 0.1, "%s: no coordinate more than 10%% off (worst %.3g)", what, worst);
    expect_true(worst_cos > 0.999, "%s: numeric and analytic gradients point the same "
                "way in every tensor (lowest cosine %.6f)", what, worst_cos);
    return checked;
}

static void run_case(TfNorm norm, TfTie tie, int train)
{
    static const char *TIES[] = {"untied", "tied generator", "all tied"};
    char what[96];
    snprintf(what, sizeof what, "%s-LN, %s, %s", norm == TF_NORM_POST ? "post" : "pre",
             TIES[tie], train ? "dropout 0.1" : "no dropout");
    Setup s;
    setup(&s, norm, tie, train);
    analytic(&s);
    check_model(&s, what);
    teardown_setup(&s);
}

static void test_post_untied(void **state) { (void)state; run_case(TF_NORM_POST, TF_TIE_NONE, 0); }
static void test_post_tied_gen(void **state) { (void)state; run_case(TF_NORM_POST, TF_TIE_GENERATOR, 0); }
static void test_post_all_tied_dropout(void **state) { (void)state; run_case(TF_NORM_POST, TF_TIE_ALL, 1); }
static void test_pre_untied(void **state) { (void)state; run_case(TF_NORM_PRE, TF_TIE_NONE, 0); }
static void test_pre_all_tied(void **state) { (void)state; run_case(TF_NORM_PRE, TF_TIE_ALL, 0); }
static void test_pre_untied_dropout(void **state) { (void)state; run_case(TF_NORM_PRE, TF_TIE_NONE, 1); }

/* Tied matrices: the gradient in the shared floats is the sum of what each
 * use contributes, i.e. the same as an untied model's gradients added up. */
static void test_tied_gradient_is_sum(void **state)
{
    (void)state;
    Setup t, u;
    setup(&t, TF_NORM_POST, TF_TIE_ALL, 0);
    setup(&u, TF_NORM_POST, TF_TIE_NONE, 0);
    /* make the untied model equal to the tied one: same block, with the
     * shared matrix copied into its three places */
    TfModel *a = &t.m, *b = &u.m;
    size_t VC = (size_t)11 * 8;
    ParamDesc da[PARAMS_MAX_DESC], db[PARAMS_MAX_DESC];
    int na = params_table(&a->cfg, da, PARAMS_MAX_DESC);
    int nb = params_table(&b->cfg, db, PARAMS_MAX_DESC);
    for (int i = 0; i < nb; i++) {
        const char *nm = db[i].name;
        const float *from = NULL;
        for (int j = 0; j < na && !from; j++)
            if (strcmp(da[j].name, nm) == 0)
                from = *(float *const *)((const char *)&a->p + da[j].field);
        if (!from)
            from = a->p.tgt_embed; /* src_embed, generator.weight */
        int L = db[i].stack == STACK_ENC ? 2 : db[i].stack == STACK_DEC ? 2 : 1;
        memcpy(*(float **)((char *)&b->p + db[i].field), from,
               param_desc_numel(&db[i]) * L * sizeof(float));
    }
    /* the same batch, with source ids inside the untied model's smaller
     * source vocabulary */
    for (int i = 0; i < 15; i++)
        t.src[i] = t.src[i] == TOK_PAD ? TOK_PAD : 4 + t.src[i] % 5;
    memcpy(u.src, t.src, sizeof t.src);
    memcpy(u.tgt, t.tgt, sizeof t.tgt);
    memcpy(u.out, t.out, sizeof t.out);
    analytic(&t);
    analytic(&u);
    float *sum = calloc(VC, sizeof(float));
    for (size_t k = 0; k < (size_t)9 * 8; k++)
        sum[k] += u.g.src_embed[k];
    for (size_t k = 0; k < VC; k++)
        sum[k] += u.g.tgt_embed[k] + u.g.gen_w[k];
    check_close("shared matrix gradient = src + tgt + generator gradients",
                t.g.tgt_embed, sum, VC, 1e-6f, 1e-4f);
    check_close("generator bias gradient", t.g.gen_b, u.g.gen_b, 11, 1e-7f, 1e-5f);
    free(sum);
    teardown_setup(&t);
    teardown_setup(&u);
}

/* Sentences alone or in a padded batch give the same gradient (padding
 * contributes nothing). */
static void test_padding_contributes_nothing(void **state)
{
    (void)state;
    Setup s;
    TfErr err;
    setup(&s, TF_NORM_POST, TF_TIE_NONE, 0);
    analytic(&s);
    float *batch = malloc(s.m.n_params * sizeof(float));
    memcpy(batch, s.grad, s.m.n_params * sizeof(float));
    float *alone = calloc(s.m.n_params, sizeof(float));
    /* each sentence alone, weighted as in the batch mean (1/9 per token) */
    for (int b = 0; b < 3; b++) {
        int S = s.sl[b], T = s.tl[b];
        TfBatch one = {1, S, T, s.src + b * 5, NULL, &s.sl[b], &s.tl[b]};
        int tgt[4], out[4];
        for (int i = 0; i < T; i++) {
            tgt[i] = s.tgt[b * 4 + i];
            out[i] = s.out[b * 4 + i];
        }
        one.tgt = tgt;
        expect_true(tf_forward(&s.m, &s.tr, &one, 0, &err) == 0, "forward");
        memset(s.grad, 0, s.m.n_params * sizeof(float));
        memset(s.w.d_logits, 0, sizeof(float) * 12 * 11);
        loss_backward(s.w.d_logits, s.tr.probs, out, T, 11, s.eps, 1.0f / 9);
        expect_true(tf_backward(&s.m, &s.tr, &s.w, &s.g, &err) == 0, "backward");
        for (size_t k = 0; k < s.m.n_params; k++)
            alone[k] += s.grad[k];
    }
    check_close("padded batch gradient = sum of single-sentence gradients",
                batch, alone, s.m.n_params, 1e-6f, 1e-3f);
    free(batch);
    free(alone);
    teardown_setup(&s);
}

static void test_backward_refuses_bad_input(void **state)
{
    (void)state;
    Setup s;
    TfErr err;
    setup(&s, TF_NORM_POST, TF_TIE_NONE, 0);
    TfTrace plain;
    expect_true(trace_build(&plain, &s.m.cfg, 3, 5, 0, &err) == 0, "trace");
    expect_true(tf_forward(&s.m, &plain, &s.b, 0, &err) == 0, "forward");
    expect_true(tf_backward(&s.m, &plain, &s.w, &s.g, &err) != 0, "a trace without TRACE_RECORD is refused");
    printf("  -> %s\n", err.msg);
    TfBackWork small;
    expect_true(backwork_build(&small, &s.m.cfg, 1, 5, &err) == 0, "work");
    expect_true(tf_forward(&s.m, &s.tr, &s.b, 0, &err) == 0, "forward");
    expect_true(tf_backward(&s.m, &s.tr, &small, &s.g, &err) != 0, "a batch larger than the workspace is refused");
    printf("  -> %s\n", err.msg);
    backwork_free(&small);
    trace_free(&plain);
    teardown_setup(&s);
}

int main(void)
{
    TU_RUN(NULL, NULL,
           cmocka_unit_test(test_post_untied),
           cmocka_unit_test(test_post_tied_gen),
           cmocka_unit_test(test_post_all_tied_dropout),
           cmocka_unit_test(test_pre_untied),
           cmocka_unit_test(test_pre_all_tied),
           cmocka_unit_test(test_pre_untied_dropout),
           cmocka_unit_test(test_tied_gradient_is_sum),
           cmocka_unit_test(test_padding_contributes_nothing),
           cmocka_unit_test(test_backward_refuses_bad_input));
}
