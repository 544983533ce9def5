/* session_int.h - what session.c, session_exp.c and session_pace.c share,
 * no one else. session.c runs the pass in units and decodes the greedy
 * targets; session_exp.c, with an experiment on, makes the normal pass and
 * the translation under the experiment in pieces after it; session_pace.c
 * says what the pieces cost and starts a decoding a piece at a time. */
#ifndef APP_SESSION_INT_H
#define APP_SESSION_INT_H

#include "session.h"

/* How much decoding a call may do: one budget of steps (a frame or an idle
 * call of the window), or all (headless). */
enum { DEC_BUDGET, DEC_ALL };

/* What tf_dec_run may still read this call: the rest of the budget (never
 * 0, which would mean all), or everything. */
double ses_budget_left(int may, double spent);
/* May a piece costing cost run after spent this call? Always when not
 * budgeted or when it is the call's first piece. */
int ses_fits(int may, double spent, double cost);

/* What pieces of the pass cost, in weight-read bytes like a decoding step
 * (kv_step_bytes): an encoder layer over rows (B * S) positions, a
 * decoder layer over rows positions reading src_rows of memory, the output
 * projection over rows; ses_out_chunk the positions of one sentence a piece
 * of the output may take (about one decoding step's work, whole tiles of
 * 16). ses_out_piece runs the next piece of a trace's output: *done counts
 * the positions computed over its sentences (B * T when complete); what
 * it costs, ses_out_piece_cost. */
double ses_enc_layer_cost(const TfConfig *c, int rows);
double ses_dec_layer_cost(const TfConfig *c, int rows, int src_rows);
double ses_out_cost(const TfConfig *c, int rows);
int ses_out_chunk(const TfConfig *c);
double ses_out_piece_cost(const TfConfig *c, const TfTrace *tr, int done, int may);
void ses_out_piece(const TfModel *m, TfTrace *tr, int *done, int may);

/* Starting a decoding d of sentence i in s->scratch (its experiment set by
 * the caller) a piece at a time: the sentence's encoder a layer a piece
 * (*enc counts them, 0 before the first), unless the shown pass encoded
 * exactly it alone under the same experiment, then the start itself (the
 * cache's cross-attention K/V). ses_dec_begin returns 1 when d is started,
 * 0 when more pieces remain, -1 with err; ses_dec_begin_cost what its next
 * piece costs under experiment exp. */
int ses_dec_begin(Session *s, TfDecoder *d, int i, const DecodeOpts *o, int keep, int *enc, TfErr *err);
double ses_dec_begin_cost(const Session *s, int i, const TfExperiment *exp, int enc);

/* What sentence i's greedy target depends on: the model (a new one
 * rebuilds the walk) and the sentence's source ids; never 0. */
uint64_t ses_target_key(const Session *s, int i);

/* What the normal pass depends on: the model and the padded batch. */
uint64_t ses_input_key(const Session *s);

/* After the shown pass under an experiment: the pieces begin (the kept
 * normal pass and a kept translation are reused). */
void ses_exp_begin(Session *s);
/* Run pieces (all of them, or one budget): 0 when done, 1 when more
 * remain, -1 on error (input_error set). */
int ses_exp_extras(Session *s, int may);
/* Drop the pieces in flight. */
void ses_exp_cancel(Session *s);

/* FNV-1a over ints, from h (the keys of kept passes and translations). */
#define SES_FNV_SEED 1469598103934665603ull
static inline uint64_t ses_fnv_ints(uint64_t h, const int *a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint64_t)(unsigned)a[i]) * 1099511628211ull;
    return h;
}

#endif
