/* app_event.c - input events (input.h) into App state: keys (run as the
 * command table, cmd_table.c, binds them, or typed into the focused text
 * field), text input
 * (UTF-8, so input methods for Chinese work), mouse and window events.
 * Mouse clicks on widgets are handled when the frame is built (immediate
 * mode); here they are only recorded. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "cmd_table.h"
#include "lesson_ui.h"
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

static const char *focused_text(const App *a)
{
    if (a->focus == FOCUS_VIEW)
        return a->view_text;
    return a->focus == FOCUS_TGT ? a->ses.tgt : a->focus == FOCUS_SRC ? a->ses.src_line : NULL;
}

/* The focused line becomes s: a view's own field is the view's buffer; an
 * input line goes through the session, which re-runs the model. */
static void edited(App *a, const char *s)
{
    if (a->focus == FOCUS_VIEW)
        snprintf(a->view_text, APP_TEXT_MAX, "%s", s);
    else if (a->focus == FOCUS_SRC || a->focus == FOCUS_TGT)
        app_set_text(a, a->focus, s);
}

/* Insert typed text at the cursor; invalid UTF-8 and control bytes are
 * dropped, and the line never overflows (the excess is cut with a notice). */
static void insert_text(App *a, const char *t)
{
    const char *now = focused_text(a);
    if (!now)
        return;
    char s[APP_TEXT_MAX];
    snprintf(s, sizeof s, "%s", now);
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
    edited(a, s);
}

static void delete_range(App *a, int from, int to)
{
    const char *now = focused_text(a);
    if (!now || from >= to)
        return;
    char s[APP_TEXT_MAX];
    snprintf(s, sizeof s, "%s", now);
    memmove(s + from, s + to, strlen(s + to) + 1);
    a->cursor = from;
    edited(a, s);
}

static void text_key(App *a, Key key, int mod)
{
    const char *s = focused_text(a);
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

/* ---- keys: the command table's (cmd_table.c) ---- */

/* +1 bigger text, -1 smaller, within presenter mode's range. */
static void text_size(App *a, int dir)
{
    if (dir > 0 && a->text_scale < 3.0f)
        a->text_scale *= 1.15f;
    else if (dir < 0 && a->text_scale > 0.6f)
        a->text_scale /= 1.15f;
}

static void next_theme(App *a)
{
    a->theme = (ThemeId)((a->theme + 1) % THEME_COUNT);
    app_notice(a, 0, _("theme: %s"), _(theme_get(a->theme)->name));
}

/* The colour map of what is shown: sequential for 0.. data (weights,
 * probabilities, ReLU outputs), diverging for signed data. */
static void next_cmap(App *a)
{
    StageKind k = stage_info(app_pos(a).stage)->kind;
    int prob = k == SK_WEIGHTS || k == SK_PROBS || k == SK_HIDDEN;
    CmapId *m = prob ? &a->cmap_prob : &a->cmap_signed;
    *m = (CmapId)((*m + 1) % CMAP_COUNT);
    app_notice(a, 0, _("colour map: %s"), cmap_name(*m));
}

static void toggle_play(App *a)
{
    a->playing = !a->playing;
    a->play_next = a->now + 0.8;
    app_notice(a, 0, "%s", a->playing ? _("playing: a stage every 1.6 s (Space pauses)") : _("paused"));
}

static void edit_source(App *a)
{
    a->focus = FOCUS_SRC;
    a->cursor = (int)strlen(a->ses.src_line);
}

static void switch_lang(App *a)
{
    lesson_ui_set_lang(a, !a->lang);
    app_notice(a, 0, "%s", _("language: English")); /* in the new language */
}

/* Do what a window row says; 0 when it passes the key on (a quiz's
 * number with no quiz to answer). */
static int run_window(App *a, int act, int arg)
{
    switch (act) {
    case WA_STEP: app_step(a, arg); break;
    case WA_FIRST: app_step(a, -a->ses.n_walk); break;
    case WA_LAST: app_step(a, a->ses.n_walk); break;
    case WA_LAYER: app_change_layer(a, arg); break;
    case WA_SIDE: app_toggle_side(a); break;
    case WA_HEAD: app_set_head(a, arg); break;
    case WA_ALL_HEADS: /* and the natural view of all heads: the grid */
        app_set_head(a, -1);
        a->view = VIEW_AUTO;
        break;
    case WA_TEXT_SIZE: text_size(a, arg); break;
    case WA_THEME: next_theme(a); break;
    case WA_CMAP: next_cmap(a); break;
    case WA_PLAY: toggle_play(a); break;
    case WA_EDIT: edit_source(a); break;
    case WA_HELP: a->show_help = 1; break;
    case WA_FULLSCREEN: a->want_fullscreen_toggle = 1; break;
    case WA_SAVE_PNG: a->want_save_png = 1; break;
    case WA_SAVE_VECTOR: a->want_save_vector = 1; break;
    case WA_SAVE_CSV: a->want_save_csv = 1; break;
    case WA_QUIT: a->want_quit = 1; break;
    case WA_LESSONS: case WA_LIST_CLOSE: lesson_ui_toggle_list(a); break;
    case WA_LANG: switch_lang(a); break;
    case WA_EXP_PANEL: app_exp_toggle_panel(a); break;
    case WA_EXP_COMPARE: app_exp_compare(a); break;
    case WA_EXP_NO_SCALE: app_exp_change(a, EXP_NO_SCALE); break;
    case WA_EXP_NO_PE: app_exp_change(a, EXP_NO_PE); break;
    case WA_EXP_NO_CAUSAL: app_exp_change(a, EXP_NO_CAUSAL); break;
    case WA_EXP_CLEAR: app_exp_change(a, EXP_CLEAR); break;
    case WA_LESSON_STEP: lesson_ui_step(a, arg); break;
    case WA_LESSON_CLOSE: lesson_ui_close(a); break;
    case WA_QUIZ: return lesson_ui_quiz_key(a, arg);
    case WA_LIST_MOVE: lesson_ui_list_move(a, arg); break;
    case WA_LIST_ENTER: lesson_ui_list_enter(a); break;
    case WA_MODELS_CLOSE: model_ui_close(a); break;
    default: return 0;
    }
    return 1;
}

/* Run row c for key: a tab's row through its view, else the window's. */
static int run_row(App *a, const Cmd *c, Key key)
{
    if (!c)
        return 0;
    int arg = c->arg + (int)(cmd_plain_key(key) - c->key);
    return c->scope == CS_TAB ? app_view_act(a, (ViewAct)c->act, arg) : run_window(a, c->act, arg);
}

/* Is the scope open in the App's state now? */
static int scope_open(const App *a, CmdScope s)
{
    switch (s) {
    case CS_MODELS: return model_ui_list(a, NULL);
    case CS_LESSON_LIST: return lesson_ui_list_open(a);
    case CS_LESSON: return lesson_ui_active(a) && !lesson_ui_list_open(a);
    case CS_EXP: return a->show_exp;
    default: return 1;
    }
}

const Cmd *app_key(App *a, Key key, int mod, int text)
{
    if (text) { /* a text field has the keyboard: only what works there too */
        const Cmd *c = cmd_lookup(CS_GLOBAL, VIEW_AUTO, key, mod);
        return c && (c->flags & CMD_TEXT) && run_row(a, c, key) ? c : NULL;
    }
    int first = CS_MODELS;
    if (a->show_help && key != KEY_F11) { /* a key closes the help */
        a->show_help = 0;
        const Cmd *c = cmd_lookup(CS_GLOBAL, VIEW_AUTO, key, mod);
        if (key == KEY_ESCAPE || (c && c->act == WA_HELP))
            return cmd_find("help"); /* the help took it: that is all */
        first = CS_GLOBAL; /* and then does what it does everywhere */
    }
    ViewId tab = app_current_view(a);
    for (int s = first; s < CS_COUNT; s++) {
        const Cmd *c = scope_open(a, (CmdScope)s) ? cmd_lookup((CmdScope)s, tab, key, mod) : NULL;
        if (run_row(a, c, key))
            return c;
    }
    return NULL;
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
            if (!app_key(a, e->key, e->mod, 1))
                text_key(a, e->key, e->mod);
            break;
        }
        app_key(a, e->key, e->mod, 0); /* the command table's */
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
