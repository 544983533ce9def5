/* heads_host.h - the window hosts the heads lab (app/session/labs/heads_lab.h; in host.c):
 * what the Heads, Lens and Q/K map views and the rollout mode want is
 * measured into their Scene before they draw, importance a budget per
 * frame, and their wishes (measure importance) are applied after. */
#ifndef APP_HEADS_HOST_H
#define APP_HEADS_HOST_H

#include "app.h"

/* Room in the caller's frame for what the Scene points at. */
#define HHOST_PAIRS 500 /* pairs measured on (importance, the Q/K map) at most */

typedef struct HeadsShow {
    SceneLens lens;
    SceneQk qk;
    SceneQkSent sent[HHOST_PAIRS + 1]; /* the map's sentences: the one shown, then the pairs */
} HeadsShow;

/* Fill sc's imp, lens, qk and rollout fields for view id (its wants). */
void hhost_scene(App *a, ViewId id, Scene *sc, HeadsShow *show);
/* A view's wish to measure importance, or to map queries and keys over a
 * data set (or the sentence alone again). */
void hhost_apply(App *a, const ViewOut *o);
void app_hlab_free(App *a);
/* Measure importance on n pairs of the model's data at once (shot, tests):
 * 0, or -1 with the reason in a->notice. */
int hhost_measure(App *a, int n);
/* Gather the Q/K map's data set (n pairs of the model's data, or of file)
 * for the shown attention at once (shot, bench, tests): 0, or -1 with the
 * reason in a->notice. */
int hhost_qk_data(App *a, const char *file, int n);

#endif
