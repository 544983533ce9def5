/* test_view_matrix_axes.c - the heatmap says what its axes are ("rows:
 * queries (decoder input) · columns: keys (source tokens)"), draws the
 * boundaries between heads where a matrix holds them side by side (Q of
 * all heads), and names a hovered cell by position, counted from 0 as the
 * tokens view counts them ("row '<bos>' (pos 0)"), with layers and heads
 * from 1. The bundled en2zh model (d_model 64, 8 heads), whole windows at
 * 1280x800 drawn headless. */
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "test_app_util.h"
#include "test_util.h"
#include "view.h"

TU_RENDERER(1280, 800)

#define SENT "i read books today"

/* The app on src at stage st with head (-1: every head) in the matrix
 * view, drawn twice (both frames recorded into tu_drawn). */
static void open_drawn(App *a, const char *src, StageId st, int head)
{
    AppOpts o = tu_opts(NULL, src, NULL, NULL);
    tu_open(a, &o, 100);
    app_goto(a, st, 0);
    app_set_head(a, head);
    a->view = VIEW_MATRIX;
    tu_drawn_start();
    tu_frame(a);
    tu_frame(a);
    tu_drawn_stop();
}

static void test_axis_titles(void **state)
{
    (void)state;
    static App a;
    struct { StageId st; int head; const char *axes; } cases[] = {
        {ST_DEC_CROSS_WEIGHTS, 0, "rows: queries (decoder input) · columns: keys (source tokens)"},
        {ST_ENC_SELF_SCORES, 2, "rows: queries (source tokens) · columns: keys (source tokens)"},
        {ST_ENC_SELF_Q, -1, "rows: source tokens · columns: dimensions"},
        {ST_SRC_EMBED, 0, "rows: source tokens · columns: dimensions"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        open_drawn(&a, SENT, cases[k].st, cases[k].head);
        expect_true(tu_drawn_count(cases[k].axes, "view"), "%s: the axes titled \"%s\", got %s", stage_info(cases[k].st)->name,
                    cases[k].axes, tu_drawn_count(cases[k].axes, "view") ? "it" : "not");
        app_free(&a);
    }
}

static void test_head_boundaries(void **state)
{
    (void)state;
    static App a;
    open_drawn(&a, SENT, ST_ENC_SELF_Q, -1);
    HeatGeo g = a.heat;
    expect_true(g.valid && g.cols == 64, "Q of all heads: 64 columns, got %d", g.cols);
    int heads = 0;
    for (int h = 1; h <= 8; h++) {
        char buf[32];
        snprintf(buf, sizeof buf, "head %d", h);
        heads += tu_drawn_find(buf, "view") >= 0;
    }
    expect_true(heads == 8, "each head's columns named under the matrix: %d of 8", heads);
    /* the line between head 1 and head 2, at column 8, in the text colour */
    tu_frame(&a);
    app_draw(&a, tu_ren);
    uint32_t px[3];
    int x = g.grid.x + (int)(8 * g.cw + 0.5f), y = g.grid.y + g.grid.h / 2;
    ren_read_pixels(tu_ren, (Rect){x - 1, y, 3, 1}, px);
    ren_end(tu_ren);
    Color t = theme_get(a.look.theme)->text;
    uint32_t want = (uint32_t)t.r << 24 | (uint32_t)t.g << 16 | (uint32_t)t.b << 8 | 0xFF;
    expect_true(px[0] == want || px[1] == want, "a boundary line at column 8 (x %d): %08x %08x, want %08x", x,
                px[0], px[1], want);
    app_free(&a);
    /* one head's columns: no boundary, no names */
    open_drawn(&a, SENT, ST_ENC_SELF_Q, 0);
    expect_true(!tu_drawn_count("head 2", "view") && !tu_drawn_count("h2", "view"), "one head's Q: no head names under it, got %s", "some");
    app_free(&a);
}

static void test_hover_names_positions(void **state)
{
    (void)state;
    static App a;
    open_drawn(&a, SENT, ST_DEC_CROSS_WEIGHTS, 0);
    HeatGeo g = a.heat;
    ev_mouse(&a, IN_MOUSE_MOVE, g.grid.x + (int)(1.5f * g.cw), g.grid.y + (int)(0.5f * g.ch), 0);
    tu_frame(&a);
    const char *want = "layer 1 head 1: row '<bos>' (pos 0), col 'read' (pos 1)";
    expect_true(a.hover.valid && strcmp(a.hover.where, want) == 0, "the status line names the cell \"%s\", got \"%s\"",
                want, a.hover.where);
    app_free(&a);
}

/* A long sentence: its columns narrower than its tokens, every column
 * token is still written whole (turned to read upwards), not every
 * other or every fourth one. */
static void test_narrow_columns_labelled(void **state)
{
    (void)state;
    static App a;
    open_drawn(&a, "i read many good books today at home and then i read more books at home today",
               ST_ENC_SELF_WEIGHTS, 0);
    TfView tv;
    TfErr err;
    expect_true(tf_view(&a.ses.trace, ST_ENC_SELF_WEIGHTS, 0, 0, 0, &tv, &err) == 0, "the view: %s", err.msg);
    int missing = 0;
    char first[200] = "";
    for (int j = 0; j < tv.cols; j++) {
        char buf[300];
        view_tok_label(&a.ses.trace, &a.ses.model, &tv, 1, j, buf, sizeof buf);
        if (!tu_drawn_count(buf, "view") && missing++ == 0)
            snprintf(first, sizeof first, "%d '%.150s'", j, buf);
    }
    expect_true(a.heat.cw < 40, "the columns are narrow (%.1f px): the case tested", a.heat.cw);
    expect_true(missing == 0, "every one of the %d column tokens drawn, %d missing (first %s)", tv.cols, missing,
                first);
    app_free(&a);
}

int main(void)
{
    TU_RUN(setup, teardown, cmocka_unit_test(test_axis_titles), cmocka_unit_test(test_head_boundaries),
           cmocka_unit_test(test_hover_names_positions), cmocka_unit_test(test_narrow_columns_labelled));
}
