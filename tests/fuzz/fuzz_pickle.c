/* fuzz_pickle.c - libFuzzer target for the torch.save pickle reader: any
 * byte string must give a table or fail with a message, never crash, leak
 * or run anything, and fail fast and small on stack, MARK and memo bombs.
 * Seeds: tests/fuzz/corpus_pickle/ (a real data.pkl, and the stack-depth
 * cases: deep lists, Nones and MARKs, flat appends, a far memo index). */
#include <stddef.h>
#include <stdint.h>

#include "pickle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    PkTable t;
    TfErr err;
    if (pk_parse(data, size, "fuzz", &t, &err) == 0)
        pk_table_free(&t);
    return 0;
}
