/* train_state.h - the training worker's state (train_worker.c),
 * for the files that make a run's parts (train_run.c). Who owns which
 * field is said at the top of train_worker.c: the fields under "shared"
 * only with mu held, the others only on the worker's thread. */
#ifndef APP_TRAIN_STATE_H
#define APP_TRAIN_STATE_H

#include <pthread.h>

#include "train_types.h"

typedef enum CmdKind { CMD_SETUP, CMD_STEPS, CMD_SAVE } CmdKind;

typedef struct Cmd {
    CmdKind kind;
    long long n;    /* CMD_STEPS */
    TwSpec spec;    /* CMD_SETUP (spec.path is the SAVE path too) */
} Cmd;

struct TrainWorker {
    pthread_t thread;
    int has_thread;
    int coop;             /* no thread: tw_pump runs the work (set before any runs) */
    pthread_mutex_t mu;
    pthread_cond_t wake;  /* a command, play, quit */
    pthread_cond_t idle;  /* the worker went idle */

    /* ---- shared: under mu ---- */
    Cmd q[TW_QUEUE];
    int q_head, q_n;
    int play, quit, busy;
    long long steps_left;
    int have_run, can_train, building;
    TwStatus pub;
    float *pub_params;    /* (pub.n_params) of pub.step */
    float *slot[TW_SNAP_CAP]; /* slot[i]: parameters of pub.snaps[i] */
    TpPass pass[3];       /* the probe's passes: pass[front] is the reader's
                             (tw_take), pass[ready] the newest handed over,
                             pass[back] the one the worker fills */
    int front, ready, back;
    int ready_new;        /* pass[ready] not taken yet */
    long long show_want;  /* the step the window asks to see (-1 live) */
    long long shown_want; /* ... as the worker last acted on it */
    long long shown_step; /* of the parameters in tp.m (-1: none yet) */

    /* ---- the worker thread's own ---- */
    Cmd cur;              /* the command being run (its queue slot is free) */
    TwStatus mine;
    Dataset d;
    TfModel m;
    Trainer t;
    int have_d, have_m, have_t;
    TwSpec spec;          /* of the current run (task, file) */
    int given_data;       /* the run's data set came ready-made */
    int unpublished;      /* mine changed since the last publication */
    float *spare[TW_SNAP_CAP]; /* snapshot buffers not in use */
    int n_spare;
    long long eval_every;
    double acc_loss, acc_acc, acc_tok; /* the curve point being summed */
    float acc_lr;
    int acc_n;
    double last_pub;
    int blas_before;      /* OpenBLAS threads before the worker existed */
    TrainProbe tp;        /* the probe; its model's parameters are written
                             under mu (tw_shown_model copies them) */
};

#endif
