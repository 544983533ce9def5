/* test_clock.c - the one clock (core/sys/clock.c): tf_seconds never goes
 * back, and a sleep of 20 ms shows as at least 20 ms and not as seconds. */
#include <time.h>

#include "clock.h"
#include "test_util.h"

static void test_monotonic(void **state)
{
    (void)state;
    double prev = tf_seconds(), back = 0;
    for (int i = 0; i < 100000; i++) {
        double t = tf_seconds();
        if (t < prev && prev - t > back)
            back = prev - t;
        prev = t;
    }
    expect_true(back == 0, "the clock went back by %g s", back);
}

static void test_measures_a_sleep(void **state)
{
    (void)state;
    double t0 = tf_seconds();
    nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
    double dt = tf_seconds() - t0;
    expect_true(dt >= 0.02 && dt < 5.0, "a 20 ms sleep measured %g s", dt);
}

int main(void)
{
    TU_RUN(NULL, NULL,
           cmocka_unit_test(test_monotonic),
           cmocka_unit_test(test_measures_a_sleep));
}
