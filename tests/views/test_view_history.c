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

static char g_drawn[16384];

static void record(void *user, const char *utf8, int len, Rect box, const char *tag)
{
    (void)user;
    (void)box;
    (void)tag;
    size_t n = strlen(g_drawn);
    if (n + (size_t)len + 2 < sizeof g_drawn) {
        memcpy(g_drawn + n, utf8, (size_t)len);
        g_drawn[n + (size_t)len] = '\n';
        g_drawn[n + (size_t)len + 1] = 0;
    }
}

static void draw(App *a)
{
    strcpy(g_drawn, "\n");
    ren_text_hook(record, NULL);
    tu_view_frame(a, tu_ren, VIEW_HISTORY, (Rect){0, 0, 700, 640});
    ren_end(tu_ren);
    ren_text_hook(NULL, NULL);
}

static int count(const char *needle)
{
    int k = 0;
    for (const char *p = g_drawn; (p = strstr(p, needle)); p += strlen(needle))
        k++;
    return k;
}

static void test_pictures(void **state)
{
    (void)state;
    static App a;
    AppOpts o = tu_opts(MODEL, "i read books at home today", "我 今天 在 家 读 书", "history");
    o.stage = "dec.cross.weights";
    o.layer = 1;
    o.head = 0;
    tu_open(&a, &o, 1);
    expect_true(view_find("history") == VIEW_HISTORY, "view_find names the history view");
    ViewId ch[APP_MAX_VIEW_CHOICES];
    int nc = app_view_choices(&a, ch), in_tabs = 0;
    for (int i = 0; i < nc; i++)
        in_tabs |= ch[i] == VIEW_HISTORY;
    expect_true(!in_tabs, "not a tab of the stage");
    draw(&a);
    expect_true(strstr(g_drawn, "\nh1\n") && strstr(g_drawn, "\nh6\n") && !strstr(g_drawn, "\nh7\n") &&
                    strstr(g_drawn, "\nc\n") && strstr(g_drawn, "\ns6\n") && !strstr(g_drawn, "\ns7\n"),
                "six encoder states, c, six decoder states:\n%s", g_drawn);
    expect_true(strstr(g_drawn, "«我»") && count("α=1.00") == 1 && count("α=0.00") == 5,
                "the row 我 puts all its weight on one state (today), got:\n%s", g_drawn);
    a.sel = (Selection){2, 5}; /* the decoder input 读 */
    draw(&a);
    expect_true(strstr(g_drawn, "«读»") && count("α=1.00") == 1, "the row 读 too (books):\n%s", g_drawn);
    app_free(&a);
}

static void test_head_blocks(void **state)
{
    (void)state;
    static App a;
    AppOpts o = tu_opts(MODEL, "i read books at home today", NULL, "matrix");
    o.stage = "enc.self.q";
    o.layer = 0;
    o.head = -1;
    tu_open(&a, &o, 1);
    strcpy(g_drawn, "\n");
    ren_text_hook(record, NULL);
    tu_view_frame(&a, tu_ren, VIEW_MATRIX, (Rect){0, 0, 900, 640});
    ren_end(tu_ren);
    ren_text_hook(NULL, NULL);
    expect_true(strstr(g_drawn, "\nhead 1\n") && strstr(g_drawn, "\nhead 8\n") && !strstr(g_drawn, "\nhead 9\n"),
                "all heads: eight blocks named, got:\n%s", g_drawn);
    app_set_head(&a, 2);
    strcpy(g_drawn, "\n");
    ren_text_hook(record, NULL);
    tu_view_frame(&a, tu_ren, VIEW_MATRIX, (Rect){0, 0, 900, 640});
    ren_end(tu_ren);
    ren_text_hook(NULL, NULL);
    expect_true(!strstr(g_drawn, "\nhead 1\n"), "one head: no blocks");
    app_free(&a);
}

int main(void)
{
    TU_RUN(setup, teardown, cmocka_unit_test(test_pictures), cmocka_unit_test(test_head_blocks));
}
