/* cli_data.h - the data-set options shared by `train` and `eval`:
 * --task NAME or --data FILE, --tokens / --src-tokens / --tgt-tokens,
 * --task-len and --data-seed, read into a DataArgs (app/session/data_args.h),
 * and the loading and metadata round trip with their messages printed. */
#ifndef APP_CLI_DATA_H
#define APP_CLI_DATA_H

#include "data_args.h"

/* Does argv[*i] belong to the data options? On a match returns 1 (and
 * sets *bad after printing a message when its value is wrong). */
int cli_data_parse(char **argv, int argc, int *i, DataArgs *a, const char *cmd, int *bad);

/* cli_data_parse as a CliMore for cli_parse; ctx is the DataArgs. */
int cli_data_more(char **argv, int argc, int *i, void *ctx, const char *cmd, int *bad);

/* data_args_load, data_args_from_meta and data_args_to_meta that print the
 * reason (a TSV file's bad lines as a warning) and return 1 on failure. */
int cli_data_load(Dataset *d, const DataArgs *a, const char *cmd);
int cli_data_from_meta(DataArgs *a, const TfModel *m, const char *cmd);
int cli_data_to_meta(const DataArgs *a, const Dataset *d, TfModel *m, const char *cmd);

#endif
