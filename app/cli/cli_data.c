/* cli_data.c - the data-set options of `train` and `eval` (see cli_data.h). */
#include "cli_data.h"

#include "cli.h"

/* The three tokenisation options and the sides they set. */
static const struct {
    const char *name;
    int src, tgt;
} MODE_OPTS[] = {{"tokens", 1, 1}, {"src-tokens", 1, 0}, {"tgt-tokens", 0, 1}};

static int parse_modes(char **argv, int argc, int *i, DataArgs *a, const char *cmd, int *bad)
{
    const char *v;
    for (size_t k = 0; k < sizeof MODE_OPTS / sizeof MODE_OPTS[0]; k++) {
        if (!cli_opt(argv, argc, i, MODE_OPTS[k].name, &v, cmd, bad))
            continue;
        if (v && ((MODE_OPTS[k].src && data_args_mode(v, &a->src_mode)) ||
                  (MODE_OPTS[k].tgt && data_args_mode(v, &a->tgt_mode))))
            *bad = cli_fail(cmd, "--%s must be word or char, not '%s'", MODE_OPTS[k].name, v);
        else
            a->has_modes = 1;
        return 1;
    }
    return 0;
}

int cli_data_parse(char **argv, int argc, int *i, DataArgs *a, const char *cmd, int *bad)
{
    const char *v;
    int n;
    if (parse_modes(argv, argc, i, a, cmd, bad))
        return 1;
    if (cli_opt(argv, argc, i, "task", &v, cmd, bad)) {
        a->task = v;
    } else if (cli_opt(argv, argc, i, "data", &v, cmd, bad)) {
        a->file = v;
    } else if (cli_opt(argv, argc, i, "task-len", &v, cmd, bad)) {
        if (v && cli_int(v, 1, TASK_MAX_MAX_LEN, &n)) {
            *bad = cli_fail(cmd, "--task-len must be an integer in 1..%d", TASK_MAX_MAX_LEN);
        } else if (v) {
            a->task_len = n;
            a->has_len = 1;
        }
    } else if (cli_opt(argv, argc, i, "data-seed", &v, cmd, bad)) {
        if (v && cli_int(v, 0, 2147483647, &n)) {
            *bad = cli_fail(cmd, "--data-seed must be a non-negative integer");
        } else if (v) {
            a->seed = (uint64_t)n;
            a->has_seed = 1;
        }
    } else {
        return 0;
    }
    return 1;
}

int cli_data_more(char **argv, int argc, int *i, void *ctx, const char *cmd, int *bad)
{
    return cli_data_parse(argv, argc, i, ctx, cmd, bad);
}

int cli_data_load(Dataset *d, const DataArgs *a, const char *cmd)
{
    TfErr err;
    int n_bad = 0;
    if (!a->task == !a->file)
        return cli_fail(cmd, "give exactly one of --task NAME or --data FILE");
    if (data_args_load(d, a, &n_bad, &err))
        return cli_fail(cmd, "%s", err.msg);
    if (n_bad > 0)
        cli_warn(cmd, "%s: skipped %d bad line%s", a->file, n_bad, n_bad == 1 ? "" : "s");
    return 0;
}

int cli_data_from_meta(DataArgs *a, const TfModel *m, const char *cmd)
{
    TfErr err;
    if (data_args_from_meta(a, m, &err))
        return cli_fail(cmd, "%s; give --task NAME or --data FILE", err.msg);
    return 0;
}

int cli_data_to_meta(const DataArgs *a, const Dataset *d, TfModel *m, const char *cmd)
{
    TfErr err;
    if (data_args_to_meta(a, d, m, &err))
        return cli_fail(cmd, "%s", err.msg);
    return 0;
}
