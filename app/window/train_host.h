/* train_host.h - the window's side of the train view: it owns the
 * training worker (train_worker.h), which also runs the probe
 * (train_probe.h) and publishes what it found; the host fills
 * the TrainShow the view draws (Scene.train) before each of its frames,
 * and applies the TrainWish the view leaves after it drew or took a key:
 * play, step, reset, save, open in Decode, which snapshot, the settings.
 *
 * The view's settings become a run here: a run that has not trained yet
 * follows them once they settle (TH_SETTLE: a burst of clicks through
 * d_model makes one model, not five); a trained one waits for Reset. The
 * worker's messages are worded here, in the window's language. */
#ifndef APP_TRAIN_HOST_H
#define APP_TRAIN_HOST_H

#include "app.h"
#include "train_probe.h"
#include "train_worker.h"
#include "view_train.h"

#define TH_PUMP_S 0.012 /* seconds of training a frame where there are no threads */
#define TH_WAKE 0.25   /* seconds between frames while training: the curves
                          move 4 times a second, and drawing takes little
                          from the trainer's two threads */
#define TH_POLL 0.03   /* seconds between frames while the worker is
                          busy with what the view waits for (a snapshot
                          asked for, a paused run's greedy output) */
#define TH_SETTLE 0.4  /* a changed setting applies after this pause */
#define TH_SAVE_CONFIRM 6.0 /* seconds a first Save waits for the second that writes */

typedef struct TrainHost {
    TrainWorker *w;       /* made on first use */
    char err[TF_ERR_MAX]; /* the worker could not start */
    TwStatus st;          /* what the worker published (copied) */
    uint64_t msg_seen;    /* the last message turned into a notice */
    int msg_kept;         /* it is an error kept on screen until a new run */
    TwSpec applied;       /* the settings of the current run */
    int have_applied;
    double apply_at;      /* apply the changed settings then (0: none) */
    double wake_until;    /* keep drawing until then (a state change) */
    long long want_snap;  /* -1 live, else the step of a kept snapshot */
    char save_dir[512];   /* where Save writes ("" = working directory) */
    TwSaveName saved;     /* the name of the last save */
    double save_armed;    /* Save asked once: a second one until then writes */
    int save_confirmed;   /* a second Save confirmed saving into save_ok_dir: */
    char save_ok_dir[512]; /* saves there write at once */
    long long want_sent;  /* want_snap as the worker was last told */
    const TpPass *pass;   /* the probe's pass shown: the worker's, lent
                             until the next tw_take (NULL before the first) */
    int due;              /* a newer pass waits for the next frame */
    int ran_pass;         /* this frame took a new pass without new curves */
    unsigned hh_shown;    /* the head-entropy history the plots show: a
                             frame that took a new pass leaves the plots to
                             the next one (one costly redraw a frame) */
    int hh_late;          /* this frame left them */
    TrainShow show;       /* what the view sees */
} TrainHost;

/* The host, made on first use (NULL when memory runs out), and freed. */
TrainHost *app_train(App *a);
void app_train_free(App *a);
/* Before the train view draws: what the worker published (the probe's
 * pass with it), the settings applied once settled, the show. Nothing is
 * computed here. */
void app_train_update(App *a);
/* After the train view drew or took a key: its wishes. */
void app_train_apply(App *a);

#endif
