/* view_qkmap.c - one head's queries and keys in one plane (AttentionViz):
 * the keys moved and both clouds scaled so that the scores do not change,
 * then the two principal axes of all the points (qkmap.h). A query lies
 * near the keys it attends to. Queries are filled discs, keys hollow
 * squares, in two colours; hovering a point names its token, and a query
 * draws lines to the keys it weights most (thicker for more weight). The
 * token selected elsewhere is ringed. Without a mouse the keyboard's cell
 * picks a point: Ctrl+↑ ↓ which one, Ctrl+← → a query or a key. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "view.h"

#define QK_TOP 3 /* lines from a hovered query */

static void disc(Ren *r, float x, float y, float rad, Color c)
{
    enum { SEG = 14 };
    float xy[SEG * 6];
    Color col[SEG * 3];
    for (int i = 0; i < SEG; i++) {
        float a0 = 6.2831853f * i / SEG, a1 = 6.2831853f * (i + 1) / SEG;
        float *p = xy + i * 6;
        p[0] = x, p[1] = y;
        p[2] = x + rad * cosf(a0), p[3] = y + rad * sinf(a0);
        p[4] = x + rad * cosf(a1), p[5] = y + rad * sinf(a1);
        col[i * 3] = col[i * 3 + 1] = col[i * 3 + 2] = c;
    }
    ren_triangles(r, xy, col, SEG * 3);
}

typedef struct Map {
    Rect plot;
    double x0, y0, scale; /* screen = plot centre + (coord - centre) * scale */
} Map;

static void to_screen(const Map *m, const double *xy, float *sx, float *sy)
{
    *sx = (float)(m->plot.x + m->plot.w / 2.0 + (xy[0] - m->x0) * m->scale);
    *sy = (float)(m->plot.y + m->plot.h / 2.0 - (xy[1] - m->y0) * m->scale);
}


static void qk_draw(ViewCtx *v)
{
    const Scene *sc = v->s;
    const SceneQk *q = sc->qk;
    RenFont *ui = v->g->ui, *f = v->g->small;
    int fh = ren_font_height(f), uh = ren_font_height(ui);
    float s = v->g->scale;
    Rect a = {v->area.x + 8, v->area.y + 6, v->area.w - 16, v->area.h - 12};
    char buf[400], tok[300];
    if (!q) {
        ui_paragraph(v->r, f, sc->qk_error && sc->qk_error[0] ? sc->qk_error : _("No head to map here."), a.x, a.y,
                     a.w, v->th->warn);
        return;
    }
    snprintf(buf, sizeof buf,
             q->kind == TF_ATTN_ENC   ? _("Queries and keys · encoder self-attention, layer %d, head %d")
             : q->kind == TF_ATTN_DEC ? _("Queries and keys · decoder self-attention, layer %d, head %d")
                                      : _("Queries and keys · cross-attention, layer %d, head %d"),
             q->layer + 1, q->head + 1);
    ui_text_fit(v->r, ui, buf, a.x, a.y, a.w, v->th->text);
    int y = a.y + uh + 2;
    snprintf(buf, sizeof buf,
             _("Keys moved so their mean is the queries' mean, q scaled by c and k by 1/c (the scores do not "
               "change), then the two main axes of all points: they hold %.0f%% and %.0f%% of the variance. "
               "A query lies near the keys it attends to; hover one to see its strongest keys."),
             100 * q->explained[0], 100 * q->explained[1]);
    y += ui_paragraph(v->r, f, buf, a.x, y, a.w, v->th->dim) + 6;
    /* the legend: a disc and a square, two colours */
    Color cq = v->th->accent, ck = v->th->accent2;
    float r0 = 5 * s;
    disc(v->r, (float)a.x + r0, (float)y + fh / 2.0f, r0, cq);
    int x = a.x + (int)(3 * r0) + 2;
    x += ren_text(v->r, f, _("query"), x, y, v->th->text) + (int)(16 * s);
    ren_rect_line(v->r, (Rect){x, y + fh / 2 - (int)r0, (int)(2 * r0), (int)(2 * r0)}, 2, ck);
    x += (int)(3 * r0);
    ren_text(v->r, f, _("key"), x, y, v->th->text);
    y += fh + 6;
    Map m;
    m.plot = (Rect){a.x, y, a.w, a.y + a.h - y};
    if (m.plot.h < 40)
        return;
    ren_rect(v->r, m.plot, v->th->panel);
    double lo[2] = {1e300, 1e300}, hi[2] = {-1e300, -1e300};
    for (int i = 0; i < q->nq + q->nk; i++) {
        const double *p = i < q->nq ? q->q + 2 * i : q->k + 2 * (i - q->nq);
        for (int d = 0; d < 2; d++)
            lo[d] = fmin(lo[d], p[d]), hi[d] = fmax(hi[d], p[d]);
    }
    double span = fmax(hi[0] - lo[0], hi[1] - lo[1]);
    int margin = (int)(60 * s);
    m.scale = span > 0 ? fmin((m.plot.w - 2 * margin) / (hi[0] - lo[0] + 1e-12), (m.plot.h - 2 * margin) / (hi[1] - lo[1] + 1e-12)) : 1;
    m.x0 = (lo[0] + hi[0]) / 2;
    m.y0 = (lo[1] + hi[1]) / 2;
    /* the axes through the joint mean (0, 0) */
    float ox, oy;
    double zero[2] = {0, 0};
    to_screen(&m, zero, &ox, &oy);
    ren_line(v->r, (float)m.plot.x, oy, (float)(m.plot.x + m.plot.w), oy, 1, v->th->border);
    ren_line(v->r, ox, (float)m.plot.y, ox, (float)(m.plot.y + m.plot.h), 1, v->th->border);
    ren_text(v->r, f, _("axis 1"), m.plot.x + m.plot.w - ren_text_width(f, _("axis 1")) - 4, (int)oy + 2, v->th->dim);
    ren_text(v->r, f, _("axis 2"), (int)ox + 4, m.plot.y + 2, v->th->dim);
    /* the point under the mouse */
    int hov = -1;
    float best = (10 * s) * (10 * s);
    for (int i = 0; i < q->nq + q->nk; i++) {
        float px, py;
        to_screen(&m, i < q->nq ? q->q + 2 * i : q->k + 2 * (i - q->nq), &px, &py);
        float dx = px - v->in->mx, dy = py - v->in->my;
        if (ui_over(v->in, m.plot) && dx * dx + dy * dy < best)
            best = dx * dx + dy * dy, hov = i;
    }
    /* the keyboard's point when the mouse is over none: the cell's column
     * 0 a query, 1 a key, its row which one */
    int kr, kc, keyed = 0;
    if (view_key_cell(v, q->nq > q->nk ? q->nq : q->nk, 2, &kr, &kc) && hov < 0) {
        hov = kc == 0 ? (kr < q->nq ? kr : q->nq - 1) : q->nq + (kr < q->nk ? kr : q->nk - 1);
        keyed = 1;
    }
    const Vocab *qv = q->kind == TF_ATTN_ENC ? &sc->model->src_vocab : &sc->model->tgt_vocab;
    const Vocab *kv = q->kind == TF_ATTN_DEC ? &sc->model->tgt_vocab : &sc->model->src_vocab;
    /* lines from the hovered query to its strongest keys */
    if (hov >= 0 && hov < q->nq) {
        const float *w = q->w + (size_t)hov * q->nk;
        int used[QK_TOP];
        for (int t = 0; t < QK_TOP && t < q->nk; t++) {
            int bj = -1;
            for (int j = 0; j < q->nk; j++) {
                int dup = 0;
                for (int u = 0; u < t; u++)
                    dup |= used[u] == j;
                if (!dup && (bj < 0 || w[j] > w[bj]))
                    bj = j;
            }
            used[t] = bj;
            float x0, y0, x1, y1;
            to_screen(&m, q->q + 2 * hov, &x0, &y0);
            to_screen(&m, q->k + 2 * bj, &x1, &y1);
            ren_line(v->r, x0, y0, x1, y1, 1 + 5 * w[bj] * s, ui_mix(v->th->panel, ck, 0.4f + 0.6f * w[bj]));
            view_token(kv, q->ktok[bj], tok, sizeof tok);
            snprintf(buf, sizeof buf, "%s %.2f", tok, w[bj]);
            ren_text(v->r, f, buf, (int)x1 + 8, (int)y1 + 4, v->th->text);
        }
    }
    /* the points: keys, then queries over them */
    const Selection *sel = &sc->sel;
    for (int i = q->nq + q->nk - 1; i >= 0; i--) {
        int isq = i < q->nq, idx = isq ? i : i - q->nq;
        float px, py;
        to_screen(&m, isq ? q->q + 2 * idx : q->k + 2 * idx, &px, &py);
        int pos = isq ? q->qpos[idx] : q->kpos[idx];
        int side = isq ? (q->kind == TF_ATTN_ENC ? 1 : 2) : (q->kind == TF_ATTN_DEC ? 2 : 1);
        if (sel->side == side && sel->index == pos) /* the token selected elsewhere */
            ren_rect_line(v->r, (Rect){(int)(px - 9 * s), (int)(py - 9 * s), (int)(18 * s), (int)(18 * s)}, 1,
                          v->th->select);
        if (isq)
            disc(v->r, px, py, (i == hov ? 7 : 5) * s, cq);
        else
            ren_rect_line(v->r, (Rect){(int)(px - 5 * s), (int)(py - 5 * s), (int)(10 * s), (int)(10 * s)},
                          i == hov ? 3 : 2, ck);
        /* a label beside every point when there are few */
        if (q->nq + q->nk <= 40 || i == hov) {
            view_token(isq ? qv : kv, isq ? q->qtok[idx] : q->ktok[idx], tok, sizeof tok);
            ren_text(v->r, f, tok, (int)(px + 8 * s), (int)(py - fh / 2.0f), isq ? cq : ck);
        }
    }
    if (hov >= 0) {
        int isq = hov < q->nq, idx = isq ? hov : hov - q->nq;
        if (keyed) { /* its ring, round the point */
            float px, py;
            to_screen(&m, isq ? q->q + 2 * idx : q->k + 2 * idx, &px, &py);
            int r = (int)(9 * s);
            view_key_outline(v, (Rect){(int)px - r, (int)py - r, 2 * r, 2 * r});
        }
        view_token(isq ? qv : kv, isq ? q->qtok[idx] : q->ktok[idx], tok, sizeof tok);
        const double *p = isq ? q->q + 2 * idx : q->k + 2 * idx;
        ui_hover_own(v, (float)p[0], isq ? _("query %s (position %d) at (%.3f, %.3f)") : _("key %s (position %d) at (%.3f, %.3f)"),
                     tok, isq ? q->qpos[idx] : q->kpos[idx], p[0], p[1]);
    }
}

static void view_qkmap(ViewCtx *v)
{
    ui_draw_inside(v, qk_draw);
}

const ViewDef VIEW_QKMAP_DEF = {"qk-map", N_("Q/K map"), view_qkmap, NULL, 0, NULL, VIEW_NEED_STACK, VIEW_WANT_QK};
