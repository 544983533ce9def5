/* session_int.h - what the Session's own files share, and nothing outside
 * app/session includes: session.c runs the pass in units and decodes the
 * greedy targets; session_exp.c, with an experiment on, makes the normal
 * pass and the translation under the experiment in pieces after it;
 * session_keep.c keeps what was computed under a key so that nothing is
 * computed twice; session_pace.c says what the pieces cost and starts a
 * decoding a piece at a time. Each of them includes session.h first; this
 * header names the Session's types without including it. */
#ifndef APP_SESSION_INT_H
#define APP_SESSION_INT_H

#include <stdint.h>

#include "decode.h"
#include "experiment.h"

typedef struct Session Session;
typedef struct SesTargets SesTargets;
typedef struct SesExpKept SesExpKept;

/* Starting a decoding d of sentence i in s->scratch (its experiment set by
 * the caller) a piece at a time: the sentence's encoder a layer a piece
 * (*enc counts them, 0 before the first), unless the shown pass encoded
 * exactly it alone under the same experiment, then the start itself (the
 * cache's cross-attention K/V). ses_dec_begin returns 1 when d is started,
 * 0 when more pieces remain, -1 with err; ses_dec_begin_cost what its next
 * piece costs under experiment exp (session_pace.c). */
int ses_dec_begin(Session *s, TfDecoder *d, int i, const DecodeOpts *o, int keep, int *enc, TfErr *err);
double ses_dec_begin_cost(const Session *s, int i, const TfExperiment *exp, int enc);

/* ---- kept results (session_keep.c) ---- */

/* What sentence i's greedy target depends on: the model (a new one
 * rebuilds the walk) and the sentence's source ids; never 0. */
uint64_t ses_target_key(const Session *s, int i);
/* What the normal pass depends on: the model and the padded batch. */
uint64_t ses_input_key(const Session *s);

/* Sentence i's greedy target was kept for key: 1, else 0. keep stores n
 * ids under key; forget drops sentence i's (a decoding that failed). */
int ses_targets_has(const SesTargets *t, int i, uint64_t key);
void ses_targets_keep(SesTargets *t, int i, uint64_t key, const int *ids, int n);
void ses_targets_forget(SesTargets *t, int i);

/* The translation kept for (key, experiment e), or NULL; put keeps one in
 * place of the oldest. */
const char *ses_kept_find(const SesExpKept *k, uint64_t key, const TfExperiment *e);
void ses_kept_put(SesExpKept *k, uint64_t key, const TfExperiment *e, const char *text);

/* ---- with an experiment on (session_exp.c) ---- */

/* After the shown pass under an experiment: the pieces begin (the kept
 * normal pass and a kept translation are reused). */
void ses_exp_begin(Session *s);
/* Run pieces (all of them, or one budget): 0 when done, 1 when more
 * remain, -1 on error (input_error set). */
int ses_exp_extras(Session *s, int may);
/* Drop the pieces in flight. */
void ses_exp_cancel(Session *s);

#endif
