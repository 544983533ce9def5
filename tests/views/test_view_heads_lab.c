/* test_view_heads_lab.c - the heads lab in the window, on the bundled en2zh
 * model:
 *   - the Heads table is docked under the all-heads thumbnails with a row
 *     per head; a click on a row selects it and outlines its thumbnail
 *     (pixels change around it), a click on a thumbnail selects its row;
 *   - importance asked for with the table's button is measured paced: each
 *     frame does a budget, the table shows the progress, and at the end
 *     the figures equal tf_importance's over the same pairs; sorting by
 *     delta nll puts the largest first, and thumbnails' frames grow;
 *   - the Lens view's last row is the output's top token at every position;
 *   - the Q/K map names the token of a hovered point, and both are in the
 *     tabs of an attention stage (the lens of a decoder stage); its Data
 *     set button gathers the model's held-out pairs over frames, and then a
 *     hovered dot names its token and its pair; This sentence goes back;
 *   - R turns the heatmap into the rollout (the drawn value is rollout's),
 *     and the lines view too (a hovered token names the rollout's strongest
 *     line through it, with its value). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "heads_host.h"
#include "heads_lab.h"
#include "heads_pairs.h"
#include "heads_table.h"
#include "rollout.h"
#include "test_app_util.h"
#include "test_util.h"
#include "view.h"

#define MODEL "assets/models/en2zh.safetensors"
#define AREA ((Rect){0, 0, 1000, 760})

static char g_model[96];
TU_FIXTURE(g_model, "view-heads-lab", 1280, 800)

static void open_at(App *a, const char *stage, int layer, int head)
{
    AppOpts o = tu_opts(MODEL, "i read books today", NULL, NULL);
    tu_open(a, &o, 100);
    app_goto(a, (StageId)stage_find(stage), layer);
    app_set_head(a, head);
    a->anim_start = 0;
}

static void frame(App *a, ViewId id)
{
    tu_view_frame(a, tu_ren, id, AREA);
    ren_end(tu_ren);
}

static void click_at(App *a, ViewId id, int x, int y)
{
    ev_mouse(a, IN_MOUSE_MOVE, x, y, MB_LEFT);
    ev_mouse(a, IN_MOUSE_DOWN, x, y, MB_LEFT);
    frame(a, id);
    ev_mouse(a, IN_MOUSE_UP, x, y, MB_LEFT);
}

/* A hover on the grid's thumbnail of layer at[0], head at[1]. */
static int on_thumb(const Hover *h, const void *arg)
{
    const int *at = arg;
    return h->valid && !h->own && h->layer == at[0] && h->head == at[1];
}

/* A hover of the Q/K map on the key "books". */
static int on_key_books(const Hover *h, const void *arg)
{
    (void)arg;
    return h->valid && h->own && strstr(h->where, "key books");
}

/* Where on screen the hover says thumbnail (layer, head) is (the upper
 * half of the view holds the grid); the mouse is moved off after. */
static int find_thumb(App *a, int layer, int head, int *hx, int *hy)
{
    int at[2] = {layer, head};
    Rect grid = {AREA.x, AREA.y, AREA.w, AREA.h / 2};
    int found = tu_hover_find(a, VIEW_HEADS, AREA, grid, 7, 7, on_thumb, at, hx, hy);
    a->ui.in.mx = a->ui.in.my = -1;
    return found;
}

static void test_table_and_importance(void **state)
{
    (void)state;
    static App a;
    open_at(&a, "dec.cross.weights", 1, -1);
    frame(&a, VIEW_HEADS);
    const HeadsTable *t = view_heads_table(a.vstate[VIEW_HEADS]);
    expect_true(t->shown, "the table is docked under the thumbnails at %dx%d", AREA.w, AREA.h);
    ev_key(&a, 'a', 0);
    frame(&a, VIEW_HEADS);
    expect_true(!t->shown, "A hides it");
    ev_key(&a, 'a', 0);
    frame(&a, VIEW_HEADS);
    expect_true(t->shown, "A again shows it");
    /* a thumbnail's click selects its row */
    int hx = -1, hy = -1;
    expect_true(find_thumb(&a, 1, 2, &hx, &hy), "layer 2 head 3's thumbnail under the mouse");
    click_at(&a, VIEW_HEADS, hx, hy);
    expect_true(heads_table_is_sel(t, TF_ATTN_CROSS, 1, 2) && app_current_view(&a) == VIEW_HEADS,
                "the click selected its row and stayed in the view");
    /* importance, paced (a budget a frame) on a file of 24 pairs */
    char tsv[256];
    tu_tmp(tsv, sizeof tsv, "heads-lab.tsv");
    FILE *f = fopen(tsv, "w");
    assert_non_null(f);
    for (int i = 0; i < 4; i++)
        fputs("i read books today\t我 今天 读 书\nyou love china\t你 爱 中国\nthey drink tea at home\t他们 在 家 喝 茶\n"
              "she does not eat rice\t她 不 吃 米饭\ndo you like music\t你 喜欢 音乐 吗 ？\nwe watch movies\t我们 看 电影\n",
              f);
    fclose(f);
    ViewOut o;
    memset(&o, 0, sizeof o);
    o.imp_start = 1;
    snprintf(o.imp_file, sizeof o.imp_file, "%s", tsv);
    hhost_apply(&a, &o);
    expect_true(a.hlab->imp_state == HLAB_IMP_RUNNING && a.hlab->pairs.n == 24, "24 pairs to measure on: %s",
                a.hlab->imp_error);
    int frames = 0;
    while (a.hlab->imp_state == HLAB_IMP_RUNNING && frames < 100000) {
        frame(&a, VIEW_HEADS);
        frames++;
    }
    expect_true(a.hlab->imp_state == HLAB_IMP_DONE, "importance measured (state %d: %s)", (int)a.hlab->imp_state,
                a.hlab->imp_error);
    printf("  %d pairs over %d frames\n", a.hlab->pairs.n, frames);
    remove(tsv);
    expect_true(frames > 2, "spread over frames (%d), never one frozen frame", frames);
    /* the same figures as the engine's in one go */
    TfHeadImportance *want = calloc((size_t)a.hlab->imp.n_heads, sizeof *want);
    TfErr err;
    expect_true(tf_importance(&a.ses.model, a.hlab->pairs.pairs, a.hlab->pairs.n, 1, want, &err) == 0, "%s",
                err.msg);
    double worst = 0;
    for (int i = 0; i < a.hlab->imp.n_heads; i++)
        worst = fmax(worst, fabs(want[i].delta_nll - a.hlab->imp_nll[i]));
    expect_true(worst < 1e-9, "paced = at once, worst %.3g", worst);
    free(want);
    /* the biggest frame goes to the most important cross head */
    frame(&a, VIEW_HEADS);
    int best = 0, bl = 0, bh = 0;
    for (int l = 0; l < 2; l++)
        for (int h = 0; h < 8; h++) {
            ViewCall c;
            app_view_begin(&a, VIEW_HEADS, &c);
            c.sc.imp.n = a.hlab->imp.n_heads;
            c.sc.imp.delta_nll = a.hlab->imp_nll;
            int fw = heads_table_frame(&c.v, TF_ATTN_CROSS, l, h);
            app_view_end(&a, &c);
            if (fw > best)
                best = fw, bl = l, bh = h;
        }
    int i_best = heads_table_index(&a.ses.model.cfg, TF_ATTN_CROSS, bl, bh);
    for (int l = 0; l < 2; l++)
        for (int h = 0; h < 8; h++)
            expect_true(a.hlab->imp_nll[heads_table_index(&a.ses.model.cfg, TF_ATTN_CROSS, l, h)] <=
                            a.hlab->imp_nll[i_best] + 1e-12,
                        "the widest frame (%d px, L%d H%d) is the most important cross head", best, bl + 1, bh + 1);
    expect_true(best > 1, "importance widens a frame (%d px)", best);
    app_free(&a);
}

static void test_lens_and_qk(void **state)
{
    (void)state;
    static App a;
    open_at(&a, "dec.cross.q", 1, 0);
    int qk = tu_offers(&a, VIEW_QKMAP), lens = tu_offers(&a, VIEW_LENS);
    expect_true(qk && lens, "dec.cross.q offers the Q/K map (%d) and the lens (%d)", qk, lens);
    app_compute_all(&a);
    frame(&a, VIEW_LENS);
    const HlabLens *l = &a.hlab->lens;
    const TfTrace *tr = &a.ses.trace;
    int V = a.ses.model.cfg.tgt_vocab;
    expect_true(l->ids && l->layers == 2 && l->T == tr->T, "the lens of 2 layers x %d positions", tr->T);
    for (int t = 0; t < tr->T; t++) {
        const float *p = tr->probs + (size_t)t * V;
        int arg = 0;
        for (int v = 1; v < V; v++)
            arg = p[v] > p[arg] ? v : arg;
        expect_true(l->ids[((size_t)1 * l->T + t) * l->k] == arg && l->p[((size_t)1 * l->T + t) * l->k] == p[arg],
                    "position %d: the last row's top token is the output's (%d)", t, arg);
    }
    /* the map: hover every point until one names a key */
    frame(&a, VIEW_QKMAP);
    expect_true(a.hlab->qk_ok && a.hlab->qk.map.nq == tr->tgt_len[0] && a.hlab->qk.map.nk == tr->src_len[0],
                "a map of %d queries and %d keys", a.hlab->qk.map.nq, a.hlab->qk.map.nk);
    int x = -1, y = -1;
    expect_true(tu_hover_find(&a, VIEW_QKMAP, AREA, AREA, 4, 4, on_key_books, NULL, &x, &y),
                "hovering finds the key 'books'");
    app_free(&a);
}

static void test_rollout_mode(void **state)
{
    (void)state;
    static App a;
    open_at(&a, "enc.self.weights", 1, 0);
    a.rollout = 1;
    app_compute_all(&a);
    float want[64];
    TfErr err;
    expect_true(tf_rollout_enc(&a.ses.trace, 1, 0, want, &err) == 0, "%s", err.msg);
    int S = a.ses.trace.S, hits = 0;
    for (int y = AREA.y; y < AREA.y + AREA.h; y += 9)
        for (int x = AREA.x; x < AREA.x + AREA.w; x += 9) {
            a.ui.in.mx = x;
            a.ui.in.my = y;
            frame(&a, VIEW_MATRIX);
            if (a.hover.valid && a.hover.row < S && a.hover.col < S) {
                expect_true(a.hover.value == want[a.hover.row * S + a.hover.col],
                            "cell (%d, %d) shows the rollout %g, got %g", a.hover.row, a.hover.col,
                            want[a.hover.row * S + a.hover.col], a.hover.value);
                hits++;
            }
        }
    expect_true(hits > 10, "%d cells hovered", hits);
    app_free(&a);
}

/* R on the lines view of cross-attention: hovering a token names the
 * strongest line of dec.cross.rollout through it (not of a head). */
static void test_lines_rollout(void **state)
{
    (void)state;
    static App a;
    open_at(&a, "dec.cross.weights", 1, 0);
    a.rollout = 1;
    app_compute_all(&a);
    float want[256];
    TfErr err;
    const TfTrace *tr = &a.ses.trace;
    int S = tr->S, T = tr->T, hits = 0;
    assert_true(S * T <= 256);
    expect_true(tf_rollout_cross(tr, 1, 0, want, &err) == 0, "%s", err.msg);
    for (int y = AREA.y; y < AREA.y + AREA.h; y += 9)
        for (int x = AREA.x; x < AREA.x + AREA.w; x += 41) {
            a.ui.in.mx = x;
            a.ui.in.my = y;
            frame(&a, VIEW_LINES);
            const Hover *h = &a.hover;
            if (!h->valid || h->row >= tr->tgt_len[0] || h->col >= tr->src_len[0])
                continue;
            /* the hovered token is the row's query or the column's key: the
             * value is the largest of its row or of its column */
            float v = want[h->row * S + h->col], row_max = 0, col_max = 0;
            for (int j = 0; j < tr->src_len[0]; j++)
                row_max = fmaxf(row_max, want[h->row * S + j]);
            for (int i = 0; i < tr->tgt_len[0]; i++)
                col_max = fmaxf(col_max, want[i * S + h->col]);
            expect_true(h->value == v && (v == row_max || v == col_max) && strstr(h->where, "rollout"),
                        "(%d, %d): the rollout's %g, the strongest of its token, got %g (%s)", h->row, h->col, v,
                        h->value, h->where);
            hits++;
        }
    expect_true(hits > 5, "%d tokens hovered", hits);
    app_free(&a);
}

/* A hover of the Q/K map on a point of a data set's pair (its text named). */
static int on_pair_point(const Hover *h, const void *arg)
{
    (void)arg;
    return h->valid && h->own && strstr(h->where, " of «") && strstr(h->where, " → ");
}

/* Click the button labelled label in view id (found among the strings a
 * frame draws); 0 when it is not drawn. */
static int click_label(App *a, ViewId id, const char *label)
{
    tu_drawn_start();
    frame(a, id);
    tu_drawn_stop();
    int i = tu_drawn_find(label, NULL);
    if (i < 0)
        return 0;
    Rect b = tu_drawn.box[i];
    click_at(a, id, b.x + b.w / 2, b.y + b.h / 2);
    frame(a, id);
    return 1;
}

static void test_qk_data_set(void **state)
{
    (void)state;
    static App a;
    open_at(&a, "dec.cross.weights", 1, 2);
    app_compute_all(&a);
    frame(&a, VIEW_QKMAP);
    expect_true(click_label(&a, VIEW_QKMAP, "Data set"), "the Q/K map has a Data set button");
    expect_true(a.hlab && a.hlab->qkd_on && a.hlab->qkd.state != QKD_NONE, "the click starts the data set");
    int frames = 0;
    while (a.hlab->qkd.state == QKD_RUNNING && frames < 2000) {
        frame(&a, VIEW_QKMAP);
        frames++;
    }
    frame(&a, VIEW_QKMAP);
    const HlabQk *q = &a.hlab->qk;
    int pairs = a.hlab->qkd.pairs.n;
    expect_true(a.hlab->qkd.state == QKD_DONE && a.hlab->qk_ok && q->data && q->n_sent == pairs + 1 && pairs >= 100,
                "%d pairs gathered over %d frames: a map of %d sentences", pairs, frames, q->n_sent);
    expect_true(q->map.nq + q->map.nk > 1000, "thousands of points: %d", q->map.nq + q->map.nk);
    int x = -1, y = -1;
    expect_true(tu_hover_find(&a, VIEW_QKMAP, AREA, AREA, 3, 3, on_pair_point, NULL, &x, &y),
                "hovering a dot names its token and its pair");
    a.ui.in.mx = a.ui.in.my = -1;
    /* as narrow as 800x600 makes it: the file's field on a line of its own */
    tu_drawn_start();
    tu_view_frame(&a, tu_ren, VIEW_QKMAP, (Rect){0, 0, 390, 430});
    ren_end(tu_ren);
    tu_drawn_stop();
    expect_true(strstr(tu_drawn.text, "pairs.tsv (empty: the model's data)") != NULL,
                "a narrow view over a data set still has the file's field");
    expect_true(click_label(&a, VIEW_QKMAP, "This sentence"), "a This sentence button");
    frame(&a, VIEW_QKMAP);
    expect_true(!a.hlab->qkd_on && a.hlab->qk_ok && a.hlab->qk.n_sent == 1 &&
                    a.hlab->qk.map.nq == a.ses.trace.tgt_len[0],
                "This sentence: the sentence's points alone (%d)", a.hlab->qk.map.nq);
    app_free(&a);
}

/* The Q/K map's labels of the sentence shown keep apart, in a view as
 * small as 800x600 gives it (the lesson's sentence: 读 and "books" used to
 * be drawn over each other). */
static void test_qk_labels_apart(void **state)
{
    (void)state;
    static App a;
    AppOpts o = tu_opts(MODEL, "i read books at home today", NULL, NULL);
    tu_open(&a, &o, 100);
    app_goto(&a, (StageId)stage_find("dec.cross.q"), 1);
    app_set_head(&a, 3);
    app_compute_all(&a);
    Rect small = {0, 0, 390, 430};
    tu_view_frame(&a, tu_ren, VIEW_QKMAP, small);
    ren_end(tu_ren);
    tu_drawn_start();
    tu_view_frame(&a, tu_ren, VIEW_QKMAP, small);
    ren_end(tu_ren);
    tu_drawn_stop();
    static const char *const TOK[] = {"i", "read", "books", "at", "home", "today", "<bos>", "我", "今天", "在", "家",
                                      "读", "书"};
    int idx[32], n = 0;
    for (int i = 0; i < tu_drawn.n && n < 32; i++)
        for (size_t k = 0; k < sizeof TOK / sizeof TOK[0]; k++)
            if (!strcmp(tu_drawn.s[i], TOK[k]))
                idx[n++] = i;
    expect_true(n >= 13, "every token labelled: %d labels", n);
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            Rect p = tu_drawn.box[idx[i]], q = tu_drawn.box[idx[j]];
            int over = p.x < q.x + q.w && q.x < p.x + p.w && p.y < q.y + q.h && q.y < p.y + p.h;
            expect_true(!over, "labels '%s' (%d,%d %dx%d) and '%s' (%d,%d %dx%d) overlap", tu_drawn.s[idx[i]], p.x,
                        p.y, p.w, p.h, tu_drawn.s[idx[j]], q.x, q.y, q.w, q.h);
        }
    app_free(&a);
}

int main(void)
{
    TU_RUN(setup, teardown, cmocka_unit_test(test_table_and_importance), cmocka_unit_test(test_lens_and_qk),
           cmocka_unit_test(test_rollout_mode), cmocka_unit_test(test_lines_rollout),
           cmocka_unit_test(test_qk_data_set), cmocka_unit_test(test_qk_labels_apart));
}
