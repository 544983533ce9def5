/* walk.h - the stage walk: every stage of a model in the order the model
 * computes them, one entry per (stage, layer). Left/Right in the window,
 * `shot --walk` and the navigator all follow it. Pre-LN models put each
 * LayerNorm before its sub-layer and end each stack with a final norm. */
#ifndef TF_WALK_H
#define TF_WALK_H

#include "config.h"
#include "stage.h"

/* One place in the stage walk. */
typedef struct StagePos {
    StageId stage;
    int layer;
} StagePos;

/* Fill out[0..max) with the walk of cfg; returns the number of entries the
 * full walk has (which may exceed max: then only max were written). */
int tf_walk_build(const TfConfig *cfg, StagePos *out, int max);

#endif
