/* app_event.c - input events (input.h) into App state: keys (run as the
 * command table, cmd_table.c, binds them, or sent to the focused text
 * field, which the widget context edits: ui_text.c), text input (UTF-8,
 * so input methods for Chinese work), mouse and window events.
 * Mouse clicks on widgets are handled when the frame is built (immediate
 * mode); here they are only recorded. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "cmd_table.h"
#include "describe.h"
#include "scene.h"
#include "lesson_ui.h"
#include "model_ui.h"

/* A key or typed text for the field that has the keyboard (ui_text.c
 * edits it): one of the input lines, which are the Session's, edited in a
 * copy that goes back through app_set_text; or a view's own field, edited
 * in place. Tab moves between the two lines and leaves a view's field. */
static void text_event(App *a, const InputEvent *e)
{
    UiCtx *ui = &a->ui;
    int side = app_focused_line(a);
    char line[APP_TEXT_MAX];
    char *buf = ui->edit.buf;
    int cap = ui->edit.cap;
    if (side >= 0) {
        snprintf(line, sizeof line, "%s", side == APP_LINE_TGT ? a->ses.tgt : a->ses.src_line);
        buf = line;
        cap = (int)sizeof line;
    }
    if (!buf) { /* a field that is gone */
        ui_focus_clear(ui);
        return;
    }
    int r = e->type == IN_TEXT ? ui_edit_text(ui, buf, cap, e->text)
                               : ui_edit_key(ui, buf, cap, e->key, e->mod);
    if (r & UI_FULL)
        app_notice(a, 1, _("the line is full (%d bytes): the rest of the text was dropped"), cap - 1);
    /* a scene code pasted into the Source line (or typed, then Enter)
     * opens the scene */
    int pasted = e->type == IN_KEY && e->key == (Key)'v' && (e->mod & MOD_CTRL) && (r & UI_CHANGED);
    int entered = e->type == IN_KEY && e->key == KEY_RETURN;
    if (side == APP_LINE_SRC && (pasted || entered) && scene_code_like(line)) {
        ui_focus_clear(ui);
        app_scene_open_code(a, line);
        return;
    }
    if (side >= 0 && (r & UI_CHANGED))
        app_set_text(a, side, line);
    if (r & UI_NEXT) { /* Tab: the field is left, the ring goes on from it (Source, then Target, ...) */
        ui->kfocus = ui->focus;
        ui_focus_clear(ui);
        ui_tab_move(ui, e->mod & MOD_SHIFT ? -1 : 1);
        a->redraw_soon = 1;
    }
}

/* Is something open over the window that takes the keys itself (the help,
 * the QR code, the lesson list with its arrows and Enter)? */
static int overlay_open(const App *a)
{
    return a->show_help || app_scene_qr_open(a) || lesson_ui_list_open(a);
}

/* Tab, Shift+Tab: the keyboard's ring to the next / previous control. */
static void move_ring(App *a, int dir)
{
    if (!ui_tab_move(&a->ui, dir))
        return;
    a->redraw_soon = 1;
}

/* ---- keys: the command table's (cmd_table.c) ---- */

/* +1 bigger text, -1 smaller, within presenter mode's range. */
static void text_size(App *a, int dir)
{
    if (dir > 0 && a->look.text_scale < 3.0f)
        a->look.text_scale *= 1.15f;
    else if (dir < 0 && a->look.text_scale > 0.6f)
        a->look.text_scale /= 1.15f;
}

static void next_theme(App *a)
{
    a->look.theme = (ThemeId)((a->look.theme + 1) % THEME_COUNT);
    app_notice(a, 0, _("theme: %s (T: the next; Backspace resets the view)"), _(theme_get(a->look.theme)->name));
}

/* The colour map of what is shown: sequential for 0.. data (weights,
 * probabilities, ReLU outputs), diverging for signed data. */
static void next_cmap(App *a)
{
    StageKind k = stage_info(app_pos(a).stage)->kind;
    int prob = k == SK_WEIGHTS || k == SK_PROBS || k == SK_HIDDEN;
    CmapId *m = prob ? &a->look.cmap_prob : &a->look.cmap_signed;
    *m = (CmapId)((*m + 1) % CMAP_COUNT);
    app_notice(a, 0, _("colour map: %s (C: the next; Backspace resets the view)"), cmap_name(*m));
}

static void toggle_play(App *a)
{
    a->play.on = !a->play.on;
    a->play.next = a->now + 0.8;
    app_notice(a, 0, "%s", a->play.on ? _("playing: a stage every 1.6 s (Space pauses)") : _("paused"));
}

static void edit_source(App *a)
{
    app_focus_line(a, APP_LINE_SRC);
}

/* Ctrl+arrows: the keyboard's cell moves (and appears on the first press,
 * at the top left), inside the matrix the view drew it in (its
 * CursorRoom; before any, the stage's matrix); Ctrl+PgUp / PgDn move it to
 * the matrix before / after in a grid of them (the all-heads grid). */
static void move_cursor(App *a, int dx, int dy, int dthumb)
{
    CellCursor *k = &a->cursor;
    const CursorRoom *m = &a->cursor.room;
    int rows = m->rows, cols = m->cols;
    if (rows < 1) {
        StagePos p = app_pos(a);
        TfView v;
        TfErr err;
        rows = cols = TF_MAX_LEN;
        if (tf_view(&a->ses.trace, p.stage, p.layer, a->ses.head < 0 ? 0 : a->ses.head, a->ses.batch, &v, &err) == 0)
            rows = v.rows, cols = v.cols;
    }
    if (k->on) {
        k->col = k->col + dx < 0 ? 0 : k->col + dx >= cols ? cols - 1 : k->col + dx;
        k->row = k->row + dy < 0 ? 0 : k->row + dy >= rows ? rows - 1 : k->row + dy;
        if (m->thumbs > 0) {
            int t = k->thumb + dthumb, lo = m->thumb_lo, hi = m->thumb_lo + m->thumbs - 1;
            k->thumb = t < lo ? lo : t > hi ? hi : t;
        }
    }
    k->on = 1;
    a->redraw_soon = 1;
}

/* Ctrl+Enter, Alt+Enter: what a click and an Alt+click do at the
 * keyboard's cell (the hover it gave in the last frame): follow its row's
 * token; in All heads ablate its head, elsewhere hide its column's source
 * token. */
static void cursor_act(App *a, int alt)
{
    const Hover *h = &a->hover;
    TfView v;
    TfErr err;
    if (!a->cursor.on || !h->valid || h->own ||
        tf_view(&a->ses.trace, h->stage, h->layer, h->head < 0 ? 0 : h->head, h->b, &v, &err)) {
        app_notice(a, 1, "%s", _("no keyboard cell on a token: move one with Ctrl+arrows"));
        return;
    }
    if (!alt) {
        int side = ui_side_of(v.row_kind);
        if (!side)
            return;
        int same = a->sel.side == side && a->sel.index == h->row;
        a->sel = same ? (Selection){0, 0} : (Selection){side, h->row};
    } else if (app_current_view(a) == VIEW_HEADS && h->head >= 0) {
        StageId q = stage_attn_block(h->stage);
        TfAttnKind kind = q == ST_DEC_CROSS_Q ? TF_ATTN_CROSS : q == ST_DEC_SELF_Q ? TF_ATTN_DEC : TF_ATTN_ENC;
        TfExperiment e = a->ses.exp;
        tf_exp_toggle_head(&e, kind, h->layer, h->head);
        app_set_exp(a, &e);
    } else if (v.col_kind == LBL_SRC) {
        app_exp_toggle_hide(a, h->col);
    } else {
        app_notice(a, 1, "%s", _("Alt+Enter hides a source token: put the keyboard cell in a column of one"));
        return;
    }
    a->redraw_soon = 1;
}

/* Ctrl+D: the view in words, to the clipboard and read aloud. */
static void describe_view(App *a)
{
    static char text[1 << 16];
    if (app_describe(a, text, sizeof text) < 0)
        return;
    if (a->ui.copy)
        a->ui.copy(text);
    int spoken = (a->ui.speak ? a->ui.speak : app_speak)(text) == 0;
    app_notice(a, 0, "%s", spoken ? _("the view in words: copied, and being read aloud")
                                  : _("the view in words: copied (install speech-dispatcher to hear it)"));
}

/* Ctrl+Shift+V: the clipboard's scene code opened. */
static void scene_paste(App *a)
{
    char *t = a->ui.paste ? a->ui.paste() : NULL;
    if (t && scene_code_like(t))
        app_scene_open_code(a, t);
    else
        app_notice(a, 1, "%s", _("the clipboard holds no scene code (they start with SF1-)"));
    free(t);
}

static void switch_lang(App *a)
{
    lesson_ui_set_lang(a, !a->look.lang);
    app_notice(a, 0, "%s", _("language: English")); /* in the new language */
}

/* Backspace outside a text field: the view as the window opens it, apart
 * from the model, the input, the language and the text size. */
static void reset_view(App *a)
{
    app_put_exp(a, &(TfExperiment){0});
    a->cmp = CMP_EXP;
    a->show_exp = 0;
    a->play.on = 0;
    a->view = VIEW_AUTO;
    a->look.theme = (ThemeId)0;
    a->look.cmap_prob = CMAP_VIRIDIS;
    a->look.cmap_signed = CMAP_DIVERGING;
    for (int v = 0; v < VIEW_COUNT; v++)
        a->pz[v] = (PanZoom){1.0f, 0, 0};
    app_step(a, -a->ses.n_walk);
    session_set_head(&a->ses, 0);
    app_notice(a, 0, "%s", _("view reset: no experiment, the first stage, head 1, the dark theme"));
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
    case WA_FULLSCREEN: a->win.want_fullscreen_toggle = 1; break;
    case WA_SAVE_PNG: a->win.want_save_png = 1; break;
    case WA_SAVE_WINDOW: a->win.want_save_window = 1; break;
    case WA_SAVE_VECTOR: a->win.want_save_vector = 1; break;
    case WA_SAVE_CSV: a->win.want_save_csv = 1; break;
    case WA_RESULTS: app_save_results(a); break;
    case WA_QUIT: a->win.want_quit = 1; break;
    case WA_LESSONS: case WA_LIST_CLOSE: lesson_ui_toggle_list(a); break;
    case WA_LANG: switch_lang(a); break;
    case WA_RESET: reset_view(a); break;
    case WA_EXP_PANEL:
        app_exp_toggle_panel(a);
        app_notice(a, 0, "%s", a->show_exp ? _("the Experiments panel is open (E closes it; Backspace resets the view)")
                                           : _("the Experiments panel is closed"));
        break;
    case WA_EXP_COMPARE: app_exp_compare(a); break;
    case WA_ROLLOUT: a->rollout = !a->rollout; a->redraw_soon = 1; break;
    case WA_EXP_NO_SCALE: app_exp_change(a, EXP_NO_SCALE); break;
    case WA_EXP_NO_PE: app_exp_change(a, EXP_NO_PE); break;
    case WA_EXP_NO_CAUSAL: app_exp_change(a, EXP_NO_CAUSAL); break;
    case WA_EXP_NO_RESIDUAL: app_exp_change(a, EXP_NO_RESIDUAL); break;
    case WA_EXP_NO_FFN: app_exp_change(a, EXP_NO_FFN); break;
    case WA_EXP_CLEAR: app_exp_change(a, EXP_CLEAR); break;
    case WA_LESSON_STEP: lesson_ui_step(a, arg); break;
    case WA_LESSON_CLOSE: lesson_ui_close(a); break;
    case WA_QUIZ: return lesson_ui_quiz_key(a, arg);
    case WA_LIST_MOVE: lesson_ui_list_move(a, arg); break;
    case WA_LIST_ENTER: lesson_ui_list_enter(a); break;
    case WA_MODELS_CLOSE: model_ui_close(a); break;
    case WA_DESCRIBE: describe_view(a); break;
    case WA_CURSOR_X: move_cursor(a, arg, 0, 0); break;
    case WA_CURSOR_Y: move_cursor(a, 0, arg, 0); break;
    case WA_CURSOR_THUMB: move_cursor(a, 0, 0, arg); break;
    case WA_CURSOR_ACT: cursor_act(a, arg); break;
    case WA_SCENE_COPY: app_scene_copy(a); break;
    case WA_SCENE_PASTE: scene_paste(a); break;
    case WA_SCENE_QR: app_scene_qr_toggle(a); break;
    case WA_FOCUS: move_ring(a, arg); break;
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
    if (app_scene_qr_open(a) && key != KEY_F11) { /* a key closes the QR code */
        app_scene_qr_toggle(a);
        if (key == KEY_ESCAPE || key == (Key)'q')
            return cmd_find("scene.qr");
    }
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

/* ---- letters typed outside a text field ----
 *
 * A letter outside a field is a shortcut, and it begins a burst: the keys
 * that follow within TYPING_GAP seconds of each other. While every key of
 * the burst is a shortcut, they stay shortcuts (E then S: the panel, then
 * no scaling). A key of the burst that is no shortcut shows it was typing
 * ("the cat": T changed the theme, H is nothing): what the burst changed
 * is put back (the look, the language, the experiment, the panels, the
 * view, the stage and head), the Source line takes the keyboard and gets
 * the burst's letters, and the keys after go to it. */
#define TYPING_GAP 0.4

static int printable(Key k, int mod)
{
    return !(mod & (MOD_CTRL | MOD_ALT)) && k >= 32 && k < 127;
}

static int letter(Key k)
{
    return k >= 'a' && k <= 'z';
}

static char key_char(Key k, int mod)
{
    return letter(k) && (mod & MOD_SHIFT) ? (char)(k - 'a' + 'A') : (char)k;
}

static void typing_add(AppTyping *t, Key key, int mod)
{
    if ((size_t)t->n + 1 < sizeof t->text) {
        t->text[t->n++] = key_char(key, mod);
        t->text[t->n] = 0;
    } else {
        t->armed = 0; /* that long is not a word typed by mistake */
    }
}

/* The first key of a burst: what the window is before it runs. */
static void typing_begin(App *a, Key key, int mod)
{
    AppTyping *t = &a->typing;
    t->n = 0;
    t->armed = 1;
    typing_add(t, key, mod);
    t->look = a->look;
    t->exp = a->ses.exp;
    t->cmp = a->cmp;
    t->show_exp = a->show_exp;
    t->show_help = a->show_help;
    t->playing = a->play.on;
    t->view = a->view;
    t->walk_at = a->ses.at;
    t->head = a->ses.head;
    t->list_open = lesson_ui_list_open(a);
}

/* Undo what the burst's shortcuts did and type its letters instead. */
static void typing_take(App *a, Key key, int mod)
{
    AppTyping *t = &a->typing;
    t->armed = 0;
    if (lesson_ui_list_open(a) != t->list_open)
        lesson_ui_toggle_list(a);
    if (a->look.lang != t->look.lang)
        lesson_ui_set_lang(a, t->look.lang);
    a->look = t->look;
    if (!tf_exp_equal(&a->ses.exp, &t->exp))
        app_put_exp(a, &t->exp);
    a->cmp = t->cmp;
    a->show_exp = t->show_exp;
    a->show_help = t->show_help;
    a->play.on = t->playing;
    if (a->ses.at != t->walk_at && t->walk_at < a->ses.n_walk)
        app_goto(a, a->ses.walk[t->walk_at].stage, a->ses.walk[t->walk_at].layer);
    a->view = t->view;
    session_set_head(&a->ses, t->head);
    typing_add(t, key, mod);
    app_focus_line(a, APP_LINE_SRC);
    char line[APP_TEXT_MAX];
    size_t n = (size_t)snprintf(line, sizeof line, "%s", a->ses.src_line);
    if (n > 0 && n + 1 < sizeof line && line[n - 1] != ' ' && line[n - 1] != '|' && t->text[0] != ' ') {
        line[n] = ' '; /* words typed after the sentence, as words */
        line[n + 1] = 0;
        ui_edit_cursor(&a->ui, line, (int)n + 1);
    }
    int r = ui_edit_text(&a->ui, line, (int)sizeof line, t->text);
    if (r & UI_CHANGED)
        app_set_text(a, APP_LINE_SRC, line);
    t->swallow = 1; /* the IN_TEXT of this key is in already */
    app_notice(a, 0, "%s", _("typing: the letters go to the Source line (Enter or Esc: done)"));
}

/* A key with no text field focused: a shortcut, or typing. */
static void key_outside(App *a, Key key, int mod)
{
    AppTyping *t = &a->typing;
    if (!printable(key, mod)) {
        t->armed = 0;
        app_key(a, key, mod, 0);
        return;
    }
    if (!(t->armed && a->now - t->at <= TYPING_GAP)) { /* a burst begins */
        t->armed = 0;
        if (letter(key))
            typing_begin(a, key, mod);
        t->at = a->now;
        app_key(a, key, mod, 0);
        return;
    }
    t->at = a->now;
    if (app_key(a, key, mod, 0)) { /* a shortcut too: the burst goes on */
        if (a->ui.focus) /* ... unless it gave a field the keyboard */
            t->armed = 0;
        else
            typing_add(t, key, mod);
        return;
    }
    typing_take(a, key, mod);
}

void app_event(App *a, const InputEvent *e)
{
    float ps = a->look.pixel_scale > 0 ? a->look.pixel_scale : 1.0f;
    switch (e->type) {
    case IN_QUIT: a->win.want_quit = 1; break;
    case IN_KEY:
        a->typing.swallow = 0; /* a key's IN_TEXT comes before the next key */
        if (a->ui.focus) { /* Ctrl+Q and F11 work there too */
            if (!app_key(a, e->key, e->mod, 1))
                text_event(a, e);
            break;
        }
        if (!overlay_open(a) && ui_tab_key(&a->ui, e->key, e->mod)) { /* the ring's: Enter, Space, arrows, Esc */
            a->typing.armed = 0;
            a->typing.swallow = e->key == KEY_SPACE; /* its text is no space typed (the ring may have given a field the keyboard) */
            a->redraw_soon = 1;
            break;
        }
        key_outside(a, e->key, e->mod); /* the command table's, or typing */
        break;
    case IN_TEXT:
        /* outside a text field, keys are shortcuts (handled as IN_KEY);
         * the text of the key that began typing is in the field already */
        if (a->typing.swallow) {
            a->typing.swallow = 0;
            break;
        }
        if (a->ui.focus)
            text_event(a, e);
        break;
    case IN_DROP: app_open_dropped(a, e->path); break;
    case IN_MOUSE_MOVE:
        a->ui.in.mx = (int)(e->x * ps);
        a->ui.in.my = (int)(e->y * ps);
        a->ui.in.moved = 1;
        break;
    case IN_MOUSE_DOWN:
        a->ui.in.mx = (int)(e->x * ps);
        a->ui.in.my = (int)(e->y * ps);
        if (a->show_help) {
            a->show_help = 0;
            break;
        }
        a->ui.in.mod = e->mod;
        if (e->button == MB_LEFT) {
            a->ui.in.down = 1;
            a->ui.in.pressed = 1;
            a->ui.in.clicks = e->clicks > 0 ? e->clicks : 1;
        } else if (e->button == MB_RIGHT) {
            a->ui.in.rpressed = 1;
        }
        break;
    case IN_MOUSE_UP:
        if (e->button == MB_LEFT) {
            a->ui.in.down = 0;
            a->ui.in.released = 1;
        }
        break;
    case IN_WHEEL:
        a->ui.in.wheel += e->wheel;
        break;
    case IN_MOUSE_LEAVE:
        a->ui.in.mx = a->ui.in.my = -1;
        break;
    default: break;
    }
}
