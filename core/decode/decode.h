/* decode.h - turning a source sentence into a translation.
 *
 * Teacher forcing (training): the decoder input is <bos> + the true target,
 * all positions computed in one pass under the causal mask; the prediction
 * at each position is compared with the true next token.
 * Greedy (inference): one token at a time, each step feeding the decoder its
 * own earlier outputs; every step's attention rows and top-k probabilities
 * can be kept, so the GUI can show attention for each generated token.
 * Beam search keeps the K best partial translations and ranks finished ones
 * by log P(Y|X) / lp(Y) with the length penalty
 * lp(Y) = ((5 + |Y|) / 6)^alpha (Wu et al. 2016, used by the paper).
 * tf_translate is the one entry point for a translation, whichever the
 * method; tf_greedy and tf_beam also return what the window shows of it. */
#ifndef TF_DECODE_H
#define TF_DECODE_H

#include <stdint.h>

#include "decstep.h"
#include "model.h"
#include "sample.h"

#define DEC_TOPK 10
#define TF_MAX_BEAM 64 /* the largest beam tf_beam takes */

/* One generated token and what the model looked at to choose it. */
typedef struct DecodeStep {
    int token;                  /* chosen id */
    int forced;                 /* it was forced (DecodeOpts.force), not chosen */
    float prob;                 /* its probability */
    int top_id[DEC_TOPK];       /* the most probable tokens, best first */
    float top_p[DEC_TOPK];
    float *self_w;  /* (n_dec, NH, step+1) masked self-attention row */
    float *cross_w; /* (n_dec, NH, S) cross-attention row over the source */
} DecodeStep;

typedef struct DecodeResult {
    int n;            /* generated tokens, <eos> included when produced */
    int *ids;         /* (max_out) */
    double logprob;   /* sum of log-probabilities of the generated tokens */
    int S;            /* source length */
    DecodeStep *steps; /* (max_out) when kept, else NULL */
    float *pool;      /* storage of the steps' attention rows */
} DecodeResult;

void decode_result_free(DecodeResult *r);
/* A deep copy (the steps' attention rows too) of src, decoded by a model
 * of n_dec layers and n_heads heads; 0, or -1 out of memory. */
int decode_result_copy(DecodeResult *dst, const DecodeResult *src, int n_dec, int n_heads);

/* The longest output tried for a source of S tokens: S + 50 as in the
 * paper, capped by the model's max_len and the trace (which needs room for
 * <bos> + output). */
int decode_max_out(const TfModel *m, const TfTrace *tr, int S);

/* Greedy decoding of one sentence. tr needs TRACE_RECORD to keep steps.
 * Afterwards the trace holds the pass over <bos> + the output tokens (without
 * the final <eos>), i.e. exactly what `dump` shows with no target. */
int tf_greedy(const TfModel *m, TfTrace *tr, const int *src, int S,
              int max_out, int keep_steps, DecodeResult *out, TfErr *err);

/* Teacher forcing: decoder input <bos> (the model's start token) +
 * tgt[0..n), the pass training makes; the trace holds it. Writes, for each
 * of the n+1 positions, the argmax prediction, the true next token (tgt[i]
 * or <eos>) and -log p(true next token). Arrays hold n+1 entries, or are all
 * NULL (only the trace is wanted). */
int tf_teacher_forced(const TfModel *m, TfTrace *tr, const int *src, int S,
                      const int *tgt, int n, int *pred, int *truth,
                      float *loss, TfErr *err);
/* The same arrays read from a trace that holds that pass for one sentence
 * (tr->probs, n+1 positions): a window that computed it already. */
void tf_teacher_forced_read(const TfModel *m, const TfTrace *tr, const int *tgt, int n, int *pred,
                            int *truth, float *loss);

/* The tree of hypotheses beam search considered, for display. */
typedef enum BeamState { BEAM_PRUNED, BEAM_KEPT, BEAM_FINISHED } BeamState;
typedef struct BeamNode {
    int parent;       /* index of the parent node, -1 for the root (<bos>) */
    int token, step;  /* token added at this step (0-based) */
    double logprob;   /* cumulative log P of the prefix */
    double score;     /* logprob / lp(length) */
    BeamState state;
} BeamNode;

typedef struct BeamResult {
    int n, *ids;      /* best translation, <eos> included when produced */
    double logprob, score;
    BeamNode *nodes;
    int n_nodes, cap_nodes;
    int best_node;
} BeamResult;

void beam_result_free(BeamResult *r);
double beam_length_penalty(int len, float alpha);

/* Beam search with beam size K (1..TF_MAX_BEAM) and length penalty alpha.
 * K = 1 is exactly greedy decoding. */
int tf_beam(const TfModel *m, TfTrace *tr, const int *src, int S, int K,
            float alpha, int max_out, BeamResult *out, TfErr *err);

#define DEC_MAX_FORCE 64

/* A token put at an output step (from 0) whatever the model prefers;
 * generation goes on from the prefix it makes ("exposure bias": does the
 * model recover from a prefix it never saw?). */
typedef struct DecodeForce {
    int step, token;
} DecodeForce;

/* How to translate: greedy (beam 1), beam search, or sampling; forced
 * tokens go with greedy decoding and sampling (beam 1). */
typedef struct DecodeOpts {
    int beam;      /* 1 = greedy, else beam search with this many hypotheses
                      (at most the trace's cap_B) */
    float alpha;   /* beam search length penalty (0.6 in the paper) */
    int max_out;   /* longest output: 0 = decode_max_out(m, tr, S), never
                      more than that */
    int sample;    /* draw each token from sampling (sample.h) instead of
                      taking the most probable; <pad> and <bos> never drawn */
    SampleOpts sampling; /* temperature, top-k, top-p */
    uint64_t seed; /* the same seed draws the same translation */
    int n_force;
    DecodeForce force[DEC_MAX_FORCE];
    int recompute; /* run the whole prefix through the decoder at every step
                      (the slow reference) instead of the key/value cache */
    int ignore_eos; /* benchmarks: never end at <eos> (greedy takes it as a
                       token and goes on; beam search never proposes it), so
                       exactly max_out tokens are generated */
    int no_trace;   /* skip the final pass that leaves the trace as `dump`
                       shows it (a caller that needs only the tokens) */
} DecodeOpts;

/* beam 1, alpha 0.6, max_out 0, no sampling (T 1, top-k 0, top-p 1),
 * seed 0, nothing forced */
void decode_opts_default(DecodeOpts *o);

/* Parse "STEP:TOKEN" (step from 0, token an id of the target vocabulary
 * of V) into o->force: a one-line error names the value. */
int decode_add_force(DecodeOpts *o, const char *spec, int V, TfErr *err);

/* tf_greedy with sampling and forced tokens as o says (o->beam ignored);
 * the same incremental pass, and the same trace afterwards. */
int tf_generate(const TfModel *m, TfTrace *tr, const int *src, int S, int max_out,
                int keep_steps, const DecodeOpts *o, DecodeResult *out, TfErr *err);

/* Translate src[0..S) as o says: out gets the output ids (<eos> included
 * when produced) and their log-probability (under the model, T 1), no steps. Free it with
 * decode_result_free. Returns 0, or -1 with err set. */
int tf_translate(const TfModel *m, TfTrace *tr, const int *src, int S,
                 const DecodeOpts *o, DecodeResult *out, TfErr *err);

/* ---- a decoding that runs step by step (a window decodes between frames) ----
 *
 * tf_dec_start encodes the source and sets up the key/value cache (or, when
 * o->recompute is set or the experiment is no_causal, nothing: every step
 * then recomputes the prefix). Each tf_dec_step runs one decoder step: one
 * new token (greedy, sampling, forcing) or one step of every live beam
 * hypothesis (one pass of up to K rows). tf_dec_finish leaves the trace
 * holding the pass over <start> + the output (without a final <eos>), as
 * `dump` shows it, and hands over the result; tf_dec_free drops a decoding
 * at any point (an edit cancels it).
 *
 * Beam search (o->beam >= 2) follows tensor2tensor: the 2K best expansions
 * by log P; those ending in <eos> join the finished set (the K best by
 * log P / lp(|Y|), |Y| counting <eos>), the K best others stay alive; it
 * stops at max_out, or when the worst finished score beats the best alive
 * log P / lp(max_out); at max_out the unfinished compete on
 * log P / lp(max_out). Beam 1 is greedy decoding. */
typedef struct TfDecoder {
    const TfModel *m;
    TfTrace *tr;
    DecodeOpts o;
    int keep_steps, S, max_out, K, cached;
    int t;           /* steps done */
    int done;
    TfKvCache kv;
    int W;           /* max_out + 1: a prefix row's capacity */
    void *block;     /* the arrays below up to banned, in one allocation */
    int *seq, *seq2; /* (K, W) live prefixes, the start token first */
    int *rowtok, *parent, *alive_node;
    double *alive_lp;
    int n_alive;
    double *fin_score; /* (K) the finished set, best first */
    int *fin_node, n_fin;
    double *ls;        /* (beam) each row's log-softmax normaliser (logsumexp_rows) */
    void *cand;        /* (2K) the step's best expansions */
    float *probs;      /* (V) greedy: the step's distribution */
    DecodeResult res;  /* greedy: ids, log P and the kept steps */
    float *pool;       /* where the next kept step's rows go */
    BeamResult tree;   /* every hypothesis considered */
    Rng rng;
    float *scratch;      /* (V) sampling: the distribution drawn from */
    SampleCand *swork;   /* (V) sampling: top-k / top-p's candidates */
    unsigned char *banned;
} TfDecoder;

int tf_dec_start(TfDecoder *d, const TfModel *m, TfTrace *tr, const int *src, int S,
                 const DecodeOpts *o, int keep_steps, TfErr *err);
/* tf_dec_start with the source already encoded: memory (S, d_model) is the
 * encoder output of exactly src[0..S) alone (B = 1) under tr->exp, as
 * tf_encode makes it, so the result is the same bits. Either tr's own
 * tr->memory (the caller ran tf_encode_begin / tf_encode_layer on tr) or
 * another trace's (a window's pass over the same sentence), which is taken
 * only when the cache applies and o->no_trace is set (nothing else reads
 * tr then); otherwise, or with memory NULL, the source is encoded here. */
int tf_dec_start_from(TfDecoder *d, const TfModel *m, TfTrace *tr, const int *src, int S,
                      const DecodeOpts *o, int keep_steps, const float *memory, TfErr *err);
/* One step: 1 when the decoding is complete, 0 when there is more, -1 on
 * error (err set). */
int tf_dec_step(TfDecoder *d, TfErr *err);
/* Steps while their weight reads (kv_step_bytes a step: the decoder layers
 * and the output projection, whatever the rows) stay within budget bytes,
 * at least one; budget <= 0 runs them all. What a window runs in a frame.
 * Returns as tf_dec_step; d->t counts the steps done. */
int tf_dec_run(TfDecoder *d, double budget, TfErr *err);
/* Complete it (steps left run here), fill the trace, hand over the result
 * (steps kept when asked) and the tree (may be NULL), free the rest. */
int tf_dec_finish(TfDecoder *d, DecodeResult *out, BeamResult *tree, TfErr *err);
void tf_dec_free(TfDecoder *d);

/* The tokens sampling never draws (V flags, set to 1): padding and the
 * start token (<pad>, <bos>; MarianMT's <pad> is both). */
void decode_sample_banned(const TfConfig *c, unsigned char *banned);

/* The rules every decoding follows (decoder.c), the whole-sentence entry
 * points of decode.c included. */
int decode_check_src(const TfModel *m, const int *src, int S, int max_out, TfErr *err);
int decode_argmax(const float *p, int n);

#endif
