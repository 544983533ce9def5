/* tsv.c - the loader of tab-separated sentence pairs (see tsv.h). */
#include "tsv.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file.h"
#include "rng.h"

/* ---------------------------------------------------------------------- */
/* The TSV loader                                                          */
/* ---------------------------------------------------------------------- */

#define TSV_MAX_WARNINGS 100         /* bad lines reported one by one */

/* Scratch space for one line's tokens, reused across lines. */
typedef struct TsvScratch {
    TokSpan *sp;
    int *ids;
    int cap;
} TsvScratch;

static int scratch_grow(TsvScratch *s, int n)
{
    if (n <= s->cap)
        return 0;
    int cap = s->cap ? s->cap : 64;
    while (cap < n)
        cap = cap > INT_MAX / 2 ? n : cap * 2;
    TokSpan *sp = realloc(s->sp, (size_t)cap * sizeof *sp);
    if (sp)
        s->sp = sp;
    int *ids = realloc(s->ids, (size_t)cap * sizeof *ids);
    if (ids)
        s->ids = ids;
    if (!sp || !ids)
        return -1;
    s->cap = cap;
    return 0;
}

/* One side of a line, tokenised. */
typedef struct Side {
    const char *text;
    size_t len;
    int n;        /* tokens */
    TokSpan *sp;  /* (n) owned */
} Side;

/* Tokenise a side; returns NULL when fine, else the reason it is bad.
 * *oom is set when memory ran out. */
static const char *side_split(Side *s, TokMode mode, int max_len,
                              const char *which, char *why, size_t why_cap,
                              int *oom)
{
    s->n = tok_split(mode, s->text, s->len, NULL, 0, NULL);
    if (s->n == 0) {
        snprintf(why, why_cap, "empty %s", which);
        return why;
    }
    if (max_len > 0 && s->n > max_len) {
        snprintf(why, why_cap, "%s has %d tokens, more than %d", which, s->n,
                 max_len);
        return why;
    }
    s->sp = malloc((size_t)s->n * sizeof *s->sp);
    if (!s->sp) {
        *oom = 1;
        return "out of memory";
    }
    tok_split(mode, s->text, s->len, s->sp, s->n, NULL);
    for (int i = 0; i < s->n; i++) {
        if (s->sp[i].len > VOCAB_MAX_TOKEN_BYTES) {
            snprintf(why, why_cap, "%s token %d longer than %d bytes", which,
                     i + 1, VOCAB_MAX_TOKEN_BYTES);
            return why;
        }
    }
    return NULL;
}

/* "<eos>" typed in a file would become the real end-of-sentence token. */
static const char *side_reserved(const Vocab *v, const Side *sd, char *why,
                                 size_t why_cap)
{
    for (int i = 0; i < sd->n; i++) {
        int id = vocab_find(v, sd->text + sd->sp[i].off, sd->sp[i].len);
        if (id >= 0 && id < TOK_NSPECIAL) {
            snprintf(why, why_cap, "%s is a reserved token", vocab_token(v, id));
            return why;
        }
    }
    return NULL;
}

/* Check a line's shape and split it into its two sides. */
static const char *line_check(char *line, size_t len, Side *src, Side *tgt,
                              char *why, size_t why_cap)
{
    char *tab = memchr(line, '\t', len);
    if (!tab)
        return "no tab between source and target";
    size_t at = (size_t)(tab - line);
    if (memchr(tab + 1, '\t', len - at - 1))
        return "more than one tab";
    size_t bad;
    if (utf8_check(line, len, &bad)) {
        snprintf(why, why_cap, "invalid UTF-8 at byte %zu", bad + 1);
        return why;
    }
    src->text = line;
    src->len = at;
    tgt->text = tab + 1;
    tgt->len = len - at - 1;
    return NULL;
}

typedef struct TsvState {
    Dataset *d;
    const char *path;
    TokMode src_mode, tgt_mode;
    int max_len, line, n_bad;
    SeqSet seen;
    int *first_line; /* (cap) line number of each pair */
    int cap;
} TsvState;

static void tsv_warn(TsvState *st, const char *reason)
{
    st->n_bad++;
    if (st->n_bad <= TSV_MAX_WARNINGS)
        tf_log(TF_LOG_WARN, "%s:%d: %s", st->path, st->line, reason);
    else if (st->n_bad == TSV_MAX_WARNINGS + 1)
        tf_log(TF_LOG_WARN, "%s: more bad lines, not reported one by one",
               st->path);
}

/* Look the side's tokens up (ids into s->ids); 1 if all are known. */
static int side_lookup(const Vocab *v, const Side *sd, int *ids)
{
    for (int i = 0; i < sd->n; i++) {
        ids[i] = vocab_find(v, sd->text + sd->sp[i].off, sd->sp[i].len);
        if (ids[i] < 0)
            return 0;
    }
    return 1;
}

static int side_add(Vocab *v, const Side *sd, int *ids, TfErr *err)
{
    for (int i = 0; i < sd->n; i++) {
        ids[i] = vocab_add(v, sd->text + sd->sp[i].off, sd->sp[i].len, err);
        if (ids[i] < 0)
            return -1;
    }
    return 0;
}

/* Add a checked pair, unless its source is already there. */
static int tsv_add(TsvState *st, const Side *src, const Side *tgt,
                   TsvScratch *sc, TfErr *err)
{
    Dataset *d = st->d;
    if (scratch_grow(sc, src->n > tgt->n ? src->n : tgt->n))
        return tf_fail(err, "%s:%d: out of memory", st->path, st->line);
    if (side_lookup(&d->src, src, sc->ids)) {
        int dup = seqset_find(&st->seen, d, sc->ids, src->n);
        if (dup >= 0) {
            tf_log(TF_LOG_WARN, "%s:%d: source repeats line %d, skipped",
                   st->path, st->line, st->first_line[dup]);
            return 0;
        }
    }
    /* a vocabulary that grows too large names the file, the line and the side */
    if (side_add(&d->src, src, sc->ids, err))
        return tf_fail_prefix(err, "%s:%d: source", st->path, st->line);
    int *tids = malloc((size_t)tgt->n * sizeof *tids);
    if (!tids)
        return tf_fail(err, "%s:%d: out of memory", st->path, st->line);
    if (side_add(&d->tgt, tgt, tids, err)) {
        free(tids);
        return tf_fail_prefix(err, "%s:%d: target", st->path, st->line);
    }
    int at = dataset_push_seen(d, &st->seen, sc->ids, src->n, tids, tgt->n, err);
    free(tids);
    return at < 0 ? -1 : dataset_tag(&st->first_line, &st->cap, at, st->line, err);
}

static int is_blank(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\v' &&
            s[i] != '\f')
            return 0;
    return 1;
}

/* One line (without its '\n'): skip, warn, add, or fail. */
static int tsv_line(TsvState *st, char *line, size_t len, TsvScratch *sc,
                    TfErr *err)
{
    if (len > 0 && line[len - 1] == '\r')
        len--;
    if (memchr(line, 0, len))
        return tf_fail(err, "%s:%d: NUL byte, this is not a text file",
                       st->path, st->line);
    if (is_blank(line, len) || line[0] == '#')
        return 0;
    char why[128];
    Side src = {0}, tgt = {0};
    int oom = 0, rc = 0;
    const char *bad = line_check(line, len, &src, &tgt, why, sizeof why);
    if (!bad)
        bad = side_split(&src, st->src_mode, st->max_len, "source", why,
                         sizeof why, &oom);
    if (!bad)
        bad = side_split(&tgt, st->tgt_mode, st->max_len, "target", why,
                         sizeof why, &oom);
    if (!bad)
        bad = side_reserved(&st->d->src, &src, why, sizeof why);
    if (!bad)
        bad = side_reserved(&st->d->tgt, &tgt, why, sizeof why);
    if (oom)
        rc = tf_fail(err, "%s:%d: out of memory", st->path, st->line);
    else if (bad)
        tsv_warn(st, bad);
    else
        rc = tsv_add(st, &src, &tgt, sc, err);
    free(src.sp);
    free(tgt.sp);
    return rc;
}

/* Lines are read with a limit (tf_read_line): memory follows TF_LINE_MAX,
 * not the file, so /dev/zero-like data or a file without newlines costs
 * 16 MiB and a clear message, never the machine. */
static int tsv_read(TsvState *st, FILE *f, TfErr *err)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    TsvScratch sc = {0};
    int rc = 0;
    errno = 0;
    while (rc == 0 && (got = tf_read_line(f, &line, &cap, TF_LINE_MAX)) != -1) {
        st->line++;
        if (got < 0) { /* too long, NUL (binary), out of memory: at once */
            char why[96];
            rc = tf_fail(err, "%s:%d: %s", st->path, st->line, tf_line_error(got, TF_LINE_MAX, why, sizeof why));
            break;
        }
        size_t len = (size_t)got, skip = 0;
        /* a byte-order mark, as some editors write, is not part of the text */
        if (st->line == 1 && len >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0)
            skip = 3;
        rc = tsv_line(st, line + skip, len - skip, &sc, err);
    }
    if (rc == 0 && ferror(f))
        rc = tf_fail(err, "%s: read error after line %d: %s", st->path,
                     st->line, strerror(errno ? errno : EIO));
    free(line);
    free(sc.sp);
    free(sc.ids);
    return rc;
}

/* "data/en-fr.tsv" -> "en-fr" */
static void base_name(char *out, size_t cap, const char *path)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    const char *dot = strrchr(b, '.');
    int n = dot && dot > b ? (int)(dot - b) : (int)strlen(b);
    snprintf(out, cap, "%.*s", n, b);
}

/* About 10% held out, at least one pair when there are two. */
static int tsv_split(Dataset *d, uint64_t seed, TfErr *err)
{
    int n = d->n_pairs, k = n >= 2 ? (n + 5) / 10 : 0;
    if (n >= 2 && k < 1)
        k = 1;
    int *held = calloc((size_t)n, sizeof *held);
    int *idx = malloc((size_t)n * sizeof *idx);
    int rc = 0;
    if (!held || !idx) {
        rc = tf_fail(err, "out of memory");
    } else {
        Rng r;
        rng_seed(&r, seed);
        for (int i = 0; i < n; i++)
            idx[i] = i;
        dataset_pick_heldout(idx, n, k, &r, held);
        rc = dataset_split(d, held, NULL, err); /* keep file order */
    }
    free(held);
    free(idx);
    return rc;
}

int tsv_load_stream(Dataset *d, FILE *f, const char *path, TokMode src_mode,
                    TokMode tgt_mode, int max_len, uint64_t seed, int *n_bad, TfErr *err)
{
    memset(d, 0, sizeof *d);
    if (n_bad)
        *n_bad = 0;
    TsvState st = {.d = d, .path = path, .src_mode = src_mode,
                   .tgt_mode = tgt_mode, .max_len = max_len};
    base_name(d->name, sizeof d->name, path);
    int rc = vocab_init(&d->src, src_mode, err);
    if (!rc)
        rc = vocab_init(&d->tgt, tgt_mode, err);
    if (!rc)
        rc = tsv_read(&st, f, err);
    if (!rc && st.n_bad > TSV_MAX_WARNINGS)
        tf_log(TF_LOG_WARN, "%s: %d bad lines in all", path, st.n_bad);
    if (!rc && d->n_pairs == 0)
        rc = tf_fail(err, "%s: no usable sentence pairs (%d lines, %d bad)",
                     path, st.line, st.n_bad);
    if (!rc)
        rc = tsv_split(d, seed, err);
    if (n_bad)
        *n_bad = st.n_bad;
    seqset_free(&st.seen);
    free(st.first_line);
    if (rc) {
        dataset_free(d);
        return -1;
    }
    return 0;
}

int tsv_load(Dataset *d, const char *path, TokMode src_mode, TokMode tgt_mode,
             int max_len, uint64_t seed, int *n_bad, TfErr *err)
{
    memset(d, 0, sizeof *d);
    if (n_bad)
        *n_bad = 0;
    /* "-": standard input, a stream of bounded lines (a NUL byte or an
     * endless line stops it at once); else only a regular file: a FIFO
     * would hang, a device never end */
    if (strcmp(path, "-") == 0)
        return tsv_load_stream(d, stdin, "<stdin>", src_mode, tgt_mode, max_len, seed, n_bad, err);
    FILE *f = tf_fopen_regular(path, NULL, err);
    if (!f)
        return -1;
    int rc = tsv_load_stream(d, f, path, src_mode, tgt_mode, max_len, seed, n_bad, err);
    fclose(f);
    return rc;
}
