/* view_heads_grid.h - where the thumbnails of the all-heads grid are: one
 * layout function and the geometry others ask of it (the rectangle of the
 * thumbnail in a slot, which thumbnail is at a point), so a heads table or
 * a test can link to the thumbnails without drawing them.
 *
 * The grid fills the area it is given: cells grow with the area (and with
 * the text size, up to HG_MAX_CELL pixels at text ×1), heads wrap into
 * several rows per layer when that gives bigger cells, and when every layer
 * at once would leave thumbnails too small to read (a projector, text ×2, a
 * small window) only the current layer is laid out. Column tokens are
 * written once above the top row (turned to read upwards when a column is
 * narrower than its token), row tokens left of every row. */
#ifndef APP_VIEW_HEADS_GRID_H
#define APP_VIEW_HEADS_GRID_H

#include "view.h"

#define HG_MAX_CELL 64.0f /* pixels per cell at text ×1, at most */
#define HG_MIN_THUMB 48   /* pixels square (as an area) at text ×1: smaller, and one layer is shown */

typedef struct HeadsGrid {
    StageId st;          /* the scores or weights stage shown */
    int L, NH, Tq, Tk, b;
    int qn, kn;          /* real (not <pad>) query and key tokens */
    int prob;            /* weights (0..1) rather than scores */
    float lo, hi;
    CmapId cmap;
    int l0, nl;          /* the layers laid out: l0 .. l0 + nl - 1 */
    int side;            /* layers side by side in one row */
    float c;             /* pixels per matrix cell */
    int tw, th;          /* thumbnail size */
    int gap, lgap;       /* space between heads, extra space between layers */
    int x0, y0;          /* top-left of the first thumbnail */
    int cap_w, lab_w;    /* layer-caption band, query-label band (left) */
    int short_caps;      /* "L2" rather than "layer 2" */
    int per_row;         /* heads per row (NH unless wrapped) */
    int rows;            /* rows of heads per layer */
    int band;            /* head captions above every wrapped row but the first, else 0 */
    int key_h;           /* height of the key labels above the top row */
    int key_up;          /* ... turned, reading upwards */
    int right;           /* x just right of the rightmost thumbnail */
    int one_layer;       /* set by the caller: lay out the current layer alone */
} HeadsGrid;

/* Lay G out in body (G's st, L, NH, Tq, Tk set; tv0 the first head's view,
 * for the labels; cur_layer the layer to show alone when all do not fit).
 * Returns 0 when not even one layer fits. */
int heads_grid_layout(ViewCtx *v, const TfView *tv0, Rect body, int cur_layer, HeadsGrid *G);
/* Does every token label of the grid laid out get written (rows and
 * turned columns at least a line's letters apart)? */
int heads_grid_labels_fit(ViewCtx *v, const HeadsGrid *G);
/* The rectangle of the thumbnail in slot `slot` of layer l (slot = head
 * unless the heads are sorted), {0} for a layer not laid out. */
Rect heads_grid_rect(const HeadsGrid *G, int l, int slot);
/* The layer and slot of the thumbnail under (x, y): 1, or 0 for none. */
int heads_grid_at(const HeadsGrid *G, int x, int y, int *l, int *slot);
/* The grid the heads view laid out in its last frame (its state), or NULL
 * before the first or when it could not lay one out. */
const HeadsGrid *view_heads_grid(const void *heads_state);

#endif
