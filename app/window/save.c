/* save.c - Ctrl+S, Ctrl+Shift+S and Ctrl+E: the window as PNG, the view as
 * PDF and SVG (with a caption), the matrix as CSV, named after the stage and
 * the time, in the working directory. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "export.h"
#include "panels.h"
#include "shot_vector.h"

static void stamp_name(const App *a, const char *ext, char *buf, size_t cap)
{
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    StagePos p = app_pos(a);
    snprintf(buf, cap, "stepformer-%s-l%d-%04d%02d%02d-%02d%02d%02d.%s", stage_info(p.stage)->name,
             p.layer + 1, tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
             tm.tm_sec, ext);
}

void app_save_png(App *a, Ren *r)
{
    char name[256];
    TfErr err;
    stamp_name(a, "png", name, sizeof name);
    if (ren_save_png(r, name, &err))
        app_notice(a, 1, _("could not save the picture: %s"), err.msg);
    else
        app_notice(a, 0, _("saved %s"), name);
}

void app_save_vector(App *a, Ren *r)
{
    char pdf[256], svg[256];
    TfErr err;
    stamp_name(a, "pdf", pdf, sizeof pdf);
    stamp_name(a, "svg", svg, sizeof svg);
    if (shot_save_vector(a, r, pdf, 1, &err) || shot_save_vector(a, r, svg, 1, &err))
        app_notice(a, 1, _("could not save the figure: %s"), err.msg);
    else
        app_notice(a, 0, _("saved %s and %s"), pdf, svg);
}

void app_save_csv(App *a)
{
    char name[256];
    TfErr err;
    TfView v;
    StagePos p = app_pos(a);
    int head = a->ses.head < 0 && (stage_info(p.stage)->flags & SF_HEAD) ? 0 : a->ses.head;
    if (a->ses.input_error[0] || tf_view(&a->ses.trace, p.stage, p.layer, head, a->ses.batch, &v, &err)) {
        app_notice(a, 1, _("nothing to export: %s"), a->ses.input_error[0] ? a->ses.input_error : err.msg);
        return;
    }
    stamp_name(a, "csv", name, sizeof name);
    if (export_csv_file(name, &a->ses.trace, &a->ses.model, &v, &err))
        app_notice(a, 1, _("could not save the matrix: %s"), err.msg);
    else
        app_notice(a, 0, _("saved %s (%d × %d)"), name, v.rows, v.cols);
}
