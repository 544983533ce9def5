/* cli.h - what every subcommand shares: option matching, number parsing,
 * loading a model, turning sentences into ids, and one-line errors. */
#ifndef APP_CLI_H
#define APP_CLI_H

#include <stddef.h>

#include "model.h"

/* Print "stepformer CMD: message" on stderr; returns 1 (the exit status). */
int cli_fail(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A warning on stderr, same shape. */
void cli_warn(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Does argv[*i] name option `name` ("--name VALUE" or "--name=VALUE")? On a
 * match, *val gets the value (NULL and an error when it is missing) and *i
 * moves past it. Flags without a value use cli_flag. */
int cli_opt(char **argv, int argc, int *i, const char *name, const char **val,
            const char *cmd, int *bad);
int cli_flag(const char *arg, const char *name);

int cli_int(const char *s, long lo, long hi, int *out);
int cli_float(const char *s, double lo, double hi, float *out);
/* "5,6,7" -> ids; returns the count or -1. */
int cli_ids(const char *s, int *ids, int max);

/* The bundled model, found next to the executable or in the data dir
 * (paths_data in app/session/paths.h). */
const char *cli_data_path(const char *rel, char *buf, size_t cap);
int cli_load_model(TfModel *m, const char *path, const char *cmd);

/* Tokenise a sentence for the model's vocabulary: empty, invalid UTF-8 or
 * longer than max are errors; unknown words are warned about (named) and
 * become <unk>. Returns the number of ids or -1 after printing the error. */
int cli_encode(const Vocab *v, const char *text, int *ids, int max,
               const char *cmd, const char *side);

/* Installs a log hook that prints the engine's warnings on stderr. */
void cli_log_to_stderr(void);

#endif
