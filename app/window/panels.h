/* panels.h - the window's own parts around the main view: the navigator
 * (nav.c) and the step strip, the blocks of the architecture they show
 * (blocks.c), the explanation panel (explain.c). A panel is the window:
 * it takes the widget context it draws with and the App it reads and
 * changes, (UiCtx *, App *), and the rectangle it fills. */
#ifndef APP_PANELS_H
#define APP_PANELS_H

#include "app.h"

int blocks_build(const App *a, NavBlock *out, int max);
/* The blocks of the App's walk, grouped once per walk (kept in the App). */
const NavBlock *blocks_of(App *a, int *n);
int blocks_current(const NavBlock *b, int n, int at);
const char *step_label(StageId st); /* "Q", "softmax", "Add", ... (English: draw _() of it) */

void nav_draw(UiCtx *ui, App *a, Rect area);     /* the architecture diagram */
void steps_draw(UiCtx *ui, App *a, Rect area);   /* the stages of the current block */
/* The explanation panel: its text scrolled by the wheel (a bar and a ▼
 * when there is more), and, while the mouse is over a cell, how that
 * number was computed in a box at its bottom. */
void explain_draw(UiCtx *ui, App *a, Rect area);
/* That box alone, at the bottom of area, as tall as its sums need but
 * leaving `keep` pixels at the top of area (the lesson panel shows it under
 * its text too, or over the whole panel when the text would keep too
 * little): the height it took, 0 when the mouse is over no cell whose
 * computation can be told. explain_how_height: the height it needs at
 * width w (0: none). */
int explain_how_box(UiCtx *ui, App *a, Rect area, int keep);
int explain_how_height(UiCtx *ui, App *a, int w);
/* A scroll bar on the right edge of area for content pixels scrolled by
 * off, with a ▼ while there is more below (the panels' cue). */
void panel_scroll_bar(UiCtx *ui, Rect area, int content, int off);

#endif
