/* cmd_table.h - the window's commands and their keys, in one table.
 *
 * Each row of the table (cmd_table.c) is one binding: a stable name, the
 * scope it works in (everywhere, one tab, the Experiments panel, a lesson,
 * the lesson list, the language list), a key or a range of keys with the
 * modifiers held, the action, and the help text. Everything that speaks of
 * keys is made from it: the dispatch of a key event (app_key: the scopes
 * that are open, the most particular first, then the global one), the `?`
 * overlay of the current tab (frame.c), the key hints of the status line
 * and of the train view, and `stepformer keys` (for users, and in roff for
 * the manual page). Mouse gestures are rows too, with no key: they are only
 * documented. This is lite's command.lua and keymap.lua in one table; it
 * runs nothing itself (app_event.c's app_key does), so everything that
 * shows keys may read it. */
#ifndef APP_CMD_TABLE_H
#define APP_CMD_TABLE_H

#include <stddef.h>
#include <stdio.h>

#include "input.h"
#include "view.h"

/* Where a command works, from the most particular to the least: a key
 * is offered to the open scopes in this order and the first action that
 * takes it ends the search. */
typedef enum CmdScope {
    CS_MODELS,      /* the language chooser is open */
    CS_LESSON_LIST, /* the lesson list is open */
    CS_LESSON,      /* a lesson is open */
    CS_TAB,         /* the tab Cmd.tab is shown */
    CS_EXP,         /* the Experiments panel is open */
    CS_GLOBAL,      /* everywhere */
    CS_COUNT
} CmdScope;

enum {
    CMD_OVERRIDE = 1, /* shadows on purpose a binding of a later scope */
    CMD_QUIET = 2,    /* not listed: the same key as the row before it on
                         another keyboard ('/' for '?', '=' for '+') */
    CMD_TEXT = 4,     /* works in a text field too (Ctrl+Q, F11) */
    CMD_STATUS = 8,   /* in the status line's key hint */
    CMD_PASS = 16,    /* the action passes the key on in some states (the
                         Sampling pane's T elsewhere is the theme): it does
                         not hide the later scope's row from the help */
};

/* What a row of the window itself does (Cmd.act outside CS_TAB; a tab's
 * row names its view's ViewAct). app_event.c runs them. */
typedef enum WinAct {
    WA_NONE, /* a mouse gesture: documented only */
    WA_STEP, WA_FIRST, WA_LAST, WA_LAYER, WA_SIDE, WA_HEAD, WA_ALL_HEADS, WA_TEXT_SIZE, WA_THEME, WA_CMAP,
    WA_PLAY, WA_EDIT, WA_HELP, WA_FULLSCREEN, WA_SAVE_PNG, WA_SAVE_VECTOR, WA_SAVE_WINDOW, WA_SAVE_CSV, WA_QUIT, WA_LESSONS,
    WA_LANG, WA_EXP_PANEL, WA_EXP_COMPARE, WA_ROLLOUT, WA_EXP_NO_SCALE, WA_EXP_NO_PE, WA_EXP_NO_CAUSAL, WA_EXP_NO_RESIDUAL,
    WA_EXP_NO_FFN, WA_EXP_CLEAR,
    WA_RESET, WA_LESSON_STEP, WA_LESSON_CLOSE, WA_QUIZ, WA_LIST_MOVE, WA_LIST_ENTER, WA_LIST_CLOSE, WA_MODELS_CLOSE,
    WA_DESCRIBE, WA_CURSOR_X, WA_CURSOR_Y, WA_CURSOR_THUMB, WA_CURSOR_ACT, WA_SCENE_COPY, WA_SCENE_PASTE, WA_SCENE_QR, WA_FOCUS,
    WA_RESULTS,
} WinAct;

typedef struct Cmd Cmd;
struct Cmd {
    const char *name;  /* "stage.next": stable, for tests and scripts */
    CmdScope scope;
    ViewId tab;        /* CS_TAB: the tab; else VIEW_AUTO */
    Key key, last;     /* the key, or the range key..last; KEY_NONE: a mouse
                          gesture, documented only (mouse names it) */
    int mods;          /* MOD_* held: Ctrl and Alt exactly; a row without
                          Shift also takes the key with Shift, unless a row
                          with Shift binds it */
    int act, arg;      /* what to do (a ViewAct in a tab, else a WinAct) and
                          its argument; a key of a range adds its offset
                          (1 ... 9: 0 ... 8) */
    const char *help;  /* N_(): the `?` overlay and the manual page */
    const char *hint;  /* N_(): the short words of a key hint, or NULL */
    const char *mouse; /* N_(): a gesture's name ("Alt+click"), or NULL */
    int flags;         /* CMD_* */
};

/* The table. */
const Cmd *cmd_table(int *n);
/* A command by name, or NULL. */
const Cmd *cmd_find(const char *name);

/* The keypad's digits, + and - stand for the main keys. */
Key cmd_plain_key(Key k);
/* The row a key runs in a scope (tab for CS_TAB), whether or not its
 * action then takes it; NULL when nothing binds it there. A key is offered
 * to the open scopes in CmdScope's order (app_key, app_event.c). */
const Cmd *cmd_lookup(CmdScope scope, ViewId tab, Key key, int mod);
/* Does the row work while tab is shown? A tab's row in its tab only; a
 * global or Experiments panel row unless the tab binds all its keys to
 * something else; a lesson's or a list's, yes (when it is open). */
int cmd_in_tab(const Cmd *c, ViewId tab);

/* The label of a row's key(s): "Ctrl+Shift+S", "1 … 9", "←", or the
 * gesture's name (translated). */
const char *cmd_key_label(const Cmd *c, char *buf, size_t cap);
/* The key label of the command named name ("L" for "lessons"), for a
 * button that names its key; "" when there is no such command. */
const char *cmd_key_of(const char *name, char *buf, size_t cap);
/* The short key hint of the rows of a scope that carry one (with flag
 * CMD_STATUS only, when status), entries separated by sep: "S step · P
 * play"; rows next to each other with the same words share an entry
 * ("←/→ step"). Translated. Returns buf. */
const char *cmd_hint(CmdScope scope, ViewId tab, int status, const char *sep, char *buf, size_t cap);
/* cmd_hint of a tab's own keys, " · " between them, in a buffer of the
 * table's (valid until the next call): the key line of the train view. */
const char *cmd_tab_keys(ViewId tab);
/* The status line's hint for a tab: its own status keys, then the global
 * ones it does not shadow. */
const char *cmd_status_hint(ViewId tab, char *buf, size_t cap);

/* The `?` overlay's lines of a scope (for a global scope, those that still
 * work in tab): the keys and the help (an msgid: _() it to show). Rows
 * next to each other with the same help share a line. Returns the lines
 * (at most cap). */
typedef struct CmdLine {
    char keys[96];
    const char *help;
} CmdLine;
int cmd_help_lines(CmdScope scope, ViewId tab, CmdLine *out, int cap);

/* A scope's title for the overlay and `stepformer keys` (translated):
 * "Everywhere", "In the Decode tab", ... */
const char *cmd_scope_title(CmdScope scope, ViewId tab, char *buf, size_t cap);
/* Print the table: per scope a title and a key / help line per entry, or
 * (man) as roff .SS and .TP entries for the manual page's KEYS section. */
void cmd_print(FILE *f, int man);

#endif
