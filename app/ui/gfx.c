/* gfx.c - fonts at the current text size and the heatmap texture cache. */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

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

RenImage *gfx_image(Gfx *g, uint64_t version, uint64_t key, int w, int h, float lo,
                    float hi, int *fresh)
{
    g->use_clock++;
    HeatEntry *victim = &g->heat[0];
    for (int i = 0; i < HEAT_CACHE; i++) {
        HeatEntry *e = &g->heat[i];
        if (e->img && e->version == version && e->key == key && e->w == w && e->h == h &&
            e->lo == lo && e->hi == hi) {
            e->last_use = g->use_clock;
            *fresh = 0;
            return e->img;
        }
        if (!e->img || (victim->img && e->last_use < victim->last_use))
            victim = e;
    }
    if (victim->img && (victim->w != w || victim->h != h)) {
        ren_image_free(victim->img);
        victim->img = NULL;
    }
    if (!victim->img)
        victim->img = ren_image_new(g->r, w, h);
    if (!victim->img)
        return NULL;
    victim->version = version;
    victim->key = key;
    victim->w = w;
    victim->h = h;
    victim->lo = lo;
    victim->hi = hi;
    victim->last_use = g->use_clock;
    *fresh = 1;
    return victim->img;
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
