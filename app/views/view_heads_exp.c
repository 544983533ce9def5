/* view_heads_exp.c - the metrics overlay and the sorting of the all-heads
 * grid (view_heads_exp.h). */
#include "view_heads_exp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The sort button, one whole wording per metric. */
static const char *SORT_BUTTONS[HX_SORT_COUNT] = {
    N_("O  sort: as numbered"), N_("O  sort: entropy"), N_("O  sort: max weight"), N_("O  sort: first key"),
    N_("O  sort: offset share"),
};

/* The sort key of a head: smaller first (entropy: the most focused head
 * first; the others: the largest share first). */
static double sort_key(const SceneHead *m, int sort)
{
    switch (sort) {
    case HX_SORT_ENTROPY: return m->entropy;
    case HX_SORT_MAX: return -m->max_weight;
    case HX_SORT_FIRST: return -m->first_share;
    case HX_SORT_OFFSET: return -m->offset_share;
    default: return 0;
    }
}

void heads_exp_layer(const Scene *sc, const HeadsExp *x, TfAttnKind kind, int l, int NH,
                     SceneHead *m, int *order)
{
    const SceneHead *all = sc->heads[kind] ? sc->heads[kind] + (size_t)l * NH : NULL;
    for (int h = 0; h < NH && h < HX_MAX_HEADS; h++) {
        order[h] = h;
        m[h] = all ? all[h] : (SceneHead){.label = ""};
    }
    if (x->sort == HX_SORT_NONE)
        return;
    for (int i = 1; i < NH && i < HX_MAX_HEADS; i++) { /* insertion sort: stable, few heads */
        int h = order[i], j = i;
        double k = sort_key(&m[h], x->sort);
        while (j > 0 && sort_key(&m[order[j - 1]], x->sort) > k) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = h;
    }
}

void heads_exp_controls(ViewCtx *v, HeadsExp *x, Rect *body)
{
    UiFlow f = ui_flow(v->ui, *body);
    if (ui_flow_button(&f, _("M  metrics"), x->overlay))
        x->overlay = !x->overlay;
    const char *buf = x->sort >= 0 && x->sort < HX_SORT_COUNT ? _(SORT_BUTTONS[x->sort]) : "O";
    if (ui_flow_button(&f, buf, x->sort != HX_SORT_NONE)) /* the next metric */
        x->sort = (x->sort + 1) % HX_SORT_COUNT;
    int h = ui_flow_height(&f) + 4;
    body->y += h;
    body->h -= h;
}

/* The number the sort uses, or the entropy when the grid is not sorted. */
static void metric_text(const SceneHead *m, int sort, char *buf, size_t cap)
{
    switch (sort) {
    case HX_SORT_MAX: snprintf(buf, cap, _("max %.2f"), m->max_weight); break;
    case HX_SORT_FIRST: snprintf(buf, cap, _("first %.2f"), m->first_share); break;
    case HX_SORT_OFFSET: snprintf(buf, cap, _("offset %+d: %.0f%%"), m->offset, 100 * m->offset_share); break;
    default: snprintf(buf, cap, _("H %.2f nats"), m->entropy); break;
    }
}

void heads_exp_overlay(ViewCtx *v, const HeadsExp *x, Rect t, const SceneHead *m, TfAttnKind kind,
                       int h, int pointed)
{
    RenFont *f = v->g->small;
    int fh = ren_font_height(f);
    const char *label = m->label ? m->label : "";
    char num[64];
    metric_text(m, x->sort, num, sizeof num);
    Hover *hv = &v->out->hover;
    if (pointed && hv->valid && hv->head == h) { /* the numbers, however small the thumbnail */
        size_t n = strlen(hv->where);
        snprintf(hv->where + n, sizeof hv->where - n, label[0] ? " · %s · %s" : " · %s", num, _(label));
    }
    char id[32];
    snprintf(id, sizeof id, _("head %d"), h + 1);
    if (x->sort != HX_SORT_NONE && t.w >= ren_text_width(f, id) + 6 && t.h >= 3 * fh) {
        /* sorted: which head this is */
        Rect tag = {t.x, t.y, ren_text_width(f, id) + 6, fh + 2};
        ren_rect(v->r, tag, (Color){0, 0, 0, 170});
        ui_text_fit(v->r, f, id, tag.x + 3, tag.y + 1, tag.w - 4, (Color){255, 255, 255, 255});
    }
    if (!x->overlay || t.w < ren_text_width(f, "H 0.00") + 6 || t.h < 2 * fh + 4)
        return;
    int lines = label[0] && t.h >= 2 * fh + 6 ? 2 : 1;
    Rect strip = {t.x, t.y + t.h - lines * (fh + 1) - 2, t.w, lines * (fh + 1) + 2};
    ren_rect(v->r, strip, (Color){0, 0, 0, 185});
    int y = strip.y + 1;
    if (lines == 2) {
        ui_text_fit(v->r, f, _(label), strip.x + 3, y, strip.w - 4, (Color){255, 230, 120, 255});
        y += fh + 1;
    }
    ui_text_fit(v->r, f, lines == 1 && label[0] ? _(label) : num, strip.x + 3, y, strip.w - 4,
                (Color){255, 255, 255, 255});
}

int heads_exp_act(HeadsExp *x, ViewAct act)
{
    if (act == VA_METRICS)
        x->overlay = !x->overlay;
    else if (act == VA_SORT)
        x->sort = (x->sort + 1) % HX_SORT_COUNT;
    else
        return 0;
    return 1;
}
