/* fuzz_vocab.c - libFuzzer target for the vocabulary and the metadata
 * parser. Each input line is added with vocab_add (must be refused with a
 * message or found again under its id), the whole input is tokenised with
 * vocab_encode, and then the input is wrapped as the JSON header of a
 * safetensors file (8-byte length, header), so that the "__metadata__"
 * parsing - the vocabularies' JSON arrays, the config keys, the extra
 * metadata - meets any text. */
#include <stddef.h>
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"
#include "vocab.h"

static void fuzz_vocab_add(const uint8_t *data, size_t size)
{
    Vocab v;
    TfErr err;
    if (vocab_init(&v, size && (data[0] & 1) ? TOK_CHAR : TOK_WORD, &err))
        return;
    const char *s = (const char *)data;
    size_t at = 0;
    while (at < size) {
        const char *nl = memchr(s + at, '\n', size - at);
        size_t len = nl ? (size_t)(nl - (s + at)) : size - at;
        int id = vocab_add(&v, s + at, (int)(len > 100000 ? 100000 : len), &err);
        /* what was added is found again */
        assert(id < 0 || (vocab_find(&v, s + at, (int)len) == id && id < v.n));
        at += len + 1;
    }
    char *text = malloc(size + 1);
    if (text) {
        memcpy(text, data, size);
        text[size] = 0;
        int ids[64];
        TokSpan sp[64];
        int n = vocab_encode(&v, text, ids, sp, 64, NULL, &err);
        for (int i = 0; i < n && i < 64; i++)
            assert(ids[i] >= 0 && ids[i] < v.n); /* every id is in the vocabulary */
        free(text);
    }
    vocab_free(&v);
}

static void fuzz_header(const uint8_t *data, size_t size)
{
    uint8_t *buf = malloc(size + 8);
    if (!buf)
        return;
    uint64_t n = size;
    for (int i = 0; i < 8; i++)
        buf[i] = (uint8_t)(n >> (8 * i));
    memcpy(buf + 8, data, size);
    TfModel m;
    TfErr err;
    if (ckpt_load_mem(&m, buf, size + 8, "fuzz", &err) == 0)
        model_free(&m);
    else /* a refusal is one line that names the input */
        assert(strstr(err.msg, "fuzz") && !strchr(err.msg, '\n'));
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_vocab_add(data, size);
    fuzz_header(data, size);
    return 0;
}
