/* test_lesson_util.h - what the lesson tests share: a lesson that must
 * parse, one that must be refused in one line naming its file and line,
 * and tables of both run through the parser and the checker. */
#ifndef TEST_LESSON_UTIL_H
#define TEST_LESSON_UTIL_H

#include <stdio.h>
#include <string.h>

#include "lesson.h"
#include "lesson_check.h"
#include "model_open.h"
#include "test_util.h"

/* l parsed from text as if read from path (a failed check when not); its
 * steps. */
static inline const LessonStep *tu_lesson_parse(Lesson *l, const char *text, const char *path)
{
    TfErr err = {{0}};
    int rc = lesson_parse(l, text, strlen(text), path, &err);
    expect_true(rc == 0, "%s parses: %s", path, err.msg);
    return l->steps;
}

/* text (len bytes) read as path is refused in one line that starts
 * "path:line: " and says phrase. */
static inline void tu_lesson_refused(const char *text, size_t len, const char *path, int line, const char *phrase)
{
    Lesson l;
    TfErr err = {{0}};
    int rc = lesson_parse(&l, text, len, path, &err);
    expect_true(rc != 0, "a parse error (%s) at line %d of %s, but it parsed", phrase, line, path);
    char want[64];
    snprintf(want, sizeof want, "%s:%d: ", path, line);
    expect_true(strncmp(err.msg, want, strlen(want)) == 0 && strstr(err.msg, phrase) && !strchr(err.msg, '\n'),
                "one line starting '%s' saying '%s', got '%s'", want, phrase, err.msg);
}

/* Lines a parse refuses: put after "@title T\n@step S\ntext\n" (lines 1-3). */
typedef struct TuLessonBad {
    const char *lines;
    const char *phrase;
    int line;
} TuLessonBad;

static inline void tu_lesson_bad_table(const TuLessonBad *bad, size_t n, const char *path)
{
    for (size_t i = 0; i < n; i++) {
        char text[1024];
        snprintf(text, sizeof text, "@title T\n@step S\ntext\n%s", bad[i].lines);
        tu_lesson_refused(text, strlen(text), path, bad[i].line, bad[i].phrase);
    }
}

/* Lessons that parse, for the checker: each case's problem, by line. */
typedef struct TuLessonCheck {
    const char *steps; /* after "@title T\n" (line 2 on) */
    const char *want;  /* a phrase of the report, or NULL: no problem */
    int line;
} TuLessonCheck;

/* Every case read as path and checked against the model file at model:
 * no problem, or exactly one at path:line saying want. */
static inline void tu_lesson_check_table(const TuLessonCheck *cases, size_t n, const char *model, const char *path)
{
    TfModel m;
    TfErr err;
    expect_true(tf_model_open(model, &m, &err) == 0, "%s opens (run from the repository root): %s", model, err.msg);
    for (size_t i = 0; i < n; i++) {
        char text[1024];
        snprintf(text, sizeof text, "@title T\n%s", cases[i].steps);
        Lesson l;
        int rc = lesson_parse(&l, text, strlen(text), path, &err);
        expect_true(rc == 0, "case %zu parses: %s", i, err.msg);
        TuMsgs msgs = {0};
        int bad = lesson_check_view(&l, &m.cfg, tu_collect, &msgs) + lesson_check_run(&l, model, tu_collect, &msgs);
        if (!cases[i].want) {
            expect_true(bad == 0, "case %zu has no problem, got:\n%s", i, msgs.text);
        } else {
            char where[64];
            snprintf(where, sizeof where, "%s:%d: ", path, cases[i].line);
            expect_true(bad == 1 && strncmp(msgs.text, where, strlen(where)) == 0 && strstr(msgs.text, cases[i].want),
                        "case %zu: one problem '%s%s...', got %d:\n%s", i, where, cases[i].want, bad, msgs.text);
        }
        lesson_free(&l);
    }
    model_free(&m);
}

#endif
