/* test_view_train_probe.c - the train view's probe decodes a step at a time
 * (paced): with a model of preset base a call runs at most one decoding
 * step (steps counted, not wall time), new parameters cancel a decoding in
 * flight, and the tokens equal tf_greedy's; a classroom model still decodes
 * its probe in one call. */
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "view_train.h"

/* A random model of preset p with a small vocabulary, and a probe of 5
 * source tokens whose reference is 5 tokens long (up to 8 steps). */
static void probe_setup(TrainUi *u, const char *preset)
{
    TfErr err;
    TfConfig c;
    memset(u, 0, sizeof *u);
    expect_true(cfg_preset(&c, preset, &err) == 0, "preset %s", preset);
    c.src_vocab = c.tgt_vocab = 40;
    c.max_len = 16;
    expect_true(model_init_random(&u->pm, &c, 5, &err) == 0, "model: %s", err.msg);
    u->have_pm = 1;
    expect_true(trace_build(&u->gtr, &c, 1, 8, 0, &err) == 0, "trace: %s", err.msg);
    u->have_gtr = 1;
    for (int i = 0; i < 5; i++) {
        u->psrc[i] = 5 + i;
        u->pref[i] = 9 - i;
    }
    u->pS = u->pref_n = 5;
    u->shown_step = 7;
    u->gen_step = -1;
}

static void expect_greedy(TrainUi *u)
{
    TfErr err;
    DecodeResult g;
    expect_true(tf_greedy(&u->pm, &u->gtr, u->psrc, u->pS, u->pref_n + 3, 0, &g, &err) == 0, "%s", err.msg);
    expect_true(u->gen_step == 7 && u->gen_n == g.n && memcmp(u->gen_ids, g.ids, (size_t)g.n * sizeof(int)) == 0,
                "the probe says %d tokens at step %lld, tf_greedy %d", u->gen_n, u->gen_step, g.n);
    decode_result_free(&g);
}

static void test_base_probe_a_step_a_call(void **state)
{
    (void)state;
    static TrainUi u;
    probe_setup(&u, "base");
    unsigned s0 = u.pdec_steps;
    tv_probe_greedy(&u);
    expect_true(u.pdec_on && u.pdec_steps - s0 == 1, "starting runs the encoder alone (%u steps)",
                u.pdec_steps - s0);
    int calls = 0;
    while (u.pdec_on && calls < 40) {
        unsigned before = u.pdec_steps;
        tv_probe_greedy_steps(&u, 0);
        calls++;
        expect_true(u.pdec_steps - before <= 1, "call %d ran %u decoding steps (one at most)", calls,
                    u.pdec_steps - before);
    }
    expect_true(!u.pdec_on && u.probe_err[0] == 0, "done after %d calls: %s", calls, u.probe_err);
    expect_true(calls >= 2, "a base-size probe takes more than one call (%d)", calls);
    expect_true(u.gen_step == 7 && u.gen_n > 0, "the output is there (%d tokens)", u.gen_n);
    expect_greedy(&u);
    /* new parameters cancel a decoding in flight; the old output stays */
    int n = u.gen_n;
    u.shown_step = 9;
    tv_probe_greedy(&u);
    expect_true(u.pdec_on, "a new decoding is in flight");
    tv_probe_greedy_cancel(&u);
    expect_true(!u.pdec_on && u.gen_step == 7 && u.gen_n == n, "cancelled: the output of step 7 is kept");
    tv_probe_free(&u);
}

static void test_classroom_probe_one_call(void **state)
{
    (void)state;
    static TrainUi u;
    probe_setup(&u, "classroom");
    tv_probe_greedy(&u);
    tv_probe_greedy_steps(&u, 0);
    expect_true(!u.pdec_on, "a classroom probe decodes in one call");
    expect_greedy(&u);
    tv_probe_free(&u);
}

int main(void)
{
    TU_RUN(NULL, NULL, cmocka_unit_test(test_base_probe_a_step_a_call),
           cmocka_unit_test(test_classroom_probe_one_call));
}
