/* test_window_input.c - keys and clicks a new user makes by mistake or
 * expects to work, by synthetic events (as SDL sends them: a key, then
 * its text): a sentence typed with no field focused goes to the Source
 * line and leaves the theme, the lessons and the experiments as they were,
 * while shortcuts pressed one after another stay shortcuts; Backspace
 * resets the view; a click beside the Source field gives it the keyboard;
 * its × button clears it; a double click in it selects a word and a triple
 * click the line (SDL's click count); a click on a navigator block leaves the Train
 * tab for that stage's main view; ? lists the text fields' keys. */
#include <string.h>

#include "app.h"
#include "cmd_table.h"
#include "gui.h"
#include "lesson_ui.h"
#include "test_app_util.h"
#include "test_util.h"

static char MODEL[160];

TU_FIXTURE(MODEL, "input.safetensors", 1280, 800)

static void open_app(App *a, const char *src)
{
    tu_open_src(a, MODEL, src, 100);
    tu_frame(a);
}

/* One key as SDL gives it, dt seconds after the last. */
static void type_key(App *a, char c, double dt)
{
    a->now += dt;
    int shift = c >= 'A' && c <= 'Z';
    ev_key(a, (Key)(shift ? c - 'A' + 'a' : c), shift ? MOD_SHIFT : 0);
    char t[2] = {c, 0};
    ev_text(a, t);
}

static void type_text(App *a, const char *s, double dt)
{
    for (; *s; s++)
        type_key(a, *s, dt);
}

/* "the cat" typed on the view: the theme, the lessons, the experiments and
 * the colour map stay; the words land in the Source line. */
static void test_typed_words_go_to_the_source(void **state)
{
    (void)state;
    static App a;
    open_app(&a, "t5 t6");
    ThemeId theme = a.look.theme;
    CmapId cmap = a.look.cmap_prob, cmap_s = a.look.cmap_signed;
    ev_key(&a, KEY_ESCAPE, 0); /* nothing focused */
    a.win.want_quit = 0;
    expect_true(!a.ui.focus, "no field has the keyboard");
    type_text(&a, "the cat lez", 0.12);
    tu_frame(&a);
    expect_true(a.look.theme == theme && a.look.cmap_prob == cmap && a.look.cmap_signed == cmap_s,
                "the theme and colour maps are unchanged: theme %d (was %d)", a.look.theme, theme);
    expect_true(!lesson_ui_list_open(&a) && !a.show_exp && !session_has_exp(&a.ses) && a.look.lang == 0,
                "no lesson list, no Experiments panel, no experiment, English");
    expect_true(strcmp(a.ses.src_line, "t5 t6 the cat lez") == 0, "the words are in the Source line, after a space: '%s'",
                a.ses.src_line);
    expect_true(app_focused_line(&a) == APP_LINE_SRC, "which has the keyboard");
    app_free(&a);
}

/* Shortcuts pressed one after another, even quickly, stay shortcuts: E
 * then Alt+S (the panel, then no scaling), T twice (two themes). */
static void test_shortcuts_in_a_row_stay_shortcuts(void **state)
{
    (void)state;
    static App a;
    open_app(&a, "t5 t6");
    type_key(&a, 'e', 1.0);
    a.now += 0.1;
    ev_key(&a, 's', MOD_ALT);
    expect_true(a.show_exp && a.ses.exp.no_scale, "E then Alt+S: the panel and no scaling");
    type_key(&a, 'e', 1.0);
    ThemeId t0 = a.look.theme;
    type_key(&a, 't', 1.0);
    type_key(&a, 't', 0.1);
    expect_true(a.look.theme == (ThemeId)((t0 + 2) % THEME_COUNT), "T twice: two themes on (%d -> %d)", t0,
                a.look.theme);
    expect_true(strstr(a.notice, "Backspace") != NULL, "the theme's notice says how to reset: '%s'", a.notice);
    expect_true(strcmp(a.ses.src_line, "t5 t6") == 0 && !a.ui.focus, "nothing typed: '%s'", a.ses.src_line);
    /* slow letters are shortcuts each, whatever comes after */
    type_key(&a, 't', 1.0);
    type_key(&a, 'q', 1.0);
    expect_true(a.look.theme == t0 && !a.ui.focus, "T a second before Q: a theme, and Q is nothing");
    app_free(&a);
}

/* Backspace with no field focused resets the view. */
static void test_backspace_resets_the_view(void **state)
{
    (void)state;
    static App a;
    open_app(&a, "t5 t6 t7");
    TfExperiment e = {0};
    e.no_pe = 1;
    app_set_exp(&a, &e);
    a.cmp = CMP_DIFF;
    a.show_exp = 1;
    a.look.theme = (ThemeId)2;
    a.look.cmap_prob = (CmapId)1;
    app_goto(&a, ST_DEC_CROSS_WEIGHTS, 1);
    session_set_head(&a.ses, 3);
    a.view = VIEW_LINES;
    a.now += 1;
    ev_key(&a, KEY_BACKSPACE, 0);
    expect_true(!session_has_exp(&a.ses) && a.cmp == CMP_EXP && !a.show_exp, "no experiment, no panel");
    expect_true(a.look.theme == 0 && a.look.cmap_prob == CMAP_VIRIDIS, "the dark theme and the first colour map");
    expect_true(a.ses.at == 0 && a.ses.head == 0 && a.view == VIEW_AUTO, "the first stage, head 1, its view");
    expect_true(strcmp(a.ses.src_line, "t5 t6 t7") == 0, "the sentence stays");
    expect_true(cmd_find("reset") && cmd_find("reset")->key == KEY_BACKSPACE, "it is the table's 'reset' row");
    app_free(&a);
}

/* A click on the Source label (beside the field) gives the field the
 * keyboard; the × button clears it. */
static void test_click_beside_the_field_and_clear(void **state)
{
    (void)state;
    static App a;
    open_app(&a, "t5 t6");
    int H = 800;
    /* the Source line is the second line from the bottom: its label at x 20 */
    int y = -1;
    for (int yy = H - 1; yy > H - 120 && y < 0; yy--) {
        ev_mouse(&a, IN_MOUSE_MOVE, 20, yy, 0);
        ev_mouse(&a, IN_MOUSE_DOWN, 20, yy, MB_LEFT);
        tu_frame(&a);
        ev_mouse(&a, IN_MOUSE_UP, 20, yy, MB_LEFT);
        if (app_focused_line(&a) == APP_LINE_SRC)
            y = yy;
        ev_key(&a, KEY_ESCAPE, 0);
        a.win.want_quit = 0;
    }
    expect_true(y > 0, "a click on the Source label focuses the Source line");
    y -= 10; /* the line's middle, not its lowest pixel */
    /* the × at the right end of the field */
    int hit = 0;
    for (int x = 1279; x > 1100 && !hit; x -= 4) {
        tu_click(&a, x, y);
        hit = a.ses.src_line[0] == 0;
    }
    expect_true(hit, "the × button clears the line");
    expect_true(app_focused_line(&a) == APP_LINE_SRC, "and leaves the keyboard in it");
    app_free(&a);
}

/* A press with SDL's click count n at (x, y), then its release. */
static void click_count(App *a, int x, int y, int n)
{
    ev_mouse(a, IN_MOUSE_MOVE, x, y, 0);
    ev_mouse_clicks(a, IN_MOUSE_DOWN, x, y, MB_LEFT, 0, n);
    tu_frame(a);
    ev_mouse(a, IN_MOUSE_UP, x, y, MB_LEFT);
    tu_frame(a);
}

/* The y of the Source line's middle (its label at x 20 gives it the
 * keyboard), -1 when none was found. */
static int source_line_y(App *a)
{
    for (int yy = 799; yy > 680; yy--) {
        tu_click(a, 20, yy);
        int got = app_focused_line(a) == APP_LINE_SRC;
        ev_key(a, KEY_ESCAPE, 0);
        a->win.want_quit = 0;
        if (got)
            return yy - 10;
    }
    return -1;
}

/* A double click in the Source field selects the word under it (past the
 * text's end: the last word), typing replaces it; a triple click selects
 * the line. */
static void test_double_click_selects_a_word(void **state)
{
    (void)state;
    static App a;
    open_app(&a, "t5 t6 t7");
    int y = source_line_y(&a);
    expect_true(y > 0, "the Source line found");
    click_count(&a, 600, y, 1);
    click_count(&a, 600, y, 2);
    expect_true(app_focused_line(&a) == APP_LINE_SRC && a.ui.edit.anchor == 6 && a.ui.edit.cursor == 8,
                "a double click past the text selects the last word: [%d, %d)", a.ui.edit.anchor, a.ui.edit.cursor);
    a.now += 1;
    ev_text(&a, "t9");
    expect_true(strcmp(a.ses.src_line, "t5 t6 t9") == 0, "typing replaces it: '%s'", a.ses.src_line);
    click_count(&a, 600, y, 3);
    expect_true(a.ui.edit.anchor == 0 && a.ui.edit.cursor == 8, "a triple click: the whole line [%d, %d)",
                a.ui.edit.anchor, a.ui.edit.cursor);
    app_free(&a);
}

/* In the Train tab a click on a navigator block shows that stage in its
 * main view (not the training plots). */
static void test_navigator_leaves_train(void **state)
{
    (void)state;
    static App a;
    tu_open_train(&a, MODEL, 10);
    tu_frame(&a);
    expect_true(app_current_view(&a) == VIEW_TRAIN && a.nav.n_hits > 4, "the Train tab, the navigator drawn");
    HitRect h = a.nav.hits[2];
    tu_click(&a, h.r.x + h.r.w / 2, h.r.y + h.r.h / 2);
    StagePos p = app_pos(&a);
    expect_true(a.ses.at == h.walk, "the block's stage: %s", stage_info(p.stage)->name);
    expect_true(app_current_view(&a) != VIEW_TRAIN && app_current_view(&a) == app_auto_view(&a, p.stage),
                "its main view, not the Train tab: %s", view_name(app_current_view(&a)));
    app_free(&a);
}

/* ? lists Ctrl+U and the other keys of a text field, and the reset. */
static void test_help_lists_field_keys(void **state)
{
    (void)state;
    char buf[32768];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    expect_true(f != NULL, "a memory file");
    cmd_print(f, 0);
    fclose(f);
    buf[sizeof buf - 1] = 0;
    expect_true(strstr(buf, "Ctrl+A/C/X/V/U") && strstr(buf, "select all") && strstr(buf, "clear"),
                "the keys list the text fields' keys");
    expect_true(strstr(buf, "Backspace") && strstr(buf, "reset the view"), "and the reset");
}

/* Bad input says so: a fifth sentence is left out with a warning (not
 * silently), a sentence cut to the limit is a warning too, and an empty
 * source does not leave the Target line's «…» as if it were computing. */
static void test_bad_input_said(void **state)
{
    (void)state;
    static App a;
    open_app(&a, "t5 | t6 | t7 | t8 | t9 t10");
    expect_true(a.ses.n_src == 4 && a.ses.dropped == 1, "four sentences kept, one left out: %d, %d", a.ses.n_src,
                a.ses.dropped);
    expect_true(strstr(a.notice, "left out") && a.notice_error, "a warning says so: '%s'", a.notice);
    app_set_text(&a, APP_LINE_SRC, "t5 | t6 | t7 | t8 |  ");
    tu_frame(&a);
    expect_true(a.ses.dropped == 0, "a blank fifth is no sentence");
    app_set_text(&a, APP_LINE_SRC, "");
    tu_frame(&a);
    tu_drawn_frame(&a, tu_ren);
    expect_true(!strstr(tu_drawn.text, "«…»") && strstr(tu_drawn.text, "once there is one"),
                "no «…» with nothing to translate");
    app_free(&a);
}

/* The window's --size WxH (a small laptop, an old projector): parsed, and
 * refused with one line outside 320x240 .. 8192x8192. */
static void test_window_size_option(void **state)
{
    (void)state;
    AppOpts o;
    char *ok[] = {"stepformer", "--size", "800x600", "--lang", "zh", NULL};
    expect_true(gui_parse_args(5, ok, &o, "gui") == 0 && o.win_w == 800 && o.win_h == 600 && o.lang == 1,
                "--size 800x600 --lang zh: %dx%d, lang %d", o.win_w, o.win_h, o.lang);
    char *none[] = {"stepformer", NULL};
    expect_true(gui_parse_args(1, none, &o, "gui") == 0 && o.win_w == 0 && o.win_h == 0, "no --size: the default");
    char *bad[] = {"stepformer", "--size", "100x50", NULL};
    expect_true(gui_parse_args(3, bad, &o, "gui") != 0, "--size 100x50 is refused");
}

int main(void)
{
    TU_RUN(setup, teardown, cmocka_unit_test(test_typed_words_go_to_the_source),
           cmocka_unit_test(test_shortcuts_in_a_row_stay_shortcuts), cmocka_unit_test(test_backspace_resets_the_view),
           cmocka_unit_test(test_click_beside_the_field_and_clear), cmocka_unit_test(test_double_click_selects_a_word),
           cmocka_unit_test(test_navigator_leaves_train),
           cmocka_unit_test(test_help_lists_field_keys), cmocka_unit_test(test_bad_input_said),
           cmocka_unit_test(test_window_size_option));
}
