/* tasks.h - datasets of sentence pairs as token ids.
 *
 * A Dataset is what training and evaluation read: two vocabularies (source
 * and target), a pool of token ids, and pairs pointing into the pool. Pairs
 * [0, n_train) are the training set, [n_train, n_pairs) the held-out set; the
 * two never share a source sentence, and no source sentence occurs twice.
 *
 * Built-in tasks (task_build), all generated from a seed, identical on every
 * run and machine:
 *   copy     "hello" -> "hello"   character level, letters a-z
 *   reverse  "hello" -> "olleh"
 *   sort     "hello" -> "ehllo"
 *   en2zh    a small rule-based English->Chinese language whose translations
 *            need reordering, e.g. "i read books today" -> "我 今天 读 书"
 *            (the grammar is written out at the top of tasks.c)
 * and the user's own tab-separated sentence pairs (tsv_load). */
#ifndef TF_TASKS_H
#define TF_TASKS_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "vocab.h"

/* One sentence pair: offsets into Dataset.ids; lengths exclude <bos>/<eos>,
 * which the pool does not store. */
typedef struct Pair {
    int src_off, tgt_off, src_len, tgt_len;
} Pair;

typedef struct Dataset {
    char name[64];   /* "copy", "reverse", "sort", "en2zh" or the TSV file's
                        base name without its extension */
    Vocab src, tgt;  /* always two Vocab objects (may hold the same tokens) */
    int32_t *ids;    /* (n_ids) token pool */
    size_t n_ids, cap_ids;
    Pair *pairs;     /* (n_pairs) train pairs first, then held-out pairs */
    int n_pairs, cap_pairs;
    int n_train;
    int max_src, max_tgt; /* longest sequence in tokens (without <bos>/<eos>) */
} Dataset;

#define TASK_DEFAULT_MAX_LEN 10   /* copy/reverse/sort string lengths 1..10 */
#define TASK_MAX_MAX_LEN 256      /* largest max_len task_build accepts */
#define TASK_DEFAULT_HELDOUT 500  /* held-out pairs of the built-in tasks */
#define TASK_MAX_HELDOUT 100000   /* largest n_heldout task_build accepts */
#define TASK_CHAR_TRAIN 20000     /* training pairs of copy/reverse/sort (at
                                     most; fewer when max_len is small) */

typedef struct TaskOpts {
    int max_len;   /* copy/reverse/sort: lengths 1..max_len (0 = default) */
    uint64_t seed;
    int n_heldout; /* held-out pairs (0 = TASK_DEFAULT_HELDOUT) */
} TaskOpts;

/* Build the built-in task `name` into d (o may be NULL for the defaults).
 * Returns 0, or -1 with err set (an unknown name lists the known ones).
 * On failure d is left empty; dataset_free(d) is safe either way. */
int task_build(Dataset *d, const char *name, const TaskOpts *o, TfErr *err);

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
 * limit), a line over 16 MiB. After 100 bad lines the rest are only counted.
 * A repeated source sentence keeps its first translation (the repeat is
 * logged, not counted as bad).
 *
 * About 10% of the pairs, chosen from the seed, are held out (at least 1 when
 * there are two pairs or more); both parts keep file order. Errors: the file
 * cannot be opened or read, contains a NUL byte (not a text file), or has no
 * usable line; the message names the file. */
int tsv_load(Dataset *d, const char *path, TokMode src_mode, TokMode tgt_mode,
             int max_len, uint64_t seed, int *n_bad, TfErr *err);

void dataset_free(Dataset *d);

/* The built-in task names {"copy", "reverse", "sort", "en2zh"}; *n gets 4. */
const char *const *task_names(int *n);
/* One line describing a task for --help and the GUI ("" when unknown). */
const char *task_describe(const char *name);

/* Look up src_text (tokenised with d->src) among all pairs; on a hit write
 * the reference translation, decoded with d->tgt, to tgt_out (truncated to
 * cap) and return 1; return 0 when absent. */
int dataset_find(const Dataset *d, const char *src_text, char *tgt_out,
                 size_t cap);

#endif
