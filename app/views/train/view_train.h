/* view_train.h - the train view's own state, shared by its files and by its
 * test. The view trains a Transformer in the window and shows it learning:
 *
 *   view_train.c          the state, what the worker published, the
 *                         actions (keys and buttons do the same), the layout
 *   view_train_settings.c the task and size of the next run, their controls
 *   view_train_bar.c      the control bar, what is trained, the timeline
 *   view_train_plot.c     the curves: loss, accuracy, the learning-rate
 *                         schedule, tokens per second
 *   view_train_probe.c    the probe sentence: the model of the step
 *                         shown, its greedy output, its attention heatmaps
 *                         (one head, or every layer and head at once)
 *
 * Training runs on the worker thread of train_worker.h. The view reads only
 * what the worker published, copied into this struct, and runs the probe
 * on its own copy of the parameters, so nothing it draws is ever being
 * written. A frame allocates nothing unless new parameters arrived (a few
 * times a second while training): then the probe is recomputed and its
 * heatmaps coloured again. */
#ifndef APP_VIEW_TRAIN_H
#define APP_VIEW_TRAIN_H

#include "train_worker.h"
#include "view.h"

#define TV_CAP_T SES_CAP_T   /* longest probe sentence */
#define TV_N_TASKS 5         /* copy, reverse, sort, en2zh, a TSV file */
#define TV_TASK_FILE 4
#define TV_WAKE 0.25         /* seconds between frames while training: the
                                curves move 4 times a second, and drawing
                                takes little from the trainer's two threads */
#define TV_SETTLE 0.4        /* a changed setting applies after this pause */
#define TV_GREEDY_MAX 0.015  /* seconds: costlier greedy decoding of the
                                probe waits for a pause */
#define TV_PROBE_SHARE 20.0  /* while training, the probe is recomputed at
                                most every 20 times what it cost (<= 5%) */

/* The settings a learner can change (X selects one, , and . change it). */
typedef enum TvField {
    TVF_DMODEL, TVF_HEADS, TVF_LAYERS, TVF_DFF, TVF_WARMUP, TVF_LR, TVF_COUNT
} TvField;

/* Which attention of the probe is shown. */
typedef enum TvAttn { TV_CROSS, TV_ENC, TV_DEC, TV_ATTN_COUNT } TvAttn;

#define TV_HH_CAP 128  /* points of the head-entropy history */
#define TV_HH_HEADS 64 /* heads of one kind of attention it follows */

/* The entropy of every probe head over training (issue 12,
 * view_train_heads.c): one point per step the probe was run at (live or a
 * snapshot), so heads visibly "snap" into their pattern. The snapshots of
 * the run are run through the probe on a model of their own. */
typedef struct TvHeadHist {
    uint64_t gen;                  /* the run it belongs to */
    int n;                         /* points, sorted by step */
    long long step[TV_HH_CAP];
    float H[TV_HH_CAP][TV_ATTN_COUNT][TV_HH_HEADS]; /* nats, per layer x head */
    float H_max;                   /* ln(keys): a uniform row's entropy */
    unsigned ver;                  /* bumps whenever a point is added or the
                                      history restarts (the plots' layer) */
    long long hw;                  /* high-water mark: every kept snapshot up
                                      to this step has been run (-1: none) */
    TfModel m;                     /* for the snapshots */
    TfTrace tr;
    int have_m, have_tr;
    int show;                      /* H: the plot shows head entropy, not tokens/s */
} TvHeadHist;

typedef struct TrainUi {
    TrainWorker *w;       /* made on first use */
    char err[TF_ERR_MAX]; /* the worker could not start */

    /* ---- the settings of the next run ---- */
    int task;             /* 0..3 built in, TV_TASK_FILE */
    char path[SES_TEXT_MAX]; /* the TSV file (a text field) */
    int tokens_char;      /* split the file's sentences into characters */
    int val[TVF_COUNT];   /* index into each field's choices */
    int field;            /* the field , and . change */
    int custom;           /* the size fields are shown */
    TwSpec applied;       /* the settings of the current run */
    int have_applied;
    double apply_at;      /* apply the changed settings then (0: none) */
    char save_dir[512];   /* where Save writes ("" = working directory) */
    TwSaveName saved;     /* the name of the last save */

    /* ---- what the worker published (copied) ---- */
    TwStatus st;
    uint64_t msg_seen;    /* last message turned into a notice */
    char msg[TW_MSG_MAX + 400]; /* the last error, worded, kept on screen until cleared */
    double wake_until;    /* keep drawing until then (a state change) */

    /* ---- the parameters shown: the live ones or a snapshot ---- */
    long long want_snap;  /* -1 live, else the step of a kept snapshot */
    long long shown_step; /* step of the parameters in pm (-1: none) */
    float shown_loss;
    double probe_next;    /* monotonic time the live probe may run again */
    int probe_due;        /* the probe waits for the next frame (this one
                             drew new curves) */
    int ran_pass;         /* this frame ran the probe or a snapshot pass */
    unsigned hh_shown;    /* the head-entropy history the plots' layer
                             shows: a frame that ran a pass leaves the
                             layer to the next one (hh.ver, one frame late) */
    int hh_late;          /* this frame left it */

    /* ---- the probe ---- */
    TfModel pm;           /* shaped like the run, parameters of shown_step */
    TfTrace ptr;          /* teacher-forced pass over the probe (recorded) */
    TfTrace gtr;          /* greedy decoding scratch */
    int have_pm, have_ptr, have_gtr;
    uint64_t pm_gen;      /* run the probe model was made for */
    uint64_t probe_ver;   /* bumps when the probe is recomputed (textures) */
    int psrc[TV_CAP_T], pS;          /* probe source ids */
    int pref[TV_CAP_T], pref_n;      /* its reference, ids (no <bos>/<eos>) */
    int gen_ids[TV_CAP_T], gen_n;    /* the model's greedy output */
    long long gen_step;              /* ... at this step */
    double greedy_cost;              /* seconds it took */
    TfDecoder pdec;                  /* the greedy probe in flight (pdec_on), */
    int pdec_on;                     /* a few steps a frame */
    long long pdec_for;              /* ... for the parameters of this step */
    unsigned pdec_steps;             /* its steps run in all (tests count them) */
    char probe_err[TF_ERR_MAX];

    /* ---- how it is shown ---- */
    int compact;          /* a small window (or big text): one pane at a
                             time, the settings folded away */
    int pane;             /* compact: 0 curves, 1 probe (V switches) */
    int show_settings;    /* compact: the settings are unfolded */
    TvAttn attn;
    int layer, head;      /* head -1: every layer and head */
    int drag;             /* the timeline knob is being dragged */
    int path_focus_prev;  /* the path field had the focus last frame */
    int path_clicked;     /* focused by this frame's click */
    int focus_path_next;  /* F was pressed: focus the path next frame */
    float xy[2 * (TW_LOG_CAP + TW_EVAL_CAP + 8)]; /* polyline scratch */

    /* where the controls were drawn in the last frame (tests, tooling) */
    struct {
        Rect start, step, reset, save, open, path, track;
        Rect task[TV_N_TASKS];
    } hit;
    TfModel opened;       /* a copy of pm handed to the window (Open in Decode) */
    TvHeadHist hh;        /* head entropy over training */
    int ready;            /* set up (first use) */
} TrainUi;

/* Left-to-right placement of controls that wraps (like the decode view's). */
/* Hover text for the status line. */


/* The view's state, made on first use, brought up to date with what the
 * worker published (NULL only when memory runs out). */
TrainUi *tv_get(ViewCtx *v);

/* Actions (keys and buttons do the same). */
void tv_play(ViewCtx *v, TrainUi *u);      /* start / pause */
void tv_step(ViewCtx *v, TrainUi *u);      /* one optimizer step */
void tv_reset(ViewCtx *v, TrainUi *u);     /* a new run from the settings */
void tv_save(ViewCtx *v, TrainUi *u);      /* write a checkpoint */
void tv_open(ViewCtx *v, TrainUi *u);      /* the shown parameters become the window's model */
void tv_scrub(TrainUi *u, int delta);  /* previous / next snapshot */
void tv_live(TrainUi *u);              /* back to the live parameters */
/* A new run from the settings, paused at step 0 (view_train.c). */
void tv_setup_run(ViewCtx *v, TrainUi *u);

/* The settings (view_train_settings.c). */
void tv_settings_init(TrainUi *u);    /* en2zh, classroom, warm-up 800, lr × 1 */
void tv_settings_task(TrainUi *u, const char *task); /* a task name or a TSV path */
void tv_set_task(ViewCtx *v, TrainUi *u, int task);
void tv_set_field(ViewCtx *v, TrainUi *u, TvField f, int index);
void tv_set_preset(ViewCtx *v, TrainUi *u, int preset); /* 0 classroom, 1 base, 2 big */
void tv_focus_path(ViewCtx *v, TrainUi *u); /* type in the file path field */
int tv_preset_of(const TrainUi *u);  /* the preset the sizes match, or -1 */
/* The settings as a spec for the worker; do they differ from the run's? */
void tv_spec(const TrainUi *u, TwSpec *s);
int tv_settings_differ(const TrainUi *u);
/* A setting changed: applied once they settle, if the run has not trained
 * (tv_settings_settled, called every frame, does it). */
void tv_settings_changed(ViewCtx *v, TrainUi *u);
void tv_settings_settled(ViewCtx *v, TrainUi *u);
/* Task and size chips, the steppers and the path field, flowing in f;
 * returns the path field's rectangle (w 0 when not drawn). */
Rect tv_settings_draw(UiFlow *f, ViewCtx *v, TrainUi *u);

/* Around the body (view_train_bar.c): the control bar, the line saying
 * what is trained (returns its height), the snapshot timeline. */
void tv_controls_draw(UiFlow *f, ViewCtx *v, TrainUi *u);
int tv_summary_draw(ViewCtx *v, TrainUi *u, int x, int y, int w);
void tv_timeline_draw(ViewCtx *v, TrainUi *u, Rect rc);
/* A flow button that remembers where it was drawn (u->hit). */
int tv_control(UiFlow *f, const char *label, int active, Rect *where);
/* The worker's last message, in the window's language. */
void tv_msg_text(const TwStatus *st, char *buf, size_t cap);

/* For `shot`, tests and benchmarks: set up `task` (a built-in name, or a
 * TSV path), train `steps` steps synchronously and bring the view up to
 * date. Returns 0, or -1 with the reason in a notice. */
int view_train_setup(ViewCtx *v, const char *task, long long steps);
/* Train on a ready spec (its data set is taken over) and play. */
int view_train_start(ViewCtx *v, TwSpec *s);
void view_train_play(ViewCtx *v, int on);

/* The probe (view_train_probe.c). */
void tv_probe_new_run(TrainUi *u);     /* the run changed: remake the model */
/* Parameters changed: recompute (greedy decoding too when with_greedy). */
void tv_probe_run(TrainUi *u, int with_greedy);
void tv_probe_greedy(TrainUi *u);     /* the greedy output alone: start it */
/* Run its steps, one budget of SES_DEC_FRAME_BYTES (or all): 1 while more
 * remain; cancel it (new parameters in pm). */
int tv_probe_greedy_steps(TrainUi *u, int all);
void tv_probe_greedy_cancel(TrainUi *u);
void tv_probe_draw(ViewCtx *v, TrainUi *u, Rect rc);
void tv_probe_free(TrainUi *u);

/* Head entropy over training (view_train_heads.c): note the probe just
 * run, run up to budget snapshots past the high-water mark (a frame runs
 * one: after a pause dozens wait), are some still waiting, free. */
void tv_hh_note(TrainUi *u);
void tv_hh_fill(TrainUi *u, int budget);
int tv_hh_pending(const TrainUi *u);
void tv_hh_free(TrainUi *u);
/* Heads of attention kind a, and the attention kind of the engine. */
int tv_hh_heads(const TrainUi *u, TvAttn a);
TfAttnKind tv_attn_kind(TvAttn a);

/* The curves (view_train_plot.c). */
void tv_plots_draw(ViewCtx *v, TrainUi *u, Rect rc);

/* A length of `base` pixels at the current text scale. */
#endif
