/* view_side.c - "side by side": the stage shown, from the normal pass on
 * the left and from the pass under the experiment on the right, on one
 * colour scale, each with a caption saying which pass it is. The lesson
 * "Why √d_k" puts the scaled weights beside the unscaled ones with it
 * (`@view side` under `@experiment no-scale`): the same rows, the same
 * colours, and one look shows how much sharper the right side is.
 *
 * Without an experiment (no normal pass beside it) or on a stage that is
 * not a matrix, it is the plain heatmap with a line saying why. The mouse
 * over a cell of either side says its value and which pass it came from;
 * "how it was computed" is left to the heatmap view, which shows one pass. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "view.h"

#define SIDE_GAP 16

/* The largest finite |value| of a view (at least something > 0). */
static float abs_max(const TfView *tv, float m)
{
    for (int r = 0; r < tv->rows; r++)
        for (int c = 0; c < tv->cols; c++) {
            float x = fabsf(tf_view_at(tv, r, c));
            if (isfinite(x) && x > m)
                m = x;
        }
    return m;
}

/* One side: the heatmap of tv with its caption, drawn through a copy of
 * the scene that names this pass (its own picture cache, no difference
 * mode); the hover it makes says which pass the value is from. */
static void side_draw(ViewCtx *v, const TfView *tv, Rect rc, HeatOpts o, const TfTrace *tr, uint64_t tag,
                      const char *pass)
{
    Scene s = *v->s;
    s.trace = tr;
    s.cmp = 0;
    s.version = v->s->version ^ tag;
    ViewCtx sv = *v;
    sv.s = &s;
    int had = v->out->hover.valid;
    heat_draw(&sv, tv, rc, &o);
    Hover *h = &v->out->hover;
    if (h->valid && !had && ui_over(v->in, rc)) {
        size_t n = strlen(h->where);
        snprintf(h->where + n, sizeof h->where - n, " · %s", pass);
        h->own = 1; /* the value of one of two passes: no "how it was computed" */
    }
}

static void view_side(ViewCtx *v)
{
    const Scene *sc = v->s;
    StagePos p = sc->pos;
    const StageInfo *si = stage_info(p.stage);
    int head = sc->head;
    if ((si->flags & SF_HEAD) && head < 0)
        head = 0;
    TfView bv, ev;
    TfErr err;
    int ok = sc->base && sc->exp_trace && si->kind != SK_TOKENS &&
             !tf_view(sc->base, p.stage, p.layer, head, sc->batch, &bv, &err) &&
             !tf_view(sc->exp_trace, p.stage, p.layer, head, sc->batch, &ev, &err) && bv.rows == ev.rows &&
             bv.cols == ev.cols;
    Rect A = v->area;
    RenFont *uf = v->g->ui;
    if (!ok) {
        const char *why = !sc->exp || tf_exp_is_none(sc->exp)
                              ? _("Side by side needs an experiment (E): the normal pass on the left, the "
                                  "experiment's on the right. The heatmap of this pass:")
                              : _("Side by side: the normal pass is still being computed, or this stage is not a "
                                  "matrix. The heatmap of the pass shown:");
        int h = ui_paragraph(v->r, uf, why, A.x, A.y, A.w, v->th->dim);
        v->area.y += h + 6;
        v->area.h -= h + 6;
        view_matrix(v);
        v->area = A;
        return;
    }
    char desc[256], right[320];
    tf_exp_describe(sc->exp, desc, sizeof desc);
    snprintf(right, sizeof right, _("experiment: %s"), desc);
    const char *left = _("normal: as trained");
    char axes[256];
    HeatOpts o = {0};
    o.prob = si->kind == SK_WEIGHTS || si->kind == SK_PROBS;
    o.show_values = 1;
    o.colorbar = 1; /* on both sides: the same range twice */
    o.zeros_marked = si->kind == SK_HIDDEN;
    o.pz_slot = -1;
    const char *ax = view_axes_text(&ev, si->kind, axes, sizeof axes);
    if (!o.prob) { /* one scale for both: the larger side's range */
        float m = abs_max(&ev, abs_max(&bv, 0));
        o.lo = m > 0 ? -m : -1;
        o.hi = m > 0 ? m : 1;
    }
    RenFont *sf = v->g->small;
    int sh = ren_font_height(sf);
    ui_text_fit(v->r, sf, _("One colour scale for both sides: the same value has the same colour."), A.x, A.y, A.w,
                v->th->dim);
    if (ax)
        ui_text_fit(v->r, sf, ax, A.x, A.y + sh + 2, A.w, v->th->dim);
    int top = (ax ? 2 : 1) * (sh + 2) + 6;
    Rect body = {A.x, A.y + top, A.w, A.h - top};
    int w = (body.w - SIDE_GAP) / 2;
    Rect lr = {body.x, body.y, w, body.h}, rr = {body.x + w + SIDE_GAP, body.y, body.w - w - SIDE_GAP, body.h};
    o.caption = left;
    side_draw(v, &bv, lr, o, sc->base, 0x2000000000000000ull, _("normal pass"));
    o.caption = right;
    side_draw(v, &ev, rr, o, sc->exp_trace, 0, _("the experiment's pass"));
}

const ViewDef VIEW_SIDE_DEF = {"side", N_("Side by side"), view_side, NULL, 0, NULL, VIEW_NEED_STAGE, 0};
