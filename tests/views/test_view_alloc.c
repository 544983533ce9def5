/* test_view_alloc.c - a steady-state frame of every view allocates nothing.
 *
 * malloc, calloc and realloc are wrapped (the program's own definitions
 * come before glibc's) and counted while a frame is drawn when they are
 * called from the program itself, on the thread that draws (views, widgets, window, engine: all
 * linked into this executable; what SDL's renderer does inside its shared
 * library is its own business): after a few frames that fill the views'
 * caches, one more frame of the same picture, the mouse moving over it,
 * must make no heap allocation at all. */
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "test_app_util.h"
#include "test_util.h"
#include "train_host.h"

#include "test_alloc.h"

static char MODEL[160];
static const Rect AREA = {20, 20, 900, 650};

TU_FIXTURE(MODEL, "alloc.safetensors", 960, 700)

/* Each view at a stage it shows (head -1: every head). */
static const struct {
    ViewId view;
    const char *stage;
    int head;
} CASES[] = {
    {VIEW_MATRIX, "enc.self.q", 0},       {VIEW_MATRIX, "src.tokens", 0},
    {VIEW_HEADS, "enc.self.weights", -1}, {VIEW_LINES, "dec.cross.weights", 0},
    {VIEW_LINES, "enc.self.weights", -1}, {VIEW_MASK, "dec.self.mask", 0},
    {VIEW_PE, "pos.enc", 0},              {VIEW_NORM, "enc.norm1", 0},
    {VIEW_FFN, "enc.ffn.hidden", 0},      {VIEW_OUTPUT, "out.probs", 0},
    {VIEW_DECODE, "out.probs", 0},        {VIEW_TRAIN, "src.tokens", 0},
};

static void test_no_alloc_per_frame(void **state)
{
    (void)state;
#ifdef __SANITIZE_ADDRESS__
    printf("  skipped under AddressSanitizer\n");
    return;
#endif
    for (size_t c = 0; c < sizeof CASES / sizeof CASES[0]; c++) {
        static App a;
        AppOpts o = tu_opts(MODEL, "t5 t6 t7 | t8 t9", "t11 t12", NULL);
        o.stage = CASES[c].stage;
        o.head = CASES[c].head;
        tu_open(&a, &o, 100);
        a.view = CASES[c].view;
        int x = AREA.x + AREA.w / 3, y = AREA.y + AREA.h / 3;
        for (int k = 0; k < 4; k++) { /* fill the caches */
            ev_mouse(&a, IN_MOUSE_MOVE, x + k, y, 0);
            g_allocs = 0;
            g_counting = c == 0 && k == 0;
            tu_view_frame(&a, tu_ren, CASES[c].view, AREA);
            g_counting = 0;
            ren_end(tu_ren);
            if (a.train && a.train->w) /* the train view's model made: its first pictures come next */
                tw_wait_idle(a.train->w);
            if (c == 0 && k == 0) /* the first heatmap texture is painted from a malloc'd buffer */
                expect_true(g_allocs > 0, "the counter sees the program's allocations (first frame: %ld)",
                            g_allocs);
        }
        ev_mouse(&a, IN_MOUSE_MOVE, x + 1, y, 0);
        g_allocs = 0;
        g_counting = 1;
        tu_view_frame(&a, tu_ren, CASES[c].view, AREA);
        g_counting = 0;
        ren_end(tu_ren);
        printf("  %-7s at %-18s %ld allocations\n", view_name(CASES[c].view), CASES[c].stage, g_allocs);
        expect_true(g_allocs == 0, "a steady frame of the %s view at %s allocates nothing, got %ld",
                    view_name(CASES[c].view), CASES[c].stage, g_allocs);
        app_free(&a);
    }
}

int main(void)
{
    TU_RUN(setup, teardown, cmocka_unit_test(test_no_alloc_per_frame));
}
