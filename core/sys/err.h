/* err.h - how the engine reports trouble without printing or exiting.
 *
 * Every fallible core function takes a TfErr* (may be NULL) and returns a
 * negative value on failure after filling err->msg with one line that names
 * the file or the input and the reason (control characters quoted from an
 * input are replaced, so the message stays one line). The engine never prints on its own:
 * diagnostics that are not errors go through the logging hook, which the
 * program installs (the CLI prints them, tests may capture them). */
#ifndef TF_ERR_H
#define TF_ERR_H

#include <stdarg.h>

#define TF_ERR_MAX 512

typedef struct TfErr {
    char msg[TF_ERR_MAX];
} TfErr;

/* Fill err (if not NULL) with a printf-style message; always returns -1. */
int tf_fail(TfErr *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Prefix an existing message: "prefix: old message". Returns -1. */
int tf_fail_prefix(TfErr *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

enum { TF_LOG_DEBUG = 0, TF_LOG_INFO = 1, TF_LOG_WARN = 2 };

typedef void (*TfLogFn)(int level, const char *msg, void *user);

/* Install the hook (NULL silences the engine, which is the default). */
void tf_set_log(TfLogFn fn, void *user);
void tf_log(int level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
