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

const char *model_meta_get(const TfModel *m, const char *key)
{
    for (int i = 0; i < m->n_meta; i++)
        if (strcmp(m->meta[i].key, key) == 0)
            return m->meta[i].val;
    return NULL;
}
