/* worksheet.h - printed worksheets (worksheet.c): a lesson's questions for
 * each student on a sentence of their own, with the engine's pictures, and
 * an answer key the engine computed. */
#ifndef APP_WORKSHEET_H
#define APP_WORKSHEET_H

#include <stdint.h>

#include "err.h"

#define WORKSHEET_MAX_STUDENTS 200

typedef struct WorksheetOpts {
    const char *lesson;      /* a lesson id */
    int students;            /* 1..WORKSHEET_MAX_STUDENTS */
    uint64_t seed;           /* which sentences */
    int lang;                /* 0 en, 1 zh */
    const char *model_path;  /* NULL: the lesson's @model (bundled) */
    const char *lessons_dir; /* NULL: the bundled lessons */
    const char *out;         /* a .pdf */
} WorksheetOpts;

/* Write the worksheet: for each student a header (name line, their
 * sentence, and its translation unless a question asks for it), then every
 * step of the lesson that asks something: its quiz, or its prediction
 * (row, next, number, output, breaks) asked again about the student's
 * sentence, with a picture drawn by the engine for that sentence only where
 * it gives no answer away (worksheet_ask.c says which); then the answer
 * key, student by student, as the engine computes it for each sentence.
 * The sentences are held-out pairs of the data the model trained on (its
 * metadata), else of the en2zh task, drawn without repeats by seed and
 * student number. Pages carry no window chrome and no key hints. *pages
 * gets the count. 0, or -1 with err. */
int worksheet_pdf(const WorksheetOpts *o, int *pages, TfErr *err);

#endif
