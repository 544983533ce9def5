/* synth.c - synthetic data sets of random token sequences, for benchmarks
 * and tests that need a Dataset of a given shape (see train.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "train.h"

int dataset_random(Dataset *d, int n_pairs, int vocab, int src_len,
                   int tgt_len, uint64_t seed, TfErr *err)
{
    memset(d, 0, sizeof *d);
    if (n_pairs < 2 || vocab <= TOK_NSPECIAL || src_len < 1 || tgt_len < 1 ||
        n_pairs > 1000000 || src_len > TF_MAX_LEN || tgt_len > TF_MAX_LEN)
        return tf_fail(err, "random data set %d x (%d, %d) over %d tokens is out "
                       "of range", n_pairs, src_len, tgt_len, vocab);
    snprintf(d->name, sizeof d->name, "random");
    size_t per = (size_t)src_len + tgt_len;
    d->ids = malloc((size_t)n_pairs * per * sizeof *d->ids);
    d->pairs = malloc((size_t)n_pairs * sizeof *d->pairs);
    if (!d->ids || !d->pairs || vocab_numbered(&d->src, vocab, err) ||
        vocab_numbered(&d->tgt, vocab, err)) {
        dataset_free(d);
        return tf_fail(err, "cannot build a random data set");
    }
    Rng r;
    rng_seed(&r, seed);
    uint32_t span = (uint32_t)(vocab - TOK_NSPECIAL);
    for (size_t i = 0; i < (size_t)n_pairs * per; i++)
        d->ids[i] = TOK_NSPECIAL + (int32_t)rng_below(&r, span);
    for (int i = 0; i < n_pairs; i++)
        d->pairs[i] = (Pair){(int)(i * per), (int)(i * per + src_len), src_len, tgt_len};
    d->n_ids = d->cap_ids = (size_t)n_pairs * per;
    d->n_pairs = d->cap_pairs = n_pairs;
    d->n_train = n_pairs - n_pairs / 10;
    d->max_src = src_len;
    d->max_tgt = tgt_len;
    return 0;
}
