/* train_types.h - what the training worker and the parts of its run share
 * with the window: the limits, the run's spec, the published status and
 * its messages (the functions are in train_worker.h). A header of types
 * below both train_worker.c and train_run.c, so neither includes the
 * other's header to learn them. */
#ifndef APP_TRAIN_TYPES_H
#define APP_TRAIN_TYPES_H

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

#endif
