/* view_train.h - the train view: what it is shown, what it wishes, and
 * what it remembers between frames. The view draws a Transformer learning
 * in the window; the learning itself is elsewhere:
 *
 *   app/session/train_worker.c  the run, on a thread of its own, which
 *                               also runs the probe sentence through the
 *                               model shown (app/session/labs/train_probe.c)
 *   app/window/train_host.c     owns the worker; every frame it fills a
 *                               TrainShow (Scene.train) from what the
 *                               worker published and applies the view's
 *                               TrainWish after it drew
 *
 * The view's files, each drawing one part (none calls another's upward):
 *
 *   view_train_layout.c   the layout, the keys, the ViewDef
 *   view_train_bar.c      the control bar, the line saying what is trained,
 *                         the snapshot timeline
 *   view_train_settings.c the task and size controls of the next run
 *   view_train_plot.c     the curves: loss, accuracy, head entropy or
 *                         tokens per second, the learning-rate schedule
 *   view_train_probe.c    the probe sentence: the model's greedy output and
 *                         its attention heatmaps (one head, or every layer
 *                         and head at once)
 *
 * Nothing here names the session: TrainShow is plain data (and read-only
 * pointers to the probe's pass: its trace and the vocabularies that label
 * it), copied or lent by the worker, so a frame never reads what the
 * worker is writing and never computes. */
#ifndef APP_VIEW_TRAIN_H
#define APP_VIEW_TRAIN_H

#include "view.h"

#define TV_CAP_T 128         /* longest probe sentence */
#define TV_PATH_MAX 1024     /* the TSV path field (a ui_textbox buffer) */
#define TV_N_TASKS 5         /* copy, reverse, sort, en2zh, a TSV file */
#define TV_TASK_FILE 4
#define TV_LOG_CAP 1024      /* points of the training curves */
#define TV_EVAL_CAP 128      /* held-out evaluations */
#define TV_SNAP_CAP 40       /* kept snapshots */
#define TV_LR_N 160          /* points of the drawn learning-rate schedule */
#define TV_MSG_MAX 1400      /* a worded message of the worker */
#define TV_HH_CAP 128        /* points of the head-entropy history */
#define TV_HH_HEADS 64       /* heads of one kind of attention it follows */

/* The settings a learner can change (X selects one, , and . change it). */
typedef enum TvField {
    TVF_DMODEL, TVF_HEADS, TVF_LAYERS, TVF_DFF, TVF_WARMUP, TVF_LR, TVF_COUNT
} TvField;

/* Which attention of the probe is shown. */
typedef enum TvAttn { TV_CROSS, TV_ENC, TV_DEC, TV_ATTN_COUNT } TvAttn;

/* What the run is doing (the worker's state, in its order). */
typedef enum TvState { TV_EMPTY, TV_BUILDING, TV_PAUSED, TV_RUNNING, TV_STOPPED } TvState;

/* One point of the training curves: the mean over n steps ending at step. */
typedef struct TvPoint {
    long long step;
    float loss, acc, tok_s;
    int n;
} TvPoint;

/* One held-out evaluation; exact -1 when that check did not decode. */
typedef struct TvEval {
    long long step;
    float loss, acc, exact;
} TvEval;

/* The probe: the model of the step shown and its passes. */
typedef struct TvProbe {
    int have;                 /* made for this run (else err says why) */
    const TfModel *model;     /* its config and vocabularies (labels only:
                                 no parameters) */
    const TfTrace *trace;     /* teacher-forced, recorded */
    long long step;           /* of the parameters shown (-1: none yet) */
    uint64_t gen, ver;        /* the run it was made for; bumps per pass */
    const int *ref;           /* the truth's ids */
    int ref_n;
    const int *out;           /* the greedy output's ids */
    int out_n;
    long long out_step;       /* ... at this step */
    int decoding, dec_t, dec_max; /* the greedy output in flight: steps done, most */
    const char *err;
} TvProbe;

/* Head entropy over training: H[(i * TV_ATTN_COUNT + attn) * TV_HH_HEADS +
 * layer * n_heads + head] at step[i], i < n. */
typedef struct TvHeads {
    int n;
    const long long *step;
    const float *H;
    float max;                /* a uniform row's entropy */
    uint64_t gen;             /* the run it belongs to */
    unsigned ver;             /* the version the plots show */
    int heads[TV_ATTN_COUNT]; /* heads followed per attention */
} TvHeads;

/* The next run as the learner chose it (the window makes it a spec). */
typedef struct TrainChoice {
    char task[32];            /* "copy", "reverse", "sort", "en2zh"; "" = path */
    const char *path;         /* the TSV file when task is "" */
    int tokens_char;          /* its sides split into characters */
    int d_model, n_heads, n_layers, d_ff, warmup;
    float lr_scale;
} TrainChoice;

/* What the view is shown, filled by the window before each frame. */
typedef struct TrainShow {
    /* the run, as the worker published it */
    uint64_t gen, seq;        /* the run; its publication */
    TvState state;
    long long step, epoch;    /* optimizer steps taken, epoch of the last */
    float tok_s;              /* tokens per second of the last step */
    char data_name[64];
    int n_train, n_heldout;
    size_t n_params;
    TfConfig cfg;
    int batch, warmup;
    float lr_scale;
    char probe_src[256], probe_ref[256]; /* the sentence watched, its truth */
    const char *err;          /* the worker could not start ("" none) */
    char msg[TV_MSG_MAX];     /* the last error, worded ("" none) */
    int stopped;              /* training stopped after an error */
    int differ;               /* the settings differ from the run's */

    /* the curves */
    int n_log;
    TvPoint log[TV_LOG_CAP];
    int n_eval;
    TvEval evals[TV_EVAL_CAP];
    /* the learning-rate schedule, over steps 1..lr_x1 */
    double lr_x1, lr_peak, lr_now;
    float lr[TV_LR_N + 1];    /* at steps 1 + (lr_x1 - 1) i / TV_LR_N */

    /* the timeline: kept snapshots, and the step asked for */
    int n_snap;
    long long snaps[TV_SNAP_CAP];
    long long want_snap;      /* -1 live */

    TvProbe probe;            /* the probe sentence through the model shown */
    TvHeads hh;               /* its heads' entropy over the run */
} TrainShow;

/* What the view asks for; the window applies it when the view is done. */
typedef struct TrainWish {
    int any;                  /* one of these was asked */
    int play;                 /* start / pause */
    int step;                 /* one optimizer step */
    int reset;                /* a new run from the settings */
    int save;                 /* write a checkpoint */
    int open;                 /* the shown model becomes the window's (Decode) */
    int scrub;                /* the previous (< 0) or next (> 0) snapshot */
    int live;                 /* back to the live parameters */
    int pick;                 /* show the snapshot of step pick_step (-1 live) */
    long long pick_step;
    int settings;             /* a setting changed (applied once they settle) */
} TrainWish;

typedef struct TrainUi {
    TrainWish wish;          /* this frame's or key's wishes */
    int ready;               /* set up (first use) */

    /* ---- the settings of the next run ---- */
    int task;                /* 0..3 built in, TV_TASK_FILE */
    char path[TV_PATH_MAX];  /* the TSV file (a text field) */
    int tokens_char;         /* split the file's sentences into characters */
    int val[TVF_COUNT];      /* index into each field's choices */
    int field;               /* the field , and . change */
    int custom;              /* the size fields are shown */

    /* ---- how it is shown ---- */
    int compact;             /* a small window (or big text): one pane at a
                                time, the settings folded away */
    int pane;                /* compact: 0 curves, 1 probe (V switches) */
    int show_settings;       /* compact: the settings are unfolded */
    int show_hh;             /* H: the fourth plot is head entropy, not tokens/s */
    TvAttn attn;
    int layer, head;         /* head -1: every layer and head */
    uint64_t gen;            /* the run layer and head were chosen for */
    int path_focus_prev;     /* the path field had the focus last frame */
    int path_clicked;        /* focused by this frame's click */
    int focus_path_next;     /* F was pressed: focus the path next frame */
    float xy[2 * (TV_LOG_CAP + TV_EVAL_CAP + 8)]; /* polyline scratch */

    /* where the controls were drawn in the last frame (tests, tooling) */
    struct {
        Rect start, step, reset, save, open, path, track;
        Rect task[TV_N_TASKS];
    } hit;
} TrainUi;

/* The view's state, set up on first use (view_train_layout.c). */
TrainUi *tv_state(void *st);

/* The settings (view_train_settings.c): their defaults (en2zh, classroom,
 * warm-up 800, lr × 1); a task by name or a TSV path (shot, tests); the
 * next run's choice; is the path field being typed in? */
void tv_settings_init(TrainUi *u);
void tv_settings_task(TrainUi *u, const char *task);
void tv_choice(const TrainUi *u, TrainChoice *c);
int tv_typing(ViewCtx *v, const TrainUi *u);
/* Changes (each a wish that the settings changed). */
void tv_set_task(TrainUi *u, int task);
void tv_set_field(TrainUi *u, TvField f, int index);
void tv_set_preset(TrainUi *u, int preset); /* 0 classroom, 1 base, 2 big */
/* n_heads of the next run (a lesson's @train): 0, or -1 when it is not a
 * choice of the field. */
int tv_set_heads(TrainUi *u, int heads);
int tv_preset_of(const TrainUi *u);   /* the preset the sizes match, or -1 */
void tv_focus_path(ViewCtx *v, TrainUi *u); /* type in the file path field */

/* Ask for what (a field of u->wish). */
static inline void tv_wish(TrainUi *u, int *what)
{
    *what = 1;
    u->wish.any = 1;
}
/* Task and size chips, the steppers and the path field, flowing in f;
 * returns the path field's rectangle (w 0 when not drawn). */
Rect tv_settings_draw(ViewCtx *v, UiFlow *f, TrainUi *u);

/* Around the body (view_train_bar.c): the control bar, the line saying
 * what is trained (returns its height), the snapshot timeline. */
void tv_controls_draw(UiFlow *f, const TrainShow *t, TrainUi *u);
int tv_summary_draw(ViewCtx *v, const TrainUi *u, int x, int y, int w);
void tv_timeline_draw(ViewCtx *v, TrainUi *u, Rect rc);
/* A flow button that remembers where it was drawn (u->hit). */
int tv_control(UiFlow *f, const char *label, int active, Rect *where);

/* The probe (view_train_probe.c) and the curves (view_train_plot.c). */
void tv_probe_draw(ViewCtx *v, TrainUi *u, Rect rc);
int tv_attn_layers(const TrainShow *t, TvAttn a);
void tv_plots_draw(ViewCtx *v, TrainUi *u, Rect rc);

#endif
