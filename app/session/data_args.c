/* data_args.c - the data set a model trains on: choosing, loading, and the
 * round trip through the model's metadata (see data_args.h). */
#include "data_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void data_args_init(DataArgs *a)
{
    memset(a, 0, sizeof *a);
    a->src_mode = a->tgt_mode = TOK_WORD;
    a->seed = 1;
}

int data_args_mode(const char *v, TokMode *m)
{
    if (v && strcmp(v, "word") == 0)
        *m = TOK_WORD;
    else if (v && strcmp(v, "char") == 0)
        *m = TOK_CHAR;
    else
        return -1;
    return 0;
}

int data_args_load(Dataset *d, const DataArgs *a, int *n_bad, TfErr *err)
{
    if (n_bad)
        *n_bad = 0;
    if (!a->task == !a->file)
        return tf_fail(err, "give exactly one of a task or a data file");
    if (a->task) {
        TaskOpts o = {a->task_len, a->seed, 0};
        return task_build(d, a->task, &o, err);
    }
    return tsv_load(d, a->file, a->src_mode, a->tgt_mode, a->max_len, a->seed, n_bad, err);
}

int data_args_to_meta(const DataArgs *a, const Dataset *d, TfModel *m, TfErr *err)
{
    char buf[32];
    int rc = 0;
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)a->seed);
    rc |= model_meta_set(m, "data_seed", buf);
    if (a->task) {
        rc |= model_meta_set(m, "data_task", a->task);
        if (d->src.mode == TOK_CHAR) { /* the string tasks' length range */
            snprintf(buf, sizeof buf, "%d", a->task_len ? a->task_len : TASK_DEFAULT_MAX_LEN);
            rc |= model_meta_set(m, "data_task_len", buf);
        }
    }
    if (a->file) {
        rc |= model_meta_set(m, "data_file", a->file);
        rc |= model_meta_set(m, "data_src_tokens", a->src_mode == TOK_CHAR ? "char" : "word");
        rc |= model_meta_set(m, "data_tgt_tokens", a->tgt_mode == TOK_CHAR ? "char" : "word");
    }
    return rc ? tf_fail(err, "out of memory for metadata") : 0;
}

/* Copy a metadata string into the args' own storage. */
static const char *keep(DataArgs *a, int slot, const char *s)
{
    snprintf(a->store[slot], sizeof a->store[slot], "%s", s);
    return a->store[slot];
}

int data_args_from_meta(DataArgs *a, const TfModel *m, TfErr *err)
{
    const char *task = model_meta_get(m, "data_task");
    const char *file = model_meta_get(m, "data_file");
    if (!a->task && !a->file) {
        if (task)
            a->task = keep(a, 0, task);
        else if (file)
            a->file = keep(a, 1, file);
        else
            return tf_fail(err, "the model does not say what it was trained on");
    }
    /* the rest only describes the same data source */
    int same = (a->task && task && strcmp(a->task, task) == 0) ||
               (a->file && file && strcmp(a->file, file) == 0);
    if (!same)
        return 0;
    const char *s;
    if (!a->has_seed && (s = model_meta_get(m, "data_seed")))
        a->seed = strtoull(s, NULL, 10);
    if (!a->has_len && (s = model_meta_get(m, "data_task_len")))
        a->task_len = atoi(s);
    if (!a->has_modes) {
        if ((s = model_meta_get(m, "data_src_tokens")))
            data_args_mode(s, &a->src_mode);
        if ((s = model_meta_get(m, "data_tgt_tokens")))
            data_args_mode(s, &a->tgt_mode);
    }
    return 0;
}
