/* test_hash.c - the one hash (core/sys/hash.h): tf_fnv_bytes is FNV-1a over
 * 64 bits (the published test values), a hash goes on from where an earlier
 * one stopped, tf_fnv_ints takes a word per int, and tf_fnv_fold keeps the
 * high bits' mixing in the low ones a table indexes by. */
#include <string.h>

#include "hash.h"
#include "test_util.h"

static void test_published_values(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        uint64_t h;
    } CASES[] = {{"", 0xcbf29ce484222325ull},
                 {"a", 0xaf63dc4c8601ec8cull},
                 {"foobar", 0x85944171f73967e8ull}};
    for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++) {
        uint64_t h = tf_fnv_bytes(TF_FNV_SEED, CASES[i].s, strlen(CASES[i].s));
        expect_true(h == CASES[i].h, "FNV-1a(\"%s\"): expected %016llx, got %016llx", CASES[i].s,
                    (unsigned long long)CASES[i].h, (unsigned long long)h);
    }
}

static void test_goes_on_and_words(void **state)
{
    (void)state;
    uint64_t whole = tf_fnv_bytes(TF_FNV_SEED, "foobar", 6);
    uint64_t parts = tf_fnv_bytes(tf_fnv_bytes(TF_FNV_SEED, "foo", 3), "bar", 3);
    expect_true(whole == parts, "in two pieces: %016llx, whole: %016llx", (unsigned long long)parts,
                (unsigned long long)whole);
    const int a[3] = {7, -1, 42};
    uint64_t w = tf_fnv_word(tf_fnv_word(tf_fnv_word(TF_FNV_SEED, 7), 0xffffffffu), 42);
    expect_true(tf_fnv_ints(TF_FNV_SEED, a, 3) == w, "tf_fnv_ints = a word per int (-1 as 0xffffffff)");
    expect_true(tf_fnv_ints(TF_FNV_SEED, a, 3) != tf_fnv_ints(TF_FNV_SEED ^ 3, a, 3), "the seed matters");
}

static void test_fold_spreads_low_bits(void **state)
{
    (void)state;
    /* ids that differ only above their low byte land in different slots of
     * a 256-slot table once folded */
    int used[256] = {0}, n_used = 0;
    for (int i = 0; i < 64; i++) {
        int id = i << 8;
        uint32_t slot = tf_fnv_fold(tf_fnv_ints(TF_FNV_SEED, &id, 1)) & 255;
        n_used += !used[slot]++;
    }
    expect_true(n_used > 40, "64 ids fill %d of 256 slots (at least 41 expected)", n_used);
}

int main(void)
{
    TU_RUN(NULL, NULL,
           cmocka_unit_test(test_published_values),
           cmocka_unit_test(test_goes_on_and_words),
           cmocka_unit_test(test_fold_spreads_low_bits));
}
