/* decode_lab.h - the decode tab's computations, without the window: where
 * training and inference part ways on one sentence of the input.
 *
 *   teacher forcing  the decoder reads <bos> + the true target (or, with
 *                    none typed, the greedy output) in one pass; the
 *                    session's pass when it is exactly that one, else the
 *                    lab's own, a budget of pieces a call (SesPass)
 *   generation       greedy, every step's attention rows and top-k kept:
 *                    the session's own decode when it can be taken, else
 *                    the lab's (forced tokens, an experiment), a budget of
 *                    steps a call (TfDecoder)
 *   beam search      its tree of hypotheses and the tree's layout
 *   sampling         translations drawn with a temperature, top-k and
 *                    top-p (tf_translate's draws, step by step), and the
 *                    distribution of the next token after a prefix
 *   forcing          tokens the learner put at generation steps
 *
 * The window owns one DecodeLab and drives it with dlab_update: what the
 * tab shows (DlabInput: the sentence, the experiment, the inspected step,
 * whether the beam or the bars are wanted) and a budget (SES_BUDGET a frame,
 * SES_ALL headless, as the Session's lazy flag says). The lab reads the
 * Session it is given and never writes it. No SDL, no renderer: tests drive
 * a lab with a Session alone. */
#ifndef APP_DECODE_LAB_H
#define APP_DECODE_LAB_H

#include "decode_lab_state.h"
#include "session.h"

/* A lab with nothing computed yet (calloc'd; NULL out of memory), and its end. */
DecodeLab *dlab_new(void);
void dlab_free(DecodeLab *L);

/* Bring the results up to date with the session and what the tab shows,
 * running what work fits in may (SES_BUDGET: one budget of weight reads,
 * SES_ALL: everything; the window passes SES_ALL when s->lazy is off).
 * L->busy says whether work is left for the next call. */
void dlab_update(DecodeLab *L, const Session *s, const DlabInput *in, int may);

/* The tab's actions. Force token id at generation step s (replacing what
 * was forced there and later): generation is redone from there on the next
 * update; unforce takes every forced token back. dlab_draw draws a new
 * translation with in->sampling and the next seed, a budget a call like
 * the generation (all at once when s is not lazy): 0, or -1 with smp.err. */
void dlab_force(DecodeLab *L, int s, int id);
void dlab_unforce(DecodeLab *L);
int dlab_draw(DecodeLab *L, const Session *s, const DlabInput *in);

/* The decoder input of generation step s: <bos>, then its own outputs; -1
 * past the generated output. */
int dlab_gen_input(const DecodeLab *L, int s);

/* The generation and teacher forcing (the session's or the lab's), the
 * beam search, the draw. */
DlabProgress dlab_progress(const DecodeLab *L, const Session *s);
DlabProgress dlab_beam_progress(const DecodeLab *L);
DlabProgress dlab_draw_progress(const DecodeLab *L);

#endif
