/* sysmem.h - how much memory the process may still take, so that a request
 * that cannot fit is refused up front with a message instead of being
 * killed by the kernel half-way. */
#ifndef TF_SYSMEM_H
#define TF_SYSMEM_H

#include <stddef.h>

#include "err.h"

/* Bytes the process can still allocate: the smaller of the machine's
 * available memory (MemAvailable of /proc/meminfo, else free pages) and
 * what the address-space limit (RLIMIT_AS) leaves over the current size.
 * STEPFORMER_MEM_LIMIT (bytes, for tests) caps it further. */
size_t tf_mem_available(void);

/* Address space the RLIMIT_AS limit (ulimit -v) still leaves, or SIZE_MAX
 * without a limit. */
size_t tf_addr_space_left(void);

/* 0 if `bytes` fit in what is available (with a margin for the rest of
 * the program: a tenth), else -1 with "WHAT needs X MiB; Y MiB are
 * available, of which Z may be used (a tenth is kept ...)". */
int tf_mem_check(size_t bytes, const char *what, TfErr *err);

/* realloc that keeps the old block when it fails: the grown block, or old
 * itself with *bad set. Several arrays grow one after the other and are
 * checked once, and none is lost on the way. */
void *tf_regrow(void *old, size_t bytes, int *bad);

#endif
