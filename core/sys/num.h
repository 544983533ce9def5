/* num.h - whole numbers as people write them in specs and files. */
#ifndef STEPFORMER_NUM_H
#define STEPFORMER_NUM_H

#include <stddef.h>

/* s[0..n) as a whole decimal number in [lo, hi]: digits only (no sign,
 * no spaces, at most 9 of them). Returns 0 with *out set, or -1. */
int tf_parse_int(const char *s, size_t n, long lo, long hi, int *out);

#endif
