/* test_results.c - pre/post-tests: a lesson marked @test records each
 * answer once, under a random learner id, without revealing it; `results
 * --export` writes one row per question; `results --summary` puts pre and
 * post side by side; bad files are refused in one line; the shipped pre-
 * and post-test ask the same question ids in both languages. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lesson_ui.h"
#include "results.h"
#include "test_app_util.h"

#define MODEL "assets/models/en2zh.safetensors"

static char home[256];

static int setup(void **state)
{
    (void)state;
    snprintf(home, sizeof home, "/tmp/stepformer-results-%d/fresh/share", (int)getpid());
    setenv("XDG_DATA_HOME", home, 1); /* its parents do not exist yet */
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf /tmp/stepformer-results-%d", (int)getpid());
    return system(cmd) == 0 ? 0 : -1;
}

static void test_pretest_in_the_window(void **state)
{
    (void)state;
    static App a;
    AppOpts o = tu_opts(MODEL, NULL, NULL, NULL);
    o.no_save = 0;
    o.lesson = "pretest";
    tu_open(&a, &o, 10);
    int step, answered;
    const Lesson *l = lesson_ui_current(&a, &step, &answered);
    expect_true(l && !strcmp(l->test, "pre"), "the pre-test is open, marked pre");
    int questions = 0;
    for (int i = 0; i < l->n_steps; i++)
        questions += l->steps[i].has_quiz;
    for (int i = 0; i < l->n_steps; i++, lesson_ui_step(&a, 1)) {
        tu_frame(&a);
        l = lesson_ui_current(&a, &step, &answered);
        if (!l->steps[step].has_quiz)
            continue;
        a.now += 3; /* three seconds on the question */
        expect_true(lesson_ui_answer(&a, l->steps[step].quiz.answer) == 1, "step %d answered right", step + 1);
        expect_true(strstr(a.notice, "recorded") != NULL, "the notice: %s", a.notice);
        expect_true(lesson_ui_quiz_key(&a, 0) == 0 && lesson_ui_answer(&a, 0) == -1,
                    "step %d: a second answer does not count", step + 1);
        tu_frame(&a);
    }
    app_free(&a);
    /* the file: a header and one row per question, under a 16-hex id */
    char path[512], line[512];
    snprintf(path, sizeof path, "%s/stepformer/results.csv", home);
    FILE *f = fopen(path, "r");
    expect_true(f != NULL, "%s was made with its parents", path);
    expect_true(fgets(line, sizeof line, f) && !strncmp(line, "learner,test,lesson,question", 28), "header: %s", line);
    int rows = 0;
    char first_id[32] = "";
    while (fgets(line, sizeof line, f)) {
        char id[32], test[8], lesson[32], q[32];
        int ans, right;
        double secs;
        expect_true(sscanf(line, "%31[^,],%7[^,],%31[^,],%31[^,],%d,%d,%lf", id, test, lesson, q, &ans, &right,
                           &secs) == 7,
                    "a row: %s", line);
        expect_true(strlen(id) == 16 && strspn(id, "0123456789abcdef") == 16, "a random hex id: %s", id);
        if (!rows)
            snprintf(first_id, sizeof first_id, "%s", id);
        expect_true(!strcmp(id, first_id) && !strcmp(test, "pre") && !strcmp(lesson, "pretest") && right == 1 &&
                        secs >= 2.9 && secs <= 4.1,
                    "row: %s", line);
        rows++;
    }
    fclose(f);
    expect_true(rows == questions && rows == 6, "one row per question: %d of %d", rows, questions);
}

/* The rows of results.csv (its header not counted). */
static int result_rows(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[512];
    int n = 0;
    while (fgets(line, sizeof line, f))
        n += strncmp(line, "learner,", 8) != 0;
    fclose(f);
    return n;
}

/* In the window: each answer says it was recorded and how far the test is
 * ("(2 of 6)"), never right or wrong, also at the test's end; Ctrl+Shift+E
 * in the test (and in the lesson list) and the end screen's button write
 * the answers into ~/Documents/Stepformer for the teacher, the notice
 * naming the file. */
static void test_export_in_the_window(void **state)
{
    (void)state;
    char fake_home[300], docs[400], rpath[512];
    snprintf(fake_home, sizeof fake_home, "/tmp/stepformer-results-%d/home", (int)getpid());
    snprintf(docs, sizeof docs, "%s/Documents/Stepformer", fake_home);
    snprintf(rpath, sizeof rpath, "%s/stepformer/results.csv", home);
    const char *old_home = getenv("HOME");
    char keep[512];
    snprintf(keep, sizeof keep, "%s", old_home ? old_home : "");
    setenv("HOME", fake_home, 1);
    setenv("XDG_CONFIG_HOME", fake_home, 1); /* no user-dirs.dirs: ~/Documents */
    int before = result_rows(rpath);
    expect_true(tu_ren || tu_renderer_open(1280, 800) == 0, "a headless renderer");
    static App a;
    AppOpts o = tu_opts(MODEL, NULL, NULL, NULL);
    o.no_save = 0;
    o.lesson = "pretest";
    tu_open(&a, &o, 10);
    int step, answered, asked = 0;
    const Lesson *l = lesson_ui_current(&a, &step, &answered);
    for (int i = 0; i < l->n_steps; i++)
        asked += l->steps[i].has_quiz;
    int done = 0;
    while (done < 2) { /* two questions, answered wrong: nothing says so */
        lesson_ui_step(&a, 1);
        tu_frame(&a);
        l = lesson_ui_current(&a, &step, &answered);
        if (!l->steps[step].has_quiz)
            continue;
        int wrong = l->steps[step].quiz.answer == 0 ? 1 : 0;
        expect_true(lesson_ui_answer(&a, wrong) == 0, "step %d answered", step + 1);
        done++;
        char want[64];
        snprintf(want, sizeof want, "answer recorded (%d of %d)", done, asked);
        expect_true(strstr(a.notice, want) != NULL, "the notice says '%s': %s", want, a.notice);
        tu_drawn_frame(&a, tu_ren);
        snprintf(want, sizeof want, "Answer recorded (%d of %d)", done, asked);
        expect_true(strstr(tu_drawn.text, want) != NULL, "the panel says '%s'", want);
        expect_true(!strstr(tu_drawn.text, "Not quite") && !strstr(tu_drawn.text, "Right"), "no verdict in a test");
    }
    /* Ctrl+Shift+E in the test */
    ev_key(&a, (Key)'e', MOD_CTRL | MOD_SHIFT);
    char file[700];
    expect_true(tu_find_name(docs, "stepformer-results-", ".csv", file, sizeof file) == 1, "a CSV in %s", docs);
    expect_true(strstr(a.notice, "~/Documents/Stepformer/stepformer-results-") && strstr(a.notice, "teacher"),
                "the notice names the file: %s", a.notice);
    int rows = result_rows(file);
    expect_true(rows == before + 2, "the export holds every answer: %d rows, %d before + 2", rows, before);
    remove(file);
    /* the end screen: how many answered, not how many right, and the button */
    int r0, t0;
    for (int k = 0; k < 12 && !lesson_ui_summary(&a, &r0, &t0); k++)
        lesson_ui_step(&a, 1);
    tu_drawn_frame(&a, tu_ren);
    char want[64];
    snprintf(want, sizeof want, "You answered %d of %d questions", done, asked);
    expect_true(strstr(tu_drawn.text, want) && strstr(tu_drawn.text, "Test done"), "the end screen says '%s'", want);
    expect_true(!strstr(tu_drawn.text, "right at the first try"), "the end screen counts no right answers");
    int bi = -1;
    for (int i = 0; i < tu_drawn.n; i++)
        if (!strncmp(tu_drawn.s[i], "Export my answers", 17))
            bi = i;
    expect_true(bi >= 0, "the end screen's button");
    Rect b = tu_drawn.box[bi];
    tu_click(&a, b.x + 4, b.y + b.h / 2);
    expect_true(tu_find_name(docs, "stepformer-results-", ".csv", file, sizeof file) == 1 &&
                    result_rows(file) == before + 2,
                "the button exported them");
    remove(file);
    /* and from the lesson list */
    lesson_ui_toggle_list(&a);
    tu_frame(&a);
    ev_key(&a, (Key)'e', MOD_CTRL | MOD_SHIFT);
    expect_true(tu_find_name(docs, "stepformer-results-", ".csv", file, sizeof file) == 1, "Ctrl+Shift+E in the list");
    app_free(&a);
    if (keep[0])
        setenv("HOME", keep, 1);
    unsetenv("XDG_CONFIG_HOME");
}

static void test_export_and_summary(void **state)
{
    (void)state;
    char cmd[2048], out[8192], csv[512], post[512];
    snprintf(csv, sizeof csv, "/tmp/stepformer-results-%d/class-pre.csv", (int)getpid());
    snprintf(cmd, sizeof cmd, "build/stepformer results --export %s 2>&1", csv);
    expect_true(tu_run_cmd(cmd, out, sizeof out) == 0 && strstr(out, "wrote 6 answers"), "export: %s", out);
    /* a post-test file of two learners, by hand */
    snprintf(post, sizeof post, "/tmp/stepformer-results-%d/class-post.csv", (int)getpid());
    FILE *f = fopen(post, "w");
    fprintf(f, "learner,test,lesson,question,answer,right,seconds,when\n"
               "aaaaaaaaaaaaaaaa,post,posttest,masks-1,2,1,10.0,2026-12-02T10:00:00Z\n"
               "bbbbbbbbbbbbbbbb,post,posttest,masks-1,0,0,12.0,2026-12-02T10:00:00Z\n");
    fclose(f);
    snprintf(cmd, sizeof cmd, "build/stepformer results --summary %s %s 2>&1", csv, post);
    expect_true(tu_run_cmd(cmd, out, sizeof out) == 0, "summary: %s", out);
    /* pre: masks-1 answered 1 (= 15, right) by the one learner: 100%; post 50% */
    const char *m = strstr(out, "masks-1");
    expect_true(m && strstr(m, "100% of 1") && strstr(m, "50% of 2") && strstr(m, "-50 points"), "masks-1:\n%s", out);
    expect_true(strstr(out, "scale-1") && strstr(out, "all questions"), "every question and a total:\n%s", out);
    /* a file that is not results */
    f = fopen(post, "w");
    fprintf(f, "learner,test\nthis is not, a results line\n");
    fclose(f);
    snprintf(cmd, sizeof cmd, "build/stepformer results --summary %s 2>&1", post);
    expect_true(tu_run_cmd(cmd, out, sizeof out) != 0 && strstr(out, ":2: not a results line") &&
                    strchr(out, '\n') == out + strlen(out) - 1,
                "one line naming file and line: %s", out);
}

/* The shipped tests ask the same questions (ids) before and after, in
 * both languages, with their answers spread over the positions. */
static void test_shipped_tests(void **state)
{
    (void)state;
    static const char *const LANG[2] = {"en", "zh"};
    for (int g = 0; g < 2; g++) {
        char dir[64];
        snprintf(dir, sizeof dir, "lessons/%s", LANG[g]);
        static LessonSet set;
        int bad = 0;
        expect_true(lessons_load_dir(&set, dir, NULL, NULL, &bad) >= 0, "%s", dir);
        int pre = lessons_find(&set, "pretest"), post = lessons_find(&set, "posttest");
        expect_true(pre >= 0 && post >= 0, "%s: both tests", dir);
        const Lesson *a = &set.lessons[pre], *b = &set.lessons[post];
        expect_true(!strcmp(a->test, "pre") && !strcmp(b->test, "post"), "marked pre and post");
        int qa = 0, qb = 0, pos[4] = {0};
        for (int i = 0; i < a->n_steps; i++)
            if (a->steps[i].has_quiz) {
                qa++;
                pos[a->steps[i].quiz.answer % 4]++;
                int found = 0;
                for (int j = 0; j < b->n_steps; j++)
                    found |= b->steps[j].has_quiz && !strcmp(a->steps[i].qid, b->steps[j].qid);
                expect_true(a->steps[i].qid[0] && found, "%s: question %s in both tests", dir, a->steps[i].qid);
            }
        for (int j = 0; j < b->n_steps; j++)
            qb += b->steps[j].has_quiz;
        expect_true(qa == 6 && qb == 6, "six questions each: %d, %d", qa, qb);
        for (int k = 0; k < 4; k++)
            expect_true(pos[k] >= 1 && pos[k] <= 2, "%s: answers spread over the positions (%d at %d)", dir, pos[k], k);
        lessons_free(&set);
    }
}

/* Codepoints of a UTF-8 text. */
static int cps(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* The shipped tests as a teacher reads them: the two forms of a question
 * are parallel (as many choices, other words), and no right answer stands
 * out as the longest choice (more than 15% longer than every wrong one). */
static void test_tests_give_nothing_away(void **state)
{
    (void)state;
    static const char *const LANG[2] = {"en", "zh"};
    for (int g = 0; g < 2; g++) {
        char dir[64];
        snprintf(dir, sizeof dir, "lessons/%s", LANG[g]);
        static LessonSet set;
        int bad = 0;
        expect_true(lessons_load_dir(&set, dir, NULL, NULL, &bad) >= 0, "%s", dir);
        const Lesson *t[2] = {&set.lessons[lessons_find(&set, "pretest")], &set.lessons[lessons_find(&set, "posttest")]};
        for (int k = 0; k < 2; k++)
            for (int i = 0; i < t[k]->n_steps; i++) {
                const LessonQuiz *q = &t[k]->steps[i].quiz;
                if (!t[k]->steps[i].has_quiz)
                    continue;
                int right = cps(q->choices[q->answer]), longest = 0;
                for (int c = 0; c < q->n_choices; c++)
                    if (c != q->answer && cps(q->choices[c]) > longest)
                        longest = cps(q->choices[c]);
                expect_true(right < 10 || right * 100 <= longest * 115,
                            "%s %s %s: the answer (%d characters) is the longest choice by far (the others %d at most)",
                            dir, t[k]->id, t[k]->steps[i].qid, right, longest);
                for (int j = 0; k == 0 && j < t[1]->n_steps; j++) {
                    const LessonStep *o = &t[1]->steps[j];
                    if (!o->has_quiz || strcmp(o->qid, t[0]->steps[i].qid))
                        continue;
                    expect_true(o->quiz.n_choices == q->n_choices && strcmp(o->quiz.question, q->question),
                                "%s %s: the two forms are parallel and differently worded", dir, o->qid);
                }
            }
        lessons_free(&set);
    }
}

int main(void)
{
    TU_RUN_HEADLESS(setup, teardown, cmocka_unit_test(test_pretest_in_the_window),
                    cmocka_unit_test(test_export_and_summary),
                    cmocka_unit_test(test_export_in_the_window), cmocka_unit_test(test_shipped_tests),
                    cmocka_unit_test(test_tests_give_nothing_away));
}
