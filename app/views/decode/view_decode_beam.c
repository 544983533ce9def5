/* view_decode_beam.c - beam search as a tree of hypotheses.
 *
 * Greedy decoding keeps one hypothesis; beam search keeps the K most
 * probable partial translations alive. tensor2tensor's policy (the one the
 * paper used, core/decode/decoder.c): at each step the alive hypotheses are
 * expanded by every token and the 2K best by log P are drawn; those ending
 * in <eos> join the finished set, the K best finished by log P(Y|X) / lp(Y),
 * lp(Y) = ((5 + |Y|) / 6)^alpha (FINISHED: a plain sum of log-probabilities
 * favours short outputs); the K best others stay alive (KEPT); the rest of
 * the 2K, and a finished one pushed out of the set later, are PRUNED. A
 * finished hypothesis never takes an alive one's place, so the beam keeps K
 * alive until no alive one can beat the worst finished; at the longest
 * output the unfinished compete on the same score.
 *
 * The tree: x is the step, nodes of a step are stacked under their parent
 * (so edges do not cross), pruned candidates are small faded dots, kept
 * ones boxes with their cumulative log P, finished ones boxes with their
 * penalised score, and the winner's path from <bos> is highlighted. The
 * window's decode lab searches and lays the tree out once per search
 * (decode_lab_beam.c); drawing only maps its layout to the screen. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view_decode.h"

/* ---- drawing ---- */

typedef struct TreeGeo {
    Rect area;
    int x0, ncols;      /* first column shown, columns shown */
    int col_w, node_w;
    int big_h, small_h; /* slot heights */
    int two_lines;      /* kept boxes show log P under the token */
    int small_labels;   /* pruned dots get their token */
    int box_gap;        /* between kept boxes */
    int key_node;       /* the keyboard's node, -1 none */
} TreeGeo;

static int col_need(const DecShow *ds, int big_h, int small_h)
{
    int m = 0;
    for (int c = 0; c < ds->n_cols; c++) {
        int h = ds->col_big[c] * big_h + ds->col_small[c] * small_h;
        m = h > m ? h : m;
    }
    return m;
}

/* Slot heights that fit the tallest column: generous first, then pruned
 * dots squeezed, then one-line boxes, then everything scaled. */
static void fit_heights(ViewCtx *v, const DecodeUi *d, TreeGeo *G)
{
    const DecShow *ds = v->s->dec;
    Gfx *g = v->g;
    int lh = ren_font_height(g->ui), sh = ren_font_height(g->small);
    int H = G->area.h, gap = ui_px(g, 6);
    G->two_lines = 1;
    G->small_labels = 1;
    G->big_h = lh + sh + gap + ui_px(g, 4);
    G->small_h = sh + 2;
    if (col_need(v->s->dec, G->big_h, G->small_h) <= H)
        return;
    G->small_labels = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass)
            G->big_h = lh + gap;
        G->two_lines = !pass;
        int room = H, squeeze = 1 << 20;
        for (int c = 0; c < ds->n_cols; c++) {
            if (!ds->col_small[c])
                continue;
            int s = (room - ds->col_big[c] * G->big_h) / ds->col_small[c];
            squeeze = s < squeeze ? s : squeeze;
        }
        G->small_h = squeeze > ui_px(g, 7) ? ui_px(g, 7) : squeeze;
        if (G->small_h >= 2 && col_need(v->s->dec, G->big_h, G->small_h) <= H)
            return;
    }
    /* still too tall: shrink both */
    G->small_h = 2;
    int big_max = 0;
    for (int c = 0; c < ds->n_cols; c++)
        big_max = ds->col_big[c] > big_max ? ds->col_big[c] : big_max;
    int room = H - 2 * (col_need(v->s->dec, 0, 1));
    G->big_h = big_max ? room / big_max : G->big_h;
    if (G->big_h < 3)
        G->big_h = 3;
}

static void node_size(const TreeGeo *G, const DecNode *nd, int *w, int *h)
{
    if (nd->state == DEC_NODE_PRUNED) {
        *w = *h = G->small_h < 6 ? G->small_h : 6;
        if (*w < 2)
            *w = *h = 2;
    } else {
        *w = G->node_w;
        *h = G->big_h - G->box_gap;
    }
}

/* Centre of node i on screen (x may lie outside the area). */
static void node_pos(const DecShow *ds, const TreeGeo *G, int i, float *x, float *y)
{
    int col = ds->node_col[i];
    int colh = ds->col_big[col] * G->big_h + ds->col_small[col] * G->small_h;
    int top = G->area.y + (G->area.h - colh) / 2;
    int own = ds->nodes[i].state == DEC_NODE_PRUNED ? G->small_h : G->big_h;
    *y = top + ds->node_big[i] * G->big_h + ds->node_small[i] * G->small_h + own / 2.0f;
    *x = G->area.x + (col - G->x0 + 0.5f) * G->col_w;
}

/* The hypothesis ending at node i as text. */
static void hypothesis(const Scene *sc, int i, char *buf, size_t cap)
{
    const DecShow *ds = sc->dec;
    int ids[DEC_CAP_T + 2], n = 0;
    for (int k = i; k >= 0 && ds->nodes[k].parent >= 0 && n < DEC_CAP_T + 2; k = ds->nodes[k].parent)
        ids[n++] = ds->nodes[k].token;
    size_t at = 0;
    buf[0] = 0;
    for (int j = n - 1; j >= 0 && at + 1 < cap; j--) {
        int w = snprintf(buf + at, cap - at, "%s%s", j == n - 1 ? "" : " ", dec_tok(sc, ids[j]));
        if (w < 0)
            break;
        at += (size_t)w;
    }
}

static Color fade(Color c, int alpha)
{
    c.a = (uint8_t)alpha;
    return c;
}

static void draw_edges(ViewCtx *v, const DecodeUi *d, const TreeGeo *G, int path_pass)
{
    const DecShow *ds = v->s->dec;
    const Theme *th = v->th;
    float sc = v->g->scale;
    int x_lo = G->area.x - G->col_w, x_hi = G->area.x + G->area.w + G->col_w;
    for (int i = 0; i < ds->n_nodes; i++) {
        const DecNode *nd = &ds->nodes[i];
        if (nd->parent < 0 || ds->on_path[i] != path_pass)
            continue;
        float x, y, px, py;
        node_pos(v->s->dec, G, i, &x, &y);
        node_pos(v->s->dec, G, nd->parent, &px, &py);
        if (x < x_lo || px > x_hi)
            continue;
        int w, h, pw, ph;
        node_size(G, nd, &w, &h);
        node_size(G, &ds->nodes[nd->parent], &pw, &ph);
        Color c = path_pass ? th->select
                  : nd->state == DEC_NODE_PRUNED ? fade(th->dim, 70) : fade(th->text, 150);
        float width = path_pass ? 3.0f * sc : nd->state == DEC_NODE_PRUNED ? 1.0f : 1.5f * sc;
        ren_line(v->r, px + pw / 2.0f, py, x - w / 2.0f, y, width, c);
    }
}

static void draw_node(ViewCtx *v, const DecodeUi *d, const TreeGeo *G, int i)
{
    const DecShow *ds = v->s->dec;
    const Scene *sc = v->s;
    const Theme *th = v->th;
    Gfx *g = v->g;
    const DecNode *nd = &ds->nodes[i];
    float cx, cy;
    node_pos(v->s->dec, G, i, &cx, &cy);
    int w, h;
    node_size(G, nd, &w, &h);
    Rect r = {(int)lroundf(cx - w / 2.0f), (int)lroundf(cy - h / 2.0f), w, h};
    if (r.x + r.w < G->area.x || r.x > G->area.x + G->area.w)
        return;
    int path = ds->on_path[i], win = i == ds->best_node;
    char num[32];
    if (nd->state == DEC_NODE_PRUNED) {
        ren_rect(v->r, r, fade(th->dim, 110));
        if (G->small_labels)
            ui_text_fit(v->r, g->small, dec_tok(sc, nd->token), r.x + r.w + 3,
                        (int)cy - ren_font_height(g->small) / 2, G->col_w - G->node_w / 2 - 6,
                        fade(th->dim, 150));
    } else {
        ren_rect(v->r, r, nd->parent < 0 ? th->panel : th->panel2);
        Color bc = win ? th->select : nd->state == DEC_NODE_FINISHED ? th->good : path ? th->select : th->border;
        ren_rect_line(v->r, r, win || nd->state == DEC_NODE_FINISHED ? 2 : path ? 2 : 1, bc);
        int lh = ren_font_height(g->ui), sh = ren_font_height(g->small);
        if (h < lh && h >= sh - 2) /* short boxes: the token in the small font */
            ui_text_center(v->r, g->small, dec_tok(sc, nd->token), r, path ? th->select : th->text);
        if (h >= lh) {
            int ty = G->two_lines ? r.y + (r.h - lh - sh) / 2 : r.y + (r.h - lh) / 2;
            Rect tr = {r.x, ty, r.w, lh};
            ui_text_center(v->r, g->ui, dec_tok(sc, nd->token), tr, path ? th->select : th->text);
            if (G->two_lines && nd->parent >= 0) {
                snprintf(num, sizeof num, "%.2f", nd->state == DEC_NODE_FINISHED ? nd->score : nd->logprob);
                ui_text_center(v->r, g->small, num, (Rect){r.x, ty + lh, r.w, sh},
                               nd->state == DEC_NODE_FINISHED ? th->good : th->dim);
            }
        }
    }
    Rect hit = {r.x - 2, r.y - 2, r.w + 4, r.h + 4};
    if (i == G->key_node)
        view_key_outline(v, r);
    if ((i == G->key_node || ui_over(v->in, hit)) && nd->parent >= 0) {
        char hyp[900];
        hypothesis(sc, i, hyp, sizeof hyp);
        static const char *state[] = {N_("pruned"), N_("kept"), N_("finished")};
        ui_hover_own(v, (float)nd->score, _("step %d, %s: «%s»  log P = %.3f, score log P / lp"), nd->step + 1,
                  _(state[nd->state]), hyp, nd->logprob);
        ren_rect_line(v->r, hit, 1, th->select);
    }
}

static void draw_tree(ViewCtx *v, DecodeUi *d, Rect rc)
{
    const DecShow *ds = v->s->dec;
    const Scene *sc = v->s;
    const Theme *th = v->th;
    Gfx *g = v->g;
    if (ds->n_cols < 1 || rc.h < 30)
        return;
    int sh = ren_font_height(g->small);
    TreeGeo G;
    memset(&G, 0, sizeof G);
    /* node boxes as wide as the widest kept token or number */
    int tw = ren_text_width(g->small, "-00.00");
    for (int i = 0; i < ds->n_nodes; i++)
        if (ds->nodes[i].state != DEC_NODE_PRUNED) {
            int w = ren_text_width(g->ui, dec_tok(sc, ds->nodes[i].token));
            tw = w > tw ? w : tw;
        }
    G.node_w = tw + ui_px(g, 12);
    int min_col = G.node_w + ui_px(g, 26);
    Rect head = {rc.x, rc.y, rc.w, sh + 4};
    G.area = (Rect){rc.x, rc.y + head.h, rc.w, rc.h - head.h - sh - 6};
    G.ncols = G.area.w / min_col;
    if (G.ncols < 1)
        G.ncols = 1;
    if (G.ncols >= ds->n_cols) {
        G.ncols = ds->n_cols;
        G.col_w = G.area.w / ds->n_cols;
        if (G.col_w > G.node_w + ui_px(g, 90))
            G.col_w = G.node_w + ui_px(g, 90);
    } else {
        G.col_w = G.area.w / G.ncols;
    }
    if (ui_over(v->in, rc) && v->in->wheel)
        d->beam_x0 -= v->in->wheel;
    /* the keyboard's node, when the mouse is not over the tree: column a
     * step, row its place from the top of that step's column (the last
     * one when the column is shorter); the steps shown follow it */
    int rows = 0, kr, kc;
    for (int c = 0; c < ds->n_cols; c++)
        rows = ds->col_big[c] + ds->col_small[c] > rows ? ds->col_big[c] + ds->col_small[c] : rows;
    G.key_node = -1;
    if (view_key_cell(v, rows, ds->n_cols, &kr, &kc) && !ui_over(v->in, rc)) {
        int n = ds->col_big[kc] + ds->col_small[kc], slot = kr < n ? kr : n - 1;
        for (int i = 0; i < ds->n_nodes; i++)
            if (ds->node_col[i] == kc && ds->node_big[i] + ds->node_small[i] == slot)
                G.key_node = i;
        if (kc < d->beam_x0)
            d->beam_x0 = kc;
        if (kc >= d->beam_x0 + G.ncols)
            d->beam_x0 = kc - G.ncols + 1;
    }
    if (d->beam_x0 > ds->n_cols - G.ncols)
        d->beam_x0 = ds->n_cols - G.ncols;
    if (d->beam_x0 < 0)
        d->beam_x0 = 0;
    G.x0 = d->beam_x0;
    fit_heights(v, d, &G);
    /* boxes apart, closer when a tight slot would lose its token (draw_node) */
    G.box_gap = G.big_h > 8 ? 4 : 1;
    if (G.big_h - G.box_gap < sh - 2 && G.big_h - 1 >= sh - 2)
        G.box_gap = 1;
    /* step numbers over the columns */
    char buf[96];
    for (int c = G.x0; c < G.x0 + G.ncols && c < ds->n_cols; c++) {
        if (c == 0)
            snprintf(buf, sizeof buf, "%s", _("start"));
        else
            snprintf(buf, sizeof buf, _("step %d"), c);
        Rect cr = {G.area.x + (c - G.x0) * G.col_w, head.y, G.col_w, head.h};
        ui_text_center(v->r, g->small, buf, cr, th->dim);
    }
    ren_clip_push(v->r, G.area);
    draw_edges(v, d, &G, 0);
    draw_edges(v, d, &G, 1);
    for (int i = 0; i < ds->n_nodes; i++)
        if (ds->nodes[i].state == DEC_NODE_PRUNED)
            draw_node(v, d, &G, i);
    for (int i = 0; i < ds->n_nodes; i++)
        if (ds->nodes[i].state != DEC_NODE_PRUNED)
            draw_node(v, d, &G, i);
    ren_clip_pop(v->r);
    if (G.ncols < ds->n_cols) {
        snprintf(buf, sizeof buf, _("steps %d–%d of %d: the wheel scrolls"), G.x0 == 0 ? 1 : G.x0,
                 G.x0 + G.ncols - 1, ds->n_cols - 1);
        ren_text(v->r, g->small, buf, rc.x, rc.y + rc.h - sh, th->dim);
    }
}

/* A paragraph, or (draw 0) only its height; (one_line) on one line, in
 * the shorter wording brief (when there is one) if s does not fit. */
static int para(ViewCtx *v, RenFont *f, const char *s, const char *brief, Rect rc, int y, Color c, int draw,
                int one_line)
{
    if (one_line) {
        const char *alts[2] = {s, brief ? brief : s};
        if (draw)
            ui_text_alt(v->r, f, alts, 2, rc.x, y, rc.w, c);
        return ren_font_height(f);
    }
    if (!draw)
        return ren_text_wrap(f, s, rc.w, NULL, 0) * ren_font_height(f);
    return ui_paragraph(v->r, f, s, rc.x, y, rc.w, c);
}

/* The policy in one sentence, and whether the winner finished. */
static int beam_policy_line(ViewCtx *v, const DecodeUi *d, Rect rc, int y, int draw, int compact)
{
    const DecShow *ds = v->s->dec;
    if (ds->beam_k < 2 || ds->best_node < 0)
        return 0;
    int unfinished = ds->nodes[ds->best_node].state != DEC_NODE_FINISHED;
    const char *line =
        unfinished ? _("Each step draws the 2K best expansions: those ending in <eos> join the K best "
                       "finished, the K best others stay alive, the rest are pruned. No finished "
                       "hypothesis scored higher than this unfinished one at the longest output.")
                   : _("Each step draws the 2K best expansions: those ending in <eos> join the K best "
                       "finished, the K best others stay alive, the rest are pruned.");
    return para(v, compact ? v->g->small : v->g->ui, line, NULL, rc, y, v->th->dim, draw, 0) + 2;
}

/* What won, its score worked out, and how it compares with greedy; compact
 * keeps every part to one line, compact 2 the winner's line alone. Returns
 * the height (draw 0: measure). */
static int draw_summary(ViewCtx *v, const DecodeUi *d, Rect rc, int draw, int compact)
{
    const DecShow *ds = v->s->dec;
    const Scene *sc = v->s;
    const Theme *th = v->th;
    Gfx *g = v->g;
    int y = rc.y;
    char text[DEC_TEXT_MAX], line[DEC_TEXT_MAX + 200], brief[DEC_TEXT_MAX + 100];
    snprintf(text, sizeof text, "%s", ds->beam_text);
    int ended = ds->beam_n > 0 && ds->beam_ids[ds->beam_n - 1] == cfg_eos_id(&sc->model->cfg);
    snprintf(line, sizeof line, _("Winner (beam %d, α %g):  %s%s"), ds->beam_k, ds->beam_alpha,
             text, ended ? "  <eos>" : "");
    snprintf(brief, sizeof brief, _("Winner:  %s"), text);
    y += para(v, g->ui, line, brief, rc, y, th->select, draw, 1) + 2;
    if (compact > 1)
        return y - rc.y + ren_font_height(g->small) / 2;
    /* the paper's length penalty, worked out */
    double lp = pow((5.0 + ds->beam_n) / 6.0, ds->beam_alpha); /* the search's lp(Y) */
    snprintf(line, sizeof line, "score = log P / ((5 + |Y|) / 6)^α = %.3f / ((5 + %d) / 6)^%g = %.3f / %.3f = %.3f",
             ds->beam_logprob, ds->beam_n, ds->beam_alpha, ds->beam_logprob, lp, ds->beam_score);
    y += para(v, compact ? g->small : g->mono, line, NULL, rc, y, th->text, draw, 0) + 2;
    y += beam_policy_line(v, d, rc, y, draw, compact);
    /* greedy beside it: beam size 1 must be exactly greedy */
    int same = ds->beam_n == ds->gen_n && memcmp(ds->beam_ids, ds->gen_ids, (size_t)ds->beam_n * sizeof(int)) == 0;
    if (ds->beam_k == 1) {
        snprintf(brief, sizeof brief, same ? _("Beam size 1 is greedy decoding: the same ✓ (log P %.3f).")
                                           : _("Beam size 1 is greedy decoding, yet DIFFERENT ✗ (log P %.3f)."),
                 ds->gen_logprob);
        snprintf(line, sizeof line,
                 same ? _("Beam size 1 keeps only the best token at each step: that is greedy decoding, and "
                          "the output is the same ✓ (log P %.3f).")
                      : _("Beam size 1 keeps only the best token at each step: that is greedy decoding, but "
                          "the output is DIFFERENT ✗ from greedy (log P %.3f)."),
                 ds->gen_logprob);
    } else if (same) {
        snprintf(line, sizeof line, _("Greedy decoding gives the same translation (log P %.3f)."),
                 ds->gen_logprob);
        snprintf(brief, sizeof brief, _("Greedy decoding: the same (log P %.3f)."), ds->gen_logprob);
    } else {
        snprintf(text, sizeof text, "%s", ds->gen_text);
        snprintf(line, sizeof line,
                 ds->beam_logprob > ds->gen_logprob + 1e-9
                     ? _("Beam search found a more probable translation than greedy (greedy «%s», log P %.3f).")
                     : _("The length penalty prefers the beam's translation (greedy «%s», log P %.3f)."),
                 text, ds->gen_logprob);
        snprintf(brief, sizeof brief, _("Greedy decoding: «%s» (log P %.3f)."), text, ds->gen_logprob);
    }
    y += para(v, g->small, line, brief, rc, y, same || ds->beam_k > 1 ? th->dim : th->bad, draw, compact);
    if (!ended) {
        snprintf(line, sizeof line,
                 _("No hypothesis produced <eos> within %d tokens: the search stopped at the maximum "
                   "length and ranked what it had."), ds->max_out);
        snprintf(brief, sizeof brief, _("No <eos> within %d tokens: stopped at the maximum length."), ds->max_out);
        y += para(v, g->small, line, brief, rc, y, th->warn, draw, compact);
    }
    return y - rc.y + ren_font_height(g->small) / 2;
}

/* The legend: what boxes, dots and the bright path mean. */
static int draw_legend(ViewCtx *v, Rect rc, int draw)
{
    const Theme *th = v->th;
    Gfx *g = v->g;
    int sh = ren_font_height(g->small), x = rc.x, y = rc.y;
    int box = sh - 2;
    struct { const char *label; int kind; } items[] = {
        {_("kept: cumulative log P"), 0}, {_("finished: penalised score"), 1},
        {_("pruned"), 2}, {_("the winner's path"), 3}};
    for (int i = 0; i < 4; i++) {
        int w = box + 6 + ren_text_width(g->small, items[i].label) + ui_px(g, 18);
        if (x + w > rc.x + rc.w && x > rc.x) {
            x = rc.x;
            y += sh + 4;
        }
        Rect r = {x, y + 1, box, box};
        x += w;
        if (!draw)
            continue;
        switch (items[i].kind) {
        case 0: ren_rect(v->r, r, th->panel2); ren_rect_line(v->r, r, 1, th->border); break;
        case 1: ren_rect(v->r, r, th->panel2); ren_rect_line(v->r, r, 2, th->good); break;
        case 2: ren_rect(v->r, (Rect){r.x + box / 2 - 2, y + box / 2 - 1, 5, 5}, fade(th->dim, 110)); break;
        default: ren_rect(v->r, (Rect){r.x, y + box / 2, box, 3}, th->select); break;
        }
        ren_text(v->r, g->small, items[i].label, r.x + box + 6, y, th->dim);
    }
    return y + sh + 4 - rc.y;
}

/* The tree needs its kept nodes one line high at least. */
static int tree_min_height(ViewCtx *v, const DecodeUi *d)
{
    const DecShow *ds = v->s->dec;
    int big = 0;
    for (int c = 0; c < ds->n_cols; c++)
        big = ds->col_big[c] > big ? ds->col_big[c] : big;
    int sh = ren_font_height(v->g->small);
    return big * (ren_font_height(v->g->ui) + ui_px(v->g, 6)) + 2 * sh + ui_px(v->g, 16);
}

void dec_beam_draw(ViewCtx *v, DecodeUi *d, Rect rc)
{
    const DecShow *ds = v->s->dec;
    const Theme *th = v->th;
    const DecProgress *p = &ds->beam_prog;
    if (p->on) {
        char line[256];
        snprintf(line, sizeof line, _("Beam search step by step: step %d of at most %d"), p->done, p->total);
        dec_draw_progress_of(v, rc, line, p->done, p->total, p->text); /* the best alive hypothesis so far */
        return;
    }
    if (ds->beam_err[0]) {
        ui_paragraph(v->r, v->g->ui, ds->beam_err, rc.x + 10, rc.y + 10, rc.w - 20, th->warn);
        return;
    }
    if (!ds->nodes || ds->n_cols < 1)
        return;
    /* the tree first: the summary shrinks, the legend goes, when it must;
     * in a small window the winner's line alone stays */
    int need = tree_min_height(v, d);
    int full = draw_summary(v, d, rc, 0, 0) + draw_legend(v, rc, 0);
    int compact = rc.h - full < need;
    if (compact && rc.h - draw_summary(v, d, rc, 0, 1) < need)
        compact = 2; /* the winner alone: hovering a node gives its numbers */
    int y = rc.y + draw_summary(v, d, rc, 1, compact);
    if (!compact)
        y += draw_legend(v, (Rect){rc.x, y, rc.w, rc.h}, 1);
    y += ui_px(v->g, 6);
    draw_tree(v, d, (Rect){rc.x, y, rc.w, rc.y + rc.h - y});
}
