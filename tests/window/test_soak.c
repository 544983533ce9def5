/* test_soak.c - thousands of random synthetic input events (keys, text,
 * clicks, the wheel, resizes, view tabs) fed to the window, and after
 * every one the App's invariants: the cursor inside the focused text, the
 * position inside the stage walk, layer, head and sentence in range, a view
 * that exists; after every frame, the view drew from the trace the session
 * holds now (never a stale version), or the error of the input it holds
 * now, or nothing in an area too small for a view. */
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "rng.h"
#include "test_app_util.h"
#include "test_util.h"

static char MODEL[160];

TU_FIXTURE(MODEL, "soak.safetensors", 1280, 800)

static const char *focused_text(const App *a)
{
    switch (app_focused_line(a)) {
    case APP_LINE_SRC: return a->ses.src_line;
    case APP_LINE_TGT: return a->ses.tgt;
    default: return a->ui.edit.buf; /* a view's field */
    }
}

/* Everything that must hold between events (a failure ends the test). */
static void check(const App *a, int i, const char *after)
{
    const Session *s = &a->ses;
    const char *t = focused_text(a);
    const UiEdit *e = &a->ui.edit;
    if (a->ui.focus)
        expect_true(t && e->cursor >= 0 && e->cursor <= (int)strlen(t) && e->anchor >= 0 &&
                        e->anchor <= (int)strlen(t),
                    "event %d (%s): cursor %d, anchor %d within the focused text", i, after, e->cursor, e->anchor);
    expect_true(s->n_walk > 0 && s->at >= 0 && s->at < s->n_walk,
                      "event %d (%s): position %d within the walk of %d", i, after, s->at, s->n_walk);
    StagePos p = app_pos(a);
    int L = stage_layers(p.stage, &s->model.cfg);
    expect_true(p.layer >= 0 && p.layer < (L > 0 ? L : 1), "event %d (%s): layer %d of %d", i, after,
                      p.layer, L);
    expect_true(s->head >= -1 && s->head < s->model.cfg.n_heads, "event %d (%s): head %d", i, after,
                      s->head);
    expect_true(s->batch >= 0 && s->batch < (s->n_src > 0 ? s->n_src : 1), "event %d (%s): sentence %d of %d",
                      i, after, s->batch, s->n_src);
    expect_true(a->view >= VIEW_AUTO && a->view < VIEW_COUNT, "event %d (%s): view %d", i, after, a->view);
}

/* A frame as the window's loop draws it: again at once while a frame
 * asked for the next (a click in the lesson list opens a lesson after the
 * view was drawn). */
static void frame(App *a, int i)
{
    tu_frame(a);
    for (int k = 0; k < 3 && a->redraw_soon; k++)
        tu_frame(a);
    if (a->drawn.what == DRAWN_NOTHING) { /* a window too small for any view */
        expect_true(a->view_rect.w < 20 || a->view_rect.h < 20, "event %d: no view drawn in an area of %dx%d", i,
                    a->view_rect.w, a->view_rect.h);
        return;
    }
    static const char *const WHAT[] = {"nothing", "the view", "the computing cue", "the input's error"};
    uint64_t v = a->drawn.version & ~(3ull << 62); /* less the comparison mode's bits (app_scene) */
    expect_true(v == a->ses.version, "event %d: the view's area showed %s of version %llu, the session has %llu", i,
                WHAT[a->drawn.what], (unsigned long long)v, (unsigned long long)a->ses.version);
    if (a->drawn.what == DRAWN_ERROR)
        expect_true(a->ses.input_error[0], "event %d: an input error shown, the session has none", i);
}

static void test_soak(void **state)
{
    (void)state;
    static App a;
    AppOpts o = tu_opts(MODEL, "t5 t6 t7", NULL, NULL);
    tu_open(&a, &o, 100);
    session_set_lazy(&a.ses, 1); /* as the window runs: partial passes finished when idle */
    frame(&a, -1);
    Rng r;
    const char *seed = getenv("SOAK_SEED"); /* another run of events: SOAK_SEED=8 build/tests/test_soak */
    rng_seed(&r, seed ? strtoull(seed, NULL, 10) : 2026);
    static const Key keys[] = {KEY_LEFT, KEY_RIGHT, '[', ']', KEY_TAB, '0', '1', '2', '4', '9', 't', 'c', '=',
                               '-', '/', KEY_RETURN, KEY_BACKSPACE, KEY_DELETE, KEY_HOME, KEY_END, KEY_ESCAPE,
                               KEY_SPACE, 's', 'p', 'b', 'a', 'x', ',', '.', 'j', KEY_PAGEDOWN, KEY_NONE};
    static const char *texts[] = {"t5", " ", "|", "我", "爱", "\xff", "t39 t40", "<unk>", "t1", "?"};
    int frames = 0;
    for (int i = 0; i < 4000; i++) {
        int kind = (int)rng_below(&r, 11);
        int x = (int)rng_below(&r, (uint32_t)(a.win.w + 40)) - 20, y = (int)rng_below(&r, (uint32_t)(a.win.h + 40)) - 20;
        const char *what = "?";
        switch (kind) {
        case 0: case 1: case 2:
            ev_key(&a, keys[rng_below(&r, sizeof keys / sizeof keys[0])], rng_below(&r, 8) ? 0 : MOD_SHIFT);
            what = "key";
            break;
        case 3: ev_text(&a, texts[rng_below(&r, sizeof texts / sizeof texts[0])]); what = "text"; break;
        case 4: case 5: ev_mouse(&a, IN_MOUSE_MOVE, x, y, 0); what = "motion"; break;
        case 6:
            ev_mouse(&a, IN_MOUSE_DOWN, x, y, rng_below(&r, 4) ? MB_LEFT : MB_RIGHT);
            what = "button down";
            break;
        case 7: ev_mouse(&a, IN_MOUSE_UP, x, y, MB_LEFT); what = "button up"; break;
        case 8: ev_mouse(&a, IN_WHEEL, 0, 0, (int)rng_below(&r, 7) - 3); what = "wheel"; break;
        case 9: { /* a view tab, as the tab strip offers them (not training: slow) */
            ViewId ch[APP_MAX_VIEW_CHOICES];
            int n = app_view_choices(&a, ch);
            ViewId v = ch[rng_below(&r, (uint32_t)n)];
            if (v != VIEW_TRAIN)
                a.view = v;
            what = "view tab";
            break;
        }
        default:
            if (rng_below(&r, 20) == 0)
                ren_resize_headless(tu_ren, 160 + (int)rng_below(&r, 1800), 120 + (int)rng_below(&r, 1000));
            what = "resize";
            break;
        }
        a.win.want_quit = 0;
        a.win.want_save_png = a.win.want_save_csv = 0;
        if (a.look.text_scale > 2.0f)
            a.look.text_scale = 1.0f;
        check(&a, i, what);
        if (i % 5 == 0) {
            frame(&a, i);
            frames++;
            check(&a, i, "frame");
        }
        if (i % 7 == 0) {
            app_idle_work(&a);
            check(&a, i, "idle work");
        }
    }
    ren_resize_headless(tu_ren, 1280, 800);
    printf("  4000 events, %d frames, ended at %s in view %s\n", frames, stage_info(app_pos(&a).stage)->name,
           view_name(app_current_view(&a)));
    app_free(&a);
}

int main(void)
{
    TU_RUN(setup, teardown, cmocka_unit_test(test_soak));
}
