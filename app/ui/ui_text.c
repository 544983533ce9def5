/* ui_text.c - the text box of the widget context (ui.h) and the editing of
 * the field that has the keyboard: typing and pasting (only valid UTF-8
 * without control characters goes in, and no more than fits), deleting, a
 * cursor that moves by whole characters, a selection (Shift, Ctrl+A) and
 * the clipboard (Ctrl+C, Ctrl+X, Ctrl+V through the context's hooks), as
 * microui's mu_textbox_raw owns its editing. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ui.h"
#include "utf8.h"

/* Byte length of the character at s[at] (1 for a byte that is not valid
 * UTF-8, so the cursor always moves). */
static int char_len(const char *s, int at, int n)
{
    uint32_t cp;
    int k = utf8_next(s + at, (size_t)(n - at), &cp);
    return k > 0 ? k : 1;
}

static int next_char(const char *s, int at)
{
    int n = (int)strlen(s);
    return at >= n ? n : at + char_len(s, at, n);
}

static int prev_char(const char *s, int at)
{
    int n = (int)strlen(s), i = 0, prev = 0;
    while (i < at && i < n) {
        prev = i;
        i += char_len(s, i, n);
    }
    return prev;
}

/* at moved back to the start of its character, within s. */
static int boundary(const char *s, int at)
{
    int n = (int)strlen(s);
    if (at <= 0)
        return 0;
    if (at >= n)
        return n;
    return at == next_char(s, prev_char(s, at)) ? at : prev_char(s, at);
}

/* A character that ends a word: a space or the sentence separator '|'. */
static int word_gap(char c)
{
    return c == ' ' || c == '|';
}

void ui_word_at(const char *buf, int at, int *from, int *to)
{
    int n = (int)strlen(buf);
    at = boundary(buf, at);
    if (at >= n && n > 0) /* past the end: the last word */
        at = prev_char(buf, n);
    int gap = n > 0 && word_gap(buf[at]);
    int a = at, b = at;
    while (a > 0) { /* multi-byte characters are never gaps: stepping by bytes
                       stops on their first byte as on a character */
        int p = prev_char(buf, a);
        if (word_gap(buf[p]) != gap)
            break;
        a = p;
    }
    while (b < n && word_gap(buf[b]) == gap)
        b = next_char(buf, b);
    *from = a;
    *to = b;
}

/* Ctrl+Left / Ctrl+Right: to the start of this word or the one before,
 * to the end of this word or the one after (over the gaps between). */
static int word_left(const char *s, int at)
{
    while (at > 0 && word_gap(s[prev_char(s, at)]))
        at = prev_char(s, at);
    while (at > 0 && !word_gap(s[prev_char(s, at)]))
        at = prev_char(s, at);
    return at;
}

static int word_right(const char *s, int at)
{
    int n = (int)strlen(s);
    while (at < n && word_gap(s[at]))
        at = next_char(s, at);
    while (at < n && !word_gap(s[at]))
        at = next_char(s, at);
    return at;
}

void ui_edit_cursor(UiCtx *ui, const char *buf, int at)
{
    ui->edit.cursor = ui->edit.anchor = boundary(buf, at);
}

/* The cursor and anchor made valid for buf (the text may have been
 * replaced since: a lesson step, a model's own line). */
static void clamp(UiEdit *e, const char *buf)
{
    e->cursor = boundary(buf, e->cursor);
    e->anchor = boundary(buf, e->anchor);
}

static void selection(const UiEdit *e, int *from, int *to)
{
    *from = e->cursor < e->anchor ? e->cursor : e->anchor;
    *to = e->cursor < e->anchor ? e->anchor : e->cursor;
}

static int delete_range(UiEdit *e, char *buf, int from, int to)
{
    e->cursor = e->anchor = from;
    if (from >= to)
        return 0;
    memmove(buf + from, buf + to, strlen(buf + to) + 1);
    return UI_CHANGED;
}

static int delete_selection(UiEdit *e, char *buf)
{
    int from, to;
    selection(e, &from, &to);
    return delete_range(e, buf, from, to);
}

/* text without invalid UTF-8 and control characters (new lines and tabs
 * become spaces: a pasted paragraph is one line) into clean, at most
 * max bytes; returns its length. */
static int clean_text(const char *text, char *clean, int max)
{
    int n = 0;
    size_t len = strlen(text);
    for (size_t i = 0; i < len && n < max;) {
        uint32_t cp;
        int k = utf8_next(text + i, len - i, &cp);
        if (k < 0) {
            i++;
            continue;
        }
        if (cp == '\n' || cp == '\r' || cp == '\t') {
            clean[n++] = ' ';
        } else if (cp >= 0x20 && cp != 0x7f && n + k <= max) {
            memcpy(clean + n, text + i, (size_t)k);
            n += k;
        }
        i += (size_t)k;
    }
    return n;
}

int ui_edit_text(UiCtx *ui, char *buf, int cap, const char *text)
{
    if (!buf || cap <= 1 || !text)
        return 0;
    ui->blink_restart = 1;
    UiEdit *e = &ui->edit;
    clamp(e, buf);
    int res = delete_selection(e, buf);
    char *clean = malloc((size_t)cap);
    if (!clean)
        return res;
    int n = clean_text(text, clean, cap - 1), cur = (int)strlen(buf);
    if (cur + n > cap - 1) { /* cut at a character boundary */
        int room = cap - 1 - cur, fit = 0;
        while (fit < n && fit + char_len(clean, fit, n) <= room)
            fit += char_len(clean, fit, n);
        n = fit;
        res |= UI_FULL;
    }
    if (n > 0) {
        memmove(buf + e->cursor + n, buf + e->cursor, (size_t)(cur - e->cursor + 1));
        memcpy(buf + e->cursor, clean, (size_t)n);
        e->cursor = e->anchor = e->cursor + n;
        res |= UI_CHANGED;
    }
    free(clean);
    return res;
}

/* Ctrl+C and Ctrl+X: the selection to the clipboard hook. */
static void copy_selection(UiCtx *ui, const char *buf)
{
    int from, to;
    selection(&ui->edit, &from, &to);
    if (!ui->copy || from >= to)
        return;
    char *t = malloc((size_t)(to - from + 1));
    if (!t)
        return;
    memcpy(t, buf + from, (size_t)(to - from));
    t[to - from] = 0;
    ui->copy(t);
    free(t);
}

static int paste(UiCtx *ui, char *buf, int cap)
{
    if (!ui->paste)
        return 0;
    char *t = ui->paste();
    if (!t)
        return 0;
    int res = ui_edit_text(ui, buf, cap, t);
    free(t);
    return res;
}

/* Left, Right, Home, End: the cursor to `to`; with Shift the anchor stays
 * (the selection grows), without it a selection collapses. */
static void move(UiEdit *e, int to, int shift)
{
    e->cursor = to;
    if (!shift)
        e->anchor = to;
}

static int ctrl_key(UiCtx *ui, char *buf, int cap, Key key, int shift)
{
    UiEdit *e = &ui->edit;
    switch ((int)key) {
    case KEY_LEFT: move(e, word_left(buf, e->cursor), shift); return 0;
    case KEY_RIGHT: move(e, word_right(buf, e->cursor), shift); return 0;
    case 'a': e->anchor = 0; e->cursor = (int)strlen(buf); return 0;
    case 'c': copy_selection(ui, buf); return 0;
    case 'x': copy_selection(ui, buf); return delete_selection(e, buf);
    case 'v': return paste(ui, buf, cap);
    case 'u': return delete_range(e, buf, 0, (int)strlen(buf));
    default: return 0;
    }
}

int ui_edit_key(UiCtx *ui, char *buf, int cap, Key key, int mod)
{
    if (!buf)
        return 0;
    ui->blink_restart = 1;
    UiEdit *e = &ui->edit;
    clamp(e, buf);
    int shift = (mod & MOD_SHIFT) != 0, from, to;
    selection(e, &from, &to);
    if (mod & MOD_CTRL)
        return ctrl_key(ui, buf, cap, key, shift);
    switch ((int)key) {
    case KEY_BACKSPACE:
        return from < to ? delete_selection(e, buf) : delete_range(e, buf, prev_char(buf, from), from);
    case KEY_DELETE:
        return from < to ? delete_selection(e, buf) : delete_range(e, buf, from, next_char(buf, from));
    case KEY_LEFT: move(e, from < to && !shift ? from : prev_char(buf, e->cursor), shift); return 0;
    case KEY_RIGHT: move(e, from < to && !shift ? to : next_char(buf, e->cursor), shift); return 0;
    case KEY_HOME: move(e, 0, shift); return 0;
    case KEY_END: move(e, (int)strlen(buf), shift); return 0;
    case KEY_RETURN: case KEY_KP_ENTER: ui_focus_clear(ui); return UI_SUBMIT | UI_LEFT;
    case KEY_ESCAPE: ui_focus_clear(ui); return UI_LEFT;
    case KEY_TAB: return UI_NEXT;
    default: return 0;
    }
}

/* ---- the text box ---- */

/* The byte offset in s of the character boundary nearest x pixels. */
static int offset_at(RenFont *f, const char *s, int x)
{
    int n = (int)strlen(s), at = 0;
    while (at < n) {
        int nx = next_char(s, at);
        int mid = (ren_text_width_n(f, s, at) + ren_text_width_n(f, s, nx)) / 2;
        if (x < mid)
            break;
        at = nx;
    }
    return at;
}

/* A press in the focused box: one click puts the cursor there (Shift+click
 * moves only the cursor: the selection grows), a double click selects the
 * word under the mouse, a triple click the line. */
static void textbox_press(UiCtx *ui, char *buf, int at)
{
    UiEdit *e = &ui->edit;
    if (ui->in.clicks >= 3) {
        e->anchor = 0;
        e->cursor = (int)strlen(buf);
    } else if (ui->in.clicks == 2) {
        ui_word_at(buf, at, &e->anchor, &e->cursor);
    } else if (ui->in.mod & MOD_SHIFT) {
        clamp(e, buf);
        e->cursor = boundary(buf, at);
    } else {
        ui_edit_cursor(ui, buf, at);
    }
}

/* A press on the box: the first takes the keyboard (cursor at the end), a
 * press in the focused box places the cursor or selects (textbox_press),
 * and holding the button selects up to the mouse (after a double or triple
 * click the selection stays as it was made). Returns UI_LEFT for a press
 * elsewhere. */
static int textbox_mouse(UiCtx *ui, UiId id, char *buf, int cap, int over, RenFont *f, int x0)
{
    if (ui->in.pressed && !over && ui->focus == id && !ui->focus_fresh) {
        ui_focus_clear(ui);
        return UI_LEFT;
    }
    if (ui->in.pressed && over) {
        if (ui->focus != id && ui->in.clicks < 2)
            ui_focus_text(ui, id, buf, cap);
        else {
            if (ui->focus != id) /* a double click that began elsewhere */
                ui_focus_text(ui, id, buf, cap);
            textbox_press(ui, buf, offset_at(f, buf, ui->in.mx - x0));
        }
        ui->blink_restart = 1;
    } else if (ui->focus == id && ui->active == id && ui->in.down && ui->in.moved && ui->in.clicks < 2) {
        ui->edit.cursor = boundary(buf, offset_at(f, buf, ui->in.mx - x0));
    }
    return 0;
}

/* How far the text is scrolled left so that the cursor shows in room
 * pixels (the end of the text when the box has no keyboard). */
static int text_shift(UiCtx *ui, UiId id, const char *buf, RenFont *f, int room)
{
    if (ui->focus == id)
        clamp(&ui->edit, buf);
    int cur_x = ren_text_width_n(f, buf, ui->focus == id ? ui->edit.cursor : (int)strlen(buf));
    return cur_x > room ? cur_x - room : 0;
}

#define BLINK_ON 0.6 /* seconds on, of each second */

int ui_caret_on(const UiCtx *ui)
{
    double dt = ui->now - ui->blink_from;
    return ui->blink_restart || dt >= UI_BLINK_FOR || dt < 0 || fmod(dt, 1.0) < BLINK_ON;
}

double ui_caret_wait(const UiCtx *ui)
{
    double dt = ui->now - ui->blink_from;
    if (!ui->focus || ui->blink_restart || dt >= UI_BLINK_FOR || dt < 0)
        return ui->focus && ui->blink_restart ? 0 : -1; /* a restart: the next frame takes it */
    double ph = fmod(dt, 1.0), left = ph < BLINK_ON ? BLINK_ON - ph : 1.0 - ph;
    return left < UI_BLINK_FOR - dt ? left : UI_BLINK_FOR - dt;
}

int ui_textbox(UiCtx *ui, UiId id, char *buf, int cap, Rect rc, const char *hint, int opt)
{
    const Theme *th = ui->th;
    int over = ui_control(ui, id, rc);
    if (rc.w <= 0 || rc.h <= 0)
        return 0;
    RenFont *f = opt & UI_SMALL ? ui->g->small : ui->g->ui;
    int fh = ren_font_height(f), pad = opt & UI_SMALL ? ui_px(ui->g, 4) : 8;
    int tx = rc.x + pad, ty = rc.y + (rc.h - fh) / 2;
    int room = rc.w - 3 * pad;
    int res = textbox_mouse(ui, id, buf, cap, over, f, tx - text_shift(ui, id, buf, f, room));
    int focused = ui->focus == id;
    ren_rect(ui->r, rc, th->bg);
    ren_rect_line(ui->r, rc, focused ? 2 : 1, focused ? th->accent : opt & UI_WARN ? th->warn : th->border);
    ren_clip_push(ui->r, rc);
    if (!buf[0] && hint) /* cut with an ellipsis where the box ends */
        ui_text_fit(ui->r, f, hint, tx, ty, rc.x + rc.w - pad - tx, th->dim);
    int shift = text_shift(ui, id, buf, f, room);
    int cur_x = ren_text_width_n(f, buf, focused ? ui->edit.cursor : (int)strlen(buf));
    if (focused && ui->edit.anchor != ui->edit.cursor) {
        int from, to;
        selection(&ui->edit, &from, &to);
        int x0 = ren_text_width_n(f, buf, from), x1 = ren_text_width_n(f, buf, to);
        Color sel = th->select;
        sel.a = 90;
        ren_rect(ui->r, (Rect){tx - shift + x0, ty, x1 - x0, fh}, sel);
    }
    ren_text(ui->r, f, buf, tx - shift, ty, th->text);
    if (focused && ui_caret_on(ui))
        ren_rect(ui->r, (Rect){tx - shift + cur_x, ty, 2, fh}, th->accent);
    ren_clip_pop(ui->r);
    ui_tab_field(ui, id, rc, buf, cap); /* Tab reaches it: it gets the keyboard */
    return res;
}
