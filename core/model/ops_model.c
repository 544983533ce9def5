/* ops_model.c - the activation and head ablation (see ops_model.h). */
#include "ops_model.h"

#include <string.h>

#include "ops.h"

void act_forward(TfAct act, float *x, size_t n)
{
    if (act == TF_ACT_SILU)
        silu_forward(x, x, n);
    else if (act == TF_ACT_GELU)
        gelu_forward(x, x, n);
    else
        relu_forward(x, x, n);
}

void ablate_heads(float *heads, const TfExperiment *e, TfAttnKind kind, int layer, int R, int C,
                  int NH)
{
    int dk = C / NH;
    for (int i = 0; e && i < e->n_ablate; i++) {
        if (e->ablate[i].kind != (int)kind || e->ablate[i].layer != layer)
            continue;
        for (int r = 0; r < R; r++)
            memset(heads + (size_t)r * C + (size_t)e->ablate[i].head * dk, 0, (size_t)dk * sizeof(float));
    }
}

void patch_heads(float *heads, const TfExperiment *e, TfAttnKind kind, int layer, int R, int C, int NH)
{
    if (!e || !e->patch_heads || e->patch.kind != (int)kind || e->patch.layer != layer)
        return;
    int dk = C / NH, rows = R < e->patch_rows ? R : e->patch_rows;
    size_t col = (size_t)e->patch.head * dk;
    for (int r = 0; r < rows; r++)
        memcpy(heads + (size_t)r * C + col, e->patch_heads + (size_t)r * C + col, (size_t)dk * sizeof(float));
}
