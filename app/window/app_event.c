/* app_event.c - input events (input.h) into App state: keys (through the
 * command table, cmd_table.c, or into the focused text field), text input
 * (UTF-8, so input methods for Chinese work), mouse and window events.
 * Mouse clicks on widgets are handled when the frame is built (immediate
 * mode); here they are only recorded. */
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "cmd_table.h"
#include "model_ui.h"
#include "utf8.h"

/* Byte length of the character at s[at] (1 for a byte that is not valid
 * UTF-8, so the cursor always moves). */
static int char_len(const char *s, int at, int n)
{
    uint32_t cp;
    int k = utf8_next(s + at, (size_t)(n - at), &cp);
    return k > 0 ? k : 1;
}

/* Byte offset of the next / previous character. */
static int utf8_next_off(const char *s, int at)
{
    int n = (int)strlen(s);
    return at >= n ? n : at + char_len(s, at, n);
}

static int utf8_prev(const char *s, int at)
{
    int n = (int)strlen(s), i = 0, prev = 0;
    while (i < at && i < n) {
        prev = i;
        i += char_len(s, i, n);
    }
    return prev;
}

static char *focused_text(App *a)
{
    if (a->focus == FOCUS_VIEW)
        return a->view_text;
    return a->focus == FOCUS_TGT ? a->ses.tgt : a->focus == FOCUS_SRC ? a->ses.src_line : NULL;
}

/* Editing the input lines re-runs the model; a view's own field does not. */
static void edited(App *a)
{
    if (a->focus == FOCUS_SRC || a->focus == FOCUS_TGT)
        a->ses.dirty = 1;
}

/* Insert typed text at the cursor; invalid UTF-8 and control bytes are
 * dropped, and the line never overflows (the excess is cut with a notice). */
static void insert_text(App *a, const char *t)
{
    char *s = focused_text(a);
    if (!s)
        return;
    char clean[APP_TEXT_MAX];
    int n = 0;
    size_t len = strlen(t);
    for (size_t i = 0; i < len && n < APP_TEXT_MAX - 1;) {
        uint32_t cp;
        int k = utf8_next(t + i, len - i, &cp);
        if (k < 0) {
            i++;
            continue;
        }
        if (cp >= 0x20 && cp != 0x7f && n + k < APP_TEXT_MAX) {
            memcpy(clean + n, t + i, (size_t)k);
            n += k;
        }
        i += (size_t)k;
    }
    int cur = (int)strlen(s);
    if (cur + n > APP_TEXT_MAX - 1) {
        /* cut at a character boundary */
        int room = APP_TEXT_MAX - 1 - cur, fit = 0;
        while (fit < n && fit + char_len(clean, fit, n) <= room)
            fit += char_len(clean, fit, n);
        n = fit;
        app_notice(a, 1, _("the line is full (%d bytes): the rest of the text was dropped"), APP_TEXT_MAX - 1);
    }
    if (n <= 0)
        return;
    if (a->cursor > cur)
        a->cursor = cur;
    memmove(s + a->cursor + n, s + a->cursor, (size_t)(cur - a->cursor + 1));
    memcpy(s + a->cursor, clean, (size_t)n);
    a->cursor += n;
    edited(a);
}

static void delete_range(App *a, int from, int to)
{
    char *s = focused_text(a);
    if (!s || from >= to)
        return;
    memmove(s + from, s + to, strlen(s + to) + 1);
    a->cursor = from;
    edited(a);
}

static void text_key(App *a, Key key, int mod)
{
    char *s = focused_text(a);
    int ctrl = (mod & MOD_CTRL) != 0;
    switch ((int)key) {
    case KEY_BACKSPACE: delete_range(a, utf8_prev(s, a->cursor), a->cursor); break;
    case KEY_DELETE: delete_range(a, a->cursor, utf8_next_off(s, a->cursor)); break;
    case KEY_LEFT: a->cursor = utf8_prev(s, a->cursor); break;
    case KEY_RIGHT: a->cursor = utf8_next_off(s, a->cursor); break;
    case KEY_HOME: a->cursor = 0; break;
    case KEY_END: a->cursor = (int)strlen(s); break;
    case KEY_RETURN: case KEY_KP_ENTER: case KEY_ESCAPE: a->focus = FOCUS_NONE; break;
    case KEY_TAB:
        if (a->focus == FOCUS_VIEW) { /* a view's field: Tab leaves it */
            a->focus = FOCUS_NONE;
            break;
        }
        a->focus = a->focus == FOCUS_SRC ? FOCUS_TGT : FOCUS_SRC;
        a->cursor = (int)strlen(focused_text(a));
        break;
    case 'u':
        if (ctrl)
            delete_range(a, 0, (int)strlen(s));
        break;
    case 'v':
        if (ctrl && a->paste) { /* the same checks as typing (insert_text) */
            char *t = a->paste();
            if (t) {
                for (char *c = t; *c; c++)
                    if (*c == '\n' || *c == '\r' || *c == '\t')
                        *c = ' '; /* a pasted paragraph becomes one line */
                insert_text(a, t);
                free(t);
            }
        }
        break;
    default: break;
    }
}

void app_event(App *a, const InputEvent *e)
{
    float ps = a->pixel_scale > 0 ? a->pixel_scale : 1.0f;
    switch (e->type) {
    case IN_QUIT: a->want_quit = 1; break;
    case IN_KEY:
        if (a->focus == FOCUS_VIEW && !a->view_text)
            a->focus = FOCUS_NONE;
        if (a->focus != FOCUS_NONE) { /* Ctrl+Q and F11 work there too */
            if (!cmd_key(a, e->key, e->mod, 1))
                text_key(a, e->key, e->mod);
            break;
        }
        cmd_key(a, e->key, e->mod, 0); /* the command table's */
        break;
    case IN_TEXT:
        /* outside a text field, keys are shortcuts (handled as IN_KEY) */
        if (a->focus != FOCUS_NONE && focused_text(a))
            insert_text(a, e->text);
        break;
    case IN_DROP: app_open_dropped(a, e->path); break;
    case IN_MOUSE_MOVE:
        a->in.mx = (int)(e->x * ps);
        a->in.my = (int)(e->y * ps);
        a->in.moved = 1;
        break;
    case IN_MOUSE_DOWN:
        a->in.mx = (int)(e->x * ps);
        a->in.my = (int)(e->y * ps);
        if (a->show_help) {
            a->show_help = 0;
            break;
        }
        a->in.mod = e->mod;
        if (e->button == MB_LEFT) {
            a->in.down = 1;
            a->in.pressed = 1;
        } else if (e->button == MB_RIGHT) {
            a->in.rpressed = 1;
        }
        break;
    case IN_MOUSE_UP:
        if (e->button == MB_LEFT) {
            a->in.down = 0;
            a->in.released = 1;
        }
        break;
    case IN_WHEEL:
        a->in.wheel += e->wheel;
        break;
    case IN_MOUSE_LEAVE:
        a->in.mx = a->in.my = -1;
        break;
    default: break;
    }
}
