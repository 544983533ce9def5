/* view_widgets.c - the widgets that work on a view's context (view.h):
 * the colour bar, token labels, hover reports, and the wishes a
 * view writes into its ViewOut (notice, selection, head, stage, view). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "view.h"

const char *view_tok_label(const TfTrace *tr, const TfModel *m, const TfView *tv, int axis, int i, char *buf,
                       size_t cap)
{
    return ui_token(tf_view_label(tr, m, tv, axis, i, buf, cap), buf, cap);
}

const char *view_token(const Vocab *v, int id, char *buf, size_t cap)
{
    return ui_token(vocab_token(v, id), buf, cap);
}

int ui_label_width(const Scene *sc, const TfView *tv, int axis, RenFont *f)
{
    char buf[300];
    int n = axis ? tv->cols : tv->rows, w = 0;
    for (int i = 0; i < n && i < VIEW_CAP_T; i++) {
        int k = ren_text_width(f, view_tok_label(sc->trace, sc->model, tv, axis, i, buf, sizeof buf));
        if (k > w)
            w = k;
    }
    return w;
}

void ui_hover_cell(ViewCtx *v, const TfView *tv, int r, int c)
{
    char rl[200], cl[200];
    Hover *h = &v->out->hover;
    memset(h, 0, sizeof *h);
    h->valid = 1;
    h->stage = tv->stage;
    h->layer = tv->layer;
    h->head = tv->head;
    h->b = tv->b;
    h->row = r;
    h->col = c;
    h->value = tf_view_at(tv, r, c);
    view_cell_name(v->s, tv, 0, r, rl, sizeof rl);
    view_cell_name(v->s, tv, 1, c, cl, sizeof cl);
    const StageInfo *si = stage_info(tv->stage);
    if ((si->flags & SF_HEAD) && tv->head >= 0)
        snprintf(h->where, sizeof h->where, _("layer %d head %d: row %s, col %s"), tv->layer + 1, tv->head + 1, rl,
                 cl);
    else
        snprintf(h->where, sizeof h->where, _("row %s, col %s"), rl, cl);
}

int view_key_cell(ViewCtx *v, int rows, int cols, int *r, int *c)
{
    const CellCursor *k = &v->s->cursor;
    CursorRoom *room = &v->out->cursor_room;
    if (rows < 1 || cols < 1)
        return 0;
    room->rows = rows;
    room->cols = cols;
    if (!k->on)
        return 0;
    *r = k->row < 0 ? 0 : k->row < rows ? k->row : rows - 1;
    *c = k->col < 0 ? 0 : k->col < cols ? k->col : cols - 1;
    return 1;
}

int view_key_thumb(ViewCtx *v, int lo, int n, int *thumb)
{
    const CellCursor *k = &v->s->cursor;
    if (n < 1)
        return 0;
    v->out->cursor_room.thumb_lo = lo;
    v->out->cursor_room.thumbs = n;
    *thumb = k->thumb < lo ? lo : k->thumb < lo + n ? k->thumb : lo + n - 1;
    return k->on;
}

void view_key_outline(ViewCtx *v, Rect rc)
{
    int t = ui_px(v->g, 3) > 3 ? ui_px(v->g, 3) : 3;
    ren_rect_line(v->r, (Rect){rc.x - t - 1, rc.y - t - 1, rc.w + 2 * t + 2, rc.h + 2 * t + 2}, 1, v->th->bg);
    ren_rect_line(v->r, (Rect){rc.x - t, rc.y - t, rc.w + 2 * t, rc.h + 2 * t}, t, v->th->select);
    ren_rect_line(v->r, rc, 1, v->th->bg);
}

const char *view_index_name(LabelKind k, int i, const char *label, char *buf, size_t cap)
{
    if (k == LBL_DIM)
        snprintf(buf, cap, _("dim %d"), i);
    else if (k == LBL_VOCAB)
        snprintf(buf, cap, _("'%s' (id %d)"), label, i);
    else
        snprintf(buf, cap, _("'%s' (pos %d)"), label, i);
    return buf;
}

const char *view_cell_name(const Scene *sc, const TfView *tv, int axis, int i, char *buf, size_t cap)
{
    char lab[160];
    view_tok_label(sc->trace, sc->model, tv, axis, i, lab, sizeof lab);
    int idx = axis && tv->col_kind == LBL_DIM ? tv->col0 + i : i;
    return view_index_name(axis ? tv->col_kind : tv->row_kind, idx, lab, buf, cap);
}

void ui_colorbar(ViewCtx *v, Rect rc, CmapId cmap, float lo, float hi, const char *label)
{
    const Theme *th = v->th;
    RenFont *f = v->g->small;
    int fh = ren_font_height(f);
    Rect bar = {rc.x, rc.y + fh + 2, rc.w, rc.h - 2 * fh - 6};
    if (bar.h < 8)
        bar.h = 8;
    /* vertical bar: high values at the top */
    for (int i = 0; i < bar.h; i++) {
        float t = 1.0f - (float)i / (float)(bar.h - 1 > 0 ? bar.h - 1 : 1);
        ren_rect(v->r, (Rect){bar.x, bar.y + i, bar.w, 1}, cmap_color(cmap, t));
    }
    ren_rect_line(v->r, bar, 1, th->border);
    char a[32], b[32];
    ui_fmt(a, sizeof a, hi);
    ui_fmt(b, sizeof b, lo);
    ren_text(v->r, f, a, rc.x, rc.y, th->dim);
    ren_text(v->r, f, b, rc.x, bar.y + bar.h + 2, th->dim);
    if (label && lo < 0 && hi > 0) {
        int y0 = bar.y + (int)lroundf((hi / (hi - lo)) * (bar.h - 1));
        ren_rect(v->r, (Rect){bar.x - 3, y0, bar.w + 6, 1}, th->text);
        ren_text(v->r, f, "0", bar.x + bar.w + 4, y0 - fh / 2, th->dim);
    }
}

void ui_hover_own(ViewCtx *v, float value, const char *fmt, ...)
{
    Hover *h = &v->out->hover;
    memset(h, 0, sizeof *h);
    h->valid = 1;
    h->stage = v->s->pos.stage;
    h->own = 1;
    h->value = value;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(h->where, sizeof h->where, fmt, ap);
    va_end(ap);
}

StageId ui_attn_stage(const Scene *sc, AttnPart part, int *layer)
{
    StagePos p = sc->pos;
    *layer = (stage_info(p.stage)->flags & SF_LAYER) ? p.layer : 0;
    return stage_attn_part(stage_attn_block(p.stage), part);
}

void ui_draw_inside(ViewCtx *v, void (*draw)(ViewCtx *v))
{
    if (v->area.w < 40 || v->area.h < 30)
        return;
    ren_clip_push(v->r, v->area);
    draw(v);
    ren_clip_pop(v->r);
}

/* ---- wishes of a view, for the window to apply ---- */

void view_notice(ViewCtx *v, int error, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->out->notice, sizeof v->out->notice, fmt, ap);
    va_end(ap);
    v->out->notice_set = 1;
    v->out->notice_error = error;
}

void view_select(ViewCtx *v, int side, int index)
{
    v->out->sel_set = 1;
    v->out->sel = (Selection){side, index};
}

void view_toggle_select(ViewCtx *v, int side, int index)
{
    if (side == 1 && v->in && (v->in->mod & MOD_ALT)) { /* Alt+click a source token: hide it */
        v->out->exp_hide_set = 1;
        v->out->exp_hide = index;
        return;
    }
    const Selection *cur = &v->s->sel;
    view_select(v, cur->side == side && cur->index == index ? 0 : side, index);
}

void view_set_head(ViewCtx *v, int head)
{
    v->out->head_set = 1;
    v->out->head = head;
}

void view_set_batch(ViewCtx *v, int b)
{
    v->out->batch_set = 1;
    v->out->batch = b;
}

void view_goto(ViewCtx *v, StageId st, int layer)
{
    v->out->go_set = 1;
    v->out->go_stage = st;
    v->out->go_layer = layer;
}

void view_show(ViewCtx *v, ViewId view)
{
    v->out->view_set = 1;
    v->out->view = view;
}

uint64_t ui_layer_key(const ViewCtx *v, unsigned tag, Rect at, const uint64_t *w, int n)
{
    enum { OWN = 24, SHARED = 7 };
    uint64_t all[OWN + SHARED];
    n = n < 0 ? 0 : n > OWN ? OWN : n;
    memcpy(all, w, (size_t)n * sizeof *w);
    uint32_t scale;
    memcpy(&scale, &v->g->scale, sizeof scale);
    uint64_t shared[SHARED] = {(uint64_t)at.x, (uint64_t)at.y, (uint64_t)at.w, (uint64_t)at.h, scale,
                               (uint64_t)(uintptr_t)v->th, (uint64_t)v->s->lang};
    memcpy(all + n, shared, sizeof shared);
    return gfx_key(tag, all, n + SHARED);
}
