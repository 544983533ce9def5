/* view_train_bar.c - around the train view's curves and probe: the
 * control bar (Start/Pause, Step, Reset, Save, Open in Decode, the state),
 * the line saying what is being trained (and any error, with what to do
 * about it), and the snapshot timeline, which scrubs back through the
 * kept parameters. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "view_train.h"

static const char *state_text(const TrainShow *t)
{
    switch (t->state) {
    case TV_BUILDING: return _("making the model…");
    case TV_RUNNING: return _("training");
    case TV_PAUSED: case TV_STOPPED: return t->step ? _("paused") : _("ready: random weights");
    default: return t->err && t->err[0] ? t->err : _("no model");
    }
}

/* A flow button that remembers where it was drawn. */
int tv_control(UiFlow *f, const char *label, int active, Rect *where)
{
    int w = ren_text_width(f->ui->g->small, label) + ui_px(f->ui->g, 16);
    *where = ui_flow_next(f, w);
    return ui_button(f->ui, *where, label, active);
}

void tv_controls_draw(UiFlow *f, const TrainShow *t, TrainUi *u)
{
    const Theme *th = f->ui->th;
    int running = t->state == TV_RUNNING;
    char buf[200];
    if (tv_control(f, running ? _("❚❚ Pause  P") : _("▶ Start  P"), running, &u->hit.start))
        tv_wish(u, &u->wish.play);
    if (tv_control(f, _("Step  S"), 0, &u->hit.step))
        tv_wish(u, &u->wish.step);
    if (tv_control(f, _("Reset  R"), 0, &u->hit.reset))
        tv_wish(u, &u->wish.reset);
    if (tv_control(f, _("Save  W"), 0, &u->hit.save))
        tv_wish(u, &u->wish.save);
    if (tv_control(f, _("Open in Decode  O"), 0, &u->hit.open))
        tv_wish(u, &u->wish.open);
    if (u->compact) {
        if (ui_flow_button(f, _("Settings…"), u->show_settings))
            u->show_settings = !u->show_settings;
        if (ui_flow_button(f, _("Curves"), u->pane == 0))
            u->pane = 0;
        if (ui_flow_button(f, _("Attention  V"), u->pane == 1))
            u->pane = 1;
    }
    if (t->step > 0)
        snprintf(buf, sizeof buf, _("%s · step %lld · epoch %lld · %.0f tokens/s"), state_text(t), t->step,
                 t->epoch + 1, (double)t->tok_s);
    else
        snprintf(buf, sizeof buf, "%s", state_text(t));
    ui_flow_text(f, buf, running ? th->good : th->dim);
}

/* What is being trained, and how the settings differ from it. */
int tv_summary_draw(ViewCtx *v, const TrainUi *u, int x, int y, int w)
{
    const Theme *th = v->th;
    RenFont *sf = v->g->small;
    int fh = ren_font_height(sf), y0 = y;
    const TrainShow *st = v->s->train;
    char buf[512];
    /* which model this tab trains: its own, not the one the window opened */
    const char *which[] = {_("This tab trains a new model of its own from random weights: the model open in the "
                             "window stays as it is (O opens the trained one in Decode)."),
                           _("A new model of its own, from random weights: the window's model stays as it is."),
                           _("A new model, from random weights")};
    ui_text_alt(v->r, sf, which, 3, x, y, w, th->accent);
    y += fh + 2;
    if (st->n_params > 0 && st->state != TV_BUILDING && !u->compact) {
        const TfConfig *c = &st->cfg;
        snprintf(buf, sizeof buf,
                 _("%s · %d pairs to learn from, %d held out · %zu parameters: %d/%d/%d, %d+%d layers · "
                   "batch %d · warm-up %d"),
                 st->data_name, st->n_train, st->n_heldout, st->n_params, c->d_model, c->n_heads, c->d_ff,
                 c->n_enc, c->n_dec, st->batch, st->warmup);
        ren_clip_push(v->r, (Rect){x, y, w, 2 * fh});
        int h = ui_paragraph(v->r, sf, buf, x, y, w, th->dim);
        ren_clip_pop(v->r);
        y += (h < 2 * fh ? h : 2 * fh) + 2;
    }
    if (st->differ && st->step > 0 && st->state != TV_BUILDING) {
        ui_text_fit(v->r, sf, _("The settings changed: press Reset (R) to train a new model with them."),
                    x, y, w, th->accent);
        y += fh + 2;
    }
    if (st->msg[0]) {
        char full[TV_MSG_MAX + 256];
        if (st->stopped)
            snprintf(full, sizeof full, _("%s — a learning rate far too high does this: lower lr × (X, then , or .) "
                                          "and press Reset (R)."), st->msg);
        else
            snprintf(full, sizeof full, "%s", st->msg);
        ren_clip_push(v->r, (Rect){x, y, w, 3 * fh});
        int h = ui_paragraph(v->r, sf, full, x, y, w, th->warn);
        ren_clip_pop(v->r);
        y += (h < 3 * fh ? h : 3 * fh) + 2;
    }
    return y - y0;
}

static float step_x(Rect track, long long step, long long last)
{
    return track.x + (last > 0 ? (float)step / (float)last : 0.0f) * track.w;
}

static void timeline_pick(TrainUi *u, const TrainShow *st, Rect track, int mx)
{
    long long last = st->step;
    float best = 1e9f;
    long long pick = -1;
    for (int i = 0; i < st->n_snap; i++) {
        float d = fabsf(step_x(track, st->snaps[i], last) - (float)mx);
        if (d < best) {
            best = d;
            pick = st->snaps[i];
        }
    }
    /* the right end is "live" */
    if (fabsf(step_x(track, last, last) - (float)mx) <= best || pick == last)
        pick = -1;
    u->wish.pick_step = pick;
    tv_wish(u, &u->wish.pick);
}

void tv_timeline_draw(ViewCtx *v, TrainUi *u, Rect rc)
{
    const Theme *th = v->th;
    RenFont *sf = v->g->small;
    const TrainShow *st = v->s->train;
    long long want = st->want_snap;
    int fh = ren_font_height(sf), ty = rc.y + (rc.h - fh) / 2;
    char right[160];
    int n = st->n_snap, idx = -1;
    for (int i = 0; i < n; i++)
        if (st->snaps[i] == want)
            idx = i;
    if (want < 0)
        snprintf(right, sizeof right, _("live · step %lld"), st->step);
    else
        snprintf(right, sizeof right, _("snapshot %d / %d · step %lld"), idx + 1, n, want);
    int lw = ren_text_width(sf, _("snapshots")) + ui_px(v->g, 10);
    int rw = ren_text_width(sf, right) + ui_px(v->g, 12);
    char widest[120];
    snprintf(widest, sizeof widest, _("snapshot %d / %d · step %lld"), 40, 40, 999999LL);
    if (rw < ren_text_width(sf, widest) + ui_px(v->g, 12))
        rw = ren_text_width(sf, widest) + ui_px(v->g, 12);
    ren_text(v->r, sf, _("snapshots"), rc.x, ty, th->dim);
    ren_text(v->r, sf, right, rc.x + rc.w - rw + ui_px(v->g, 12), ty, want < 0 ? th->good : th->select);
    int pad = ui_px(v->g, 8);
    Rect track = {rc.x + lw + pad, rc.y + rc.h / 2 - 2, rc.w - lw - rw - 2 * pad, 4};
    if (track.w < 20 || n < 1)
        return;
    Rect hit = {track.x - pad, rc.y, track.w + 2 * pad, rc.h};
    u->hit.track = track;
    UiId id = ui_id_ptr(v->ui, &u->hit.track); /* pressed on the timeline: held until released */
    ui_control(v->ui, id, hit);
    int held = v->ui->active == id && v->in->down;
    if (held)
        timeline_pick(u, st, track, v->in->mx);
    ren_rect(v->r, track, th->border);
    long long last = st->step;
    int tick_h = ui_px(v->g, 6);
    for (int i = 0; i < n; i++) {
        int x = (int)lroundf(step_x(track, st->snaps[i], last));
        ren_rect(v->r, (Rect){x, track.y - tick_h, 1, 2 * tick_h + track.h}, th->dim);
    }
    long long shown = want >= 0 ? want : last;
    int kx = (int)lroundf(step_x(track, shown, last)), kr = ui_px(v->g, 7);
    ren_rect(v->r, (Rect){track.x, track.y, kx - track.x, track.h}, want < 0 ? th->good : th->select);
    Rect knob = {kx - kr, track.y + track.h / 2 - kr, 2 * kr, 2 * kr};
    ren_rect(v->r, knob, want < 0 ? th->good : th->select);
    ren_rect_line(v->r, knob, 1, th->bg);
    if (ui_over(v->in, hit) && !held)
        ui_hover_own(v, (float)shown, "%s", _("the step shown (click or drag: the model at a kept snapshot; ←/→, End for live)"));
}
