/* lens.h - the logit lens: what the decoder would output if it stopped
 * after layer L.
 *
 *   dec.lens[L] = softmax(W_gen . n(y_L) + b_gen)
 *
 * where y_L is decoder layer L's output (the next layer's input) and n is
 * the decoder's final LayerNorm in a pre-LN model and the identity in a
 * post-LN one. The last layer's lens is out.probs, bit for bit: the same
 * rows go through the same products in the same pieces. */
#ifndef TF_LENS_H
#define TF_LENS_H

#include "model.h"
#include "stage.h"

/* The lens of decoder layer `layer` for sentence b of a recorded trace
 * (TRACE_RECORD, decoder computed): out gets T x V floats (T = tr->T, V =
 * the target vocabulary), row t the distribution at decoder position t.
 * Returns 0, or -1 with err set (layer or sentence out of range, nothing
 * decoded yet, no recording). */
int tf_lens(const TfModel *m, const TfTrace *tr, int layer, int b, float *out, TfErr *err);

/* A stage view of that matrix (rows: target tokens, columns: the
 * vocabulary), named "dec.lens", for dump and export. */
void tf_lens_view(const TfTrace *tr, int layer, int b, const float *data, TfView *v);

#endif
