/* test_app_small_screen.c - the window on a small screen (800x600, as on
 * small laptops and old projectors): every view tab the stage offers can
 * be reached with the mouse, those that do not fit the tab bar through
 * its » list; the list takes its click (the view under it does not). The
 * bundled en2zh model, in English and Chinese, drawn headless; clicks go
 * through app_event() as synthetic events. */
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "paths.h"
#include "test_app_util.h"
#include "test_util.h"
#include "lesson_ui.h"

TU_RENDERER(800, 600)

static void click_at(App *a, int x, int y)
{
    ev_mouse(a, IN_MOUSE_MOVE, x, y, 0);
    ev_mouse(a, IN_MOUSE_DOWN, x, y, 1);
    tu_frame(a);
    ev_mouse(a, IN_MOUSE_UP, x, y, 1);
    tu_frame(a);
}

static void click_rect(App *a, Rect r)
{
    click_at(a, r.x + r.w / 2, r.y + r.h / 2);
}

/* Click tab v where the last frame drew it: in the bar, or in the » list
 * (opened first). 0 when it is in neither. */
static int click_tab(App *a, ViewId v)
{
    for (int i = 0; i < a->tabs_more.n_bar; i++)
        if (a->tabs_more.bar_view[i] == v) {
            click_rect(a, a->tabs_more.bar[i]);
            return 1;
        }
    int listed = -1;
    for (int i = 0; i < a->tabs_more.n; i++)
        if (a->tabs_more.view[i] == v)
            listed = i;
    if (listed < 0 || a->tabs_more.button.w <= 0)
        return 0;
    click_rect(a, a->tabs_more.button);
    if (!a->tabs_more.open)
        return 0;
    click_rect(a, a->tabs_more.item[listed]);
    return 1;
}

static void test_every_tab_reachable(void **state)
{
    (void)state;
    static App a;
    char dir[4096];
    int have_zh = paths_locale(dir, sizeof dir) && ui_i18n_init(dir) == 1;
    StageId sts[3] = {ST_DEC_CROSS_WEIGHTS, ST_SRC_TOKENS, ST_ENC_SELF_SCORES};
    for (int lang = 0; lang < (have_zh ? 2 : 1); lang++)
        for (int k = 0; k < 3; k++) {
            AppOpts o = tu_opts(NULL, "i read books today", NULL, NULL);
            o.lang = lang;
            tu_open(&a, &o, 100);
            app_goto(&a, sts[k], 0);
            app_set_head(&a, 0);
            tu_frame(&a);
            ViewId ch[8];
            int n = app_view_choices(&a, ch);
            expect_true(a.tabs_more.n_bar + a.tabs_more.n == n,
                        "lang %d %s: each of the %d tabs in the bar or the list: %d and %d", lang,
                        stage_info(sts[k])->name, n, a.tabs_more.n_bar, a.tabs_more.n);
            if (k == 0 && lang == 0)
                expect_true(a.tabs_more.n > 0, "at 800x600 some tabs of %s go to the » list, got %d",
                            stage_info(sts[k])->name, a.tabs_more.n);
            for (int i = 0; i < n; i++) {
                app_pick_tab(&a, ch[0]); /* from the natural view each time */
                app_set_head(&a, 0);
                tu_frame(&a);
                expect_true(click_tab(&a, ch[i]), "lang %d %s: the tab of view %d is drawn somewhere", lang,
                            stage_info(sts[k])->name, (int)ch[i]);
                ViewId got = app_current_view(&a);
                expect_true(got == ch[i], "lang %d %s: a click on the tab of view %d shows it, got view %d", lang,
                            stage_info(sts[k])->name, (int)ch[i], (int)got);
                expect_true(!a.tabs_more.open, "the list closes after a pick, got %s", "open");
            }
            app_free(&a);
        }
}

/* An open list takes the click: one outside it closes it and does not
 * reach the view (no stage change under a click in the navigator). */
static void test_list_takes_its_click(void **state)
{
    (void)state;
    static App a;
    AppOpts o = tu_opts(NULL, "i read books today", NULL, NULL);
    tu_open(&a, &o, 100);
    app_goto(&a, ST_DEC_CROSS_WEIGHTS, 0);
    app_set_head(&a, 0);
    tu_frame(&a);
    expect_true(a.tabs_more.button.w > 0, "a » button at 800x600, got width %d", a.tabs_more.button.w);
    click_rect(&a, a.tabs_more.button);
    expect_true(a.tabs_more.open, "a click on » opens the list, got %s", "closed");
    StagePos before = app_pos(&a);
    int hits = a.nav.n_hits;
    expect_true(hits > 0, "the navigator drew blocks, got %d", hits);
    Rect blk = a.nav.hits[0].r;
    click_rect(&a, blk);
    StagePos after = app_pos(&a);
    expect_true(!a.tabs_more.open, "a click elsewhere closes the list, got %s", "open");
    expect_true(after.stage == before.stage && after.layer == before.layer,
                "the click that closed the list did not move the stage: %d/%d -> %d/%d", (int)before.stage,
                before.layer, (int)after.stage, after.layer);
    click_rect(&a, blk);
    after = app_pos(&a);
    expect_true(after.stage != before.stage || after.layer != before.layer,
                "with the list closed the same click jumps (the block works): still %d", (int)after.stage);
    app_free(&a);
}

/* The strings the window drew outside the views, and whether s is one. */
typedef struct Seen {
    int down_mark;  /* "▼" */
    int how;        /* the "how it was computed" title */
    const char *how_title;
} Seen;

static void on_text(void *user, const char *s, int len, Rect box, const char *tag)
{
    Seen *d = user;
    (void)box;
    (void)tag;
    if (len == (int)strlen("▼") && strncmp(s, "▼", (size_t)len) == 0)
        d->down_mark = 1;
    if (len == (int)strlen(d->how_title) && strncmp(s, d->how_title, (size_t)len) == 0)
        d->how = 1;
}

static void frame_seen(App *a, Ren *r, Seen *d)
{
    d->down_mark = d->how = 0;
    ren_text_hook(on_text, d);
    a->now += 0.5;
    app_frame(a, r);
    ren_text_hook(NULL, NULL);
}

/* At 800x600 the explanation is taller than its panel: a ▼ says there is
 * more, and the wheel over the panel scrolls it. */
static void test_explanation_scrolls(void **state)
{
    (void)state;
    static App a;
    static Seen d;
    AppOpts o = tu_opts(NULL, "i read books today", NULL, NULL);
    tu_open(&a, &o, 100);
    app_goto(&a, ST_ENC_SELF_WEIGHTS, 0);
    app_set_head(&a, 0);
    app_pick_tab(&a, VIEW_DECODE); /* the longest explanation (as the review found it) */
    d.how_title = _("How this number was computed");
    frame_seen(&a, tu_ren, &d);
    expect_true(d.down_mark, "a ▼ under the Decode tab's explanation at 800x600 (content %d px), got %s", a.expl_content,
                "none");
    ev_mouse(&a, IN_MOUSE_MOVE, 700, 300, 0);
    ev_mouse(&a, IN_WHEEL, 700, 300, -3);
    frame_seen(&a, tu_ren, &d);
    expect_true(a.expl_scroll > 0, "the wheel over the panel scrolls the explanation, got offset %d",
                a.expl_scroll);
    app_pick_tab(&a, VIEW_MATRIX);
    frame_seen(&a, tu_ren, &d);
    expect_true(a.expl_scroll == 0, "another view's explanation starts at its top, got offset %d", a.expl_scroll);
    app_free(&a);
}

/* In a lesson the right panel is the lesson; hovering a cell still shows
 * how its number was computed, in a box under the lesson text. */
static void test_lesson_hover_shows_how(void **state)
{
    (void)state;
    static App a;
    static Seen d;
    TfErr err;
    Ren *r = ren_open_headless(1280, 800, &err);
    expect_true(r != NULL, "a renderer: %s", err.msg);
    for (int lang = 0; lang < 2; lang++) {
        AppOpts o = tu_opts(NULL, NULL, NULL, NULL);
        o.lesson = "attention";
        o.lesson_step = 3; /* "Scores: QKᵀ / √d_k": hover a cell */
        o.lang = lang;
        tu_open(&a, &o, 100);
        ui_set_lang(lang);
        d.how_title = _("How this number was computed");
        frame_seen(&a, r, &d);
        expect_true(lesson_ui_active(&a), "lang %d: the lesson is open, got %s", lang, "none");
        expect_true(a.heat.valid, "lang %d: the step shows a heatmap, got %s", lang, "none");
        expect_true(!d.how, "lang %d: no box before the mouse is over a cell, got %s", lang, "one");
        int x = a.heat.grid.x + (int)(1.5f * a.heat.cw), y = a.heat.grid.y + (int)(0.5f * a.heat.ch);
        ev_mouse(&a, IN_MOUSE_MOVE, x, y, 0);
        frame_seen(&a, r, &d);
        frame_seen(&a, r, &d);
        expect_true(a.hover.valid && a.hover.row == 0 && a.hover.col == 1,
                    "lang %d: the mouse is over cell (0, 1), got valid %d (%d, %d)", lang, a.hover.valid,
                    a.hover.row, a.hover.col);
        expect_true(d.how, "lang %d: the lesson panel shows how the number was computed, got %s", lang,
                    "nothing");
        app_free(&a);
    }
    ui_set_lang(0);
    ren_close(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_tab_reachable),
        cmocka_unit_test(test_list_takes_its_click),
        cmocka_unit_test(test_explanation_scrolls),
        cmocka_unit_test(test_lesson_hover_shows_how),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
