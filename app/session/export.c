/* export.c - CSV and JSON of a stage view (see export.h); files are written
 * through the one atomic writer (atomic.h). */
#include "export.h"

#include <cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "atomic.h"

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
    cJSON_AddStringToObject(o, "stage", v->name ? v->name : stage_info(v->stage)->name);
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
    TfAtomic w;
    if (tf_atomic_open(&w, path, 0644, err) < 0)
        return -1;
    export_csv(w.f, tr, m, v);
    return tf_atomic_commit(&w, err);
}
