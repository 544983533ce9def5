/* test_view_train_heads.c - the train view plots the entropy of every
 * probe head over training (the history itself is tested in
 * tests/session/test_train_probe.c): after a run the view is shown the
 * whole history, H switches the plot to tokens/s and back, a new run
 * starts an empty history; snapshots kept while no frame was drawn are run
 * one a frame, and the plots follow a frame late. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "test_app_util.h"
#include "test_util.h"
#include "train_host.h"

static char MODEL[160];

TU_FIXTURE(MODEL, "train-heads.safetensors", 1280, 800)

static const Rect AREA = {0, 0, 1000, 700};

static uint64_t region_sum(Rect rc) { return tu_pixel_hash(rc); }

static void test_entropy_history(void **state)
{
    (void)state;
    static App a;
    tu_open_train(&a, MODEL, 120);
    tu_view_frame(&a, tu_ren, VIEW_TRAIN, AREA);
    TrainUi *u = a.vstate[VIEW_TRAIN];
    TrainHost *th = a.train;
    const TpHeadHist *h = &th->probe.hh;
    const TrainShow *t = &th->show;
    expect_true(h->gen == th->probe.gen && h->n >= 3 && h->n >= th->st.n_snap, "%d points for %d snapshots", h->n,
                th->st.n_snap);
    expect_true(t->hh.n == h->n && t->hh.step == h->step && t->hh.H == &h->H[0][0][0] && t->hh.ver == h->ver &&
                    t->hh.heads[TV_CROSS] == th->probe.m.cfg.n_dec * th->probe.m.cfg.n_heads,
                "the view is shown the whole history (%d points, %d cross heads)", t->hh.n, t->hh.heads[TV_CROSS]);
    /* H: tokens/s instead, then the entropy again; the picture follows */
    Rect plots = {0, 200, AREA.w / 2, 300};
    uint64_t with = region_sum(plots);
    ev_key(&a, 'h', 0);
    expect_true(!u->show_hh, "H: tokens/s");
    tu_view_frame(&a, tu_ren, VIEW_TRAIN, AREA);
    uint64_t without = region_sum(plots);
    ev_key(&a, 'h', 0);
    tu_view_frame(&a, tu_ren, VIEW_TRAIN, AREA);
    expect_true(u->show_hh && with != without && region_sum(plots) == with, "the plot switches and back");
    /* a new run: a new history */
    int before = h->n;
    expect_true(app_train_setup(&a, "copy", 20) == 0, "a second run");
    tu_view_frame(&a, tu_ren, VIEW_TRAIN, AREA);
    expect_true(h->gen == th->probe.gen && h->n >= 1 && h->step[h->n - 1] == 20 && (h->n < before || h->step[0] == 0),
                "a fresh history for the new run (%d points)", h->n);
    app_free(&a);
}

/* The train view on a reverse run trained 150 steps while no frame was
 * drawn (its snapshots wait for the head-entropy curve); the view set up
 * by one frame first (a whole frame, or the view alone). */
/* Snapshots still wait for the head-entropy history. */
static int pending(const TrainHost *u)
{
    return tp_hh_pending(&u->probe, &u->st);
}

static TrainHost *trained_unseen(App *a, int whole_frame)
{
    TfErr err;
    tu_open_train(a, MODEL, 0);
    if (whole_frame)
        tu_frame(a);
    else
        tu_view_frame(a, tu_ren, VIEW_TRAIN, AREA);
    TrainHost *u = a->train;
    expect_true(tw_steps(u->w, 150, &err) == 0, "150 steps queued: %s", err.msg);
    tw_wait_idle(u->w);
    return u;
}

/* Snapshots kept while no frame was drawn (training ran, then paused):
 * a frame runs at most one of them through the probe, asks for the next
 * frame at once while some wait, and the curve is whole a frame per
 * snapshot later, each point once. */
static void test_history_fills_a_snapshot_a_frame(void **state)
{
    (void)state;
    static App a;
    TrainHost *u = trained_unseen(&a, 1);
    const TpHeadHist *h = &u->probe.hh;
    int before = h->n;
    tu_frame(&a);
    int first = h->n - before;
    expect_true(u->st.step == 150 && u->st.n_snap >= 10, "trained to step %lld, %d snapshots kept", u->st.step,
                u->st.n_snap);
    expect_true(first >= 1 && first <= 2, "the first frame runs the live probe and one snapshot at most: %d points",
                first);
    expect_true(pending(u) && a.wake_at > 0 && a.wake_at <= a.now, "with snapshots waiting, the next frame "
                "is asked for at once (wake at %.3f, now %.3f)", a.wake_at, a.now);
    int frames = 1;
    while (pending(u) && frames < 3 * TW_SNAP_CAP) {
        int n = h->n;
        tu_frame(&a);
        frames++;
        expect_true(h->n - n <= 1, "one snapshot a frame: %d points in frame %d", h->n - n, frames);
    }
    expect_true(!pending(u) && h->n >= u->st.n_snap, "whole after %d frames: %d points for %d snapshots",
                frames, h->n, u->st.n_snap);
    for (int i = 1; i < h->n; i++)
        expect_true(h->step[i] > h->step[i - 1], "sorted, each once (%lld, %lld)", h->step[i - 1], h->step[i]);
    app_free(&a);
}

/* A frame that runs a snapshot through the probe leaves redrawing the
 * plots for its new point to the next frame (one costly thing a frame),
 * which asks for it at once: the plots lag one frame at most, and the
 * frame that leaves them draws less than the one that redraws them. */
static void test_plots_follow_a_frame_late(void **state)
{
    (void)state;
    static App a;
    TrainHost *u = trained_unseen(&a, 0);
    const TpHeadHist *h = &u->probe.hh;
    tu_view_frame(&a, tu_ren, VIEW_TRAIN, AREA); /* new curves and the live probe */
    expect_true(u->hh_shown == h->ver, "a frame with new curves draws the plots whole");
    int late = 0, frames = 0;
    while (pending(u) && frames++ < 3 * TW_SNAP_CAP) {
        unsigned ver = h->ver;
        int was_late = u->hh_late;
        tu_view_frame(&a, tu_ren, VIEW_TRAIN, AREA);
        int calls = ren_draw_calls(tu_ren);
        if (h->ver == ver)
            continue;
        if (was_late) {
            expect_true(u->hh_shown == h->ver, "a frame after a late one draws the plots (frame %d)", frames);
            continue;
        }
        late++;
        expect_true(u->hh_shown != h->ver && a.wake_at <= a.now, "a snapshot's frame leaves the plots to the "
                    "next one, asked for at once (frame %d)", frames);
        if (!pending(u)) { /* the last one: the next frame only redraws */
            tu_view_frame(&a, tu_ren, VIEW_TRAIN, AREA);
            expect_true(u->hh_shown == h->ver && ren_draw_calls(tu_ren) > calls,
                        "the next frame redraws the plots (%d calls, %d)", ren_draw_calls(tu_ren), calls);
        }
    }
    expect_true(late >= 1, "%d snapshot frames left the plots", late);
    tu_view_frame(&a, tu_ren, VIEW_TRAIN, AREA);
    expect_true(u->hh_shown == h->ver && !u->hh_late, "settled: the plots show the whole history");
    app_free(&a);
}

int main(void)
{
    TU_RUN(setup, teardown,
           cmocka_unit_test(test_entropy_history),
           cmocka_unit_test(test_history_fills_a_snapshot_a_frame),
           cmocka_unit_test(test_plots_follow_a_frame_late));
}
