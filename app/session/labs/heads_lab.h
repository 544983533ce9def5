/* heads_lab.h - the window's heads lab: every computation the Heads,
 * Lens and Q/K map views and the rollout mode show, made here so that the
 * views only draw (no SDL).
 *
 *   importance  every head ablated over a data set (importance.h), paced:
 *               hlab_imp_run does as many ablations as fit in a budget, so
 *               a frame is never frozen; progress is pairs done of total
 *   lens        the top-k tokens of every decoder layer's lens at every
 *               position of one sentence, and the reference token's rank
 *   rollout     enc.rollout or dec.cross.rollout of one layer (rollout.h)
 *   qk map      one head's queries and keys in one plane (qkmap.h), with
 *               the head's weights for the lines to the top keys: of the
 *               sentence shown, or of it and a data set's pairs
 *               (heads_qkdata.h, gathered paced like importance)
 * Each cache is kept while what it was made of (a stamp of the pass, the
 * sentence, the layer, the head) stays the same. */
#ifndef APP_HEADS_LAB_H
#define APP_HEADS_LAB_H

#include <stdint.h>

#include "heads_pairs.h"
#include "heads_qkdata.h"
#include "importance.h"
#include "qkmap.h"

#define HLAB_LENS_K 3 /* tokens shown per position and layer */

typedef enum HlabImpState { HLAB_IMP_NONE, HLAB_IMP_RUNNING, HLAB_IMP_DONE, HLAB_IMP_FAILED } HlabImpState;

typedef struct HlabLens {
    int layers, T, k;  /* decoder layers, positions, tokens per cell */
    int *ids;          /* (layers, T, k) most probable first */
    float *p;          /* (layers, T, k) */
    int *ref_id;       /* (T) the reference token at t: the next decoder input, <eos> last */
    int *ref_rank;     /* (layers, T) its rank, from 1 */
    float *ref_p;      /* (layers, T) its probability */
} HlabLens;

typedef struct HlabQk {
    int kind, layer, head, b;
    TfQkMap map;       /* of all's points */
    TfQkPoints pts;    /* the sentence's points: positions in it, token ids */
    float *w;          /* (nq, nk) the head's weights between those points */
    /* the map's points: the sentence's alone, or first the sentence's, then
     * every pair of the data set (QkdSent ranges; sentence 0 the one shown) */
    int data;          /* a data set's pairs are in the map */
    int n_sent;
    QkdSent *sent;     /* (n_sent) the texts are the data set's (not owned) */
    TfQkPoints all;    /* data: the sentence's points, then the pairs' */
    float *wall;       /* data: every sentence's weights (sent[i].w into it) */
    int *qsent, *ksent; /* each point's sentence */
} HlabQk;

typedef struct HeadsLab {
    /* importance */
    HlabImpState imp_state;
    const TfModel *imp_model; /* the model measured */
    const float *imp_block;   /* ... its weights (another model at the same address starts over) */
    HeadsPairs pairs;
    TfImportance imp;
    int imp_begun;            /* pairs begun */
    TfHeadImportance *imp_res; /* (imp.n_heads) after the last pair done */
    double *imp_nll, *imp_acc; /* (imp.n_heads) the same as plain arrays */
    char imp_what[160];       /* "en2zh, 500 held-out pairs" */
    char imp_error[512];
    /* the caches */
    uint64_t lens_of[3];
    HlabLens lens;
    uint64_t roll_of[4];
    float *roll;
    int roll_rows, roll_cols;
    uint64_t qk_of[6];
    int qk_ok;
    HlabQk qk;
    char qk_error[512];
    /* the Q/K map over a data set: on, and what is gathered */
    int qkd_on;
    HlabQkData qkd;
} HeadsLab;

/* A lab with nothing measured or cached (NULL when out of memory), as
 * dlab_new; hlab_free frees it and all it holds (NULL: nothing). */
HeadsLab *hlab_new(void);
void hlab_free(HeadsLab *h);

/* Start measuring importance on m: task NULL and file NULL are the data
 * the model trained on (heads_pairs.h); max_pairs 0 all. A failure is
 * kept in imp_error (state FAILED) and returned as -1. */
int hlab_imp_start(HeadsLab *h, const TfModel *m, const char *task, const char *file, int max_pairs);
/* Run ablations for about budget seconds (at least one). Returns 1 while
 * more is left. */
int hlab_imp_run(HeadsLab *h, double budget_s);
/* Pairs done (every ablation of them) and in all. */
int hlab_imp_done(const HeadsLab *h);
/* Forget the importance (a model changed). */
void hlab_imp_reset(HeadsLab *h);

/* The lens of sentence b of tr (a recorded pass with its decoder), kept
 * for stamp; NULL when it cannot be made. */
const HlabLens *hlab_lens(HeadsLab *h, const TfModel *m, const TfTrace *tr, int b, uint64_t stamp);
/* enc.rollout (cross 0) or dec.cross.rollout (cross 1) of layer for
 * sentence b: rows x cols floats; NULL when it cannot be made. */
const float *hlab_rollout(HeadsLab *h, const TfTrace *tr, int cross, int layer, int b, uint64_t stamp, int *rows,
                          int *cols);
/* The map of head (kind, layer, head) for sentence b (with the data set's
 * pairs when they are gathered for that attention and layer); NULL with
 * qk_error set when it cannot be made. */
const HlabQk *hlab_qk(HeadsLab *h, const TfTrace *tr, TfAttnKind kind, int layer, int head, int b, uint64_t stamp);

/* The Q/K map over the pairs of a data set (file NULL: the model's data;
 * at most max_pairs), or (stop) over the sentence alone again. A failure
 * is kept in qkd.error (state FAILED) and returned as -1. */
int hlab_qkd_start(HeadsLab *h, const TfModel *m, const char *file, int max_pairs);
void hlab_qkd_stop(HeadsLab *h);
/* Gather the data set's points of attention (kind, layer) of m for about
 * budget seconds (another model than the one started on: stop). 1 while
 * more is left. */
int hlab_qkd_run(HeadsLab *h, const TfModel *m, int kind, int layer, double budget_s);

#endif
