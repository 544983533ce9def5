/* tasks.h - the built-in tasks.
 *
 * Built-in tasks (task_build), all generated from a seed, identical on every
 * run and machine:
 *   copy     "hello" -> "hello"   character level, letters a-z
 *   reverse  "hello" -> "olleh"
 *   sort     "hello" -> "ehllo"
 *   en2zh    a small rule-based English->Chinese language whose translations
 *            need reordering, e.g. "i read books today" -> "我 今天 读 书"
 *            (the grammar is written out at the top of tasks_en2zh.c)
 * The data set itself is in dataset.h, the TSV loader in tsv.h. */
#ifndef TF_TASKS_H
#define TF_TASKS_H

#include <stddef.h>
#include <stdint.h>

#include "dataset.h"
#include "err.h"
#include "tsv.h"
#include "vocab.h"

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

/* The built-in task names {"copy", "reverse", "sort", "en2zh"}; *n gets 4. */
const char *const *task_names(int *n);
/* One line describing a task for --help and the GUI ("" when unknown). */
const char *task_describe(const char *name);

/* The generators behind task_build (tasks_char.c, tasks_en2zh.c); d has
 * been cleared, o is not NULL. kind: 0 copy, 1 reverse, 2 sort. */
int task_char(Dataset *d, int kind, const TaskOpts *o, TfErr *err);
int task_en2zh(Dataset *d, const TaskOpts *o, TfErr *err);

#endif
