/* test_view_frames.c - views that keep what does not move in a cached
 * layer (the mask's cells, hatching, labels, legend and sum panel) redraw
 * a frame in which only the mouse moved from that layer: few drawing
 * calls instead of one or more per cell, and exactly the pixels drawing
 * it all again gives (the same frame with the layers off: a text hook is
 * set). With the hook set every string is drawn, and reported, in every
 * frame, also the ones a layer held in the frame before. */
#include <string.h>

#include "app.h"
#include "test_app_util.h"
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
    a->in.mx = x;
    a->in.my = y;
    a->now += 0.1;
    tu_view_frame(a, tu_ren, id, AREA);
    int calls = ren_draw_calls(tu_ren);
    *hash = tu_pixel_hash(AREA);
    ren_end(tu_ren);
    return calls;
}

static void test_mask_redraws_from_its_layer(void **state)
{
    (void)state;
    static App a;
    AppOpts o = tu_opts(MODEL, NULL, NULL, NULL);
    o.src[0] = "t5 t6";
    o.src[1] = "t5 t6 t7 t8 t9 t10 t11";
    o.n_src = 2;
    o.stage = "dec.self.mask";
    tu_open(&a, &o, 100);
    a.anim_start = 0;
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
    app_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mask_redraws_from_its_layer),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
