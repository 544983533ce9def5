/* cpu.c - the CPU's vector instructions (cpu.h). Not an ifunc: builds
 * under ThreadSanitizer cannot run ifunc resolvers. */
#include "cpu.h"

#include <stdatomic.h>

int cpu_vec_level(void)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    static atomic_int known = -1;
    int level = atomic_load_explicit(&known, memory_order_relaxed);
    if (level < 0) {
        __builtin_cpu_init();
        level = __builtin_cpu_supports("avx512f")                                     ? CPU_VEC_AVX512
                : __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? CPU_VEC_AVX2
                                                                                    : CPU_VEC_NONE;
        atomic_store_explicit(&known, level, memory_order_relaxed);
    }
    return level;
#else
    return CPU_VEC_NONE;
#endif
}
