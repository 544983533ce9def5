/* blas_own.h - the two BLAS calls the engine makes, in plain C: what the
 * browser build links instead of OpenBLAS (tools/web/include/cblas.h maps
 * cblas_sgemm and cblas_sgemv onto these). Row-major only, as the engine
 * calls them. The inner loops run along contiguous rows so that the compiler
 * vectorises them (-msimd128 in the browser, SSE/AVX natively); with
 * __wasm_simd128__ the tile of C is kept in SIMD128 registers explicitly.
 * Natively they are compiled and tested against OpenBLAS (test_blas_own). */
#ifndef TF_BLAS_OWN_H
#define TF_BLAS_OWN_H

/* C (M x N, ldc) = alpha * op(A) op(B) + beta * C, op(X) = X or X^T:
 * op(A) is M x K, op(B) is K x N; ta/tb nonzero transpose. beta == 0 sets C
 * (NaN or Inf already in C do not survive), as BLAS does. */
void own_sgemm(int ta, int tb, int M, int N, int K, float alpha, const float *A, int lda, const float *B,
               int ldb, float beta, float *C, int ldc);

/* y (M) = alpha * A x + beta * y, A M x N row-major (lda); incx, incy 1. */
void own_sgemv(int M, int N, float alpha, const float *A, int lda, const float *x, float beta, float *y);

#endif
