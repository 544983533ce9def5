/* decode_lab_beam.c - beam search in the decode lab, and the tree of
 * hypotheses laid out once per search.
 *
 * Greedy decoding keeps one hypothesis; beam search keeps the K most
 * probable partial translations alive (tensor2tensor's policy, the one the
 * paper used: core/decode/decoder.c). The search runs a few steps a call:
 * a base-size model takes tens of milliseconds a beam step, so a frame runs
 * steps while their weight reads stay within SES_DEC_FRAME_BYTES (at least
 * one), and the tree is there when it ends. The layout puts the nodes of a
 * step in a column, stacked under their parent's place (so edges do not
 * cross), kept and finished ones apart from the pruned, and marks the
 * winner's path; the tab only maps it to the screen. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode_lab.h"
#include "decode_lab_impl.h"
#include "sysmem.h"

/* words for the learner in the window's language (session_tr, session.h) */
#define _(s) (session_tr ? session_tr(s) : (s))

/* ---- layout, once per search ---- */

typedef struct Order {
    int parent_rank, index;
} Order;

static int cmp_order(const void *x, const void *y)
{
    const Order *a = x, *b = y;
    if (a->parent_rank != b->parent_rank)
        return a->parent_rank - b->parent_rank;
    return a->index - b->index;
}

static int grow(DecodeLab *L, int n, int cols)
{
    int bad = 0;
    if (n > L->cap_nodes) {
        L->node_col = tf_regrow(L->node_col, (size_t)n * sizeof *L->node_col, &bad);
        L->node_big = tf_regrow(L->node_big, (size_t)n * sizeof *L->node_big, &bad);
        L->node_small = tf_regrow(L->node_small, (size_t)n * sizeof *L->node_small, &bad);
        L->on_path = tf_regrow(L->on_path, (size_t)n, &bad);
        if (bad)
            return -1;
        L->cap_nodes = n;
    }
    if (cols > L->cap_cols) {
        L->col_big = tf_regrow(L->col_big, (size_t)cols * sizeof *L->col_big, &bad);
        L->col_small = tf_regrow(L->col_small, (size_t)cols * sizeof *L->col_small, &bad);
        if (bad)
            return -1;
        L->cap_cols = cols;
    }
    return 0;
}

void dlab_beam_free(DecodeLab *L)
{
    free(L->node_col);
    free(L->node_big);
    free(L->node_small);
    free(L->on_path);
    free(L->col_big);
    free(L->col_small);
    L->node_col = L->node_big = L->node_small = L->col_big = L->col_small = NULL;
    L->on_path = NULL;
    L->cap_nodes = L->cap_cols = L->n_cols = 0;
}

static int beam_layout(DecodeLab *L)
{
    const BeamResult *b = &L->beam;
    int n = b->n_nodes, cols = 1;
    for (int i = 0; i < n; i++)
        if (b->nodes[i].step + 2 > cols)
            cols = b->nodes[i].step + 2;
    L->n_cols = 0;
    if (n < 1 || grow(L, n, cols))
        return n < 1 ? 0 : -1;
    Order *ord = malloc((size_t)n * sizeof *ord);
    int *rank = malloc((size_t)n * sizeof *rank);
    if (!ord || !rank) {
        free(ord);
        free(rank);
        return -1;
    }
    memset(L->col_big, 0, (size_t)cols * sizeof(int));
    memset(L->col_small, 0, (size_t)cols * sizeof(int));
    memset(L->on_path, 0, (size_t)n);
    /* the search adds a step's nodes together, best first: each column is
     * a run of indices; order it by the parent's place, then by log P */
    for (int i = 0; i < n;) {
        int col = b->nodes[i].step + 1, k = i;
        while (k < n && b->nodes[k].step + 1 == col)
            k++;
        for (int j = i; j < k; j++)
            ord[j - i] = (Order){b->nodes[j].parent >= 0 ? rank[b->nodes[j].parent] : 0, j};
        qsort(ord, (size_t)(k - i), sizeof *ord, cmp_order);
        for (int j = 0; j < k - i; j++) {
            int id = ord[j].index;
            rank[id] = j;
            L->node_col[id] = col;
            L->node_big[id] = L->col_big[col];
            L->node_small[id] = L->col_small[col];
            if (b->nodes[id].state == BEAM_PRUNED)
                L->col_small[col]++;
            else
                L->col_big[col]++;
        }
        i = k;
    }
    for (int k = b->best_node; k >= 0; k = b->nodes[k].parent)
        L->on_path[k] = 1;
    L->n_cols = cols;
    free(ord);
    free(rank);
    return 0;
}

/* ---- the search, a few steps a call ---- */

void dlab_beam_stop(DecodeLab *L)
{
    if (L->beam_on)
        tf_dec_free(&L->bdec);
    L->beam_on = 0;
}

static int beam_start(const Session *s, DecodeLab *L, TfErr *err)
{
    dlab_beam_stop(L);
    DecodeOpts o;
    decode_opts_default(&o);
    o.beam = L->beam_for_k;
    o.alpha = L->beam_for_alpha;
    o.max_out = L->max_out;
    if (tf_dec_start(&L->bdec, &s->model, &L->btr, L->src, L->S, &o, 0, err))
        return -1;
    L->beam_on = 1;
    return 0;
}

int dlab_beam_wanted(const DecodeLab *L, const DlabInput *in)
{
    return L->beam_version != L->version || L->beam_batch != L->batch || L->beam_for_k != in->beam_k ||
           L->beam_for_alpha != in->alpha;
}

void dlab_beam_compute(const Session *s, DecodeLab *L, const DlabInput *in)
{
    TfErr err;
    L->beam_version = L->version;
    L->beam_batch = L->batch;
    L->beam_for_k = in->beam_k;
    L->beam_for_alpha = in->alpha;
    L->beam_err[0] = 0;
    L->beams++;
    dlab_beam_stop(L);
    beam_result_free(&L->beam);
    if (L->err[0] || L->S < 1)
        return;
    /* the beam's trace (1 sentence, nothing recorded; it grows to the beam)
     * is made the first time the tree is wanted: a model too big for it
     * still decodes */
    if (dlab_trace_for(&L->btr, &L->have_btr, &L->cfg, 1, 0, &err)) {
        snprintf(L->beam_err, sizeof L->beam_err, _("no room for beam search: %s"), err.msg);
        return;
    }
    if (beam_start(s, L, &err)) /* it runs a few steps a call */
        snprintf(L->beam_err, sizeof L->beam_err, "%s", err.msg);
}

void dlab_beam_advance(DecodeLab *L, int may)
{
    if (!L->beam_on)
        return;
    TfErr err;
    /* headless (shot): the whole search now */
    int rc = tf_dec_run(&L->bdec, may == SES_BUDGET ? SES_DEC_FRAME_BYTES : 0, &err);
    if (rc == 0) {
        L->busy = 1; /* the next steps in the next call */
        return;
    }
    DecodeResult r = {0};
    L->beam_on = 0;
    if (rc < 0) {
        tf_dec_free(&L->bdec);
    } else if (!tf_dec_finish(&L->bdec, &r, &L->beam, &err)) {
        decode_result_free(&r);
        if (beam_layout(L))
            snprintf(L->beam_err, sizeof L->beam_err, "out of memory for the tree of %d hypotheses",
                     L->beam.n_nodes);
        return;
    }
    snprintf(L->beam_err, sizeof L->beam_err, "%s", err.msg);
}

DlabProgress dlab_beam_progress(const DecodeLab *L)
{
    DlabProgress p = {0};
    if (!L->beam_on)
        return p;
    int n = L->bdec.n_alive > 0 ? L->bdec.t : 0; /* the best alive hypothesis so far */
    return (DlabProgress){1, 0, L->bdec.t, L->bdec.max_out, L->bdec.seq + 1, n};
}
