/* test_view_train_heads.c - the train view plots the entropy of every
 * probe head over training (the history itself is tested in
 * tests/session/test_train_probe.c): after a run the view is shown the
 * whole history, H switches the plot to tokens/s and back, a new run
 * starts an empty history; snapshots kept while no frame was drawn are in
 * the history at the first frame (the worker ran them as it kept them),
 * and while training a frame that takes a new pass leaves the plots of
 * the history that came with it to the next frame. */
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
    const TpHeadHist *h = &th->st.probe.hh;
    const TrainShow *t = &th->show;
    expect_true(h->gen == th->st.gen && h->n >= 3 && h->n >= th->st.n_snap, "%d points for %d snapshots", h->n,
                th->st.n_snap);
    expect_true(t->hh.n == h->n && t->hh.step == h->step && t->hh.H == &h->H[0][0][0] && t->hh.ver == h->ver &&
                    t->hh.heads[TV_CROSS] == th->st.cfg.n_dec * th->st.cfg.n_heads,
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
    expect_true(h->gen == th->st.gen && h->n >= 1 && h->step[h->n - 1] == 20 && (h->n < before || h->step[0] == 0),
                "a fresh history for the new run (%d points)", h->n);
    app_free(&a);
}

/* The train view on a reverse run trained 150 steps while no frame was
 * drawn; the view set up by one frame first. Its first frame after shows
 * the whole history: the worker ran every snapshot as it kept it, and the
 * frame ran nothing. */
static void test_history_whole_at_the_first_frame(void **state)
{
    (void)state;
    static App a;
    TfErr err;
    tu_open_train(&a, MODEL, 0);
    tu_frame(&a);
    TrainHost *u = a.train;
    expect_true(tw_steps(u->w, 150, &err) == 0, "150 steps queued: %s", err.msg);
    tw_wait_idle(u->w);
    tu_frame(&a);
    const TpHeadHist *h = &u->st.probe.hh;
    expect_true(u->st.step == 150 && u->st.n_snap >= 10, "trained to step %lld, %d snapshots kept", u->st.step,
                u->st.n_snap);
    expect_true(h->n >= u->st.n_snap && h->step[h->n - 1] == 150 && u->show.hh.n == h->n,
                "the first frame shows the whole history: %d points for %d snapshots", h->n, u->st.n_snap);
    for (int i = 0; i < u->st.n_snap; i++) {
        int found = 0;
        for (int k = 0; k < h->n; k++)
            found |= h->step[k] == u->st.snaps[i].step;
        expect_true(found, "snapshot %lld has its point", u->st.snaps[i].step);
    }
    for (int i = 1; i < h->n; i++)
        expect_true(h->step[i] > h->step[i - 1], "sorted, each once (%lld, %lld)", h->step[i - 1], h->step[i]);
    app_free(&a);
}

/* While training, a frame with new curves leaves the new pass to the next
 * frame, asked for at once; that frame takes it, and when the history
 * came with it, leaves redrawing the plots for it to the frame after
 * (one costly redraw a frame), which draws them. */
static void test_plots_follow_a_frame_late(void **state)
{
    (void)state;
    static App a;
    tu_open_train(&a, MODEL, 10);
    tu_view_frame(&a, tu_ren, VIEW_TRAIN, AREA);
    TrainHost *u = a.train;
    app_train_play(&a, 1);
    int late = 0, followed = 0, frames = 0;
    for (int i = 0; i < 4000 && (late < 3 || followed < 3); i++) {
        struct timespec ts = {0, 3000000};
        nanosleep(&ts, NULL);
        int was_late = u->hh_late;
        tu_view_frame(&a, tu_ren, VIEW_TRAIN, AREA);
        frames++;
        unsigned ver = u->st.probe.hh.ver;
        if (was_late) {
            expect_true(u->hh_shown == ver || u->hh_late, "a frame after a late one draws the plots (frame %d)",
                        frames);
            followed += u->hh_shown == ver;
        }
        if (u->hh_late) {
            late++;
            expect_true(u->ran_pass && a.wake_at <= a.now, "a frame that took a pass left the plots to the next "
                        "one, asked for at once (frame %d)", frames);
        }
    }
    app_train_play(&a, 0);
    printf("  %d frames: %d left the plots to the next, %d drew them after\n", frames, late, followed);
    expect_true(late >= 3 && followed >= 3, "training went on: %d frames left the plots, %d followed", late, followed);
    app_free(&a);
}

int main(void)
{
    TU_RUN(setup, teardown,
           cmocka_unit_test(test_entropy_history),
           cmocka_unit_test(test_history_whole_at_the_first_frame),
           cmocka_unit_test(test_plots_follow_a_frame_late));
}
