/* ren_internal.h - what the pieces of the renderer share and nothing else
 * sees: the structs behind the opaque handles of ren.h and the few
 * functions one piece offers another.
 *
 *   ren.c        what every piece reads of a Ren: sizes, the lists of
 *                fonts and images, the visible region (calls no piece)
 *   ren_cairo.c  the vector backend (SVG, PDF); vec_* below
 *   ren_cache.c  the per-font cache of rendered lines
 *   ren_text.c   code points, runs of one face, measuring, drawing text
 *   ren_wrap.c   breaking text into lines
 *   font.c       fonts: finding their files with fontconfig, opening them
 *   ren_lines.c  antialiased lines and polylines, triangles
 *   ren_image.c  images, reading the frame, saving PNGs
 *   ren_frame.c  opening and closing a Ren, frames, the clip stack,
 *                layers, rectangles (above all the others)
 *
 * Each piece calls only pieces above it in this list.
 *
 * Include ren.h first (this header uses its types and does not include it,
 * so that ren.h and this header never include each other). */
#ifndef REN_INTERNAL_H
#define REN_INTERNAL_H

#ifndef REN_H
#error "include ren.h before ren_internal.h"
#endif

#include <SDL.h>
#include <SDL_ttf.h>
#include <limits.h>

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
    WRAP_LINES = 64,      /* lines kept of each */
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
    int off_x, off_y; /* texture's top left relative to the line's (the
                         texture holds the inked pixels only) */
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

/* A text wrapped at a width (ren_text_wrap): the panels wrap the same
 * paragraphs every frame, and measuring them again cost a tenth of one. */
typedef struct WrapEntry {
    char *text;       /* the bytes (NULL: free) */
    int len, width;
    uint32_t hash;
    int count;        /* lines the whole text needs */
    int n;            /* of which kept in lines[] (n < count: ask again) */
    uint64_t used;
    RenLine lines[WRAP_LINES];
} WrapEntry;

typedef struct WrapCache {
    WrapEntry e[REN_WRAP_ENTRIES];
    uint64_t clock;
    long long hits;   /* wraps answered from the cache (ren_wrap_stats) */
} WrapCache;

/* A link in one of a Ren's lists of open fonts and images: the first
 * member of RenFont and RenImage, so a list holds either. */
typedef struct RenLink {
    struct RenLink *next;
} RenLink;

struct RenFont {
    RenLink link;              /* in the Ren's list of open fonts */
    Ren *ren;
    TTF_Font *face[MAX_FACES]; /* primary, then fallbacks */
    RenFace which[MAX_FACES];  /* the font file each face comes from */
    int px;                    /* pixels per em */
    int ascent[MAX_FACES];
    int n_faces;
    int base;                  /* baseline y within a line */
    int height;                /* line height */
    char scratch[TEXT_SCRATCH];
    TextCache cache;
    WrapCache wrap;
};

struct RenImage {
    RenLink link;              /* in the Ren's list of open images */
    Ren *ren;
    SDL_Texture *tex;
    int w, h;
    uint32_t *pixels;          /* w*h words 0xRRGGBBAA, kept for vector output */
    int layer;                 /* a render target (ren_layer_new): no pixels here */
    int argb;                  /* tex is ARGB8888 (opaque pixels), else RGBA8888 */
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
    RenImage *in_layer;  /* the layer being drawn (ren_layer_begin), or NULL */
    int w, h;            /* headless frame size */
    int video_on, ttf_on;
    int max_tex;
    Rect clip[REN_CLIP_DEPTH];
    int clip_n;          /* pushes (may exceed REN_CLIP_DEPTH) */
    int clip_empty;
    RenLink *fonts;      /* open RenFonts */
    RenLink *images;     /* open RenImages */
    FontFile files[REN_FACE_COUNT];
    struct RenVec *vec;  /* open vector document (ren_cairo.c), or NULL */
    int cjk_told;        /* the missing Chinese font was reported */
    int soft;            /* software renderer: lines by pixel coverage */
    int calls;           /* SDL drawing calls since ren_begin (ren_draw_calls) */
    SDL_Vertex vert[POLY_VERTS > TRI_BATCH ? POLY_VERTS : TRI_BATCH];
    int index[POLY_INDICES];
    int aa_n;            /* buffered line pixels and their coverage */
    SDL_Point aa_pt[AA_CAP], aa_sorted[AA_CAP];
    uint8_t aa_level[AA_CAP];
};

static inline int mini(int a, int b) { return a < b ? a : b; }
static inline int maxi(int a, int b) { return a > b ? a : b; }
static inline Rect ren_intersect(Rect a, Rect b)
{
    int x0 = maxi(a.x, b.x), y0 = maxi(a.y, b.y);
    int x1 = mini(a.x + a.w, b.x + b.w), y1 = mini(a.y + a.h, b.y + b.h);
    return (Rect){x0, y0, maxi(0, x1 - x0), maxi(0, y1 - y0)};
}

/* ren.c: the region drawing can reach now (the clip, or the whole frame). */
Rect ren_visible(Ren *r);
/* ren.c: add a font or image to one of a Ren's lists, or take it out. */
void ren_list_add(RenLink **list, RenLink *n);
void ren_list_remove(RenLink **list, RenLink *n);

/* ren_text.c: code points and measuring, for wrapping. */
/* The code point at s[p] (end: one past the last byte); malformed bytes
 * read as one U+FFFD, so the length is never 0. */
int ren_cp_at(const char *s, int p, int end, uint32_t *cp);
int ren_is_space(uint32_t c); /* spaces a line may break after */
/* Width of s[0 .. n) in pixels, uncached. */
int ren_measure(RenFont *f, const char *s, int n);
/* Like ren_measure(), but one code point is its glyph's advance, without
 * shaping (each CJK unit when wrapping, each space). */
int ren_measure_unit(RenFont *f, const char *s, int n);
/* A test hook is set (ren_text_hook): layers are then off, so that every
 * string is drawn, and reported, in every frame. */
int ren_text_hooked(void);
/* font.c: unmap the font files a Ren has read (ren_close). */
void ren_font_files_free(Ren *r);

/* ren_cache.c: the text cache of one font. */
/* FNV-1a (hash.h) of n bytes from a seed (0, or a width): the text and wrap caches' keys. */
uint32_t ren_hash_bytes(const char *s, int n, uint32_t seed);
void ren_cache_init(TextCache *c);
void ren_cache_clear(TextCache *c);
/* The entry for s[0 .. n), marked used; *fresh says it was just added
 * (its width still to measure). NULL only when out of memory. */
TextEntry *ren_cache_lookup(TextCache *c, const char *s, int n, int *fresh);
/* Count e's new texture, then drop the textures of the least recently used
 * other entries until the cache is within TEXT_BUDGET. */
void ren_cache_charge(TextCache *c, TextEntry *e);

/* ren_wrap.c: forget the wrapped texts of a font (ren_font_close). */
void ren_wrap_clear(WrapCache *c);

/* ren_cairo.c: the vector backend, called by the public functions while
 * r->vec is open (arguments already checked, clip already applied). */
typedef struct RenVec RenVec;
void vec_begin(Ren *r, Color clear);
void vec_clip(Ren *r); /* apply r's current clip */
void vec_rect(Ren *r, Rect rc, Color c);
void vec_polyline(Ren *r, const float *xy, int n, float width, Color c);
void vec_triangles(Ren *r, const float *xy, const Color *col, int n_vertices);
int vec_text_visible(Ren *r, int x, int y, int w, int h);
/* One run of one face, NUL-terminated, its baseline starting at (x, baseline). */
void vec_text_run(Ren *r, RenFace which, int px, const char *utf8, double x,
                  double baseline, Color c);
void vec_image(Ren *r, RenImage *im, Rect src, Rect dst);
/* Until vec_turn_end, drawing is turned a quarter anticlockwise about
 * (x, y): what would be drawn at (x + u, y + v) lands at (x + v, y - u). */
void vec_turn_begin(Ren *r, double x, double y);
void vec_turn_end(Ren *r);

#endif
