/* test_decode_lab.c - the decode lab with a Session and no window: what it
 * computes is what the engine computes, bit for bit. Teacher forcing is one
 * forward pass over <bos> + the target (the session's pass, or the lab's
 * own under an experiment); generation is tf_greedy (the session's decode
 * for sentence 0, the lab's own for another sentence); beam size 1 is
 * greedy and beam size 4 is tf_beam; a draw is tf_translate's for its seed
 * and the bars are the logits of a pass over the prefix; a forced token is
 * tf_generate's with that force, and unforcing gives greedy back. In the
 * window's pace (a lazy Session, SES_BUDGET) no call runs more than one
 * decoding step, and the results are the same as all at once. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "decode_lab.h"
#include "test_app_util.h"
#include "test_util.h"

static char MODEL[160];

static int setup(void **state)
{
    (void)state;
    tu_tmp(MODEL, sizeof MODEL, "decode-lab.safetensors");
    return tu_small_model(MODEL, 40, 24, 5);
}

static int teardown(void **state)
{
    (void)state;
    remove(MODEL);
    return 0;
}

/* A Session on src (and tgt, NULL none), computed; a lab beside it. */
static DecodeLab *open_lab(Session *s, const char *src, const char *tgt)
{
    tu_session(s, MODEL, src, tgt);
    DecodeLab *L = dlab_new();
    expect_true(L != NULL, "a lab");
    return L;
}

static DlabInput input_for(const Session *s)
{
    DlabInput in = {0};
    in.version = s->version;
    in.batch = s->batch;
    in.sel = -1;
    in.beam_k = 4;
    in.alpha = 0.6f;
    in.sampling = (SampleOpts){1.0f, 0, 1.0f};
    return in;
}

static void close_lab(Session *s, DecodeLab *L)
{
    dlab_free(L);
    session_free(s);
}

/* tf_greedy of sentence b of s, in a trace of its own. */
static void greedy_of(const Session *s, int b, DecodeResult *g)
{
    TfTrace tr;
    TfErr err;
    const TfModel *m = &s->model;
    expect_true(trace_build(&tr, &m->cfg, 1, 24, 0, &err) == 0, "trace: %s", err.msg);
    int max_out = decode_max_out(m, &tr, s->src_n[b]);
    expect_true(tf_greedy(m, &tr, s->src_ids[b], s->src_n[b], max_out, 0, g, &err) == 0, "greedy: %s", err.msg);
    trace_free(&tr);
}

static int same_ids(const int *a, int na, const int *b, int nb)
{
    return na == nb && memcmp(a, b, (size_t)na * sizeof(int)) == 0;
}

/* Teacher forcing: the predictions and losses of tf_teacher_forced, bit for
 * bit, from the session's pass and from the lab's own under an experiment. */
static void test_teacher_forcing(void **state)
{
    (void)state;
    static Session s;
    DecodeLab *L = open_lab(&s, "t5 t6 t7 t8", "t9 t10 t11");
    DlabInput in = input_for(&s);
    for (int pass = 0; pass < 2; pass++) {
        if (pass) { /* no causal mask: the lab's own pass */
            in.exp.no_causal = 1;
            in.version++;
        }
        dlab_update(L, &s, &in, SES_ALL);
        expect_true(!L->err[0] && L->ref && L->tf_n == 4 && L->made > 0, "pass %d: %d positions (%s)", pass,
                    L->tf_n, L->err);
        TfTrace tr;
        TfErr err;
        expect_true(trace_build(&tr, &s.model.cfg, 1, 24, 0, &err) == 0, "trace: %s", err.msg);
        tr.exp = in.exp;
        int tgt[3] = {9, 10, 11}, pred[4], truth[4];
        float loss[4];
        expect_true(tf_teacher_forced(&s.model, &tr, s.src_ids[0], s.src_n[0], tgt, 3, pred, truth, loss, &err) == 0,
                    "teacher forced: %s", err.msg);
        expect_true(memcmp(pred, L->tf_pred, sizeof pred) == 0 && memcmp(truth, L->tf_truth, sizeof truth) == 0 &&
                        memcmp(loss, L->tf_loss, sizeof loss) == 0,
                    "pass %d: the predictions and losses of tf_teacher_forced, bit for bit", pass);
        /* the mask shown is the one applied: 0 up to the diagonal, -inf after (none without it) */
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) {
                float m = L->tf_mask[i * 4 + j];
                int hidden = !pass && j > i;
                expect_true(hidden ? isinf(m) && m < 0 : m == 0, "pass %d: mask[%d][%d] %g", pass, i, j, m);
            }
        trace_free(&tr);
    }
    expect_true(L->tf_passes == 1, "one pass of the lab's own (%u): the first was the session's", L->tf_passes);
    close_lab(&s, L);
}

/* Generation: the session's decode for sentence 0, the lab's own for
 * sentence 1; both tf_greedy's. */
static void test_generation(void **state)
{
    (void)state;
    static Session s;
    DecodeLab *L = open_lab(&s, "t5 t6 t7 | t9 t10 t11 t12", NULL);
    DlabInput in = input_for(&s);
    for (int b = 0; b < 2; b++) {
        in.batch = b;
        unsigned steps = L->gen_steps;
        dlab_update(L, &s, &in, SES_ALL);
        DecodeResult g = {0};
        greedy_of(&s, b, &g);
        expect_true(same_ids(L->gen.ids, L->gen.n, g.ids, g.n) && L->gen.logprob == g.logprob && L->gen.steps,
                    "sentence %d: tf_greedy's %d tokens, its steps kept", b, g.n);
        expect_true(b ? L->gen_steps > steps : L->gen_steps == steps, "sentence %d: %u own steps", b,
                    L->gen_steps - steps);
        expect_true(!L->ref && L->sel_first == L->gen.n - 1 && L->sel_first_auto, "the last step inspected first");
        expect_true(dlab_gen_input(L, 0) == L->start_id && dlab_gen_input(L, 1) == L->gen.ids[0],
                    "step 1 reads the first output");
        decode_result_free(&g);
    }
    close_lab(&s, L);
}

/* Beam size 1 is greedy; size 4 is tf_beam's search, tree laid out. */
static void test_beam(void **state)
{
    (void)state;
    static Session s;
    DecodeLab *L = open_lab(&s, "t5 t6 t7 t8", NULL);
    DlabInput in = input_for(&s);
    in.want_beam = 1;
    in.beam_k = 1;
    dlab_update(L, &s, &in, SES_ALL);
    expect_true(same_ids(L->beam.ids, L->beam.n, L->gen.ids, L->gen.n), "beam 1 is greedy (%d tokens)", L->beam.n);
    in.beam_k = 4;
    unsigned beams = L->beams;
    dlab_update(L, &s, &in, SES_ALL);
    TfTrace tr;
    TfErr err;
    BeamResult want = {0};
    expect_true(trace_build(&tr, &s.model.cfg, 4, 24, 0, &err) == 0, "trace: %s", err.msg);
    expect_true(tf_beam(&s.model, &tr, s.src_ids[0], s.src_n[0], 4, 0.6f, L->max_out, &want, &err) == 0, "%s",
                err.msg);
    expect_true(L->beams == beams + 1 && same_ids(L->beam.ids, L->beam.n, want.ids, want.n) &&
                    L->beam.score == want.score && L->beam.n_nodes == want.n_nodes,
                "beam 4 is tf_beam's: %d tokens, score %g (want %g), %d nodes", L->beam.n, L->beam.score, want.score,
                want.n_nodes);
    int path = 0;
    for (int k = L->beam.best_node; k >= 0; k = L->beam.nodes[k].parent)
        path += L->on_path[k];
    expect_true(L->n_cols >= 2 && path >= 2, "the tree is laid out: %d columns, %d nodes on the path", L->n_cols,
                path);
    dlab_update(L, &s, &in, SES_ALL);
    expect_true(L->beams == beams + 1, "the same settings search nothing again");
    beam_result_free(&want);
    trace_free(&tr);
    close_lab(&s, L);
}

/* Draws are tf_translate's for their seeds; the bars are the logits of
 * the pass over the prefix. */
static void test_sampling(void **state)
{
    (void)state;
    static Session s;
    DecodeLab *L = open_lab(&s, "t5 t6 t7 t8", NULL);
    DlabInput in = input_for(&s);
    in.sampling = (SampleOpts){2.0f, 0, 1.0f};
    dlab_update(L, &s, &in, SES_ALL);
    expect_true(dlab_draw(L, &s, &in) == 0 && dlab_draw(L, &s, &in) == 0, "two draws: %s", L->smp.err);
    expect_true(L->smp.n_samples == 2 && L->smp.sample_seed[0] == 2 && L->smp.sample_seed[1] == 1,
                "seeds 2 then 1, the newest first");
    TfTrace tr;
    TfErr err;
    expect_true(trace_build(&tr, &s.model.cfg, 1, 8, 0, &err) == 0, "trace: %s", err.msg); /* as the lab's */
    for (int k = 0; k < 2; k++) {
        DecodeOpts o;
        decode_opts_default(&o);
        o.sample = 1;
        o.sampling = in.sampling;
        o.seed = L->smp.sample_seed[k];
        DecodeResult r = {0};
        expect_true(tf_translate(&s.model, &tr, L->src, L->S, &o, &r, &err) == 0, "%s", err.msg);
        expect_true(same_ids(r.ids, r.n, L->smp.sample_ids[k], L->smp.sample_n[k]), "draw %d is tf_translate's", k);
        decode_result_free(&r);
    }
    in.want_bars = 1;
    in.sel = 1;
    dlab_update(L, &s, &in, SES_ALL);
    int V = s.model.cfg.tgt_vocab;
    expect_true(tf_teacher_forced(&s.model, &tr, L->src, L->S, L->gen.ids, 1, NULL, NULL, NULL, &err) == 0, "%s",
                err.msg);
    expect_true(L->smp.logits_at == 1 && memcmp(L->smp.logits, tr.logits + V, (size_t)V * sizeof(float)) == 0,
                "the bars: the logits after step 1's prefix, bit for bit");
    unsigned made = L->smp.bars_made;
    dlab_update(L, &s, &in, SES_ALL);
    expect_true(L->smp.bars_made == made, "the same bars are not made again");
    in.sampling.top_k = 1;
    dlab_update(L, &s, &in, SES_ALL);
    expect_true(L->smp.bars_made == made + 1 && L->smp.n_bars == 1 && L->smp.bar_p[0] == 1.0f,
                "top-k 1: one bar of p 1");
    trace_free(&tr);
    close_lab(&s, L);
}

/* A forced token: tf_generate's generation with that force; unforcing
 * gives greedy back. */
static void test_forcing(void **state)
{
    (void)state;
    static Session s;
    DecodeLab *L = open_lab(&s, "t5 t6 t7 t8", NULL);
    DlabInput in = input_for(&s);
    dlab_update(L, &s, &in, SES_ALL);
    DecodeResult g = {0};
    greedy_of(&s, 0, &g);
    int tok = L->gen.steps[0].top_id[1]; /* the runner-up of step 1 */
    dlab_force(L, 0, tok);
    dlab_update(L, &s, &in, SES_ALL);
    TfTrace tr;
    TfErr err;
    expect_true(trace_build(&tr, &s.model.cfg, 1, 24, TRACE_RECORD, &err) == 0, "trace: %s", err.msg);
    DecodeOpts o;
    decode_opts_default(&o);
    o.n_force = 1;
    o.force[0] = (DecodeForce){0, tok};
    DecodeResult r = {0};
    expect_true(tf_generate(&s.model, &tr, L->src, L->S, L->max_out, 0, &o, &r, &err) == 0, "%s", err.msg);
    expect_true(L->gen.ids[0] == tok && L->gen.steps[0].forced && same_ids(L->gen.ids, L->gen.n, r.ids, r.n),
                "step 1 forced to %d, the rest is tf_generate's", tok);
    expect_true(L->sel_first == 0 && !L->sel_first_auto, "the forced step is inspected first");
    dlab_unforce(L);
    dlab_update(L, &s, &in, SES_ALL);
    expect_true(L->smp.force.n_force == 0 && same_ids(L->gen.ids, L->gen.n, g.ids, g.n), "unforced: greedy again");
    decode_result_free(&r);
    decode_result_free(&g);
    trace_free(&tr);
    close_lab(&s, L);
}

/* s on a random model of preset base (a decoding step costs a budget of
 * weight reads), "t5 t6 t7 t8" computed. */
static void use_base(Session *s)
{
    TfModel m;
    tu_base_model(&m, 40, 16, 3);
    expect_true(session_use_model(s, &m, "base") >= 0, "the base model is used");
    session_set_text(s, 0, "t5 t6 t7 t8");
    session_compute_all(s);
}

/* Calls at the window's pace until the lab has nothing left: each runs
 * one decoding step at most (the encoder counts as one). Returns the calls. */
static int run_paced(DecodeLab *L, const Session *s, const DlabInput *in, const char *what)
{
    int calls = 0;
    do {
        unsigned g0 = L->gen_steps;
        dlab_update(L, s, in, SES_BUDGET);
        expect_true(L->gen_steps - g0 <= 1, "%s, call %d: %u decoding steps", what, calls, L->gen_steps - g0);
    } while (L->busy && ++calls < 400);
    expect_true(!L->busy, "%s: done in %d calls", what, calls);
    return calls;
}

/* The window's pace, on a base-size model: the generation under an
 * experiment, its teacher forcing and the beam, then a forced token, a
 * draw and the bars, each a budget a call, and the results are those made
 * all at once. */
static void test_pacing(void **state)
{
    (void)state;
    static Session s, h;
    DecodeLab *L = open_lab(&s, "t5", NULL);
    DecodeLab *H = open_lab(&h, "t5", NULL);
    use_base(&s);
    use_base(&h);
    DlabInput in = input_for(&s), hin = input_for(&h);
    in.exp.no_scale = hin.exp.no_scale = 1; /* the lab's own generation and teacher forcing */
    in.want_beam = hin.want_beam = 1;
    s.lazy = 1;
    expect_true(run_paced(L, &s, &in, "generation and beam") > 3, "over several calls");
    dlab_update(H, &h, &hin, SES_ALL);
    expect_true(same_ids(L->gen.ids, L->gen.n, H->gen.ids, H->gen.n) && L->tf_n == H->tf_n &&
                    memcmp(L->tf_loss, H->tf_loss, (size_t)L->tf_n * sizeof(float)) == 0 &&
                    same_ids(L->beam.ids, L->beam.n, H->beam.ids, H->beam.n) && L->beam.score == H->beam.score,
                "paced and at once agree bit for bit");
    int tok = L->gen.steps[0].top_id[1];
    dlab_force(L, 0, tok);
    dlab_force(H, 0, tok);
    in.want_beam = hin.want_beam = 0;
    run_paced(L, &s, &in, "a forced token");
    dlab_update(H, &h, &hin, SES_ALL);
    expect_true(L->gen.ids[0] == tok && same_ids(L->gen.ids, L->gen.n, H->gen.ids, H->gen.n) &&
                    memcmp(L->tf_loss, H->tf_loss, (size_t)L->tf_n * sizeof(float)) == 0,
                "forced: paced and at once agree");
    expect_true(dlab_draw(L, &s, &in) == 0 && L->smp.sdec_on, "a draw in flight");
    run_paced(L, &s, &in, "a draw");
    expect_true(dlab_draw(H, &h, &hin) == 0, "a draw at once");
    expect_true(L->smp.n_samples == 1 &&
                    same_ids(L->smp.sample_ids[0], L->smp.sample_n[0], H->smp.sample_ids[0], H->smp.sample_n[0]),
                "drawn: paced and at once agree");
    in.want_bars = hin.want_bars = 1;
    in.sel = hin.sel = 1;
    run_paced(L, &s, &in, "the bars");
    dlab_update(H, &h, &hin, SES_ALL);
    int V = s.model.cfg.tgt_vocab;
    expect_true(L->smp.logits_at == 1 && memcmp(L->smp.logits, H->smp.logits, (size_t)V * sizeof(float)) == 0,
                "the bars: paced and at once agree");
    close_lab(&s, L);
    close_lab(&h, H);
}

int main(void)
{
    TU_RUN(setup, teardown,
           cmocka_unit_test(test_teacher_forcing), cmocka_unit_test(test_generation),
           cmocka_unit_test(test_beam),            cmocka_unit_test(test_sampling),
           cmocka_unit_test(test_forcing),         cmocka_unit_test(test_pacing));
}
