/* test_app_text.c - the window's text fields through the widget context
 * (ui_text.c) with real events and frames: a click gives a line the
 * keyboard, Tab moves between the lines, a selection is replaced by typing,
 * cut and paste go through the clipboard hooks, a click elsewhere takes the
 * keyboard away, and a view's field that is no longer drawn loses it (no
 * typing into a hidden field). */
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "test_app_util.h"
#include "test_util.h"

static char MODEL[160];

TU_FIXTURE(MODEL, "text.safetensors", 1280, 800)

/* Where the 1280 x 800 frame puts the lines and the main view. */
enum { LINE_X = 600, SRC_Y = 731, TGT_Y = 761, MAIN_X = 600, MAIN_Y = 400 };

static void click(App *a, int x, int y)
{
    ev_mouse(a, IN_MOUSE_MOVE, x, y, 0);
    ev_mouse(a, IN_MOUSE_DOWN, x, y, MB_LEFT);
    ev_mouse(a, IN_MOUSE_UP, x, y, MB_LEFT);
    tu_frame(a);
}

static char g_clip[256];
static char *fake_paste(void)
{
    return g_clip[0] ? strdup(g_clip) : NULL;
}
static void fake_copy(const char *t)
{
    snprintf(g_clip, sizeof g_clip, "%s", t);
}

static void test_lines(void **state)
{
    (void)state;
    static App a;
    tu_open_src(&a, MODEL, "t5 t6", 100);
    a.ui.paste = fake_paste;
    a.ui.copy = fake_copy;
    tu_frame(&a);
    click(&a, LINE_X, SRC_Y);
    expect_true(app_focused_line(&a) == APP_LINE_SRC && a.ui.edit.cursor == 5,
                "a click gives the source line the keyboard, the cursor at its end (%d, %d)", app_focused_line(&a),
                a.ui.edit.cursor);
    ev_key(&a, KEY_TAB, 0);
    expect_true(app_focused_line(&a) == APP_LINE_TGT, "Tab: the target line");
    ev_key(&a, KEY_TAB, MOD_SHIFT);
    expect_true(app_focused_line(&a) == APP_LINE_SRC, "Shift+Tab: back to the source line");
    ev_key(&a, KEY_HOME, MOD_SHIFT);
    ev_text(&a, "t7");
    tu_frame(&a);
    expect_true(!strcmp(a.ses.src_line, "t7") && a.ses.src_n[0] == 1, "typing replaces the selection: '%s'",
                a.ses.src_line);
    ev_key(&a, 'a', MOD_CTRL);
    ev_key(&a, 'x', MOD_CTRL);
    expect_true(!a.ses.src_line[0] && !strcmp(g_clip, "t7"), "Ctrl+A, Ctrl+X: '%s' cut, '%s' left", g_clip,
                a.ses.src_line);
    ev_key(&a, 'v', MOD_CTRL);
    ev_key(&a, 'v', MOD_CTRL);
    tu_frame(&a);
    expect_true(!strcmp(a.ses.src_line, "t7t7"), "pasted twice: '%s'", a.ses.src_line);
    click(&a, MAIN_X, MAIN_Y);
    expect_true(!a.ui.focus, "a click in the main view leaves the line (focus %u)", a.ui.focus);
    click(&a, LINE_X, TGT_Y);
    expect_true(app_focused_line(&a) == APP_LINE_TGT, "a click on the target line");
    click(&a, LINE_X, SRC_Y);
    expect_true(app_focused_line(&a) == APP_LINE_SRC, "then on the source line: it moves there");
    app_free(&a);
}

static void test_hidden_field(void **state)
{
    (void)state;
    static App a;
    AppOpts o = tu_opts(MODEL, "t5 t6", NULL, NULL);
    o.stage = "out.probs";
    tu_open(&a, &o, 100);
    tu_frame(&a);
    expect_true(app_current_view(&a) == VIEW_OUTPUT, "the output view (%s)", view_name(app_current_view(&a)));
    char *find = view_output_find_text(a.vstate[VIEW_OUTPUT]);
    ui_focus_text(&a.ui, ui_id_ptr(&a.ui, find), find, SES_TEXT_MAX);
    tu_frame(&a);
    ev_text(&a, "t6");
    expect_true(ui_editing(&a.ui, find) && !strcmp(find, "t6"), "typed into the search field: '%s'", find);
    ev_key(&a, KEY_ESCAPE, 0);
    ui_focus_text(&a.ui, ui_id_ptr(&a.ui, find), find, SES_TEXT_MAX);
    app_step(&a, -1); /* another stage: the output view and its field are not drawn */
    tu_frame(&a);
    expect_true(!a.ui.focus, "a field not drawn loses the keyboard (focus %u)", a.ui.focus);
    ev_text(&a, "x");
    expect_true(!strcmp(find, "t6"), "nothing typed into it: '%s'", find);
    app_free(&a);
}

/* A window left with the keyboard in the Source line: the caret asks for
 * a frame at each blink for a while, then the window sleeps until an
 * event (app_next_wake_ms < 0; it used to wake every 0.3 s for ever). */
static void test_idle_focus_sleeps(void **state)
{
    (void)state;
    static App a;
    tu_open_src(&a, MODEL, "t5 t6", 100);
    tu_frame(&a);
    app_focus_line(&a, APP_LINE_SRC);
    int frames = 0, ms;
    double t0 = a.now;
    while ((ms = app_next_wake_ms(&a)) >= 0 && frames < 1000) {
        a.now += ms * 1e-3;
        app_frame(&a, tu_ren);
        frames++;
    }
    expect_true(ms < 0 && frames <= 25 && app_focused_line(&a) == APP_LINE_SRC,
                "%d frames in %.1f s, then asleep (wake %d) with the line still focused", frames, a.now - t0, ms);
    ev_text(&a, "x");
    tu_frame(&a);
    expect_true(app_next_wake_ms(&a) >= 0, "typing: the caret blinks again");
    app_free(&a);
}

int main(void)
{
    TU_RUN(setup, teardown,
           cmocka_unit_test(test_lines),
           cmocka_unit_test(test_hidden_field),
           cmocka_unit_test(test_idle_focus_sleeps));
}
