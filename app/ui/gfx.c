/* gfx.c - fonts at the current text size and the heatmap texture cache. */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "hash.h"
#include "ui.h"

int gfx_px(const Gfx *g, float base)
{
    int px = (int)lroundf(base * g->scale);
    return px < 6 ? 6 : px > 200 ? 200 : px;
}

static void close_fonts(Gfx *g)
{
    RenFont **fs[4] = {&g->ui, &g->small, &g->mono, &g->title};
    for (int i = 0; i < 4; i++) {
        if (*fs[i])
            ren_font_close(*fs[i]);
        *fs[i] = NULL;
    }
}

int gfx_fonts(Gfx *g, float scale, TfErr *err)
{
    if (g->ui && fabsf(scale - g->scale) < 1e-3f)
        return 0;
    Gfx old = *g;
    g->scale = scale;
    RenFont *ui = ren_font_open(g->r, REN_SANS, gfx_px(g, 15), err);
    RenFont *small = ui ? ren_font_open(g->r, REN_SANS, gfx_px(g, 12), err) : NULL;
    RenFont *mono = small ? ren_font_open(g->r, REN_MONO, gfx_px(g, 13), err) : NULL;
    RenFont *title = mono ? ren_font_open(g->r, REN_SANS, gfx_px(g, 20), err) : NULL;
    if (!title) {
        if (ui) ren_font_close(ui);
        if (small) ren_font_close(small);
        if (mono) ren_font_close(mono);
        g->scale = old.scale;
        return -1;
    }
    close_fonts(g);
    g->ui = ui;
    g->small = small;
    g->mono = mono;
    g->title = title;
    return 0;
}

int gfx_init(Gfx *g, Ren *r, TfErr *err)
{
    memset(g, 0, sizeof *g);
    g->r = r;
    for (int i = 0; i < CMAP_COUNT; i++)
        cmap_lut_build(&g->lut[i], (CmapId)i);
    return gfx_fonts(g, 1.0f, err);
}

void gfx_free(Gfx *g)
{
    for (int i = 0; i < HEAT_CACHE; i++)
        if (g->heat[i].img)
            ren_image_free(g->heat[i].img);
    close_fonts(g);
    memset(g, 0, sizeof *g);
}

uint64_t heat_key(StageId st, int layer, int head, int b, int cmap, int variant)
{
    return ((uint64_t)st << 40) ^ ((uint64_t)(layer & 0xff) << 32) ^
           ((uint64_t)((head + 1) & 0xff) << 24) ^ ((uint64_t)(b & 0xf) << 20) ^
           ((uint64_t)(cmap & 0xf) << 16) ^ (uint64_t)(variant & 0xffff);
}

/* The entry for (version, key, w, h, lo, hi) of one kind (image or layer),
 * or the least recently used one remade for it (*fresh = 1). */
static RenImage *cache_get(Gfx *g, uint64_t version, uint64_t key, int w, int h, float lo,
                           float hi, int layer, int *fresh)
{
    g->use_clock++;
    HeatEntry *victim = &g->heat[0];
    for (int i = 0; i < HEAT_CACHE; i++) {
        HeatEntry *e = &g->heat[i];
        if (e->img && e->layer == layer && e->version == version && e->key == key && e->w == w &&
            e->h == h && e->lo == lo && e->hi == hi) {
            e->last_use = g->use_clock;
            *fresh = 0;
            return e->img;
        }
        if (!e->img || (victim->img && e->last_use < victim->last_use))
            victim = e;
    }
    /* a layer replaces the last picture of its kind (the key's top byte):
     * a view's layer changes with every publication or edit, and keeping
     * the old ones filled the cache with frames of a few megabytes each */
    for (int i = 0; layer && i < HEAT_CACHE; i++)
        if (g->heat[i].img && g->heat[i].layer && g->heat[i].key >> 56 == key >> 56) {
            victim = &g->heat[i];
            break;
        }
    if (victim->img && (victim->w != w || victim->h != h || victim->layer != layer)) {
        ren_image_free(victim->img);
        victim->img = NULL;
    }
    if (!victim->img)
        victim->img = layer ? ren_layer_new(g->r, w, h) : ren_image_new(g->r, w, h);
    if (!victim->img)
        return NULL;
    victim->version = version;
    victim->key = key;
    victim->w = w;
    victim->h = h;
    victim->lo = lo;
    victim->hi = hi;
    victim->layer = layer;
    victim->last_use = g->use_clock;
    *fresh = 1;
    return victim->img;
}

RenImage *gfx_image(Gfx *g, uint64_t version, uint64_t key, int w, int h, float lo,
                    float hi, int *fresh)
{
    return cache_get(g, version, key, w, h, lo, hi, 0, fresh);
}

RenImage *gfx_layer(Gfx *g, uint64_t version, uint64_t key, int w, int h, int *fresh)
{
    if (!ren_has_layers(g->r))
        return NULL;
    return cache_get(g, version, key, w, h, 0, 0, 1, fresh);
}

int gfx_layer_begin(Gfx *g, GfxLayer *l, uint64_t version, uint64_t key, Rect at, Color clear)
{
    int fresh = 1;
    *l = (GfxLayer){gfx_layer(g, version, key, at.w, at.h, &fresh), at, 0};
    if (l->img && fresh && ren_layer_begin(g->r, l->img, at, clear)) {
        gfx_image_forget(g, l->img);
        l->img = NULL;
    }
    l->drawing = l->img && fresh;
    return !l->img || fresh;
}

void gfx_layer_end(Gfx *g, GfxLayer *l)
{
    if (l->drawing)
        ren_layer_end(g->r);
    if (l->img)
        ren_image_draw(g->r, l->img, (Rect){0, 0, 0, 0}, l->at);
    l->drawing = 0;
}

uint64_t gfx_key(unsigned tag, const uint64_t *words, int n)
{
    uint64_t h = tf_fnv_bytes(TF_FNV_SEED, words, (size_t)n * sizeof *words);
    return (uint64_t)(tag & 0xff) << 56 | (h & 0x00ffffffffffffffull);
}

void gfx_image_forget(Gfx *g, RenImage *img)
{
    for (int i = 0; i < HEAT_CACHE; i++)
        if (g->heat[i].img == img) {
            g->heat[i].version = g->heat[i].key = 0;
            g->heat[i].w = g->heat[i].h = 0;
            g->heat[i].last_use = 0;
        }
}

/* Coverage of a 1 px antialiased line at distance d from a pixel centre,
 * as ren_line's software path quantises it (64 levels, round(cover * 63)),
 * turned into the alpha it draws with. */
static uint32_t hatch_alpha(float d, Color c)
{
    float cover = 1.0f - d;
    int lv = cover <= 0 ? 0 : (int)((cover > 1 ? 1 : cover) * 63 + 0.5f);
    return (uint32_t)((c.a * lv + 31) / 63);
}

/* The pixels of the lines gfx_hatch_lines draws: "/" lines where
 * x + y = k step, "\" lines where x - y + h = k step (pixel centres at
 * +0.5, relative to the cell's corner), for k step < w + h. */
static void hatch_pixels(uint32_t *px, int w, int h, int dir, int step, Color c)
{
    uint32_t rgb = (uint32_t)c.r << 24 | (uint32_t)c.g << 16 | (uint32_t)c.b << 8;
    const float INV_SQRT2 = 0.70710678f;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int s = dir > 0 ? x + y + 1 : x - y + h; /* 2 x the centre's offset along the normal */
            float best = 1e9f;
            for (int k = s / step; k <= s / step + 1; k++) /* the two nearest lines */
                if (k * step < w + h) {
                    float d = fabsf((float)(s - k * step)) * INV_SQRT2;
                    best = d < best ? d : best;
                }
            px[(size_t)y * w + x] = rgb | hatch_alpha(best, c);
        }
}

void gfx_hatch_lines(Ren *r, Rect rc, int dir, int step, Color c)
{
    ren_clip_push(r, rc);
    for (int d = -rc.h; d < rc.w; d += step) {
        float x0 = (float)(rc.x + d), x1 = (float)(rc.x + d + rc.h);
        if (dir > 0)
            ren_line(r, x0, (float)(rc.y + rc.h), x1, (float)rc.y, 1.0f, c);
        else
            ren_line(r, x0, (float)rc.y, x1, (float)(rc.y + rc.h), 1.0f, c);
    }
    ren_clip_pop(r);
}

void gfx_hatch(Gfx *g, Ren *r, Rect rc, int dir, int step, Color c)
{
    if (rc.w < 1 || rc.h < 1 || step < 2)
        return;
    if (ren_is_vector(r)) { /* a figure keeps its lines */
        gfx_hatch_lines(r, rc, dir, step, c);
        return;
    }
    uint64_t key = (uint64_t)0x4A << 56 | (uint64_t)(dir > 0) << 48 | (uint64_t)(step & 0xffff) << 32 |
                   (uint32_t)c.r << 24 | (uint32_t)c.g << 16 | (uint32_t)c.b << 8 | c.a;
    int fresh;
    RenImage *img = gfx_image(g, 0, key, rc.w, rc.h, 0, 0, &fresh);
    uint32_t *px = img && fresh ? malloc((size_t)rc.w * rc.h * sizeof *px) : NULL;
    if (img && fresh && !px) {
        gfx_image_forget(g, img);
        img = NULL;
    }
    if (!img) {
        gfx_hatch_lines(r, rc, dir, step, c);
        return;
    }
    if (px) {
        hatch_pixels(px, rc.w, rc.h, dir, step, c);
        ren_image_update(img, px);
        free(px);
    }
    ren_image_draw(r, img, (Rect){0, 0, 0, 0}, rc);
}

RenImage *heat_image(Gfx *g, uint64_t version, uint64_t key, const TfView *v,
                     float lo, float hi, CmapId cmap, uint32_t masked_rgba)
{
    int w = v->cols, h = v->rows, fresh;
    RenImage *img = gfx_image(g, version, key, w, h, lo, hi, &fresh);
    if (!img || !fresh)
        return img;
    uint32_t *px = malloc((size_t)w * h * sizeof *px);
    if (!px)
        return NULL;
    const CmapLut *lut = &g->lut[cmap];
    for (int r = 0; r < h; r++) {
        uint32_t *row = px + (size_t)r * w;
        const float *src = v->data ? v->data + (size_t)r * v->stride : NULL;
        if (src)
            cmap_lut_map(lut, src, (size_t)w, lo, hi, row);
        else
            for (int c = 0; c < w; c++)
                row[c] = cmap_lut_get(lut, 0.5f);
        for (int c = 0; src && c < w; c++)
            if (isinf(src[c]) && src[c] < 0)
                row[c] = masked_rgba;
    }
    ren_image_update(img, px);
    free(px);
    return img;
}
