/* view_decode.h - the decode view's own state, shared by its files and by
 * its test. The view puts training and inference side by side on the same
 * sentence:
 *
 *   view_decode.c        the state: what is computed and when, the keys,
 *                        the control bar and the two panes
 *   view_decode_table.c  teacher forcing beside greedy generation, one row
 *                        per target position, with the causal mask
 *   view_decode_step.c   one generated token: its masked self-attention
 *                        row, its cross-attention row, its top-k
 *   view_decode_beam.c   beam search drawn as a tree of hypotheses
 *
 * Everything shown is computed when the input, the model or a setting
 * changes (keyed on sc->version), in the view's own traces, or read from
 * the session's (its greedy decode, and its pass when that is the same
 * teacher forcing), never written. Drawing a frame allocates nothing. */
#ifndef APP_VIEW_DECODE_H
#define APP_VIEW_DECODE_H

#include "session.h" /* the Scene's ses, until the lab's snapshot replaces it */
#include "view.h"

#define DEC_CAP_T SES_CAP_T /* longest decoder input the view handles */
#define DEC_TRACE_T0 8      /* tokens its traces are built for; they grow */
#define DEC_MAX_BEAM 8      /* beam sizes 1..8 */
#define DEC_PACE 0.6        /* seconds per token while playing */
#define DEC_N_ALPHA 3       /* length penalties offered */

/* The view's panes: the table (with the inspected step below it when there
 * is room), one step on its own, and the beam search tree. */
typedef enum DecPane { DEC_PANE_GEN, DEC_PANE_STEP, DEC_PANE_BEAM, DEC_PANE_SAMPLE, DEC_PANE_COUNT } DecPane;

#define DEC_N_SAMPLES 6   /* translations drawn, the newest first */
#define DEC_SHOW_K 10     /* bars in the sampling pane */
#define DEC_T_MIN 0.1f    /* the temperature slider, on a log scale */
#define DEC_T_MAX 5.0f

/* Sampling and forcing (issue 12, view_decode_sample.c): the settings of
 * the sampling pane, the translations it drew, the distribution it shows,
 * and the tokens the learner forced into generation. */
typedef struct DecSample {
    float temp;           /* DEC_T_MIN..DEC_T_MAX */
    int top_k;            /* 0 every token */
    float top_p;          /* 1 no limit */
    uint64_t seed;        /* of the next draw; each draw takes the next */
    int dragging;         /* the temperature slider */
    Rect slider;          /* its track as last drawn (tests) */
    Rect bar0;            /* the first bar's track, full width (tests) */
    int bar0_id;          /* and its token */
    /* what Sample drew (through tf_translate with DecodeOpts.sample) */
    int n_samples;
    int sample_ids[DEC_N_SAMPLES][DEC_CAP_T], sample_n[DEC_N_SAMPLES];
    double sample_lp[DEC_N_SAMPLES];
    uint64_t sample_seed[DEC_N_SAMPLES];
    uint64_t samples_version; /* the input they were drawn for */
    TfTrace str;          /* the bars' trace (1 sentence, nothing recorded) */
    TfTrace dtr;          /* the draw's trace (the same), made with str */
    int have_str;
    TfDecoder sdec;       /* the draw in flight (sdec_on): a step a frame */
    int sdec_on;
    char err[TF_ERR_MAX + 64];
    /* the logits the bars show: the next token after the inspected step's
     * prefix (a teacher-forced pass over it), kept for (version, prefix) */
    float *logits, *dist;     /* (V) */
    float *own;               /* (V) the model's own distribution (T = 1) */
    SampleCand *work;         /* (V) top-k / top-p's candidates */
    unsigned char *banned;    /* (V) never drawn (decode_sample_banned) */
    int V, logits_at;         /* the position; -1 none */
    unsigned logits_seq;      /* bumps when logits are recomputed */
    /* the bars, made for (bars_seq, bars_opts): the DEC_SHOW_K most
     * probable tokens of dist, their p and the model's own */
    unsigned bars_seq, bars_made; /* bars_made counts the computations (tests) */
    SampleOpts bars_opts;
    int n_set, n_bars, bar_id[DEC_SHOW_K];
    float bar_p[DEC_SHOW_K], bar_own[DEC_SHOW_K];
    uint64_t logits_version;
    int prefix[DEC_CAP_T], prefix_n;
    /* ... computed in str a budget of pieces a frame (SesPass), for
     * (lg_version, <bos> + lg_in[1..lg_T)); the bars wait meanwhile */
    SesPass lgp;
    int lg_on, lg_S, lg_T;
    uint64_t lg_version;
    int lg_in[DEC_CAP_T];
    /* forced tokens: generation goes on from the prefix they make; valid
     * for the input they were made on */
    DecodeOpts force;
    uint64_t force_version;
    int force_batch;
    int force_sel;        /* the step to inspect after forcing, or -1 */
} DecSample;

extern const float DEC_ALPHAS[DEC_N_ALPHA];

typedef struct DecodeUi {
    /* ---- the traces: rebuilt only when the model's shape changes ---- */
    TfConfig cfg;
    int have_traces, have_btr;
    TfTrace tr;           /* 1 sentence, recorded: teacher forcing, greedy */
    TfTrace btr;          /* DEC_MAX_BEAM sentences: beam search (made when
                             the tree is first shown) */

    /* ---- results, valid for (version, batch) ---- */
    uint64_t version;     /* sc->version they were computed for; 0 none */
    int batch;            /* the sentence of the batch decoded */
    char err[TF_ERR_MAX + 64]; /* why nothing could be computed, or "" */
    int S, src[DEC_CAP_T];
    int max_out;          /* longest output tried (as `translate` does) */

    /* teacher forcing: the decoder reads <bos> + target in one pass;
     * position i sees tf_in[0..i] and should predict tf_truth[i] */
    int ref;              /* 1: the target was typed (a real reference);
                             0: the greedy output stands in for it */
    int tf_n;             /* positions: target tokens + 1 (for <eos>) */
    int tf_in[DEC_CAP_T], tf_pred[DEC_CAP_T], tf_truth[DEC_CAP_T];
    float tf_loss[DEC_CAP_T];   /* -log p(true next token) */
    float tf_pred_p[DEC_CAP_T]; /* p of the predicted token */
    float tf_mask[DEC_CAP_T * DEC_CAP_T]; /* (tf_n, tf_n) the mask applied
                                             in decoder self-attention */
    float tf_mean_loss;
    int tf_right;         /* positions whose prediction is the truth */

    /* greedy generation, every step's attention rows and top-k kept */
    DecodeResult gen;
    int start_id, eos_id; /* the model's decoder start and </s> (<bos>/<eos>, or MarianMT's <pad>/</s>) */
    int diverge;          /* first position where generation leaves the
                             reference (-1: it never does, or no reference) */
    int contrast;         /* a later position where teacher forcing and
                             generation predict different tokens, or -1 */

    /* ---- beam search, valid for (beam_version, beam_batch, k, alpha) ---- */
    BeamResult beam;
    uint64_t beam_version;
    int beam_batch, beam_for_k;
    float beam_for_alpha;
    char beam_err[TF_ERR_MAX + 64];
    /* the tree laid out when it was searched: node i sits in column
     * node_col[i] (0 is <bos>, step t is column t+1), below node_big[i]
     * kept/finished and node_small[i] pruned nodes of its column */
    int *node_col, *node_big, *node_small;
    unsigned char *on_path; /* the winner's path from <bos> */
    int *col_big, *col_small; /* (n_cols) nodes of each kind per column */
    int n_cols, cap_nodes, cap_cols;

    /* ---- the learner's settings ---- */
    DecPane pane;
    int shown;            /* generated tokens revealed, 0..gen.n */
    int sel;              /* the step inspected, 0..shown-1, or -1 */
    int sel_auto;         /* ... still where generation put it (not the learner) */
    int playing;
    double next_at;       /* when Play reveals the next token */
    int layer;            /* decoder layer of the attention rows */
    int beam_k;           /* 1..DEC_MAX_BEAM */
    int alpha_i;          /* index into DEC_ALPHAS */
    int scroll, follow;   /* first table row shown; bring sel into view */
    int beam_x0;          /* first tree column shown */
    int ready;            /* set up for a model (first use) */
    DecSample smp;        /* sampling and forcing */
    int pending;          /* the session (or the view, gen_on) is still
                             decoding: progress shown */
    int tf_wait;          /* teacher forcing is the session's pass, still
                             being computed: progress shown */
    /* ... or the view's own pass (forced tokens, an experiment, another
     * sentence), a budget of pieces a frame: on while it runs, done when
     * d->tr holds it for <bos> + tfo_in[1..tfo_T) */
    SesPass tfo;
    int tfo_on, tfo_done, tfo_T, tfo_S;
    int tfo_in[DEC_CAP_T];
    unsigned tf_passes;   /* own teacher-forcing passes begun (tests) */
    TfDecoder gdec;       /* the view's own generation in flight (gen_on):
                             forced tokens or an experiment */
    int gen_on;
    unsigned gen_steps;   /* its steps run in all, and the sampling pane's
                             draws', start and hand-over included (tests
                             count them) */
    TfDecoder bdec;       /* the beam search in flight (beam_on), a few steps
                             a frame (view_decode_beam.c) */
    int beam_on;
} DecodeUi;

/* The view's state (v->st, owned by the window), set up on first use and
 * brought up to date with the input, the model and the settings. */
DecodeUi *dec_get(ViewCtx *v);
/* The pieces of the view's own teacher forcing that fit this call (may:
 * SES_BUDGET or SES_ALL): 1 when it is complete (or none runs), 0 when more
 * remain, -1 with err. */
int dec_tf_advance(const Scene *sc, DecodeUi *d, int may, TfErr *err);

/* view_decode_progress.c: the generation is the session's own greedy
 * decode (decoded step by step between frames), not a second one. Take it
 * for sentence b: 1 taken, 0 the session is still decoding (d->pending set),
 * -1 the view must decode itself (another sentence or length). */
int dec_from_session(const Scene *sc, DecodeUi *d, int b);
/* The decoding the view waited for has ended: compute again. */
int dec_decoded(const Scene *sc, const DecodeUi *d);
/* "Decoding step by step: done of at most max_out tokens". */
void dec_progress_line(char *buf, size_t cap, int done, int max_out);
/* The progress mark while it decodes: tokens so far of at most max_out. */
void dec_draw_progress(ViewCtx *v, const DecodeUi *d, Rect body);
/* line, a bar of done of max_out, and the tokens ids[0..n) under it. */
void dec_draw_progress_of(ViewCtx *v, Rect body, const char *line, int done, int max_out,
                          const int *ids, int n);

/* Beam search between frames (view_decode_beam.c): start it (a search in
 * flight is cancelled), run this frame's steps (and ask for the next
 * frame), cancel it. */
int dec_beam_start(const Scene *sc, DecodeUi *d, TfErr *err);
void dec_beam_advance(ViewCtx *v, DecodeUi *d);
void dec_beam_stop(DecodeUi *d);

/* Actions (keys and buttons do the same). */
void dec_step(DecodeUi *d);                          /* one more token; restart at the end */
void dec_play(ViewCtx *v, DecodeUi *d);              /* play / pause */
void dec_restart(DecodeUi *d);              /* back to <bos> only */
void dec_select(DecodeUi *d, int step);     /* inspect an earlier step */
void dec_set_beam(ViewCtx *v, DecodeUi *d, int k, int alpha_i);

/* For `shot` and lessons: show pane "gen", "step" or "beam" with beam size
 * k (1..8, 0 keeps it) and length penalty alpha (< 0 keeps it; the nearest
 * of DEC_ALPHAS). Returns -1 for an unknown pane name. */
int view_decode_setup(ViewCtx *v, const char *pane, int k, float alpha);

/* ---- sampling and forcing (view_decode_sample.c) ---- */
void dec_sample_init(DecSample *m);
void dec_sample_free(DecSample *m);
/* The view's own greedy generation of d->src (with the forced tokens when
 * they were made for this input, else they are dropped; or under the
 * experiment), step by step like the session's: start it (one in flight is
 * cancelled; d->pending set), run this frame's steps within
 * SES_DEC_FRAME_BYTES (all when headless) and ask for the next frame: 1 when
 * d->gen holds it (steps kept), 0 more to come, -1 error; stop it. */
int dec_gen_start(const Scene *sc, DecodeUi *d, TfErr *err);
int dec_gen_advance(ViewCtx *v, DecodeUi *d, TfErr *err);
void dec_gen_stop(DecodeUi *d);
/* Force token id at generation step s (replacing what was forced there and
 * later); generation is redone from there on the next dec_get. */
void dec_force(DecodeUi *d, int s, int id);
void dec_unforce(DecodeUi *d);
/* A click on row rc, a top-k token id of step s, forces it. */
void dec_force_click(ViewCtx *v, DecodeUi *d, Rect rc, int s, int id);
/* Draw a new translation with the pane's settings, as tf_translate does
 * with DecodeOpts.sample and the next seed, but step by step within the
 * frame budget like the generation (all at once when headless): start it
 * (a draw in flight starts again), run this frame's steps (out may be
 * NULL), stop it. 0, or -1: smp.err. */
int dec_sample_draw_one(const Scene *sc, DecodeUi *d);
int dec_sample_advance(const Scene *sc, DecodeUi *d, ViewOut *out);
void dec_sample_stop(DecSample *m);
/* The temperature from a slider position u in [0, 1] (log scale) and back. */
float dec_temp_at(float u);
float dec_temp_pos(float t);
/* The sampling pane's controls and body, and its actions (1 when done). */
void dec_sample_bar(UiFlow *f, DecodeUi *d);
void dec_sample_pane(ViewCtx *v, DecodeUi *d, Rect rc);
int dec_sample_act(ViewCtx *v, DecodeUi *d, ViewAct act, int arg);

/* With an experiment on, the view decodes under it (the normal pass when D
 * shows it): set d->tr's experiment for the scene. The line saying which,
 * with the greedy translation before → after; returns its height. */
void dec_exp_apply(const Scene *sc, DecodeUi *d);
/* The experiment to decode under is not the one d->tr has (the normal
 * pass arrived, or D toggled): compute again. */
int dec_exp_changed(const Scene *sc, const DecodeUi *d);
int dec_exp_line(ViewCtx *v, DecodeUi *d, int x, int y, int w);

/* Text of a target token, "<bos>" etc. included. */
const char *dec_tok(const Scene *sc, int id);
/* The decoder input of generation step s: <bos>, then its own outputs; -1
 * past the generated output. */
int dec_gen_input(const DecodeUi *d, int s);

/* The panes (rc is the space each may use). */
void dec_table_draw(ViewCtx *v, DecodeUi *d, Rect rc);
int dec_table_height(ViewCtx *v, const DecodeUi *d, int w); /* all rows shown */
void dec_step_draw(ViewCtx *v, DecodeUi *d, Rect rc);
int dec_step_min_height(ViewCtx *v);
/* The generated tokens as chips, click one to inspect its step; returns
 * the height used. */
int dec_chips_draw(ViewCtx *v, DecodeUi *d, Rect rc);
void dec_beam_draw(ViewCtx *v, DecodeUi *d, Rect rc);
/* Lay out the tree of d->beam (0, or -1 when memory runs out). */
int dec_beam_layout(DecodeUi *d);
void dec_beam_free(DecodeUi *d);

/* A length of `base` pixels at the current text scale (gfx_px is meant for
 * font sizes and clamps at 200). */
/* Small drawing helpers shared by the files. */
/* Hover text for the status line. */

#endif
