/* train_save.c - the files of the window's training worker: the name a
 * Save button's checkpoint gets (the worker writes it, train_worker.c),
 * and the check that a TSV file typed into the train tab is one the worker
 * can read without waiting on it. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "file.h"
#include "train_worker.h"

int tw_save_new(TrainWorker *w, TwSaveName *last, const char *dir, const char *name, TfErr *err)
{
    char stem[sizeof last->stem], path[TW_PATH_MAX];
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    snprintf(stem, sizeof stem, "%s%sstepformer-%s-%04d%02d%02d-%02d%02d%02d", dir, dir[0] ? "/" : "", name,
             tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
    /* a name no file and no earlier save (maybe still being written) has */
    int k = strcmp(stem, last->stem) == 0 ? last->seq + 1 : 1;
    for (;; k++) {
        if (k == 1)
            snprintf(path, sizeof path, "%s.safetensors", stem);
        else
            snprintf(path, sizeof path, "%s-%d.safetensors", stem, k);
        if (k >= 1000 || access(path, F_OK) != 0)
            break;
    }
    snprintf(last->stem, sizeof last->stem, "%s", stem);
    last->seq = k;
    return tw_save(w, path, err);
}

int tw_data_file_check(const char *path, TfErr *err)
{
    FILE *f = tf_fopen_regular(path, NULL, err);
    if (!f)
        return -1;
    fclose(f);
    return 0;
}
