/* tasks.c - the table of built-in tasks: names, descriptions and task_build
 * (see tasks.h). The generators are in tasks_char.c and tasks_en2zh.c. */
#include "tasks.h"

#include <stdio.h>
#include <string.h>

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* ---------------------------------------------------------------------- */
/* The task table                                                          */
/* ---------------------------------------------------------------------- */

static const char *const TASK_NAMES[] = {"copy", "reverse", "sort", "en2zh"};
static const char *const TASK_HELP[] = {
    "copy a string of letters a-z (character level): \"hello\" -> \"hello\"",
    "reverse a string of letters a-z (character level): \"hello\" -> \"olleh\"",
    "sort the letters of a string (character level): \"hello\" -> \"ehllo\"",
    "rule-based English->Chinese (word level): \"i read books today\" -> \"我 今天 读 书\"",
};

const char *const *task_names(int *n)
{
    if (n)
        *n = COUNT(TASK_NAMES);
    return TASK_NAMES;
}

static int task_index(const char *name)
{
    for (int i = 0; name && i < COUNT(TASK_NAMES); i++)
        if (strcmp(name, TASK_NAMES[i]) == 0)
            return i;
    return -1;
}

const char *task_describe(const char *name)
{
    int i = task_index(name);
    return i < 0 ? "" : TASK_HELP[i];
}

int task_build(Dataset *d, const char *name, const TaskOpts *o, TfErr *err)
{
    static const TaskOpts defaults = {0};
    memset(d, 0, sizeof *d);
    if (!o)
        o = &defaults;
    int t = task_index(name);
    if (t < 0)
        return tf_fail(err, "unknown task \"%s\" (known: copy, reverse, sort, en2zh)",
                       name ? name : "(null)");
    if (o->n_heldout < 0 || o->n_heldout > TASK_MAX_HELDOUT)
        return tf_fail(err, "n_heldout %d out of range 0..%d", o->n_heldout,
                       TASK_MAX_HELDOUT);
    snprintf(d->name, sizeof d->name, "%s", TASK_NAMES[t]);
    int rc = t == 3 ? task_en2zh(d, o, err) : task_char(d, t, o, err);
    if (rc) {
        tf_fail_prefix(err, "task %s", TASK_NAMES[t]);
        dataset_free(d);
        return -1;
    }
    return 0;
}
