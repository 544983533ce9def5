/* num.c - numbers as people write them; see num.h. */
#include "num.h"

#include <stdio.h>
#include <stdlib.h>

int tf_parse_int(const char *s, size_t n, long lo, long hi, int *out)
{
    if (n == 0 || n > 9)
        return -1;
    long v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    if (v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

void tf_float_text(char *buf, size_t cap, float v, int min_digits)
{
    for (int digits = min_digits; digits <= 9; digits++) {
        snprintf(buf, cap, "%.*g", digits, (double)v);
        if (strtof(buf, NULL) == v)
            break;
    }
}
