/* batch.c - the one padded-batch builder (see batch.h). */
#include "batch.h"

#include <stdlib.h>
#include <string.h>

int batch_build(PadBatch *b, int cap_B, int cap_T, TfErr *err)
{
    memset(b, 0, sizeof *b);
    size_t BT = (size_t)cap_B * cap_T;
    b->block = malloc((3 * BT + 2 * (size_t)cap_B) * sizeof(int));
    if (!b->block)
        return tf_fail(err, "out of memory for a batch of %d x %d", cap_B, cap_T);
    int *p = b->block;
    *b = (PadBatch){.cap_B = cap_B, .cap_T = cap_T, .block = p, .src = p, .tgt_in = p + BT,
                    .tgt_out = p + 2 * BT, .src_len = p + 3 * BT, .tgt_len = p + 3 * BT + cap_B};
    return 0;
}

void batch_free(PadBatch *b)
{
    if (b) {
        free(b->block);
        *b = (PadBatch){0};
    }
}

static int map_id(const int *map, int id)
{
    if (!map)
        return id;
    return map[id] < 0 ? TOK_UNK : map[id];
}

void batch_fill(PadBatch *b, const Dataset *d, const int *idx, int first, int n,
                const int *src_map, const int *tgt_map)
{
    int S = 1, T = 1;
    for (int k = 0; k < n; k++) {
        const Pair *p = &d->pairs[idx ? idx[k] : first + k];
        S = p->src_len > S ? p->src_len : S;
        T = p->tgt_len + 1 > T ? p->tgt_len + 1 : T;
    }
    b->B = n;
    b->S = S;
    b->T = T;
    for (int k = 0; k < n; k++) {
        const Pair *p = &d->pairs[idx ? idx[k] : first + k];
        const int32_t *x = d->ids + p->src_off, *y = d->ids + p->tgt_off;
        int *src = b->src + (size_t)k * S, *tin = b->tgt_in + (size_t)k * T;
        int *tout = b->tgt_out + (size_t)k * T;
        for (int i = 0; i < S; i++)
            src[i] = i < p->src_len ? map_id(src_map, x[i]) : TOK_PAD;
        for (int i = 0; i < T; i++) {
            tin[i] = i == 0 ? TOK_BOS : i <= p->tgt_len ? map_id(tgt_map, y[i - 1]) : TOK_PAD;
            tout[i] = i < p->tgt_len ? map_id(tgt_map, y[i]) : i == p->tgt_len ? TOK_EOS : TOK_PAD;
        }
        b->src_len[k] = p->src_len;
        b->tgt_len[k] = p->tgt_len + 1;
    }
}

TfBatch batch_input(const PadBatch *b)
{
    return (TfBatch){b->B, b->S, b->T, b->src, b->tgt_in, b->src_len, b->tgt_len};
}

int batch_tgt_tokens(const PadBatch *b)
{
    int n = 0;
    for (int k = 0; k < b->B; k++)
        n += b->tgt_len[k];
    return n;
}

int batch_src_tokens(const PadBatch *b)
{
    int n = 0;
    for (int k = 0; k < b->B; k++)
        n += b->src_len[k];
    return n;
}
