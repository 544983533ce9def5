/* test_cmd_table.c - the table of commands and keys (cmd_table.c): every
 * row is reachable by its key in its scope (the key fed to the App runs
 * that row, and a few are checked by their effect), no two rows share a
 * key in one scope, a row that shadows another scope's is marked so, and
 * the `?` overlay lists every key of the tab shown and fits the window,
 * and the printed list (`stepformer keys`, the manual page) names every
 * key. */
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "cmd_table.h"
#include "lesson_ui.h"
#include "test_app_util.h"
#include "test_util.h"
#include "ui.h"

static char MODEL[160];

TU_FIXTURE(MODEL, "cmd.safetensors", 1280, 800)

static void open_app(App *a)
{
    AppOpts o = tu_opts(MODEL, "t4 t5 t6", NULL, NULL);
    tu_open(a, &o, 100);
    app_goto(a, ST_ENC_SELF_WEIGHTS, 0);
    tu_frame(a);
}

/* Open the lesson step of the bundled lessons that has a quiz. */
static int open_quiz(App *a)
{
    const LessonSet *set = lesson_ui_set(a);
    for (int i = 0; set && i < set->n; i++)
        for (int s = 0; s < set->lessons[i].n_steps; s++)
            if (set->lessons[i].steps[s].has_quiz && set->lessons[i].steps[s].quiz.n_choices >= 1)
                return lesson_ui_open(a, set->lessons[i].id, s) == 0;
    return 0;
}

/* Put the App where row c works: its tab shown, its panel or list open. */
static int arrange(App *a, const Cmd *c)
{
    open_app(a);
    if (c->scope == CS_TAB) {
        a->view = c->tab;
        if (c->tab == VIEW_DECODE && (strstr(c->name, "temp") || strstr(c->name, "top_") || strstr(c->name, "draw")))
            app_decode_setup(a, "sample", 0, -1);
        tu_frame(a);
    }
    if (c->scope == CS_EXP)
        a->show_exp = 1;
    if (c->scope == CS_LESSON)
        return open_quiz(a);
    if (c->scope == CS_LESSON_LIST)
        lesson_ui_toggle_list(a);
    /* the language list opens on a MarianMT model only: its Esc is fed in
     * test_app_marian.c */
    return c->scope != CS_MODELS;
}

/* The rows that may decline their key in some states (they pass it on):
 * Unforce with nothing forced, a quiz's number beyond its choices. */
static int conditional(const Cmd *c, Key k)
{
    return strcmp(c->name, "decode.unforce") == 0 || (strcmp(c->name, "lesson.answer") == 0 && k > '2');
}

static void test_every_row_is_reachable(void **state)
{
    (void)state;
    int n;
    const Cmd *t = cmd_table(&n);
    int tried = 0;
    for (int i = 0; i < n; i++) {
        const Cmd *c = &t[i];
        if (c->key == KEY_NONE) {
            expect_true(c->mouse && c->help, "%s: a gesture has a name and a help", c->name);
            continue;
        }
        expect_true(c->act != WA_NONE || c->scope == CS_TAB, "%s: an action", c->name);
        expect_true(c->help && c->help[0], "%s: a help text", c->name);
        const Key keys[2] = {c->key, c->last};
        for (int k = 0; k < 2; k++) {
            expect_true(cmd_lookup(c->scope, c->tab, keys[k], c->mods) == c,
                        "%s: its key is its own in its scope", c->name);
            static App a;
            if (!arrange(&a, c)) {
                app_free(&a);
                continue;
            }
            const Cmd *ran = app_key(&a, keys[k], c->mods, 0);
            if (!conditional(c, keys[k]))
                expect_true(ran == c, "%s: key %d runs it (ran %s)", c->name, (int)keys[k], ran ? ran->name : "nothing");
            tried++;
            app_free(&a);
        }
    }
    expect_true(tried > 2 * 60, "most rows were fed their key (%d)", tried);
}

/* A key a second after the last: each is a shortcut of its own (letters
 * close together that are no shortcut are typing: test_window_input.c). */
static void key_later(App *a, Key k, int mod)
{
    a->now += 1.0;
    ev_key(a, k, mod);
}

static void test_effects(void **state)
{
    (void)state;
    static App a;
    open_app(&a);
    StagePos p0 = app_pos(&a);
    key_later(&a, KEY_RIGHT, 0);
    expect_true(app_pos(&a).stage != p0.stage, "→ steps");
    key_later(&a, 'e', 0);
    expect_true(a.show_exp, "E opens the Experiments panel");
    key_later(&a, 's', 0);
    expect_true(!a.ses.exp.no_scale, "S in the panel is no experiment (S means step, where it means anything)");
    key_later(&a, 's', MOD_ALT);
    expect_true(a.ses.exp.no_scale, "Alt+S in the panel: no scaling");
    key_later(&a, 'x', MOD_ALT);
    expect_true(!a.ses.exp.no_scale, "Alt+X clears");
    key_later(&a, 'e', 0);
    key_later(&a, 's', MOD_ALT);
    expect_true(!a.ses.exp.no_scale && !a.show_exp, "Alt+S with the panel closed does nothing to the experiment");
    key_later(&a, 'd', 0);
    expect_true(strstr(a.notice, "E") != NULL, "D with no experiment says why: %s", a.notice);
    key_later(&a, KEY_KP_0 + 2, 0);
    expect_true(a.ses.head == 1, "the keypad's 2 shows head 2 (head %d)", a.ses.head);
    key_later(&a, 's', MOD_CTRL | MOD_SHIFT);
    expect_true(a.win.want_save_vector && !a.win.want_save_png, "Ctrl+Shift+S is not Ctrl+S");
    key_later(&a, 't', MOD_ALT);
    key_later(&a, 'q', MOD_ALT);
    expect_true(!a.win.want_quit, "Alt+Q is not Ctrl+Q");
    app_focus_line(&a, APP_LINE_SRC);
    ui_edit_cursor(&a.ui, a.ses.src_line, 0);
    ev_key(&a, 'q', MOD_CTRL);
    expect_true(a.win.want_quit, "Ctrl+Q quits from a text field");
    app_free(&a);
}

/* Scopes open together: every scope but two different tabs. */
static int together(const Cmd *x, const Cmd *y)
{
    return !(x->scope == CS_TAB && y->scope == CS_TAB && x->tab != y->tab);
}

static int overlap(const Cmd *x, const Cmd *y)
{
    return x->key != KEY_NONE && y->key != KEY_NONE && x->key <= y->last && y->key <= x->last &&
           (x->mods & (MOD_CTRL | MOD_ALT)) == (y->mods & (MOD_CTRL | MOD_ALT));
}

static void test_no_key_twice(void **state)
{
    (void)state;
    int n;
    const Cmd *t = cmd_table(&n);
    for (int i = 0; i < n; i++) {
        int shadows = 0;
        for (int j = 0; j < n; j++) {
            const Cmd *x = &t[i], *y = &t[j];
            if (i == j || !overlap(x, y) || !together(x, y))
                continue;
            if (x->scope == y->scope) {
                expect_true(x->mods != y->mods, "%s and %s: the same key in one scope", x->name, y->name);
                continue;
            }
            if (x->scope < y->scope) { /* x is offered the key first */
                expect_true(x->flags & CMD_OVERRIDE, "%s shadows %s: mark it CMD_OVERRIDE", x->name, y->name);
                shadows = 1;
            }
        }
        expect_true(!(t[i].flags & CMD_OVERRIDE) || shadows, "%s is marked CMD_OVERRIDE and shadows nothing",
                    t[i].name);
    }
}

/* Is the key label of c one of the labels of a line ("Tab  Shift+Tab")? */
static int has_key(const char *keys, const Cmd *c)
{
    char want[48], all[160];
    cmd_key_label(c, want, sizeof want);
    snprintf(all, sizeof all, "%.150s  ", keys);
    for (char *k = all, *end; (end = strstr(k, "  ")); k = end + 2) {
        *end = 0;
        if (strcmp(k, want) == 0)
            return 1;
    }
    return 0;
}

/* Every row of a tab, and every global or panel row the tab leaves alone,
 * is a line of the tab's `?` overlay. */
static void test_overlay_lists_the_tab(void **state)
{
    (void)state;
    int n;
    const Cmd *t = cmd_table(&n);
    for (int v = 1; v < VIEW_COUNT; v++) {
        CmdLine lines[3][64];
        int nl[3];
        const CmdScope S[3] = {CS_TAB, CS_GLOBAL, CS_EXP};
        for (int s = 0; s < 3; s++)
            nl[s] = cmd_help_lines(S[s], (ViewId)v, lines[s], 64);
        for (int i = 0; i < n; i++) {
            const Cmd *c = &t[i];
            int want = (c->scope == CS_TAB || c->scope == CS_GLOBAL || c->scope == CS_EXP) &&
                       !(c->flags & CMD_QUIET) && cmd_in_tab(c, (ViewId)v);
            if (c->flags & CMD_QUIET)
                continue;
            int found = 0; /* its key on a line of its own scope with its help */
            for (int s = 0; s < 3; s++)
                for (int l = 0; l < nl[s] && S[s] == c->scope && (c->scope != CS_TAB || (int)c->tab == v); l++)
                    found |= strcmp(lines[s][l].help, c->help) == 0 && has_key(lines[s][l].keys, c);
            expect_true(found == want, "tab %s: %s %s", view_name((ViewId)v), c->name,
                        want ? "is missing from ?" : "is listed but does not work there");
        }
    }
    expect_true(!cmd_in_tab(cmd_find("stage.next"), VIEW_DECODE), "→ picks a token in Decode, not a stage");
    expect_true(cmd_in_tab(cmd_find("stage.next"), VIEW_MATRIX), "→ steps in the heatmap");
    /* S, P, T and M mean one thing in every tab: step, play, theme, the heads' numbers */
    expect_true(cmd_in_tab(cmd_find("exp.no_causal"), VIEW_TRAIN) && cmd_in_tab(cmd_find("exp.no_causal"), VIEW_HEADS) &&
                    cmd_in_tab(cmd_find("exp.no_scale"), VIEW_DECODE) && cmd_in_tab(cmd_find("exp.no_pe"), VIEW_TRAIN),
                "the panel's Alt+M, Alt+S and Alt+P work in every tab");
    expect_true(cmd_in_tab(cmd_find("theme"), VIEW_DECODE) && cmd_in_tab(cmd_find("theme"), VIEW_TRAIN),
                "T is the theme in Decode and Train too");
    /* every unmodified row of each letter, in any tab or panel, does the same thing */
    static const struct { Key k; int tab_act, win_act; } ONE[] = {
        {'s', VA_STEP, -1}, {'p', VA_PLAY, WA_PLAY}, {'t', -1, WA_THEME}, {'m', VA_METRICS, -1},
    };
    int n2;
    const Cmd *all = cmd_table(&n2);
    for (size_t k = 0; k < sizeof ONE / sizeof ONE[0]; k++)
        for (int i = 0; i < n2; i++) {
            const Cmd *c = &all[i];
            if (c->key != ONE[k].k || (c->mods & (MOD_CTRL | MOD_ALT)))
                continue;
            int want = c->scope == CS_TAB ? ONE[k].tab_act : ONE[k].win_act;
            expect_true(c->act == want, "%c means one thing everywhere: %s does something else", (int)ONE[k].k,
                        c->name);
        }
}

/* ---- the overlay as drawn: every line shows in every tab at 1280 x 800
 * and 800 x 600, with normal and presenter text, in both languages ---- */

static char g_drawn[1 << 16]; /* every string drawn, spaces left out */
static size_t g_len;
static int g_outside, g_w, g_h;

static void record(void *user, const char *utf8, int len, Rect box, const char *tag)
{
    (void)user;
    if (!tag || strcmp(tag, "help") != 0)
        return; /* the window under the overlay */
    for (int i = 0; i < len && g_len + 1 < sizeof g_drawn; i++)
        if (utf8[i] != ' ')
            g_drawn[g_len++] = utf8[i];
    g_drawn[g_len] = 0;
    g_outside += box.x < 0 || box.y < 0 || box.x + box.w > g_w || box.y + box.h > g_h;
}

static int drawn(const char *text)
{
    char want[512];
    size_t n = 0;
    for (; *text && n + 1 < sizeof want; text++)
        if (*text != ' ')
            want[n++] = *text;
    want[n] = 0;
    return strstr(g_drawn, want) != NULL;
}

/* The help lines of tab on a w x h window: 1 when each one was drawn
 * inside the window, its keys and (texts) its whole text. */
static int overlay_shows_all(App *a, Ren *r, ViewId tab, int w, int h, int texts, char *missing, size_t cap)
{
    a->view = tab;
    a->show_help = 0;
    a->now += 0.5;
    app_frame(a, r); /* the view's state first */
    a->show_help = 1;
    g_len = 0, g_outside = 0, g_w = w, g_h = h;
    ren_text_hook(record, NULL);
    a->now += 0.5;
    app_frame(a, r);
    ren_text_hook(NULL, NULL);
    const CmdScope S[3] = {CS_TAB, CS_GLOBAL, CS_EXP};
    missing[0] = 0;
    for (int s = 0; s < 3; s++) {
        CmdLine lines[64];
        int n = cmd_help_lines(S[s], tab, lines, 64);
        for (int l = 0; l < n; l++)
            if (!drawn(lines[l].keys) || (texts && !drawn(_(lines[l].help))))
                snprintf(missing, cap, "%.60s %.180s", lines[l].keys, _(lines[l].help));
    }
    return !missing[0] && !g_outside;
}

static void test_overlay_fits(void **state)
{
    (void)state;
    /* presenter text on 800 x 600 may cut a text, never a key */
    static const struct { int w, h; float scale; int all; } SIZES[] = {
        {1280, 800, 1.0f, 1}, {800, 600, 1.0f, 1}, {1280, 800, 1.5f, 1}, {800, 600, 1.5f, 0},
    };
    static const ViewId TABS[] = {VIEW_MATRIX, VIEW_HEADS, VIEW_DECODE, VIEW_TRAIN};
    for (size_t z = 0; z < sizeof SIZES / sizeof SIZES[0]; z++) {
        TfErr err;
        Ren *r = ren_open_headless(SIZES[z].w, SIZES[z].h, &err);
        expect_true(r != NULL, "a renderer: %s", err.msg);
        for (int lang = 0; lang < 2; lang++)
            for (size_t t = 0; t < sizeof TABS / sizeof TABS[0]; t++) {
                static App a;
                open_app(&a);
                lesson_ui_set_lang(&a, lang);
                a.look.text_scale = SIZES[z].scale;
                char missing[256];
                int all = overlay_shows_all(&a, r, TABS[t], SIZES[z].w, SIZES[z].h, SIZES[z].all, missing,
                                            sizeof missing);
                expect_true(all, "%dx%d text x%.1f %s, tab %s: every line of ? shows inside the window, %s "
                            "(missing: %s; %d strings outside)",
                            SIZES[z].w, SIZES[z].h, (double)SIZES[z].scale, lang ? "zh" : "en",
                            view_name(TABS[t]), SIZES[z].all ? "whole" : "its keys at least", missing, g_outside);
                app_free(&a);
            }
        ren_close(r);
    }
    ui_set_lang(0);
}

static void test_printed_names_every_key(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    for (int man = 0; man < 2; man++) {
        FILE *f = open_memstream(&buf, &len);
        cmd_print(f, man);
        fclose(f);
        int n;
        const Cmd *t = cmd_table(&n);
        for (int i = 0; i < n; i++) {
            if (t[i].flags & CMD_QUIET)
                continue;
            char want[256]; /* in roff a hyphen is \- */
            size_t w = 0;
            for (const char *h = t[i].help; *h && w < sizeof want - 3; h++) {
                if (man && *h == '-')
                    want[w++] = '\\';
                want[w++] = *h;
            }
            want[w] = 0;
            expect_true(strstr(buf, want) != NULL, "%s: the %s list has its help (%s) in:\n%.200s", t[i].name,
                        man ? "manual page's" : "printed", want, buf);
        }
        expect_true(!man || (strstr(buf, ".TP\n.B Ctrl+S, Ctrl+Shift+S\n") && strstr(buf, ".B Left, Right") &&
                             strstr(buf, ".SS In the Decode tab\n")),
                    "roff: .SS per scope, .TP/.B per key:\n%.300s", buf);
        expect_true(man || strstr(buf, "Everywhere:\n"), "plain: titled scopes");
        free(buf);
        buf = NULL;
    }
    FILE *in = fopen("data/stepformer.1.in", "r");
    expect_true(in != NULL, "the manual page's template");
    char line[256];
    int at = 0;
    while (in && fgets(line, sizeof line, in))
        at |= strcmp(line, "@KEYS@\n") == 0;
    if (in)
        fclose(in);
    expect_true(at, "the template's KEYS section is made from the table (@KEYS@)");
}

static void test_hints(void **state)
{
    (void)state;
    char buf[512];
    cmd_status_hint(VIEW_MATRIX, buf, sizeof buf);
    expect_true(strstr(buf, "←/→ step") && strstr(buf, "? help"), "the heatmap's hint: %s", buf);
    cmd_status_hint(VIEW_DECODE, buf, sizeof buf);
    expect_true(strstr(buf, "S step") && strstr(buf, "←/→ token") && !strstr(buf, "encoder/decoder"),
                "the Decode tab's hint has its own keys, not those it shadows: %s", buf);
    cmd_hint(CS_TAB, VIEW_TRAIN, 0, " · ", buf, sizeof buf);
    expect_true(strstr(buf, "P/Space start/pause · S step") && strstr(buf, "D task"), "the train keys: %s", buf);
}

int main(void)
{
    TU_RUN(setup, teardown, cmocka_unit_test(test_no_key_twice), cmocka_unit_test(test_overlay_lists_the_tab),
           cmocka_unit_test(test_hints), cmocka_unit_test(test_printed_names_every_key),
           cmocka_unit_test(test_overlay_fits), cmocka_unit_test(test_effects),
           cmocka_unit_test(test_every_row_is_reachable));
}
