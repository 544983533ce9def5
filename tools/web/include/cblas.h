/* cblas.h - the browser build's stand-in for OpenBLAS's header: the calls
 * the engine makes, served by the project's own kernels (core/sys/blas_own.c
 * through core/sys/web/blas_web.c). Only row-major products occur. */
#ifndef STEPFORMER_WEB_CBLAS_H
#define STEPFORMER_WEB_CBLAS_H

enum CBLAS_ORDER { CblasRowMajor = 101, CblasColMajor = 102 };
enum CBLAS_TRANSPOSE { CblasNoTrans = 111, CblasTrans = 112, CblasConjTrans = 113 };
typedef enum CBLAS_ORDER CBLAS_ORDER;
typedef enum CBLAS_TRANSPOSE CBLAS_TRANSPOSE;

void cblas_sgemm(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb, int M, int N, int K,
                 float alpha, const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc);
void cblas_sgemv(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE ta, int M, int N, float alpha, const float *A,
                 int lda, const float *x, int incx, float beta, float *y, int incy);
void openblas_set_num_threads(int n);
int openblas_get_num_threads(void);
char *openblas_get_corename(void);

#endif
