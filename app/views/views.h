/* views.h - what every view and panel of the window shares: the drawing
 * context, fonts, a few widgets, and the heatmap texture cache.
 *
 * A view draws one kind of picture into ctx->area through the renderer layer
 * (never SDL), reads the mouse from ctx->in, and reports what the mouse is
 * over into app->hover. One file per view. */
#ifndef APP_VIEWS_H
#define APP_VIEWS_H

#include "app.h"
#include "colormap.h"
#include "ren.h"

#define HEAT_CACHE 128

/* A heatmap texture and what it shows, kept until the data changes. */
typedef struct HeatEntry {
    RenImage *img;
    uint64_t version, key;
    int w, h;
    float lo, hi;         /* the value range the colours were made for */
    unsigned last_use;
} HeatEntry;

/* Drawing resources that live as long as the window (renderer-owned). */
typedef struct Gfx {
    Ren *r;
    RenFont *ui, *small, *mono, *title;
    float scale;          /* text_scale x pixel_scale the fonts were made for */
    CmapLut lut[CMAP_COUNT];
    HeatEntry heat[HEAT_CACHE];
    unsigned use_clock;
    int font_error;
    char font_msg[256];
} Gfx;

typedef struct ViewCtx {
    App *a;
    Ren *r;
    Gfx *g;
    const Theme *th;
    Rect area;
    UiInput *in;
    float anim;           /* 0..1 easing after a stage change */
} ViewCtx;

/* The App's resources for renderer r (made on first use, replaced when the
 * renderer changes); app_gfx_free releases them before the renderer goes. */
Gfx *app_gfx(App *a, Ren *r);
void app_gfx_free(App *a);

/* Fonts and caches; gfx_fonts re-opens fonts when the scale changed. */
int gfx_init(Gfx *g, Ren *r, TfErr *err);
int gfx_fonts(Gfx *g, float scale, TfErr *err);
void gfx_free(Gfx *g);
/* Pixel size for a base size at the current scale. */
int gfx_px(const Gfx *g, float base);

/* A cached heatmap of a view's matrix: rows x cols cells coloured by
 * cmap((v - lo) / (hi - lo)); -inf cells get masked_rgba. key identifies
 * what is drawn (stage, layer, head, sentence, colour map, variant). */
RenImage *heat_image(Gfx *g, uint64_t version, uint64_t key, const TfView *v,
                     float lo, float hi, CmapId cmap, uint32_t masked_rgba);
/* Any cached texture of w x h: found by (version, key, lo, hi), or taken
 * from the least recently used entry with *fresh = 1 (the caller paints it).
 * Views other than heatmaps use keys with a top byte of their own. */
RenImage *gfx_image(Gfx *g, uint64_t version, uint64_t key, int w, int h, float lo,
                    float hi, int *fresh);
uint64_t heat_key(StageId st, int layer, int head, int b, int cmap, int variant);

/* The window's own words in the App's language (i18n.c): the English text
 * itself, or its Simplified Chinese when a->lang is 1 and it is known. */
const char *L(const App *a, const char *en);

/* ---- widgets ---- */
/* The selection side of a label kind: 1 source, 2 target, 0 neither. */
int ui_side_of(LabelKind k);
/* The widest label along an axis of a view (rows 0, columns 1). */
int ui_label_width(const App *a, const TfView *tv, int axis, RenFont *f);
/* Report cell (r, c) of a view as what the mouse is over. */
void ui_hover_cell(App *a, const TfView *tv, int r, int c);
int ui_over(const UiInput *in, Rect r);
int ui_clicked(const UiInput *in, Rect r);
/* A button; returns 1 when clicked this frame. */
int ui_button(ViewCtx *v, Rect rc, const char *label, int active);
/* Text cut to width with an ellipsis; returns the width drawn. */
int ui_text_fit(Ren *r, RenFont *f, const char *s, int x, int y, int w, Color c);
/* Text centred in a rect (clipped). */
void ui_text_center(Ren *r, RenFont *f, const char *s, Rect rc, Color c);
/* Wrapped paragraph; returns the height used (ui_paragraph_height measures
 * without drawing). */
int ui_paragraph(Ren *r, RenFont *f, const char *s, int x, int y, int w, Color c);
int ui_paragraph_height(RenFont *f, const char *s, int w);
/* A colour bar with its numeric range. */
void ui_colorbar(ViewCtx *v, Rect rc, CmapId cmap, float lo, float hi, const char *label);
Color ui_mix(Color a, Color b, float t);
/* Stage name and shape, e.g. "enc.self.weights  layer 1 head 2  [4 x 4]". */
void ui_stage_title(const App *a, StagePos p, char *buf, size_t cap);
/* Value formatting for labels: 4 significant digits, -inf as "−∞". */
void ui_fmt(char *buf, size_t cap, float v);

/* ---- blocks of the architecture (blocks.c) ---- */
typedef struct NavBlock {
    int first, count;  /* walk entries [first, first + count) */
    int decoder, layer, cross;
    const char *label; /* "Multi-Head Attention", "Add & Norm", ... */
} NavBlock;
#define BLOCKS_MAX 512
int blocks_build(const App *a, NavBlock *out, int max);
/* The blocks of the App's walk, grouped once per walk. */
const NavBlock *blocks_of(const App *a, int *n);
int blocks_current(const NavBlock *b, int n, int at);
const char *step_label(StageId st); /* "Q", "softmax", "Add", ... */

/* Controls placed left to right in rc, wrapping to a new line; sizes
 * follow the text size (ui_px scales a base size). */
typedef struct UiFlow {
    ViewCtx *v;
    Rect rc;
    int x, y, h, gap;
} UiFlow;
int ui_px(const Gfx *g, float base);
UiFlow ui_flow(ViewCtx *v, Rect rc);
Rect ui_flow_next(UiFlow *f, int w);
void ui_flow_break(UiFlow *f);
int ui_flow_button(UiFlow *f, const char *label, int active);
void ui_flow_text(UiFlow *f, const char *s, Color c);
int ui_flow_height(const UiFlow *f); /* from rc.y to the last line's bottom */
/* A value a view shows of its own (not a cell of the trace) under the
 * mouse: the status line shows it, with no "how it was computed" box. */
void ui_hover_own(App *a, float value, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- the screen's parts ---- */
void nav_draw(ViewCtx *v);              /* the architecture diagram */
void steps_draw(ViewCtx *v);            /* the stages of the current block */
void explain_draw(ViewCtx *v);          /* the explanation panel */
/* Simplified Chinese texts of the explanation panel (explain_zh.c): the
 * title and the two or three sentences for a stage (pre: pre-LN model);
 * returns 0 when there is none (the English text is shown). */
int explain_zh(StageId st, int pre, const char **title, const char **text);

/* ---- the views ---- */
void view_matrix(ViewCtx *v);
void view_heads(ViewCtx *v);
void view_lines(ViewCtx *v);
void view_mask(ViewCtx *v);
void view_pe(ViewCtx *v);
void view_norm(ViewCtx *v);
void view_ffn(ViewCtx *v);
void view_output(ViewCtx *v);
void view_decode(ViewCtx *v);
void view_train(ViewCtx *v);

/* Keys for the decode and train views, offered first while that view is
 * shown (S step, P play/pause, B beam size, ...): return 1 when used. */
int view_decode_key(App *a, Key key, int mod);
int view_train_key(App *a, Key key, int mod);
/* Free the views' own state (called by app_free). */
void view_decode_free(App *a);
void view_train_free(App *a);

/* Pure helpers of the views, used by them and tested directly. */
/* R(k·ω_pair) and R·PE(pos) for one sin/cos pair of the table (view_pe.c) */
int pe_rotate(const float *pe, int rows, int C, int pair, int pos, int k, float R[2][2],
              float out[2]);
double pe_omega(int pair, int C);
void view_pe_choices(int *dims, int *pair, int *pos, int *k);
/* the four matrices of an Add & Norm step, which is the LN input and output */
int norm_step_views(const TfTrace *tr, StageId st, int layer, int b, TfView *views,
                    int *ln_in, int *ln_out, const float **mean, const float **rstd);
/* exact zeros per row of an FFN hidden view; the last headline drawn */
long ffn_count_zeros(const TfView *tv, int *per_row);
const char *view_ffn_said(void);

/* A matrix drawn as a heatmap with token labels, pan/zoom and hover, used by
 * the matrix view and reused inside others. */
typedef struct HeatOpts {
    int prob;          /* fixed 0..1 scale */
    int show_values;   /* print values in cells when they are big enough */
    int colorbar;
    int zeros_marked;  /* ReLU zeros get a dot */
    int pz_slot;       /* which PanZoom to use (a ViewId), -1 for none */
    float lo, hi;      /* forced range when lo < hi */
    const char *caption;
} HeatOpts;
void heat_draw(ViewCtx *v, const TfView *tv, Rect rc, const HeatOpts *o);

#endif
