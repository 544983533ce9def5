/* test_worksheet.c - `stepformer worksheet`: a PDF whose text holds one
 * different sentence per student, the lesson's questions, and an answer
 * key whose numbers are the engine's (tf_view, what `dump` prints); bad
 * options refused in one line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lesson.h"
#include "test_app_util.h"

#define MODEL "assets/models/en2zh.safetensors"
#define PDF "build/test-worksheet.pdf"

static char text[1 << 18];

/* The sentence of student k from the key: "Student k: “S” → ...". */
static int student_sentence(int k, char *out, size_t cap)
{
    char tag[32];
    snprintf(tag, sizeof tag, "Student %d: “", k);
    const char *p = strstr(text, tag);
    if (!p)
        return -1;
    p += strlen(tag);
    const char *e = strstr(p, "”");
    if (!e)
        return -1;
    snprintf(out, cap, "%.*s", (int)(e - p), p);
    return 0;
}

static void test_three_students(void **state)
{
    (void)state;
    /* a lesson with a row prediction and a quiz */
    static LessonSet set;
    int bad = 0;
    expect_true(lessons_load_dir(&set, "lessons/en", NULL, NULL, &bad) >= 0, "lessons");
    const Lesson *l = NULL;
    const LessonStep *ps = NULL;
    int quizzes = 0;
    for (int k = 0; k < set.n && !ps; k++) {
        quizzes = 0;
        const LessonStep *row = NULL;
        for (int i = 0; i < set.lessons[k].n_steps; i++) {
            quizzes += set.lessons[k].steps[i].has_quiz;
            if (set.lessons[k].steps[i].predict.kind == LESSON_PREDICT_ROW && !row)
                row = &set.lessons[k].steps[i];
        }
        if (row && quizzes && !set.lessons[k].test[0])
            l = &set.lessons[k], ps = row;
    }
    expect_true(ps != NULL, "a lesson with a row prediction and a quiz");
    char out[4096], cmd[512];
    snprintf(cmd, sizeof cmd, "build/stepformer worksheet --lesson %s --students 3 --seed 7 --out " PDF " 2>&1", l->id);
    expect_true(tu_run_cmd(cmd, out, sizeof out) == 0, "worksheet: %s", out);
    expect_true(tu_run_cmd("pdftotext -layout " PDF " - 2>&1", text, sizeof text) == 0, "pdftotext");
    expect_true(strstr(text, "Answer key") != NULL, "an answer key");
    expect_true(!strstr(text, "PgDn") && !strstr(text, "Ctrl+"), "no key hints on paper");
    char s[3][256];
    for (int k = 0; k < 3; k++)
        expect_true(student_sentence(k + 1, s[k], sizeof s[k]) == 0, "student %d's sentence in the key", k + 1);
    expect_true(strcmp(s[0], s[1]) && strcmp(s[1], s[2]) && strcmp(s[0], s[2]), "three different sentences: %s / %s / %s",
                s[0], s[1], s[2]);
    /* every student's key line for it: the largest weight of that row */
    for (int k = 0; k < 3; k++) {
        static Session ses;
        tu_session(&ses, MODEL, s[k], NULL);
        int st = stage_find(ps->view.stage);
        TfView v;
        TfErr err;
        expect_true(tf_view(&ses.trace, (StageId)st, ps->view.layer < 0 ? 0 : ps->view.layer,
                            ps->view.head < 0 ? 0 : ps->view.head, 0, &v, &err) == 0,
                    "%s", err.msg);
        /* find this student's block, then its "row “…”:" line */
        char tag[32];
        snprintf(tag, sizeof tag, "Student %d: “", k + 1);
        const char *blk = strstr(text, tag), *row = blk ? strstr(blk, "row “") : NULL;
        expect_true(row != NULL, "student %d: a row answer", k + 1);
        const char *colon = strstr(row, "”:");
        double got = colon ? strtod(colon + 4, NULL) : -1;
        char want_tok[64];
        snprintf(want_tok, sizeof want_tok, "%.*s", colon ? (int)(colon - row - strlen("row “")) : 0,
                 row + strlen("row “"));
        int found = 0;
        for (int r = 0; r < v.rows; r++) {
            char lab[64];
            if (strcmp(tf_view_label(&ses.trace, &ses.model, &v, 0, r, lab, sizeof lab), want_tok))
                continue;
            float best = -1;
            for (int c = 0; c < v.cols; c++)
                best = tf_view_at(&v, r, c) > best ? tf_view_at(&v, r, c) : best;
            found = got >= best - 0.0005 && got <= best + 0.0005;
            expect_true(found, "student %d: row '%s': the key says %.3f, the model %.4f", k + 1, want_tok, got,
                        (double)best);
        }
        expect_true(found, "student %d: the key's row '%s' is a row of %s", k + 1, want_tok, ps->view.stage);
        session_free(&ses);
    }
    expect_true(quizzes > 0, "quizzes");
    lessons_free(&set);
    remove(PDF);
}

static void test_bad_options(void **state)
{
    (void)state;
    static const TuPair BAD[] = {
        {"--lesson nope --students 2 --out " PDF, "no lesson 'nope'"},
        {"--lesson attention --students 0 --out " PDF, "--students"},
        {"--lesson attention --students 2 --out x.png", ".pdf"},
        {"--lesson attention --out " PDF, "--students"},
    };
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        char cmd[512], out[4096];
        snprintf(cmd, sizeof cmd, "build/stepformer worksheet %s 2>&1", BAD[i].in);
        int rc = tu_run_cmd(cmd, out, sizeof out);
        expect_true(rc != 0 && strstr(out, BAD[i].want) && strchr(out, '\n') == out + strlen(out) - 1,
                    "%s: one line with '%s': %s", BAD[i].in, BAD[i].want, out);
    }
}

int main(void)
{
    TU_RUN_HEADLESS(NULL, NULL, cmocka_unit_test(test_three_students), cmocka_unit_test(test_bad_options));
}
