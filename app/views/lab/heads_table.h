/* heads_table.h - the Heads table (the atlas) docked beside the all-heads
 * thumbnails: one row per head of the attention shown, with its label and
 * metrics (entropy, max weight, offset and its share, first share,
 * monotonic for cross-attention) and, once measured, its importance
 * (delta nll drawn as a bar, delta acc); sorted by any column (click its
 * header). Linked both ways with the thumbnails: the selected row's
 * thumbnail is outlined, a click on a thumbnail selects its row, and a
 * thumbnail's frame grows with its importance. */
#ifndef APP_HEADS_TABLE_H
#define APP_HEADS_TABLE_H

#include "view.h"

typedef struct HeadsTable {
    int sort;      /* HT_COL_*: the column sorted by */
    int desc;      /* descending (else ascending) */
    int has_sel, sel_kind, sel_layer, sel_head; /* the selected row, if any */
    int scroll;    /* rows scrolled past */
    int shown;     /* drawn last frame (there was room) */
    int hidden;    /* A: the thumbnails alone, the whole view for them */
    int full;      /* the table alone, the whole view for it (its Table only button) */
    int col0;      /* columns paged past when not all fit (‹ ›; the head column stays) */
    char tsv[512]; /* a "source<TAB>reference" file to measure on ("": the model's data) */
} HeadsTable;

enum { HT_COL_HEAD, HT_COL_LABEL, HT_COL_ENTROPY, HT_COL_MAX, HT_COL_OFFSET, HT_COL_FIRST, HT_COL_MONO,
       HT_COL_DNLL, HT_COL_DACC, HT_COL_COUNT };

/* Draw the table in the bottom part of *body when there is room, and take
 * that part off *body (kind: the attention shown; layers of it), with at
 * most max_rows rows visible (the rest scroll; -1: as many as its share
 * of the view holds). */
void heads_table_dock(ViewCtx *v, HeadsTable *t, int kind, int layers, Rect *body, int max_rows);
/* The rows the table would show in body (0: no room for it), and the
 * height it takes (its bar, header and rows) with `rows` rows in a view w
 * wide (a narrow one puts the file's field on a second toolbar line). */
int heads_table_rows(ViewCtx *v, int kind, int layers, Rect body);
int heads_table_height(ViewCtx *v, int rows, int w);
/* The table alone in the whole of *body (t->full): as many rows as fit. */
void heads_table_fill(ViewCtx *v, HeadsTable *t, int kind, int layers, Rect *body);
/* Head (kind, layer, head)'s index in the importance order (importance.h). */
int heads_table_index(const TfConfig *c, int kind, int layer, int head);
/* The thumbnail's frame: 1 without importance, up to 5 pixels (at scale 1)
 * for the most important head of the model. */
int heads_table_frame(const ViewCtx *v, int kind, int layer, int head);
/* Is (kind, layer, head) the selected row? */
int heads_table_is_sel(const HeadsTable *t, int kind, int layer, int head);
void heads_table_select(HeadsTable *t, int kind, int layer, int head);
/* The table in the all-heads view's state (view_heads.c). */
const HeadsTable *view_heads_table(const void *heads_state);

#endif
