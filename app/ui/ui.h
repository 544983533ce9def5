/* ui.h - the look and the widgets of the window: themes (theme.c), the
 * drawing resources of a renderer (fonts, colour tables, the texture cache
 * of heatmaps: gfx.c), the interface's words in two languages (i18n.c),
 * text and input helpers (ui.c), and the widget context with ids, hot,
 * active and focus (ui_ctx.c), its buttons, slider, drag and flow layout
 * (ui_widgets.c) and its text box with the editing (ui_text.c). Below the
 * views: nothing here knows a Scene or a view. */
#ifndef APP_UI_H
#define APP_UI_H

#include <stddef.h>
#include <stdint.h>

#include "colormap.h"
#include "input.h"
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
    int clicks;           /* the last press: 1 single, 2 double, 3 triple (or more) */
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

/* The look of the window, one value per choice the learner makes (keys T,
 * C, +/-, Z) and the screen's pixel density. */
typedef struct UiLook {
    int lang;                   /* 0 English, 1 Simplified Chinese */
    ThemeId theme;
    CmapId cmap_prob, cmap_signed; /* probabilities (0..1), signed values */
    float text_scale;           /* presenter mode: +/- keys */
    float pixel_scale;          /* HiDPI: drawable pixels per window unit */
} UiLook;

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
/* The reason an OS call failed (errno e) in the window's language: the
 * common ones from the catalog, others as strerror says them. */
const char *ui_errno_text(int e);
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
/* s cut to w pixels with an ellipsis (as ui_text_fit draws it) into buf;
 * returns buf. */
const char *ui_text_cut(RenFont *f, const char *s, int w, char *buf, size_t cap);
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

/* ---- the widget context: ids, hot / active / focus (ui_ctx.c) ----
 *
 * Immediate mode as in microui: every frame the window feeds the input
 * (UiCtx.in), calls ui_begin, draws its widgets, and calls ui_end. A
 * widget is a function that takes an id and a rectangle, updates from the
 * input, draws, and returns UI_* flags. What must outlive a frame is kept
 * here by id, not as a flag in each view:
 *   hot     the widget under the mouse (found while the last frame was built);
 *   active  the widget the left button went down on, until it comes up
 *           (a button being pressed, a slider or a matrix being dragged);
 *   focus   the text field that gets the keyboard.
 * An id is a hash of a pointer or a string (ui_id_ptr, ui_id_str) within
 * the scopes pushed around it (ui_push_id: the same widget code drawn
 * twice, in two scopes, gives two ids).
 *
 * How a view takes a drag: give it an id (ui_id_ptr of the state it moves)
 * and call ui_drag each frame with the rectangle it may start in:
 *     int dx, dy;
 *     if (ui_drag(v->ui, ui_id_ptr(v->ui, pz), rc, &dx, &dy))
 *         pz->ox += dx, pz->oy += dy;
 * It starts when the button goes down over rc, follows the mouse while the
 * button is held (also outside rc) and ends when it comes up.
 * How a view takes a text field: keep its text in the view's state and
 * draw it with ui_textbox each frame:
 *     int r = ui_textbox(v->ui, ui_id_ptr(v->ui, u->path), u->path,
 *                        sizeof u->path, box, hint, UI_SMALL);
 * A click on it takes the keyboard (the window sends typed text and keys
 * to it through ui_edit_text and ui_edit_key), Enter, Esc, Tab or a click
 * elsewhere leave it (r & UI_LEFT), and a field not drawn in a frame loses
 * the keyboard at ui_end. ui_editing(ui, buf) asks whether it has it; to
 * take it from a key, ui_focus_text. */
typedef uint32_t UiId; /* 0: no widget */
#define UI_ID_DEPTH 16

/* Widget results and options (bits). */
enum {
    UI_CLICKED = 1,  /* a button was pressed this frame */
    UI_CHANGED = 2,  /* a value or a text changed */
    UI_SUBMIT = 4,   /* Enter in a text field */
    UI_LEFT = 8,     /* a text field lost the keyboard */
    UI_FULL = 16,    /* typed or pasted text did not all fit (the rest was dropped) */
    UI_NEXT = 32,    /* Tab in a text field (the window decides where it goes) */
};
enum { UI_SMALL = 1, UI_WARN = 2 }; /* text box: the small font; a warning border */

/* The text field that has the keyboard: its buffer and the cursor. The
 * selection runs between anchor and cursor (none when they are equal). */
typedef struct UiEdit {
    char *buf;                  /* the field's text: edited in place by the window's
                                 * events, except where its owner edits a copy and
                                 * hands it back (the input lines: app_event.c) */
    int cap;                    /* bytes of buf, the NUL included */
    int cursor, anchor;         /* byte offsets, always at character boundaries */
} UiEdit;

/* A control the keyboard's ring can reach (ui_tab.c): where it was drawn,
 * its reading-order band (ui_tab_group) and its place in the frame. */
typedef enum UiStopKind { UI_STOP_PRESS, UI_STOP_SLIDER, UI_STOP_TEXT } UiStopKind;
typedef struct UiStop {
    UiId id;
    Rect rc;
    int group, seq;
    UiStopKind kind;
    char *buf;                  /* a text field's text and its size: the ring gives it */
    int cap;                    /* the keyboard at once (keys typed before the next frame go in) */
} UiStop;
#define UI_STOPS 256

typedef struct UiCtx {
    UiInput in;                 /* mouse input since the last frame */
    UiId hot, active, focus;
    /* the keyboard's ring (Tab order, ui_tab.c): the control it is on (0
     * none: it shows only after Tab, a click hides it), Enter or Space on
     * it (the control acts in the next frame it draws), arrows on a
     * slider */
    UiId kfocus;
    int kpress, knudge;
    int kat;                    /* the ring's place in `last` (a control gone: Tab goes on from there) */
    int kmoved;                 /* the ring moved and no scrolled panel has shown it yet (ui_tab_reveal) */
    int group;                  /* the band of the stops drawn next */
    UiStop stops[UI_STOPS];     /* the stops of the frame being built, as drawn */
    UiStop last[UI_STOPS];      /* those of the last frame, in reading order */
    int n_stops, n_last;
    UiId hot_next;              /* the hot widget found in this frame */
    int focus_seen;             /* the focused widget was drawn in this frame */
    int focus_fresh;            /* the focus was given in this frame (the press that
                                 * gave it is not a click elsewhere) */
    int drag_x, drag_y;         /* the mouse when the active drag last moved */
    UiEdit edit;
    UiId ids[UI_ID_DEPTH];      /* the scopes pushed (ui_push_id) */
    int depth;
    /* the clipboard, set by the window loop (tests fake it): paste returns
     * a malloc'd text the caller frees, or NULL; copy takes a text */
    char *(*paste)(void);
    void (*copy)(const char *text);
    /* reads a text aloud (0), or -1; NULL: the speech dispatcher (spd-say,
     * describe.h's app_speak). The browser's page sets its own. */
    int (*speak)(const char *text);
    /* what widgets draw with, set by ui_begin (or ui_bind outside a frame) */
    Ren *r;
    Gfx *g;
    const Theme *th;
    double now;                 /* seconds: the text cursor blinks */
    /* the blink (ui_caret_on): it starts again at blink_from when the
     * keyboard moves to another field (blink_focus) or the text is edited
     * (blink_restart, taken by the next ui_begin), and the cursor stays on
     * after UI_BLINK_FOR seconds without either, so that an idle window
     * with a field that has the keyboard sleeps */
    double blink_from;
    UiId blink_focus;
    int blink_restart;
} UiCtx;

#define UI_BLINK_FOR 10.0 /* seconds of blinking after the last edit (GTK's default too) */

/* Ids: FNV-1a (hash.h) of n bytes of data, seeded by the innermost scope. */
UiId ui_id(const UiCtx *ui, const void *data, size_t n);
UiId ui_id_ptr(const UiCtx *ui, const void *p);
UiId ui_id_str(const UiCtx *ui, const char *s);
void ui_push_id(UiCtx *ui, const void *data, size_t n);
void ui_pop_id(UiCtx *ui);
/* A frame: ui_begin binds the drawing, ui_end moves hot to what this frame
 * found, ends a drag whose button came up, drops the focus of a field not
 * drawn, and clears the frame's clicks, wheel and motion. */
void ui_bind(UiCtx *ui, Ren *r, Gfx *g, const Theme *th, double now);
void ui_begin(UiCtx *ui, Ren *r, Gfx *g, const Theme *th, double now);
void ui_end(UiCtx *ui);
/* The shared part of every widget (microui's mu_update_control): id
 * becomes hot when the mouse is over rc, active when the button goes down
 * there; returns 1 when the mouse is over rc. */
int ui_control(UiCtx *ui, UiId id, Rect rc);
/* Take or give up the keyboard: ui_focus_text puts the cursor at the end
 * of buf (cap bytes); ui_focus_clear
 * leaves any field. ui_editing: buf's field has the keyboard. */
void ui_focus_text(UiCtx *ui, UiId id, char *buf, int cap);
void ui_focus_clear(UiCtx *ui);
int ui_editing(const UiCtx *ui, const char *buf);

/* ---- the keyboard's ring: Tab order through every control (ui_tab.c) ----
 *
 * Every control a frame draws is a stop (buttons, sliders and text boxes
 * are, by themselves; any other place that takes a click becomes one
 * through ui_hit). Their order is reading order: the window numbers the
 * bands of the screen (ui_tab_group: the top bar, the tabs, the input
 * lines, ...) and, within a band, the order they are drawn in. Tab and
 * Shift+Tab (ui_tab_move) move the ring to the next / previous stop of
 * the last frame, wrapping; ui_tab_key gives the ring the keys it takes
 * while it shows: Enter and Space press the control (a text field takes
 * the keyboard), arrows move a slider a twentieth of its range, Esc hides
 * the ring. The control draws the ring round itself (ui_focus_ring: a
 * thick line with a line of the page's colour inside, so it is seen by
 * its shape, in every theme). */
void ui_tab_group(UiCtx *ui, int group); /* group < 0: what follows is no stop */
/* Register rc as a stop with id; draws the ring when it has it; 1 when
 * Enter or Space pressed it in this frame. ui_tab_field: a text field's
 * stop (the ring gives it the keyboard). */
int ui_tab_stop(UiCtx *ui, UiId id, Rect rc, UiStopKind kind);
void ui_tab_field(UiCtx *ui, UiId id, Rect rc, char *buf, int cap);
/* A place that takes a click (a block of the navigator, a quiz choice, a
 * link): 1 when clicked or pressed from the keyboard; name and rc make
 * its id. */
int ui_hit(UiCtx *ui, Rect rc, const char *name);
/* The same for one of a list in scrolled content: its id is name and n,
 * not its place, so the ring stays on it as it scrolls. */
int ui_hit_n(UiCtx *ui, Rect rc, const char *name, int n);
/* The ring to the next (dir 1) or previous (-1) stop; 0 when no frame
 * had any. */
int ui_tab_move(UiCtx *ui, int dir);
/* A panel that scrolls its content in view: when the ring has just moved
 * to one of the stops drawn since stops[first] and that control (with
 * room for the ring round it) is not wholly in view, how far to scroll
 * (pixels; > 0 down) to show it; 0 otherwise. The move counts as shown. */
int ui_tab_reveal(UiCtx *ui, int first, Rect view);
/* A key for the ring while it shows (no text field has the keyboard): 1
 * when it took it. */
int ui_tab_key(UiCtx *ui, Key key, int mod);
/* The stop the ring is on, in the last frame (NULL: none). */
const UiStop *ui_tab_focused(const UiCtx *ui);
void ui_focus_ring(UiCtx *ui, Rect rc);

/* ---- widgets (ui_widgets.c) ---- */
/* A button with a label, drawn "on" (the accent) when on; UI_CLICKED on
 * the frame the button goes down over it. */
int ui_button(UiCtx *ui, Rect rc, const char *label, int on);
/* A horizontal slider over [lo, hi]: a press or a drag on it sets *value;
 * UI_CHANGED when it moved. A scale that is not linear slides over its
 * position: t = pos(value); if (ui_slider(ui, id, rc, &t, 0, 1)) value = at(t). */
int ui_slider(UiCtx *ui, UiId id, Rect rc, float *value, float lo, float hi);
/* Dragging started over rc: 1 while id holds the button, with the motion
 * since the last frame in *dx, *dy. */
int ui_drag(UiCtx *ui, UiId id, Rect rc, int *dx, int *dy);

/* Controls placed left to right in rc, wrapping to a new line; sizes
 * follow the text size (ui_px scales a base size). */
typedef struct UiFlow {
    UiCtx *ui;
    Rect rc;
    int x, y, h, gap;
} UiFlow;
UiFlow ui_flow(UiCtx *ui, Rect rc);
Rect ui_flow_next(UiFlow *f, int w);
void ui_flow_break(UiFlow *f);
int ui_flow_button(UiFlow *f, const char *label, int on);
void ui_flow_text(UiFlow *f, const char *s, Color c);
/* The widths those two give a label (to decide what fits on a line). */
int ui_flow_button_w(const Gfx *g, const char *label);
int ui_flow_text_w(const Gfx *g, const char *s);
int ui_flow_height(const UiFlow *f); /* from rc.y to the last line's bottom */
/* A group w pixels wide is next (a label and its buttons): on a new line
 * unless it fits the rest of this one, so a group is never split. */
void ui_flow_keep(UiFlow *f, int w);

/* ---- the text box and its editing (ui_text.c) ---- */
/* A one-line field of buf (cap bytes) in rc: the text scrolled so that the
 * cursor shows, the selection, a blinking cursor while it has the
 * keyboard, hint (dim) when empty. With the mouse: a click takes the
 * keyboard (a click in the focused field puts the cursor there, Shift+click
 * extends the selection), a drag selects, a double click selects a word
 * (ui_word_at) and a triple click the whole line. opt: UI_SMALL, UI_WARN. Returns
 * UI_LEFT when a click elsewhere took the keyboard from it. */
int ui_textbox(UiCtx *ui, UiId id, char *buf, int cap, Rect rc, const char *hint, int opt);
/* The text cursor: 1 while it shows (0.6 s on, 0.4 s off from the last
 * edit or focus change, then on for good after UI_BLINK_FOR s); and the
 * seconds from ui->now until it changes, -1 when it will not (no field
 * has the keyboard, or it stopped blinking): the window sleeps that long,
 * not a fixed tick. */
int ui_caret_on(const UiCtx *ui);
double ui_caret_wait(const UiCtx *ui);
/* Editing the focused field's text buf (cap bytes: the field's own, or a
 * copy its owner hands back), UTF-8 aware (the cursor never splits a
 * character). ui_edit_text inserts typed or pasted text over the
 * selection, dropping invalid UTF-8 and control characters (new lines and
 * tabs become spaces) and what does not fit (UI_FULL). ui_edit_key: Left,
 * Right, Home, End (with Shift: select; with Ctrl, Left and Right go a
 * word), Backspace, Delete, Ctrl+A (all),
 * Ctrl+C / Ctrl+X / Ctrl+V (the clipboard hooks), Ctrl+U (clear); Enter
 * and Esc leave the field (UI_SUBMIT | UI_LEFT for Enter), Tab returns
 * UI_NEXT; 0 for a key it does not use. */
int ui_edit_text(UiCtx *ui, char *buf, int cap, const char *text);
int ui_edit_key(UiCtx *ui, char *buf, int cap, Key key, int mod);
/* The word of buf around byte at, as a double click selects it: a run of
 * characters that are neither spaces nor '|' (the sentence separator), or
 * the run of separators itself when at is on one; [*from, *to). */
void ui_word_at(const char *buf, int at, int *from, int *to);
/* The cursor at byte at (clamped, at a character), no selection. */
void ui_edit_cursor(UiCtx *ui, const char *buf, int at);

#endif
