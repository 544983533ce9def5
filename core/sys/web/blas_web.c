/* blas_web.c - the browser build's BLAS (tools/web/include/cblas.h): the
 * engine's cblas_sgemm and cblas_sgemv calls run on the project's own
 * kernels (core/sys/blas_own.c, SIMD128 with -msimd128). One thread: the
 * OpenBLAS thread controls are no-ops. */
#include <cblas.h>

#include "blas_own.h"

void cblas_sgemm(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb, int M, int N, int K,
                 float alpha, const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc)
{
    if (order == CblasRowMajor)
        own_sgemm(ta != CblasNoTrans, tb != CblasNoTrans, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    else /* C^T = op(B)^T op(A)^T in row-major terms */
        own_sgemm(tb != CblasNoTrans, ta != CblasNoTrans, N, M, K, alpha, B, ldb, A, lda, beta, C, ldc);
}

void cblas_sgemv(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE ta, int M, int N, float alpha, const float *A,
                 int lda, const float *x, int incx, float beta, float *y, int incy)
{
    (void)order, (void)ta, (void)incx, (void)incy; /* the engine calls it row-major, NoTrans, stride 1 */
    own_sgemv(M, N, alpha, A, lda, x, beta, y);
}

void openblas_set_num_threads(int n) { (void)n; }
int openblas_get_num_threads(void) { return 1; }
char *openblas_get_corename(void) { return (char *)"wasm-simd128"; }
