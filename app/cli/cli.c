/* cli.c - helpers shared by the subcommands (see cli.h). */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "marian_tok.h"
#include "model_open.h"
#include "paths.h"
#include "text.h"
#include "utf8.h"

/* "stepformer CMD: TAG<message>" and a newline on stderr. */
static void say(const char *cmd, const char *tag, const char *fmt, va_list ap)
{
    fprintf(stderr, "stepformer %s: %s", cmd, tag);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

int cli_fail(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(cmd, "", fmt, ap);
    va_end(ap);
    return 1;
}

void cli_warn(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(cmd, "warning: ", fmt, ap);
    va_end(ap);
}

static void log_stderr(int level, const char *msg, void *user)
{
    (void)user;
    if (level >= TF_LOG_WARN)
        fprintf(stderr, "warning: %s\n", msg);
    else if (level >= TF_LOG_INFO)
        fprintf(stderr, "%s\n", msg);
}

void cli_log_to_stderr(void) { tf_set_log(log_stderr, NULL); }

int cli_flag(const char *arg, const char *name)
{
    return arg[0] == '-' && arg[1] == '-' && strcmp(arg + 2, name) == 0;
}

int cli_opt(char **argv, int argc, int *i, const char *name, const char **val,
            const char *cmd, int *bad)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (a[0] != '-' || a[1] != '-' || strncmp(a + 2, name, n) != 0)
        return 0;
    if (a[2 + n] == '=') {
        *val = a + 3 + n;
        return 1;
    }
    if (a[2 + n] != 0)
        return 0;
    if (*i + 1 >= argc) {
        cli_fail(cmd, "option --%s needs a value", name);
        *val = NULL;
        *bad = 1;
        return 1;
    }
    *val = argv[++*i];
    return 1;
}

/* Store v into o's target; a message and 1 when it is out of range. */
static int store(const CliOpt *o, const char *v, const char *cmd)
{
    if (o->kind == CLI_STR) {
        *(const char **)o->out = v;
        return 0;
    }
    int ok = o->kind == CLI_INT ? cli_int(v, (long)o->lo, (long)o->hi, o->out) == 0
                                : cli_float(v, o->lo, o->hi, o->out) == 0;
    if (ok)
        return 0;
    if (o->msg)
        return cli_fail(cmd, o->msg, v);
    char what[96];
    if (o->kind == CLI_INT)
        snprintf(what, sizeof what, "an integer in %ld..%ld", (long)o->lo, (long)o->hi);
    else
        snprintf(what, sizeof what, "a number in [%g, %g]", o->lo, o->hi);
    if (o->plain)
        return cli_fail(cmd, "--%s must be %s", o->name, what);
    return cli_fail(cmd, "--%s must be %s, not '%s'", o->name, what, v);
}

int cli_match(char **argv, int argc, int *i, const CliOpt *opts, int n, const char *cmd, int *bad)
{
    const char *v;
    for (int k = 0; k < n; k++) {
        const CliOpt *o = &opts[k];
        if (o->kind == CLI_FLAG) {
            if (!cli_flag(argv[*i], o->name))
                continue;
            *(int *)o->out = 1;
            return 1;
        }
        if (!cli_opt(argv, argc, i, o->name, &v, cmd, bad))
            continue;
        if (v && store(o, v, cmd))
            *bad = 1;
        return 1;
    }
    return 0;
}

int cli_parse(int argc, char **argv, const CliOpt *opts, int n, CliMore more, void *ctx,
              const char *cmd, const char *help)
{
    int bad = 0;
    for (int i = 1; i < argc && !bad; i++) {
        if (cli_flag(argv[i], "help")) {
            fputs(help, stdout);
            return -1;
        }
        if (!cli_match(argv, argc, &i, opts, n, cmd, &bad) &&
            !(more && more(argv, argc, &i, ctx, cmd, &bad)))
            return cli_fail(cmd, "unknown argument '%s' (see --help)", argv[i]);
    }
    return bad;
}

int cli_lang(const char *cmd, const char *v, int *zh)
{
    if (strcmp(v, "en") && strcmp(v, "zh"))
        return cli_fail(cmd, "--lang must be en or zh, not '%s'", v);
    *zh = strcmp(v, "zh") == 0;
    return 0;
}

/* Only [-]digits: strtol would also take "+5", " 5" and (as 0) "0x5". */
static int plain_int(const char *s, size_t n)
{
    size_t i = n > 0 && s[0] == '-';
    if (i == n)
        return 0;
    for (; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}

int cli_int(const char *s, long lo, long hi, int *out)
{
    char *end;
    errno = 0;
    if (!plain_int(s, strlen(s)))
        return -1;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

int cli_float(const char *s, double lo, double hi, float *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !(v >= lo && v <= hi))
        return -1;
    *out = (float)v;
    return 0;
}

int cli_ids(const char *s, int *ids, int max)
{
    int n = 0;
    const char *p = s;
    while (*p) {
        char *end;
        errno = 0;
        size_t len = strcspn(p, ",");
        if (!plain_int(p, len) || *p == '-')
            return -1; /* digits only: no sign, space, 0x or empty field */
        long v = strtol(p, &end, 10);
        if (end == p || errno || v < 0 || v > INT_MAX || n >= max)
            return -1;
        ids[n++] = (int)v;
        if (*end == ',' && end[1])
            end++;
        else if (*end)
            return -1; /* a trailing comma too */
        p = end;
    }
    return n;
}

const char *cli_data_path(const char *rel, char *buf, size_t cap)
{
    return paths_data(rel, buf, cap);
}

int cli_load_model(TfModel *m, const char *path, const char *cmd)
{
    TfErr err;
    char buf[4096];
    if (!path)
        path = cli_data_path("assets/models/en2zh.safetensors", buf, sizeof buf);
    if (tf_model_open(path, m, &err))
        return cli_fail(cmd, "%s", err.msg) ? -1 : -1;
    return 0;
}

int cli_encode(const TfModel *m, int tgt, const char *text, int *ids, int max, const char *cmd)
{
    TfErr err;
    TokSpan sp[TF_MAX_LEN];
    const char *side = tgt ? "target" : "source";
    int lim = max < TF_MAX_LEN ? max : TF_MAX_LEN, n_unk = 0;
    int n = tf_text_ids(m, tgt, text, ids, sp, lim, &n_unk, &err);
    int marian = m->cfg.kind == TF_KIND_MARIAN;
    if (n < 0) {
        cli_fail(cmd, "%s sentence: %s", side, err.msg);
        return -1;
    }
    if (n == 0 || (marian && !tgt && n == 1)) {
        cli_fail(cmd, "%s sentence is empty", side);
        return -1;
    }
    if (n > max) {
        /* a Marian text of more words than that is not split: n is a bound */
        int bound = marian && marian_min_pieces(text) + !tgt > lim;
        cli_fail(cmd, "%s sentence has %s%d tokens; this model takes at most %d%s", side, bound ? "at least " : "",
                 n, max, marian ? " (max_position_embeddings)" : "");
        return -1;
    }
    if (marian && n_unk)
        cli_warn(cmd, "%d %s piece%s not in vocab.json become%s <unk>", n_unk, side, n_unk > 1 ? "s" : "",
                 n_unk > 1 ? "" : "s");
    for (int i = 0; !marian && i < n; i++)
        if (ids[i] == cfg_unk_id(&m->cfg))
            cli_warn(cmd, "unknown %s word '%.*s' becomes <unk>", side,
                     sp[i].len, text + sp[i].off);
    return n;
}

void cli_resize(TfConfig *cfg, int d_model, int n_heads, int d_ff, int n_enc, int n_dec, int max_len)
{
    int *field[] = {&cfg->d_model, &cfg->n_heads, &cfg->d_ff, &cfg->n_enc, &cfg->n_dec, &cfg->max_len};
    const int given[] = {d_model, n_heads, d_ff, n_enc, n_dec, max_len};
    for (size_t k = 0; k < sizeof given / sizeof given[0]; k++)
        if (given[k])
            *field[k] = given[k];
}

/* One piece of text made safe: each code point either kept or written as an
 * escape; put(piece, len, ctx) receives the output in order. */
typedef void (*SafePut)(const char *p, size_t n, void *ctx);

static void safe_walk(const char *s, size_t n, int keep_nl, SafePut put, void *ctx)
{
    size_t i = 0;
    while (i < n) {
        uint32_t cp = 0;
        int k = utf8_next(s + i, n - i, &cp);
        char esc[16];
        if (k < 0) {
            snprintf(esc, sizeof esc, "\\x%02x", (unsigned char)s[i]);
            put(esc, strlen(esc), ctx);
            i++;
            continue;
        }
        int ctl = cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0) ||
                  (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
        if (keep_nl && (cp == '\n' || cp == '\t'))
            ctl = 0;
        if (!ctl)
            put(s + i, (size_t)k, ctx);
        else {
            if (cp < 0x80)
                snprintf(esc, sizeof esc, "\\x%02x", (unsigned)cp);
            else
                snprintf(esc, sizeof esc, "\\u%04x", (unsigned)cp);
            put(esc, strlen(esc), ctx);
        }
        i += (size_t)k;
    }
}

typedef struct SafeBuf {
    char *buf;
    size_t cap, len;
    int full;
} SafeBuf;

static void put_buf(const char *p, size_t n, void *ctx)
{
    SafeBuf *b = ctx;
    if (b->full)
        return;
    if (b->len + n + 1 > b->cap) { /* keep whole pieces only; mark the cut */
        b->full = 1;
        size_t at = b->cap >= 4 ? b->cap - 4 : 0;
        if (b->len > at) {
            b->len = at;
            while (b->len > 0 && ((unsigned char)b->buf[b->len] & 0xc0) == 0x80)
                b->len--; /* never cut a character in half */
        }
        if (b->cap >= 4) {
            memcpy(b->buf + b->len, "...", 3);
            b->len += 3;
        }
        return;
    }
    memcpy(b->buf + b->len, p, n);
    b->len += n;
}

const char *cli_safe(char *buf, size_t cap, const char *s)
{
    if (!buf || cap == 0)
        return "";
    SafeBuf b = {buf, cap, 0, 0};
    if (s)
        safe_walk(s, strlen(s), 0, put_buf, &b);
    buf[b.len] = 0;
    return buf;
}

static void put_file(const char *p, size_t n, void *ctx) { fwrite(p, 1, n, (FILE *)ctx); }

void cli_put_safe_n(FILE *f, const char *s, size_t n, int keep_nl)
{
    if (s)
        safe_walk(s, n, keep_nl, put_file, f);
}

void cli_put_safe(FILE *f, const char *s)
{
    if (s)
        cli_put_safe_n(f, s, strlen(s), 0);
}
