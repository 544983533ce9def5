/* panels.h - the window's own parts around the main view: the navigator
 * (nav.c) and the step strip, the blocks of the architecture they show
 * (blocks.c), the explanation panel (explain.c, explain_zh.c). They read
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
const char *step_label(StageId st); /* "Q", "softmax", "Add", ... */

void nav_draw(ViewCtx *v);              /* the architecture diagram */
void steps_draw(ViewCtx *v);            /* the stages of the current block */
void explain_draw(ViewCtx *v);          /* the explanation panel */
/* Simplified Chinese texts of the explanation panel (explain_zh.c): the
 * title and the two or three sentences for a stage (pre: pre-LN model);
 * returns 0 when there is none (the English text is shown). */
/* An overlay box of w x h centred in the W x H window over a dimmed
 * screen (frame.c); it is left clipped to the box (the caller pops). */
Rect win_overlay(ViewCtx *v, int W, int H, int w, int h);
int explain_zh(StageId st, int pre, const char **title, const char **text);

#endif
