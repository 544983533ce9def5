/* rollout.h - attention rollout (Abnar & Zuidema, ACL 2020): how much of
 * each source token reaches a position through the stack of attentions,
 * with the residual path counted as half of every layer.
 *
 *   A^_l = 1/2 . (1/h) sum_heads A_{l,h} + 1/2 . I
 *   R_0 = A^_0,  R_l = A^_l . R_{l-1}                 enc.rollout [S x S]
 *   dec.cross.rollout[L] = ((1/h) sum_heads X_{L,h}) . R_{N_enc-1}   [T x S]
 *
 * A_{l,h} are encoder self-attention weights and X_{L,h} the weights of
 * decoder layer L's cross-attention, as the pass computed them (an
 * experiment's pass included). Padded keys are masked as in A: their
 * columns are exactly 0 (real rows never reach them; the identity would put
 * 1/2 on a padded row's own key, and that is cleared too). Products in
 * double, stored as float. */
#ifndef TF_ROLLOUT_H
#define TF_ROLLOUT_H

#include "model.h"
#include "stage.h"

/* R_layer for sentence b of a recorded trace: out gets S x S floats
 * (S = tr->S, the padded source length). 0, or -1 with err set. */
int tf_rollout_enc(const TfTrace *tr, int layer, int b, float *out, TfErr *err);

/* The cross rollout of decoder layer `layer`: out gets T x S floats. */
int tf_rollout_cross(const TfTrace *tr, int layer, int b, float *out, TfErr *err);

/* Stage views of those matrices, named "enc.rollout" (rows and columns:
 * source tokens) and "dec.cross.rollout" (rows: target tokens). */
void tf_rollout_view(const TfTrace *tr, int cross, int layer, int b, const float *data, TfView *v);

#endif
