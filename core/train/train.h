/* train.h - teaching the Transformer: the backward pass, the loss, Adam with
 * the paper's warmup schedule, and a trainer that drives them step by step.
 *
 * The pieces, bottom up:
 *
 *   tf_backward   the gradient of the loss with respect to every parameter,
 *                 walked back through a trace recorded with
 *                 TRACE_RECORD | TRACE_TRAIN (backward.c). Activation
 *                 gradients live in a TfBackWork, parameter gradients in a
 *                 TfParams pointed into a block of params_size() floats, so
 *                 tied matrices share their gradient floats.
 *   loss_*        cross-entropy with label smoothing over the output
 *                 logits, <pad> positions ignored (loss.c).
 *   lr_*, adam_*  the learning-rate schedule of section 5.3 of the paper,
 *                 gradient-norm clipping and Adam (optim.c).
 *   Trainer       batches grouped by length, dropout, data-parallel shards,
 *                 one optimizer step per trainer_step, held-out evaluation,
 *                 checkpoints that resume bit-exactly (train.c, evaluate.c).
 *
 * Nothing here prints; progress is returned in structs and errors in TfErr.
 * A Trainer keeps all its state in the struct, so the GUI can own one in a
 * worker thread and call trainer_step repeatedly. While a Trainer exists,
 * OpenBLAS runs single-threaded (the trainer parallelises over shards
 * itself); trainer_free restores the previous setting. */
#ifndef TF_TRAIN_H
#define TF_TRAIN_H

#include <pthread.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>

#include "batch.h"
#include "checkpoint.h"
#include "model.h"
#include "tasks.h"
#include "trace.h"

/* ---------------------------------------------------------------------- */
/* The backward pass                                                       */
/* ---------------------------------------------------------------------- */

/* Gradients of the activations, for one batch capacity (like a trace). The
 * backward pass walks the layers from the top, so two (B, T, C) buffers for
 * the residual stream suffice whatever the depth. */
typedef struct TfBackWork {
    TfConfig cfg;
    int cap_B, cap_T;
    float *d_logits; /* (B, T, V) dLoss/dlogits, filled by loss_backward */
    float *d_a, *d_b; /* (B, T, C) residual-stream gradients, decoder side */
    float *d_ea;     /* (B, S, C) spare stream buffer, encoder side */
    float *d_mem;    /* (B, S, C) dLoss/dmemory, summed over decoder layers */
    float *d_out;    /* (B, T, C) gradient of a sub-layer's output */
    float *d_heads;  /* (B, T, C) gradient of the concatenated heads */
    float *d_qkv;    /* (B, T, 3C) gradient of packed Q|K|V (or Q alone) */
    float *d_kv;     /* (B, S, 2C) gradient of cross-attention K|V */
    float *d_hidden; /* (B, T, F) gradient of the FFN hidden layer */
    float *scratch;  /* (T, T) one head's score gradient */
    float *block;    /* the one allocation */
    size_t n_floats;
} TfBackWork;

int backwork_build(TfBackWork *w, const TfConfig *cfg, int cap_B, int cap_T,
                   TfErr *err);
void backwork_free(TfBackWork *w);

/* Accumulate (+=) into g the gradient of the loss whose dLoss/dlogits is in
 * w->d_logits, for the forward pass recorded in tr (which must have been
 * built with TRACE_RECORD; dropout masks are used when the pass applied
 * them). The caller zeroes g. */
int tf_backward(const TfModel *m, const TfTrace *tr, TfBackWork *w,
                TfParams *g, TfErr *err);

/* ---------------------------------------------------------------------- */
/* Loss: cross-entropy with label smoothing                               */
/* ---------------------------------------------------------------------- */

/* For a position whose true next token is y, the smoothed target
 * distribution q over the V tokens is
 *
 *     q(y) = 1 - eps,   q(<pad>) = 0,   q(k) = eps / (V - 2) for every other k
 *
 * (the other V - 2 tokens share eps equally; <pad> is never a target), and
 * the loss of the position is the cross-entropy H(q, p) = -sum_k q(k) log p(k)
 * with p = softmax(logits). With eps = 0 this is the usual -log p(y). With
 * eps > 0 even a perfect model keeps a loss of at least the entropy of q.
 * Positions whose target is <pad> (TOK_PAD) are ignored.
 *
 * loss_forward writes each position's loss to pos_loss (0 where ignored;
 * may be NULL) and returns the SUM over the scored positions; *n_scored
 * gets their count and *n_correct how many have argmax(logits) == y (both
 * may be NULL). probs must be softmax(logits), as the forward pass leaves
 * them: log p is taken from the logits, with log(sum exp) read off the
 * largest probability, so no exponential is computed twice. */
double loss_forward(float *pos_loss, const float *logits, const float *probs,
                    const int *target, int N, int V, float eps, int *n_scored,
                    int *n_correct);

/* dlogits += scale * (p - q) for every scored position (the gradient of
 * scale * loss); scale is 1 / (scored positions in the batch) for a mean. */
void loss_backward(float *dlogits, const float *probs, const int *target,
                   int N, int V, float eps, float scale);

/* ---------------------------------------------------------------------- */
/* Optimiser: schedule, clipping, Adam                                     */
/* ---------------------------------------------------------------------- */

/* lrate = scale * d_model^-0.5 * min(step^-0.5, step * warmup^-1.5)
 * (section 5.3): linear growth for the first `warmup` steps, peaking at
 * step == warmup with scale * (d_model * warmup)^-0.5, then decay as the
 * inverse square root of the step. step counts from 1; warmup >= 1. */
double lr_schedule(int d_model, int warmup, double scale, long long step);

/* sum of g^2 over n floats, accumulated in double (the squared norm). */
double grad_sumsq(const float *g, size_t n);

/* One Adam step over a flat block (the parameters, their gradients and the
 * two moment blocks all mirror each other):
 *     m = beta1 m + (1 - beta1) g          v = beta2 v + (1 - beta2) g^2
 *     p -= lr * (m / (1 - beta1^t)) / (sqrt(v / (1 - beta2^t)) + eps)
 * g is multiplied by gscale first (gradient clipping); t counts from 1. */
typedef struct AdamHyper {
    float beta1, beta2, eps;
} AdamHyper;
void adam_update(float *p, const float *g, float *m, float *v, size_t n,
                 const AdamHyper *h, float lr, float gscale, long long t);

/* ---------------------------------------------------------------------- */
/* The trainer                                                             */
/* ---------------------------------------------------------------------- */

/* The batch of every step is cut into this many shards, each with its own
 * trace and gradient block; shards run on up to this many threads and their
 * gradients are summed in a fixed order. Results therefore do not depend on
 * the number of threads. */
#define TRAIN_SHARDS 2

typedef struct TrainOpts {
    int batch;             /* sentences per step (32) */
    int warmup;            /* warmup steps of the schedule (4000, the paper) */
    float lr_scale;        /* multiplies the schedule (1) */
    float beta1, beta2, adam_eps; /* 0.9, 0.98, 1e-9 (the paper) */
    float clip;            /* max global gradient norm; 0 = no clipping (1) */
    float dropout;         /* P_drop (0.1) */
    float label_smoothing; /* epsilon_ls (0.1) */
    uint64_t seed;         /* data order and dropout (1) */
    int threads;           /* 1..TRAIN_SHARDS worker threads (2) */
} TrainOpts;

void train_opts_default(TrainOpts *o);
int train_opts_check(const TrainOpts *o, TfErr *err);

/* What one optimizer step did. */
typedef struct TrainStats {
    long long step;      /* steps taken, this one included */
    double loss;         /* mean smoothed loss per target token */
    double token_acc;    /* argmax == target on this batch (teacher forced) */
    double lr;           /* learning rate used */
    double grad_norm;    /* global gradient norm before clipping */
    int sentences, tokens; /* sentences and target tokens (scored positions) */
    int src_tokens;      /* real source tokens */
    double seconds;      /* wall time of the step */
    double tokens_per_s; /* target tokens / seconds */
    long long epoch;     /* pass over the training set this step belongs to */
} TrainStats;

/* One shard: its piece of the batch, trace, activation gradients and
 * parameter gradients. */
typedef struct TrainShard {
    TfTrace tr;
    TfBackWork w;
    float *grad;        /* params_size floats */
    TfParams g;         /* points into grad */
    PadBatch b;         /* its sentences of the step (batch.h) */
    int first;          /* index of its first sentence in the step's batch */
    double loss_sum;
    int n_scored, n_correct;
    int rc;
    TfErr err;
} TrainShard;

struct Trainer;
typedef void (*TrainJob)(struct Trainer *t, int part);

typedef struct Trainer {
    TfModel *m;            /* trained in place */
    const Dataset *data;
    TrainOpts o;
    long long step;        /* optimizer steps taken */
    float *moments;        /* 2 * n_params: Adam's m then v */
    float *adam_m, *adam_v;
    TrainShard sh[TRAIN_SHARDS];
    int cap_T;             /* longest source or decoder input */
    int *src_map, *tgt_map; /* data set ids -> model ids */
    int *order;            /* (n_train) pairs of the cached epoch, batched */
    int *batch_start;      /* (n_batches + 1) offsets into order */
    int n_batches;         /* batches per epoch */
    long long order_epoch; /* epoch held in order (-1: none) */
    double gsum[TRAIN_SHARDS]; /* per-part sums of squares */
    float lr, gscale;      /* of the step being taken: rate, clip factor */
    float loss_scale;      /* 1 / target tokens of the step's batch */
    /* the helper thread (threads == 2) */
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int has_thread, quit;
    unsigned long long job_gen, job_done;
    TrainJob job;
} Trainer;

/* Prepare to train m on d's training pairs. The data set's tokens must all
 * be in the model's vocabularies (a model made by trainer_model_new is).
 * Parameters are used as they are (fresh or loaded); Adam's moments start
 * at zero and the step count at 0 unless trainer_restore is called. */
int trainer_init(Trainer *t, TfModel *m, const Dataset *d, const TrainOpts *o,
                 TfErr *err);
void trainer_free(Trainer *t);

/* One optimizer step. On a NaN or infinite loss or gradient it returns -1
 * with a message and leaves the parameters, moments and step untouched. */
int trainer_step(Trainer *t, TrainStats *s, TfErr *err);

/* Continue from a checkpoint's optimizer state (moments and step). */
int trainer_restore(Trainer *t, const CkptOptim *opt, TfErr *err);

/* Save the model with its training facts in the metadata (train_step,
 * train_* options) and, when with_optimizer, Adam's moments, so that
 * training can resume exactly where it stopped. Atomic (ckpt_save_full). */
int trainer_save(Trainer *t, const char *path, int with_optimizer, TfErr *err);

/* Options as metadata strings (train_batch, train_warmup, ...) and back.
 * Floats are written with enough digits to read back bit-exactly. */
int train_opts_to_meta(const TrainOpts *o, TfModel *m);
int train_opts_from_meta(TrainOpts *o, const TfModel *m, TfErr *err);

/* A fresh model for a data set: cfg's architecture with the data set's
 * vocabularies (copied), max_len raised to fit the longest pair, and
 * parameters initialised from seed. */
int trainer_model_new(TfModel *m, const TfConfig *cfg, const Dataset *d,
                      uint64_t seed, TfErr *err);

/* The tying a new model for d gets unless told otherwise: TF_TIE_ALL when
 * the source and target vocabularies hold the same tokens in the same order
 * (one matrix then serves both embeddings and the output projection), else
 * TF_TIE_NONE. */
TfTie trainer_default_tie(const Dataset *d);

/* ---------------------------------------------------------------------- */
/* Evaluation on held-out pairs                                            */
/* ---------------------------------------------------------------------- */

#define EVAL_MAX_LEN 64 /* per-length figures for source lengths 1..this */

typedef struct EvalOpts {
    int max_pairs;   /* evaluate at most this many held-out pairs (0 = all) */
    int beam;        /* 1 = greedy, else beam size */
    float alpha;     /* beam length penalty (0.6) */
    float label_smoothing; /* for the loss figure */
    int threads;     /* 1..TRAIN_SHARDS */
    int batch;       /* teacher-forced pairs per pass (0 = 32) */
    int decode_pairs; /* decode only the first this many evaluated pairs
                        (0 = all, -1 = none) */
    int stop_at_ref; /* stop each decoding at its reference's length + 1:
                        exact match is the same (an output that has not
                        ended by then cannot be exact), BLEU is not */
    /* Optional: when *stop becomes non-zero (a signal handler's flag), the
     * evaluation ends after the current batch or sentence and returns -1
     * with "evaluation interrupted"; progress (may be NULL) is called now
     * and then from the calling thread with the pairs done of total. */
    const volatile sig_atomic_t *stop;
    void (*progress)(int done, int total, void *user);
    void *user;
} EvalOpts;

typedef struct EvalStats {
    int n;              /* pairs evaluated */
    int n_decoded;      /* of which decoded (exact, BLEU, len_*) */
    double loss;        /* teacher-forced smoothed loss per target token */
    double nll;         /* teacher-forced -log p(truth) per target token */
    double token_acc;   /* teacher-forced argmax == truth, <eos> included */
    double exact;       /* decoded output == reference, fraction */
    double bleu;        /* corpus BLEU-4 of the decoded outputs, 0..100 */
    int unk_src;        /* data set tokens unknown to the model's vocabulary */
    int len_n[EVAL_MAX_LEN + 1];     /* pairs by source length */
    int len_exact[EVAL_MAX_LEN + 1]; /* exact matches by source length */
} EvalStats;

void eval_opts_default(EvalOpts *o);

/* Evaluate m on the held-out pairs of d (pairs n_train .. n_pairs-1). Token
 * ids are mapped through the token strings, so any data set can be used;
 * source tokens the model does not know become <unk> and are counted. */
int tf_evaluate(const TfModel *m, const Dataset *d, const EvalOpts *o,
                EvalStats *s, TfErr *err);

/* The same for the trainer's model and data (its threads). */
int trainer_eval(Trainer *t, const EvalOpts *o, EvalStats *s, TfErr *err);

/* map[i] = the id in `to` of token i of `from` (specials map to
 * themselves), -1 when `to` lacks it; *n_missing counts those. Returns a
 * malloc'ed array of from->n ints, or NULL when out of memory. */
int *vocab_id_map(const Vocab *from, const Vocab *to, int *n_missing);

/* A data set of n_pairs random sequences over `vocab` tokens with fixed
 * source and target lengths (benchmarks and tests); a tenth is held out. */
int dataset_random(Dataset *d, int n_pairs, int vocab, int src_len,
                   int tgt_len, uint64_t seed, TfErr *err);

#endif
