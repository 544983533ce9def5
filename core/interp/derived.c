/* derived.c - the stages computed on request (see derived.h). */
#include "derived.h"

#include <stdlib.h>
#include <string.h>

#include "lens.h"
#include "rollout.h"

static const char *const NAMES[DS_COUNT] = {"dec.lens", "enc.rollout", "dec.cross.rollout"};

int tf_derived_find(const char *name)
{
    for (int i = 0; i < DS_COUNT; i++)
        if (strcmp(NAMES[i], name) == 0)
            return i;
    return -1;
}

const char *tf_derived_name(DerivedId id)
{
    return (int)id >= 0 && id < DS_COUNT ? NAMES[id] : "?";
}

int tf_derived_layers(DerivedId id, const TfConfig *cfg)
{
    return id == DS_ENC_ROLLOUT ? cfg->n_enc : cfg->n_dec;
}

int tf_derived_view(const TfModel *m, const TfTrace *tr, DerivedId id, int layer, int b, float **buf,
                    TfView *v, TfErr *err)
{
    *buf = NULL;
    if ((int)id < 0 || id >= DS_COUNT)
        return tf_fail(err, "unknown derived stage %d", (int)id);
    size_t rows = id == DS_ENC_ROLLOUT ? (size_t)tr->S : (size_t)tr->T;
    size_t cols = id == DS_DEC_LENS ? (size_t)m->cfg.tgt_vocab : (size_t)tr->S;
    float *out = malloc((rows ? rows : 1) * (cols ? cols : 1) * sizeof *out);
    if (!out)
        return tf_fail(err, "out of memory for %s (%zu x %zu)", NAMES[id], rows, cols);
    int rc;
    if (id == DS_DEC_LENS) {
        rc = tf_lens(m, tr, layer, b, out, err);
        if (!rc)
            tf_lens_view(tr, layer, b, out, v);
    } else {
        int cross = id == DS_CROSS_ROLLOUT;
        rc = cross ? tf_rollout_cross(tr, layer, b, out, err) : tf_rollout_enc(tr, layer, b, out, err);
        if (!rc)
            tf_rollout_view(tr, cross, layer, b, out, v);
    }
    if (rc) {
        free(out);
        return -1;
    }
    *buf = out;
    return 0;
}
