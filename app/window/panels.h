/* panels.h - the window's own parts around the main view: the navigator
 * (nav.c) and the step strip, the blocks of the architecture they show
 * (blocks.c), the explanation panel (explain.c). They read
 * and change the App directly (they are the window): their ViewCtx is the
 * first member of a WinCtx, which also holds the App. */
#ifndef APP_PANELS_H
#define APP_PANELS_H

#include "app.h"

/* The window's drawing context: a ViewCtx (first, so the widgets take it)
 * and the App, which only the window's own parts may reach (win_app). */
typedef struct WinCtx {
    ViewCtx v;
    App *a;
} WinCtx;
static inline App *win_app(const ViewCtx *v)
{
    return ((const WinCtx *)(const void *)v)->a;
}

int blocks_build(const App *a, NavBlock *out, int max);
/* The blocks of the App's walk, grouped once per walk (kept in the App). */
const NavBlock *blocks_of(App *a, int *n);
int blocks_current(const NavBlock *b, int n, int at);
const char *step_label(StageId st); /* "Q", "softmax", "Add", ... (English: draw _() of it) */

void nav_draw(ViewCtx *v);              /* the architecture diagram */
void steps_draw(ViewCtx *v);            /* the stages of the current block */
void explain_draw(ViewCtx *v);          /* the explanation panel */

#endif
