/* finite.h - huge but finite weights can overflow float and turn the
 * pass into NaN or infinity; then every probability is garbage. This finds
 * where the first non-finite number of a pass appears, so the program can
 * say so instead of printing an empty translation. */
#ifndef TF_FINITE_H
#define TF_FINITE_H

#include "err.h"
#include "trace.h"

/* 0 when every number of the trace's current pass is finite (masks
 * aside). Otherwise -1, with err naming the first stage (in the order the model computes them;
 * masks, whose -inf is meant, are skipped), its layer and head, and the
 * sentence, e.g. "non-finite values (NaN or infinity) first appear at
 * enc.self.scores, layer 1, head 2 (sentence 1): the model's weights are
 * too large for float arithmetic". Layers and heads count from 1 in the
 * message. Without TRACE_RECORD only the logits are looked at (the layers
 * share their buffers then). */
int tf_check_finite(const TfTrace *tr, TfErr *err);

#endif
