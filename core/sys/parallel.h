/* parallel.h - the second core for matrix products.
 *
 * OpenBLAS's own threads gain little on the products a Transformer makes at
 * small batch sizes (32 x 1536 x 512 and the like: on this machine its two
 * threads ran no faster than one), so Stepformer runs OpenBLAS single-
 * threaded and splits each large product in two itself: one half on the
 * calling thread, the other on one helper thread that spins briefly between
 * products and then sleeps (no CPU while idle). Code that runs its own two
 * threads of products (the trainer's shards, evaluation) claims the helper
 * first, so that products are never split inside an already split job.
 * Where to split depends only on the product's shape, so the same inputs
 * give the same bits on every run (a split product can differ from an
 * unsplit one in the last bit: the kernel may add in another order at
 * panel edges). */
#ifndef TF_PARALLEL_H
#define TF_PARALLEL_H

#include "err.h"

/* Run fn(ctx, part) for part 0 and 1, part 1 on the helper thread when it is
 * free; returns 1 when split, 0 when both parts ran here (helper busy,
 * claimed or unavailable, or it had not started part 1 by the time part 0
 * was done: on a loaded machine the caller does not wait a time slice for
 * it). */
int par_two(void (*fn)(void *ctx, int part), void *ctx);

/* Keep the helper for yourself (0 if someone else has it) / give it back. */
int par_claim(void);
void par_release(void);

/* fn(a) on this thread and fn(b) on a thread of its own, side by side, with
 * the helper claimed meanwhile (waiting for it) so that neither splits its
 * products again; 0, or -1 when that thread could not start (then neither
 * ran). */
int par_run_pair(void *(*fn)(void *), void *a, void *b);

/* This thread runs its products alone (1) or may share them with the
 * helper (0, the default); returns the previous setting. A thread that is
 * one of two already running side by side (the trainer's shards) sets it:
 * a product it makes is then one call, not two halves one after the other
 * (the helper being held, par_two would run both halves here: twice the
 * calls for the same work, 256-row products of the classroom model cut in
 * two). Its results then depend on the shapes alone, as ever: par_two
 * and op_gemm never split on this thread. */
int par_solo(int on);
int par_is_solo(void);

/* Make OpenBLAS single-threaded (done once, at the first product), on the
 * kernels the CPU supports (see parallel.c). */
void par_init(void);

/* Under an address-space limit (RLIMIT_AS, ulimit -v) OpenBLAS would
 * retry its 128 MiB work buffers forever: call this before the first
 * product. 0 when there is room for them (they are taken at once, and
 * par_init has run), else -1 with the figures. */
int par_blas_room(TfErr *err);

/* The OpenBLAS kernel set in use (after par_init), e.g. "SkylakeX". */
const char *par_blas_kernels(void);

#endif
