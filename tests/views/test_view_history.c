/* test_view_history.c - pictures the lessons lean on: the history view
 * (app/views/view_history.c) and the head blocks of the matrix view.
 * The history view (app/views/view_history.c) is the
 * two pictures of the lesson "Before the Transformer", drawn on the en2zh
 * model for "i read books at home today" → 我 今天 在 家 读 书:
 *   - the RNN picture has a state h1 … h6 per source token, the one vector
 *     c, and a decoder state s1 … s6 per token written;
 *   - the attention picture weighs every encoder state with the model's own
 *     cross-attention (the last decoder layer, the head shown) for the row
 *     after <bos>, 我, which reads "today" (α = 1.00, the others 0.00),
 *     or for the target token selected: 读 reads "books";
 *   - `view_find` names it; it is not among any stage's tabs (lessons
 *     open it).
 * The matrix view of Q (and the heads' concatenation) with all heads names
 * each block of d_k columns "head 1" … "head 8"; one head's Q has none.
 * The side-by-side view draws both passes of a stage (below). */
#include <math.h>
#include <string.h>

#include "app.h"
#include "test_app_util.h"
#include "test_util.h"
#include "view.h"

#define MODEL "assets/models/en2zh.safetensors"

static char g_model[96];
TU_FIXTURE(g_model, "view-history", 1280, 800)

/* Draw view id in area, recording its strings into tu_drawn. */
static void draw(App *a, ViewId id, Rect area)
{
    tu_drawn_start();
    tu_view_frame(a, tu_ren, id, area);
    ren_end(tu_ren);
    tu_drawn_stop();
}

/* The app on "i read books at home today" (and tgt, NULL: greedy) in view at
 * stage, layer and head, the clock at 1. */
static void open_at(App *a, const char *tgt, const char *view, const char *stage, int layer, int head)
{
    AppOpts o = tu_opts(MODEL, "i read books at home today", tgt, view);
    o.stage = stage;
    o.layer = layer;
    o.head = head;
    tu_open(a, &o, 1);
}

static int count(const char *needle)
{
    int k = 0;
    for (const char *p = tu_drawn.text; (p = strstr(p, needle)); p += strlen(needle))
        k++;
    return k;
}

static void test_pictures(void **state)
{
    (void)state;
    static App a;
    open_at(&a, "我 今天 在 家 读 书", "history", "dec.cross.weights", 1, 0);
    expect_true(view_find("history") == VIEW_HISTORY, "view_find names the history view");
    expect_true(!tu_offers(&a, VIEW_HISTORY), "not a tab of the stage");
    draw(&a, VIEW_HISTORY, (Rect){0, 0, 700, 640});
    expect_true(tu_drawn_count("h1", NULL) && tu_drawn_count("h6", NULL) && !tu_drawn_count("h7", NULL) &&
                    tu_drawn_count("c", NULL) && tu_drawn_count("s6", NULL) && !tu_drawn_count("s7", NULL),
                "six encoder states, c, six decoder states:\n%s", tu_drawn.text);
    expect_true(strstr(tu_drawn.text, "«我»") && count("α=1.00") == 1 && count("α=0.00") == 5,
                "the row 我 puts all its weight on one state (today), got:\n%s", tu_drawn.text);
    a.sel = (Selection){2, 5}; /* the decoder input 读 */
    draw(&a, VIEW_HISTORY, (Rect){0, 0, 700, 640});
    expect_true(strstr(tu_drawn.text, "«读»") && count("α=1.00") == 1, "the row 读 too (books):\n%s", tu_drawn.text);
    app_free(&a);
}

static void test_head_blocks(void **state)
{
    (void)state;
    static App a;
    open_at(&a, NULL, "matrix", "enc.self.q", 0, -1);
    draw(&a, VIEW_MATRIX, (Rect){0, 0, 900, 640});
    expect_true(tu_drawn_count("head 1", NULL) && tu_drawn_count("head 8", NULL) && !tu_drawn_count("head 9", NULL),
                "all heads: eight blocks named, got:\n%s", tu_drawn.text);
    app_set_head(&a, 2);
    draw(&a, VIEW_MATRIX, (Rect){0, 0, 900, 640});
    expect_true(!tu_drawn_count("head 1", NULL), "one head: no blocks");
    app_free(&a);
}


/* ---- side by side (app/views/view_side.c): the lesson "Why √d_k"'s scaled
 * weights beside the unscaled ones, "i read books today", encoder layer 1
 * head 2, no-scale:
 *   - both passes are drawn: every cell value of the normal pass's weights
 *     and of the experiment's, each pass under its own caption;
 *   - one colour scale: on scores (signed) both colour bars run to the same
 *     ±max, the larger of the two passes' |score|;
 *   - the mouse over a cell of the left side finds the normal pass's value
 *     and says so, over the right side the experiment's;
 *   - with no experiment it says what it needs and draws the one pass;
 *   - `view_find` names it; it is not among the stage's tabs. ---- */

static const Rect SIDE_AREA = {0, 0, 900, 600};

static void draw_side(App *a)
{
    tu_drawn_start();
    tu_view_frame(a, tu_ren, VIEW_SIDE, SIDE_AREA);
    ren_end(tu_ren);
    tu_drawn_stop();
}

/* The app at stage (layer 1, head 2) of "i read books today", with the
 * experiment no-scale when exp is set, everything computed. */
static void open_side(App *a, const char *stage, int exp)
{
    AppOpts o = tu_opts(MODEL, "i read books today", NULL, "side");
    o.stage = stage;
    o.layer = 0;
    o.head = 1;
    tu_open(a, &o, 1);
    if (exp) {
        TfExperiment e = {0};
        e.no_scale = 1;
        app_set_exp(a, &e);
    }
    app_compute_all(a);
}

/* How many of the drawn strings are v as the cells print it. */
static int drawn_value(float v)
{
    char buf[32];
    ui_fmt(buf, sizeof buf, v);
    return tu_drawn_count(buf, NULL);
}

/* Cells of tv whose printed value was drawn (values under 0.001 print as
 * ≈0 in a narrow cell and are not counted), and how many could be. */
static int values_drawn(const TfView *tv, int *could)
{
    int k = 0;
    *could = 0;
    for (int r = 0; r < tv->rows; r++)
        for (int c = 0; c < tv->cols; c++) {
            float x = tf_view_at(tv, r, c);
            if (fabsf(x) < 1e-3f)
                continue;
            (*could)++;
            k += drawn_value(x) > 0;
        }
    return k;
}

static void test_both_passes(void **state)
{
    (void)state;
    static App a;
    open_side(&a, "enc.self.weights", 1);
    expect_true(view_find("side") == VIEW_SIDE, "view_find names the side-by-side view");
    expect_true(!tu_offers(&a, VIEW_SIDE), "not a tab of the stage");
    TfView bv, ev;
    TfErr err;
    expect_true(session_base_ready(&a.ses), "the normal pass is computed beside the experiment");
    expect_true(!tf_view(&a.ses.ext.base, ST_ENC_SELF_WEIGHTS, 0, 1, 0, &bv, &err) &&
                    !tf_view(&a.ses.trace, ST_ENC_SELF_WEIGHTS, 0, 1, 0, &ev, &err),
                "both passes have the weights");
    draw_side(&a);
    int nb, ne, kb = values_drawn(&bv, &nb), ke = values_drawn(&ev, &ne);
    expect_true(nb > 8 && kb == nb, "the normal pass's %d cell values are drawn, got %d:\n%s", nb, kb, tu_drawn.text);
    expect_true(ne > 3 && ke == ne, "the experiment's %d cell values are drawn, got %d", ne, ke);
    /* read → books: 0.94 scaled, 0.9997 without the scale */
    float b = tf_view_at(&bv, 1, 2), e = tf_view_at(&ev, 1, 2);
    expect_true(b > 0.9f && b < 0.95f && e > 0.999f, "row read, key books: %g scaled, %g unscaled", b, e);
    expect_true(tu_drawn_count("normal: as trained", NULL) == 1 && tu_drawn_count("experiment: no-scale", NULL) == 1,
                "each side under its caption:\n%s", tu_drawn.text);
    app_free(&a);
}

static void test_one_scale(void **state)
{
    (void)state;
    static App a;
    open_side(&a, "enc.self.scores", 1);
    TfView bv, ev;
    TfErr err;
    expect_true(!tf_view(&a.ses.ext.base, ST_ENC_SELF_SCORES, 0, 1, 0, &bv, &err) &&
                    !tf_view(&a.ses.trace, ST_ENC_SELF_SCORES, 0, 1, 0, &ev, &err),
                "both passes have the scores");
    float mb = 0, me = 0;
    for (int r = 0; r < bv.rows; r++)
        for (int c = 0; c < bv.cols; c++) {
            mb = fmaxf(mb, fabsf(tf_view_at(&bv, r, c)));
            me = fmaxf(me, fabsf(tf_view_at(&ev, r, c)));
        }
    expect_true(me > 2 * mb, "unscaled scores reach further: %g against %g", me, mb);
    draw_side(&a);
    char hi[32], lo[32];
    ui_fmt(hi, sizeof hi, me);
    ui_fmt(lo, sizeof lo, -me);
    /* both bars' ends (the largest |score| may be a cell as well) */
    expect_true(tu_drawn_count(hi, NULL) >= 2 && tu_drawn_count(lo, NULL) >= 2,
                "both colour bars run from %s to %s:\n%s", lo, hi, tu_drawn.text);
    app_free(&a);
}

typedef struct Want {
    float value;
    const char *pass;
} Want;

static int hover_is(const Hover *h, const void *arg)
{
    const Want *w = arg;
    return h->valid && h->stage == ST_ENC_SELF_WEIGHTS && h->row == 1 && h->col == 2 && h->value == w->value &&
           strstr(h->where, w->pass) != NULL;
}

static void test_hover_says_which_pass(void **state)
{
    (void)state;
    static App a;
    open_side(&a, "enc.self.weights", 1);
    TfView bv, ev;
    TfErr err;
    tf_view(&a.ses.ext.base, ST_ENC_SELF_WEIGHTS, 0, 1, 0, &bv, &err);
    tf_view(&a.ses.trace, ST_ENC_SELF_WEIGHTS, 0, 1, 0, &ev, &err);
    int x, y;
    Want wb = {tf_view_at(&bv, 1, 2), "normal pass"}, we = {tf_view_at(&ev, 1, 2), "the experiment's pass"};
    Rect left = {SIDE_AREA.x, SIDE_AREA.y, SIDE_AREA.w / 2, SIDE_AREA.h / 2}, right = {SIDE_AREA.x + SIDE_AREA.w / 2, SIDE_AREA.y, SIDE_AREA.w / 2, SIDE_AREA.h / 2};
    expect_true(tu_hover_find(&a, VIEW_SIDE, SIDE_AREA, left, 6, 6, hover_is, &wb, &x, &y),
                "the left side's cell (read, books) is the normal pass's %g", wb.value);
    expect_true(a.hover.own, "no 'how it was computed' for one of two passes");
    expect_true(tu_hover_find(&a, VIEW_SIDE, SIDE_AREA, right, 6, 6, hover_is, &we, &x, &y),
                "the right side's cell (read, books) is the experiment's %g", we.value);
    app_free(&a);
}

static void test_without_experiment(void **state)
{
    (void)state;
    static App a;
    open_side(&a, "enc.self.weights", 0);
    draw_side(&a);
    expect_true(strstr(tu_drawn.text, "needs an experiment") != NULL, "it says it needs an experiment:\n%s",
                tu_drawn.text);
    expect_true(tu_drawn_count("normal: as trained", NULL) == 0, "and draws one pass, no captions");
    TfView tv;
    TfErr err;
    tf_view(&a.ses.trace, ST_ENC_SELF_WEIGHTS, 0, 1, 0, &tv, &err);
    expect_true(drawn_value(tf_view_at(&tv, 1, 2)) == 1, "the one pass's heatmap is drawn");
    app_free(&a);
}

int main(void)
{
    TU_RUN(setup, teardown, cmocka_unit_test(test_pictures), cmocka_unit_test(test_head_blocks),
           cmocka_unit_test(test_both_passes), cmocka_unit_test(test_one_scale),
           cmocka_unit_test(test_hover_says_which_pass), cmocka_unit_test(test_without_experiment));
}
