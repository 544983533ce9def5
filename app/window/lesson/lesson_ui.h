/* lesson_ui.h - lessons in the window: the lesson list, the lesson panel
 * that replaces the explanation panel while a lesson is open, stepping
 * (PgDn/PgUp), quizzes (click or number key), the language switch, and the
 * learner's progress kept between runs in the user's data directory. */
#ifndef APP_LESSON_UI_H
#define APP_LESSON_UI_H

#include "app.h"
#include "lesson.h"
#include "panels.h"

/* Open lesson `id` at step (0-based) in the App's language. Returns 0, or
 * -1 with a notice shown. */
int lesson_ui_open(App *a, const char *id, int step);
void lesson_ui_close(App *a);
int lesson_ui_active(const App *a);
void lesson_ui_step(App *a, int delta);
/* Switch the language (0 en, 1 zh): lesson text and explanations. */
void lesson_ui_set_lang(App *a, int lang);
void lesson_ui_toggle_list(App *a);
int lesson_ui_list_open(const App *a);
/* The list's selection moves by delta; Enter opens the lesson selected. */
void lesson_ui_list_move(App *a, int delta);
void lesson_ui_list_enter(App *a);
/* A quiz answer (or a prediction's choice) by its number key: the choice
 * shown at position `choice` (from 0); 1 when the step took it. */
int lesson_ui_quiz_key(App *a, int choice);
void lesson_ui_free(App *a);

/* Drawing: the panel (right side) and the list (an overlay). */
void lesson_panel_draw(UiCtx *ui, struct App *a, Rect area);
void lesson_list_draw(UiCtx *ui, struct App *a, int W, int H);

/* For drawing: the lessons of the current language, the list selection,
 * a lesson's progress (highest step reached, 1-based; quizzes right as
 * bits), the words of the interface. */
const LessonSet *lesson_ui_set(App *a);
int lesson_ui_list_sel(const App *a);
void lesson_ui_list_select(App *a, int i);
void lesson_ui_progress(App *a, const char *id, int *reached, unsigned long long *right);
const char *lesson_ui_word(const App *a, int w);
/* The lesson folder of the current language last looked in, or NULL. */
const char *lesson_ui_dir(App *a);
/* The panel's scroll offset; *to_end is set once after a quiz answer. */
int *lesson_ui_scroll(App *a, int *to_end);
enum { LW_LESSONS, LW_STEP, LW_NEXT, LW_PREV, LW_TRY, LW_QUIZ, LW_RIGHT, LW_WRONG, LW_CLOSE,
       LW_NONE, LW_KEYS, LW_DONE };

/* @predict on the step shown: what is hidden, what the learner picked and
 * the right answer (a key column for a row, a token id for next). Returns
 * 1 when the step has a prediction that can be made on what is shown. */
typedef struct LessonPredictState {
    int kind;     /* LESSON_PREDICT_* (0 none) */
    int stage;    /* row: the stage of the heatmap */
    int row;      /* the hidden query row / the decoder input row */
    int answer;   /* the argmax */
    int picked;   /* the learner's pick, -1 not yet */
} LessonPredictState;
int lesson_ui_predict_state(App *a, LessonPredictState *ps);
/* Pick (a key column, a token id, or a choice of a @predict with choices):
 * reveals and scores once; returns 1 right, 0 wrong, -1 when there is
 * nothing to pick. */
int lesson_ui_predict(App *a, int choice);
/* The tokens offered for @predict next in the last frame and their
 * buttons; returns their number. */
int lesson_ui_predict_candidates(App *a, int *ids, Rect *rects);
/* Hide what the step asks to predict, over the main view (frame.c calls
 * it after drawing the view). */
void lesson_ui_overlay(UiCtx *ui, struct App *a, Rect area);

/* Quizzes: the order the current step's choices are shown in (order[k]
 * is the choice at position k: shuffled per learner, answers balanced);
 * the wrong choices tried so far (bits) and whether the answer was shown
 * rather than found; show it (the learner gives up). */
void lesson_ui_quiz_order(const App *a, int *order);
unsigned lesson_ui_quiz_wrong(const App *a, int *shown);
void lesson_ui_show_answer(App *a);
/* The lesson-end screen is up: 1, with the checks of the lesson right at
 * the first try and their number. */
int lesson_ui_summary(const App *a, int *right, int *total);
/* The current lesson is a test (@test): 1, with how many of its questions
 * were answered in this sitting and how many it has (never which were
 * right: a test reveals nothing). */
int lesson_ui_test_count(const App *a, int *done, int *total);
/* The "see the code" switch of the panel (NULL without a lesson). */
int *lesson_ui_code(App *a);
/* A prediction is open whose answer the Target line or the status line
 * would print (the greedy translation): they hide it while this is 1. */
int lesson_ui_hides_output(const App *a);

/* Where the last frame drew the choices of the step's quiz or prediction
 * (in the order shown) and the part of the panel they could be seen in
 * (the body, or the strip they are pinned in): the panel notes them
 * (lesson_ui_choice_drawn with k -1 forgets them, lesson_ui_choice_seen
 * sets the visible part), a test reads them; returns how many. */
void lesson_ui_choice_drawn(App *a, int k, Rect rc);
void lesson_ui_choice_seen(App *a, Rect visible);
int lesson_ui_choice_rects(const App *a, Rect *rects, Rect *visible);

/* For tests: the lesson and step shown, the quiz answer given (-1 none). */
const Lesson *lesson_ui_current(const App *a, int *step, int *answered);
/* Answer the quiz with a choice (as written, from 0): 1 right, 0 wrong (the
 * learner may try another: the answer is not shown), -1 not taken. */
int lesson_ui_answer(App *a, int choice);

#endif
