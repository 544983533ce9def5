/* test_tab_order.c - the window without a mouse: Tab and Shift+Tab move
 * a ring through every control in reading order (the top bar, the stage
 * strip and tabs, Source, Target, the navigator, the view, the panel),
 * wrapping; Enter or Space press the control it is on (a tab, one under
 * the » button, a block of the navigator, the Lessons button, a header of the Heads table, a quiz
 * choice); a text field it reaches takes the keyboard, and Tab in the field
 * goes on; Esc hides the ring before it quits; J is the old Tab
 * (encoder / decoder); a click hides the ring. Real events, real frames. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_table.h"
#include "heads_table.h"
#include "lesson_ui.h"
#include "test_app_util.h"
#include "view_heads_grid.h"

#define MODEL "assets/models/en2zh.safetensors"

static void tab(App *a, int mod)
{
    ev_key(a, KEY_TAB, mod);
    tu_frame(a);
}

static int ring_group(const App *a)
{
    const UiStop *s = ui_tab_focused(&a->ui);
    return s ? s->group : -1;
}

/* Tab until the ring is on the control that drew label (found in a
 * recorded frame); 1 when it got there within a lap of the stops. */
static int ring_to(App *a, const char *label)
{
    tu_drawn_frame(a, tu_ren);
    int i = tu_drawn_find(label, NULL);
    if (i < 0)
        return 0;
    int x = tu_drawn.box[i].x + tu_drawn.box[i].w / 2, y = tu_drawn.box[i].y + tu_drawn.box[i].h / 2;
    for (int k = 0; k <= a->ui.n_last; k++) {
        const UiStop *s = ui_tab_focused(&a->ui);
        if (s && x >= s->rc.x && x < s->rc.x + s->rc.w && y >= s->rc.y && y < s->rc.y + s->rc.h)
            return 1;
        tab(a, 0);
    }
    return 0;
}

static void press(App *a, Key k)
{
    ev_key(a, k, 0);
    tu_frame(a);
    tu_frame(a);
}

static void open_window(App *a)
{
    tu_open_src(a, MODEL, "i read books today", 100);
    app_goto(a, ST_ENC_SELF_WEIGHTS, 0);
    a->ui.in.mx = a->ui.in.my = -100; /* the mouse away */
    tu_frame(a);
}

static void test_reading_order(void **state)
{
    (void)state;
    static App a;
    open_window(&a);
    app_pick_tab(&a, VIEW_LINES); /* a view with controls of its own: the head buttons */
    tu_frame(&a);
    expect_true(a.ui.kfocus == 0 && a.ui.n_last > 20, "no ring before Tab; %d stops", a.ui.n_last);
    int n = a.ui.n_last, last = 0, wraps = 0, seen[16] = {0}, src = 0;
    for (int k = 0; k < n + 1; k++) {
        tab(&a, 0);
        int g = ring_group(&a);
        expect_true(g > 0 && g < 16, "Tab %d: on a control (band %d)", k + 1, g);
        if (g < 0 || g >= 16)
            break;
        wraps += g < last;
        expect_true(g >= last || wraps == 1, "Tab %d: reading order (band %d after %d)", k + 1, g, last);
        last = g;
        seen[g] = 1;
        if (app_focused_line(&a) == APP_LINE_SRC && !src) { /* a field the ring reaches takes the keyboard */
            src = 1;
            ev_key(&a, KEY_ESCAPE, 0); /* Esc leaves it, the ring stays; Space gives it back, typing no space */
            tu_frame(&a);
            expect_true(app_focused_line(&a) < 0 && a.ui.kfocus, "Esc: out of the field, the ring on it");
            ev_key(&a, KEY_SPACE, 0);
            ev_text(&a, " ");
            tu_frame(&a);
            expect_true(app_focused_line(&a) == APP_LINE_SRC && !strcmp(a.ses.src_line, "i read books today"),
                        "Space: the field again, its text as it was: '%s'", a.ses.src_line);
            ev_text(&a, " now");
            tu_frame(&a);
            expect_true(strstr(a.ses.src_line, "today now") != NULL, "typing goes into Source: '%s'", a.ses.src_line);
            tab(&a, 0);
            expect_true(app_focused_line(&a) == APP_LINE_TGT, "Tab in Source: Target (%d)", app_focused_line(&a));
            seen[ring_group(&a) > 0 && ring_group(&a) < 16 ? ring_group(&a) : 0] = 1;
            tab(&a, 0);
            expect_true(app_focused_line(&a) < 0 && a.ui.kfocus, "Tab in Target: the next control, no field");
            last = ring_group(&a);
        }
    }
    expect_true(src, "Tab reached the Source line");
    expect_true(wraps == 1, "one lap wraps round once: %d", wraps);
    for (int g = 1; g <= 8; g++)
        if (g != 7) /* 7: the Experiments panel, closed */
            expect_true(seen[g], "band %d was on the way", g);
    int at = a.ui.kat;
    tab(&a, MOD_SHIFT);
    expect_true(a.ui.kat == (at + a.ui.n_last - 1) % a.ui.n_last, "Shift+Tab goes back one: %d after %d", a.ui.kat, at);
    app_free(&a);
}

static void test_enter_presses(void **state)
{
    (void)state;
    static App a;
    open_window(&a);
    expect_true(ring_to(&a, "Lines"), "Tab reaches the Lines tab");
    press(&a, KEY_RETURN);
    expect_true(app_current_view(&a) == VIEW_LINES, "Enter on it shows the lines (%d)", (int)app_current_view(&a));
    expect_true(ring_to(&a, "Masked"), "Tab reaches the decoder's masked attention in the navigator");
    press(&a, KEY_SPACE);
    expect_true(!strncmp(stage_info(app_pos(&a).stage)->name, "dec.self.", 9), "Space opens it: %s",
                stage_info(app_pos(&a).stage)->name);
    expect_true(ring_to(&a, "Lessons (L)"), "Tab reaches the Lessons button");
    press(&a, KEY_RETURN);
    expect_true(lesson_ui_list_open(&a), "Enter opens the lesson list");
    press(&a, KEY_ESCAPE);
    expect_true(!lesson_ui_list_open(&a) && !a.win.want_quit, "Esc closes the list");
    /* Esc with the ring on hides it first */
    tab(&a, 0);
    expect_true(a.ui.kfocus != 0, "the ring is on");
    press(&a, KEY_ESCAPE);
    expect_true(a.ui.kfocus == 0 && !a.win.want_quit, "Esc hides the ring, and does not quit");
    press(&a, KEY_ESCAPE);
    expect_true(a.win.want_quit, "then Esc quits, as before");
    a.win.want_quit = 0;
    /* J is what Tab used to be */
    app_goto(&a, ST_ENC_SELF_WEIGHTS, 0);
    ev_key(&a, 'j', 0);
    expect_true(app_pos(&a).stage == ST_DEC_SELF_WEIGHTS, "J jumps to the decoder: %s", stage_info(app_pos(&a).stage)->name);
    /* a click puts the mouse in charge */
    tab(&a, 0);
    tu_click(&a, 5, 5);
    expect_true(a.ui.kfocus == 0, "a click hides the ring");
    expect_true(cmd_find("focus.next") && cmd_find("focus.prev") && cmd_lookup(CS_GLOBAL, VIEW_AUTO, KEY_TAB, 0) ==
                cmd_find("focus.next"), "Tab is the ring's, in the table (and so in ? and `stepformer keys`)");
    app_free(&a);
}

static void test_heads_table_header(void **state)
{
    (void)state;
    static App a;
    open_window(&a);
    app_set_head(&a, -1);
    tu_frame(&a);
    expect_true(app_current_view(&a) == VIEW_HEADS, "all heads");
    const HeadsTable *t = view_heads_table(a.vstate[VIEW_HEADS]);
    expect_true(t && t->sort != HT_COL_ENTROPY, "not sorted by entropy yet");
    expect_true(ring_to(&a, "entropy"), "Tab reaches the table's entropy header");
    press(&a, KEY_RETURN);
    expect_true(t->sort == HT_COL_ENTROPY, "Enter sorts by it (%d)", t->sort);
    app_free(&a);
}

static void test_quiz_choice(void **state)
{
    (void)state;
    static App a;
    AppOpts o = tu_opts(MODEL, NULL, NULL, NULL);
    o.lesson = "attention";
    tu_open(&a, &o, 10);
    a.ui.in.mx = a.ui.in.my = -100;
    int step, answered;
    const Lesson *l = lesson_ui_current(&a, &step, &answered);
    expect_true(l != NULL, "the lesson is open");
    for (int k = 0; l && k < l->n_steps && !l->steps[step].has_quiz; k++) {
        lesson_ui_step(&a, 1);
        l = lesson_ui_current(&a, &step, &answered);
    }
    expect_true(l && l->steps[step].has_quiz, "a quiz step");
    tu_frame(&a);
    tu_frame(&a);
    Rect rc[LESSON_MAX_CHOICES], vis;
    int n = lesson_ui_choice_rects(&a, rc, &vis);
    expect_true(n >= 2, "its choices are drawn: %d", n);
    int on = 0;
    for (int k = 0; k <= a.ui.n_last && !on; k++) {
        tab(&a, 0);
        const UiStop *s = ui_tab_focused(&a.ui);
        on = s && s->rc.x == rc[1].x && s->rc.y == rc[1].y;
    }
    expect_true(on, "Tab reaches the second choice");
    press(&a, KEY_RETURN);
    lesson_ui_current(&a, &step, &answered);
    int order[LESSON_MAX_CHOICES], shown;
    lesson_ui_quiz_order(&a, order);
    unsigned wrong = lesson_ui_quiz_wrong(&a, &shown);
    expect_true(answered == order[1] || (wrong >> order[1] & 1u), "Enter answers the quiz with it (answered %d, tried %x, it is %d)",
                answered, wrong, order[1]);
    app_free(&a);
}

/* A quiz step in a small window with large text, its choices too tall to
 * be pinned: they scroll with the text. Tab to each: the text scrolls to
 * show it whole with room for the ring (it was out of view, the ring
 * drawn in nothing or cut). */
static void test_ring_scrolls_the_lesson(void **state)
{
    (void)state;
    static App a;
    AppOpts o = tu_opts(MODEL, NULL, NULL, NULL);
    o.lesson = "attention";
    tu_open(&a, &o, 10);
    ren_resize_headless(tu_ren, 800, 600);
    a.look.text_scale = 1.5f;
    a.ui.in.mx = a.ui.in.my = -100;
    int step, answered;
    const Lesson *l = lesson_ui_current(&a, &step, &answered);
    for (int k = 0; l && k < l->n_steps && !l->steps[step].has_quiz; k++) {
        lesson_ui_step(&a, 1);
        l = lesson_ui_current(&a, &step, &answered);
    }
    expect_true(l && l->steps[step].has_quiz, "a quiz step");
    tu_frame(&a);
    tu_frame(&a);
    Rect rc[LESSON_MAX_CHOICES], vis;
    int n = lesson_ui_choice_rects(&a, rc, &vis);
    expect_true(n >= 2 && rc[n - 1].y + rc[n - 1].h > vis.y + vis.h,
                "the last of %d choices is below the text's view (%d + %d > %d + %d)", n, rc[n - 1].y, rc[n - 1].h,
                vis.y, vis.h);
    int seen = 0;
    for (int k = 0; k <= 2 * a.ui.n_last && seen != (1 << n) - 1; k++) {
        tab(&a, 0);
        for (int f = 0; f < 3 && a.redraw_soon; f++)
            tu_frame(&a);
        const UiStop *s = ui_tab_focused(&a.ui);
        lesson_ui_choice_rects(&a, rc, &vis);
        for (int c = 0; s && c < n; c++) {
            if (s->id == 0 || s->rc.x != rc[c].x || s->rc.y != rc[c].y || s->rc.w != rc[c].w || s->rc.h != rc[c].h)
                continue; /* the ring's control is this choice (both as the last frame drew them) */
            seen |= 1 << c;
            int m = 6; /* the ring's reach out of the control, at least */
            expect_true(rc[c].y - m >= vis.y && rc[c].y + rc[c].h + m <= vis.y + vis.h,
                        "the ring on choice %d: it is in view, ring and all (%d..%d in %d..%d)", c + 1, rc[c].y,
                        rc[c].y + rc[c].h, vis.y, vis.y + vis.h);
        }
    }
    expect_true(seen == (1 << n) - 1, "Tab reached every choice (%x)", seen);
    const char *dir = getenv("CELL_PNG_DIR"); /* to look at it: the ring on the last choice */
    if (dir) {
        char path[512];
        TfErr e;
        snprintf(path, sizeof path, "%s/lesson-ring-800x600.png", dir);
        tu_frame(&a);
        expect_true(ren_save_png(tu_ren, path, &e) == 0, "%s: %s", path, e.msg);
    }
    ren_resize_headless(tu_ren, 1280, 800);
    app_free(&a);
}

static int same_rect(Rect a, Rect b)
{
    return a.x == b.x && a.y == b.y && a.w == b.w && a.h == b.h;
}

/* At 800 x 600 some tabs go under a » button: Tab reaches it, Enter opens
 * the list, Tab goes into it, Enter picks a tab. */
static void test_tabs_under_more(void **state)
{
    (void)state;
    static App a;
    TfErr err;
    Ren *small = ren_open_headless(800, 600, &err);
    expect_true(small != NULL, "an 800 x 600 renderer");
    tu_open_src(&a, MODEL, "i read books today", 100);
    app_goto(&a, ST_ENC_SELF_WEIGHTS, 0);
    a.ui.in.mx = a.ui.in.my = -100;
    tu_frame_on(&a, small);
    expect_true(a.tabs_more.n > 0, "some tabs do not fit: %d", a.tabs_more.n);
    int on = 0;
    for (int k = 0; k <= a.ui.n_last && !on; k++) {
        ev_key(&a, KEY_TAB, 0);
        tu_frame_on(&a, small);
        const UiStop *s = ui_tab_focused(&a.ui);
        on = s && same_rect(s->rc, a.tabs_more.button);
    }
    expect_true(on, "Tab reaches the » button");
    ev_key(&a, KEY_RETURN, 0);
    tu_frame_on(&a, small);
    tu_frame_on(&a, small);
    expect_true(a.tabs_more.open, "Enter opens its list");
    ViewId want = a.tabs_more.view[0];
    ev_key(&a, KEY_TAB, 0);
    tu_frame_on(&a, small);
    const UiStop *s = ui_tab_focused(&a.ui);
    expect_true(s && same_rect(s->rc, a.tabs_more.item[0]), "the next Tab is on its first tab");
    ev_key(&a, KEY_RETURN, 0);
    tu_frame_on(&a, small);
    tu_frame_on(&a, small);
    expect_true(app_current_view(&a) == want && !a.tabs_more.open, "Enter shows it (%d, want %d)",
                (int)app_current_view(&a), (int)want);
    app_free(&a);
    ren_close(small);
}

TU_RENDERER(1280, 800)

int main(void)
{
    TU_RUN_HEADLESS(setup, teardown, cmocka_unit_test(test_reading_order), cmocka_unit_test(test_enter_presses),
                    cmocka_unit_test(test_heads_table_header), cmocka_unit_test(test_quiz_choice),
                    cmocka_unit_test(test_ring_scrolls_the_lesson),
                    cmocka_unit_test(test_tabs_under_more));
}
