/* ren.h - the renderer layer: the only code that talks to SDL_Renderer,
 * SDL2_ttf, SDL2_image and fontconfig.
 *
 * Views draw through these functions with small value types (Rect, Color)
 * and opaque handles (Ren, RenFont, RenImage); they never include SDL.
 * A Ren draws either into a window (accelerated renderer with vsync, falling
 * back to software) or headless into an offscreen RGBA frame through SDL's
 * software renderer, which needs no display and no SDL_Init at all: that is
 * what `stepformer shot` and the tests use.
 *
 * Coordinates are drawable pixels, origin top-left. On a HiDPI screen the
 * drawable has ren_pixel_scale() pixels per window point; callers scale
 * their sizes (fonts too: sizes are pixels, not points).
 *
 * Pixel words (ren_image_update, ren_read_pixels, cmap_rgba) are uint32_t
 * 0xRRGGBBAA: red in the top byte, alpha in the low byte, whatever the
 * machine's byte order.
 *
 * Lifetime: fonts and images belong to the Ren that made them. ren_close()
 * frees any still open; their handles are invalid afterwards.
 *
 * A second backend draws the same calls into SVG or PDF through cairo
 * (ren_vector_begin .. ren_vector_end, ren_cairo.c): the views do not know.
 *
 * The code follows the sections below: ren_frame.c (opening, frames,
 * clip, layers, rectangles), ren_lines.c, font.c (finding and opening
 * fonts), ren_text.c with ren_cache.c and ren_wrap.c, ren_image.c, and
 * ren_cairo.c, the vector backend; they share the structs of
 * ren_internal.h and what ren.c says of a Ren (sizes, lists). */
#ifndef REN_H
#define REN_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

typedef struct Rect {
    int x, y, w, h;
} Rect;

typedef struct Color {
    uint8_t r, g, b, a;
} Color;

typedef struct Ren Ren;
typedef struct RenFont RenFont;
typedef struct RenImage RenImage;

/* The primary face of a font; glyphs it lacks come from fallbacks:
 * SANS -> CJK, MONO -> SANS -> CJK, CJK -> SANS. */
typedef enum RenFace { REN_SANS, REN_MONO, REN_CJK, REN_FACE_COUNT } RenFace;

/* One line of wrapped text: bytes [start, start+len) of the input (trailing
 * spaces excluded) and its width in pixels. */
typedef struct RenLine {
    int start, len, width;
} RenLine;

enum {
    REN_CLIP_DEPTH = 32,    /* clip stack depth */
    REN_TEXT_ENTRIES = 1024, /* text cache entries per font */
    REN_WRAP_ENTRIES = 64    /* wrapped texts kept per font */
};

/* --- opening and frames ------------------------------------------------ */

/* A resizable HiDPI-aware window with an accelerated vsync renderer, or a
 * software one when no accelerated renderer works. Inits SDL video. With
 * no display it fails with a message (SDL would otherwise fall back to an
 * invisible offscreen window unless SDL_VIDEODRIVER names that driver). */
Ren *ren_open_window(const char *title, int w, int h, TfErr *err);
/* The size ren_open_window gives a window asked w x h on a display whose
 * usable area (without its panels) is room_w x room_h: no larger than that
 * (an 800 x 600 screen gets a window it can show whole), as asked when the
 * room is unknown (0). */
void ren_fit_window(int *w, int *h, int room_w, int room_h);
/* An offscreen w x h RGBA frame drawn by the software renderer. Needs no
 * display, no X server and no SDL_Init. */
Ren *ren_open_headless(int w, int h, TfErr *err);
void ren_close(Ren *r);
/* Headless only: a new frame size (contents lost; fonts, images kept).
 * Returns -1 and keeps the old frame if the new one cannot be made. */
int ren_resize_headless(Ren *r, int w, int h);
void ren_output_size(Ren *r, int *w, int *h);
float ren_pixel_scale(Ren *r);   /* drawable pixels per window point */
void *ren_window_handle(Ren *r); /* SDL_Window*, NULL headless */

/* Start a frame cleared to `clear` (resets the clip stack); ren_end shows
 * it (window) or finishes drawing (headless). Read or save a window's frame
 * before ren_end: after presenting, its pixels are undefined. */
void ren_begin(Ren *r, Color clear);
void ren_end(Ren *r);
/* Drawing calls handed to SDL since ren_begin (fills, texture copies,
 * geometry, point batches): what a frame costs, for tests that check a
 * view redraws from its caches instead of cell by cell. */
int ren_draw_calls(Ren *r);

/* --- shapes -------------------------------------------------------------- */

/* Clip to c intersected with the current clip; pops must match pushes.
 * Pushes beyond REN_CLIP_DEPTH are counted (pops stay matched) but do not
 * narrow the clip. */
void ren_clip_push(Ren *r, Rect c);
void ren_clip_pop(Ren *r);

void ren_rect(Ren *r, Rect rc, Color c);                     /* filled, blended */
void ren_rect_line(Ren *r, Rect rc, int thick, Color c);     /* outline inside rc */
/* An antialiased line `width` pixels wide; widths below 1 fade out instead
 * of thinning. Pixel centres are at +0.5: a 1 px line along y = 10.5 fills
 * row 10 exactly. Software renderers (headless, PNGs) give round caps and
 * joins, accelerated ones butt caps and mitred joins. */
void ren_line(Ren *r, float x0, float y0, float x1, float y1, float width,
              Color c);
/* A connected antialiased line through n points xy[2*i], xy[2*i+1]:
 * curves, waves, loss plots. Joins are drawn once (no darker dots with
 * translucent colours). */
void ren_polyline(Ren *r, const float *xy, int n, float width, Color c);
/* n_vertices/3 filled triangles, one colour per vertex (interpolated). */
void ren_triangles(Ren *r, const float *xy, const Color *col, int n_vertices);

/* --- text ---------------------------------------------------------------- */

/* Fontconfig's file for a face: path and face index within it. A missing
 * font is an error that names the Debian package to install. */
int ren_font_find(RenFace face, char *path, size_t cap, int *index,
                  TfErr *err);
/* A font `px` pixels per em (the caller scales for HiDPI and presenter
 * mode). Hinting is light; the primary face plus fallbacks (see RenFace). */
RenFont *ren_font_open(Ren *r, RenFace face, int px, TfErr *err);
void ren_font_close(RenFont *f);
int ren_font_height(RenFont *f); /* line height in pixels */
int ren_font_has_glyph(RenFont *f, uint32_t codepoint); /* any face has it */

/* Width in pixels of UTF-8 text (the _n forms take a byte length). Control
 * characters and malformed bytes are skipped. */
int ren_text_width(RenFont *f, const char *utf8);
int ren_text_width_n(RenFont *f, const char *utf8, int len);
/* Draw one line of text with its top-left at (x, y); returns the advance.
 * Each code point comes from the first face that has it, so mixed Latin,
 * Chinese and math ("softmax(QKᵀ/√d_k)·V 注意力") draws without boxes.
 * Rendered lines are cached per font (keyed by the bytes; the colour is
 * applied at draw time), so redrawing the same labels each frame costs one
 * hash lookup and one texture copy. The cache is bounded (least recently
 * used lines are evicted). */
int ren_text(Ren *r, RenFont *f, const char *utf8, int x, int y, Color c);
/* A test hook, off by default: fn gets every string ren_text draws where it
 * can be seen (len bytes, its box on screen), with the tag last set by
 * ren_text_tag (the window tags "view" while a view draws, "window"
 * otherwise). ren_text_tag returns the tag it replaces. */
typedef void (*RenTextHook)(void *user, const char *utf8, int len, Rect box, const char *tag);
void ren_text_hook(RenTextHook fn, void *user);
const char *ren_text_tag(const char *tag);
int ren_text_n(Ren *r, RenFont *f, const char *utf8, int len, int x, int y,
               Color c);
/* The same line turned a quarter anticlockwise, reading upwards (column
 * labels of narrow matrices): the box it fills has its bottom-left corner at
 * (x, y), is ren_font_height wide and as tall as the text is wide. Returns
 * the text's width (the box's height). */
int ren_text_up(Ren *r, RenFont *f, const char *utf8, int x, int y, Color c);
/* Break text into lines at most `width` pixels wide where the Unicode line
 * breaking algorithm (UAX #14, libunibreak) allows: Latin at spaces (and
 * after a hyphen before a letter), CJK between any two characters, never
 * before closing punctuation (，。？！：；）」 ...) nor after opening
 * punctuation (（「《 ...), numbers and words whole (1-9, 0.1, d_model);
 * '\n' forces a break; a word wider than the line is cut between characters. Fills up to max_lines and returns the number of
 * lines the whole text needs (like snprintf), so callers can size a panel. */
int ren_text_wrap(RenFont *f, const char *utf8, int width, RenLine *lines,
                  int max_lines);
/* Text cache occupancy, for tests and the debug overlay. */
void ren_font_stats(RenFont *f, int *entries, size_t *texture_bytes);
/* Wrapped texts kept (the panels wrap the same paragraphs every frame:
 * ren_text_wrap keeps the last REN_WRAP_ENTRIES per font) and how many
 * wraps they answered. */
void ren_wrap_stats(RenFont *f, int *entries, long long *hits);

/* --- images -------------------------------------------------------------- */

/* A w x h streaming RGBA texture (heatmaps), drawn with nearest-neighbour
 * scaling so cells stay crisp, alpha-blended. NULL if w or h is below 1 or
 * above ren_image_max_size() (tile bigger matrices) or memory runs out. */
RenImage *ren_image_new(Ren *r, int w, int h);
int ren_image_max_size(Ren *r); /* largest side of one image, pixels */
/* rgba: w*h words 0xRRGGBBAA, row by row from the top. */
void ren_image_update(RenImage *im, const uint32_t *rgba);
/* Draw src (w == 0: the whole image) of im scaled into dst. */
void ren_image_draw(Ren *r, RenImage *im, Rect src, Rect dst);
void ren_image_free(RenImage *im);

/* A layer: a w x h opaque texture that drawing can be redirected into, so
 * a part of a frame that does not change (curves, dots, axes) is drawn
 * once and then copied. Software renderers only (headless frames, PNGs, a
 * window without acceleration: there every antialiased line costs its
 * pixels one by one); NULL elsewhere, in vector output and while a text
 * hook is set (ren_text_hook: every string is then drawn, and reported, in
 * every frame), where callers draw directly. Draw it with ren_image_draw; ren_image_update does
 * nothing to it; ren_image_free frees it. */
RenImage *ren_layer_new(Ren *r, int w, int h);
int ren_has_layers(Ren *r); /* would ren_layer_new make one now? */
/* Until ren_layer_end, every drawing call goes into layer, which stands
 * for the frame rectangle at (at.w, at.h = the layer's size): coordinates
 * and clips stay those of the frame. The layer is first cleared to
 * `clear`. Returns -1 (and draws nothing into it) when it cannot. */
int ren_layer_begin(Ren *r, RenImage *layer, Rect at, Color clear);
void ren_layer_end(Ren *r);

/* --- reading the frame --------------------------------------------------- */

/* The pixels of rc in the current frame, rc.w*rc.h words 0xRRGGBBAA with
 * alpha always 0xFF (frames are opaque). rc must lie inside the frame. */
int ren_read_pixels(Ren *r, Rect rc, uint32_t *out);
/* The whole frame as an opaque RGB PNG, written atomically (a temporary
 * file in the same directory, flushed, then renamed over path). Errors name
 * the path and the reason (missing directory, disk full, ...). */
int ren_save_png(Ren *r, const char *path, TfErr *err);
/* The part rc of the frame (inside it) as ren_save_png writes the whole. */
int ren_save_png_area(Ren *r, Rect rc, const char *path, TfErr *err);

/* --- vector output (SVG, PDF) ------------------------------------------ */

typedef enum RenVecFormat { REN_VEC_NONE, REN_VEC_SVG, REN_VEC_PDF } RenVecFormat;

/* The format a path's extension names (.svg, .pdf; any case), or NONE. */
RenVecFormat ren_vector_format(const char *path);
/* From now on every frame drawn on r (ren_begin .. ren_end) goes into a
 * document at path instead of the raster frame: a PDF gets one page per
 * frame, an SVG holds one frame. Pages are the size of r's frame (1 px =
 * 1 SVG px = 0.75 PDF pt) plus extra_h pixels below it, where the caller
 * may draw (a caption); ren_output_size still gives the frame, so layouts
 * do not change. Text stays text (fonts embedded); images become one
 * rectangle per source pixel. Fonts and images of r stay valid. Fails if
 * the file cannot be created (message names the path and the reason). */
int ren_vector_begin(Ren *r, const char *path, RenVecFormat fmt, int extra_h,
                     TfErr *err);
/* The same with pages of the part `area` of the frame only (plus extra_h
 * below it): what is drawn at area.x, area.y is the page's top left, and
 * what lies outside area is off the page. */
int ren_vector_begin_area(Ren *r, const char *path, RenVecFormat fmt, Rect area,
                          int extra_h, TfErr *err);
/* Finish the document and write it atomically; drawing goes back to the
 * raster frame. Errors name the path and the reason. */
int ren_vector_end(Ren *r, TfErr *err);
/* Close the document without writing anything. */
void ren_vector_abort(Ren *r);
int ren_is_vector(Ren *r);    /* between ren_vector_begin and _end */
int ren_vector_pages(Ren *r); /* frames begun in the open document */

/* --- fonts at start-up and messages --------------------------------------- */

/* Check that the fonts text needs are there: the sans-serif and monospace
 * faces are required (the error names the Debian package); a missing
 * Chinese font is not an error: Latin text is drawn and *warning gets one
 * line naming the package that adds Chinese (empty when all is there). */
int ren_fonts_check(Ren *r, char *warning, size_t cap, TfErr *err);
/* Show an error to someone who may not see a terminal: a message box on
 * the window of r (it waits for OK). -1 when no box can be shown (no
 * display, offscreen driver); the caller prints the line on stderr too. */
int ren_show_error(Ren *r, const char *title, const char *msg);

#endif
