/* data_args.c - --task / --data options, shared by train and eval
 * (see data_args.h). */
#include "data_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void data_args_init(DataArgs *a)
{
    memset(a, 0, sizeof *a);
    a->src_mode = a->tgt_mode = TOK_WORD;
    a->seed = 1;
}

static int parse_mode(const char *v, TokMode *m)
{
    if (v && strcmp(v, "word") == 0)
        *m = TOK_WORD;
    else if (v && strcmp(v, "char") == 0)
        *m = TOK_CHAR;
    else
        return -1;
    return 0;
}

int data_args_parse(char **argv, int argc, int *i, DataArgs *a,
                    const char *cmd, int *bad)
{
    const char *v;
    int n;
    if (cli_opt(argv, argc, i, "task", &v, cmd, bad)) {
        a->task = v;
    } else if (cli_opt(argv, argc, i, "data", &v, cmd, bad)) {
        a->file = v;
    } else if (cli_opt(argv, argc, i, "tokens", &v, cmd, bad)) {
        if (v && (parse_mode(v, &a->src_mode) || parse_mode(v, &a->tgt_mode))) {
            *bad = cli_fail(cmd, "--tokens must be word or char, not '%s'", v);
            return 1;
        }
        a->has_modes = 1;
    } else if (cli_opt(argv, argc, i, "src-tokens", &v, cmd, bad)) {
        if (v && parse_mode(v, &a->src_mode)) {
            *bad = cli_fail(cmd, "--src-tokens must be word or char, not '%s'", v);
            return 1;
        }
        a->has_modes = 1;
    } else if (cli_opt(argv, argc, i, "tgt-tokens", &v, cmd, bad)) {
        if (v && parse_mode(v, &a->tgt_mode)) {
            *bad = cli_fail(cmd, "--tgt-tokens must be word or char, not '%s'", v);
            return 1;
        }
        a->has_modes = 1;
    } else if (cli_opt(argv, argc, i, "task-len", &v, cmd, bad)) {
        if (v && cli_int(v, 1, TASK_MAX_MAX_LEN, &n)) {
            *bad = cli_fail(cmd, "--task-len must be an integer in 1..%d", TASK_MAX_MAX_LEN);
            return 1;
        }
        a->task_len = n;
        a->has_len = 1;
    } else if (cli_opt(argv, argc, i, "data-seed", &v, cmd, bad)) {
        if (v && cli_int(v, 0, 2147483647, &n)) {
            *bad = cli_fail(cmd, "--data-seed must be a non-negative integer");
            return 1;
        }
        a->seed = (uint64_t)n;
        a->has_seed = 1;
    } else {
        return 0;
    }
    return 1;
}

int data_args_load(Dataset *d, const DataArgs *a, const char *cmd)
{
    TfErr err;
    if (!a->task == !a->file)
        return cli_fail(cmd, "give exactly one of --task NAME or --data FILE");
    if (a->task) {
        TaskOpts o = {a->task_len, a->seed, 0};
        if (task_build(d, a->task, &o, &err))
            return cli_fail(cmd, "%s", err.msg);
        return 0;
    }
    int n_bad = 0;
    if (tsv_load(d, a->file, a->src_mode, a->tgt_mode, a->max_len, a->seed, &n_bad, &err))
        return cli_fail(cmd, "%s", err.msg);
    if (n_bad > 0)
        cli_warn(cmd, "%s: skipped %d bad line%s", a->file, n_bad, n_bad == 1 ? "" : "s");
    return 0;
}

int data_args_to_meta(const DataArgs *a, const Dataset *d, TfModel *m)
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
    return rc ? cli_fail("train", "out of memory for metadata") : 0;
}

/* Copy a metadata string into the args' own storage. */
static const char *keep(DataArgs *a, int slot, const char *s)
{
    snprintf(a->store[slot], sizeof a->store[slot], "%s", s);
    return a->store[slot];
}

int data_args_from_meta(DataArgs *a, const TfModel *m, const char *cmd)
{
    const char *task = model_meta_get(m, "data_task");
    const char *file = model_meta_get(m, "data_file");
    if (!a->task && !a->file) {
        if (task)
            a->task = keep(a, 0, task);
        else if (file)
            a->file = keep(a, 1, file);
        else
            return cli_fail(cmd, "the model does not say what it was trained on; "
                            "give --task NAME or --data FILE");
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
            parse_mode(s, &a->src_mode);
        if ((s = model_meta_get(m, "data_tgt_tokens")))
            parse_mode(s, &a->tgt_mode);
    }
    return 0;
}
