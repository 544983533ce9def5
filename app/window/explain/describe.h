/* describe.h - the view shown, in words (describe.c): for a screen reader,
 * for `stepformer describe` and for Ctrl+D in the window. */
#ifndef APP_DESCRIBE_H
#define APP_DESCRIBE_H

#include <stddef.h>

#include "app.h"

/* What the view shows, as sentences in the window's language: the stage,
 * layer and head (as the window counts them, from 1), the model, the
 * sentence and what the decoder reads, the experiment, the matrix's shape
 * and what its rows and columns are, each row's three largest values with
 * their tokens (rounded to 3 decimals), and the masked cells. Written into
 * buf (cut with "…" when it does not fit). Returns its length, or -1. */
int app_describe(const App *a, char *buf, size_t cap);

/* Read text aloud through speech-dispatcher's spd-say, where it is
 * installed (a new text stops the one being read). Returns 0 when spd-say
 * started, -1 when it is not there or could not start. */
int app_speak(const char *text);

#endif
