/* test_train_probe.c - the train tab's probe (app/session/labs/train_probe.c),
 * alone and as the training worker runs it, with no window reading:
 *
 *   - it decodes a step at a time: with a model of preset base a call runs
 *     at most one decoding step (steps counted, not wall time), new
 *     parameters cancel a decoding in flight, and the tokens equal
 *     tf_greedy's; a classroom model still decodes its probe in one call;
 *   - the worker runs it on its own thread: after a run trained with
 *     nobody reading, the pass handed over is of the live step, the
 *     greedy output of that step came with the status, and the
 *     head-entropy history has a point per kept snapshot, sorted by step,
 *     each the entropy tf_head_metrics gives for that head of the probe's
 *     pass (checked at the live step, and at a snapshot against a pass
 *     recomputed on its parameters); a new run starts an empty history;
 *   - a snapshot asked for (tw_show) is shown: the pass of the one kept
 *     nearest, bit for bit the pass of its parameters, and "Open in
 *     Decode" (tw_shown_model) copies that model whole;
 *   - the passes handed over are three buffers: the one the reader holds
 *     is never the one the worker writes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "headstats.h"
#include "stage.h"
#include "test_util.h"
#include "train_worker.h"

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
        p->o.ref[i] = 9 - i;
    }
    p->S = p->o.ref_n = 5;
    p->o.have = 1;
    p->step = 7;
}

static void expect_greedy(TrainProbe *p)
{
    TfErr err;
    DecodeResult g;
    expect_true(tf_greedy(&p->m, &p->gtr, p->src, p->S, p->o.ref_n + 3, 0, &g, &err) == 0, "%s", err.msg);
    expect_true(p->o.out_step == 7 && p->o.out_n == g.n && memcmp(p->o.out, g.ids, (size_t)g.n * sizeof(int)) == 0,
                "the probe says %d tokens at step %lld, tf_greedy %d", p->o.out_n, p->o.out_step, g.n);
    decode_result_free(&g);
}

static void test_base_probe_a_step_a_call(void **state)
{
    (void)state;
    static TrainProbe p;
    probe_setup(&p, "base");
    unsigned s0 = p.dec_steps;
    tp_greedy(&p);
    expect_true(p.dec_on && p.dec_steps - s0 == 1 && p.o.decoding,
                "starting runs the encoder alone (%u steps), and says it decodes", p.dec_steps - s0);
    int calls = 0;
    while (p.dec_on && calls < 40) {
        unsigned before = p.dec_steps;
        tp_greedy_steps(&p, 0);
        calls++;
        expect_true(p.dec_steps - before <= 1, "call %d ran %u decoding steps (one at most)", calls,
                    p.dec_steps - before);
        expect_true(!p.dec_on || p.o.dec_t == p.dec.t, "the progress published: %d of %d", p.o.dec_t, p.o.dec_max);
    }
    expect_true(!p.dec_on && !p.o.decoding && p.o.err[0] == 0, "done after %d calls: %s", calls, p.o.err);
    expect_true(calls >= 2, "a base-size probe takes more than one call (%d)", calls);
    expect_true(p.o.out_step == 7 && p.o.out_n > 0, "the output is there (%d tokens)", p.o.out_n);
    expect_greedy(&p);
    /* new parameters cancel a decoding in flight; the old output stays */
    int n = p.o.out_n;
    p.step = 9;
    tp_greedy(&p);
    expect_true(p.dec_on, "a new decoding is in flight");
    tp_greedy_cancel(&p);
    expect_true(!p.dec_on && p.o.out_step == 7 && p.o.out_n == n, "cancelled: the output of step 7 is kept");
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
 * `steps` steps with nobody reading, then what it published in *st and
 * the pass it handed over. */
static const TpPass *train_run(TrainWorker *w, const char *task, int layers, long long steps, TwStatus *st)
{
    TfErr err;
    TwSpec s;
    const TpPass *q = NULL;
    tw_spec_default(&s);
    snprintf(s.task, sizeof s.task, "%s", task);
    s.d_model = 32;
    s.n_heads = 2;
    s.d_ff = 64;
    s.n_layers = layers;
    expect_true(tw_setup(w, &s, &err) == 0 && tw_steps(w, steps, &err) == 0, "%s queued: %s", task, err.msg);
    tw_wait_idle(w);
    int got = tw_take(w, st, &q, 0, 1);
    expect_true((got & TW_TOOK_STATUS) && q != NULL, "taken: %d", got);
    return q;
}

/* The cross-attention entropy of every head of a pass, against point i
 * of the history. */
static void expect_point(const TwStatus *st, const TfTrace *tr, int i, const char *what)
{
    TfErr err;
    const TpHeadHist *h = &st->probe.hh;
    int NH = st->cfg.n_heads, n = st->probe.heads[TP_CROSS];
    expect_true(n == st->cfg.n_dec * NH, "every cross head followed (%d)", n);
    for (int k = 0; k < n; k++) {
        TfHeadMetrics m;
        expect_true(tf_head_metrics(tr, TF_ATTN_CROSS, k / NH, k % NH, 0, &m, &err) == 0, "%s", err.msg);
        expect_true(fabsf(h->H[i][TP_CROSS][k] - (float)m.entropy) < 1e-6f, "%s, head %d: %g, metrics %g", what, k,
                    h->H[i][TP_CROSS][k], m.entropy);
        expect_true(h->H[i][TP_CROSS][k] <= h->H_max + 1e-4f && h->H[i][TP_CROSS][k] >= 0, "in [0, ln n]");
    }
}

/* The probe's teacher-forced pass recomputed on model m. */
static void recompute(const TfModel *m, const TwStatus *st, const TfTrace *like, TfTrace *tr)
{
    TfErr err;
    int S = like->src_len[0], T = like->tgt_len[0];
    expect_true(trace_build(tr, &m->cfg, 1, 8, TRACE_RECORD, &err) == 0, "trace: %s", err.msg);
    expect_true(tf_teacher_forced(m, tr, like->src_ids, S, st->probe.ref, st->probe.ref_n, NULL, NULL, NULL,
                                  &err) == 0 && tr->T == T,
                "recomputed: %s", err.msg);
}

/* The cross-attention weights of two passes, bit for bit. */
static int same_cross(const TfTrace *a, const TfTrace *b, const TfConfig *c)
{
    TfErr err;
    for (int l = 0; l < c->n_dec; l++)
        for (int hd = 0; hd < c->n_heads; hd++) {
            TfView va, vb;
            if (tf_view(a, stage_find("dec.cross.weights"), l, hd, 0, &va, &err) ||
                tf_view(b, stage_find("dec.cross.weights"), l, hd, 0, &vb, &err) || va.rows != vb.rows ||
                va.cols != vb.cols)
                return 0;
            for (int r = 0; r < va.rows; r++)
                for (int k = 0; k < va.cols; k++)
                    if (tf_view_at(&va, r, k) != tf_view_at(&vb, r, k))
                        return 0;
        }
    return 1;
}

static void test_worker_runs_the_probe(void **state)
{
    (void)state;
    static TwStatus st;
    TfErr err;
    TrainWorker *w = tw_new(&err);
    expect_true(w != NULL, "the worker starts: %s", err.msg);
    const TpPass *q = train_run(w, "reverse", 2, 120, &st);
    const TpOut *o = &st.probe;
    expect_true(o->have && o->gen == st.gen && !o->err[0], "the probe made for the run: %s", o->err);
    expect_true(q->gen == st.gen && q->step == 120 && q->have_tr && q->have_labels,
                "the pass handed over is of the live step (%lld, run %llu)", q->step, (unsigned long long)q->gen);
    expect_true(o->out_step == 120 && o->out_n > 0 && !o->decoding, "its greedy output came with it (%d tokens at %lld)",
                o->out_n, o->out_step);
    expect_true(q->labels.tgt_vocab.n == st.cfg.tgt_vocab && q->labels.block == NULL,
                "the pass carries the run's vocabularies, not its parameters");
    const TpHeadHist *h = &o->hh;
    expect_true(h->gen == st.gen && h->n >= 3 && h->n >= st.n_snap, "%d points for %d snapshots", h->n, st.n_snap);
    for (int i = 1; i < h->n; i++)
        expect_true(h->step[i] > h->step[i - 1], "sorted by step (%lld, %lld)", h->step[i - 1], h->step[i]);
    expect_true(h->step[h->n - 1] == 120, "the last point is the live step (%lld)", h->step[h->n - 1]);
    expect_point(&st, &q->tr, h->n - 1, "the live point");

    /* a kept snapshot, asked for by a step near it */
    long long snap = st.snaps[1].step;
    tw_show(w, snap + 1);
    tw_wait_idle(w);
    const TpPass *held = q;
    int got = tw_take(w, &st, &q, 0, 1);
    expect_true((got & TW_TOOK_PASS) && q->step == snap && q != held, "step %lld: the snapshot nearest, %lld shown",
                snap + 1, q->step);
    TfModel m;
    long long at = -1;
    expect_true(tw_shown_model(w, st.gen, &m, &at, &err) == 0 && at == snap, "Open in Decode: step %lld: %s", at,
                err.msg);
    float *p = malloc(m.n_params * sizeof(float));
    long long ps;
    float loss;
    expect_true(p && tw_params(w, st.gen, snap, p, m.n_params, &ps, &loss) == 0 &&
                    memcmp(p, m.block, m.n_params * sizeof(float)) == 0 && m.tgt_vocab.n == st.cfg.tgt_vocab,
                "the model shown has the snapshot's parameters and the run's vocabularies");
    free(p);
    TfTrace tr;
    recompute(&m, &st, &q->tr, &tr);
    expect_true(same_cross(&tr, &q->tr, &st.cfg), "the pass is the snapshot's, bit for bit");
    int at_snap = -1;
    for (int i = 0; i < h->n; i++)
        if (h->step[i] == snap)
            at_snap = i;
    expect_true(at_snap >= 0, "the snapshot has its point in the history");
    if (at_snap >= 0)
        expect_point(&st, &tr, at_snap, "the snapshot's point");
    trace_free(&tr);
    model_free(&m);

    /* a new run: a new model, live, an empty history */
    int before = h->n;
    tw_show(w, -1);
    q = train_run(w, "copy", 1, 20, &st);
    expect_true(q->gen == st.gen && q->step == 20 && q->labels.cfg.n_dec == 1, "live on the new run (step %lld)",
                q->step);
    expect_true(h->gen == st.gen && h->n >= 1 && h->step[h->n - 1] == 20 && (h->n < before || h->step[0] == 0),
                "a fresh history for the new run (%d points)", h->n);
    tw_free(w);
}

/* While the reader holds a pass, the worker hands over others: never the
 * one held, and the held one keeps its step. */
static void test_held_pass_stays(void **state)
{
    (void)state;
    static TwStatus st;
    TfErr err;
    TrainWorker *w = tw_new(&err);
    const TpPass *q = train_run(w, "reverse", 1, 10, &st);
    const TpPass *held = q;
    long long step = held->step;
    unsigned ver = held->ver;
    for (int i = 0; i < 4; i++) { /* four passes handed over, none taken */
        expect_true(tw_steps(w, 3, &err) == 0, "steps: %s", err.msg);
        tw_wait_idle(w);
    }
    expect_true(held->step == step && held->ver == ver, "the held pass is left alone: step %lld (was %lld)",
                held->step, step);
    int got = tw_take(w, &st, &q, 0, 1);
    expect_true((got & TW_TOOK_PASS) && q != held && q->step == 22 && q->ver > ver,
                "the newest is taken: step %lld", q->step);
    tw_free(w);
}

/* Nothing shown yet: nothing to open. */
static void test_nothing_to_open(void **state)
{
    (void)state;
    TfModel m;
    TfErr err;
    long long at;
    TrainWorker *w = tw_new(&err);
    expect_true(tw_shown_model(w, 1, &m, &at, &err) != 0 && err.msg[0], "refused: %s", err.msg);
    tw_free(w);
    static TrainProbe p;
    tp_init(&p);
    expect_true(tp_copy_model(&p, -1, &m, &err) != 0 && err.msg[0], "refused: %s", err.msg);
    tp_free(&p);
}

int main(void)
{
    TU_RUN(NULL, NULL, cmocka_unit_test(test_base_probe_a_step_a_call),
           cmocka_unit_test(test_classroom_probe_one_call), cmocka_unit_test(test_worker_runs_the_probe),
           cmocka_unit_test(test_held_pass_stays), cmocka_unit_test(test_nothing_to_open));
}
