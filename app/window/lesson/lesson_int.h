/* lesson_int.h - what the window's lesson files share (app/window/lesson/):
 * the state of the lessons in the window (App.les), and the learner's
 * progress kept in the user's data folder (lesson_progress.c). Not for
 * other folders: they use lesson_ui.h. */
#ifndef APP_LESSON_INT_H
#define APP_LESSON_INT_H

#include "app.h"
#include "lesson.h"

#define MAX_LESSONS 64

typedef struct Progress {
    char id[64];
    int reached;     /* highest step seen, 1-based; 0 none */
    unsigned long long right; /* bit k: quiz or prediction of step k answered right */
} Progress;

typedef struct LessonUi {
    LessonSet set;
    int lang_loaded;          /* language of set, -1 none */
    int cur;                  /* index in set, -1 no lesson open */
    int step;
    int answered[LESSON_MAX_STEPS];
    int list_open;
    int list_sel;
    int scroll;               /* lesson panel scroll offset, pixels */
    int scroll_to_end;        /* show the quiz explanation after answering */
    int predicted[LESSON_MAX_STEPS]; /* @predict: the key column or token the
                                        learner picked, -1 none yet */
    int pred_answer[LESSON_MAX_STEPS]; /* the right one, when picked */
    unsigned wrong[LESSON_MAX_STEPS]; /* quiz: the wrong choices tried (bits) */
    int shown[LESSON_MAX_STEPS]; /* quiz: the answer was shown, not found */
    int summary;              /* the lesson-end screen is shown (after the last step) */
    int show_code;            /* the step's stage in code, below its text */
    int exp_set;              /* the lesson set an experiment (left on close) */
    int forced;               /* a step's @force is in the decode lab */
    int n_cand;               /* @predict next: the tokens offered */
    int cand[LESSON_PREDICT_CAND];
    Rect cand_rect[LESSON_PREDICT_CAND];
    Progress prog[MAX_LESSONS];
    int n_prog;
    int prog_loaded;
    int save_warned;          /* the learner was told progress cannot be kept */
    char load_errors[512];
    char dir[4096];             /* the folder the lessons were read from */
    double shown_at;            /* when the step shown was opened (a test's time per question) */
    Rect choice_rc[LESSON_MAX_CHOICES]; /* where the last frame drew the choices */
    int n_choice_rc;
    Rect choice_vis;            /* ... and the part of the panel they show in */
} LessonUi;

/* ---- the learner's progress (lesson_progress.c), in
 * $XDG_DATA_HOME/stepformer/progress.txt ---- */

/* Lesson id's entry, made when there is none (NULL when the table is full). */
Progress *lesson_progress_of(LessonUi *u, const char *id);
/* Read the file once (a missing one is no progress yet). */
void lesson_progress_load(LessonUi *u);
/* Write it atomically; a failure is told once, in a notice. */
void lesson_progress_save(App *a, LessonUi *u);

#endif
