/* dataset.h - data sets of sentence pairs as token ids.
 *
 * A Dataset is what training and evaluation read: two vocabularies (source
 * and target), a pool of token ids, and pairs pointing into the pool. Pairs
 * [0, n_train) are the training set, [n_train, n_pairs) the held-out set; the
 * two never share a source sentence, and no source sentence occurs twice.
 * The built-in tasks (tasks.h) and the TSV loader (tsv.h) fill one with the
 * builder functions at the end of this header. */
#ifndef TF_DATASET_H
#define TF_DATASET_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "rng.h"
#include "vocab.h"

/* One sentence pair: offsets into Dataset.ids; lengths exclude <bos>/<eos>,
 * which the pool does not store. */
typedef struct Pair {
    int src_off, tgt_off, src_len, tgt_len;
} Pair;

typedef struct Dataset {
    char name[64];   /* "copy", "reverse", "sort", "en2zh" or the TSV file's
                        base name without its extension */
    Vocab src, tgt;  /* always two Vocab objects (may hold the same tokens) */
    int32_t *ids;    /* (n_ids) token pool */
    size_t n_ids, cap_ids;
    Pair *pairs;     /* (n_pairs) train pairs first, then held-out pairs */
    int n_pairs, cap_pairs;
    int n_train;
    int max_src, max_tgt; /* longest sequence in tokens (without <bos>/<eos>) */
} Dataset;

void dataset_free(Dataset *d);

/* Look up src_text (tokenised with d->src) among all pairs; on a hit write
 * the reference translation, decoded with d->tgt, to tgt_out (truncated to
 * cap) and return 1; return 0 when absent. */
int dataset_find(const Dataset *d, const char *src_text, char *tgt_out,
                 size_t cap);

/* ---- building a data set (the task generators and the TSV loader) ---- */

/* Append a pair (tokens only, no <bos>/<eos>); returns its index or -1. */
int dataset_push(Dataset *d, const int *src, int ns, const int *tgt, int nt,
                 TfErr *err);
/* Put the pairs marked in held[] after the others (each part keeps its
 * order, or is shuffled when r is not NULL) and set n_train. */
int dataset_split(Dataset *d, const int *held, Rng *r, TfErr *err);
/* Choose k of the indices in idx[0..n) at random (partial Fisher-Yates) and
 * mark them in held[]. */
void dataset_pick_heldout(int *idx, int n, int k, Rng *r, int *held);
/* (*tags)[at] = value in a per-pair array of *cap ints, grown (doubling)
 * as needed. Returns 0, or -1 with err set. */
int dataset_tag(int **tags, int *cap, int at, int value, TfErr *err);

/* A set of source sequences, to keep every source sentence distinct. */
typedef struct SeqSet {
    int *slot; /* (nslot) pair index + 1, 0 = empty; open addressing */
    int nslot, n;
} SeqSet;

/* Index of the pair of d whose source is ids[0..n), or -1. */
int seqset_find(const SeqSet *s, const Dataset *d, const int *ids, int n);
/* Add pair (already pushed) to the set, growing it to stay half empty. */
int seqset_add(SeqSet *s, const Dataset *d, int pair, TfErr *err);
void seqset_free(SeqSet *s);
/* dataset_push, then the new pair's source into seen; its index or -1. */
int dataset_push_seen(Dataset *d, SeqSet *seen, const int *src, int ns, const int *tgt, int nt,
                      TfErr *err);

#endif
