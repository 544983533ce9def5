/* ren_image.c - images (streaming RGBA textures), reading the frame's
 * pixels and saving the frame as a PNG. */
#include "ren.h"
#include "ren_internal.h"

#include <SDL_image.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
    im->tex = SDL_CreateTexture(r->sdl, SDL_PIXELFORMAT_RGBA8888,
                                SDL_TEXTUREACCESS_STREAMING, w, h);
    if (!im->tex) {
        free(im);
        return NULL;
    }
    SDL_SetTextureScaleMode(im->tex, SDL_ScaleModeNearest);
    SDL_SetTextureBlendMode(im->tex, SDL_BLENDMODE_BLEND);
    im->ren = r;
    im->w = w;
    im->h = h;
    im->next_open = r->images;
    r->images = im;
    return im;
}

void ren_image_update(RenImage *im, const uint32_t *rgba)
{
    if (!im || !rgba)
        return;
    SDL_UpdateTexture(im->tex, NULL, rgba, im->w * 4);
    /* a fully opaque image (every heatmap) is copied without blending */
    int opaque = 1;
    for (size_t i = 0, n = (size_t)im->w * im->h; i < n && opaque; i++)
        opaque = (rgba[i] & 0xFF) == 0xFF;
    SDL_SetTextureBlendMode(im->tex, opaque ? SDL_BLENDMODE_NONE : SDL_BLENDMODE_BLEND);
}

void ren_image_draw(Ren *r, RenImage *im, Rect src, Rect dst)
{
    if (!r || !im || im->ren != r || r->clip_empty || dst.w <= 0 || dst.h <= 0)
        return;
    SDL_Rect s = {src.x, src.y, src.w, src.h};
    SDL_RenderCopy(r->sdl, im->tex, src.w > 0 ? &s : NULL,
                   &(SDL_Rect){dst.x, dst.y, dst.w, dst.h});
}

void ren_image_free(RenImage *im)
{
    if (!im)
        return;
    RenImage **link = &im->ren->images;
    while (*link && *link != im)
        link = &(*link)->next_open;
    if (*link)
        *link = im->next_open;
    SDL_DestroyTexture(im->tex);
    free(im);
}

/* ---------------------------------------------------------- frame pixels */

int ren_read_pixels(Ren *r, Rect rc, uint32_t *out)
{
    int w, h;
    ren_output_size(r, &w, &h);
    if (!r || !out || rc.w <= 0 || rc.h <= 0 || rc.x < 0 || rc.y < 0 ||
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

/* "dir/.name.XXXXXX" beside path, for mkstemp; dir gets path's folder. */
static int temp_name(const char *path, char *tmp, size_t cap, char *dir,
                     size_t dcap)
{
    const char *slash = strrchr(path, '/');
    int dl = slash ? (int)(slash - path) : 0;
    const char *base = slash ? slash + 1 : path;
    if (!*base)
        return -1;
    int n = slash ? snprintf(tmp, cap, "%.*s/.%s.XXXXXX", dl, path, base)
                  : snprintf(tmp, cap, ".%s.XXXXXX", base);
    int m = snprintf(dir, dcap, "%.*s", slash ? (dl ? dl : 1) : 1,
                     slash ? path : ".");
    return n < 0 || (size_t)n >= cap || m < 0 || (size_t)m >= dcap ? -1 : 0;
}

/* Write img as PNG to the open temporary file; 0 or an errno-ish reason. */
static int write_png_file(SDL_Surface *img, FILE *fp, const char **why)
{
    SDL_RWops *rw = SDL_RWFromFP(fp, SDL_FALSE);
    if (!rw) {
        *why = SDL_GetError();
        return -1;
    }
    errno = 0;
    int bad = IMG_SavePNG_RW(img, rw, 1) < 0;
    int saved = errno;
    if (ferror(fp) || fflush(fp) != 0) {
        *why = strerror(saved ? saved : errno ? errno : EIO);
        return -1;
    }
    if (bad) {
        *why = IMG_GetError();
        return -1;
    }
    if (fsync(fileno(fp)) < 0) {
        *why = strerror(errno);
        return -1;
    }
    mode_t mask = umask(0); /* files get 0666 less the umask, as fopen's */
    umask(mask);
    fchmod(fileno(fp), 0666 & ~mask);
    return 0;
}

static int save_atomic(SDL_Surface *img, const char *path, TfErr *err)
{
    char tmp[PATH_MAX + 16], dir[PATH_MAX];
    if (temp_name(path, tmp, sizeof tmp, dir, sizeof dir) < 0)
        return tf_fail(err, "cannot save PNG %s: not a usable file path", path);
    int fd = mkstemp(tmp);
    if (fd < 0)
        return tf_fail(err, "cannot save PNG %s: cannot create a file in %s: %s",
                       path, dir, strerror(errno));
    FILE *fp = fdopen(fd, "wb");
    if (!fp) {
        int e = errno;
        close(fd);
        unlink(tmp);
        return tf_fail(err, "cannot save PNG %s: %s", path, strerror(e));
    }
    const char *why = NULL;
    int rc = write_png_file(img, fp, &why);
    char reason[256];
    if (rc < 0)
        snprintf(reason, sizeof reason, "%s", why ? why : "write failed");
    if (fclose(fp) != 0 && rc == 0) {
        snprintf(reason, sizeof reason, "%s", strerror(errno));
        rc = -1;
    }
    if (rc == 0 && rename(tmp, path) < 0) {
        snprintf(reason, sizeof reason, "%s", strerror(errno));
        rc = -1;
    }
    if (rc < 0) {
        unlink(tmp);
        return tf_fail(err, "cannot save PNG %s: %s", path, reason);
    }
    return 0;
}

int ren_save_png(Ren *r, const char *path, TfErr *err)
{
    int w, h;
    if (!r || !path)
        return tf_fail(err, "ren_save_png: no renderer or path");
    ren_output_size(r, &w, &h);
    SDL_Surface *img =
        SDL_CreateRGBSurfaceWithFormat(0, w, h, 24, SDL_PIXELFORMAT_RGB24);
    if (!img)
        return tf_fail(err, "cannot save PNG %s: no memory for %dx%d pixels",
                       path, w, h);
    int rc;
    if (SDL_RenderReadPixels(r->sdl, NULL, SDL_PIXELFORMAT_RGB24, img->pixels,
                             img->pitch) < 0)
        rc = tf_fail(err, "cannot save PNG %s: reading the frame: %s", path,
                     SDL_GetError());
    else
        rc = save_atomic(img, path, err);
    SDL_FreeSurface(img);
    return rc;
}
