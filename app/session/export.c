/* export.c - CSV and JSON of a stage view (see export.h). */
#include "export.h"

#include <cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void csv_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

void export_csv(FILE *f, const TfTrace *tr, const TfModel *m, const TfView *v)
{
    char buf[300];
    fputs("token", f);
    for (int c = 0; c < v->cols; c++) {
        fputc(',', f);
        csv_field(f, v->data ? tf_view_label(tr, m, v, 1, c, buf, sizeof buf) : "id");
    }
    fputc('\n', f);
    for (int r = 0; r < v->rows; r++) {
        csv_field(f, tf_view_label(tr, m, v, 0, r, buf, sizeof buf));
        for (int c = 0; c < v->cols; c++) {
            float x = tf_view_at(v, r, c);
            if (isinf(x))
                fprintf(f, ",%s", x < 0 ? "-inf" : "inf");
            else
                fprintf(f, ",%.9g", x);
        }
        fputc('\n', f);
    }
}

void export_json(FILE *f, const TfTrace *tr, const TfModel *m, const TfView *v)
{
    char buf[300];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "stage", stage_info(v->stage)->name);
    cJSON_AddNumberToObject(o, "layer", v->layer);
    cJSON_AddNumberToObject(o, "head", v->head);
    cJSON_AddNumberToObject(o, "batch_index", v->b);
    cJSON_AddNumberToObject(o, "rows", v->rows);
    cJSON_AddNumberToObject(o, "cols", v->cols);
    cJSON *rl = cJSON_AddArrayToObject(o, "row_labels");
    for (int r = 0; r < v->rows; r++)
        cJSON_AddItemToArray(rl, cJSON_CreateString(tf_view_label(tr, m, v, 0, r, buf, sizeof buf)));
    cJSON *cl = cJSON_AddArrayToObject(o, "col_labels");
    for (int c = 0; c < v->cols; c++)
        cJSON_AddItemToArray(cl, cJSON_CreateString(v->data ? tf_view_label(tr, m, v, 1, c, buf, sizeof buf) : "id"));
    cJSON *data = cJSON_AddArrayToObject(o, "data");
    for (int r = 0; r < v->rows; r++) {
        cJSON *row = cJSON_CreateArray();
        for (int c = 0; c < v->cols; c++) {
            float x = tf_view_at(v, r, c);
            cJSON_AddItemToArray(row, isinf(x) ? cJSON_CreateString(x < 0 ? "-inf" : "inf")
                                               : cJSON_CreateNumber((double)x));
        }
        cJSON_AddItemToArray(data, row);
    }
    char *s = cJSON_PrintUnformatted(o);
    if (s) {
        fputs(s, f);
        fputc('\n', f);
    }
    free(s);
    cJSON_Delete(o);
}

int export_csv_file(const char *path, const TfTrace *tr, const TfModel *m,
                    const TfView *v, TfErr *err)
{
    size_t n = strlen(path);
    char *tmp = malloc(n + 16);
    if (!tmp)
        return tf_fail(err, "%s: out of memory", path);
    memcpy(tmp, path, n);
    memcpy(tmp + n, ".tmp-XXXXXX", 12);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        tf_fail(err, "%s: cannot create a file: %s", path, strerror(errno));
        free(tmp);
        return -1;
    }
    fchmod(fd, 0644); /* mkstemp makes it private; a saved matrix is not */
    FILE *f = fdopen(fd, "w");
    int rc = -1;
    if (!f) {
        close(fd);
        tf_fail(err, "%s: %s", path, strerror(errno));
    } else {
        export_csv(f, tr, m, v);
        int bad = ferror(f) || fflush(f) != 0 || fsync(fileno(f)) != 0;
        int e = errno;
        if (fclose(f) != 0 && !bad) {
            bad = 1;
            e = errno;
        }
        if (bad)
            tf_fail(err, "%s: write failed: %s", path, strerror(e));
        else if (rename(tmp, path) != 0)
            tf_fail(err, "%s: cannot replace the file: %s", path, strerror(errno));
        else
            rc = 0;
    }
    if (rc)
        unlink(tmp);
    free(tmp);
    return rc;
}
