/* cli.h - what every subcommand shares: option matching, number parsing,
 * loading a model, turning sentences into ids, and one-line errors. */
#ifndef APP_CLI_H
#define APP_CLI_H

#include <stddef.h>
#include <stdio.h>

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
/* --lang: "en" or "zh" (*zh gets 1 for zh); anything else is refused with
 * the one-line error. Returns 0, or 1 after the error. */
int cli_lang(const char *cmd, const char *v, int *zh);

/* A table of options instead of a chain of ifs. out points at an int (FLAG:
 * set to 1; INT), a const char * (STR) or a float (FLOAT). A value outside
 * lo..hi is refused with msg (a format given the value) or, when msg is
 * NULL, "--NAME must be an integer in LO..HI, not 'VALUE'" ("a number in
 * [LO, HI]" for FLOAT; without the value when plain is set). */
typedef enum CliKind { CLI_FLAG, CLI_STR, CLI_INT, CLI_FLOAT } CliKind;
typedef struct CliOpt {
    const char *name;
    CliKind kind;
    void *out;
    double lo, hi;
    const char *msg;
    int plain;
} CliOpt;

/* Table entries: a flag, a string, an integer or a number in [LO, HI]; _P
 * without the value in its message, _M with message MSG. */
#define CLI_FLAG_OPT(N, P) {.name = N, .kind = CLI_FLAG, .out = P}
#define CLI_STR_OPT(N, P) {.name = N, .kind = CLI_STR, .out = P}
#define CLI_INT_OPT(N, P, LO, HI) {.name = N, .kind = CLI_INT, .out = P, .lo = LO, .hi = HI}
#define CLI_INT_P(N, P, LO, HI) {.name = N, .kind = CLI_INT, .out = P, .lo = LO, .hi = HI, .plain = 1}
#define CLI_INT_M(N, P, LO, HI, MSG) {.name = N, .kind = CLI_INT, .out = P, .lo = LO, .hi = HI, .msg = MSG}
#define CLI_NUM_OPT(N, P, LO, HI) {.name = N, .kind = CLI_FLOAT, .out = P, .lo = LO, .hi = HI}
#define CLI_NUM_M(N, P, LO, HI, MSG) {.name = N, .kind = CLI_FLOAT, .out = P, .lo = LO, .hi = HI, .msg = MSG}
#define CLI_N(opts) ((int)(sizeof(opts) / sizeof((opts)[0])))

/* Is argv[*i] one of opts[0..n)? 1 when it is (its value stored, or a
 * message printed and *bad set), 0 when not. */
int cli_match(char **argv, int argc, int *i, const CliOpt *opts, int n, const char *cmd, int *bad);

/* Options the table does not hold (positional arguments, shared groups):
 * 1 when argv[*i] was one, as cli_match. */
typedef int (*CliMore)(char **argv, int argc, int *i, void *ctx, const char *cmd, int *bad);

/* The whole command line: --help prints help and returns -1; each argument
 * must be in opts or taken by more (may be NULL), else "unknown argument"
 * is printed and 1 returned; 1 after any other message; 0 when all is well. */
int cli_parse(int argc, char **argv, const CliOpt *opts, int n, CliMore more, void *ctx,
              const char *cmd, const char *help);

int cli_int(const char *s, long lo, long hi, int *out);
int cli_float(const char *s, double lo, double hi, float *out);
/* "5,6,7" -> ids; returns the count or -1. */
int cli_ids(const char *s, int *ids, int max);

/* The bundled model, found next to the executable or in the data dir
 * (paths_data in app/session/paths.h). */
const char *cli_data_path(const char *rel, char *buf, size_t cap);
/* Open the model at path (NULL: the bundled en2zh model): 0, or -1 after
 * a one-line message. */
int cli_load_model(TfModel *m, const char *path, const char *cmd);

/* Tokenise a sentence as the model does (tf_text_ids: sentencepiece for a
 * MarianMT folder, else our words or characters; tgt 1: the target side): empty, invalid UTF-8 or
 * longer than max are errors; unknown words are warned about (named) and
 * become <unk>. Returns the number of ids or -1 after printing the error. */
int cli_encode(const TfModel *m, int tgt, const char *text, int *ids, int max, const char *cmd);

/* Text from a file (metadata, vocabulary tokens, sentences) made safe for
 * a terminal: control characters (C0, DEL, C1, bidi overrides) and bytes that are not
 * valid UTF-8 become "\xNN" (C1: "\u0085"), so that an escape code in a
 * model cannot move the cursor, recolour or retitle the terminal. Valid
 * printable UTF-8 (Chinese included) is kept as it is; with keep_nl, '\n'
 * and '\t' stay. cli_safe writes into buf (always terminated; an
 * over-long text ends in "...") and returns buf; cli_put_safe writes to f. */
const char *cli_safe(char *buf, size_t cap, const char *s);
void cli_put_safe(FILE *f, const char *s);
void cli_put_safe_n(FILE *f, const char *s, size_t n, int keep_nl);

/* Override the sizes of cfg with those given (0 keeps cfg's). */
void cli_resize(TfConfig *cfg, int d_model, int n_heads, int d_ff, int n_enc, int n_dec, int max_len);

/* Installs a log hook that prints the engine's warnings on stderr. */
void cli_log_to_stderr(void);

#endif
