/* ui.h - the look and the plain widgets of the window: themes (theme.c),
 * the drawing resources of a renderer (fonts, colour tables, the texture
 * cache of heatmaps: gfx.c), the interface's words in two languages
 * (i18n.c), and text and input helpers (ui.c). Below the views: nothing
 * here knows a Scene or a view. */
#ifndef APP_UI_H
#define APP_UI_H

#include <stddef.h>
#include <stdint.h>

#include "colormap.h"
#include "ren.h"
#include "stage.h"
#include "walk.h"

typedef enum ThemeId { THEME_DARK, THEME_LIGHT, THEME_CONTRAST, THEME_COUNT } ThemeId;

typedef struct Theme {
    const char *name;
    Color bg, panel, panel2, border, text, dim, accent, accent2, select,
        warn, masked, masked_text, pad, good, bad;
} Theme;
const Theme *theme_get(ThemeId id);


/* Mouse and keyboard input gathered since the last frame (immediate-mode
 * widgets read it while the frame is built). */
typedef struct UiInput {
    int mx, my;           /* mouse position, drawable pixels */
    int down;             /* left button held */
    int pressed, released;/* left button went down / up this frame */
    int rpressed;         /* right button went down */
    int wheel;            /* wheel clicks this frame (+ up) */
    int moved;
    int mod;              /* MOD_* keys held at the last press (Alt+click) */
} UiInput;

#define HEAT_CACHE 128

/* A heatmap texture and what it shows, kept until the data changes. */
typedef struct HeatEntry {
    RenImage *img;
    uint64_t version, key;
    int w, h;
    float lo, hi;         /* the value range the colours were made for */
    unsigned last_use;
    int layer;            /* img is a layer (gfx_layer), not an image */
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
/* A cached layer (ren_layer_new) of w x h found by (version, key), or
 * remade with *fresh = 1 (the caller draws into it between
 * ren_layer_begin and ren_layer_end) from the layer of the same kind (the
 * key's top byte: one layer per kind is kept) or the least recently used
 * entry. NULL when the
 * renderer has no layers (accelerated, vector output): draw directly. */
RenImage *gfx_layer(Gfx *g, uint64_t version, uint64_t key, int w, int h, int *fresh);
/* A cached layer in use: gfx_layer_begin returns 1 when the caller must
 * draw the content now (into the layer, or straight into the frame when
 * the renderer has none), 0 when the cached pixels still hold; then
 * gfx_layer_end finishes and copies the layer to its rectangle. */
typedef struct GfxLayer {
    RenImage *img;
    Rect at;
    int drawing; /* drawing goes into img */
} GfxLayer;
int gfx_layer_begin(Gfx *g, GfxLayer *l, uint64_t version, uint64_t key, Rect at, Color clear);
void gfx_layer_end(Gfx *g, GfxLayer *l);
/* A cache key from n words (FNV-1a) with tag as its top byte. */
uint64_t gfx_key(unsigned tag, const uint64_t *words, int n);
/* Mark img's entry free (its pixels could not be painted). */
void gfx_image_forget(Gfx *g, RenImage *img);
/* Diagonal 1 px hatching over rc, one line every step pixels: dir 1 is "/",
 * -1 is a backslash. Raster frames draw it from a cached texture of rc's size (one
 * copy, where the lines cost thousands of blended points a cell); vector
 * figures get the lines. Top byte 0x4A of the gfx_image keys. */
void gfx_hatch(Gfx *g, Ren *r, Rect rc, int dir, int step, Color c);
/* The same hatching as lines, clipped to rc, never cached: what vector
 * figures get, and the reference the cached texture is tested against. */
void gfx_hatch_lines(Ren *r, Rect rc, int dir, int step, Color c);
uint64_t heat_key(StageId st, int layer, int head, int b, int cmap, int variant);

/* The window's own words in a language (i18n.c): the English text itself,
 * or its Simplified Chinese from the gettext catalog when lang is 1 and the
 * catalog has it. */
const char *L(int lang, const char *en);
/* Binds the catalog folder (LANG/LC_MESSAGES/stepformer.mo under it; see
 * paths_locale): 1 when the Chinese catalog answers, 0 when there is none
 * (then everything stays English). ui_i18n_dir: that folder, or NULL. */
int ui_i18n_init(const char *localedir);
const char *ui_i18n_dir(void);
/* The language every _() translates into (0 English, 1 Simplified Chinese):
 * the window sets it whenever it builds a scene, shot before drawing. */
void ui_set_lang(int lang);
int ui_lang(void);
/* _("text") marks a user-visible string for the catalog and translates it
 * into ui_lang(); N_("text") only marks it (tables translated where used). */
#define _(s) L(ui_lang(), (s))
/* _() as a function, for layers below that take a lookup (session_tr). */
const char *ui_tr(const char *msgid);
#define N_(s) (s)

/* ---- tokens on screen ---- */
/* sentencepiece's word-start mark U+2581 "▁" (a full-width low bar that
 * reads as "_") as the thin visible mark every UI font has (DejaVu Sans,
 * DejaVu Sans Mono and WenQuanYi Micro Hei: tests/ui/test_token_mark.c). */
#define UI_WORD_MARK "\xc2\xb7" /* U+00B7 MIDDLE DOT */
/* tok with each ▁ shown as UI_WORD_MARK, in buf (always NUL-terminated);
 * returns buf. buf may be tok itself: the mark is shorter than ▁. */
const char *ui_token(const char *tok, char *buf, size_t cap);

/* ---- plain widgets: text and input tests ---- */
/* The selection side of a label kind: 1 source, 2 target, 0 neither. */
int ui_side_of(LabelKind k);
int ui_over(const UiInput *in, Rect r);
int ui_clicked(const UiInput *in, Rect r);
/* Text cut to width with an ellipsis; returns the width drawn. */
int ui_text_fit(Ren *r, RenFont *f, const char *s, int x, int y, int w, Color c);
/* The first of n wordings that fits in w, else the last one cut with an
 * ellipsis: a shorter wording reads better than a cut one, and it keeps
 * the text cache from filling with cut prefixes. */
void ui_text_alt(Ren *r, RenFont *f, const char *const *alts, int n, int x, int y, int w, Color c);
/* Text centred in a rect (clipped). */
void ui_text_center(Ren *r, RenFont *f, const char *s, Rect rc, Color c);
/* Wrapped paragraph; returns the height used (ui_paragraph_height measures
 * without drawing). */
int ui_paragraph(Ren *r, RenFont *f, const char *s, int x, int y, int w, Color c);
int ui_paragraph_height(RenFont *f, const char *s, int w);
/* An overlay box of w x h centred in the win_w x win_h window over a
 * dimmed screen (the help, the lesson list); it is left clipped to the box
 * (the caller pops). */
Rect ui_overlay(Ren *r, const Theme *th, int win_w, int win_h, int w, int h);
Color ui_mix(Color a, Color b, float t);
/* Stage name and shape, e.g. "enc.self.weights  layer 1 head 2  [4 x 4]". */
void ui_stage_title(int lang, int head, StagePos p, char *buf, size_t cap);
/* Value formatting for labels: 4 significant digits, -inf as "−∞". */
void ui_fmt(char *buf, size_t cap, float v);
/* A length of base pixels at the fonts' scale. */
int ui_px(const Gfx *g, float base);

#endif
