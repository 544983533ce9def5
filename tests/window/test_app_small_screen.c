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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_tab_reachable),
        cmocka_unit_test(test_list_takes_its_click),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
