/* data_args.h - which data set a model trains and is evaluated on: a
 * built-in task or a TSV file, how the file is tokenised, and the seed that
 * fixes a task's sentences and the train / held-out split. The choice is
 * recorded in a model's metadata, so that `eval`, `train --resume` and the
 * window rebuild exactly the data set the model was trained on and evaluate
 * on its held-out pairs, never on sentences it has seen. The command-line
 * options that fill a DataArgs are in app/cli/cli_data.h. */
#ifndef APP_DATA_ARGS_H
#define APP_DATA_ARGS_H

#include <stdint.h>

#include "model.h"
#include "tasks.h"

typedef struct DataArgs {
    const char *task;     /* --task NAME, or NULL */
    const char *file;     /* --data FILE, or NULL */
    TokMode src_mode, tgt_mode; /* --tokens / --src-tokens / --tgt-tokens */
    int task_len;         /* --task-len: copy/reverse/sort lengths 1..N */
    int max_len;          /* longest side of a TSV line, in tokens (0: none) */
    uint64_t seed;        /* --data-seed: task sentences and split */
    int has_seed, has_len, has_modes;
    char store[3][512];   /* strings read back from metadata */
} DataArgs;

/* No task or file, word tokens, seed 1. */
void data_args_init(DataArgs *a);

/* "word" or "char" into *m; -1 for anything else. */
int data_args_mode(const char *v, TokMode *m);

/* Build the task or load the file (exactly one must be set). A TSV file's
 * bad lines are logged as warnings and counted in *n_bad (may be NULL).
 * Returns 0, or -1 with err set. */
int data_args_load(Dataset *d, const DataArgs *a, int *n_bad, TfErr *err);

/* Record the choice in m's metadata (data_seed; data_task, with
 * data_task_len for the string tasks; or data_file with data_src_tokens and
 * data_tgt_tokens), and read it back for whatever is still open in a.
 * Return 0, or -1 with err set (from_meta: the model does not say). */
int data_args_to_meta(const DataArgs *a, const Dataset *d, TfModel *m, TfErr *err);
int data_args_from_meta(DataArgs *a, const TfModel *m, TfErr *err);

#endif
