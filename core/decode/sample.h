/* sample.h - drawing the next token instead of taking the most probable:
 * softmax(z / T) with temperature T, restricted to the k most probable
 * tokens (top-k) and/or to the smallest set whose probability reaches p
 * (top-p, "nucleus"), renormalised. T -> 0 or k = 1 is greedy; T = 1 with
 * no restriction is the model's own distribution; a larger T flattens it.
 * Deterministic for a seed. */
#ifndef TF_SAMPLE_H
#define TF_SAMPLE_H

#include <stdint.h>

#include "err.h"
#include "rng.h"

typedef struct SampleOpts {
    float temperature; /* > 0; 1 the model's distribution */
    int top_k;         /* 0 no limit */
    float top_p;       /* in (0, 1]; 1 no limit */
} SampleOpts;

#define SAMPLE_T_MIN 0.01f
#define SAMPLE_T_MAX 100.0f

/* Check the options: a one-line error naming the bad value. */
int sample_check(const SampleOpts *o, TfErr *err);

/* A token and its probability, as top-k and top-p rank them. */
typedef struct SampleCand {
    float p;
    int id;
} SampleCand;

/* The distribution sampling draws from: out[V] = softmax(z / T) restricted
 * and renormalised (tokens outside the set get exactly 0). Tokens in
 * banned (may be NULL, V flags) are never drawn (e.g. <pad>, <bos>).
 * work (V entries, the caller's: nothing is allocated per token) is used
 * for top-k and top-p, which select the best tokens without sorting the
 * whole vocabulary. Returns the size of the set. */
int sample_dist(const float *logits, int V, const SampleOpts *o, const unsigned char *banned,
                float *out, SampleCand *work);

/* Draw one token from that distribution; scratch holds V floats, work V
 * candidates. */
int sample_token(const float *logits, int V, const SampleOpts *o, const unsigned char *banned,
                 Rng *rng, float *scratch, SampleCand *work);

#endif
