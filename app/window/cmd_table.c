/* cmd_table.c - the window's commands and keys (cmd_table.h): the table,
 * the lookup of a key in a scope, and what is made from the table for
 * people to read (key labels, hints, the `?` lines, the printed list). It
 * runs nothing: app_event.c dispatches a key to the row's action (a tab's
 * ViewAct through app_view_act, or the window's own WinAct), so the table
 * sits below everything that reads it. */
#include "cmd_table.h"

#include <string.h>

#include "ui.h"

/* ---- the table ---- */

/* Rows by scope: G everywhere, T a tab's (its view's action), P a panel's
 * or a list's (G and P: a WA_ action of the window), M a mouse gesture
 * (documented only). R: a range of keys. */
#define ROW(sc, tab, name, k, l, m, act, arg, help, hint, mouse, fl) \
    {name, sc, tab, k, l, m, act, arg, help, hint, mouse, fl}
#define G(name, k, m, act, arg, help, hint, fl) ROW(CS_GLOBAL, VIEW_AUTO, name, k, k, m, act, arg, help, hint, NULL, fl)
#define GR(name, k, l, act, arg, help, hint, fl) ROW(CS_GLOBAL, VIEW_AUTO, name, k, l, 0, act, arg, help, hint, NULL, fl)
#define T(tab, name, k, m, act, arg, help, hint, fl) ROW(CS_TAB, tab, name, k, k, m, act, arg, help, hint, NULL, fl)
#define TR(tab, name, k, l, act, help, hint, fl) ROW(CS_TAB, tab, name, k, l, 0, act, 0, help, hint, NULL, fl)
#define P(sc, name, k, m, act, arg, help, fl) ROW(sc, VIEW_AUTO, name, k, k, m, act, arg, help, NULL, NULL, fl)
#define M(name, mouse, help) ROW(CS_GLOBAL, VIEW_AUTO, name, KEY_NONE, KEY_NONE, 0, WA_NONE, 0, help, NULL, mouse, 0)

enum { OV = CMD_OVERRIDE, QU = CMD_QUIET, TX = CMD_TEXT, ST = CMD_STATUS, PA = CMD_PASS };

static const Cmd TABLE[] = {
    /* the language chooser and the lessons: they come first when open */
    P(CS_MODELS, "models.close", KEY_ESCAPE, 0, WA_MODELS_CLOSE, 0, N_("close the language list"), OV),
    P(CS_LESSON_LIST, "lessons.list.prev", KEY_LEFT, 0, WA_LIST_MOVE, -1, N_("the lesson before / after"), OV),
    P(CS_LESSON_LIST, "lessons.list.next", KEY_RIGHT, 0, WA_LIST_MOVE, 1, N_("the lesson before / after"), OV),
    P(CS_LESSON_LIST, "lessons.list.up", KEY_UP, 0, WA_LIST_MOVE, -1, N_("the lesson before / after"), OV),
    P(CS_LESSON_LIST, "lessons.list.down", KEY_DOWN, 0, WA_LIST_MOVE, 1, N_("the lesson before / after"), OV),
    P(CS_LESSON_LIST, "lessons.list.open", KEY_RETURN, 0, WA_LIST_ENTER, 0, N_("open the lesson selected"), OV),
    P(CS_LESSON_LIST, "lessons.list.close", KEY_ESCAPE, 0, WA_LIST_CLOSE, 0, N_("close the lesson list"), OV),
    P(CS_LESSON_LIST, "lessons.list.results", 'e', MOD_CTRL | MOD_SHIFT, WA_RESULTS, 0,
      N_("export your test answers for the teacher (a CSV in Documents)"), OV),
    P(CS_LESSON, "lesson.next", KEY_PAGEDOWN, 0, WA_LESSON_STEP, 1, N_("next / previous lesson step"), 0),
    P(CS_LESSON, "lesson.prev", KEY_PAGEUP, 0, WA_LESSON_STEP, -1, N_("next / previous lesson step"), 0),
    ROW(CS_LESSON, VIEW_AUTO, "lesson.answer", '1', '9', 0, WA_QUIZ, 0, N_("answer the quiz"), NULL, NULL, OV | PA),
    P(CS_LESSON, "lesson.close", KEY_ESCAPE, 0, WA_LESSON_CLOSE, 0, N_("leave the lesson"), OV),
    P(CS_LESSON, "lesson.results", 'e', MOD_CTRL | MOD_SHIFT, WA_RESULTS, 0,
      N_("export your test answers for the teacher (a CSV in Documents)"), OV),

    /* the tabs' own keys */
    T(VIEW_HEADS, "heads.metrics", 'm', 0, VA_METRICS, 0, N_("each head's numbers over its thumbnail"), N_("numbers"), ST),
    T(VIEW_HEADS, "heads.sort", 'o', 0, VA_SORT, 0, N_("order the heads by a number"), N_("order"), ST),
    T(VIEW_HEADS, "heads.table", 'a', 0, VA_TABLE, 0, N_("the Heads table under the thumbnails: show / hide"), N_("table"), ST),

    T(VIEW_DECODE, "decode.step", 's', 0, VA_STEP, 0, N_("generate the next token"), N_("step"), ST),
    T(VIEW_DECODE, "decode.play", 'p', 0, VA_PLAY, 0, N_("play / pause the generation"), N_("play"), OV | ST),
    T(VIEW_DECODE, "decode.play.space", KEY_SPACE, 0, VA_PLAY, 0, N_("play / pause the generation"), NULL, OV),
    T(VIEW_DECODE, "decode.restart", 'r', 0, VA_RESTART, 0, N_("generate again from <bos>"), N_("restart"), OV | ST),
    T(VIEW_DECODE, "decode.prev", KEY_LEFT, 0, VA_MOVE, -1, N_("the token before / after"), N_("token"), OV | ST),
    T(VIEW_DECODE, "decode.next", KEY_RIGHT, 0, VA_MOVE, 1, N_("the token before / after"), N_("token"), OV | ST),
    T(VIEW_DECODE, "decode.first", KEY_HOME, 0, VA_FIRST, 0, N_("the first / last token"), NULL, OV),
    T(VIEW_DECODE, "decode.last", KEY_END, 0, VA_LAST, 0, N_("the first / last token"), NULL, OV),
    T(VIEW_DECODE, "decode.pane.next", 'j', 0, VA_PANE, 1, N_("the next / previous pane"), N_("pane"), OV | ST),
    T(VIEW_DECODE, "decode.pane.prev", 'j', MOD_SHIFT, VA_PANE, -1, N_("the next / previous pane"), NULL, OV),
    T(VIEW_DECODE, "decode.layer.prev", '[', 0, VA_LAYER, -1, N_("previous / next layer"), NULL, OV),
    T(VIEW_DECODE, "decode.layer.next", ']', 0, VA_LAYER, 1, N_("previous / next layer"), NULL, OV),
    TR(VIEW_DECODE, "decode.head", '1', '9', VA_HEAD, N_("show head 1 … 9"), NULL, OV),
    T(VIEW_DECODE, "decode.heads.all", '0', 0, VA_HEAD, -1, N_("the average of the heads"), NULL, OV),
    T(VIEW_DECODE, "decode.beam.more", 'b', 0, VA_BEAM, 1, N_("Beam pane: one beam more / fewer"), NULL, 0),
    T(VIEW_DECODE, "decode.beam.fewer", 'b', MOD_SHIFT, VA_BEAM, -1, N_("Beam pane: one beam more / fewer"), NULL, 0),
    T(VIEW_DECODE, "decode.alpha", 'a', 0, VA_ALPHA, 0, N_("Beam pane: the next length penalty"), NULL, 0),
    T(VIEW_DECODE, "decode.unforce", 'f', 0, VA_UNFORCE, 0, N_("take the forced tokens back"), NULL, PA),
    /* , and . change a value down / up wherever there is one (T is the theme everywhere) */
    T(VIEW_DECODE, "decode.temp.down", ',', 0, VA_TEMP, -1, N_("Sampling pane: temperature down / up"), NULL, 0),
    T(VIEW_DECODE, "decode.temp.up", '.', 0, VA_TEMP, 1, N_("Sampling pane: temperature down / up"), NULL, 0),
    T(VIEW_DECODE, "decode.top_k", 'k', 0, VA_TOP_K, 0, N_("Sampling pane: the next top-k"), NULL, 0),
    T(VIEW_DECODE, "decode.top_p", 'u', 0, VA_TOP_P, 0, N_("Sampling pane: the next top-p"), NULL, 0),
    T(VIEW_DECODE, "decode.draw", 'n', 0, VA_DRAW, 0, N_("Sampling pane: draw a sample"), NULL, 0),

    T(VIEW_TRAIN, "train.play", 'p', 0, VA_PLAY, 0, N_("start / pause training"), N_("start/pause"), OV),
    T(VIEW_TRAIN, "train.play.space", KEY_SPACE, 0, VA_PLAY, 0, N_("start / pause training"), N_("start/pause"), OV),
    T(VIEW_TRAIN, "train.step", 's', 0, VA_STEP, 0, N_("one training step"), N_("step"), 0),
    T(VIEW_TRAIN, "train.reset", 'r', 0, VA_RESTART, 0, N_("a new model from random weights"), N_("reset"), OV),
    T(VIEW_TRAIN, "train.save", 'w', 0, VA_SAVE, 0, N_("save the model"), N_("save"), 0),
    T(VIEW_TRAIN, "train.open", 'o', 0, VA_OPEN, 0, N_("open the model in the Decode tab"), N_("open in Decode"), 0),
    T(VIEW_TRAIN, "train.prev", KEY_LEFT, 0, VA_MOVE, -1, N_("the snapshot before / after"), N_("snapshots"), OV),
    T(VIEW_TRAIN, "train.next", KEY_RIGHT, 0, VA_MOVE, 1, N_("the snapshot before / after"), N_("snapshots"), OV),
    T(VIEW_TRAIN, "train.first", KEY_HOME, 0, VA_FIRST, 0, N_("the first snapshot / the live model"), NULL, OV),
    T(VIEW_TRAIN, "train.live", KEY_END, 0, VA_LAST, 0, N_("the first snapshot / the live model"), N_("live"), OV),
    T(VIEW_TRAIN, "train.layer.prev", '[', 0, VA_LAYER, -1, N_("previous / next layer"), N_("layer"), OV),
    T(VIEW_TRAIN, "train.layer.next", ']', 0, VA_LAYER, 1, N_("previous / next layer"), N_("layer"), OV),
    TR(VIEW_TRAIN, "train.head", '1', '9', VA_HEAD, N_("show head 1 … 9"), N_("head"), OV),
    T(VIEW_TRAIN, "train.heads.all", '0', 0, VA_HEAD, -1, N_("all heads at once"), N_("all heads"), OV),
    T(VIEW_TRAIN, "train.attn.next", 'j', 0, VA_PANE, 1, N_("the attention shown: next / previous"), N_("attention"), OV),
    T(VIEW_TRAIN, "train.attn.prev", 'j', MOD_SHIFT, VA_PANE, -1, N_("the attention shown: next / previous"), NULL, OV),
    T(VIEW_TRAIN, "train.task.next", 'd', 0, VA_TASK, 1, N_("the task: next / previous"), N_("task"), OV),
    T(VIEW_TRAIN, "train.task.prev", 'd', MOD_SHIFT, VA_TASK, -1, N_("the task: next / previous"), NULL, OV),
    T(VIEW_TRAIN, "train.size", 'y', 0, VA_SIZE, 0, N_("the model's size"), N_("size"), 0),
    T(VIEW_TRAIN, "train.field.next", 'x', 0, VA_FIELD, 1, N_("the setting to change: next / previous"), N_("setting"), 0),
    T(VIEW_TRAIN, "train.field.prev", 'x', MOD_SHIFT, VA_FIELD, -1, N_("the setting to change: next / previous"), NULL, 0),
    T(VIEW_TRAIN, "train.value.down", ',', 0, VA_VALUE, -1, N_("the setting's value down / up"), N_("change"), 0),
    T(VIEW_TRAIN, "train.value.up", '.', 0, VA_VALUE, 1, N_("the setting's value down / up"), N_("change"), 0),
    T(VIEW_TRAIN, "train.file", 'f', 0, VA_FILE, 0, N_("type the path of a file of sentence pairs"), N_("file"), 0),
    T(VIEW_TRAIN, "train.swap", 'v', 0, VA_SWAP, 0, N_("curves or attention (small windows)"), N_("curves/attention"), 0),
    T(VIEW_TRAIN, "train.entropy", 'h', 0, VA_ENTROPY, 0, N_("the heads' entropy or tokens per second"), N_("entropy"), 0),
    T(VIEW_TRAIN, "train.cmap", 'c', 0, VA_CMAP, 0, N_("colour map: viridis, cividis, blue-orange"), NULL, OV),

    /* the Experiments panel, while it is open: Alt+letter switches a part
     * off, as Alt+click ablates a head or hides a token, so that S, P and M
     * keep the one meaning they have everywhere (step, play, metrics) */
    P(CS_EXP, "exp.no_scale", 's', MOD_ALT, WA_EXP_NO_SCALE, 0, N_("switch off / on: the 1/√d_k scaling, the positional encoding, the causal mask"), 0),
    P(CS_EXP, "exp.no_pe", 'p', MOD_ALT, WA_EXP_NO_PE, 0, N_("switch off / on: the 1/√d_k scaling, the positional encoding, the causal mask"), 0),
    P(CS_EXP, "exp.no_causal", 'm', MOD_ALT, WA_EXP_NO_CAUSAL, 0, N_("switch off / on: the 1/√d_k scaling, the positional encoding, the causal mask"), 0),
    /* quiet: the ? overlay is full at 800 x 600; the panel's buttons name these keys */
    P(CS_EXP, "exp.no_residual", 'r', MOD_ALT, WA_EXP_NO_RESIDUAL, 0, N_("switch the residual connections off / on"), QU),
    P(CS_EXP, "exp.no_ffn", 'f', MOD_ALT, WA_EXP_NO_FFN, 0, N_("switch the feed-forward network of the layer shown off / on"), QU),
    P(CS_EXP, "exp.clear", 'x', MOD_ALT, WA_EXP_CLEAR, 0, N_("clear the experiment"), QU), /* and Backspace, listed */

    /* everywhere */
    G("stage.prev", KEY_LEFT, 0, WA_STEP, -1, N_("previous / next stage"), N_("step"), ST),
    G("stage.next", KEY_RIGHT, 0, WA_STEP, 1, N_("previous / next stage"), N_("step"), ST),
    G("stage.up", KEY_UP, 0, WA_STEP, -1, N_("previous / next stage"), NULL, 0),
    G("stage.down", KEY_DOWN, 0, WA_STEP, 1, N_("previous / next stage"), NULL, 0),
    G("stage.first", KEY_HOME, 0, WA_FIRST, 0, N_("the first / last stage"), NULL, 0),
    G("stage.last", KEY_END, 0, WA_LAST, 0, N_("the first / last stage"), NULL, 0),
    G("layer.prev", '[', 0, WA_LAYER, -1, N_("previous / next layer"), N_("layer"), ST),
    G("layer.next", ']', 0, WA_LAYER, 1, N_("previous / next layer"), N_("layer"), ST),
    GR("head", '1', '9', WA_HEAD, 0, N_("show head 1 … 9"), N_("head"), ST),
    G("heads.all", '0', 0, WA_ALL_HEADS, 0, N_("all heads at once"), N_("all heads"), ST),
    G("side", 'j', 0, WA_SIDE, 0, N_("jump between encoder and decoder"), N_("encoder/decoder"), ST),
    /* Tab means one thing everywhere: the keyboard's ring through the controls */
    G("focus.next", KEY_TAB, 0, WA_FOCUS, 1, N_("the focus ring: next / previous control (Enter, Space: press it; ← →: a slider)"), NULL, 0),
    G("focus.prev", KEY_TAB, MOD_SHIFT, WA_FOCUS, -1, N_("the focus ring: next / previous control (Enter, Space: press it; ← →: a slider)"), NULL, 0),
    M("mouse.click", N_("click"), N_("a token: follow it across views (Ctrl+Enter: the keyboard cell's row); a block: jump to it")),
    M("mouse.hover", N_("hover"), N_("a cell: its exact value and how it was computed (or Ctrl+arrows; Ctrl+PgUp/PgDn: the head or heatmap)")),
    M("mouse.drag", N_("wheel, drag"), N_("zoom and pan big matrices (right-click resets)")),
    M("mouse.alt_click", N_("Alt+click"), N_("a head in All heads: ablate it; a source token: hide it (Alt+Enter: at the keyboard cell)")),
    G("exp.panel", 'e', 0, WA_EXP_PANEL, 0, N_("the Experiments panel: switch a part of the model off"), NULL, 0),
    G("exp.compare", 'd', 0, WA_EXP_COMPARE, 0, N_("with an experiment on: experiment, normal, difference"), NULL, 0),
    G("rollout", 'r', 0, WA_ROLLOUT, 0, N_("attention rollout instead of one layer's weights (heatmap, lines)"), NULL, 0),
    G("play", KEY_SPACE, 0, WA_PLAY, 0, N_("play / pause stepping"), NULL, 0),
    G("play.p", 'p', 0, WA_PLAY, 0, N_("play / pause stepping"), NULL, 0), /* P plays in every tab */
    G("edit", KEY_RETURN, 0, WA_EDIT, 0, N_("type the sentence (Tab: the target; Enter, Esc: done)"), NULL, 0),
    G("text.bigger", '+', 0, WA_TEXT_SIZE, 1, N_("bigger / smaller text (presenter mode)"), NULL, 0),
    G("text.bigger.eq", '=', 0, WA_TEXT_SIZE, 1, N_("bigger / smaller text (presenter mode)"), NULL, QU),
    G("text.smaller", '-', 0, WA_TEXT_SIZE, -1, N_("bigger / smaller text (presenter mode)"), NULL, 0),
    G("theme", 't', 0, WA_THEME, 0, N_("theme: dark, light, high contrast"), NULL, 0),
    G("cmap", 'c', 0, WA_CMAP, 0, N_("colour map: viridis, cividis, blue-orange"), NULL, 0),
    G("lessons", 'l', 0, WA_LESSONS, 0, N_("the lessons"), NULL, 0),
    G("reset", KEY_BACKSPACE, 0, WA_RESET, 0, N_("reset the view: no experiment, first stage, dark theme"), NULL, 0),
    M("text.keys", N_("Ctrl+A/C/X/V/U"),
      N_("in a text field: select all, copy / cut / paste, clear (×); a double / triple click selects a word / the line")),
    G("lang", 'z', 0, WA_LANG, 0, N_("English / 中文"), NULL, 0),
    /* a teacher saves a figure for a slide: the view alone, with its caption */
    G("save.png", 's', MOD_CTRL, WA_SAVE_PNG, 0, N_("save the view alone with its caption: as PNG, as PDF and SVG"), NULL, 0),
    G("save.vector", 's', MOD_CTRL | MOD_SHIFT, WA_SAVE_VECTOR, 0, N_("save the view alone with its caption: as PNG, as PDF and SVG"), NULL, 0),
    G("save.window", 's', MOD_CTRL | MOD_ALT, WA_SAVE_WINDOW, 0, N_("save the whole window as PNG"), NULL, 0),
    G("save.csv", 'e', MOD_CTRL, WA_SAVE_CSV, 0, N_("save the current matrix as CSV"), NULL, 0),
    G("cursor.left", KEY_LEFT, MOD_CTRL, WA_CURSOR_X, -1, N_("(and Ctrl+→ ↑ ↓) move a keyboard cell in a matrix"), NULL, QU),
    G("cursor.right", KEY_RIGHT, MOD_CTRL, WA_CURSOR_X, 1, N_("(and Ctrl+→ ↑ ↓) move a keyboard cell in a matrix"), NULL, QU),
    G("cursor.up", KEY_UP, MOD_CTRL, WA_CURSOR_Y, -1, N_("(and Ctrl+→ ↑ ↓) move a keyboard cell in a matrix"), NULL, QU),
    G("cursor.down", KEY_DOWN, MOD_CTRL, WA_CURSOR_Y, 1, N_("(and Ctrl+→ ↑ ↓) move a keyboard cell in a matrix"), NULL, QU),
    G("cursor.head.prev", KEY_PAGEUP, MOD_CTRL, WA_CURSOR_THUMB, -1, N_("(and Ctrl+→ ↑ ↓) move a keyboard cell in a matrix"), NULL, QU),
    G("cursor.head.next", KEY_PAGEDOWN, MOD_CTRL, WA_CURSOR_THUMB, 1, N_("(and Ctrl+→ ↑ ↓) move a keyboard cell in a matrix"), NULL, QU),
    G("cursor.select", KEY_RETURN, MOD_CTRL, WA_CURSOR_ACT, 0, N_("(and Ctrl+→ ↑ ↓) move a keyboard cell in a matrix"), NULL, QU),
    G("cursor.alt", KEY_RETURN, MOD_ALT, WA_CURSOR_ACT, 1, N_("(and Ctrl+→ ↑ ↓) move a keyboard cell in a matrix"), NULL, QU),
    G("describe", 'd', MOD_CTRL, WA_DESCRIBE, 0, N_("the view in words (Ctrl+Shift+C copies its scene code and link, Ctrl+Shift+V opens one, Q: its QR code)"), NULL, 0),
    G("scene.copy", 'c', MOD_CTRL | MOD_SHIFT, WA_SCENE_COPY, 0, N_("the view in words (Ctrl+Shift+C copies its scene code and link, Ctrl+Shift+V opens one, Q: its QR code)"), NULL, TX | QU),
    G("scene.paste", 'v', MOD_CTRL | MOD_SHIFT, WA_SCENE_PASTE, 0, N_("the view in words (Ctrl+Shift+C copies its scene code and link, Ctrl+Shift+V opens one, Q: its QR code)"), NULL, TX | QU),
    G("scene.qr", 'q', 0, WA_SCENE_QR, 0, N_("the view in words (Ctrl+Shift+C copies its scene code and link, Ctrl+Shift+V opens one, Q: its QR code)"), NULL, QU),
    G("fullscreen", KEY_F11, 0, WA_FULLSCREEN, 0, N_("full screen"), NULL, TX),
    G("help", '?', 0, WA_HELP, 0, N_("this help"), N_("help"), ST),
    G("help.slash", '/', 0, WA_HELP, 0, N_("this help"), NULL, QU),
    /* one line for both (? is full at 800 x 600, text x1.5) */
    G("quit.ctrl", 'q', MOD_CTRL, WA_QUIT, 0, N_("quit (Ctrl+Q from a text field too; Esc first leaves a text field, the focus ring or the help)"), NULL, TX),
    G("quit", KEY_ESCAPE, 0, WA_QUIT, 0, N_("quit (Ctrl+Q from a text field too; Esc first leaves a text field, the focus ring or the help)"), NULL, 0),
};
#define N_TABLE ((int)(sizeof TABLE / sizeof TABLE[0]))

const Cmd *cmd_table(int *n)
{
    *n = N_TABLE;
    return TABLE;
}

const Cmd *cmd_find(const char *name)
{
    for (int i = 0; i < N_TABLE; i++)
        if (strcmp(TABLE[i].name, name) == 0)
            return &TABLE[i];
    return NULL;
}

/* ---- dispatch ---- */

Key cmd_plain_key(Key k)
{
    if (k >= KEY_KP_0 && k <= KEY_KP_9)
        return (Key)('0' + (k - KEY_KP_0));
    if (k == KEY_KP_PLUS)
        return (Key)'+';
    if (k == KEY_KP_MINUS)
        return (Key)'-';
    return k;
}

/* 2: the row binds key with exactly mod; 1: with Shift held beyond the
 * row's; 0: not at all. */
static int binds(const Cmd *c, Key key, int mod)
{
    if (c->key == KEY_NONE || key < c->key || key > c->last)
        return 0;
    if ((mod & (MOD_CTRL | MOD_ALT)) != (c->mods & (MOD_CTRL | MOD_ALT)))
        return 0;
    if ((c->mods & MOD_SHIFT) && !(mod & MOD_SHIFT))
        return 0;
    return (mod & MOD_SHIFT) == (c->mods & MOD_SHIFT) ? 2 : 1;
}

static int in_scope(const Cmd *c, CmdScope scope, ViewId tab)
{
    return c->scope == scope && (scope != CS_TAB || c->tab == tab);
}

const Cmd *cmd_lookup(CmdScope scope, ViewId tab, Key key, int mod)
{
    const Cmd *loose = NULL;
    key = cmd_plain_key(key);
    for (int i = 0; i < N_TABLE; i++) {
        if (!in_scope(&TABLE[i], scope, tab))
            continue;
        int b = binds(&TABLE[i], key, mod);
        if (b == 2)
            return &TABLE[i];
        if (b == 1 && !loose)
            loose = &TABLE[i];
    }
    return loose;
}

int cmd_in_tab(const Cmd *c, ViewId tab)
{
    if (c->scope == CS_TAB)
        return c->tab == tab;
    if (c->scope != CS_GLOBAL && c->scope != CS_EXP)
        return 1;
    if (c->key == KEY_NONE)
        return 1;
    for (Key k = c->key; k <= c->last; k = (Key)(k + 1)) { /* one key of it still does this */
        const Cmd *t = cmd_lookup(CS_TAB, tab, k, c->mods);
        if (!t || (t->flags & CMD_PASS))
            return 1;
    }
    return 0;
}

/* ---- what people read ---- */

static const char *key_name(Key k, int ascii)
{
    static const struct { Key k; const char *uni, *ascii; } NAMES[] = {
        {KEY_LEFT, "←", "Left"}, {KEY_RIGHT, "→", "Right"}, {KEY_UP, "↑", "Up"},
        {KEY_DOWN, "↓", "Down"}, {KEY_HOME, "Home", "Home"}, {KEY_END, "End", "End"},
        {KEY_PAGEUP, "PgUp", "PgUp"}, {KEY_PAGEDOWN, "PgDn", "PgDn"}, {KEY_F11, "F11", "F11"},
        {KEY_TAB, "Tab", "Tab"}, {KEY_RETURN, "Enter", "Enter"}, {KEY_ESCAPE, "Esc", "Esc"},
        {KEY_SPACE, "Space", "Space"}, {KEY_BACKSPACE, "Backspace", "Backspace"},
        {KEY_DELETE, "Delete", "Delete"}, {(Key)'-', "−", "-"},
    };
    for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++)
        if (NAMES[i].k == k)
            return ascii ? NAMES[i].ascii : NAMES[i].uni;
    return NULL;
}

/* One key with its modifiers: letters as on the keycap (upper case). */
static void one_key(char *buf, size_t cap, Key k, int mods, int ascii)
{
    const char *name = key_name(k, ascii);
    char ch[2] = {(char)(k >= 'a' && k <= 'z' ? k - 'a' + 'A' : k), 0};
    snprintf(buf, cap, "%s%s%s%s", (mods & MOD_CTRL) ? "Ctrl+" : "", (mods & MOD_ALT) ? "Alt+" : "",
             (mods & MOD_SHIFT) ? "Shift+" : "", name ? name : ch);
}

static const char *label(const Cmd *c, char *buf, size_t cap, int ascii)
{
    if (c->key == KEY_NONE) {
        snprintf(buf, cap, "%s", ascii ? c->mouse : _(c->mouse));
        return buf;
    }
    one_key(buf, cap, c->key, c->mods, ascii);
    if (c->last != c->key) {
        char to[32];
        one_key(to, sizeof to, c->last, c->mods, ascii);
        size_t n = strlen(buf);
        snprintf(buf + n, cap - n, "-%s", to);
    }
    return buf;
}

const char *cmd_key_label(const Cmd *c, char *buf, size_t cap)
{
    return label(c, buf, cap, 0);
}

const char *cmd_key_of(const char *name, char *buf, size_t cap)
{
    const Cmd *c = cmd_find(name);
    if (!c) {
        buf[0] = 0;
        return buf;
    }
    return label(c, buf, cap, 0);
}

/* Append s to buf (cut at cap). */
static void put(char *buf, size_t cap, const char *s)
{
    size_t n = strlen(buf);
    if (n + 1 < cap)
        snprintf(buf + n, cap - n, "%s", s);
}

/* The bracket keys "[" and "]" are joined by a space: "[/]" would read as
 * a third key between them. */
static int lone_marks(const char *keys, const char *l)
{
    size_t n = strlen(keys);
    return n >= 1 && keys[n - 1] == '[' && (n == 1 || keys[n - 2] == ' ') && strcmp(l, "]") == 0;
}

/* The rows of a scope, as lines: rows next to each other that share
 * their words (help, or hint) share a line, their keys joined. Calls
 * line(key labels, the row's words, ctx) per line; returns the lines. */
typedef void (*LineFn)(const char *keys, const char *words, void *ctx);
static int each_line(CmdScope scope, ViewId tab, int hint, int status_only, int ascii, const char *join,
                     LineFn line, void *ctx)
{
    char keys[96] = "", one[48];
    const char *words = NULL;
    int n = 0;
    for (int i = 0; i < N_TABLE; i++) {
        const Cmd *c = &TABLE[i];
        const char *w = hint ? c->hint : c->help;
        if (!in_scope(c, scope, tab) || (c->flags & CMD_QUIET) || !w || (status_only && !(c->flags & CMD_STATUS)))
            continue;
        if ((scope == CS_GLOBAL || scope == CS_EXP) && tab != VIEW_AUTO && !cmd_in_tab(c, tab))
            continue; /* the tab does something else with the key */
        if (words && strcmp(words, w) == 0) {
            const char *l = label(c, one, sizeof one, ascii);
            put(keys, sizeof keys, strcmp(join, "/") == 0 && lone_marks(keys, l) ? " " : join); /* "[ ]", not "[/]" */
            put(keys, sizeof keys, l);
            continue;
        }
        if (words)
            line(keys, words, ctx), n++;
        words = w;
        snprintf(keys, sizeof keys, "%s", label(c, one, sizeof one, ascii));
    }
    if (words)
        line(keys, words, ctx), n++;
    return n;
}

typedef struct HintBuf {
    char *buf;
    size_t cap;
    const char *sep;
} HintBuf;

static void hint_line(const char *keys, const char *words, void *ctx)
{
    HintBuf *h = ctx;
    if (h->buf[0])
        put(h->buf, h->cap, h->sep);
    put(h->buf, h->cap, keys);
    put(h->buf, h->cap, " ");
    put(h->buf, h->cap, _(words));
}

const char *cmd_hint(CmdScope scope, ViewId tab, int status, const char *sep, char *buf, size_t cap)
{
    HintBuf h = {buf, cap, sep};
    buf[0] = 0;
    each_line(scope, tab, 1, status, 0, "/", hint_line, &h);
    return buf;
}

const char *cmd_status_hint(ViewId tab, char *buf, size_t cap)
{
    HintBuf h = {buf, cap, "  "};
    buf[0] = 0;
    each_line(CS_TAB, tab, 1, 1, 0, "/", hint_line, &h);
    each_line(CS_GLOBAL, tab, 1, 1, 0, "/", hint_line, &h);
    return buf;
}

const char *cmd_tab_keys(ViewId tab)
{
    static char buf[1024]; /* the window draws one view at a time */
    return cmd_hint(CS_TAB, tab, 0, " · ", buf, sizeof buf);
}

typedef struct LineBuf {
    CmdLine *out;
    int n, cap;
} LineBuf;

static void help_line(const char *keys, const char *words, void *ctx)
{
    LineBuf *l = ctx;
    if (l->n >= l->cap)
        return;
    CmdLine *o = &l->out[l->n++];
    snprintf(o->keys, sizeof o->keys, "%s", keys);
    o->help = words;
}

int cmd_help_lines(CmdScope scope, ViewId tab, CmdLine *out, int cap)
{
    LineBuf l = {out, 0, cap};
    each_line(scope, tab, 0, 0, 0, "  ", help_line, &l);
    return l.n;
}

const char *cmd_scope_title(CmdScope scope, ViewId tab, char *buf, size_t cap)
{
    switch (scope) {
    case CS_MODELS: snprintf(buf, cap, "%s", _("In the language list")); break;
    case CS_LESSON_LIST: snprintf(buf, cap, "%s", _("In the lesson list")); break;
    case CS_LESSON: snprintf(buf, cap, "%s", _("In a lesson")); break;
    case CS_TAB: snprintf(buf, cap, _("In the %s tab"), tab > 0 && tab < VIEW_COUNT ? _(VIEWS[tab]->label) : "?"); break;
    case CS_EXP: snprintf(buf, cap, "%s", _("With the Experiments panel open (E)")); break;
    default: snprintf(buf, cap, "%s", _("Everywhere")); break;
    }
    return buf;
}

/* ---- printed: `stepformer keys` and the manual page ---- */

typedef struct PrintCtx {
    FILE *f;
    int man;
} PrintCtx;

/* roff: a backslash is \e, a hyphen \-. */
static void roff(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '\\')
            fputs("\\e", f);
        else if (*s == '-')
            fputs("\\-", f);
        else
            fputc(*s, f);
    }
}

static void print_line(const char *keys, const char *words, void *ctx)
{
    PrintCtx *p = ctx;
    if (!p->man) { /* the keys in a column 16 characters wide (not bytes;
                      CJK, from U+3000, two columns a character) */
        int w = 0;
        for (const unsigned char *k = (const unsigned char *)keys; *k; k++)
            w += (*k & 0xC0) == 0x80 ? 0 : *k >= 0xE3 ? 2 : 1;
        fprintf(p->f, "  %s%*s %s\n", keys, w < 16 ? 16 - w : 0, "", _(words));
        return;
    }
    fputs(".TP\n.B ", p->f);
    roff(p->f, keys);
    fputc('\n', p->f);
    roff(p->f, _(words));
    fputc('\n', p->f);
}

static void print_scope(PrintCtx *p, CmdScope scope, ViewId tab)
{
    int any = 0;
    for (int i = 0; i < N_TABLE && !any; i++)
        any = in_scope(&TABLE[i], scope, tab);
    if (!any)
        return;
    char title[128];
    cmd_scope_title(scope, tab, title, sizeof title);
    if (p->man) {
        fputs(".SS ", p->f);
        roff(p->f, title);
        fputc('\n', p->f);
    } else {
        fprintf(p->f, "%s:\n", title);
    }
    each_line(scope, tab, 0, 0, p->man, p->man ? ", " : "  ", print_line, p);
    if (!p->man)
        fputc('\n', p->f);
}

void cmd_print(FILE *f, int man)
{
    PrintCtx p = {f, man};
    print_scope(&p, CS_GLOBAL, VIEW_AUTO);
    for (int v = 1; v < VIEW_COUNT; v++)
        print_scope(&p, CS_TAB, (ViewId)v);
    for (int s = CS_MODELS; s < CS_TAB; s++)
        print_scope(&p, (CmdScope)s, VIEW_AUTO);
    print_scope(&p, CS_EXP, VIEW_AUTO);
}
