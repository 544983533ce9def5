/* train_probe.h - the train tab's probe: one sentence of the task run
 * through the model of the step shown (live while training, or a kept
 * snapshot), on a copy of the parameters of its own, so nothing it reads is
 * ever being written by the worker (train_worker.h).
 *
 *   greedy       what the model says on its own, token by token, decoded
 *                a few steps a frame (a big model takes tenths of a
 *                second), compared by the view with the true translation;
 *   teacher      <bos> + the true translation in one pass, as training
 *   forced       sees it: its attention weights are the view's heatmaps;
 *   head         the entropy of every head of that pass over the run, one
 *   entropy      point per step the probe ran at, and one per kept
 *                snapshot (run once each on a model of the history's own),
 *                so heads visibly "snap" into their pattern.
 *
 * tp_follow is called once a frame: it fetches the parameters the window
 * wants shown when they changed and runs the passes, at a pace their cost
 * allows (while training, one costly thing a frame). tp_copy_model hands
 * the shown model to the window ("Open in Decode"). No SDL. */
#ifndef APP_TRAIN_PROBE_H
#define APP_TRAIN_PROBE_H

#include <stdint.h>

#include "decode.h"
#include "train_worker.h"

#define TP_CAP_T 128         /* longest probe sentence */
#define TP_GREEDY_MAX 0.015  /* seconds: costlier greedy decoding of the
                                probe waits for a pause in training */
#define TP_SHARE 20.0        /* while training, the probe is recomputed at
                                most every 20 times what it cost (<= 5%) */
#define TP_HH_CAP 128        /* points of the head-entropy history */
#define TP_HH_HEADS 64       /* heads of one kind of attention it follows */

/* The three attentions of the probe (the view's TvAttn, in this order). */
typedef enum TpAttn { TP_CROSS, TP_ENC, TP_DEC, TP_ATTN_COUNT } TpAttn;

/* The entropy of every probe head over training, sorted by step. */
typedef struct TpHeadHist {
    uint64_t gen;                  /* the run it belongs to */
    int n;                         /* points */
    long long step[TP_HH_CAP];
    float H[TP_HH_CAP][TP_ATTN_COUNT][TP_HH_HEADS]; /* nats, layer * n_heads + head */
    float H_max;                   /* ln(keys): a uniform row's entropy */
    unsigned ver;                  /* bumps whenever a point is added or the
                                      history restarts */
    long long hw;                  /* high-water mark: every kept snapshot up
                                      to this step has been run (-1: none) */
    TfModel m;                     /* for the snapshots */
    TfTrace tr;
    int have_m, have_tr;
} TpHeadHist;

typedef struct TrainProbe {
    /* the model of the step shown, and its passes */
    TfModel m;            /* shaped like the run */
    TfTrace tr;           /* teacher-forced pass over the probe (recorded) */
    TfTrace gtr;          /* greedy decoding scratch */
    int have_m, have_tr, have_gtr;
    uint64_t gen;         /* the run m was made for */
    uint64_t ver;         /* bumps when the passes are recomputed */
    long long step;       /* of the parameters in m (-1: none) */
    float loss;           /* their training loss */
    int src[TP_CAP_T], S;          /* probe source ids */
    int ref[TP_CAP_T], ref_n;      /* its reference, ids (no <bos>/<eos>) */
    int out[TP_CAP_T], out_n;      /* the model's greedy output */
    long long out_step;            /* ... at this step */
    double greedy_cost;            /* seconds it took */
    TfDecoder dec;                 /* the greedy decoding in flight (dec_on), */
    int dec_on;                    /* a few steps a frame */
    long long dec_for;             /* ... for the parameters of this step */
    unsigned dec_steps;            /* its steps run in all (tests count them) */
    char err[TF_ERR_MAX];

    /* pacing (tp_follow) */
    double next;          /* monotonic time the live probe may run again */
    int due;              /* put off by a frame that drew new curves */
    int ran_pass;         /* the last tp_follow ran a pass */

    TpHeadHist hh;
} TrainProbe;

/* Zero p, ready for a first run (step -1). */
void tp_init(TrainProbe *p);
void tp_free(TrainProbe *p);

/* Run gen of st began: a model shaped like it, the probe sentence of st
 * encoded. Tried once per run; on failure p->err says why. */
void tp_new_run(TrainProbe *p, TrainWorker *w, const TwStatus *st);

/* The parameters of step *want (-1: live; a step that is no longer kept
 * becomes the nearest kept one, a new run live) shown, and the passes run
 * on them, as their cost allows: `curves` when this frame draws new curves
 * (the probe then waits for the next), `wait` for tests and tools (the
 * whole greedy output at once). Sets p->ran_pass. */
void tp_follow(TrainProbe *p, TrainWorker *w, const TwStatus *st, long long *want, int curves, int wait);

/* Parameters in m changed: recompute (the greedy output too when asked). */
void tp_run(TrainProbe *p, int with_greedy);
/* The greedy output: start it; run its steps within one budget of
 * SES_DEC_FRAME_BYTES (or all), 1 while more remain; cancel it. */
void tp_greedy(TrainProbe *p);
int tp_greedy_steps(TrainProbe *p, int all);
void tp_greedy_cancel(TrainProbe *p);

/* Head entropy: note the pass just run; run up to budget snapshots past
 * the high-water mark (a frame runs one: after a pause dozens wait); are
 * some still waiting? Heads of attention a followed; its engine kind. */
void tp_hh_note(TrainProbe *p);
void tp_hh_fill(TrainProbe *p, TrainWorker *w, const TwStatus *st, int budget);
int tp_hh_pending(const TrainProbe *p, const TwStatus *st);
int tp_hh_heads(const TrainProbe *p, TpAttn a);
TfAttnKind tp_attn_kind(TpAttn a);

/* A copy of the shown model (config, vocabularies, parameters) for the
 * window to adopt. Returns 0, or -1 with err (nothing shown yet). */
int tp_copy_model(const TrainProbe *p, TfModel *out, TfErr *err);

#endif
