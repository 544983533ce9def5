/* app.c - the App (app.h): opening it on a Session, the view names and
 * choices, navigation that also resets window state (easing, hover, a view
 * the new stage does not offer), and the views' state (made and freed
 * through the VIEWS table). */
#include "app.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"
#include "paths.h"

const char *view_name(ViewId v)
{
    if (v == VIEW_AUTO)
        return "auto";
    return (int)v > 0 && v < VIEW_COUNT ? VIEWS[v]->name : "?";
}

int view_find(const char *name)
{
    for (int i = 0; i < VIEW_COUNT; i++)
        if (strcmp(view_name((ViewId)i), name) == 0)
            return i;
    return -1;
}

void app_notice(App *a, int error, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->notice, sizeof a->notice, fmt, ap);
    va_end(ap);
    a->notice_error = error;
    a->notice_until = a->now + (error ? 8.0 : 4.0);
}

/* Show the session's new message, if any, as a notice. */
static void pull_msg(App *a)
{
    if (a->ses.msg_seq != a->ses_msg_seen) {
        a->ses_msg_seen = a->ses.msg_seq;
        app_notice(a, a->ses.msg_error, "%s", a->ses.msg);
    }
}

StagePos app_pos(const App *a)
{
    return session_pos(&a->ses);
}

/* The views that make sense for the current stage, as tabs. */
int app_view_choices(const App *a, ViewId *out)
{
    StagePos p = app_pos(a);
    const StageInfo *si = stage_info(p.stage);
    int n = 0;
    ViewId natural = app_auto_view(a, p.stage);
    if (natural == VIEW_HEADS)
        natural = VIEW_MATRIX;
    out[n++] = natural;
    if (natural != VIEW_MATRIX && si->kind != SK_TOKENS)
        out[n++] = VIEW_MATRIX;
    if (si->kind == SK_WEIGHTS)
        out[n++] = VIEW_LINES;
    if (si->flags & SF_HEAD)
        out[n++] = VIEW_HEADS;
    if (si->kind == SK_SCORES || si->kind == SK_WEIGHTS)
        out[n++] = VIEW_SCALE;
    if (si->kind == SK_QKV || si->kind == SK_SCORES || si->kind == SK_WEIGHTS)
        out[n++] = VIEW_QKMAP; /* the head's queries and keys in one plane */
    if ((si->flags & SF_DECODER) && si->kind != SK_TOKENS)
        out[n++] = VIEW_LENS; /* each decoder layer's output */
    out[n++] = VIEW_DECODE;
    out[n++] = VIEW_TRAIN;
    out[n++] = VIEW_COST;
    return n;
}

static void moved(App *a)
{
    a->anim_start = a->now;
    a->hover.valid = 0;
    /* a view picked from the tabs stays only while the stage offers it */
    if (a->view != VIEW_AUTO) {
        ViewId ch[APP_MAX_VIEW_CHOICES];
        int n = app_view_choices(a, ch), ok = 0;
        for (int i = 0; i < n; i++)
            ok |= ch[i] == a->view;
        if (!ok)
            a->view = VIEW_AUTO;
    }
}

void app_goto(App *a, StageId st, int layer)
{
    if (session_goto(&a->ses, st, layer))
        moved(a);
}

void app_show_stage(App *a, StageId st, int layer)
{
    app_goto(a, st, layer);
    if (a->view != VIEW_AUTO)
        a->anim_start = a->now;
    a->view = VIEW_AUTO;
}

void app_step(App *a, int delta)
{
    if (session_step(&a->ses, delta))
        moved(a);
}

void app_change_layer(App *a, int delta)
{
    if (session_change_layer(&a->ses, delta)) {
        moved(a);
        return;
    }
    /* nothing moved: say why, rather than leave the key looking broken */
    StagePos p = app_pos(a);
    int n = stage_layers(p.stage, &a->ses.model.cfg);
    if (!(stage_info(p.stage)->flags & SF_LAYER) || n <= 1)
        app_notice(a, 0, "%s", _("this stage has one layer: [ ] change layers in the encoder and decoder stacks"));
    else if (delta > 0)
        app_notice(a, 0, _("layer %d is the last: the stack has %d layers"), n, n);
    else
        app_notice(a, 0, "%s", _("layer 1 is the first"));
}

void app_toggle_side(App *a)
{
    if (session_toggle_side(&a->ses))
        moved(a);
}

void app_set_head(App *a, int head)
{
    if (session_set_head(&a->ses, head))
        a->hover.valid = 0;
}

ViewId app_auto_view(const App *a, StageId st)
{
    const StageInfo *si = stage_info(st);
    if ((si->flags & SF_HEAD) && a->ses.head < 0)
        return VIEW_HEADS;
    switch (si->kind) {
    case SK_MASK: return VIEW_MASK;
    case SK_PE: return VIEW_PE;
    case SK_ADD: case SK_NORM: return VIEW_NORM;
    case SK_HIDDEN: return VIEW_FFN;
    case SK_PROBS: return VIEW_OUTPUT;
    default: return VIEW_MATRIX;
    }
}

void app_pick_tab(App *a, ViewId v)
{
    if (v == VIEW_HEADS) {
        session_set_head(&a->ses, -1);
        a->view = VIEW_AUTO;
    } else {
        if (a->ses.head < 0 && v != VIEW_DECODE && v != VIEW_TRAIN)
            session_set_head(&a->ses, 0);
        a->view = v == app_auto_view(a, app_pos(a).stage) ? VIEW_AUTO : v;
    }
    a->anim_start = a->now;
    a->redraw_soon = 1;
}

ViewId app_current_view(const App *a)
{
    if (a->view != VIEW_AUTO)
        return a->view;
    return app_auto_view(a, app_pos(a).stage);
}

/* ---- input and recomputation ---- */

void app_set_text(App *a, int side, const char *text)
{
    session_set_text(&a->ses, side == APP_LINE_TGT, text);
}

/* The lines' ids come from their names at the outermost scope, so the
 * window's keys (Enter, Tab) and the frame that draws them agree. */
UiId app_line_id(const App *a, int side)
{
    static const char *const NAME[2] = {"source line", "target line"};
    UiCtx root = {0};
    (void)a;
    return ui_id_str(&root, NAME[side == APP_LINE_TGT]);
}

void app_focus_line(App *a, int side)
{
    if (side < 0) {
        ui_focus_clear(&a->ui);
        return;
    }
    char *text = side == APP_LINE_TGT ? a->ses.tgt : a->ses.src_line;
    ui_focus_text(&a->ui, app_line_id(a, side), text, APP_TEXT_MAX);
}

int app_focused_line(const App *a)
{
    UiId f = a->ui.focus;
    if (f && f == app_line_id(a, APP_LINE_SRC))
        return APP_LINE_SRC;
    return f && f == app_line_id(a, APP_LINE_TGT) ? APP_LINE_TGT : -1;
}

/* What the current view needs computed, in the session's words. */
static SesNeed view_need(const App *a)
{
    static const SesNeed need[] = {
        [VIEW_NEED_STAGE] = SES_NEED_STAGE,
        [VIEW_NEED_STACK] = SES_NEED_STACK,
        [VIEW_NEED_ALL] = SES_NEED_ALL,
        [VIEW_NEED_PACED] = SES_NEED_PACED,
    };
    return need[VIEWS[app_current_view(a)]->need];
}

void app_update(App *a)
{
    session_update(&a->ses, view_need(a));
    pull_msg(a);
}

void app_compute_all(App *a)
{
    app_update(a);
    session_compute_all(&a->ses);
    pull_msg(a);
}

int app_stage_ready(const App *a)
{
    return session_stage_ready(&a->ses, view_need(a));
}

int app_idle_work(App *a)
{
    int rc = session_idle_work(&a->ses);
    pull_msg(a);
    if (rc == 1 && a->drawn.computing && app_stage_ready(a)) {
        a->drawn.computing = 0;
        return 2; /* what the view waited for is there: draw it */
    }
    return rc;
}

/* A new model: the position may have moved (its stage is not there). */
static int adopted(App *a, int rc)
{
    pull_msg(a);
    if (rc < 0)
        return -1;
    if (rc > 0)
        moved(a);
    app_update(a);
    return 0;
}

int app_load_model(App *a, const char *path)
{
    return adopted(a, session_load_model(&a->ses, path));
}

int app_use_model(App *a, TfModel *m, const char *label)
{
    return adopted(a, session_use_model(&a->ses, m, label));
}

int app_init_state(App *a, const AppOpts *o, TfErr *err)
{
    memset(a, 0, sizeof *a);
    a->look.text_scale = 1.0f;
    a->look.pixel_scale = 1.0f;
    a->look.cmap_prob = CMAP_VIRIDIS;
    a->look.cmap_signed = CMAP_DIVERGING;
    for (int v = 0; v < VIEW_COUNT; v++) {
        a->pz[v].zoom = 1.0f;
        if (VIEWS[v] && VIEWS[v]->state_size && !(a->vstate[v] = calloc(1, VIEWS[v]->state_size))) {
            tf_fail(err, "out of memory for the %s view", VIEWS[v]->name);
            app_free_state(a);
            return -1;
        }
    }
    char buf[4096];
    if (!ui_i18n_dir())
        ui_i18n_init(paths_locale(buf, sizeof buf));
    session_tr = ui_tr;
    const char *path = o && o->model_path ? o->model_path
                                          : paths_data("assets/models/en2zh.safetensors", buf, sizeof buf);
    if (session_init(&a->ses, path, !(o && o->model_path), err))
        return -1;
    pull_msg(a);
    Session *s = &a->ses;
    if (o && o->n_src > 0) {
        char line[APP_TEXT_MAX];
        int n = o->n_src > APP_MAX_SENT ? APP_MAX_SENT : o->n_src, at = 0;
        line[0] = 0;
        for (int i = 0; i < n && at < APP_TEXT_MAX - 1; i++)
            at += snprintf(line + at, (size_t)(APP_TEXT_MAX - at), "%s%s", i ? " | " : "", o->src[i]);
        session_set_text(s, 0, line);
    }
    if (o && o->tgt)
        session_set_text(s, 1, o->tgt);
    if (o && o->theme) {
        for (int t = 0; t < THEME_COUNT; t++)
            if (strcmp(theme_get(t)->name, o->theme) == 0)
                a->look.theme = t;
    }
    if (o && o->stage) {
        int id = stage_find(o->stage);
        if (id >= 0)
            app_goto(a, id, o->layer);
    }
    if (o) {
        if (o->head >= -1)
            session_set_head(s, o->head);
        if (o->view) {
            int v = view_find(o->view);
            if (v >= 0)
                a->view = v;
        }
        session_set_batch(s, o->batch);
        a->look.lang = o->lang;
        a->no_save = o->no_save;
        if (o->lessons_dir)
            snprintf(a->lessons_dir, sizeof a->lessons_dir, "%s", o->lessons_dir);
    }
    app_update(a); /* the first pass (the model just opened: the session has it to run) */
    return 0;
}

void app_free_state(App *a)
{
    if (app_focused_line(a) < 0) /* a view's field: its text lives in the view's state */
        ui_focus_clear(&a->ui);
    for (int v = 0; v < VIEW_COUNT; v++) {
        if (a->vstate[v] && VIEWS[v]->free)
            VIEWS[v]->free(a->vstate[v]);
        free(a->vstate[v]);
        a->vstate[v] = NULL;
    }
    session_free(&a->ses);
}
