/* view_heads_exp.h - what each head does, on the all-heads grid: an
 * overlay (M) of its metrics (measured by the window: Scene.heads) with a
 * plain-language label where one number is clear, and the heads of each
 * layer sorted by a metric. view_heads.c draws the grid and calls these. */
#ifndef APP_VIEW_HEADS_EXP_H
#define APP_VIEW_HEADS_EXP_H

#include "view.h"

#define HX_MAX_HEADS 64

enum { HX_SORT_NONE, HX_SORT_ENTROPY, HX_SORT_MAX, HX_SORT_FIRST, HX_SORT_OFFSET, HX_SORT_COUNT };

typedef struct HeadsExp {
    int overlay; /* M: the metrics over every thumbnail */
    int sort;    /* HX_SORT_*: the heads of a layer in the order of a metric */
} HeadsExp;

/* The metrics of every head of layer l (NH of them) and their order on
 * screen (order[slot] = head): by the sort metric, or as they are. */
void heads_exp_layer(const Scene *sc, const HeadsExp *x, TfAttnKind kind, int l, int NH,
                     SceneHead *m, int *order);
/* The controls (M metrics, sort by ...) at the top of body, which shrinks. */
void heads_exp_controls(ViewCtx *v, HeadsExp *x, Rect *body);
/* The overlay on thumbnail t of head h; pointed: the mouse or the
 * keyboard's cell is on it (its numbers go into the hover). */
void heads_exp_overlay(ViewCtx *v, const HeadsExp *x, Rect t, const SceneHead *m, TfAttnKind kind,
                       int h, int pointed);
/* VA_METRICS toggles the overlay, VA_SORT cycles the sort (M and O);
 * 1 when the action is one of them. */
int heads_exp_act(HeadsExp *x, ViewAct act);

#endif
