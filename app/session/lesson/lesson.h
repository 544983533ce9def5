/* lesson.h - lessons: plain-text files that drive the window step by step
 * (format in lessons/README.md). Parsing needs no SDL, so the checker, the
 * tests and the fuzzer use it as is. */
#ifndef APP_LESSON_H
#define APP_LESSON_H

#include <stddef.h>

#include "err.h"
#include "experiment.h"

#define LESSON_MAX_CHOICES 8
#define LESSON_PREDICT_CAND 6 /* tokens a @predict next step offers (lesson_predict_candidates) */
#define LESSON_MAX_STEPS 64
#define LESSON_MAX_BYTES (1 << 20)
#define LESSON_MAX_RECAP 8    /* @recap and @exercise lines of a lesson, each */
#define LESSON_MAX_FILES 1000 /* lesson files read from one folder; more are
                                 refused with one message */
#define LESSON_MAX_WORD 64    /* an unbroken run of more bytes is broken when drawn */

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
    char pe_panel[12]; /* the PE view's panel in a narrow window: waves, table, rotation; "" unset */
    int pe_panel_line; /* line of that @pane, 0 none */
    int has_exp;     /* an @experiment is in force ("none" included) */
    TfExperiment exp; /* its flags, layers, heads and positions as written
                         (from 0); lessons --check checks the ranges */
    int cmp;         /* LESSON_CMP_*: compare, normal, or the experiment */
    int exp_line;    /* line of the @experiment in force, 0 none */
    char cmap[16];   /* @colormap: viridis, cividis, blue-orange; empty unset */
    int beam;        /* @beam K (1..8), 0 unset */
    float alpha;     /* @alpha A (0..2), < 0 unset */
    char train_task[12]; /* @train TASK [heads N]: the Train view's next run (copy, reverse, sort,
                            en2zh), "" unset; the learner starts it */
    int train_heads;     /* its n_heads (1, 2, 4, ... 128), 0 unset */
    int train_line;      /* line of that @train, 0 none */
} LessonView;

/* Predict-then-reveal (one step, not carried over): the values are hidden
 * until the learner picks what they expect.
 *   row QUERY      click the key the hidden row of QUERY weighs most
 *   next [QUERY]   pick the token the model writes after decoder input QUERY
 *   number WHAT    pick a number of the stage shown (cell R C, mean R,
 *                  std R, zeros R, max R)
 *   output         pick the greedy translation under the step's experiment
 *   breaks         pick the change (an experiment) that alters the translation
 * The last three take @choice / @answer lines like a quiz; lessons --check
 * runs the model and verifies the @answer. */
enum {
    LESSON_PREDICT_NONE = 0,
    LESSON_PREDICT_ROW,
    LESSON_PREDICT_NEXT,
    LESSON_PREDICT_NUMBER,
    LESSON_PREDICT_OUTPUT,
    LESSON_PREDICT_BREAKS
};
/* @predict number WHAT: which number of the matrix shown. */
enum { LESSON_NUM_CELL = 0, LESSON_NUM_MEAN, LESSON_NUM_STD, LESSON_NUM_ZEROS, LESSON_NUM_MAX };
typedef struct LessonPredict {
    int kind;        /* LESSON_PREDICT_* */
    char *query;     /* row: the query's token text or "#N" (N from 1);
                        next: the same for the decoder input row whose next
                        token is predicted, NULL for the first (<bos>);
                        number: the row */
    int what;        /* number: LESSON_NUM_* */
    char *col;       /* number cell: the column, a key token or "#N" */
    TfExperiment *exps; /* breaks: each choice's experiment (n_choices) */
    char *explain;   /* shown after the reveal; may be NULL */
    int line;
} LessonPredict;

/* Does the kind take @choice / @answer lines (held in the step's quiz)? */
int lesson_predict_has_choices(int kind);

typedef struct LessonStep {
    char *title;
    char *text;          /* paragraphs, markup kept */
    char *try_text;      /* NULL when none */
    LessonQuiz quiz;     /* a @quiz, or the choices of a @predict that has them */
    int has_quiz;
    LessonPredict predict;
    LessonView view;
    int force_step;      /* @force N TOKEN (this step only): the decode view's
                            generation is made to write TOKEN at step N (from
                            1), teacher forcing still reads the target; 0 none */
    char *force_token;
    int force_line;
    char *directives;    /* this step's own view directives, canonical, to
                            compare the languages */
    char qid[32];        /* @qid: a test question's id ("" none) */
    int line;
} LessonStep;

typedef struct Lesson {
    char id[64];         /* from the file name: 03-attention.txt -> attention */
    int order;           /* 3 */
    char *title, *summary;
    char model[64];      /* en2zh by default */
    LessonStep *steps;   /* n_steps of them, grown as parsed: memory follows the text */
    int n_steps, cap_steps;
    char *recap[LESSON_MAX_RECAP];    /* @recap: "you can now ..." lines for the end screen */
    int n_recap;
    char *exercise[LESSON_MAX_RECAP]; /* @exercise: questions to work on after the lesson */
    int n_exercise;
    char test[8];        /* @test: "pre", "post" or "test" ("" a lesson) */
    char path[512];
} Lesson;

/* Parse text (len bytes) read from path. Errors are "path:line: reason". */
int lesson_parse(Lesson *l, const char *text, size_t len, const char *path,
                 TfErr *err);
int lesson_load(Lesson *l, const char *path, TfErr *err);
void lesson_free(Lesson *l);

/* All lessons of one language directory, sorted by file name. Files that
 * fail to parse are skipped; each error goes to on_error (may be NULL) and
 * is counted in *n_bad. At most LESSON_MAX_FILES files are read; beyond
 * that one message says so (and counts one). */
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

/* @predict number: the value of what p names in the stage shown (layer,
 * head from 0, sentence b) of tr; src and tgt are the vocabularies the rows
 * and key columns are looked up in. Returns 0 with *out, or -1 when the
 * stage, row or column is not there. */
int lesson_predict_number(const LessonPredict *p, const struct TfTrace *tr, const struct Vocab *src,
                          const struct Vocab *tgt, int stage, int layer, int head, int b, double *out);
/* The row and column (from 0) of the cell of a @predict number in a
 * rows x cols matrix of the stage (col -1 when it names a row only);
 * -1 when there is none. */
int lesson_predict_cell(const LessonPredict *p, const struct TfTrace *tr, const struct Vocab *src,
                        const struct Vocab *tgt, int stage, int b, int rows, int cols, int *row, int *col);
/* The number a choice's text starts with ("0.25", "−1", "≈ 3", "6 cells"),
 * and how many decimals it was written with. Returns 0, or -1 when the
 * text does not start with a number. */
int lesson_choice_number(const char *text, double *out, int *decimals);
/* Does value round to the number written (to its decimals)? */
int lesson_number_matches(double value, double written, int decimals);
/* A choice of @predict breaks: the label shown (after "FLAGS | "). */
const char *lesson_choice_label(const char *text);

/* Quizzes in a shuffled order per learner: order[k] is the choice shown at
 * position k of the step's quiz (or @predict choices). The right answers
 * of a lesson's quizzes go round the positions in turn, from a place set
 * by seed, so they are balanced; the wrong ones are shuffled by seed. */
void lesson_quiz_order(const Lesson *l, int step, unsigned seed, int *order);

/* Text as drawn: brace markup h_{t−1}, x^{2} becomes Unicode sub- and
 * superscripts where they all exist (hₜ₋₁, x²), else the braces become
 * parentheses (h_(...)). Writes at most cap bytes (NUL included); returns
 * the length written. */
size_t lesson_text_plain(const char *s, size_t n, char *out, size_t cap);

#endif
