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

#define HEADS_VARIANT_SHARED 0x4E5Du /* heat cache variant: shared score range */

/* Where the thumbnails are and what they show. Three arrangements: one row
 * per layer (heads across); heads wrapped over several rows per layer when
 * the window has height to spare (8 heads as 2 x 4 gives cells twice as
 * big); or, when the matrices are tall and narrow (cross-attention over a
 * short source), all layers side by side in one row. Whichever gives the
 * biggest cells wins. */
typedef struct HeadsGrid {
    StageId st;          /* the scores or weights stage shown */
    int L, NH, Tq, Tk, b;
    int qn, kn;          /* real (not <pad>) query and key tokens */
    int prob;            /* weights (0..1) rather than scores */
    float lo, hi;
    CmapId cmap;
    int side;            /* layers side by side */
    float c;             /* pixels per matrix cell */
    int tw, th;          /* thumbnail size */
    int gap, lgap;       /* space between heads, extra space between layers */
    int x0, y0;          /* top-left of layer 0, head 0 */
    int cap_w, lab_w;    /* layer-caption band, query-label band (left) */
    int short_caps;      /* "L2" rather than "layer 2" */
    int per_row;         /* heads per row (NH unless wrapped) */
    int rows;            /* rows of heads per layer */
    int band;            /* captions above every row when wrapped, else 0 */
} HeadsGrid;

static const char *attn_name(StageId first)
{
    return first == ST_DEC_CROSS_Q ? _("Cross-attention (decoder → encoder)")
           : first == ST_DEC_SELF_Q ? _("Decoder masked self-attention")
                                    : _("Encoder self-attention");
}

static Rect thumb_rect(const HeadsGrid *G, int l, int h)
{
    if (G->side)
        return (Rect){G->x0 + (l * G->NH + h) * (G->tw + G->gap) + l * G->lgap, G->y0, G->tw, G->th};
    int r = l * G->rows + h / G->per_row, c = h % G->per_row;
    return (Rect){G->x0 + c * (G->tw + G->gap), G->y0 + r * (G->th + G->gap + G->band) + l * (G->rows > 1 ? G->lgap : 0),
                  G->tw, G->th};
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
} HeadsState;

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

/* Pixels per cell when the thumbnails share W x H: cells stay square and
 * whole pixels (even cells) once they are big enough, and never grow past
 * a size where a thumbnail stops looking like one. */
static float cell_size(float W, float H, int across, int down, float sc)
{
    if (W < 4 || H < 4)
        return 0;
    float c = fminf(fminf(W / (float)across, H / (float)down), 44.0f * sc);
    return c >= 4 ? floorf(c) : c;
}

/* One try at sizing the grid; compact 1 shortens "layer 2" to "L2",
 * compact 2 also drops the query labels and narrows the gaps. Returns the
 * cell size it reached. */
static float layout_try(ViewCtx *v, const TfView *tv0, Rect body, HeadsGrid *G, int compact)
{
    RenFont *f = v->g->small;
    int fh = ren_font_height(f);
    float sc = v->g->scale;
    char cap[32];
    snprintf(cap, sizeof cap, compact ? "L%d" : _("layer %d"), G->L);
    G->short_caps = compact > 0;
    G->cap_w = ren_text_width(f, cap) + (int)(12 * sc);
    G->lab_w = compact > 1 ? 0 : ui_label_width(v->s, tv0, 0, f) + (int)(8 * sc);
    if (G->lab_w > body.w / 6)
        G->lab_w = body.w / 6;
    int cb_w = ren_text_width(f, "-00.00") + (int)(30 * sc);
    G->gap = (int)lroundf((compact > 1 ? 4 : 8) * sc);
    G->lgap = (int)lroundf((compact > 1 ? 8 : 14) * sc);
    int n = G->L * G->NH;
    /* one row per layer */
    int top_rows = 2 * (fh + 2) + 2;
    float c_rows = cell_size((float)(body.w - G->cap_w - G->lab_w - cb_w - (G->NH - 1) * G->gap),
                             (float)(body.h - top_rows - (G->L - 1) * G->gap),
                             G->NH * G->Tk, G->L * G->Tq, sc);
    /* every layer side by side */
    int top_side = 3 * (fh + 2) + 2;
    float c_side = cell_size((float)(body.w - G->lab_w - cb_w - (n - 1) * G->gap - (G->L - 1) * G->lgap),
                             (float)(body.h - top_side), n * G->Tk, G->Tq, sc);
    /* heads wrapped over 2 or 4 rows per layer, captions above every row */
    G->per_row = G->NH;
    G->rows = 1;
    G->band = 0;
    float c_wrap = 0;
    int best_k = G->NH;
    for (int k = (G->NH + 1) / 2; k >= 1 && compact < 2; k = (k + 1) / 2) {
        int rows = (G->NH + k - 1) / k, bands = G->L * rows;
        float c = cell_size((float)(body.w - G->cap_w - G->lab_w - cb_w - (k - 1) * G->gap),
                            (float)(body.h - top_rows - bands * (top_rows + G->gap) - (G->L - 1) * G->lgap),
                            k * G->Tk, bands * G->Tq, sc);
        if (c > c_wrap) {
            c_wrap = c;
            best_k = k;
        }
        if (k == 1)
            break;
    }
    G->side = G->L > 1 && c_side > c_rows * 1.25f && c_side >= c_wrap;
    G->c = G->side ? c_side : c_rows;
    if (!G->side && c_wrap > c_rows * 1.25f) {
        G->per_row = best_k;
        G->rows = (G->NH + best_k - 1) / best_k;
        G->band = top_rows;
        G->c = c_wrap;
    }
    G->tw = (int)lroundf(G->c * G->Tk);
    G->th = (int)lroundf(G->c * G->Tq);
    G->x0 = body.x + G->lab_w + (G->side ? 0 : G->cap_w);
    G->y0 = body.y + (G->side ? top_side : top_rows);
    return G->c;
}

/* Sizes everything to the area, giving up labels before thumbnails get
 * too small to read; returns 0 when the grid cannot be drawn at all. */
static int heads_layout(ViewCtx *v, const TfView *tv0, Rect body, HeadsGrid *G)
{
    int small = G->Tq < G->Tk ? G->Tq : G->Tk;
    for (int compact = 0; compact < 3; compact++)
        if (layout_try(v, tv0, body, G, compact) * small >= 16 * v->g->scale)
            return 1;
    return G->c * small >= 4;
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

static void draw_thumb(ViewCtx *v, const HeadsGrid *G, int l, int h, int slot, int current)
{
    const Scene *sc = v->s;
    TfView tv;
    TfErr err;
    if (tf_view(sc->trace, G->st, l, h, G->b, &tv, &err))
        return;
    Rect t = thumb_rect(G, l, slot); /* slot: where the sort puts head h */
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
    if (!over)
        return;
    int c = (int)((v->in->mx - t.x) / G->c), r = (int)((v->in->my - t.y) / G->c);
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

/* Query tokens down the left of thumbnail t, each centred on its row;
 * a label that would touch the one above it is left out. */
static void draw_query_labels(ViewCtx *v, const HeadsGrid *G, const TfView *tv, Rect t)
{
    const Scene *sc = v->s;
    RenFont *f = v->g->small;
    int fh = ren_font_height(f), last = -(1 << 30);
    Rect band = {t.x - G->lab_w, t.y - G->gap / 2, G->lab_w - 4, t.h + G->gap};
    char buf[300];
    ren_clip_push(v->r, band);
    for (int i = 0; i < G->Tq; i++) {
        int y = t.y + (int)lroundf((i + 0.5f) * G->c) - fh / 2;
        if (y < last + 1)
            continue;
        view_tok_label(sc->trace, sc->model, tv, 0, i, buf, sizeof buf);
        int w = ren_text_width(f, buf), x = band.x + band.w - w;
        ui_text_fit(v->r, f, buf, x < band.x ? band.x : x, y, band.w, label_color(v, tv->row_kind, i, G->qn));
        last = y + fh;
    }
    ren_clip_pop(v->r);
}

/* Key tokens above thumbnail t, centred on their columns (kept over the
 * thumbnail), leaving out any that would touch the one before. */
static void draw_key_labels(ViewCtx *v, const HeadsGrid *G, const TfView *tv, Rect t, int y)
{
    const Scene *sc = v->s;
    RenFont *f = v->g->small;
    int last = -(1 << 30), space = (int)lroundf(4 * v->g->scale);
    char buf[300];
    ren_clip_push(v->r, (Rect){t.x - G->gap / 2, y, t.w + G->gap, ren_font_height(f)});
    for (int j = 0; j < G->Tk; j++) {
        view_tok_label(sc->trace, sc->model, tv, 1, j, buf, sizeof buf);
        int w = ren_text_width(f, buf);
        int x = t.x + (int)lroundf((j + 0.5f) * G->c) - w / 2;
        if (x + w > t.x + t.w)
            x = t.x + t.w - w;
        if (x < t.x)
            x = t.x;
        if (x < last + space || (j > 0 && x + w > t.x + t.w + G->gap / 2))
            continue;
        ren_text(v->r, f, buf, x, y, label_color(v, tv->col_kind, j, G->kn));
        last = x + w;
    }
    ren_clip_pop(v->r);
}

/* Layer and head captions, and the token labels on the outer edges. */
static void draw_captions(ViewCtx *v, const HeadsGrid *G, const TfView *tv0, int cur_layer)
{
    RenFont *f = v->g->small;
    int fh = ren_font_height(f);
    int y_head = G->y0 - 2 * (fh + 2) - 2, y_key = G->y0 - fh - 4;
    char buf[48];
    for (int l = 0; l < G->L; l++) {
        int cur = l == cur_layer;
        Color lc = cur ? v->th->accent : v->th->dim;
        Rect t0 = thumb_rect(G, l, 0), tn = thumb_rect(G, l, G->NH - 1);
        snprintf(buf, sizeof buf, G->short_caps ? "L%d" : _("layer %d"), l + 1);
        if (G->side) { /* the caption spans the layer's heads */
            Rect cap = {t0.x, G->y0 - 3 * (fh + 2) - 2, tn.x + tn.w - t0.x, fh};
            ui_text_center(v->r, f, buf, cap, lc);
            if (cur)
                ren_rect(v->r, (Rect){cap.x, cap.y + fh, cap.w, 2}, v->th->accent);
        } else {
            Rect tl = thumb_rect(G, l, G->NH - 1); /* the layer's last row */
            int span = tl.y + tl.h - t0.y;
            int y = t0.y + span / 2 - fh / 2;
            ren_text(v->r, f, buf, t0.x - G->lab_w - G->cap_w, y < t0.y ? t0.y : y, lc);
            if (cur) /* a bar beside the current layer's rows */
                ren_rect(v->r, (Rect){t0.x - G->lab_w - 4, t0.y, 3, span}, v->th->accent);
        }
        for (int h = 0; h < G->NH; h++) {
            Rect t = thumb_rect(G, l, h);
            int first_in_row = h % G->per_row == 0;
            if (first_in_row && (l == 0 || !G->side) && G->lab_w > 0 && (G->side || h == 0 || G->band))
                draw_query_labels(v, G, tv0, t);
            /* head captions: once on top, or above every wrapped row */
            if (!G->band && l > 0 && !G->side)
                continue;
            int yh = G->band ? t.y - 2 * (fh + 2) - 2 : y_head, yk = G->band ? t.y - fh - 4 : y_key;
            snprintf(buf, sizeof buf, _("head %d"), 10);
            snprintf(buf, sizeof buf, t.w >= ren_text_width(f, buf) ? _("head %d") : "%d", h + 1);
            if (((const HeadsState *)v->st)->x.sort) /* sorted: the rank, each thumbnail names its head */
                snprintf(buf, sizeof buf, "#%d", h + 1);
            ui_text_center(v->r, f, buf, (Rect){t.x - G->gap / 2, yh, t.w + G->gap, fh},
                           v->s->head == h ? v->th->select : v->th->dim);
            draw_key_labels(v, G, tv0, t, yk);
        }
    }
}

static void draw_header(ViewCtx *v, const HeadsGrid *G, StageId first, Rect *body)
{
    const Scene *sc = v->s;
    RenFont *ui = v->g->ui, *f = v->g->small;
    int fh = ren_font_height(f);
    char t[256], s[400], sent[64] = "", grid[64];
    snprintf(t, sizeof t, G->prob ? _("%s · weights") : _("%s · scaled scores"), attn_name(first));
    if (sc->n_src > 1)
        snprintf(sent, sizeof sent, _("sentence %d of %d · "), G->b + 1, sc->n_src);
    snprintf(grid, sizeof grid, G->L > 1 ? _("%d layers × %d heads") : _("%d layer × %d heads"), G->L, G->NH);
    snprintf(s, sizeof s, "%s%s · %s · %s · %s", sent, grid, _("rows are queries, columns keys"),
             G->prob ? _("each row sums to 1") : _("one colour scale for every head"), _("click a head to open it"));
    int y = body->y;
    ui_text_fit(v->r, ui, t, body->x, y, body->w, v->th->text);
    y += ren_font_height(ui) + 2;
    ren_clip_push(v->r, (Rect){body->x, y, body->w, 2 * fh}); /* two lines at most */
    y += ui_paragraph(v->r, f, s, body->x, y, body->w, v->th->dim) > fh ? 2 * fh : fh;
    ren_clip_pop(v->r);
    y += 8;
    body->h -= y - body->y;
    body->y = y;
}

static void draw_colorbar(ViewCtx *v, const HeadsGrid *G, Rect body)
{
    RenFont *f = v->g->small;
    int fh = ren_font_height(f);
    Rect last = thumb_rect(G, G->L - 1, G->NH - 1);
    int bh = last.y + last.h - G->y0;
    int need = 4 * fh + 24, room = body.y + body.h - G->y0;
    if (bh < need)
        bh = need < room ? need : room;
    int x = last.x + last.w + (int)(16 * v->g->scale);
    ren_text(v->r, f, G->prob ? _("weight") : _("score"), x, G->y0 - fh - 4, v->th->dim);
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
    for (int l = 0; l < G->L; l++) {
        for (int h = 0; h < G->NH && h < HX_MAX_HEADS; h++)
            order[h] = h;
        if (kind >= 0 && (x->overlay || x->sort))
            heads_exp_layer(v->s, x, (TfAttnKind)kind, l, G->NH, m, order);
        for (int s = 0; s < G->NH && s < HX_MAX_HEADS; s++) {
            int h = order[s];
            draw_thumb(v, G, l, h, s, l == cur_layer && h == v->s->head);
            if (kind >= 0 && (x->overlay || x->sort))
                heads_exp_overlay(v, x, thumb_rect(G, l, s), &m[h], (TfAttnKind)kind, h);
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
    draw_header(v, &G, first, &body);
    heads_exp_controls(v, &((HeadsState *)v->st)->x, &body);
    HeadsTable *tab = &((HeadsState *)v->st)->table;
    tab->shown = 0;
    if (!tab->hidden)
        heads_table_dock(v, tab, attn_kind(G.st), G.L, &body);
    if (!heads_layout(v, &tv0, body, &G)) {
        ui_paragraph(v->r, v->g->small, _("The window is too small for every head: make it larger, or press 1-9 to see one head."),
                     body.x, body.y, body.w, v->th->dim);
        return;
    }
    int cur_layer = (stage_info(p.stage)->flags & SF_LAYER) ? p.layer : -1;
    draw_captions(v, &G, &tv0, cur_layer);
    draw_thumbs(v, &G, cur_layer);
    draw_colorbar(v, &G, body);
}

static void view_heads(ViewCtx *v)
{
    ui_draw_inside(v, heads_draw);
}

const ViewDef VIEW_HEADS_DEF = {"heads", N_("All heads"), view_heads, heads_act, sizeof(HeadsState), NULL,
                                VIEW_NEED_STACK, VIEW_WANT_HEADS | VIEW_WANT_IMPORTANCE};
