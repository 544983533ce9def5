/* view_pe_base.h - what the positional encoding view's panels share
 * (view_pe.c: waves, table, layout; view_pe_rot.c: the rotation panel):
 * the view's state, the data the panels draw from, the table's column
 * layout, and the helpers of view_pe_base.c. Private to the view. */
#ifndef VIEW_PE_BASE_H
#define VIEW_PE_BASE_H

#include "view.h"

#define PE_WAVES 4        /* curves in the wave plot */
#define PE_MIN_POS 48     /* positions the waves span at least */
#define PE_SAMPLES 512    /* points of a continuous guide curve */

typedef enum PePanel { PANEL_WAVES, PANEL_TABLE, PANEL_ROT, PANEL_COUNT } PePanel;

typedef struct PeUi {
    int C;                 /* d_model the choices below were made for */
    int dim[PE_WAVES];     /* the dimensions plotted as waves */
    int slot;              /* the wave a click on the table replaces */
    int pair, pos, k;      /* the rotation demo: R(k·ω_pair) · PE(pos) */
    int panel;             /* narrow layouts show one panel at a time */
    int sel_seen;          /* last followed token selection (+1, 0 none) */
    int waves_keys;        /* this frame's waves have the keyboard's cell (not the table) */
} PeUi; /* the view's state (owned by the window) */
#define PE_UI(v) ((PeUi *)(v)->st)

/* What the panels draw from, gathered once per frame. */
typedef struct PeData {
    const float *pe;       /* (rows, C) the engine's table */
    int rows, C;           /* rows = the trace's capacity cap_T */
    int npos;              /* positions shown: 0 .. npos-1 */
    int len;               /* tokens of the current source sentence */
    int b, halves;         /* halves: MarianMT's layout (TF_PE_HALVES) */
} PeData;
/* Pair i's sine (cos 0) or cosine column, and a column's pair and kind:
 * interleaved 2i, 2i+1 as in the paper, or halves i, ⌈d/2⌉ + i. */
#define PE_COL(d, i, cos) ((d)->halves ? (cos) * (((d)->C + 1) / 2) + (i) : 2 * (i) + (cos))
#define PE_PAIR(d, dim) ((d)->halves ? (dim) % (((d)->C + 1) / 2) : (dim) / 2)
#define PE_IS_COS(d, dim) ((d)->halves ? (dim) >= ((d)->C + 1) / 2 : (dim) % 2)

/* small drawing helpers, and a value of the table */
void pe_disc(Ren *r, float cx, float cy, float rad, Color c);
void pe_ring(Ren *r, float cx, float cy, float rad, float width, Color c);
Color pe_with_alpha(Color c, int a);
int pe_stepper(ViewCtx *v, int x, int y, int h, int max_w, const char *label, const char *value, Color c,
               int *w_out);
float pe_value(const PeData *d, int pos, int dim);

#endif
