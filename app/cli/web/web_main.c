/* web_main.c - the browser build's program (make web; README "In the
 * browser"): the same App as the desktop window, opened on the state the
 * page's address names (link.h), driven by the browser's frames through
 * plat_web.h, and the functions behind window.stepformer (tools/web/api.js
 * calls the sf_* functions below; the link exports them by name). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app.h"
#include "clock.h"
#include "derived.h"
#include "export.h"
#include "lesson_ui.h"
#include "link.h"
#include "plat.h"
#include "plat_web.h"
#include "ren.h"
#include "scene.h"
#include "stage.h"
#include "train_host.h"
#include "train_worker.h"
#include "ui.h"
#include "view.h"

#define WEB_DATA "/share/stepformer" /* the page's .data: models, lessons, catalog */
#define WEB_PERSIST "/persist"       /* IndexedDB: lesson progress */
#define WEB_OUT "/out"               /* saved files, handed over as downloads */

static App g_app;
static Ren *g_ren;
static SceneLink g_link;
static int g_redraw = 1, g_ready, g_input;
static double g_last_draw;
static double g_wake_due; /* when the window wants its next frame drawn, or 0 */
static char *g_json; /* the last sf_dump answer */

static void apply_fields(App *a, const SceneLink *l, int with_lesson);

/* the link's experiments, for app_open_exp once the model is open */
static TfExpSpec g_exp;
static LinkPos g_exp_pos[TF_EXP_MAX_HIDE];

/* the file of the model a link names (model=en2zh, or NAME~SHA12 for a
 * file the page was given), for app_init */
static char g_model_path[4096];

/* The link's fields as the window's options (what the command line would
 * give). 0, or -1 with err when the model it names is not here (the rest
 * is still set: the page opens on the bundled model). */
static int link_opts(const SceneLink *l, AppOpts *o, TfErr *err)
{
    memset(o, 0, sizeof *o);
    o->head = -2;
    int rc = 0;
    if (l->has & LINK_MODEL) {
        if (scene_model_find(l->model, g_model_path, sizeof g_model_path, err) == 0)
            o->model_path = g_model_path;
        else
            rc = -1;
    }
    if (l->has & LINK_BATCH)
        o->batch = l->batch;
    if (l->has & LINK_SRC)
        o->src[o->n_src++] = l->src;
    if (l->has & LINK_TGT)
        o->tgt = l->tgt;
    if (l->has & LINK_STAGE)
        o->stage = l->stage;
    o->layer = l->layer;
    if (l->has & LINK_HEAD)
        o->head = l->head;
    if ((l->has & LINK_VIEW) && view_find(l->view) >= 0)
        o->view = l->view;
    o->lang = (l->has & LINK_LANG) ? l->lang : 0;
    if (l->has & LINK_LESSON) {
        o->lesson = l->lesson;
        o->lesson_step = (l->has & LINK_STEP) ? l->step - 1 : 0;
    }
    if (l->has & LINK_EXP) {
        link_exp_spec(l, &g_exp, g_exp_pos);
        o->on_open = app_open_exp;
        o->on_open_ctx = &g_exp;
    }
    return rc;
}

static void on_event(void *user, const InputEvent *in)
{
    App *a = user;
    a->now = tf_seconds();
    app_event(a, in);
    g_input = 1;
}

static void draw(App *a)
{
    if (app_frame_saving(a, g_ren)) /* a figure is refused with a line: no cairo here */
        g_redraw = 1;
    plat_web_download_dir(WEB_OUT);
    g_last_draw = a->now;
    if (!g_ready) {
        g_ready = 1;
        plat_web_ready();
    }
}

/* One browser frame: the events that came, one more unit of the pass when
 * one is left, a drawing when something changed. Returns the wait. */
static int frame(void *user)
{
    App *a = user;
    a->now = tf_seconds();
    g_input = 0;
    if (plat_events(0, on_event, a))
        g_redraw = 1;
    if (g_wake_due && a->now >= g_wake_due) { /* the wake-up the window asked for */
        g_wake_due = 0;
        g_redraw = 1;
    }
    a->win.want_quit = 0; /* Esc: a page is closed by its tab, not by a key */
    if (a->win.want_fullscreen_toggle) {
        a->win.want_fullscreen_toggle = 0;
        a->win.fullscreen = !a->win.fullscreen;
        plat_set_fullscreen(g_ren, a->win.fullscreen);
    }
    int work = app_idle_work(a);
    if (work == 1 && (session_decoding(&a->ses, NULL, NULL) || a->now - g_last_draw >= 0.05))
        g_redraw = 1;
    else if (work == 2)
        g_redraw = 1;
    if (g_redraw) {
        g_redraw = 0;
        draw(a);
    }
    if (g_input)
        plat_web_persist_soon();
    if (work == 1 || work == 2) /* more of the pass, or its last unit to show */
        return 0;
    int wait = app_next_wake_ms(a);
    if (wait >= 0) { /* a redraw is wanted then (animation, cursor, training, a notice) */
        double due = a->now + wait / 1e3;
        if (!g_wake_due || due < g_wake_due)
            g_wake_due = due;
    }
    return wait;
}

int main(void)
{
    /* emscripten's libc starts with umask 0777, so every file the window
     * writes (saved PNGs, lesson progress) would have no permission bits
     * and could not be read back */
    umask(022);
    setenv("STEPFORMER_DATADIR", WEB_DATA, 1);
    /* the page is the display: ren_open_window looks for X11 or Wayland
     * unless a video driver is named */
    setenv("SDL_VIDEODRIVER", "emscripten", 1);
    setenv("XDG_DATA_HOME", WEB_PERSIST, 1);
    unsetenv("HOME"); /* saves go to the working folder (WEB_OUT), which becomes downloads, not ~/Pictures */
    tw_set_cooperative(1); /* no threads: the Train tab trains inside the frames */
    mkdir(WEB_OUT, 0755);
    if (chdir(WEB_OUT) != 0)
        fprintf(stderr, "stepformer: cannot enter %s\n", WEB_OUT);
    char frag[4 * LINK_TEXT_MAX];
    TfErr err = {{0}}, lerr = {{0}};
    plat_web_fragment(frag, sizeof frag);
    int bad_link = link_parse(frag, &g_link, &lerr) < 0;
    int w, h;
    double dpr;
    plat_web_viewport(&w, &h, &dpr);
    g_ren = ren_open_window("Stepformer", w > 0 ? w : 1280, h > 0 ? h : 800, &err);
    if (!g_ren) {
        fprintf(stderr, "stepformer: %s\n", err.msg);
        return 1;
    }
    char warn[TF_ERR_MAX + 64];
    if (ren_fonts_check(g_ren, warn, sizeof warn, &err)) {
        fprintf(stderr, "stepformer: %s\n", err.msg);
        return 1;
    }
    AppOpts o;
    TfErr merr = {{0}};
    int fields_ok = !bad_link; /* the link read well (its model may still be missing) */
    if (link_opts(&g_link, &o, &merr) && fields_ok) { /* a model that is not here: the bundled one, and a line */
        lerr = merr;
        bad_link = 1;
    }
    if (app_init(&g_app, &o, &err)) {
        /* the link named something the model does not have: open without it */
        fprintf(stderr, "stepformer: %s\n", err.msg);
        snprintf(lerr.msg, sizeof lerr.msg, "%s", err.msg);
        bad_link = 1;
        fields_ok = 0;
        memset(&g_link, 0, sizeof g_link);
        link_opts(&g_link, &o, &err);
        if (app_init(&g_app, &o, &err)) {
            fprintf(stderr, "stepformer: %s\n", err.msg);
            return 1;
        }
    }
    /* a lesson's step sets its own sentence and view: the link's own
     * fields, when it names them too, win (the link opens exactly its state) */
    if (fields_ok && (g_link.has & LINK_LESSON) && (g_link.has & ~(LINK_LESSON | LINK_STEP | LINK_LANG | LINK_EXP)))
        apply_fields(&g_app, &g_link, 0);
    else if (fields_ok)
        app_scene_open_decode(&g_app, &g_link); /* pane, beam, alpha, sampling: the Decode tab as the link has it */
    if (bad_link)
        app_notice(&g_app, 1, "%s", lerr.msg);
    else if (warn[0])
        app_notice(&g_app, 0, "%s", warn);
    g_app.ui.paste = plat_clipboard_text; /* SDL's, which the page's paste event fills */
    g_app.ui.copy = plat_web_clipboard_set;
    g_app.ui.speak = plat_web_speak; /* Ctrl+D reads the view aloud (no spd-say in a page) */
    session_set_lazy(&g_app.ses, 1);
    plat_window_setup(g_ren);
    plat_web_run(frame, &g_app);
    return 0;
}

/* ---- window.stepformer (tools/web/api.js) ---- */

static void changed(void)
{
    g_redraw = 1;
    plat_web_persist_soon(); /* a lesson step reached from JS is progress too */
    plat_web_wake();
}

void sf_set_source(const char *text)
{
    app_set_text(&g_app, APP_LINE_SRC, text ? text : "");
    changed();
}

void sf_set_target(const char *text)
{
    app_set_text(&g_app, APP_LINE_TGT, text ? text : "");
    changed();
}

/* 0, or -1 when the stage is unknown */
int sf_set_stage(const char *name, int layer, int head)
{
    int id = name ? stage_find(name) : -1;
    if (id < 0)
        return -1;
    app_goto(&g_app, id, layer < 0 ? 0 : layer);
    if (head >= -1)
        session_set_head(&g_app.ses, head);
    changed();
    return 0;
}

int sf_set_lang(const char *lang)
{
    if (!lang || (strcmp(lang, "en") && strcmp(lang, "zh")))
        return -1;
    lesson_ui_set_lang(&g_app, strcmp(lang, "zh") == 0);
    changed();
    return 0;
}

/* step from 1, as in the links; 0 when the lesson opened */
int sf_open_lesson(const char *id, int step)
{
    int rc = id ? lesson_ui_open(&g_app, id, step > 0 ? step - 1 : 0) : -1;
    changed();
    return rc;
}

/* the page's paste event (api.js): its text, then Ctrl+V (Ctrl+Shift+V) */
void sf_paste(const char *text, int shift)
{
    plat_web_paste(text, shift);
}

/* a model the page wrote into its file system (a picked or dropped file) */
int sf_open_model(const char *path)
{
    size_t n = path ? strlen(path) : 0;
    if (n > 4 && strcmp(path + n - 4, ".bin") == 0) { /* pickle.c would only say "not a zip" here */
        app_notice(&g_app, 1, "%s: pytorch_model.bin files need libzip, which the browser build leaves out; "
                              "open it in the desktop program",
                   path);
        changed();
        return -1;
    }
    int rc = app_load_model(&g_app, path);
    changed();
    return rc;
}

/* The stage as `stepformer dump --format json` prints it (head -2: that
 * command's default), the heads lab's computed stages (dec.lens,
 * enc.rollout, dec.cross.rollout) too, or {"error": "..."}; the text lives
 * until the next call. */
const char *sf_dump(const char *name, int layer, int head)
{
    free(g_json);
    g_json = NULL;
    App *a = &g_app;
    int did = name ? tf_derived_find(name) : -1;
    int id = did >= 0 ? 0 : name ? stage_find(name) : -1;
    TfErr err = {{0}};
    TfView v;
    float *derived = NULL;
    if (id < 0) {
        snprintf(err.msg, sizeof err.msg, "unknown stage '%.60s'", name ? name : "");
    } else {
        if (head == -2)
            head = did < 0 && (stage_info(id)->flags & SF_HEAD) ? 0 : -1;
        app_compute_all(a);
        int rc = a->ses.input_error[0] ? -1
                 : did >= 0 ? tf_derived_view(&a->ses.model, &a->ses.trace, (DerivedId)did, layer, a->ses.batch,
                                              &derived, &v, &err)
                            : tf_view(&a->ses.trace, id, layer, head, a->ses.batch, &v, &err);
        if (a->ses.input_error[0])
            snprintf(err.msg, sizeof err.msg, "%s", a->ses.input_error);
        else if (rc == 0) {
            size_t len = 0;
            FILE *f = open_memstream(&g_json, &len);
            if (f) {
                export_json(f, &a->ses.trace, &a->ses.model, &v);
                fclose(f);
            }
            free(derived);
            if (g_json)
                return g_json;
            snprintf(err.msg, sizeof err.msg, "out of memory");
        }
    }
    free(derived);
    size_t n = strlen(err.msg) * 2 + 16;
    g_json = malloc(n);
    if (!g_json)
        return "{\"error\": \"out of memory\"}";
    char *p = g_json + snprintf(g_json, n, "{\"error\": \"");
    for (const char *s = err.msg; *s; s++)
        if (*s != '"' && *s != '\\')
            *p++ = *s;
    strcpy(p, "\"}");
    return g_json;
}

/* The fields l names, applied to the open window (the lesson too when
 * with_lesson): what a changed address asks for. */
static void apply_fields(App *a, const SceneLink *l, int with_lesson)
{
    TfErr err = {{0}};
    if (l->has & LINK_MODEL) { /* the model first: the rest is read against it */
        char path[sizeof g_model_path], now[LINK_NAME_MAX + 16];
        TfErr e2;
        if (scene_model_find(l->model, path, sizeof path, &err))
            app_notice(a, 1, "%s", err.msg);
        else if (!a->ses.model_path[0] || scene_model_name(a->ses.model_path, now, sizeof now, &e2) ||
                 strcmp(now, l->model) != 0)
            app_load_model(a, path);
    }
    if (l->has & LINK_SRC)
        app_set_text(a, APP_LINE_SRC, l->src);
    if (l->has & LINK_TGT)
        app_set_text(a, APP_LINE_TGT, l->tgt);
    if (l->has & LINK_LANG)
        lesson_ui_set_lang(a, l->lang);
    if (with_lesson && (l->has & LINK_LESSON))
        lesson_ui_open(a, l->lesson, (l->has & LINK_STEP) ? l->step - 1 : 0);
    if (l->has & LINK_EXP) {
        TfExperiment e;
        app_update(a);
        if (link_experiment(l, &a->ses.model.cfg, a->ses.pad.S, &e, &err))
            app_notice(a, 1, "%s", err.msg);
        else
            app_set_exp(a, &e);
    }
    if (l->has & (LINK_STAGE | LINK_LAYER)) {
        StagePos p = app_pos(a);
        app_goto(a, (l->has & LINK_STAGE) ? stage_find(l->stage) : p.stage,
                 (l->has & LINK_LAYER) ? l->layer : p.layer);
    }
    if (l->has & LINK_BATCH) {
        app_compute_all(a); /* the batch the new text makes */
        session_set_batch(&a->ses, l->batch);
    }
    if (l->has & LINK_HEAD)
        session_set_head(&a->ses, l->head);
    if ((l->has & LINK_VIEW) && view_find(l->view) >= 0)
        a->view = (ViewId)view_find(l->view);
    app_scene_open_decode(a, l);
}

/* A link given while the page is open (the address's fragment changed):
 * what it names is applied; 0, or -1 with the reason in the notice line. */
int sf_apply_link(const char *frag)
{
    static SceneLink l;
    TfErr err = {{0}};
    if (link_parse(frag, &l, &err)) {
        app_notice(&g_app, 1, "%s", err.msg);
        changed();
        return -1;
    }
    apply_fields(&g_app, &l, 1);
    changed();
    return 0;
}

/* The current state as a link (for a "share this view" button): the scene
 * Ctrl+Shift+C copies (model, sentence, stage, view, lesson, experiment,
 * the Decode tab's settings), or, when the model's file cannot be named,
 * the sentence, stage, layer, head and language. */
const char *sf_link(void)
{
    static char buf[4 * LINK_TEXT_MAX];
    static SceneLink l;
    TfErr err;
    if (app_scene_capture(&g_app, &l, &err)) {
        memset(&l, 0, sizeof l);
        StagePos p = app_pos(&g_app);
        snprintf(l.src, sizeof l.src, "%s", g_app.ses.src_line);
        snprintf(l.stage, sizeof l.stage, "%s", stage_info(p.stage)->name);
        l.layer = p.layer;
        l.head = g_app.ses.head;
        l.lang = g_app.look.lang;
        l.has = LINK_SRC | LINK_STAGE | LINK_LAYER | LINK_HEAD | LINK_LANG;
    }
    if (link_format(&l, buf, sizeof buf) < 0)
        buf[0] = 0;
    return buf;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* n frames of the current view drawn back to back, the mouse moving over
 * it as in `stepformer bench`'s frame_* entries: the median milliseconds
 * of one (for make web-test's comparison with the native frame time).
 * headless 0: on the page's canvas, the GPU's drawing included; 1: into
 * SDL's software renderer off screen at 1920 x 1080, what the native bench
 * draws into (the same C code, compiled to wasm); -1 when that renderer
 * cannot be made. */
double sf_bench_frames(int n, int headless)
{
    static double ms[256];
    App *a = &g_app;
    n = n < 1 ? 1 : n > 256 ? 256 : n;
    TfErr err = {{0}};
    Ren *r = headless ? ren_open_headless(1920, 1080, &err) : g_ren;
    if (!r)
        return -1;
    double now = a->now;
    for (int i = 0; i < n; i++) {
        a->now += 1.0; /* past any easing, as the bench does */
        a->ui.in.mx = 700 + (i * 37) % 600;
        a->ui.in.my = 300 + (i * 23) % 400;
        double t0 = tf_seconds();
        app_frame(a, r);
        if (!headless)
            plat_web_gl_finish();
        ms[i] = (tf_seconds() - t0) * 1e3;
    }
    a->now = now;
    if (headless) { /* the textures made for r go with it; the page's are made again */
        app_gfx_free(a);
        ren_close(r);
    }
    qsort(ms, (size_t)n, sizeof *ms, cmp_double);
    changed();
    return ms[n / 2];
}

/* What the window shows now, for a course page or a test: the notice line
 * and the Train tab's step and state (TwState), as a JSON object. */
const char *sf_state(void)
{
    static char buf[1024];
    App *a = &g_app;
    TrainHost *h = app_train(a);
    char notice[600];
    size_t n = 0;
    for (const char *p = a->now < a->notice_until ? a->notice : ""; *p && n + 1 < sizeof notice; p++)
        if (*p != '"' && *p != '\\' && (unsigned char)*p >= 0x20)
            notice[n++] = *p;
    notice[n] = 0;
    snprintf(buf, sizeof buf, "{\"notice\": \"%s\", \"notice_error\": %d, \"train_step\": %lld, \"train_state\": %d}",
             notice, a->notice_error, h && h->w ? h->st.step : 0LL, h && h->w ? (int)h->st.state : -1);
    return buf;
}
