/* worksheet_int.h - what worksheet.c (the pages) and worksheet_ask.c (the
 * questions and their answers, computed by the engine for one student's
 * sentence) share. */
#ifndef APP_WORKSHEET_INT_H
#define APP_WORKSHEET_INT_H

#include "app.h"
#include "lesson.h"
#include "worksheet.h"

#define WS_MAX_Q LESSON_MAX_STEPS
#define WS_TEXT 1024
#define WS_MAX_KEYS 128 /* keys a row question offers */

/* One choice of a @predict breaks question, worked out for the sentence. */
typedef struct WsBreak {
    TfExperiment exp;    /* the lesson's change, its hidden positions moved into the sentence */
    char label[256];     /* what the sheet calls it */
    char out[WS_TEXT];   /* the greedy translation under it */
    int changed;         /* out differs from the translation without it */
} WsBreak;

/* One question of one student's sheet, with its answer worked out. */
typedef struct WsQuestion {
    const LessonStep *step;
    int kind;                /* 0 quiz, else LESSON_PREDICT_* */
    int row, col;            /* row, next, number: the row (and the cell's column, -1 none) asked about */
    int answer;              /* quiz: the choice; row: the key column; next: the token id */
    int stage, layer, head;  /* row, number: where the numbers are */
    char row_tok[96], col_tok[96];  /* quoted, or "dimension N" */
    double value;            /* number: what the model computed */
    char key[WS_TEXT];       /* the answer key's line for it */
    /* the picture above the question: the step's view (pic_stage -1), another
     * stage (what goes into the one asked about), or none (why says why) */
    int picture, pic_stage, pic_layer, pic_head, pic_exp;
    const char *why;         /* a msgid: why the picture is missing or changed, or NULL */
    char exp_words[256];     /* output: the step's experiment in words */
    char prefix[WS_TEXT];    /* next: the decoder input up to the row ("<bos> 我 爱") */
    int n_keys;              /* row: the keys offered */
    unsigned char masked[WS_MAX_KEYS]; /* row: keys the mask hides from it (never the answer) */
    int n_brk;               /* breaks: the choices */
    WsBreak brk[LESSON_MAX_CHOICES];
} WsQuestion;

typedef struct WsSheet {
    App *a;
    Ren *r;
    const Lesson *les;
    const WorksheetOpts *o;
    WsQuestion q[WS_MAX_Q];
    int n_q;
    char src[WS_TEXT], translation[WS_TEXT];
    int show_translation;    /* on the student's pages (not when a question asks for it) */
} WsSheet;

/* The student's sentences: n_students texts of WS_TEXT bytes into texts,
 * drawn without repeats by seed from the held-out pairs of the data the
 * model was trained on (its metadata's task or file), else from the en2zh
 * task's; what names that data ("the reverse task", ...). 0, or -1 with
 * err. */
int ws_sentences(const TfModel *m, const WorksheetOpts *o, char *texts, char *what, size_t wcap, TfErr *err);

/* Put the sentence into the App and work out every question of the lesson
 * for it (sh->q, sh->n_q, sh->translation). */
void ws_ask(WsSheet *sh, const char *src);

/* What a @predict number asks for, in words: "the number in row “i”,
 * column “china”". */
void ws_number_what(const WsQuestion *q, char *buf, size_t cap);

/* Set the App up to draw question q's picture; 0 when it has none. */
int ws_show_picture(WsSheet *sh, const WsQuestion *q);

/* A token of the sentence in the App: the source (decoder 0) or the decoder
 * input, row from 0. */
const char *ws_token(const App *a, int decoder, int row, char *buf, size_t cap);

#endif
