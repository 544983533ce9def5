/* gemm_small.h - matrix products of a few rows against a weight matrix,
 * read once where it lies (no repacking of the weights).
 *
 * C(M,N) = act(alpha * A(M,K) B(N,K)^T + beta * C + bias), row-major with
 * leading dimensions: a PyTorch Linear's product (B is its weight, [out, in])
 * for M <= GEMM_SMALL_MAX_M rows (GEMM_SMALL_MAX_M_AVX2 on a CPU with AVX2
 * but not AVX-512F: beyond, OpenBLAS was faster), split across the two cores by output
 * columns. bias (N) may be NULL; relu applies max(0, .) last. beta == 0
 * ignores C's old contents (NaN included), as BLAS does. The same inputs give
 * the same bits whether or not the work was split. */
#ifndef TF_GEMM_SMALL_H
#define TF_GEMM_SMALL_H

#define GEMM_SMALL_MAX_M 64
#define GEMM_SMALL_MAX_M_AVX2 32

/* 0 when done; -1 when this path does not apply (rows out of range, CPU
 * without AVX-512F or AVX2 + FMA, out of memory, or switched off): then
 * nothing was written and the caller computes the product another way. */
int gemm_small(int M, int N, int K, float alpha, const float *A, int lda,
               const float *B, int ldb, float beta, float *C, int ldc,
               const float *bias, int relu);

/* The most rows gemm_small takes on this CPU in this mode (0: none). A
 * row's result does not depend on how many rows go with it, so a product
 * done in pieces of at most this many rows has the bits of the same pieces
 * in any other grouping. */
int gemm_small_rows(void);

/* The path's mode, for side-by-side benchmarks and tests; returns the
 * previous one. AUTO (the default) takes the widest kernels the CPU has,
 * AVX2 the AVX2 + FMA kernels even where AVX-512F is there (they give the
 * same bits), OFF declines every call. */
enum { GEMM_SMALL_OFF = 0, GEMM_SMALL_AUTO = 1, GEMM_SMALL_AVX2 = 2 };
int gemm_small_set(int mode);

#endif
