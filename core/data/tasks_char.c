/* tasks_char.c - the character tasks copy, reverse and sort (see tasks.h).
 *
 * Strings of a-z, lengths 1..max_len, character level: "hello" -> "hello",
 * "olleh", "ehllo". About 20,000 training and 500 held-out strings
 * (TASK_CHAR_TRAIN, TASK_DEFAULT_HELDOUT). Both quotas are spread evenly over
 * the lengths; a length with few distinct strings (26 of length 1, 676 of
 * length 2) gives up to an eighth of them to held-out and the rest to
 * training, and the unused quota passes on to longer lengths. */
#include "tasks.h"

#include <stdlib.h>
#include <string.h>

#include "rng.h"

/* ---------------------------------------------------------------------- */
/* copy / reverse / sort                                                   */
/* ---------------------------------------------------------------------- */

enum { CHAR_COPY, CHAR_REVERSE, CHAR_SORT };
#define ALPHABET 26

/* The target of a character task; ids are letter ids 4..29. */
static void char_target(int kind, const int *src, int n, int *tgt)
{
    if (kind == CHAR_COPY) {
        memcpy(tgt, src, (size_t)n * sizeof *tgt);
    } else if (kind == CHAR_REVERSE) {
        for (int i = 0; i < n; i++)
            tgt[i] = src[n - 1 - i];
    } else { /* counting sort: letters in alphabetical order */
        int count[TOK_NSPECIAL + ALPHABET] = {0};
        for (int i = 0; i < n; i++)
            count[src[i]]++;
        int k = 0;
        for (int c = 0; c < TOK_NSPECIAL + ALPHABET; c++)
            for (int j = 0; j < count[c]; j++)
                tgt[k++] = c;
    }
}

/* Number of distinct strings of length len, saturating at 1e9. */
static long long n_strings(int len)
{
    long long c = 1;
    for (int i = 0; i < len && c < 1000000000LL; i++)
        c *= ALPHABET;
    return c < 1000000000LL ? c : 1000000000LL;
}

typedef struct CharGen {
    Dataset *d;
    SeqSet seen;
    int *held;           /* (cap_held) 1 = held-out pair */
    int cap_held, kind;
    Rng rng;
} CharGen;

/* Add the string src (letter ids) and its target unless already present.
 * Returns 1 if added, 0 if a duplicate, -1 on error. */
static int char_add(CharGen *g, const int *src, int n, int held, TfErr *err)
{
    if (seqset_find(&g->seen, g->d, src, n) >= 0)
        return 0;
    int tgt[TASK_MAX_MAX_LEN];
    char_target(g->kind, src, n, tgt);
    int at = dataset_push_seen(g->d, &g->seen, src, n, tgt, n, err);
    if (at < 0 || dataset_tag(&g->held, &g->cap_held, at, held, err))
        return -1;
    return 1;
}

/* All strings of length len in random order; the first n_held go to
 * held-out, the next n_train to training. For short lengths only. */
static int char_enumerate(CharGen *g, int len, int n_held, int n_train,
                          TfErr *err)
{
    int count = (int)n_strings(len);
    int *order = malloc((size_t)count * sizeof *order);
    if (!order)
        return tf_fail(err, "out of memory");
    for (int i = 0; i < count; i++)
        order[i] = i;
    rng_shuffle(&g->rng, order, count);
    int rc = 0;
    for (int i = 0; i < n_held + n_train && rc >= 0; i++) {
        int s[TASK_MAX_MAX_LEN], x = order[i];
        for (int k = len - 1; k >= 0; k--, x /= ALPHABET)
            s[k] = TOK_NSPECIAL + x % ALPHABET; /* base-26 digits */
        rc = char_add(g, s, len, i < n_held, err);
    }
    free(order);
    return rc < 0 ? -1 : 0;
}

/* Random distinct strings of length len, for lengths with many strings. */
static int char_sample(CharGen *g, int len, int n_held, int n_train,
                       TfErr *err)
{
    for (int i = 0; i < n_held + n_train;) {
        int s[TASK_MAX_MAX_LEN];
        for (int k = 0; k < len; k++)
            s[k] = TOK_NSPECIAL + (int)rng_below(&g->rng, ALPHABET);
        int rc = char_add(g, s, len, i < n_held, err);
        if (rc < 0)
            return -1;
        i += rc;
    }
    return 0;
}

static int char_vocab(Vocab *v, TfErr *err)
{
    if (vocab_init(v, TOK_CHAR, err))
        return -1;
    for (char c = 'a'; c <= 'z'; c++)
        if (vocab_add(v, &c, 1, err) < 0)
            return -1;
    return 0;
}

/* Quota for one length: the remaining budget spread over the lengths left
 * (rounded up), at most `avail`. */
static long long share(long long remaining, int lengths_left, long long avail)
{
    long long q = (remaining + lengths_left - 1) / lengths_left;
    return q < avail ? q : avail;
}

static int char_lengths(CharGen *g, int max_len, int n_heldout, TfErr *err)
{
    long long rem_h = n_heldout, rem_t = TASK_CHAR_TRAIN;
    for (int len = 1; len <= max_len; len++) {
        long long count = n_strings(len);
        long long cap_h = count >= 2 ? (count / 8 > 0 ? count / 8 : 1) : 0;
        long long h = share(rem_h, max_len - len + 1, cap_h);
        long long t = share(rem_t, max_len - len + 1, count - h);
        int rc = count <= 2 * (h + t)
                     ? char_enumerate(g, len, (int)h, (int)t, err)
                     : char_sample(g, len, (int)h, (int)t, err);
        if (rc)
            return -1;
        rem_h -= h;
        rem_t -= t;
    }
    return 0;
}

int task_char(Dataset *d, int kind, const TaskOpts *o, TfErr *err)
{
    int max_len = o->max_len ? o->max_len : TASK_DEFAULT_MAX_LEN;
    if (max_len < 1 || max_len > TASK_MAX_MAX_LEN)
        return tf_fail(err, "max_len %d out of range 1..%d", max_len,
                       TASK_MAX_MAX_LEN);
    if (char_vocab(&d->src, err) || char_vocab(&d->tgt, err))
        return -1;
    CharGen g = {.d = d, .kind = kind};
    rng_seed(&g.rng, o->seed);
    int n_held = o->n_heldout ? o->n_heldout : TASK_DEFAULT_HELDOUT;
    int rc = char_lengths(&g, max_len, n_held, err);
    if (!rc)
        rc = dataset_split(d, g.held, &g.rng, err);
    seqset_free(&g.seen);
    free(g.held);
    return rc;
}
