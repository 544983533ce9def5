/* view_heads.c - every head of every layer at once: a grid of heatmap
 * thumbnails, layers down and heads across, for one kind of attention
 * (encoder self, decoder self or cross, whichever the current stage is
 * part of). On a scores stage the thumbnails show the scaled scores on one
 * diverging scale shared by all heads; otherwise the attention weights on
 * the fixed 0..1 scale. Seeing all heads side by side is how one notices
 * that heads specialise: one looks at the previous token, one at itself,
 * one spreads out evenly.
 *
 * Thumbnails come from the heatmap texture cache (heat_image), so they are
 * coloured again only when the trace changes (sc->version). Hovering a cell
 * reports it like the big heatmap does; clicking a thumbnail opens that
 * layer and head in the matrix view. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "heads_table.h"
#include "view.h"
#include "view_heads_exp.h"
#include "view_heads_grid.h"

#define HEADS_VARIANT_SHARED 0x4E5Du /* heat cache variant: shared score range */

static const char *attn_name(StageId first)
{
    return first == ST_DEC_CROSS_Q ? _("Cross-attention (decoder → encoder)")
           : first == ST_DEC_SELF_Q ? _("Decoder masked self-attention")
                                    : _("Encoder self-attention");
}

/* The view's state: the score range of the last trace, stage and sentence,
 * and what it was found for (the trace's version, stage, sentence, its
 * lengths and the bits of its first score). */
enum { MEMO_WORDS = 6 };
typedef struct ScoreMemo {
    int valid;
    uint64_t key[MEMO_WORDS];
    float m;
} ScoreMemo;

/* The view's state: the memo first, then the metrics overlay and sort. */
typedef struct HeadsState {
    ScoreMemo memo;
    HeadsExp x;
    HeadsTable table; /* the Heads table docked under the grid (lab/heads_table.h) */
    HeadsGrid grid; /* the last frame's layout (view_heads_grid) */
    int grid_valid;
} HeadsState;

const HeadsGrid *view_heads_grid(const void *heads_state)
{
    const HeadsState *s = heads_state;
    return s && s->grid_valid ? &s->grid : NULL;
}

/* Scores share one symmetric range over every layer and head, so a bright
 * cell means the same number in every thumbnail. It is found once per
 * trace, stage and sentence. */
static void score_range(ViewCtx *v, HeadsGrid *G)
{
    const Scene *sc = v->s;
    ScoreMemo *memo = v->st;
    TfView t0;
    TfErr e0;
    float first = tf_view(sc->trace, G->st, 0, 0, G->b, &t0, &e0) ? 0 : tf_view_at(&t0, 0, 0);
    uint32_t first_bits;
    memcpy(&first_bits, &first, sizeof first_bits);
    uint64_t key[MEMO_WORDS] = {sc->version, (uint64_t)G->st, (uint64_t)G->b, (uint64_t)G->Tq, (uint64_t)G->Tk,
                                first_bits};
    if (memo->valid && memcmp(memo->key, key, sizeof key) == 0) {
        G->lo = -memo->m;
        G->hi = memo->m;
        return;
    }
    float m = 0;
    for (int l = 0; l < G->L; l++)
        for (int h = 0; h < G->NH; h++) {
            TfView tv;
            TfErr err;
            if (tf_view(sc->trace, G->st, l, h, G->b, &tv, &err))
                continue;
            for (int r = 0; r < tv.rows; r++)
                for (int c = 0; c < tv.cols; c++) {
                    float x = fabsf(tf_view_at(&tv, r, c));
                    if (isfinite(x) && x > m)
                        m = x;
                }
        }
    if (m == 0)
        m = 1;
    memo->valid = 1;
    memcpy(memo->key, key, sizeof key);
    memo->m = m;
    G->lo = -m;
    G->hi = m;
}

/* A veil over padding rows and columns, as the big heatmap draws it. */
static void veil_padding(ViewCtx *v, const HeadsGrid *G, Rect t)
{
    Color veil = v->th->pad;
    veil.a = 110;
    if (G->qn < G->Tq) {
        int y = t.y + (int)lroundf(G->qn * G->c);
        ren_rect(v->r, (Rect){t.x, y, t.w, t.y + t.h - y}, veil);
    }
    if (G->kn < G->Tk) {
        int x = t.x + (int)lroundf(G->kn * G->c);
        ren_rect(v->r, (Rect){x, t.y, t.x + t.w - x, t.h}, veil);
    }
}

/* The token the learner clicked elsewhere: outline its row or column. */
static void mark_selection(ViewCtx *v, const HeadsGrid *G, const TfView *tv, Rect t)
{
    const Selection *s = &v->s->sel;
    int cpx = (int)lroundf(G->c) > 1 ? (int)lroundf(G->c) : 1;
    if (!s->side)
        return;
    if (ui_side_of(tv->row_kind) == s->side && s->index < G->Tq)
        ren_rect_line(v->r, (Rect){t.x, t.y + (int)lroundf(s->index * G->c), t.w, cpx}, 1, v->th->select);
    if (ui_side_of(tv->col_kind) == s->side && s->index < G->Tk)
        ren_rect_line(v->r, (Rect){t.x + (int)lroundf(s->index * G->c), t.y, cpx, t.h}, 1, v->th->select);
}

/* One thumbnail: the cached image, padding veil, selection, hover, click. */
/* Which attention a stage belongs to (TfAttnKind), -1 none. */
static int attn_kind(StageId st)
{
    const char *n = stage_info(st)->name;
    if (strncmp(n, "enc.self.", 9) == 0)
        return TF_ATTN_ENC;
    if (strncmp(n, "dec.self.", 9) == 0)
        return TF_ATTN_DEC;
    if (strncmp(n, "dec.cross.", 10) == 0)
        return TF_ATTN_CROSS;
    return -1;
}

/* keyed: the keyboard's cell is in this thumbnail (and the mouse over none) */
static void draw_thumb(ViewCtx *v, const HeadsGrid *G, int l, int h, int slot, int current, int keyed)
{
    const Scene *sc = v->s;
    TfView tv;
    TfErr err;
    if (tf_view(sc->trace, G->st, l, h, G->b, &tv, &err))
        return;
    Rect t = heads_grid_rect(G, l, slot); /* slot: where the sort puts head h */
    uint32_t masked = cmap_pack(v->th->masked);
    uint64_t key = heat_key(G->st, l, h, G->b, G->cmap, G->prob ? 0 : (int)HEADS_VARIANT_SHARED);
    RenImage *img = heat_image(v->g, sc->version, key, &tv, G->lo, G->hi, G->cmap, masked);
    if (img)
        ren_image_draw(v->r, img, (Rect){0, 0, 0, 0}, t);
    veil_padding(v, G, t);
    mark_selection(v, G, &tv, t);
    int over = ui_over(v->in, t), kind0 = attn_kind(G->st);
    HeadsTable *tab = &((HeadsState *)v->st)->table;
    int picked = tab->shown && heads_table_is_sel(tab, kind0, l, h);
    if (current)
        ren_rect_line(v->r, (Rect){t.x - 3, t.y - 3, t.w + 6, t.h + 6}, 2, v->th->select);
    /* the frame grows with the head's importance, once measured */
    int fw = kind0 >= 0 ? heads_table_frame(v, kind0, l, h) : 1;
    ren_rect_line(v->r, (Rect){t.x - fw, t.y - fw, t.w + 2 * fw, t.h + 2 * fw}, fw,
                  over ? v->th->select : fw > 1 ? v->th->accent : v->th->border);
    if (picked) /* the row selected in the table */
        ren_rect_line(v->r, (Rect){t.x - fw - 4, t.y - fw - 4, t.w + 2 * fw + 8, t.h + 2 * fw + 8}, 3,
                      v->th->accent2);
    if (attn_kind(G->st) >= 0 && tf_exp_ablated(sc->exp, (TfAttnKind)attn_kind(G->st), l, h)) {
        /* ablated: crossed out, hovered or not */
        ren_rect_line(v->r, (Rect){t.x - 2, t.y - 2, t.w + 4, t.h + 4}, 2, v->th->warn);
        ren_line(v->r, (float)t.x, (float)t.y, (float)(t.x + t.w), (float)(t.y + t.h), 2, v->th->warn);
    }
    int r, c;
    if (keyed && view_key_cell(v, tv.rows, tv.cols, &r, &c)) { /* the keyboard's cell: this head, the cell */
        ui_hover_cell(v, &tv, r, c);
        view_key_outline(v, (Rect){t.x - fw, t.y - fw, t.w + 2 * fw, t.h + 2 * fw});
        view_key_outline(v, (Rect){t.x + (int)lroundf(c * G->c), t.y + (int)lroundf(r * G->c),
                                   (int)lroundf(G->c) > 1 ? (int)lroundf(G->c) : 1,
                                   (int)lroundf(G->c) > 1 ? (int)lroundf(G->c) : 1});
    }
    if (!over)
        return;
    view_key_cell(v, tv.rows, tv.cols, &r, &c); /* its room */
    c = (int)((v->in->mx - t.x) / G->c), r = (int)((v->in->my - t.y) / G->c);
    if (r >= 0 && r < tv.rows && c >= 0 && c < tv.cols) {
        ui_hover_cell(v, &tv, r, c);
        if (G->c >= 3)
            ren_rect_line(v->r, (Rect){t.x + (int)lroundf(c * G->c) - 1, t.y + (int)lroundf(r * G->c) - 1,
                                       (int)lroundf(G->c) + 2, (int)lroundf(G->c) + 2},
                          1, v->th->select);
    }
    int kind = attn_kind(G->st);
    if (ui_clicked(v->in, t) && (v->in->mod & MOD_ALT) && kind >= 0) { /* ablate it */
        v->out->exp_head_set = 1;
        v->out->exp_head[0] = kind;
        v->out->exp_head[1] = l;
        v->out->exp_head[2] = h;
    } else if (ui_clicked(v->in, t) && tab->shown && !picked && kind >= 0) { /* its row in the table */
        heads_table_select(tab, kind, l, h);
    } else if (ui_clicked(v->in, t)) { /* open this head in the big heatmap */
        view_goto(v, G->st, l);
        view_set_head(v, h);
        view_show(v, VIEW_AUTO);
    }
}

static Color label_color(const ViewCtx *v, LabelKind k, int i, int n_real)
{
    const Selection *s = &v->s->sel;
    if (s->side && s->side == ui_side_of(k) && s->index == i)
        return v->th->select;
    return i >= n_real ? v->th->dim : v->th->text;
}

/* A token's label cut to fit: the full token is shown beside the mouse
 * when it is over the label (the tip is drawn last, over the grid). */
typedef struct LabelTip {
    int on, x, y;
    char text[300];
} LabelTip;

static void tip_if_over(ViewCtx *v, Rect box, const char *full, LabelTip *tip)
{
    if (!ui_over(v->in, box))
        return;
    tip->on = 1;
    tip->x = v->in->mx + 12;
    tip->y = v->in->my + 14;
    snprintf(tip->text, sizeof tip->text, "%s", full);
}

static void draw_tip(ViewCtx *v, const LabelTip *tip)
{
    if (!tip->on)
        return;
    RenFont *f = v->g->ui;
    int w = ren_text_width(f, tip->text) + 12, h = ren_font_height(f) + 6;
    int x = tip->x, y = tip->y;
    if (x + w > v->area.x + v->area.w)
        x = v->area.x + v->area.w - w;
    if (y + h > v->area.y + v->area.h)
        y = tip->y - 28 - h;
    ren_rect(v->r, (Rect){x, y, w, h}, v->th->panel2);
    ren_rect_line(v->r, (Rect){x, y, w, h}, 1, v->th->select);
    ren_text(v->r, f, tip->text, x + 6, y + 3, v->th->text);
}

/* Query tokens down the left of thumbnail t, each centred on its row and
 * cut to the band; a label that would touch the one above it is left out
 * (its row's hover still names it). */
static void draw_query_labels(ViewCtx *v, const HeadsGrid *G, const TfView *tv, Rect t, LabelTip *tip)
{
    const Scene *sc = v->s;
    RenFont *f = v->g->small;
    int fh = ren_font_height(f), ink = fh * 3 / 4, last = -(1 << 30);
    Rect band = {t.x - G->lab_w, t.y - G->gap / 2, G->lab_w - 4, t.h + G->gap};
    char buf[300];
    ren_clip_push(v->r, band);
    for (int i = 0; i < G->Tq; i++) {
        int y = t.y + (int)lroundf((i + 0.5f) * G->c) - fh / 2;
        if (y < last)
            continue; /* rows smaller than the letters: every other label */
        view_tok_label(sc->trace, sc->model, tv, 0, i, buf, sizeof buf);
        int w = ren_text_width(f, buf), x = band.x + band.w - w;
        ui_text_fit(v->r, f, buf, x < band.x ? band.x : x, y, band.w, label_color(v, tv->row_kind, i, G->qn));
        tip_if_over(v, (Rect){band.x, y, band.w, fh}, buf, tip);
        last = y + ink; /* the letters, not the line's leading */
    }
    ren_clip_pop(v->r);
}

/* Key tokens above thumbnail t in a band G->key_h tall ending at y_end:
 * level and centred on their columns when they fit, else turned to read
 * upwards from the bottom of the band, each cut to the band; a label that
 * would touch the one before is left out. */
static void draw_key_labels(ViewCtx *v, const HeadsGrid *G, const TfView *tv, Rect t, int y_end, LabelTip *tip)
{
    const Scene *sc = v->s;
    RenFont *f = v->g->small;
    int fh = ren_font_height(f), last = -(1 << 30), space = (int)lroundf(3 * v->g->scale);
    char buf[300];
    Rect band = {t.x - G->gap / 2, y_end - G->key_h, t.w + G->gap, G->key_h};
    ren_clip_push(v->r, band);
    for (int j = 0; j < G->Tk; j++) {
        view_tok_label(sc->trace, sc->model, tv, 1, j, buf, sizeof buf);
        Color col = label_color(v, tv->col_kind, j, G->kn);
        int mid = t.x + (int)lroundf((j + 0.5f) * G->c);
        if (G->key_up) {
            int x = mid - fh / 2;
            if (x < last)
                continue;
            char cut[300];
            ui_text_cut(f, buf, G->key_h - 4, cut, sizeof cut);
            ren_text_up(v->r, f, cut, x, y_end - 2, col);
            tip_if_over(v, (Rect){x, band.y, fh, band.h}, buf, tip);
            last = x + fh * 3 / 4; /* the letters, not the line's leading */
            continue;
        }
        int w = ren_text_width(f, buf);
        int x = mid - w / 2;
        if (x + w > t.x + t.w)
            x = t.x + t.w - w;
        if (x < t.x)
            x = t.x;
        if (x < last + space)
            continue;
        ren_text(v->r, f, buf, x, y_end - fh - 1, col);
        tip_if_over(v, (Rect){x, y_end - fh - 1, w, fh}, buf, tip);
        last = x + w;
    }
    ren_clip_pop(v->r);
}

/* Layer and head captions, and the token labels on the outer edges. */
static void draw_captions(ViewCtx *v, const HeadsGrid *G, const TfView *tv0, int cur_layer, LabelTip *tip)
{
    RenFont *f = v->g->small;
    int fh = ren_font_height(f);
    char buf[48];
    int sorted = ((const HeadsState *)v->st)->x.sort;
    for (int l = G->l0; l < G->l0 + G->nl; l++) {
        int cur = l == cur_layer;
        Color lc = cur ? v->th->accent : v->th->dim;
        Rect t0 = heads_grid_rect(G, l, 0), tn = heads_grid_rect(G, l, G->NH - 1);
        snprintf(buf, sizeof buf, G->short_caps ? "L%d" : _("layer %d"), l + 1);
        if (G->side) { /* the caption spans the layer's heads */
            Rect cap = {t0.x, G->y0 - G->key_h - 2 * (fh + 2) - 2, tn.x + tn.w - t0.x, fh};
            ui_text_center(v->r, f, buf, cap, lc);
            if (cur)
                ren_rect(v->r, (Rect){cap.x, cap.y + fh, cap.w, 2}, v->th->accent);
        } else if (G->nl > 1) {
            int span = tn.y + tn.h - t0.y;
            int y = t0.y + span / 2 - fh / 2;
            ren_text(v->r, f, buf, t0.x - G->lab_w - G->cap_w, y < t0.y ? t0.y : y, lc);
            if (cur) /* a bar beside the current layer's rows */
                ren_rect(v->r, (Rect){t0.x - G->lab_w - 4, t0.y, 3, span}, v->th->accent);
        }
        for (int h = 0; h < G->NH; h++) {
            Rect t = heads_grid_rect(G, l, h);
            int top_row = t.y == G->y0;
            if (h % G->per_row == 0 && (l == G->l0 || !G->side) && G->lab_w > 0)
                draw_query_labels(v, G, tv0, t, tip);
            /* head captions above every row of heads when wrapped, else once on top */
            if (!top_row && !G->band)
                continue;
            int yh = top_row ? G->y0 - G->key_h - fh - 4 : t.y - fh - 2;
            snprintf(buf, sizeof buf, _("head %d"), 10);
            snprintf(buf, sizeof buf, t.w >= ren_text_width(f, buf) ? _("head %d") : "%d", h + 1);
            if (sorted) /* sorted: the rank, each thumbnail names its head */
                snprintf(buf, sizeof buf, "#%d", h + 1);
            ui_text_center(v->r, f, buf, (Rect){t.x - G->gap / 2, yh, t.w + G->gap, fh},
                           v->s->head == h ? v->th->select : v->th->dim);
            if (top_row) /* the columns are the same keys all the way down */
                draw_key_labels(v, G, tv0, t, G->y0 - 2, tip);
        }
    }
}

/* The line under the title: the sentence, the layers shown (one of
 * several, or all), what the rows and columns are. */
static void subtitle_text(const ViewCtx *v, const HeadsGrid *G, int one_layer, char *s, size_t cap)
{
    const Scene *sc = v->s;
    char sent[64] = "", grid[160];
    if (sc->n_src > 1)
        snprintf(sent, sizeof sent, _("sentence %d of %d · "), G->b + 1, sc->n_src);
    if (one_layer) /* one layer of several: which, and how to see the others */
        snprintf(grid, sizeof grid, _("layer %d of %d ([ ] the others)"), G->l0 + 1, G->L);
    else
        snprintf(grid, sizeof grid, G->L > 1 ? _("%d layers × %d heads") : _("%d layer × %d heads"), G->L, G->NH);
    snprintf(s, cap, "%s%s · %s · %s · %s", sent, grid, _("rows are queries, columns keys"),
             G->prob ? _("each row sums to 1") : _("one colour scale for every head"), _("click a head to open it"));
}

/* The title, and room for the line under it (drawn once the grid is laid
 * out, as it says which layers the grid shows): one line when the text is
 * large or the line fits, else two at most. */
static void draw_title(ViewCtx *v, const HeadsGrid *G, StageId first, Rect *body, Rect *line)
{
    RenFont *ui = v->g->ui, *f = v->g->small;
    int fh = ren_font_height(f);
    char t[256], a[600], b[600];
    snprintf(t, sizeof t, G->prob ? _("%s · weights") : _("%s · scaled scores"), attn_name(first));
    int y = body->y;
    ui_text_fit(v->r, ui, t, body->x, y, body->w, v->th->text);
    y += ren_font_height(ui) + 2;
    HeadsGrid g = *G;
    g.l0 = G->L - 1;
    subtitle_text(v, &g, 0, a, sizeof a);
    subtitle_text(v, &g, 1, b, sizeof b);
    int one = v->g->scale > 1.3f || (ren_text_width(f, a) <= body->w && ren_text_width(f, b) <= body->w);
    *line = (Rect){body->x, y, body->w, one ? fh : 2 * fh};
    y += line->h + 8;
    body->h -= y - body->y;
    body->y = y;
}

static void draw_subtitle(ViewCtx *v, const HeadsGrid *G, Rect line)
{
    RenFont *f = v->g->small;
    int fh = ren_font_height(f);
    char s[600];
    subtitle_text(v, G, G->nl < G->L, s, sizeof s);
    Color c = G->nl < G->L ? v->th->accent : v->th->dim;
    if (line.h < 2 * fh) {
        ui_text_fit(v->r, f, s, line.x, line.y, line.w, c);
        return;
    }
    ren_clip_push(v->r, line); /* two lines at most */
    ui_paragraph(v->r, f, s, line.x, line.y, line.w, c);
    ren_clip_pop(v->r);
}

static void draw_colorbar(ViewCtx *v, const HeadsGrid *G, Rect body)
{
    RenFont *f = v->g->small;
    int fh = ren_font_height(f);
    Rect last = heads_grid_rect(G, G->l0 + G->nl - 1, G->NH - 1);
    int bh = last.y + last.h - G->y0;
    int need = 4 * fh + 24, room = body.y + body.h - G->y0;
    if (bh < need)
        bh = need < room ? need : room;
    int x = G->right + (int)(12 * v->g->scale);
    /* the title over the bar, moved left over the margin when it would
     * pass the view's edge (the grid reserves its width, not the margin) */
    const char *title = G->prob ? _("weight") : _("score");
    int tx = x, tw = ren_text_width(f, title);
    if (tx + tw > body.x + body.w)
        tx = body.x + body.w - tw;
    if (tx < G->right + 2)
        tx = G->right + 2;
    ren_text(v->r, f, title, tx, G->y0 - fh - 4, v->th->dim);
    ui_colorbar(v, (Rect){x, G->y0, (int)(14 * v->g->scale), bh}, G->cmap, G->lo, G->hi,
                G->prob ? NULL : "0");
}

/* Every thumbnail, each layer's heads in the sort's order, with the
 * metrics overlay. */
static void draw_thumbs(ViewCtx *v, const HeadsGrid *G, int cur_layer)
{
    HeadsExp *x = &((HeadsState *)v->st)->x;
    int kind = attn_kind(G->st);
    SceneHead m[HX_MAX_HEADS];
    int order[HX_MAX_HEADS];
    /* the keyboard's head and cell, when the mouse is over no thumbnail */
    int ml, ms, kt = -1;
    int mouse = heads_grid_at(G, v->in->mx, v->in->my, &ml, &ms);
    if (!view_key_thumb(v, G->l0 * G->NH, G->nl * G->NH, &kt) || mouse)
        kt = -1;
    for (int l = G->l0; l < G->l0 + G->nl; l++) {
        for (int h = 0; h < G->NH && h < HX_MAX_HEADS; h++)
            order[h] = h;
        if (kind >= 0 && (x->overlay || x->sort))
            heads_exp_layer(v->s, x, (TfAttnKind)kind, l, G->NH, m, order);
        for (int s = 0; s < G->NH && s < HX_MAX_HEADS; s++) {
            int h = order[s];
            int key = kt == l * G->NH + h;
            draw_thumb(v, G, l, h, s, l == cur_layer && h == v->s->head, key);
            if (kind >= 0 && (x->overlay || x->sort)) {
                Rect t = heads_grid_rect(G, l, s);
                heads_exp_overlay(v, x, t, &m[h], (TfAttnKind)kind, h, key || ui_over(v->in, t));
            }
        }
    }
}

const HeadsTable *view_heads_table(const void *heads_state)
{
    return &((const HeadsState *)heads_state)->table;
}

static int heads_act(ViewCtx *v, ViewAct act, int arg)
{
    (void)arg;
    if (act == VA_TABLE) { /* A: the Heads table, or the thumbnails alone */
        HeadsTable *t = &((HeadsState *)v->st)->table;
        t->hidden = !t->hidden;
        return 1;
    }
    return heads_exp_act(&((HeadsState *)v->st)->x, act);
}

static int real_len(const TfTrace *tr, LabelKind k, int b)
{
    return k == LBL_SRC ? tr->src_len[b] : tr->tgt_len[b];
}

/* The one layout decision between the Heads table and the thumbnails'
 * token labels (the labels first): the table under the grid with as many
 * rows as its share of the view holds, or fewer (down to 3, the rest
 * scroll), as long as every layer's thumbnails keep room for every label;
 * else the current layer alone beside the table ([ ] the others; A hides
 * the table for all of them); when neither keeps them (a long sentence),
 * the table its usual size, as the labels thin out anyway. Returns the
 * rows (-1: its usual size) and sets *one_layer. */
static int table_rows(ViewCtx *v, const TfView *tv0, Rect body, int cur_layer, const HeadsGrid *G0, int kind,
                      int *one_layer)
{
    HeadsGrid alone = *G0, T;
    *one_layer = 0;
    if (!heads_grid_layout(v, tv0, body, cur_layer, &alone) || !heads_grid_labels_fit(v, &alone))
        return -1;
    int most = heads_table_rows(v, kind, G0->L, body);
    for (int one = 0; one < 2; one++)
        for (int n = most; n >= 3; n--) {
            Rect b = body;
            b.h -= heads_table_height(v, n, body.w) + 6;
            T = *G0;
            T.one_layer = one;
            if (heads_grid_layout(v, tv0, b, cur_layer, &T) && heads_grid_labels_fit(v, &T) &&
                (one || T.nl == alone.nl)) {
                *one_layer = one && G0->L > 1;
                return n;
            }
        }
    return -1;
}

static void heads_draw(ViewCtx *v)
{
    const Scene *sc = v->s;
    StagePos p = sc->pos;
    const TfConfig *cfg = &sc->model->cfg;
    StageId first = stage_attn_block(p.stage);
    HeadsGrid G;
    memset(&G, 0, sizeof G);
    G.prob = p.stage != stage_attn_part(first, AP_SCORES); /* scores, or else weights */
    G.st = stage_attn_part(first, G.prob ? AP_WEIGHTS : AP_SCORES);
    G.L = stage_layers(G.st, cfg);
    G.NH = cfg->n_heads;
    G.b = sc->batch;
    TfView tv0;
    TfErr err;
    if (tf_view(sc->trace, G.st, 0, 0, G.b, &tv0, &err)) {
        ui_paragraph(v->r, v->g->ui, err.msg, v->area.x + 10, v->area.y + 10, v->area.w - 20, v->th->warn);
        return;
    }
    G.Tq = tv0.rows;
    G.Tk = tv0.cols;
    G.qn = real_len(sc->trace, tv0.row_kind, G.b);
    G.kn = real_len(sc->trace, tv0.col_kind, G.b);
    G.cmap = G.prob ? sc->cmap_prob : sc->cmap_signed;
    if (G.prob) {
        G.lo = 0;
        G.hi = 1;
    } else {
        score_range(v, &G);
    }
    Rect body = {v->area.x + 4, v->area.y + 4, v->area.w - 8, v->area.h - 8};
    Rect line;
    draw_title(v, &G, first, &body, &line);
    heads_exp_controls(v, &((HeadsState *)v->st)->x, &body);
    HeadsTable *tab = &((HeadsState *)v->st)->table;
    tab->shown = 0;
    int cur_layer = (stage_info(p.stage)->flags & SF_LAYER) ? p.layer : -1;
    HeadsState *hs = v->st;
    if (!tab->hidden && tab->full) { /* the table alone: every row it can show */
        hs->grid_valid = 0;
        heads_table_fill(v, tab, attn_kind(G.st), G.L, &body);
        if (tab->shown) {
            ui_text_fit(v->r, v->g->small,
                        _("every head in one table · click a header to sort · With thumbnails: the heads' "
                          "thumbnails again"),
                        line.x, line.y, line.w, v->th->dim);
            return;
        }
    }
    if (!tab->hidden && heads_table_rows(v, attn_kind(G.st), G.L, body) > 0) {
        int rows = table_rows(v, &tv0, body, cur_layer, &G, attn_kind(G.st), &G.one_layer);
        heads_table_dock(v, tab, attn_kind(G.st), G.L, &body, rows);
    }
    hs->grid_valid = 0;
    if (!heads_grid_layout(v, &tv0, body, cur_layer, &G)) {
        draw_subtitle(v, &G, line);
        ui_paragraph(v->r, v->g->small, _("The window is too small for every head: make it larger, or press 1-9 to see one head."),
                     body.x, body.y, body.w, v->th->dim);
        return;
    }
    hs->grid = G;
    hs->grid_valid = 1;
    LabelTip tip = {0};
    draw_captions(v, &G, &tv0, cur_layer, &tip);
    draw_thumbs(v, &G, cur_layer);
    draw_colorbar(v, &G, body);
    draw_subtitle(v, &G, line);
    draw_tip(v, &tip);
}

static void view_heads(ViewCtx *v)
{
    ui_draw_inside(v, heads_draw);
}

const ViewDef VIEW_HEADS_DEF = {"heads", N_("All heads"), view_heads, heads_act, sizeof(HeadsState), NULL,
                                VIEW_NEED_STACK, VIEW_WANT_HEADS | VIEW_WANT_IMPORTANCE};
