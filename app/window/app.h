/* app.h - the state of the Stepformer window, apart from drawing.
 *
 * One App owns a Session (session.h: the model, the input, the trace of it
 * and where the learner is: stage, layer, head, sentence of the batch) and
 * adds what only the window has: the view, the selection, how things look
 * (theme, colour maps, text size), the widget context (ui.h: mouse, hot,
 * drag, focus and the text field's cursor), hover, pan/zoom, notices, and
 * each view's own state (a->vstate, made and freed through VIEWS[]).
 * Events change it through app_event() (app_event.c); app_frame()
 * (frame.c) draws it through the renderer layer and handles the mouse in
 * immediate mode; the views see it only as a Scene and answer with a
 * ViewOut (host.c). Tests build an App, feed it synthetic input events,
 * run frames on a headless renderer and look at the state. */
#ifndef APP_APP_H
#define APP_APP_H

#include <stdint.h>

#include "input.h"
#include "ren.h"
#include "session.h"
#include "view.h"

#define APP_MAX_SENT SES_MAX_SENT   /* sentences in the padded batch */
#define APP_TEXT_MAX SES_TEXT_MAX   /* bytes of one input line */
#define APP_CAP_T SES_CAP_T         /* longest sequence the window shows */
#define APP_MAX_STEPS SES_MAX_STEPS /* entries of the stage walk */

/* Where things were drawn in the last frame (for tests and tooling). */
typedef struct HitRect {
    Rect r;
    int walk; /* index into the stage walk */
} HitRect;

/* A block of the paper's Figure 1 in the stage walk (blocks.c). */
typedef struct NavBlock {
    int first, count;  /* walk entries [first, first + count) */
    int decoder, layer, cross;
    const char *label; /* "Multi-Head Attention", "Add & Norm", ... */
} NavBlock;
#define BLOCKS_MAX 512

/* The navigator's picture of the walk: the blocks of Figure 1 it groups
 * the stages into (blocks_of), once per walk, and where they were drawn. */
typedef struct AppNav {
    int layer[2];               /* layer shown: encoder, decoder */
    NavBlock blocks[BLOCKS_MAX];
    int n_blocks;
    unsigned walk;              /* the walk_id the blocks were grouped for */
    HitRect hits[128];          /* blocks drawn last frame */
    int n_hits;
} AppNav;

/* The window around the App: its size, and what the App wants of the
 * window loop, which acts on it after the frame. */
typedef struct AppWindow {
    int w, h;                   /* drawable size */
    int fullscreen;
    int want_quit;
    int want_fullscreen_toggle;
    int want_save_png;          /* Ctrl+S: the view alone as PNG (after the frame) */
    int want_save_window;       /* Ctrl+Alt+S: the whole window as PNG (before ren_end) */
    int want_save_csv;
    int want_save_vector;       /* Ctrl+Shift+S: the view as PDF and SVG */
} AppWindow;

/* Letters typed outside a text field (app_event.c): the first key of a
 * burst and what the window was before its shortcut ran. */
typedef struct AppTyping {
    int armed;                  /* a burst of keys began with a letter; the last at `at` */
    double at;
    char text[64];              /* the letters typed so far */
    int n;
    int swallow;                /* the next IN_TEXT is in the Source line already */
    UiLook look;
    TfExperiment exp;
    int cmp, show_exp, show_help, playing, walk_at, head, list_open;
    ViewId view;
} AppTyping;

/* What the main view's area showed in the last frame (App.drawn): nothing
 * (too small for it), the view, the cue that its stage is being computed,
 * or the input's error instead of a view. */
typedef enum AppDrawn { DRAWN_NOTHING, DRAWN_VIEW, DRAWN_COMPUTING, DRAWN_ERROR } AppDrawn;

typedef struct App {
    /* the model, the input, the trace and where the learner is (no SDL) */
    Session ses;
    ViewId view;                /* VIEW_AUTO or a chosen view */
    Selection sel;
    CellCursor cursor;          /* Ctrl+arrows: the matrix views' keyboard cell, and its room */

    UiLook look;                /* language, theme, colour maps, text and pixel scale */
    AppWindow win;
    int show_help;
    int show_exp;               /* the Experiments panel (E) */
    int cmp;                    /* CMP_*: what the views show of an experiment (D) */
    struct {
        int on;                 /* Space: step through stages on a timer */
        double next;            /* ... the next step at this time */
    } play;

    /* interaction: the widget context (mouse input, hot, active: a drag,
     * focus: the text field with the keyboard, its cursor, the clipboard) */
    UiCtx ui;
    AppTyping typing;
    Hover hover;
    PanZoom pz[VIEW_COUNT];

    /* transitions: the main view eases in after a stage change */
    double anim_start;
    double now;
    double wake_at;             /* a view wants a frame at this time; 0 none */
    int redraw_soon;            /* a view's wishes changed what is shown */
    struct {                    /* what the last frame's view area showed: */
        int what;               /* AppDrawn */
        uint64_t version;       /* the session's version it showed: the
                                   trace version of the view's Scene, or
                                   of the input the cue or error is about */
        int computing;          /* that its stage was still being
                                   computed (app_stage_ready was 0) */
    } drawn;

    AppNav nav;
    HeatGeo heat;               /* the main heatmap drawn last frame */
    Rect view_rect;             /* the main view's area last frame (with the experiment banner) */
    Rect exp_rect;              /* the Experiments panel last frame (w 0: closed) */
    /* the view tabs as the last frame drew them (frame.c): those in the
     * bar, and those that did not fit, in a list under its » button */
    struct {
        int n_bar;
        ViewId bar_view[16];
        Rect bar[16];
        int open;               /* the list is open */
        Rect button, box;
        int n;
        ViewId view[16];
        Rect item[16];
    } tabs_more;
    /* the explanation panel (explain.c, explain_code.c) */
    struct {
        int tab;                /* 0 text, 1 code */
        int scroll, content;    /* scrolled by the wheel this far; its text's height last frame */
        int at;                 /* ... for this stage of the walk */
        ViewId view;            /* ... and this view */
        int how_need, how_h;    /* a lesson's "how it was computed" box: the height its text
                                 * needs, the height it got (explain_how_box) */
    } expl;

    /* drawing resources bound to the renderer of the last frame */
    struct Gfx *gfx;

    /* each view's own state (VIEWS[v]->state_size bytes, made by app_init,
     * freed through VIEWS[v]->free by app_free) */
    void *vstate[VIEW_COUNT];
    struct LessonUi *les;       /* lessons (lesson_ui.c) */
    struct TrainHost *train;    /* the train view's worker and probe (train_host.c) */
    struct ModelUi *mui;        /* language chooser (model_ui.c) */
    struct DecHost *dec;        /* the decode tab's lab and what it shows (decode_host.c) */
    struct {                    /* a lesson's @force for the decode lab, applied next frame: */
        int pending;            /* 1 force token id at step (from 0), -1 take forced tokens
                                   back, 0 nothing pending */
        int step, id;
    } dec_force;
    struct HeadsLab *hlab;      /* the heads lab: importance, lens, rollout, q/k map (host.c) */
    int rollout;                /* R: heatmap and lines show attention rollout */
    int no_save;                /* headless: do not write progress files */
    char lessons_dir[512];      /* "" = the bundled lessons/ */

    /* a message at the bottom for a few seconds ("saved ...", errors) */
    char notice[512];
    double notice_until;
    int notice_error;
    unsigned ses_msg_seen;      /* the session's messages shown so far */
} App;

/* What the views show while an experiment is on (D cycles). */
enum { CMP_EXP = 0, CMP_NORMAL, CMP_DIFF, CMP_COUNT };
const char *app_cmp_name(int cmp);
void app_set_exp(App *a, const TfExperiment *e); /* with a notice naming it */
/* The experiment in the window's words and numbering (layers, heads and
 * source positions from 1), in language lang (0 en, 1 zh):
 * "no 1/√d_k · ablate cross L2 H1 · hide source token 3 «books»"; "none". */
void app_exp_words(const Session *s, int lang, char *buf, size_t cap);
void app_put_exp(App *a, const TfExperiment *e); /* the same, quietly */
void app_exp_toggle_hide(App *a, int pos); /* Alt+click on a source token */
void app_exp_toggle_panel(App *a);     /* E */
void app_exp_compare(App *a);          /* D: experiment, normal, difference */
/* The panel's toggles (S, P, M, I: the residual; G: the FFN of the layer shown) and clear (X). */
enum { EXP_NO_SCALE, EXP_NO_PE, EXP_NO_CAUSAL, EXP_NO_RESIDUAL, EXP_NO_FFN, EXP_CLEAR };
void app_exp_change(App *a, int what);
/* The panel (experiment_ui.c), filling area (docked by the frame: in the
 * right panel or beside the view); how tall it is at width w. */
void app_exp_draw(UiCtx *ui, App *a, Rect area);
int app_exp_height(UiCtx *ui, int w);
int app_exp_status(const App *a, char *buf, size_t cap);
/* The explanation panel's tabs and its "code" tab (explain_code.c): 1 when
 * it drew the panel, 0 when explain_draw draws the explanation in *area
 * (below the tabs, which it sets); the PyTorch lines of a stage, or NULL. */
int explain_code_draw(UiCtx *ui, App *a, Rect *area);
const char *explain_code(StageId st, int pre);

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
    int win_w, win_h;           /* the window's first size (--size; 0: 1280 x 800) */
    /* called by app_init once the model is open and the input computed
     * (the window's experiment flags): nonzero with err refuses to open */
    int (*on_open)(struct App *a, void *ctx, TfErr *err);
    void *on_open_ctx;
} AppOpts;

/* An on_open that sets the experiment the TfExpSpec ctx writes down (the
 * command line's flags, a link's), checked against the model opened and
 * its source (app_open.c). */
int app_open_exp(struct App *a, void *ctx, TfErr *err);

/* Build the app (app_open.c): loads the model (falling back to a random
 * classroom model, labelled untrained, when the bundled one is missing),
 * computes the first trace and opens the lesson asked for. Returns -1 with
 * err only when nothing at all can be shown. */
int app_init(App *a, const AppOpts *o, TfErr *err);
void app_free(App *a);
/* The same without the lesson panel and the drawing resources (app.c;
 * app_init and app_free add them, so that app.c needs nothing of the
 * panels nor of the hosting). */
int app_init_state(App *a, const AppOpts *o, TfErr *err);
void app_free_state(App *a);

/* Re-run the model on the current input if it changed: everything, or with
 * a->ses.lazy what the current view needs, one budget of it at most (a
 * frame is never held by a big model: the view says it is computing until
 * app_stage_ready). app_idle_work runs one more unit of the pass: it
 * returns 0 when nothing was left, 1 when more remain, 2 when it ran the
 * last one or the one a view that said "computing" waited for (draw).
 * app_compute_all finishes the pass. */
void app_update(App *a);
void app_compute_all(App *a);
int app_idle_work(App *a);
int app_stage_ready(const App *a);
/* Replace the model (the old one is kept when the new one fails to load,
 * and the error is shown as a notice). Returns 0 or -1. */
int app_load_model(App *a, const char *path);
/* Replace the model by m, which the App takes over (a model trained in the
 * train view); label names it in the top bar. On failure the old model is
 * kept, m is freed and the error is a notice. Returns 0 or -1. */
int app_use_model(App *a, TfModel *m, const char *label);

const char *view_name(ViewId v);
int view_find(const char *name); /* -1 if unknown */

/* Navigation. */
StagePos app_pos(const App *a);
void app_goto(App *a, StageId st, int layer);
/* The same and that stage's main view (a click in the navigator: it leaves
 * the Train, Decode or any other tab for the stage's natural view). */
void app_show_stage(App *a, StageId st, int layer);
void app_step(App *a, int delta);         /* Left/Right */
void app_change_layer(App *a, int delta); /* [ and ] */
void app_toggle_side(App *a);             /* Tab */
void app_set_head(App *a, int head);      /* 1-9 -> 0..8, 0 -> all (-1) */
ViewId app_current_view(const App *a);    /* resolves VIEW_AUTO */
/* A click on view v's tab (applied after the frame): the all-heads tab
 * shows every head, another a single head; v becomes the view (VIEW_AUTO
 * when it is the stage's natural one). */
void app_pick_tab(App *a, ViewId v);
ViewId app_auto_view(const App *a, StageId st);
/* The views the current stage offers, as tabs (natural view first). */
#define APP_MAX_VIEW_CHOICES 12 /* tabs a stage can offer (app_view_choices) */
int app_view_choices(const App *a, ViewId *out);
/* The input lines (side APP_LINE_SRC or APP_LINE_TGT): set one's text (the Session
 * recomputes); their widget ids; give one the keyboard, with the cursor
 * at its end (-1: leave any text field); which one has it (-1 neither). */
enum { APP_LINE_SRC = 0, APP_LINE_TGT = 1 };
void app_set_text(App *a, int side, const char *text);
UiId app_line_id(const App *a, int side);
void app_focus_line(App *a, int side);
int app_focused_line(const App *a);
void app_notice(App *a, int error, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Input: events of our own (input.h), fed in by the window loop, which maps
 * SDL's (input_from_sdl), or by tests. */
void app_event(App *a, const InputEvent *e);
/* A key through the command table (cmd_table.h): offered to the open
 * scopes, the most particular first; the row that took it, or NULL. In a
 * text field (text = 1) only the rows that work there (CMD_TEXT). While
 * the help is shown a key closes it first (Esc and ? do only that;
 * another key then does what it does everywhere). */
struct Cmd;
const struct Cmd *app_key(App *a, Key key, int mod, int text);

/* Hosting the views (host.c). app_scene fills the snapshot a view sees;
 * app_draw_view draws view id into ctx->area and applies what it wished;
 * app_view_act asks the current view to do what a command of its tab
 * says (cmd_table.c binds the keys). app_view_begin/end give
 * a view's context outside a frame (for shot, tests and benchmarks that
 * set a view up), applying its wishes at the end. */
typedef struct ViewCall {
    Scene sc;
    ViewOut out;
    ViewCtx v;
} ViewCall;
void app_scene(const App *a, Scene *sc);
/* The pass the views show: the normal one beside an experiment in D's
 * "normal" mode (when it is computed), else the session's trace. */
const TfTrace *app_shown_trace(const App *a);
void app_apply(App *a, ViewOut *o);
void app_draw_view(App *a, ViewCtx *ctx, ViewId id);
int app_view_act(App *a, ViewAct act, int arg);
void app_view_begin(App *a, ViewId id, ViewCall *c);
void app_view_end(App *a, ViewCall *c);
/* The decode and train views set up from outside a frame (view_decode.h,
 * train_host.h say what each does); their state is a->vstate[VIEW_DECODE]
 * (a DecodeUi), a->vstate[VIEW_TRAIN] (a TrainUi) and a->train. */
struct TwSpec;
int app_decode_setup(App *a, const char *pane, int k, float alpha);
int app_train_setup(App *a, const char *task, long long steps);
/* The next run's task and n_heads (0: as it is), without starting it
 * (a lesson's @train): 0, or -1 for a number of heads the view has not. */
int app_train_settings(App *a, const char *task, int heads);
int app_train_start(App *a, struct TwSpec *s);
void app_train_play(App *a, int on);
/* The App's resources for renderer r (made on first use, replaced when the
 * renderer changes); app_gfx_free releases them before the renderer goes. */
Gfx *app_gfx(App *a, Ren *r);
void app_gfx_free(App *a);

/* Draw one frame into r at its output size and handle the mouse; app_draw
 * leaves the frame open (to save it) and app_frame also shows it. */
void app_draw(App *a, Ren *r);
void app_frame(App *a, Ren *r);
/* Does the window need another frame soon (animation, blinking cursor,
 * a notice to expire, playing)? Returns the milliseconds to wait, or -1
 * to sleep until the next event. */
int app_next_wake_ms(const App *a);
/* Save into ~/Pictures/Stepformer (save.c: the XDG pictures folder, made
 * when missing); the notice says what was saved, the file and the folder.
 * app_save_png: the current view alone with its caption (as
 * app_save_vector's figure), as PNG, drawn between two frames (after
 * ren_end) and not shown; app_save_window: the window's frame just drawn
 * (before ren_end), chrome and all; app_save_csv: the matrix. */
void app_save_png(App *a, Ren *r);
void app_save_window(App *a, Ren *r);
void app_save_csv(App *a);
/* The pre/post-test answers of this account for the teacher
 * (lesson/lesson_results.c): a
 * CSV in ~/Documents/Stepformer, the notice says which and where. */
void app_save_results(App *a);
/* The current view alone (no navigator, panels, input lines or status
 * line: the experiment banner is the view's) with its caption, as a PDF
 * (text stays text) and an SVG beside it, drawn between two frames. */
void app_save_vector(App *a, Ren *r);
/* app_frame with the save wishes of the keys taken (save.c): Ctrl+Alt+S
 * and Ctrl+E save the frame drawn, the figures of Ctrl+S and Ctrl+Shift+S
 * are drawn after it is shown. Returns 1 when a figure was saved (its
 * notice wants another frame). */
int app_frame_saving(App *a, Ren *r);
/* Draw only the main view (and its experiment banner) where the last frame
 * put it (a->view_rect), with no hover, into a begun frame of r (frame.c). */
void app_draw_view_alone(App *a, Ren *r);

#endif
