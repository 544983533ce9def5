/* fuzz_checkpoint.c - libFuzzer target for the safetensors loader: any byte
 * string must load or fail with a message, never crash, leak or allocate
 * more than the input justifies. The optimizer state of training
 * checkpoints is asked for too, so its checks are fuzzed as well. */
#include <stddef.h>
#include <stdint.h>

#include "checkpoint.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    TfModel m;
    CkptOptim opt;
    TfErr err;
    if (ckpt_load_mem_full(&m, &opt, data, size, "fuzz", &err) == 0) {
        model_free(&m);
        ckpt_optim_free(&opt);
    }
    return 0;
}
