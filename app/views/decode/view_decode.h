/* view_decode.h - the decode view: what it is shown (DecShow), what it
 * remembers (DecodeUi: the pane, the step inspected, scrolling, the
 * sampling settings) and what it wishes (DecWish), shared by its files and
 * its tests. The view puts training and inference side by side on the same
 * sentence:
 *
 *   view_decode.c         the view: its keys, the control bar, the panes
 *   view_decode_act.c     the actions (step, play, inspect, pane, beam
 *                         size), on the view's state alone
 *   view_decode_table.c   teacher forcing beside greedy generation, one row
 *                         per target position, with the causal mask
 *   view_decode_step.c    one generated token: its masked self-attention
 *                         row, its cross-attention row, its top-k
 *   view_decode_beam.c    beam search drawn as a tree of hypotheses
 *   view_decode_sample.c  sampling: the settings, the bars, the draws
 *   view_decode_draw.c    small drawing helpers the panes share
 *
 * Nothing is computed here: the window's decode lab (app/session/
 * decode_lab.h) makes every result, and the window fills the Scene's
 * DecShow from it each frame (pointers into the lab's arrays), then applies
 * the view's DecWish to the lab. Drawing a frame allocates nothing. */
#ifndef APP_VIEW_DECODE_H
#define APP_VIEW_DECODE_H

#include "view.h"

#define DEC_CAP_T 128       /* longest decoder input the view handles (the lab's) */
#define DEC_MAX_BEAM 8      /* beam sizes 1..8 */
#define DEC_PACE 0.6        /* seconds per token while playing */
#define DEC_N_ALPHA 3       /* length penalties offered */
#define DEC_N_SAMPLES 6     /* translations drawn, the newest first */
#define DEC_SHOW_K 10       /* bars in the sampling pane */
#define DEC_SHOW_TOPK 10    /* top-k kept per generated step */
#define DEC_TEXT_MAX 1024   /* bytes of a translation shown */
#define DEC_T_MIN 0.1f      /* the temperature slider, on a log scale */
#define DEC_T_MAX 5.0f

extern const float DEC_ALPHAS[DEC_N_ALPHA];

/* The view's panes: the table (with the inspected step below it when there
 * is room), one step on its own, the beam search tree, sampling. */
typedef enum DecPane { DEC_PANE_GEN, DEC_PANE_STEP, DEC_PANE_BEAM, DEC_PANE_SAMPLE, DEC_PANE_COUNT } DecPane;

/* ---- what the view is shown (filled by the window) ---- */

/* One generated token and what the model looked at to choose it. */
typedef struct DecShowStep {
    int token, forced;    /* forced: the learner put it there */
    float prob;
    const int *top_id;    /* (DEC_SHOW_TOPK) the most probable, best first */
    const float *top_p;
    const float *self_w;  /* (n_dec, NH, step+1) masked self-attention row */
    const float *cross_w; /* (n_dec, NH, S) cross-attention row */
} DecShowStep;

/* A hypothesis beam search considered. */
typedef enum DecNodeState { DEC_NODE_PRUNED, DEC_NODE_KEPT, DEC_NODE_FINISHED } DecNodeState;
typedef struct DecNode {
    int parent, token, step; /* parent -1: the root (<bos>) */
    double logprob, score;   /* cumulative log P; log P / lp(length) */
    DecNodeState state;
} DecNode;

/* Work in flight: done of total, and the text made so far. */
typedef struct DecProgress {
    int on, tf;           /* tf: the generation is made, teacher forcing runs */
    int done, total;
    const char *text;
} DecProgress;

typedef struct DecShow {
    const char *err;      /* why nothing could be computed, or "" */
    int S, max_out, start_id, eos_id;
    const int *src;       /* (S) the sentence decoded */
    unsigned computes;    /* bumps when the results are dropped to be made again */
    unsigned made;        /* bumps when generation and teacher forcing are made */
    int sel_first;        /* then: the step to inspect */
    int sel_first_auto;   /* ... which generation chose (not a forced step) */
    DecProgress prog;     /* the generation or teacher forcing still running */
    int busy;             /* work in flight: a frame is wanted at once */
    /* teacher forcing: position i reads tf_in[i], should predict tf_truth[i] */
    int ref;              /* the target was typed (0: the greedy output stands in) */
    int tf_n, tf_right;
    const int *tf_in, *tf_pred, *tf_truth;
    const float *tf_loss, *tf_pred_p;
    const float *tf_mask; /* (tf_n, tf_n) */
    float tf_mean_loss;   /* mean -log p(true next token) */
    float tf_smooth_loss, tf_smooth_floor, tf_eps; /* mean H(q, p), H(q), label smoothing */
    /* greedy generation */
    int gen_n;
    const int *gen_ids;
    double gen_logprob;
    const DecShowStep *steps; /* (gen_n), or NULL */
    const char *gen_text;
    int diverge, contrast;
    int n_forced;
    /* beam search */
    unsigned beams;       /* bumps when a search begins */
    DecProgress beam_prog;
    const char *beam_err;
    int beam_k;           /* the search's size and alpha */
    float beam_alpha;
    int beam_n;           /* the winner, 0 none */
    const int *beam_ids;
    double beam_logprob, beam_score;
    const char *beam_text;
    const DecNode *nodes;
    int n_nodes, best_node;
    const int *node_col, *node_big, *node_small, *col_big, *col_small; /* the layout */
    const unsigned char *on_path;
    int n_cols;
    /* sampling */
    uint64_t seed;        /* of the next draw */
    const char *smp_err;
    DecProgress draw_prog;
    int n_samples;        /* drawn for this input, the newest first */
    const int (*sample_ids)[DEC_CAP_T];
    const int *sample_n;
    const double *sample_lp;
    const uint64_t *sample_seed;
    int bars_wait;        /* the bars' pass is running */
    int bars_at;          /* the bars are the next token after this step's prefix; -1 none */
    int n_set, n_bars;
    const int *bar_id;
    const float *bar_p, *bar_own;
    /* the experiment the view decodes under (NULL: none shown) */
    const TfExperiment *exp;
    const char *translation, *base_translation; /* greedy under it and without */
    int exp_pending;      /* the translation under it is still being made */
} DecShow;

/* ---- what the view wishes (applied to the lab by the window) ---- */

typedef struct DecWish {
    int force;            /* force token force_id at step force_step */
    int force_step, force_id;
    int unforce;          /* take the forced tokens back */
    int draw;             /* draw a translation */
    int seed_delta;       /* the next draw's seed up or down */
    int refresh;          /* a setting changed: bring the results up to date now */
} DecWish;

/* ---- what the view remembers ---- */

typedef struct DecSample {
    float temp;           /* DEC_T_MIN..DEC_T_MAX */
    int top_k;            /* 0 every token */
    float top_p;          /* 1 no limit */
    Rect slider;          /* its track as last drawn (tests) */
    Rect bar0;            /* the first bar's track, full width (tests) */
    int bar0_id;          /* and its token */
} DecSample;

typedef struct DecodeUi {
    int ready;            /* set up for a model (first use) */
    DecPane pane;
    int shown;            /* generated tokens revealed, 0..gen_n */
    int sel;              /* the step inspected, 0..shown-1, or -1 */
    int sel_auto;         /* ... still where generation put it (not the learner) */
    int playing;
    double next_at;       /* when Play reveals the next token */
    int layer;            /* decoder layer of the attention rows */
    int beam_k;           /* 1..DEC_MAX_BEAM */
    int alpha_i;          /* index into DEC_ALPHAS */
    int scroll, follow;   /* first table row shown; bring sel into view */
    int beam_x0;          /* first tree column shown */
    unsigned computes, made, beams; /* the DecShow counters last seen */
    DecSample smp;        /* the sampling settings */
    DecWish wish;         /* for the window, cleared when applied */
} DecodeUi;

/* ---- view_decode_act.c: the actions (keys and buttons do the same) ---- */
/* The view's state, set up on first use and brought up to date with what it
 * is shown (NULL when the window shows it nothing). */
DecodeUi *dec_get(ViewCtx *v);
void dec_step(DecodeUi *d, const DecShow *sh);       /* one more token; restart at the end */
void dec_play(ViewCtx *v, DecodeUi *d);              /* play / pause */
void dec_restart(DecodeUi *d);                       /* back to <bos> only */
void dec_select(DecodeUi *d, int step);              /* inspect an earlier step */
void dec_set_beam(DecodeUi *d, int k, int alpha_i);
void dec_set_pane(ViewCtx *v, DecodeUi *d, DecPane p);
/* Play: reveal the next token when its time has come, and keep the window
 * waking up until the last one. */
void dec_advance_play(ViewCtx *v, DecodeUi *d);
/* For `shot` and lessons: show pane "gen", "step", "beam" or "sample" with
 * beam size k (1..8, 0 keeps it) and length penalty alpha (< 0 keeps it;
 * the nearest of DEC_ALPHAS). Returns -1 for an unknown pane name. */
int view_decode_setup(ViewCtx *v, const char *pane, int k, float alpha);
/* The temperature from a slider position u in [0, 1] (log scale) and back. */
float dec_temp_at(float u);
float dec_temp_pos(float t);

/* ---- view_decode_draw.c: small helpers the panes share ---- */
/* Text of a target token, "<bos>" etc. included. */
const char *dec_tok(const Scene *sc, int id);
/* The decoder input of generation step s: <bos>, then its own outputs; -1
 * past the generated output. */
int dec_gen_input(const DecShow *sh, int s);
/* "Decoding step by step: done of at most max_out tokens". */
void dec_progress_line(char *buf, size_t cap, int done, int max_out);
/* line, a bar of done of max_out, and the text made so far under it. */
void dec_draw_progress_of(ViewCtx *v, Rect body, const char *line, int done, int max_out, const char *text);
/* The progress mark while the generation or teacher forcing runs. */
void dec_draw_progress(ViewCtx *v, const DecShow *sh, Rect body);
/* With an experiment on: the line saying which, with the greedy translation
 * before → after; returns its height. */
int dec_exp_line(ViewCtx *v, int x, int y, int w);

/* ---- the panes (rc is the space each may use) ---- */
void dec_table_draw(ViewCtx *v, DecodeUi *d, Rect rc);
int dec_table_height(ViewCtx *v, const DecodeUi *d, int w); /* all rows shown */
void dec_step_draw(ViewCtx *v, DecodeUi *d, Rect rc);
int dec_step_min_height(ViewCtx *v);
/* The generated tokens as chips, click one to inspect its step; returns
 * the height used. */
int dec_chips_draw(ViewCtx *v, DecodeUi *d, Rect rc);
void dec_beam_draw(ViewCtx *v, DecodeUi *d, Rect rc);
/* The sampling pane's controls and body, and its actions (1 when done). */
void dec_sample_bar(ViewCtx *v, UiFlow *f, DecodeUi *d);
void dec_sample_pane(ViewCtx *v, DecodeUi *d, Rect rc);
int dec_sample_act(ViewCtx *v, DecodeUi *d, ViewAct act, int arg);

#endif
