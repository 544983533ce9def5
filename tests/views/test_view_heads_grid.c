/* test_view_heads_grid.c - the all-heads grid fills its view: its
 * thumbnails grow with the window and again with the text size (presenter
 * mode), every query and key token is written beside the grid at 1280x800
 * for an 8-token sentence, and the grid's geometry (view_heads_grid.h:
 * the rectangle of a thumbnail, the thumbnail at a point) agrees with
 * what the mouse finds there. Whole windows are drawn headless on the
 * bundled en2zh model (8 heads, 2 layers). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "test_app_util.h"
#include "test_util.h"
#include "view.h"
#include "heads_table.h"
#include "view_heads_grid.h"

#define SENT8 "i read many good books today at home" /* 8 source tokens */

/* The app on SENT8 at stage st with all heads, text size scale, drawn once
 * in a w x h window (the renderer is left open in *r). */
static void open_grid_src(App *a, Ren **r, int w, int h, StageId st, float scale, const char *src)
{
    TfErr err;
    *r = ren_open_headless(w, h, &err);
    expect_true(*r != NULL, "a %dx%d renderer: %s", w, h, err.msg);
    AppOpts o = tu_opts(NULL, src, NULL, NULL);
    tu_open(a, &o, 100);
    app_goto(a, st, 0);
    app_set_head(a, -1);
    a->look.text_scale = scale;
    app_compute_all(a);
    app_frame(a, *r);
    /* the grid alone: the Heads table under it (A) is the heads lab's, and
     * shown it takes its share of the view */
    ev_key(a, 'a', 0);
    app_frame(a, *r);
}

static void open_grid(App *a, Ren **r, int w, int h, StageId st, float scale)
{
    open_grid_src(a, r, w, h, st, scale, SENT8);
}

/* The smaller side of the thumbnails the grid laid out, 0 for none. */
static int thumb_side(App *a, int *layers)
{
    const HeadsGrid *G = view_heads_grid(a->vstate[VIEW_HEADS]);
    if (!G)
        return 0;
    *layers = G->nl;
    return G->tw < G->th ? G->tw : G->th;
}

static void test_thumbs_grow(void **state)
{
    (void)state;
    static App a;
    Ren *r;
    struct { int w, h; float scale; } sizes[] = {{1280, 800, 1.0f}, {1280, 800, 2.0f}, {1920, 1080, 1.0f},
                                                 {1920, 1080, 2.0f}};
    int side[4], layers[4] = {0};
    StageId sts[2] = {ST_ENC_SELF_WEIGHTS, ST_DEC_CROSS_WEIGHTS};
    const char *src[] = {"i love china", "i read books today", SENT8};
    for (int j = 0; j < 3; j++)
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < 4; i++) {
            open_grid_src(&a, &r, sizes[i].w, sizes[i].h, sts[k], sizes[i].scale, src[j]);
            expect_true(app_current_view(&a) == VIEW_HEADS, "all heads shows the grid, got view %d",
                        (int)app_current_view(&a));
            side[i] = thumb_side(&a, &layers[i]);
            app_free(&a);
            ren_close(r);
        }
        const char *name = stage_info(sts[k])->name;
        expect_true(side[0] >= 64, "%s at 1280x800: thumbnails of 64 px at least, got %d", name, side[0]);
        expect_true(side[1] > side[0], "%s at 1280x800: text x2 makes the thumbnails larger: %d px, at x1 %d px",
                    name, side[1], side[0]);
        expect_true(side[2] > side[0], "%s: a 1920x1080 window makes them larger than 1280x800: %d px against %d",
                    name, side[2], side[0]);
        expect_true(side[3] > side[2], "%s at 1920x1080: text x2 makes them larger: %d px, at x1 %d px", name,
                    side[3], side[2]);
        expect_true(layers[0] == 2 && layers[2] == 2, "%s at text x1: both layers shown, got %d and %d", name,
                    layers[0], layers[2]);
    }
}

/* One frame on r (the clock where it is), recorded into tu_drawn. */
static void drawn_frame(App *a, Ren *r)
{
    tu_drawn_start();
    app_frame(a, r);
    tu_drawn_stop();
}


/* How many of tv's row and column tokens the last recorded frame did not
 * write whole in the view (tu_drawn); the first one missing into first. */
static int labels_missing(const App *a, const TfView *tv, char *first, size_t cap)
{
    int missing = 0;
    for (int axis = 0; axis < 2; axis++)
        for (int i = 0; i < (axis ? tv->cols : tv->rows); i++) {
            char buf[300];
            view_tok_label(&a->ses.trace, &a->ses.model, tv, axis, i, buf, sizeof buf);
            if (tu_drawn_find(buf, "view") < 0 && missing++ == 0)
                snprintf(first, cap, "%s %d '%s'", axis ? "column" : "row", i + 1, buf);
        }
    return missing;
}
static void test_every_label_drawn(void **state)
{
    (void)state;
    static App a;
    Ren *r;
    StageId sts[3] = {ST_ENC_SELF_WEIGHTS, ST_DEC_CROSS_WEIGHTS, ST_DEC_SELF_SCORES};
    for (int k = 0; k < 3; k++) {
        open_grid(&a, &r, 1280, 800, sts[k], 1.0f);
        drawn_frame(&a, r);
        TfView tv;
        TfErr err;
        StageId st = stage_attn_part(stage_attn_block(sts[k]), sts[k] == ST_DEC_SELF_SCORES ? AP_SCORES : AP_WEIGHTS);
        expect_true(tf_view(&a.ses.trace, st, 0, 0, 0, &tv, &err) == 0, "the view: %s", err.msg);
        char first[400] = "";
        int missing = labels_missing(&a, &tv, first, sizeof first);
        expect_true(tv.cols >= 8 || sts[k] == ST_DEC_SELF_SCORES, "%s has the 8 source tokens as keys, got %d",
                    stage_info(st)->name, tv.cols);
        expect_true(missing == 0, "%s at 1280x800: every row and column token written whole, %d missing (first %s)",
                    stage_info(st)->name, missing, first);
        app_free(&a);
        ren_close(r);
    }
}

/* With the Heads table shown (the heads lab's default) at 1280 x 800, the
 * grid still writes every token of an 8-token sentence (both layers, or
 * the current one alone when both would squeeze the labels: A shows all
 * of them), and the table is there with 3 rows at least (the rest scroll). */
static void test_labels_with_the_table(void **state)
{
    (void)state;
    static App a;
    StageId sts[3] = {ST_ENC_SELF_WEIGHTS, ST_DEC_CROSS_WEIGHTS, ST_DEC_SELF_SCORES};
    for (int k = 0; k < 3; k++) {
        TfErr err;
        Ren *r = ren_open_headless(1280, 800, &err);
        expect_true(r != NULL, "a renderer: %s", err.msg);
        AppOpts o = tu_opts(NULL, SENT8, NULL, NULL);
        tu_open(&a, &o, 100);
        app_goto(&a, sts[k], 0);
        app_set_head(&a, -1);
        app_compute_all(&a);
        app_frame(&a, r);
        tu_drawn_start();
        app_frame(&a, r);
        tu_drawn_stop();
        const HeadsTable *t = view_heads_table(a.vstate[VIEW_HEADS]);
        const HeadsGrid *G = view_heads_grid(a.vstate[VIEW_HEADS]);
        expect_true(t && t->shown && !t->hidden, "%s: the Heads table is shown", stage_info(sts[k])->name);
        expect_true(G && G->nl >= 1 && (G->nl == 2 || G->l0 == 0), "%s: both layers, or the current one, got %d from %d",
                    stage_info(sts[k])->name, G ? G->nl : 0, G ? G->l0 : -1);
        TfView tv;
        StageId st = stage_attn_part(stage_attn_block(sts[k]), sts[k] == ST_DEC_SELF_SCORES ? AP_SCORES : AP_WEIGHTS);
        expect_true(tf_view(&a.ses.trace, st, 0, 0, 0, &tv, &err) == 0, "the view: %s", err.msg);
        char first[400] = "";
        int missing = labels_missing(&a, &tv, first, sizeof first);
        expect_true(missing == 0, "%s at 1280x800 with the table: every token written, %d missing (first %s)",
                    stage_info(st)->name, missing, first);
        app_free(&a);
        ren_close(r);
    }
}

static void test_geometry_matches_the_mouse(void **state)
{
    (void)state;
    static App a;
    Ren *r;
    open_grid(&a, &r, 1280, 800, ST_DEC_CROSS_WEIGHTS, 1.0f);
    const HeadsGrid *G0 = view_heads_grid(a.vstate[VIEW_HEADS]);
    expect_true(G0 != NULL, "the grid was laid out, got %s", "none");
    HeadsGrid G = *G0;
    int bad = 0, seen = 0;
    for (int l = G.l0; l < G.l0 + G.nl; l++)
        for (int h = 0; h < G.NH; h++) {
            Rect t = heads_grid_rect(&G, l, h);
            int gl = -1, gs = -1, cx = t.x + t.w / 2, cy = t.y + t.h / 2;
            if (!heads_grid_at(&G, cx, cy, &gl, &gs) || gl != l || gs != h)
                bad++;
            /* the mouse there: the hover names the same layer and head */
            ev_mouse(&a, IN_MOUSE_MOVE, cx, cy, 0);
            app_frame(&a, r);
            if (!a.hover.valid || a.hover.layer != l || a.hover.head != h) {
                if (bad++ < 2)
                    printf("  at (%d,%d): hover valid %d layer %d head %d, the grid says layer %d head %d\n", cx,
                           cy, a.hover.valid, a.hover.layer, a.hover.head, l, h);
            }
            seen++;
        }
    int gl, gs;
    Rect t0 = heads_grid_rect(&G, G.l0, 0);
    expect_true(!heads_grid_at(&G, t0.x - 2, t0.y - 2, &gl, &gs), "no thumbnail just outside the first, got layer %d",
                gl);
    Rect none = heads_grid_rect(&G, G.l0 + G.nl, 0);
    expect_true(none.w == 0, "a layer not laid out has no rectangle, got %d px wide", none.w);
    expect_true(seen == G.nl * G.NH && bad == 0, "the grid's geometry and the mouse agree: %d of %d wrong", bad, seen);
    app_free(&a);
    ren_close(r);
}

/* A column token too long for its turned label ("newspapers") is cut with
 * an ellipsis; with the mouse over it the whole token shows beside the
 * mouse. */
static void test_cut_label_shows_whole_on_hover(void **state)
{
    (void)state;
    static App a;
    Ren *r;
    open_grid_src(&a, &r, 1280, 800, ST_ENC_SELF_WEIGHTS, 1.0f, "i read newspapers today");
    const HeadsGrid *G0 = view_heads_grid(a.vstate[VIEW_HEADS]);
    expect_true(G0 != NULL && G0->key_up, "the key labels are turned, got %s", G0 ? "level" : "no grid");
    HeadsGrid G = *G0;
    Rect t = heads_grid_rect(&G, G.l0, 0);
    int mx = t.x + (int)((2 + 0.5f) * G.c), my = G.y0 - 2 - G.key_h / 2; /* over column 3's label */
    drawn_frame(&a, r);
    int cut = 0;
    for (int i = 0; i < tu_drawn.n; i++)
        cut += tu_drawn_by(i, "view") && strncmp(tu_drawn.s[i], "newsp", 5) == 0 && strstr(tu_drawn.s[i], "…") != NULL;
    expect_true(cut >= 1, "'newspapers' cut to its band with an ellipsis, got %d", cut);
    ev_mouse(&a, IN_MOUSE_MOVE, mx, my, 0);
    drawn_frame(&a, r);
    int tip = 0;
    for (int i = 0; i < tu_drawn.n; i++)
        tip += tu_drawn_by(i, "view") && strcmp(tu_drawn.s[i], "newspapers") == 0 &&
               abs(tu_drawn.box[i].x - mx) < 60 && abs(tu_drawn.box[i].y - my) < 60;
    expect_true(tip == 1, "the whole token beside the mouse at (%d, %d), got %d", mx, my, tip);
    app_free(&a);
    ren_close(r);
}

int main(void)
{
    TU_RUN(NULL, NULL, cmocka_unit_test(test_thumbs_grow), cmocka_unit_test(test_every_label_drawn),
           cmocka_unit_test(test_labels_with_the_table),
           cmocka_unit_test(test_geometry_matches_the_mouse), cmocka_unit_test(test_cut_label_shows_whole_on_hover));
}
