/* heads_qkdata.h - the Q/K map over a data set, for the window: the
 * queries and keys of one attention layer (every head of it) over the
 * pairs of a data set (heads_pairs.h: the model's held-out pairs or a
 * "source<TAB>reference" file), each pair teacher forced alone (<bos> +
 * reference), as `heads --qk-map --data` does. Gathered paced: qkd_run
 * runs as many pairs as fit in a budget, so a frame is never frozen; a
 * change of attention or layer gathers again, a change of head does not.
 * The passes are the model's own, without the window's experiment. */
#ifndef APP_HEADS_QKDATA_H
#define APP_HEADS_QKDATA_H

#include <stddef.h>

#include "heads_pairs.h"
#include "qkmap.h"

#define QKD_MAX_POINTS 200000 /* queries (and keys) of one head at most */

typedef enum QkdState { QKD_NONE, QKD_RUNNING, QKD_DONE, QKD_FAILED } QkdState;

/* One pair's points in every head's arrays (the same for every head). */
typedef struct QkdSent {
    int q0, nq, k0, nk; /* its first query and key, and how many */
    size_t w;           /* where its weights (nq x nk) start in a head's w */
    char *text;         /* "source → reference", for the hover */
} QkdSent;

typedef struct HlabQkData {
    QkdState state;
    const TfModel *m;
    const float *block;  /* m's weights when started (another model: start over) */
    HeadsPairs pairs;
    int kind, layer;     /* the attention gathered (TfAttnKind) */
    int next;            /* pairs gathered */
    int NH;
    TfQkPoints *pts;     /* (NH) every head's points, pair after pair */
    float **w;           /* (NH) every head's weights, pair after pair */
    size_t w_len, w_cap; /* floats in each w[h] */
    QkdSent *sent;       /* (pairs.n) */
    unsigned gen;        /* grows each time a gathering completes */
    TfTrace tr;
    int tr_built;
    char what[160];      /* "en2zh · 500" */
    char error[512];
} HlabQkData;

/* Load the pairs (file NULL: the model's data; max_pairs 0 all) and get
 * ready to gather; any earlier gathering is dropped. 0, or -1 with the
 * reason in error (state FAILED). */
int qkd_start(HlabQkData *d, const TfModel *m, const char *file, int max_pairs);
/* Gather attention (kind, layer) for about budget seconds (at least one
 * pair); another attention or layer than the last starts over. 1 while
 * more is left. */
int qkd_run(HlabQkData *d, int kind, int layer, double budget_s);
/* Drop everything (the zero value again). */
void qkd_free(HlabQkData *d);

#endif
