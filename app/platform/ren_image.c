/* ren_image.c - images (streaming RGBA textures), reading the frame's
 * pixels and saving the frame as a PNG (through core/io/atomic). */
#include "ren.h"
#include "ren_internal.h"

#include "atomic.h"

#include <SDL_image.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ----------------------------------------------------------------- images */

int ren_image_max_size(Ren *r)
{
    return r ? r->max_tex : 0;
}

RenImage *ren_image_new(Ren *r, int w, int h)
{
    if (!r || w < 1 || h < 1 || w > r->max_tex || h > r->max_tex)
        return NULL;
    RenImage *im = calloc(1, sizeof *im);
    if (!im)
        return NULL;
    /* ARGB: what an opaque image (every heatmap) keeps (image_texture) */
    im->tex = SDL_CreateTexture(r->sdl, SDL_PIXELFORMAT_ARGB8888,
                                SDL_TEXTUREACCESS_STREAMING, w, h);
    im->argb = 1;
    if (!im->tex) {
        free(im);
        return NULL;
    }
    im->pixels = calloc((size_t)w * (size_t)h, sizeof *im->pixels);
    if (!im->pixels) {
        SDL_DestroyTexture(im->tex);
        free(im);
        return NULL;
    }
    SDL_SetTextureScaleMode(im->tex, SDL_ScaleModeNearest);
    SDL_SetTextureBlendMode(im->tex, SDL_BLENDMODE_BLEND);
    im->ren = r;
    im->w = w;
    im->h = h;
    ren_list_add(&r->images, &im->link);
    return im;
}

/* An opaque image lives in a texture of the frame's own format (ARGB):
 * scaled onto the frame it is then a plain nearest-neighbour stretch, not
 * a conversion pixel by pixel (a big heatmap cost a millisecond a frame).
 * One with transparency keeps RGBA, whose blending is the one it always
 * had. The texture is made again when an update changes which it is. */
static int image_texture(RenImage *im, int argb)
{
    if (im->tex && im->argb == argb)
        return 0;
    SDL_Texture *t = SDL_CreateTexture(im->ren->sdl, argb ? SDL_PIXELFORMAT_ARGB8888 : SDL_PIXELFORMAT_RGBA8888,
                                       SDL_TEXTUREACCESS_STREAMING, im->w, im->h);
    if (!t)
        return -1;
    SDL_SetTextureScaleMode(t, SDL_ScaleModeNearest);
    SDL_DestroyTexture(im->tex);
    im->tex = t;
    im->argb = argb;
    return 0;
}

void ren_image_update(RenImage *im, const uint32_t *rgba)
{
    if (!im || !rgba || im->layer)
        return;
    memcpy(im->pixels, rgba, (size_t)im->w * (size_t)im->h * sizeof *rgba);
    /* a fully opaque image (every heatmap) is copied without blending */
    int opaque = 1;
    for (size_t i = 0, n = (size_t)im->w * im->h; i < n && opaque; i++)
        opaque = (rgba[i] & 0xFF) == 0xFF;
    image_texture(im, opaque); /* on failure the old texture stays */
    void *dst;
    int pitch;
    if (!im->argb) {
        SDL_UpdateTexture(im->tex, NULL, rgba, im->w * 4);
    } else if (SDL_LockTexture(im->tex, NULL, &dst, &pitch) == 0) { /* 0xRRGGBBAA -> 0xAARRGGBB */
        for (int y = 0; y < im->h; y++) {
            Uint32 *row = (Uint32 *)((Uint8 *)dst + (size_t)y * pitch);
            const uint32_t *src = rgba + (size_t)y * im->w;
            for (int x = 0; x < im->w; x++)
                row[x] = src[x] >> 8 | src[x] << 24;
        }
        SDL_UnlockTexture(im->tex);
    }
    SDL_SetTextureBlendMode(im->tex, opaque ? SDL_BLENDMODE_NONE : SDL_BLENDMODE_BLEND);
}

void ren_image_draw(Ren *r, RenImage *im, Rect src, Rect dst)
{
    if (!r || !im || im->ren != r || r->clip_empty || dst.w <= 0 || dst.h <= 0)
        return;
    if (r->vec) {
        if (!im->layer) /* a layer's pixels live in its texture only */
            vec_image(r, im, src, dst);
        return;
    }
    SDL_Rect s = {src.x, src.y, src.w, src.h};
    r->calls++;
    SDL_RenderCopy(r->sdl, im->tex, src.w > 0 ? &s : NULL,
                   &(SDL_Rect){dst.x, dst.y, dst.w, dst.h});
}

void ren_image_free(RenImage *im)
{
    if (!im)
        return;
    ren_list_remove(&im->ren->images, &im->link);
    SDL_DestroyTexture(im->tex);
    free(im->pixels);
    free(im);
}

/* ---------------------------------------------------------- frame pixels */

int ren_read_pixels(Ren *r, Rect rc, uint32_t *out)
{
    int w, h;
    ren_output_size(r, &w, &h);
    if (!r || r->vec || !out || rc.w <= 0 || rc.h <= 0 || rc.x < 0 || rc.y < 0 ||
        rc.x + rc.w > w || rc.y + rc.h > h)
        return -1;
    SDL_Rect s = {rc.x, rc.y, rc.w, rc.h};
    if (SDL_RenderReadPixels(r->sdl, &s, SDL_PIXELFORMAT_RGBA8888, out,
                             rc.w * 4) < 0)
        return -1;
    for (size_t i = 0; i < (size_t)rc.w * (size_t)rc.h; i++)
        out[i] |= 0xFF; /* frames are opaque; blending leaves alpha at 253.. */
    return 0;
}

/* Write img as PNG to fp; NULL, or the reason it failed. */
static const char *write_png(SDL_Surface *img, FILE *fp)
{
    SDL_RWops *rw = SDL_RWFromFP(fp, SDL_FALSE);
    if (!rw)
        return SDL_GetError();
    errno = 0;
    int bad = IMG_SavePNG_RW(img, rw, 1) < 0;
    int saved = errno;
    if (ferror(fp)) /* the disk said why (full, too large, ...) */
        return strerror(saved ? saved : EIO);
    return bad ? IMG_GetError() : NULL;
}

/* Through the one atomic writer: a temporary file beside path, flushed,
 * fsync'd, renamed over it; on failure nothing is left behind. Its errors
 * ("PATH: reason") become "cannot save PNG PATH: reason". */
static int save_atomic(SDL_Surface *img, const char *path, TfErr *err)
{
    TfAtomic w;
    TfErr e = {{0}};
    if (tf_atomic_open(&w, path, 0666, &e) < 0)
        return tf_fail(err, "cannot save PNG %s", e.msg);
    const char *why = write_png(img, w.f);
    if (why) {
        tf_fail(err, "cannot save PNG %s: %s", path, why);
        tf_atomic_discard(&w);
        return -1;
    }
    if (tf_atomic_commit(&w, &e) < 0)
        return tf_fail(err, "cannot save PNG %s", e.msg);
    return 0;
}

int ren_save_png_area(Ren *r, Rect area, const char *path, TfErr *err)
{
    int w, h;
    if (!r || !path)
        return tf_fail(err, "ren_save_png: no renderer or path");
    if (r->vec)
        return tf_fail(err, "cannot save PNG %s while drawing a vector document", path);
    ren_output_size(r, &w, &h);
    if (area.w <= 0 || area.h <= 0 || area.x < 0 || area.y < 0 || area.x + area.w > w || area.y + area.h > h)
        return tf_fail(err, "cannot save PNG %s: %dx%d at %d,%d is not inside the %dx%d frame", path, area.w,
                       area.h, area.x, area.y, w, h);
    SDL_Surface *img =
        SDL_CreateRGBSurfaceWithFormat(0, area.w, area.h, 24, SDL_PIXELFORMAT_RGB24);
    if (!img)
        return tf_fail(err, "cannot save PNG %s: no memory for %dx%d pixels",
                       path, area.w, area.h);
    int rc;
    SDL_Rect s = {area.x, area.y, area.w, area.h};
    if (SDL_RenderReadPixels(r->sdl, &s, SDL_PIXELFORMAT_RGB24, img->pixels,
                             img->pitch) < 0)
        rc = tf_fail(err, "cannot save PNG %s: reading the frame: %s", path,
                     SDL_GetError());
    else
        rc = save_atomic(img, path, err);
    SDL_FreeSurface(img);
    return rc;
}

int ren_save_png(Ren *r, const char *path, TfErr *err)
{
    int w = 0, h = 0;
    if (r)
        ren_output_size(r, &w, &h);
    return ren_save_png_area(r, (Rect){0, 0, w, h}, path, err);
}
