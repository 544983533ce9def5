/* test_session_pace.c - the window runs the pass within a budget a call
 * (session_pace.c): with a random model of preset base and its 37,000-token
 * vocabulary, after an edit no frame or idle call of the decode view runs
 * more than one budget of the pass's pieces (costs counted, not wall
 * time), the output projection is computed a few rows a piece, the
 * decoder takes the pass's encoder output for a single sentence (and
 * encodes a sentence of a batch a layer a piece), the decode view says
 * teacher forcing is not ready until the pass is there, and then every
 * number is the one a whole pass, `translate` and tf_teacher_forced give;
 * the same for a stage deep in the model (issue 28, item 22): the frame
 * after an edit runs one budget at most and says it is computing, the
 * idle calls finish the stage and ask for the frame that draws it. */
#include <stdlib.h>
#include <string.h>

#include "test_app_util.h"
#include "test_util.h"
#include "decode_host.h"
#include "view_decode.h"

static char MODEL[256];
TU_FIXTURE(MODEL, "session_pace.safetensors", 640, 400)

/* What one call may cost: the budget, or one piece, which is at most about
 * one decoding step. */
static double call_cap(const App *a)
{
    double step = kv_step_bytes(&a->ses.model.cfg);
    return step > SES_DEC_FRAME_BYTES ? step : SES_DEC_FRAME_BYTES;
}

typedef struct Seen {
    int calls, tf_wait, dec_enc, out_pieces;
    double max_mb;
} Seen;

/* One call (a frame, an idle call or an event) within the budget. */
#define ONE_BUDGET(a, sn, what, call)                                                                   \
    do {                                                                                                \
        unsigned p0_ = (a)->ses.pieces;                                                                 \
        double w0_ = (a)->ses.work;                                                                     \
        int rows0_ = (a)->ses.out_rows;                                                                 \
        call;                                                                                           \
        unsigned np_ = (a)->ses.pieces - p0_;                                                           \
        double mb_ = ((a)->ses.work - w0_) / 1e6;                                                       \
        expect_true((np_ <= 1 || mb_ <= SES_DEC_FRAME_BYTES / 1e6) && mb_ <= call_cap(a) / 1e6,         \
                    "%s ran %u pieces costing %.1f MB (one, or within %.1f MB; never over %.1f MB)", what, \
                    np_, mb_, SES_DEC_FRAME_BYTES / 1e6, call_cap(a) / 1e6);                            \
        (sn)->calls++;                                                                                  \
        (sn)->max_mb = mb_ > (sn)->max_mb ? mb_ : (sn)->max_mb;                                         \
        (sn)->out_pieces += (a)->ses.out_rows > rows0_;                                                 \
        (sn)->dec_enc += (a)->ses.gdec.enc > 0;                                                          \
    } while (0)

/* Frames and idle calls, as the window runs them, until the pass and the
 * decode view are complete. */
static void run_paced(App *a, Seen *sn)
{
    DecodeUi *d = a->vstate[VIEW_DECODE];
    DecodeLab *L = dhost_lab(a);
    int guard = 0;
    while (guard++ < 400) {
        ONE_BUDGET(a, sn, "a frame", tu_frame(a));
        d = a->vstate[VIEW_DECODE];
        L = dhost_lab(a);
        sn->tf_wait += d && L->tf_wait;
        const char *png = getenv("TF_WAIT_PNG"); /* to look at the mark */
        if (png && d && L->tf_wait && sn->tf_wait == 2) {
            TfErr e;
            ren_save_png(tu_ren, png, &e);
        }
        if (session_pass_ready(&a->ses, NULL, NULL) && d && !L->pending && !L->tf_wait)
            break;
        ONE_BUDGET(a, sn, "an idle call", app_idle_work(a));
    }
    expect_true(session_pass_ready(&a->ses, NULL, NULL) && d && !L->tf_wait && L->err[0] == 0,
                "the pass and the view are complete after %d calls: %s", sn->calls, d ? L->err : "");
}

/* Sentence i's greedy target in the session is what `translate` makes. */
static void expect_translate(App *a, int i)
{
    TfTrace tr;
    TfErr err;
    const TfModel *m = &a->ses.model;
    expect_true(trace_build(&tr, &m->cfg, 1, 8, 0, &err) == 0, "trace");
    DecodeOpts o;
    decode_opts_default(&o);
    DecodeResult r;
    expect_true(tf_translate(m, &tr, a->ses.src_ids[i], a->ses.src_n[i], &o, &r, &err) == 0, "%s", err.msg);
    int n = r.n > 0 && r.ids[r.n - 1] == cfg_eos_id(&m->cfg) ? r.n - 1 : r.n;
    int cap = m->cfg.max_len < SES_CAP_T ? m->cfg.max_len : SES_CAP_T;
    if (n > cap - 1) /* the decoder input holds <bos> and at most cap - 1 of them */
        n = cap - 1;
    expect_true(a->ses.tgt_n[i] == n + 1 && memcmp(a->ses.tgt_ids[i] + 1, r.ids, (size_t)n * sizeof(int)) == 0,
                "sentence %d: the session's greedy target (%d tokens) = translate's (%d)", i, a->ses.tgt_n[i] - 1, n);
    decode_result_free(&r);
    trace_free(&tr);
}

static void test_paced_pass(void **state)
{
    (void)state;
    static App a;
    AppOpts o = tu_opts(MODEL, "t5 t6 t7 t8 t9", NULL, "decode");
    tu_open(&a, &o, 100);
    TfModel m; /* V 37000 and max_len 24: the output has up to 24 rows, more than one piece */
    tu_base_model(&m, 37000, 24, 7);
    expect_true(app_use_model(&a, &m, "base") == 0, "the base model is used");
    session_set_lazy(&a.ses, 1); /* as the window runs */
    Seen first = {0};
    run_paced(&a, &first);

    /* an edit: every call within the budget until the view is complete */
    app_focus_line(&a, APP_LINE_SRC);
    Seen sn = {0};
    ONE_BUDGET(&a, &sn, "typing", ev_text(&a, " t10"));
    run_paced(&a, &sn);
    printf("  after the edit: %d calls, at most %.1f MB a call (a step %.1f MB), output in %d pieces\n",
           sn.calls, sn.max_mb, kv_step_bytes(&a.ses.model.cfg) / 1e6, sn.out_pieces);
    const TfConfig *c = &a.ses.model.cfg;
    expect_true(sn.out_pieces >= 2, "the output projection over %d rows ran in %d pieces", a.ses.trace.T,
                sn.out_pieces);
    expect_true(sn.dec_enc == 0, "one sentence: the decoder took the pass's encoder output (%d encoder pieces)",
                sn.dec_enc);
    expect_true(sn.tf_wait > 0, "the decode view said teacher forcing was not ready (%d frames)", sn.tf_wait);
    expect_translate(&a, 0);

    /* the pass in pieces is a whole pass, bit for bit */
    TfTrace full;
    TfErr err;
    expect_true(trace_build(&full, c, 1, 8, TRACE_RECORD, &err) == 0, "trace");
    TfBatch b = {1, a.ses.pad.S, a.ses.pad.T, a.ses.pad.src, a.ses.pad.tgt, a.ses.src_n, a.ses.tgt_n};
    expect_true(tf_forward(&a.ses.model, &full, &b, 0, &err) == 0, "%s", err.msg);
    expect_true(full.T == a.ses.trace.T, "same length %d = %d", full.T, a.ses.trace.T);
    check_close("probs in pieces vs a whole pass", a.ses.trace.probs, full.probs, (size_t)full.T * c->tgt_vocab, 0, 0);

    /* the decode view's teacher forcing (read from the pass) = tf_teacher_forced */
    DecodeLab *L = dhost_lab(&a);
    int n = L->tf_n - 1, pred[DEC_CAP_T], truth[DEC_CAP_T];
    float loss[DEC_CAP_T];
    expect_true(n >= 0 && tf_teacher_forced(&a.ses.model, &full, L->src, L->S, L->tf_in + 1, n, pred, truth, loss,
                                            &err) == 0,
                "teacher forcing: %s", err.msg);
    expect_true(memcmp(pred, L->tf_pred, (size_t)(n + 1) * sizeof *pred) == 0 &&
                    memcmp(truth, L->tf_truth, (size_t)(n + 1) * sizeof *truth) == 0,
                "the view's predictions are tf_teacher_forced's (%d positions)", n + 1);
    check_close("the view's losses vs tf_teacher_forced", L->tf_loss, loss, (size_t)n + 1, 0, 0);
    trace_free(&full);

    /* a batch of two: sentence 1's source is encoded for its decoding a
     * layer a piece (the pass's rows are padded); same translations */
    Seen bn = {0};
    ONE_BUDGET(&a, &bn, "typing a second sentence", ev_text(&a, " | t11 t12"));
    run_paced(&a, &bn);
    expect_true(a.ses.n_src == 2 && bn.dec_enc > 0, "a batch of %d: the decoder's encoder ran in pieces (%d calls)",
                a.ses.n_src, bn.dec_enc);
    expect_translate(&a, 0);
    expect_translate(&a, 1);
    printf("  a batch of two: %d calls, at most %.1f MB a call\n", bn.calls, bn.max_mb);
    app_free(&a);
}

/* A stage of the last decoder layer of a base model after an edit: the
 * frame runs one budget of the pass at most (it used to run every layer
 * the stage needs, twelve of them, before it drew) and draws the
 * "computing" cue instead of the stage; each idle call runs one budget;
 * the one that completes the stage returns 2 (draw); the next frame draws
 * the view, with the numbers of a whole pass. */
static void test_deep_stage_paced(void **state)
{
    (void)state;
    static App a;
    AppOpts o = tu_opts(MODEL, "t5 t6 t7 t8 t9", "t6 t7 t8", NULL);
    tu_open(&a, &o, 100);
    TfModel m;
    tu_base_model(&m, 37000, 24, 7);
    expect_true(app_use_model(&a, &m, "base") == 0, "the base model is used");
    session_set_lazy(&a.ses, 1); /* as the window runs */
    const TfConfig *c = &a.ses.model.cfg;
    app_goto(&a, ST_DEC_CROSS_WEIGHTS, c->n_dec - 1);
    tu_frame(&a);
    while (app_idle_work(&a) == 1)
        ;
    tu_frame(&a);
    expect_true(app_stage_ready(&a) && !a.drawn.computing, "settled: the stage is drawn");
    app_focus_line(&a, APP_LINE_SRC);
    Seen sn = {0};
    ONE_BUDGET(&a, &sn, "typing", ev_text(&a, " t10"));
    ONE_BUDGET(&a, &sn, "the frame after the edit", tu_frame(&a));
    expect_true(!app_stage_ready(&a) && a.drawn.computing,
                "the frame did not compute the %d layers the stage needs: it says it is computing (%d units done)",
                c->n_enc + c->n_dec, a.ses.units_done);
    const char *dir = getenv("COMPUTING_PNG_DIR"); /* to look at the cue: its frames, in both languages */
    for (int i = 0; dir && i < 4; i++) {
        char path[512];
        TfErr e;
        int w = i < 2 ? 1280 : 800, h = i < 2 ? 800 : 600;
        ren_resize_headless(tu_ren, w, h);
        a.look.lang = i % 2;
        tu_frame(&a);
        snprintf(path, sizeof path, "%s/computing-%dx%d-%s.png", dir, w, h, i % 2 ? "zh" : "en");
        expect_true(a.drawn.computing && ren_save_png(tu_ren, path, &e) == 0, "%s: %s", path, e.msg);
    }
    if (dir) {
        ren_resize_headless(tu_ren, 640, 400);
        a.look.lang = 0;
    }
    int calls = 0, work = 1;
    while (work == 1 && calls < 200) {
        ONE_BUDGET(&a, &sn, "an idle call", work = app_idle_work(&a));
        calls++;
        if (work == 1)
            expect_true(!app_stage_ready(&a), "an idle call that leaves the stage unfinished asks for no frame");
    }
    expect_true(work == 2 && app_stage_ready(&a) && calls >= 2,
                "the idle call that finished the stage asks for a frame (after %d calls)", calls);
    tu_frame(&a);
    expect_true(!a.drawn.computing, "that frame draws the stage");
    while (app_idle_work(&a) == 1)
        ;
    TfTrace full;
    TfErr err;
    expect_true(trace_build(&full, c, 1, 8, TRACE_RECORD, &err) == 0, "trace");
    TfBatch b = {1, a.ses.pad.S, a.ses.pad.T, a.ses.pad.src, a.ses.pad.tgt, a.ses.src_n, a.ses.tgt_n};
    expect_true(tf_forward(&a.ses.model, &full, &b, 0, &err) == 0, "%s", err.msg);
    TfView pv, fv;
    expect_true(tf_view(&a.ses.trace, ST_DEC_CROSS_WEIGHTS, c->n_dec - 1, 0, 0, &pv, &err) == 0 &&
                    tf_view(&full, ST_DEC_CROSS_WEIGHTS, c->n_dec - 1, 0, 0, &fv, &err) == 0 && pv.rows == fv.rows &&
                    pv.cols == fv.cols,
                "the stage's shape: %s", err.msg);
    int same = 1;
    for (int r = 0; r < pv.rows; r++)
        for (int k = 0; k < pv.cols; k++)
            same &= tf_view_at(&pv, r, k) == tf_view_at(&fv, r, k);
    expect_true(same, "the stage computed in pieces is the whole pass's, bit for bit");
    printf("  a stage of the last decoder layer: %d idle calls, at most %.1f MB a call\n", calls, sn.max_mb);
    trace_free(&full);
    app_free(&a);
}

/* A click on the Source line's × (drawn after the view, so the view of
 * that frame is of the text before): the frames after it show the empty
 * input's error and say so (App.drawn: the error, of the session's version,
 * no computing cue left up), and the sentence shown is one there is; both
 * while a base model's deep stage is still being computed (the cue) and in
 * the Decode tab, whose pass is paced (the idle calls run all of it). */
static void test_clear_while_computing(void **state)
{
    (void)state;
    static App a;
    AppOpts o = tu_opts(MODEL, "t5 t6 | t7 t8 | t9 t10", NULL, NULL);
    tu_open(&a, &o, 100);
    TfModel m;
    tu_base_model(&m, 37000, 24, 7);
    expect_true(app_use_model(&a, &m, "base") == 0, "the base model is used");
    session_set_lazy(&a.ses, 1); /* as the window runs */
    for (int pass = 0; pass < 2; pass++) {
        const char *where = pass ? "the Decode tab" : "a deep stage being computed";
        app_set_text(&a, APP_LINE_SRC, "t5 t6 | t7 t8 | t9 t10");
        app_goto(&a, ST_DEC_CROSS_WEIGHTS, a.ses.model.cfg.n_dec - 1);
        a.view = pass ? VIEW_DECODE : VIEW_AUTO;
        expect_true(session_set_batch(&a.ses, 2), "%s: the third sentence shown", where);
        tu_drawn_frame(&a, tu_ren);
        int x = tu_drawn_find("×", "clear");
        expect_true(x >= 0, "%s: the Source line's × is drawn", where);
        if (!pass)
            expect_true(a.drawn.what == DRAWN_COMPUTING && a.drawn.computing, "%s: the cue is up (drew %d)", where,
                        a.drawn.what);
        Rect b = tu_drawn.box[x];
        tu_click(&a, b.x + b.w / 2, b.y + b.h / 2);
        for (int k = 0; k < 3 && a.redraw_soon; k++)
            tu_frame(&a);
        expect_true(a.ses.src_line[0] == 0 && a.ses.input_error[0], "%s: the × cleared the line (error '%s')", where,
                    a.ses.input_error);
        expect_true(a.drawn.what == DRAWN_ERROR && a.drawn.version == a.ses.version && !a.drawn.computing,
                    "%s: the view's area shows the error of version %llu (it showed %d of version %llu, cue %d)",
                    where, (unsigned long long)a.ses.version, a.drawn.what, (unsigned long long)a.drawn.version,
                    a.drawn.computing);
        expect_true(a.ses.batch == 0, "%s: the sentence shown is the one line left (%d)", where, a.ses.batch);
        expect_true(!session_set_batch(&a.ses, 2) && a.ses.batch == 0,
                    "%s: and a sentence tab drawn before the × cannot pick the third (%d)", where, a.ses.batch);
    }
    app_free(&a);
}

int main(void)
{
    TU_RUN(setup, teardown, cmocka_unit_test(test_paced_pass), cmocka_unit_test(test_deep_stage_paced),
           cmocka_unit_test(test_clear_while_computing));
}
