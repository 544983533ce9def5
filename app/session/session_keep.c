/* session_keep.c - what the session keeps so that nothing is computed twice:
 * the keys of what a pass and a greedy target depend on, each sentence's
 * greedy target as last decoded (SesTargets) and the last translations
 * under an experiment (SesExpKept). session.c asks here before it decodes
 * a target, session_exp.c before it makes a normal pass or a translation. */
#include <stdio.h>
#include <string.h>

#include "hash.h"
#include "session.h"
#include "session_int.h"

uint64_t ses_target_key(const Session *s, int i)
{
    int cap = s->model.cfg.max_len < SES_CAP_T ? s->model.cfg.max_len : SES_CAP_T;
    int head[2] = {(int)s->walk_id, cap};
    uint64_t h = tf_fnv_ints(TF_FNV_SEED, head, 2);
    h = tf_fnv_ints(h, s->src_ids[i], (size_t)s->src_n[i]);
    h = tf_fnv_word(h, (uint64_t)s->src_n[i] << 40);
    return h ? h : 1;
}

uint64_t ses_input_key(const Session *s)
{
    uint64_t h = TF_FNV_SEED ^ s->walk_id;
    const int *parts[4] = {s->pad.src, s->pad.tgt, s->src_n, s->tgt_n};
    size_t lens[4] = {(size_t)s->n_src * s->pad.S, (size_t)s->n_src * s->pad.T, (size_t)s->n_src,
                      (size_t)s->n_src};
    for (int k = 0; k < 4; k++)
        h = tf_fnv_ints(h, parts[k], lens[k]);
    return tf_fnv_word(h, (uint64_t)s->pad.S << 32 ^ (uint64_t)s->pad.T);
}

/* ---- the greedy targets as last decoded ---- */

int ses_targets_has(const SesTargets *t, int i, uint64_t key)
{
    return key != 0 && t->key[i] == key;
}

void ses_targets_keep(SesTargets *t, int i, uint64_t key, const int *ids, int n)
{
    memcpy(t->ids[i], ids, (size_t)n * sizeof *ids);
    t->n[i] = n;
    t->key[i] = key;
}

void ses_targets_forget(SesTargets *t, int i)
{
    t->key[i] = 0;
}

/* ---- the translations under the last experiments ---- */

const char *ses_kept_find(const SesExpKept *k, uint64_t key, const TfExperiment *e)
{
    for (int j = 0; j < SES_KEEP_EXP; j++)
        if (k->key[j] == key && tf_exp_equal(&k->exp[j], e))
            return k->text[j];
    return NULL;
}

void ses_kept_put(SesExpKept *k, uint64_t key, const TfExperiment *e, const char *text)
{
    int j = k->next; /* the oldest goes */
    k->next = (j + 1) % SES_KEEP_EXP;
    k->key[j] = key;
    k->exp[j] = *e;
    snprintf(k->text[j], sizeof k->text[j], "%s", text);
}
