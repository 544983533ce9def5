/* lesson.h - lessons: plain-text files that drive the window step by step
 * (format in lessons/README.md). Parsing needs no SDL, so the checker, the
 * tests and the fuzzer use it as is. */
#ifndef APP_LESSON_H
#define APP_LESSON_H

#include <stddef.h>

#include "err.h"
#include "experiment.h"

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

/* What D shows while an @experiment is on (the App's CMP_* values). */
enum { LESSON_CMP_EXP = 0, LESSON_CMP_NORMAL = 1, LESSON_CMP_DIFF = 2 };

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
    char pane[8];    /* the decode view's pane: gen, step, beam, sample; "" unset */
    int pane_line;   /* line of the @pane in force, 0 none */
    int has_exp;     /* an @experiment is in force ("none" included) */
    TfExperiment exp; /* its flags, layers, heads and positions as written
                         (from 0); lessons --check checks the ranges */
    int cmp;         /* LESSON_CMP_*: compare, normal, or the experiment */
    int exp_line;    /* line of the @experiment in force, 0 none */
} LessonView;

/* Predict-then-reveal (one step, not carried over): the values are hidden
 * until the learner clicks what they expect. */
enum { LESSON_PREDICT_NONE = 0, LESSON_PREDICT_ROW, LESSON_PREDICT_NEXT };
typedef struct LessonPredict {
    int kind;        /* LESSON_PREDICT_* */
    char *query;     /* row: the query's token text or "#N" (N from 1);
                        next: the same for the decoder input row whose next
                        token is predicted, NULL for the first (<bos>) */
    char *explain;   /* shown after the reveal; may be NULL */
    int line;
} LessonPredict;

typedef struct LessonStep {
    char *title;
    char *text;          /* paragraphs, markup kept */
    char *try_text;      /* NULL when none */
    LessonQuiz quiz;
    int has_quiz;
    LessonPredict predict;
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

/* ---- @predict against what the model computed (no SDL) ---- */
struct TfTrace;
struct Vocab;
/* Is the stage a heatmap @predict row can hide a row of (the scores or
 * weights of one attention head)? Sets *decoder when its rows are the
 * decoder's inputs. */
int lesson_predict_stage_ok(int stage, int *decoder);
/* The row p names in sentence b: query tokens are the source (decoder 0)
 * or the decoder input (<bos> + target). Returns the 0-based row, or -1
 * when the sentence has no such token. */
int lesson_predict_row(const LessonPredict *p, const struct TfTrace *tr, const struct Vocab *voc,
                       int decoder, int b);
/* The answer: for a row, the key column of the largest weight of that row
 * (weights of the stage's attention, head, layer, sentence b); for next,
 * the most probable next token after decoder input row `row`. -1 on error. */
int lesson_predict_answer(const struct TfTrace *tr, int kind, int stage, int layer, int head, int b,
                          int row);
/* The tokens offered for @predict next: the cap most probable next tokens
 * after decoder input row `row` of sentence b (never <pad> or <bos>), in an
 * order fixed by seed that gives nothing away: a shuffle, not by
 * probability nor by vocabulary id (which puts the frequent words first).
 * Returns how many were written to ids. */
int lesson_predict_candidates(const struct TfTrace *tr, int b, int row, unsigned seed, int *ids, int cap);
/* The seed of a step's order: lesson id and step (0-based), so the same
 * lesson shows the same order in every language. */
unsigned lesson_predict_seed(const char *id, int step);

#endif
