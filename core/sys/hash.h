/* hash.h - FNV-1a, the one hash of the tree: the keys of caches (kept
 * passes and translations, painted layers, rendered lines of text) and the
 * slots of hash tables (a vocabulary's words, a set of sentences).
 *
 * Fowler-Noll-Vo 1a over 64 bits: start from the offset basis, then for
 * each byte h = (h ^ byte) * prime. The multiply carries each bit of the
 * input into the bits above it, never below (see tf_fnv_fold).
 * Seedable: begin at TF_FNV_SEED, at TF_FNV_SEED with a tag or a size
 * folded in, or at an earlier hash to go on from it. tf_fnv_word takes a
 * whole word (an int, a float's bits) in one step instead of byte by
 * byte: a cheaper key of the same kind for numbers. */
#ifndef TF_HASH_H
#define TF_HASH_H

#include <stddef.h>
#include <stdint.h>

#define TF_FNV_SEED 14695981039346656037ull /* the 64-bit offset basis */
#define TF_FNV_PRIME 1099511628211ull

/* n bytes from p folded into h. */
static inline uint64_t tf_fnv_bytes(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * TF_FNV_PRIME;
    return h;
}

/* One word folded into h in one step. */
static inline uint64_t tf_fnv_word(uint64_t h, uint64_t w)
{
    return (h ^ w) * TF_FNV_PRIME;
}

/* n ints folded into h, a word each. */
static inline uint64_t tf_fnv_ints(uint64_t h, const int *a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = tf_fnv_word(h, (uint32_t)a[i]);
    return h;
}

/* A hash folded to 32 bits for a table of 2^k slots indexed by its low
 * bits. FNV's multiply never carries downward, so ids that differ only
 * above their low byte (a one-word key) leave the low bits alike;
 * MurmurHash3's finalizer (fmix64) spreads every bit over all of them
 * first. */
static inline uint32_t tf_fnv_fold(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return (uint32_t)h;
}

#endif
