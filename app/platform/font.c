/* font.c - fonts: finding their files with fontconfig, reading the files
 * a Ren uses (mapped), opening a font's faces with their fallbacks through
 * SDL2_ttf, closing fonts; ren_text.c measures and draws with them.
 *
 * Stepformer draws Latin text with DejaVu Sans / DejaVu Sans Mono and
 * Chinese with a CJK font (WenQuanYi Micro Hei, Noto Sans CJK, ...).
 * Fontconfig ranks the installed fonts against a wanted family list; we
 * take the best one that is scalable TrueType/CFF, upright, of regular
 * weight, monospaced when asked, and covers the characters we must show.
 * If none does, the error names the Debian package that provides one. */
#include "ren.h"
#include "ren_internal.h"

#include <fcntl.h>
#include <fontconfig/fontconfig.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------------------------------------------------- finding files */

typedef struct FontWant {
    const char *what;          /* for messages */
    const char *families[5];   /* preferred, best first; NULL-terminated */
    const char *lang;          /* or NULL */
    const uint32_t *need;      /* code points the font must have */
    int n_need;
    int mono;
    const char *package;       /* Debian package that provides one */
} FontWant;

static const uint32_t NEED_LATIN[] = {'A', 'z', '0', '(', 0xB7};
static const uint32_t NEED_CJK[] = {0x6211, 0x4E2D, 0x56FD, 0x6CE8,
                                    0xFF0C, 0x3002};

static const FontWant WANTS[REN_FACE_COUNT] = {
    [REN_SANS] = {"sans-serif font", {"DejaVu Sans", "sans-serif"}, NULL,
                  NEED_LATIN, 5, 0, "fonts-dejavu-core"},
    [REN_MONO] = {"monospace font", {"DejaVu Sans Mono", "monospace"}, NULL,
                  NEED_LATIN, 5, 1, "fonts-dejavu-core"},
    [REN_CJK] = {"Chinese font",
                 {"WenQuanYi Micro Hei", "Noto Sans CJK SC",
                  "Source Han Sans SC", "Droid Sans Fallback"},
                 "zh-cn", NEED_CJK, 6, 0, "fonts-wqy-microhei"},
};

static FcPattern *want_pattern(FcConfig *cfg, const FontWant *w)
{
    FcPattern *p = FcPatternCreate();
    FcCharSet *cs = FcCharSetCreate();
    if (!p || !cs)
        goto fail;
    for (int i = 0; i < 5 && w->families[i]; i++)
        FcPatternAddString(p, FC_FAMILY, (const FcChar8 *)w->families[i]);
    if (w->lang)
        FcPatternAddString(p, FC_LANG, (const FcChar8 *)w->lang);
    if (w->mono)
        FcPatternAddInteger(p, FC_SPACING, FC_MONO);
    FcPatternAddBool(p, FC_SCALABLE, FcTrue);
    FcPatternAddInteger(p, FC_WEIGHT, FC_WEIGHT_REGULAR);
    FcPatternAddInteger(p, FC_SLANT, FC_SLANT_ROMAN);
    for (int i = 0; i < w->n_need; i++)
        FcCharSetAddChar(cs, w->need[i]);
    FcPatternAddCharSet(p, FC_CHARSET, cs); /* copies cs */
    FcCharSetDestroy(cs);
    cs = NULL;
    if (!FcConfigSubstitute(cfg, p, FcMatchPattern))
        goto fail;
    FcDefaultSubstitute(p);
    return p;
fail:
    if (cs)
        FcCharSetDestroy(cs);
    if (p)
        FcPatternDestroy(p);
    return NULL;
}

static int covers(FcPattern *font, const FontWant *w)
{
    FcCharSet *cs;
    if (FcPatternGetCharSet(font, FC_CHARSET, 0, &cs) != FcResultMatch)
        return 0;
    for (int i = 0; i < w->n_need; i++)
        if (!FcCharSetHasChar(cs, w->need[i]))
            return 0;
    return 1;
}

/* Scalable TrueType/CFF, upright, regular weight, monospaced if wanted. */
static int usable(FcPattern *font, const FontWant *w)
{
    FcBool scalable = FcFalse;
    FcChar8 *format = NULL;
    int slant = FC_SLANT_ROMAN, weight = FC_WEIGHT_REGULAR, spacing = 0;
    FcPatternGetBool(font, FC_SCALABLE, 0, &scalable);
    FcPatternGetString(font, FC_FONTFORMAT, 0, &format);
    FcPatternGetInteger(font, FC_SLANT, 0, &slant);
    FcPatternGetInteger(font, FC_WEIGHT, 0, &weight);
    FcPatternGetInteger(font, FC_SPACING, 0, &spacing);
    if (!scalable || !format)
        return 0;
    if (strcmp((const char *)format, "TrueType") != 0 &&
        strcmp((const char *)format, "CFF") != 0)
        return 0;
    if (slant != FC_SLANT_ROMAN)
        return 0;
    if (weight < FC_WEIGHT_BOOK || weight > FC_WEIGHT_MEDIUM)
        return 0;
    if (w->mono && spacing < FC_MONO)
        return 0;
    return covers(font, w);
}

static int copy_path(FcPattern *font, char *path, size_t cap, int *index,
                     const FontWant *w, TfErr *err)
{
    FcChar8 *file = NULL;
    int idx = 0;
    if (FcPatternGetString(font, FC_FILE, 0, &file) != FcResultMatch)
        return tf_fail(err, "fontconfig gave a %s without a file", w->what);
    FcPatternGetInteger(font, FC_INDEX, 0, &idx);
    size_t n = strlen((const char *)file);
    if (n + 1 > cap)
        return tf_fail(err, "font path too long: %s", file);
    memcpy(path, file, n + 1);
    if (index)
        *index = idx;
    return 0;
}

int ren_font_find(RenFace face, char *path, size_t cap, int *index,
                  TfErr *err)
{
    if ((unsigned)face >= REN_FACE_COUNT)
        return tf_fail(err, "ren_font_find: no face %d", (int)face);
    const FontWant *w = &WANTS[face];
    /* A private configuration (about 10 ms to load from fontconfig's
     * caches) rather than the process-wide one, which lives until FcFini. */
    FcConfig *cfg = FcInitLoadConfigAndFonts();
    if (!cfg)
        return tf_fail(err, "fontconfig cannot load its configuration");
    FcPattern *pat = want_pattern(cfg, w);
    if (!pat) {
        FcConfigDestroy(cfg);
        return tf_fail(err, "fontconfig: out of memory");
    }
    FcResult res;
    FcFontSet *set = FcFontSort(cfg, pat, FcTrue, NULL, &res);
    FcPattern *best = NULL;
    for (int i = 0; set && i < set->nfont && !best; i++)
        if (usable(set->fonts[i], w))
            best = set->fonts[i];
    int rc = -1;
    if (best)
        rc = copy_path(best, path, cap, index, w, err);
    else
        tf_fail(err,
                "no %s found (want %s); install the Debian package %s "
                "(apt-get install %s)",
                w->what, w->families[0], w->package, w->package);
    if (set)
        FcFontSetDestroy(set);
    FcPatternDestroy(pat);
    FcConfigDestroy(cfg);
    return rc;
}

/* ---------------------------------------------------------- opening fonts */

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

void ren_font_files_free(Ren *r)
{
    for (int i = 0; i < REN_FACE_COUNT; i++)
        if (r->files[i].map)
            munmap(r->files[i].map, r->files[i].size);
}

static TTF_Font *open_face(const FontFile *ff, int px)
{
    if (!ff->map)
        return TTF_OpenFontIndex(ff->path, px, ff->index);
    SDL_RWops *rw = SDL_RWFromConstMem(ff->map, (int)ff->size);
    return rw ? TTF_OpenFontIndexRW(rw, 1, px, ff->index) : NULL;
}

/* A missing Chinese font is said once per Ren (through the log hook,
 * unless ren_fonts_check already told the caller); Latin text still draws. */
static void tell_no_cjk(Ren *r)
{
    if (r->cjk_told)
        return;
    r->cjk_told = 1;
    tf_log(TF_LOG_WARN, "Chinese text cannot be drawn: %s", r->files[REN_CJK].msg);
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
    f->which[f->n_faces] = which;
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
    f->px = px;
    ren_cache_init(&f->cache);
    for (int i = 0; i < MAX_FACES && chain[face][i] >= 0; i++) {
        RenFace which = (RenFace)chain[face][i];
        /* without a Chinese font, Latin text still draws */
        if (which == REN_CJK && font_file(r, REN_CJK, NULL) == NULL) {
            tell_no_cjk(r);
            continue;
        }
        if (font_add_face(f, which, px, err) < 0) {
            for (int k = 0; k < f->n_faces; k++)
                TTF_CloseFont(f->face[k]);
            free(f);
            return NULL;
        }
    }
    f->base = f->ascent[0];
    f->height = maxi(TTF_FontHeight(f->face[0]), TTF_FontLineSkip(f->face[0]));
    ren_list_add(&r->fonts, &f->link);
    return f;
}

int ren_fonts_check(Ren *r, char *warning, size_t cap, TfErr *err)
{
    if (warning && cap)
        warning[0] = 0;
    if (!r)
        return tf_fail(err, "ren_fonts_check: no renderer");
    if (!font_file(r, REN_SANS, err) || !font_file(r, REN_MONO, err))
        return -1;
    if (!font_file(r, REN_CJK, NULL) && !r->cjk_told) {
        r->cjk_told = 1;
        if (warning && cap)
            snprintf(warning, cap, "Chinese text cannot be drawn: %s",
                     r->files[REN_CJK].msg);
    }
    return 0;
}

void ren_font_close(RenFont *f)
{
    if (!f)
        return;
    ren_list_remove(&f->ren->fonts, &f->link);
    ren_cache_clear(&f->cache);
    ren_wrap_clear(&f->wrap);
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
