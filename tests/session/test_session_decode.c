/* test_session_decode.c - the window never freezes while it decodes: with a
 * random model of preset base, no event, frame or idle call runs more than
 * one decoding step (steps counted, not wall time), typing cancels the
 * decoding in flight, the decode view shows the progress and then the
 * session's own decode, which equals tf_greedy. With an experiment on, the
 * normal pass and the translation under the experiment are made in pieces
 * within the same budget, and an edit cancels them. */
#include <stdlib.h>
#include <string.h>

#include "test_app_util.h"
#include "test_util.h"
#include "text.h"
#include "decode_host.h"
#include "view_decode.h"

static char MODEL[256];
TU_FIXTURE(MODEL, "session_decode.safetensors", 640, 400)

/* A random model of preset base with a small vocabulary and max_len 16
 * (so a sentence decodes in at most 16 steps). */
static void base_model(TfModel *m)
{
    tu_base_model(m, 40, 16, 3);
}

/* The window on view with the base model, "t5 t6 t7" computed and drawn,
 * lazy as the window runs. */
static void open_base(App *a, const char *view)
{
    AppOpts o = tu_opts(MODEL, "t5 t6 t7", NULL, view);
    tu_open(a, &o, 100);
    TfModel m;
    base_model(&m);
    expect_true(app_use_model(a, &m, "base") == 0, "the base model is used");
    session_set_lazy(&a->ses, 1);
    while (app_idle_work(a) == 1)
        ;
    tu_frame(a);
}

/* Steps run by fn on a: at most one. */
#define AT_MOST_ONE_STEP(a, what, call)                                                      \
    do {                                                                                     \
        unsigned before_ = (a)->ses.gdec.steps;                                               \
        call;                                                                                \
        unsigned ran_ = (a)->ses.gdec.steps - before_;                                        \
        expect_true(ran_ <= 1, "%s ran %u decoding steps (one at most)", what, ran_);       \
        max_steps = ran_ > max_steps ? ran_ : max_steps;                                     \
    } while (0)

static void test_never_blocks_longer_than_a_step(void **state)
{
    (void)state;
    static App a;
    AppOpts o = tu_opts(MODEL, "t5", NULL, "decode");
    tu_open(&a, &o, 100);
    TfModel m;
    base_model(&m);
    expect_true(app_use_model(&a, &m, "base") == 0, "the base model is used");
    session_set_lazy(&a.ses, 1); /* as the window runs */
    unsigned max_steps = 0;
    app_focus_line(&a, APP_LINE_SRC);
    AT_MOST_ONE_STEP(&a, "typing", ev_text(&a, " t6 t7"));
    int frames = 0, idles = 0, progress_seen = 0;
    for (int k = 0; k < 4; k++) {
        AT_MOST_ONE_STEP(&a, "a frame", tu_frame(&a));
        frames++;
        AT_MOST_ONE_STEP(&a, "an idle call", app_idle_work(&a));
        idles++;
        DecodeUi *d = a.vstate[VIEW_DECODE];
        DecodeLab *L = dhost_lab(&a);
        progress_seen += d && L->pending;
    }
    expect_true(session_decoding(&a.ses, NULL, NULL), "still decoding after 8 steps of 16 at most");
    expect_true(progress_seen > 0, "the decode view showed the progress");
    const char *png = getenv("KV_PROGRESS_PNG"); /* to look at the progress mark */
    if (png) {
        TfErr e;
        ren_save_png(tu_ren, png, &e);
    }
    /* an edit cancels the decoding in flight and starts the new sentence */
    unsigned before = a.ses.gdec.steps;
    AT_MOST_ONE_STEP(&a, "typing during a decode", ev_text(&a, " t8"));
    AT_MOST_ONE_STEP(&a, "the frame after it", tu_frame(&a));
    expect_true(a.ses.src_n[0] == 4 && (!a.ses.gdec.on || a.ses.gdec.dec.t == 0),
                "the decoding in flight is cancelled: the new sentence of 4 tokens (step %d)", a.ses.gdec.dec.t);
    int guard = 0;
    while (!a.ses.gdec.on && guard++ < 20) /* its encoder first, a budget a call */
        AT_MOST_ONE_STEP(&a, "an idle call", app_idle_work(&a));
    expect_true(a.ses.gdec.on && a.ses.gdec.dec.t == 0, "the new sentence is decoded from its first step (step %d)",
                a.ses.gdec.dec.t);
    guard = 0;
    while (session_decoding(&a.ses, NULL, NULL) && guard++ < 200) {
        AT_MOST_ONE_STEP(&a, "an idle call", app_idle_work(&a));
        idles++;
        if (guard % 4 == 0) {
            AT_MOST_ONE_STEP(&a, "a frame", tu_frame(&a));
            frames++;
        }
    }
    expect_true(!session_decoding(&a.ses, NULL, NULL), "the decoding ends");
    printf("  %u steps after the edit in %d frames and %d idle calls, at most %u at a time\n",
           a.ses.gdec.steps - before, frames, idles, max_steps);
    while (app_idle_work(&a) == 1)
        ;
    tu_frame(&a);
    DecodeUi *d = a.vstate[VIEW_DECODE];
    DecodeLab *L = dhost_lab(&a);
    TfTrace tr;
    TfErr err;
    expect_true(trace_build(&tr, &a.ses.model.cfg, 1, 8, 0, &err) == 0, "trace");
    DecodeResult g;
    int max_out = decode_max_out(&a.ses.model, &tr, a.ses.src_n[0]);
    expect_true(tf_greedy(&a.ses.model, &tr, a.ses.src_ids[0], a.ses.src_n[0], max_out, 0, &g, &err) == 0,
                "greedy: %s", err.msg);
    expect_true(!L->pending && L->gen.n == g.n && memcmp(L->gen.ids, g.ids, (size_t)g.n * sizeof(int)) == 0 &&
                    L->gen.steps != NULL,
                "the view shows the session's decode (%d tokens) = tf_greedy (%d tokens), steps kept",
                L->gen.n, g.n);
    decode_result_free(&g);
    trace_free(&tr);
    /* the beam tree: beam search runs a step a frame too, then shows the tree */
    ev_key(&a, KEY_ESCAPE, 0); /* leave the source line: keys are shortcuts */
    int t0 = L->bdec.t;
    ev_key(&a, 'b', 0);
    expect_true(d->pane == DEC_PANE_BEAM && L->bdec.t - t0 <= 1, "B shows the beam pane, %d steps at once",
                L->bdec.t - t0);
    int beam_frames = 0;
    while (L->beam_on && beam_frames < 100) {
        int t = L->bdec.t;
        tu_frame(&a);
        beam_frames++;
        expect_true(!L->beam_on || L->bdec.t - t <= 1, "a frame ran %d beam steps", L->bdec.t - t);
    }
    expect_true(!L->beam_on && L->beam.n > 0 && L->beam_err[0] == 0, "the tree is there after %d frames: %s",
                beam_frames, L->beam_err);
    printf("  beam %d: %d frames, a step each\n", L->beam_for_k, beam_frames);
    app_free(&a);
}

/* The experiment's pieces (the normal pass, the translation under the
 * experiment) a call may run: one, or more while their weight reads stay
 * within the budget; no decoding step of the targets either. */
#define WITHIN_BUDGET(a, what, call)                                                                     \
    do {                                                                                                 \
        unsigned p0_ = (a)->ses.ext.pieces, d0_ = (a)->ses.gdec.steps;                                    \
        double b0_ = (a)->ses.ext.bytes;                                                                 \
        call;                                                                                            \
        unsigned np_ = (a)->ses.ext.pieces - p0_;                                                        \
        double mb_ = ((a)->ses.ext.bytes - b0_) / (1024.0 * 1024.0);                                     \
        expect_true(np_ <= 1 || mb_ <= SES_DEC_FRAME_BYTES / (1024.0 * 1024.0),                          \
                    "%s ran %u pieces of the experiment reading %.1f MB (one, or within %.0f MB)", what, \
                    np_, mb_, SES_DEC_FRAME_BYTES / (1024.0 * 1024.0));                                  \
        expect_true((a)->ses.gdec.steps - d0_ <= 1, "%s ran %u decoding steps", what,                    \
                    (a)->ses.gdec.steps - d0_);                                                           \
        max_pieces = np_ > max_pieces ? np_ : max_pieces;                                                \
    } while (0)

/* Run frames and idle calls until the experiment's pieces are done; how
 * many calls it took. */
static int run_experiment(App *a, unsigned *max_pieces_out)
{
    unsigned max_pieces = 0;
    int calls = 0;
    while ((session_exp_pending(&a->ses) || app_idle_work(a) == 1) && calls < 400) {
        if (calls % 3 == 0)
            WITHIN_BUDGET(a, "a frame", tu_frame(a));
        else
            WITHIN_BUDGET(a, "an idle call", app_idle_work(a));
        calls++;
    }
    *max_pieces_out = max_pieces;
    return calls;
}

static void test_experiment_never_blocks(void **state)
{
    (void)state;
    static App a;
    open_base(&a, "matrix");
    char normal[SES_TEXT_MAX], buf[2 * SES_TEXT_MAX + 64];
    snprintf(normal, sizeof normal, "%s", a.ses.translation);
    expect_true(a.ses.ext.base_passes == 0 && !a.ses.ext.phase, "no experiment: no pieces");

    /* an experiment: the pass under it, then the pieces, a budget a call */
    TfExperiment e = {0};
    e.no_pe = 1;
    unsigned max_pieces = 0, p0 = a.ses.ext.pieces;
    WITHIN_BUDGET(&a, "setting the experiment", app_set_exp(&a, &e));
    int saw_pending = 0, calls = 0;
    while (!saw_pending && calls++ < 100) {
        if (calls % 2)
            WITHIN_BUDGET(&a, "a frame", tu_frame(&a));
        else
            WITHIN_BUDGET(&a, "an idle call", app_idle_work(&a));
        saw_pending = session_exp_pending(&a.ses) && a.ses.ext.phase == 1;
    }
    expect_true(saw_pending, "the normal pass is being made in pieces");
    expect_true(app_exp_status(&a, buf, sizeof buf) && strstr(buf, "→ …") != NULL,
                "the status line shows … while it is made: %s", buf);
    unsigned mp = 0;
    calls = run_experiment(&a, &mp);
    max_pieces = mp > max_pieces ? mp : max_pieces;
    unsigned pieces = a.ses.ext.pieces - p0;
    int n_base = a.ses.model.cfg.n_enc + a.ses.model.cfg.n_dec + 3;
    expect_true(!session_exp_pending(&a.ses) && a.ses.ext.base_passes == 1 && a.ses.ext.have_base,
                "the normal pass made once, the translation ready (%u passes)", a.ses.ext.base_passes);
    expect_true(pieces > (unsigned)n_base, "%u pieces: %d units of the normal pass and the decoding steps",
                pieces, n_base);
    printf("  the experiment: %u pieces in %d calls, at most %u a call\n", pieces, calls, max_pieces);

    /* the translation under the experiment is tf_greedy's under it */
    TfTrace tr;
    TfErr err;
    expect_true(trace_build(&tr, &a.ses.model.cfg, 1, 8, 0, &err) == 0, "trace");
    tr.exp = e;
    DecodeResult g;
    expect_true(tf_greedy(&a.ses.model, &tr, a.ses.src_ids[0], a.ses.src_n[0],
                          decode_max_out(&a.ses.model, &tr, a.ses.src_n[0]), 0, &g, &err) == 0,
                "greedy: %s", err.msg);
    char *want = NULL;
    expect_true(tf_text_decode(&a.ses.model, g.ids, g.n, &want, &err) >= 0, "text: %s", err.msg);
    expect_true(strcmp(want, a.ses.translation) == 0, "after: «%s», tf_greedy under the experiment: «%s»",
                a.ses.translation, want);
    free(want);
    decode_result_free(&g);
    trace_free(&tr);
    expect_true(app_exp_status(&a, buf, sizeof buf) && strstr(buf, normal) && strstr(buf, a.ses.translation) &&
                    !strstr(buf, "→ …"),
                "the status line: before → after: %s", buf);
    char after[SES_TEXT_MAX];
    snprintf(after, sizeof after, "%s", a.ses.translation);

    /* only the experiment changes: the kept normal pass, the translation in steps */
    e.no_scale = 1;
    WITHIN_BUDGET(&a, "another experiment", app_set_exp(&a, &e));
    WITHIN_BUDGET(&a, "the frame after it", tu_frame(&a));
    run_experiment(&a, &mp);
    expect_true(a.ses.ext.base_passes == 1 && !session_exp_pending(&a.ses),
                "still one normal pass (%u), the translation under the new experiment made", a.ses.ext.base_passes);

    /* the first experiment again: its translation was kept, nothing to decode */
    unsigned p1 = a.ses.ext.pieces;
    WITHIN_BUDGET(&a, "the first experiment again", app_set_exp(&a, &(TfExperiment){.no_pe = 1}));
    WITHIN_BUDGET(&a, "the frame after it", tu_frame(&a));
    run_experiment(&a, &mp);
    expect_true(!session_exp_pending(&a.ses) && a.ses.ext.pieces == p1 && strcmp(a.ses.translation, after) == 0,
                "the first experiment again: %u pieces, «%s» (want «%s»)", a.ses.ext.pieces - p1, a.ses.translation,
                after);

    /* an edit while the pieces run cancels them and starts over */
    WITHIN_BUDGET(&a, "a new experiment", app_set_exp(&a, &(TfExperiment){.no_scale = 1}));
    WITHIN_BUDGET(&a, "the frame after it", tu_frame(&a));
    calls = 0;
    while (!a.ses.ext.dec_on && calls++ < 100)
        WITHIN_BUDGET(&a, "an idle call", app_idle_work(&a));
    expect_true(a.ses.ext.dec_on, "the translation under the experiment is in flight");
    app_focus_line(&a, APP_LINE_SRC);
    WITHIN_BUDGET(&a, "typing", ev_text(&a, " t8"));
    WITHIN_BUDGET(&a, "the frame after it", tu_frame(&a));
    expect_true(!a.ses.ext.dec_on && session_exp_pending(&a.ses), "the edit cancelled it");
    run_experiment(&a, &mp);
    expect_true(a.ses.ext.base_passes == 2 && !session_exp_pending(&a.ses) && a.ses.src_n[0] == 4,
                "the new input: a new normal pass (%u), its translation", a.ses.ext.base_passes);
    app_free(&a);
}

/* The decode view's own generation (forced tokens, an experiment) runs a
 * step a frame too: each frame or key at most one of its steps (starting and
 * handing over count as one), the progress while it runs, a new forcing
 * cancels it, and the end equals tf_generate with the same forced tokens. */
#define VIEW_AT_MOST_ONE(a, d, what, call)                                                       \
    do {                                                                                         \
        unsigned g0_ = (L)->gen_steps, s0_ = (a)->ses.gdec.steps;                                 \
        call;                                                                                    \
        expect_true((L)->gen_steps - g0_ <= 1 && (a)->ses.gdec.steps - s0_ <= 1,                  \
                    "%s ran %u steps of the view's generation, %u of the session's (one at most)", \
                    what, (L)->gen_steps - g0_, (a)->ses.gdec.steps - s0_);                       \
    } while (0)

static void test_view_generation_never_blocks(void **state)
{
    (void)state;
    static App a;
    open_base(&a, "decode");
    DecodeUi *d = a.vstate[VIEW_DECODE];
    DecodeLab *L = dhost_lab(&a);
    expect_true(d && !L->pending && L->gen.n > 0 && !L->gen_on, "the session's decode is shown (%d tokens)",
                d ? L->gen.n : -1);
    ev_key(&a, KEY_ESCAPE, 0);
    /* force step 0 to a token the model did not choose */
    int tok = L->gen.ids[0] == 7 ? 8 : 7;
    dlab_force(L, 0, tok);
    int frames = 0, progress = 0;
    VIEW_AT_MOST_ONE(&a, d, "the frame after forcing", tu_frame(&a));
    expect_true(L->gen_on && L->pending, "the view generates step by step (step %d)", L->gdec.t);
    expect_true(app_next_wake_ms(&a) >= 0 && app_next_wake_ms(&a) <= 2, "the window asks for the next frame at once (in %d ms)",
                app_next_wake_ms(&a));
    for (int k = 0; k < 3; k++) {
        VIEW_AT_MOST_ONE(&a, d, "a frame", tu_frame(&a));
        progress += L->pending;
        frames++;
    }
    expect_true(progress == 3 && L->gen_on, "still generating after 4 frames, the progress shown");
    /* a new forcing while it runs: cancelled, started again */
    int tok2 = tok == 7 ? 9 : 10;
    dlab_force(L, 0, tok2);
    VIEW_AT_MOST_ONE(&a, d, "the frame after forcing again", tu_frame(&a));
    expect_true(L->gen_on && L->gdec.t == 0, "the new forcing starts from step 0 (step %d)", L->gdec.t);
    while (L->gen_on && frames < 200) {
        VIEW_AT_MOST_ONE(&a, d, "a frame", tu_frame(&a));
        if (frames % 3 == 0)
            VIEW_AT_MOST_ONE(&a, d, "a key", ev_key(&a, KEY_LEFT, 0));
        frames++;
    }
    expect_true(!L->gen_on && !L->pending && L->err[0] == 0, "done after %d frames: %s", frames, L->err);
    /* teacher forcing beside it is the view's own pass (forced tokens):
     * a budget of its pieces a frame, the progress shown meanwhile */
    unsigned passes = L->tf_passes;
    int tf_frames = 0;
    expect_true(L->tfo_on && L->tf_n == 0, "the view's teacher forcing runs after the generation");
    while (L->tfo_on && tf_frames < 100) {
        double b0 = L->tfo.bytes;
        unsigned p0 = L->tfo.pieces;
        VIEW_AT_MOST_ONE(&a, d, "a frame of teacher forcing", tu_frame(&a));
        double spent = L->tfo.bytes - b0;
        const char *png = getenv("TF_PROGRESS_PNG"); /* to look at the progress mark */
        if (png && tf_frames == 2) {
            TfErr e;
            ren_save_png(tu_ren, png, &e);
        }
        unsigned ran = L->tfo.pieces - p0;
        expect_true(ran <= 1 || spent <= SES_DEC_FRAME_BYTES,
                    "a frame ran %u pieces of teacher forcing, %.1f MB (budget %.0f MB)", ran, spent / 1048576,
                    SES_DEC_FRAME_BYTES / 1048576);
        tf_frames++;
    }
    expect_true(!L->tfo_on && L->tf_n > 0 && L->tf_passes == passes && tf_frames >= 4,
                "teacher forcing done in %d frames (%u passes begun)", tf_frames, L->tf_passes);
    TfTrace tr;
    TfErr err;
    expect_true(trace_build(&tr, &a.ses.model.cfg, 1, 8, 0, &err) == 0, "trace");
    DecodeOpts g;
    decode_opts_default(&g);
    g.n_force = 1;
    g.force[0] = (DecodeForce){0, tok2};
    DecodeResult r;
    expect_true(tf_generate(&a.ses.model, &tr, a.ses.src_ids[0], a.ses.src_n[0],
                            decode_max_out(&a.ses.model, &tr, a.ses.src_n[0]), 0, &g, &r, &err) == 0,
                "generate: %s", err.msg);
    expect_true(L->gen.n == r.n && memcmp(L->gen.ids, r.ids, (size_t)r.n * sizeof(int)) == 0 &&
                    L->gen.steps && L->gen.steps[0].forced && L->tf_n > 0,
                "the view's generation (%d tokens) = tf_generate's (%d), steps kept, teacher forcing beside it",
                L->gen.n, r.n);
    /* ... and its predictions and losses are tf_teacher_forced's on the generation */
    {
        int n = L->gen.n, pred[32], truth[32];
        float loss[32];
        if (n > 0 && L->gen.ids[n - 1] == cfg_eos_id(&a.ses.model.cfg))
            n--;
        if (n > a.ses.model.cfg.max_len - 1) /* as the view cuts it */
            n = a.ses.model.cfg.max_len - 1;
        expect_true(n < 31 && tf_teacher_forced(&a.ses.model, &tr, a.ses.src_ids[0], a.ses.src_n[0], L->gen.ids, n,
                                                pred, truth, loss, &err) == 0,
                    "teacher forced: %s", err.msg);
        expect_true(L->tf_n == n + 1 && memcmp(pred, L->tf_pred, (size_t)(n + 1) * sizeof(int)) == 0 &&
                        memcmp(loss, L->tf_loss, (size_t)(n + 1) * sizeof(float)) == 0,
                    "the view's teacher forcing in pieces (%d positions) = tf_teacher_forced's, bit for bit",
                    L->tf_n);
    }
    decode_result_free(&r);
    trace_free(&tr);
    /* a draw of the sampling pane: the same, a step a frame, then tf_translate's draw for its seed */
    d->pane = DEC_PANE_SAMPLE;
    d->smp.temp = 1.5f;
    uint64_t seed = L->smp.seed;
    VIEW_AT_MOST_ONE(&a, d, "N (sample)", ev_key(&a, 'n', 0));
    expect_true(L->smp.sdec_on, "the draw runs step by step");
    tu_frame(&a);
    expect_true(app_next_wake_ms(&a) >= 0 && app_next_wake_ms(&a) <= 2, "the window asks for the draw's next frame at once (in %d ms)",
                app_next_wake_ms(&a));
    int draw_frames = 0;
    while (L->smp.sdec_on && draw_frames++ < 100) {
        VIEW_AT_MOST_ONE(&a, d, "a frame of the draw", tu_frame(&a));
        const char *png = getenv("SAMPLE_PROGRESS_PNG"); /* to look at the draw's progress */
        if (png && draw_frames == 3) {
            TfErr e;
            ren_save_png(tu_ren, png, &e);
        }
    }
    expect_true(!L->smp.sdec_on && L->smp.n_samples == 1 && L->smp.sample_seed[0] == seed && draw_frames > 2,
                "drawn in %d frames (seed %llu)", draw_frames, (unsigned long long)L->smp.sample_seed[0]);
    expect_true(trace_build(&tr, &a.ses.model.cfg, 1, 8, 0, &err) == 0, "trace");
    decode_opts_default(&g);
    g.sample = 1;
    g.sampling = (SampleOpts){1.5f, 0, 1.0f};
    g.seed = seed;
    expect_true(tf_translate(&a.ses.model, &tr, a.ses.src_ids[0], a.ses.src_n[0], &g, &r, &err) == 0, "%s",
                err.msg);
    expect_true(r.n == L->smp.sample_n[0] && memcmp(r.ids, L->smp.sample_ids[0], (size_t)r.n * sizeof(int)) == 0,
                "the draw (%d tokens) is tf_translate's for seed %llu (%d tokens)", L->smp.sample_n[0],
                (unsigned long long)seed, r.n);
    /* the bars of another step: their pass over its prefix, a budget a frame */
    {
        DlabSample *m = &L->smp;
        int s = L->gen.n > 2 ? 2 : 0;
        if (d->sel == s)
            s = 1;
        dec_select(d, s);
        int bar_frames = 0;
        tu_frame(&a);
        expect_true(m->lg_on && m->logits_at < 0, "the bars wait for the pass over step %d's prefix", s);
        while (m->lg_on && bar_frames < 100) {
            double b0 = m->lgp.bytes;
            unsigned p0 = m->lgp.pieces;
            VIEW_AT_MOST_ONE(&a, d, "a frame of the bars' pass", tu_frame(&a));
            expect_true(m->lgp.pieces - p0 <= 1 || m->lgp.bytes - b0 <= SES_DEC_FRAME_BYTES,
                        "a frame ran %u pieces of the bars' pass, %.1f MB", m->lgp.pieces - p0,
                        (m->lgp.bytes - b0) / 1048576);
            bar_frames++;
        }
        expect_true(!m->lg_on && m->logits_at == s && bar_frames >= 3, "the bars after %d frames", bar_frames);
        int pred[32], truth[32];
        float loss[32];
        TfTrace t2;
        expect_true(trace_build(&t2, &a.ses.model.cfg, 1, 8, 0, &err) == 0 &&
                        tf_teacher_forced(&a.ses.model, &t2, a.ses.src_ids[0], a.ses.src_n[0], L->gen.ids, s, pred,
                                          truth, loss, &err) == 0,
                    "teacher forced: %s", err.msg);
        int V = a.ses.model.cfg.tgt_vocab;
        expect_true(memcmp(m->logits, t2.logits + (size_t)s * V, (size_t)V * sizeof(float)) == 0,
                    "the bars' logits are tf_teacher_forced's at step %d, bit for bit", s);
        trace_free(&t2);
    }
    decode_result_free(&r);
    trace_free(&tr);
    d->pane = DEC_PANE_GEN;
    /* under an experiment: the same, a step a frame */
    dlab_unforce(L);
    TfExperiment e = {0};
    e.no_pe = 1;
    VIEW_AT_MOST_ONE(&a, d, "setting the experiment", app_set_exp(&a, &e));
    int saw = 0;
    frames = 0;
    while (frames++ < 400 && (L->gen_on || !saw || session_exp_pending(&a.ses) || a.ses.units_done < 16)) {
        VIEW_AT_MOST_ONE(&a, d, "a frame", tu_frame(&a));
        saw += L->gen_on;
        int work; /* the window's idle call after each frame */
        VIEW_AT_MOST_ONE(&a, d, "an idle call", work = app_idle_work(&a));
        if (!L->gen_on && saw && work != 1)
            break;
    }
    expect_true(saw > 1 && !L->gen_on && L->gen.n > 0, "under the experiment: %d frames generating", saw);
    app_free(&a);
}

int main(void)
{
    TU_RUN(setup, teardown, cmocka_unit_test(test_never_blocks_longer_than_a_step),
           cmocka_unit_test(test_experiment_never_blocks), cmocka_unit_test(test_view_generation_never_blocks));
}
