/* ops_model.h - the two element-wise steps a model's config or experiment
 * picks, shared by the traced pass (forward.c) and the one-position decoder
 * step (decstep.c), so the two cannot drift apart. */
#ifndef TF_OPS_MODEL_H
#define TF_OPS_MODEL_H

#include <stddef.h>

#include "config.h"
#include "experiment.h"

/* x = act(x) over n values, in place: ReLU (the paper's), SiLU or GELU
 * (MarianMT's), as the config names it. */
void act_forward(TfAct act, float *x, size_t n);

/* Zero the d_k columns of every head the experiment ablates in attention
 * (kind, layer) over R rows of C (NH heads): the head's output is 0 before
 * W_O, whose bias still applies. */
void ablate_heads(float *heads, const TfExperiment *e, TfAttnKind kind, int layer, int R, int C,
                  int NH);

/* Activation patching (experiment.h): the experiment's patched head of
 * attention (kind, layer) takes its d_k columns, row by row, from
 * e->patch_heads (the first min(R, patch_rows) rows); after ablate_heads,
 * before W_O. The traced pass only. */
void patch_heads(float *heads, const TfExperiment *e, TfAttnKind kind, int layer, int R, int C, int NH);

#endif
