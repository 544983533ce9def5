/* train_run.h - the parts of a training worker's run (train_run.c), for
 * train_worker.c: all on the worker's thread, none touching the mutex. */
#ifndef APP_TRAIN_RUN_H
#define APP_TRAIN_RUN_H

#include "train_types.h"

/* Say something: message `id` with its text and numbers (see TwMsg). */
void twr_message(TrainWorker *w, TwMsg id, const char *text, long long n0, long long n1);
/* A step's statistics into the curve point being summed. */
void twr_log_add(TrainWorker *w, const TrainStats *s);
/* The held-out check when this step is due for one. */
void twr_maybe_eval(TrainWorker *w);
/* Data set, size check, model, trainer; *why says what failed (the text
 * argument is then err's message). */
int twr_run_build(TrainWorker *w, TwSpec *s, TwMsg *why, TfErr *err);
/* The probe sentence of the run and its true translation. */
void twr_choose_probe(TrainWorker *w);
/* A fresh status for a new run (messages keep counting). */
void twr_status_reset(TrainWorker *w);

#endif
