/* test_worksheet.c - `stepformer worksheet`: a PDF whose text holds one
 * different sentence per student, the lesson's questions, and an answer
 * key whose numbers are the engine's (tf_view, what `dump` prints); bad
 * options refused in one line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* The key part of the text: after "Answer key", student k's block (up to
 * the next student's). */
static const char *key_block(int k, char *out, size_t cap)
{
    const char *key = strstr(text, "Answer key");
    char tag[32], next[32];
    snprintf(tag, sizeof tag, "Student %d: “", k);
    snprintf(next, sizeof next, "Student %d: “", k + 1);
    const char *b = key ? strstr(key, tag) : NULL;
    if (!b)
        return NULL;
    const char *e = strstr(b, next);
    size_t n = e ? (size_t)(e - b) : strlen(b);
    snprintf(out, cap, "%.*s", (int)(n < cap ? n : cap - 1), b);
    return out;
}

static void worksheet_text(const char *args)
{
    char out[4096], cmd[768];
    snprintf(cmd, sizeof cmd, "build/stepformer worksheet %s --out " PDF " 2>&1", args);
    expect_true(tu_run_cmd(cmd, out, sizeof out) == 0, "worksheet %s: %s", args, out);
    expect_true(tu_run_cmd("pdftotext " PDF " - 2>&1", text, sizeof text) == 0, "pdftotext");
}

static const Lesson *lesson_of(LessonSet *set, const char *id)
{
    int bad = 0;
    expect_true(lessons_load_dir(set, "lessons/en", NULL, NULL, &bad) >= 0, "lessons");
    int i = lessons_find(set, id);
    expect_true(i >= 0, "lesson %s", id);
    return &set->lessons[i];
}

/* The index of the row (cols 0) or column labelled want, or -1. */
static int label_index(const Session *ses, const TfView *v, int cols, const char *want)
{
    for (int i = 0; i < (cols ? v->cols : v->rows); i++) {
        char lab[64];
        if (strcmp(tf_view_label(&ses->trace, &ses->model, v, cols, i, lab, sizeof lab), want) == 0)
            return i;
    }
    return -1;
}

/* @predict number steps become questions; the key's number for each is the
 * cell of the student's sentence that dump gives, and the student's pages
 * do not print it (the picture is what goes into the stage). */
static void test_number_questions(void **state)
{
    (void)state;
    static LessonSet set;
    const Lesson *l = lesson_of(&set, "attention");
    worksheet_text("--lesson attention --students 3 --seed 7");
    int n_num = 0;
    for (int i = 0; i < l->n_steps; i++)
        n_num += l->steps[i].predict.kind == LESSON_PREDICT_NUMBER;
    expect_true(n_num >= 2, "the attention lesson has number predictions (%d)", n_num);
    expect_true(strstr(text, "what goes into the number asked about") != NULL, "the picture says what it shows");
    for (int k = 1; k <= 3; k++) {
        static char blk[1 << 14];
        char sent[256];
        expect_true(key_block(k, blk, sizeof blk) != NULL && student_sentence(k, sent, sizeof sent) == 0,
                    "student %d's key", k);
        static Session ses;
        tu_session(&ses, MODEL, sent, NULL);
        const char *at = blk;
        for (int i = 0; i < l->n_steps; i++) {
            const LessonStep *s = &l->steps[i];
            if (s->predict.kind != LESSON_PREDICT_NUMBER)
                continue;
            at = strstr(at, "the number in row “");
            expect_true(at != NULL, "student %d: a key line for the number of step %d", k, i + 1);
            char row[64] = "", col[64] = "";
            int dim = -1;
            const char *r0 = at + strlen("the number in row “"), *r1 = strstr(r0, "”");
            snprintf(row, sizeof row, "%.*s", (int)(r1 - r0), r0);
            if (strncmp(r1, "”, column “", strlen("”, column “")) == 0) {
                const char *c0 = r1 + strlen("”, column “"), *c1 = strstr(c0, "”");
                snprintf(col, sizeof col, "%.*s", (int)(c1 - c0), c0);
            } else {
                expect_true(sscanf(r1, "”, dimension %d", &dim) == 1, "student %d: a column or dimension: %.60s", k, r1);
            }
            const char *colon = strstr(r1, ": ");
            double got = strtod(colon + 2, NULL);
            TfView v;
            TfErr err;
            int st = stage_find(s->view.stage);
            expect_true(tf_view(&ses.trace, (StageId)st, s->view.layer < 0 ? 0 : s->view.layer,
                                s->view.head < 0 ? 0 : s->view.head, 0, &v, &err) == 0, "%s", err.msg);
            int ri = label_index(&ses, &v, 0, row), ci = dim >= 0 ? dim - v.col0 : label_index(&ses, &v, 1, col);
            expect_true(ri >= 0 && ci >= 0 && ci < v.cols, "student %d: row '%s' col '%s' of %s", k, row, col,
                        s->view.stage);
            double want = tf_view_at(&v, ri, ci);
            expect_true(got >= want - 0.00006 && got <= want + 0.00006,
                        "student %d, %s row '%s' col '%s': the key says %.4f, dump %.6f", k, s->view.stage, row,
                        col, got, want);
            /* the sheet before the key does not show that cell's value as the view would */
            char shown[32];
            snprintf(shown, sizeof shown, "%.4g", want);
            const char *key = strstr(text, "Answer key");
            const char *hit = strstr(text, shown);
            expect_true(!hit || hit > key, "student %d: the sheet shows the answer %s before the key", k, shown);
            at = colon;
        }
        session_free(&ses);
    }
    lessons_free(&set);
    remove(PDF);
}

/* The greedy translation of the session's sentence under e. */
static void translate_under(Session *ses, const TfExperiment *e, char *out, size_t cap)
{
    session_set_exp(ses, e);
    session_compute_all(ses);
    for (int k = 0; k < 100000 && session_idle_work(ses) == 1; k++)
        ;
    snprintf(out, cap, "%s", ses->translation);
}

/* @predict breaks: each change is tried on the student's sentence; the key
 * says which alter its translation, to what, as the model computes it. */
static void test_breaks_question(void **state)
{
    (void)state;
    static LessonSet set;
    const Lesson *l = lesson_of(&set, "capstone");
    const LessonStep *bs = NULL;
    for (int i = 0; i < l->n_steps; i++)
        if (l->steps[i].predict.kind == LESSON_PREDICT_BREAKS)
            bs = &l->steps[i];
    expect_true(bs != NULL, "the capstone has a breaks prediction");
    worksheet_text("--lesson capstone --students 3 --seed 3");
    expect_true(strstr(text, "Circle every") != NULL, "the breaks question");
    /* the sheet asks for next tokens: it never prints the model's translation before the key, and the
     * decoder keys the causal mask hides from a row are offered by their place only */
    expect_true(strstr(text, "(B) token 2") != NULL, "a causal row's later keys by their place");
    for (int k = 1; k <= 3; k++) {
        static char blk[1 << 14];
        char sent[256], base[1024], got[1024];
        expect_true(key_block(k, blk, sizeof blk) != NULL && student_sentence(k, sent, sizeof sent) == 0,
                    "student %d's key", k);
        static Session ses;
        tu_session(&ses, MODEL, sent, NULL);
        TfExperiment none;
        memset(&none, 0, sizeof none);
        translate_under(&ses, &none, base, sizeof base);
        char quoted[1100];
        snprintf(quoted, sizeof quoted, "“%s”", base);
        const char *hit = strstr(text, quoted), *key = strstr(text, "Answer key");
        expect_true(!hit || hit > key, "student %d: the translation %s is printed before the key", k, quoted);
        int S = ses.trace.src_len[0];
        for (int c = 0; c < bs->quiz.n_choices; c++) {
            TfExperiment e = bs->predict.exps[c];
            for (int h = 0; h < e.n_hide; h++)
                e.hide_src[h] = e.hide_src[h] < S ? e.hide_src[h] : S - 1;
            translate_under(&ses, &e, got, sizeof got);
            char want[1200];
            if (strcmp(got, base))
                snprintf(want, sizeof want, "(%c) changes it to “%s”", 'A' + c, got);
            else
                snprintf(want, sizeof want, "(%c) leaves it", 'A' + c);
            expect_true(strstr(blk, want) != NULL, "student %d (“%s” → “%s”): the key says '%s'", k, sent, base, want);
        }
        session_free(&ses);
    }
    lessons_free(&set);
    remove(PDF);
}

/* The sentences come from the model's own data: the reverse model's are
 * held-out strings of its task, in its characters. */
static void test_model_task(void **state)
{
    (void)state;
    worksheet_text("--lesson attention --students 3 --model assets/models/reverse.safetensors");
    expect_true(strstr(text, "held-out pairs of reverse") != NULL, "the key names the reverse task");
    static Session ses;
    tu_session(&ses, "assets/models/reverse.safetensors", NULL, NULL);
    for (int k = 1; k <= 3; k++) {
        char sent[256];
        expect_true(student_sentence(k, sent, sizeof sent) == 0, "student %d's sentence", k);
        expect_true(sent[0] && !strchr(sent, ' '), "student %d: a string of the reverse task, not words: '%s'", k, sent);
        for (const char *c = sent; *c; c++)
            expect_true(vocab_find(&ses.model.src_vocab, c, 1) >= 0, "student %d: '%c' is a token of the model", k, *c);
    }
    session_free(&ses);
    remove(PDF);
}

/* @predict output: the key is the greedy translation of the student's
 * sentence under the step's experiment, and the student's page does not
 * print it (nor the translation without it, which the header drops). */
static void test_output_question(void **state)
{
    (void)state;
    char dir[256], args[600];
    expect_true(tu_scratch(dir, sizeof dir, "worksheet-output") == 0, "a scratch folder");
    char en[300];
    snprintf(en, sizeof en, "%s/en", dir);
    expect_true(mkdir(en, 0755) == 0, "%s", en);
    tu_write_text(dir, "en/01-out.txt",
                  "@title Output\n@summary s\n\n@step Without positions\n@view decode\n@pane gen\n@src i love china\n"
                  "@experiment no-pe\nWhat does the model write now?\n\n@predict output\n@answer 我 爱 中国\n"
                  "@choice 你 爱 中国\n");
    snprintf(args, sizeof args, "--lesson out --students 3 --seed 2 --lessons %s", dir);
    worksheet_text(args);
    expect_true(strstr(text, "switched on") != NULL, "the output question");
    const char *key = strstr(text, "Answer key");
    for (int k = 1; k <= 3; k++) {
        static char blk[1 << 14];
        char sent[256], want[1024], base[1024];
        expect_true(key_block(k, blk, sizeof blk) != NULL && student_sentence(k, sent, sizeof sent) == 0,
                    "student %d's key", k);
        static Session ses;
        tu_session(&ses, MODEL, sent, NULL);
        TfExperiment e;
        memset(&e, 0, sizeof e);
        translate_under(&ses, &e, base, sizeof base);
        e.no_pe = 1;
        translate_under(&ses, &e, want, sizeof want);
        const char *w = strstr(blk, "”: “");
        char got[1024] = "";
        if (w) {
            w += strlen("”: “");
            const char *end = strstr(w, "”");
            snprintf(got, sizeof got, "%.*s", end ? (int)(end - w) : 0, w);
        }
        expect_true(strcmp(got, want) == 0, "student %d (“%s”): the key says “%s”, the model writes “%s” without positions",
                    k, sent, got, want);
        char quoted[1100];
        snprintf(quoted, sizeof quoted, "“%s”", want);
        const char *hit = strstr(text, quoted);
        expect_true(!hit || hit > key, "student %d: the sheet prints the answer “%s” before the key", k, want);
        snprintf(quoted, sizeof quoted, "the model: “%s”", base);
        expect_true(!strstr(text, quoted), "student %d: the header does not print the translation", k);
        session_free(&ses);
    }
    tu_scratch_remove(dir);
    remove(PDF);
}

/* A quiz whose picture would hold its answer goes without it, and says
 * why: the mask quizzes count −∞ cells, the shape quizzes read the rows
 * and columns of an attention matrix. */
static void test_quiz_pictures(void **state)
{
    (void)state;
    worksheet_text("--lesson decoder --students 1");
    expect_true(strstr(text, "its rows and columns") != NULL, "the decoder's shape quiz has no picture");
    worksheet_text("--lesson masks --students 1");
    expect_true(strstr(text, "the mask would show") != NULL, "the masks' quizzes have no picture");
    remove(PDF);
}

/* Every shipped lesson prints, every other one in Chinese (the PE view's
 * steppers crashed a worksheet: no widget context was bound outside a
 * frame). */
static void test_every_lesson(void **state)
{
    (void)state;
    static LessonSet set;
    int bad = 0;
    expect_true(lessons_load_dir(&set, "lessons/en", NULL, NULL, &bad) >= 0 && set.n > 20, "lessons");
    for (int k = 0; k < set.n; k++) {
        int zh = k % 2;
        {
            char cmd[512], out[4096];
            snprintf(cmd, sizeof cmd, "build/stepformer worksheet --lesson %s --students 1 --lang %s --out " PDF " 2>&1",
                     set.lessons[k].id, zh ? "zh" : "en");
            int rc = tu_run_cmd(cmd, out, sizeof out);
            expect_true(rc == 0 && strstr(out, "wrote "), "worksheet of %s (%s): rc %d: %s", set.lessons[k].id,
                        zh ? "zh" : "en", rc, out);
        }
    }
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
    TU_RUN_HEADLESS(NULL, NULL, cmocka_unit_test(test_three_students), cmocka_unit_test(test_number_questions),
                    cmocka_unit_test(test_breaks_question), cmocka_unit_test(test_model_task), cmocka_unit_test(test_output_question), cmocka_unit_test(test_quiz_pictures), cmocka_unit_test(test_every_lesson),
                    cmocka_unit_test(test_bad_options));
}
