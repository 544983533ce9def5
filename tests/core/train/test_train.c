/* test_train.c - the loss, the schedule, Adam, the data order, dropout,
 * and the trainer: a short run on `copy` learns, a resumed run equals an
 * uninterrupted one bit for bit (and so do one and two threads), a NaN
 * never reaches the parameters, a kill during a training checkpoint never
 * leaves a broken file, and `train --data` reports a TSV file's bad lines. */
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "checkpoint.h"
#include "cli.h"
#include "commands.h"
#include "ops.h"
#include "train.h"
#include "test_util.h"

#define FIX "tests/fixtures/tsv/"

TU_SCRATCH_GROUP("train")

/* ---------------------------------------------------------------------- */
/* Loss                                                                    */
/* ---------------------------------------------------------------------- */

/* Two scored positions and one <pad> over V = 5 tokens (id 0 is <pad>).
 *
 * Row 0: z = (0, 0.5, 1, -1, 2), true token 4.
 *   sum exp z = 1 + 1.6487213 + 2.7182818 + 0.3678794 + 7.3890561
 *             = 13.1239386,  lse = log 13.1239386 = 2.5744379
 *   -log p(4) = lse - z(4) = 0.5744379
 *   smoothed (eps 0.1): q(4) = 0.9, q(0) = 0, q(1..3) = 0.1 / 3;
 *   H(q, p) = lse - 0.9 * 2 - (0.1/3) * (0.5 + 1 - 1) = 0.7577713
 * Row 1: z = (1, 0, 0.3, -0.2, 0), true token 2.
 *   sum exp z = 2.7182818 + 1 + 1.3498588 + 0.8187308 + 1 = 6.8868714,
 *   lse = 1.9296169;  -log p(2) = lse - 0.3 = 1.6296169
 *   smoothed: lse - 0.9 * 0.3 - (0.1/3) * (0 + (-0.2) + 0) = 1.6662836
 * Row 2: target <pad>: ignored, loss 0.
 * Gradient of row 0 without smoothing: p - onehot(4) =
 *   (0.0761966, 0.1256270, 0.2071239, 0.0280312, 0.5630212 - 1). */
static void test_loss_by_hand(void **state)
{
    (void)state;
    float z[15] = {0, 0.5f, 1, -1, 2, 1, 0, 0.3f, -0.2f, 0, 9, 9, 9, 9, 9};
    float p[15];
    memcpy(p, z, sizeof z);
    softmax_rows(p, NULL, 3, 5, 0);
    int y[3] = {4, 2, TOK_PAD}, n = 0, correct = 0;
    float pos[3] = {-1, -1, -1};
    double sum = loss_forward(pos, z, p, y, 3, 5, 0.0f, &n, &correct);
    float want0[3] = {0.5744379f, 1.6296169f, 0};
    check_close("per-position loss, no smoothing", pos, want0, 3, 2e-6f, 1e-6f);
    expect_true(n == 2, "2 scored positions, got %d", n);
    expect_true(correct == 1, "row 0's argmax is its target, row 1's is not: 1 correct, got %d", correct);
    expect_true(fabs(sum - (0.5744379 + 1.6296169)) < 4e-6, "sum 2.2040548, got %.7f", sum);
    sum = loss_forward(pos, z, p, y, 3, 5, 0.1f, &n, NULL);
    float want1[3] = {0.7577713f, 1.6662836f, 0};
    check_close("per-position loss, smoothing 0.1", pos, want1, 3, 2e-6f, 1e-6f);
    expect_true(fabs(sum - (0.7577713 + 1.6662836)) < 4e-6, "sum 2.4240549, got %.7f", sum);

    float d[15] = {0};
    loss_backward(d, p, y, 3, 5, 0.0f, 1.0f);
    float wantd[5] = {0.0761966f, 0.1256270f, 0.2071239f, 0.0280312f, 0.5630212f - 1};
    check_close("dloss/dlogits of row 0 = p - onehot", d, wantd, 5, 1e-6f, 1e-5f);
    float zero[5] = {0};
    check_close("the <pad> row gets no gradient", d + 10, zero, 5, 0, 0);
    /* with smoothing: p - q, and the gradient is the derivative of the
     * loss (central differences on each logit) */
    memset(d, 0, sizeof d);
    loss_backward(d, p, y, 3, 5, 0.1f, 1.0f);
    float num[10];
    for (int i = 0; i < 10; i++) {
        float zp[15], zm[15], pp[15], pm[15], h = 1e-2f;
        memcpy(zp, z, sizeof z);
        memcpy(zm, z, sizeof z);
        zp[i] += h;
        zm[i] -= h;
        memcpy(pp, zp, sizeof zp);
        memcpy(pm, zm, sizeof zm);
        softmax_rows(pp, NULL, 3, 5, 0);
        softmax_rows(pm, NULL, 3, 5, 0);
        double lp = loss_forward(NULL, zp, pp, y, 3, 5, 0.1f, NULL, NULL);
        double lm = loss_forward(NULL, zm, pm, y, 3, 5, 0.1f, NULL, NULL);
        num[i] = (float)((lp - lm) / (2 * h));
    }
    check_close("smoothed loss gradient vs finite differences", d, num, 10, 2e-4f, 1e-3f);
    float q1 = 0.1f / 3;
    expect_true(fabsf(d[1] - (p[1] - q1)) < 1e-7f && fabsf(d[0] - p[0]) < 1e-7f &&
                fabsf(d[4] - (p[4] - 0.9f)) < 1e-7f,
                "row 0: p - q with q = (0, eps/3, eps/3, eps/3, 1 - eps), got %g %g %g", d[0], d[1], d[4]);
}

/* ---------------------------------------------------------------------- */
/* Schedule and Adam                                                       */
/* ---------------------------------------------------------------------- */

static void test_schedule(void **state)
{
    (void)state;
    /* the paper's base model: d_model 512, warmup 4000 */
    double peak = 1.0 / sqrt(512.0) / sqrt(4000.0); /* 6.9877124e-4 */
    double got = lr_schedule(512, 4000, 1.0, 4000);
    expect_true(fabs(got - 6.9877124e-4) < 1e-10, "peak at step = warmup: 6.9877124e-4, got %.10g", got);
    got = lr_schedule(512, 4000, 1.0, 1);
    /* warmup: step * warmup^-1.5 / sqrt(512) = 1 / 252982.2 / 22.627417 */
    expect_true(fabs(got - 1.7469281e-7) < 1e-13, "step 1: 1.7469281e-7, got %.10g", got);
    got = lr_schedule(512, 4000, 1.0, 2000);
    expect_true(fabs(got - peak / 2) < 1e-12, "half way up: half the peak %.10g, got %.10g", peak / 2, got);
    got = lr_schedule(512, 4000, 1.0, 16000);
    expect_true(fabs(got - peak / 2) < 1e-12, "step 4 * warmup: half the peak (1/sqrt(4)), got %.10g", got);
    got = lr_schedule(512, 4000, 2.0, 4000);
    expect_true(fabs(got - 2 * peak) < 1e-12, "scale 2 doubles it, got %.10g", got);
    double prev = 0;
    int rising = 1, falling = 1;
    for (long long s = 1; s <= 4000; s++) {
        double v = lr_schedule(512, 4000, 1.0, s);
        rising &= v > prev;
        prev = v;
    }
    for (long long s = 4001; s <= 20000; s++) {
        double v = lr_schedule(512, 4000, 1.0, s);
        falling &= v < prev;
        prev = v;
    }
    expect_true(rising && falling, "rises to step 4000, falls after (%d, %d)", rising, falling);
}

/* First Adam step: m = (1-b1) g, v = (1-b2) g^2, bias-corrected to g and
 * g^2, so every parameter moves by lr * g / (|g| + eps) ~ lr * sign(g). */
static void test_adam_by_hand(void **state)
{
    (void)state;
    float p[4] = {1, -2, 0.5f, 3}, g[4] = {0.2f, -0.01f, 0, 4};
    float m[4] = {0}, v[4] = {0};
    AdamHyper h = {0.9f, 0.98f, 1e-9f};
    adam_update(p, g, m, v, 4, &h, 0.01f, 1.0f, 1);
    float want_p[4] = {0.99f, -1.99f, 0.5f, 2.99f};
    float want_m[4] = {0.02f, -0.001f, 0, 0.4f};
    float want_v[4] = {0.0008f, 0.000002f, 0, 0.32f};
    check_close("parameters after one step", p, want_p, 4, 1e-6f, 1e-6f);
    check_close("first moments", m, want_m, 4, 1e-9f, 1e-5f);
    check_close("second moments", v, want_v, 4, 1e-10f, 1e-5f);
    /* second step with the same gradient: m = 0.9*0.02 + 0.1*0.2 = 0.038,
     * m_hat = 0.038 / 0.19 = 0.2; v = 0.98*0.0008 + 0.02*0.04 = 0.001584,
     * v_hat = 0.001584 / 0.0396 = 0.04: again a step of lr * 0.2 / 0.2 */
    adam_update(p, g, m, v, 4, &h, 0.01f, 1.0f, 2);
    expect_true(fabsf(p[0] - 0.98f) < 1e-6f && fabsf(m[0] / 0.038f - 1) < 1e-6f &&
                fabsf(v[0] / 0.001584f - 1) < 1e-6f,
                "second step: p 0.98 m 0.038 v 0.001584, got %.7g %.7g %.7g", p[0], m[0], v[0]);
    /* clipping scales the gradient before it enters the moments */
    float p2[1] = {0}, g2[1] = {10}, m2[1] = {0}, v2[1] = {0};
    adam_update(p2, g2, m2, v2, 1, &h, 0.01f, 0.1f, 1);
    expect_true(fabsf(m2[0] - 0.1f) < 1e-7f, "gscale 0.1: m = 0.1 * (0.1 * 10) = 0.1, got %g", m2[0]);
    float big[5] = {3, 4, 0, 0, 0};
    expect_true(grad_sumsq(big, 5) == 25.0, "|(3,4)|^2 = 25, got %g", grad_sumsq(big, 5));
}

/* ---------------------------------------------------------------------- */
/* A small trainer                                                         */
/* ---------------------------------------------------------------------- */

static void tiny_cfg(TfConfig *c)
{
    *c = tu_config((TuSize){.d_model = 32, .n_heads = 4, .d_ff = 64, .n_enc = 1, .n_dec = 1, .max_len = 16});
}

static void task(Dataset *d, const char *name, int max_len)
{
    TfErr err;
    TaskOpts o = {max_len, 3, 100};
    expect_true(task_build(d, name, &o, &err) == 0, "task %s: %s", name, err.msg);
}

static void opts(TrainOpts *o, int threads)
{
    train_opts_default(o);
    o->batch = 32;
    o->warmup = 100;
    o->threads = threads;
    o->seed = 7;
}

/* The copy task (strings of length 1..5) learns in a few hundred steps:
 * the loss falls from log(30) = 3.4 towards the floor that label smoothing
 * leaves, the entropy of q: -0.9 log 0.9 - 0.1 log(0.1 / 28) = 0.658.
 * (Without dropout, to keep it short.) 400 steps: at 300 the loss was still
 * falling steeply enough that the BLAS kernel's rounding (SSE3, AVX2 or
 * AVX-512) moved its mean from 0.71 to 0.90; at 400 they agree on 0.72-0.73. */
static void test_copy_learns(void **state)
{
    (void)state;
    Dataset d;
    TfConfig c;
    TfModel m;
    /* trainers live on the heap in these tests: a failed expectation
     * leaves one behind with its thread, which must not find its memory
     * reused by the next test */
    Trainer *t = calloc(1, sizeof *t);
    TrainOpts o;
    TfErr err;
    task(&d, "copy", 5);
    tiny_cfg(&c);
    c.tie = TF_TIE_ALL;
    expect_true(trainer_model_new(&m, &c, &d, 1, &err) == 0, "model: %s", err.msg);
    opts(&o, 2);
    o.dropout = 0;
    o.lr_scale = 0.5f;
    expect_true(trainer_init(t, &m, &d, &o, &err) == 0, "trainer: %s", err.msg);
    enum { COPY_STEPS = 400 };
    double first = 0, last = 0;
    TrainStats s;
    for (int i = 0; i < COPY_STEPS; i++) {
        expect_true(trainer_step(t, &s, &err) == 0, "step %d: %s", i + 1, err.msg);
        if (i < 10)
            first += s.loss / 10;
        if (i >= COPY_STEPS - 10)
            last += s.loss / 10;
    }
    printf("  copy: mean loss of steps 1-10 %.4f, of steps %d-%d %.4f (lr %.3g)\n",
           first, COPY_STEPS - 9, COPY_STEPS, last, s.lr);
    expect_true(first > 3.0, "starts near log(30) = 3.4, got %.4f", first);
    expect_true(last < 0.85, "after %d steps the loss is below 0.85, got %.4f", COPY_STEPS, last);
    EvalOpts eo;
    eval_opts_default(&eo);
    EvalStats es;
    expect_true(trainer_eval(t, &eo, &es, &err) == 0, "eval: %s", err.msg);
    printf("  held-out: %d pairs, exact %.3f, token acc %.3f, BLEU %.2f\n", es.n, es.exact,
           es.token_acc, es.bleu);
    expect_true(es.token_acc > 0.9, "held-out token accuracy above 0.9, got %.3f", es.token_acc);
    trainer_free(t);
    free(t);
    model_free(&m);
    dataset_free(&d);
}

/* Every training pair once per epoch, in batches of similar length, the
 * same order for the same seed and a different one for another. */
static void test_data_order(void **state)
{
    (void)state;
    Dataset d;
    TfConfig c;
    TfModel m;
    Trainer *t = calloc(1, sizeof *t); /* on the heap: see test_copy_learns */
    TrainOpts o;
    TfErr err;
    task(&d, "reverse", 8);
    tiny_cfg(&c);
    expect_true(trainer_model_new(&m, &c, &d, 1, &err) == 0, "model");
    opts(&o, 1);
    o.batch = 16;
    expect_true(trainer_init(t, &m, &d, &o, &err) == 0, "trainer: %s", err.msg);
    int *seen = calloc((size_t)d.n_train, sizeof(int));
    int spread = 0, nb = t->n_batches;
    /* the first step builds epoch 0's order (t->order, t->batch_start) */
    expect_true(trainer_step(t, NULL, &err) == 0, "step: %s", err.msg);
    int *order0 = malloc((size_t)d.n_train * sizeof(int));
    memcpy(order0, t->order, (size_t)d.n_train * sizeof(int));
    for (int b = 0; b < nb; b++) {
        int lo = 1 << 30, hi = 0;
        for (int i = t->batch_start[b]; i < t->batch_start[b + 1]; i++) {
            int len = d.pairs[t->order[i]].src_len;
            lo = len < lo ? len : lo;
            hi = len > hi ? len : hi;
            seen[t->order[i]]++;
        }
        spread = hi - lo > spread ? hi - lo : spread;
    }
    int once = 1;
    for (int i = 0; i < d.n_train; i++)
        once &= seen[i] == 1;
    printf("  %d training pairs in %d batches; largest length spread in a batch %d\n",
           d.n_train, nb, spread);
    expect_true(once, "every training pair exactly once per epoch");
    expect_true(spread <= 1, "batches grouped by length (spread <= 1), got %d", spread);
    trainer_free(t);
    /* same seed, same order; another seed, another order */
    expect_true(trainer_init(t, &m, &d, &o, &err) == 0, "trainer");
    expect_true(trainer_step(t, NULL, &err) == 0, "step");
    expect_true(memcmp(order0, t->order, (size_t)d.n_train * sizeof(int)) == 0, "same seed, same order");
    trainer_free(t);
    o.seed = 8;
    expect_true(trainer_init(t, &m, &d, &o, &err) == 0, "trainer");
    expect_true(trainer_step(t, NULL, &err) == 0, "step");
    expect_true(memcmp(order0, t->order, (size_t)d.n_train * sizeof(int)) != 0, "another seed, another order");
    trainer_free(t);
    free(t);
    free(order0);
    free(seen);
    model_free(&m);
    dataset_free(&d);
}

/* Dropout masks: about p of the entries zero, the rest 1/(1-p); none when
 * not training. */
static void test_dropout_masks(void **state)
{
    (void)state;
    TfConfig c;
    TfModel m;
    TfTrace tr;
    TfErr err;
    tiny_cfg(&c);
    c.src_vocab = c.tgt_vocab = 20;
    c.dropout = 0.1f;
    expect_true(model_init_random(&m, &c, 1, &err) == 0, "model");
    expect_true(trace_build(&tr, &c, 16, 16, TRACE_RECORD | TRACE_TRAIN, &err) == 0, "trace");
    int src[256], tgt[256], sl[16], tl[16];
    for (int i = 0; i < 256; i++) {
        src[i] = 4 + i % 16;
        tgt[i] = i % 16 == 0 ? TOK_BOS : 4 + i % 16;
    }
    for (int b = 0; b < 16; b++)
        sl[b] = tl[b] = 16;
    TfBatch in = {16, 16, 16, src, tgt, sl, tl};
    expect_true(tf_forward(&m, &tr, &in, 1, &err) == 0, "forward");
    expect_true(tr.enc_dropped && tr.dec_dropped, "a training pass drops");
    size_t n = 256 * 32, zeros = 0, keeps = 0;
    const float *masks[] = {tr.src_drop, tr.tgt_drop, tr.enc[0].sa.drop, tr.enc[0].ffn_drop,
                            tr.dec[0].sa.drop, tr.dec[0].ca.drop, tr.dec[0].ffn_drop};
    for (int k = 0; k < 7; k++)
        for (size_t i = 0; i < n; i++) {
            zeros += masks[k][i] == 0.0f;
            keeps += masks[k][i] == 1.0f / 0.9f;
        }
    double frac = (double)zeros / (7.0 * n);
    printf("  %zu of %zu mask entries zero (%.4f), the others 1/0.9\n", zeros, 7 * n, frac);
    expect_true(fabs(frac - 0.1) < 0.01, "about 10%% dropped, got %.4f", frac);
    expect_true(zeros + keeps == 7 * n, "every entry 0 or 1/(1-p)");
    expect_true(tf_forward(&m, &tr, &in, 0, &err) == 0, "forward");
    expect_true(!tr.enc_dropped && !tr.dec_dropped, "an evaluation pass does not drop");
    trace_free(&tr);
    model_free(&m);
}

/* Train `steps` steps from a fresh model; returns it with its trainer. */
static void run(Trainer *t, TfModel *m, Dataset *d, int threads, int steps, TfNorm norm)
{
    TfConfig c;
    TrainOpts o;
    TfErr err;
    tiny_cfg(&c);
    c.norm = norm;
    expect_true(trainer_model_new(m, &c, d, 5, &err) == 0, "model: %s", err.msg);
    opts(&o, threads);
    o.batch = 24;
    expect_true(trainer_init(t, m, d, &o, &err) == 0, "trainer: %s", err.msg);
    for (int i = 0; i < steps; i++)
        expect_true(trainer_step(t, NULL, &err) == 0, "step %d: %s", i + 1, err.msg);
}

/* The copy task (lengths up to 5) and `steps` steps of a post-LN model on
 * it; the trainer on the heap (see test_copy_learns). */
static Trainer *copy_run(Dataset *d, TfModel *m, int threads, int steps)
{
    task(d, "copy", 5);
    Trainer *t = calloc(1, sizeof *t);
    run(t, m, d, threads, steps, TF_NORM_POST);
    return t;
}

/* Save after 30 steps, load into a fresh process state, 30 more: the
 * parameters and moments equal those of 60 uninterrupted steps, bit for
 * bit. The data set is small so that the run crosses epoch boundaries. */
static void test_resume_is_bit_exact(void **state)
{
    (void)state;
    for (int norm = 0; norm < 2; norm++) {
        Dataset d;
        task(&d, "sort", 4);
        d.n_train = 100; /* 5 batches of 24 (the last smaller) per epoch */
        TfModel a, b;
        Trainer *ta = calloc(1, sizeof *ta), *tb = calloc(1, sizeof *tb);
        TfErr err;
        run(ta, &a, &d, 2, 60, (TfNorm)norm);
        run(tb, &b, &d, 2, 30, (TfNorm)norm);
        char p[128];
        path_in(p, sizeof p, "resume.safetensors");
        expect_true(trainer_save(tb, p, 1, &err) == 0, "save: %s", err.msg);
        trainer_free(tb);
        free(tb);
        model_free(&b);

        TfModel c;
        CkptOptim opt;
        expect_true(ckpt_load_full(&c, &opt, p, &err) == 0, "load: %s", err.msg);
        expect_true(opt.m && opt.step == 30, "optimizer state of step 30, got step %lld", opt.step);
        TrainOpts o;
        expect_true(train_opts_from_meta(&o, &c, &err) == 0, "options from metadata: %s", err.msg);
        Trainer *tc = calloc(1, sizeof *tc);
        expect_true(trainer_init(tc, &c, &d, &o, &err) == 0, "trainer: %s", err.msg);
        expect_true(trainer_restore(tc, &opt, &err) == 0, "restore: %s", err.msg);
        ckpt_optim_free(&opt);
        for (int i = 0; i < 30; i++)
            expect_true(trainer_step(tc, NULL, &err) == 0, "step: %s", err.msg);
        size_t diff = 0;
        for (size_t i = 0; i < a.n_params; i++)
            diff += memcmp(&a.block[i], &c.block[i], sizeof(float)) != 0;
        printf("  %s-LN: %zu of %zu parameters differ after resume (step %lld vs %lld)\n",
               norm ? "pre" : "post", diff, a.n_params, tc->step, ta->step);
        expect_true(diff == 0 && tc->step == ta->step, "save, resume, continue == uninterrupted run");
        expect_true(memcmp(ta->moments, tc->moments, 2 * a.n_params * sizeof(float)) == 0,
                    "Adam moments bit-exact too");
        trainer_free(ta);
        free(ta);
        trainer_free(tc);
        free(tc);
        model_free(&a);
        model_free(&c);
        dataset_free(&d);
    }
}

/* One thread or two: the same numbers. */
static void test_threads_do_not_change_results(void **state)
{
    (void)state;
    Dataset d;
    task(&d, "reverse", 6);
    TfModel a, b;
    Trainer *ta = calloc(1, sizeof *ta), *tb = calloc(1, sizeof *tb);
    run(ta, &a, &d, 1, 25, TF_NORM_POST);
    run(tb, &b, &d, 2, 25, TF_NORM_POST);
    expect_true(memcmp(a.block, b.block, a.n_params * sizeof(float)) == 0,
                "1 and 2 threads give bit-identical parameters");
    trainer_free(ta);
    free(ta);
    trainer_free(tb);
    free(tb);
    model_free(&a);
    model_free(&b);
    dataset_free(&d);
}

/* A NaN in the forward pass: the step fails with a message and nothing
 * moves - parameters, moments and step count stay as they were. So does a
 * divergence brought on by an absurd learning rate. */
static void test_nan_keeps_last_good_step(void **state)
{
    (void)state;
    Dataset d;
    TfModel m;
    TfErr err;
    Trainer *t = copy_run(&d, &m, 2, 3);
    size_t n = m.n_params;
    float *before = malloc(n * sizeof(float)), *mom = malloc(2 * n * sizeof(float));
    m.p.gen_b[TOK_NSPECIAL] = NAN;
    memcpy(before, m.block, n * sizeof(float));
    memcpy(mom, t->moments, 2 * n * sizeof(float));
    expect_true(trainer_step(t, NULL, &err) != 0, "a NaN parameter makes the step fail");
    printf("  -> %s\n", err.msg);
    expect_true(strstr(err.msg, "NaN") != NULL, "the message says NaN: %s", err.msg);
    expect_true(memcmp(before, m.block, n * sizeof(float)) == 0, "parameters untouched");
    expect_true(memcmp(mom, t->moments, 2 * n * sizeof(float)) == 0, "moments untouched");
    expect_true(t->step == 3, "still at step 3, got %lld", t->step);
    m.p.gen_b[TOK_NSPECIAL] = 0;
    expect_true(trainer_step(t, NULL, &err) == 0, "the next step works again: %s", err.msg);
    trainer_free(t);
    model_free(&m);

    /* divergence: lr scale 1e30 blows the parameters up within a few steps */
    TfConfig c;
    TrainOpts o;
    tiny_cfg(&c);
    expect_true(trainer_model_new(&m, &c, &d, 5, &err) == 0, "model");
    opts(&o, 2);
    o.lr_scale = 1e30f;
    o.warmup = 1;
    expect_true(trainer_init(t, &m, &d, &o, &err) == 0, "trainer");
    int failed = 0;
    for (int i = 0; i < 50 && !failed; i++) {
        memcpy(before, m.block, n * sizeof(float));
        failed = trainer_step(t, NULL, &err) != 0;
    }
    expect_true(failed, "an absurd learning rate ends in a non-finite loss");
    printf("  -> %s\n", err.msg);
    int finite = 1;
    for (size_t i = 0; i < n; i++)
        finite &= isfinite(m.block[i]);
    expect_true(memcmp(before, m.block, n * sizeof(float)) == 0 && finite,
                "the parameters are those of the last good step, all finite");
    trainer_free(t);
    free(t);
    model_free(&m);
    free(before);
    free(mom);
    dataset_free(&d);
}

static void test_options_round_trip(void **state)
{
    (void)state;
    TfConfig c;
    TfModel m;
    TfErr err;
    tiny_cfg(&c);
    c.src_vocab = c.tgt_vocab = 9;
    expect_true(model_init_random(&m, &c, 1, &err) == 0, "model");
    TrainOpts o, back;
    train_opts_default(&o);
    o.batch = 48;
    o.warmup = 1234;
    o.lr_scale = 0.7f;
    o.clip = 0.3f;
    o.dropout = 0.05f;
    o.label_smoothing = 0.15f;
    o.seed = 123456789012ull;
    expect_true(train_opts_to_meta(&o, &m) == 0, "to metadata");
    expect_true(train_opts_from_meta(&back, &m, &err) == 0, "from metadata: %s", err.msg);
    back.threads = o.threads;
    expect_true(memcmp(&o, &back, sizeof o) == 0, "every option survives bit-exactly "
                "(lr %.9g vs %.9g, seed %llu vs %llu)", o.lr_scale, back.lr_scale,
                (unsigned long long)o.seed, (unsigned long long)back.seed);
    model_meta_set(&m, "train_batch", "lots");
    expect_true(train_opts_from_meta(&back, &m, &err) != 0, "a broken value is refused");
    printf("  -> %s\n", err.msg);
    model_free(&m);
}

/* A child keeps writing training checkpoints (model + moments) and is
 * killed at random moments: the file always loads, with its optimizer
 * state, and holds one complete version. */
static void test_kill_during_training_save(void **state)
{
    (void)state;
    char p[128];
    path_in(p, sizeof p, "kill.safetensors");
    Dataset d;
    TfModel m;
    TfErr err;
    Trainer *t = copy_run(&d, &m, 1, 2);
    expect_true(trainer_save(t, p, 1, &err) == 0, "first save: %s", err.msg);
    Rng r;
    rng_seed(&r, 11);
    long long newest = 0;
    for (int round = 0; round < 8; round++) {
        pid_t pid = fork();
        if (pid == 0) {
            for (;;) {
                trainer_step(t, NULL, &err);
                trainer_save(t, p, 1, &err);
            }
        }
        usleep(2000 + rng_below(&r, 150000));
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        TfModel back;
        CkptOptim opt;
        int rc = ckpt_load_full(&back, &opt, p, &err);
        expect_true(rc == 0, "round %d: the file loads after a kill: %s", round, rc ? err.msg : "");
        const char *st = model_meta_get(&back, "train_step");
        expect_true(opt.m && st && atoll(st) == opt.step,
                    "round %d: optimizer state present and consistent (train_step %s, "
                    "optimizer_step %lld)", round, st ? st : "?", opt.step);
        printf("  round %d: step %lld on disk\n", round, opt.step);
        newest = opt.step > newest ? opt.step : newest;
        ckpt_optim_free(&opt);
        model_free(&back);
    }
    int left = tu_count_names(g_dir, ".tmp-");
    printf("  %d temporary files left by killed writers (never renamed over the file)\n", left);
    expect_true(newest > 2, "the children did save newer versions (newest step %lld)", newest);
    trainer_free(t);
    free(t);
    model_free(&m);
    dataset_free(&d);
}

/* ---------------------------------------------------------------------- */
/* The command line                                                        */
/* ---------------------------------------------------------------------- */

/* Run a subcommand with stdout and stderr going to files; returns its exit
 * status and the captured stderr (malloc'ed). */
static int run_cmd(int (*cmd)(int, char **), char **argv, char **err_text)
{
    char ep[128], op[128];
    path_in(ep, sizeof ep, "stderr.txt");
    path_in(op, sizeof op, "stdout.txt");
    fflush(stdout);
    fflush(stderr);
    int save_out = dup(1), save_err = dup(2);
    int fe = open(ep, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int fo = open(op, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fe, 2);
    dup2(fo, 1);
    int argc = 0;
    while (argv[argc])
        argc++;
    int rc = cmd(argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(save_out, 1);
    dup2(save_err, 2);
    close(save_out);
    close(save_err);
    close(fe);
    close(fo);
    FILE *f = fopen(ep, "r");
    *err_text = calloc(1, 1 << 16);
    size_t n = fread(*err_text, 1, (1 << 16) - 1, f);
    (*err_text)[n] = 0;
    fclose(f);
    return rc;
}

static void test_cli_tsv_bad_lines(void **state)
{
    (void)state;
    cli_log_to_stderr();
    char out[128], *text;
    path_in(out, sizeof out, "tsv.safetensors");
    char *argv[] = {"train", "--data", FIX "bad_lines.tsv", "--max-len", "9", "--d-model", "16",
                    "--heads", "2", "--d-ff", "32", "--layers", "1", "--steps", "3",
                    "--batch", "4", "--warmup", "10", "--out", out, NULL};
    int rc = run_cmd(cmd_train, argv, &text);
    printf("  stderr of train --data bad_lines.tsv:\n%s", text);
    expect_true(rc == 0, "training on the good lines succeeds, got status %d", rc);
    int lines[] = {3, 4, 5, 6, 7, 8, 9, 10, 13, 14};
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        char want[96];
        snprintf(want, sizeof want, "bad_lines.tsv:%d: ", lines[i]);
        expect_true(strstr(text, want) != NULL, "line %d reported (\"%s\")", lines[i], want);
    }
    expect_true(strstr(text, "skipped 10 bad lines") != NULL, "the count: 10 bad lines skipped");
    expect_true(strstr(text, "3 training") == NULL && strstr(text, "2 training and 1 held-out") != NULL,
                "3 good pairs: 2 to train on, 1 held out");
    TfModel m;
    TfErr err;
    expect_true(ckpt_load(&m, out, &err) == 0, "the model was written: %s", err.msg);
    const char *cmdline = model_meta_get(&m, "train_command");
    expect_true(cmdline && strstr(cmdline, "--data " FIX "bad_lines.tsv"),
                "the command is in the metadata: %s", cmdline ? cmdline : "(none)");
    expect_true(model_meta_get(&m, "eval_exact") != NULL, "evaluation figures in the metadata");
    model_free(&m);
    free(text);

    /* a file with no usable line: one line, non-zero status */
    char *argv2[] = {"train", "--data", FIX "no_usable.tsv", "--out", out, NULL};
    rc = run_cmd(cmd_train, argv2, &text);
    printf("  no_usable.tsv -> status %d, last line: %s", rc, strrchr(text, '\n') ? "" : text);
    const char *last = text, *nl;
    while ((nl = strchr(last, '\n')) && nl[1])
        last = nl + 1;
    printf("%s", last);
    expect_true(rc != 0 && strstr(last, "stepformer train: ") == last,
                "an error line 'stepformer train: ...', got status %d", rc);
    free(text);

    /* bad options: one line each, non-zero status */
    char *bad[][6] = {{"train", "--task", "copy", NULL},
                      {"train", "--task", "nope", "--out", out},
                      {"train", "--task", "copy", "--batch", "0"},
                      {"train", "--task", "copy", "--frobnicate", NULL}};
    for (int k = 0; k < 4; k++) {
        char *args[8] = {0};
        for (int j = 0; j < 6 && bad[k][j]; j++)
            args[j] = bad[k][j];
        rc = run_cmd(cmd_train, args, &text);
        int lines_out = 0;
        for (const char *q = text; *q; q++)
            lines_out += *q == '\n';
        printf("  %s %s %s ... -> %d: %s", args[1], args[2], args[3] ? args[3] : "", rc, text);
        expect_true(rc != 0 && lines_out == 1, "a bad command line gives one message and a "
                    "non-zero status (status %d, %d lines)", rc, lines_out);
        free(text);
    }
}

/* train --resume continues to the new --steps; eval reads the model's data
 * set back from its metadata. */
static void test_cli_resume_and_eval(void **state)
{
    (void)state;
    cli_log_to_stderr();
    char a[128], b[128], *text;
    path_in(a, sizeof a, "cli_a.safetensors");
    path_in(b, sizeof b, "cli_b.safetensors");
    char *full[] = {"train", "--task", "copy", "--task-len", "4", "--d-model", "16", "--heads", "2",
                    "--d-ff", "32", "--layers", "1", "--steps", "40", "--batch", "16",
                    "--warmup", "20", "--eval-every", "0", "--out", a, NULL};
    expect_true(run_cmd(cmd_train, full, &text) == 0, "40 steps: %s", text);
    free(text);
    char *half[] = {"train", "--task", "copy", "--task-len", "4", "--d-model", "16", "--heads", "2",
                    "--d-ff", "32", "--layers", "1", "--steps", "20", "--batch", "16",
                    "--warmup", "20", "--eval-every", "0", "--out", b, NULL};
    expect_true(run_cmd(cmd_train, half, &text) == 0, "20 steps: %s", text);
    free(text);
    char *more[] = {"train", "--resume", b, "--steps", "40", "--out", b, NULL};
    expect_true(run_cmd(cmd_train, more, &text) == 0, "resume to 40: %s", text);
    printf("  %s", text);
    free(text);
    TfModel ma, mb;
    TfErr err;
    expect_true(ckpt_load(&ma, a, &err) == 0 && ckpt_load(&mb, b, &err) == 0, "load both");
    expect_true(memcmp(ma.block, mb.block, ma.n_params * sizeof(float)) == 0,
                "train 20 + resume to 40 == train 40, through the command line");
    model_free(&ma);
    model_free(&mb);
    char *changed[] = {"train", "--resume", b, "--steps", "60", "--batch", "8", "--out", b, NULL};
    expect_true(run_cmd(cmd_train, changed, &text) != 0, "resuming with another --batch is refused");
    printf("  -> %s", text);
    free(text);
    char *ev[] = {"eval", "--model", a, NULL};
    expect_true(run_cmd(cmd_eval, ev, &text) == 0, "eval: %s", text);
    free(text);
    char op[128];
    path_in(op, sizeof op, "stdout.txt");
    FILE *f = fopen(op, "r");
    char buf[4096] = {0};
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    printf("%s", buf);
    expect_true(strstr(buf, "on copy") && strstr(buf, "exact match") && strstr(buf, "BLEU") &&
                strstr(buf, "by source length"), "eval prints its figures for the copy task");
}

int main(void)
{
    TU_RUN(setup, teardown,
           cmocka_unit_test(test_loss_by_hand),
           cmocka_unit_test(test_schedule),
           cmocka_unit_test(test_adam_by_hand),
           cmocka_unit_test(test_dropout_masks),
           cmocka_unit_test(test_data_order),
           cmocka_unit_test(test_copy_learns),
           cmocka_unit_test(test_resume_is_bit_exact),
           cmocka_unit_test(test_threads_do_not_change_results),
           cmocka_unit_test(test_nan_keeps_last_good_step),
           cmocka_unit_test(test_options_round_trip),
           cmocka_unit_test(test_kill_during_training_save),
           cmocka_unit_test(test_cli_tsv_bad_lines),
           cmocka_unit_test(test_cli_resume_and_eval));
}
