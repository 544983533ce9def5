/* tsv.h - the user's own sentence pairs from a tab-separated file. */
#ifndef TF_TSV_H
#define TF_TSV_H

#include <stdint.h>
#include <stdio.h>

#include "dataset.h"
#include "err.h"
#include "vocab.h"

/* Load tab-separated pairs "source<TAB>target" from path. Blank lines and
 * lines starting with '#' are ignored; a trailing '\r' and a UTF-8 byte-order
 * mark opening the file are stripped. Each side is tokenised in its own mode;
 * the vocabularies are built from the file (ids in order of first appearance
 * after the four specials).
 *
 * Bad lines are logged as warnings "path:line: reason", skipped and counted
 * in *n_bad (may be NULL): no tab, more than one tab, an empty side, invalid
 * UTF-8, a token longer than VOCAB_MAX_TOKEN_BYTES, a special token such as
 * "<eos>" written out, more than max_len tokens on a side (max_len <= 0: no
 * limit). After 100 bad lines the rest are only counted.
 * A repeated source sentence keeps its first translation (the repeat is
 * logged, not counted as bad).
 *
 * About 10% of the pairs, chosen from the seed, are held out (at least 1 when
 * there are two pairs or more); both parts keep file order. Errors: the file
 * is not a regular file (a FIFO, a device, a folder: refused at once, see
 * tf_fopen_regular), cannot be opened or read, contains a NUL byte (not a
 * text file) or a line longer than 16 MiB ("FILE:LINE: line longer than 16
 * MiB"; lines are read with that limit, so memory never follows a file
 * without newlines), memory runs out, or it has no usable line; the message
 * names the file. */
int tsv_load(Dataset *d, const char *path, TokMode src_mode, TokMode tgt_mode,
             int max_len, uint64_t seed, int *n_bad, TfErr *err);
/* The same from an open stream (a buffer through fmemopen, a pipe already
 * opened by the caller); name is the file named in messages. */
int tsv_load_stream(Dataset *d, FILE *f, const char *name, TokMode src_mode,
                    TokMode tgt_mode, int max_len, uint64_t seed, int *n_bad, TfErr *err);

#endif
