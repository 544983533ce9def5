/* utf8.h - UTF-8, the only text encoding of the program. */
#ifndef TF_UTF8_H
#define TF_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* UTF-8 helpers. utf8_next decodes one code point at s (len bytes left):
 * returns its byte length and stores it in *cp, or -1 if invalid (overlong,
 * surrogate, beyond U+10FFFF, truncated). utf8_check returns 0 if the whole
 * buffer is valid, else -1 and the offset of the first bad byte. */
int utf8_next(const char *s, size_t len, uint32_t *cp);
int utf8_check(const char *s, size_t len, size_t *bad_off);

#endif
