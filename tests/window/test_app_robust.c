/* test_app_robust.c - the window when things go wrong: a model
 * whose traces do not fit says why, a pass that overflows to NaN shows a
 * notice (and no decode rows that look fine), the traces follow the input
 * and not max_len, Ctrl+Q quits from a text field, Ctrl+V pastes with the
 * checks of typing, and the no-display error says its reason once. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "checkpoint.h"
#include "session.h"
#include "test_app_util.h"
#include "test_util.h"
#include "decode_host.h"
#include "view_decode.h"

static char MODEL[160];
static char g_cli[4096];

TU_FIXTURE(MODEL, "robust.safetensors", 1280, 800)

/* A model whose traces cannot be allocated: the error says why (it was an
 * unset message once). */
static void test_trace_alloc_error_is_set(void **state)
{
    (void)state;
    setenv("STEPFORMER_MEM_LIMIT", "4096", 1);
    static Session s;
    TfErr err;
    memset(&err, 0xa0, sizeof err); /* garbage, as an unset message would be */
    err.msg[sizeof err.msg - 1] = 0;
    int rc = session_init(&s, MODEL, 0, &err);
    unsetenv("STEPFORMER_MEM_LIMIT");
    expect_true(rc == -1, "the session refuses a model it cannot trace");
    expect_true(strstr(err.msg, "MiB") != NULL && (unsigned char)err.msg[0] < 0x80,
                "the message says how much is needed: %s", err.msg);
    /* with the random fallback the message of the first failure is kept too */
    setenv("STEPFORMER_MEM_LIMIT", "4096", 1);
    memset(&err, 0xa0, sizeof err);
    err.msg[sizeof err.msg - 1] = 0;
    rc = session_init(&s, MODEL, 1, &err);
    unsetenv("STEPFORMER_MEM_LIMIT");
    expect_true(rc == -1 && strstr(err.msg, "MiB") != NULL, "fallback: %s", err.msg);
    session_free(&s);
}

/* Huge but finite weights: the pass overflows; the window names the stage
 * in a notice and the decode view shows the error, not rows of "<pad>". */
static void test_nonfinite_pass_is_told(void **state)
{
    (void)state;
    char path[200];
    TfModel m;
    TfErr err;
    tu_tmp(path, sizeof path, "huge.safetensors");
    expect_true(ckpt_load(&m, MODEL, &err) == 0, "load: %s", err.msg);
    for (size_t i = 0; i < m.n_params; i++)
        m.block[i] *= 1e19f;
    expect_true(ckpt_save(&m, path, &err) == 0, "save: %s", err.msg);
    model_free(&m);
    static App a;
    AppOpts o = tu_opts(path, "t5 t6 t7", NULL, "decode");
    tu_open(&a, &o, 100);
    app_compute_all(&a);
    tu_frame(&a);
    expect_true(a.ses.nonfinite, "the session saw the overflow");
    expect_true(strstr(a.ses.input_error, "non-finite") != NULL, "input_error: %s", a.ses.input_error);
    expect_true(a.notice_error && strstr(a.notice, "non-finite") != NULL, "notice: %s", a.notice);
    /* the frame shows the error in place of the view: no rows of "<pad>" */
    const DecodeLab *L = dhost_lab(&a); /* none when the view was never drawn */
    int gen_n = L ? L->gen.n : 0;
    expect_true(gen_n == 0 && a.ses.greedy.n == 0 && !a.ses.translation[0],
                "no decoded steps (%d, %d) and no translation '%s'", gen_n, a.ses.greedy.n,
                a.ses.translation);
    /* a good model afterwards clears it */
    expect_true(app_load_model(&a, MODEL) == 0, "the good model loads");
    app_compute_all(&a);
    expect_true(!a.ses.nonfinite && !a.ses.input_error[0], "a finite pass: %s", a.ses.input_error);
    app_free(&a);
    remove(path);
}

/* A model with max_len 4096: the window's and the views' traces are made
 * for the sentence shown, not for 4096 tokens; a longer sentence grows them. */
static void test_traces_follow_the_input(void **state)
{
    (void)state;
    char path[200];
    tu_tmp(path, sizeof path, "long.safetensors");
    expect_true(tu_small_model(path, 40, 4096, 3) == 0, "model made");
    static App a;
    AppOpts o = tu_opts(path, "t5 t6 t7", NULL, "decode");
    tu_open(&a, &o, 100);
    app_compute_all(&a);
    tu_frame(&a);
    const DecodeLab *L = dhost_lab(&a);
    expect_true(a.ses.trace.cap_T <= 64 && a.ses.trace.cap_B == 1,
                "the window's trace is small: %d x %d", a.ses.trace.cap_B, a.ses.trace.cap_T);
    expect_true(L->have_traces && L->tr.cap_T <= 64, "the decode view's trace: %d", L->tr.cap_T);
    expect_true(a.ses.scratch.cap_T <= 64, "the greedy scratch: %d", a.ses.scratch.cap_T);
    /* 40 tokens in a batch of two: the trace grows to them */
    char line[600] = "";
    for (int i = 0; i < 40; i++)
        strcat(line, i % 2 ? "t6 " : "t5 ");
    strcat(line, "| t7 t8");
    app_set_text(&a, APP_LINE_SRC, line);
    app_compute_all(&a);
    tu_frame(&a);
    expect_true(!a.ses.input_error[0], "runs: %s", a.ses.input_error);
    expect_true(a.ses.trace.cap_T >= 40 && a.ses.trace.cap_T <= 128 && a.ses.trace.cap_B >= 2,
                "grown to the input: %d x %d", a.ses.trace.cap_B, a.ses.trace.cap_T);
    expect_true(a.ses.trace.S == 40, "all 40 tokens shown: S %d", a.ses.trace.S);
    app_free(&a);
    remove(path);
}

/* Ctrl+Q quits while a text field has focus (it was typed as text). */
static void test_ctrl_q_in_a_field(void **state)
{
    (void)state;
    static App a;
    tu_open_src(&a, MODEL, "t5 t6", 100);
    ev_key(&a, KEY_RETURN, 0);
    expect_true(app_focused_line(&a) == APP_LINE_SRC, "Enter focuses the source line");
    ev_key(&a, 'q', MOD_CTRL);
    expect_true(a.win.want_quit, "Ctrl+Q quits from the field");
    app_free(&a);
}

/* Ctrl+Shift+S saves the view as a PDF and an SVG (Ctrl+S stays PNG). */
static void test_ctrl_shift_s_saves_vector(void **state)
{
    (void)state;
    static App a;
    tu_open_src(&a, MODEL, "t5 t6", 100);
    ev_key(&a, 's', MOD_CTRL | MOD_SHIFT);
    expect_true(a.win.want_save_vector && !a.win.want_save_png, "Ctrl+Shift+S asks for a vector save");
    ev_key(&a, 's', MOD_CTRL);
    expect_true(a.win.want_save_png, "Ctrl+S asks for a PNG");
    /* into $HOME/Pictures/Stepformer (no user-dirs.dirs there), made */
    char dir[64], home[512], pics[160];
    expect_true(tu_scratch(dir, sizeof dir, "vector-save") == 0, "scratch");
    snprintf(home, sizeof home, "%s", getenv("HOME") ? getenv("HOME") : "");
    char cfg[512];
    snprintf(cfg, sizeof cfg, "%s", getenv("XDG_CONFIG_HOME") ? getenv("XDG_CONFIG_HOME") : "");
    setenv("HOME", dir, 1);
    unsetenv("XDG_CONFIG_HOME"); /* no user-dirs.dirs of the machine's */
    app_draw(&a, tu_ren);
    ren_end(tu_ren);
    app_save_vector(&a, tu_ren);
    snprintf(pics, sizeof pics, "%s/Pictures/Stepformer", dir);
    int pdf = tu_count_names(pics, ".pdf"), svg = tu_count_names(pics, ".svg");
    if (home[0])
        setenv("HOME", home, 1);
    if (cfg[0])
        setenv("XDG_CONFIG_HOME", cfg, 1);
    expect_true(pdf == 1 && svg == 1 && !a.notice_error, "one PDF and one SVG saved in %s: %d, %d (%s)", pics, pdf,
                svg, a.notice);
    tu_scratch_remove(dir);
    app_free(&a);
}

static const char *g_clip;
static char *fake_clipboard(void)
{
    return g_clip ? strdup(g_clip) : NULL;
}

/* Ctrl+V pastes into the focused line: bad UTF-8 and control characters
 * dropped, new lines made spaces, the line never overflows. */
static void test_paste(void **state)
{
    (void)state;
    static App a;
    tu_open_src(&a, MODEL, "t5", 100);
    a.ui.paste = fake_clipboard;
    ev_key(&a, KEY_RETURN, 0);
    g_clip = " t6\nt7\xff\x01 中";
    ev_key(&a, 'v', MOD_CTRL);
    expect_true(strcmp(a.ses.src_line, "t5 t6 t7 中") == 0, "pasted: '%s'", a.ses.src_line);
    expect_true(a.ui.edit.cursor == (int)strlen(a.ses.src_line), "the cursor after the paste");
    expect_true(a.ses.dirty, "a paste re-runs the model");
    static char big[5000];
    for (int i = 0; i < 4998; i += 3)
        memcpy(big + i, "中", 3);
    g_clip = big;
    ev_key(&a, 'v', MOD_CTRL);
    size_t n = strlen(a.ses.src_line);
    expect_true(n <= APP_TEXT_MAX - 1 && utf8_check(a.ses.src_line, n, NULL) == 0,
                "a long paste is cut at a character (%zu bytes)", n);
    expect_true(a.notice_error && strstr(a.notice, "line is full") != NULL, "said: %s", a.notice);
    g_clip = NULL; /* an empty clipboard changes nothing */
    ev_key(&a, 'v', MOD_CTRL);
    expect_true(strlen(a.ses.src_line) == n, "nothing pasted");
    app_free(&a);
}

/* Without a display the window's error says "cannot open a window" once. */
static void test_no_display_error_once(void **state)
{
    (void)state;
    char cmd[4400], out[1024] = "";
    snprintf(cmd, sizeof cmd,
             "env -u DISPLAY -u WAYLAND_DISPLAY SDL_VIDEODRIVER=x11 '%s' --model '%s' 2>&1 >/dev/null",
             g_cli, MODEL);
    FILE *p = popen(cmd, "r");
    expect_true(p != NULL, "run %s", cmd);
    size_t k = fread(out, 1, sizeof out - 1, p);
    out[k] = 0;
    int rc = pclose(p);
    const char *first = strstr(out, "cannot open a window");
    expect_true(rc != 0 && first, "fails with the reason: %s", out);
    expect_true(strstr(first + 1, "cannot open a window") == NULL, "said once: %s", out);
}

/* No display at all: one line, before any library speaks (Wayland's
 * "XDG_RUNTIME_DIR is invalid"), even with a bad --model too; a DISPLAY
 * with no server behind it is named. */
static void test_no_display_one_line(void **state)
{
    (void)state;
    const char *envs[] = {"env -u DISPLAY -u WAYLAND_DISPLAY -u XDG_RUNTIME_DIR -u SDL_VIDEODRIVER",
                          "env -u WAYLAND_DISPLAY -u XDG_RUNTIME_DIR -u SDL_VIDEODRIVER DISPLAY=:7391"};
    const char *want[] = {"DISPLAY and WAYLAND_DISPLAY are unset", "on DISPLAY=:7391"};
    for (int i = 0; i < 2; i++) {
        char cmd[4400], out[2048] = "";
        snprintf(cmd, sizeof cmd, "%s '%s' --model /nonexistent/m.st 2>&1 >/dev/null", envs[i], g_cli);
        FILE *p = popen(cmd, "r");
        expect_true(p != NULL, "run %s", cmd);
        size_t k = fread(out, 1, sizeof out - 1, p);
        out[k] = 0;
        int rc = pclose(p), lines = 0;
        for (const char *c = out; *c; c++)
            lines += *c == '\n';
        printf("  %s", out);
        expect_true(rc != 0 && lines == 1 && strstr(out, want[i]), "one line with '%s': %s", want[i], out);
    }
}

int main(int argc, char **argv)
{
    TU_RUN_CLI(g_cli, argc, argv, setup, teardown, cmocka_unit_test(test_trace_alloc_error_is_set),
               cmocka_unit_test(test_nonfinite_pass_is_told),
               cmocka_unit_test(test_traces_follow_the_input), cmocka_unit_test(test_ctrl_q_in_a_field),
               cmocka_unit_test(test_ctrl_shift_s_saves_vector), cmocka_unit_test(test_paste),
               cmocka_unit_test(test_no_display_error_once), cmocka_unit_test(test_no_display_one_line));
}
