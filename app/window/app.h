/* app.h - the state of the Stepformer window, apart from drawing.
 *
 * One App owns a Session (session.h: the model, the input, the trace of it
 * and where the learner is: stage, layer, head, sentence of the batch) and
 * adds what only the window has: the view, the selection, how things look
 * (theme, colour maps, text size), focus, hover, pan/zoom, notices. Events change it through
 * app_event() (app_event.c); app_frame() (frame.c) draws it through the
 * renderer layer and handles the mouse in immediate mode. Tests build an
 * App, feed it synthetic input events, run frames on a headless renderer and
 * look at the state. */
#ifndef APP_APP_H
#define APP_APP_H

#include <stdint.h>

#include "colormap.h"
#include "decode.h"
#include "input.h"
#include "model.h"
#include "ren.h"
#include "session.h"
#include "stage.h"
#include "walk.h"

#define APP_MAX_SENT SES_MAX_SENT   /* sentences in the padded batch */
#define APP_TEXT_MAX SES_TEXT_MAX   /* bytes of one input line */
#define APP_CAP_T SES_CAP_T         /* longest sequence the window shows */
#define APP_MAX_STEPS SES_MAX_STEPS /* entries of the stage walk */

typedef enum ViewId {
    VIEW_AUTO = 0, /* the natural view of the current stage */
    VIEW_MATRIX,   /* heatmap with labels and a colour bar */
    VIEW_HEADS,    /* all layers x heads thumbnails */
    VIEW_LINES,    /* attention as lines between two token columns */
    VIEW_MASK,     /* mask matrices with legend, batch selectable */
    VIEW_PE,       /* positional encoding waves, heatmap, rotation */
    VIEW_NORM,     /* Add & Norm before/after statistics */
    VIEW_FFN,      /* FFN hidden activations, ReLU zeros */
    VIEW_OUTPUT,   /* top-k output probabilities per position */
    VIEW_DECODE,   /* teacher forcing beside autoregressive decoding */
    VIEW_TRAIN,    /* live training */
    VIEW_COUNT
} ViewId;

const char *view_name(ViewId v);
int view_find(const char *name); /* -1 if unknown */

typedef enum ThemeId { THEME_DARK, THEME_LIGHT, THEME_CONTRAST, THEME_COUNT } ThemeId;

typedef struct Theme {
    const char *name;
    Color bg, panel, panel2, border, text, dim, accent, accent2, select,
        warn, masked, masked_text, pad, good, bad;
} Theme;
const Theme *theme_get(ThemeId id);


/* Mouse and keyboard input gathered since the last frame (immediate-mode
 * widgets read it while the frame is built). */
typedef struct UiInput {
    int mx, my;           /* mouse position, drawable pixels */
    int down;             /* left button held */
    int pressed, released;/* left button went down / up this frame */
    int rpressed;         /* right button went down */
    int wheel;            /* wheel clicks this frame (+ up) */
    int moved;
} UiInput;

/* FOCUS_VIEW: a text field of the current view (the train view's file
 * path), whose buffer of APP_TEXT_MAX bytes is App.view_text; the view
 * itself leaves it when a click lands elsewhere. */
typedef enum Focus { FOCUS_NONE, FOCUS_SRC, FOCUS_TGT, FOCUS_VIEW } Focus;

/* A token the learner clicked, followed across views. */
typedef struct Selection {
    int side; /* 0 none, 1 source, 2 target */
    int index;
} Selection;

/* What the mouse is over: filled by the view while drawing, shown by the
 * status line and the "how it was computed" box. */
typedef struct Hover {
    int valid;
    StageId stage;
    int layer, head, b, row, col;
    float value;
    char where[640]; /* e.g. "row 1 'love', col 2 'china'" */
    int own;         /* a value of the view itself, not of the trace: no
                        "how it was computed" box */
} Hover;

/* Where things were drawn in the last frame (for tests and tooling). */
typedef struct HitRect {
    Rect r;
    int walk; /* index into the stage walk */
} HitRect;

typedef struct HeatGeo {
    int valid;
    Rect grid;        /* the whole matrix on screen (may exceed the view) */
    float cw, ch;     /* cell size */
    int rows, cols;
    float lo, hi;     /* value range of the colour scale */
    CmapId cmap;
    StageId stage;
} HeatGeo;

/* Pan and zoom of a big matrix: screen = T * cell space (cglm affine2d). */
typedef struct PanZoom {
    float zoom;   /* 1 = fit */
    float ox, oy; /* offset of the content, pixels */
} PanZoom;

typedef struct App {
    /* the model, the input, the trace and where the learner is (no SDL) */
    Session ses;
    ViewId view;                /* VIEW_AUTO or a chosen view */
    Selection sel;
    int nav_layer[2];           /* layer shown in the navigator: encoder, decoder */

    /* how it looks */
    int lang;                   /* 0 English, 1 Simplified Chinese */
    ThemeId theme;
    CmapId cmap_prob, cmap_signed;
    float text_scale;           /* presenter mode: +/- keys */
    float pixel_scale;          /* HiDPI */
    int show_help;
    int fullscreen;
    int want_quit;
    int want_fullscreen_toggle; /* the window loop acts on it */
    int want_save_png, want_save_csv;
    int playing;                /* Space: step through stages on a timer */
    double play_next;

    /* interaction */
    Focus focus;
    int cursor;                 /* byte offset in the focused line */
    char *view_text;            /* the view's field when focus is FOCUS_VIEW */
    UiInput in;
    Hover hover;
    PanZoom pz[VIEW_COUNT];
    int dragging;
    int drag_x, drag_y;
    int win_w, win_h;           /* drawable size */

    /* transitions: the main view eases in after a stage change */
    double anim_start;
    double now;
    double wake_at;             /* a view wants a frame at this time; 0 none */

    HitRect nav_hits[128];      /* navigator blocks drawn last frame */
    int n_nav_hits;
    HeatGeo heat;               /* the main heatmap drawn last frame */

    /* drawing resources bound to the renderer of the last frame */
    struct Gfx *gfx;

    /* state owned by the decode and train views (view_decode.c,
     * view_train.c), made on first use, freed by app_free */
    struct DecodeUi *dec_ui;
    struct TrainUi *train_ui;
    struct LessonUi *les;       /* lessons (lesson_ui.c) */
    int no_save;                /* headless: do not write progress files */
    char lessons_dir[512];      /* "" = the bundled lessons/ */

    /* a message at the bottom for a few seconds ("saved ...", errors) */
    char notice[512];
    double notice_until;
    int notice_error;
    unsigned ses_msg_seen;      /* the session's messages shown so far */
} App;

/* Options the program was started with. */
typedef struct AppOpts {
    const char *model_path;     /* NULL: the bundled en2zh model */
    const char *src[APP_MAX_SENT];
    int n_src;
    const char *tgt;
    const char *stage;          /* initial stage name or NULL */
    int layer, head;
    const char *view;           /* initial view name or NULL */
    const char *theme;
    int batch;
    int lang;                   /* 0 en, 1 zh */
    const char *lesson;         /* open this lesson (id) */
    int lesson_step;            /* 0-based */
    int no_save;                /* do not write progress (headless) */
    const char *lessons_dir;    /* lessons/ elsewhere (teachers' own) */
} AppOpts;

/* Build the app: loads the model (falling back to a random classroom model,
 * labelled untrained, when the bundled one is missing) and computes the
 * first trace. Returns -1 with err only when nothing at all can be shown. */
int app_init(App *a, const AppOpts *o, TfErr *err);
void app_free(App *a);

/* Re-run the model on the current input if it changed: everything, or with
 * a->ses.lazy just what the current view needs. app_idle_work runs one more unit
 * of the pass: it returns 0 when nothing was left, 1 when more remain, 2
 * when it ran the last one. app_compute_all finishes the pass. */
void app_update(App *a);
void app_compute_all(App *a);
int app_idle_work(App *a);
/* Replace the model (the old one is kept when the new one fails to load,
 * and the error is shown as a notice). Returns 0 or -1. */
int app_load_model(App *a, const char *path);
/* Replace the model by m, which the App takes over (a model trained in the
 * train view); label names it in the top bar. On failure the old model is
 * kept, m is freed and the error is a notice. Returns 0 or -1. */
int app_use_model(App *a, TfModel *m, const char *label);

/* Navigation. */
StagePos app_pos(const App *a);
void app_goto(App *a, StageId st, int layer);
void app_step(App *a, int delta);         /* Left/Right */
void app_change_layer(App *a, int delta); /* [ and ] */
void app_toggle_side(App *a);             /* Tab */
void app_set_head(App *a, int head);      /* 1-9 -> 0..8, 0 -> all (-1) */
ViewId app_current_view(const App *a);    /* resolves VIEW_AUTO */
ViewId app_auto_view(const App *a, StageId st);
/* The views the current stage offers, as tabs (natural view first). */
int app_view_choices(const App *a, ViewId *out);
void app_set_text(App *a, Focus which, const char *text);
void app_notice(App *a, int error, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Input: events of our own (input.h), fed in by the window loop, which maps
 * SDL's (input_from_sdl), or by tests. */
void app_event(App *a, const InputEvent *e);

/* Draw one frame into r at its output size and handle the mouse; app_draw
 * leaves the frame open (to save it) and app_frame also shows it. */
void app_draw(App *a, Ren *r);
void app_frame(App *a, Ren *r);
/* Does the window need another frame soon (animation, blinking cursor,
 * a notice to expire, playing)? Returns the milliseconds to wait, or -1
 * to sleep until the next event. */
int app_next_wake_ms(const App *a);
/* Save the window's current frame / matrix next to the working directory;
 * the result is shown as a notice. */
void app_save_png(App *a, Ren *r);
void app_save_csv(App *a);

#endif
