/* topk.h - the k largest values of a row (a distribution's best tokens). */
#ifndef STEPFORMER_TOPK_H
#define STEPFORMER_TOPK_H

/* The k largest of p[0..n), best first (ties: the lower index first), by
 * insertion into a short sorted list. Returns how many were found
 * (min(k, n)); the slots after them, up to k, get id -1 and value 0. */
int tf_top_k(const float *p, int n, int k, int *ids, float *vals);

#endif
