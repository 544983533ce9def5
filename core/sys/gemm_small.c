/* gemm_small.c - C = A B^T for a few rows of A (gemm_small.h).
 *
 * At one sentence every Linear of the pass has 32 rows (M) against a weight
 * matrix B of N rows of K, read once: cblas_sgemm first copies B into its
 * own panel layout on every call, a second pass over hundreds of megabytes
 * that the arithmetic does not need. Here B is read where it lies.
 *
 * The product is computed transposed, C^T = B A^T, with A^T packed once per
 * call (K x M, M padded to whole vectors of 16 floats; a few hundred KB at
 * most). For each block of NR output columns j and each k, B[j][k] is
 * broadcast and multiplied into the vectors of A^T[k] (all M rows at once),
 * accumulating the NR x M block of C^T in registers; the block is then
 * transposed into C through a small tile, where alpha, beta, the bias and
 * ReLU are applied. Each weight is loaded exactly once; A^T stays in the
 * cache. Every element of C is the same sum in the same order whatever the
 * block or thread it falls in, so sharing the columns between the two cores
 * (par_two, each taking chunks of columns as it goes) gives the same bits as
 * one core.
 *
 * Kernels for AVX-512F and for AVX2 + FMA, chosen at run time by
 * __builtin_cpu_supports (the build stays plain x86-64); elsewhere
 * gemm_small returns -1 and the caller uses cblas_sgemm. */
#include "gemm_small.h"

#include "cpu.h"
#include "parallel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static atomic_int g_mode = 1; /* gemm_small_set */

int gemm_small_set(int mode)
{
    return atomic_exchange(&g_mode, mode);
}

typedef void (*KernFn)(const float *At, const float *B, size_t ldb, int K, float *tile);
typedef struct SmallJob SmallJob;

/* The kernels for MV vectors of rows: the widest block of NR columns, a
 * narrower one of NT columns for the ragged edge (NULL where NR is already
 * narrow) and a one-column kernel. */
typedef struct Blocks {
    KernFn wide;
    int nr;
    KernFn tail;
    int nt;
    KernFn one;
} Blocks;

/* One instruction set's kernels, by MV (1 .. MAXV). */
typedef struct Isa {
    int VL, MAXV; /* floats per vector, vectors of rows at most */
    void (*store)(const SmallJob *j, const float *tile, int n0, int nr);
    Blocks mv[5];
} Isa;

struct SmallJob {
    const Isa *isa;
    const float *At; /* (K, MP) A transposed, MP = MV * VL */
    const float *B;
    const float *bias;
    float *C;
    float alpha, beta;
    int M, N, K, MV, ldb, ldc, relu;
    int blocks;        /* N / NR whole blocks, the last one taking the edge */
    atomic_int *next;  /* the next block to take (SmallNext) */
};

/* The counter both threads take blocks from, on a cache line of its own:
 * in the job, every take moved the line holding the job's fields to the
 * other core (7% of a 512 x 512 product at 32 rows). */
typedef struct SmallNext {
    _Alignas(64) atomic_int next;
    char pad[64 - sizeof(atomic_int)];
} SmallNext;

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang_analyzer__)
#include <immintrin.h>
#define HAVE_KERNELS 1

/* Prefetching: each weight row two cache lines ahead into L1 (the best of
 * 0, 32, 64 and 128 floats), and the same line of the next block's rows
 * into L2 (on cold weights, 2048 x 512 at 32 rows 0.60 -> 0.52 ms, 37000 x
 * 512 10.7 -> 9.5 ms on one core). */
#define PF_AHEAD 32

/* One step k with the MV row vectors of A^T[k] loaded first (AVX-512: MV
 * registers of A beside NR x MV accumulators) ... */
#define STEP_A(VT, VLc, LOAD, SET1, FMA, MVc, NRc)                                                 \
    VT a[MVc];                                                                                 \
    _Pragma("GCC unroll 8") for (int v = 0; v < MVc; v++)                                     \
        a[v] = LOAD(At + ((size_t)k * MVc + v) * VLc);                                         \
    _Pragma("GCC unroll 16") for (int j = 0; j < NRc; j++) {                                  \
        VT b = SET1(B[(size_t)j * ldb + k]);                                                   \
        _Pragma("GCC unroll 8") for (int v = 0; v < MVc; v++)                                 \
            acc[j][v] = FMA(a[v], b, acc[j][v]);                                               \
    }
/* ... or with the NR broadcasts first and one row vector at a time (NR
 * registers of B instead: for the 16 registers of AVX2). */
#define STEP_B(VT, VLc, LOAD, SET1, FMA, MVc, NRc)                                                 \
    VT b[NRc];                                                                                 \
    _Pragma("GCC unroll 16") for (int j = 0; j < NRc; j++)                                    \
        b[j] = SET1(B[(size_t)j * ldb + k]);                                                   \
    _Pragma("GCC unroll 8") for (int v = 0; v < MVc; v++) {                                   \
        VT a = LOAD(At + ((size_t)k * MVc + v) * VLc);                                         \
        _Pragma("GCC unroll 16") for (int j = 0; j < NRc; j++)                                \
            acc[j][v] = FMA(a, b[j], acc[j][v]);                                               \
    }

/* tile (NR, MV * VL) = B[0..NR)(K) . At(K, MV * VL): NR columns of C^T,
 * each element summed over k in order with one fused multiply-add a step
 * (the same bits from either instruction set and either step). */
#define DEF_KERNEL(NAME, TGT, VT, VLc, ZERO, LOAD, SET1, FMA, STORE, MVc, NRc, STEP)        \
    static TGT void NAME(const float *At, const float *B, size_t ldb, int K, float *tile)      \
    {                                                                                          \
        VT acc[NRc][MVc];                                                                      \
        _Pragma("GCC unroll 16") for (int j = 0; j < NRc; j++)                                \
            _Pragma("GCC unroll 8") for (int v = 0; v < MVc; v++)                             \
                acc[j][v] = ZERO();                                                            \
        for (int k = 0; k < K; k++) {                                                          \
            if ((k & 15) == 0) /* once a cache line of each weight row */                 \
                _Pragma("GCC unroll 16") for (int j = 0; j < NRc; j++) {                      \
                    _mm_prefetch((const char *)(B + (size_t)j * ldb + k + PF_AHEAD), _MM_HINT_T0); \
                    _mm_prefetch((const char *)(B + (size_t)(j + NRc) * ldb + k), _MM_HINT_T1); \
                }                                                                              \
            STEP(VT, VLc, LOAD, SET1, FMA, MVc, NRc)                                           \
        }                                                                                      \
        _Pragma("GCC unroll 16") for (int j = 0; j < NRc; j++)                                \
            _Pragma("GCC unroll 8") for (int v = 0; v < MVc; v++)                             \
                STORE(tile + ((size_t)j * MVc + v) * VLc, acc[j][v]);                          \
    }

#define T512 __attribute__((target("avx512f")))
#define K512(MVc, NRc)                                                                          \
    DEF_KERNEL(k512_##MVc##_##NRc, T512, __m512, 16, _mm512_setzero_ps, _mm512_load_ps,        \
               _mm512_set1_ps, _mm512_fmadd_ps, _mm512_storeu_ps, MVc, NRc, STEP_A)
#define T256 __attribute__((target("avx2,fma")))
#define K256(MVc, NRc)                                                                          \
    DEF_KERNEL(k256_##MVc##_##NRc, T256, __m256, 8, _mm256_setzero_ps, _mm256_load_ps,         \
               _mm256_set1_ps, _mm256_fmadd_ps, _mm256_storeu_ps, MVc, NRc, STEP_A)

/* AVX-512: 32 registers, NR x MV accumulators up to 24. NR stays <= 16,
 * the unroll count above: a 24-column block was left a rolled loop over
 * accumulators in memory (2048 x 512 at 16 rows: 23 GFLOP/s, below
 * OpenBLAS's 29; as 16 columns unrolled, 56). */
K512(1, 16) K512(2, 12) K512(3, 8) K512(4, 6)
K512(1, 1) K512(2, 1) K512(3, 1) K512(4, 1)
K512(1, 4) K512(2, 4) K512(3, 4) K512(4, 4)
#define K256B(MVc, NRc)                                                                         \
    DEF_KERNEL(k256b_##MVc##_##NRc, T256, __m256, 8, _mm256_setzero_ps, _mm256_load_ps,        \
               _mm256_set1_ps, _mm256_fmadd_ps, _mm256_storeu_ps, MVc, NRc, STEP_B)

/* AVX2: 16 registers, NR x MV accumulators up to 12, with MV row vectors or
 * NR broadcasts live; up to 32 rows (at 40 and more, OpenBLAS's Haswell
 * kernels were faster: 2048 x 512 at 40 rows 41 vs 38 GFLOP/s, at 64 rows
 * 48 vs 34, where at 8 rows it was 17 vs 29 and at 32 rows 42 vs 49) */
K256(1, 12) K256(2, 6) K256B(3, 3) K256B(4, 3)
K256(1, 1) K256(2, 1) K256(3, 1) K256(4, 1)
K256(1, 4) K256(2, 3)

/* C[., n0 .. n0+nr) from the tile (nr, MP), nr <= 16: row m of the block is
 * column m of the tile, gathered at stride MP */
static T512 void store512(const SmallJob *j, const float *tile, int n0, int nr)
{
    int MP = j->MV * 16;
    __mmask16 k = (__mmask16)((1u << nr) - 1);
    __m512i idx = _mm512_mullo_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                                     _mm512_set1_epi32(MP));
    __m512 alpha = _mm512_set1_ps(j->alpha), beta = _mm512_set1_ps(j->beta), zero = _mm512_setzero_ps();
    __m512 bias = j->bias ? _mm512_maskz_loadu_ps(k, j->bias + n0) : zero;
    for (int m = 0; m < j->M; m++) {
        float *c = j->C + (size_t)m * j->ldc + n0;
        __m512 x = _mm512_mask_i32gather_ps(zero, k, idx, tile + m, 4);
        x = _mm512_mul_ps(x, alpha);
        if (j->beta != 0)
            x = _mm512_fmadd_ps(beta, _mm512_maskz_loadu_ps(k, c), x);
        x = _mm512_add_ps(x, bias);
        if (j->relu)
            x = _mm512_max_ps(x, zero);
        _mm512_mask_storeu_ps(c, k, x);
    }
}

/* the same one element at a time (the AVX2 path): the same operations in
 * the same order, so the same bits */
static T256 void store256(const SmallJob *j, const float *tile, int n0, int nr)
{
    int MP = j->MV * 8;
    for (int m = 0; m < j->M; m++) {
        float *c = j->C + (size_t)m * j->ldc + n0;
        for (int q = 0; q < nr; q++) {
            float x = tile[(size_t)q * MP + m] * j->alpha;
            if (j->beta != 0)
                x = __builtin_fmaf(j->beta, c[q], x);
            x += j->bias ? j->bias[n0 + q] : 0.0f;
            if (j->relu)
                x = x > 0.0f ? x : 0.0f;
            c[q] = x;
        }
    }
}

/* kernel P_MV_N and its N columns */
#define BLK(P, MV, N) P##_##MV##_##N, N
static const Isa AVX512 = {16, 4, store512,
                           {[1] = {BLK(k512, 1, 16), BLK(k512, 1, 4), k512_1_1},
                            [2] = {BLK(k512, 2, 12), BLK(k512, 2, 4), k512_2_1},
                            [3] = {BLK(k512, 3, 8), BLK(k512, 3, 4), k512_3_1},
                            [4] = {BLK(k512, 4, 6), BLK(k512, 4, 4), k512_4_1}}};
static const Isa AVX2 = {8, 4, store256,
                         {[1] = {BLK(k256, 1, 12), BLK(k256, 1, 4), k256_1_1},
                          [2] = {BLK(k256, 2, 6), BLK(k256, 2, 3), k256_2_1},
                          [3] = {BLK(k256b, 3, 3), NULL, 0, k256_3_1},
                          [4] = {BLK(k256b, 4, 3), NULL, 0, k256_4_1}}};
#undef BLK

/* The kernels for this CPU and mode, or NULL. */
static const Isa *pick_isa(int mode)
{
    int level = cpu_vec_level();
    if (mode == GEMM_SMALL_OFF || level == CPU_VEC_NONE)
        return NULL;
    return level == CPU_VEC_AVX512 && mode != GEMM_SMALL_AVX2 ? &AVX512 : &AVX2;
}

/* At[k][m] = A[m][k] for the M rows, padding rows m in M..MP zero: 4 x 4
 * blocks transposed in SSE registers (x86-64's baseline), 64 k at a time so
 * that the rows of A are read along their length and the block written
 * stays in the L1 cache. This runs on the calling thread alone, before the
 * columns are shared. */
static void pack_transposed(float *At, int MP, const float *A, int lda, int M, int K)
{
    int M4 = M & ~3;
    for (int k0 = 0; k0 < K; k0 += 64) {
        int k1 = k0 + 64 < K ? k0 + 64 : K, k4 = k0 + ((k1 - k0) & ~3);
        for (int m = 0; m < M4; m += 4) {
            const float *a = A + (size_t)m * lda;
            for (int k = k0; k < k4; k += 4) {
                __m128 r0 = _mm_loadu_ps(a + k), r1 = _mm_loadu_ps(a + lda + k);
                __m128 r2 = _mm_loadu_ps(a + 2 * (size_t)lda + k), r3 = _mm_loadu_ps(a + 3 * (size_t)lda + k);
                _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
                float *t = At + (size_t)k * MP + m;
                _mm_storeu_ps(t, r0);
                _mm_storeu_ps(t + MP, r1);
                _mm_storeu_ps(t + 2 * (size_t)MP, r2);
                _mm_storeu_ps(t + 3 * (size_t)MP, r3);
            }
            for (int k = k4; k < k1; k++)
                for (int i = 0; i < 4; i++)
                    At[(size_t)k * MP + m + i] = a[(size_t)i * lda + k];
        }
        for (int m = M4; m < M; m++)
            for (int k = k0; k < k1; k++)
                At[(size_t)k * MP + m] = A[(size_t)m * lda + k];
        for (int k = k0; k < k1; k++)
            for (int m = M; m < MP; m++)
                At[(size_t)k * MP + m] = 0.0f;
    }
}

/* columns [from, to) */
static void small_cols(const SmallJob *j, int from, int to)
{
    const Isa *I = j->isa;
    const Blocks *k = &I->mv[j->MV];
    int NR = k->nr, MP = j->MV * I->VL;
    float tile[24 * 16] __attribute__((aligned(64)));
    int n = from;
    for (; n + NR <= to; n += NR) {
        k->wide(j->At, j->B + (size_t)n * j->ldb, (size_t)j->ldb, j->K, tile);
        for (int q = 0; q < NR; q += 16) /* at most 16 columns a store */
            I->store(j, tile + (size_t)q * MP, n + q, NR - q < 16 ? NR - q : 16);
    }
    for (int NT = k->nt; NT && n + NT <= to; n += NT) {
        k->tail(j->At, j->B + (size_t)n * j->ldb, (size_t)j->ldb, j->K, tile);
        I->store(j, tile, n, NT);
    }
    for (; n < to; n++) {
        k->one(j->At, j->B + (size_t)n * j->ldb, (size_t)j->ldb, j->K, tile);
        I->store(j, tile, n, 1);
    }
}

/* Both threads take chunks of blocks until none is left, each a quarter
 * of what is left (at least one block): a thread that loses its core for a
 * while (the machine is shared) holds up nobody, and a product of a few
 * dozen blocks takes about ten chunks, not one per block. */
static void small_part(void *p, int part)
{
    (void)part;
    const SmallJob j = *(const SmallJob *)p; /* read here, not from the caller's line */
    int NR = j.isa->mv[j.MV].nr;
    int cur = atomic_load_explicit(j.next, memory_order_relaxed), take;
    for (;;) {
        do {
            if (cur >= j.blocks)
                return;
            take = (j.blocks - cur) / 4;
            take = take < 1 ? 1 : take;
        } while (!atomic_compare_exchange_weak(j.next, &cur, cur + take));
        int to = cur + take == j.blocks ? j.N : (cur + take) * NR;
        small_cols(&j, cur * NR, to);
        cur = atomic_load_explicit(j.next, memory_order_relaxed);
    }
}

/* A^T's buffer, one per calling thread and kept between calls: allocated
 * anew, the 256 KB of a product over d_ff = 2048 came from mmap and were
 * faulted in and zeroed page by page on every call. Freed when the thread
 * ends. */
static pthread_key_t g_pack_key;
static pthread_once_t g_pack_once = PTHREAD_ONCE_INIT;
static int g_pack_ok;

typedef struct PackBuf {
    size_t cap; /* bytes */
    float *p;
} PackBuf;

static void pack_buf_free(void *v)
{
    PackBuf *b = v;
    free(b->p);
    free(b);
}

static void pack_key_make(void)
{
    g_pack_ok = pthread_key_create(&g_pack_key, pack_buf_free) == 0;
}

/* bytes (a multiple of 64) of 64-byte-aligned scratch for this thread, or NULL */
static float *pack_buf(size_t bytes)
{
    pthread_once(&g_pack_once, pack_key_make);
    if (!g_pack_ok)
        return NULL;
    PackBuf *b = pthread_getspecific(g_pack_key);
    if (!b) {
        b = calloc(1, sizeof *b);
        if (!b || pthread_setspecific(g_pack_key, b)) {
            free(b);
            return NULL;
        }
    }
    if (b->cap < bytes) {
        float *p = aligned_alloc(64, bytes);
        if (!p)
            return NULL;
        free(b->p);
        b->p = p;
        b->cap = bytes;
    }
    return b->p;
}

#else
#define HAVE_KERNELS 0
#endif

/* Products below this many multiply-adds stay on one core. */
#define SMALL_SPLIT_MIN (1 << 18)

int gemm_small_rows(void)
{
#if HAVE_KERNELS
    const Isa *I = pick_isa(atomic_load(&g_mode));
    if (I)
        return I->VL * I->MAXV < GEMM_SMALL_MAX_M ? I->VL * I->MAXV : GEMM_SMALL_MAX_M;
#endif
    return 0;
}

int gemm_small(int M, int N, int K, float alpha, const float *A, int lda,
               const float *B, int ldb, float beta, float *C, int ldc,
               const float *bias, int relu)
{
#if HAVE_KERNELS
    const Isa *I = pick_isa(atomic_load(&g_mode));
    if (M < 1 || M > GEMM_SMALL_MAX_M || N < 1 || K < 1 || !I)
        return -1;
    int VL = I->VL, MV = (M + VL - 1) / VL, MP = MV * VL;
    if (MV > I->MAXV)
        return -1;
    float *At = pack_buf(((size_t)K * MP * sizeof(float) + 63) & ~(size_t)63);
    if (!At)
        return -1;
    pack_transposed(At, MP, A, lda, M, K);
    SmallNext next = {0};
    int NR = I->mv[MV].nr, blocks = N / NR;
    SmallJob j = {I, At, B, bias, C, alpha, beta, M, N, K, MV, ldb, ldc, relu, blocks, &next.next};
    if ((double)M * N * K >= SMALL_SPLIT_MIN && blocks >= 2) {
        par_two(small_part, &j);
    } else {
        small_cols(&j, 0, N);
    }
    return 0;
#else
    (void)M; (void)N; (void)K; (void)alpha; (void)A; (void)lda; (void)B; (void)ldb;
    (void)beta; (void)C; (void)ldc; (void)bias; (void)relu;
    return -1;
#endif
}
