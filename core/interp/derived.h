/* derived.h - stages computed from a recorded trace on request rather than
 * kept in it: dec.lens (lens.h), enc.rollout and dec.cross.rollout
 * (rollout.h). They are dumped, exported and shown like any stage, through
 * a TfView over a buffer the caller frees. */
#ifndef TF_DERIVED_H
#define TF_DERIVED_H

#include "model.h"
#include "stage.h"

typedef enum DerivedId { DS_DEC_LENS, DS_ENC_ROLLOUT, DS_CROSS_ROLLOUT, DS_COUNT } DerivedId;

/* Id of a derived stage's name, or -1. */
int tf_derived_find(const char *name);
const char *tf_derived_name(DerivedId id);
/* Layers it ranges over (n_dec or n_enc). */
int tf_derived_layers(DerivedId id, const TfConfig *cfg);

/* Compute stage id at layer for sentence b: *buf is malloc'd (free it) and
 * v views it. 0, or -1 with err set and *buf NULL. */
int tf_derived_view(const TfModel *m, const TfTrace *tr, DerivedId id, int layer, int b, float **buf,
                    TfView *v, TfErr *err);

#endif
