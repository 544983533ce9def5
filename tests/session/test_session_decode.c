/* test_session_decode.c - the window never freezes while it decodes: with a
 * random model of preset base, no event, frame or idle call runs more than
 * one decoding step (steps counted, not wall time), typing cancels the
 * decoding in flight, the decode view shows the progress and then the
 * session's own decode, which equals tf_greedy. */
#include <stdlib.h>
#include <string.h>

#include "test_app_util.h"
#include "test_util.h"
#include "view_decode.h"

static char MODEL[256];
TU_FIXTURE(MODEL, "session_decode.safetensors", 640, 400)

/* A random model of preset base (512/8/2048/6+6) with a small vocabulary
 * and max_len 16 (so a sentence decodes in at most 16 steps). */
static void base_model(TfModel *m)
{
    TfErr err;
    TfConfig c;
    expect_true(cfg_preset(&c, "base", &err) == 0, "preset");
    c.src_vocab = c.tgt_vocab = 40;
    c.tie = TF_TIE_ALL;
    c.max_len = 16;
    expect_true(model_init_random(m, &c, 3, &err) == 0, "model: %s", err.msg);
}

/* Steps run by fn on a: at most one. */
#define AT_MOST_ONE_STEP(a, what, call)                                                      \
    do {                                                                                     \
        unsigned before_ = (a)->ses.dec_steps;                                               \
        call;                                                                                \
        unsigned ran_ = (a)->ses.dec_steps - before_;                                        \
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
    a.ses.lazy = 1; /* as the window runs */
    unsigned max_steps = 0;
    a.focus = FOCUS_SRC;
    a.cursor = (int)strlen(a.ses.src_line);
    AT_MOST_ONE_STEP(&a, "typing", ev_text(&a, " t6 t7"));
    int frames = 0, idles = 0, progress_seen = 0;
    for (int k = 0; k < 4; k++) {
        AT_MOST_ONE_STEP(&a, "a frame", tu_frame(&a));
        frames++;
        AT_MOST_ONE_STEP(&a, "an idle call", app_idle_work(&a));
        idles++;
        DecodeUi *d = a.vstate[VIEW_DECODE];
        progress_seen += d && d->pending;
    }
    expect_true(session_decoding(&a.ses, NULL, NULL), "still decoding after 8 steps of 16 at most");
    expect_true(progress_seen > 0, "the decode view showed the progress");
    const char *png = getenv("KV_PROGRESS_PNG"); /* to look at the progress mark */
    if (png) {
        TfErr e;
        ren_save_png(tu_ren, png, &e);
    }
    /* an edit cancels the decoding in flight and starts the new sentence */
    unsigned before = a.ses.dec_steps;
    AT_MOST_ONE_STEP(&a, "typing during a decode", ev_text(&a, " t8"));
    AT_MOST_ONE_STEP(&a, "the frame after it", tu_frame(&a));
    expect_true(a.ses.src_n[0] == 4 && a.ses.dec_on && a.ses.dec.t == 0,
                "the new sentence of 4 tokens is being decoded from its first step (step %d)", a.ses.dec.t);
    int guard = 0;
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
           a.ses.dec_steps - before, frames, idles, max_steps);
    while (app_idle_work(&a) == 1)
        ;
    tu_frame(&a);
    DecodeUi *d = a.vstate[VIEW_DECODE];
    TfTrace tr;
    TfErr err;
    expect_true(trace_build(&tr, &a.ses.model.cfg, 1, 8, 0, &err) == 0, "trace");
    DecodeResult g;
    int max_out = decode_max_out(&a.ses.model, &tr, a.ses.src_n[0]);
    expect_true(tf_greedy(&a.ses.model, &tr, a.ses.src_ids[0], a.ses.src_n[0], max_out, 0, &g, &err) == 0,
                "greedy: %s", err.msg);
    expect_true(!d->pending && d->gen.n == g.n && memcmp(d->gen.ids, g.ids, (size_t)g.n * sizeof(int)) == 0 &&
                    d->gen.steps != NULL,
                "the view shows the session's decode (%d tokens) = tf_greedy (%d tokens), steps kept",
                d->gen.n, g.n);
    decode_result_free(&g);
    trace_free(&tr);
    /* the beam tree: beam search runs a step a frame too, then shows the tree */
    ev_key(&a, KEY_ESCAPE, 0); /* leave the source line: keys are shortcuts */
    int t0 = d->bdec.t;
    ev_key(&a, 'b', 0);
    expect_true(d->pane == DEC_PANE_BEAM && d->bdec.t - t0 <= 1, "B shows the beam pane, %d steps at once",
                d->bdec.t - t0);
    int beam_frames = 0;
    while (d->beam_on && beam_frames < 100) {
        int t = d->bdec.t;
        tu_frame(&a);
        beam_frames++;
        expect_true(!d->beam_on || d->bdec.t - t <= 1, "a frame ran %d beam steps", d->bdec.t - t);
    }
    expect_true(!d->beam_on && d->beam.n > 0 && d->beam_err[0] == 0, "the tree is there after %d frames: %s",
                beam_frames, d->beam_err);
    printf("  beam %d: %d frames, a step each\n", d->beam_for_k, beam_frames);
    app_free(&a);
}

int main(void)
{
    TU_RUN(setup, teardown, cmocka_unit_test(test_never_blocks_longer_than_a_step));
}
