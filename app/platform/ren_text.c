/* ren_text.c - text: code points, runs of one face, measuring, drawing.
 *
 * A string is cut into runs of code points that one face has (primary face
 * first, then its fallbacks), each run is rendered white by
 * TTF_RenderUTF8_Blended and blitted onto one line surface at the primary
 * face's baseline, and the line becomes a texture that is tinted by colour
 * and alpha modulation at draw time. Lines live in the font's cache
 * (ren_cache.c), which holds the width even before a texture is made, so
 * measuring labels every frame is a lookup too. ren_wrap.c breaks text into
 * lines with the measuring functions here; font.c opens the fonts. */
#include "ren.h"
#include "ren_internal.h"
#include "utf8.h"

#include <string.h>

/* ---------------------------------------------------------- code points */

/* The code point at s[p .. end) (utf8_next, the one decoder): its byte
 * length, or 0 if the bytes are malformed. */
static int cp_len(const char *s, int p, int end, uint32_t *cp)
{
    int k = utf8_next(s + p, (size_t)(end - p), cp);
    return k > 0 ? k : 0;
}

int ren_cp_at(const char *s, int p, int end, uint32_t *cp)
{
    int k = cp_len(s, p, end, cp);
    if (k)
        return k;
    *cp = 0xFFFD; /* malformed bytes read as one U+FFFD */
    return 1;
}

static int is_control(uint32_t c)
{
    return c < 0x20 || (c >= 0x7F && c < 0xA0);
}

int ren_is_space(uint32_t c)
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
    return (ren_is_space(cp) || is_mark(cp)) &&
           TTF_GlyphIsProvided32(f->face[face], cp);
}

/* The next run of s[*pos .. n) drawn with one face, at most TEXT_SCRATCH-1
 * bytes; control characters and malformed bytes are skipped. 0 at the end. */
static int next_run(RenFont *f, const char *s, int n, int *pos, Run *run)
{
    int p = *pos, k = 0;
    uint32_t cp = 0;
    for (; p < n; p += k ? k : 1) {
        k = cp_len(s, p, n, &cp);
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
        k = cp_len(s, p, n, &cp);
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

int ren_measure(RenFont *f, const char *s, int n)
{
    int pos = 0, total = 0, w, h;
    Run run;
    while (next_run(f, s, n, &pos, &run))
        if (TTF_SizeUTF8(f->face[run.face], run_text(f, s, &run), &w, &h) == 0)
            total += w;
    return total;
}

/* Like ren_measure(), but one code point (each CJK unit when wrapping, each
 * space) is its glyph's advance, without shaping. */
int ren_measure_unit(RenFont *f, const char *s, int n)
{
    uint32_t cp;
    int adv;
    if (n <= 0 || cp_len(s, 0, n, &cp) != n ||
        is_control(cp))
        return ren_measure(f, s, n);
    if (TTF_GlyphMetrics32(f->face[face_for(f, cp)], cp, NULL, NULL, NULL, NULL,
                           &adv) < 0)
        return ren_measure(f, s, n);
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
        k = ren_cp_at(s, p, end, &cp);
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

/* ------------------------------------------------------------ textures */

/* The rectangle of line's pixels with any alpha (w 0: none). Blending a
 * pixel of alpha 0 leaves the frame as it was, so a texture of just these
 * draws the same picture; a line box is mostly empty above and below the
 * letters, and every pixel of a line texture costs a blend each frame. */
static SDL_Rect inked(const SDL_Surface *line)
{
    int x0 = line->w, x1 = -1, y0 = line->h, y1 = -1;
    for (int y = 0; y < line->h; y++) {
        const Uint32 *row = (const Uint32 *)((const Uint8 *)line->pixels + (size_t)y * line->pitch);
        for (int x = 0; x < line->w; x++)
            if (row[x] & line->format->Amask) {
                x0 = mini(x0, x), x1 = maxi(x1, x);
                y0 = mini(y0, y), y1 = maxi(y1, y);
            }
    }
    return x1 < 0 ? (SDL_Rect){0, 0, 0, 0} : (SDL_Rect){x0, y0, x1 - x0 + 1, y1 - y0 + 1};
}

/* Render e's line into a texture of its inked pixels, then evict old
 * textures over budget. */
static void entry_make_texture(RenFont *f, TextEntry *e)
{
    LineBox box = line_box(f, e->key, e->len);
    int tw = mini(box.w, f->ren->max_tex);
    if (tw <= 0)
        return;
    SDL_Surface *line = render_line(f, e->key, e->len, box, tw);
    if (!line)
        return;
    SDL_Rect ink = inked(line);
    if (ink.w == 0) { /* spaces only: a 1 x 1 transparent texture */
        ink = (SDL_Rect){0, 0, 1, 1};
    }
    e->tex = SDL_CreateTexture(f->ren->sdl, SDL_PIXELFORMAT_ARGB8888, SDL_TEXTUREACCESS_STATIC, ink.w, ink.h);
    if (e->tex)
        SDL_UpdateTexture(e->tex, NULL, (const Uint8 *)line->pixels + (size_t)ink.y * line->pitch + (size_t)ink.x * 4,
                          line->pitch);
    SDL_FreeSurface(line);
    if (!e->tex)
        return;
    SDL_SetTextureBlendMode(e->tex, SDL_BLENDMODE_BLEND);
    SDL_SetTextureScaleMode(e->tex, SDL_ScaleModeNearest);
    e->tex_w = ink.w;
    e->tex_h = ink.h;
    e->off_x = ink.x;
    e->off_y = box.top + ink.y;
    e->bytes = (size_t)ink.w * (size_t)ink.h * 4;
    ren_cache_charge(&f->cache, e);
}

/* The cache entry for s[0 .. n), measured; NULL only when out of memory. */
static TextEntry *text_entry(RenFont *f, const char *s, int n)
{
    int fresh = 0;
    TextEntry *e = ren_cache_lookup(&f->cache, s, n, &fresh);
    if (e && fresh)
        e->w = ren_measure(f, s, n);
    return e;
}

/* ------------------------------------------------------------------- text */

/* Vector output: the same runs at the same places as render_line puts
 * them (each run's baseline on the primary face's), drawn by cairo. */
static void vec_text(Ren *r, RenFont *f, const TextEntry *e, int x, int y, Color c)
{
    if (c.a == 0 || !vec_text_visible(r, x, y, e->w, f->height))
        return;
    int pos = 0, w, h;
    double cx = x;
    Run run;
    while (next_run(f, e->key, e->len, &pos, &run)) {
        const char *s = run_text(f, e->key, &run);
        if (TTF_SizeUTF8(f->face[run.face], s, &w, &h) < 0)
            continue;
        vec_text_run(r, f->which[run.face], f->px, s, cx, y + f->base, c);
        cx += w;
    }
}

/* The width of utf8[0 .. len) (len < 0: up to its NUL), with its cache
 * entry in *e (NULL for empty text or when memory runs out). */
static int text_lookup(RenFont *f, const char *utf8, int len, TextEntry **e)
{
    *e = NULL;
    if (len < 0)
        len = (int)strlen(utf8);
    if (len == 0)
        return 0;
    *e = text_entry(f, utf8, len);
    return *e ? (*e)->w : ren_measure(f, utf8, len);
}

int ren_text_width_n(RenFont *f, const char *utf8, int len)
{
    TextEntry *e;
    return f && utf8 ? text_lookup(f, utf8, len, &e) : 0;
}

int ren_text_width(RenFont *f, const char *utf8)
{
    return ren_text_width_n(f, utf8, -1);
}

static RenTextHook g_hook;
static void *g_hook_user;
static const char *g_tag = "window";

void ren_text_hook(RenTextHook fn, void *user)
{
    g_hook = fn;
    g_hook_user = user;
}

int ren_text_hooked(void)
{
    return g_hook != NULL;
}

const char *ren_text_tag(const char *tag)
{
    const char *prev = g_tag;
    g_tag = tag ? tag : "window";
    return prev;
}

static void hook_call(const char *utf8, int len, Rect box)
{
    if (g_hook)
        g_hook(g_hook_user, utf8, len < 0 ? (int)strlen(utf8) : len, box, g_tag);
}

/* The raster path of a line drawn in box: 0 where it cannot show (clipped
 * away, transparent, empty: no texture is made for it), else 1 with the
 * hook told and e's texture made and tinted c, ready to copy. */
static int raster_ready(Ren *r, RenFont *f, TextEntry *e, const char *utf8, int len, Rect box, Color c)
{
    Rect on = ren_intersect(box, ren_visible(r));
    if (r->clip_empty || c.a == 0 || e->w == 0 || on.w == 0 || on.h == 0)
        return 0;
    hook_call(utf8, len, box);
    if (!e->tex)
        entry_make_texture(f, e);
    if (!e->tex)
        return 0;
    SDL_SetTextureColorMod(e->tex, c.r, c.g, c.b);
    SDL_SetTextureAlphaMod(e->tex, c.a);
    r->calls++;
    return 1;
}

int ren_text_n(Ren *r, RenFont *f, const char *utf8, int len, int x, int y,
               Color c)
{
    if (!r || !f || !utf8 || f->ren != r)
        return 0;
    TextEntry *e;
    int w = text_lookup(f, utf8, len, &e);
    if (!e)
        return w;
    if (r->vec) {
        hook_call(utf8, len, (Rect){x, y, e->w, f->height});
        vec_text(r, f, e, x, y, c);
        return e->w;
    }
    if (raster_ready(r, f, e, utf8, len, (Rect){x, y, e->w, f->height}, c))
        SDL_RenderCopy(r->sdl, e->tex, NULL,
                       &(SDL_Rect){x + e->off_x, y + e->off_y, e->tex_w, e->tex_h});
    return e->w;
}

int ren_text_up(Ren *r, RenFont *f, const char *utf8, int x, int y, Color c)
{
    if (!r || !f || !utf8 || f->ren != r)
        return 0;
    TextEntry *e;
    int w = text_lookup(f, utf8, -1, &e);
    if (!e)
        return w;
    Rect box = {x, y - e->w, f->height, e->w};
    if (r->vec) {
        if (c.a == 0 || !vec_text_visible(r, box.x, box.y, box.w, box.h))
            return e->w;
        hook_call(utf8, -1, box);
        vec_turn_begin(r, x, y);
        int pos = 0, rw, rh;
        double cx = 0;
        Run run;
        while (next_run(f, e->key, e->len, &pos, &run)) {
            const char *s = run_text(f, e->key, &run);
            if (TTF_SizeUTF8(f->face[run.face], s, &rw, &rh) < 0)
                continue;
            vec_text_run(r, f->which[run.face], f->px, s, cx, f->base, c);
            cx += rw;
        }
        vec_turn_end(r);
        return e->w;
    }
    if (!raster_ready(r, f, e, utf8, -1, box, c))
        return e->w;
    /* the texture where the unturned line would put it, turned about (x, y) */
    SDL_Rect dst = {x + e->off_x, y + e->off_y, e->tex_w, e->tex_h};
    SDL_Point about = {-e->off_x, -e->off_y};
    SDL_RenderCopyEx(r->sdl, e->tex, NULL, &dst, -90.0, &about, SDL_FLIP_NONE);
    return e->w;
}

int ren_text(Ren *r, RenFont *f, const char *utf8, int x, int y, Color c)
{
    return ren_text_n(r, f, utf8, -1, x, y, c);
}
