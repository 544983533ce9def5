/* clock.h - the one clock the program measures time with: seconds on the
 * monotonic clock, which never jumps when the wall clock is set, so a
 * difference of two readings is a duration (a training step, a frame's
 * budget, a benchmark's repetition); and beside it the thread's CPU time,
 * which benchmarks and growth tests read on a busy machine. */
#ifndef TF_CLOCK_H
#define TF_CLOCK_H

/* Seconds since some fixed moment (CLOCK_MONOTONIC): only differences
 * mean anything. */
double tf_seconds(void);

/* The calling thread's CPU seconds (CLOCK_THREAD_CPUTIME_ID): what a piece
 * of work costs on a shared machine, where time spent waiting for a core
 * is not counted (and neither is a helper thread's work). */
double tf_thread_seconds(void);

#endif
