/* host.c - the window hosts the views: the drawing resources of a
 * renderer, the Scene a view sees (built from the App), the ViewCtx it
 * draws into, and applying its ViewOut to the App when it is done (what
 * the lesson panel uses too, to set the window up as a step says). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "cmd_table.h"
#include "decode_host.h"
#include "heads_host.h"
#include "heads_lab.h"
#include "headstats.h"
#include "ops.h"
#include "ses_measure.h"
#include "panels.h"
#include "train_host.h"
#include "view_decode.h"

/* The App's drawing resources, made for renderer r on first use. */
Gfx *app_gfx(App *a, Ren *r)
{
    if (a->gfx && a->gfx->r == r)
        return a->gfx;
    app_gfx_free(a);
    Gfx *g = calloc(1, sizeof *g);
    TfErr err;
    if (!g)
        return NULL;
    if (gfx_init(g, r, &err)) {
        app_notice(a, 1, "%s", err.msg); /* not the input's fault: a notice, not an input error */
        free(g);
        return NULL;
    }
    a->gfx = g;
    return g;
}

void app_gfx_free(App *a)
{
    if (a->gfx) {
        gfx_free(a->gfx);
        free(a->gfx);
        a->gfx = NULL;
    }
}

static int base_shown(const App *a)
{
    return session_has_exp(&a->ses) && session_base_ready(&a->ses);
}

const TfTrace *app_shown_trace(const App *a)
{
    return base_shown(a) && a->cmp == CMP_NORMAL ? &a->ses.ext.base : &a->ses.trace;
}

_Static_assert(VIEW_MAX_SENT == SES_MAX_SENT && VIEW_TEXT_MAX == SES_TEXT_MAX &&
                   VIEW_CAP_T == SES_CAP_T && SES_COST_N <= VIEW_COST_MAX,
               "the views' capacities are the session's");

/* The input as the session read it: each sentence, the greedy translation,
 * what went wrong. */
static void scene_input(const Session *s, Scene *sc)
{
    sc->n_src = s->n_src;
    for (int i = 0; i < s->n_src && i < VIEW_MAX_SENT; i++)
        sc->sent[i] = (SceneSent){s->src[i], s->src_ids[i], s->src_n[i], s->src_spans[i],
                                  s->tgt_ids[i], s->tgt_n[i]};
    sc->tgt_auto = s->tgt_auto;
    sc->translation = s->translation;
    sc->greedy_ids = s->greedy.ids;
    sc->greedy_n = s->greedy.n;
    sc->n_unk = s->n_unk;
    sc->input_error = s->input_error;
    sc->paced = s->lazy;
    sc->ln_eps = TF_LN_EPS;
    sc->pe = s->pe;
    sc->pe_rows = s->model.cfg.max_len < SES_CAP_T ? s->model.cfg.max_len : SES_CAP_T;
}

void app_scene(const App *a, Scene *sc)
{
    const Session *s = &a->ses;
    memset(sc, 0, sizeof *sc);
    sc->model = &s->model;
    sc->trace = app_shown_trace(a);
    sc->exp_trace = &s->trace;
    sc->exp = &s->exp;
    sc->version = s->version;
    if (base_shown(a)) {
        sc->base = &s->ext.base; /* the normal pass beside the experiment (before and after) */
        sc->cmp = a->cmp;
        sc->version = s->version | (uint64_t)a->cmp << 62; /* cached pictures per mode */
    }
    sc->pos = app_pos(a);
    sc->head = s->head;
    sc->batch = s->batch;
    scene_input(s, sc);
    sc->view = app_current_view(a);
    sc->sel = a->sel;
    sc->cursor = a->cursor;
    sc->theme = a->look.theme;
    sc->text_scale = a->look.text_scale;
    sc->cmap_prob = a->look.cmap_prob;
    sc->cmap_signed = a->look.cmap_signed;
    sc->lang = a->look.lang;
    ui_set_lang(a->look.lang);
    sc->now = a->now;
    sc->train = a->train ? &a->train->show : NULL;
    sc->g = a->gfx;
    sc->r = a->gfx ? a->gfx->r : NULL;
    sc->th = theme_get(a->look.theme);
    sc->dec = dhost_show(a);
}

/* The decode lab brought up to date for the decode view with the Scene it
 * sees, and the view's wishes applied to it afterwards (decode_host.c). */
static void decode_before(App *a)
{
    Scene sc;
    app_scene(a, &sc);
    dhost_before(a, &sc);
}

static void decode_after(App *a)
{
    Scene sc;
    app_scene(a, &sc);
    dhost_after(a, &sc);
}

/* The metrics of every head of the shown pass in every layer of the
 * attention the stage belongs to, for the sentence shown (the session
 * keeps them per pass), as the view reads them: into heads (cap of them),
 * sc->heads[kind]. */
static void measure_heads(App *a, Scene *sc, SceneHead *heads, int cap)
{
    StageId q = stage_attn_block(sc->pos.stage);
    TfAttnKind k = q == ST_ENC_SELF_Q ? TF_ATTN_ENC : q == ST_DEC_SELF_Q ? TF_ATTN_DEC : TF_ATTN_CROSS;
    const TfConfig *c = &sc->trace->cfg;
    int n = (k == TF_ATTN_ENC ? c->n_enc : c->n_dec) * c->n_heads;
    const TfHeadMetrics *m = session_head_metrics(&a->ses, sc->trace, k, sc->batch);
    if (!m || n > cap)
        return;
    for (int i = 0; i < n; i++)
        heads[i] = (SceneHead){m[i].rows, m[i].entropy, m[i].max_weight, m[i].offset, m[i].offset_share,
                               m[i].first_share, m[i].monotonic, tf_head_label(&m[i], k)};
    sc->heads[k] = heads;
}

/* What view id wants measured beyond the pass (ViewDef.wants), into sc
 * (the heads into heads, room for cap). */
static void scene_measure(App *a, ViewId id, Scene *sc, SceneHead *heads, int cap)
{
    unsigned wants = VIEWS[id]->wants;
    if (wants & VIEW_WANT_COST) {
        const SesCost *c = session_cost(&a->ses); /* the next lengths, within a frame's budget */
        sc->cost = c ? (SceneCost){c->C, c->NH, c->F, SES_COST_N, c->done, c->failed, SES_COST_NS,
                                   c->attn_s, c->ffn_s, c->attn_b, c->ffn_b}
                     : (SceneCost){.failed = 1};
    }
    if (wants & VIEW_WANT_DOTS) {
        for (int i = 0; i < 2; i++) {
            sc->dots[i] = session_dots(&a->ses, i);
            sc->dots_dk[i] = ses_dots_dk(i);
        }
        sc->dots_n = sc->dots[0] && sc->dots[1] ? SES_DOTS_N : 0;
    }
    if ((wants & VIEW_WANT_HEADS) && !sc->input_error[0])
        measure_heads(a, sc, heads, cap);
}

void app_view_begin(App *a, ViewId id, ViewCall *c)
{
    app_update(a);
    if (id == VIEW_DECODE)
        decode_before(a); /* the decode lab up to date for the view */
    app_scene(a, &c->sc);
    memset(&c->out, 0, sizeof c->out);
    ui_bind(&a->ui, c->sc.r, c->sc.g, c->sc.th, a->now);
    c->v = (ViewCtx){&c->sc, &c->out, a->vstate[id], a->pz, &a->ui, c->sc.r, c->sc.g, c->sc.th,
                     {0, 0, a->win.w, a->win.h}, &a->ui.in, 1.0f};
}

void app_view_end(App *a, ViewCall *c)
{
    app_apply(a, &c->out);
}

/* A view's wishes, in the order its actions meant them. */
void app_apply(App *a, ViewOut *o)
{
    app_train_apply(a); /* the train view's wishes are in its state */
    /* what changes the picture is drawn again at once (the view drew
     * this frame before its wishes were applied) */
    if (o->sel_set || o->batch_set || o->cmap_prob_set || o->use_model || o->go_set ||
        o->head_set || o->view_set || o->exp_head_set ||
        o->exp_hide_set || o->set_exp)
        a->redraw_soon = 1;
    if (o->hover.valid)
        a->hover = o->hover;
    a->cursor.room = o->cursor_room; /* the keyboard's cell stays in what the view showed */
    if (o->cursor_room.rows > 0) {
        CellCursor *k = &a->cursor;
        const CursorRoom *m = &o->cursor_room;
        k->row = k->row < m->rows ? k->row : m->rows - 1;
        k->col = k->col < m->cols ? k->col : m->cols - 1;
        if (m->thumbs > 0)
            k->thumb = k->thumb < m->thumb_lo ? m->thumb_lo
                       : k->thumb < m->thumb_lo + m->thumbs ? k->thumb : m->thumb_lo + m->thumbs - 1;
    }
    if (o->heat.valid)
        a->heat = o->heat;
    if (o->wake_at > 0)
        a->wake_at = o->wake_at;
    if (o->sel_set)
        a->sel = o->sel;
    if (o->batch_set)
        session_set_batch(&a->ses, o->batch);
    if (o->cmap_prob_set)
        a->look.cmap_prob = o->cmap_prob;
    if (o->use_model) {
        TfModel m = *o->use_model;
        memset(o->use_model, 0, sizeof *o->use_model); /* moved to the App */
        if (app_use_model(a, &m, o->use_label))
            return; /* the error is the notice; the rest depended on it */
    }
    if (o->set_src)
        app_set_text(a, APP_LINE_SRC, o->set_src);
    if (o->set_tgt)
        app_set_text(a, APP_LINE_TGT, o->set_tgt);
    if (o->recompute)
        app_update(a);
    if (o->go_set)
        app_goto(a, o->go_stage, o->go_layer);
    if (o->head_set)
        app_set_head(a, o->head);
    if (o->exp_head_set) { /* Alt+click on a head: ablate it (or not) */
        TfExperiment e = a->ses.exp;
        tf_exp_toggle_head(&e, (TfAttnKind)o->exp_head[0], o->exp_head[1], o->exp_head[2]);
        app_set_exp(a, &e);
    }
    if (o->exp_hide_set) /* Alt+click on a source token: hide it (or not) */
        app_exp_toggle_hide(a, o->exp_hide);
    if (o->set_exp)
        app_put_exp(a, o->set_exp);
    if (o->view_set) {
        a->view = o->view;
        a->anim_start = a->now;
    }
    if (o->notice_set)
        app_notice(a, o->notice_error, "%s", o->notice);
    hhost_apply(a, o);
}

int app_view_act(App *a, ViewAct act, int arg)
{
    ViewId id = app_current_view(a);
    if (!VIEWS[id]->act || (VIEWS[id]->state_size && !a->vstate[id]))
        return 0;
    ViewCall c;
    app_view_begin(a, id, &c);
    int used = VIEWS[id]->act(&c.v, act, arg);
    app_view_end(a, &c);
    if (id == VIEW_DECODE)
        decode_after(a); /* its wishes to the decode lab */
    return used;
}

/* After an edit a big model's stage may not be computed yet (the frame
 * runs one budget of the pass, app_update): say so, with how far the pass
 * has got, instead of drawing numbers of the input before; the idle calls
 * finish it and the window draws the stage then (app_idle_work). */
static void draw_computing(App *a, const ViewCtx *v)
{
    int done = 0, total = 0;
    session_pass_ready(&a->ses, &done, &total);
    char buf[200];
    snprintf(buf, sizeof buf, _("Computing this stage for the new input: %d of %d parts of the pass done…"), done,
             total);
    Rect rc = v->area;
    int h = ui_paragraph(v->r, v->g->ui, buf, rc.x + 10, rc.y + 10, rc.w - 20, v->th->dim);
    int w = rc.w - 20 < 240 ? rc.w - 20 : 240;
    Rect bar = {rc.x + 10, rc.y + 20 + h, w, 6};
    ren_rect(v->r, bar, v->th->panel2);
    if (total > 0)
        ren_rect(v->r, (Rect){bar.x, bar.y, bar.w * done / total, bar.h}, v->th->accent);
    a->drawn.what = DRAWN_COMPUTING;
    a->drawn.version = a->ses.version;
    a->drawn.computing = 1;
}

void app_draw_view(App *a, ViewCtx *ctx, ViewId id)
{
    if (VIEWS[id]->state_size && !a->vstate[id])
        return;
    if (!app_stage_ready(a)) {
        draw_computing(a, ctx);
        return;
    }
    a->drawn.computing = 0;
    if (id == VIEW_DECODE)
        decode_before(a); /* the decode lab within the frame's budget */
    Scene sc;
    ViewOut out;
    if (id == VIEW_TRAIN)
        app_train_update(a);
    app_scene(a, &sc);
    sc.tab_keys = cmd_tab_keys(id);
    SceneHead heads[VIEW_MAX_HEADS_SHOWN];
    scene_measure(a, id, &sc, heads, VIEW_MAX_HEADS_SHOWN);
    HeadsShow hs;
    hhost_scene(a, id, &sc, &hs); /* the heads lab: importance paced, lens, q/k map, rollout */
    memset(&out, 0, sizeof out);
    ViewCtx v = *ctx;
    v.s = &sc;
    v.out = &out;
    v.st = a->vstate[id];
    v.pz = a->pz;
    v.ui = &a->ui;
    a->drawn.what = DRAWN_VIEW;
    a->drawn.version = sc.version;
    const char *tag = ren_text_tag("view"); /* for the drawn-string test */
    VIEWS[id]->draw(&v);
    ren_text_tag(tag);
    app_apply(a, &out);
    if (id == VIEW_DECODE)
        decode_after(a); /* its wishes to the decode lab */
}

/* ---- setting up the decode view (shot, tests, benchmarks; the train
 * view's are in train_host.c) ---- */

int app_decode_setup(App *a, const char *pane, int k, float alpha)
{
    ViewCall c;
    app_view_begin(a, VIEW_DECODE, &c);
    int rc = view_decode_setup(&c.v, pane, k, alpha);
    app_view_end(a, &c);
    decode_after(a);
    return rc;
}

/* ---- the heads lab (heads_host.h) ---- */

#define HHOST_BUDGET_S 0.012 /* importance measured per frame */

static HeadsLab *lab(App *a)
{
    if (!a->hlab)
        a->hlab = hlab_new();
    return a->hlab;
}

void app_hlab_free(App *a)
{
    hlab_free(a->hlab);
    a->hlab = NULL;
}

static uint64_t stamp(const Scene *sc)
{
    return sc->version * 0x9E3779B97F4A7C15ull ^ (uint64_t)(uintptr_t)sc->trace;
}

static TfAttnKind kind_of(StageId st)
{
    StageId q = stage_attn_block(st);
    return q == ST_ENC_SELF_Q ? TF_ATTN_ENC : q == ST_DEC_SELF_Q ? TF_ATTN_DEC : TF_ATTN_CROSS;
}

static void scene_imp(HeadsLab *h, Scene *sc)
{
    if (h->imp_state != HLAB_IMP_NONE && (h->imp_model != sc->model || h->imp_block != sc->model->block))
        hlab_imp_reset(h); /* another model: its heads are not these */
    hlab_imp_run(h, HHOST_BUDGET_S);
    SceneImportance *im = &sc->imp;
    im->state = (int)h->imp_state;
    im->done = h->imp_state == HLAB_IMP_NONE ? 0 : hlab_imp_done(h);
    im->total = h->pairs.n;
    im->what = h->imp_what;
    im->error = h->imp_error;
    im->n = h->imp_res && h->imp.pairs > 0 && (hlab_imp_done(h) > 0) ? h->imp.n_heads : 0;
    im->delta_nll = h->imp_nll;
    im->delta_acc = h->imp_acc;
}

void hhost_scene(App *a, ViewId id, Scene *sc, HeadsShow *show)
{
    HeadsLab *h = lab(a);
    if (!h || sc->input_error[0])
        return;
    unsigned wants = VIEWS[id]->wants;
    if (wants & VIEW_WANT_IMPORTANCE)
        scene_imp(h, sc);
    const TfTrace *tr = sc->trace;
    if ((wants & VIEW_WANT_LENS) && tr->T > 0) {
        const HlabLens *l = hlab_lens(h, sc->model, tr, sc->batch, stamp(sc));
        if (l) {
            show->lens = (SceneLens){l->layers, l->T, l->k, l->ids, l->p, l->ref_id, l->ref_rank, l->ref_p};
            sc->lens = &show->lens;
        }
    }
    if (wants & VIEW_WANT_QK) {
        const StageInfo *si = stage_info(sc->pos.stage);
        int layer = (si->flags & SF_LAYER) ? sc->pos.layer : 0, head = sc->head < 0 ? 0 : sc->head;
        TfAttnKind k = kind_of(sc->pos.stage);
        hlab_qkd_run(h, sc->model, k, layer, HHOST_BUDGET_S); /* a data set's points, paced */
        const HlabQkData *d = &h->qkd;
        sc->qkd = (SceneQkData){h->qkd_on, (int)d->state, d->next, d->pairs.n, d->what, d->error};
        const HlabQk *q = hlab_qk(h, tr, k, layer, head, sc->batch, stamp(sc));
        if (q && q->n_sent <= HHOST_PAIRS + 1) {
            for (int i = 0; i < q->n_sent; i++)
                show->sent[i] = (SceneQkSent){q->sent[i].q0, q->sent[i].nq, q->sent[i].k0, q->sent[i].nk,
                                              q->sent[i].w, q->sent[i].text};
            show->qk = (SceneQk){q->kind, q->layer, q->head, q->map.nq, q->map.nk, q->map.q, q->map.k,
                                 q->all.q.pos, q->all.k.pos, q->all.q.tok, q->all.k.tok, q->wall,
                                 {q->map.explained[0], q->map.explained[1]}, q->n_sent, show->sent,
                                 q->qsent, q->ksent};
            sc->qk = &show->qk;
        } else {
            sc->qk_error = q ? "too many sentences in the map" : h->qk_error;
        }
    }
    sc->rollout = a->rollout;
    if (a->rollout) {
        const StageInfo *si = stage_info(sc->pos.stage);
        TfAttnKind k = kind_of(sc->pos.stage);
        if (si->kind == SK_WEIGHTS && k != TF_ATTN_DEC) {
            int layer = (si->flags & SF_LAYER) ? sc->pos.layer : 0, cross = k == TF_ATTN_CROSS;
            sc->roll = hlab_rollout(h, tr, cross, layer, sc->batch, stamp(sc), &sc->roll_rows, &sc->roll_cols);
            sc->roll_cross = cross;
        }
    }
}

void hhost_apply(App *a, const ViewOut *o)
{
    if (!o->imp_start && !o->qkd_set)
        return;
    HeadsLab *h = lab(a);
    if (!h)
        return;
    if (o->qkd_set) {
        if (!o->qkd_on)
            hlab_qkd_stop(h);
        else if (hlab_qkd_start(h, &a->ses.model, o->qkd_file[0] ? o->qkd_file : NULL, HHOST_PAIRS))
            app_notice(a, 1, "%s", h->qkd.error);
        a->redraw_soon = 1;
    }
    if (!o->imp_start)
        return;
    if (hlab_imp_start(h, &a->ses.model, NULL, o->imp_file[0] ? o->imp_file : NULL, HHOST_PAIRS))
        app_notice(a, 1, "%s", h->imp_error);
    a->redraw_soon = 1;
}

int hhost_measure(App *a, int n)
{
    HeadsLab *h = lab(a);
    if (!h) {
        app_notice(a, 1, "out of memory");
        return -1;
    }
    if (hlab_imp_start(h, &a->ses.model, NULL, NULL, n)) {
        app_notice(a, 1, "%s", h->imp_error);
        return -1;
    }
    while (hlab_imp_run(h, 1.0))
        ;
    if (h->imp_state == HLAB_IMP_FAILED) {
        app_notice(a, 1, "%s", h->imp_error);
        return -1;
    }
    return 0;
}

int hhost_qk_data(App *a, const char *file, int n)
{
    HeadsLab *h = lab(a);
    if (!h) {
        app_notice(a, 1, "out of memory");
        return -1;
    }
    StagePos pos = app_pos(a);
    const StageInfo *si = stage_info(pos.stage);
    int layer = (si->flags & SF_LAYER) ? pos.layer : 0;
    if (hlab_qkd_start(h, &a->ses.model, file, n > HHOST_PAIRS ? HHOST_PAIRS : n)) {
        app_notice(a, 1, "%s", h->qkd.error);
        return -1;
    }
    while (hlab_qkd_run(h, &a->ses.model, kind_of(pos.stage), layer, 1.0))
        ;
    if (h->qkd.state == QKD_FAILED) {
        app_notice(a, 1, "%s", h->qkd.error);
        return -1;
    }
    return 0;
}
