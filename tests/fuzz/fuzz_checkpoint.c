/* fuzz_checkpoint.c - libFuzzer target for the safetensors loader: any byte
 * string must load or fail with a message, never crash, leak or allocate
 * more than the input justifies. */
#include <stddef.h>
#include <stdint.h>

#include "checkpoint.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    TfModel m;
    TfErr err;
    if (ckpt_load_mem(&m, data, size, "fuzz", &err) == 0)
        model_free(&m);
    return 0;
}
