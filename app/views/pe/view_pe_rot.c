/* view_pe_rot.c - the positional encoding view's rotation panel: for one
 * sin/cos pair i the point (PE(pos, sin_i), PE(pos, cos_i)) on the unit
 * circle, turned by k·ω_i to PE(pos+k) with the same matrix R for every pos
 * (section 3.5). R comes from pe_rotate_cols (cglm); every other number is
 * the engine's table. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "view_pe_rot.h"

typedef struct Circle {
    float cx, cy, R;
} Circle;

static float circ_x(Circle c, float s) { return c.cx + s * c.R; }
static float circ_y(Circle c, float co) { return c.cy - co * c.R; }

static void rot_axes(ViewCtx *v, Circle c)
{
    const Theme *th = v->th;
    ren_rect(v->r, (Rect){(int)(c.cx - 1.15f * c.R), (int)c.cy, (int)(2.3f * c.R), 1}, th->border);
    ren_rect(v->r, (Rect){(int)c.cx, (int)(c.cy - c.R - 6), 1, (int)(2 * c.R + 12)}, th->border);
    pe_ring(v->r, c.cx, c.cy, c.R, 1.5f, th->dim);
}

/* The token labels drawn on the circle (their boxes), so the axis names
 * keep clear of them. */
#define ROT_MAX_LABELS 16
typedef struct RotLabels {
    int n;
    Rect r[ROT_MAX_LABELS + 2];
} RotLabels;

static int hits_any(Rect a, const RotLabels *lab)
{
    for (int i = 0; i < lab->n; i++) {
        Rect b = lab->r[i];
        b = (Rect){b.x - 6, b.y - 6, b.w + 12, b.h + 12}; /* a gap between two labels, not just no overlap */
        if (a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h)
            return 1;
    }
    return 0;
}

/* Draw name at the first of n places (top-left corners) where it touches
 * no label, else at the first; it becomes a label too. */
static void place_name(ViewCtx *v, const char *name, const int (*at)[2], int n, RotLabels *lab)
{
    RenFont *f = v->g->small;
    Rect box = {at[0][0], at[0][1], ren_text_width(f, name), ren_font_height(f)};
    for (int k = 0; k < n; k++) {
        Rect b = {at[k][0], at[k][1], box.w, box.h};
        if (!hits_any(b, lab)) {
            box = b;
            break;
        }
    }
    ren_text(v->r, f, name, box.x, box.y, v->th->dim);
    if (lab->n < ROT_MAX_LABELS + 2)
        lab->r[lab->n++] = box;
}

/* The axis names at the ends of the axes, where no token label is. */
static void rot_axis_names(ViewCtx *v, Circle c, const PeData *d, int i, RotLabels *lab)
{
    RenFont *f = v->g->small;
    int fh = ren_font_height(f);
    char buf[64];
    snprintf(buf, sizeof buf, _("dim %d (sin)"), PE_COL(d, i, 0));
    int w = ren_text_width(f, buf), xr = (int)(c.cx + 1.15f * c.R + 4), xl = (int)(c.cx - 1.15f * c.R) - w - 4;
    int cy = (int)c.cy;
    const int sin_at[6][2] = {{xr, cy + 2}, {xr, cy - fh - 2}, {xr, cy + fh + 4}, {xr, cy - 2 * fh - 4},
                              {xl, cy + 2}, {xl, cy - fh - 2}};
    place_name(v, buf, sin_at, 6, lab);
    snprintf(buf, sizeof buf, _("dim %d (cos)"), PE_COL(d, i, 1));
    w = ren_text_width(f, buf);
    int top = (int)(c.cy - 1.1f * c.R - fh), bot = (int)(c.cy + 1.1f * c.R);
    const int cos_at[4][2] = {{(int)c.cx - w - 6, top}, {(int)c.cx + 6, top}, {(int)c.cx - w - 6, bot},
                              {(int)c.cx + 6, bot}};
    place_name(v, buf, cos_at, 4, lab);
}

/* The turn by k·ω from PE(pos), just outside the circle, with an arrow
 * head (at most one full turn is drawn). */
static void rot_arc(ViewCtx *v, Circle c, double a0, double turn)
{
    enum { NA = 64 };
    Color col = v->th->accent2;
    float sc = v->g->scale, xy[(NA + 1) * 2], Ra = c.R * 1.13f;
    turn = turn > 2 * M_PI ? 2 * M_PI : turn < -2 * M_PI ? -2 * M_PI : turn;
    if (turn == 0)
        return;
    for (int s = 0; s <= NA; s++) {
        double t = a0 + turn * s / NA;
        xy[2 * s] = c.cx + Ra * (float)sin(t);
        xy[2 * s + 1] = c.cy - Ra * (float)cos(t);
    }
    ren_polyline(v->r, xy, NA + 1, 2.0f * sc, col);
    /* the arrow head points along the tangent at the end */
    double t = a0 + turn, dir = turn > 0 ? 1 : -1;
    float tx = (float)(cos(t) * dir), ty = (float)(sin(t) * dir), nx = (float)sin(t), ny = -(float)cos(t);
    float ex = xy[2 * NA], ey = xy[2 * NA + 1], L = 4.5f * sc, W = 5 * sc;
    float tri[6] = {ex + tx * L, ey + ty * L, ex - tx * L + nx * W, ey - ty * L + ny * W,
                    ex - tx * L - nx * W, ey - ty * L - ny * W};
    Color tc[3] = {col, col, col};
    ren_triangles(v->r, tri, tc, 3);
}

/* The sentence's tokens on the circle, labelled "pos token" (the first
 * dozen, and always pos and pos+k). */
static void rot_tokens(ViewCtx *v, Circle c, const PeData *d, int i, int pos, int k, RotLabels *lab)
{
    const Scene *sc = v->s;
    RenFont *f = v->g->small;
    int fh = ren_font_height(f);
    float gs = v->g->scale;
    char tok[200];
    for (int p = 0; p < d->len && p < d->npos; p++) {
        float s = pe_value(d, p, PE_COL(d, i, 0)), co = pe_value(d, p, PE_COL(d, i, 1));
        pe_disc(v->r, circ_x(c, s), circ_y(c, co), 3.5f * gs, v->th->text);
        if (!(p < 12 || p == pos || p == pos + k))
            continue;
        char tb[VOCAB_MAX_TOKEN_BYTES + 1];
        snprintf(tok, sizeof tok, "%d %s", p,
                 view_token(&sc->model->src_vocab, sc->trace->src_ids[(size_t)d->b * sc->trace->S + p], tb, sizeof tb));
        int tw = ren_text_width(f, tok);
        float off = (p == pos ? 6.0f : p == pos + k ? 10.0f : 3.5f) * gs + 4; /* clear of the dot (of the ring at pos + k) */
        float lx = circ_x(c, s) + (s >= 0 ? off : -tw - off);
        int ly = (int)(circ_y(c, co) - fh / 2);
        /* on a veil of the background, so the arc and the axes under it
         * do not cross the letters */
        ren_rect(v->r, (Rect){(int)lx - 1, ly, tw + 2, fh}, pe_with_alpha(v->th->bg, 190));
        ren_text(v->r, f, tok, (int)lx, ly, p == pos ? v->th->accent : v->th->dim);
        if (lab->n < ROT_MAX_LABELS)
            lab->r[lab->n++] = (Rect){(int)lx, ly, tw, fh};
    }
}

/* The circle of pair i: every position of the table as a faint dot, the
 * sentence's tokens, the turn from PE(pos) to PE(pos+k); PE(pos) filled,
 * R·PE(pos) a ring, and the table's PE(pos+k) a dot inside that ring. */
static void rot_circle(ViewCtx *v, Circle c, const PeData *d, const float res[2])
{
    const Theme *th = v->th;
    int i = PE_UI(v)->pair, pos = PE_UI(v)->pos, k = PE_UI(v)->k;
    float sc = v->g->scale;
    rot_axes(v, c);
    for (int p = 0; p < d->npos; p++)
        pe_disc(v->r, circ_x(c, pe_value(d, p, PE_COL(d, i, 0))), circ_y(c, pe_value(d, p, PE_COL(d, i, 1))), 2.0f * sc,
             pe_with_alpha(th->dim, 140));
    double w = pe_omega(i, d->C);
    rot_arc(v, c, pos * w, k * w);
    RotLabels lab = {0};
    rot_tokens(v, c, d, i, pos, k, &lab);
    rot_axis_names(v, c, d, i, &lab);
    pe_disc(v->r, circ_x(c, pe_value(d, pos, PE_COL(d, i, 0))), circ_y(c, pe_value(d, pos, PE_COL(d, i, 1))), 6.0f * sc,
         th->accent);
    pe_disc(v->r, circ_x(c, pe_value(d, pos + k, PE_COL(d, i, 0))), circ_y(c, pe_value(d, pos + k, PE_COL(d, i, 1))), 3.0f * sc,
         th->good);
    pe_ring(v->r, circ_x(c, res[0]), circ_y(c, res[1]), 8.0f * sc, 2.0f * sc, th->accent2);
}

/* A column vector (or a 2x2 matrix when ncol is 2) of numbers between
 * drawn brackets at (x, y), with a caption under it; returns its width. */
static int bracketed(ViewCtx *v, int x, int y, int ncol, const float *val, Color c,
                     const char *caption, Color cap_c)
{
    RenFont *m = v->g->mono, *f = v->g->small;
    int mh = ren_font_height(m) + 2, cw = ren_text_width(m, "+0.00000") + 14;
    int w = ncol * cw + 8;
    char s[32];
    for (int r = 0; r < 2; r++)
        for (int j = 0; j < ncol; j++) {
            snprintf(s, sizeof s, "%+.5f", val[r * ncol + j]);
            ren_text(v->r, m, s, x + 2 + (j + 1) * cw - ren_text_width(m, s), y + r * mh, c);
        }
    Color bc = v->th->text;
    Rect br[6] = {{x, y, 1, 2 * mh}, {x, y, 4, 1}, {x, y + 2 * mh - 1, 4, 1},
                  {x + w, y, 1, 2 * mh}, {x + w - 3, y, 4, 1}, {x + w - 3, y + 2 * mh - 1, 4, 1}};
    for (int i = 0; i < 6; i++)
        ren_rect(v->r, br[i], bc);
    if (caption)
        ui_text_center(v->r, f, caption, (Rect){x - 10, y + 2 * mh + 2, w + 20, ren_font_height(f)}, cap_c);
    return w + 1;
}

int pe_rot_eq_w(ViewCtx *v)
{
    RenFont *m = v->g->mono;
    int cw = ren_text_width(m, "+0.00000") + 14, eq = ren_text_width(m, " = ");
    return (2 * cw + 9) + 10 + (cw + 9) + eq + (cw + 9) + 4;
}

static int rot_numbers_h(ViewCtx *v)
{
    int mh = ren_font_height(v->g->mono) + 2, fh = ren_font_height(v->g->small);
    return 2 * fh + 4 + 2 * mh + fh + 10 + 2 * fh;
}

/* ω and the turn k·ω, then the rotation as an equation with the numbers:
 *   R(k·ω) · PE(pos) = R·PE(pos)
 * then the table's own PE(pos+k) and how far apart the two are. */
static void rot_numbers(ViewCtx *v, Rect rc, const PeData *d, float Rm[2][2], const float res[2])
{
    const Theme *th = v->th;
    RenFont *m = v->g->mono, *f = v->g->small;
    int mh = ren_font_height(m) + 2, fh = ren_font_height(f);
    int i = PE_UI(v)->pair, pos = PE_UI(v)->pos, k = PE_UI(v)->k, y = rc.y;
    double w = pe_omega(i, d->C);
    char buf[200], cap[64];
    char b2[200];
    snprintf(buf, sizeof buf, _("pair %d = dims %d, %d:  ω_%d = 1/10000^(%d/%d) = %.6g"), i, PE_COL(d, i, 0),
             PE_COL(d, i, 1), i, 2 * i, d->C, w);
    snprintf(b2, sizeof b2, "ω_%d = %.6g", i, w);
    const char *l1[] = {buf, b2};
    ui_text_alt(v->r, f, l1, 2, rc.x, y, rc.w, th->dim);
    y += fh;
    snprintf(buf, sizeof buf, _("turn by k·ω = %d × %.5g = %.5g rad"), k, w, k * w);
    snprintf(b2, sizeof b2, "k·ω = %.5g rad", k * w);
    const char *l2[] = {buf, b2};
    ui_text_alt(v->r, f, l2, 2, rc.x, y, rc.w, th->dim);
    y += fh + 4;
    const float p0[2] = {pe_value(d, pos, PE_COL(d, i, 0)), pe_value(d, pos, PE_COL(d, i, 1))};
    const float pk[2] = {pe_value(d, pos + k, PE_COL(d, i, 0)), pe_value(d, pos + k, PE_COL(d, i, 1))};
    float mat[4] = {Rm[0][0], Rm[0][1], Rm[1][0], Rm[1][1]};
    int x = rc.x;
    x += bracketed(v, x, y, 2, mat, th->accent2, "R(k·ω)", th->accent2) + 10;
    snprintf(cap, sizeof cap, "PE(%d)", pos);
    x += bracketed(v, x, y, 1, p0, th->accent, cap, th->accent);
    x += ren_text(v->r, m, " = ", x, y + mh / 2, th->text);
    snprintf(cap, sizeof cap, "R·PE(%d)", pos);
    bracketed(v, x, y, 1, res, th->accent2, cap, th->accent2);
    y += 2 * mh + fh + 10;
    snprintf(buf, sizeof buf, _("the table's PE(%d) = (%+.5f, %+.5f)"), pos + k, pk[0], pk[1]);
    snprintf(b2, sizeof b2, "PE(%d) = (%+.5f, %+.5f)", pos + k, pk[0], pk[1]);
    const char *l3[] = {buf, b2};
    ui_text_alt(v->r, f, l3, 2, rc.x, y, rc.w, th->good);
    y += fh;
    float diff = fmaxf(fabsf(res[0] - pk[0]), fabsf(res[1] - pk[1]));
    int same = diff <= 1e-5f;
    snprintf(buf, sizeof buf, same ? _("|R·PE(%d) − PE(%d)| = %.1e ✓ the same point") : "|R·PE(%d) − PE(%d)| = %.1e",
             pos, pos + k, diff);
    snprintf(b2, sizeof b2, same ? _("differ by %.1e ✓") : _("differ by %.1e"), diff);
    const char *l4[] = {buf, b2};
    ui_text_alt(v->r, f, l4, 2, rc.x, y, rc.w, same ? th->good : th->warn);
}

/* The controls: pair i, pos and k. Returns the height used. */
static int rot_controls(ViewCtx *v, Rect rc, const PeData *d)
{
    PeUi *u = v->st;
    int h = ren_font_height(v->g->small) + 8, x = rc.x, y = rc.y, w;
    char val[32];
    const char *labels[3] = {_("pair i"), _("pos"), "k"};
    for (int c = 0; c < 3; c++) {
        int *field = c == 0 ? &u->pair : c == 1 ? &u->pos : &u->k;
        snprintf(val, sizeof val, "%d", *field);
        pe_stepper(v, 0, 0, h, -1, labels[c], val, v->th->text, &w);
        if (x > rc.x && x + w > rc.x + rc.w) {
            x = rc.x;
            y += h + 4;
        }
        *field += pe_stepper(v, x, y, h, rc.x + rc.w - x, labels[c], val, v->th->text, &w);
        x += w + 14;
    }
    /* keep the choices inside the table: pos+k must be one of its rows */
    int last = d->rows - 1, npair = d->C / 2 > 0 ? d->C / 2 : 1;
    u->pair = u->pair < 0 ? 0 : u->pair >= npair ? npair - 1 : u->pair;
    u->pos = u->pos < 0 ? 0 : u->pos > last ? last : u->pos;
    u->k = u->pos + u->k > last ? last - u->pos : u->pos + u->k < 0 ? -u->pos : u->k;
    return y + h - rc.y;
}

void pe_draw_rotation(ViewCtx *v, Rect rc, const PeData *d)
{
    const Theme *th = v->th;
    RenFont *uf = v->g->ui;
    int uh = ren_font_height(uf);
    ren_clip_push(v->r, rc);
    const char *title[] = {"PE(pos+k) = R(k·ω_i) · PE(pos)", "R(kω)·PE(pos)"};
    ui_text_alt(v->r, uf, title, 2, rc.x, rc.y, rc.w, th->text);
    int y = rc.y + uh + 4;
    y += rot_controls(v, (Rect){rc.x, y, rc.w, rc.h}, d) + 6;
    float Rm[2][2], res[2];
    if (d->C < 2 || pe_rotate_cols(d->pe, d->rows, d->C, PE_COL(d, PE_UI(v)->pair, 0), PE_COL(d, PE_UI(v)->pair, 1),
                                   PE_UI(v)->pair, PE_UI(v)->pos, PE_UI(v)->k, Rm, res)) {
        ui_paragraph(v->r, v->g->small, _("d_model is too small for a sin/cos pair."), rc.x, y, rc.w, th->dim);
        ren_clip_pop(v->r);
        return;
    }
    int nw = pe_rot_eq_w(v), nh = rot_numbers_h(v), left = rc.y + rc.h - y;
    char widest[64];
    snprintf(widest, sizeof widest, _("dim %d (sin)"), 10);
    int label_room = 2 * ren_text_width(v->g->small, widest) + 16;
    /* side by side when the circle gets bigger that way */
    int side_d = rc.w - nw - 16 - label_room, stack_d = left - nh - 12;
    if (side_d > left - 8)
        side_d = left - 8;
    if (stack_d > rc.w - label_room)
        stack_d = rc.w - label_room;
    if (side_d >= stack_d && side_d > 40) {
        float R = side_d / 2.0f / 1.15f;
        rot_circle(v, (Circle){rc.x + label_room / 2 + side_d / 2.0f, y + side_d / 2.0f + 4, R}, d, res);
        rot_numbers(v, (Rect){rc.x + rc.w - nw, y, nw, left}, d, Rm, res);
    } else {
        if (stack_d > 40) {
            float R = stack_d / 2.0f / 1.15f;
            rot_circle(v, (Circle){rc.x + rc.w / 2.0f, y + stack_d / 2.0f + 4, R}, d, res);
            y += stack_d + 12;
        }
        rot_numbers(v, (Rect){rc.x, y, rc.w, rc.y + rc.h - y}, d, Rm, res);
    }
    ren_clip_pop(v->r);
}

/* ---- layout ---- */

/* The table for min(max_len, VIEW_CAP_T) positions, made with the engine's
 * pe_table (the trace's own table grows with the input and may be shorter). */
