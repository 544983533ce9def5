/* test_app_exp_views.c - experiments in the window, part two, by
 * synthetic events: the window's command line takes the experiment flags
 * (an out-of-range one refuses to open, naming it), Alt+click on a source
 * token hides it (its weights column becomes 0 on screen) and again shows
 * it, difference mode (D) reaches the views that are not the heatmap
 * (norm, ffn: cells in the diverging colour of experiment − normal; lines:
 * another picture, the hover says both values), and the output view shows
 * the top-k before (normal) and after (experiment). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "colormap.h"
#include "gui.h"
#include "test_app_util.h"
#include "test_util.h"

static char MODEL[160];

TU_FIXTURE(MODEL, "expv.safetensors", 1280, 800)

static int near_rgb(uint32_t px, uint32_t want, int tol)
{
    for (int k = 1; k <= 3; k++) {
        int got = (int)(px >> (8 * k)) & 255, exp = (int)(want >> (8 * k)) & 255;
        if (abs(got - exp) > tol)
            return 0;
    }
    return 1;
}

static uint32_t pixel(int x, int y)
{
    uint32_t px;
    ren_read_pixels(tu_ren, (Rect){x, y, 1, 1}, &px);
    return px;
}

static void alt_click(App *a, ViewId view, Rect area, int x, int y)
{
    ev_mouse_mod(a, IN_MOUSE_DOWN, x, y, MB_LEFT, MOD_ALT);
    tu_view_frame(a, tu_ren, view, area);
    ev_mouse(a, IN_MOUSE_UP, x, y, MB_LEFT);
}

/* stepformer --no-scale --ablate enc:1:2 --hide-src 1: the window opens
 * with that experiment; --ablate enc:9:0 is refused with its name. */
static void test_window_command_line(void **state)
{
    (void)state;
    static App a;
    char *argv[] = {"stepformer", "--model", MODEL, "--src", "t5 t6 t7", "--no-scale", "--ablate", "enc:1:2",
                    "--hide-src", "1", NULL};
    AppOpts o;
    expect_true(gui_parse_args(10, argv, &o, "gui") == 0, "parsed");
    o.no_save = 1;
    TfErr err;
    expect_true(app_init(&a, &o, &err) == 0, "opens: %s", err.msg);
    expect_true(a.ses.exp.no_scale && tf_exp_ablated(&a.ses.exp, TF_ATTN_ENC, 1, 2) && tf_exp_hidden(&a.ses.exp, 1) &&
                    !a.ses.exp.no_pe,
                "the flags are the window's experiment");
    app_compute_all(&a);
    expect_true(a.ses.ext.have_base && strcmp(a.ses.trace.exp.no_scale ? "y" : "n", "y") == 0,
                "the shown pass applies it, the normal pass is beside it");
    app_free(&a);
    char *bad[] = {"stepformer", "--model", MODEL, "--ablate", "enc:9:0", NULL};
    expect_true(gui_parse_args(5, bad, &o, "gui") == 0, "parsed (checked once the model is open)");
    o.no_save = 1;
    expect_true(app_init(&a, &o, &err) != 0 && strstr(err.msg, "enc:9:0") && !strchr(err.msg, '\n'),
                "out of range: one line naming it: %s", err.msg);
    char *far[] = {"stepformer", "--model", MODEL, "--src", "t5 t6", "--hide-src", "7", NULL};
    expect_true(gui_parse_args(7, far, &o, "gui") == 0, "parsed");
    o.no_save = 1;
    expect_true(app_init(&a, &o, &err) != 0 && strstr(err.msg, "7"), "outside the source: %s", err.msg);
    char *typo[] = {"stepformer", "--ablate", NULL};
    expect_true(gui_parse_args(2, typo, &o, "gui") != 0, "--ablate without a value is refused");
}

/* Alt+click on a source token (a column label of encoder self-attention)
 * hides it: its column of weights is exactly 0, drawn in the map's colour
 * of 0; Alt+click again shows it. A plain click still selects. */
static void test_alt_click_hides_a_source_token(void **state)
{
    (void)state;
    static App a;
    tu_open_exp_at(&a, MODEL, "matrix", ST_ENC_SELF_WEIGHTS);
    Rect area = {0, 0, 900, 700};
    tu_view_frame(&a, tu_ren, VIEW_MATRIX, area);
    HeatGeo h = a.heat;
    expect_true(h.valid && h.cols == 4, "the weights drawn (%d columns)", h.cols);
    int lx = h.grid.x + (int)(1.5f * h.cw), ly = h.grid.y - 8;
    uint32_t zero = cmap_rgba(a.look.cmap_prob, 0.0f);
    for (int k = 0; k < 2; k++) {
        alt_click(&a, VIEW_MATRIX, area, lx, ly);
        expect_true(tf_exp_hidden(&a.ses.exp, 1) == (k == 0) && a.ses.exp.n_hide == (k == 0),
                    "Alt+click %d: position 1 hidden %d", k + 1, tf_exp_hidden(&a.ses.exp, 1));
        expect_true(a.sel.side == 0, "Alt+click does not select");
        app_compute_all(&a);
        tu_view_frame(&a, tu_ren, VIEW_MATRIX, area);
        h = a.heat;
        TfView w;
        TfErr err;
        tf_view(&a.ses.trace, ST_ENC_SELF_WEIGHTS, 0, 0, 0, &w, &err);
        for (int r = 0; r < w.rows; r++) {
            float x = tf_view_at(&w, r, 1);
            expect_true(k == 0 ? x == 0.0f : x > 0.0f, "row %d: weight on position 1 = %g", r, x);
            uint32_t px = pixel(h.grid.x + (int)(1.15f * h.cw), h.grid.y + (int)((r + 0.15f) * h.ch));
            if (k == 0)
                expect_true(near_rgb(px, zero, 8), "row %d: the hidden key's cell is the colour of 0 (%08x, %08x)",
                            r, px, zero);
            else
                expect_true(!near_rgb(px, zero, 2) || x < 0.01f, "row %d: shown again (%08x)", r, px);
        }
    }
    ev_mouse(&a, IN_MOUSE_DOWN, lx, ly, MB_LEFT);
    tu_view_frame(&a, tu_ren, VIEW_MATRIX, area);
    ev_mouse(&a, IN_MOUSE_UP, lx, ly, MB_LEFT);
    expect_true(a.sel.side == 1 && a.sel.index == 1 && !session_has_exp(&a.ses), "a plain click selects");
    app_free(&a);
}

/* The last heatmap drawn is experiment − normal on the diverging map,
 * centred at 0: its cells have the colour of their value. */
static void check_diff_cells(App *a, int layer)
{
    HeatGeo *h = &a->heat;
    expect_true(h->valid && h->cmap == CMAP_DIVERGING && h->lo == -h->hi && h->hi > 0,
                "%s: diverging, centred at 0: [%g, %g] map %d", stage_info(h->stage)->name, h->lo, h->hi, h->cmap);
    TfView ev, bv;
    TfErr err;
    expect_true(tf_view(&a->ses.trace, h->stage, layer, -1, 0, &ev, &err) == 0, "%s", err.msg);
    tf_view(&a->ses.ext.base, h->stage, layer, -1, 0, &bv, &err);
    int checked = 0;
    for (int r = 0; r < ev.rows && r < h->rows; r++)
        for (int c = 0; c < ev.cols && c < 6; c++) {
            float d = tf_view_at(&ev, r, c) - tf_view_at(&bv, r, c);
            uint32_t px = pixel(h->grid.x + (int)((c + 0.5f) * h->cw), h->grid.y + (int)((r + 0.15f) * h->ch));
            uint32_t want = cmap_rgba(CMAP_DIVERGING, (d - h->lo) / (h->hi - h->lo));
            expect_true(near_rgb(px, want, 10), "%s cell (%d,%d) = %g: pixel %08x, the map says %08x",
                        stage_info(h->stage)->name, r, c, d, px, want);
            checked++;
        }
    expect_true(checked >= 8, "%d cells checked", checked);
}

/* D in the norm and ffn views: their heatmaps become the difference. */
static void test_difference_in_norm_and_ffn(void **state)
{
    (void)state;
    static App a;
    tu_open_exp(&a, MODEL, NULL);
    tu_exp_no_scale(&a);
    a.cmp = CMP_DIFF;
    Rect area = {0, 0, 1000, 720};
    app_goto(&a, ST_ENC_NORM1, 0);
    tu_view_frame(&a, tu_ren, VIEW_NORM, area);
    expect_true(a.heat.valid && (a.heat.stage == ST_ENC_NORM1 || a.heat.stage == ST_ENC_ADD1),
                "the norm view drew its matrices (last %s)", stage_info(a.heat.stage)->name);
    check_diff_cells(&a, 0);
    app_goto(&a, ST_ENC_FFN_HIDDEN, 1);
    tu_view_frame(&a, tu_ren, VIEW_FFN, area);
    expect_true(a.heat.stage == ST_ENC_FFN_HIDDEN, "the ffn view drew the hidden layer");
    check_diff_cells(&a, 1);
    /* the experiment itself: the ffn's own sequential map again */
    a.cmp = CMP_EXP;
    a.heat.valid = 0;
    tu_view_frame(&a, tu_ren, VIEW_FFN, area);
    expect_true(!a.heat.valid || a.heat.cmap != CMAP_DIVERGING, "experiment mode: the activations");
    app_free(&a);
}

static uint64_t frame_sum(Rect area) { return tu_pixel_hash(area); }

/* A hover that says both passes' values. */
static int on_both_values(const Hover *h, const void *arg)
{
    (void)arg;
    return h->valid && strstr(h->where, "experiment") && strstr(h->where, "normal");
}

/* D in the lines view: a different picture, warm or cool lines, and the
 * hover over a token says both values. */
static void test_difference_in_lines(void **state)
{
    (void)state;
    static App a;
    tu_open_exp_at(&a, MODEL, "lines", ST_ENC_SELF_WEIGHTS);
    tu_exp_no_scale(&a);
    Rect area = {0, 0, 900, 700};
    a.ui.in.mx = a.ui.in.my = -100;
    tu_view_frame(&a, tu_ren, VIEW_LINES, area);
    uint64_t plain = frame_sum(area);
    a.cmp = CMP_DIFF;
    tu_view_frame(&a, tu_ren, VIEW_LINES, area);
    uint64_t diff = frame_sum(area);
    expect_true(plain != diff, "the difference is another picture");
    int x = -1, y = -1;
    Rect below = {0, 100, area.w, area.h - 100};
    expect_true(tu_hover_find(&a, VIEW_LINES, area, below, 10, 6, on_both_values, NULL, &x, &y),
                "hover in difference mode shows both values: %s", a.hover.where);
    app_free(&a);
}

/* The output view with an experiment on: two lists per position, the
 * normal pass's top-k and the experiment's, each bar its own pass's
 * probability. */
static void test_output_before_and_after(void **state)
{
    (void)state;
    static App a;
    tu_open_exp(&a, MODEL, "output");
    TfExperiment e = {0};
    e.no_pe = 1;
    e.no_scale = 1;
    app_set_exp(&a, &e);
    app_compute_all(&a);
    Rect area = {0, 0, 1000, 720};
    int V = a.ses.model.cfg.tgt_vocab, n_base = 0, n_exp = 0;
    for (int y = 60; y < 400; y += 7) /* bars are taller and wider than the steps */
        for (int x = 0; x < 600; x += 20) {
            a.ui.in.mx = x;
            a.ui.in.my = y;
            tu_view_frame(&a, tu_ren, VIEW_OUTPUT, area);
            if (!a.hover.valid || a.hover.stage != ST_OUT_PROBS)
                continue;
            size_t at = ((size_t)a.hover.b * a.ses.trace.T + a.hover.row) * V + a.hover.col;
            float pb = a.ses.ext.base.probs[at], pe = a.ses.trace.probs[at];
            if (pb == pe)
                continue;
            n_base += a.hover.value == pb;
            n_exp += a.hover.value == pe;
            expect_true(a.hover.value == pb || a.hover.value == pe, "a bar is one pass's probability");
        }
    expect_true(n_base > 0 && n_exp > 0, "bars of both passes (%d normal, %d experiment)", n_base, n_exp);
    app_free(&a);
}

int main(void)
{
    TU_RUN(setup, teardown, cmocka_unit_test(test_window_command_line),
           cmocka_unit_test(test_alt_click_hides_a_source_token), cmocka_unit_test(test_difference_in_norm_and_ffn),
           cmocka_unit_test(test_difference_in_lines), cmocka_unit_test(test_output_before_and_after));
}
