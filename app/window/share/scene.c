/* scene.c - the window's state as a scene and back (scene.h): what a
 * teacher copies with Ctrl+Shift+C and a class opens by pasting the code. */
#include "scene.h"

#include <stdio.h>
#include <string.h>

#include "lesson_ui.h"
#include "view_decode.h"

static const char *const PANE[DEC_PANE_COUNT] = {"gen", "step", "beam", "sample"};

static void capture_exp(const TfExperiment *e, SceneLink *l)
{
    static const char *const PART[3] = {"enc", "dec", "cross"};
    l->no_scale = e->no_scale;
    l->no_pe = e->no_pe;
    l->no_causal = e->no_causal;
    for (int k = 0; k < e->n_ablate && k < TF_EXP_MAX_ABLATE; k++) {
        const TfHeadRef *h = &e->ablate[k];
        snprintf(l->ablate[l->n_ablate++], LINK_SPEC_MAX, "%s:%d:%d", PART[h->kind % 3], h->layer, h->head);
    }
    for (int k = 0; k < e->n_hide && k < TF_EXP_MAX_HIDE; k++)
        l->hide[l->n_hide++] = e->hide_src[k];
    l->no_residual = e->no_residual;
    for (int k = 0; k < e->n_no_ffn && k < TF_EXP_MAX_FFN; k++)
        snprintf(l->ffn[l->n_ffn++], LINK_SPEC_MAX, "%s:%d", e->no_ffn[k].kind == TF_ATTN_ENC ? "enc" : "dec",
                 e->no_ffn[k].layer);
    if (!tf_exp_is_none(e))
        l->has |= LINK_EXP;
}

int app_scene_capture(const App *a, SceneLink *l, TfErr *err)
{
    memset(l, 0, sizeof *l);
    const Session *s = &a->ses;
    if (s->model_path[0] && !s->untrained) {
        if (scene_model_name(s->model_path, l->model, sizeof l->model, err))
            return -1;
        l->has |= LINK_MODEL;
    }
    snprintf(l->src, sizeof l->src, "%s", s->src_line);
    l->has |= LINK_SRC;
    if (!s->tgt_auto && s->tgt[0]) {
        snprintf(l->tgt, sizeof l->tgt, "%s", s->tgt);
        l->has |= LINK_TGT;
    }
    StagePos p = session_pos(s);
    snprintf(l->stage, sizeof l->stage, "%s", stage_info(p.stage)->name);
    l->layer = p.layer;
    l->head = s->head;
    l->has |= LINK_STAGE | LINK_LAYER | LINK_HEAD;
    if (a->view != VIEW_AUTO) {
        snprintf(l->view, sizeof l->view, "%s", view_name(a->view));
        l->has |= LINK_VIEW;
    }
    l->lang = a->look.lang;
    l->has |= LINK_LANG;
    if (s->batch) {
        l->batch = s->batch;
        l->has |= LINK_BATCH;
    }
    int step;
    const Lesson *les = lesson_ui_current(a, &step, NULL);
    if (les) {
        snprintf(l->lesson, sizeof l->lesson, "%s", les->id);
        l->step = step + 1;
        l->has |= LINK_LESSON | LINK_STEP;
    }
    capture_exp(&s->exp, l);
    if ((l->has & LINK_EXP) && a->cmp != CMP_EXP) { /* D: the difference, or the model without it */
        l->cmp = a->cmp == CMP_DIFF ? LINK_CMP_DIFF : LINK_CMP_NORMAL;
        l->has |= LINK_CMP;
    }
    if (a->rollout) {
        l->rollout = 1;
        l->has |= LINK_ROLLOUT;
    }
    const DecodeUi *d = a->vstate[VIEW_DECODE];
    if (app_current_view(a) == VIEW_DECODE && d && d->ready) {
        memcpy(l->pane, PANE[d->pane], strlen(PANE[d->pane]) + 1);
        l->beam = d->beam_k;
        l->alpha = DEC_ALPHAS[d->alpha_i];
        l->temp = d->smp.temp;
        l->top_k = d->smp.top_k;
        l->top_p = d->smp.top_p;
        l->has |= LINK_PANE | LINK_BEAM | LINK_ALPHA | LINK_TEMP | LINK_TOPK | LINK_TOPP;
    }
    return 0;
}

int app_scene_open_decode(App *a, const SceneLink *l)
{
    if ((l->has & LINK_CMP) && session_has_exp(&a->ses)) /* D: the difference, or the model without it */
        a->cmp = l->cmp == LINK_CMP_DIFF ? CMP_DIFF : l->cmp == LINK_CMP_NORMAL ? CMP_NORMAL : CMP_EXP;
    if (l->has & LINK_ROLLOUT)
        a->rollout = l->rollout;
    if (!(l->has & (LINK_PANE | LINK_BEAM | LINK_ALPHA | LINK_TEMP | LINK_TOPK | LINK_TOPP)))
        return 0;
    a->view = VIEW_DECODE;
    const char *pane = l->has & LINK_PANE ? l->pane : (l->has & LINK_BEAM ? "beam" : "gen");
    int rc = app_decode_setup(a, pane, l->has & LINK_BEAM ? l->beam : 0, l->has & LINK_ALPHA ? l->alpha : -1.0f);
    DecodeUi *d = a->vstate[VIEW_DECODE];
    if (d) {
        if (l->has & LINK_TEMP)
            d->smp.temp = l->temp;
        if (l->has & LINK_TOPK)
            d->smp.top_k = l->top_k;
        if (l->has & LINK_TOPP)
            d->smp.top_p = l->top_p;
        d->wish.refresh = 1;
    }
    return rc;
}

int app_scene_open(App *a, const SceneLink *l, TfErr *err)
{
    if (l->has & LINK_MODEL) {
        char path[4096], now[128];
        if (scene_model_find(l->model, path, sizeof path, err))
            return -1;
        TfErr e2;
        if (!a->ses.model_path[0] || scene_model_name(a->ses.model_path, now, sizeof now, &e2) ||
            strcmp(now, l->model) != 0) {
            if (app_load_model(a, path))
                return tf_fail(err, "scene: the model %s could not be opened: %s", path, a->notice);
        }
    }
    if ((l->has & LINK_LANG) && l->lang != a->look.lang)
        lesson_ui_set_lang(a, l->lang);
    if (l->has & LINK_SRC)
        app_set_text(a, APP_LINE_SRC, l->src);
    if (l->has & (LINK_SRC | LINK_TGT))
        app_set_text(a, APP_LINE_TGT, l->has & LINK_TGT ? l->tgt : "");
    TfExperiment e;
    if (link_experiment(l, &a->ses.model.cfg, 0, &e, err))
        return -1;
    app_set_exp(a, &e);
    a->cmp = CMP_EXP; /* unless the scene says (app_scene_open_decode) */
    a->rollout = 0;
    app_compute_all(a);
    if (l->has & LINK_BATCH)
        session_set_batch(&a->ses, l->batch);
    if (l->has & LINK_STAGE)
        app_goto(a, (StageId)stage_find(l->stage), l->has & LINK_LAYER ? l->layer : 0);
    if (l->has & LINK_HEAD)
        app_set_head(a, l->head);
    a->view = VIEW_AUTO;
    if (l->has & LINK_VIEW) {
        int v = view_find(l->view);
        if (v < 0)
            return tf_fail(err, "scene: unknown view '%.40s'", l->view);
        a->view = (ViewId)v;
    }
    if (l->has & LINK_LESSON) {
        if (lesson_ui_open(a, l->lesson, l->has & LINK_STEP ? l->step - 1 : 0))
            return tf_fail(err, "scene: the lesson '%s' is not among this installation's lessons", l->lesson);
    } else if (lesson_ui_active(a)) {
        lesson_ui_close(a);
    }
    app_scene_open_decode(a, l);
    return 0;
}

int app_scene_open_code(App *a, const char *code)
{
    SceneLink l;
    TfErr err;
    if (scene_code_read(code, &l, &err) || app_scene_open(a, &l, &err)) {
        app_notice(a, 1, "%s", err.msg);
        return -1;
    }
    app_notice(a, 0, "%s", _("scene opened"));
    return 0;
}
