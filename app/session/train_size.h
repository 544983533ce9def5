/* train_size.h - the window's training runs must fit in this computer's
 * memory: what a run needs, and the check made before building one. */
#ifndef APP_TRAIN_SIZE_H
#define APP_TRAIN_SIZE_H

#include "config.h"
#include "err.h"

/* Bytes a training run of this config needs (parameters, gradients, Adam,
 * traces, snapshots), to refuse sizes that cannot fit before allocating. */
double tw_bytes_needed(const TfConfig *cfg, int batch, int cap_T);

/* The architecture must make sense (d_model a multiple of the heads, a
 * valid config) and need at most 80% of the available memory. Returns 0,
 * or -1 with err set saying what it would need. */
int tw_check_size(const TfConfig *c, int batch, int cap_T, TfErr *err);

#endif
