/* ren_wrap.c - breaking text into lines at most a width wide (see
 * ren_text_wrap in ren.h for the rules): Latin at spaces and after a hyphen
 * inside a word, CJK between any two characters, with the closing and
 * opening punctuation rules of Chinese typesetting. */
#include "ren.h"
#include "ren_internal.h"

#include <string.h>

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
        int k = ren_cp_at(s, q, end, &b);
        if (q > p && !no_break_before(b)) {
            if (ren_is_space(a) && !ren_is_space(b))
                break;
            if (!ren_is_space(a) && !ren_is_space(b) && break_between(pp, a, b))
                break;
        }
        if (!ren_is_space(b))
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
    while (p < end) {
        int start = p, line_end = p, w = 0, units = 0;
        while (p < end) {
            int ce, ue = unit_end(s, p, end, &ce);
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
