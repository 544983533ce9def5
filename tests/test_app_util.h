/* test_app_util.h - what the app tests share: a small random model saved
 * to a file, and synthetic input events (input.h: keys, text, mouse motion,
 * buttons and the wheel) fed through app_event(). */
#ifndef TEST_APP_UTIL_H
#define TEST_APP_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "checkpoint.h"
#include "test_util.h"
#include "utf8.h"

/* s opened on the model file at path; with src (and tgt, NULL none) set
 * and every stage computed. A failure to open is a failed check. */
static inline void tu_session(Session *s, const char *path, const char *src, const char *tgt)
{
    TfErr err;
    expect_true(session_init(s, path, 0, &err) == 0, "session on %s: %s", path, err.msg);
    if (!src)
        return;
    session_set_text(s, 0, src);
    if (tgt)
        session_set_text(s, 1, tgt);
    session_compute_all(s);
}

/* A random model of tu_config(z), saved at path; 0 or -1. */
static inline int tu_save_model(const char *path, TuSize z, uint64_t seed)
{
    TfConfig c = tu_config(z);
    TfErr err;
    TfModel m;
    if (model_init_random(&m, &c, seed, &err))
        return -1;
    int rc = ckpt_save(&m, path, &err);
    model_free(&m);
    return rc;
}

/* A random classroom-shaped model (d_model 32, 4 heads, d_ff 64, 2 + 2
 * layers) with vocabularies of t4 t5 ... up to `vocab`, saved at path. */
static inline int tu_small_model(const char *path, int vocab, int max_len, uint64_t seed)
{
    TuSize z = {.d_model = 32, .n_heads = 4, .d_ff = 64, .src_vocab = vocab, .tgt_vocab = vocab, .max_len = max_len};
    return tu_save_model(path, z, seed);
}

/* A random model of preset base (512/8/2048/6+6), embeddings tied, with
 * vocabularies of `vocab` tokens and max_len (a sentence decodes in at most
 * max_len steps), in memory: what the tests that count a window's work per
 * call run on. */
static inline void tu_base_model(TfModel *m, int vocab, int max_len, uint64_t seed)
{
    TfErr err;
    TfConfig c;
    expect_true(cfg_preset(&c, "base", &err) == 0, "preset");
    c.src_vocab = c.tgt_vocab = vocab;
    c.tie = TF_TIE_ALL;
    c.max_len = max_len;
    expect_true(model_init_random(m, &c, seed, &err) == 0, "model: %s", err.msg);
}

/* A file name in /tmp of this process only (test programs of several
 * checkouts may run at once). */
static inline const char *tu_tmp(char *buf, size_t cap, const char *name)
{
    snprintf(buf, cap, "/tmp/stepformer-test-%d-%s", (int)getpid(), name);
    return buf;
}

static inline void ev_key(App *a, Key k, int mod)
{
    InputEvent e;
    memset(&e, 0, sizeof e);
    e.type = IN_KEY;
    e.key = k;
    e.mod = mod;
    app_event(a, &e);
}

/* Text as SDL delivers it: events of at most 31 bytes cut at UTF-8
 * boundaries. */
static inline void ev_text(App *a, const char *t)
{
    size_t n = strlen(t);
    while (n > 0) {
        size_t k = 0; /* whole characters, at most 31 bytes (a bad byte is one) */
        while (k < n) {
            uint32_t cp;
            int c = utf8_next(t + k, n - k, &cp);
            size_t len = c > 0 ? (size_t)c : 1;
            if (k + len > INPUT_TEXT_MAX - 1)
                break;
            k += len;
        }
        InputEvent e;
        memset(&e, 0, sizeof e);
        e.type = IN_TEXT;
        memcpy(e.text, t, k);
        app_event(a, &e);
        t += k;
        n -= k;
    }
}

/* type: IN_MOUSE_MOVE, IN_MOUSE_DOWN/UP (button), IN_WHEEL (button = the
 * wheel's clicks), with the modifier keys mod held (MOD_ALT: Alt+click)
 * and, for a press, SDL's click count (2 a double click; 0 none given). */
static inline void ev_mouse_clicks(App *a, InputType type, int x, int y, int button, int mod, int clicks)
{
    InputEvent e;
    memset(&e, 0, sizeof e);
    e.type = type;
    e.x = x;
    e.y = y;
    e.mod = mod;
    e.clicks = clicks;
    if (type == IN_WHEEL)
        e.wheel = button;
    else
        e.button = button;
    app_event(a, &e);
}

/* The same with no click count. */
static inline void ev_mouse_mod(App *a, InputType type, int x, int y, int button, int mod)
{
    ev_mouse_clicks(a, type, x, y, button, mod, 0);
}

/* The same with no modifier held. */
static inline void ev_mouse(App *a, InputType type, int x, int y, int button)
{
    ev_mouse_mod(a, type, x, y, button, 0);
}

/* ---- the fixture most app tests share: one headless renderer and a small
 * model of their own ---- */

static Ren *tu_ren;

/* Write a small model at a per-process path made from name (into path);
 * 0 or -1. */
static inline int tu_model_tmp(char *path, size_t cap, const char *name, int vocab, int max_len, uint64_t seed)
{
    tu_tmp(path, cap, name);
    return tu_small_model(path, vocab, max_len, seed);
}

/* Open a w x h headless renderer as tu_ren; 0 or -1. */
static inline int tu_renderer_open(int w, int h)
{
    TfErr err;
    tu_ren = ren_open_headless(w, h, &err);
    return tu_ren ? 0 : -1;
}

/* The model of tu_model_tmp and a w x h headless renderer; 0 or -1 (for
 * cmocka's setup). */
static inline int tu_fixture_open(char *path, size_t cap, const char *name, int vocab, int max_len,
                                  uint64_t seed, int w, int h)
{
    if (tu_model_tmp(path, cap, name, vocab, max_len, seed))
        return -1;
    return tu_renderer_open(w, h);
}

static inline void tu_fixture_close(const char *path)
{
    ren_close(tu_ren);
    tu_ren = NULL;
    if (path)
        remove(path);
}

/* cmocka's setup and teardown of a program whose fixture is the model at
 * path (a char array), made from name (40 tokens, max_len 24, seed 5),
 * and a w x h renderer. */
#define TU_FIXTURE(path, name, w, h) \
    TU_GROUP(tu_fixture_open(path, sizeof path, name, 40, 24, 5, w, h), (tu_fixture_close(path), 0))

/* The same for a program that needs only the model (made from name with
 * vocab tokens, max_len and seed), no renderer. */
#define TU_MODEL_FIXTURE(path, name, vocab, max_len, seed) \
    TU_GROUP(tu_model_tmp(path, sizeof path, name, vocab, max_len, seed), (remove(path), 0))

/* A lesson test's home: a scratch folder made from name (its path into
 * dir, dcap bytes) with empty lessons/en and lessons/zh for the test to
 * write, dir/data as XDG_DATA_HOME, a small model at
 * dir/assets/models/tiny.safetensors (its path into model, cap bytes;
 * vocabulary 30, max_len 24, seed 2) and a 1280 x 800 renderer; 0 or -1.
 * tu_lesson_home_close closes the renderer and removes dir. */
static inline int tu_lesson_home(char *dir, size_t dcap, const char *name, char *model, size_t cap)
{
    char cmd[600], p[256];
    if (tu_scratch(dir, dcap, name))
        return -1;
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/lessons/en' '%s/lessons/zh' '%s/data' '%s/assets/models'", dir, dir,
             dir, dir);
    if (system(cmd) != 0)
        return -1;
    snprintf(p, sizeof p, "%s/data", dir);
    setenv("XDG_DATA_HOME", p, 1);
    snprintf(model, cap, "%s/assets/models/tiny.safetensors", dir);
    if (tu_small_model(model, 30, 24, 2))
        return -1;
    TfErr err;
    tu_ren = ren_open_headless(1280, 800, &err);
    return tu_ren ? 0 : -1;
}

static inline int tu_lesson_home_close(const char *dir)
{
    tu_fixture_close(NULL);
    return tu_scratch_remove(dir);
}

/* The same lesson text in both languages: dir/lessons/en/file and
 * dir/lessons/zh/file. */
static inline void tu_write_lesson(const char *dir, const char *file, const char *text)
{
    char name[128];
    snprintf(name, sizeof name, "lessons/en/%s", file);
    tu_write_text(dir, name, text);
    snprintf(name, sizeof name, "lessons/zh/%s", file);
    tu_write_text(dir, name, text);
}

/* g_dir, a lesson home (tu_lesson_home) named NAME made before the group's
 * tests and removed after, g_model its model; WRITE() (defined after this)
 * then writes the lessons into it. The group's setup and teardown. */
#define TU_LESSON_HOME_GROUP(NAME, WRITE)                                                       \
    static void WRITE(void);                                                                   \
    static char g_dir[64];                                                                     \
    static char g_model[160];                                                                  \
    TU_GROUP(tu_lesson_home(g_dir, sizeof g_dir, NAME, g_model, sizeof g_model) ? -1 : (WRITE(), 0), \
             tu_lesson_home_close(g_dir))

/* A hash of the pixels of rc on tu_ren (at most 1000 x 800): equal pictures,
 * equal hashes. Unsigned, so it wraps without undefined behaviour. */
static inline uint64_t tu_pixel_hash(Rect rc)
{
    static uint32_t px[1000 * 800];
    if (rc.w * rc.h > 1000 * 800)
        return 0;
    ren_read_pixels(tu_ren, rc, px);
    uint64_t s = 0;
    for (int i = 0; i < rc.w * rc.h; i++)
        s = s * 31 + (px[i] >> 8);
    return s;
}

/* cmocka's setup and teardown of a program that only needs a w x h
 * headless renderer (its models come from elsewhere). */
#define TU_RENDERER(w, h) TU_GROUP(tu_renderer_open(w, h), (tu_fixture_close(NULL), 0))

/* Options for an app on model with one source sentence (NULL: the
 * default), a target (NULL: greedy) and a view (NULL: the natural one);
 * head -2 keeps the model's default, progress files are not written. */
static inline AppOpts tu_opts(const char *model, const char *src, const char *tgt, const char *view)
{
    AppOpts o = {0};
    o.model_path = model;
    o.src[0] = src;
    o.n_src = src != NULL;
    o.tgt = tgt;
    o.view = view;
    o.head = -2;
    o.no_save = 1;
    return o;
}

/* app_init (which must work) with the clock at now. */
static inline void tu_open(App *a, const AppOpts *o, double now)
{
    TfErr err;
    expect_true(app_init(a, o, &err) == 0, "the app opens: %s", err.msg);
    a->now = now;
}

/* The app on the model of the lesson home dir with its lessons, saving
 * progress, head as given (-2: the model's default), the clock at 10. */
static inline void tu_open_lessons(App *a, const char *dir, const char *model, int head)
{
    char lessons[256];
    snprintf(lessons, sizeof lessons, "%s/lessons", dir);
    AppOpts o = tu_opts(model, NULL, NULL, NULL);
    o.lessons_dir = lessons;
    o.head = head;
    o.no_save = 0;
    tu_open(a, &o, 10);
}

/* The app on model with one source sentence src (the rest as tu_opts
 * leaves it), opened with the clock at now. */
static inline void tu_open_src(App *a, const char *model, const char *src, double now)
{
    AppOpts o = tu_opts(model, src, NULL, NULL);
    tu_open(a, &o, now);
}

/* The app on model in the train view with "t5 t6 t7" and a "reverse" run
 * of steps steps set up (which must work). */
static inline void tu_open_train(App *a, const char *model, long long steps)
{
    AppOpts o = tu_opts(model, "t5 t6 t7", NULL, "train");
    tu_open(a, &o, 100);
    expect_true(app_train_setup(a, "reverse", steps) == 0, "a reverse run of %lld steps: %s", steps, a->notice);
}

/* The app the experiment tests start from: "t5 t6 t7 t8" on model, the
 * first head, view (NULL: the natural one), both passes computed. */
static inline void tu_open_exp(App *a, const char *model, const char *view)
{
    AppOpts o = tu_opts(model, "t5 t6 t7 t8", NULL, view);
    o.head = 0;
    tu_open(a, &o, 100);
    app_compute_all(a);
}

/* The same at stage st (layer 1). */
static inline void tu_open_exp_at(App *a, const char *model, const char *view, StageId st)
{
    tu_open_exp(a, model, view);
    app_goto(a, st, 0);
}

/* The experiment most of those tests switch on: no division by √d_k; both
 * passes computed under it. */
static inline void tu_exp_no_scale(App *a)
{
    TfExperiment e = {0};
    e.no_scale = 1;
    app_set_exp(a, &e);
    app_compute_all(a);
}

/* Is view v one of the tabs the app's stage offers? */
static inline int tu_offers(const App *a, ViewId v)
{
    ViewId ch[APP_MAX_VIEW_CHOICES];
    int n = app_view_choices(a, ch);
    for (int i = 0; i < n; i++)
        if (ch[i] == v)
            return 1;
    return 0;
}

/* A whole frame on r, half a second after the last one. */
static inline void tu_frame_on(App *a, Ren *r)
{
    a->now += 0.5;
    app_frame(a, r);
}

/* The same on tu_ren. */
static inline void tu_frame(App *a)
{
    tu_frame_on(a, tu_ren);
}

/* A click as the mouse makes it at (x, y): a move there, the left button
 * down, frame(a), the button up, frame(a). */
static inline void tu_click_then(App *a, int x, int y, void (*frame)(App *))
{
    ev_mouse(a, IN_MOUSE_MOVE, x, y, 0);
    ev_mouse(a, IN_MOUSE_DOWN, x, y, MB_LEFT);
    frame(a);
    ev_mouse(a, IN_MOUSE_UP, x, y, MB_LEFT);
    frame(a);
}

/* The same with whole frames on tu_ren. */
static inline void tu_click(App *a, int x, int y)
{
    tu_click_then(a, x, y, tu_frame);
}

/* ---- what the text layer drew (its test hook, ren_text_hook) ---- */

enum { TU_DRAWN_MAX = 2048, TU_DRAWN_LEN = 128 };

/* The strings drawn while tu_drawn_start's recording was on, in order: the
 * first TU_DRAWN_MAX of those shorter than TU_DRAWN_LEN bytes in s, each
 * with its box and the tag it was drawn under ("view" while a view draws,
 * "window" otherwise, or the window's own: "banner", "help"); and every
 * string, as long as there is room, in text, each between newlines
 * ("\nh1\n" finds the string "h1", "h1" any string that holds it). */
typedef struct TuDrawn {
    int n;
    char s[TU_DRAWN_MAX][TU_DRAWN_LEN];
    char tag[TU_DRAWN_MAX][12];
    Rect box[TU_DRAWN_MAX];
    char text[1 << 16];
} TuDrawn;

static TuDrawn tu_drawn;

static inline void tu_drawn_hook(void *user, const char *utf8, int len, Rect box, const char *tag)
{
    TuDrawn *d = user;
    size_t n = strlen(d->text);
    if (n + (size_t)len + 2 < sizeof d->text) {
        memcpy(d->text + n, utf8, (size_t)len);
        d->text[n + (size_t)len] = '\n';
        d->text[n + (size_t)len + 1] = 0;
    }
    if (len >= TU_DRAWN_LEN || d->n >= TU_DRAWN_MAX)
        return;
    snprintf(d->s[d->n], sizeof d->s[0], "%.*s", len, utf8);
    snprintf(d->tag[d->n], sizeof d->tag[0], "%s", tag ? tag : "");
    d->box[d->n++] = box;
}

/* Record what is drawn from now on into tu_drawn (emptied first). */
static inline void tu_drawn_start(void)
{
    tu_drawn.n = 0;
    strcpy(tu_drawn.text, "\n");
    ren_text_hook(tu_drawn_hook, &tu_drawn);
}

static inline void tu_drawn_stop(void)
{
    ren_text_hook(NULL, NULL);
}

/* A whole frame on r (tu_frame_on), recorded into tu_drawn. */
static inline void tu_drawn_frame(App *a, Ren *r)
{
    tu_drawn_start();
    tu_frame_on(a, r);
    tu_drawn_stop();
}

/* Was string i of tu_drawn drawn under tag (NULL: any)? */
static inline int tu_drawn_by(int i, const char *tag)
{
    return !tag || strcmp(tu_drawn.tag[i], tag) == 0;
}

/* The index of the first string s drawn under tag (NULL: any), -1 none. */
static inline int tu_drawn_find(const char *s, const char *tag)
{
    for (int i = 0; i < tu_drawn.n; i++)
        if (strcmp(tu_drawn.s[i], s) == 0 && tu_drawn_by(i, tag))
            return i;
    return -1;
}

/* How many strings drawn under tag (NULL: any) are s (or, prefix set,
 * begin with s). */
static inline int tu_drawn_count_as(const char *s, const char *tag, int prefix)
{
    int k = 0;
    size_t n = strlen(s);
    for (int i = 0; i < tu_drawn.n; i++)
        k += (prefix ? strncmp(tu_drawn.s[i], s, n) : strcmp(tu_drawn.s[i], s)) == 0 && tu_drawn_by(i, tag);
    return k;
}

static inline int tu_drawn_count(const char *s, const char *tag)
{
    return tu_drawn_count_as(s, tag, 0);
}

static inline int tu_drawn_prefix(const char *s, const char *tag)
{
    return tu_drawn_count_as(s, tag, 1);
}

/* One frame of just view id in area on renderer r, as frame.c hands it
 * over (the frame stays open so its pixels can be read); the mouse's edge
 * flags are cleared afterwards, as after a frame. */
static inline void tu_view_frame(App *a, Ren *r, ViewId id, Rect area)
{
    app_update(a);
    Gfx *g = app_gfx(a, r);
    if (g)
        gfx_fonts(g, a->look.text_scale * a->look.pixel_scale, NULL);
    const Theme *th = theme_get(a->look.theme);
    ren_begin(r, th->bg);
    a->hover.valid = 0;
    if (g) {
        ui_bind(&a->ui, r, g, th, a->now);
        ViewCtx v = {NULL, NULL, NULL, a->pz, &a->ui, r, g, th, area, &a->ui.in, 1.0f};
        app_draw_view(a, &v, id);
    }
    a->ui.in.pressed = a->ui.in.released = a->ui.in.rpressed = 0;
    a->ui.in.wheel = 0;
}

/* The mouse swept over `where` (every dx, dy pixels, row by row), one frame
 * of view id in area at each point, until the view's hover is one that
 * want(hover, arg) accepts: 1 with that point in *x, *y (the hover left as
 * its frame made it), or 0. */
static inline int tu_hover_find(App *a, ViewId id, Rect area, Rect where, int dx, int dy,
                                int (*want)(const Hover *h, const void *arg), const void *arg, int *x, int *y)
{
    for (int py = where.y; py < where.y + where.h; py += dy)
        for (int px = where.x; px < where.x + where.w; px += dx) {
            a->ui.in.mx = px;
            a->ui.in.my = py;
            tu_view_frame(a, tu_ren, id, area);
            ren_end(tu_ren);
            if (want(&a->hover, arg)) {
                *x = px;
                *y = py;
                return 1;
            }
        }
    return 0;
}

#endif
