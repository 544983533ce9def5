/* test_ui_ctx.c - the widget context (ui.h) fed synthetic input on a
 * headless renderer: ids, hot / active / focus, a button's click, a
 * slider's and a drag's motion, and the text box's editing (insert,
 * delete, select, copy, paste; UTF-8 never split), its mouse selection
 * (double click a word, triple click the line, Shift+click, a drag) and
 * Ctrl+arrows by words, and focus leaving on a click elsewhere; a label
 * wider than its button is cut with an ellipsis inside it; the keyboard's
 * ring (Tab order in reading order, Enter presses, arrows move a slider,
 * a text field gets the keyboard, Esc or a click hide it). */
#include "test_util.h"
#include "ui.h"
#include "utf8.h"

static Ren *g_ren;
static Gfx g_gfx;

static int setup(void **state)
{
    (void)state;
    TfErr err;
    g_ren = ren_open_headless(400, 200, &err);
    if (!g_ren || gfx_init(&g_gfx, g_ren, &err) || gfx_fonts(&g_gfx, 1.0f, &err))
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    gfx_free(&g_gfx);
    ren_close(g_ren);
    return 0;
}

static void frame_begin(UiCtx *ui)
{
    ren_begin(g_ren, theme_get(THEME_DARK)->bg);
    ui_begin(ui, g_ren, &g_gfx, theme_get(THEME_DARK), 0.0);
}

static void frame_end(UiCtx *ui)
{
    ui_end(ui);
    ren_end(g_ren);
}

static void mouse(UiCtx *ui, int x, int y)
{
    ui->in.mx = x;
    ui->in.my = y;
    ui->in.moved = 1;
}

static void press(UiCtx *ui, int x, int y)
{
    mouse(ui, x, y);
    ui->in.down = ui->in.pressed = 1;
}

static void release(UiCtx *ui)
{
    ui->in.down = 0;
    ui->in.released = 1;
}

static const Rect BUTTON = {10, 10, 80, 24}, OTHER = {200, 10, 80, 24};

typedef struct Seen {
    char s[512];
    int w, n;
} Seen;

static void seen_hook(void *user, const char *utf8, int len, Rect box, const char *tag)
{
    Seen *v = user;
    (void)tag;
    snprintf(v->s, sizeof v->s, "%.*s", len, utf8);
    v->w = box.w;
    v->n++;
}

static void test_button_label_cut(void **state)
{
    (void)state;
    UiCtx ui = {0};
    Seen v = {0};
    const char *longer = "Alt+F  去掉编码器第 1 层的前馈网络 (a label far wider than its button)";
    ren_text_hook(seen_hook, &v);
    frame_begin(&ui);
    ui_button(&ui, BUTTON, longer, 0);
    frame_end(&ui);
    ren_text_hook(NULL, NULL);
    expect_true(v.n == 1 && v.w <= BUTTON.w, "the label drawn once, at most %d px wide: %d strings, %d px",
                BUTTON.w, v.n, v.w);
    size_t k = strlen(v.s);
    expect_true(k >= 3 && strcmp(v.s + k - 3, "…") == 0 && strncmp(v.s, "Alt+F", 5) == 0,
                "the label cut with an ellipsis from its start, got \"%s\"", v.s);
    v.n = 0;
    ren_text_hook(seen_hook, &v);
    frame_begin(&ui);
    ui_button(&ui, BUTTON, "OK", 0);
    frame_end(&ui);
    ren_text_hook(NULL, NULL);
    expect_true(v.n == 1 && strcmp(v.s, "OK") == 0, "a label that fits is drawn whole, got \"%s\"", v.s);
}

static void test_ids(void **state)
{
    (void)state;
    UiCtx ui = {0};
    int a = 0, b = 0;
    UiId pa = ui_id_ptr(&ui, &a), pb = ui_id_ptr(&ui, &b);
    expect_true(pa && pb && pa != pb, "two pointers, two ids: %u %u", pa, pb);
    expect_true(ui_id_ptr(&ui, &a) == pa, "the same pointer, the same id");
    expect_true(ui_id_str(&ui, "ok") == ui_id_str(&ui, "ok") && ui_id_str(&ui, "ok") != ui_id_str(&ui, "no"),
                "ids of strings");
    ui_push_id(&ui, "left", 4);
    UiId inner = ui_id_str(&ui, "ok");
    ui_pop_id(&ui);
    expect_true(inner != ui_id_str(&ui, "ok"), "a scope gives the same string another id");
    ui_push_id(&ui, "left", 4);
    expect_true(ui_id_str(&ui, "ok") == inner, "the same scope again, the same id");
    ui_pop_id(&ui);
    ui_pop_id(&ui); /* one pop too many does no harm */
    expect_true(ui.depth == 0, "depth %d", ui.depth);
}

static void test_hot_active_click(void **state)
{
    (void)state;
    UiCtx ui = {0};
    mouse(&ui, 20, 20);
    frame_begin(&ui);
    int r = ui_button(&ui, BUTTON, "OK", 0);
    frame_end(&ui);
    expect_true(r == 0 && ui.hot != 0 && ui.active == 0, "hovered: hot %u, active %u, result %d", ui.hot, ui.active, r);
    UiId hot = ui.hot;
    press(&ui, 20, 20);
    frame_begin(&ui);
    r = ui_button(&ui, BUTTON, "OK", 0);
    int other = ui_button(&ui, OTHER, "Other", 0);
    frame_end(&ui);
    expect_true(r == UI_CLICKED && !other, "a press on the button clicks it once: %d (the other %d)", r, other);
    expect_true(ui.active == hot, "and makes it active (%u, hot %u)", ui.active, hot);
    frame_begin(&ui); /* the button still held */
    r = ui_button(&ui, BUTTON, "OK", 0);
    frame_end(&ui);
    expect_true(r == 0 && ui.active == hot, "held: no second click (%d), still active", r);
    release(&ui);
    mouse(&ui, 220, 20);
    frame_begin(&ui);
    r = ui_button(&ui, BUTTON, "OK", 0);
    other = ui_button(&ui, OTHER, "Other", 0);
    frame_end(&ui);
    expect_true(r == 0 && ui.active == 0 && ui.hot != hot && ui.hot != 0, "released and moved: hot %u, active %u",
                ui.hot, ui.active);
    mouse(&ui, 150, 150);
    frame_begin(&ui);
    ui_button(&ui, BUTTON, "OK", 0);
    frame_end(&ui);
    expect_true(ui.hot == 0, "over nothing: hot %u", ui.hot);
}

/* One frame with just a slider of v over [0, 1] in rc. */
static int slider_frame(UiCtx *ui, UiId id, Rect rc, float *v)
{
    frame_begin(ui);
    int r = ui_slider(ui, id, rc, v, 0, 1);
    frame_end(ui);
    return r;
}

static void test_slider_and_drag(void **state)
{
    (void)state;
    UiCtx ui = {0};
    Rect rc = {100, 50, 201, 16};
    float v = 0.5f;
    UiId id = ui_id_ptr(&ui, &v);
    press(&ui, 150, 55);
    int r = slider_frame(&ui, id, rc, &v);
    expect_true(r == UI_CHANGED && fabsf(v - 0.25f) < 1e-6f, "a press at a quarter sets 0.25: %g (%d)", v, r);
    mouse(&ui, 400, 120); /* dragged past the end, outside the slider */
    r = slider_frame(&ui, id, rc, &v);
    expect_true(r == UI_CHANGED && v == 1.0f, "dragged beyond the end: %g", v);
    release(&ui);
    mouse(&ui, 100, 55);
    r = slider_frame(&ui, id, rc, &v);
    expect_true(r == 0 && v == 1.0f, "released: moving the mouse leaves it (%g)", v);
    /* a drag started elsewhere does not move it */
    press(&ui, 20, 150);
    slider_frame(&ui, id, rc, &v);
    mouse(&ui, 120, 55);
    r = slider_frame(&ui, id, rc, &v);
    expect_true(r == 0 && v == 1.0f, "a press outside, then over it: unchanged (%g)", v);
    release(&ui);
    /* ui_drag: the motion since the last frame while held */
    int pan = 0, dx, dy, sx = 0, sy = 0;
    UiId did = ui_id_ptr(&ui, &pan);
    Rect area = {0, 0, 200, 200};
    press(&ui, 50, 50);
    frame_begin(&ui);
    int d = ui_drag(&ui, did, area, &dx, &dy);
    frame_end(&ui);
    expect_true(d && dx == 0 && dy == 0, "the drag starts still: %d %d %d", d, dx, dy);
    for (int i = 1; i <= 3; i++) {
        mouse(&ui, 50 + 10 * i, 50 - 5 * i);
        frame_begin(&ui);
        d = ui_drag(&ui, did, area, &dx, &dy);
        frame_end(&ui);
        sx += dx;
        sy += dy;
    }
    expect_true(d && sx == 30 && sy == -15, "dragged by (%d, %d), want (30, -15)", sx, sy);
    release(&ui);
    frame_begin(&ui);
    d = ui_drag(&ui, did, area, &dx, &dy);
    frame_end(&ui);
    expect_true(!d && ui.active == 0, "released: the drag ends");
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

static const Rect BOX = {10, 60, 300, 28};

static int draw_box(UiCtx *ui, char *buf, int cap, int with_other)
{
    frame_begin(ui);
    int r = ui_textbox(ui, ui_id_ptr(ui, buf), buf, cap, BOX, "hint", 0);
    if (with_other)
        ui_button(ui, OTHER, "Other", 0);
    frame_end(ui);
    return r;
}

static void test_textbox_editing(void **state)
{
    (void)state;
    UiCtx ui = {0};
    ui.paste = fake_paste;
    ui.copy = fake_copy;
    char buf[16] = "ab";
    press(&ui, 50, 70);
    draw_box(&ui, buf, sizeof buf, 0);
    release(&ui);
    expect_true(ui.focus == ui_id_ptr(&ui, buf) && ui_editing(&ui, buf) && ui.edit.cursor == 2,
                "a click takes the keyboard, the cursor at the end (%d)", ui.edit.cursor);
    int r = ui_edit_text(&ui, buf, sizeof buf, "我c");
    expect_true(r == UI_CHANGED && !strcmp(buf, "ab我c") && ui.edit.cursor == 6, "typed: '%s' cursor %d", buf, ui.edit.cursor);
    ui_edit_key(&ui, buf, sizeof buf, KEY_LEFT, 0);
    ui_edit_key(&ui, buf, sizeof buf, KEY_LEFT, 0);
    expect_true(ui.edit.cursor == 2, "Left twice steps over c and the whole 我: %d", ui.edit.cursor);
    r = ui_edit_key(&ui, buf, sizeof buf, KEY_DELETE, 0);
    expect_true(r == UI_CHANGED && !strcmp(buf, "abc"), "Delete removes 我 whole: '%s'", buf);
    ui_edit_key(&ui, buf, sizeof buf, KEY_END, 0);
    ui_edit_key(&ui, buf, sizeof buf, KEY_BACKSPACE, 0);
    expect_true(!strcmp(buf, "ab") && ui.edit.cursor == 2, "Backspace at the end: '%s'", buf);
    /* select with Shift, copy, type over it, paste */
    ui_edit_key(&ui, buf, sizeof buf, KEY_HOME, MOD_SHIFT);
    expect_true(ui.edit.anchor == 2 && ui.edit.cursor == 0, "Shift+Home selects the line");
    ui_edit_key(&ui, buf, sizeof buf, 'c', MOD_CTRL);
    expect_true(!strcmp(g_clip, "ab"), "Ctrl+C copies the selection: '%s'", g_clip);
    ui_edit_text(&ui, buf, sizeof buf, "中");
    expect_true(!strcmp(buf, "中") && ui.edit.cursor == 3, "typing replaces the selection: '%s'", buf);
    r = ui_edit_key(&ui, buf, sizeof buf, 'v', MOD_CTRL);
    expect_true(r == UI_CHANGED && !strcmp(buf, "中ab"), "Ctrl+V pastes: '%s'", buf);
    ui_edit_key(&ui, buf, sizeof buf, KEY_LEFT, MOD_SHIFT);
    ui_edit_key(&ui, buf, sizeof buf, 'x', MOD_CTRL);
    expect_true(!strcmp(buf, "中a") && !strcmp(g_clip, "b"), "Ctrl+X cuts: '%s', clipboard '%s'", buf, g_clip);
    ui_edit_key(&ui, buf, sizeof buf, 'a', MOD_CTRL);
    ui_edit_key(&ui, buf, sizeof buf, KEY_BACKSPACE, 0);
    expect_true(!buf[0] && ui.edit.cursor == 0, "Ctrl+A then Backspace empties it: '%s'", buf);
    /* bad bytes dropped, control characters dropped, new lines spaces */
    ui_edit_text(&ui, buf, sizeof buf, "x\xff\x01\ny");
    expect_true(!strcmp(buf, "x y"), "cleaned: '%s'", buf);
    /* full: never half a character */
    r = ui_edit_text(&ui, buf, sizeof buf, "中中中中中");
    size_t n = strlen(buf);
    expect_true((r & UI_FULL) && n <= sizeof buf - 1 && utf8_check(buf, n, NULL) == 0,
                "cut at a character when full: '%s' (%zu bytes)", buf, n);
    expect_true(!strcmp(buf, "x y中中中中"), "four of five fit in 15 bytes: '%s'", buf);
    ui_edit_cursor(&ui, buf, 4); /* inside the first 中: moved back to its start */
    expect_true(ui.edit.cursor == 3, "a cursor inside a character goes to its start: %d", ui.edit.cursor);
    /* Enter leaves */
    r = ui_edit_key(&ui, buf, sizeof buf, KEY_RETURN, 0);
    expect_true((r & UI_SUBMIT) && (r & UI_LEFT) && ui.focus == 0, "Enter submits and leaves (%d)", r);
    expect_true(ui_edit_key(&ui, buf, sizeof buf, KEY_TAB, 0) == UI_NEXT, "Tab asks where to go next");
}

/* A frame at time t with the field drawn. */
static void draw_box_at(UiCtx *ui, char *buf, int cap, double t)
{
    ren_begin(g_ren, theme_get(THEME_DARK)->bg);
    ui_begin(ui, g_ren, &g_gfx, theme_get(THEME_DARK), t);
    ui_textbox(ui, ui_id_ptr(ui, buf), buf, cap, BOX, "hint", 0);
    ui_end(ui);
    ren_end(g_ren);
}

/* The text cursor blinks 0.6 s on and 0.4 s off from the last edit or
 * focus change, and after UI_BLINK_FOR seconds stays on: ui_caret_wait
 * says when it next changes (the window sleeps until then, not a fixed
 * 0.3 s), and -1 once it rests, so a window left with a focused field
 * sleeps for good; an edit starts the blinking again, the cursor on. */
static void test_caret_blinks_then_rests(void **state)
{
    (void)state;
    UiCtx ui = {0};
    char buf[16] = "ab";
    draw_box_at(&ui, buf, sizeof buf, 100.0);
    expect_true(ui_caret_wait(&ui) < 0, "no field has the keyboard: nothing to wake for");
    ui_focus_text(&ui, ui_id_ptr(&ui, buf), buf, sizeof buf);
    draw_box_at(&ui, buf, sizeof buf, 100.0);
    expect_true(ui_caret_on(&ui) && fabs(ui_caret_wait(&ui) - 0.6) < 1e-9, "focused: on, off in 0.6 s (%g)",
                ui_caret_wait(&ui));
    draw_box_at(&ui, buf, sizeof buf, 100.7);
    expect_true(!ui_caret_on(&ui) && fabs(ui_caret_wait(&ui) - 0.3) < 1e-9, "at 0.7 s: off, on in 0.3 s (%g)",
                ui_caret_wait(&ui));
    ui_edit_text(&ui, buf, sizeof buf, "c");
    expect_true(ui_caret_on(&ui) && ui_caret_wait(&ui) == 0, "typed: on at once, a frame to take the restart");
    draw_box_at(&ui, buf, sizeof buf, 100.8);
    expect_true(ui_caret_on(&ui) && fabs(ui_caret_wait(&ui) - 0.6) < 1e-9, "typed at 0.8 s: blinking from there (%g)",
                ui_caret_wait(&ui));
    /* left alone: the frames the blink asks for, then none */
    double t = 100.8;
    int frames = 0, on = 0;
    for (double w; (w = ui_caret_wait(&ui)) >= 0 && frames < 1000; frames++) {
        t += w + 0.002;
        draw_box_at(&ui, buf, sizeof buf, t);
        on += ui_caret_on(&ui);
    }
    expect_true(frames == 2 * (int)UI_BLINK_FOR && ui_caret_on(&ui) && ui_editing(&ui, buf),
                "%d frames in %.1f s, then the cursor rests on (the field keeps the keyboard)", frames, t - 100.8);
    expect_true(on == (int)UI_BLINK_FOR, "on in %d of them: every other one", on);
    draw_box_at(&ui, buf, sizeof buf, t + 3600);
    expect_true(ui_caret_on(&ui) && ui_caret_wait(&ui) < 0, "an hour later: on, nothing to wake for");
    ui_edit_key(&ui, buf, sizeof buf, KEY_LEFT, 0);
    draw_box_at(&ui, buf, sizeof buf, t + 3601);
    expect_true(ui_caret_on(&ui) && ui_caret_wait(&ui) > 0, "a key: it blinks again");
}

static void test_focus_leaves(void **state)
{
    (void)state;
    UiCtx ui = {0};
    char buf[16] = "hello";
    press(&ui, 50, 70);
    draw_box(&ui, buf, sizeof buf, 1);
    release(&ui);
    draw_box(&ui, buf, sizeof buf, 1);
    expect_true(ui_editing(&ui, buf), "focused after a click, and still a frame later");
    press(&ui, 210, 20); /* on the other button */
    int r = draw_box(&ui, buf, sizeof buf, 1);
    release(&ui);
    expect_true(r == UI_LEFT && ui.focus == 0 && !ui_editing(&ui, buf), "a click elsewhere leaves it (%d)", r);
    /* a field that is not drawn loses the keyboard */
    ui_focus_text(&ui, ui_id_ptr(&ui, buf), buf, sizeof buf);
    expect_true(ui_editing(&ui, buf) && ui.edit.cursor == 5, "ui_focus_text: the cursor at the end");
    frame_begin(&ui);
    frame_end(&ui);
    expect_true(ui.focus == 0, "a frame without the field: no focus (%u)", ui.focus);
    /* a second press in the focused box puts the cursor there */
    press(&ui, 50, 70);
    draw_box(&ui, buf, sizeof buf, 0);
    release(&ui);
    press(&ui, BOX.x + 8 + 1, 70);
    draw_box(&ui, buf, sizeof buf, 0);
    release(&ui);
    expect_true(ui_editing(&ui, buf) && ui.edit.cursor == 0, "a press at the start: cursor %d", ui.edit.cursor);
}

/* A press of n clicks (2: a double click) at x in the box, with mod held,
 * then its release, each in a frame. */
static void click_n(UiCtx *ui, char *buf, int cap, int x, int n, int mod)
{
    press(ui, x, 70);
    ui->in.clicks = n;
    ui->in.mod = mod;
    draw_box(ui, buf, cap, 0);
    release(ui);
    draw_box(ui, buf, cap, 0);
    ui->in.mod = 0;
}

/* The x of byte at of buf in BOX (its text starts 8 px in). */
static int x_of(const char *buf, int at)
{
    return BOX.x + 8 + ren_text_width_n(g_gfx.ui, buf, at);
}

static void sel(const UiCtx *ui, const char *buf, char *out)
{
    int a = ui->edit.anchor < ui->edit.cursor ? ui->edit.anchor : ui->edit.cursor;
    int b = ui->edit.anchor < ui->edit.cursor ? ui->edit.cursor : ui->edit.anchor;
    memcpy(out, buf + a, (size_t)(b - a));
    out[b - a] = 0;
}

static void test_textbox_mouse_selection(void **state)
{
    (void)state;
    UiCtx ui = {0};
    char buf[64] = "i love 中国|you", got[64];
    int f, t;
    ui_word_at(buf, 3, &f, &t);
    expect_true(f == 2 && t == 6, "the word around byte 3 is 'love': [%d, %d)", f, t);
    ui_word_at(buf, 8, &f, &t);
    expect_true(f == 7 && t == 13, "中国 is one word, a multi-byte character inside it too: [%d, %d)", f, t);
    ui_word_at(buf, 6, &f, &t);
    expect_true(f == 6 && t == 7, "on the space: the space itself [%d, %d)", f, t);
    ui_word_at(buf, 99, &f, &t);
    expect_true(f == 14 && t == 17, "past the end: the last word, after the '|' [%d, %d)", f, t);
    ui_word_at("", 0, &f, &t);
    expect_true(f == 0 && t == 0, "an empty line: nothing");

    click_n(&ui, buf, sizeof buf, x_of(buf, 4), 1, 0); /* takes the keyboard */
    click_n(&ui, buf, sizeof buf, x_of(buf, 4), 2, 0);
    sel(&ui, buf, got);
    expect_true(!strcmp(got, "love"), "a double click on 'love' selects it: '%s'", got);
    ui_edit_text(&ui, buf, sizeof buf, "like");
    expect_true(!strcmp(buf, "i like 中国|you"), "and typing replaces the word: '%s'", buf);
    click_n(&ui, buf, sizeof buf, x_of(buf, 9), 2, 0);
    sel(&ui, buf, got);
    expect_true(!strcmp(got, "中国"), "a double click inside 中国 selects it: '%s'", got);
    click_n(&ui, buf, sizeof buf, x_of(buf, 4), 3, 0);
    sel(&ui, buf, got);
    expect_true(!strcmp(got, buf), "a triple click selects the line: '%s'", got);
    /* a double click on a field that did not have the keyboard selects too */
    ui_focus_clear(&ui);
    click_n(&ui, buf, sizeof buf, x_of(buf, 1), 2, 0);
    sel(&ui, buf, got);
    expect_true(ui_editing(&ui, buf) && !strcmp(got, " "), "the first click's focus, then the word (the space): '%s'", got);

    /* a click, then Shift+click further on: the selection between them */
    click_n(&ui, buf, sizeof buf, x_of(buf, 2), 1, 0);
    click_n(&ui, buf, sizeof buf, x_of(buf, 6), 1, MOD_SHIFT);
    sel(&ui, buf, got);
    expect_true(!strcmp(got, "like"), "click then Shift+click: '%s'", got);
    /* a drag from 'i' to the end of 'like' */
    press(&ui, x_of(buf, 0), 70);
    ui.in.clicks = 1;
    draw_box(&ui, buf, sizeof buf, 0);
    mouse(&ui, x_of(buf, 6), 70);
    draw_box(&ui, buf, sizeof buf, 0);
    release(&ui);
    draw_box(&ui, buf, sizeof buf, 0);
    sel(&ui, buf, got);
    expect_true(!strcmp(got, "i like"), "a drag selects what it passed over: '%s'", got);
    /* Shift+arrows extend the selection; Ctrl+arrows go by words */
    ui_edit_key(&ui, buf, sizeof buf, KEY_RIGHT, MOD_SHIFT);
    sel(&ui, buf, got);
    expect_true(!strcmp(got, "i like "), "Shift+Right extends it by a character: '%s'", got);
    ui_edit_key(&ui, buf, sizeof buf, KEY_HOME, 0);
    ui_edit_key(&ui, buf, sizeof buf, KEY_RIGHT, MOD_CTRL);
    expect_true(ui.edit.cursor == 1, "Ctrl+Right: the end of the first word (%d)", ui.edit.cursor);
    ui_edit_key(&ui, buf, sizeof buf, KEY_RIGHT, MOD_CTRL | MOD_SHIFT);
    sel(&ui, buf, got);
    expect_true(ui.edit.cursor == 6 && !strcmp(got, " like"), "Ctrl+Shift+Right selects the next word: '%s'", got);
    ui_edit_key(&ui, buf, sizeof buf, KEY_END, 0);
    ui_edit_key(&ui, buf, sizeof buf, KEY_LEFT, MOD_CTRL);
    expect_true(ui.edit.cursor == 14, "Ctrl+Left from the end: the start of 'you' (%d)", ui.edit.cursor);
}

/* One frame of four controls, drawn in another order than they read:
 * band 2's button, band 1's button, then band 3's slider and field. */
typedef struct Ring {
    int clicked_a, clicked_b, slid;
    float v;
    char text[32];
} Ring;

static const Rect RA = {10, 10, 80, 24}, RB = {110, 10, 80, 24}, RS = {10, 60, 200, 16}, RT = {10, 100, 200, 28};

static void ring_frame(UiCtx *ui, Ring *g)
{
    frame_begin(ui);
    ui_tab_group(ui, 2);
    g->clicked_b = ui_button(ui, RB, "B", 0) & UI_CLICKED;
    ui_tab_group(ui, 1);
    g->clicked_a = ui_button(ui, RA, "A", 0) & UI_CLICKED;
    ui_tab_group(ui, 3);
    g->slid = ui_slider(ui, ui_id_ptr(ui, &g->v), RS, &g->v, 0, 2) & UI_CHANGED;
    ui_textbox(ui, ui_id_ptr(ui, g->text), g->text, sizeof g->text, RT, NULL, 0);
    frame_end(ui);
}

/* The colour of pixel (x, y) of the frame just drawn (0xRRGGBBAA). */
static uint32_t pixel_at(int x, int y)
{
    uint32_t p = 0;
    ren_read_pixels(g_ren, (Rect){x, y, 1, 1}, &p);
    return p;
}

static void test_tab_ring(void **state)
{
    (void)state;
    static UiCtx ui;
    memset(&ui, 0, sizeof ui);
    static Ring g = {.v = 1.0f};
    mouse(&ui, -50, -50);
    ring_frame(&ui, &g);
    expect_true(ui.n_last == 4 && ui.kfocus == 0, "four stops, no ring before Tab: %d, %u", ui.n_last, ui.kfocus);
    const char *order[] = {"A", "B", "slider", "field"};
    Rect where[] = {RA, RB, RS, RT};
    for (int i = 0; i < 4; i++) {
        expect_true(ui_tab_move(&ui, 1), "Tab moves");
        const UiStop *s = ui_tab_focused(&ui);
        expect_true(s && s->rc.x == where[i].x && s->rc.y == where[i].y, "Tab %d: %s, in reading order (at %d, %d)",
                    i + 1, order[i], s ? s->rc.x : -1, s ? s->rc.y : -1);
        if (i == 2) { /* the slider: arrows move it a twentieth of its range */
            expect_true(ui_tab_key(&ui, KEY_RIGHT, 0) && ui_tab_key(&ui, KEY_RIGHT, 0), "→ is the slider's");
            ring_frame(&ui, &g);
            expect_true(g.slid && fabsf(g.v - 1.2f) < 1e-5f, "two → moved 1 to 1.2: %g", g.v);
            ui_tab_key(&ui, KEY_LEFT, 0);
            ring_frame(&ui, &g);
            expect_true(fabsf(g.v - 1.1f) < 1e-5f, "← back by 0.1: %g", g.v);
        }
    }
    expect_true(ui_editing(&ui, g.text), "the ring on the field gives it the keyboard at once");
    ui_edit_text(&ui, g.text, sizeof g.text, "ok");
    expect_true(!strcmp(g.text, "ok"), "what is typed next goes in: '%s'", g.text);
    ui_focus_clear(&ui); /* Esc in the field: the ring stays on it */
    ring_frame(&ui, &g);
    ui_tab_move(&ui, 1);
    expect_true(ui_tab_focused(&ui)->rc.x == RA.x && ui_tab_focused(&ui)->rc.y == RA.y, "Tab after the last: the first");
    ui_tab_move(&ui, -1);
    ui_tab_move(&ui, -1);
    ui_tab_move(&ui, -1);
    expect_true(ui_tab_focused(&ui)->rc.x == RB.x, "Shift+Tab three times from A: B (wrapping)");
    ring_frame(&ui, &g);
    /* the ring is drawn round B, off its border: the select colour there */
    const Theme *th = theme_get(THEME_DARK);
    uint32_t sel = cmap_pack(th->select);
    expect_true(pixel_at(RB.x - 4, RB.y + 10) == sel, "the ring left of B: %08x, want %08x", pixel_at(RB.x - 4, RB.y + 10),
                sel);
    expect_true(pixel_at(RA.x - 4, RA.y + 10) != sel, "none round A: %08x", pixel_at(RA.x - 4, RA.y + 10));
    expect_true(!g.clicked_b, "no press yet");
    expect_true(ui_tab_key(&ui, KEY_RETURN, 0), "Enter is the ring's");
    ring_frame(&ui, &g);
    expect_true(g.clicked_b && !g.clicked_a, "Enter pressed B (and only B)");
    ring_frame(&ui, &g);
    expect_true(!g.clicked_b, "once");
    expect_true(ui_tab_key(&ui, KEY_SPACE, 0), "Space too");
    ring_frame(&ui, &g);
    expect_true(g.clicked_b, "Space pressed B");
    expect_true(!ui_tab_key(&ui, KEY_LEFT, 0), "← on a button is not the ring's (the window steps)");
    expect_true(ui_tab_key(&ui, KEY_ESCAPE, 0) && ui.kfocus == 0, "Esc hides the ring");
    expect_true(!ui_tab_key(&ui, KEY_RETURN, 0), "no ring: Enter is the window's again");
    ui_tab_move(&ui, 1);
    press(&ui, 300, 180);
    ring_frame(&ui, &g);
    release(&ui);
    expect_true(ui.kfocus == 0, "a click hides it");
}

int main(void)
{
    TU_RUN(setup, teardown, cmocka_unit_test(test_ids), cmocka_unit_test(test_hot_active_click),
           cmocka_unit_test(test_slider_and_drag), cmocka_unit_test(test_textbox_editing),
           cmocka_unit_test(test_textbox_mouse_selection), cmocka_unit_test(test_focus_leaves),
           cmocka_unit_test(test_caret_blinks_then_rests), cmocka_unit_test(test_button_label_cut),
           cmocka_unit_test(test_tab_ring));
}
