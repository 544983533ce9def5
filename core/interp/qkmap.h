/* qkmap.h - one head's queries and keys in one plane (AttentionViz, Yeh et
 * al., VIS 2023), so that a whole head can be read at a glance: a query
 * lands near the keys it attends to.
 *
 * q_i and k_j are the head's slices of the query and key projections (what
 * its scores use). Then, as AttentionViz does:
 *   1. translate the keys so that their mean is the queries' mean (adding a
 *      vector to every key adds one constant to each row of scores: the
 *      softmax is unchanged);
 *   2. scale q by c and k by 1/c, c = sqrt(mean |k| / mean |q|) (over the
 *      translated keys), so both clouds have the same mean norm and every
 *      dot product is unchanged;
 *   3. PCA of the stacked rows [q; k], centred on their joint mean: the
 *      coordinates on the first two principal axes (unit vectors), and
 *      each axis's share of the variance (`explained`).
 * Each axis's sign is fixed so that its largest component is positive. */
#ifndef TF_QKMAP_H
#define TF_QKMAP_H

#include "err.h"
#include "experiment.h"
#include "trace.h"

typedef struct TfQkMap {
    int nq, nk;
    double *q;           /* (nq, 2) query coordinates */
    double *k;           /* (nk, 2) key coordinates */
    double explained[2]; /* shares of the variance on the two axes */
    double scale;        /* c */
} TfQkMap;

/* nq query rows (row stride qs) and nk key rows (stride ks) of dk values
 * each. out's arrays are malloc'd (tf_qkmap_free). 0, or -1 with err. */
int tf_qkmap(const float *q, int nq, int qs, const float *k, int nk, int ks, int dk, TfQkMap *out,
             TfErr *err);
void tf_qkmap_free(TfQkMap *m);

/* The rows a map is made of, from sentence b of a recorded trace: head
 * `head` of attention `kind` in `layer`, its real (non-pad) positions only.
 * Queries are written to q (dk floats a row) and their positions to qpos,
 * keys to k and kpos, after the *nq and *nk rows already there (both
 * counts grow; cap rows at most each). Keys of cross-attention are the
 * source positions (from the encoder output). 0, or -1 with err. */
int tf_qk_rows(const TfTrace *tr, TfAttnKind kind, int layer, int head, int b, float *q, int *qpos, int *nq,
               float *k, int *kpos, int *nk, int cap, TfErr *err);

/* The points of a map as they are gathered, sentence after sentence: for
 * the queries and for the keys, each one's row (dk floats), its position
 * in its sentence and its token id. The zero value is empty; the arrays
 * grow as sentences are added (tf_qk_points_free frees them). */
typedef struct TfQkSide {
    float *x;      /* (n, dk) the head's rows */
    int *pos, *tok; /* (n) */
    int n;
} TfQkSide;

typedef struct TfQkPoints {
    int dk, cap;
    TfQkSide q, k;
} TfQkPoints;

/* Add sentence b's points of head `head` of attention `kind` in `layer`
 * (tf_qk_rows) with their token ids: 0, or -1 with err. */
int tf_qk_points_add(TfQkPoints *p, const TfTrace *tr, TfAttnKind kind, int layer, int head, int b, TfErr *err);
void tf_qk_points_free(TfQkPoints *p);

#endif
