/* view_train_heads.c - the entropy of every probe head over training
 * (view_train.h, TvHeadHist). Early on every attention row is nearly
 * uniform, its entropy close to ln(keys); when a head learns a pattern
 * (the source word a target word comes from, the previous token) its
 * entropy drops, often suddenly: the head "snaps". Points come from the
 * probe whenever it runs, and from the run's kept snapshots, each run
 * once through the probe sentence on a model of this file's own. */
#include <math.h>
#include <string.h>

#include "headstats.h"
#include "view_train.h"

TfAttnKind tv_attn_kind(TvAttn a)
{
    return a == TV_ENC ? TF_ATTN_ENC : a == TV_DEC ? TF_ATTN_DEC : TF_ATTN_CROSS;
}

int tv_hh_heads(const TrainUi *u, TvAttn a)
{
    const TfConfig *c = &u->pm.cfg;
    int n = (a == TV_ENC ? c->n_enc : c->n_dec) * c->n_heads;
    return n < TV_HH_HEADS ? n : TV_HH_HEADS;
}

void tv_hh_free(TrainUi *u)
{
    TvHeadHist *h = &u->hh;
    if (h->have_m)
        model_free(&h->m);
    if (h->have_tr)
        trace_free(&h->tr);
    h->have_m = h->have_tr = 0;
}

/* A new run: an empty history. */
static void hh_reset(TrainUi *u)
{
    TvHeadHist *h = &u->hh;
    tv_hh_free(u);
    h->gen = u->pm_gen;
    h->n = 0;
    h->H_max = 0;
    h->hw = -1;
    h->ver++;
}

/* Record the heads of tr (the probe's teacher-forced pass) at step. */
static void hh_record(TrainUi *u, const TfTrace *tr, long long step)
{
    TvHeadHist *h = &u->hh;
    if (h->gen != u->pm_gen)
        hh_reset(u);
    int at = 0;
    while (at < h->n && h->step[at] < step)
        at++;
    if (at < h->n && h->step[at] == step)
        return; /* already there */
    if (h->n == TV_HH_CAP) { /* full: drop every other point after the first */
        int k = 1;
        for (int i = 2; i < h->n; i += 2, k++) {
            h->step[k] = h->step[i];
            memcpy(h->H[k], h->H[i], sizeof h->H[k]);
        }
        h->n = k;
        at = 0;
        while (at < h->n && h->step[at] < step)
            at++;
    }
    memmove(h->step + at + 1, h->step + at, (size_t)(h->n - at) * sizeof h->step[0]);
    memmove(h->H[at + 1], h->H[at], (size_t)(h->n - at) * sizeof h->H[0]);
    h->step[at] = step;
    h->n++;
    int NH = u->pm.cfg.n_heads;
    for (int a = 0; a < TV_ATTN_COUNT; a++) {
        int n = tv_hh_heads(u, (TvAttn)a);
        for (int k = 0; k < n; k++) {
            TfHeadMetrics m;
            TfErr err;
            h->H[at][a][k] = tf_head_metrics(tr, tv_attn_kind((TvAttn)a), k / NH, k % NH, 0, &m, &err)
                                 ? NAN
                                 : (float)m.entropy;
        }
    }
    int keys = u->pS > u->pref_n + 1 ? u->pS : u->pref_n + 1;
    h->H_max = keys > 1 ? logf((float)keys) : 1.0f;
    h->ver++;
}

void tv_hh_note(TrainUi *u)
{
    if (u->have_ptr && u->shown_step >= 0 && !u->probe_err[0])
        hh_record(u, &u->ptr, u->shown_step);
}

static int in_history(const TvHeadHist *h, long long step)
{
    for (int i = 0; i < h->n; i++)
        if (h->step[i] == step)
            return 1;
    return 0;
}

int tv_hh_pending(const TrainUi *u)
{
    const TvHeadHist *h = &u->hh;
    const TwStatus *st = &u->st;
    if (!u->w || !u->have_pm || u->pS < 1 || st->n_snap < 1)
        return 0;
    return h->gen != u->pm_gen || st->snaps[st->n_snap - 1].step > h->hw;
}

/* The model and trace the snapshots are run on, made on first use. */
static int hh_model(TrainUi *u, TfErr *err)
{
    TvHeadHist *h = &u->hh;
    if (!h->have_m) {
        if (tw_model_like(u->w, u->pm_gen, &h->m, err))
            return -1;
        h->have_m = 1;
    }
    if (!h->have_tr) {
        int T = h->m.cfg.max_len < 8 ? h->m.cfg.max_len : 8;
        if (trace_build(&h->tr, &h->m.cfg, 1, T, TRACE_RECORD, err))
            return -1;
        h->have_tr = 1;
    }
    return 0;
}

void tv_hh_fill(TrainUi *u, int budget)
{
    TvHeadHist *h = &u->hh;
    TfErr err;
    if (!u->w || !u->have_pm || u->pS < 1)
        return;
    if (h->gen != u->pm_gen)
        hh_reset(u);
    /* snapshots come in step order and thinning only drops some: those up
     * to the mark are done, even if the history has thinned them since */
    for (int i = 0; i < u->st.n_snap && budget > 0; i++) {
        long long step = u->st.snaps[i].step;
        if (step <= h->hw)
            continue;
        if (in_history(h, step)) {
            h->hw = step;
            continue;
        }
        if (hh_model(u, &err)) {
            h->hw = u->st.snaps[u->st.n_snap - 1].step; /* nothing to run them on: none waits */
            return;
        }
        long long got;
        float loss;
        h->hw = step; /* run now, or gone from the worker: either way done */
        if (tw_params(u->w, u->pm_gen, step, h->m.block, h->m.n_params, &got, &loss))
            continue;
        /* the probe's teacher-forced pass (its start token, its checks) */
        if (tf_teacher_forced(&h->m, &h->tr, u->psrc, u->pS, u->pref, u->pref_n, NULL, NULL, NULL, &err))
            return;
        hh_record(u, &h->tr, got);
        budget--;
    }
}
