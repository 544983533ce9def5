/* heads_pairs.c - the pairs importance is measured on (see heads_pairs.h). */
#include "heads_pairs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data_args.h"
#include "file.h"
#include "text.h"
#include "train.h"

void heads_pairs_free(HeadsPairs *p)
{
    free(p->pairs);
    free(p->ids);
    memset(p, 0, sizeof *p);
}

/* Room for one more pair of up to need ids. */
static int grow(HeadsPairs *p, int *cap_pairs, size_t *cap_ids, size_t used, size_t need, TfErr *err)
{
    if (p->n >= *cap_pairs) {
        int cap = *cap_pairs ? 2 * *cap_pairs : 256;
        TfImpPair *q = realloc(p->pairs, (size_t)cap * sizeof *q);
        if (!q)
            return tf_fail(err, "out of memory for %d pairs", cap);
        p->pairs = q;
        *cap_pairs = cap;
    }
    if (used + need > *cap_ids) {
        size_t cap = *cap_ids ? 2 * *cap_ids : 4096;
        while (cap < used + need)
            cap *= 2;
        int *q = realloc(p->ids, cap * sizeof *q);
        if (!q)
            return tf_fail(err, "out of memory for %zu token ids", cap);
        p->ids = q;
        *cap_ids = cap;
    }
    return 0;
}

/* The pairs lie one after another in ids (source, then reference); they
 * point into it once it has stopped moving. */
static void fix_pointers(HeadsPairs *p)
{
    size_t off = 0;
    for (int i = 0; i < p->n; i++) {
        p->pairs[i].src = p->ids + off;
        p->pairs[i].ref = p->ids + off + p->pairs[i].S;
        off += (size_t)p->pairs[i].S + p->pairs[i].R;
    }
}

static int load_file(const TfModel *m, const char *file, int max_pairs, HeadsPairs *p, TfErr *err)
{
    FILE *f = fopen(file, "r");
    if (!f)
        return tf_fail(err, "%s: cannot open it", file);
    const char *base = strrchr(file, '/');
    snprintf(p->name, sizeof p->name, "%s", base ? base + 1 : file);
    int max = m->cfg.max_len < TF_MAX_LEN ? m->cfg.max_len : TF_MAX_LEN, cap_pairs = 0, rc = 0;
    size_t cap_ids = 0, used = 0, cap = 0;
    char *line = NULL;
    ssize_t got;
    static int src[TF_MAX_LEN], ref[TF_MAX_LEN];
    while ((!max_pairs || p->n < max_pairs) && (got = tf_read_line(f, &line, &cap, TF_LINE_MAX)) != -1) {
        char *tab = got == -2 ? NULL : strchr(line, '\t');
        if (!tab) {
            p->n_bad++;
            continue;
        }
        *tab = 0;
        char *want = tab + 1;
        want[strcspn(want, "\r\n")] = 0;
        int unk_s = 0, unk_r = 0;
        int S = tf_text_ids(m, 0, line, src, NULL, max, &unk_s, err);
        int R = tf_text_ids(m, 1, want, ref, NULL, max - 1, &unk_r, err);
        if (S < 0 || R < 0) { /* not UTF-8 and the like: a bad line */
            p->n_bad++;
            continue;
        }
        if (S < 1 || S > max || R < 1 || R > max - 1) {
            p->n_bad++;
            continue;
        }
        if (grow(p, &cap_pairs, &cap_ids, used, (size_t)S + R, err)) {
            rc = -1;
            break;
        }
        p->n_unk += unk_s + unk_r;
        memcpy(p->ids + used, src, (size_t)S * sizeof *src);
        memcpy(p->ids + used + S, ref, (size_t)R * sizeof *ref);
        p->pairs[p->n++] = (TfImpPair){NULL, NULL, S, R};
        used += (size_t)S + R;
    }
    free(line);
    fclose(f);
    if (!rc && p->n == 0)
        rc = tf_fail(err, "%s: no \"source<TAB>reference\" line to measure on", file);
    return rc;
}

static int load_task(const TfModel *m, const char *task, int max_pairs, HeadsPairs *p, TfErr *err)
{
    DataArgs da;
    data_args_init(&da);
    da.task = task;
    da.src_mode = m->src_vocab.mode;
    da.tgt_mode = m->tgt_vocab.mode;
    if (data_args_from_meta(&da, m, err))
        return -1;
    if (da.file) /* the model trained on a file: measure on that file */
        return load_file(m, da.file, max_pairs, p, err);
    da.max_len = m->cfg.max_len - 1;
    Dataset d;
    memset(&d, 0, sizeof d);
    if (data_args_load(&d, &da, NULL, err))
        return -1;
    snprintf(p->name, sizeof p->name, "%s", d.name);
    int n = d.n_pairs - d.n_train, rc = 0, cap_pairs = 0;
    if (max_pairs > 0 && n > max_pairs)
        n = max_pairs;
    int missing = 0, unk = m->cfg.ids.set ? m->cfg.ids.unk : 3;
    int *smap = vocab_id_map(&d.src, &m->src_vocab, &missing), *tmap = vocab_id_map(&d.tgt, &m->tgt_vocab, NULL);
    size_t cap_ids = 0, used = 0;
    if (!smap || !tmap)
        rc = tf_fail(err, "out of memory");
    if (!rc && n <= 0)
        rc = tf_fail(err, "%s: no held-out pairs to measure on", d.name);
    for (int i = 0; !rc && i < n; i++) {
        const Pair *q = &d.pairs[d.n_train + i];
        if (q->src_len < 1 || q->src_len > m->cfg.max_len || q->tgt_len + 1 > m->cfg.max_len) {
            p->n_bad++;
            continue;
        }
        if (grow(p, &cap_pairs, &cap_ids, used, (size_t)q->src_len + q->tgt_len, err)) {
            rc = -1;
            break;
        }
        int *out = p->ids + used;
        for (int k = 0; k < q->src_len; k++) {
            int id = smap[d.ids[q->src_off + k]];
            p->n_unk += id < 0;
            out[k] = id < 0 ? unk : id;
        }
        for (int k = 0; k < q->tgt_len; k++) {
            int id = tmap[d.ids[q->tgt_off + k]];
            p->n_unk += id < 0;
            out[q->src_len + k] = id < 0 ? unk : id;
        }
        p->pairs[p->n++] = (TfImpPair){NULL, NULL, q->src_len, q->tgt_len};
        used += (size_t)q->src_len + q->tgt_len;
    }
    if (!rc && p->n == 0)
        rc = tf_fail(err, "%s: no held-out pair fits the model", d.name);
    free(smap);
    free(tmap);
    dataset_free(&d);
    return rc;
}

int heads_pairs_load(const TfModel *m, const char *task, const char *file, int max_pairs, HeadsPairs *out,
                     TfErr *err)
{
    memset(out, 0, sizeof *out);
    int rc = file ? load_file(m, file, max_pairs, out, err) : load_task(m, task, max_pairs, out, err);
    if (rc) {
        heads_pairs_free(out);
        return -1;
    }
    fix_pointers(out);
    return 0;
}
