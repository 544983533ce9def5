/* num.c - whole numbers as people write them; see num.h. */
#include "num.h"

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
