/* session_int.h - what session.c and session_exp.c share, no one else.
 * session.c runs the pass in units and decodes the greedy targets;
 * session_exp.c, with an experiment on, makes the normal pass and the
 * translation under the experiment in pieces after it. */
#ifndef APP_SESSION_INT_H
#define APP_SESSION_INT_H

#include "session.h"

/* How much decoding a call may do: one budget of steps (a frame or an idle
 * call of the window), or all (headless). */
enum { DEC_BUDGET, DEC_ALL };

/* What tf_dec_run may still read this call: the rest of the budget (never
 * 0, which would mean all), or everything. */
double ses_budget_left(int may, double spent);

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

#endif
