/* dataset.c - the token pool, sentence pairs, the train/held-out split and
 * the set of source sentences that keeps them distinct (see dataset.h). */
#include "dataset.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"

/* ---------------------------------------------------------------------- */
/* The token pool and pairs                                                */
/* ---------------------------------------------------------------------- */

void dataset_free(Dataset *d)
{
    if (!d)
        return;
    vocab_free(&d->src);
    vocab_free(&d->tgt);
    free(d->ids);
    free(d->pairs);
    memset(d, 0, sizeof *d);
}

static int ds_reserve(Dataset *d, size_t more_ids, TfErr *err)
{
    if (d->n_ids + more_ids > (size_t)INT_MAX)
        return tf_fail(err, "more than %d tokens in the data set", INT_MAX);
    if (d->n_ids + more_ids > d->cap_ids) {
        size_t cap = d->cap_ids ? d->cap_ids : 4096;
        while (cap < d->n_ids + more_ids)
            cap *= 2;
        int32_t *ids = realloc(d->ids, cap * sizeof *ids);
        if (!ids)
            return tf_fail(err, "out of memory for %zu tokens", cap);
        d->ids = ids;
        d->cap_ids = cap;
    }
    if (d->n_pairs == d->cap_pairs) {
        if (d->n_pairs == INT_MAX / 2)
            return tf_fail(err, "too many sentence pairs");
        int cap = d->cap_pairs ? d->cap_pairs * 2 : 1024;
        Pair *p = realloc(d->pairs, (size_t)cap * sizeof *p);
        if (!p)
            return tf_fail(err, "out of memory for %d sentence pairs", cap);
        d->pairs = p;
        d->cap_pairs = cap;
    }
    return 0;
}

/* Append a pair (tokens only, no <bos>/<eos>); returns its index or -1. */
int dataset_push(Dataset *d, const int *src, int ns, const int *tgt, int nt,
                   TfErr *err)
{
    if (ds_reserve(d, (size_t)ns + (size_t)nt, err))
        return -1;
    Pair *p = &d->pairs[d->n_pairs];
    p->src_off = (int)d->n_ids;
    p->src_len = ns;
    for (int i = 0; i < ns; i++)
        d->ids[d->n_ids++] = src[i];
    p->tgt_off = (int)d->n_ids;
    p->tgt_len = nt;
    for (int i = 0; i < nt; i++)
        d->ids[d->n_ids++] = tgt[i];
    if (ns > d->max_src)
        d->max_src = ns;
    if (nt > d->max_tgt)
        d->max_tgt = nt;
    return d->n_pairs++;
}

/* Put the pairs marked in held[] after the others (each part keeps its
 * order, or is shuffled when r is not NULL) and set n_train. */
int dataset_split(Dataset *d, const int *held, Rng *r, TfErr *err)
{
    Pair *out = malloc((size_t)(d->n_pairs ? d->n_pairs : 1) * sizeof *out);
    if (!out)
        return tf_fail(err, "out of memory splitting the data set");
    int k = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < d->n_pairs; i++)
            if (held[i] == pass)
                out[k++] = d->pairs[i];
    int n_train = 0;
    for (int i = 0; i < d->n_pairs; i++)
        n_train += !held[i];
    if (r) {
        /* Fisher-Yates within [0, n_train) and within [n_train, n_pairs) */
        for (int i = n_train - 1; i > 0; i--) {
            int j = (int)rng_below(r, (uint32_t)i + 1);
            Pair t = out[i]; out[i] = out[j]; out[j] = t;
        }
        for (int i = d->n_pairs - 1; i > n_train; i--) {
            int j = n_train + (int)rng_below(r, (uint32_t)(i - n_train) + 1);
            Pair t = out[i]; out[i] = out[j]; out[j] = t;
        }
    }
    free(d->pairs);
    d->pairs = out;
    d->cap_pairs = d->n_pairs ? d->n_pairs : 1;
    d->n_train = n_train;
    return 0;
}

int dataset_tag(int **tags, int *cap, int at, int value, TfErr *err)
{
    if (at >= *cap) {
        int n = *cap ? *cap : 1024;
        while (n <= at)
            n *= 2;
        int *p = realloc(*tags, (size_t)n * sizeof *p);
        if (!p)
            return tf_fail(err, "out of memory");
        *tags = p;
        *cap = n;
    }
    (*tags)[at] = value;
    return 0;
}

/* Choose k of the indices in idx[0..n) at random (partial Fisher-Yates) and
 * mark them in held[]. */
void dataset_pick_heldout(int *idx, int n, int k, Rng *r, int *held)
{
    for (int i = 0; i < k && i < n; i++) {
        int j = i + (int)rng_below(r, (uint32_t)(n - i));
        int t = idx[i]; idx[i] = idx[j]; idx[j] = t;
        held[idx[i]] = 1;
    }
}

/* ---------------------------------------------------------------------- */
/* A set of source sequences, to keep every source sentence distinct       */
/* ---------------------------------------------------------------------- */

/* A token sequence's slot hash: FNV-1a over its ids, seeded with its length. */
static uint32_t seq_hash(const int *ids, int n)
{
    return tf_fnv_fold(tf_fnv_ints(TF_FNV_SEED ^ (uint32_t)n, ids, (size_t)n));
}

static int seq_eq(const int *a, const int32_t *b, int n)
{
    for (int i = 0; i < n; i++)
        if (a[i] != b[i])
            return 0;
    return 1;
}

/* Index of the pair whose source is ids[0..n), or -1. */
int seqset_find(const SeqSet *s, const Dataset *d, const int *ids, int n)
{
    if (!s->nslot)
        return -1;
    uint32_t mask = (uint32_t)s->nslot - 1;
    for (uint32_t h = seq_hash(ids, n) & mask; s->slot[h]; h = (h + 1) & mask) {
        const Pair *p = &d->pairs[s->slot[h] - 1];
        if (p->src_len == n && seq_eq(ids, d->ids + p->src_off, n))
            return s->slot[h] - 1;
    }
    return -1;
}

static void seqset_put(SeqSet *s, const Dataset *d, int pair)
{
    const Pair *p = &d->pairs[pair];
    uint32_t h = seq_hash(d->ids + p->src_off, p->src_len);
    uint32_t mask = (uint32_t)s->nslot - 1;
    for (h &= mask; s->slot[h]; h = (h + 1) & mask)
        ;
    s->slot[h] = pair + 1;
}

/* Add pair (already pushed) to the set, growing it to stay half empty. */
int seqset_add(SeqSet *s, const Dataset *d, int pair, TfErr *err)
{
    if ((s->n + 1) * 2 > s->nslot) {
        int nslot = s->nslot ? s->nslot * 2 : 1024;
        int *slot = calloc((size_t)nslot, sizeof *slot);
        if (!slot)
            return tf_fail(err, "out of memory for the sentence set");
        SeqSet grown = {slot, nslot, s->n};
        for (int i = 0; i < s->nslot; i++)
            if (s->slot[i])
                seqset_put(&grown, d, s->slot[i] - 1);
        free(s->slot);
        *s = grown;
    }
    seqset_put(s, d, pair);
    s->n++;
    return 0;
}

void seqset_free(SeqSet *s)
{
    free(s->slot);
    memset(s, 0, sizeof *s);
}


/* ---------------------------------------------------------------------- */
/* Looking a sentence up                                                   */
/* ---------------------------------------------------------------------- */

int dataset_find(const Dataset *d, const char *src_text, char *tgt_out,
                 size_t cap)
{
    if (cap)
        tgt_out[0] = 0;
    int n = vocab_encode(&d->src, src_text, NULL, NULL, 0, NULL, NULL);
    if (n <= 0)
        return 0;
    int *ids = malloc((size_t)n * sizeof *ids), unk = 0, found = 0;
    if (!ids)
        return 0;
    vocab_encode(&d->src, src_text, ids, NULL, n, &unk, NULL);
    for (int i = 0; !unk && i < d->n_pairs && !found; i++) {
        const Pair *p = &d->pairs[i];
        if (p->src_len != n || !seq_eq(ids, d->ids + p->src_off, n))
            continue;
        int *t = realloc(ids, (size_t)(p->tgt_len ? p->tgt_len : 1) * sizeof *t);
        if (!t)
            break;
        ids = t;
        for (int j = 0; j < p->tgt_len; j++)
            ids[j] = d->ids[p->tgt_off + j];
        vocab_decode(&d->tgt, ids, p->tgt_len, tgt_out, cap);
        found = 1;
    }
    free(ids);
    return found;
}

int dataset_push_seen(Dataset *d, SeqSet *seen, const int *src, int ns, const int *tgt, int nt,
                      TfErr *err)
{
    int at = dataset_push(d, src, ns, tgt, nt, err);
    if (at < 0 || seqset_add(seen, d, at, err))
        return -1;
    return at;
}
