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
 * each block of d_k columns "head 1" … "head 8"; one head's Q has none. */
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

int main(void)
{
    TU_RUN(setup, teardown, cmocka_unit_test(test_pictures), cmocka_unit_test(test_head_blocks));
}
