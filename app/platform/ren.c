/* ren.c - the renderer layer over SDL_Renderer, SDL2_ttf and SDL2_image
 * (see ren.h for the contract; font.c finds the font files).
 *
 * Frames. A window Ren draws straight to the window's renderer. A headless
 * Ren makes SDL's software renderer on a 1x1 dummy surface and points it at
 * a render-target texture: the frame can then be resized without losing the
 * fonts and images (which belong to the renderer), and nothing here needs
 * SDL_Init or a display.
 *
 * Lines. On accelerated renderers a line is a triangle strip through
 * SDL_RenderGeometry with a 1-pixel feather whose vertex alpha falls to 0.
 * SDL's software renderer snaps geometry vertices to whole pixels, which
 * would turn that feather into jaggies, so there (headless frames, PNGs)
 * lines are rasterized here instead: each pixel near the line gets its
 * coverage from its distance to the polyline, pixels are bucketed into 64
 * coverage levels and drawn with one SDL_RenderDrawPoints per level.
 *
 * Text. A string is cut into runs of code points that one face has (primary
 * face first, then its fallbacks), each run is rendered white by
 * TTF_RenderUTF8_Blended and blitted onto one line surface at the primary
 * face's baseline, and the line becomes a texture that is tinted by colour
 * and alpha modulation at draw time. Lines live in a per-font cache: a hash
 * table over a fixed array of entries with least-recently-used eviction,
 * bounded in count and in texture bytes; entries hold the width even before
 * a texture is made, so measuring labels every frame is a lookup too. */
#include "ren.h"

#include <SDL.h>
#include <SDL_image.h>
#include <SDL_ttf.h>
#include <cglm/cglm.h>

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

_Static_assert(sizeof(Color) == sizeof(SDL_Color), "Color mirrors SDL_Color");

enum {
    MAX_FACES = 3,
    TEXT_BUCKETS = 2048,  /* power of two, 2x REN_TEXT_ENTRIES */
    TEXT_SCRATCH = 1024,  /* bytes of one run handed to SDL_ttf */
    TEXT_MAX_W = 16384,   /* widest line texture; the rest is cut */
    FRAME_MAX = 16384,    /* largest headless frame side */
    POLY_BATCH = 128,     /* polyline points per geometry call */
    TRI_BATCH = 384,      /* ren_triangles vertices per call (3k) */
    POLY_VERTS = (POLY_BATCH + 2) * 4,
    POLY_INDICES = (POLY_BATCH + 1) * 18,
    MITER_LIMIT = 4,
    AA_LEVELS = 64,       /* coverage levels of software-drawn lines */
    AA_CAP = 8192         /* pixels buffered before a flush */
};
#define TEXT_BUDGET ((size_t)32 << 20) /* texture bytes per font */

typedef struct TextEntry {
    char *key;        /* the bytes (not NUL-terminated); NULL: free slot */
    int len;
    uint32_t hash;
    int next;         /* bucket chain or free list; -1 ends */
    uint64_t used;    /* cache clock at last use */
    int w;            /* advance width, pixels */
    int tex_w, tex_h; /* texture size (tex_w < w if cut) */
    int off_y;        /* texture top relative to the line top (<= 0) */
    SDL_Texture *tex; /* NULL until the line is first drawn */
    size_t bytes;     /* texture memory */
} TextEntry;

typedef struct TextCache {
    TextEntry e[REN_TEXT_ENTRIES];
    int bucket[TEXT_BUCKETS];
    int free_head;
    int count;
    size_t bytes;
    uint64_t clock;
} TextCache;

struct RenFont {
    Ren *ren;
    RenFont *next_open;        /* Ren's list of open fonts */
    TTF_Font *face[MAX_FACES]; /* primary, then fallbacks */
    int ascent[MAX_FACES];
    int n_faces;
    int base;                  /* baseline y within a line */
    int height;                /* line height */
    char scratch[TEXT_SCRATCH];
    TextCache cache;
};

struct RenImage {
    Ren *ren;
    RenImage *next_open;
    SDL_Texture *tex;
    int w, h;
};

typedef struct FontFile {
    int state; /* 0 not looked up, 1 found, -1 missing */
    int index;
    void *map; /* the file, mapped: FreeType reads glyphs from memory */
    size_t size;
    char path[PATH_MAX];
    char msg[TF_ERR_MAX];
} FontFile;

struct Ren {
    SDL_Window *win;     /* NULL headless */
    SDL_Renderer *sdl;
    SDL_Surface *dummy;  /* headless: the software renderer's own surface */
    SDL_Texture *frame;  /* headless: the target we draw into */
    int w, h;            /* headless frame size */
    int video_on, ttf_on;
    int max_tex;
    Rect clip[REN_CLIP_DEPTH];
    int clip_n;          /* pushes (may exceed REN_CLIP_DEPTH) */
    int clip_empty;
    RenFont *fonts;
    RenImage *images;
    FontFile files[REN_FACE_COUNT];
    int soft;            /* software renderer: lines by pixel coverage */
    SDL_Vertex vert[POLY_VERTS > TRI_BATCH ? POLY_VERTS : TRI_BATCH];
    int index[POLY_INDICES];
    int aa_n;            /* buffered line pixels and their coverage */
    SDL_Point aa_pt[AA_CAP], aa_sorted[AA_CAP];
    uint8_t aa_level[AA_CAP];
};

static int mini(int a, int b) { return a < b ? a : b; }
static int maxi(int a, int b) { return a > b ? a : b; }

/* ---------------------------------------------------------------- frames */

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

Ren *ren_open_window(const char *title, int w, int h, TfErr *err)
{
    if (SDL_InitSubSystem(SDL_INIT_VIDEO) < 0) {
        tf_fail(err, "cannot open a window: %s (no display? `stepformer shot` "
                     "draws PNGs without one)", SDL_GetError());
        return NULL;
    }
    if (!video_visible()) {
        SDL_QuitSubSystem(SDL_INIT_VIDEO);
        tf_fail(err, "cannot open a window: no display (DISPLAY and "
                     "WAYLAND_DISPLAY are unset); `stepformer shot` draws PNGs "
                     "without one");
        return NULL;
    }
    Ren *r = ren_alloc(err);
    if (!r) {
        SDL_QuitSubSystem(SDL_INIT_VIDEO);
        return NULL;
    }
    r->video_on = 1;
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
    while (r->fonts)
        ren_font_close(r->fonts);
    while (r->images)
        ren_image_free(r->images);
    if (r->frame)
        SDL_DestroyTexture(r->frame);
    if (r->sdl)
        SDL_DestroyRenderer(r->sdl);
    if (r->dummy)
        SDL_FreeSurface(r->dummy);
    if (r->win)
        SDL_DestroyWindow(r->win);
    for (int i = 0; i < REN_FACE_COUNT; i++)
        if (r->files[i].map)
            munmap(r->files[i].map, r->files[i].size);
    if (r->ttf_on)
        TTF_Quit();
    if (r->video_on)
        SDL_QuitSubSystem(SDL_INIT_VIDEO);
    free(r);
}

void ren_output_size(Ren *r, int *w, int *h)
{
    int ow = 0, oh = 0;
    if (r && r->win)
        SDL_GetRendererOutputSize(r->sdl, &ow, &oh);
    else if (r) {
        ow = r->w;
        oh = r->h;
    }
    if (w)
        *w = ow;
    if (h)
        *h = oh;
}

float ren_pixel_scale(Ren *r)
{
    if (!r || !r->win)
        return 1.0f;
    int ww = 0, wh = 0, ow = 0;
    SDL_GetWindowSize(r->win, &ww, &wh);
    ren_output_size(r, &ow, NULL);
    return ww > 0 && ow > 0 ? (float)ow / (float)ww : 1.0f;
}

void *ren_window_handle(Ren *r)
{
    return r ? r->win : NULL;
}

void ren_begin(Ren *r, Color clear)
{
    if (!r)
        return;
    r->clip_n = 0;
    r->clip_empty = 0;
    SDL_RenderSetClipRect(r->sdl, NULL);
    SDL_SetRenderDrawColor(r->sdl, clear.r, clear.g, clear.b, clear.a);
    SDL_RenderClear(r->sdl);
}

void ren_end(Ren *r)
{
    if (!r)
        return;
    if (r->win)
        SDL_RenderPresent(r->sdl);
    else
        SDL_RenderFlush(r->sdl);
}

/* ------------------------------------------------------------------ clip */

static Rect rect_intersect(Rect a, Rect b)
{
    int x0 = maxi(a.x, b.x), y0 = maxi(a.y, b.y);
    int x1 = mini(a.x + a.w, b.x + b.w), y1 = mini(a.y + a.h, b.y + b.h);
    return (Rect){x0, y0, maxi(0, x1 - x0), maxi(0, y1 - y0)};
}

/* The region drawing can reach now: the clip, or the whole frame. */
static Rect visible(Ren *r)
{
    Rect all = {0, 0, 0, 0};
    ren_output_size(r, &all.w, &all.h);
    int d = mini(r->clip_n, REN_CLIP_DEPTH);
    return d ? rect_intersect(all, r->clip[d - 1]) : all;
}

static void clip_apply(Ren *r)
{
    int d = mini(r->clip_n, REN_CLIP_DEPTH);
    if (d == 0) {
        r->clip_empty = 0;
        SDL_RenderSetClipRect(r->sdl, NULL);
        return;
    }
    Rect c = r->clip[d - 1];
    r->clip_empty = c.w <= 0 || c.h <= 0;
    if (!r->clip_empty)
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
            r->clip_n ? rect_intersect(r->clip[r->clip_n - 1], c) : c;
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

/* ---------------------------------------------------------------- shapes */

void ren_rect(Ren *r, Rect rc, Color c)
{
    if (!r || r->clip_empty || rc.w <= 0 || rc.h <= 0)
        return;
    /* opaque fills skip blending: the software renderer then fills rows
     * with plain stores instead of a per-pixel blend */
    SDL_SetRenderDrawBlendMode(r->sdl, c.a == 255 ? SDL_BLENDMODE_NONE : SDL_BLENDMODE_BLEND);
    SDL_SetRenderDrawColor(r->sdl, c.r, c.g, c.b, c.a);
    SDL_RenderFillRect(r->sdl, &(SDL_Rect){rc.x, rc.y, rc.w, rc.h});
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

/* Unit direction of segment j, or 0 if it has no length. */
static int seg_unit(const float *xy, int j, vec2 d)
{
    vec2 a = {xy[2 * j], xy[2 * j + 1]}, b = {xy[2 * j + 2], xy[2 * j + 3]};
    glm_vec2_sub(b, a, d);
    float len = glm_vec2_norm(d);
    if (!(len > 1e-6f))
        return 0;
    glm_vec2_scale(d, 1.0f / len, d);
    return 1;
}

/* Unit direction of segment i of an n-point polyline, borrowing a nearby
 * segment's when it has no length (repeated points). */
static void seg_dir(const float *xy, int n, int i, vec2 d)
{
    for (int k = 0; k < 16; k++) {
        if (i + k < n - 1 && seg_unit(xy, i + k, d))
            return;
        if (k > 0 && i - k >= 0 && seg_unit(xy, i - k, d))
            return;
    }
    d[0] = 1.0f;
    d[1] = 0.0f;
}

/* The mitred normal at point i scaled so offsets keep the line width. */
static void miter(const float *xy, int n, int i, vec2 m)
{
    vec2 d0, d1, n0, n1;
    seg_dir(xy, n, i > 0 ? i - 1 : 0, d0);
    seg_dir(xy, n, i < n - 1 ? i : n - 2, d1);
    n0[0] = -d0[1], n0[1] = d0[0];
    n1[0] = -d1[1], n1[1] = d1[0];
    glm_vec2_add(n0, n1, m);
    float len = glm_vec2_norm(m);
    if (len < 1e-3f) { /* a U-turn: no sensible mitre */
        glm_vec2_copy(n0, m);
        return;
    }
    glm_vec2_scale(m, 1.0f / len, m);
    float cosine = glm_vec2_dot(m, n0);
    glm_vec2_scale(m, 1.0f / fmaxf(cosine, 1.0f / MITER_LIMIT), m);
}

/* Four vertices across the line at p: outer, inner, inner, outer. */
static void put_column(SDL_Vertex *v, const vec2 p, const vec2 m, float hi,
                       float ho, Color c, float inner_a)
{
    const float off[4] = {-ho, -hi, hi, ho};
    for (int j = 0; j < 4; j++) {
        int in = j == 1 || j == 2;
        v[j].position = (SDL_FPoint){p[0] + m[0] * off[j], p[1] + m[1] * off[j]};
        v[j].color = (SDL_Color){c.r, c.g, c.b, in ? (Uint8)inner_a : 0};
        v[j].tex_coord = (SDL_FPoint){0, 0};
    }
}

/* Triangles joining each column to the next: three quads per gap (two
 * when the core has no width: SDL's software renderer mishandles the
 * zero-area triangles and drops their neighbours). */
static int strip_indices(int *idx, int columns, int core)
{
    int k = 0;
    for (int col = 0; col + 1 < columns; col++)
        for (int j = 0; j < 3; j++) {
            if (j == 1 && !core)
                continue;
            int a = col * 4 + j, b = a + 1, c = b + 4, d = a + 4;
            int q[6] = {a, b, c, a, c, d};
            memcpy(idx + k, q, sizeof q);
            k += 6;
        }
    return k;
}

/* Points s .. s+m-1 of the polyline, with feathered caps at its two ends. */
static void poly_batch(Ren *r, const float *xy, int n, int s, int m, float hi,
                       float ho, Color c, float a)
{
    SDL_Vertex *v = r->vert;
    int cols = 0;
    vec2 p, mv, d;
    if (s == 0) { /* start cap: one pixel back along the line, alpha 0 */
        seg_dir(xy, n, 0, d);
        miter(xy, n, 0, mv);
        p[0] = xy[0] - d[0], p[1] = xy[1] - d[1];
        put_column(v + 4 * cols++, p, mv, hi, ho, c, 0);
    }
    for (int i = s; i < s + m; i++) {
        p[0] = xy[2 * i], p[1] = xy[2 * i + 1];
        miter(xy, n, i, mv);
        put_column(v + 4 * cols++, p, mv, hi, ho, c, a);
    }
    if (s + m == n) { /* end cap */
        seg_dir(xy, n, n - 2, d);
        p[0] = xy[2 * n - 2] + d[0], p[1] = xy[2 * n - 1] + d[1];
        put_column(v + 4 * cols++, p, mv, hi, ho, c, 0);
    }
    int ni = strip_indices(r->index, cols, hi > 0.01f);
    SDL_RenderGeometry(r->sdl, NULL, v, cols * 4, r->index, ni);
}

static void geom_polyline(Ren *r, const float *xy, int n, float hw, Color c,
                          float a)
{
    float hi = hw - 0.5f, ho = hw + 0.5f;
    for (int s = 0; s < n - 1; s += POLY_BATCH - 1)
        poly_batch(r, xy, n, s, mini(POLY_BATCH, n - s), hi, ho, c, a);
}

/* Draw the buffered pixels, one colour (alpha = level) at a time. */
static void aa_flush(Ren *r, Color c)
{
    int count[AA_LEVELS] = {0}, start[AA_LEVELS];
    for (int i = 0; i < r->aa_n; i++)
        count[r->aa_level[i]]++;
    for (int lv = 0, at = 0; lv < AA_LEVELS; lv++) {
        start[lv] = at;
        at += count[lv];
    }
    int fill[AA_LEVELS];
    memcpy(fill, start, sizeof fill);
    for (int i = 0; i < r->aa_n; i++)
        r->aa_sorted[fill[r->aa_level[i]]++] = r->aa_pt[i];
    for (int lv = 1; lv < AA_LEVELS; lv++) {
        if (!count[lv])
            continue;
        int a = (c.a * lv + (AA_LEVELS - 1) / 2) / (AA_LEVELS - 1);
        SDL_SetRenderDrawColor(r->sdl, c.r, c.g, c.b, (Uint8)a);
        SDL_RenderDrawPoints(r->sdl, r->aa_sorted + start[lv], count[lv]);
    }
    r->aa_n = 0;
}

static void aa_plot(Ren *r, int x, int y, float cover, Color c)
{
    int lv = (int)(cover * (AA_LEVELS - 1) + 0.5f);
    if (lv <= 0)
        return;
    if (r->aa_n == AA_CAP)
        aa_flush(r, c);
    r->aa_pt[r->aa_n] = (SDL_Point){x, y};
    r->aa_level[r->aa_n++] = (uint8_t)lv;
}

/* Squared distance from (px, py) to segment j of a polyline. */
static float seg_dist2(const float *xy, int j, float px, float py)
{
    float ax = xy[2 * j], ay = xy[2 * j + 1];
    float dx = xy[2 * j + 2] - ax, dy = xy[2 * j + 3] - ay;
    float l2 = dx * dx + dy * dy;
    float t = l2 > 0 ? glm_clamp_zo(((px - ax) * dx + (py - ay) * dy) / l2) : 0;
    float ex = ax + t * dx - px, ey = ay + t * dy - py;
    return ex * ex + ey * ey;
}

/* Is segment j the nearest of its neighbours to the pixel centre? (Each
 * pixel is drawn once, so joins do not double-blend.) */
static int aa_owns(const float *xy, int n, int j, float px, float py, float d2)
{
    if (j > 0 && seg_dist2(xy, j - 1, px, py) <= d2)
        return 0;
    if (j < n - 2 && seg_dist2(xy, j + 1, px, py) < d2)
        return 0;
    return 1;
}

/* The pixels within hw + 0.5 of segment j, walked along its major axis;
 * coverage = hw + 0.5 - distance, clamped (round caps and joins). */
static void aa_segment(Ren *r, const float *xy, int n, int j, float hw,
                       float amul, Color c, Rect vis)
{
    const float *p = xy + 2 * j;
    int steep = fabsf(p[3] - p[1]) > fabsf(p[2] - p[0]);
    float au = p[steep], av = p[!steep], bu = p[2 + steep], bv = p[2 + !steep];
    float du = bu - au, dv = bv - av, rad = hw + 0.5f;
    float reach = du != 0 ? rad * sqrtf(du * du + dv * dv) / fabsf(du) : rad;
    int ulo = steep ? vis.y : vis.x, uhi = ulo + (steep ? vis.h : vis.w) - 1;
    int vlo = steep ? vis.x : vis.y, vhi = vlo + (steep ? vis.w : vis.h) - 1;
    int u0 = maxi(ulo, (int)floorf(fminf(au, bu) - rad));
    int u1 = mini(uhi, (int)ceilf(fmaxf(au, bu) + rad));
    for (int u = u0; u <= u1; u++) {
        float cu = u + 0.5f, t = du != 0 ? glm_clamp_zo((cu - au) / du) : 0;
        float vc = av + t * dv;
        int v0 = maxi(vlo, (int)floorf(vc - reach - 0.5f));
        int v1 = mini(vhi, (int)ceilf(vc + reach));
        for (int v = v0; v <= v1; v++) {
            float px = steep ? v + 0.5f : cu, py = steep ? cu : v + 0.5f;
            float d2 = seg_dist2(xy, j, px, py);
            if (d2 >= rad * rad || !aa_owns(xy, n, j, px, py, d2))
                continue;
            aa_plot(r, steep ? v : u, steep ? u : v,
                    glm_clamp_zo(rad - sqrtf(d2)) * amul, c);
        }
    }
}

static void aa_polyline(Ren *r, const float *xy, int n, float hw, Color c,
                        float amul)
{
    Rect vis = visible(r);
    if (vis.w <= 0 || vis.h <= 0)
        return;
    for (int j = 0; j < n - 1; j++)
        aa_segment(r, xy, n, j, hw, amul, c, vis);
    aa_flush(r, c);
}

void ren_polyline(Ren *r, const float *xy, int n, float width, Color c)
{
    if (!r || !xy || n < 2 || r->clip_empty || !(width > 0) || !isfinite(width))
        return;
    for (int i = 0; i < 2 * n; i++)
        if (!isfinite(xy[i]) || fabsf(xy[i]) > 1e6f)
            return;
    /* Full coverage in the core, falling to 0 over one pixel centred on the
     * true edge; lines thinner than a pixel keep that footprint and fade. */
    float amul = fminf(width, 1.0f), hw = fmaxf(width, 1.0f) * 0.5f;
    if (r->soft)
        aa_polyline(r, xy, n, hw, c, amul);
    else
        geom_polyline(r, xy, n, hw, c, c.a * amul);
}

void ren_line(Ren *r, float x0, float y0, float x1, float y1, float width,
              Color c)
{
    const float xy[4] = {x0, y0, x1, y1};
    ren_polyline(r, xy, 2, width, c);
}

void ren_triangles(Ren *r, const float *xy, const Color *col, int n_vertices)
{
    if (!r || !xy || !col || r->clip_empty)
        return;
    n_vertices -= n_vertices % 3;
    for (int s = 0; s < n_vertices; s += TRI_BATCH) {
        int m = mini(TRI_BATCH, n_vertices - s);
        for (int i = 0; i < m; i++) {
            const float *p = xy + 2 * (s + i);
            Color c = col[s + i];
            r->vert[i] = (SDL_Vertex){{p[0], p[1]}, {c.r, c.g, c.b, c.a}, {0, 0}};
        }
        SDL_RenderGeometry(r->sdl, NULL, r->vert, m, NULL, 0);
    }
}

/* ----------------------------------------------------------------- UTF-8 */

/* Decode the code point at s (n bytes left); its length, or 0 if the bytes
 * are malformed (overlong, surrogate, truncated, > U+10FFFF). */
static int utf8_decode(const unsigned char *s, int n, uint32_t *cp)
{
    unsigned c = s[0];
    int len;
    uint32_t v;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c < 0xC2)
        return 0;
    if (c < 0xE0)
        len = 2, v = c & 0x1F;
    else if (c < 0xF0)
        len = 3, v = c & 0x0F;
    else if (c < 0xF5)
        len = 4, v = c & 0x07;
    else
        return 0;
    if (len > n)
        return 0;
    for (int k = 1; k < len; k++) {
        if ((s[k] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[k] & 0x3F);
    }
    if ((len == 3 && v < 0x800) || (len == 4 && (v < 0x10000 || v > 0x10FFFF)) ||
        (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return len;
}

/* Like utf8_decode but never 0: malformed bytes read as one U+FFFD. */
static int cp_at(const char *s, int p, int end, uint32_t *cp)
{
    int k = utf8_decode((const unsigned char *)s + p, end - p, cp);
    if (k)
        return k;
    *cp = 0xFFFD;
    return 1;
}

static int is_control(uint32_t c)
{
    return c < 0x20 || (c >= 0x7F && c < 0xA0);
}

static int is_space(uint32_t c)
{
    return c == ' ' || c == '\t' || c == 0xA0 || c == 0x3000;
}

/* Combining marks, joiners and variation selectors stay with their base. */
static int is_mark(uint32_t c)
{
    return (c >= 0x300 && c <= 0x36F) || (c >= 0x1AB0 && c <= 0x1AFF) ||
           (c >= 0x1DC0 && c <= 0x1DFF) || (c >= 0x20D0 && c <= 0x20FF) ||
           (c >= 0xFE20 && c <= 0xFE2F) || (c >= 0xFE00 && c <= 0xFE0F) ||
           c == 0x200C || c == 0x200D;
}

/* ------------------------------------------------------------ text runs */

typedef struct Run {
    int start, len, face;
} Run;

static int face_for(RenFont *f, uint32_t cp)
{
    for (int i = 0; i < f->n_faces; i++)
        if (TTF_GlyphIsProvided32(f->face[i], cp))
            return i;
    return 0;
}

/* Does code point cp continue a run drawn with face `face`? */
static int run_continues(RenFont *f, int face, uint32_t cp)
{
    if (face_for(f, cp) == face)
        return 1;
    return (is_space(cp) || is_mark(cp)) &&
           TTF_GlyphIsProvided32(f->face[face], cp);
}

/* The next run of s[*pos .. n) drawn with one face, at most TEXT_SCRATCH-1
 * bytes; control characters and malformed bytes are skipped. 0 at the end. */
static int next_run(RenFont *f, const char *s, int n, int *pos, Run *run)
{
    const unsigned char *u = (const unsigned char *)s;
    int p = *pos, k = 0;
    uint32_t cp = 0;
    for (; p < n; p += k ? k : 1) {
        k = utf8_decode(u + p, n - p, &cp);
        if (k && !is_control(cp))
            break;
    }
    if (p >= n) {
        *pos = n;
        return 0;
    }
    run->start = p;
    run->face = face_for(f, cp);
    for (p += k; p < n; p += k) {
        k = utf8_decode(u + p, n - p, &cp);
        if (!k || is_control(cp) || p + k - run->start > TEXT_SCRATCH - 1)
            break;
        if (!run_continues(f, run->face, cp))
            break;
    }
    run->len = p - run->start;
    *pos = p;
    return 1;
}

static const char *run_text(RenFont *f, const char *s, const Run *run)
{
    memcpy(f->scratch, s + run->start, (size_t)run->len);
    f->scratch[run->len] = 0;
    return f->scratch;
}

/* Width of s[0 .. n) in pixels, uncached. */
static int measure(RenFont *f, const char *s, int n)
{
    int pos = 0, total = 0, w, h;
    Run run;
    while (next_run(f, s, n, &pos, &run))
        if (TTF_SizeUTF8(f->face[run.face], run_text(f, s, &run), &w, &h) == 0)
            total += w;
    return total;
}

/* Like measure(), but one code point (each CJK unit when wrapping, each
 * space) is its glyph's advance, without shaping. */
static int measure_unit(RenFont *f, const char *s, int n)
{
    uint32_t cp;
    int adv;
    if (n <= 0 || utf8_decode((const unsigned char *)s, n, &cp) != n ||
        is_control(cp))
        return measure(f, s, n);
    if (TTF_GlyphMetrics32(f->face[face_for(f, cp)], cp, NULL, NULL, NULL, NULL,
                           &adv) < 0)
        return measure(f, s, n);
    return adv;
}

/* The top of a run's surface relative to the line top. SDL_ttf puts the
 * baseline at the face's ascent, moved down by however far a glyph rises
 * above it (accented capitals); glyphs may also hang below (an underscore
 * at small sizes), which the surface height tells. */
static int run_top(RenFont *f, const char *s, const Run *run)
{
    int top = f->ascent[run->face], end = run->start + run->len, k, maxy;
    uint32_t cp;
    for (int p = run->start; p < end; p += k) {
        k = cp_at(s, p, end, &cp);
        if (TTF_GlyphMetrics32(f->face[run->face], cp, NULL, NULL, NULL, &maxy,
                               NULL) == 0 && maxy > top)
            top = maxy;
    }
    return f->base - top;
}

typedef struct LineBox {
    int w, top, bottom; /* extent in line coordinates: top <= 0 < bottom */
} LineBox;

static LineBox line_box(RenFont *f, const char *s, int n)
{
    LineBox b = {0, 0, f->height};
    int pos = 0, w, h;
    Run run;
    while (next_run(f, s, n, &pos, &run)) {
        int y = run_top(f, s, &run);
        if (TTF_SizeUTF8(f->face[run.face], run_text(f, s, &run), &w, &h) < 0)
            continue;
        b.w += w;
        b.top = mini(b.top, y);
        b.bottom = maxi(b.bottom, y + h);
    }
    return b;
}

/* All runs of s[0 .. n) on one transparent-white surface covering box,
 * each run at the primary baseline; cut at width pixels. */
static SDL_Surface *render_line(RenFont *f, const char *s, int n, LineBox box,
                                int width)
{
    SDL_Surface *line = SDL_CreateRGBSurfaceWithFormat(
        0, width, box.bottom - box.top, 32, SDL_PIXELFORMAT_ARGB8888);
    if (!line)
        return NULL;
    /* White at alpha 0 so that blending white glyphs keeps them white. */
    SDL_FillRect(line, NULL, SDL_MapRGBA(line->format, 255, 255, 255, 0));
    const SDL_Color white = {255, 255, 255, 255};
    int pos = 0, x = 0;
    Run run;
    while (x < width && next_run(f, s, n, &pos, &run)) {
        int y = run_top(f, s, &run) - box.top;
        SDL_Surface *g =
            TTF_RenderUTF8_Blended(f->face[run.face], run_text(f, s, &run), white);
        if (!g)
            continue;
        SDL_SetSurfaceBlendMode(g, SDL_BLENDMODE_BLEND);
        SDL_BlitSurface(g, NULL, line, &(SDL_Rect){x, y, g->w, g->h});
        x += g->w;
        SDL_FreeSurface(g);
    }
    return line;
}

/* ----------------------------------------------------------- text cache */

static uint32_t hash_bytes(const char *s, int n)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (int i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static void cache_init(TextCache *c)
{
    for (int i = 0; i < TEXT_BUCKETS; i++)
        c->bucket[i] = -1;
    for (int i = 0; i < REN_TEXT_ENTRIES; i++)
        c->e[i] = (TextEntry){.next = i + 1 < REN_TEXT_ENTRIES ? i + 1 : -1};
    c->free_head = 0;
    c->count = 0;
    c->bytes = 0;
    c->clock = 0;
}

static TextEntry *cache_find(TextCache *c, const char *s, int n, uint32_t h)
{
    for (int i = c->bucket[h & (TEXT_BUCKETS - 1)]; i >= 0; i = c->e[i].next) {
        TextEntry *e = &c->e[i];
        if (e->hash == h && e->len == n && memcmp(e->key, s, (size_t)n) == 0)
            return e;
    }
    return NULL;
}

static void entry_drop_texture(TextCache *c, TextEntry *e)
{
    if (e->tex)
        SDL_DestroyTexture(e->tex);
    c->bytes -= e->bytes;
    e->tex = NULL;
    e->bytes = 0;
}

static void entry_drop(TextCache *c, int i)
{
    TextEntry *e = &c->e[i];
    int *link = &c->bucket[e->hash & (TEXT_BUCKETS - 1)];
    while (*link != i)
        link = &c->e[*link].next;
    *link = e->next;
    entry_drop_texture(c, e);
    free(e->key);
    *e = (TextEntry){.next = c->free_head};
    c->free_head = i;
    c->count--;
}

/* The least recently used entry other than `keep` (with a texture if
 * with_tex), or -1. */
static int lru_victim(TextCache *c, const TextEntry *keep, int with_tex)
{
    int best = -1;
    for (int i = 0; i < REN_TEXT_ENTRIES; i++) {
        const TextEntry *e = &c->e[i];
        if (!e->key || e == keep || (with_tex && !e->tex))
            continue;
        if (best < 0 || e->used < c->e[best].used)
            best = i;
    }
    return best;
}

static TextEntry *cache_add(TextCache *c, const char *s, int n, uint32_t h)
{
    if (c->free_head < 0) {
        int v = lru_victim(c, NULL, 0);
        if (v < 0)
            return NULL;
        entry_drop(c, v);
    }
    char *key = malloc((size_t)n);
    if (!key)
        return NULL;
    memcpy(key, s, (size_t)n);
    int i = c->free_head;
    TextEntry *e = &c->e[i];
    c->free_head = e->next;
    int *head = &c->bucket[h & (TEXT_BUCKETS - 1)];
    *e = (TextEntry){.key = key, .len = n, .hash = h, .next = *head};
    *head = i;
    c->count++;
    return e;
}

static void cache_clear(TextCache *c)
{
    for (int i = 0; i < REN_TEXT_ENTRIES; i++)
        if (c->e[i].key)
            entry_drop(c, i);
}

/* Render e's line into a texture, then evict old textures over budget. */
static void entry_make_texture(RenFont *f, TextEntry *e)
{
    TextCache *c = &f->cache;
    LineBox box = line_box(f, e->key, e->len);
    int tw = mini(box.w, f->ren->max_tex);
    if (tw <= 0)
        return;
    SDL_Surface *line = render_line(f, e->key, e->len, box, tw);
    if (!line)
        return;
    e->tex = SDL_CreateTextureFromSurface(f->ren->sdl, line);
    SDL_FreeSurface(line);
    if (!e->tex)
        return;
    SDL_SetTextureBlendMode(e->tex, SDL_BLENDMODE_BLEND);
    SDL_SetTextureScaleMode(e->tex, SDL_ScaleModeNearest);
    e->tex_w = tw;
    e->tex_h = box.bottom - box.top;
    e->off_y = box.top;
    e->bytes = (size_t)tw * (size_t)e->tex_h * 4;
    c->bytes += e->bytes;
    while (c->bytes > TEXT_BUDGET) {
        int v = lru_victim(c, e, 1);
        if (v < 0)
            break;
        entry_drop_texture(c, &c->e[v]);
    }
}

/* The cache entry for s[0 .. n), measured; NULL only when out of memory. */
static TextEntry *text_entry(RenFont *f, const char *s, int n)
{
    TextCache *c = &f->cache;
    uint32_t h = hash_bytes(s, n);
    TextEntry *e = cache_find(c, s, n, h);
    if (!e) {
        e = cache_add(c, s, n, h);
        if (!e)
            return NULL;
        e->w = measure(f, s, n);
    }
    e->used = ++c->clock;
    return e;
}

/* ------------------------------------------------------------------ fonts */

/* Map a font file so glyph loads are memory reads, not a seek and a read
 * each (SDL_ttf keeps only 256 glyphs, so CJK text reloads many). On
 * failure the file is opened by name instead. */
static void map_file(FontFile *ff)
{
    int fd = open(ff->path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return;
    if (fstat(fd, &st) == 0 && st.st_size > 0 && st.st_size < INT_MAX) {
        void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m != MAP_FAILED) {
            ff->map = m;
            ff->size = (size_t)st.st_size;
        }
    }
    close(fd);
}

static const FontFile *font_file(Ren *r, RenFace face, TfErr *err)
{
    FontFile *ff = &r->files[face];
    if (ff->state == 0) {
        TfErr e = {{0}};
        int rc = ren_font_find(face, ff->path, sizeof ff->path, &ff->index, &e);
        ff->state = rc == 0 ? 1 : -1;
        memcpy(ff->msg, e.msg, sizeof ff->msg);
    }
    if (ff->state < 0) {
        tf_fail(err, "%s", ff->msg);
        return NULL;
    }
    if (!ff->map)
        map_file(ff);
    return ff;
}

static TTF_Font *open_face(const FontFile *ff, int px)
{
    if (!ff->map)
        return TTF_OpenFontIndex(ff->path, px, ff->index);
    SDL_RWops *rw = SDL_RWFromConstMem(ff->map, (int)ff->size);
    return rw ? TTF_OpenFontIndexRW(rw, 1, px, ff->index) : NULL;
}

static int font_add_face(RenFont *f, RenFace which, int px, TfErr *err)
{
    const FontFile *ff = font_file(f->ren, which, err);
    if (!ff)
        return -1;
    TTF_Font *t = open_face(ff, px);
    if (!t)
        return tf_fail(err, "cannot open font %s: %s", ff->path, TTF_GetError());
    TTF_SetFontHinting(t, TTF_HINTING_LIGHT);
    f->face[f->n_faces] = t;
    f->ascent[f->n_faces] = TTF_FontAscent(t);
    f->n_faces++;
    return 0;
}

RenFont *ren_font_open(Ren *r, RenFace face, int px, TfErr *err)
{
    static const int chain[REN_FACE_COUNT][MAX_FACES] = {
        [REN_SANS] = {REN_SANS, REN_CJK, -1},
        [REN_MONO] = {REN_MONO, REN_SANS, REN_CJK},
        [REN_CJK] = {REN_CJK, REN_SANS, -1},
    };
    if (!r || (unsigned)face >= REN_FACE_COUNT || px < 4 || px > 1000) {
        tf_fail(err, "ren_font_open: bad arguments (face %d, %d px)", (int)face, px);
        return NULL;
    }
    RenFont *f = calloc(1, sizeof *f);
    if (!f) {
        tf_fail(err, "font: out of memory");
        return NULL;
    }
    f->ren = r;
    cache_init(&f->cache);
    for (int i = 0; i < MAX_FACES && chain[face][i] >= 0; i++)
        if (font_add_face(f, (RenFace)chain[face][i], px, err) < 0) {
            for (int k = 0; k < f->n_faces; k++)
                TTF_CloseFont(f->face[k]);
            free(f);
            return NULL;
        }
    f->base = f->ascent[0];
    f->height = maxi(TTF_FontHeight(f->face[0]), TTF_FontLineSkip(f->face[0]));
    f->next_open = r->fonts;
    r->fonts = f;
    return f;
}

void ren_font_close(RenFont *f)
{
    if (!f)
        return;
    RenFont **link = &f->ren->fonts;
    while (*link && *link != f)
        link = &(*link)->next_open;
    if (*link)
        *link = f->next_open;
    cache_clear(&f->cache);
    for (int i = 0; i < f->n_faces; i++)
        TTF_CloseFont(f->face[i]);
    free(f);
}

int ren_font_height(RenFont *f)
{
    return f ? f->height : 0;
}

int ren_font_has_glyph(RenFont *f, uint32_t codepoint)
{
    if (!f)
        return 0;
    for (int i = 0; i < f->n_faces; i++)
        if (TTF_GlyphIsProvided32(f->face[i], codepoint))
            return 1;
    return 0;
}

void ren_font_stats(RenFont *f, int *entries, size_t *texture_bytes)
{
    if (entries)
        *entries = f ? f->cache.count : 0;
    if (texture_bytes)
        *texture_bytes = f ? f->cache.bytes : 0;
}

/* ------------------------------------------------------------------- text */

int ren_text_width_n(RenFont *f, const char *utf8, int len)
{
    if (!f || !utf8)
        return 0;
    if (len < 0)
        len = (int)strlen(utf8);
    if (len == 0)
        return 0;
    TextEntry *e = text_entry(f, utf8, len);
    return e ? e->w : measure(f, utf8, len);
}

int ren_text_width(RenFont *f, const char *utf8)
{
    return ren_text_width_n(f, utf8, -1);
}

int ren_text_n(Ren *r, RenFont *f, const char *utf8, int len, int x, int y,
               Color c)
{
    if (!r || !f || !utf8 || f->ren != r)
        return 0;
    if (len < 0)
        len = (int)strlen(utf8);
    if (len == 0)
        return 0;
    TextEntry *e = text_entry(f, utf8, len);
    if (!e)
        return measure(f, utf8, len);
    Rect vis = visible(r); /* no texture for lines that cannot show */
    if (r->clip_empty || c.a == 0 || e->w == 0 || y >= vis.y + vis.h ||
        y + f->height <= vis.y || x >= vis.x + vis.w || x + e->w <= vis.x)
        return e->w;
    if (!e->tex)
        entry_make_texture(f, e);
    if (!e->tex)
        return e->w;
    SDL_SetTextureColorMod(e->tex, c.r, c.g, c.b);
    SDL_SetTextureAlphaMod(e->tex, c.a);
    SDL_RenderCopy(r->sdl, e->tex, NULL,
                   &(SDL_Rect){x, y + e->off_y, e->tex_w, e->tex_h});
    return e->w;
}

int ren_text(Ren *r, RenFont *f, const char *utf8, int x, int y, Color c)
{
    return ren_text_n(r, f, utf8, -1, x, y, c);
}

/* --------------------------------------------------------------- wrapping */

static int is_cjk(uint32_t c)
{
    return (c >= 0x2E80 && c <= 0x9FFF) || (c >= 0xA000 && c <= 0xA4CF) ||
           (c >= 0xAC00 && c <= 0xD7AF) || (c >= 0xF900 && c <= 0xFAFF) ||
           (c >= 0xFE30 && c <= 0xFE4F) || (c >= 0xFF00 && c <= 0xFFEF) ||
           (c >= 0x20000 && c <= 0x3FFFF);
}

static int in_list(uint32_t c, const uint32_t *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (list[i] == c)
            return 1;
    return 0;
}

/* Closing punctuation: never at the start of a line. */
static int no_break_before(uint32_t c)
{
    static const uint32_t L[] = {
        '!', '%', ')', ',', '.', ':', ';', '?', ']', '}',
        0x3001, 0x3002, 0xFF0C, 0xFF0E, 0xFF1A, 0xFF1B, 0xFF1F, 0xFF01,
        0xFF09, 0xFF3D, 0xFF5D, 0x300D, 0x300F, 0x3011, 0x300B, 0x3009,
        0x3015, 0x3017, 0x201D, 0x2019, 0x2026, 0xFF05, 0x30FC};
    return in_list(c, L, sizeof L / sizeof *L);
}

/* Opening punctuation: never at the end of a line. */
static int no_break_after(uint32_t c)
{
    static const uint32_t L[] = {'(', '[', '{', 0xFF08, 0xFF3B, 0xFF5B,
                                 0x300C, 0x300E, 0x3010, 0x300A, 0x3008,
                                 0x3014, 0x3016, 0x201C, 0x2018};
    return in_list(c, L, sizeof L / sizeof *L);
}

static int is_alnum_cp(uint32_t c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') ||
           (c >= 0xC0 && c < 0x2000 && c != 0xD7 && c != 0xF7);
}

/* May a line break between a and b (pp precedes a; no space between)? */
static int break_between(uint32_t pp, uint32_t a, uint32_t b)
{
    if (no_break_before(b) || no_break_after(a))
        return 0;
    if (a == '-' && is_alnum_cp(pp) && is_alnum_cp(b))
        return 1;
    return is_cjk(a) || is_cjk(b);
}

/* A unit: the bytes from p to the next break opportunity, its spaces
 * included; *content_end is where its last non-space code point ends. */
static int unit_end(const char *s, int p, int end, int *content_end)
{
    uint32_t pp = 0, a = 0, b;
    int q = p, ce = p;
    while (q < end) {
        int k = cp_at(s, q, end, &b);
        if (q > p && !no_break_before(b)) {
            if (is_space(a) && !is_space(b))
                break;
            if (!is_space(a) && !is_space(b) && break_between(pp, a, b))
                break;
        }
        if (!is_space(b))
            ce = q + k;
        pp = a;
        a = b;
        q += k;
    }
    *content_end = ce;
    return q;
}

/* The end of the longest prefix of s[p .. end) at most width wide, not
 * leaving closing punctuation to start the next line; at least one code
 * point. */
static int fit_prefix(RenFont *f, const char *s, int p, int end, int width)
{
    uint32_t cp;
    int first = p + cp_at(s, p, end, &cp), q = first;
    while (q < end) {
        int k = cp_at(s, q, end, &cp);
        if (measure(f, s + p, q + k - p) > width)
            break;
        q += k;
    }
    while (q > first && q < end && (cp_at(s, q, end, &cp), no_break_before(cp))) {
        do /* back one code point */
            q--;
        while (q > first && (s[q] & 0xC0) == 0x80);
    }
    return q;
}

static int emit(RenLine *out, int max, int count, int start, int len, int w)
{
    if (out && count < max)
        out[count] = (RenLine){start, len, w};
    return count + 1;
}

/* Does s[start .. end) fit in width? est sums its units' widths, each
 * measured alone and so off by up to a pixel of rounding per unit: near
 * the limit measure the whole line instead. */
static int line_fits(RenFont *f, const char *s, int start, int end, int est,
                     int units, int width)
{
    if (est < width - units - 1)
        return 1;
    if (est > width + units + 1)
        return 0;
    return measure(f, s + start, end - start) <= width;
}

/* Lines of one paragraph s[p .. end) (no '\n' inside). */
static int wrap_para(RenFont *f, const char *s, int p, int end, int width,
                     RenLine *out, int max, int count)
{
    if (p == end)
        return emit(out, max, count, p, 0, 0);
    while (p < end) {
        int start = p, line_end = p, w = 0, units = 0;
        while (p < end) {
            int ce, ue = unit_end(s, p, end, &ce);
            int cw = measure_unit(f, s + p, ce - p);
            if (units && !line_fits(f, s, start, ce, w + cw, units, width))
                break;
            if (!units && cw > width) { /* a word wider than the line */
                line_end = p = fit_prefix(f, s, p, ce, width);
                break;
            }
            line_end = ce;
            w += cw + measure_unit(f, s + ce, ue - ce);
            p = ue;
            units++;
        }
        count = emit(out, max, count, start, line_end - start,
                     measure(f, s + start, line_end - start));
    }
    return count;
}

int ren_text_wrap(RenFont *f, const char *utf8, int width, RenLine *lines,
                  int max_lines)
{
    if (!f || !utf8)
        return 0;
    int n = (int)strlen(utf8), count = 0, p = 0;
    width = maxi(width, 1);
    while (p < n) {
        int pe = p;
        while (pe < n && utf8[pe] != '\n')
            pe++;
        int ce = pe > p && utf8[pe - 1] == '\r' ? pe - 1 : pe;
        count = wrap_para(f, utf8, p, ce, width, lines, max_lines, count);
        p = pe + 1;
    }
    return count;
}

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
