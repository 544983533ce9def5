/* utf8.c - decoding and checking UTF-8 (see utf8.h). The one decoder of the
 * program: the vocabulary, the renderer's text runs and the input lines all
 * call it. */
#include "utf8.h"

int utf8_next(const char *s, size_t len, uint32_t *cp)
{
    const unsigned char *u = (const unsigned char *)s;
    if (len == 0)
        return -1;
    unsigned c = u[0];
    int n;
    uint32_t v, min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    } else if ((c & 0xE0) == 0xC0) {
        n = 2; v = c & 0x1F; min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        n = 3; v = c & 0x0F; min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
        n = 4; v = c & 0x07; min = 0x10000;
    } else {
        return -1;
    }
    if ((size_t)n > len)
        return -1;
    for (int i = 1; i < n; i++) {
        if ((u[i] & 0xC0) != 0x80)
            return -1;
        v = (v << 6) | (u[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return -1;
    *cp = v;
    return n;
}

int utf8_check(const char *s, size_t len, size_t *bad_off)
{
    size_t i = 0;
    while (i < len) {
        uint32_t cp;
        int n = utf8_next(s + i, len - i, &cp);
        if (n < 0) {
            if (bad_off)
                *bad_off = i;
            return -1;
        }
        i += (size_t)n;
    }
    return 0;
}
