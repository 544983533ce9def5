/* font.c - fonts: reading the files a Ren uses (mapped; font_find.c finds
 * them), opening a font's faces with their fallbacks through SDL2_ttf,
 * closing fonts; ren_text.c measures and draws with them. */
#include "ren.h"
#include "ren_internal.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

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
