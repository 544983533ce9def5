/* rng.h - a small seeded generator (xoshiro256**, seeded by splitmix64).
 *
 * The same seed gives the same stream on every machine, which is what makes
 * initialisation, task generation, dropout and batching reproducible. */
#ifndef TF_RNG_H
#define TF_RNG_H

#include <stddef.h>
#include <stdint.h>

typedef struct Rng {
    uint64_t s[4];
} Rng;

void rng_seed(Rng *r, uint64_t seed);
uint64_t rng_u64(Rng *r);
/* n successive rng_u64 values into out (faster than n calls). */
void rng_fill(Rng *r, uint64_t *out, size_t n);
/* Uniform integer in [0, n); n > 0. */
uint32_t rng_below(Rng *r, uint32_t n);
/* Uniform float in [0, 1). */
float rng_uniform(Rng *r);
/* Standard normal (Box-Muller). */
float rng_normal(Rng *r);
/* Shuffle a[0..n) in place (Fisher-Yates from the end). */
void rng_shuffle(Rng *r, int *a, int n);

#endif
