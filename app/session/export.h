/* export.h - a stage's matrix as CSV or JSON, shared by `stepformer dump`
 * and the window's Ctrl+E. */
#ifndef APP_EXPORT_H
#define APP_EXPORT_H

#include <stdio.h>

#include "stage.h"

void export_csv(FILE *f, const TfTrace *tr, const TfModel *m, const TfView *v);
void export_json(FILE *f, const TfTrace *tr, const TfModel *m, const TfView *v);
/* Write the CSV atomically to path (temporary file, fsync, rename). */
int export_csv_file(const char *path, const TfTrace *tr, const TfModel *m,
                    const TfView *v, TfErr *err);

#endif
