/* rng.c - xoshiro256** seeded with splitmix64 (see rng.h). */
#include "rng.h"

#include <math.h>

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void rng_seed(Rng *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t rng_u64(Rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

void rng_fill(Rng *r, uint64_t *out, size_t n)
{
    Rng local = *r; /* the state in registers for the whole loop */
    for (size_t i = 0; i < n; i++)
        out[i] = rng_u64(&local);
    *r = local;
}

uint32_t rng_below(Rng *r, uint32_t n)
{
    /* Lemire's multiply-shift; the tiny bias is irrelevant here. */
    return (uint32_t)(((rng_u64(r) >> 32) * (uint64_t)n) >> 32);
}

float rng_uniform(Rng *r)
{
    return (float)(rng_u64(r) >> 40) * (1.0f / 16777216.0f);
}

float rng_normal(Rng *r)
{
    double u1 = ((double)(rng_u64(r) >> 11) + 1.0) * (1.0 / 9007199254740993.0);
    double u2 = (double)(rng_u64(r) >> 11) * (1.0 / 9007199254740992.0);
    return (float)(sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
}

void rng_shuffle(Rng *r, int *a, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)rng_below(r, (uint32_t)i + 1), t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}
