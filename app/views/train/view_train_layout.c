/* view_train_layout.c - the train view: a Transformer learning in the
 * window.
 *
 * The learner picks a task (copy, reverse, sort, en2zh or their own TSV
 * file of sentence pairs) and a size (a preset, or d_model, heads, layers,
 * d_ff, warm-up and learning-rate scale one by one), then starts training.
 * While the worker thread trains, the view shows the curves (loss,
 * accuracy, the learning-rate schedule with its warm-up, tokens/s) and a
 * probe sentence run through the model of the moment: its greedy output
 * and its attention heads, which start diffuse and sharpen into
 * alignments. Snapshots of the parameters are kept along the way; the
 * timeline scrubs back through them, and any of them can be opened in the
 * Decode view as the window's model, or the current one saved.
 *
 * This file lays the parts out and does the tab's commands (the window's
 * command table binds their keys); what it is shown is Scene.train (a
 * TrainShow), what it asks for goes into u->wish (the other files are
 * listed in view_train.h).
 *
 * Keys (only while this view is shown): P or Space start/pause, S one step,
 * R reset (a new model from the settings), W save a checkpoint, O open the
 * shown model in the Decode view, Left/Right the previous/next snapshot,
 * Home the first, End live, [ ] layer, 1-9 head, 0 all heads, Tab which
 * attention (Shift+Tab back), D task (Shift+D back), M size preset,
 * X the next setting and , . to change it, F type a file path, C colour map,
 * V curves or attention (a small window shows one at a time). */
#include <string.h>

#include "view_train.h"

TrainUi *tv_state(void *st)
{
    TrainUi *u = st;
    if (u && !u->ready) {
        u->ready = 1;
        u->show_hh = 1; /* the head-entropy curve in the fourth plot */
        tv_settings_init(u);
        u->layer = -1; /* the last layer, once the model is known */
    }
    return u;
}

/* A new run: its last layer (its heads align best), a head it has. */
static void follow_run(TrainUi *u, const TrainShow *t)
{
    if (!t || !t->probe.have || u->gen == t->probe.gen)
        return;
    u->gen = t->probe.gen;
    int L = tv_attn_layers(t, u->attn);
    if (u->layer < 0 || u->layer >= L)
        u->layer = L - 1;
    if (u->head >= t->cfg.n_heads)
        u->head = 0;
}

static void set_layer(TrainUi *u, const TrainShow *t, int layer)
{
    int L = t && t->probe.have ? tv_attn_layers(t, u->attn) : 0;
    if (L < 1)
        return;
    u->layer = layer < 0 ? 0 : layer >= L ? L - 1 : layer;
}

static void scrub(TrainUi *u, int delta)
{
    u->wish.scrub = delta;
    u->wish.any = 1;
}

/* A command of the tab (the window's command table binds the keys). */
static int view_train_act(ViewCtx *v, ViewAct act, int arg)
{
    const Scene *sc = v->s;
    const TrainShow *t = sc->train;
    TrainUi *u = tv_state(v->st);
    if (!u)
        return 0;
    follow_run(u, t);
    switch (act) {
    case VA_PLAY: tv_wish(u, &u->wish.play); return 1;
    case VA_STEP: tv_wish(u, &u->wish.step); return 1;
    case VA_RESTART: tv_wish(u, &u->wish.reset); return 1;
    case VA_SAVE: tv_wish(u, &u->wish.save); return 1;
    case VA_OPEN: tv_wish(u, &u->wish.open); return 1;
    case VA_MOVE: scrub(u, arg); return 1;
    case VA_FIRST: scrub(u, -TV_SNAP_CAP - 1); return 1;
    case VA_LAST: tv_wish(u, &u->wish.live); return 1;
    case VA_LAYER: set_layer(u, t, u->layer + arg); return 1;
    case VA_HEAD:
        if (arg < 0 || (t && t->probe.have && arg < t->cfg.n_heads))
            u->head = arg;
        return 1;
    case VA_PANE:
        u->attn = (TvAttn)((u->attn + (arg < 0 ? TV_ATTN_COUNT - 1 : 1)) % TV_ATTN_COUNT);
        set_layer(u, t, u->layer);
        return 1;
    case VA_TASK: tv_set_task(u, u->task + arg); return 1;
    case VA_SIZE: tv_set_preset(u, tv_preset_of(u) + 1); return 1;
    case VA_FIELD:
        u->custom = 1;
        u->field = (u->field + (arg < 0 ? TVF_COUNT - 1 : 1)) % TVF_COUNT;
        return 1;
    case VA_VALUE: u->custom = 1; tv_set_field(u, (TvField)u->field, u->val[u->field] + arg); return 1;
    case VA_FILE: /* next frame: the "f" typed with this key must not land in the field */
        u->focus_path_next = 1;
        return 1;
    case VA_SWAP: u->pane = !u->pane; return 1;
    case VA_ENTROPY: u->show_hh = !u->show_hh; return 1; /* head entropy or tokens/s */
    case VA_CMAP:
        v->out->cmap_prob_set = 1;
        v->out->cmap_prob = (CmapId)((sc->cmap_prob + 1) % CMAP_COUNT);
        view_notice(v, 0, _("colour map: %s"), cmap_name(v->out->cmap_prob));
        return 1;
    default: return 0;
    }
}

/* ---- the view ---- */

/* Is there a model of this run to show? */
static int model_shown(const TrainShow *t)
{
    return t->probe.have && t->probe.gen == t->gen && t->state != TV_BUILDING;
}

/* Before the first model exists, or when it could not be made. */
static void draw_placeholder(ViewCtx *v, const TrainShow *t, Rect body)
{
    const char *s = t->state == TV_BUILDING ? _("Making the data set and the model…")
                    : t->msg[0] ? _("No model to train: see the message above, change the settings and press Reset (R).")
                                : _("Choose a task and a size, then press Start (P): the model learns here, "
                                          "from random weights, while you watch its loss fall and its attention heads form.");
    ui_paragraph(v->r, v->g->ui, s, body.x + ui_px(v->g, 10), body.y + ui_px(v->g, 10),
                 body.w - ui_px(v->g, 20), v->th->dim);
}

/* Curves and probe side by side when the body is wide enough for the
 * probe's heatmap to be tall, else stacked (curves on top). */
static void draw_body(ViewCtx *v, TrainUi *u, Rect body)
{
    const TrainShow *t = v->s->train;
    int gap = ui_px(v->g, 14);
    if (!model_shown(t)) {
        draw_placeholder(v, t, body);
        return;
    }
    if (u->compact) { /* one pane at a time */
        if (u->pane == 0)
            tv_plots_draw(v, u, body);
        else
            tv_probe_draw(v, u, body);
        return;
    }
    if (body.w >= 1.15f * body.h) {
        int pw = (int)(body.w * 0.5f);
        tv_plots_draw(v, u, (Rect){body.x, body.y, pw - gap / 2, body.h});
        ren_rect(v->r, (Rect){body.x + pw, body.y, 1, body.h}, v->th->border);
        tv_probe_draw(v, u, (Rect){body.x + pw + gap / 2 + 1, body.y, body.w - pw - gap / 2 - 1, body.h});
        return;
    }
    int min_plot = 2 * (ren_font_height(v->g->small) * 2 + ui_px(v->g, 56));
    int ph = (int)(body.h * 0.42f);
    if (ph < min_plot)
        ph = min_plot < body.h / 2 ? min_plot : body.h / 2;
    tv_plots_draw(v, u, (Rect){body.x, body.y, body.w, ph});
    ren_rect(v->r, (Rect){body.x, body.y + ph + gap / 2, body.w, 1}, v->th->border);
    tv_probe_draw(v, u, (Rect){body.x, body.y + ph + gap, body.w, body.h - ph - gap});
}

/* A click outside the path field leaves it; leaving it tries the file. */
static void path_focus(ViewCtx *v, TrainUi *u, Rect field)
{
    int has = tv_typing(v, u);
    int clicked = u->path_clicked;
    u->path_clicked = 0;
    if (has && v->in->pressed && !clicked && (field.w == 0 || !ui_over(v->in, field))) {
        ui_focus_clear(v->ui);
        has = 0;
    }
    if (u->path_focus_prev && !has && u->task == TV_TASK_FILE)
        tv_wish(u, &u->wish.settings);
    u->path_focus_prev = has;
}

/* The keys at the bottom (two lines at most, one when compact); returns
 * their top. */
static int draw_keys(ViewCtx *v, const TrainUi *u, Rect area, int pad)
{
    RenFont *sf = v->g->small;
    const char *keys = v->s->tab_keys ? v->s->tab_keys : ""; /* the window's command table's */
    int kn = ren_text_wrap(sf, keys, area.w, NULL, 0), kmax = u->compact ? 1 : 2;
    int kh = (kn < kmax ? kn : kmax) * ren_font_height(sf);
    int bottom = area.y + area.h - kh - pad;
    ren_clip_push(v->r, (Rect){area.x, bottom, area.w, kh});
    ui_paragraph(v->r, sf, keys, area.x, bottom, area.w, v->th->dim);
    ren_clip_pop(v->r);
    return bottom;
}

static void view_train(ViewCtx *v)
{
    const Scene *sc = v->s;
    TrainUi *u = tv_state(v->st);
    Rect area = v->area;
    if (!u || !sc->train) {
        ui_paragraph(v->r, v->g->ui, _("out of memory for the train view"), area.x + 10, area.y + 10,
                     area.w - 20, v->th->warn);
        return;
    }
    const TrainShow *t = sc->train;
    follow_run(u, t);
    if (u->focus_path_next) {
        u->focus_path_next = 0;
        tv_focus_path(v, u);
    }
    memset(&u->hit, 0, sizeof u->hit);
    int pad = ui_px(v->g, 4), gap = ui_px(v->g, 8);
    u->compact = area.h < ui_px(v->g, 560) || area.w < ui_px(v->g, 560);
    UiFlow f = ui_flow(v->ui, (Rect){area.x, area.y + pad, area.w, area.h});
    tv_controls_draw(&f, t, u);
    ui_flow_break(&f);
    Rect field = {0, 0, 0, 0};
    if (!u->compact || u->show_settings)
        field = tv_settings_draw(v, &f, u);
    int top = area.y + pad + ui_flow_height(&f) + gap;
    top += tv_summary_draw(v, u, area.x, top, area.w);
    int bottom = draw_keys(v, u, area, pad);
    int tl_h = ren_font_height(v->g->small) + ui_px(v->g, 14);
    Rect tl = {area.x, bottom - gap - tl_h, area.w, tl_h};
    if (model_shown(t))
        tv_timeline_draw(v, u, tl);
    Rect body = {area.x, top, area.w, tl.y - gap - top};
    if (body.h > 40) {
        ren_clip_push(v->r, body);
        draw_body(v, u, body);
        ren_clip_pop(v->r);
    }
    path_focus(v, u, field);
}

/* Paced: the view trains its own copy of the model and reads nothing of
 * the session's pass, so a frame does not wait for it (the idle calls
 * finish it for the other views). */
const ViewDef VIEW_TRAIN_DEF = {"train", N_("Train"), view_train, view_train_act, sizeof(TrainUi), NULL,
                                VIEW_NEED_PACED, 0};
