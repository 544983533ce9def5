/* test_lesson_ui.c - lessons in the window: a step sets the view it talks
 * about, PgDn/PgUp step, quizzes answer by number key and by click, the
 * language switch keeps the place, progress survives a restart, and a broken
 * lesson file leaves the others usable. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app.h"
#include "checkpoint.h"
#include "lesson_ui.h"
#include "test_app_util.h"
#include "test_util.h"
#include "view.h"

static const char *LESSON_EN =
    "@title Attention demo\n"
    "@summary A lesson for the tests.\n"
    "@model tiny\n"
    "@step Weights\n"
    "@stage enc.self.weights\n"
    "@layer 2\n"
    "@head 3\n"
    "@src t5 t6 t7\n"
    "@highlight t6\n"
    "Row i says how much token i takes from every token.\n"
    "@step All heads\n"
    "@head all\n"
    "Every head at once.\n"
    "@quiz How many heads?\n"
    "@choice One\n"
    "@answer Four\n"
    "@choice Eight\n"
    "@explain The model has four.\n"
    "@step The mask\n"
    "@stage dec.self.mask\n"
    "@tgt t8 t9\n"
    "- one\n"
    "- two\n";

TU_LESSON_HOME_GROUP("lesson-ui", write_lessons)

static void write_lessons(void)
{
    tu_write_text(g_dir, "lessons/en/01-demo.txt", LESSON_EN);
    tu_write_text(g_dir, "lessons/en/02-broken.txt", "@title Broken\n@step One\n@stage enc.self.weights\n@nonsense 1\ntext\n");
    /* the Chinese lesson: same directives, other words */
    char *zh = strdup(LESSON_EN);
    char *at = strstr(zh, "Row i says");
    memcpy(at, "第 i 行说明", strlen("第 i 行说明"));
    tu_write_text(g_dir, "lessons/zh/01-demo.txt", zh);
    free(zh);
}

static void open_app(App *a)
{
    tu_open_lessons(a, g_dir, g_model, 0);
}

/* The app with the demo lesson open at step (which must work). */
static void open_demo(App *a, int step)
{
    open_app(a);
    expect_true(lesson_ui_open(a, "demo", step) == 0, "the demo lesson opens at step %d: %s", step + 1, a->notice);
}

static void test_steps_set_the_view(void **state)
{
    (void)state;
    static App a;
    open_demo(&a, 0);
    expect_true(strstr(a.ses.model_path, "lessons/../assets/models/tiny") != NULL,
                "the lesson's own model is used: %s", a.ses.model_path);
    tu_frame(&a);
    StagePos p = app_pos(&a);
    expect_true(p.stage == ST_ENC_SELF_WEIGHTS && p.layer == 1 && a.ses.head == 2,
                "step 1 shows enc.self.weights layer 2 head 3, got %s layer %d head %d",
                stage_info(p.stage)->name, p.layer + 1, a.ses.head + 1);
    expect_true(strcmp(a.ses.src_line, "t5 t6 t7") == 0, "the source line is set: '%s'", a.ses.src_line);
    expect_true(a.sel.side == 1 && a.sel.index == 1, "t6 is highlighted");
    ev_key(&a, KEY_PAGEDOWN, 0);
    tu_frame(&a);
    expect_true(a.ses.head == -1 && app_current_view(&a) == VIEW_HEADS, "step 2: all heads");
    int step, answered;
    lesson_ui_current(&a, &step, &answered);
    expect_true(step == 1 && answered == -1, "on step 2, unanswered");
    /* number keys answer the quiz instead of picking a head: by the
     * position shown (the choices are shuffled); a wrong one is marked and
     * the learner may try again */
    int order[LESSON_MAX_CHOICES], wpos = 0;
    lesson_ui_quiz_order(&a, order);
    while (order[wpos] == 1) /* "Four", the answer, is choice 2 as written */
        wpos++;
    ev_key(&a, '1' + wpos, 0);
    lesson_ui_current(&a, &step, &answered);
    expect_true(answered == -1 && lesson_ui_quiz_wrong(&a, NULL) == 1u << order[wpos] && a.ses.head == -1,
                "key %d picks choice %d (wrong): marked, not answered, head unchanged", wpos + 1, order[wpos] + 1);
    tu_frame(&a);
    ev_key(&a, KEY_PAGEDOWN, 0);
    tu_frame(&a);
    p = app_pos(&a);
    expect_true(p.stage == ST_DEC_SELF_MASK && strcmp(a.ses.tgt, "t8 t9") == 0, "step 3: the decoder mask with a target");
    expect_true(app_current_view(&a) == VIEW_MASK, "in the mask view");
    ev_key(&a, KEY_PAGEUP, 0);
    lesson_ui_current(&a, &step, &answered);
    expect_true(step == 1 && answered == -1 && lesson_ui_quiz_wrong(&a, NULL) == 1u << order[wpos],
                "PgUp back to step 2, the wrong try kept");
    /* the language switch keeps the lesson and the step */
    ev_key(&a, 'z', 0);
    const Lesson *l = lesson_ui_current(&a, &step, &answered);
    expect_true(a.look.lang == 1 && l && step == 1 && strstr(l->path, "/zh/"), "Z: the same step in Chinese");
    expect_true(strstr(l->steps[0].text, "第 i 行") != NULL, "the Chinese text is loaded");
    tu_frame(&a);
    /* Esc leaves the lesson first; only a second Esc quits */
    ev_key(&a, KEY_ESCAPE, 0);
    expect_true(!lesson_ui_active(&a) && !a.win.want_quit, "Esc closes the lesson, the window stays");
    ev_key(&a, KEY_ESCAPE, 0);
    expect_true(a.win.want_quit, "a second Esc quits");
    tu_frame(&a);
    app_free(&a);
}

static void test_quiz_click_and_progress(void **state)
{
    (void)state;
    static App a;
    open_demo(&a, 1);
    tu_frame(&a);
    /* click the second choice: find it by answering through the panel */
    int right = lesson_ui_answer(&a, 1);
    expect_true(right == 1, "choice 2 is the right answer");
    expect_true(lesson_ui_answer(&a, 0) == -1, "a quiz is answered once");
    lesson_ui_step(&a, 1);
    app_free(&a);
    /* a new run sees the progress */
    char path[256];
    snprintf(path, sizeof path, "%s/data/stepformer/progress.txt", g_dir);
    FILE *f = fopen(path, "r");
    expect_true(f != NULL, "progress file %s written", path);
    char id[64];
    int reached = 0;
    unsigned bits = 0;
    expect_true(fscanf(f, "%63s %d %u", id, &reached, &bits) == 3, "progress line");
    fclose(f);
    expect_true(strcmp(id, "demo") == 0 && reached == 3 && (bits & 2), "demo: reached step 3, quiz 2 right (got %s %d %u)",
                id, reached, bits);
    static App b;
    open_app(&b);
    int r2;
    unsigned long long right2;
    lesson_ui_progress(&b, "demo", &r2, &right2);
    expect_true(r2 == 3 && (right2 & 2), "the next run reads it: reached %d", r2);
    /* the list opens, shows the lesson, Enter resumes where the learner was */
    ev_key(&b, 'l', 0);
    expect_true(lesson_ui_list_open(&b), "L opens the list");
    tu_frame(&b);
    ev_key(&b, KEY_RETURN, 0);
    int step;
    expect_true(lesson_ui_current(&b, &step, NULL) != NULL, "Enter opens the lesson");
    expect_true(!lesson_ui_list_open(&b), "and closes the list");
    app_free(&b);
}

/* A wrong answer does not give the right one away: another try is right
 * but does not count as right at the first try; "show the answer" gives
 * it; the order of the choices is a shuffle with the answer placed by the
 * learner's seed. After the last step comes the lesson-end screen. */
static void test_retry_and_summary(void **state)
{
    (void)state;
    static App a;
    open_demo(&a, 1);
    tu_frame(&a);
    expect_true(lesson_ui_answer(&a, 0) == 0 && lesson_ui_answer(&a, 0) == -1, "a wrong choice once, not twice");
    int step, answered, shown = 0;
    lesson_ui_current(&a, &step, &answered);
    expect_true(answered == -1, "the answer is not shown after a wrong try");
    tu_frame(&a);
    expect_true(lesson_ui_answer(&a, 1) == 1, "the second try is right");
    lesson_ui_quiz_wrong(&a, &shown);
    lesson_ui_current(&a, &step, &answered);
    expect_true(answered == 1 && !shown, "answered, found (not shown)");
    tu_frame(&a);
    int right = -1, total = -1;
    expect_true(!lesson_ui_summary(&a, &right, &total), "no summary inside the lesson");
    lesson_ui_step(&a, 1);
    lesson_ui_step(&a, 1); /* past the last step */
    tu_frame(&a);
    const Lesson *l = lesson_ui_current(&a, &step, NULL);
    expect_true(l && strcmp(l->id, "demo") == 0 && lesson_ui_summary(&a, &right, &total) && right == 0 && total == 1,
                "the lesson-end screen: 0 of 1 right at the first try, got %d of %d", right, total);
    lesson_ui_step(&a, -1);
    expect_true(!lesson_ui_summary(&a, &right, &total) && lesson_ui_current(&a, &step, NULL) && step == 2,
                "Back from it: the last step again");
    /* another lesson visit: give up, the answer is shown */
    lesson_ui_close(&a);
    lesson_ui_open(&a, "demo", 1);
    lesson_ui_answer(&a, 2);
    lesson_ui_show_answer(&a);
    lesson_ui_quiz_wrong(&a, &shown);
    lesson_ui_current(&a, &step, &answered);
    expect_true(answered == 1 && shown, "show the answer: answered with the right one, marked shown");
    tu_frame(&a);
    app_free(&a);
}

static void test_broken_file_reported(void **state)
{
    (void)state;
    static App a;
    open_app(&a);
    const LessonSet *set = lesson_ui_set(&a);
    expect_true(set && set->n == 1, "the good lesson loads, the broken one is skipped: %d", set ? set->n : -1);
    expect_true(a.notice_error && strstr(a.notice, "02-broken.txt:4"), "the broken file is named with its line: %s", a.notice);
    expect_true(lesson_ui_open(&a, "nothing", 0) != 0, "an unknown lesson id is refused");
    tu_frame(&a);
    app_free(&a);
}

/* A folder whose only lesson is broken: opening names the file, the line
 * and the reason (it said "No lessons found in lessons/en", a folder that
 * was not the one read); a folder that is missing is named as it is. */
static void test_no_lesson_says_why(void **state)
{
    (void)state;
    static const TuPair cases[] = {
        {"only-broken", "01-broken.txt:3: unknown directive @bogus"},
        {"missing", "missing/en: cannot open the lesson folder"},
        {"empty", "No lessons found in"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char dir[256], cmd[600];
        snprintf(dir, sizeof dir, "%s/%s", g_dir, cases[i].in);
        if (i == 0)
            snprintf(cmd, sizeof cmd, "mkdir -p %s/en && printf '@title T\\n@step S\\n@bogus x\\nText.\\n' > %s/en/01-broken.txt", dir, dir);
        else if (i == 2)
            snprintf(cmd, sizeof cmd, "mkdir -p %s/en", dir);
        else
            snprintf(cmd, sizeof cmd, "true");
        expect_true(system(cmd) == 0, "%s", cmd);
        static App a;
        AppOpts o = tu_opts(g_model, NULL, NULL, NULL);
        o.lessons_dir = dir;
        tu_open(&a, &o, 10);
        expect_true(lesson_ui_open(&a, "broken", 0) != 0, "%s: nothing opens", cases[i].in);
        expect_true(a.notice_error && strstr(a.notice, cases[i].want), "%s: '%s' in \"%s\"", cases[i].in,
                    cases[i].want, a.notice);
        if (i == 2)
            expect_true(strstr(a.notice, dir) != NULL, "the folder read is named: %s", a.notice);
        app_free(&a);
    }
}

/* Progress that cannot be kept (XDG_DATA_HOME a file, HOME and
 * XDG_DATA_HOME unset) is told once, not on every step. */
static void unsaved_told_once(const char *why)
{
    static App a;
    open_demo(&a, 0);
    int told = strstr(a.notice, "progress is not saved") != NULL;
    a.notice[0] = 0;
    for (int i = 0; i < 2; i++) {
        ev_key(&a, KEY_PAGEDOWN, 0);
        tu_frame(&a);
        told += strstr(a.notice, "progress is not saved") != NULL;
        a.notice[0] = 0;
    }
    expect_true(told == 1, "%s: told exactly once (%d)", why, told);
    app_free(&a);
}

static void test_progress_unsaved_told(void **state)
{
    (void)state;
    char file[128], keep[256];
    const char *home = getenv("HOME");
    snprintf(keep, sizeof keep, "%s", getenv("XDG_DATA_HOME"));
    snprintf(file, sizeof file, "%s/a-file", g_dir);
    tu_write_text(g_dir, "a-file", "not a folder\n");
    setenv("XDG_DATA_HOME", file, 1);
    unsaved_told_once("XDG_DATA_HOME is a file");
    char home_keep[512];
    snprintf(home_keep, sizeof home_keep, "%s", home ? home : "");
    unsetenv("XDG_DATA_HOME");
    unsetenv("HOME");
    unsaved_told_once("HOME unset");
    if (home_keep[0])
        setenv("HOME", home_keep, 1);
    setenv("XDG_DATA_HOME", keep, 1);
}

/* A fresh account: HOME with no .local at all. The progress folder is made
 * with its parents; where it cannot be (.local is a file), the notice says
 * why in the window's language, the OS's reason too. */
static void test_fresh_account_saves_progress(void **state)
{
    (void)state;
    char keep_x[256], keep_h[512], home[128], path[256];
    snprintf(keep_x, sizeof keep_x, "%s", getenv("XDG_DATA_HOME"));
    snprintf(keep_h, sizeof keep_h, "%s", getenv("HOME") ? getenv("HOME") : "");
    snprintf(home, sizeof home, "%s/fresh-home", g_dir);
    mkdir(home, 0755);
    unsetenv("XDG_DATA_HOME");
    setenv("HOME", home, 1);
    static App a;
    open_demo(&a, 0);
    ev_key(&a, KEY_PAGEDOWN, 0);
    tu_frame(&a);
    expect_true(!strstr(a.notice, "not saved"), "no complaint: '%s'", a.notice);
    app_free(&a);
    snprintf(path, sizeof path, "%s/.local/share/stepformer/progress.txt", home);
    expect_true(access(path, R_OK) == 0, "%s is written, its folders made", path);
    /* .local a file: told in Chinese, the reason too */
    snprintf(home, sizeof home, "%s/file-home", g_dir);
    mkdir(home, 0755);
    tu_write_text(home, ".local", "a file\n");
    setenv("HOME", home, 1);
    static App b;
    open_app(&b);
    lesson_ui_set_lang(&b, 1);
    b.look.lang = 1;
    expect_true(lesson_ui_open(&b, "demo", 0) == 0, "lesson opens: %s", b.notice);
    ev_key(&b, KEY_PAGEDOWN, 0);
    tu_frame(&b);
    expect_true(strstr(b.notice, "不是文件夹") && !strstr(b.notice, "Not a directory") && !strstr(b.notice, "cannot"),
                "the reason in Chinese: '%s'", b.notice);
    app_free(&b);
    setenv("HOME", keep_h, 1);
    setenv("XDG_DATA_HOME", keep_x, 1);
}

/* progress.txt that is a FIFO: the lesson opens at once (alarm: a hang
 * fails the test instead of stopping it). */
static void test_progress_fifo(void **state)
{
    (void)state;
    char dir[128], fifo[160], keep[256];
    snprintf(keep, sizeof keep, "%s", getenv("XDG_DATA_HOME"));
    snprintf(dir, sizeof dir, "%s/fifo-data", g_dir);
    mkdir(dir, 0755);
    setenv("XDG_DATA_HOME", dir, 1);
    snprintf(dir, sizeof dir, "%s/fifo-data/stepformer", g_dir);
    mkdir(dir, 0755);
    snprintf(fifo, sizeof fifo, "%s/progress.txt", dir);
    expect_true(mkfifo(fifo, 0644) == 0, "mkfifo %s", fifo);
    alarm(20);
    static App a;
    open_demo(&a, 0);
    int reached = 0;
    unsigned long long right = 0;
    lesson_ui_progress(&a, "demo", &reached, &right);
    alarm(0);
    app_free(&a);
    setenv("XDG_DATA_HOME", keep, 1);
}

int main(void)
{
    TU_RUN(setup, teardown,
           cmocka_unit_test(test_steps_set_the_view),
           cmocka_unit_test(test_quiz_click_and_progress), cmocka_unit_test(test_retry_and_summary),
           cmocka_unit_test(test_broken_file_reported),
           cmocka_unit_test(test_no_lesson_says_why),
           cmocka_unit_test(test_progress_unsaved_told),
           cmocka_unit_test(test_fresh_account_saves_progress),
           cmocka_unit_test(test_progress_fifo));
}
