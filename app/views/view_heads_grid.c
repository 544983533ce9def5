/* view_heads_grid.c - the layout of the all-heads grid (view_heads_grid.h):
 * every arrangement of the thumbnails is tried (k heads per row for every
 * k, or all layers side by side) and the one with the biggest cells wins. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "view_heads_grid.h"

/* One arrangement tried: per_row heads per row (side: layers side by side). */
typedef struct Try {
    int per_row, side, key_up, key_h;
    float c;
} Try;

/* What every arrangement shares: the fonts' sizes and the label widths. */
typedef struct Sizes {
    float sc;
    int fh;
    int key_w;  /* the widest column token, capped */
    int cb_w;   /* the colour bar and its numbers */
    int top;    /* head captions above the top row, without the key labels */
} Sizes;

/* Whole pixels once cells are big enough; never past HG_MAX_CELL × scale. */
static float fit_cell(float W, float H, int across, int down, float sc)
{
    if (W < 1 || H < 1 || across < 1 || down < 1)
        return 0;
    float c = fminf(fminf(W / (float)across, H / (float)down), HG_MAX_CELL * sc);
    return c >= 4 ? floorf(c) : c;
}

/* Cells for one arrangement with the key labels key_h tall. */
static float try_cell(const HeadsGrid *G, const Sizes *S, Rect body, int per_row, int side, int key_h)
{
    int top = S->top + key_h + 2;
    if (side) {
        int n = G->nl * G->NH;
        float W = (float)(body.w - G->lab_w - S->cb_w - (n - 1) * G->gap - (G->nl - 1) * G->lgap);
        float H = (float)(body.h - top - S->fh - 2); /* the layer captions above */
        return fit_cell(W, H, n * G->Tk, G->Tq, S->sc);
    }
    int rows = (G->NH + per_row - 1) / per_row, R = G->nl * rows;
    int band = rows > 1 ? S->fh + 2 : 0;
    float W = (float)(body.w - G->cap_w - G->lab_w - S->cb_w - (per_row - 1) * G->gap);
    float H = (float)(body.h - top - (R - 1) * (G->gap + band) - (G->nl - 1) * G->lgap);
    return fit_cell(W, H, per_row * G->Tk, R * G->Tq, S->sc);
}

/* The arrangement's cells: with the key labels level when they fit their
 * columns, else turned. */
static Try try_one(const HeadsGrid *G, const Sizes *S, Rect body, int per_row, int side)
{
    Try t = {per_row, side, 0, S->fh, 0};
    t.c = try_cell(G, S, body, per_row, side, S->fh);
    if (S->key_w + 2 > t.c) {
        t.key_up = 1;
        t.key_h = S->key_w + 4;
        t.c = try_cell(G, S, body, per_row, side, t.key_h);
    }
    return t;
}

/* The best arrangement of layers l0 .. l0 + nl - 1. */
static Try best_try(HeadsGrid *G, const Sizes *S, Rect body)
{
    Try best = try_one(G, S, body, G->NH, 0);
    for (int r = 2; r <= G->NH; r++) { /* r rows of heads per layer, as even as can be */
        int k = (G->NH + r - 1) / r;
        if ((G->NH + k - 1) / k != r)
            continue; /* the same rows as a smaller r */
        Try t = try_one(G, S, body, k, 0);
        if (t.c > best.c * 1.05f)
            best = t;
    }
    if (G->nl > 1) {
        Try t = try_one(G, S, body, G->NH, 1);
        if (t.c > best.c * 1.1f)
            best = t;
    }
    return best;
}

static void apply(HeadsGrid *G, const Sizes *S, Rect body, Try t)
{
    G->side = t.side;
    G->per_row = t.side ? G->NH : t.per_row;
    G->rows = (G->NH + G->per_row - 1) / G->per_row;
    G->band = !t.side && G->rows > 1 ? S->fh + 2 : 0;
    G->key_up = t.key_up;
    G->key_h = t.key_h;
    G->c = t.c;
    G->tw = (int)lroundf(G->c * G->Tk);
    G->th = (int)lroundf(G->c * G->Tq);
    G->x0 = body.x + G->lab_w + (G->side ? 0 : G->cap_w);
    G->y0 = body.y + S->top + G->key_h + 2 + (G->side ? S->fh + 2 : 0);
    if (G->side) {
        Rect last = heads_grid_rect(G, G->l0 + G->nl - 1, G->NH - 1);
        G->right = last.x + last.w;
    } else {
        G->right = G->x0 + G->per_row * (G->tw + G->gap) - G->gap;
    }
}

/* Too small to read: a thumbnail under HG_MIN_THUMB pixels square (as an
 * area: a tall, narrow one of many query rows is not small). */
static int thumb_small(const HeadsGrid *G, float sc)
{
    float m = HG_MIN_THUMB * sc;
    return (float)G->tw * (float)G->th < m * m;
}

int heads_grid_layout(ViewCtx *v, const TfView *tv0, Rect body, int cur_layer, HeadsGrid *G)
{
    RenFont *f = v->g->small;
    Sizes S;
    S.sc = v->g->scale;
    S.fh = ren_font_height(f);
    S.top = S.fh + 2;
    int cap_key = (int)(70 * S.sc); /* a longer token is cut: its hover tells it whole */
    S.key_w = ui_label_width(v->s, tv0, 1, f);
    if (S.key_w > cap_key)
        S.key_w = cap_key;
    /* the colour bar (ui_colorbar): its range above and below it, the 0
     * of a signed scale beside it, its title above, which may reach over
     * the margin before it */
    char lo[32], hi[32];
    ui_fmt(lo, sizeof lo, G->lo);
    ui_fmt(hi, sizeof hi, G->hi);
    int margin = (int)(12 * S.sc), w = (int)(14 * S.sc) + (G->prob ? 0 : 4 + ren_text_width(f, "0"));
    int nums[3] = {ren_text_width(f, lo), ren_text_width(f, hi),
                   ren_text_width(f, G->prob ? _("weight") : _("score")) - margin};
    for (int i = 0; i < 3; i++)
        if (nums[i] > w)
            w = nums[i];
    S.cb_w = margin + w + 2;
    G->gap = (int)lroundf(6 * S.sc);
    G->lgap = (int)lroundf(12 * S.sc);
    G->lab_w = ui_label_width(v->s, tv0, 0, f) + (int)(8 * S.sc);
    if (G->lab_w > body.w / 6)
        G->lab_w = body.w / 6;
    /* every layer, unless their thumbnails would be too small to read, or
     * (large text: a projector) one layer alone would be much bigger */
    HeadsGrid all = *G;
    int readable = 0;
    for (int pass = G->one_layer && G->L > 1 ? 1 : 0; pass < 2; pass++) {
        G->l0 = pass ? (cur_layer >= 0 && cur_layer < G->L ? cur_layer : 0) : 0;
        G->nl = pass ? 1 : G->L;
        for (int compact = 0; compact < 2; compact++) {
            char cap[32];
            snprintf(cap, sizeof cap, compact ? "L%d" : _("layer %d"), G->L);
            G->short_caps = compact;
            G->cap_w = G->nl > 1 ? ren_text_width(f, cap) + (int)(10 * S.sc) : 0;
            apply(G, &S, body, best_try(G, &S, body));
            if (!thumb_small(G, S.sc) || compact == 1)
                break;
        }
        if (pass == 0) {
            if (G->L == 1)
                break;
            all = *G;
            readable = !thumb_small(G, S.sc);
            if (readable && S.sc <= 1.2f)
                break;
        } else if (!G->one_layer && G->c < all.c * (readable ? 1.5f : 1.1f)) {
            *G = all; /* one layer would not be (much) bigger: all of them */
        }
    }
    return G->c * (G->Tq < G->Tk ? G->Tq : G->Tk) >= 4;
}

int heads_grid_labels_fit(ViewCtx *v, const HeadsGrid *G)
{
    int fh = ren_font_height(v->g->small);
    return G->c >= (float)(fh * 3 / 4 + 1); /* the letters of a line, as the labels are placed */
}

Rect heads_grid_rect(const HeadsGrid *G, int l, int slot)
{
    int li = l - G->l0;
    if (li < 0 || li >= G->nl || slot < 0 || slot >= G->NH)
        return (Rect){0, 0, 0, 0};
    if (G->side)
        return (Rect){G->x0 + (li * G->NH + slot) * (G->tw + G->gap) + li * G->lgap, G->y0, G->tw, G->th};
    int r = li * G->rows + slot / G->per_row, c = slot % G->per_row;
    return (Rect){G->x0 + c * (G->tw + G->gap), G->y0 + r * (G->th + G->gap + G->band) + li * G->lgap, G->tw, G->th};
}

int heads_grid_at(const HeadsGrid *G, int x, int y, int *l, int *slot)
{
    for (int li = 0; li < G->nl; li++)
        for (int s = 0; s < G->NH; s++) {
            Rect t = heads_grid_rect(G, G->l0 + li, s);
            if (x >= t.x && x < t.x + t.w && y >= t.y && y < t.y + t.h) {
                *l = G->l0 + li;
                *slot = s;
                return 1;
            }
        }
    return 0;
}
