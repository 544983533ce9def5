/* fuzz_marian.c - libFuzzer target for the MarianMT folder's JSON readers:
 * the input (cut at its first 0xff byte into config.json and
 * generation_config.json) goes through marian_config_parse, and the whole
 * input through marian_vocab_parse, with the vocabulary size from the
 * config when it parsed and from the ids otherwise. A refusal is one line
 * naming the file; an accepted config is within the engine's limits, an
 * accepted vocabulary holds exactly its size in tokens. */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "marian.h"

static void one_line(const TfErr *err, const char *file)
{
    assert(strstr(err->msg, file) && !strchr(err->msg, '\n'));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    const uint8_t *cut = memchr(data, 0xff, size);
    size_t n = cut ? (size_t)(cut - data) : size;
    TfConfig c;
    TfErr err;
    int V = 0;
    if (marian_config_parse(s, n, cut ? s + n + 1 : NULL, cut ? size - n - 1 : 0, &c, &err) == 0) {
        assert(c.d_model > 0 && c.d_model <= TF_MAX_DMODEL && c.n_heads > 0 && c.d_model % c.n_heads == 0);
        assert(c.tgt_vocab > 0 && c.tgt_vocab <= TF_MAX_VOCAB && c.max_len > 0 && c.max_len <= TF_MAX_LEN);
        assert(c.ids.pad >= 0 && c.ids.pad < c.tgt_vocab && c.ids.start >= 0 && c.ids.start < c.tgt_vocab);
        V = c.tgt_vocab;
    } else {
        one_line(&err, "config.json");
    }
    Vocab v;
    if (marian_vocab_parse(s, size, &v, V, &err) == 0) {
        assert(v.n > 0 && (V == 0 || v.n == V));
        vocab_free(&v);
    } else {
        one_line(&err, "vocab.json");
    }
    return 0;
}
