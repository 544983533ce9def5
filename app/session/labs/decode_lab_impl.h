/* decode_lab_impl.h - what the decode lab's files share, for them only:
 * decode_lab.c (the results, teacher forcing) calls down into
 * decode_lab_beam.c (the search and its tree) and decode_lab_sample.c
 * (generation a budget a call, forcing, the draws and the bars); neither
 * calls back, and all three make their traces with decode_lab_trace.c. */
#ifndef APP_DECODE_LAB_IMPL_H
#define APP_DECODE_LAB_IMPL_H

#include "decode_lab_state.h"

/* ---- decode_lab_trace.c ---- */
/* A trace of B sentences (flags as trace_build takes them) for the model of
 * c, made small (it grows with the sentence, trace_reserve, never for
 * max_len) and made again only when the model's shape changes; *have says
 * whether tr holds one. 0, or -1 with err (then *have is 0). */
int dlab_trace_for(TfTrace *tr, int *have, const TfConfig *c, int B, int flags, TfErr *err);

/* ---- decode_lab_beam.c ---- */
/* The tree shown is not the one for in (another input, size or alpha). */
int dlab_beam_wanted(const DecodeLab *L, const DlabInput *in);
/* Begin the search for in (one in flight is cancelled; headless it runs
 * whole in dlab_beam_advance); run this call's steps; cancel it; free the
 * tree's layout. */
void dlab_beam_compute(const Session *s, DecodeLab *L, const DlabInput *in);
void dlab_beam_advance(DecodeLab *L, int may);
void dlab_beam_stop(DecodeLab *L);
void dlab_beam_free(DecodeLab *L);

/* ---- decode_lab_sample.c ---- */
/* The lab's own greedy generation of L->src (with the forced tokens when
 * they were made for this input, else they are dropped; or under the
 * experiment), step by step like the session's: start it (one in flight is
 * cancelled; L->pending set), run this call's steps (within
 * SES_DEC_FRAME_BYTES when may is SES_BUDGET): 1 when L->gen holds it
 * (steps kept), 0 more to come, -1 error; stop it. */
int dlab_gen_start(const Session *s, DecodeLab *L, TfErr *err);
int dlab_gen_advance(DecodeLab *L, int may, TfErr *err);
void dlab_gen_stop(DecodeLab *L);
/* This call's steps of the draw in flight. */
void dlab_draw_advance(DecodeLab *L, int may);
void dlab_sample_stop(DlabSample *m);
void dlab_sample_free(DlabSample *m);
/* The bars: the logits after in->sel's prefix (a pass over it, a budget a
 * call; smp.bars_wait while it runs) and the distribution in->sampling
 * makes of them. */
void dlab_bars(const Session *s, DecodeLab *L, const DlabInput *in, int may);

#endif
