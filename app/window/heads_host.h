/* heads_host.h - the window hosts the heads lab (app/session/labs/heads_lab.h; in host.c):
 * what the Heads, Lens and Q/K map views and the rollout mode want is
 * measured into their Scene before they draw, importance a budget per
 * frame, and their wishes (measure importance) are applied after. */
#ifndef APP_HEADS_HOST_H
#define APP_HEADS_HOST_H

#include "app.h"

/* Room in the caller's frame for what the Scene points at. */
typedef struct HeadsShow {
    SceneLens lens;
    SceneQk qk;
} HeadsShow;

/* Fill sc's imp, lens, qk and rollout fields for view id (its wants). */
void hhost_scene(App *a, ViewId id, Scene *sc, HeadsShow *show);
/* A view's wish to measure importance. */
void hhost_apply(App *a, const ViewOut *o);
void app_hlab_free(App *a);
/* Measure importance on n pairs of the model's data at once (shot, tests):
 * 0, or -1 with the reason in a->notice. */
int hhost_measure(App *a, int n);

#endif
