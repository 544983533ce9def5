/* lesson_check.h - everything `stepformer lessons --check` verifies: each
 * lesson's directives against its model, the languages against each other,
 * and that every character has a glyph in the fonts the window uses. */
#ifndef APP_LESSON_CHECK_H
#define APP_LESSON_CHECK_H

#include "config.h"
#include "lesson.h"
#include "ren.h"

typedef void (*CheckFn)(const char *msg, void *user);

/* Directives of one lesson against a model config; returns problems found. */
int lesson_check_view(const Lesson *l, const TfConfig *cfg, CheckFn report, void *user);
/* The steps with a @predict or hidden source positions run through the
 * model in model_file as the window runs them: the query is a token of the
 * sentence, the positions inside it. */
int lesson_check_run(const Lesson *l, const char *model_file, CheckFn report, void *user);
/* Same lessons, steps, directives and quizzes in both languages. */
int lesson_check_pair(const Lesson *en, const Lesson *other, CheckFn report, void *user);
/* Every character of the lesson has a glyph in font (NULL skips). */
int lesson_check_glyphs(const Lesson *l, RenFont *font, CheckFn report, void *user);

/* All of the above for one lesson (shot --lesson warns with it). */
int lesson_check_one(const Lesson *l, const char *model_file, const TfConfig *cfg, RenFont *font, CheckFn report,
                     void *user);

/* Check the whole lessons/ tree: lang dirs under root, models found with
 * model_path(name) -> path. Returns the number of problems. */
int lessons_check_all(const char *root, CheckFn report, void *user, int *n_lessons);

#endif
