/* test_cell_cursor.c - the matrix views without a mouse: Ctrl+arrows move a
 * keyboard cell, which the status line and the panel read (the hover) with
 * the trace's value; it stays inside the matrix; the mouse over the grid
 * wins; the keys are listed in ?. The same in the mask view, the lines
 * view (the cell is a line, query to key), the all-heads grid
 * (Ctrl+PgUp / PgDn: the head), the Decode tab's mask and attention
 * strips, the lens and the Q/K map (a point: a query or a key); Ctrl+Enter
 * and Alt+Enter act at the cell as a click and an Alt+click. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_table.h"
#include "paths.h"
#include "test_app_util.h"
#include "train_host.h"

#define MODEL "assets/models/en2zh.safetensors"

static void test_keys_move_the_cell(void **state)
{
    (void)state;
    static App a;
    tu_open_src(&a, MODEL, "i read books at home today", 100);
    app_goto(&a, ST_ENC_SELF_WEIGHTS, 0);
    app_set_head(&a, 1);
    a.ui.in.mx = a.ui.in.my = -100; /* the mouse away from the grid */
    tu_frame(&a);
    expect_true(!a.hover.valid, "no cell before a key");
    ev_key(&a, KEY_RIGHT, MOD_CTRL); /* on, at the top left */
    ev_key(&a, KEY_RIGHT, MOD_CTRL);
    ev_key(&a, KEY_RIGHT, MOD_CTRL);
    ev_key(&a, KEY_DOWN, MOD_CTRL);
    tu_frame(&a);
    TfView v;
    TfErr err;
    expect_true(tf_view(&a.ses.trace, ST_ENC_SELF_WEIGHTS, 0, 0, 0, &v, &err) == 0, "%s", err.msg);
    expect_true(a.hover.valid && a.hover.row == 1 && a.hover.col == 2, "the cell (1, 2): valid %d row %d col %d",
                a.hover.valid, a.hover.row, a.hover.col);
    TfView h1;
    expect_true(tf_view(&a.ses.trace, ST_ENC_SELF_WEIGHTS, 0, 1, 0, &h1, &err) == 0, "%s", err.msg);
    expect_true(a.hover.value == tf_view_at(&h1, 1, 2), "its value is the trace's: %g", a.hover.value);
    for (int i = 0; i < 20; i++)
        ev_key(&a, KEY_RIGHT, MOD_CTRL);
    tu_frame(&a);
    expect_true(a.hover.col == h1.cols - 1, "it stops at the last column: %d", a.hover.col);
    for (int i = 0; i < 20; i++)
        ev_key(&a, KEY_UP, MOD_CTRL);
    tu_frame(&a);
    expect_true(a.hover.row == 0, "and at the first row: %d", a.hover.row);
    expect_true(cmd_find("cursor.left") && cmd_find("cursor.down"), "the keys are in the table (and so in ?)");
    app_free(&a);
}

/* n presses of key with Ctrl, then a frame. */
static void ctrl_keys(App *a, Key k, int n)
{
    for (int i = 0; i < n; i++)
        ev_key(a, k, MOD_CTRL);
    tu_frame(a);
}

/* A view of the stage shown, the mouse away, no cell yet; then the cell
 * switched on at (0, 0) and moved to (row, col). */
static void open_at(App *a, const char *src, StageId st, int layer, int head, ViewId view, int row, int col)
{
    tu_open_src(a, MODEL, src, 100);
    app_goto(a, st, layer);
    app_set_head(a, head);
    if (view != VIEW_AUTO)
        app_pick_tab(a, view);
    a->ui.in.mx = a->ui.in.my = -100;
    tu_frame(a);
    expect_true(app_current_view(a) == (view == VIEW_AUTO ? app_current_view(a) : view), "the view %d is shown: %d",
                (int)view, (int)app_current_view(a));
    expect_true(!a->hover.valid, "no cell before a key");
    ev_key(a, KEY_RIGHT, MOD_CTRL); /* on, at the top left */
    ctrl_keys(a, KEY_RIGHT, col);
    ctrl_keys(a, KEY_DOWN, row);
}

static void test_mask_view(void **state)
{
    (void)state;
    static App a;
    /* a padded batch: the decoder's mask holds causal and padding cells */
    open_at(&a, "i read books at home today | i love china", ST_DEC_SELF_MASK, 0, 0, VIEW_MASK, 1, 2);
    TfView m;
    TfErr err;
    expect_true(tf_view(&a.ses.trace, ST_DEC_SELF_MASK, 0, 0, 0, &m, &err) == 0, "%s", err.msg);
    expect_true(a.hover.valid && a.hover.stage == ST_DEC_SELF_MASK && a.hover.row == 1 && a.hover.col == 2,
                "the mask's cell (1, 2): valid %d stage %d row %d col %d", a.hover.valid, (int)a.hover.stage,
                a.hover.row, a.hover.col);
    expect_true(a.hover.value == tf_view_at(&m, 1, 2) && isinf(a.hover.value), "its value is the mask's −∞: %g",
                a.hover.value);
    expect_true(strstr(a.hover.where, "future") != NULL, "and why: %s", a.hover.where);
    ctrl_keys(&a, KEY_DOWN, 80);
    ctrl_keys(&a, KEY_RIGHT, 80);
    expect_true(a.hover.row == m.rows - 1 && a.hover.col == m.cols - 1, "it stops at the corner (%d, %d): (%d, %d)",
                m.rows - 1, m.cols - 1, a.hover.row, a.hover.col);
    ctrl_keys(&a, KEY_UP, 1); /* one press back is one row back: the cell was kept inside */
    expect_true(a.hover.row == m.rows - 2, "one up from the last row: %d", a.hover.row);
    app_free(&a);
}

static void test_lines_view(void **state)
{
    (void)state;
    static App a;
    open_at(&a, "i read books at home today", ST_ENC_SELF_WEIGHTS, 1, 2, VIEW_LINES, 3, 1);
    TfView w;
    TfErr err;
    expect_true(tf_view(&a.ses.trace, ST_ENC_SELF_WEIGHTS, 1, 2, 0, &w, &err) == 0, "%s", err.msg);
    expect_true(a.hover.valid && a.hover.stage == ST_ENC_SELF_WEIGHTS && a.hover.layer == 1 && a.hover.head == 2,
                "a weight of the head shown: valid %d stage %d layer %d head %d", a.hover.valid,
                (int)a.hover.stage, a.hover.layer, a.hover.head);
    expect_true(a.hover.row == 3 && a.hover.col == 1 && a.hover.value == tf_view_at(&w, 3, 1),
                "the line from query 3 to key 1, with its weight: (%d, %d) %g", a.hover.row, a.hover.col,
                a.hover.value);
    expect_true(!a.hover.own, "a cell of the trace: the panel says how it was computed");
    ctrl_keys(&a, KEY_RIGHT, 40);
    expect_true(a.hover.col == w.cols - 1, "it stops at the last key: %d", a.hover.col);
    /* the mouse on a token wins: the strongest line through it */
    app_free(&a);
}

static void test_heads_grid(void **state)
{
    (void)state;
    static App a;
    open_at(&a, "i read books today", ST_DEC_CROSS_WEIGHTS, 0, -1, VIEW_AUTO, 2, 1);
    expect_true(app_current_view(&a) == VIEW_HEADS, "all heads: the grid (%d)", (int)app_current_view(&a));
    expect_true(a.hover.valid && a.hover.layer == 0 && a.hover.head == 0 && a.hover.row == 2 && a.hover.col == 1,
                "the first head's cell (2, 1): valid %d layer %d head %d (%d, %d)", a.hover.valid, a.hover.layer,
                a.hover.head, a.hover.row, a.hover.col);
    int NH = a.ses.model.cfg.n_heads;
    ctrl_keys(&a, KEY_PAGEDOWN, NH + 2); /* past the first layer's heads: the second layer */
    TfView w;
    TfErr err;
    expect_true(a.cursor.room.thumbs >= 1, "the grid says how many heads it shows: %d", a.cursor.room.thumbs);
    int lo = a.cursor.room.thumb_lo, n = a.cursor.room.thumbs;
    int k = NH + 2 < lo + n ? NH + 2 : lo + n - 1;
    int l = k / NH, h = k % NH;
    expect_true(tf_view(&a.ses.trace, ST_DEC_CROSS_WEIGHTS, l, h, 0, &w, &err) == 0, "%s", err.msg);
    expect_true(a.hover.layer == l && a.hover.head == h && a.hover.value == tf_view_at(&w, 2, 1),
                "layer %d head %d's cell: layer %d head %d %g", l, h, a.hover.layer, a.hover.head, a.hover.value);
    ctrl_keys(&a, KEY_PAGEUP, 3 * NH);
    expect_true(a.hover.layer * NH + a.hover.head == lo, "back to the first head shown: layer %d head %d",
                a.hover.layer, a.hover.head);
    expect_true(cmd_find("cursor.head.next") && cmd_find("cursor.head.prev"), "Ctrl+PgUp / PgDn are in the table");
    app_free(&a);
}

/* The decode tab's mask and attention strips, the lens and the Q/K map:
 * the keyboard's cell reads out what the mouse would. */
typedef struct LabCase {
    const char *view, *pane, *stage;
    int row, col;
    const char *where; /* the hover's words begin so */
    int masked;        /* the value is −∞ */
} LabCase;

static void test_lab_and_decode_views(void **state)
{
    (void)state;
    static const LabCase CASES[] = {
        {"decode", "gen", NULL, 3, 2, "causal mask, position 3 reading position 2 (the past", 0},
        {"decode", "gen", NULL, 1, 4, "causal mask, position 1 reading position 4 (the future", 1},
        {"decode", "step", NULL, 1, 2, "step 7, cross-attention, layer 2, head 1: '书' → 'books'", 0},
        {"lens", NULL, "dec.self.weights", 1, 2, "layer 2, position 2: top", 0},
        {"qk-map", NULL, "enc.self.weights", 2, 1, "key books (position 2)", 0},
        {"qk-map", NULL, "enc.self.weights", 0, 0, "query i (position 0)", 0},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        const LabCase *c = &CASES[i];
        static App a;
        AppOpts o = tu_opts(MODEL, "i read books at home today", NULL, c->view);
        tu_open(&a, &o, 100);
        if (c->stage)
            app_goto(&a, (StageId)stage_find(c->stage), 0);
        if (c->pane)
            app_decode_setup(&a, c->pane, 4, 0.6f);
        a.ui.in.mx = a.ui.in.my = -100;
        tu_frame(&a);
        for (int k = 0; k < 200 && app_idle_work(&a) == 1; k++)
            tu_frame(&a);
        ev_key(&a, KEY_RIGHT, MOD_CTRL);
        ctrl_keys(&a, KEY_DOWN, c->row);
        ctrl_keys(&a, KEY_RIGHT, c->col);
        tu_frame(&a);
        expect_true(a.hover.valid && !strncmp(a.hover.where, c->where, strlen(c->where)),
                    "%s %s (%d, %d): '%s', want '%s…'", c->view, c->pane ? c->pane : "", c->row, c->col,
                    a.hover.where, c->where);
        expect_true(c->masked ? isinf(a.hover.value) : isfinite(a.hover.value), "%s: value %g", c->view,
                    a.hover.value);
        if (c->pane && !strcmp(c->pane, "step")) { /* the status line prints the weight, not a token id */
            tu_drawn_frame(&a, tu_ren);
            char want[96];
            snprintf(want, sizeof want, "= %.9g", a.hover.value);
            expect_true(a.hover.value > 0.001f && strstr(tu_drawn.text, want) != NULL, "the status line says '%s'",
                        want);
        }
        app_free(&a);
    }
}

/* Ctrl+Enter and Alt+Enter do at the keyboard's cell what a click and an
 * Alt+click do there: follow the row's token; hide the column's source
 * token; in All heads, ablate the cell's head. */
static void test_enter_at_the_cell(void **state)
{
    (void)state;
    static App a;
    open_at(&a, "i read books at home today", ST_ENC_SELF_WEIGHTS, 0, 1, VIEW_AUTO, 2, 3);
    expect_true(a.hover.row == 2 && a.hover.col == 3, "the cell (2, 3)");
    ev_key(&a, KEY_RETURN, MOD_CTRL);
    expect_true(a.sel.side == 1 && a.sel.index == 2, "Ctrl+Enter follows the row's source token: side %d index %d",
                a.sel.side, a.sel.index);
    tu_frame(&a);
    ev_key(&a, KEY_RETURN, MOD_CTRL);
    expect_true(a.sel.side == 0, "again: no token followed");
    ev_key(&a, KEY_RETURN, MOD_ALT);
    expect_true(tf_exp_hidden(&a.ses.exp, 3), "Alt+Enter hides the column's source token 3");
    tu_frame(&a);
    ev_key(&a, KEY_RETURN, MOD_ALT);
    expect_true(!tf_exp_hidden(&a.ses.exp, 3) && tf_exp_is_none(&a.ses.exp), "again: shown");
    app_free(&a);
    open_at(&a, "i read books today", ST_DEC_CROSS_WEIGHTS, 0, -1, VIEW_AUTO, 1, 1);
    ctrl_keys(&a, KEY_PAGEDOWN, 2);
    expect_true(app_current_view(&a) == VIEW_HEADS && a.hover.head == 2, "all heads, the cell in head 3 (%d)",
                a.hover.head + 1);
    ev_key(&a, KEY_RETURN, MOD_ALT);
    expect_true(tf_exp_ablated(&a.ses.exp, TF_ATTN_CROSS, a.hover.layer, 2), "Alt+Enter ablates that head");
    expect_true(cmd_find("cursor.select") && cmd_find("cursor.alt"), "the keys are in the table");
    app_free(&a);
}

/* The difference map (D with an experiment on): the keyboard's cell reads
 * both passes' values and the sign as a glyph, as the hover does. */
static void test_difference_map(void **state)
{
    (void)state;
    static App a;
    open_at(&a, "i read books at home today", ST_ENC_SELF_WEIGHTS, 0, 0, VIEW_AUTO, 0, 0);
    TfExperiment e = {0};
    e.no_scale = 1;
    app_set_exp(&a, &e);
    app_compute_all(&a);
    a.cmp = CMP_DIFF;
    ctrl_keys(&a, KEY_DOWN, 2);
    ctrl_keys(&a, KEY_RIGHT, 3);
    tu_frame(&a);
    expect_true(a.hover.valid && a.hover.row == 2 && a.hover.col == 3, "the cell (2, 3): (%d, %d)", a.hover.row,
                a.hover.col);
    expect_true(strstr(a.hover.where, "experiment") && strstr(a.hover.where, "normal") &&
                    (strstr(a.hover.where, "▲") || strstr(a.hover.where, "▼") || strstr(a.hover.where, "= difference")),
                "both values and the sign: %s", a.hover.where);
    app_free(&a);
}

/* The views whose values were the mouse's alone: the keyboard's cell (a
 * bar, a node, a point, a tile's cell) reads out as the hover would. */
typedef struct OwnCase {
    const char *view, *pane, *stage;
    int thumbs, row, col; /* Ctrl+PgDn presses, then the cell */
    const char *where;    /* the hover's words begin so */
} OwnCase;

/* To look at the cell: with CELL_PNG_DIR set, the window as it is now
 * in both languages at 1280x800 and 800x600, into that folder as
 * NAME-WxH-LANG.png (the size and language put back after). */
static void shoot(App *a, const char *name)
{
    const char *dir = getenv("CELL_PNG_DIR");
    char loc[4096];
    if (dir && paths_locale(loc, sizeof loc))
        ui_i18n_init(loc); /* the Chinese words */
    for (int i = 0; dir && i < 4; i++) {
        char path[512];
        TfErr e;
        int w = i < 2 ? 1280 : 800, h = i < 2 ? 800 : 600;
        ren_resize_headless(tu_ren, w, h);
        a->look.lang = i % 2;
        tu_frame(a);
        snprintf(path, sizeof path, "%s/%s-%dx%d-%s.png", dir, name, w, h, i % 2 ? "zh" : "en");
        expect_true(ren_save_png(tu_ren, path, &e) == 0, "%s: %s", path, e.msg);
    }
    if (dir) {
        ren_resize_headless(tu_ren, 1280, 800);
        a->look.lang = 0;
        tu_frame(a);
    }
}

/* The app on c's view, the mouse away, every computation finished; then
 * the cell switched on and moved as c says. */
static void open_case(App *a, const OwnCase *c)
{
    AppOpts o = tu_opts(MODEL, "i read books at home today", NULL, c->view);
    tu_open(a, &o, 100);
    if (c->stage)
        app_goto(a, (StageId)stage_find(c->stage), 0);
    if (c->pane)
        app_decode_setup(a, c->pane, 4, 0.6f);
    a->ui.in.mx = a->ui.in.my = -100;
    tu_frame(a);
    for (int k = 0; k < 400 && (app_idle_work(a) == 1 || a->redraw_soon); k++)
        tu_frame(a);
    for (int k = 0; k < 12; k++) /* the cost view measures a length a frame */
        tu_frame(a);
    expect_true(!a->hover.valid, "%s: nothing read out before a key ('%s')", c->view, a->hover.where);
    ev_key(a, KEY_RIGHT, MOD_CTRL);
    ctrl_keys(a, KEY_PAGEDOWN, c->thumbs);
    ctrl_keys(a, KEY_DOWN, c->row);
    ctrl_keys(a, KEY_RIGHT, c->col);
    tu_frame(a);
}

static void test_views_of_their_own(void **state)
{
    (void)state;
    static const OwnCase CASES[] = {
        {"decode", "sample", NULL, 0, 2, 0, "p('"},
        {"decode", "beam", NULL, 0, 0, 2, "step 2, "},
        {"cost", NULL, NULL, 0, 1, 2, "FFN, n = "},
        {"cost", NULL, NULL, 0, 2, 0, "self-attention, n = "},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        const OwnCase *c = &CASES[i];
        static App a;
        open_case(&a, c);
        expect_true(a.hover.valid && a.hover.own && !strncmp(a.hover.where, c->where, strlen(c->where)),
                    "%s %s (%d, %d): '%s', want '%s…'", c->view, c->pane ? c->pane : "", c->row, c->col,
                    a.hover.where, c->where);
        char first[sizeof a.hover.where];
        snprintf(first, sizeof first, "%s", a.hover.where);
        float v0 = a.hover.value;
        ctrl_keys(&a, KEY_DOWN, 1);
        ctrl_keys(&a, KEY_RIGHT, 1);
        expect_true(a.hover.valid && strcmp(a.hover.where, first) != 0, "%s: the next cell reads another ('%s')",
                    c->view, a.hover.where);
        if (c->pane && !strcmp(c->pane, "sample"))
            expect_true(a.hover.value <= v0 && v0 > 0, "%s: the bars in order of probability: %g then %g", c->pane,
                        v0, a.hover.value);
        char name[64];
        snprintf(name, sizeof name, "%s-%s-%zu", c->view, c->pane ? c->pane : "", i);
        shoot(&a, name);
        app_free(&a);
    }
}

/* The output view: the cell is a position's card and a bar in it; the
 * value is that token's probability in the trace, the k-th largest. */
static void test_output_bars(void **state)
{
    (void)state;
    static App a;
    OwnCase c = {"output", NULL, "out.probs", 0, 2, 1, ""};
    open_case(&a, &c);
    const TfTrace *tr = &a.ses.trace;
    int V = a.ses.model.cfg.tgt_vocab;
    expect_true(a.hover.valid && !a.hover.own && a.hover.stage == ST_OUT_PROBS && a.hover.row == 2,
                "position 2's bar: valid %d stage %d row %d", a.hover.valid, (int)a.hover.stage, a.hover.row);
    const float *p = tr->probs + (size_t)2 * V;
    int above = 0;
    for (int j = 0; j < V; j++)
        above += p[j] > p[a.hover.col];
    expect_true(a.hover.col >= 0 && a.hover.col < V && a.hover.value == p[a.hover.col] && above == 1,
                "the second most probable token after position 2: id %d, p %g, %d above it", a.hover.col,
                a.hover.value, above);
    shoot(&a, "output");
    app_free(&a);
}

/* The waves: the cell's column a position, its row a curve (the chips'
 * order); the value is the table's PE(pos, dim). Add & Norm: the cell is
 * in one heatmap at a time, Ctrl+PgDn the next, and reads that one. */
static void test_waves_and_norm(void **state)
{
    (void)state;
    static App a;
    OwnCase c = {"pe", NULL, "pos.enc", 0, 1, 3, "PE(pos 3, dim "};
    open_case(&a, &c);
    int C = a.ses.model.cfg.d_model;
    expect_true(a.hover.valid && a.hover.stage == ST_POS_ENC && a.hover.row == 3 &&
                    !strncmp(a.hover.where, c.where, strlen(c.where)),
                "position 3 on the second curve: '%s'", a.hover.where);
    expect_true(a.hover.col >= 0 && a.hover.col < C && a.hover.value == a.ses.pe[3 * C + a.hover.col],
                "PE(3, %d) = %g, the table's %g", a.hover.col, a.hover.value, a.ses.pe[3 * C + a.hover.col]);
    int dim = a.hover.col;
    ctrl_keys(&a, KEY_DOWN, 1);
    expect_true(a.hover.row == 3 && a.hover.col != dim, "the next curve: dim %d, not %d", a.hover.col, dim);
    shoot(&a, "pe");
    app_free(&a);
    static const char *const PART[4] = {"enc.input", "enc.self.out", "enc.add1", "enc.norm1"};
    for (int k = 0; k < 4; k++) {
        OwnCase n = {"norm", NULL, "enc.norm1", k, 1, 3, ""};
        open_case(&a, &n);
        StageId want = (StageId)stage_find(PART[k]);
        TfView tv;
        TfErr err;
        expect_true(tf_view(&a.ses.trace, want, 0, -1, 0, &tv, &err) == 0, "%s: %s", PART[k], err.msg);
        expect_true(a.hover.valid && a.hover.stage == want && a.hover.row == 1 && a.hover.col == 3 &&
                        a.hover.value == tf_view_at(&tv, 1, 3),
                    "Ctrl+PgDn x%d: the cell (1, 3) of %s: stage %s (%d, %d) %g", k, PART[k],
                    stage_info(a.hover.stage)->name, a.hover.row, a.hover.col, a.hover.value);
        if (k == 2)
            shoot(&a, "norm");
        app_free(&a);
    }
}

/* The Train tab's probe: the tiles of every head (Ctrl+PgDn the tile),
 * the cell in it, read as the mouse's hover over that tile. */
static void test_train_tiles(void **state)
{
    (void)state;
    static App a;
    tu_open_train(&a, MODEL, 20);
    a.ui.in.mx = a.ui.in.my = -100;
    for (int k = 0; k < 20; k++)
        tu_frame(&a);
    expect_true(a.train && a.train->show.probe.step >= 0, "the probe ran");
    int NH = a.train->show.cfg.n_heads;
    TrainUi *u = a.vstate[VIEW_TRAIN];
    u->head = -1; /* "all": the tiles alone */
    tu_frame(&a);
    ev_key(&a, KEY_RIGHT, MOD_CTRL);
    ctrl_keys(&a, KEY_PAGEDOWN, NH + 1); /* layer 2, head 2 */
    ctrl_keys(&a, KEY_DOWN, 1);
    ctrl_keys(&a, KEY_RIGHT, 2);
    expect_true(a.hover.valid && strstr(a.hover.where, "layer 2 head 2 ·") != NULL, "layer 2 head 2's cell: '%s'",
                a.hover.where);
    shoot(&a, "train-tiles");
    u->head = 2; /* one head big (the tiles under it): the cell is in the big one */
    ctrl_keys(&a, KEY_RIGHT, 1);
    expect_true(a.hover.valid && strstr(a.hover.where, "head 3 ·") != NULL, "the big head's cell: '%s'",
                a.hover.where);
    app_free(&a);
}

TU_RENDERER(1280, 800)

int main(void)
{
    TU_RUN_HEADLESS(setup, teardown, cmocka_unit_test(test_keys_move_the_cell), cmocka_unit_test(test_mask_view),
                    cmocka_unit_test(test_lines_view), cmocka_unit_test(test_heads_grid),
                    cmocka_unit_test(test_lab_and_decode_views), cmocka_unit_test(test_enter_at_the_cell),
                    cmocka_unit_test(test_difference_map), cmocka_unit_test(test_views_of_their_own),
                    cmocka_unit_test(test_output_bars), cmocka_unit_test(test_waves_and_norm),
                    cmocka_unit_test(test_train_tiles));
}
