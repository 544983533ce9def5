/* test_train_probe.c - the train tab's probe (app/session/labs/train_probe.c),
 * without a window:
 *
 *   - it decodes a step at a time: with a model of preset base a call runs
 *     at most one decoding step (steps counted, not wall time), new
 *     parameters cancel a decoding in flight, and the tokens equal
 *     tf_greedy's; a classroom model still decodes its probe in one call;
 *   - it follows a real run on the worker: the live parameters, their
 *     greedy output, and the head-entropy history, a point per kept
 *     snapshot sorted by step, each the entropy tf_head_metrics gives for
 *     that head of the probe's pass (checked at the live step); a new run
 *     starts an empty history;
 *   - snapshots kept while nothing followed the run wait: one is run a
 *     call at most, none in a call that draws new curves;
 *   - "Open in Decode" copies the shown model whole. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "headstats.h"
#include "test_util.h"
#include "train_probe.h"

/* A random model of preset p with a small vocabulary, and a probe of 5
 * source tokens whose reference is 5 tokens long (up to 8 steps). */
static void probe_setup(TrainProbe *p, const char *preset)
{
    TfErr err;
    TfConfig c;
    tp_init(p);
    expect_true(cfg_preset(&c, preset, &err) == 0, "preset %s", preset);
    c.src_vocab = c.tgt_vocab = 40;
    c.max_len = 16;
    expect_true(model_init_random(&p->m, &c, 5, &err) == 0, "model: %s", err.msg);
    p->have_m = 1;
    expect_true(trace_build(&p->gtr, &c, 1, 8, 0, &err) == 0, "trace: %s", err.msg);
    p->have_gtr = 1;
    for (int i = 0; i < 5; i++) {
        p->src[i] = 5 + i;
        p->ref[i] = 9 - i;
    }
    p->S = p->ref_n = 5;
    p->step = 7;
}

static void expect_greedy(TrainProbe *p)
{
    TfErr err;
    DecodeResult g;
    expect_true(tf_greedy(&p->m, &p->gtr, p->src, p->S, p->ref_n + 3, 0, &g, &err) == 0, "%s", err.msg);
    expect_true(p->out_step == 7 && p->out_n == g.n && memcmp(p->out, g.ids, (size_t)g.n * sizeof(int)) == 0,
                "the probe says %d tokens at step %lld, tf_greedy %d", p->out_n, p->out_step, g.n);
    decode_result_free(&g);
}

static void test_base_probe_a_step_a_call(void **state)
{
    (void)state;
    static TrainProbe p;
    probe_setup(&p, "base");
    unsigned s0 = p.dec_steps;
    tp_greedy(&p);
    expect_true(p.dec_on && p.dec_steps - s0 == 1, "starting runs the encoder alone (%u steps)", p.dec_steps - s0);
    int calls = 0;
    while (p.dec_on && calls < 40) {
        unsigned before = p.dec_steps;
        tp_greedy_steps(&p, 0);
        calls++;
        expect_true(p.dec_steps - before <= 1, "call %d ran %u decoding steps (one at most)", calls,
                    p.dec_steps - before);
    }
    expect_true(!p.dec_on && p.err[0] == 0, "done after %d calls: %s", calls, p.err);
    expect_true(calls >= 2, "a base-size probe takes more than one call (%d)", calls);
    expect_true(p.out_step == 7 && p.out_n > 0, "the output is there (%d tokens)", p.out_n);
    expect_greedy(&p);
    /* new parameters cancel a decoding in flight; the old output stays */
    int n = p.out_n;
    p.step = 9;
    tp_greedy(&p);
    expect_true(p.dec_on, "a new decoding is in flight");
    tp_greedy_cancel(&p);
    expect_true(!p.dec_on && p.out_step == 7 && p.out_n == n, "cancelled: the output of step 7 is kept");
    tp_free(&p);
}

static void test_classroom_probe_one_call(void **state)
{
    (void)state;
    static TrainProbe p;
    probe_setup(&p, "classroom");
    tp_greedy(&p);
    tp_greedy_steps(&p, 0);
    expect_true(!p.dec_on, "a classroom probe decodes in one call");
    expect_greedy(&p);
    tp_free(&p);
}

/* A new run of `task` on w (32/2/64, `layers` + `layers`), trained
 * `steps` steps, its publication in *st. */
static void train_run(TrainWorker *w, const char *task, int layers, long long steps, TwStatus *st)
{
    TfErr err;
    TwSpec s;
    tw_spec_default(&s);
    snprintf(s.task, sizeof s.task, "%s", task);
    s.d_model = 32;
    s.n_heads = 2;
    s.d_ff = 64;
    s.n_layers = layers;
    expect_true(tw_setup(w, &s, &err) == 0 && tw_steps(w, steps, &err) == 0, "%s queued: %s", task, err.msg);
    tw_wait_idle(w);
    tw_status(w, st, 1);
}

/* A worker on a reverse run trained `steps` steps, and p following it
 * live, whole (wait). */
static TrainWorker *followed(TrainProbe *p, TwStatus *st, long long *want, int layers, long long steps)
{
    TfErr err;
    TrainWorker *w = tw_new(&err);
    expect_true(w != NULL, "the worker starts: %s", err.msg);
    train_run(w, "reverse", layers, steps, st);
    tp_init(p);
    *want = -1;
    tp_follow(p, w, st, want, 0, 1);
    return w;
}

static void test_follows_a_run(void **state)
{
    (void)state;
    static TrainProbe p;
    static TwStatus st;
    TfErr err;
    long long want;
    TrainWorker *w = followed(&p, &st, &want, 2, 120);
    expect_true(p.have_m && p.gen == st.gen && p.step == 120 && p.out_step == 120 && p.out_n > 0 && !p.err[0],
                "the live step shown, its greedy output whole (%d tokens at step %lld): %s", p.out_n, p.out_step,
                p.err);
    tp_hh_fill(&p, w, &st, TP_HH_CAP);
    const TpHeadHist *h = &p.hh;
    expect_true(!tp_hh_pending(&p, &st) && h->gen == p.gen && h->n >= 3 && h->n >= st.n_snap,
                "%d points for %d snapshots, none waiting", h->n, st.n_snap);
    for (int i = 1; i < h->n; i++)
        expect_true(h->step[i] > h->step[i - 1], "sorted by step (%lld, %lld)", h->step[i - 1], h->step[i]);
    expect_true(h->step[h->n - 1] == p.step, "the last point is the step shown (%lld)", p.step);
    /* the live point is the probe pass's entropy of each head */
    int NH = p.m.cfg.n_heads, n = tp_hh_heads(&p, TP_CROSS);
    expect_true(n == p.m.cfg.n_dec * NH, "every cross head followed (%d)", n);
    for (int k = 0; k < n; k++) {
        TfHeadMetrics m;
        expect_true(tf_head_metrics(&p.tr, TF_ATTN_CROSS, k / NH, k % NH, 0, &m, &err) == 0, "%s", err.msg);
        expect_true(fabsf(h->H[h->n - 1][TP_CROSS][k] - (float)m.entropy) < 1e-6f, "head %d: %g, metrics %g", k,
                    h->H[h->n - 1][TP_CROSS][k], m.entropy);
        expect_true(h->H[0][TP_CROSS][k] <= h->H_max + 1e-4f && h->H[0][TP_CROSS][k] >= 0, "in [0, ln n]");
    }
    /* a kept snapshot, asked for by a step near it */
    want = st.snaps[1].step + 1;
    tp_follow(&p, w, &st, &want, 0, 1);
    expect_true(want == st.snaps[1].step && p.step == want, "step %lld: the snapshot nearest, %lld shown",
                st.snaps[1].step + 1, p.step);
    /* Open in Decode: the shown model, whole */
    TfModel m;
    expect_true(tp_copy_model(&p, &m, &err) == 0, "copied: %s", err.msg);
    expect_true(m.n_params == p.m.n_params && memcmp(m.block, p.m.block, m.n_params * sizeof(float)) == 0 &&
                    m.tgt_vocab.n == p.m.tgt_vocab.n,
                "the copy has the shown parameters and vocabularies");
    model_free(&m);
    /* a new run: a new model, live, an empty history */
    int before = h->n;
    train_run(w, "copy", 1, 20, &st);
    tp_follow(&p, w, &st, &want, 0, 1);
    expect_true(want == -1 && p.gen == st.gen && p.step == 20 && p.m.cfg.n_dec == 1, "live on the new run (step %lld)",
                p.step);
    tp_hh_fill(&p, w, &st, TP_HH_CAP);
    expect_true(h->gen == p.gen && h->n >= 1 && h->step[h->n - 1] == 20 && (h->n < before || h->step[0] == 0),
                "a fresh history for the new run (%d points)", h->n);
    tw_free(w);
    tp_free(&p);
}

/* Snapshots kept while nothing followed the run (it trained, then paused):
 * each tp_follow runs one of them at most, none in a call that draws new
 * curves, until none waits. */
static void test_one_snapshot_a_call(void **state)
{
    (void)state;
    static TrainProbe p;
    static TwStatus st;
    TfErr err;
    long long want;
    TrainWorker *w = followed(&p, &st, &want, 1, 0); /* the run at step 0 */
    expect_true(tw_steps(w, 150, &err) == 0, "150 steps queued: %s", err.msg);
    tw_wait_idle(w);
    tw_status(w, &st, 1);
    int n0 = p.hh.n;
    tp_follow(&p, w, &st, &want, 0, 0); /* the live step, no snapshot yet */
    expect_true(p.step == 150 && p.hh.n == n0 + 1, "the live probe noted (%d points, were %d)", p.hh.n, n0);
    int n = p.hh.n;
    tp_follow(&p, w, &st, &want, 1, 0);
    expect_true(p.hh.n == n && tp_hh_pending(&p, &st), "a call with new curves runs no snapshot (%d points)",
                p.hh.n);
    int calls = 0;
    while (tp_hh_pending(&p, &st) && calls < 3 * TW_SNAP_CAP) {
        int before = p.hh.n;
        tp_follow(&p, w, &st, &want, 0, 0);
        calls++;
        expect_true(p.hh.n - before <= 1, "call %d ran %d snapshots (one at most)", calls, p.hh.n - before);
    }
    expect_true(!tp_hh_pending(&p, &st) && p.hh.n >= st.n_snap && calls >= st.n_snap - 2,
                "whole after %d calls: %d points for %d snapshots", calls, p.hh.n, st.n_snap);
    tw_free(w);
    tp_free(&p);
}

/* Nothing shown yet: nothing to open. */
static void test_nothing_to_open(void **state)
{
    (void)state;
    static TrainProbe p;
    TfModel m;
    TfErr err;
    tp_init(&p);
    expect_true(tp_copy_model(&p, &m, &err) != 0 && err.msg[0], "refused: %s", err.msg);
    tp_free(&p);
}

int main(void)
{
    TU_RUN(NULL, NULL, cmocka_unit_test(test_base_probe_a_step_a_call),
           cmocka_unit_test(test_classroom_probe_one_call), cmocka_unit_test(test_follows_a_run),
           cmocka_unit_test(test_one_snapshot_a_call), cmocka_unit_test(test_nothing_to_open));
}
