/* lesson_files.c - lessons from the disk: one lesson file (read whole,
 * refused past LESSON_MAX_BYTES, then lesson_parse), and a folder of them
 * in name order (at most LESSON_MAX_FILES; a bad file is reported through
 * the caller's callback and skipped, the others still load). */
#include "lesson.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "file.h"

int lesson_load(Lesson *l, const char *path, TfErr *err)
{
    memset(l, 0, sizeof *l);
    FILE *f = tf_fopen_regular(path, NULL, err);
    if (!f)
        return -1;
    /* as much as the file holds (one more than the limit, to tell) */
    struct stat st;
    size_t want = fstat(fileno(f), &st) == 0 && st.st_size >= 0 && st.st_size < LESSON_MAX_BYTES
                      ? (size_t)st.st_size + 1
                      : (size_t)LESSON_MAX_BYTES + 1;
    char *buf = malloc(want + 1);
    if (!buf) {
        fclose(f);
        return tf_fail(err, "%s: out of memory", path);
    }
    size_t n = fread(buf, 1, want, f);
    int rerr = ferror(f);
    fclose(f);
    int rc;
    if (rerr)
        rc = tf_fail(err, "%s: read failed", path);
    else
        rc = lesson_parse(l, buf, n, path, err);
    free(buf);
    return rc;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int lessons_load_dir(LessonSet *set, const char *dir, LessonErrFn on_error,
                     void *user, int *n_bad)
{
    memset(set, 0, sizeof *set);
    if (n_bad)
        *n_bad = 0;
    DIR *d = opendir(dir);
    if (!d) {
        if (on_error) {
            char msg[700];
            snprintf(msg, sizeof msg, "%s: cannot open the lesson folder: %s", dir, strerror(errno));
            on_error(msg, user);
        }
        return -1;
    }
    char **names = NULL;
    int nn = 0, cap = 0, nn_more = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len <= 4 || strcmp(e->d_name + len - 4, ".txt") != 0)
            continue;
        if (nn == cap) {
            cap = cap ? 2 * cap : 64;
            char **grown = realloc(names, (size_t)cap * sizeof *names);
            if (!grown)
                break;
            names = grown;
        }
        if ((names[nn] = strdup(e->d_name)))
            nn++;
    }
    closedir(d);
    if (nn)
        qsort(names, (size_t)nn, sizeof *names, cmp_name);
    if (nn > LESSON_MAX_FILES) { /* the first by name are read */
        nn_more = nn - LESSON_MAX_FILES;
        for (int i = LESSON_MAX_FILES; i < nn; i++)
            free(names[i]);
        nn = LESSON_MAX_FILES;
    }
    if (nn_more) {
        if (n_bad)
            (*n_bad)++;
        if (on_error) {
            char msg[700];
            snprintf(msg, sizeof msg, "%s: more than %d lesson files; %d were not read", dir, LESSON_MAX_FILES,
                     nn_more);
            on_error(msg, user);
        }
    }
    set->lessons = calloc((size_t)(nn ? nn : 1), sizeof *set->lessons);
    for (int i = 0; i < nn; i++) {
        char path[1024];
        TfErr err;
        int pl = snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (set->lessons && (pl < 0 || (size_t)pl >= sizeof path)) {
            snprintf(err.msg, sizeof err.msg, "%s/%s: the path is longer than %zu bytes", dir,
                     names[i], sizeof path - 1);
            if (n_bad)
                (*n_bad)++;
            if (on_error)
                on_error(err.msg, user);
        } else if (set->lessons && lesson_load(&set->lessons[set->n], path, &err) == 0) {
            set->n++;
        } else if (set->lessons) {
            if (n_bad)
                (*n_bad)++;
            if (on_error)
                on_error(err.msg, user);
        }
        free(names[i]);
    }
    free(names);
    return set->lessons ? 0 : -1;
}

void lessons_free(LessonSet *set)
{
    for (int i = 0; i < set->n; i++)
        lesson_free(&set->lessons[i]);
    free(set->lessons);
    memset(set, 0, sizeof *set);
}

int lessons_find(const LessonSet *set, const char *id)
{
    for (int i = 0; i < set->n; i++)
        if (strcmp(set->lessons[i].id, id) == 0)
            return i;
    return -1;
}
