/* test_util.h - shared helpers for the cmocka test programs.
 *
 * Every comparison says what it expected and what it got: check_close()
 * prints the worst difference and where it is before failing. */
#ifndef TEST_UTIL_H
#define TEST_UTIL_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

/* Worst |a-b| / (atol + rtol*|b|) over n values; fails when it exceeds 1. */
static inline void check_close_(const char *what, const float *got,
                                const float *want, size_t n, float atol,
                                float rtol, const char *file, int line)
{
    double worst = 0;
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)got[i] - (double)want[i]);
        double lim = atol + rtol * fabs((double)want[i]);
        double r = (isnan(got[i]) != isnan(want[i])) ? INFINITY : d == 0 ? 0 : d / lim;
        if (isinf(want[i]) && got[i] == want[i])
            r = 0;
        if (!(r <= worst)) {
            worst = r;
            at = i;
        }
    }
    if (n)
        printf("  %s: worst %.3g of tolerance at [%zu] got %.9g want %.9g\n",
               what, worst, at, got[at], want[at]);
    if (!(worst <= 1.0))
        _fail(file, line);
}
#define check_close(what, got, want, n, atol, rtol) \
    check_close_(what, got, want, n, atol, rtol, __FILE__, __LINE__)

/* Fail with a message saying what was expected and what came. */
#define expect_true(cond, ...)                                   \
    do {                                                         \
        if (!(cond)) {                                           \
            printf("  expected %s: ", #cond);                    \
            printf(__VA_ARGS__);                                 \
            printf("\n");                                        \
            _fail(__FILE__, __LINE__);                           \
        }                                                        \
    } while (0)

/* A scratch folder /tmp/stepformer-NAME-XXXXXX for a test program, and
 * its removal. */
static inline int tu_scratch(char *dir, size_t cap, const char *name)
{
    snprintf(dir, cap, "/tmp/stepformer-%s-XXXXXX", name);
    return mkdtemp(dir) ? 0 : -1;
}

static inline int tu_scratch_remove(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* build/tests/test_x -> build/stepformer: the program beside the tests */
static inline void tu_program_path(char *buf, size_t cap, const char *argv0)
{
    snprintf(buf, cap, "%s", argv0 ? argv0 : "");
    char *slash = strrchr(buf, '/');
    if (slash)
        slash[0] = 0;
    else
        snprintf(buf, cap, ".");
    size_t n = strlen(buf);
    snprintf(buf + n, cap - n, "/../stepformer");
}

#endif
