/* fuzz_tsv.c - libFuzzer target for the TSV loader (tsv_load_stream on the
 * input through fmemopen): any byte string must load or fail with a message
 * naming the file, never crash, leak, or hold more memory than the input and
 * the 16 MiB line limit justify. The first byte picks the token modes and
 * the length limit, so word and character tokenisation are both fuzzed. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tsv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    TokMode sm = data[0] & 1 ? TOK_CHAR : TOK_WORD, tm = data[0] & 2 ? TOK_CHAR : TOK_WORD;
    int max_len = data[0] & 4 ? 8 : 0;
    data++, size--;
    FILE *f = size ? fmemopen((void *)data, size, "rb") : fopen("/dev/null", "rb");
    if (!f)
        return 0;
    Dataset d;
    TfErr err = {{0}};
    int bad = 0;
    if (tsv_load_stream(&d, f, "fuzz.tsv", sm, tm, max_len, 1, &bad, &err) == 0) {
        if (d.n_pairs < 1 || d.n_train > d.n_pairs || bad < 0)
            __builtin_trap();
        dataset_free(&d);
    } else if (!strstr(err.msg, "fuzz.tsv") && !strstr(err.msg, "out of memory")) {
        __builtin_trap(); /* every error names the file */
    }
    fclose(f);
    return 0;
}
