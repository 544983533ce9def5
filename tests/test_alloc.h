/* test_alloc.h - counting the program's heap allocations in a test.
 *
 * malloc, calloc and realloc are wrapped (the program's own definitions
 * come before glibc's) and counted while g_counting is set, when they are
 * called from this executable's code on the counting thread (what a shared
 * library such as SDL's renderer does inside itself is its own business).
 * Include it in one test program only, once. */
#ifndef TESTS_TEST_ALLOC_H
#define TESTS_TEST_ALLOC_H

#include <stddef.h>

/* Only the drawing thread counts: the train view's worker may be setting
 * up its data set at the same moment, and that is not the frame's doing. */
static __thread int g_counting;
static long g_allocs;

/* AddressSanitizer owns malloc itself: under it (make test SANITIZE=1)
 * nothing is wrapped and the count is skipped. */
#ifndef __SANITIZE_ADDRESS__
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);

extern char __executable_start[], etext[];

/* Count a call made from this executable's code. */
static inline void count(const void *caller)
{
    if (g_counting && (const char *)caller >= __executable_start && (const char *)caller < etext)
        __atomic_add_fetch(&g_allocs, 1, __ATOMIC_RELAXED);
}

void *malloc(size_t n)
{
    count(__builtin_return_address(0));
    return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
    count(__builtin_return_address(0));
    return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
    count(__builtin_return_address(0));
    return __libc_realloc(p, n);
}

#endif

#endif
