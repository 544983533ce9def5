/* test_view_attention_output.c - the attention views (all-heads grid,
 * attention lines, mask matrices) and the top-k output bars, drawn on a
 * headless renderer and checked against the engine's own numbers.
 *
 * The views keep their geometry to themselves, so the tests find it the way
 * a learner would: by pointing. Moving the mouse over the view and reading
 * the App's hover says which cell (layer, head, row, column) is under a pixel;
 * the pixels there are then read back and compared with what the engine
 * computed (a −∞ mask cell must look masked, the argmax bar must be the
 * longest, a bigger weight must draw a thicker line). Clicks go through
 * app_event() as synthetic input events. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "checkpoint.h"
#include "heads_table.h"
#include "test_app_util.h"
#include "test_util.h"
#include "view.h"

#define W 1000 /* the headless frame: AREA and a margin */
#define H 760

static char g_model[256];
static uint32_t g_px[W * H];

/* The area the views are drawn into (as frame.c would hand it over). */
static const Rect AREA = {40, 30, 900, 700};

static int setup(void **state)
{
    (void)state;
    return tu_fixture_open(g_model, sizeof g_model, "view-attn.safetensors", 40, 48, 11, W, H);
}

static int teardown(void **state)
{
    (void)state;
    tu_fixture_close(g_model);
    return 0;
}

/* ---- driving the app ---- */

static void open_app(App *a, const char **src, int n, const char *tgt)
{
    AppOpts o = tu_opts(g_model, NULL, tgt, NULL);
    for (int i = 0; i < n; i++)
        o.src[i] = src[i];
    o.n_src = n;
    o.no_save = 0;
    tu_open(a, &o, 100);
    expect_true(a->ses.input_error[0] == 0, "the input runs, got: %s", a->ses.input_error);
    a->anim_start = 0;
}

/* The same with one source sentence. */
static void open_one(App *a, const char *src, const char *tgt)
{
    open_app(a, &src, 1, tgt);
}

typedef ViewId ViewFn;

/* One frame of just this view in `area`; the frame stays open so its
 * pixels can be read (end_frame closes it). */
static void view_frame(App *a, ViewFn fn, Rect area)
{
    tu_view_frame(a, tu_ren, fn, area);
    expect_true(a->gfx != NULL, "drawing resources, got none (%s)", a->ses.input_error);
}

static void end_frame(void)
{
    ren_end(tu_ren);
}

/* What the view says is under (x, y). */
static Hover probe(App *a, ViewFn fn, Rect area, int x, int y)
{
    a->ui.in.mx = x;
    a->ui.in.my = y;
    view_frame(a, fn, area);
    end_frame();
    Hover h = a->hover;
    a->ui.in.mx = a->ui.in.my = -1;
    return h;
}

/* A click as SDL delivers it: motion, button down, a frame, button up. */
static void click(App *a, ViewFn fn, Rect area, int x, int y)
{
    ev_mouse(a, IN_MOUSE_MOVE, x, y, MB_LEFT);
    ev_mouse(a, IN_MOUSE_DOWN, x, y, MB_LEFT);
    view_frame(a, fn, area);
    end_frame();
    ev_mouse(a, IN_MOUSE_UP, x, y, MB_LEFT);
}

/* ---- reading pixels ---- */

static float lum_of(uint32_t p)
{
    return 0.2126f * (p >> 24) + 0.7152f * ((p >> 16) & 255) + 0.0722f * ((p >> 8) & 255);
}

static int cmp_float(const void *x, const void *y)
{
    float a = *(const float *)x, b = *(const float *)y;
    return a < b ? -1 : a > b;
}

/* Median luminance and median red-minus-blue of the pixels of rc: the
 * colour of a cell's base, whatever text or hatching lies on top. */
static void cell_look(Rect rc, float *lum, float *warm)
{
    static float l[W * 64], w[W * 64];
    static uint32_t px[W * 64];
    if (rc.w * rc.h > W * 64)
        rc.h = W * 64 / rc.w;
    ren_read_pixels(tu_ren, rc, px);
    int n = rc.w * rc.h;
    for (int i = 0; i < n; i++) {
        l[i] = lum_of(px[i]);
        w[i] = (float)(int)(px[i] >> 24) - (float)(int)((px[i] >> 8) & 255);
    }
    qsort(l, (size_t)n, sizeof *l, cmp_float);
    qsort(w, (size_t)n, sizeof *w, cmp_float);
    *lum = l[n / 2];
    *warm = w[n / 2];
}

/* ---- finding a matrix's cells by pointing at them ---- */

typedef struct Cells {
    int rows, cols;
    int x0[APP_CAP_T], x1[APP_CAP_T], y0[APP_CAP_T], y1[APP_CAP_T]; /* pixels seen in each */
} Cells;

/* From (hx, hy) outwards along one axis (0: across, over the columns; 1:
 * down, over the rows), two pixels at a time, until stage st's n cells on
 * it end: the first and the last pixel of each into lo and hi. */
static void sweep(App *a, ViewFn fn, Rect area, StageId st, int hx, int hy, int axis, int n, int *lo, int *hi)
{
    int from = axis ? area.y : area.x, to = from + (axis ? area.h : area.w);
    for (int dir = -1; dir <= 1; dir += 2)
        for (int p = axis ? hy : hx; p >= from && p < to; p += 2 * dir) {
            Hover h = probe(a, fn, area, axis ? hx : p, axis ? p : hy);
            int k = axis ? h.row : h.col;
            if (!h.valid || h.stage != st || k < 0 || k >= n)
                break;
            lo[k] = p < lo[k] ? p : lo[k];
            hi[k] = p > hi[k] ? p : hi[k];
        }
}

/* Where each row and column of stage st's cells lies in the view: a coarse
 * scan finds one cell, then a line across and a line down it, two pixels
 * at a time, find every column and row. Returns 0 when all were found. */
static int find_cells(App *a, ViewFn fn, Rect area, StageId st, int rows, int cols, Cells *C)
{
    memset(C, 0, sizeof *C);
    C->rows = rows;
    C->cols = cols;
    for (int i = 0; i < APP_CAP_T; i++)
        C->x0[i] = C->y0[i] = 1 << 30, C->x1[i] = C->y1[i] = -1;
    int hx = -1, hy = -1;
    /* matrices sit at the left under a header: look down one line first */
    for (int y = area.y; y < area.y + area.h && hx < 0; y += 8) {
        Hover h = probe(a, fn, area, area.x + area.w / 5, y);
        if (h.valid && h.stage == st)
            hx = area.x + area.w / 5, hy = y;
    }
    for (int y = area.y; y < area.y + area.h && hx < 0; y += 16)
        for (int x = area.x; x < area.x + area.w && hx < 0; x += 16) {
            Hover h = probe(a, fn, area, x, y);
            if (h.valid && h.stage == st)
                hx = x, hy = y;
        }
    if (hx < 0)
        return -1;
    /* from the cell found, outwards until the matrix ends */
    sweep(a, fn, area, st, hx, hy, 0, cols, C->x0, C->x1);
    sweep(a, fn, area, st, hx, hy, 1, rows, C->y0, C->y1);
    for (int j = 0; j < cols; j++)
        if (C->x1[j] < 0)
            return -1;
    for (int i = 0; i < rows; i++)
        if (C->y1[i] < 0)
            return -1;
    return 0;
}

/* The inside of cell (i, j), away from its border and the hover frame. */
static Rect cell_inside(const Cells *C, int i, int j)
{
    return (Rect){C->x0[j] + 3, C->y0[i] + 3, C->x1[j] - C->x0[j] - 5, C->y1[i] - C->y0[i] - 5};
}

/* ------------------------------------------------------------ the mask */

static void test_mask_causal(void **state)
{
    (void)state;
    static App a;
    open_one(&a, "t5 t6 t7", "t8 t9 t10 t11 t12");
    app_goto(&a, ST_DEC_SELF_MASK, 0);
    expect_true(app_current_view(&a) == VIEW_MASK, "the mask stage opens the mask view, got view %d",
                app_current_view(&a));
    TfView mv;
    TfErr err;
    expect_true(tf_view(&a.ses.trace, ST_DEC_SELF_MASK, 0, -1, 0, &mv, &err) == 0, "mask view: %s", err.msg);
    expect_true(mv.rows == 6 && mv.cols == 6, "<bos> + 5 tokens: a 6 x 6 mask, got %d x %d", mv.rows, mv.cols);
    Cells C;
    expect_true(find_cells(&a, VIEW_MASK, AREA, ST_DEC_SELF_MASK, mv.rows, mv.cols, &C) == 0,
                "every row and column of the mask found under the mouse, got%s", " some missing");
    view_frame(&a, VIEW_MASK, AREA);
    int bad = 0;
    for (int i = 0; i < mv.rows; i++)
        for (int j = 0; j < mv.cols; j++) {
            float x = tf_view_at(&mv, i, j), lum, warm;
            int masked = isinf(x) && x < 0;
            if (masked != (j > i)) {
                printf("  engine: cell (%d,%d) = %g, expected %s\n", i, j, x, j > i ? "-inf" : "0");
                bad++;
            }
            cell_look(cell_inside(&C, i, j), &lum, &warm);
            /* dark theme: 0 is a light cell, -inf a dark hatched one */
            if (masked ? !(lum < 60) : !(lum > 150)) {
                printf("  cell (%d,%d) value %g: expected a %s cell, got median luminance %.0f\n", i, j, x,
                       masked ? "dark (-inf)" : "light (0)", lum);
                bad++;
            }
        }
    end_frame();
    expect_true(bad == 0, "every cell above the diagonal looks masked and every other one allowed, got %d wrong",
                bad);
    app_free(&a);
}

static void test_mask_padding_batch(void **state)
{
    (void)state;
    static App a;
    const char *src[] = {"t5 t6 t7 t8 t9 t10", "t5 t6"};
    open_app(&a, src, 2, NULL);
    app_goto(&a, ST_ENC_SELF_MASK, 0);
    session_set_batch(&a.ses, 1);
    TfView mv;
    TfErr err;
    expect_true(tf_view(&a.ses.trace, ST_ENC_SELF_MASK, 0, -1, 1, &mv, &err) == 0, "mask view: %s", err.msg);
    int kn = a.ses.trace.src_len[1];
    expect_true(kn == 2 && mv.cols == 6, "sentence 2 has 2 tokens padded to 6, got %d of %d", kn, mv.cols);
    Cells C;
    expect_true(find_cells(&a, VIEW_MASK, AREA, ST_ENC_SELF_MASK, mv.rows, mv.cols, &C) == 0,
                "every row and column of the mask found under the mouse, got%s", " some missing");
    view_frame(&a, VIEW_MASK, AREA);
    int bad = 0;
    float zero_real = 0, zero_ignored = 0;
    for (int i = 0; i < mv.rows; i++)
        for (int j = 0; j < mv.cols; j++) {
            float x = tf_view_at(&mv, i, j), lum, warm;
            int masked = isinf(x) && x < 0;
            if (masked != (j >= kn)) {
                printf("  engine: cell (%d,%d) = %g, expected %s\n", i, j, x, j >= kn ? "-inf" : "0");
                bad++;
            }
            cell_look(cell_inside(&C, i, j), &lum, &warm);
            if (i >= kn) { /* an ignored query row: faded, but 0 still lighter */
                if (j == 0)
                    zero_ignored = lum;
                continue;
            }
            if (j == 0)
                zero_real = lum;
            if (masked && !(lum < 100 && warm > 25)) {
                printf("  cell (%d,%d): expected the padding look (dark, warm), got luminance %.0f, red-blue %.0f\n",
                       i, j, lum, warm);
                bad++;
            }
            if (!masked && !(lum > 150)) {
                printf("  cell (%d,%d): expected a light 0 cell, got luminance %.0f\n", i, j, lum);
                bad++;
            }
        }
    end_frame();
    expect_true(bad == 0, "padding keys look masked, real keys allowed, got %d wrong", bad);
    expect_true(zero_ignored < zero_real - 40 && zero_ignored > 60,
                "a padded query row is faded (its 0 cell darker than a real row's, still lighter than -inf): "
                "got %.0f vs %.0f", zero_ignored, zero_real);
    app_free(&a);
}

/* ---------------------------------------------------------- the output */

/* Longest run of exactly colour c along row y between x0 and x1. */
static int longest_run(int y, int x0, int x1, uint32_t c)
{
    ren_read_pixels(tu_ren, (Rect){x0, y, x1 - x0, 1}, g_px);
    int best = 0, run = 0;
    for (int i = 0; i < x1 - x0; i++) {
        run = g_px[i] == c ? run + 1 : 0;
        best = run > best ? run : best;
    }
    return best;
}

static void test_output_bars(void **state)
{
    (void)state;
    static App a;
    open_one(&a, "t5 t6 t7", NULL);
    app_goto(&a, ST_OUT_PROBS, 0);
    expect_true(app_current_view(&a) == VIEW_OUTPUT, "out.probs opens the output view, got %d",
                app_current_view(&a));
    /* the engine's top 5 after <bos> */
    int V = a.ses.model.cfg.tgt_vocab, order[64];
    const float *p = a.ses.trace.probs; /* sentence 0, position 0 */
    for (int v = 0; v < V; v++)
        order[v] = v;
    for (int i = 0; i < 5; i++)
        for (int j = i + 1; j < V; j++)
            if (p[order[j]] > p[order[i]]) {
                int t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
    /* point down the first card to find its bars */
    int ids[16], y0[16], y1[16], n = 0, x = AREA.x + 40;
    for (int y = AREA.y; y < AREA.y + AREA.h && n < 16; y += 2) {
        Hover h = probe(&a, VIEW_OUTPUT, AREA, x, y);
        if (!h.valid || h.stage != ST_OUT_PROBS || h.row != 0)
            continue;
        if (n == 0 || ids[n - 1] != h.col) {
            expect_true(fabsf(h.value - p[h.col]) == 0, "a bar reports the engine's probability %g, got %g",
                        p[h.col], h.value);
            ids[n] = h.col;
            y0[n] = y1[n] = y;
            n++;
        } else {
            y1[n - 1] = y;
        }
    }
    expect_true(n >= 5, "at least 5 bars for position 0, got %d", n);
    for (int r = 0; r < 5; r++)
        expect_true(ids[r] == order[r], "bar %d is token %d (p %.4f), got token %d (p %.4f)", r, order[r],
                    p[order[r]], ids[r], p[ids[r]]);
    /* how far the first card reaches */
    int right = x;
    while (right < AREA.x + AREA.w) {
        Hover h = probe(&a, VIEW_OUTPUT, AREA, right + 2, (y0[0] + y1[0]) / 2);
        if (!h.valid || h.row != 0)
            break;
        right += 2;
    }
    view_frame(&a, VIEW_OUTPUT, AREA);
    const Theme *th = theme_get(a.look.theme);
    int len[5];
    for (int r = 0; r < 5; r++)
        len[r] = longest_run((y0[r] + y1[r]) / 2, AREA.x, right, cmap_pack(r == 0 ? th->accent : th->dim));
    end_frame();
    printf("  bars: p %.4f %.4f %.4f %.4f %.4f -> %d %d %d %d %d px\n", p[order[0]], p[order[1]], p[order[2]],
           p[order[3]], p[order[4]], len[0], len[1], len[2], len[3], len[4]);
    for (int r = 1; r < 5; r++) {
        expect_true(len[r] <= len[r - 1] + 1, "bar %d (p %.4f) no longer than bar %d (p %.4f): got %d and %d px",
                    r, p[order[r]], r - 1, p[order[r - 1]], len[r], len[r - 1]);
        float want = len[0] * p[order[r]] / p[order[0]];
        expect_true(fabsf(len[r] - want) <= 2, "bar %d is p/p_max of the argmax bar: %.1f px, got %d", r, want,
                    len[r]);
    }
    expect_true(len[0] > 10, "the argmax bar is drawn in the accent colour, got a run of %d px", len[0]);
    app_free(&a);
}

static void test_output_truth_marked(void **state)
{
    (void)state;
    static App a;
    open_one(&a, "t5 t6 t7", "t8 t9");
    app_goto(&a, ST_OUT_PROBS, 0);
    expect_true(a.ses.tgt_auto == 0, "a typed target is used for teacher forcing, got tgt_auto %d", a.ses.tgt_auto);
    /* after <bos> the true next token is t8; its row (if in the top k) is
     * green when it is the argmax and red otherwise */
    int V = a.ses.model.cfg.tgt_vocab, truth = a.ses.trace.tgt_ids[1], best = 0;
    const float *p = a.ses.trace.probs;
    for (int v = 1; v < V; v++)
        best = p[v] > p[best] ? v : best;
    int seen = 0, x = AREA.x + 40;
    const Theme *th = theme_get(a.look.theme);
    for (int y = AREA.y; y < AREA.y + AREA.h && !seen; y += 2) {
        Hover h = probe(&a, VIEW_OUTPUT, AREA, x, y);
        if (!h.valid || h.row != 0 || h.col != truth)
            continue;
        seen = 1;
        view_frame(&a, VIEW_OUTPUT, AREA);
        uint32_t want = cmap_pack(best == truth ? th->good : th->bad);
        int run = longest_run(y + 1, AREA.x, AREA.x + AREA.w / 2, want);
        end_frame();
        expect_true(run >= 1, "the true token's bar is %s, got no pixel of that colour",
                    best == truth ? "green" : "red");
    }
    printf("  true next token %d (p %.4f), argmax %d: %s\n", truth, p[truth], best,
           seen ? "in the top k" : "below the top k");
    app_free(&a);
}

/* ----------------------------------------------------------- the lines */

/* Runs of pixels down column x (between ya and yb) that are not the page:
 * their starts and lengths. */
static int ink_runs(int x, int ya, int yb, uint32_t bg, int *start, int *len, int max)
{
    ren_read_pixels(tu_ren, (Rect){x, ya, 1, yb - ya}, g_px);
    int n = 0, in = 0;
    for (int i = 0; i < yb - ya; i++) {
        uint32_t q = g_px[i];
        int d = 0;
        for (int s = 8; s < 32; s += 8) {
            int k = abs((int)((q >> s) & 255) - (int)((bg >> s) & 255));
            d = k > d ? k : d;
        }
        if (d > 16 && !in && n < max) {
            start[n] = ya + i;
            len[n++] = 0;
        }
        in = d > 16;
        if (in && n)
            len[n - 1]++;
    }
    return n;
}

/* The (layer, head) of enc self-attention where w[0][0] and w[1][1] differ
 * the most, relative to the smaller. */
static float best_pair(const App *a, StageId st, int *layer, int *head)
{
    float best = 0;
    for (int l = 0; l < a->ses.model.cfg.n_enc; l++)
        for (int h = 0; h < a->ses.model.cfg.n_heads; h++) {
            TfView w;
            TfErr err;
            if (tf_view(&a->ses.trace, st, l, h, 0, &w, &err))
                continue;
            float x = tf_view_at(&w, 0, 0), y = tf_view_at(&w, 1, 1);
            float r = x > y ? x / y : y / x;
            if (r > best) {
                best = r;
                *layer = l;
                *head = h;
            }
        }
    return best;
}

static void test_lines_thickness(void **state)
{
    (void)state;
    static App a;
    open_one(&a, "t5 t6", NULL);
    /* a two-token sentence whose self-attention has one clearly stronger
     * self-pair: lines (0,0) and (1,1) are then horizontal and apart */
    int layer = 0, head = 0;
    float ratio = 0;
    char line[32];
    for (int k = 5; k < 35 && ratio < 2.0f; k++) {
        snprintf(line, sizeof line, "t%d t%d", k, k + 1);
        app_set_text(&a, APP_LINE_SRC, line);
        app_update(&a);
        ratio = best_pair(&a, ST_ENC_SELF_WEIGHTS, &layer, &head);
    }
    expect_true(ratio >= 1.5f, "a sentence where w00 and w11 differ by half, got ratio %.2f", ratio);
    app_goto(&a, ST_ENC_SELF_WEIGHTS, layer);
    app_set_head(&a, head);
    a.view = VIEW_LINES;
    TfView w;
    TfErr err;
    tf_view(&a.ses.trace, ST_ENC_SELF_WEIGHTS, layer, head, 0, &w, &err);
    float w00 = tf_view_at(&w, 0, 0), w11 = tf_view_at(&w, 1, 1);
    view_frame(&a, VIEW_LINES, AREA);
    uint32_t bg = cmap_pack(theme_get(a.look.theme)->bg);
    int st[16], ln[16];
    /* the curves meet the middle of the area half-way: (0,0) on top,
     * the two crossing ones, (1,1) at the bottom */
    int n = ink_runs(AREA.x + AREA.w / 2, AREA.y + 160, AREA.y + AREA.h, bg, st, ln, 16);
    end_frame();
    printf("  layer %d head %d: w00 %.3f, w11 %.3f; %d runs down the middle:", layer, head, w00, w11, n);
    for (int i = 0; i < n; i++)
        printf(" %d@%d", ln[i], st[i]);
    printf("\n");
    expect_true(n == 3, "three lines cross the middle ((0,0), the crossing pair, (1,1)), got %d", n);
    int top = ln[0], bottom = ln[n - 1];
    expect_true((w00 > w11) == (top > bottom) && abs(top - bottom) >= 2,
                "the bigger weight draws the thicker line: w00 %.3f vs w11 %.3f, got %d px vs %d px", w00, w11,
                top, bottom);
    app_free(&a);
}

static void test_lines_masked_pairs_draw_nothing(void **state)
{
    (void)state;
    static App a;
    open_one(&a, "t5 t6", "t7"); /* decoder input <bos> t7: two tokens */
    uint32_t bg = cmap_pack(theme_get(a.look.theme)->bg);
    int counts[2];
    for (int k = 0; k < 2; k++) {
        StageId st = k ? ST_DEC_SELF_WEIGHTS : ST_ENC_SELF_WEIGHTS;
        app_goto(&a, st, 0);
        app_set_head(&a, 0);
        a.view = VIEW_LINES;
        TfView w;
        TfErr err;
        tf_view(&a.ses.trace, st, 0, 0, 0, &w, &err);
        if (k)
            expect_true(tf_view_at(&w, 0, 1) == 0, "<bos> may not see the next token: weight 0, got %g",
                        tf_view_at(&w, 0, 1));
        view_frame(&a, VIEW_LINES, AREA);
        int s[16], l[16];
        /* a third of the way across, the two diagonal curves are apart */
        int n = ink_runs(AREA.x + AREA.w * 2 / 5, AREA.y + 160, AREA.y + AREA.h, bg, s, l, 16);
        end_frame();
        counts[k] = n;
    }
    expect_true(counts[0] == 4, "encoder (no mask): (0,0), (0,1), (1,0), (1,1) all drawn, got %d lines",
                counts[0]);
    expect_true(counts[1] == 3, "decoder: the masked pair (0,1) draws nothing, got %d lines", counts[1]);
    app_free(&a);
}

static void test_lines_click_selects(void **state)
{
    (void)state;
    static App a;
    open_one(&a, "t5 t6 t7 t8", NULL);
    app_goto(&a, ST_ENC_SELF_WEIGHTS, 0);
    a.view = VIEW_LINES;
    int hx = -1, hy = -1, row = -1;
    for (int x = AREA.x; x < AREA.x + AREA.w / 2 && hx < 0; x += 24)
        for (int y = AREA.y + 100; y < AREA.y + AREA.h && hx < 0; y += 8) {
            Hover h = probe(&a, VIEW_LINES, AREA, x, y);
            if (h.valid && h.row == 2)
                hx = x, hy = y, row = h.row;
        }
    expect_true(hx >= 0, "query token 2 found under the mouse, got %s", "nothing");
    click(&a, VIEW_LINES, AREA, hx, hy);
    expect_true(a.sel.side == 1 && a.sel.index == row, "clicking query 2 selects source token 2, got side %d index %d",
                a.sel.side, a.sel.index);
    click(&a, VIEW_LINES, AREA, hx, hy);
    expect_true(a.sel.side == 0, "clicking it again clears the selection, got side %d", a.sel.side);
    app_free(&a);
}

/* ----------------------------------------------------------- the heads */

static void test_heads_hover_and_click(void **state)
{
    (void)state;
    static App a;
    open_one(&a, "t5 t6 t7 t8", NULL);
    StageId sts[2] = {ST_ENC_SELF_WEIGHTS, ST_DEC_CROSS_SCORES};
    for (int k = 0; k < 2; k++) {
        app_goto(&a, sts[k], 0);
        app_set_head(&a, -1);
        a.view = VIEW_AUTO;
        expect_true(app_current_view(&a) == VIEW_HEADS, "head -1 shows every head, got view %d",
                    app_current_view(&a));
        int hx = -1, hy = -1, bad = 0, hits = 0;
        for (int y = AREA.y; y < AREA.y + AREA.h && (hx < 0 || hits < 40); y += 26)
            for (int x = AREA.x; x < AREA.x + AREA.w; x += 26) {
                Hover h = probe(&a, VIEW_HEADS, AREA, x, y);
                if (!h.valid)
                    continue;
                hits++;
                TfView tv;
                TfErr err;
                if (h.stage != sts[k] || tf_view(&a.ses.trace, h.stage, h.layer, h.head, h.b, &tv, &err) ||
                    tf_view_at(&tv, h.row, h.col) != h.value) {
                    if (bad++ < 3)
                        printf("  hover at (%d,%d): stage %d layer %d head %d (%d,%d) = %g, not the engine's\n", x,
                               y, h.stage, h.layer, h.head, h.row, h.col, h.value);
                }
                if (h.layer == 1 && h.head == 2 && hx < 0)
                    hx = x, hy = y;
            }
        expect_true(hits > 20 && bad == 0, "every hovered cell reports the engine's value, got %d of %d wrong", bad,
                    hits);
        expect_true(hx >= 0, "the thumbnail of layer 2 head 3 found under the mouse, got %s", "nothing");
        click(&a, VIEW_HEADS, AREA, hx, hy); /* beside the Heads table: the first click selects its row */
        const HeadsTable *tab = view_heads_table(a.vstate[VIEW_HEADS]);
        expect_true(tab->shown && heads_table_is_sel(tab, k == 0 ? TF_ATTN_ENC : TF_ATTN_CROSS, 1, 2),
                    "the first click selects the head's row in the table");
        click(&a, VIEW_HEADS, AREA, hx, hy); /* the selected one: opens it */
        StagePos p = app_pos(&a);
        expect_true(p.stage == sts[k] && p.layer == 1 && a.ses.head == 2 && a.view == VIEW_AUTO,
                    "the click opens %s layer 1 head 2, got stage %d layer %d head %d view %d",
                    stage_info(sts[k])->name, (int)p.stage, p.layer, a.ses.head, (int)a.view);
        expect_true(app_current_view(&a) == VIEW_MATRIX, "one head shows the heatmap, got view %d",
                    app_current_view(&a));
    }
    app_free(&a);
}

/* -------------------------------------------------- odd inputs and sizes */

/* Pixels outside rc that are not the page colour. */
static int ink_outside(Rect rc, uint32_t bg)
{
    ren_read_pixels(tu_ren, (Rect){0, 0, W, H}, g_px);
    int n = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            if (!(x >= rc.x && x < rc.x + rc.w && y >= rc.y && y < rc.y + rc.h))
                n += g_px[(size_t)y * W + x] != bg;
    return n;
}

static void test_degenerate_inputs_stay_inside(void **state)
{
    (void)state;
    static App a;
    const char *one[] = {"t5"};
    const char *four[] = {"t5", "t5 t6 t7 t8 t9 t10 t11", "t7 t8 t9",
                          "t5 t6 t7 t8 t9 t10 t11 t12 t13 t14 t15 t16"};
    const char *longs[] = {"t5 t6 t7 t8 t9 t10 t11 t12 t13 t14 t15 t16 t17 t18 t19 t20 t21 t22 t23 t24 t25 "
                           "t26 t27 t28 t29 t30 t31 t32 t33 t34 t35 t36"};
    struct { const char **src; int n; const char *tgt; } inputs[] = {
        {one, 1, NULL}, {one, 1, "t5"}, {four, 4, "t6 t7"}, {longs, 1, NULL}};
    ViewFn fns[4] = {VIEW_HEADS, VIEW_LINES, VIEW_MASK, VIEW_OUTPUT};
    StageId stages[4] = {ST_DEC_CROSS_WEIGHTS, ST_DEC_SELF_WEIGHTS, ST_DEC_SELF_MASK, ST_OUT_PROBS};
    Rect areas[] = {{280, 200, 700, 500}, {10, 10, 200, 150}, {5, 5, 30, 20}, {60, 60, 1, 1}, {100, 80, 420, 300}};
    int bad = 0, frames = 0;
    for (size_t in = 0; in < sizeof inputs / sizeof inputs[0]; in++) {
        open_app(&a, inputs[in].src, inputs[in].n, inputs[in].tgt);
        for (int th = 0; th < THEME_COUNT; th++)
            for (int k = 0; k < 4; k++)
                for (size_t ar = 0; ar < sizeof areas / sizeof areas[0]; ar++) {
                    if (th > 0 && ar != 0 && ar != 4)
                        continue; /* tiny areas once, in the dark theme */
                    a.look.theme = (ThemeId)th;
                    a.look.text_scale = ar == 4 ? 1.6f : 1.0f;
                    session_set_batch(&a.ses, (int)(ar % (size_t)a.ses.n_src));
                    app_goto(&a, stages[k], 1);
                    app_set_head(&a, k == 0 || (k == 1 && th == 1) ? -1 : 1);
                    /* the mouse somewhere inside, pressing, so hover and
                     * click paths run too */
                    a.ui.in.mx = areas[ar].x + areas[ar].w / 2;
                    a.ui.in.my = areas[ar].y + areas[ar].h / 2;
                    a.ui.in.pressed = (int)(ar == 0);
                    view_frame(&a, fns[k], areas[ar]);
                    int n = ink_outside(areas[ar], cmap_pack(theme_get(a.look.theme)->bg));
                    end_frame();
                    frames++;
                    if (n) {
                        if (bad < 5)
                            printf("  view %d input %zu theme %d area %dx%d at (%d,%d): %d pixels outside\n", k, in,
                                   th, areas[ar].w, areas[ar].h, areas[ar].x, areas[ar].y, n);
                        bad++;
                    }
                }
        app_free(&a);
    }
    expect_true(bad == 0, "nothing drawn outside the view's area in %d frames, got %d frames that spill", frames,
                bad);
}

/* The whole window, shrunk to 200x150 and at presenter size, on each view. */
static void test_whole_window_small(void **state)
{
    (void)state;
    static App a;
    const char *four[] = {"t5", "t5 t6 t7 t8 t9 t10 t11", "t7 t8 t9", "t9 t10"};
    open_app(&a, four, 4, NULL);
    int sizes[3][2] = {{200, 150}, {800, 600}, {1280, 800}};
    ViewId views[4] = {VIEW_HEADS, VIEW_LINES, VIEW_MASK, VIEW_OUTPUT};
    StageId stages[4] = {ST_ENC_SELF_SCORES, ST_DEC_CROSS_WEIGHTS, ST_DEC_CROSS_MASK, ST_OUT_PROBS};
    for (int s = 0; s < 3; s++) {
        expect_true(ren_resize_headless(tu_ren, sizes[s][0], sizes[s][1]) == 0, "resize to %dx%d, got a failure",
                    sizes[s][0], sizes[s][1]);
        for (int k = 0; k < 4; k++) {
            app_goto(&a, stages[k], 0);
            app_set_head(&a, k == 0 ? -1 : 0);
            a.view = views[k];
            a.look.text_scale = s == 1 ? 1.6f : 1.0f;
            session_set_batch(&a.ses, k);
            a.now += 1;
            app_frame(&a, tu_ren);
            expect_true(a.win.want_quit == 0, "the window keeps running, got want_quit %d", a.win.want_quit);
        }
    }
    ren_resize_headless(tu_ren, W, H);
    app_free(&a);
}

int main(void)
{
    TU_RUN_HEADLESS(setup, teardown,
                    cmocka_unit_test(test_mask_causal),
                    cmocka_unit_test(test_mask_padding_batch),
                    cmocka_unit_test(test_output_bars),
                    cmocka_unit_test(test_output_truth_marked),
                    cmocka_unit_test(test_lines_thickness),
                    cmocka_unit_test(test_lines_masked_pairs_draw_nothing),
                    cmocka_unit_test(test_lines_click_selects),
                    cmocka_unit_test(test_heads_hover_and_click),
                    cmocka_unit_test(test_degenerate_inputs_stay_inside),
                    cmocka_unit_test(test_whole_window_small));
}
