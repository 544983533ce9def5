/* model.c - building, freeing and naming a model (see model.h). */
#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int model_build(TfModel *m, const TfConfig *cfg, TfErr *err)
{
    memset(m, 0, sizeof *m);
    if (cfg_validate(cfg, err))
        return -1;
    m->cfg = *cfg;
    m->n_params = params_size(cfg);
    m->block = calloc(m->n_params, sizeof(float));
    if (!m->block)
        return tf_fail(err, "out of memory for %zu parameters (%.1f MiB)",
                       m->n_params, (double)m->n_params * 4 / (1 << 20));
    params_point(&m->p, cfg, m->block);
    return 0;
}

void model_free(TfModel *m)
{
    if (!m)
        return;
    free(m->block);
    free(m->pe_src);
    free(m->pe_tgt);
    if (m->tok && m->tok_free)
        m->tok_free(m->tok);
    vocab_free(&m->src_vocab);
    vocab_free(&m->tgt_vocab);
    for (int i = 0; i < m->n_meta; i++) {
        free(m->meta[i].key);
        free(m->meta[i].val);
    }
    free(m->meta);
    memset(m, 0, sizeof *m);
}

int model_init_random(TfModel *m, const TfConfig *cfg, uint64_t seed, TfErr *err)
{
    if (model_build(m, cfg, err))
        return -1;
    params_init(&m->p, cfg, seed);
    if (vocab_numbered(&m->src_vocab, cfg->src_vocab, err) ||
        vocab_numbered(&m->tgt_vocab, cfg->tgt_vocab, err)) {
        model_free(m);
        return -1;
    }
    return 0;
}

int model_meta_set(TfModel *m, const char *key, const char *val)
{
    for (int i = 0; i < m->n_meta; i++) {
        if (strcmp(m->meta[i].key, key) == 0) {
            char *v = strdup(val);
            if (!v)
                return -1;
            free(m->meta[i].val);
            m->meta[i].val = v;
            return 0;
        }
    }
    TfMeta *meta = realloc(m->meta, (size_t)(m->n_meta + 1) * sizeof *meta);
    if (!meta)
        return -1;
    m->meta = meta;
    char *k = strdup(key), *v = strdup(val);
    if (!k || !v) {
        free(k);
        free(v);
        return -1;
    }
    m->meta[m->n_meta].key = k;
    m->meta[m->n_meta].val = v;
    m->n_meta++;
    return 0;
}

typedef struct MetaRef {
    const char *key;
    int first, last; /* first and last index of the key in the input */
} MetaRef;

static int cmp_by_key(const void *x, const void *y)
{
    const MetaRef *a = x, *b = y;
    int c = strcmp(a->key, b->key);
    return c ? c : (a->first > b->first) - (a->first < b->first);
}

static int cmp_by_first(const void *x, const void *y)
{
    const MetaRef *a = x, *b = y;
    return (a->first > b->first) - (a->first < b->first);
}

int model_meta_set_many(TfModel *m, const char *const *keys,
                        const char *const *vals, int n)
{
    if (n <= 0)
        return 0;
    if (m->n_meta > 0) { /* merging into existing metadata: one by one */
        for (int i = 0; i < n; i++)
            if (model_meta_set(m, keys[i], vals[i]))
                return -1;
        return 0;
    }
    MetaRef *r = malloc((size_t)n * sizeof *r);
    TfMeta *meta = calloc((size_t)n, sizeof *meta);
    int k = 0, rc = -1;
    if (!r || !meta)
        goto done;
    for (int i = 0; i < n; i++)
        r[i] = (MetaRef){keys[i], i, i};
    qsort(r, (size_t)n, sizeof *r, cmp_by_key);
    for (int i = 0; i < n;) { /* one entry per key */
        int j = i;
        while (j + 1 < n && strcmp(r[j + 1].key, r[i].key) == 0)
            j++;
        r[k++] = (MetaRef){r[i].key, r[i].first, r[j].first};
        i = j + 1;
    }
    qsort(r, (size_t)k, sizeof *r, cmp_by_first);
    for (int i = 0; i < k; i++) {
        meta[i].key = strdup(r[i].key);
        meta[i].val = strdup(vals[r[i].last]);
        if (!meta[i].key || !meta[i].val) {
            for (int j = 0; j <= i; j++) {
                free(meta[j].key);
                free(meta[j].val);
            }
            goto done;
        }
    }
    m->meta = meta;
    m->n_meta = k;
    meta = NULL;
    rc = 0;
done:
    free(meta);
    free(r);
    return rc;
}

const char *model_meta_get(const TfModel *m, const char *key)
{
    for (int i = 0; i < m->n_meta; i++)
        if (strcmp(m->meta[i].key, key) == 0)
            return m->meta[i].val;
    return NULL;
}
