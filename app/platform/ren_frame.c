/* ren_frame.c - the renderer layer over SDL_Renderer, SDL2_ttf and
 * SDL2_image (see ren.h for the contract, ren_internal.h for how it is cut
 * into files): opening a window or a headless frame and closing it with
 * everything it owns, frames, the clip stack, layers and rectangles. While
 * a vector document is open (ren_cairo.c) frames, clips and rectangles go
 * to it instead of SDL: this file sits above every other piece and none
 * calls it.
 *
 * Frames. A window Ren draws straight to the window's renderer. A headless
 * Ren makes SDL's software renderer on a 1x1 dummy surface and points it at
 * a render-target texture: the frame can then be resized without losing the
 * fonts and images (which belong to the renderer), and nothing here needs
 * SDL_Init or a display. */
#include "ren.h"
#include "ren_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------- opening and closing */

static Ren *ren_alloc(TfErr *err)
{
    Ren *r = calloc(1, sizeof *r);
    if (!r) {
        tf_fail(err, "renderer: out of memory");
        return NULL;
    }
    if (TTF_Init() < 0) {
        tf_fail(err, "SDL_ttf: %s", TTF_GetError());
        free(r);
        return NULL;
    }
    r->ttf_on = 1;
    return r;
}

static void ren_setup(Ren *r)
{
    SDL_RendererInfo info;
    SDL_SetRenderDrawBlendMode(r->sdl, SDL_BLENDMODE_BLEND);
    r->max_tex = TEXT_MAX_W;
    if (SDL_GetRendererInfo(r->sdl, &info) < 0)
        return;
    if (info.max_texture_width > 0)
        r->max_tex = mini(info.max_texture_width, info.max_texture_height);
    r->soft = (info.flags & SDL_RENDERER_SOFTWARE) != 0;
}

/* With no display SDL falls back to its offscreen driver: a window nobody
 * sees. Accept that (or "dummy") only when SDL_VIDEODRIVER names it. */
static int video_visible(void)
{
    const char *drv = SDL_GetCurrentVideoDriver();
    if (!drv || (strcmp(drv, "offscreen") != 0 && strcmp(drv, "dummy") != 0))
        return 1;
    const char *want = SDL_GetHint(SDL_HINT_VIDEODRIVER);
    return want && strstr(want, drv) != NULL;
}

/* The display to open, named for messages: "DISPLAY=:0", or NULL when
 * neither DISPLAY nor WAYLAND_DISPLAY is set. When only one of them is set
 * (and SDL_VIDEODRIVER is not), SDL is told to use that one: it tries no
 * other, so a display that does not answer is named, and no library prints
 * lines of its own (Wayland's "XDG_RUNTIME_DIR is invalid") first. */
static const char *pick_display(char *buf, size_t cap)
{
    const char *x = getenv("DISPLAY"), *wl = getenv("WAYLAND_DISPLAY");
    int has_x = x && x[0], has_wl = wl && wl[0];
    int chosen = getenv("SDL_VIDEODRIVER") && getenv("SDL_VIDEODRIVER")[0];
    if (!has_x && !has_wl) {
        if (!chosen)
            return NULL;
        snprintf(buf, cap, "SDL_VIDEODRIVER=%s", getenv("SDL_VIDEODRIVER"));
        return buf;
    }
    if (!chosen && has_x != has_wl)
        SDL_SetHint(SDL_HINT_VIDEODRIVER, has_x ? "x11" : "wayland");
    snprintf(buf, cap, "%s=%s", has_wl ? "WAYLAND_DISPLAY" : "DISPLAY", has_wl ? wl : x);
    return buf;
}

void ren_fit_window(int *w, int *h, int room_w, int room_h)
{
    if (room_w <= 0 || room_h <= 0) /* the display's size unknown: as asked */
        return;
    if (*w > room_w)
        *w = room_w;
    if (*h > room_h)
        *h = room_h;
}

Ren *ren_open_window(const char *title, int w, int h, TfErr *err)
{
    char dpy[256];
    const char *where = pick_display(dpy, sizeof dpy);
    if (!where) {
        tf_fail(err, "cannot open a window: no display (DISPLAY and WAYLAND_DISPLAY are unset); "
                     "`stepformer shot` draws PNGs without one");
        return NULL;
    }
    const char *wl = getenv("WAYLAND_DISPLAY"), *rt = getenv("XDG_RUNTIME_DIR");
    if (!strncmp(where, "WAYLAND", 7) && wl[0] != '/' && (!rt || !rt[0])) {
        tf_fail(err, "cannot open a window on %s: XDG_RUNTIME_DIR, where its socket is, is unset; "
                     "`stepformer shot` draws PNGs without a display", where);
        return NULL;
    }
    if (SDL_InitSubSystem(SDL_INIT_VIDEO) < 0) {
        tf_fail(err, "cannot open a window on %s: %s (is a display server running there?); `stepformer shot` "
                     "draws PNGs without one", where, SDL_GetError());
        return NULL;
    }
    if (!video_visible()) {
        SDL_QuitSubSystem(SDL_INIT_VIDEO);
        tf_fail(err, "cannot open a window on %s: no display answers there; `stepformer shot` draws "
                     "PNGs without one", where);
        return NULL;
    }
    Ren *r = ren_alloc(err);
    if (!r) {
        SDL_QuitSubSystem(SDL_INIT_VIDEO);
        return NULL;
    }
    r->video_on = 1;
    SDL_Rect room; /* the display minus its panels: a window never larger */
    if (SDL_GetDisplayUsableBounds(0, &room) == 0)
        ren_fit_window(&w, &h, room.w, room.h);
    r->win = SDL_CreateWindow(title ? title : "", SDL_WINDOWPOS_CENTERED,
                              SDL_WINDOWPOS_CENTERED, w, h,
                              SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
    if (!r->win) {
        tf_fail(err, "cannot open a %dx%d window: %s", w, h, SDL_GetError());
        ren_close(r);
        return NULL;
    }
    r->sdl = SDL_CreateRenderer(
        r->win, -1, SDL_RENDERER_ACCELERATED | SDL_RENDERER_PRESENTVSYNC);
    if (!r->sdl)
        r->sdl = SDL_CreateRenderer(r->win, -1, SDL_RENDERER_SOFTWARE);
    if (!r->sdl) {
        tf_fail(err, "no SDL renderer for the window: %s", SDL_GetError());
        ren_close(r);
        return NULL;
    }
    ren_setup(r);
    return r;
}

/* Point the software renderer at a new w x h target texture. */
static int frame_make(Ren *r, int w, int h)
{
    if (w < 1 || h < 1 || w > FRAME_MAX || h > FRAME_MAX)
        return -1;
    SDL_Texture *t = SDL_CreateTexture(r->sdl, SDL_PIXELFORMAT_ARGB8888,
                                       SDL_TEXTUREACCESS_TARGET, w, h);
    if (!t)
        return -1;
    if (SDL_SetRenderTarget(r->sdl, t) < 0) {
        SDL_DestroyTexture(t);
        return -1;
    }
    if (r->frame)
        SDL_DestroyTexture(r->frame);
    r->frame = t;
    r->w = w;
    r->h = h;
    r->clip_n = 0;
    r->clip_empty = 0;
    SDL_RenderSetClipRect(r->sdl, NULL);
    return 0;
}

Ren *ren_open_headless(int w, int h, TfErr *err)
{
    Ren *r = ren_alloc(err);
    if (!r)
        return NULL;
    r->dummy = SDL_CreateRGBSurfaceWithFormat(0, 1, 1, 32,
                                              SDL_PIXELFORMAT_ARGB8888);
    r->sdl = r->dummy ? SDL_CreateSoftwareRenderer(r->dummy) : NULL;
    if (!r->sdl) {
        tf_fail(err, "no software renderer: %s", SDL_GetError());
        ren_close(r);
        return NULL;
    }
    ren_setup(r);
    if (frame_make(r, w, h) < 0) {
        tf_fail(err, "cannot make a %dx%d offscreen frame (1..%d a side): %s",
                w, h, FRAME_MAX, SDL_GetError());
        ren_close(r);
        return NULL;
    }
    return r;
}

int ren_resize_headless(Ren *r, int w, int h)
{
    if (!r || r->win)
        return -1;
    if (w == r->w && h == r->h)
        return 0;
    return frame_make(r, w, h);
}

void ren_close(Ren *r)
{
    if (!r)
        return;
    ren_vector_abort(r);
    while (r->fonts)
        ren_font_close((RenFont *)r->fonts);
    while (r->images)
        ren_image_free((RenImage *)r->images);
    if (r->frame)
        SDL_DestroyTexture(r->frame);
    if (r->sdl)
        SDL_DestroyRenderer(r->sdl);
    if (r->dummy)
        SDL_FreeSurface(r->dummy);
    if (r->win)
        SDL_DestroyWindow(r->win);
    ren_font_files_free(r);
    if (r->ttf_on)
        TTF_Quit();
    if (r->video_on)
        SDL_QuitSubSystem(SDL_INIT_VIDEO);
    free(r);
}

/* ---------------------------------------------------------------- frames */

void ren_begin(Ren *r, Color clear)
{
    if (!r)
        return;
    r->clip_n = 0;
    r->clip_empty = 0;
    r->calls = 0;
    if (r->vec) {
        vec_begin(r, clear);
        return;
    }
    SDL_RenderSetClipRect(r->sdl, NULL);
    SDL_SetRenderDrawColor(r->sdl, clear.r, clear.g, clear.b, clear.a);
    SDL_RenderClear(r->sdl);
}

int ren_draw_calls(Ren *r)
{
    return r ? r->calls : 0;
}

void ren_end(Ren *r)
{
    if (!r || r->vec) /* a vector page ends at the next ren_begin */
        return;
    if (r->win)
        SDL_RenderPresent(r->sdl);
    else
        SDL_RenderFlush(r->sdl);
}

/* ------------------------------------------------------------------ clip */

static void clip_apply(Ren *r)
{
    int d = mini(r->clip_n, REN_CLIP_DEPTH);
    if (d == 0) {
        r->clip_empty = 0;
        if (r->vec)
            vec_clip(r);
        else
            SDL_RenderSetClipRect(r->sdl, NULL);
        return;
    }
    Rect c = r->clip[d - 1];
    r->clip_empty = c.w <= 0 || c.h <= 0;
    if (r->vec)
        vec_clip(r);
    else if (!r->clip_empty)
        SDL_RenderSetClipRect(r->sdl, &(SDL_Rect){c.x, c.y, c.w, c.h});
}

void ren_clip_push(Ren *r, Rect c)
{
    if (!r)
        return;
    if (r->clip_n < REN_CLIP_DEPTH) {
        if (c.w < 0)
            c.w = 0;
        if (c.h < 0)
            c.h = 0;
        r->clip[r->clip_n] =
            r->clip_n ? ren_intersect(r->clip[r->clip_n - 1], c) : c;
    }
    r->clip_n++;
    clip_apply(r);
}

void ren_clip_pop(Ren *r)
{
    if (!r || r->clip_n == 0)
        return;
    r->clip_n--;
    clip_apply(r);
}

/* ---------------------------------------------------------------- layers */

int ren_has_layers(Ren *r)
{
    return r && r->soft && !r->vec && !r->in_layer && !ren_text_hooked() &&
           SDL_RenderTargetSupported(r->sdl);
}

RenImage *ren_layer_new(Ren *r, int w, int h)
{
    if (!ren_has_layers(r) || w < 1 || h < 1 || w > r->max_tex || h > r->max_tex)
        return NULL;
    RenImage *im = calloc(1, sizeof *im);
    if (!im)
        return NULL;
    im->tex = SDL_CreateTexture(r->sdl, SDL_PIXELFORMAT_ARGB8888, SDL_TEXTUREACCESS_TARGET, w, h);
    if (!im->tex) {
        free(im);
        return NULL;
    }
    SDL_SetTextureBlendMode(im->tex, SDL_BLENDMODE_NONE); /* opaque: a plain copy */
    im->ren = r;
    im->w = w;
    im->h = h;
    im->layer = 1;
    ren_list_add(&r->images, &im->link);
    return im;
}

int ren_layer_begin(Ren *r, RenImage *layer, Rect at, Color clear)
{
    if (!r || !layer || !layer->layer || layer->ren != r || r->in_layer || r->vec ||
        at.w != layer->w || at.h != layer->h)
        return -1;
    if (SDL_SetRenderTarget(r->sdl, layer->tex) < 0)
        return -1;
    r->in_layer = layer;
    SDL_SetRenderDrawColor(r->sdl, clear.r, clear.g, clear.b, 255);
    SDL_RenderClear(r->sdl);
    /* the frame's origin, seen from the layer: frame coordinates draw in place */
    SDL_RenderSetViewport(r->sdl, &(SDL_Rect){-at.x, -at.y, at.x + at.w, at.y + at.h});
    clip_apply(r);
    return 0;
}

void ren_layer_end(Ren *r)
{
    if (!r || !r->in_layer)
        return;
    r->in_layer = NULL;
    SDL_SetRenderTarget(r->sdl, r->frame); /* NULL for a window: its own target */
    SDL_RenderSetViewport(r->sdl, NULL);
    clip_apply(r);
}

/* ------------------------------------------------------------ rectangles */

void ren_rect(Ren *r, Rect rc, Color c)
{
    if (!r || r->clip_empty || rc.w <= 0 || rc.h <= 0)
        return;
    if (r->vec) {
        vec_rect(r, rc, c);
        return;
    }
    /* opaque fills skip blending: the software renderer then fills rows
     * with plain stores instead of a per-pixel blend */
    SDL_SetRenderDrawBlendMode(r->sdl, c.a == 255 ? SDL_BLENDMODE_NONE : SDL_BLENDMODE_BLEND);
    SDL_SetRenderDrawColor(r->sdl, c.r, c.g, c.b, c.a);
    SDL_RenderFillRect(r->sdl, &(SDL_Rect){rc.x, rc.y, rc.w, rc.h});
    r->calls++;
    SDL_SetRenderDrawBlendMode(r->sdl, SDL_BLENDMODE_BLEND);
}

void ren_rect_line(Ren *r, Rect rc, int thick, Color c)
{
    if (rc.w <= 0 || rc.h <= 0 || thick <= 0)
        return;
    if (2 * thick >= rc.w || 2 * thick >= rc.h) { /* all border */
        ren_rect(r, rc, c);
        return;
    }
    int inner_h = rc.h - 2 * thick;
    ren_rect(r, (Rect){rc.x, rc.y, rc.w, thick}, c);
    ren_rect(r, (Rect){rc.x, rc.y + rc.h - thick, rc.w, thick}, c);
    ren_rect(r, (Rect){rc.x, rc.y + thick, thick, inner_h}, c);
    ren_rect(r, (Rect){rc.x + rc.w - thick, rc.y + thick, thick, inner_h}, c);
}
