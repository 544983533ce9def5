/* train_probe.h - the train tab's probe: one sentence of the task run
 * through the model of the step shown (live while training, or a kept
 * snapshot). The training worker runs it on its own thread, between
 * optimizer steps (train_worker.c), and publishes what it found with its
 * status; the window only draws what was published:
 *
 *   greedy       what the model says on its own, token by token, decoded
 *                in pieces (a big model takes tenths of a second) that the
 *                worker runs between its other work, compared by the view
 *                with the true translation;
 *   teacher      <bos> + the true translation in one pass, as training
 *   forced       sees it: its attention weights are the view's heatmaps;
 *   head         the entropy of every head of that pass over the run, one
 *   entropy      point per step the probe ran at, and one per snapshot the
 *                worker keeps (run on the model as the snapshot is taken),
 *                so heads visibly "snap" into their pattern.
 *
 * A pass is written into a TpPass (its trace, and the vocabularies that
 * label it) that the worker then hands over whole: it keeps three, so the
 * window reads one while the worker fills another and a third waits
 * (train_worker.h). This file knows nothing of threads: the worker calls
 * it on models it owns. No SDL. */
#ifndef APP_TRAIN_PROBE_H
#define APP_TRAIN_PROBE_H

#include <stdint.h>

#include "decode.h"
#include "model.h"

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
} TpHeadHist;

/* What the probe publishes with the worker's status (plain data). */
typedef struct TpOut {
    uint64_t gen;                  /* the run it was made for */
    int have;                      /* made for it (else err says why) */
    int ref[TP_CAP_T], ref_n;      /* the truth, ids (no <bos>/<eos>) */
    int out[TP_CAP_T], out_n;      /* the model's greedy output */
    long long out_step;            /* ... at this step (-1: none yet) */
    int decoding, dec_t, dec_max;  /* a greedy output in flight: steps done, most */
    int heads[TP_ATTN_COUNT];      /* heads the history follows, per attention */
    char err[TF_ERR_MAX];
    TpHeadHist hh;
} TpOut;

/* One teacher-forced pass, handed over whole. */
typedef struct TpPass {
    uint64_t gen;          /* the run (0: none yet) */
    unsigned ver;          /* bumps with every pass */
    long long step;        /* of the parameters it ran on */
    float loss;            /* their training loss */
    TfTrace tr;            /* recorded */
    TfModel labels;        /* the run's config and vocabularies, and no
                              parameters: what labels the trace's tokens */
    int have_tr, have_labels;
} TpPass;

typedef struct TrainProbe {
    TfModel m;            /* shaped like the run: the parameters shown */
    TfTrace gtr;          /* greedy decoding scratch */
    TfTrace htr;          /* the snapshots' passes for the history */
    int have_m, have_gtr, have_htr;
    uint64_t gen;         /* the run m was made for */
    unsigned ver;         /* passes run */
    long long step;       /* of the parameters in m (-1: none) */
    float loss;           /* their training loss */
    int src[TP_CAP_T], S; /* probe source ids */
    double cost;          /* seconds the last pass took (with its greedy piece) */
    double greedy_cost;   /* seconds the last greedy output took */
    TfDecoder dec;        /* the greedy decoding in flight (dec_on) */
    int dec_on;
    long long dec_for;    /* ... for the parameters of this step */
    unsigned dec_steps;   /* its steps run in all (tests count them) */
    double next;          /* monotonic time the live probe may run again */
    TpOut o;              /* what is published */
} TrainProbe;

/* Zero p, ready for a first run (step -1). */
void tp_init(TrainProbe *p);
void tp_free(TrainProbe *p);
/* A pass's buffers. */
void tp_pass_free(TpPass *q);

/* Run gen began on model `run` (its config and vocabularies are copied):
 * the probe sentence src and its truth ref encoded, an empty history.
 * Returns 0, or -1 with p->o.err saying why (p->o.have 0). */
int tp_new_run(TrainProbe *p, const TfModel *run, uint64_t gen, const char *src, const char *ref);

/* The parameters in p->m are those of `step` now (the caller copied them:
 * tp_params gives where): the teacher-forced pass into q (made for this
 * run when it was not), its heads noted in the history, and when
 * with_greedy the greedy output started (its first piece run). */
float *tp_params(TrainProbe *p);
int tp_pass(TrainProbe *p, TpPass *q, long long step, float loss, int with_greedy);

/* The greedy output of the parameters in m: start it; run its steps within
 * one budget of SES_DEC_FRAME_BYTES (or all), 1 while more remain; cancel
 * it. */
void tp_greedy(TrainProbe *p);
int tp_greedy_steps(TrainProbe *p, int all);
void tp_greedy_cancel(TrainProbe *p);

/* A snapshot of step `step` is taken of model m (the run's own): its
 * teacher-forced pass into the history. */
void tp_hh_snapshot(TrainProbe *p, const TfModel *m, long long step);
TfAttnKind tp_attn_kind(TpAttn a);

/* A copy of the model in p->m (config, vocabularies, parameters) for the
 * window to adopt; step is that of its parameters. Returns 0, or -1 with
 * err (nothing shown yet: no model, or step < 0). */
int tp_copy_model(const TrainProbe *p, long long step, TfModel *out, TfErr *err);

#endif
