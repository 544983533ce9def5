/* err.c - error messages and the logging hook (see err.h). */
#include "err.h"

#include <stdio.h>
#include <string.h>

/* A message is one line whatever it quotes from a file: control
 * characters (a newline in a token, an escape code) become spaces or '?'. */
static void one_line(char *s)
{
    for (unsigned char *p = (unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            *p = (*p == '\n' || *p == '\r' || *p == '\t') ? ' ' : '?';
}

int tf_fail(TfErr *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        one_line(err->msg);
    }
    return -1;
}

int tf_fail_prefix(TfErr *err, const char *fmt, ...)
{
    if (!err)
        return -1;
    char head[TF_ERR_MAX], old[TF_ERR_MAX];
    memcpy(old, err->msg, sizeof old);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(head, sizeof head, fmt, ap);
    va_end(ap);
    size_t hl = strlen(head), ol = strlen(old), cap = sizeof err->msg - 1;
    if (hl > cap)
        hl = cap;
    memcpy(err->msg, head, hl);
    size_t at = hl;
    for (const char *sep = ": "; *sep && at < cap; sep++)
        err->msg[at++] = *sep;
    if (ol > cap - at)
        ol = cap - at;
    memcpy(err->msg + at, old, ol);
    err->msg[at + ol] = 0;
    one_line(err->msg);
    return -1;
}

static TfLogFn g_log_fn;
static void *g_log_user;

void tf_set_log(TfLogFn fn, void *user)
{
    g_log_fn = fn;
    g_log_user = user;
}

void tf_log(int level, const char *fmt, ...)
{
    if (!g_log_fn)
        return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    g_log_fn(level, buf, g_log_user);
}
