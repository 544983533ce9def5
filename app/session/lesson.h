/* lesson.h - lessons: plain-text files that drive the window step by step
 * (format in lessons/README.md). Parsing needs no SDL, so the checker, the
 * tests and the fuzzer use it as is. */
#ifndef APP_LESSON_H
#define APP_LESSON_H

#include <stddef.h>

#include "err.h"

#define LESSON_MAX_CHOICES 8
#define LESSON_MAX_STEPS 64
#define LESSON_MAX_BYTES (1 << 20)

typedef struct LessonQuiz {
    char *question;
    char *choices[LESSON_MAX_CHOICES];
    int n_choices;
    int answer;      /* index of the right choice */
    char *explain;   /* may be NULL */
    int line;
} LessonQuiz;

/* What a step shows: every field as resolved after carrying the earlier
 * steps' directives forward. Unset values are empty strings / -2. */
typedef struct LessonView {
    char stage[40];
    char view[16];
    int layer;       /* 0-based, -2 unset */
    int head;        /* 0-based, -1 all heads, -2 unset */
    int batch;       /* 0-based, -2 unset */
    char *src, *tgt; /* NULL unset; tgt "" means cleared */
    char *highlight; /* NULL unset */
} LessonView;

typedef struct LessonStep {
    char *title;
    char *text;          /* paragraphs, markup kept */
    char *try_text;      /* NULL when none */
    LessonQuiz quiz;
    int has_quiz;
    LessonView view;
    char *directives;    /* this step's own view directives, canonical, to
                            compare the languages */
    int line;
} LessonStep;

typedef struct Lesson {
    char id[64];         /* from the file name: 03-attention.txt -> attention */
    int order;           /* 3 */
    char *title, *summary;
    char model[64];      /* en2zh by default */
    LessonStep steps[LESSON_MAX_STEPS];
    int n_steps;
    char path[512];
} Lesson;

/* Parse text (len bytes) read from path. Errors are "path:line: reason". */
int lesson_parse(Lesson *l, const char *text, size_t len, const char *path,
                 TfErr *err);
int lesson_load(Lesson *l, const char *path, TfErr *err);
void lesson_free(Lesson *l);

/* All lessons of one language directory, sorted by file name. Files that
 * fail to parse are skipped; each error goes to on_error (may be NULL) and
 * is counted in *n_bad. */
typedef struct LessonSet {
    Lesson *lessons;
    int n;
} LessonSet;
typedef void (*LessonErrFn)(const char *msg, void *user);
int lessons_load_dir(LessonSet *set, const char *dir, LessonErrFn on_error,
                     void *user, int *n_bad);
void lessons_free(LessonSet *set);
int lessons_find(const LessonSet *set, const char *id);

#endif
