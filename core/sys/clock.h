/* clock.h - the one clock the program measures time with: seconds on the
 * monotonic clock, which never jumps when the wall clock is set, so a
 * difference of two readings is a duration (a training step, a frame's
 * budget, a benchmark's repetition). */
#ifndef TF_CLOCK_H
#define TF_CLOCK_H

/* Seconds since some fixed moment (CLOCK_MONOTONIC): only differences
 * mean anything. */
double tf_seconds(void);

#endif
