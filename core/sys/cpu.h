/* cpu.h - which vector instructions this CPU has, asked once. The build
 * stays baseline x86-64; the few kernels written for wider vectors
 * (gemm_small, rows, softmax) are picked at run time through this. */
#ifndef TF_CPU_H
#define TF_CPU_H

enum { CPU_VEC_NONE = 0, CPU_VEC_AVX2 = 1 /* AVX2 with FMA */, CPU_VEC_AVX512 = 2 /* AVX-512F */ };

/* The widest of those the CPU runs (a pure function of the CPU: threads
 * racing to ask get the same answer). */
int cpu_vec_level(void);

#endif
