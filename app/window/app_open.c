/* app_open.c - the whole App as its users open it (the window, shot,
 * bench, the tests): app.c's state on a Session first, then what the
 * window's parts add on top of it (the experiment flags through on_open,
 * the lesson asked for); freeing goes the other way, the parts' state
 * (the train view's worker and probe, lesson, model chooser) before the
 * App's own and the drawing resources last. It sits above every part it opens, which host.c, hosting the
 * views that the lesson drives, cannot. */
#include "app.h"
#include "decode_host.h"
#include "heads_host.h"
#include "lesson_ui.h"
#include "model_ui.h"
#include "train_host.h"

int app_open_exp(App *a, void *ctx, TfErr *err)
{
    TfExperiment e;
    if (tf_exp_build(ctx, &a->ses.model.cfg, a->ses.pad.S, &e, err))
        return -1;
    app_set_exp(a, &e);
    return 0;
}

int app_init(App *a, const AppOpts *o, TfErr *err)
{
    if (app_init_state(a, o, err))
        return -1;
    if (o && o->on_open && o->on_open(a, o->on_open_ctx, err)) {
        app_free_state(a);
        return -1;
    }
    if (o && o->lesson && lesson_ui_open(a, o->lesson, o->lesson_step)) {
        tf_fail(err, "%s", a->notice);
        app_free(a);
        return -1;
    }
    return 0;
}

void app_free(App *a)
{
    app_train_free(a); /* queued saves are written first */
    lesson_ui_free(a);
    model_ui_free(a);
    dhost_free(a); /* the decode tab's lab */
    app_hlab_free(a); /* the heads lab */
    app_free_state(a);
    app_gfx_free(a);
}
