/* finite.c - where the first NaN or infinity of a pass appears (finite.h). */
#include "finite.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "stage.h"
#include "walk.h"

static int view_finite(const TfView *v)
{
    for (int r = 0; r < v->rows; r++)
        for (int c = 0; c < v->cols; c++)
            if (!isfinite(v->data[(size_t)r * v->stride + c]))
                return 0;
    return 1;
}

/* First non-finite view of stage p for sentence b: 1 found (*head set),
 * 0 none. */
static int stage_bad(const TfTrace *tr, StagePos p, int b, int *head)
{
    const StageInfo *si = stage_info(p.stage);
    if (si->kind == SK_TOKENS || si->kind == SK_MASK)
        return 0;
    int heads = (si->flags & SF_HEAD) ? tr->cfg.n_heads : 1;
    for (int h = 0; h < heads; h++) {
        TfView v;
        int want = (si->flags & SF_HEAD) ? h : (si->flags & SF_HEAD_OPT) ? -1 : 0;
        if (tf_view(tr, p.stage, p.layer, want, b, &v, NULL) < 0 || !v.data)
            continue;
        if (!view_finite(&v)) {
            *head = (si->flags & SF_HEAD) ? h : -1;
            return 1;
        }
    }
    return 0;
}

static int logits_finite(const TfTrace *tr)
{
    size_t n = (size_t)tr->B * tr->T * tr->cfg.tgt_vocab;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(tr->logits[i]))
            return 0;
    return 1;
}

static const char WHY[] = "the model's weights are too large for float arithmetic";

int tf_check_finite(const TfTrace *tr, TfErr *err)
{
    if (tr->B < 1 || tr->T < 1)
        return 0;
    if (!(tr->flags & TRACE_RECORD))
        return logits_finite(tr) ? 0
                                 : tf_fail(err, "non-finite values (NaN or infinity) in "
                                                "out.logits: %s", WHY);
    /* a NaN can vanish on the way (a softmax row of NaN scores gives zero
     * weights), so every recorded stage is looked at, not the logits only */
    int cap = tf_walk_build(&tr->cfg, NULL, 0);
    StagePos *walk = malloc((size_t)cap * sizeof *walk);
    if (!walk)
        return logits_finite(tr) ? 0 : tf_fail(err, "non-finite values in out.logits: %s", WHY);
    tf_walk_build(&tr->cfg, walk, cap);
    for (int k = 0; k < cap; k++) {
        const StageInfo *si = stage_info(walk[k].stage);
        for (int b = 0; b < tr->B; b++) {
            int head;
            if (!stage_bad(tr, walk[k], b, &head))
                continue;
            char where[64] = "";
            int len = 0;
            if (si->flags & SF_LAYER)
                len += snprintf(where + len, sizeof where - (size_t)len, ", layer %d", walk[k].layer + 1);
            if (head >= 0)
                len += snprintf(where + len, sizeof where - (size_t)len, ", head %d", head + 1);
            if (tr->B > 1)
                snprintf(where + len, sizeof where - (size_t)len, " (sentence %d)", b + 1);
            free(walk);
            return tf_fail(err, "non-finite values (NaN or infinity) first appear at %s%s: %s",
                           si->name, where, WHY);
        }
    }
    free(walk);
    return 0;
}
