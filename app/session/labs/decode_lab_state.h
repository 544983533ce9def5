/* decode_lab_state.h - the decode lab's state and the figures it reports
 * (decode_lab.h says what the lab is): here apart, so that the lab's own
 * files (decode_lab_impl.h) read the types without the lab's public door,
 * and the two headers do not include each other. */
#ifndef APP_DECODE_LAB_STATE_H
#define APP_DECODE_LAB_STATE_H

#include <stdint.h>

#include "decode.h"
#include "experiment.h"
#include "sample.h"
#include "session.h"

#define DLAB_CAP_T SES_CAP_T /* longest decoder input the lab handles */
#define DLAB_TRACE_T0 8      /* tokens its traces are built for; they grow */
#define DLAB_MAX_BEAM 8      /* beam sizes 1..8 */
#define DLAB_N_SAMPLES 6     /* translations drawn kept, the newest first */
#define DLAB_SHOW_K 10       /* bars of the next token's distribution */

/* What the tab shows, given to every dlab_update. */
typedef struct DlabInput {
    uint64_t version;     /* of what the window shows (the Session's, with the
                             compare mode): results are kept for it */
    int batch;            /* the sentence of the batch decoded */
    TfExperiment exp;     /* decode under it (none: the normal pass) */
    int sel;              /* the step inspected, or -1 */
    int want_beam;        /* the tree is shown: search with beam_k and alpha */
    int beam_k;
    float alpha;
    int want_bars;        /* the bars are shown: the distribution after sel's prefix */
    SampleOpts sampling;  /* of the bars and of the next draw */
} DlabInput;

/* Sampling: the draws, the bars, and the tokens forced. */
typedef struct DlabSample {
    uint64_t seed;        /* of the next draw; each draw takes the next */
    int n_samples;        /* what the draws made (tf_translate with DecodeOpts.sample) */
    int sample_ids[DLAB_N_SAMPLES][DLAB_CAP_T], sample_n[DLAB_N_SAMPLES];
    double sample_lp[DLAB_N_SAMPLES];
    uint64_t sample_seed[DLAB_N_SAMPLES];
    uint64_t samples_version; /* the input they were drawn for */
    TfTrace str;          /* the bars' trace (1 sentence, nothing recorded) */
    TfTrace dtr;          /* the draw's trace (the same), made with str */
    int have_str;
    TfDecoder sdec;       /* the draw in flight (sdec_on): a budget a call */
    int sdec_on;
    char err[TF_ERR_MAX + 64];
    /* the logits the bars show: the next token after the inspected step's
     * prefix (a teacher-forced pass over it), kept for (version, prefix) */
    float *logits, *dist;     /* (V) each, in one block that logits holds */
    float *own;               /* (V) the model's own distribution (T = 1) */
    SampleCand *work;         /* (V) top-k / top-p's candidates */
    unsigned char *banned;    /* (V) never drawn (decode_sample_banned) */
    int V, logits_at;         /* the position; -1 none */
    int bars_wait;            /* the pass over the prefix is still running */
    unsigned logits_seq;      /* bumps when logits are recomputed */
    /* the bars, made for (bars_seq, bars_opts): the DLAB_SHOW_K most
     * probable tokens of dist, their p and the model's own */
    unsigned bars_seq, bars_made; /* bars_made counts the computations (tests) */
    SampleOpts bars_opts;
    int n_set, n_bars, bar_id[DLAB_SHOW_K];
    float bar_p[DLAB_SHOW_K], bar_own[DLAB_SHOW_K];
    uint64_t logits_version;
    int prefix[DLAB_CAP_T], prefix_n;
    /* ... computed in str a budget of pieces a call (SesPass), for
     * (lg_version, <bos> + lg_in[1..lg_T)); the bars wait meanwhile */
    SesPass lgp;
    int lg_on, lg_S, lg_T;
    uint64_t lg_version;
    int lg_in[DLAB_CAP_T];
    /* forced tokens: generation goes on from the prefix they make; valid
     * for the input they were made on */
    DecodeOpts force;
    uint64_t force_version;
    int force_batch;
    int force_sel;        /* the step to inspect after forcing, or -1 */
} DlabSample;

typedef struct DecodeLab {
    /* ---- the traces: rebuilt only when the model's shape changes ---- */
    TfConfig cfg;
    int have_traces, have_btr;
    TfTrace tr;           /* 1 sentence, recorded: teacher forcing, greedy */
    TfTrace btr;          /* DLAB_MAX_BEAM sentences: beam search (made when
                             the tree is first wanted) */

    /* ---- results, valid for (version, batch) ---- */
    uint64_t version;     /* DlabInput.version they were computed for; 0 none */
    int batch;
    char err[TF_ERR_MAX + 64]; /* why nothing could be computed, or "" */
    int S, src[DLAB_CAP_T];
    int max_out;          /* longest output tried (as `translate` does) */
    unsigned computes;    /* bumps when the results are dropped to be made again */
    unsigned made;        /* bumps when generation and teacher forcing are both made */

    /* teacher forcing: the decoder reads <bos> + target in one pass;
     * position i sees tf_in[0..i] and should predict tf_truth[i] */
    int ref;              /* 1: the target was typed (a real reference);
                             0: the greedy output stands in for it */
    int tf_n;             /* positions: target tokens + 1 (for <eos>) */
    int tf_in[DLAB_CAP_T], tf_pred[DLAB_CAP_T], tf_truth[DLAB_CAP_T];
    float tf_loss[DLAB_CAP_T];   /* -log p(true next token) */
    float tf_pred_p[DLAB_CAP_T]; /* p of the predicted token */
    float tf_mask[DLAB_CAP_T * DLAB_CAP_T]; /* (tf_n, tf_n) the mask applied
                                               in decoder self-attention */
    float tf_mean_loss;   /* the mean of tf_loss: -log p(y), the NLL of the truth */
    float tf_smooth_loss; /* the mean label-smoothed cross-entropy H(q, p), what
                             training minimises (q: 1 - eps on the truth, eps
                             shared by the tokens other than it and <pad>) */
    float tf_smooth_floor; /* H(q), its minimum (at p = q); eps = 0: both 0 */
    float tf_eps;         /* the model's label smoothing */
    int tf_right;         /* positions whose prediction is the truth */

    /* greedy generation, every step's attention rows and top-k kept */
    DecodeResult gen;
    int start_id, eos_id; /* the model's decoder start and </s> (<bos>/<eos>, or MarianMT's <pad>/</s>) */
    int sel_first;        /* the step to inspect first (the last, or the one just forced) */
    int sel_first_auto;   /* ... the last: generation chose it, not the learner */
    int diverge;          /* first position where generation leaves the
                             reference (-1: it never does, or no reference) */
    int contrast;         /* a later position where teacher forcing and
                             generation predict different tokens, or -1 */

    /* ---- beam search, valid for (beam_version, beam_batch, k, alpha) ---- */
    BeamResult beam;
    uint64_t beam_version;
    int beam_batch, beam_for_k;
    float beam_for_alpha;
    unsigned beams;       /* bumps when a search begins */
    char beam_err[TF_ERR_MAX + 64];
    /* the tree laid out when it was searched: node i sits in column
     * node_col[i] (0 is <bos>, step t is column t+1), below node_big[i]
     * kept/finished and node_small[i] pruned nodes of its column */
    int *node_col, *node_big, *node_small;
    unsigned char *on_path; /* the winner's path from <bos> */
    int *col_big, *col_small; /* (n_cols) nodes of each kind per column */
    int n_cols, cap_nodes, cap_cols;

    /* ---- work in flight ---- */
    int pending;          /* the session (or the lab, gen_on) is still decoding */
    int tf_wait;          /* teacher forcing is the session's pass, still
                             being computed */
    /* ... or the lab's own pass (forced tokens, an experiment, another
     * sentence): on while it runs, done when tr holds it for <bos> +
     * tfo_in[1..tfo_T) */
    SesPass tfo;
    int tfo_on, tfo_done, tfo_T, tfo_S;
    int tfo_in[DLAB_CAP_T];
    unsigned tf_passes;   /* own teacher-forcing passes begun (tests) */
    TfDecoder gdec;       /* the lab's own generation in flight (gen_on) */
    int gen_on;
    unsigned gen_steps;   /* its steps run in all, and the draws', start and
                             hand-over included (tests count them) */
    TfDecoder bdec;       /* the beam search in flight (beam_on) */
    int beam_on;
    int busy;             /* the last update left work for the next call */

    DlabSample smp;       /* sampling and forcing */
} DecodeLab;

/* Work in flight, for a progress mark: what it has done of how much, and
 * the tokens made so far. */
typedef struct DlabProgress {
    int on;               /* 0 nothing runs */
    int tf;               /* the generation is made: teacher forcing runs */
    int done, total;
    const int *ids;
    int n;
} DlabProgress;

#endif
