/* parallel.c - one helper thread for matrix products (see parallel.h). */
#include "parallel.h"
#include "clock.h"
#include "sysmem.h"

#include <cblas.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <strings.h>

static struct {
    pthread_once_t once;
    int ok;
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    atomic_int owned;    /* someone holds the helper */
    atomic_int posted;   /* a job waits for the helper */
    atomic_int done;     /* the helper finished its part */
    void (*fn)(void *, int);
    void *ctx;
} P = {PTHREAD_ONCE_INIT, 0, 0, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
       0, 0, 0, NULL, NULL};

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Products come in quick succession during a pass: spin a little while
 * (0.2 ms) before sleeping, so the next one starts at once. */
static void *helper(void *unused)
{
    (void)unused;
    for (;;) {
        double until = tf_seconds() + 2e-4;
        while (!atomic_load_explicit(&P.posted, memory_order_acquire) && tf_seconds() < until)
            cpu_relax();
        if (!atomic_load_explicit(&P.posted, memory_order_acquire)) {
            pthread_mutex_lock(&P.mu);
            while (!atomic_load(&P.posted))
                pthread_cond_wait(&P.cv, &P.mu);
            pthread_mutex_unlock(&P.mu);
        }
        int one = 1; /* take the job, unless its caller took it back */
        if (!atomic_compare_exchange_strong(&P.posted, &one, 0))
            continue;
        P.fn(P.ctx, 1);
        atomic_store_explicit(&P.done, 1, memory_order_release);
    }
    return NULL;
}

/* OpenBLAS built for many CPUs (DYNAMIC_ARCH, as Debian ships it) picks its
 * kernels by CPU model number, and a release older than the CPU does not
 * know it: 0.3.21 takes this machine's Xeon (family 6, model 207) for a
 * Prescott and runs SSE3 kernels without FMA, a quarter of what the
 * vector units do. When it fell back so and the CPU has the instructions
 * of a newer kernel set, select that one by its features, the way
 * OPENBLAS_CORETYPE would at start-up. A user's OPENBLAS_CORETYPE is left
 * alone; libraries without the dynamic entry points are left alone. */
extern void gotoblas_dynamic_init(void) __attribute__((weak));
extern void gotoblas_dynamic_quit(void) __attribute__((weak));

static void pick_kernels(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    const char *name = openblas_get_corename();
    if (!gotoblas_dynamic_init || !gotoblas_dynamic_quit || getenv("OPENBLAS_CORETYPE") ||
        !name || strcasecmp(name, "prescott") != 0)
        return;
    __builtin_cpu_init();
    const char *want = NULL;
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl"))
        want = "SkylakeX";
    else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        want = "Haswell";
    if (!want)
        return;
    setenv("OPENBLAS_CORETYPE", want, 1);
    gotoblas_dynamic_quit();
    gotoblas_dynamic_init();
    unsetenv("OPENBLAS_CORETYPE");
#endif
}

/* OpenBLAS (x86_64) takes a work buffer of 128 MiB + a page from its pool
 * for each product that runs while others hold theirs, and when the pool
 * must grow and the allocation fails it retries forever. Two threads make
 * products here, the caller and the helper (a thread OpenBLAS would start
 * for itself takes one more: the program runs it with
 * OPENBLAS_NUM_THREADS=1 under a limit, see app/cli/main.c). So under a
 * limit, room for two buffers and a margin is tried with one allocation,
 * and then the pool is filled with its two buffers at once, before the
 * model and the traces take the room: later products find them there. */
#define PAR_BLAS_BUFFER (((size_t)128 << 20) + 4096)
#define PAR_BLAS_NEED (2 * PAR_BLAS_BUFFER + ((size_t)32 << 20))

extern void *blas_memory_alloc(int procpos) __attribute__((weak));
extern void blas_memory_free(void *buffer) __attribute__((weak));

int par_blas_room(TfErr *err)
{
    if (tf_addr_space_left() == (size_t)-1)
        return 0; /* no limit */
    void *p = malloc(PAR_BLAS_NEED); /* mmap'ed: address space only, nothing touched */
    free(p);
    if (!p)
        return tf_fail(err, "the address-space limit (ulimit -v) leaves %zu MiB; OpenBLAS's work buffers need "
                       "%zu MiB: raise the limit", tf_addr_space_left() >> 20, PAR_BLAS_NEED >> 20);
    if (blas_memory_alloc && blas_memory_free) { /* two held at once: two in the pool */
        void *a = blas_memory_alloc(0), *b = blas_memory_alloc(0);
        blas_memory_free(b);
        blas_memory_free(a);
    }
    par_init();
    return 0;
}

const char *par_blas_kernels(void)
{
    par_init();
    return openblas_get_corename();
}

static void start(void)
{
    pick_kernels();
    openblas_set_num_threads(1);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    P.ok = pthread_create(&P.th, &attr, helper, NULL) == 0;
    pthread_attr_destroy(&attr);
}

void par_init(void)
{
    pthread_once(&P.once, start);
}

int par_claim(void)
{
    par_init();
    int expected = 0;
    return atomic_compare_exchange_strong(&P.owned, &expected, 1);
}

void par_release(void)
{
    atomic_store(&P.owned, 0);
}

int par_run_pair(void *(*fn)(void *), void *a, void *b)
{
    while (!par_claim())
        sched_yield();
    pthread_t th;
    if (pthread_create(&th, NULL, fn, b) != 0) {
        par_release();
        return -1;
    }
    fn(a);
    pthread_join(th, NULL);
    par_release();
    return 0;
}

static _Thread_local int t_solo; /* par_solo */

int par_solo(int on)
{
    int was = t_solo;
    t_solo = on;
    return was;
}

int par_is_solo(void)
{
    return t_solo;
}

int par_two(void (*fn)(void *ctx, int part), void *ctx)
{
    if (t_solo) {
        fn(ctx, 0);
        fn(ctx, 1);
        return 0;
    }
    int claimed = par_claim();
    if (!claimed || !P.ok) { /* busy, or no thread: both parts here */
        if (claimed)
            par_release();
        fn(ctx, 0);
        fn(ctx, 1);
        return 0;
    }
    P.fn = fn;
    P.ctx = ctx;
    atomic_store(&P.done, 0);
    pthread_mutex_lock(&P.mu);
    atomic_store_explicit(&P.posted, 1, memory_order_release);
    pthread_cond_signal(&P.cv);
    pthread_mutex_unlock(&P.mu);
    fn(ctx, 0);
    /* On a busy machine the helper may not have run yet: then do its part
     * here rather than wait a time slice for it (the same two parts, so
     * the same bits). Once it has started, wait, yielding after a while. */
    int one = 1;
    if (atomic_compare_exchange_strong(&P.posted, &one, 0)) {
        fn(ctx, 1);
        par_release();
        return 0;
    }
    for (int spins = 0; !atomic_load_explicit(&P.done, memory_order_acquire); spins++)
        if (spins < 20000)
            cpu_relax();
        else
            sched_yield();
    par_release();
    return 1;
}
