/* session.h - what the window runs, without the window: the model, the input
 * lines, the padded batch they make, the trace the model computed for them
 * (recomputed in units, so a frame computes only what it shows), the greedy
 * translation, and where the learner is in the stage walk.
 *
 * No SDL and nothing of the window here: the App (app/window) owns one
 * Session and adds how things look; tests and tools can drive a Session
 * alone. Messages meant for the learner (a cut sentence, a model that could
 * not be opened) go to msg; msg_seq counts them so the window shows each. */
#ifndef APP_SESSION_H
#define APP_SESSION_H

#include <stdint.h>

#include "decode.h"
#include "experiment.h"
#include "model.h"
#include "ses_pass.h"
#include "stage.h"
#include "walk.h"

#define SES_MAX_SENT 4       /* sentences in the padded batch */
#define SES_TEXT_MAX 1024    /* bytes of one input line */
#define SES_CAP_T 128        /* longest sequence the window shows */
#define SES_MAX_STEPS 4096   /* entries of the stage walk */
#define SES_TRACE_T0 8       /* tokens the traces are built for; they grow */
#define SES_KEEP_EXP 4 /* translations under experiments kept (session.c) */
#define SES_DEC_FRAME_BYTES (32.0 * 1024 * 1024) /* what the pieces of the pass
                                (decoding steps, layers, rows of the output) one frame or idle call
                                may run cost, in weight reads (at least one piece; session.c) */

/* How much of the pass a frame needs: the current stage, the current stage
 * in every layer of its stack, or everything (the output view) before it
 * draws; or everything paced: nothing before the frame, all of it in the
 * window's idle calls, a budget each, while the view shows how far it has
 * got (the decode view: decoding, then teacher forcing) or does not read
 * it (the train view). */
typedef enum SesNeed { SES_NEED_STAGE, SES_NEED_STACK, SES_NEED_ALL, SES_NEED_PACED } SesNeed;

/* The padded batch the input lines make: each sentence's ids in a row of
 * S source (T target) positions, the rest <pad> (session.c). */
typedef struct SesPad {
    int src[SES_MAX_SENT * SES_CAP_T], S;
    int tgt[SES_MAX_SENT * SES_CAP_T], T;
} SesPad;

/* Each sentence's greedy target as last decoded, and the key of what it was
 * decoded from (ses_target_key: the model and the sentence's source ids;
 * typed targets and the experiment play no part: the targets are decoded
 * by the normal model), so toggling an experiment or editing another
 * sentence or the target line decodes nothing again (session_keep.c). */
typedef struct SesTargets {
    uint64_t key[SES_MAX_SENT];   /* 0 none */
    int ids[SES_MAX_SENT][SES_CAP_T], n[SES_MAX_SENT];
    char text[SES_TEXT_MAX];      /* sentence 0's greedy translation */
} SesTargets;

/* The last SES_KEEP_EXP translations of sentence 0 under an experiment, for
 * (its target key, the experiment): turning one on again decodes nothing
 * (session_keep.c). */
typedef struct SesExpKept {
    uint64_t key[SES_KEEP_EXP];
    TfExperiment exp[SES_KEEP_EXP];
    char text[SES_KEEP_EXP][SES_TEXT_MAX];
    int next;                     /* the slot the next one takes */
} SesExpKept;

/* With an experiment on (session_exp.c): the trace is the pass with the
 * experiment applied; base the normal pass on the same input (the same
 * decoder input), kept while only the experiment changes. Both are made
 * in pieces after the shown pass, like the greedy targets: the normal pass
 * a unit at a time (encoder layers, decoder layers), then the greedy
 * translation under the experiment a step at a time, each frame or idle
 * call within SES_DEC_FRAME_BYTES (at least one piece); an edit or a new
 * experiment cancels them. */
typedef struct SesExtras {
    TfTrace base;
    int have_base;                /* base holds the normal pass of the input */
    uint64_t base_key;            /* of the input base was computed for */
    char base_translation[SES_TEXT_MAX]; /* greedy without the experiment */
    unsigned base_passes;         /* normal passes computed (tests) */
    int phase;                    /* 0 done (or none), 1 the normal pass, 2 the translation */
    SesPass pass;                 /* the normal pass in pieces (unit 0: not begun) */
    int enc;                      /* encoder pieces of the translation's source run */
    TfDecoder dec;                /* the translation under the experiment (dec_on) */
    int dec_on;
    int pending;                  /* translation is not yet the one under the experiment */
    unsigned pieces;              /* pieces run, and their weight reads, in all (tests */
    double bytes;                 /* count them per frame) */
    SesExpKept kept;
} SesExtras;

/* The greedy decoding of a target in flight (session.c), a step at a time
 * between frames. */
typedef struct SesDecoding {
    TfDecoder dec;
    int on, sent;                 /* running, for sentence `sent` of the batch */
    int enc;                      /* its source's encoder pieces run in scratch before
                                     it starts (when the pass's cannot be taken) */
    unsigned steps;               /* decoding steps run (tests count them) */
} SesDecoding;

typedef struct Session {
    /* the model and what it computed */
    TfModel model;
    int have_model;
    int untrained;              /* random weights: say so on screen */
    char model_path[1024];
    char model_label[128];
    TfTrace trace;              /* recorded; starts small, grows with the input */
    TfTrace scratch;            /* for greedy decoding, not shown */
    float *pe;                  /* (cap_T, d_model) the model's own positional table:
                                   the paper's sin/cos, MarianMT's halves or a stored one */
    struct SesMeasure *measure; /* what the cost and scale views show (ses_measure.h);
                                   NULL until first asked */
    uint64_t version;           /* bumps whenever the trace changes */
    int dirty;                  /* input changed: recompute before drawing */
    int lazy;                   /* compute only what is shown, the rest when idle */
    int units_done;             /* units of the current pass computed */
    int out_rows;               /* ... positions of the last unit (the output) computed,
                                   over all sentences */
    unsigned pieces;            /* pieces of the pass run, and what they cost in all */
    double work;                /* (tests count them per call) */
    SesPad pad;                 /* the padded batch */

    /* the input: a source line holding up to four sentences separated by
     * '|' (a padded batch) and a target for sentence 0 (empty: the greedy
     * translation is used) */
    char src_line[SES_TEXT_MAX];
    char src[SES_MAX_SENT][SES_TEXT_MAX]; /* the line split at '|' */
    int n_src;
    char tgt[SES_TEXT_MAX];
    int tgt_auto;               /* sentence 0's decoder input came from greedy decoding (the
                                   target line, split at '|', types one per sentence) */
    int src_ids[SES_MAX_SENT][SES_CAP_T], src_n[SES_MAX_SENT];
    TokSpan src_spans[SES_MAX_SENT][SES_CAP_T]; /* each source id's bytes in src[i] */
    int tgt_ids[SES_MAX_SENT][SES_CAP_T], tgt_n[SES_MAX_SENT];
    int n_unk;                  /* unknown words in the current input */
    int truncated;              /* a sentence was cut to the limit */
    int dropped;                /* sentences after the SES_MAX_SENT-th left out */
    char input_error[TF_ERR_MAX + 64]; /* why the input could not run, or "" */
    int nonfinite;              /* the pass overflowed (NaN or infinity): input_error says where */
    char translation[SES_TEXT_MAX];
    DecodeResult greedy;        /* the greedy decode of sentence 0, steps kept */
    SesDecoding gdec;           /* the greedy decoding in flight */
    SesTargets targets;         /* each sentence's greedy target as last decoded */

    TfExperiment exp;           /* the experiment (none: all zero) */
    SesExtras ext;              /* ... and what is made beside it */

    /* where the learner is */
    StagePos walk[SES_MAX_STEPS];
    int n_walk, at;             /* the walk and the current index in it */
    unsigned walk_id;           /* changes whenever the walk is rebuilt */
    int head;                   /* -1 all heads */
    int batch;                  /* sentence of the batch shown */

    /* the last message for the learner */
    char msg[512];
    int msg_error;
    unsigned msg_seq;
} Session;

/* Open the model at path. When it cannot be read and fallback is set, a
 * random classroom model (labelled untrained) is used instead and msg says
 * why. Returns 0, or -1 with err when nothing at all can be shown. */
int session_init(Session *s, const char *path, int fallback, TfErr *err);
void session_free(Session *s);

/* Replace the model (the old one is kept when the new one fails to load,
 * and msg says why). session_use_model takes m over (freed on failure);
 * label names it. Both return -1 on failure, 1 when the position in the
 * walk changed (the stage is not in the new model), else 0. */
int session_load_model(Session *s, const char *path);
int session_use_model(Session *s, TfModel *m, const char *label);

/* The input lines: which 0 the source line, 1 the target. */
void session_set_text(Session *s, int which, const char *text);

/* Re-run the model on the current input if it changed, as far as need asks
 * (everything unless s->lazy; with it, one budget of pieces at most).
 * session_idle_work runs one more unit of the pass: 0 when nothing was
 * left, 1 when more remain, 2 when it ran the last one.
 * session_compute_all finishes the pass. */
void session_update(Session *s, SesNeed need);
/* Is what a frame needs (need, as session_update takes it) computed? With
 * s->lazy a frame runs one budget of the pass at most, so after an edit a
 * stage deep in a big model waits for the idle calls: 0 until then (the
 * window shows that it is computing). 1 with an input error (the error is
 * what is shown). */
int session_stage_ready(const Session *s, SesNeed need);
/* The greedy targets of the current input are not made yet (the decoding
 * runs step by step between frames): 1, with the tokens made so far of the
 * sentence in flight and its longest output (both 0 before it starts). */
int session_decoding(const Session *s, int *done, int *max_out);
/* The pass over the current input is complete: 1, else 0; done and total
 * (may be NULL) count its units, for a progress mark. */
int session_pass_ready(const Session *s, int *done, int *total);
/* Is the shown pass teacher forcing of exactly this sentence: one sentence
 * (no padding), no experiment, source src[0..S) and decoder input <start> +
 * tgt[0..n)? 1 yes and complete, 0 yes and still being computed (between
 * frames), -1 no (the caller computes it itself). */
int session_teacher_forcing(const Session *s, const int *src, int S, const int *tgt, int n);
void session_compute_all(Session *s);
int session_idle_work(Session *s);

/* What the cost, scale and all-heads views show beyond the trace
 * (ses_measure.h), measured on first use and kept: the cost of a layer of
 * the model with the next lengths timed (within a frame's budget); the
 * random q·k at ses_dots_dk(i); every head's metrics of attention k in tr
 * (the trace or the normal pass beside an experiment), sentence b, kept
 * while the pass stays the same. NULL when out of memory. */
struct SesCost;
struct TfHeadMetrics;
const struct SesCost *session_cost(Session *s);
const float *session_dots(Session *s, int i);
const struct TfHeadMetrics *session_head_metrics(Session *s, const TfTrace *tr, TfAttnKind k, int b);

/* Navigation; each returns 1 when the position changed. */
StagePos session_pos(const Session *s);
int session_goto(Session *s, StageId st, int layer);
int session_step(Session *s, int delta);         /* Left/Right */
int session_change_layer(Session *s, int delta); /* [ and ] */
int session_toggle_side(Session *s);             /* Tab */
/* 0..n_heads-1, or -1 for all heads; returns 0 (and keeps the head) when
 * the model has no such head. */
int session_set_head(Session *s, int head);
/* Show sentence b of the batch (0..SES_MAX_SENT-1 while an edit's pass
 * has not begun: the pass keeps it inside the batch it makes; after it,
 * one of the sentences there are); 0 when b is out of range. */
int session_set_batch(Session *s, int b);
/* Compute only what is shown and the rest when idle (on: the window), or
 * everything at once (off, the default: headless use, the CLI). */
void session_set_lazy(Session *s, int on);

/* Set the experiment (none: the zero value). The pass is redone with it;
 * the normal pass is redone only when the input changed. */
void session_set_exp(Session *s, const TfExperiment *e);
int session_has_exp(const Session *s);
/* The normal pass in s->base is complete and belongs to the input shown
 * (not to the one before an edit): what compare mode may draw beside it. */
int session_base_ready(const Session *s);
/* The translation under the experiment is still being made (the status
 * line shows "…" for it): 1, else 0. */
int session_exp_pending(const Session *s);

/* A message for the learner (printf format). */
/* The notices and input errors below are written in the window's language:
 * the window sets session_tr to its gettext lookup (ui.h's _()); NULL, the
 * default (the CLI), keeps them English. */
extern const char *(*session_tr)(const char *msgid);
void session_msg(Session *s, int error, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));


/* The paced pass the labs share is ses_pass.h; what only the session's
 * files share is session_int.h. */

#endif
