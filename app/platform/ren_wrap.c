/* ren_wrap.c - breaking text into lines at most a width wide (see
 * ren_text_wrap in ren.h for the rules): the break opportunities of the
 * Unicode line breaking algorithm (UAX #14, through libunibreak): Latin at
 * spaces and after a hyphen, CJK between any two characters, never before
 * closing nor after opening punctuation, numbers and words kept whole. */
#include "ren.h"
#include "ren_internal.h"

#include <linebreak.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Closing punctuation: a word cut because it is wider than the line does
 * not leave one of these to start the next line. */
static int no_break_before(uint32_t c)
{
    static const uint32_t L[] = {
        '!', '%', ')', ',', '.', ':', ';', '?', ']', '}',
        0x3001, 0x3002, 0xFF0C, 0xFF0E, 0xFF1A, 0xFF1B, 0xFF1F, 0xFF01,
        0xFF09, 0xFF3D, 0xFF5D, 0x300D, 0x300F, 0x3011, 0x300B, 0x3009,
        0x3015, 0x3017, 0x201D, 0x2019, 0x2026, 0xFF05, 0x30FC};
    for (size_t i = 0; i < sizeof L / sizeof *L; i++)
        if (L[i] == c)
            return 1;
    return 0;
}

static pthread_once_t lb_once = PTHREAD_ONCE_INIT;

/* The break opportunities of s[0 .. n) by UAX #14 (libunibreak): brk[i]
 * tells whether a line may end after byte i. The language is left unset so
 * that ambiguous-width symbols (√ × · ∞ ≤) stay glued to the formula around
 * them rather than breaking like ideographs. */
static void find_breaks(const char *s, int n, char *brk)
{
    pthread_once(&lb_once, init_linebreak);
    set_linebreaks_utf8((const utf8_t *)s, (size_t)n, NULL, brk);
}

/* A unit: the bytes from p to the next break opportunity, its spaces
 * included; *content_end is where its last non-space code point ends.
 * brk is indexed from the paragraph's first byte p0. */
static int unit_end(const char *s, const char *brk, int p0, int p, int end, int *content_end)
{
    uint32_t b;
    int q = p, ce = p;
    while (q < end) {
        int k = ren_cp_at(s, q, end, &b);
        if (!ren_is_space(b))
            ce = q + k;
        q += k;
        if (q < end && brk[q - 1 - p0] == LINEBREAK_ALLOWBREAK)
            break;
    }
    *content_end = ce;
    return q;
}

/* A unit ending at the first space run after p (and its spaces). */
static int space_unit_end(const char *s, int p, int end, int *content_end)
{
    uint32_t b;
    int q = p, ce = p, seen_space = 0;
    while (q < end) {
        int k = ren_cp_at(s, q, end, &b);
        if (ren_is_space(b))
            seen_space = 1;
        else if (seen_space)
            break;
        else
            ce = q + k;
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
    int first = p + ren_cp_at(s, p, end, &cp), q = first;
    while (q < end) {
        int k = ren_cp_at(s, q, end, &cp);
        if (ren_measure(f, s + p, q + k - p) > width)
            break;
        q += k;
    }
    while (q > first && q < end && (ren_cp_at(s, q, end, &cp), no_break_before(cp))) {
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
    return ren_measure(f, s + start, end - start) <= width;
}

/* Lines of one paragraph s[p .. end) (no '\n' inside). */
static int wrap_para(RenFont *f, const char *s, int p, int end, int width,
                     RenLine *out, int max, int count)
{
    if (p == end)
        return emit(out, max, count, p, 0, 0);
    char small[1024], *brk = small;
    int p0 = p, n = end - p;
    if (n > (int)sizeof small && !(brk = malloc((size_t)n)))
        brk = NULL;
    if (brk) /* else (no memory for a long paragraph) at spaces only */
        find_breaks(s + p0, n, brk);
    while (p < end) {
        int start = p, line_end = p, w = 0, units = 0;
        while (p < end) {
            int ce, ue = brk ? unit_end(s, brk, p0, p, end, &ce) : space_unit_end(s, p, end, &ce);
            int cw = ren_measure_unit(f, s + p, ce - p);
            if (units && !line_fits(f, s, start, ce, w + cw, units, width))
                break;
            if (!units && cw > width) { /* a word wider than the line */
                line_end = p = fit_prefix(f, s, p, ce, width);
                break;
            }
            line_end = ce;
            w += cw + ren_measure_unit(f, s + ce, ue - ce);
            p = ue;
            units++;
        }
        count = emit(out, max, count, start, line_end - start,
                     ren_measure(f, s + start, line_end - start));
    }
    if (brk != small)
        free(brk);
    return count;
}

static int wrap_text(RenFont *f, const char *utf8, int n, int width, RenLine *lines, int max_lines)
{
    int count = 0, p = 0;
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

/* ---- the cache of wrapped texts ----
 * Keyed by the bytes and the width (the font is the cache's own); the
 * least recently used entry makes room. A text of more lines than an
 * entry keeps is wrapped again when more of them are asked for. */

void ren_wrap_clear(WrapCache *c)
{
    for (int i = 0; i < REN_WRAP_ENTRIES; i++) {
        free(c->e[i].text);
        c->e[i].text = NULL;
    }
}

void ren_wrap_stats(RenFont *f, int *entries, long long *hits)
{
    int n = 0;
    for (int i = 0; f && i < REN_WRAP_ENTRIES; i++)
        n += f->wrap.e[i].text != NULL;
    if (entries)
        *entries = n;
    if (hits)
        *hits = f ? f->wrap.hits : 0;
}

static WrapEntry *wrap_find(WrapCache *c, const char *s, int n, int width, uint32_t h)
{
    for (int i = 0; i < REN_WRAP_ENTRIES; i++) {
        WrapEntry *e = &c->e[i];
        if (e->text && e->hash == h && e->len == n && e->width == width &&
            memcmp(e->text, s, (size_t)n) == 0)
            return e;
    }
    return NULL;
}

static void wrap_keep(WrapCache *c, const char *s, int n, int width, uint32_t h, const RenLine *lines,
                      int count)
{
    WrapEntry *e = &c->e[0];
    for (int i = 1; i < REN_WRAP_ENTRIES && e->text; i++)
        if (!c->e[i].text || c->e[i].used < e->used)
            e = &c->e[i];
    char *copy = malloc((size_t)n + 1);
    if (!copy)
        return;
    free(e->text);
    memcpy(copy, s, (size_t)n);
    copy[n] = 0;
    *e = (WrapEntry){copy, n, width, h, count, mini(count, WRAP_LINES), ++c->clock, {{0, 0, 0}}};
    memcpy(e->lines, lines, (size_t)e->n * sizeof *lines);
}

int ren_text_wrap(RenFont *f, const char *utf8, int width, RenLine *lines,
                  int max_lines)
{
    if (!f || !utf8)
        return 0;
    int n = (int)strlen(utf8);
    width = maxi(width, 1);
    max_lines = lines ? max_lines : 0;
    uint32_t h = ren_hash_bytes(utf8, n, (uint32_t)width);
    WrapEntry *e = wrap_find(&f->wrap, utf8, n, width, h);
    if (e && (e->n == e->count || max_lines <= e->n)) {
        e->used = ++f->wrap.clock;
        f->wrap.hits++;
        if (max_lines > 0)
            memcpy(lines, e->lines, (size_t)mini(max_lines, e->n) * sizeof *lines);
        return e->count;
    }
    if (e) /* more lines asked for than an entry keeps */
        return wrap_text(f, utf8, n, width, lines, max_lines);
    RenLine keep[WRAP_LINES];
    int count = wrap_text(f, utf8, n, width, keep, WRAP_LINES);
    wrap_keep(&f->wrap, utf8, n, width, h, keep, count);
    if (count > WRAP_LINES && max_lines > WRAP_LINES)
        return wrap_text(f, utf8, n, width, lines, max_lines);
    if (max_lines > 0)
        memcpy(lines, keep, (size_t)mini(max_lines, mini(count, WRAP_LINES)) * sizeof *lines);
    return count;
}
