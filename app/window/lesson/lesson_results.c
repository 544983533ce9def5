/* lesson_results.c - Ctrl+Shift+E and the test's button: this account's
 * pre/post-test answers (results.h) written for the teacher into a file of
 * the user's Documents folder, the notice saying which and where. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "file.h"
#include "paths.h"
#include "results.h"

/* The test answers of this account (results.h) for the teacher, as
 * stepformer-results-ID.csv in ~/Documents/Stepformer (the XDG
 * documents folder); the working folder when there is none (the browser
 * build: the page hands the file over as a download). */
void app_save_results(App *a)
{
    char dir[1024], why[1200] = "", name[1400], shown[1400], id[RESULTS_ID_LEN + 1] = "";
    TfErr err;
    if (!paths_documents(dir, sizeof dir)) {
        snprintf(dir, sizeof dir, ".");
    } else {
        int e = tf_mkdirs(dir, 0755);
        if (e) {
            snprintf(why, sizeof why, _("cannot make %s: %s"), dir, ui_errno_text(e));
            snprintf(dir, sizeof dir, ".");
        }
    }
    /* one file per learner (the id's first 8 digits), the newest export replacing the last */
    if (results_learner(id, &err))
        snprintf(id, sizeof id, "answers");
    id[8] = 0;
    snprintf(name, sizeof name, "%s/stepformer-results-%s.csv", dir, id);
    const char *home = getenv("HOME");
    size_t hn = home ? strlen(home) : 0;
    if (hn > 1 && strncmp(name, home, hn) == 0 && name[hn] == '/') /* ~/Documents/...: short enough to read */
        snprintf(shown, sizeof shown, "~%s", name + hn);
    else
        snprintf(shown, sizeof shown, "%s", strcmp(dir, ".") == 0 ? name + 2 : name);
    int rows = 0;
    if (results_export(name, &rows, &err))
        app_notice(a, 1, _("could not export the test answers: %s"), err.msg);
    else if (strcmp(dir, ".") == 0)
        app_notice(a, why[0] != 0, _("saved your test answers (%d so far) as %s in the working folder (in the browser: "
                                     "downloaded)%s%s; hand the file to your teacher"),
                   rows, shown, why[0] ? ": " : "", why);
    else
        app_notice(a, 0, _("saved your test answers (%d so far) in %s; hand the file to your teacher"), rows, shown);
}
