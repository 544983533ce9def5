/* cmd_gui.c - the interactive window: open it, feed events to the App,
 * draw when something changed, run the rest of a pass (and decoding steps)
 * while no event waits, and sleep otherwise (plat.h, no CPU when idle). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "clock.h"
#include "gui.h"
#include "cli_scene.h"
#include "scene.h"
#include "plat.h"
#include "view.h"

static void on_event(void *user, const InputEvent *in)
{
    App *a = user;
    a->now = tf_seconds(); /* the event's time, not the wait's start */
    app_event(a, in);
}

/* STEPFORMER_STALL_LOG=FILE: for a responsiveness check (tools/
 * xvfb-responsive.sh), the time between two looks at the event queue, i.e.
 * the longest an input could wait, as a histogram of 0.5 ms bins, apart
 * for the stretches while a decoding is in flight; written at exit. */
#define STALL_BINS 4000
typedef struct Stall {
    const char *path;
    double last; /* when the last look at the queue returned */
    unsigned all[STALL_BINS], dec[STALL_BINS];
    double max_all, max_dec;
    long n_all, n_dec;
} Stall;

static void stall_mark(Stall *st, const App *a)
{
    double t = tf_seconds();
    if (st->path && st->last > 0) {
        double ms = (t - st->last) * 1e3;
        int bin = ms * 2 < STALL_BINS - 1 ? (int)(ms * 2) : STALL_BINS - 1;
        int decoding = session_decoding(&a->ses, NULL, NULL);
        st->all[bin]++;
        st->n_all++;
        st->max_all = ms > st->max_all ? ms : st->max_all;
        if (decoding) {
            st->dec[bin]++;
            st->n_dec++;
            st->max_dec = ms > st->max_dec ? ms : st->max_dec;
        }
    }
}

static double stall_p(const unsigned *h, long n, double q)
{
    long want = (long)(q * (double)n), seen = 0;
    for (int i = 0; i < STALL_BINS; i++)
        if ((seen += h[i]) > want)
            return (i + 1) * 0.5;
    return 0;
}

static void stall_write(const Stall *st)
{
    if (!st->path)
        return;
    FILE *f = fopen(st->path, "w");
    if (!f)
        return;
    fprintf(f, "{\"looks\": %ld, \"p95_ms\": %.1f, \"max_ms\": %.1f, \"looks_decoding\": %ld, "
               "\"decoding_p95_ms\": %.1f, \"decoding_max_ms\": %.1f}\n",
            st->n_all, stall_p(st->all, st->n_all, 0.95), st->max_all, st->n_dec,
            stall_p(st->dec, st->n_dec, 0.95), st->max_dec);
    fclose(f);
}

static int look(Stall *st, App *a, int wait)
{
    stall_mark(st, a);
    int got = plat_events(wait, on_event, a);
    st->last = tf_seconds();
    return got;
}

int gui_run(const AppOpts *o)
{
    TfErr err;
    Ren *r = ren_open_window("Stepformer", o->win_w > 0 ? o->win_w : 1280, o->win_h > 0 ? o->win_h : 800, &err);
    if (!r)
        return cli_fail("gui", "%s", err.msg); /* it says "cannot open a window" */
    /* no fonts: say so where the learner looks, not in an empty window */
    char warn[TF_ERR_MAX + 64];
    if (ren_fonts_check(r, warn, sizeof warn, &err)) {
        cli_fail("gui", "%s", err.msg);
        ren_show_error(r, "Stepformer cannot show text", err.msg);
        ren_close(r);
        return 1;
    }
    static App a;
    if (app_init(&a, o, &err)) {
        ren_close(r);
        return cli_fail("gui", "%s", err.msg);
    }
    if (warn[0]) { /* no Chinese font: once, in the notice line and here */
        app_notice(&a, 0, "%s", warn);
        cli_warn("gui", "%s", warn);
    }
    if (cli_scene_last()) /* --scene: its Decode-tab part (the flags opened the rest) */
        app_scene_open_decode(&a, cli_scene_last());
    a.ui.paste = plat_clipboard_text;
    a.ui.copy = plat_clipboard_set;
    session_set_lazy(&a.ses, 1); /* an edit redraws at once; the rest of the pass runs when idle */
    plat_window_setup(r);
    static Stall st;
    st.path = getenv("STEPFORMER_STALL_LOG");
    int redraw = 1;
    double last_draw = 0;
    while (!a.win.want_quit) {
        a.now = tf_seconds();
        if (redraw) {
            app_frame_saving(&a, r);
            redraw = 0;
            last_draw = a.now;
        }
        int wait = app_next_wake_ms(&a);
        int work = app_idle_work(&a), got;
        if (work == 1) { /* more of the pass to run: only until an event comes */
            got = look(&st, &a, 0);
            if (!got) {
                /* tokens as they arrive; the rest of a pass (a view may show
                 * its progress) at most every 50 ms */
                redraw = session_decoding(&a.ses, NULL, NULL) || a.now - last_draw >= 0.05;
                continue;
            }
        } else if (work == 2) { /* the pass is complete: show what changed */
            redraw = 1;
            continue;
        } else {
            got = look(&st, &a, wait);
        }
        a.now = tf_seconds();
        redraw = 1; /* an event, or the wake-up we asked for */
        if (a.win.want_fullscreen_toggle) {
            a.win.want_fullscreen_toggle = 0;
            a.win.fullscreen = !a.win.fullscreen;
            plat_set_fullscreen(r, a.win.fullscreen);
        }
    }
    stall_write(&st);
    app_free(&a);
    ren_close(r);
    return 0;
}
