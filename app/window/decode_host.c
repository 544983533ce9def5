/* decode_host.c - the window runs the decode tab's lab: before the decode
 * view draws (or takes a key, or is set up) the lab is brought up to date
 * with what the view shows, within the frame's budget, and its results go
 * into the DecShow the Scene carries (pointers into the lab's arrays, the
 * steps and the tree's nodes in the view's own plain types, the texts of
 * the translations); afterwards the view's wishes are applied to the lab.
 * The view never sees the lab, and the lab never sees the window. */
#include <stdlib.h>
#include <string.h>

#include "decode_host.h"
#include "text.h"

_Static_assert(DEC_CAP_T == DLAB_CAP_T, "the view and the lab handle the same lengths");
_Static_assert(DEC_SHOW_TOPK == DEC_TOPK, "the view shows the top-k the decoder keeps");
_Static_assert(DEC_SHOW_K == DLAB_SHOW_K && DEC_N_SAMPLES == DLAB_N_SAMPLES && DEC_MAX_BEAM == DLAB_MAX_BEAM,
               "the view's and the lab's sizes agree");

typedef struct DecHost {
    DecodeLab *lab;
    DecShow show;
    DecShowStep *steps;   /* (cap_steps) the generation's, as the view sees them */
    int cap_steps;
    DecNode *nodes;       /* (cap_nodes) the tree's, made for (nodes_beams, n_nodes) */
    int cap_nodes, n_nodes;
    unsigned nodes_beams;
    char gen_text[DEC_TEXT_MAX], beam_text[DEC_TEXT_MAX];
    unsigned text_computes, text_made; /* gen_text is of (computes, made, ids, n) */
    const int *text_ids;
    int text_n;
    char prog_text[DEC_TEXT_MAX], beam_prog_text[DEC_TEXT_MAX], draw_prog_text[DEC_TEXT_MAX];
} DecHost;

const DecShow *dhost_show(const App *a)
{
    return a->dec ? &a->dec->show : NULL;
}

DecodeLab *dhost_lab(const App *a)
{
    return a->dec ? a->dec->lab : NULL;
}

void dhost_free(App *a)
{
    DecHost *h = a->dec;
    if (!h)
        return;
    dlab_free(h->lab);
    free(h->steps);
    free(h->nodes);
    free(h);
    a->dec = NULL;
}

/* What the view shows, as the lab's input. */
static DlabInput input_of(const App *a, const Scene *sc)
{
    const DecodeUi *d = a->vstate[VIEW_DECODE];
    DlabInput in = {0};
    in.version = sc->version;
    in.batch = sc->batch;
    if (sc->base && sc->cmp != CMP_NORMAL) /* experiment or difference: the experiment's decoding */
        in.exp = a->ses.exp;
    in.sel = -1;
    in.sampling = (SampleOpts){1.0f, 0, 1.0f};
    if (!d || !d->ready)
        return in;
    in.sel = d->sel;
    in.want_beam = d->pane == DEC_PANE_BEAM;
    in.beam_k = d->beam_k;
    in.alpha = DEC_ALPHAS[d->alpha_i];
    in.want_bars = d->pane == DEC_PANE_SAMPLE;
    in.sampling = (SampleOpts){d->smp.temp, d->smp.top_k, d->smp.top_p};
    return in;
}

static int may_of(const App *a)
{
    return a->ses.lazy ? SES_BUDGET : SES_ALL;
}

/* Work in flight as the view sees it, its tokens as text in buf. */
static DecProgress progress_of(const TfModel *m, DlabProgress p, char *buf, size_t cap)
{
    buf[0] = 0;
    if (p.on && p.n > 0)
        tf_text_decode_to(m, p.ids, p.n, buf, cap);
    return (DecProgress){p.on, p.tf, p.done, p.total, buf};
}

/* The generation's steps in the view's type (growing the array only). */
static const DecShowStep *steps_of(DecHost *h, const DecodeResult *r)
{
    if (!r->steps || r->n < 1)
        return NULL;
    if (r->n > h->cap_steps) {
        DecShowStep *s = realloc(h->steps, (size_t)r->n * sizeof *s);
        if (!s)
            return NULL;
        h->steps = s;
        h->cap_steps = r->n;
    }
    for (int i = 0; i < r->n; i++) {
        const DecodeStep *st = &r->steps[i];
        h->steps[i] = (DecShowStep){st->token, st->forced, st->prob, st->top_id, st->top_p, st->self_w, st->cross_w};
    }
    return h->steps;
}

/* The tree's nodes in the view's type, made again only for a new tree. */
static const DecNode *nodes_of(DecHost *h, const DecodeLab *L, const TfModel *m)
{
    const BeamResult *b = &L->beam;
    if (!b->nodes || b->n_nodes < 1)
        return NULL;
    if (h->nodes_beams == L->beams && h->n_nodes == b->n_nodes)
        return h->nodes;
    if (b->n_nodes > h->cap_nodes) {
        DecNode *n = realloc(h->nodes, (size_t)b->n_nodes * sizeof *n);
        if (!n)
            return NULL;
        h->nodes = n;
        h->cap_nodes = b->n_nodes;
    }
    for (int i = 0; i < b->n_nodes; i++) {
        const BeamNode *nd = &b->nodes[i];
        h->nodes[i] = (DecNode){nd->parent, nd->token, nd->step, nd->logprob, nd->score, (DecNodeState)nd->state};
    }
    tf_text_decode_to(m, b->ids, b->n, h->beam_text, sizeof h->beam_text);
    h->nodes_beams = L->beams;
    h->n_nodes = b->n_nodes;
    return h->nodes;
}

/* The generation as text, made again only when it changed (a frame that
 * shows the same allocates nothing). */
static const char *gen_text_of(DecHost *h, const DecodeLab *L, const TfModel *m)
{
    if (h->text_computes == L->computes && h->text_made == L->made && h->text_ids == L->gen.ids &&
        h->text_n == L->gen.n)
        return h->gen_text;
    h->gen_text[0] = 0;
    if (L->gen.n > 0)
        tf_text_decode_to(m, L->gen.ids, L->gen.n, h->gen_text, sizeof h->gen_text);
    h->text_computes = L->computes;
    h->text_made = L->made;
    h->text_ids = L->gen.ids;
    h->text_n = L->gen.n;
    return h->gen_text;
}

static void fill_tf(DecShow *sh, const DecodeLab *L)
{
    sh->ref = L->ref;
    sh->tf_n = L->tf_n;
    sh->tf_right = L->tf_right;
    sh->tf_in = L->tf_in;
    sh->tf_pred = L->tf_pred;
    sh->tf_truth = L->tf_truth;
    sh->tf_loss = L->tf_loss;
    sh->tf_pred_p = L->tf_pred_p;
    sh->tf_mask = L->tf_mask;
    sh->tf_mean_loss = L->tf_mean_loss;
    sh->tf_smooth_loss = L->tf_smooth_loss;
    sh->tf_smooth_floor = L->tf_smooth_floor;
    sh->tf_eps = L->tf_eps;
}

static void fill_beam(DecHost *h, const DecodeLab *L, const TfModel *m)
{
    DecShow *sh = &h->show;
    sh->beams = L->beams;
    sh->beam_prog = progress_of(m, dlab_beam_progress(L), h->beam_prog_text, sizeof h->beam_prog_text);
    sh->beam_err = L->beam_err;
    sh->beam_k = L->beam_for_k;
    sh->beam_alpha = L->beam_for_alpha;
    sh->beam_n = L->beam.n;
    sh->beam_ids = L->beam.ids;
    sh->beam_logprob = L->beam.logprob;
    sh->beam_score = L->beam.score;
    sh->nodes = nodes_of(h, L, m);
    sh->beam_text = sh->nodes ? h->beam_text : "";
    sh->n_nodes = sh->nodes ? L->beam.n_nodes : 0;
    sh->best_node = L->beam.best_node;
    sh->node_col = L->node_col;
    sh->node_big = L->node_big;
    sh->node_small = L->node_small;
    sh->col_big = L->col_big;
    sh->col_small = L->col_small;
    sh->on_path = L->on_path;
    sh->n_cols = L->n_cols;
}

static void fill_sample(DecHost *h, const DecodeLab *L, const TfModel *m)
{
    DecShow *sh = &h->show;
    const DlabSample *p = &L->smp;
    sh->seed = p->seed;
    sh->smp_err = p->err;
    sh->draw_prog = progress_of(m, dlab_draw_progress(L), h->draw_prog_text, sizeof h->draw_prog_text);
    sh->n_samples = p->samples_version == L->version ? p->n_samples : 0; /* drawn for this input */
    sh->sample_ids = (const int(*)[DEC_CAP_T])p->sample_ids;
    sh->sample_n = p->sample_n;
    sh->sample_lp = p->sample_lp;
    sh->sample_seed = p->sample_seed;
    sh->bars_wait = p->bars_wait;
    sh->bars_at = p->logits_at;
    sh->n_set = p->n_set;
    sh->n_bars = p->n_bars;
    sh->bar_id = p->bar_id;
    sh->bar_p = p->bar_p;
    sh->bar_own = p->bar_own;
}

/* The lab's results as the view sees them. */
static void fill(App *a, const Scene *sc)
{
    DecHost *h = a->dec;
    const DecodeLab *L = h->lab;
    const Session *s = &a->ses;
    const TfModel *m = &s->model;
    DecShow *sh = &h->show;
    memset(sh, 0, sizeof *sh);
    sh->err = L->err;
    sh->S = L->S;
    sh->src = L->src;
    sh->max_out = L->max_out;
    sh->start_id = L->start_id;
    sh->eos_id = L->eos_id;
    sh->computes = L->computes;
    sh->made = L->made;
    sh->sel_first = L->sel_first;
    sh->sel_first_auto = L->sel_first_auto;
    sh->busy = L->busy;
    sh->prog = progress_of(m, dlab_progress(L, s), h->prog_text, sizeof h->prog_text);
    fill_tf(sh, L);
    sh->gen_n = L->gen.n;
    sh->gen_ids = L->gen.ids;
    sh->gen_logprob = L->gen.logprob;
    sh->steps = steps_of(h, &L->gen);
    sh->gen_text = gen_text_of(h, L, m);
    sh->diverge = L->diverge;
    sh->contrast = L->contrast;
    sh->n_forced = L->smp.force.n_force;
    fill_beam(h, L, m);
    fill_sample(h, L, m);
    if (sc->base) { /* the experiment the view decodes under, before and after */
        sh->exp = &s->exp;
        sh->translation = s->translation;
        sh->base_translation = s->ext.base_translation;
        sh->exp_pending = session_exp_pending(s);
    }
}

int dhost_before(App *a, const Scene *sc)
{
    if (!a->dec) {
        DecHost *h = calloc(1, sizeof *h);
        if (!h || !(h->lab = dlab_new())) {
            free(h);
            return -1;
        }
        a->dec = h;
    }
    DlabInput in = input_of(a, sc);
    if (a->dec_force.pending) { /* a lesson step's @force, for the input it shows */
        DecodeLab *L = a->dec->lab;
        dlab_unforce(L);
        if (a->dec_force.pending > 0) {
            dlab_force(L, a->dec_force.step, a->dec_force.id);
            L->smp.force_version = in.version;
            L->smp.force_batch = in.batch;
        }
        a->dec_force.pending = 0;
    }
    dlab_update(a->dec->lab, &a->ses, &in, may_of(a));
    fill(a, sc);
    return 0;
}

void dhost_after(App *a, const Scene *sc)
{
    DecodeUi *d = a->vstate[VIEW_DECODE];
    if (!a->dec || !d)
        return;
    DecodeLab *L = a->dec->lab;
    DecWish w = d->wish;
    memset(&d->wish, 0, sizeof d->wish);
    DlabInput in = input_of(a, sc);
    if (w.seed_delta) {
        int64_t seed = (int64_t)L->smp.seed + w.seed_delta;
        L->smp.seed = seed < 0 ? 0 : (uint64_t)seed;
    }
    if (w.force)
        dlab_force(L, w.force_step, w.force_id);
    if (w.unforce)
        dlab_unforce(L);
    if (w.draw)
        dlab_draw(L, &a->ses, &in);
    if (w.refresh)
        dlab_update(L, &a->ses, &in, may_of(a));
    fill(a, sc);
    if (L->busy || w.force || w.unforce) /* its next pieces (or the new results) in the next frame */
        a->wake_at = a->now;
}
