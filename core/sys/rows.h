/* rows.h - a few rows times a weight matrix (the beam's step): out(r, n) +=
 * in(r, :) . w(n, :) for rows r < R (at most ROWS_MAX) and outputs
 * n0 <= n < n1 of N. Every weight row is read once for all R rows, with the
 * widest vectors the CPU has; a row's result does not depend on R. */
#ifndef STEPFORMER_ROWS_H
#define STEPFORMER_ROWS_H

#define ROWS_MAX 8

void rows_dot(float *out, const float *in, const float *w, int R, int K, int n0, int n1, int N);

/* The kernels by name, for tests and `bench`: rows_dot runs the best one
 * the CPU has (AVX-512, else AVX2 with FMA, else plain C). rows_dot_with
 * returns -1 when the CPU lacks that kernel. */
enum { ROWS_PLAIN, ROWS_AVX2, ROWS_AVX512, ROWS_NKERNELS };
int rows_best_kernel(void);
const char *rows_kernel_name(int kernel);
int rows_dot_with(int kernel, float *out, const float *in, const float *w, int R, int K, int n0,
                  int n1, int N);

#endif
