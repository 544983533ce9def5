/* ses_pass.h - a pass of the model computed a piece at a time, within a
 * budget per call: what the window's frames and idle calls may run
 * (SES_BUDGET) or everything at once (SES_ALL, headless), what each piece
 * costs in weight reads, and the pass itself (SesPass). The session's shown
 * pass and the labs (the decode lab's own teacher forcing, the train
 * probe's) run their pieces through these; the implementations are in
 * session_pace.c. No SDL, nothing of the Session. */
#ifndef APP_SES_PASS_H
#define APP_SES_PASS_H

#include "model.h"

/* A whole pass computed a piece at a time (ses_pass_run, below). */
typedef struct SesPass {
    TfBatch in;
    int unit, out_rows; /* the next piece; output positions done */
    int may;            /* SES_BUDGET: the output some rows a piece; SES_ALL: at once */
    unsigned pieces;    /* run since the start, and their cost (ses_fits's */
    double bytes;       /* bytes): tests count them per call */
} SesPass;

/* How much decoding a call may do: one budget of steps (a frame or an idle
 * call of the window), or all (headless). */
enum { SES_BUDGET, SES_ALL };

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

/* A whole pass (tf_forward without dropout) over a batch, computed a
 * piece at a time in a SesPass with the same bits: the source embeddings,
 * each encoder layer, the target embeddings, each decoder layer, then the
 * output some rows a piece. The batch's arrays must outlive the pass.
 * ses_pass_run runs the pieces that fit this call (may and *spent as
 * ses_fits counts them; at least one): 1 when the pass is complete, 0 when
 * more remain, -1 with err (a bad batch, found at the first piece). */
void ses_pass_start(SesPass *p, const TfBatch *in);
int ses_pass_run(const TfModel *m, TfTrace *tr, SesPass *p, int may, double *spent, TfErr *err);
int ses_pass_done(const TfModel *m, const SesPass *p);
/* units done of all (the output one unit, however many pieces): the progress mark */
void ses_pass_progress(const TfModel *m, const SesPass *p, int *done, int *total);
double ses_pass_piece_cost(const TfModel *m, const TfTrace *tr, const SesPass *p);
/* What unit u of such a pass costs over B sentences of S source and T
 * target positions, the output aside (it goes by pieces): a layer's
 * weight reads, 0 for an embedding lookup. */
double ses_unit_cost(const TfConfig *c, int u, int B, int S, int T);
int ses_pass_piece(const TfModel *m, TfTrace *tr, SesPass *p, TfErr *err);

#endif
