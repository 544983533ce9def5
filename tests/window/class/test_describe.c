/* test_describe.c - the view in words (app_describe, `stepformer
 * describe`): every row's token named and its three largest weights equal
 * to the trace's (tf_view, what `dump` prints) within rounding, masked
 * cells counted as the mask has them and left out of a row's largest, the
 * experiment said, Chinese under Z, and the command printing the same. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "describe.h"
#include "test_app_util.h"

#define MODEL "assets/models/en2zh.safetensors"

static char text[1 << 16];

static void open_at(App *a, const char *src, StageId st, int layer, int head)
{
    tu_open_src(a, MODEL, src, 100);
    app_compute_all(a);
    app_goto(a, st, layer);
    app_set_head(a, head);
    app_compute_all(a);
    expect_true(app_describe(a, text, sizeof text) > 0, "described");
}

/* The line of row r (from 0), or NULL. */
static const char *row_line(int r, char *line, size_t cap)
{
    char tag[32];
    snprintf(tag, sizeof tag, "  row %d ", r + 1);
    const char *p = strstr(text, tag);
    if (!p)
        return NULL;
    const char *e = strchr(p, '\n');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    snprintf(line, cap, "%.*s", (int)(n < cap ? n : cap - 1), p);
    return line;
}

/* Every row names its token and gives, best first, the row's largest
 * values of the stage with their column tokens, to 3 decimals. */
static void check_rows(const App *a, StageId st, int layer, int head, int b)
{
    TfView v;
    TfErr err;
    const TfTrace *tr = &a->ses.trace;
    expect_true(tf_view(tr, st, layer, head, b, &v, &err) == 0, "%s", err.msg);
    for (int r = 0; r < v.rows; r++) {
        char line[1024], lab[96], want[160];
        expect_true(row_line(r, line, sizeof line) != NULL, "row %d is described:\n%s", r + 1, text);
        snprintf(want, sizeof want, "“%s”:", tf_view_label(tr, &a->ses.model, &v, 0, r, lab, sizeof lab));
        expect_true(strstr(line, want) != NULL, "row %d names %s: %s", r + 1, want, line);
        /* the largest: the first number after ':' is the row's maximum */
        float best = -1;
        int bc = 0;
        for (int c = 0; c < v.cols; c++)
            if (tf_view_at(&v, r, c) > best)
                best = tf_view_at(&v, r, c), bc = c;
        const char *p = strchr(line, ':');
        double got = p ? strtod(p + 1, NULL) : -1;
        expect_true(got >= best - 0.0005 && got <= best + 0.0005, "row %d: largest %.4f, described %.3f", r + 1,
                    (double)best, got);
        snprintf(want, sizeof want, "on “%s”", tf_view_label(tr, &a->ses.model, &v, 1, bc, lab, sizeof lab));
        expect_true(strstr(line, want) != NULL, "row %d: the largest is %s: %s", r + 1, want, line);
    }
}

static void test_weights_every_row(void **state)
{
    (void)state;
    static App a;
    open_at(&a, "i read books at home today", ST_ENC_SELF_WEIGHTS, 0, 2);
    expect_true(strstr(text, "enc.self.weights") && strstr(text, "layer 1") && strstr(text, "head 3"),
                "the stage, layer and head as the window counts them:\n%s", text);
    expect_true(strstr(text, "A 6 × 6 matrix: rows are source tokens, columns are source tokens") != NULL,
                "the shape and the axes:\n%s", text);
    expect_true(strstr(text, "No experiment") && strstr(text, "No cell is masked"), "%s", text);
    check_rows(&a, ST_ENC_SELF_WEIGHTS, 0, 2, 0);
    app_free(&a);
}

/* A padded batch in the decoder: the −∞ cells counted as in the mask, and
 * none of them among a row's largest. */
static void test_masked_cells(void **state)
{
    (void)state;
    static App a;
    open_at(&a, "i love china | you read books at home", ST_DEC_SELF_WEIGHTS, 1, 0);
    TfView m;
    TfErr err;
    expect_true(tf_view(&a.ses.trace, ST_DEC_SELF_MASK, 1, -1, 0, &m, &err) == 0, "%s", err.msg);
    int n = 0;
    for (int r = 0; r < m.rows; r++)
        for (int c = 0; c < m.cols; c++)
            n += isinf(tf_view_at(&m, r, c)) != 0;
    char want[128];
    snprintf(want, sizeof want, "%d cells are masked", n);
    expect_true(n > 0 && strstr(text, want) != NULL, "%s:\n%s", want, text);
    char line[1024];
    /* row 1 (<bos>) sees only itself: one value */
    expect_true(row_line(0, line, sizeof line) && !strchr(line, ','), "row 1 lists <bos> alone: %s", line);
    check_rows(&a, ST_DEC_SELF_WEIGHTS, 1, 0, 0);
    app_free(&a);
}

static void test_experiment_and_all_heads(void **state)
{
    (void)state;
    static App a;
    open_at(&a, "i love china", ST_DEC_CROSS_WEIGHTS, 0, -1);
    tu_exp_no_scale(&a);
    expect_true(app_describe(&a, text, sizeof text) > 0, "described");
    expect_true(strstr(text, "Experiment on: no-scale") != NULL, "the experiment is said:\n%s", text);
    int heads = a.ses.model.cfg.n_heads;
    char want[32];
    snprintf(want, sizeof want, "Head %d of %d", heads, heads);
    expect_true(strstr(text, "Head 1 of ") && strstr(text, want), "every head in turn:\n%s", text);
    app_free(&a);
}

static void test_chinese(void **state)
{
    (void)state;
    static App a;
    open_at(&a, "i love china", ST_ENC_SELF_WEIGHTS, 0, 0);
    ev_key(&a, (Key)'z', 0);
    tu_frame(&a);
    expect_true(a.look.lang == 1, "Z: Chinese");
    expect_true(app_describe(&a, text, sizeof text) > 0, "described");
    expect_true(strstr(text, "第 1 层") && strstr(text, "矩阵"), "Chinese under Z:\n%s", text);
    ev_key(&a, (Key)'z', 0);
    tu_frame(&a);
    app_free(&a);
}

/* A buffer too small: cut with an ellipsis, never past its end. */
static void test_small_buffer(void **state)
{
    (void)state;
    static App a;
    open_at(&a, "i love china", ST_ENC_SELF_WEIGHTS, 0, 0);
    char small[40];
    memset(small, 'x', sizeof small);
    int n = app_describe(&a, small, sizeof small);
    expect_true(n >= 0 && (size_t)n < sizeof small && strlen(small) == (size_t)n, "%d bytes: %s", n, small);
    expect_true(strstr(small, "…") != NULL, "cut with an ellipsis: %s", small);
    app_free(&a);
}

static char copied[1 << 16];
static void fake_copy(const char *t) { snprintf(copied, sizeof copied, "%s", t); }

/* Ctrl+D: the same text to the clipboard, and a notice. */
static void test_ctrl_d_copies(void **state)
{
    (void)state;
    static App a;
    open_at(&a, "i love china", ST_DEC_CROSS_WEIGHTS, 1, 1);
    a.ui.copy = fake_copy;
    copied[0] = 0;
    ev_key(&a, (Key)'d', MOD_CTRL);
    expect_true(strcmp(copied, text) == 0, "Ctrl+D copies the description:\n%s", copied);
    expect_true(strstr(a.notice, "copied") != NULL, "a notice: %s", a.notice);
    app_free(&a);
}

static char spoken[1 << 16];
static int fake_speak(const char *t)
{
    snprintf(spoken, sizeof spoken, "%s", t);
    return 0;
}

/* Ctrl+D with the host's own speech (the browser page sets one: no
 * spd-say there): that is what reads the text, and the notice says so. */
static void test_ctrl_d_host_speech(void **state)
{
    (void)state;
    static App a;
    open_at(&a, "i love china", ST_ENC_SELF_WEIGHTS, 0, 0);
    a.ui.copy = fake_copy;
    a.ui.speak = fake_speak;
    spoken[0] = 0;
    ev_key(&a, (Key)'d', MOD_CTRL);
    expect_true(strcmp(spoken, text) == 0, "Ctrl+D hands the description to the host's speech:\n%s", spoken);
    expect_true(strstr(a.notice, "read aloud") != NULL, "the notice says it is read aloud: %s", a.notice);
    app_free(&a);
}

/* The command prints the same sentences. */
static void test_command(void **state)
{
    (void)state;
    static char out[1 << 16];
    int rc = tu_run_cmd("build/stepformer describe --stage enc.self.weights --layer 0 --head 2 "
                        "--src 'i read books at home today' 2>&1",
                        out, sizeof out);
    expect_true(rc == 0, "describe exits 0:\n%s", out);
    static App a;
    open_at(&a, "i read books at home today", ST_ENC_SELF_WEIGHTS, 0, 2);
    const char *rows = strstr(text, "A 6 × 6");
    expect_true(rows && strstr(out, rows) != NULL, "the command prints the window's text:\n%s\n---\n%s", out, text);
    app_free(&a);
    rc = tu_run_cmd("build/stepformer describe --stage enc.self.weights --layer 9 2>&1", out, sizeof out);
    expect_true(rc != 0 && strchr(out, '\n') == out + strlen(out) - 1, "a bad layer: one line, exit 1: %s", out);
}

int main(void)
{
    TU_RUN_HEADLESS(NULL, NULL, cmocka_unit_test(test_weights_every_row), cmocka_unit_test(test_masked_cells),
                    cmocka_unit_test(test_experiment_and_all_heads), cmocka_unit_test(test_chinese),
                    cmocka_unit_test(test_small_buffer), cmocka_unit_test(test_ctrl_d_copies),
                    cmocka_unit_test(test_ctrl_d_host_speech), cmocka_unit_test(test_command));
}
