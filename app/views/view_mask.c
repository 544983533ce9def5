/* view_mask.c - the additive attention mask M, exactly as the engine applied
 * it (the trace's mask stage): M[i,j] is 0 where query i may look at key j
 * and −∞ where it may not, and softmax(S + M) turns −∞ into a weight of
 * exactly 0. A 0 cell is drawn light with "0", a −∞ cell dark and hatched
 * with "−∞", and the reason for each −∞ is told apart: a future position
 * (j > i, the decoder's causal mask: "/" hatching) or a <pad> key (the
 * padding mask: "\" hatching on a warmer dark). Rows of padded queries are
 * veiled and tagged "ignored": PyTorch masks only keys, so those rows are
 * computed and then thrown away.
 *
 * The batch of up to four sentences (the source line split at '|') is
 * padded to its longest member; buttons pick the sentence, so a short one
 * shows its padding. For the decoder a side panel adds the two masks up:
 * causal + padding = what was applied. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "view.h"

/* Why a cell holds what it holds. */
typedef enum MaskCat {
    MC_ZERO,   /* 0: allowed */
    MC_FUTURE, /* −∞ because j > i (causal) */
    MC_PAD,    /* −∞ because key j is <pad> */
    MC_BOTH,   /* −∞ for both reasons */
    MC_OTHER,  /* −∞ for no reason we know of (would be an engine bug) */
    MC_VALUE   /* neither 0 nor −∞ (would be an engine bug): its number */
} MaskCat;

typedef struct MaskInfo {
    StageId st;
    int layer, b, causal;
    int no_pad;           /* causal only: the model masks no padding here
                             (MarianMT's decoder self-attention) */
    int qn, kn;           /* real query / key tokens of this sentence */
    TfView mv;            /* the mask as applied */
} MaskInfo;

static int is_neg_inf(float x)
{
    return isinf(x) && x < 0;
}

/* The category of cell (i, j) from its value and the sentence lengths. */
static MaskCat cell_cat(const MaskInfo *M, int i, int j)
{
    float x = tf_view_at(&M->mv, i, j);
    if (x == 0)
        return MC_ZERO;
    if (!is_neg_inf(x))
        return MC_VALUE;
    int fut = M->causal && j > i, pad = j >= M->kn;
    return fut && pad ? MC_BOTH : fut ? MC_FUTURE : pad ? MC_PAD : MC_OTHER;
}

/* The decoder's mask taken apart, from the lengths: which 0 is the causal
 * part (j > i), 1 the padding part (key j is <pad>), 2 their sum. */
static MaskCat mini_cat(const MaskInfo *M, int i, int j, int which)
{
    int fut = j > i, pad = j >= M->kn;
    if (which == 0)
        return fut ? MC_FUTURE : MC_ZERO;
    if (which == 1)
        return pad ? MC_PAD : MC_ZERO;
    return fut && pad ? MC_BOTH : fut ? MC_FUTURE : pad ? MC_PAD : MC_ZERO;
}

/* ---- how a cell looks ---- */

/* The colour of an allowed (0) cell: the opposite end from the theme's
 * masked colour, so 0 and −∞ can never be confused. */
static Color zero_color(const Theme *th)
{
    if (cmap_luminance(th->masked) >= 128)
        return th->bg;
    return cmap_luminance(th->bg) < 128 ? (Color){206, 211, 219, 255} : (Color){255, 255, 255, 255};
}

static Color cat_color(const Theme *th, MaskCat c)
{
    switch (c) {
    case MC_ZERO: return zero_color(th);
    case MC_PAD: case MC_BOTH: return ui_mix(th->masked, th->accent2, 0.3f);
    case MC_VALUE: return th->warn;
    default: return th->masked;
    }
}

/* One cell: its colour, hatching for the reason of a −∞, and "0" / "−∞"
 * when there is room. */
static void paint_cell(ViewCtx *v, Rect rc, MaskCat cat, float value, int text)
{
    const Theme *th = v->th;
    Color bg = cat_color(th, cat);
    ren_rect(v->r, rc, bg);
    int step = (int)lroundf(6 * v->g->scale);
    if (rc.w >= 7 && rc.h >= 7) {
        if (cat == MC_FUTURE || cat == MC_BOTH || cat == MC_OTHER)
            gfx_hatch(v->g, v->r, rc, 1, step, th->masked_text);
        if (cat == MC_PAD || cat == MC_BOTH)
            gfx_hatch(v->g, v->r, rc, -1, step, th->masked_text);
    }
    if (cat == MC_ZERO && cmap_luminance(th->masked) >= 128) /* a dark 0 cell on a dark page */
        ren_rect_line(v->r, rc, 1, th->border);
    if (!text)
        return;
    char buf[32];
    if (cat == MC_VALUE)
        ui_fmt(buf, sizeof buf, value);
    else
        snprintf(buf, sizeof buf, cat == MC_ZERO ? "0" : "−∞");
    RenFont *f = v->g->small;
    if (rc.w >= ren_text_width(f, buf) + 4 && rc.h >= ren_font_height(f)) {
        Rect tr = {rc.x + rc.w / 2 - ren_text_width(f, buf) / 2 - 2, rc.y + rc.h / 2 - ren_font_height(f) / 2,
                   ren_text_width(f, buf) + 4, ren_font_height(f)};
        if (cat != MC_ZERO) /* keep the text readable over the hatching */
            ren_rect(v->r, tr, bg);
        ui_text_center(v->r, f, buf, tr, cmap_ink_on(bg));
    }
}

/* A padded query row is computed, then ignored: faded towards the page,
 * which keeps 0 lighter than −∞ (or darker, in the high-contrast theme)
 * so the row still shows what the mask held. */
static void fade_row(ViewCtx *v, Rect row)
{
    Color c = v->th->bg;
    c.a = 120;
    ren_rect(v->r, row, c);
}

/* ---- the matrix ---- */

typedef struct MaskGrid {
    Rect cells;   /* Tq x Tk cells of size c */
    float c;
    int lab_w, top, tag_w;
} MaskGrid;

static void set_hover(ViewCtx *v, const MaskInfo *M, int i, int j)
{
    const Scene *sc = v->s;
    static const char *WHY[] = {N_("allowed"), N_("future position (j > i)"), N_("key is <pad>"),
                                N_("future position and <pad> key"), N_("masked"), N_("unexpected value")};
    char rl[200], cl[200];
    Hover *h = &v->out->hover;
    h->valid = 1;
    h->stage = M->st;
    h->layer = M->layer;
    h->head = -1;
    h->b = M->b;
    h->row = i;
    h->col = j;
    h->value = tf_view_at(&M->mv, i, j);
    view_cell_name(sc, &M->mv, 0, i, rl, sizeof rl);
    view_cell_name(sc, &M->mv, 1, j, cl, sizeof cl);
    snprintf(h->where, sizeof h->where,
             i >= M->qn ? _("row %s, col %s: %s (a padded query row: ignored)") : _("row %s, col %s: %s"), rl, cl,
             _(WHY[cell_cat(M, i, j)]));
}

/* Labels down the left and across the top; a label that would touch its
 * neighbour is left out. Clicking one selects the token. With paint 0 only
 * the clicks are looked at (the labels are in the cached layer). */
static void draw_labels(ViewCtx *v, const MaskInfo *M, const MaskGrid *G, int paint)
{
    const Scene *sc = v->s;
    RenFont *f = v->g->small;
    int fh = ren_font_height(f);
    char buf[300];
    int last = -(1 << 30);
    for (int i = 0; i < M->mv.rows; i++) {
        int y = G->cells.y + (int)lroundf((i + 0.5f) * G->c) - fh / 2;
        if (y < last + 1)
            continue;
        view_tok_label(sc->trace, sc->model, &M->mv, 0, i, buf, sizeof buf);
        int sel = sc->sel.side == ui_side_of(M->mv.row_kind) && sc->sel.index == i;
        Color c = sel ? v->th->select : i >= M->qn ? v->th->dim : v->th->text;
        int w = ren_text_width(f, buf);
        int x = G->cells.x - 6 - (w < G->lab_w - 6 ? w : G->lab_w - 6);
        if (paint)
            ui_text_fit(v->r, f, buf, x, y, G->lab_w - 6, c);
        Rect hit = {G->cells.x - G->lab_w, G->cells.y + (int)(i * G->c), G->lab_w, (int)ceilf(G->c)};
        if (ui_clicked(v->in, hit))
            view_select(v, sel ? 0 : ui_side_of(M->mv.row_kind), sel ? 0 : i);
        last = y + fh;
    }
    last = -(1 << 30);
    int y = G->cells.y - fh - 4;
    for (int j = 0; j < M->mv.cols; j++) {
        view_tok_label(sc->trace, sc->model, &M->mv, 1, j, buf, sizeof buf);
        int w = ren_text_width(f, buf);
        int x = G->cells.x + (int)lroundf((j + 0.5f) * G->c) - w / 2;
        if (x < G->cells.x - G->lab_w / 2)
            x = G->cells.x - G->lab_w / 2;
        if (x < last + 4)
            continue;
        int sel = sc->sel.side == ui_side_of(M->mv.col_kind) && sc->sel.index == j;
        if (paint)
            ren_text(v->r, f, buf, x, y, sel ? v->th->select : j >= M->kn ? v->th->dim : v->th->text);
        Rect hit = {G->cells.x + (int)(j * G->c), y, (int)ceilf(G->c), fh};
        if (ui_clicked(v->in, hit))
            view_select(v, sel ? 0 : ui_side_of(M->mv.col_kind), sel ? 0 : j);
        last = x + w;
    }
}

static Rect cell_rect(const MaskGrid *G, int i, int j)
{
    int x0 = G->cells.x + (int)lroundf(j * G->c), x1 = G->cells.x + (int)lroundf((j + 1) * G->c);
    int y0 = G->cells.y + (int)lroundf(i * G->c), y1 = G->cells.y + (int)lroundf((i + 1) * G->c);
    int gap = G->c >= 10 ? 1 : 0; /* a hairline of page between big cells */
    return (Rect){x0, y0, x1 - x0 - gap, y1 - y0 - gap};
}

/* Small cells are drawn as runs: each row's stretch of one category is a
 * single rectangle (a causal row has at most three), so a 60-token mask
 * costs a few hundred rectangles, not thousands of hatched cells. */
static void paint_runs(ViewCtx *v, Rect at, float c, int rows, int cols, const MaskInfo *M, int which)
{
    for (int i = 0; i < rows; i++) {
        int y0 = at.y + (int)lroundf(i * c), y1 = at.y + (int)lroundf((i + 1) * c);
        for (int j = 0; j < cols;) {
            MaskCat cat = which < 0 ? cell_cat(M, i, j) : mini_cat(M, i, j, which);
            int k = j + 1;
            while (k < cols && (which < 0 ? cell_cat(M, i, k) : mini_cat(M, i, k, which)) == cat)
                k++;
            int x0 = at.x + (int)lroundf(j * c), x1 = at.x + (int)lroundf(k * c);
            ren_rect(v->r, (Rect){x0, y0, x1 - x0, y1 - y0}, cat_color(v->th, cat));
            j = k;
        }
    }
}

/* The cells, the veiled padded rows and their "ignored" tags: what does
 * not move with the mouse. */
static void draw_cells(ViewCtx *v, const MaskInfo *M, const MaskGrid *G)
{
    int text = G->c >= ren_text_width(v->g->small, "−∞") + 6;
    if (G->c >= 10 && M->mv.rows * M->mv.cols <= 1024) {
        for (int i = 0; i < M->mv.rows; i++)
            for (int j = 0; j < M->mv.cols; j++)
                paint_cell(v, cell_rect(G, i, j), cell_cat(M, i, j), tf_view_at(&M->mv, i, j), text);
    } else {
        paint_runs(v, G->cells, G->c, M->mv.rows, M->mv.cols, M, -1);
    }
    RenFont *f = v->g->small;
    int fh = ren_font_height(f);
    for (int i = M->qn; i < M->mv.rows; i++) {
        Rect row = {G->cells.x, G->cells.y + (int)lroundf(i * G->c), G->cells.w, (int)lroundf(G->c)};
        fade_row(v, row);
        if (G->tag_w && (i == M->qn || G->c >= fh))
            ren_text(v->r, f, _("ignored"), G->cells.x + G->cells.w + 6, row.y + row.h / 2 - fh / 2, v->th->dim);
    }
}

/* The selected token's row or column, and the cell under the mouse. */
static void draw_marks(ViewCtx *v, const MaskInfo *M, const MaskGrid *G)
{
    const Scene *sc = v->s;
    if (sc->sel.side == ui_side_of(M->mv.row_kind) && sc->sel.index < M->mv.rows)
        ren_rect_line(v->r, (Rect){G->cells.x - 2, G->cells.y + (int)lroundf(sc->sel.index * G->c) - 2,
                                   G->cells.w + 4, (int)lroundf(G->c) + 3}, 2, v->th->select);
    if (sc->sel.side == ui_side_of(M->mv.col_kind) && sc->sel.index < M->mv.cols)
        ren_rect_line(v->r, (Rect){G->cells.x + (int)lroundf(sc->sel.index * G->c) - 2, G->cells.y - 2,
                                   (int)lroundf(G->c) + 3, G->cells.h + 4}, 2, v->th->select);
    int i, j;
    if (!ui_over(v->in, G->cells)) { /* the keyboard's cell, if it is on */
        if (!view_key_cell(v, M->mv.rows, M->mv.cols, &i, &j))
            return;
        set_hover(v, M, i, j);
        view_key_outline(v, cell_rect(G, i, j));
        return;
    }
    view_key_cell(v, M->mv.rows, M->mv.cols, &i, &j); /* its room */
    j = (int)((v->in->mx - G->cells.x) / G->c), i = (int)((v->in->my - G->cells.y) / G->c);
    if (i < 0 || i >= M->mv.rows || j < 0 || j >= M->mv.cols)
        return;
    set_hover(v, M, i, j);
    Rect rc = cell_rect(G, i, j);
    ren_rect_line(v->r, (Rect){rc.x - 2, rc.y - 2, rc.w + 4, rc.h + 4}, 2, v->th->select);
}

/* ---- legend and the causal + padding panel ---- */

/* The legend's words, and shorter ones for a narrow legend. */
static const char *LEGEND_TEXT[5][2] = {
    {N_("0 · allowed: the score passes unchanged"), N_("0 · allowed")},
    {N_("−∞ · future position, j > i (causal mask)"), N_("−∞ · future (j > i)")},
    {N_("−∞ · key j is <pad> (padding mask)"), N_("−∞ · key is <pad>")},
    {N_("−∞ · both: a future <pad> key"), N_("−∞ · both")},
    {N_("padded query row: computed, then ignored"), N_("padded row: ignored")}};

/* Item k of the legend: its swatch and its words. */
static int legend_item(ViewCtx *v, int x, int y, int w, MaskCat cat, int faded, int k)
{
    RenFont *f = v->g->small;
    int fh = ren_font_height(f), s = fh + 6;
    Rect sw = {x, y, (int)(s * 1.6f), s};
    if (faded) { /* a piece of such a row: a 0 and a −∞, faded */
        paint_cell(v, (Rect){sw.x, sw.y, sw.w / 2, sw.h}, MC_ZERO, 0, 1);
        paint_cell(v, (Rect){sw.x + sw.w / 2, sw.y, sw.w - sw.w / 2, sw.h}, MC_PAD, 0, 0);
        fade_row(v, sw);
    } else {
        paint_cell(v, sw, cat, 0, 1);
    }
    ren_rect_line(v->r, sw, 1, v->th->border);
    const char *text[2] = {_(LEGEND_TEXT[k][0]), _(LEGEND_TEXT[k][1])};
    ui_text_alt(v->r, f, text, 2, sw.x + sw.w + 8, y + (s - fh) / 2, w - sw.w - 8, v->th->text);
    return s + 5;
}

static int legend_height(const ViewCtx *v, const MaskInfo *M)
{
    int n = M->no_pad ? 3 : M->causal ? 5 : 3;
    return n * (ren_font_height(v->g->small) + 11);
}

static int legend_width(const ViewCtx *v)
{
    RenFont *f = v->g->small;
    int w = 0;
    for (int i = 0; i < 5; i++) {
        int k = ren_text_width(f, _(LEGEND_TEXT[i][0]));
        w = k > w ? k : w;
    }
    return w + (int)((ren_font_height(f) + 6) * 1.6f) + 8;
}

static void draw_legend(ViewCtx *v, const MaskInfo *M, int x, int y, int w)
{
    y += legend_item(v, x, y, w, MC_ZERO, 0, 0);
    if (M->causal)
        y += legend_item(v, x, y, w, MC_FUTURE, 0, 1);
    if (!M->no_pad) /* a mask of padding: its −∞, and both */
        y += legend_item(v, x, y, w, MC_PAD, 0, 2);
    if (M->causal && !M->no_pad)
        y += legend_item(v, x, y, w, MC_BOTH, 0, 3);
    legend_item(v, x, y, w, MC_ZERO, 1, 4);
}

/* A small matrix of the causal part, the padding part or their sum,
 * computed from the lengths (the big matrix is the engine's own). */
static void mini_mask(ViewCtx *v, const MaskInfo *M, Rect rc, float c, int which)
{
    int T = M->mv.rows, S = M->mv.cols;
    if (c < 10 || T * S > 1024) {
        paint_runs(v, rc, c, T, S, M, which);
    } else {
        for (int i = 0; i < T; i++)
            for (int j = 0; j < S; j++) {
                int x0 = rc.x + (int)lroundf(j * c), x1 = rc.x + (int)lroundf((j + 1) * c);
                int y0 = rc.y + (int)lroundf(i * c), y1 = rc.y + (int)lroundf((i + 1) * c);
                paint_cell(v, (Rect){x0, y0, x1 - x0, y1 - y0}, mini_cat(M, i, j, which), 0, 0);
            }
    }
    ren_rect_line(v->r, (Rect){rc.x - 1, rc.y - 1, (int)lroundf(S * c) + 2, (int)lroundf(T * c) + 2}, 1,
                  v->th->border);
}

static void draw_sum_panel(ViewCtx *v, const MaskInfo *M, Rect rc)
{
    RenFont *f = v->g->small, *ui = v->g->ui;
    int fh = ren_font_height(f), uh = ren_font_height(ui);
    int T = M->mv.rows, S = M->mv.cols;
    static const char *CAP[3] = {N_("causal (j > i)"), N_("padding (<pad> keys)"), N_("the mask applied")};
    static const char *OP[3] = {"", "+", "="};
    int each = (rc.h - 3 * (fh + 4 + 6) - 2 * uh) / 3;
    float c = fminf((float)(rc.w - 4) / S, (float)each / T);
    if (c > 24 * v->g->scale)
        c = floorf(24 * v->g->scale);
    if (c < 1.5f)
        return;
    int y = rc.y;
    for (int k = 0; k < 3; k++) {
        if (k) {
            ui_text_center(v->r, ui, OP[k], (Rect){rc.x, y, (int)lroundf(S * c), uh}, v->th->text);
            y += uh;
        }
        ui_text_fit(v->r, f, _(CAP[k]), rc.x, y, rc.w, v->th->dim);
        y += fh + 4;
        mini_mask(v, M, (Rect){rc.x, y, rc.w, each}, c, k);
        y += (int)lroundf(T * c) + 6;
    }
}

/* ---- header and the sentence buttons ---- */

static void sentence_label(const Scene *sc, const MaskInfo *M, int b, int brief, char *buf, size_t cap)
{
    int n = M->st == ST_ENC_SELF_MASK ? sc->trace->src_len[b] : sc->trace->tgt_len[b];
    if (brief)
        snprintf(buf, cap, "%d", b + 1);
    else if (M->st == ST_DEC_CROSS_MASK)
        snprintf(buf, cap, _("%d · %d→%d tokens"), b + 1, sc->trace->src_len[b], n);
    else
        snprintf(buf, cap, n == 1 ? _("%d · %d token") : _("%d · %d tokens"), b + 1, n);
}

static int sentence_buttons(ViewCtx *v, const MaskInfo *M, int x, int y, int w)
{
    const Scene *sc = v->s;
    RenFont *f = v->g->small;
    int fh = ren_font_height(f), h = fh + 8;
    char buf[64];
    if (sc->n_src < 2) {
        const char *alts[] = {_("One sentence: no padding. Type several separated by | to see padding masks."),
                              _("One sentence: no padding (type several, separated by |)."),
                              _("One sentence: no padding.")};
        ui_text_alt(v->r, f, alts, 3, x, y + 4, w, v->th->dim);
        return h;
    }
    int x1 = x + w;
    x += ren_text(v->r, f, _("sentence"), x, y + 4, v->th->dim) + 8;
    int total = 0; /* do the long labels (with lengths) fit? */
    for (int b = 0; b < sc->n_src; b++) {
        sentence_label(sc, M, b, 0, buf, sizeof buf);
        total += ren_text_width(f, buf) + 20;
    }
    int brief = x + total > x1;
    for (int b = 0; b < sc->n_src; b++) {
        sentence_label(sc, M, b, brief, buf, sizeof buf);
        int bw = ren_text_width(f, buf) + (brief ? 2 * fh : 16);
        if (x + bw > x1)
            break;
        if (ui_button(v->ui, (Rect){x, y, bw, h}, buf, sc->batch == b))
            view_set_batch(v, b);
        x += bw + 4;
    }
    /* the lengths this mask pads to: all the same, nothing is padded */
    int same = 1;
    for (int b = 1; b < sc->n_src; b++) {
        int n0 = M->st == ST_DEC_SELF_MASK ? sc->trace->tgt_len[0] : sc->trace->src_len[0];
        int nb = M->st == ST_DEC_SELF_MASK ? sc->trace->tgt_len[b] : sc->trace->src_len[b];
        same &= n0 == nb;
    }
    if (same && x + 12 < x1) {
        const char *alts[] = {_("all sentences have the same length: nothing to pad"), _("same lengths: nothing to pad")};
        ui_text_alt(v->r, f, alts, 2, x + 8, y + 4, x1 - x - 8, v->th->accent);
    }
    return h;
}

static void draw_header(ViewCtx *v, const MaskInfo *M, Rect *body)
{
    RenFont *ui = v->g->ui, *f = v->g->small;
    const char *t[2] = {_("Encoder self-attention mask: padding"), _("Padding mask")};
    if (M->no_pad) {
        t[0] = _("Decoder self-attention mask: causal only (this model masks no padding here)");
        t[1] = _("Causal mask");
    } else if (M->causal) {
        t[0] = _("Decoder self-attention mask: causal + padding");
        t[1] = _("Causal + padding mask");
    } else if (M->st == ST_DEC_CROSS_MASK) {
        t[0] = _("Cross-attention mask: padding of the source");
        t[1] = _("Padding mask of the source");
    }
    int y = body->y;
    ui_text_alt(v->r, ui, t, 2, body->x, y, body->w, v->th->text);
    y += ren_font_height(ui) + 2;
    const char *alts[] = {_("M is added to the scores before the softmax: e^(s − ∞) = 0, so a −∞ cell gets exactly zero weight."),
                          _("M is added to the scores before the softmax: a −∞ cell gets zero weight."),
                          _("scores + M: −∞ → weight 0")};
    ui_text_alt(v->r, f, alts, 3, body->x, y, body->w, v->th->dim);
    y += ren_font_height(f) + 6;
    y += sentence_buttons(v, M, body->x, y, body->w) + 8;
    body->h -= y - body->y;
    body->y = y;
}

static int layout_grid(ViewCtx *v, const MaskInfo *M, Rect area, MaskGrid *G)
{
    RenFont *f = v->g->small;
    int fh = ren_font_height(f);
    G->lab_w = ui_label_width(v->s, &M->mv, 0, f) + 10;
    if (G->lab_w > area.w / 4)
        G->lab_w = area.w / 4;
    G->top = fh + 6;
    G->tag_w = M->qn < M->mv.rows ? ren_text_width(f, _("ignored")) + 10 : 0;
    float W = (float)(area.w - G->lab_w - G->tag_w), H = (float)(area.h - G->top);
    G->c = fminf(fminf(W / M->mv.cols, H / M->mv.rows), 56.0f * v->g->scale);
    if (G->c >= 4)
        G->c = floorf(G->c);
    if (G->c < 1.5f)
        return 0;
    G->cells = (Rect){area.x + G->lab_w, area.y + G->top, (int)lroundf(G->c * M->mv.cols),
                      (int)lroundf(G->c * M->mv.rows)};
    return 1;
}

/* What the cached layer of the mask shows: the matrix, its labels, the
 * legend and the sum panel depend on these and on nothing the mouse does. */
static uint64_t mask_key(const ViewCtx *v, const MaskInfo *M, Rect lay)
{
    const Scene *sc = v->s;
    uint64_t w[] = {(uint64_t)M->st, (uint64_t)M->layer, (uint64_t)M->b, (uint64_t)sc->n_src,
                    (uint64_t)(uintptr_t)sc->trace, (uint64_t)(uintptr_t)M->mv.data, (uint64_t)sc->cmp,
                    (uint64_t)sc->sel.side, (uint64_t)sc->sel.index};
    return ui_layer_key(v, 0x4D, lay, w, (int)(sizeof w / sizeof w[0]));
}

static void mask_draw(ViewCtx *v)
{
    const Scene *sc = v->s;
    MaskInfo M;
    memset(&M, 0, sizeof M);
    M.st = ui_attn_stage(sc, AP_MASK, &M.layer);
    M.b = sc->batch;
    M.causal = M.st == stage_attn_part(ST_DEC_SELF_Q, AP_MASK);
    M.no_pad = M.causal && sc->model->cfg.kind == TF_KIND_MARIAN; /* as the engine masks it (forward.c) */
    TfErr err;
    if (tf_view(sc->trace, M.st, M.layer, -1, M.b, &M.mv, &err)) {
        ui_paragraph(v->r, v->g->ui, err.msg, v->area.x + 10, v->area.y + 10, v->area.w - 20, v->th->warn);
        return;
    }
    M.qn = M.mv.row_kind == LBL_SRC ? sc->trace->src_len[M.b] : sc->trace->tgt_len[M.b];
    M.kn = M.mv.col_kind == LBL_SRC ? sc->trace->src_len[M.b] : sc->trace->tgt_len[M.b];
    Rect body = {v->area.x + 4, v->area.y + 4, v->area.w - 8, v->area.h - 8};
    draw_header(v, &M, &body);
    /* the decoder's sum panel on the right when there is room */
    int panel_w = M.causal && !M.no_pad && body.w > 520 * v->g->scale ? body.w * 3 / 10 : 0;
    int room = body.w - panel_w - (panel_w ? 16 : 0);
    /* the legend goes under the matrix, or beside it when that leaves
     * bigger cells (tall, narrow masks such as cross-attention's) */
    int leg_h = legend_height(v, &M), leg_w = legend_width(v);
    if (leg_w > room / 2)
        leg_w = room / 2;
    MaskGrid below, beside;
    int ok_below = body.h - leg_h - 8 >= 20 &&
                   layout_grid(v, &M, (Rect){body.x, body.y, room, body.h - leg_h - 8}, &below);
    int ok_beside = layout_grid(v, &M, (Rect){body.x, body.y, room - leg_w - 12, body.h}, &beside);
    if (!ok_below && !ok_beside) {
        ui_paragraph(v->r, v->g->small, _("The window is too small for the mask: make it larger."), body.x, body.y,
                     body.w, v->th->dim);
        return;
    }
    int side = ok_beside && (!ok_below || (beside.c > below.c * 1.2f && legend_width(v) <= room / 2));
    MaskGrid G = side ? beside : below;
    /* all but the marks is drawn once into a layer (the per-cell fills and
     * hatching cost most of a frame) and copied while nothing changes */
    Rect lay = {v->area.x, body.y, v->area.w, v->area.y + v->area.h - body.y};
    GfxLayer L;
    int paint = gfx_layer_begin(v->g, &L, sc->version, mask_key(v, &M, lay), lay, v->th->bg);
    if (paint)
        draw_cells(v, &M, &G);
    draw_labels(v, &M, &G, paint); /* their clicks are looked at every frame */
    if (paint) {
        if (side) {
            int x = G.cells.x + G.cells.w + G.tag_w + 16;
            draw_legend(v, &M, x, G.cells.y, body.x + room - x);
        } else {
            draw_legend(v, &M, body.x, G.cells.y + G.cells.h + 12, room);
        }
        if (panel_w)
            draw_sum_panel(v, &M, (Rect){body.x + body.w - panel_w, body.y, panel_w, body.h});
    }
    gfx_layer_end(v->g, &L);
    draw_marks(v, &M, &G);
}

static void view_mask(ViewCtx *v)
{
    ui_draw_inside(v, mask_draw);
}

const ViewDef VIEW_MASK_DEF = {"mask", N_("Mask"), view_mask, NULL, 0, NULL, VIEW_NEED_STAGE, 0};
