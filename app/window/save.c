/* save.c - Ctrl+S, Ctrl+Shift+S, Ctrl+Alt+S and Ctrl+E: the view alone
 * with its caption as PNG, and as PDF and SVG (what a slide wants), the
 * whole window as PNG, the matrix as CSV, named after
 * the stage, layer, head and the time, in ~/Pictures/Stepformer (the XDG
 * pictures folder; the working directory when it cannot be made); the
 * notice names the folder. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "export.h"
#include "file.h"
#include "panels.h"
#include "paths.h"
#include "shot_vector.h"

/* The folder the window saves into: ~/Pictures/Stepformer (paths.h), made
 * with its parents; the working directory when there is no HOME or it
 * cannot be made (why says so, or ""). */
static void save_dir(char *dir, size_t cap, char *why, size_t wcap)
{
    why[0] = 0;
    if (!paths_pictures(dir, cap)) {
        snprintf(dir, cap, ".");
        return;
    }
    int e = tf_mkdirs(dir, 0755);
    if (e) {
        snprintf(why, wcap, _("cannot make %s: %s"), dir, ui_errno_text(e));
        snprintf(dir, cap, ".");
    }
}

/* stepformer-STAGE-lL[-hH|-all]-DATE-TIME.EXT in dir: the layer and the
 * head shown (-1 all) as the window counts them. */
static void stamp_name(const App *a, const char *dir, const char *ext, int head_shown, char *buf, size_t cap)
{
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    StagePos p = app_pos(a);
    const StageInfo *si = stage_info(p.stage);
    char head[16] = "";
    if (si->flags & (SF_HEAD | SF_HEAD_OPT)) {
        if (head_shown < 0)
            snprintf(head, sizeof head, "-all");
        else
            snprintf(head, sizeof head, "-h%d", head_shown + 1);
    }
    snprintf(buf, cap, "%s/stepformer-%s-l%d%s-%04d%02d%02d-%02d%02d%02d.%s", dir, si->name, p.layer + 1, head,
             tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ext);
}

/* The head the window shows: -1 all of them. */
static int head_shown(const App *a)
{
    return a->ses.head < 0 || app_current_view(a) == VIEW_HEADS ? -1 : a->ses.head;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

void app_save_png(App *a, Ren *r)
{
    char dir[1024], why[1200], name[1400];
    TfErr err;
    save_dir(dir, sizeof dir, why, sizeof why);
    stamp_name(a, dir, "png", head_shown(a), name, sizeof name);
    if (shot_save_view_png(a, r, name, &err))
        app_notice(a, 1, _("could not save the picture: %s"), err.msg);
    else if (why[0])
        app_notice(a, 1, _("saved the view alone as %s in the working folder (%s)"), base_name(name), why);
    else
        app_notice(a, 0, _("saved the view alone as %s in %s (Ctrl+Alt+S: the whole window)"), base_name(name), dir);
}

void app_save_window(App *a, Ren *r)
{
    char dir[1024], why[1200], name[1400];
    TfErr err;
    save_dir(dir, sizeof dir, why, sizeof why);
    stamp_name(a, dir, "png", head_shown(a), name, sizeof name);
    if (ren_save_png(r, name, &err))
        app_notice(a, 1, _("could not save the picture: %s"), err.msg);
    else if (why[0])
        app_notice(a, 1, _("saved the whole window as %s in the working folder (%s)"), base_name(name), why);
    else
        app_notice(a, 0, _("saved the whole window as %s in %s"), base_name(name), dir);
}

void app_save_vector(App *a, Ren *r)
{
    char dir[1024], why[1200], pdf[1400], svg[1400];
    TfErr err;
    save_dir(dir, sizeof dir, why, sizeof why);
    stamp_name(a, dir, "pdf", head_shown(a), pdf, sizeof pdf);
    stamp_name(a, dir, "svg", head_shown(a), svg, sizeof svg);
    if (shot_save_view(a, r, pdf, &err) || shot_save_view(a, r, svg, &err))
        app_notice(a, 1, _("could not save the figure: %s"), err.msg);
    else if (why[0])
        app_notice(a, 1, _("saved the view alone as %s and .svg in the working folder (%s)"), base_name(pdf), why);
    else
        app_notice(a, 0, _("saved the view alone as %s and .svg in %s"), base_name(pdf), dir);
}

void app_save_csv(App *a)
{
    char name[1400];
    TfErr err;
    TfView v;
    StagePos p = app_pos(a);
    int head = a->ses.head < 0 && (stage_info(p.stage)->flags & SF_HEAD) ? 0 : a->ses.head;
    if (!app_stage_ready(a))
        app_compute_all(a); /* just after an edit: the numbers of the input shown */
    if (a->ses.input_error[0] || tf_view(&a->ses.trace, p.stage, p.layer, head, a->ses.batch, &v, &err)) {
        app_notice(a, 1, _("nothing to export: %s"), a->ses.input_error[0] ? a->ses.input_error : err.msg);
        return;
    }
    char dir[1024], why[1200];
    save_dir(dir, sizeof dir, why, sizeof why);
    stamp_name(a, dir, "csv", head, name, sizeof name);
    if (export_csv_file(name, &a->ses.trace, &a->ses.model, &v, &err))
        app_notice(a, 1, _("could not save the matrix: %s"), err.msg);
    else
        app_notice(a, 0, _("saved %s (%d × %d) in %s"), base_name(name), v.rows, v.cols,
                   why[0] ? _("the working folder") : dir);
}

int app_frame_saving(App *a, Ren *r)
{
    app_draw(a, r);
    if (a->win.want_save_window) { /* the frame just drawn, chrome and all */
        a->win.want_save_window = 0;
        app_save_window(a, r);
    }
    if (a->win.want_save_csv) {
        a->win.want_save_csv = 0;
        app_save_csv(a);
    }
    ren_end(r);
    int figure = a->win.want_save_png || a->win.want_save_vector;
    if (a->win.want_save_png) { /* the view alone, drawn between two frames and not shown */
        a->win.want_save_png = 0;
        app_save_png(a, r);
    }
    if (a->win.want_save_vector) {
        a->win.want_save_vector = 0;
        app_save_vector(a, r);
    }
    return figure;
}
