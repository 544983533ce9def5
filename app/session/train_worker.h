/* train_worker.h - training on a thread of its own, for the window.
 *
 * The train view must stay smooth while a model learns, and must never read
 * a tensor the optimizer is writing. So the Trainer (core/train.h) lives on
 * a worker thread that owns it outright, and the window sees only what the
 * worker PUBLISHES: a TwStatus (step, last statistics, the loss and
 * accuracy curves, held-out evaluations, the list of kept snapshots,
 * messages) and a copy of the parameters, both written under one mutex in
 * one go, so a reader always gets the step, the loss and the parameters of
 * the same optimizer step. The mutex is held only for copies:
 *
 *     worker:  step (no lock) ... step ... lock, copy out, unlock ... step
 *     window:  lock, copy in if newer, unlock, draw from its own copy
 *
 * The worker publishes at most every TW_PUBLISH_S seconds while it trains
 * (and at once after a command, a pause, an error, a save or a snapshot);
 * a periodic publication that finds the mutex taken is simply skipped, so
 * the trainer never waits for the window.
 *
 * Commands go through a small queue and run in order between steps: set up
 * a run, take N steps, save. Play/pause is a flag. tw_free finishes the
 * queued commands before it stops the thread, so a save asked for is never
 * lost.
 *
 * The probe sentence (train_probe.h) runs here too, between steps, on the
 * step the window asks to see (tw_show: live, or a kept snapshot): its
 * greedy output and head-entropy history are published with the status,
 * its teacher-forced pass is handed over whole (tw_take), one of three
 * buffers, so the window draws while the worker fills the next.
 *
 * Snapshots: the parameters at steps 0, 10, 20, ... are kept; when
 * TW_SNAP_CAP are held, every other one is dropped and the interval
 * doubles, so the timeline always spans the whole run (denser early, where
 * heads form). Held-out evaluations thin the same way. Both depend on the
 * step count alone, so a run is the same however fast the window draws.
 *
 * This file needs only the engine (no SDL), so the ThreadSanitizer build
 * (make test-tsan) can check it with the engine and nothing else. */
#ifndef APP_TRAIN_WORKER_H
#define APP_TRAIN_WORKER_H

#include <stddef.h>
#include <stdint.h>

#include "train.h"
#include "train_probe.h"
#include "train_size.h"

#define TW_PATH_MAX 1024
#define TW_LOG_CAP 1024    /* points of the training curves */
#define TW_EVAL_CAP 128    /* held-out evaluations */
#define TW_SNAP_CAP 40     /* snapshots kept (fewer when they are big) */
#define TW_SNAP_FIRST 10   /* first snapshot interval, steps */
#define TW_EVAL_FIRST 50   /* first held-out evaluation interval, steps */
#define TW_EVAL_PAIRS 64   /* held-out pairs of the loss and accuracy */
#define TW_EXACT_PAIRS 32  /* ... of which decoded for exact match */
#define TW_EXACT_EVERY 4   /* ... at every 4th check */
#define TW_EVAL_B 16       /* held-out pairs per forward pass */
#define TW_SNAP_BUDGET ((size_t)256 << 20) /* bytes of snapshots at most */
#define TW_PUBLISH_S 0.15  /* seconds between publications while training */
#define TW_NICE 10         /* the worker's threads run this much nicer than
                              the window's: a frame drawn while training
                              gets a core at once */
#define TW_QUEUE 16        /* queued commands */
#define TW_MSG_MAX (TW_PATH_MAX > TF_ERR_MAX ? TW_PATH_MAX : TF_ERR_MAX) /* a path or a reason */

/* What to train: a built-in task or a TSV file, an architecture and the
 * optimizer's options. */
typedef struct TwSpec {
    char task[32];          /* "copy", "reverse", "sort", "en2zh"; "" = path */
    char path[TW_PATH_MAX]; /* the TSV file when task is "" */
    int tokens_char;        /* TSV sides split into characters, not words */
    int d_model, n_heads, d_ff, n_layers; /* n_layers encoder + n_layers decoder */
    int max_len;            /* positions (raised to fit the data) */
    TrainOpts o;            /* o.seed also initialises the parameters */
    Dataset *data;          /* optional: a ready data set, taken over by
                               tw_setup (benchmarks, tests); NULL: build it */
} TwSpec;

/* Defaults: en2zh on the classroom size (64/4/256, 2+2 layers), batch 32,
 * the paper's optimizer with a warm-up of 800 steps. */
void tw_spec_default(TwSpec *s);

typedef enum TwState {
    TW_EMPTY,    /* no run yet (or its setup failed) */
    TW_BUILDING, /* making the data set and the model */
    TW_PAUSED,   /* a run exists, not training */
    TW_RUNNING,  /* training */
    TW_STOPPED   /* a run exists, but a step failed (a NaN): its last good
                    parameters can be shown and saved, only a new run trains */
} TwState;

/* What the worker has to say, as an id and its arguments (msg_text, msg_n),
 * never as English: the window words it in the learner's language where
 * it shows it. The text arguments are file paths and the engine's reasons. */
typedef enum TwMsg {
    TW_MSG_NONE,
    TW_MSG_SETUP_FAILED,   /* no run: text the reason */
    TW_MSG_NO_PATH,        /* no run: the TSV task has no file path */
    TW_MSG_NO_PAIRS,       /* no run: data set `text` has no training pairs */
    TW_MSG_SKIPPED_LINES,  /* file `text`: n[0] lines skipped (no tab, an empty
                              side, longer than n[1] tokens, ...) */
    TW_MSG_STOPPED,        /* training stopped: text the reason (TW_STOPPED) */
    TW_MSG_EVAL_FAILED,    /* a held-out check failed: text the reason */
    TW_MSG_SNAP_NO_MEMORY, /* no memory for the snapshot of step n[0] */
    TW_MSG_NOTHING_TO_SAVE,
    TW_MSG_SAVE_FAILED,    /* the save failed (training goes on): text the reason */
    TW_MSG_SAVED,          /* saved file `text`, step n[0] */
    TW_MSG_COUNT
} TwMsg;

/* One point of the training curves: the mean over `n` steps ending at
 * `step` (n grows as the curve is thinned). */
typedef struct TwPoint {
    long long step;
    float loss, acc, lr, tok_s;
    int n;
} TwPoint;

/* One held-out evaluation (TW_EVAL_PAIRS pairs). */
typedef struct TwEval {
    long long step;
    float loss, acc;  /* label-smoothed loss, teacher-forced token accuracy */
    float exact;      /* exact match of greedy translations; -1 when this
                         check did not decode */
} TwEval;

/* One kept snapshot of the parameters (the floats are in the worker). */
typedef struct TwSnap {
    long long step;
    float loss; /* training loss of that step (0 for step 0) */
} TwSnap;

/* Everything published but the parameters. */
typedef struct TwStatus {
    uint64_t seq;          /* bumps at every publication */
    uint64_t gen;          /* bumps when a run is set up (new model) */
    TwState state;
    long long step;        /* optimizer steps taken */
    TrainStats last;       /* of that step (zero at step 0) */
    long long steps_left;  /* of a Step command still to take */
    /* the run */
    char data_name[64];
    int n_train, n_heldout;
    size_t n_params;
    TfConfig cfg;
    TrainOpts o;
    char probe_src[256], probe_ref[256]; /* a sentence to watch, its truth */
    /* wall time and tokens spent training (steps, evaluation, snapshots) */
    double train_seconds;
    long long train_tokens;
    /* the last message: errors (setup, NaN, evaluation) and saves */
    TwMsg msg;
    char msg_text[TW_MSG_MAX]; /* its text argument */
    long long msg_n[2];        /* its numbers */
    int msg_error;             /* an error, not news */
    uint64_t msg_seq;          /* bumps with every new message */
    /* curves */
    int n_log;
    long long log_stride;  /* steps per point */
    TwPoint log[TW_LOG_CAP];
    int n_eval;
    TwEval evals[TW_EVAL_CAP];
    int n_snap, snap_cap;
    long long snap_every;
    TwSnap snaps[TW_SNAP_CAP];
    /* the probe: its greedy output and head-entropy history, as of the
     * pass handed over with them (the last member: see tw_take) */
    TpOut probe;
} TwStatus;

typedef struct TrainWorker TrainWorker;

/* Start the worker thread (it waits for commands). NULL with err when it
 * cannot be made. */
TrainWorker *tw_new(TfErr *err);
/* Where there are no threads (the browser build), call tw_set_cooperative(1)
 * before tw_new: the worker then starts no thread, and tw_pump(w, seconds)
 * runs its queued commands and training steps on the caller's thread, for
 * about that long (it finishes the step it is in), publishing as the thread
 * would. The window calls it once a frame; it returns 1 while work remains,
 * and is a no-op (0) for a worker with a thread. The results are the same
 * bits either way: a step depends on the step count alone. */
void tw_set_cooperative(int on);
int tw_pump(TrainWorker *w, double seconds);
/* Stop: playing stops, the commands already queued are finished in order
 * (so a save asked for just before is written, of the state it asked
 * for), the thread joins, everything is freed. NULL is fine. */
void tw_free(TrainWorker *w);

/* Commands (return -1 with err when the queue is full). tw_setup drops the
 * current run and makes a new one at step 0, paused; a data set in s->data
 * is taken over whatever happens. tw_steps pauses and takes n steps.
 * tw_save writes the model as it is when the command is reached (between
 * steps), atomically, with the optimizer state; the outcome is a message. */
int tw_setup(TrainWorker *w, const TwSpec *s, TfErr *err);
int tw_steps(TrainWorker *w, long long n, TfErr *err);
int tw_save(TrainWorker *w, const char *path, TfErr *err);

/* The worker's files (train_save.c). tw_save under a name of its own in
 * dir ("" the working directory): stepformer-NAME-YYYYMMDD-HHMMSS
 * .safetensors (NAME the data set's), with -2, -3, ... when a file, or an
 * earlier save still being written (*last: the caller's last name), has
 * it. A TSV file the worker can read without waiting: a FIFO, a device or
 * a folder is refused here, before a run is replaced. Both 0 or -1. */
typedef struct TwSaveName {
    char stem[900]; /* the last save's name without its suffix */
    int seq;        /* how many had it (two saves in a second differ) */
} TwSaveName;
int tw_save_new(TrainWorker *w, TwSaveName *last, const char *dir, const char *name, TfErr *err);
int tw_data_file_check(const char *path, TfErr *err);
/* Play (1) or pause (0). Pausing also cancels the rest of a Step. */
void tw_play(TrainWorker *w, int on);

/* Copy the status into *out when it is newer than out->seq (or out->seq is
 * 0). With wait = 0 a busy mutex means "not now" (returns 0). Returns 1
 * when *out was updated. */
int tw_status(TrainWorker *w, TwStatus *out, int wait);

/* Copy parameters of run `gen` into out (n floats): the live ones (step <
 * 0) or those of the snapshot of that step. *step_out gets the step, *loss
 * its training loss. Returns 0, or -1 when the run or the snapshot is gone
 * or n does not match. */
int tw_params(TrainWorker *w, uint64_t gen, long long step, float *out,
              size_t n, long long *step_out, float *loss);

/* The one reader of the probe's passes (the window): tw_status, and the
 * newest pass handed over in *pass, which stays the caller's to read until
 * its next call (the worker fills the others meanwhile). With hold, a
 * frame that gets a new status of a training run leaves a new pass for its
 * next call (one costly redraw a frame: the curves or the heatmaps), and
 * the probe's results in out->probe stay those of the pass it holds.
 * Returns what it took (TW_TOOK_*), 0 when the mutex was busy (wait 0). */
#define TW_TOOK_STATUS 1
#define TW_TOOK_PASS 2
#define TW_PASS_WAITS 4 /* held: the next call takes it */
int tw_take(TrainWorker *w, TwStatus *out, const TpPass **pass, int hold, int wait);

/* Show the probe on the snapshot of `step` (the one kept nearest), or -1
 * on the live parameters; the worker runs it between steps. */
void tw_show(TrainWorker *w, long long step);

/* A copy of the model the probe shows (config, vocabularies, the
 * parameters of *step) of run `gen`. Returns 0, or -1 with err. */
int tw_shown_model(TrainWorker *w, uint64_t gen, TfModel *m, long long *step, TfErr *err);

/* Block until the queue is empty and the worker is neither training nor
 * busy (tests, `shot`). Returns at once while playing. */
void tw_wait_idle(TrainWorker *w);

#endif
