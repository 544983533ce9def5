/* font_find.c - finding the font files with fontconfig (ren_font_find, ren.h).
 *
 * Stepformer draws Latin text with DejaVu Sans / DejaVu Sans Mono and
 * Chinese with a CJK font (WenQuanYi Micro Hei, Noto Sans CJK, ...).
 * Fontconfig ranks the installed fonts against a wanted family list; we
 * take the best one that is scalable TrueType/CFF, upright, of regular
 * weight, monospaced when asked, and covers the characters we must show.
 * If none does, the error names the Debian package that provides one.
 * (The browser build has no fontconfig: app/platform/web/font_find_web.c.) */
#include "ren.h"
#include "ren_internal.h"

#include <fontconfig/fontconfig.h>
#include <stdio.h>
#include <string.h>

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
