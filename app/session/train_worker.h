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

#include "train_types.h"

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
