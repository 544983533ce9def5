/* tool_util.h - what test programs that check files with outside tools
 * share: is a tool installed (else the test says so and is skipped), run a
 * command line, read its output or a whole file, count a string. */
#ifndef TOOL_UTIL_H
#define TOOL_UTIL_H

#include "test_util.h"

#include <sys/wait.h>

static inline int tu_have(const char *tool)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", tool);
    return system(cmd) == 0;
}

/* Skip the current test, saying why, when a tool is missing. */
#define TU_NEED(tool)                                                              \
    do {                                                                           \
        if (!tu_have(tool)) {                                                      \
            printf("  skipped: %s is not installed (tools/deps.sh install)\n", tool); \
            skip();                                                                \
        }                                                                          \
    } while (0)

/* Run a shell command line; its exit status (-1 if it did not run or was
 * killed). */
static inline int tu_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline int tu_sh(const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int st = system(cmd);
    return st == -1 || !WIFEXITED(st) ? -1 : WEXITSTATUS(st);
}

/* Read all of f into a NUL-terminated buffer (the caller frees it). */
static inline char *tu_read_all(FILE *f, size_t *len)
{
    size_t cap = 1 << 16, n = 0, k;
    char *buf = malloc(cap);
    while (buf && (k = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += k;
        if (n + 1 == cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb)
                free(buf);
            buf = nb;
        }
    }
    if (buf)
        buf[n] = 0;
    if (len)
        *len = n;
    return buf;
}

/* A whole file, or NULL. */
static inline char *tu_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = tu_read_all(f, len);
    fclose(f);
    return buf;
}

/* The standard output of a command line, or NULL if it failed. */
static inline char *tu_output(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline char *tu_output(const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    FILE *p = popen(cmd, "r");
    if (!p)
        return NULL;
    char *buf = tu_read_all(p, NULL);
    if (pclose(p) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* Occurrences of needle in hay[0 .. len) (which may hold NULs). */
static inline int tu_count(const char *hay, size_t len, const char *needle)
{
    int n = 0;
    size_t k = strlen(needle);
    for (size_t i = 0; hay && i + k <= len; i++)
        n += memcmp(hay + i, needle, k) == 0;
    return n;
}

#endif
