/* test_view_frames.c - views that keep what does not move in a cached
 * layer (the mask's cells, hatching, labels, legend and sum panel) redraw
 * a frame in which only the mouse moved from that layer: few drawing
 * calls instead of one or more per cell, and exactly the pixels drawing
 * it all again gives (the same frame with the layers off: a text hook is
 * set). With the hook set every string is drawn, and reported, in every
 * frame, also the ones a layer held in the frame before. */
#include <string.h>
#include <time.h>

#include "app.h"
#include "test_app_util.h"
#include "train_host.h"
#include "test_util.h"

static char MODEL[160];

TU_FIXTURE(MODEL, "view-frames.safetensors", 1000, 800)

static const Rect AREA = {0, 0, 1000, 800};

typedef struct Seen {
    int n, legend;
} Seen;

static void on_text(void *user, const char *utf8, int len, Rect box, const char *tag)
{
    (void)box;
    (void)tag;
    Seen *s = user;
    s->n++;
    if ((len >= 4 && memcmp(utf8, "0 ·", 4) == 0) || (len >= 9 && memcmp(utf8, "−∞ ·", 9) == 0))
        s->legend++; /* the legend's words, in the layer */
}

/* One frame of the view with the mouse at (x, y): its drawing calls and
 * the hash of its pixels. */
static int frame_at(App *a, ViewId id, int x, int y, uint64_t *hash)
{
    a->ui.in.mx = x;
    a->ui.in.my = y;
    a->now += 0.1;
    tu_view_frame(a, tu_ren, id, AREA);
    int calls = ren_draw_calls(tu_ren);
    *hash = tu_pixel_hash(AREA);
    ren_end(tu_ren);
    return calls;
}

/* Frames with the mouse on a grid over the view, each drawn from the
 * layers and then again with them off: how many differ (the first few
 * printed); *cached and *direct get the last pair's drawing calls. */
static int differ_over_grid(App *a, ViewId id, int *cached, int *direct)
{
    uint64_t h1, h2;
    int differ = 0;
    for (int y = 40; y < AREA.h; y += 95)
        for (int x = 30; x < AREA.w; x += 120) {
            *cached = frame_at(a, id, x, y, &h1);
            ren_text_hook(on_text, &(Seen){0});
            *direct = frame_at(a, id, x, y, &h2);
            ren_text_hook(NULL, NULL);
            if (h1 != h2 && differ++ < 4)
                printf("  mouse at (%d, %d): the layers' frame differs from drawing it again\n", x, y);
        }
    return differ;
}

/* The decoder's mask of a batch of two sentences (the short one padded). */
static void open_mask(App *a)
{
    AppOpts o = tu_opts(MODEL, NULL, NULL, NULL);
    o.src[0] = "t5 t6";
    o.src[1] = "t5 t6 t7 t8 t9 t10 t11";
    o.n_src = 2;
    o.stage = "dec.self.mask";
    tu_open(a, &o, 100);
    a->anim_start = 0;
}

static void test_mask_redraws_from_its_layer(void **state)
{
    (void)state;
    static App a;
    open_mask(&a);
    expect_true(app_current_view(&a) == VIEW_MASK, "the mask view, got view %d", app_current_view(&a));
    uint64_t h1, h2, h3;
    int fresh = frame_at(&a, VIEW_MASK, 300, 300, &h1);
    int cached = frame_at(&a, VIEW_MASK, 340, 330, &h2);
    Seen seen = {0};
    ren_text_hook(on_text, &seen);
    int direct = frame_at(&a, VIEW_MASK, 340, 330, &h3);
    ren_text_hook(NULL, NULL);
    printf("  drawing calls: %d fresh, %d from the layer, %d drawn again\n", fresh, cached, direct);
    expect_true(direct > 300 && cached * 4 < direct,
                "the second frame copies the layer: %d drawing calls, against %d drawn again", cached, direct);
    expect_true(h2 == h3, "the layer gives the pixels drawing it again does");
    expect_true(h1 != h2, "the mouse moved, the hover mark with it");
    expect_true(seen.legend == 4, "with a text hook the strings a layer held are drawn and reported: %d of "
                "the legend's 4 entries", seen.legend);
    int differ = differ_over_grid(&a, VIEW_MASK, &cached, &direct);
    expect_true(differ == 0, "wherever the mouse is, the layer's frame is the one drawn again: %d differ", differ);
    app_free(&a);
}

/* The train view after a short run: its plots and heatmaps come from
 * layers; wherever the mouse is (plots, the big head, the small ones),
 * the frame is the one drawing everything again gives. */
static void test_train_redraws_from_its_layers(void **state)
{
    (void)state;
    static App a;
    tu_open_train(&a, MODEL, 60);
    uint64_t h1;
    int cached, direct, fresh = frame_at(&a, VIEW_TRAIN, 200, 300, &h1);
    int differ = differ_over_grid(&a, VIEW_TRAIN, &cached, &direct);
    printf("  drawing calls: %d fresh, %d from the layers, %d drawn again\n", fresh, cached, direct);
    expect_true(cached * 4 < direct, "the frames copy the layers: %d drawing calls, against %d drawn again",
                cached, direct);
    expect_true(differ == 0, "the layers give the pixels drawing it again does: %d mouse positions differ",
                differ);
    app_free(&a);
}

/* While the worker trains, a frame draws the new curves of a publication
 * or takes the probe's new pass, never both (each redraws a layer and
 * costs a few milliseconds: together they made the slow frames); the pass
 * follows a frame later, which the view asks for at once. */
static void test_training_frame_does_one_costly_thing(void **state)
{
    (void)state;
    static App a;
    tu_open_train(&a, MODEL, 10);
    TrainHost *u = a.train;
    app_train_play(&a, 1);
    int both = 0, curves = 0, probes = 0, asked = 0;
    for (int i = 0; i < 3000 && (curves < 8 || probes < 4); i++) {
        uint64_t seq = u->st.seq;
        const TpPass *held = u->pass;
        unsigned ver = held ? held->ver : 0;
        struct timespec ts = {0, 3000000};
        nanosleep(&ts, NULL);
        tu_frame(&a);
        int c = u->st.seq != seq && u->st.state == TW_RUNNING, p = u->pass && u->pass->ver != ver;
        curves += c;
        probes += p;
        both += c && p;
        asked += c && u->due && a.wake_at > 0 && a.wake_at <= a.now;
    }
    app_train_play(&a, 0);
    printf("  %d frames with new curves, %d with a new pass, %d both; the next frame asked for %d times\n", curves,
           probes, both, asked);
    expect_true(curves >= 8 && probes >= 4, "training went on: %d publications drawn, %d passes taken", curves,
                probes);
    expect_true(both == 0, "no frame drew new curves and took a new pass: %d did", both);
    expect_true(asked >= 1, "a frame that left a pass asks for the next one at once");
    app_free(&a);
}

/* Layers kept in the heatmap cache. */
static int layers_kept(App *a)
{
    int n = 0;
    for (int i = 0; i < HEAT_CACHE; i++)
        n += a->gfx->heat[i].img && a->gfx->heat[i].layer;
    return n;
}

/* A layer replaces the last one of its view: a picture of a few megabytes
 * (a fifth of the window) per edit, publication or selection was kept
 * until 128 had piled up. */
static void test_one_layer_per_view(void **state)
{
    (void)state;
    static App a;
    open_mask(&a);
    uint64_t h;
    for (int i = 0; i < 12; i++) { /* another selected token each frame: another picture */
        a.sel.side = 2; /* a target token */
        a.sel.index = i % 6;
        frame_at(&a, VIEW_MASK, 10, 10, &h);
    }
    int mask = layers_kept(&a);
    expect_true(app_train_setup(&a, "reverse", 20) == 0, "trained: %s", a.notice);
    for (int i = 0; i < 8; i++) {
        TfErr err;
        TrainHost *u = a.train;
        expect_true(tw_steps(u->w, 10, &err) == 0, "steps: %s", err.msg);
        tw_wait_idle(u->w);
        frame_at(&a, VIEW_TRAIN, 10, 10, &h); /* new curves, a new probe */
    }
    int all = layers_kept(&a);
    expect_true(mask == 1 && all == 3, "one layer a view kept: %d after 12 masks, %d with 8 trainings more "
                "(the mask's, the curves', the heatmaps')", mask, all);
    app_free(&a);
}

int main(void)
{
    TU_RUN(setup, teardown,
           cmocka_unit_test(test_mask_redraws_from_its_layer),
           cmocka_unit_test(test_train_redraws_from_its_layers),
           cmocka_unit_test(test_one_layer_per_view),
           cmocka_unit_test(test_training_frame_does_one_costly_thing));
}
