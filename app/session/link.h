/* link.h - the view links that classrooms share: the part of a page address
 * after '#' (or a scene code) that names one state of the window,
 *
 *   src=i%20love%20china&tgt=...&stage=enc.self.weights&layer=0&head=2
 *   &lang=zh&lesson=attention&step=3&view=heads&exp=no-scale,ablate:cross:1:3
 *
 * with the command line's meanings: layers, heads and source positions from
 * 0 (head -1: all heads), lesson steps from 1 as `--step`, `src` may hold up
 * to four sentences separated by '|'. exp lists experiments separated by
 * commas: no-scale, no-pe, no-causal, ablate:enc|dec|cross:L:H, hide:I,
 * no-residual, no-ffn:enc|dec:L.
 * Scene codes (scene_code.h) add the rest of what a teacher shows:
 *   model=en2zh (a bundled model) or model=NAME~SHA12 (a file, by the first
 *   12 hex digits of its SHA-256), batch=B (the sentence shown, from 0),
 *   pane=gen|step|beam|sample, beam=K, alpha=A, temp=T, topk=K, topp=P,
 *   seed=S (the Decode tab), cmp=diff|normal (what D shows of the
 *   experiment: the difference, or the model without it), rollout=1 (R).
 * Values are percent-encoded ('+' reads as a space). The browser build reads
 * its address with it; `stepformer --scene` can read the same text. Plain C,
 * no allocation: the fields live in the struct. */
#ifndef APP_LINK_H
#define APP_LINK_H

#include <stddef.h>

#include "config.h"
#include "err.h"
#include "experiment.h"

#define LINK_TEXT_MAX 1024
#define LINK_NAME_MAX 64
#define LINK_SPEC_MAX 32

/* which fields a link set (SceneLink.has) */
enum {
    LINK_SRC = 1 << 0,
    LINK_TGT = 1 << 1,
    LINK_STAGE = 1 << 2,
    LINK_LAYER = 1 << 3,
    LINK_HEAD = 1 << 4,
    LINK_LANG = 1 << 5,
    LINK_LESSON = 1 << 6,
    LINK_STEP = 1 << 7,
    LINK_VIEW = 1 << 8,
    LINK_EXP = 1 << 9,
    LINK_MODEL = 1 << 10,
    LINK_BATCH = 1 << 11,
    LINK_PANE = 1 << 12,
    LINK_BEAM = 1 << 13,
    LINK_ALPHA = 1 << 14,
    LINK_TEMP = 1 << 15,
    LINK_TOPK = 1 << 16,
    LINK_TOPP = 1 << 17,
    LINK_SEED = 1 << 18,
    LINK_CMP = 1 << 19,
    LINK_ROLLOUT = 1 << 20,
};
/* SceneLink.cmp */
enum { LINK_CMP_EXP = 0, LINK_CMP_NORMAL = 1, LINK_CMP_DIFF = 2 };

typedef struct SceneLink {
    unsigned has;                /* LINK_* bits */
    char src[LINK_TEXT_MAX];     /* decoded UTF-8; sentences separated by '|' */
    char tgt[LINK_TEXT_MAX];
    char stage[LINK_NAME_MAX];   /* a known stage name */
    int layer;                   /* from 0 */
    int head;                    /* from 0; -1 all heads */
    int lang;                    /* 0 en, 1 zh */
    char lesson[LINK_NAME_MAX];  /* a lesson id */
    int step;                    /* from 1 */
    char view[LINK_NAME_MAX];    /* a view name (checked by the window) */
    int no_scale, no_pe, no_causal;
    int n_ablate, n_hide;
    char ablate[TF_EXP_MAX_ABLATE][LINK_SPEC_MAX]; /* "cross:1:3" as --ablate takes it */
    int hide[TF_EXP_MAX_HIDE];   /* source positions, as --hide-src */
    char model[LINK_NAME_MAX + 16]; /* "en2zh", or "NAME~SHA12" for a file */
    int batch;                   /* the sentence shown, from 0 */
    char pane[8];                /* the Decode tab's pane: gen, step, beam, sample */
    int beam;                    /* beam size 1..8 */
    float alpha;                 /* length penalty 0..10 */
    float temp, top_p;           /* sampling: temperature (0.05..5), nucleus (0..1] */
    int top_k;                   /* sampling: 0 (off) or the k kept */
    int seed;                    /* sampling seed, 0.. */
    int no_residual;             /* exp: every sub-layer without its residual */
    int n_ffn;
    char ffn[TF_EXP_MAX_FFN][LINK_SPEC_MAX]; /* "enc:0" as --no-ffn takes it */
    int cmp;                     /* LINK_CMP_*: what D shows while an experiment is on */
    int rollout;                 /* R: attention rollout */
} SceneLink;

/* Read a fragment ("#" in front is skipped; empty is a link that sets
 * nothing) into l. Bad input (an unknown field or stage, a number out of
 * range, a broken %-escape, a value too long): -1 with one line in err that
 * names the field; l is then zeroed. */
int link_parse(const char *frag, SceneLink *l, TfErr *err);

/* The link's experiments as a TfExpSpec; the hidden positions are written
 * into pos, which must live as long as x. */
typedef char LinkPos[12];
void link_exp_spec(const SceneLink *l, TfExpSpec *x, LinkPos pos[TF_EXP_MAX_HIDE]);
/* The link's experiments as a TfExperiment for cfg (heads checked against the
 * model; S > 0 checks hidden positions against a source of S tokens). */
int link_experiment(const SceneLink *l, const TfConfig *cfg, int S, TfExperiment *e, TfErr *err);

/* The fields l sets, written as a fragment (no '#') that link_parse reads
 * back to the same link. Returns its length, or -1 when cap is too small. */
int link_format(const SceneLink *l, char *buf, size_t cap);

#endif
