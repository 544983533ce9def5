/* experiment.c - interventions on the forward pass (see experiment.h). */
#include "experiment.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "num.h"

static const char *const KIND_NAME[3] = {"enc", "dec", "cross"};

int tf_exp_is_none(const TfExperiment *e)
{
    return !e || (!e->no_scale && !e->no_pe && !e->no_causal && e->n_ablate == 0 && e->n_hide == 0 &&
                  !e->no_residual && e->n_no_ffn == 0 && !e->patch_heads);
}

int tf_exp_equal(const TfExperiment *a, const TfExperiment *b)
{
    if (tf_exp_is_none(a) || tf_exp_is_none(b))
        return tf_exp_is_none(a) && tf_exp_is_none(b);
    if (a->no_scale != b->no_scale || a->no_pe != b->no_pe || a->no_causal != b->no_causal ||
        a->n_ablate != b->n_ablate || a->n_hide != b->n_hide || a->no_residual != b->no_residual ||
        a->n_no_ffn != b->n_no_ffn || a->patch_heads != b->patch_heads)
        return 0;
    if (a->patch_heads && (a->patch.kind != b->patch.kind || a->patch.layer != b->patch.layer ||
                           a->patch.head != b->patch.head || a->patch_rows != b->patch_rows))
        return 0;
    for (int i = 0; i < a->n_no_ffn; i++)
        if (!tf_exp_ffn_off(b, (TfAttnKind)a->no_ffn[i].kind, a->no_ffn[i].layer))
            return 0;
    for (int i = 0; i < a->n_ablate; i++)
        if (!tf_exp_ablated(b, (TfAttnKind)a->ablate[i].kind, a->ablate[i].layer, a->ablate[i].head))
            return 0;
    for (int i = 0; i < a->n_hide; i++)
        if (!tf_exp_hidden(b, a->hide_src[i]))
            return 0;
    return 1;
}

int tf_exp_ablated(const TfExperiment *e, TfAttnKind kind, int layer, int head)
{
    if (!e)
        return 0;
    for (int i = 0; i < e->n_ablate; i++)
        if (e->ablate[i].kind == (int)kind && e->ablate[i].layer == layer && e->ablate[i].head == head)
            return 1;
    return 0;
}

int tf_exp_hidden(const TfExperiment *e, int pos)
{
    if (!e)
        return 0;
    for (int i = 0; i < e->n_hide; i++)
        if (e->hide_src[i] == pos)
            return 1;
    return 0;
}

int tf_exp_ffn_off(const TfExperiment *e, TfAttnKind kind, int layer)
{
    if (!e)
        return 0;
    for (int i = 0; i < e->n_no_ffn; i++)
        if (e->no_ffn[i].kind == (int)kind && e->no_ffn[i].layer == layer)
            return 1;
    return 0;
}

int tf_exp_add_head(TfExperiment *e, const char *spec, const TfConfig *cfg, TfErr *err)
{
    const char *c1 = strchr(spec, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    int kind = -1, layer, head;
    for (int k = 0; c1 && k < 3; k++)
        if ((size_t)(c1 - spec) == strlen(KIND_NAME[k]) && strncmp(spec, KIND_NAME[k], (size_t)(c1 - spec)) == 0)
            kind = k;
    if (kind < 0 || !c2 || strchr(c2 + 1, ':'))
        return tf_fail(err, "--ablate %s: expected enc:LAYER:HEAD, dec:LAYER:HEAD or cross:LAYER:HEAD (three fields)",
                       spec);
    int layers = kind == TF_ATTN_ENC ? cfg->n_enc : cfg->n_dec;
    if (tf_parse_int(c1 + 1, (size_t)(c2 - c1 - 1), 0, layers - 1, &layer))
        return tf_fail(err, "--ablate %s: the layer must be 0..%d (from 0)", spec, layers - 1);
    if (tf_parse_int(c2 + 1, strlen(c2 + 1), 0, cfg->n_heads - 1, &head))
        return tf_fail(err, "--ablate %s: the head must be 0..%d (from 0)", spec, cfg->n_heads - 1);
    if (tf_exp_ablated(e, (TfAttnKind)kind, layer, head))
        return 0;
    if (e->n_ablate >= TF_EXP_MAX_ABLATE)
        return tf_fail(err, "--ablate %s: at most %d heads can be ablated", spec, TF_EXP_MAX_ABLATE);
    e->ablate[e->n_ablate++] = (TfHeadRef){kind, layer, head};
    return 0;
}

int tf_exp_add_hide(TfExperiment *e, const char *spec, const TfConfig *cfg, TfErr *err)
{
    int pos;
    if (tf_parse_int(spec, strlen(spec), 0, cfg->max_len - 1, &pos))
        return tf_fail(err, "--hide-src %s: a source position 0..%d (from 0)", spec, cfg->max_len - 1);
    if (tf_exp_hidden(e, pos))
        return 0;
    if (e->n_hide >= TF_EXP_MAX_HIDE)
        return tf_fail(err, "--hide-src %s: at most %d positions can be hidden", spec, TF_EXP_MAX_HIDE);
    e->hide_src[e->n_hide++] = pos;
    return 0;
}

int tf_exp_toggle_head(TfExperiment *e, TfAttnKind kind, int layer, int head)
{
    for (int i = 0; i < e->n_ablate; i++)
        if (e->ablate[i].kind == (int)kind && e->ablate[i].layer == layer && e->ablate[i].head == head) {
            e->ablate[i] = e->ablate[--e->n_ablate];
            return 0;
        }
    if (e->n_ablate >= TF_EXP_MAX_ABLATE)
        return -1;
    e->ablate[e->n_ablate++] = (TfHeadRef){(int)kind, layer, head};
    return 1;
}

int tf_exp_toggle_hide(TfExperiment *e, int pos)
{
    for (int i = 0; i < e->n_hide; i++)
        if (e->hide_src[i] == pos) {
            e->hide_src[i] = e->hide_src[--e->n_hide];
            return 0;
        }
    if (e->n_hide >= TF_EXP_MAX_HIDE)
        return -1;
    e->hide_src[e->n_hide++] = pos;
    return 1;
}

int tf_exp_add_ffn(TfExperiment *e, const char *spec, const TfConfig *cfg, TfErr *err)
{
    const char *c1 = strchr(spec, ':');
    int kind = -1, layer;
    for (int k = 0; c1 && k < 2; k++)
        if ((size_t)(c1 - spec) == strlen(KIND_NAME[k]) && strncmp(spec, KIND_NAME[k], (size_t)(c1 - spec)) == 0)
            kind = k;
    if (kind < 0)
        return tf_fail(err, "--no-ffn %s: expected enc:LAYER or dec:LAYER", spec);
    int layers = kind == TF_ATTN_ENC ? cfg->n_enc : cfg->n_dec;
    if (tf_parse_int(c1 + 1, strlen(c1 + 1), 0, layers - 1, &layer))
        return tf_fail(err, "--no-ffn %s: the layer must be 0..%d (from 0)", spec, layers - 1);
    if (tf_exp_ffn_off(e, (TfAttnKind)kind, layer))
        return 0;
    if (e->n_no_ffn >= TF_EXP_MAX_FFN)
        return tf_fail(err, "--no-ffn %s: at most %d feed-forward networks can be switched off", spec,
                       TF_EXP_MAX_FFN);
    e->no_ffn[e->n_no_ffn++] = (TfLayerRef){kind, layer};
    return 0;
}

int tf_exp_toggle_ffn(TfExperiment *e, TfAttnKind kind, int layer)
{
    for (int i = 0; i < e->n_no_ffn; i++)
        if (e->no_ffn[i].kind == (int)kind && e->no_ffn[i].layer == layer) {
            e->no_ffn[i] = e->no_ffn[--e->n_no_ffn];
            return 0;
        }
    if (e->n_no_ffn >= TF_EXP_MAX_FFN)
        return -1;
    e->no_ffn[e->n_no_ffn++] = (TfLayerRef){(int)kind, layer};
    return 1;
}

int tf_exp_check_source(const TfExperiment *e, int S, TfErr *err)
{
    for (int i = 0; e && i < e->n_hide; i++)
        if (e->hide_src[i] >= S)
            return tf_fail(err, "--hide-src %d: the source has %d tokens (positions 0..%d)",
                           e->hide_src[i], S, S - 1);
    return 0;
}

int tf_exp_build(const TfExpSpec *s, const TfConfig *cfg, int S, TfExperiment *e, TfErr *err)
{
    memset(e, 0, sizeof *e);
    e->no_scale = s->no_scale;
    e->no_pe = s->no_pe;
    e->no_causal = s->no_causal;
    e->no_residual = s->no_residual;
    for (int k = 0; k < s->n_ffn; k++)
        if (tf_exp_add_ffn(e, s->ffn[k], cfg, err))
            return -1;
    for (int k = 0; k < s->n_ablate; k++)
        if (tf_exp_add_head(e, s->ablate[k], cfg, err))
            return -1;
    for (int k = 0; k < s->n_hide; k++)
        if (tf_exp_add_hide(e, s->hide[k], cfg, err))
            return -1;
    return S > 0 ? tf_exp_check_source(e, S, err) : 0;
}

void tf_exp_describe(const TfExperiment *e, char *buf, size_t cap)
{
    if (cap == 0)
        return;
    buf[0] = 0;
    if (tf_exp_is_none(e)) {
        snprintf(buf, cap, "none");
        return;
    }
    size_t n = 0;
#define ADD(...)                                                              \
    do {                                                                      \
        int k_ = snprintf(buf + n, cap - n, "%s", n ? ", " : "");             \
        if (k_ > 0 && (size_t)k_ < cap - n)                                    \
            n += (size_t)k_;                                                  \
        k_ = snprintf(buf + n, cap - n, __VA_ARGS__);                          \
        if (k_ > 0)                                                           \
            n = n + (size_t)k_ < cap ? n + (size_t)k_ : cap - 1;               \
    } while (0)
    if (e->no_scale)
        ADD("no-scale");
    if (e->no_pe)
        ADD("no-pe");
    if (e->no_causal)
        ADD("no-causal");
    for (int i = 0; i < e->n_ablate && n + 1 < cap; i++)
        ADD("ablate %s:%d:%d", KIND_NAME[e->ablate[i].kind], e->ablate[i].layer, e->ablate[i].head);
    for (int i = 0; i < e->n_hide && n + 1 < cap; i++)
        ADD("hide-src %d", e->hide_src[i]);
    if (e->no_residual)
        ADD("no-residual");
    for (int i = 0; i < e->n_no_ffn && n + 1 < cap; i++)
        ADD("no-ffn %s:%d", KIND_NAME[e->no_ffn[i].kind], e->no_ffn[i].layer);
    if (e->patch_heads && n + 1 < cap)
        ADD("patch %s:%d:%d", KIND_NAME[e->patch.kind], e->patch.layer, e->patch.head);
#undef ADD
}
