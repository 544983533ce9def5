/* view_qkmap.c - one head's queries and keys in one plane (AttentionViz):
 * the keys moved and both clouds scaled so that the scores do not change,
 * then the two principal axes of all the points (qkmap.h). A query lies
 * near the keys it attends to. Queries are filled discs, keys hollow
 * squares, in two colours; hovering a point names its token (and its
 * sentence), and a query draws lines to the keys of its sentence it
 * weights most (thicker for more weight). The token selected elsewhere is
 * ringed. Over a data set (the toolbar's Data set: the model's held-out
 * pairs or a typed "source<TAB>reference" file) every pair's points are
 * small dots and the sentence shown keeps its large, labelled marks; the
 * dots are drawn in batches of triangles into a cached layer, so
 * thousands stay fluid. Without a mouse the keyboard's cell picks a point:
 * Ctrl+↑ ↓ which one, Ctrl+← → a query or a key. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hash.h"
#include "view.h"

#define QK_TOP 3      /* lines from a hovered query */
#define QK_BATCH 2048 /* triangles drawn in one call */

typedef struct QkState {
    char tsv[512]; /* a "source<TAB>reference" file for the data set ("": the model's data) */
} QkState;

/* Triangles gathered and drawn in one ren_triangles call each QK_BATCH. */
typedef struct Tris {
    Ren *r;
    int n; /* triangles held */
    float xy[QK_BATCH * 6];
    Color c[QK_BATCH * 3];
} Tris;

static void tris_flush(Tris *t)
{
    if (t->n)
        ren_triangles(t->r, t->xy, t->c, t->n * 3);
    t->n = 0;
}

static void tri(Tris *t, float x0, float y0, float x1, float y1, float x2, float y2, Color c)
{
    if (t->n == QK_BATCH)
        tris_flush(t);
    float *p = t->xy + t->n * 6;
    p[0] = x0, p[1] = y0, p[2] = x1, p[3] = y1, p[4] = x2, p[5] = y2;
    t->c[t->n * 3] = t->c[t->n * 3 + 1] = t->c[t->n * 3 + 2] = c;
    t->n++;
}

/* A filled disc of seg segments. */
static void disc(Tris *t, float x, float y, float rad, int seg, Color c)
{
    for (int i = 0; i < seg; i++) {
        float a0 = 6.2831853f * i / seg, a1 = 6.2831853f * (i + 1) / seg;
        tri(t, x, y, x + rad * cosf(a0), y + rad * sinf(a0), x + rad * cosf(a1), y + rad * sinf(a1), c);
    }
}

static void quad(Tris *t, float x0, float y0, float x1, float y1, Color c)
{
    tri(t, x0, y0, x1, y0, x1, y1, c);
    tri(t, x0, y0, x1, y1, x0, y1, c);
}

/* A hollow square of half-width h and line width lw, centred on (x, y). */
static void square(Tris *t, float x, float y, float h, float lw, Color c)
{
    quad(t, x - h, y - h, x + h, y - h + lw, c);
    quad(t, x - h, y + h - lw, x + h, y + h, c);
    quad(t, x - h, y - h + lw, x - h + lw, y + h - lw, c);
    quad(t, x + h - lw, y - h + lw, x + h, y + h - lw, c);
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

/* Labels placed so far this frame, so that the next one can keep off them. */
#define QK_LABELS 96
typedef struct Placed {
    Rect r[QK_LABELS];
    int n;
} Placed;

static int overlaps(Rect a, Rect b)
{
    return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

/* Where a label w x h goes beside a mark of radius rad at (px, py): right,
 * left, above, below or a corner, the first place that is inside the plot
 * and clear of the labels and marks placed (else the right), which it then
 * takes. */
static Rect place_label(Placed *pl, Rect plot, float px, float py, float rad, int w, int h)
{
    Rect c[8] = {{(int)(px + rad + 3), (int)(py - h / 2.0f), w, h},
                 {(int)(px - rad - 3) - w, (int)(py - h / 2.0f), w, h},
                 {(int)(px - w / 2.0f), (int)(py - rad - 2) - h, w, h},
                 {(int)(px - w / 2.0f), (int)(py + rad + 2), w, h},
                 {(int)(px + rad), (int)(py - rad) - h, w, h},
                 {(int)(px + rad), (int)(py + rad), w, h},
                 {(int)(px - rad) - w, (int)(py - rad) - h, w, h},
                 {(int)(px - rad) - w, (int)(py + rad), w, h}};
    int pick = 0;
    for (int k = 0; k < 8; k++) {
        Rect r = c[k];
        int ok = r.x >= plot.x && r.y >= plot.y && r.x + r.w <= plot.x + plot.w && r.y + r.h <= plot.y + plot.h;
        for (int i = 0; ok && i < pl->n; i++)
            ok = !overlaps(r, pl->r[i]);
        if (ok) {
            pick = k;
            break;
        }
    }
    if (pl->n < QK_LABELS)
        pl->r[pl->n++] = c[pick];
    return c[pick];
}

/* Point i (queries first, then keys): its coordinates, sentence, token. */
static const double *pt_xy(const SceneQk *q, int i)
{
    return i < q->nq ? q->q + 2 * i : q->k + 2 * (i - q->nq);
}

static int pt_sent(const SceneQk *q, int i)
{
    return i < q->nq ? q->qsent[i] : q->ksent[i - q->nq];
}

static void pt_token(const Scene *sc, const SceneQk *q, int i, char *tok, size_t cap)
{
    int isq = i < q->nq;
    const Vocab *qv = q->kind == TF_ATTN_ENC ? &sc->model->src_vocab : &sc->model->tgt_vocab;
    const Vocab *kv = q->kind == TF_ATTN_DEC ? &sc->model->tgt_vocab : &sc->model->src_vocab;
    view_token(isq ? qv : kv, isq ? q->qtok[i] : q->ktok[i - q->nq], tok, cap);
}

/* The toolbar: the sentence alone or a data set (the model's data or a
 * typed file), and what was gathered. Returns its height. */
static int toolbar(ViewCtx *v, QkState *st, int x0, int y, int w)
{
    const SceneQkData *d = &v->s->qkd;
    RenFont *f = v->g->small;
    float s = v->g->scale;
    int fh = ren_font_height(f), pad = (int)(6 * s), h = fh + (int)(10 * s), x = x0;
    const char *one = _("This sentence"), *set = _("Data set");
    int w1 = ren_text_width(f, one) + 2 * pad, w2 = ren_text_width(f, set) + 2 * pad;
    if (ui_button(v->ui, (Rect){x, y, w1, h}, one, !d->on) & UI_CLICKED) {
        v->out->qkd_set = 1;
        v->out->qkd_on = 0;
    }
    x += w1 + 4;
    if ((ui_button(v->ui, (Rect){x, y, w2, h}, set, d->on) & UI_CLICKED) && d->state != 1) {
        v->out->qkd_set = 1;
        v->out->qkd_on = 1;
        snprintf(v->out->qkd_file, sizeof v->out->qkd_file, "%s", st->tsv);
    }
    x += w2 + pad;
    int fw = (int)(200 * s), rows = 1;
    if (x + fw > x0 + w - (int)(120 * s)) /* the status keeps some room */
        fw = x0 + w - (int)(120 * s) - x;
    if (fw >= (int)(90 * s)) {
        ui_textbox(v->ui, ui_id_ptr(v->ui, st->tsv), st->tsv, sizeof st->tsv, (Rect){x, y, fw, h},
                   _("pairs.tsv (empty: the model's data)"), UI_SMALL);
        x += fw + pad;
    } else if (d->on) { /* narrow: over a data set, the file's field on a line of its own (Data set again reloads) */
        fw = w < (int)(360 * s) ? w : (int)(360 * s);
        ui_textbox(v->ui, ui_id_ptr(v->ui, st->tsv), st->tsv, sizeof st->tsv, (Rect){x0, y + h + 4, fw, h},
                   _("pairs.tsv (empty: the model's data)"), UI_SMALL);
        rows = 2;
    }
    char msg[400];
    Color c = v->th->dim;
    msg[0] = 0;
    if (d->on && d->state == 1) {
        int pw = (int)(80 * s);
        Rect bar = {x, y + h / 2 - 3, pw, 6};
        ren_rect(v->r, bar, v->th->panel2);
        ren_rect(v->r, (Rect){bar.x, bar.y, d->total ? bar.w * d->done / d->total : 0, bar.h}, v->th->accent);
        x += pw + pad;
        snprintf(msg, sizeof msg, _("gathering: %d of %d pairs"), d->done, d->total);
        v->out->wake_at = v->s->now + 0.03; /* frames keep coming */
    } else if (d->on && d->state == 3) {
        snprintf(msg, sizeof msg, "%s", d->error ? d->error : "");
        c = v->th->warn;
    } else if (d->on && d->state == 2 && v->s->qk && v->s->qk->n_sent > 1) {
        snprintf(msg, sizeof msg, _("%d queries, %d keys · %s pairs + this sentence"), v->s->qk->nq, v->s->qk->nk,
                 d->what ? d->what : "");
    }
    if (msg[0])
        ui_text_fit(v->r, f, msg, x, y + (h - fh) / 2, x0 + w - x, c);
    return rows * h + (rows - 1) * 4;
}

/* Label of point i beside it: the token, and the sentence of a data set's pair. */
static void hover_label(ViewCtx *v, const SceneQk *q, int i, float px, float py, Rect plot)
{
    RenFont *f = v->g->small;
    int fh = ren_font_height(f);
    char tok[300], buf[900];
    pt_token(v->s, q, i, tok, sizeof tok);
    const char *text = q->sent[pt_sent(q, i)].text;
    snprintf(buf, sizeof buf, text ? "%s · %s" : "%s", tok, text ? text : "");
    int tw = ren_text_width(f, buf) + 10, x = (int)px + 12, y = (int)py - fh - 10;
    if (x + tw > plot.x + plot.w)
        x = plot.x + plot.w - tw;
    if (x < plot.x)
        x = plot.x;
    if (y < plot.y)
        y = (int)py + 10;
    Rect box = {x, y, tw < plot.w ? tw : plot.w, fh + 6};
    ren_rect(v->r, box, v->th->panel2);
    ren_rect_line(v->r, box, 1, v->th->border);
    ui_text_fit(v->r, f, buf, x + 5, y + 3, box.w - 10, v->th->text);
}

static void qk_draw(ViewCtx *v)
{
    const Scene *sc = v->s;
    const SceneQk *q = sc->qk;
    QkState *st = v->st;
    RenFont *ui = v->g->ui, *f = v->g->small;
    int fh = ren_font_height(f), uh = ren_font_height(ui);
    float s = v->g->scale;
    Rect a = {v->area.x + 8, v->area.y + 6, v->area.w - 16, v->area.h - 12};
    char buf[600], tok[300];
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
    int y = a.y + uh + 2, data = q->n_sent > 1;
    snprintf(buf, sizeof buf,
             _("Keys moved so their mean is the queries' mean, q scaled by c and k by 1/c (the scores do not "
               "change), then the two main axes of all points: they hold %.0f%% and %.0f%% of the variance. "
               "A query lies near the keys it attends to; hover one to see its strongest keys."),
             100 * q->explained[0], 100 * q->explained[1]);
    y += ui_paragraph(v->r, f, buf, a.x, y, a.w, v->th->dim) + 6;
    if (st)
        y += toolbar(v, st, a.x, y, a.w) + 6;
    /* the legend: a disc and a square, two colours (and, over a data set,
     * the sentence shown large, the pairs small) */
    Color cq = v->th->accent, ck = v->th->accent2;
    Color dq = ui_mix(v->th->panel, cq, 0.6f), dkc = ui_mix(v->th->panel, ck, 0.6f);
    static Tris T;
    T.r = v->r;
    T.n = 0;
    float r0 = 5 * s;
    disc(&T, (float)a.x + r0, (float)y + fh / 2.0f, r0, 14, cq);
    int x = a.x + (int)(3 * r0) + 2;
    x += ren_text(v->r, f, _("query"), x, y, v->th->text) + (int)(16 * s);
    square(&T, (float)x + r0, (float)y + fh / 2.0f, r0, 2, ck);
    x += (int)(3 * r0);
    x += ren_text(v->r, f, _("key"), x, y, v->th->text) + (int)(16 * s);
    if (data)
        ui_text_fit(v->r, f, _("large, labelled: this sentence · dots: the data set's pairs"), x, y, a.x + a.w - x,
                    v->th->dim);
    tris_flush(&T);
    y += fh + 6;
    Map m;
    m.plot = (Rect){a.x, y, a.w, a.y + a.h - y};
    if (m.plot.h < 40)
        return;
    int n = q->nq + q->nk;
    double lo[2] = {1e300, 1e300}, hi[2] = {-1e300, -1e300};
    for (int i = 0; i < n; i++) {
        const double *p = pt_xy(q, i);
        for (int d = 0; d < 2; d++)
            lo[d] = fmin(lo[d], p[d]), hi[d] = fmax(hi[d], p[d]);
    }
    double span = fmax(hi[0] - lo[0], hi[1] - lo[1]);
    int margin = (int)((data ? 24 : 60) * s);
    m.scale = span > 0 ? fmin((m.plot.w - 2 * margin) / (hi[0] - lo[0] + 1e-12), (m.plot.h - 2 * margin) / (hi[1] - lo[1] + 1e-12)) : 1;
    m.x0 = (lo[0] + hi[0]) / 2;
    m.y0 = (lo[1] + hi[1]) / 2;
    /* the plot, its axes through the joint mean (0, 0) and the data set's
     * pairs as small dots (keys, then queries over them): one cached layer,
     * drawn again only when the points or the plot change */
    float ox, oy;
    double zero[2] = {0, 0};
    to_screen(&m, zero, &ox, &oy);
    GfxLayer layer;
    uint64_t sum = tf_fnv_bytes(tf_fnv_bytes(TF_FNV_SEED, q->q, (size_t)q->nq * 2 * sizeof *q->q), q->k,
                                (size_t)q->nk * 2 * sizeof *q->k);
    uint64_t kw[] = {(uint64_t)q->kind, (uint64_t)q->layer, (uint64_t)q->head, (uint64_t)q->nq, (uint64_t)q->nk,
                     (uint64_t)q->n_sent, sum};
    if (gfx_layer_begin(v->g, &layer, sc->version, ui_layer_key(v, 0x51, m.plot, kw, (int)(sizeof kw / sizeof kw[0])),
                        m.plot, v->th->panel)) {
        ren_clip_push(v->r, m.plot);
        ren_line(v->r, (float)m.plot.x, oy, (float)(m.plot.x + m.plot.w), oy, 1, v->th->border);
        ren_line(v->r, ox, (float)m.plot.y, ox, (float)(m.plot.y + m.plot.h), 1, v->th->border);
        ren_text(v->r, f, _("axis 1"), m.plot.x + m.plot.w - ren_text_width(f, _("axis 1")) - 4, (int)oy + 2,
                 v->th->dim);
        ren_text(v->r, f, _("axis 2"), (int)ox + 4, m.plot.y + 2, v->th->dim);
        for (int i = n - 1; data && i >= 0; i--) {
            if (pt_sent(q, i) == 0)
                continue;
            float px, py;
            to_screen(&m, pt_xy(q, i), &px, &py);
            if (i < q->nq)
                disc(&T, px, py, 2.2f * s, 6, dq);
            else
                square(&T, px, py, 2.4f * s, 1.0f, dkc);
        }
        tris_flush(&T);
        ren_clip_pop(v->r);
    }
    gfx_layer_end(v->g, &layer);
    ren_clip_push(v->r, m.plot);
    /* the point under the mouse: the sentence shown wins a tie */
    int hov = -1;
    float best = (10 * s) * (10 * s);
    if (ui_over(v->in, m.plot))
        for (int i = 0; i < n; i++) {
            float px, py;
            to_screen(&m, pt_xy(q, i), &px, &py);
            float dx = px - v->in->mx, dy = py - v->in->my, d2 = dx * dx + dy * dy;
            if (d2 < best || (d2 == best && hov >= 0 && pt_sent(q, i) == 0 && pt_sent(q, hov) != 0))
                best = d2, hov = i;
        }
    /* the keyboard's point when the mouse is over none: the cell's column
     * 0 a query, 1 a key, its row which one */
    int kr, kc, keyed = 0;
    if (view_key_cell(v, q->nq > q->nk ? q->nq : q->nk, 2, &kr, &kc) && hov < 0) {
        hov = kc == 0 ? (kr < q->nq ? kr : q->nq - 1) : q->nq + (kr < q->nk ? kr : q->nk - 1);
        keyed = 1;
    }
    int hs = hov >= 0 ? pt_sent(q, hov) : -1; /* the hovered point's sentence */
    /* lines from the hovered query to the strongest keys of its sentence */
    if (hov >= 0 && hov < q->nq) {
        const SceneQkSent *se = &q->sent[hs];
        const float *w = q->w + se->wofs + (size_t)(hov - se->q0) * se->nk;
        int used[QK_TOP];
        for (int t = 0; t < QK_TOP && t < se->nk; t++) {
            int bj = -1;
            for (int j = 0; j < se->nk; j++) {
                int dup = 0;
                for (int u = 0; u < t; u++)
                    dup |= used[u] == j;
                if (!dup && (bj < 0 || w[j] > w[bj]))
                    bj = j;
            }
            used[t] = bj;
            float x0, y0, x1, y1;
            to_screen(&m, q->q + 2 * hov, &x0, &y0);
            to_screen(&m, q->k + 2 * (se->k0 + bj), &x1, &y1);
            ren_line(v->r, x0, y0, x1, y1, 1 + 5 * w[bj] * s, ui_mix(v->th->panel, ck, 0.4f + 0.6f * w[bj]));
            pt_token(sc, q, q->nq + se->k0 + bj, tok, sizeof tok);
            snprintf(buf, sizeof buf, "%s %.2f", tok, w[bj]);
            ren_text(v->r, f, buf, (int)x1 + 8, (int)y1 + 4, v->th->text);
        }
    }
    /* the sentence shown, and the hovered point's sentence: large marks,
     * then their labels kept apart (the marks are taken first) */
    const Selection *sel = &sc->sel;
    static Placed pl;
    pl.n = 0;
    for (int pass = 0; pass < 2; pass++) {
        int si = pass == 0 ? hs : 0;
        if (si < 0 || (pass == 0 && si == 0))
            continue;
        const SceneQkSent *se = &q->sent[si];
        int few = se->nq + se->nk <= 40;
        for (int t = se->nk + se->nq - 1; t >= 0; t--) {
            int isq = t < se->nq, i = isq ? se->q0 + t : q->nq + se->k0 + (t - se->nq);
            float px, py;
            to_screen(&m, pt_xy(q, i), &px, &py);
            int pos = isq ? q->qpos[i] : q->kpos[i - q->nq];
            int side = isq ? (q->kind == TF_ATTN_ENC ? 1 : 2) : (q->kind == TF_ATTN_DEC ? 2 : 1);
            if (si == 0 && sel->side == side && sel->index == pos) /* the token selected elsewhere */
                ren_rect_line(v->r, (Rect){(int)(px - 9 * s), (int)(py - 9 * s), (int)(18 * s), (int)(18 * s)}, 1,
                              v->th->select);
            if (data) /* over the dots: a ring in the text's colour sets it apart */
                square(&T, px, py, 8 * s, 1.5f, v->th->text);
            if (isq)
                disc(&T, px, py, (i == hov ? 7 : 5) * s, 14, cq);
            else
                square(&T, px, py, 5 * s, i == hov ? 3 : 2, ck);
            if (pl.n < QK_LABELS)
                pl.r[pl.n++] = (Rect){(int)(px - 6 * s), (int)(py - 6 * s), (int)(12 * s), (int)(12 * s)};
        }
        tris_flush(&T);
        for (int t = se->nk + se->nq - 1; t >= 0; t--) {
            int isq = t < se->nq, i = isq ? se->q0 + t : q->nq + se->k0 + (t - se->nq);
            if (!few && i != hov) /* a label beside every point when there are few */
                continue;
            float px, py;
            to_screen(&m, pt_xy(q, i), &px, &py);
            pt_token(sc, q, i, tok, sizeof tok);
            Rect lr = place_label(&pl, m.plot, px, py, 6 * s, ren_text_width(f, tok) + 4, fh);
            if (data) /* readable over the dots */
                ren_rect(v->r, lr, v->th->panel);
            ren_text(v->r, f, tok, lr.x + 2, lr.y, isq ? cq : ck);
        }
    }
    if (hov >= 0) {
        float px, py;
        to_screen(&m, pt_xy(q, hov), &px, &py);
        if (keyed) { /* its ring, round the point */
            int r = (int)(9 * s);
            view_key_outline(v, (Rect){(int)px - r, (int)py - r, 2 * r, 2 * r});
        }
        if (hs > 0)
            hover_label(v, q, hov, px, py, m.plot);
        int isq = hov < q->nq;
        pt_token(sc, q, hov, tok, sizeof tok);
        const double *p = pt_xy(q, hov);
        int pos = isq ? q->qpos[hov] : q->kpos[hov - q->nq];
        if (hs > 0)
            ui_hover_own(v, (float)p[0],
                         isq ? _("query %s (position %d) of «%s» at (%.3f, %.3f)")
                             : _("key %s (position %d) of «%s» at (%.3f, %.3f)"),
                         tok, pos, q->sent[hs].text ? q->sent[hs].text : "", p[0], p[1]);
        else
            ui_hover_own(v, (float)p[0], isq ? _("query %s (position %d) at (%.3f, %.3f)") : _("key %s (position %d) at (%.3f, %.3f)"),
                         tok, pos, p[0], p[1]);
    }
    ren_clip_pop(v->r);
}

static void view_qkmap(ViewCtx *v)
{
    ui_draw_inside(v, qk_draw);
}

const ViewDef VIEW_QKMAP_DEF = {"qk-map", N_("Q/K map"), view_qkmap, NULL, sizeof(QkState), NULL, VIEW_NEED_STACK,
                                VIEW_WANT_QK};
