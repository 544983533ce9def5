/* gui.c - the window: open it, feed events to the App (as our own
 * InputEvents, input.h), draw when something changed, and sleep in SDL_WaitEventTimeout otherwise (no CPU when idle). */
#include <SDL.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "gui.h"
#include "view.h"

static double seconds(void)
{
    return (double)SDL_GetPerformanceCounter() / (double)SDL_GetPerformanceFrequency();
}

/* Ctrl+V: the clipboard's text, as the App frees it (free()). */
static char *clipboard_text(void)
{
    if (!SDL_HasClipboardText())
        return NULL;
    char *t = SDL_GetClipboardText();
    char *copy = t ? strdup(t) : NULL;
    SDL_free(t);
    return copy;
}

static void handle_requests(App *a, Ren *r)
{
    SDL_Window *w = ren_window_handle(r);
    if (a->want_fullscreen_toggle && w) {
        a->want_fullscreen_toggle = 0;
        a->fullscreen = !a->fullscreen;
        SDL_SetWindowFullscreen(w, a->fullscreen ? SDL_WINDOW_FULLSCREEN_DESKTOP : 0);
    }
}

int gui_run(const AppOpts *o)
{
    TfErr err;
    Ren *r = ren_open_window("Stepformer", 1280, 800, &err);
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
    if (warn[0]) /* no Chinese font: once, in the notice line and here */
        app_notice(&a, 0, "%s", warn);
    if (warn[0])
        cli_warn("gui", "%s", warn);
    a.paste = clipboard_text;
    a.ses.lazy = 1; /* an edit redraws at once; the rest of the pass runs when idle */
    SDL_Window *w = ren_window_handle(r);
    if (w)
        SDL_SetWindowMinimumSize(w, 200, 150);
    SDL_StartTextInput();
    int redraw = 1;
    while (!a.want_quit) {
        a.now = seconds();
        if (redraw) {
            app_draw(&a, r);
            if (a.want_save_png) {
                a.want_save_png = 0;
                app_save_png(&a, r);
            }
            if (a.want_save_csv) {
                a.want_save_csv = 0;
                app_save_csv(&a);
            }
            ren_end(r);
            if (a.want_save_vector) { /* drawn between two frames */
                a.want_save_vector = 0;
                app_save_vector(&a, r);
            }
            redraw = 0;
        }
        int wait = app_next_wake_ms(&a);
        SDL_Event e;
        int got;
        int work = app_idle_work(&a);
        if (work == 1) { /* more of the pass to run: only until an event comes */
            got = SDL_PollEvent(&e);
            if (!got) {
                redraw = session_decoding(&a.ses, NULL, NULL); /* tokens as they arrive */
                continue;
            }
        } else if (work == 2) { /* the pass is complete: show what changed */
            redraw = 1;
            continue;
        } else {
            got = wait < 0 ? SDL_WaitEvent(&e) : SDL_WaitEventTimeout(&e, wait);
        }
        a.now = seconds();
        redraw = 1; /* an event, or the wake-up we asked for */
        if (got) {
            do {
                InputEvent in;
                if (input_from_sdl(&e, &in))
                    app_event(&a, &in);
            } while (SDL_PollEvent(&e));
        }
        handle_requests(&a, r);
    }
    app_free(&a);
    ren_close(r);
    return 0;
}
