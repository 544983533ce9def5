/* heads_table.c - the Heads table docked under the all-heads thumbnails
 * (see heads_table.h). */
#include "heads_table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HT_MAX_ROWS 1024

int heads_table_index(const TfConfig *c, int kind, int layer, int head)
{
    int NH = c->n_heads;
    if (kind == TF_ATTN_ENC)
        return layer * NH + head;
    if (kind == TF_ATTN_DEC)
        return (c->n_enc + layer) * NH + head;
    return (c->n_enc + c->n_dec + layer) * NH + head;
}

int heads_table_is_sel(const HeadsTable *t, int kind, int layer, int head)
{
    return t->has_sel && t->sel_kind == kind && t->sel_layer == layer && t->sel_head == head;
}

void heads_table_select(HeadsTable *t, int kind, int layer, int head)
{
    t->has_sel = 1;
    t->sel_kind = kind;
    t->sel_layer = layer;
    t->sel_head = head;
}

/* The largest delta nll of the model's heads (0 when not measured). */
static double max_dnll(const SceneImportance *im)
{
    double m = 0;
    for (int i = 0; i < im->n; i++)
        m = fmax(m, im->delta_nll[i]);
    return m;
}

int heads_table_frame(const ViewCtx *v, int kind, int layer, int head)
{
    const SceneImportance *im = &v->s->imp;
    int i = heads_table_index(&v->s->model->cfg, kind, layer, head);
    double m = max_dnll(im);
    if (im->n == 0 || i >= im->n || m <= 0)
        return 1;
    double x = fmax(im->delta_nll[i], 0) / m;
    return 1 + (int)lround(4 * x * v->g->scale);
}

/* The labels tf_head_label gives (English), for the catalog: the table
 * shows them through _(). */
static const char *const LABELS[] __attribute__((unused)) = {
    N_("sink"), N_("previous token"), N_("diagonal"), N_("next token"), N_("aligns with the source"), N_("broad"),
};

typedef struct Row {
    int layer, head, imp; /* imp: index in the importance arrays */
    const SceneHead *m;
} Row;

static const ViewCtx *g_v; /* the sort's context (qsort has none) */
static const HeadsTable *g_t;

static double key_of(const Row *r, int col)
{
    const SceneImportance *im = &g_v->s->imp;
    switch (col) {
    case HT_COL_ENTROPY: return r->m->entropy;
    case HT_COL_MAX: return r->m->max_weight;
    case HT_COL_OFFSET: return r->m->offset;
    case HT_COL_FIRST: return r->m->first_share;
    case HT_COL_MONO: return r->m->monotonic;
    case HT_COL_DNLL: return r->imp < im->n ? im->delta_nll[r->imp] : 0;
    case HT_COL_DACC: return r->imp < im->n ? im->delta_acc[r->imp] : 0;
    default: return r->layer * 1000.0 + r->head;
    }
}

static int by_col(const void *a, const void *b)
{
    const Row *x = a, *y = b;
    int col = g_t->sort;
    if (col == HT_COL_LABEL) {
        int c = strcmp(x->m->label, y->m->label);
        if (c)
            return g_t->desc ? -c : c;
    } else {
        double kx = key_of(x, col), ky = key_of(y, col);
        if (kx != ky)
            return (kx < ky) == !g_t->desc ? -1 : 1;
    }
    return (x->layer * 1000 + x->head) - (y->layer * 1000 + y->head);
}

typedef struct Col {
    const char *title; /* msgid */
    int w;             /* base width at scale 1 */
} Col;

static const Col COLS[HT_COL_COUNT] = {
    [HT_COL_HEAD] = {N_("head"), 62},      [HT_COL_LABEL] = {N_("label"), 90},
    [HT_COL_ENTROPY] = {N_("entropy"), 64}, [HT_COL_MAX] = {N_("max"), 48},
    [HT_COL_OFFSET] = {N_("offset"), 82},  [HT_COL_FIRST] = {N_("first"), 48},
    [HT_COL_MONO] = {N_("monotonic"), 80}, [HT_COL_DNLL] = {N_("Δnll"), 108},
    [HT_COL_DACC] = {N_("Δacc"), 62},
};

/* A toolbar line's height; the table alone (t->full) in a view narrower
 * than narrow() puts the file's field on a second line (docked, the field
 * is left out when there is no room for it: Table only shows it). */
static int line_h(const ViewCtx *v)
{
    return ren_font_height(v->g->small) + (int)(10 * v->g->scale);
}

static int two_lines(const ViewCtx *v, const HeadsTable *t, int w)
{
    return t->full && w < (int)(640 * v->g->scale);
}

/* The toolbar: measure on the model's data or a file, the progress, and
 * the table alone or beside the thumbnails. */
static void toolbar(ViewCtx *v, HeadsTable *t, Rect rc)
{
    const SceneImportance *im = &v->s->imp;
    RenFont *f = v->g->small;
    int fh = ren_font_height(f), pad = (int)(6 * v->g->scale), h = line_h(v), two = two_lines(v, t, rc.w + 8);
    const char *label = im->state == 1 ? _("Measuring…") : im->state == 2 ? _("Measure again") : _("Measure importance");
    int bw = ren_text_width(f, label) + 2 * pad;
    Rect btn = {rc.x, rc.y, bw, h};
    if ((ui_button(v->ui, btn, label, im->state == 1) & UI_CLICKED) && im->state != 1) {
        v->out->imp_start = 1;
        snprintf(v->out->imp_file, sizeof v->out->imp_file, "%s", t->tsv);
    }
    /* the table alone (all the view's rows for it), or with the thumbnails */
    const char *whole = t->full ? _("With thumbnails") : _("Table only");
    int ww = ren_text_width(f, whole) + 2 * pad, right = rc.x + rc.w;
    if (ww < rc.w - bw - 3 * pad) {
        right -= ww;
        if (ui_button(v->ui, (Rect){right, rc.y, ww, h}, whole, t->full) & UI_CLICKED) {
            t->full = !t->full;
            t->scroll = 0;
        }
        right -= pad;
    }
    int x = btn.x + btn.w + pad, fw = (int)(220 * v->g->scale);
    Rect field = {x, rc.y, fw, h};
    if (two) { /* the field on a line of its own */
        field = (Rect){rc.x, rc.y + h + 4, rc.w < (int)(420 * v->g->scale) ? rc.w : (int)(420 * v->g->scale), h};
    } else if (x + fw > rc.x + rc.w / 2) {
        field.w = rc.x + rc.w / 2 - x;
    }
    if (field.w > 60) {
        ui_textbox(v->ui, ui_id_ptr(v->ui, t->tsv), t->tsv, sizeof t->tsv, field,
                   _("pairs.tsv (empty: the model's data)"), UI_SMALL);
        if (!two)
            x += field.w + pad;
    }
    char s[400];
    Color c = v->th->dim;
    if (im->state == 1) {
        snprintf(s, sizeof s, _("ablating every head: %d of %d pairs"), im->done, im->total);
        int pw = (int)(120 * v->g->scale);
        if (pw > (right - x) / 3)
            pw = (right - x) / 3;
        Rect bar = {x, rc.y + h / 2 - 3, pw, 6};
        ren_rect(v->r, bar, v->th->panel2);
        ren_rect(v->r, (Rect){bar.x, bar.y, im->total ? bar.w * im->done / im->total : 0, bar.h}, v->th->accent);
        x += pw + pad;
    } else if (im->state == 2) {
        snprintf(s, sizeof s, _("importance over %s pairs: each head ablated, teacher forced"), im->what);
    } else if (im->state == 3) {
        snprintf(s, sizeof s, "%s", im->error ? im->error : "");
        c = v->th->warn;
    } else {
        snprintf(s, sizeof s, "%s", _("importance: the loss and accuracy with each head zeroed, over a data set"));
    }
    ui_text_fit(v->r, f, s, x, rc.y + (h - fh) / 2, right - x, c);
}

static void cell_text(ViewCtx *v, const char *s, int x, int y, int w, Color c, int right)
{
    RenFont *f = v->g->small;
    int tw = ren_text_width(f, s);
    ui_text_fit(v->r, f, s, right && tw < w ? x + w - tw : x, y, w, c);
}

static void draw_row(ViewCtx *v, const HeadsTable *t, const Row *r, int kind, const int *cx, const int *cw,
                     int ncol, const int *cols, int y, int rh)
{
    const SceneImportance *im = &v->s->imp;
    RenFont *f = v->g->small;
    int fh = ren_font_height(f), ty = y + (rh - fh) / 2;
    char buf[96];
    for (int k = 0; k < ncol; k++) {
        int col = cols[k], x = cx[k], w = cw[k] - 6;
        Color c = v->th->text;
        int right = 1;
        buf[0] = 0;
        switch (col) {
        case HT_COL_HEAD: snprintf(buf, sizeof buf, _("L%d H%d"), r->layer + 1, r->head + 1); right = 0; break;
        case HT_COL_LABEL:
            snprintf(buf, sizeof buf, "%s", r->m->label[0] ? _(r->m->label) : "–");
            c = r->m->label[0] ? v->th->text : v->th->dim;
            right = 0;
            break;
        case HT_COL_ENTROPY: snprintf(buf, sizeof buf, "%.3f", r->m->entropy); break;
        case HT_COL_MAX: snprintf(buf, sizeof buf, "%.2f", r->m->max_weight); break;
        case HT_COL_OFFSET: snprintf(buf, sizeof buf, "%+d (%.0f%%)", r->m->offset, 100 * r->m->offset_share); break;
        case HT_COL_FIRST: snprintf(buf, sizeof buf, "%.2f", r->m->first_share); break;
        case HT_COL_MONO: snprintf(buf, sizeof buf, "%.2f", r->m->monotonic); break;
        case HT_COL_DNLL:
            if (r->imp < im->n) {
                double m = max_dnll(im), d = im->delta_nll[r->imp];
                int bw = (int)(w * 0.55f), bx = x;
                int len = m > 0 ? (int)lround(bw * fmax(d, 0) / m) : 0;
                ren_rect(v->r, (Rect){bx, y + rh / 2 - 4, bw, 8}, v->th->panel2);
                ren_rect(v->r, (Rect){bx, y + rh / 2 - 4, len, 8}, v->th->accent);
                snprintf(buf, sizeof buf, "%+.4f", fabs(d) < 0.00005 ? 0.0 : d); /* no "-0.0000" */
            } else {
                snprintf(buf, sizeof buf, "%s", "·");
                c = v->th->dim;
            }
            break;
        case HT_COL_DACC:
            if (r->imp < im->n) /* no "-0.0%" for a change too small to print */
                snprintf(buf, sizeof buf, "%+.1f%%",
                         fabs(im->delta_acc[r->imp]) < 0.0005 ? 0.0 : 100 * im->delta_acc[r->imp]);
            else
                snprintf(buf, sizeof buf, "%s", "·"), c = v->th->dim;
            break;
        }
        cell_text(v, buf, x, ty, w, c, right);
    }
    (void)t;
    (void)kind;
}

/* A row's height, and the bar's above the header. */
static int row_h(const ViewCtx *v)
{
    return ren_font_height(v->g->small) + (int)(6 * v->g->scale);
}

static int bar_height(const ViewCtx *v, const HeadsTable *t, int w)
{
    return t && two_lines(v, t, w) ? 2 * line_h(v) + 4 : line_h(v);
}

int heads_table_height(ViewCtx *v, int rows, int w)
{
    return bar_height(v, NULL, w) + 4 + row_h(v) + rows * row_h(v) + 4;
}

/* The height of t in a view w wide with `rows` rows. */
static int table_height(ViewCtx *v, const HeadsTable *t, int rows, int w)
{
    return bar_height(v, t, w) + 4 + row_h(v) + rows * row_h(v) + 4;
}

int heads_table_rows(ViewCtx *v, int kind, int layers, Rect body)
{
    const Scene *sc = v->s;
    const SceneHead *heads = kind >= 0 && kind < 3 ? sc->heads[kind] : NULL;
    int rh = row_h(v), n = layers * sc->model->cfg.n_heads;
    if (!heads || n <= 0 || n > HT_MAX_ROWS || body.h < 16 * rh || body.w < (int)(300 * v->g->scale))
        return 0;
    int visible = n, room = (int)(body.h * 0.46f) - bar_height(v, NULL, body.w) - rh - 8;
    if (visible * rh > room)
        visible = room / rh;
    return visible < 3 ? 0 : visible;
}

/* The columns shown in a table w wide, in the table's order: every one
 * that fits; when not all do, the head column and, from t->col0 on, as
 * many of the others (most useful first) as fit beside the ‹ › buttons
 * (*pager 1). Returns how many (cols), their width in *total. */
static int pick_columns(ViewCtx *v, HeadsTable *t, int kind, int w, int *cols, int *total, int *pager)
{
    float s = v->g->scale;
    static const int ORDER[] = {HT_COL_DNLL, HT_COL_LABEL, HT_COL_ENTROPY, HT_COL_MAX, HT_COL_DACC,
                                HT_COL_OFFSET, HT_COL_FIRST, HT_COL_MONO};
    int seq[HT_COL_COUNT], nseq = 0, all = (int)(COLS[HT_COL_HEAD].w * s);
    for (size_t k = 0; k < sizeof ORDER / sizeof ORDER[0]; k++)
        if (ORDER[k] != HT_COL_MONO || kind == TF_ATTN_CROSS) {
            seq[nseq++] = ORDER[k];
            all += (int)(COLS[ORDER[k]].w * s);
        }
    int want[HT_COL_COUNT], nw = 0;
    want[nw++] = HT_COL_HEAD;
    *total = (int)(COLS[HT_COL_HEAD].w * s);
    *pager = all > w;
    if (!*pager) {
        t->col0 = 0;
        for (int k = 0; k < nseq; k++)
            want[nw++] = seq[k];
        *total = all;
    } else {
        int room = w - 2 * (ren_font_height(v->g->small) + (int)(10 * s)) - 8;
        if (t->col0 > nseq - 1)
            t->col0 = nseq - 1;
        if (t->col0 < 0)
            t->col0 = 0;
        for (int k = t->col0; k < nseq; k++) {
            int cw = (int)(COLS[seq[k]].w * s);
            if (*total + cw > room)
                break;
            want[nw++] = seq[k];
            *total += cw;
        }
    }
    int ncol = 0; /* back in the table's own order */
    for (int col = 0; col < HT_COL_COUNT; col++)
        for (int k = 0; k < nw; k++)
            if (want[k] == col)
                cols[ncol++] = col;
    return ncol;
}

/* Is there a column after the page shown (some of seq not drawn past col0)? */
static int more_columns(const HeadsTable *t, int kind, int ncol)
{
    int others = kind == TF_ATTN_CROSS ? HT_COL_COUNT - 1 : HT_COL_COUNT - 2;
    return t->col0 + (ncol - 1) < others;
}

/* The table in area, with `visible` rows. */
static void draw_table(ViewCtx *v, HeadsTable *t, int kind, int layers, Rect area, int visible)
{
    const Scene *sc = v->s;
    const SceneHead *heads = sc->heads[kind];
    float s = v->g->scale;
    RenFont *f = v->g->small;
    int fh = ren_font_height(f), rh = row_h(v), NH = sc->model->cfg.n_heads;
    int n = layers * NH;
    int cols[HT_COL_COUNT], total = 0, pager = 0;
    int ncol = pick_columns(v, t, kind, area.w - 16, cols, &total, &pager);
    int bar_h = bar_height(v, t, area.w), head_h = rh;
    t->shown = 1;
    ren_rect(v->r, area, v->th->panel);
    toolbar(v, t, (Rect){area.x + 4, area.y + 2, area.w - 8, bar_h});
    /* the rows, sorted */
    static Row rows[HT_MAX_ROWS];
    for (int l = 0; l < layers; l++)
        for (int hh = 0; hh < NH; hh++)
            rows[l * NH + hh] = (Row){l, hh, heads_table_index(&sc->model->cfg, kind, l, hh), &heads[l * NH + hh]};
    g_v = v;
    g_t = t;
    qsort(rows, (size_t)n, sizeof rows[0], by_col);
    int cx[HT_COL_COUNT], cw[HT_COL_COUNT], x = area.x + 8;
    int spare = area.w - 16 - total; /* to the label, up to a readable width */
    for (int k = 0; k < ncol; k++) {
        cx[k] = x;
        cw[k] = (int)(COLS[cols[k]].w * s);
        if (cols[k] == HT_COL_LABEL && spare > 0 && !pager)
            cw[k] += spare < (int)(110 * s) ? spare : (int)(110 * s);
        x += cw[k];
    }
    /* the header: click a column to sort by it (again: the other way) */
    int y = area.y + bar_h + 4;
    for (int k = 0; k < ncol; k++) {
        Rect hr = {cx[k], y, cw[k], head_h};
        int on = t->sort == cols[k];
        char title[64];
        snprintf(title, sizeof title, "%s%s", _(COLS[cols[k]].title), on ? (t->desc ? " ▼" : " ▲") : "");
        if (ui_over(v->in, hr))
            ren_rect(v->r, hr, v->th->panel2);
        cell_text(v, title, cx[k], y + (head_h - fh) / 2, cw[k] - 6, on ? v->th->accent : v->th->dim,
                  cols[k] != HT_COL_HEAD && cols[k] != HT_COL_LABEL);
        if (ui_hit(v->ui, hr, COLS[cols[k]].title)) { /* a click, or Tab then Enter */
            if (on) {
                t->desc = !t->desc;
            } else { /* numbers: the largest first */
                t->sort = cols[k];
                t->desc = cols[k] != HT_COL_HEAD && cols[k] != HT_COL_LABEL;
            }
        }
    }
    if (pager) { /* the other columns: a page to the left or the right */
        int bw = head_h + (int)(8 * s), bx = area.x + area.w - 8 - 2 * bw - 2;
        int more = more_columns(t, kind, ncol);
        if ((ui_button(v->ui, (Rect){bx, y + 1, bw, head_h - 2}, "‹", 0) & UI_CLICKED) && t->col0 > 0)
            t->col0--;
        if ((ui_button(v->ui, (Rect){bx + bw + 2, y + 1, bw, head_h - 2}, "›", 0) & UI_CLICKED) && more)
            t->col0++;
    }
    y += head_h;
    ren_rect(v->r, (Rect){area.x + 4, y - 1, area.w - 8, 1}, v->th->border);
    Rect list = {area.x, y, area.w, visible * rh};
    if (ui_over(v->in, list) && v->in->wheel)
        t->scroll -= v->in->wheel;
    if (t->scroll > n - visible)
        t->scroll = n - visible;
    if (t->scroll < 0)
        t->scroll = 0;
    for (int i = 0; i < visible && t->scroll + i < n; i++) {
        const Row *r = &rows[t->scroll + i];
        Rect rr = {area.x + 4, y + i * rh, area.w - 8, rh};
        int sel = heads_table_is_sel(t, kind, r->layer, r->head), over = ui_over(v->in, rr);
        if (sel)
            ren_rect(v->r, rr, ui_mix(v->th->panel, v->th->select, 0.25f));
        else if (over)
            ren_rect(v->r, rr, v->th->panel2);
        draw_row(v, t, r, kind, cx, cw, ncol, cols, rr.y, rh);
        if (ui_hit(v->ui, rr, "heads table row")) {
            if (sel)
                t->has_sel = 0;
            else
                heads_table_select(t, kind, r->layer, r->head);
        }
    }
    if (n > visible) { /* under the header's right end */
        char more[64];
        snprintf(more, sizeof more, _("%d–%d of %d · wheel to scroll"), t->scroll + 1, t->scroll + visible, n);
        int w = ren_text_width(f, more), mx = x + 12;
        if (mx + w <= area.x + area.w - 4)
            ren_text(v->r, f, more, mx, y - head_h + (head_h - fh) / 2, v->th->dim);
    }
    if (sc->imp.state == 1) /* measuring: frames keep coming */
        v->out->wake_at = sc->now + 0.03;
}

void heads_table_dock(ViewCtx *v, HeadsTable *t, int kind, int layers, Rect *body, int max_rows)
{
    t->shown = 0;
    int visible = heads_table_rows(v, kind, layers, *body);
    if (max_rows >= 0 && visible > max_rows)
        visible = max_rows;
    if (visible < 3)
        return;
    int h = heads_table_height(v, visible, body->w);
    Rect area = {body->x, body->y + body->h - h, body->w, h};
    body->h -= h + 6;
    draw_table(v, t, kind, layers, area, visible);
}

void heads_table_fill(ViewCtx *v, HeadsTable *t, int kind, int layers, Rect *body)
{
    const SceneHead *heads = kind >= 0 && kind < 3 ? v->s->heads[kind] : NULL;
    int n = layers * v->s->model->cfg.n_heads, rh = row_h(v);
    t->shown = 0;
    if (!heads || n <= 0 || n > HT_MAX_ROWS)
        return;
    int visible = (body->h - bar_height(v, t, body->w) - rh - 12) / rh;
    if (visible > n)
        visible = n;
    if (visible < 1)
        return;
    int h = table_height(v, t, visible, body->w);
    draw_table(v, t, kind, layers, (Rect){body->x, body->y, body->w, h}, visible);
    body->y += h + 6;
    body->h -= h + 6;
}
