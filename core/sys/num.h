/* num.h - numbers as people write them in specs and files. */
#ifndef STEPFORMER_NUM_H
#define STEPFORMER_NUM_H

#include <stddef.h>

/* s[0..n) as a whole decimal number in [lo, hi]: digits only (no sign,
 * no spaces, at most 9 of them). Returns 0 with *out set, or -1. */
int tf_parse_int(const char *s, size_t n, long lo, long hi, int *out);

/* The shortest text, with at least min_digits significant digits (1..9),
 * that strtof reads back as exactly v (9 digits always do), into buf of cap
 * bytes: 0.9f is "0.9", not "0.899999976". */
void tf_float_text(char *buf, size_t cap, float v, int min_digits);

#endif
