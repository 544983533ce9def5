/* clock.c - seconds on the monotonic clock and the thread's CPU clock
 * (clock.h). */
#include "clock.h"

#include <time.h>

static double seconds_of(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

double tf_seconds(void)
{
    return seconds_of(CLOCK_MONOTONIC);
}

double tf_thread_seconds(void)
{
    return seconds_of(CLOCK_THREAD_CPUTIME_ID);
}
