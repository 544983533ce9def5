/* data_args.h - the data-set options shared by `train` and `eval`:
 * --task NAME or --data FILE, how the file is tokenised, and the seed that
 * fixes a task's sentences and the train / held-out split. The choice is
 * recorded in a model's metadata, so that `eval` (and `train --resume`)
 * rebuild exactly the data set the model was trained on and evaluate on
 * its held-out pairs, never on sentences it has seen. */
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

void data_args_init(DataArgs *a);

/* Does argv[*i] belong to the data options? On a match returns 1 (and
 * sets *bad after printing a message when its value is wrong). */
int data_args_parse(char **argv, int argc, int *i, DataArgs *a,
                    const char *cmd, int *bad);

/* Build the task or load the file; prints the reason and returns 1 on
 * failure (a TSV file's bad lines are reported as warnings and counted). */
int data_args_load(Dataset *d, const DataArgs *a, const char *cmd);

/* Record the choice in m's metadata (data_seed; data_task, with
 * data_task_len for the string tasks; or data_file with data_src_tokens and
 * data_tgt_tokens), and read it back for whatever the command line left
 * open. Returns 0, or 1 after a message. */
int data_args_to_meta(const DataArgs *a, const Dataset *d, TfModel *m);
int data_args_from_meta(DataArgs *a, const TfModel *m, const char *cmd);

#endif
