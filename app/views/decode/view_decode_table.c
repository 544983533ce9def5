/* view_decode_table.c - teacher forcing beside generation, one row per
 * target position.
 *
 * Left, training (teacher forcing): row i shows the token the decoder reads
 * at position i (<bos>, then the TRUE target), the row of the causal mask
 * that lets it see positions 0..i only, its prediction of the next token
 * (✓ or ✗ against the truth) and the loss -log p(true next token). All rows
 * come from one pass over the whole target.
 *
 * Right, inference (greedy generation): row i shows what step i read (its
 * own previous output) and what it generated. Rows appear one by one as
 * the learner steps. Where the two sides read different tokens, generation
 * has left the reference, and where they then predict differently, the
 * gutter between them says ≠ and a note under the table explains it:
 * the model was only ever trained on true prefixes (exposure bias). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "view_decode.h"

enum { C_POS, C_READS, C_MASK, C_PRED, C_TRUTH, C_LOSS, C_GAP, C_GREADS, C_GEN, C_GP, C_N };

typedef struct TableGeo {
    int x[C_N], w[C_N];   /* w 0: column dropped for lack of room */
    int rh, head_h;       /* row height, header height */
    int rows;             /* rows that fit (the first is d->scroll) */
    int subs;             /* the header has room for its subtitles */
    int total;            /* rows there are */
    float mask_cell;
    int cpad;             /* padding inside token cells */
} TableGeo;

/* ---- the columns ---- */

static int widest_token(const Scene *sc, const DecodeUi *d, RenFont *f)
{
    const DecShow *sh = sc->dec;
    int w = ren_text_width(f, "<eos>");
    for (int i = 0; i < sh->tf_n; i++) {
        const int ids[3] = {sh->tf_in[i], sh->tf_pred[i], sh->tf_truth[i]};
        for (int k = 0; k < 3; k++) {
            int tw = ren_text_width(f, dec_tok(sc, ids[k]));
            w = tw > w ? tw : w;
        }
    }
    for (int i = 0; i < sh->gen_n; i++) {
        int tw = ren_text_width(f, dec_tok(sc, sh->gen_ids[i]));
        w = tw > w ? tw : w;
    }
    return w;
}

/* Natural widths with padding pad, the mask at most mask_w wide and
 * tokens in font tf at most maxtok; returns their sum. */
static int natural(ViewCtx *v, const DecodeUi *d, TableGeo *G, int pad, float mask_w, int maxtok,
                   RenFont *tf, int *w)
{
    const DecShow *sh = v->s->dec;
    Gfx *g = v->g;
    int mark = ren_text_width(g->small, " ✓") + ui_px(g, 2);
    int tight = G->cpad <= ui_px(g, 3);
    int tok = widest_token(v->s, d, tf) + 2 * G->cpad;
    tok = tok > maxtok ? maxtok : tok;
    G->mask_cell = fminf((float)(G->rh - ui_px(g, 8)), mask_w / (float)sh->tf_n);
    if (G->mask_cell < 1.0f)
        G->mask_cell = 1.0f;
    char last[16]; /* the tight table: as wide as its numbers, the name if it fits */
    snprintf(last, sizeof last, "%d", G->total > 10 ? G->total - 1 : 10);
    w[C_POS] = ren_text_width(g->small, tight ? last : _("pos")) + pad;
    w[C_READS] = tok;
    w[C_MASK] = (int)ceilf(G->mask_cell * sh->tf_n) + pad;
    w[C_PRED] = tok + mark;
    w[C_TRUTH] = tok;
    w[C_LOSS] = ren_text_width(g->small, "−log p") + pad;
    w[C_GAP] = ren_text_width(g->ui, "≠") + (tight ? pad : 2 * pad);
    w[C_GREADS] = tok;
    w[C_GEN] = tok + mark;
    w[C_GP] = ren_text_width(g->small, "0.000") + pad;
    int sum = 0;
    for (int c = 0; c < C_N; c++)
        sum += w[c];
    return sum;
}

static void columns(ViewCtx *v, const DecodeUi *d, Rect rc, TableGeo *G)
{
    Gfx *g = v->g;
    int w[C_N];
    /* roomy first; if that is too wide, tighter padding and a smaller mask */
    G->cpad = ui_px(g, 6);
    int sum = natural(v, d, G, ui_px(g, 12), fminf((float)ui_px(g, 130), rc.w / 6.0f), rc.w / 6, g->ui, w);
    if (sum > rc.w) {
        G->cpad = ui_px(g, 3);
        sum = natural(v, d, G, ui_px(g, 6), rc.w / 9.0f, rc.w / 5, g->ui, w);
    }
    /* still too wide: drop generation's "reads" (it repeats the row above)
     * and its p (the One step pane has it), the mask (the mask view has it)
     * and the loss; then the true next token (the next row reads it; ✓ and
     * ✗ say whether the prediction was it) and the positions (the rows are
     * in order), each time giving the few columns left whole tokens (in the
     * small font the cells fall back on, if need be); then narrow the token
     * columns, never below a third */
    static const int drop[] = {C_GREADS, C_GP, C_MASK, C_LOSS, C_TRUTH, C_POS};
    int dropped = 0;
    while (dropped < 4 && sum > rc.w) {
        sum -= w[drop[dropped]];
        w[drop[dropped++]] = 0;
    }
    while (dropped < 6 && sum > rc.w) {
        dropped++;
        for (int f = 0; f < 2; f++) {
            sum = natural(v, d, G, ui_px(g, 6), rc.w / 9.0f, rc.w / 3, f ? g->small : g->ui, w);
            for (int i = 0; i < dropped; i++) {
                sum -= w[drop[i]];
                w[drop[i]] = 0;
            }
            if (sum <= rc.w)
                break;
        }
    }
    int gap_min = ren_text_width(g->ui, "≠") + ui_px(g, 2); /* the gutter gives first */
    if (sum > rc.w && w[C_GAP] > gap_min) {
        int give = sum - rc.w < w[C_GAP] - gap_min ? sum - rc.w : w[C_GAP] - gap_min;
        w[C_GAP] -= give;
        sum -= give;
    }
    if (sum > rc.w) {
        static const int toks[] = {C_READS, C_PRED, C_TRUTH, C_GEN};
        int tsum = 0;
        for (int i = 0; i < 4; i++)
            tsum += w[toks[i]];
        float k = (float)(rc.w - (sum - tsum)) / (float)tsum;
        if (k < 0.33f)
            k = 0.33f;
        for (int i = 0; i < 4; i++) {
            int nw = (int)(w[toks[i]] * k);
            sum -= w[toks[i]] - nw;
            w[toks[i]] = nw;
        }
    }
    /* spare room: spread a little, keep the rest to the right */
    int spare = rc.w - sum;
    int extra = spare > 0 ? spare / 14 : 0;
    int x = rc.x;
    for (int c = 0; c < C_N; c++) {
        G->x[c] = x;
        G->w[c] = w[c] ? w[c] + (c == C_GAP ? 2 * extra : extra) : 0;
        x += G->w[c];
    }
}

/* ---- cells ---- */

static int text_mid(RenFont *f, int y, int h)
{
    return y + (h - ren_font_height(f)) / 2;
}

/* A token, then an optional mark in its own colour. */
static void token_cell(ViewCtx *v, const TableGeo *G, int x, int w, int y, int h, const char *tok,
                       Color c, const char *mark, Color mc)
{
    Gfx *g = v->g;
    int pad = G->cpad;
    int mw = mark ? ren_text_width(g->small, mark) : 0;
    int room = w - 2 * pad - mw;
    RenFont *f = g->ui; /* the small font before an ellipsis, when that fits */
    if (ren_text_width(f, tok) > room && ren_text_width(g->small, tok) <= room)
        f = g->small;
    int tw = ui_text_fit(v->r, f, tok, x + pad, text_mid(f, y, h), room, c);
    if (mark)
        ren_text(v->r, g->small, mark, x + pad + tw, text_mid(g->small, y, h), mc);
}

static void num_cell(ViewCtx *v, int x, int w, int y, int h, float val, Color c)
{
    char buf[32];
    if (w <= 0) /* a column left out */
        return;
    snprintf(buf, sizeof buf, "%.3f", val);
    RenFont *f = v->g->small;
    int tw = ren_text_width(f, buf);
    ren_text(v->r, f, buf, x + w - tw - ui_px(v->g, 6), text_mid(f, y, h), c);
}

/* Row i of the causal mask: cells of positions 0..T-1, runs of equal
 * value drawn as one rectangle, 0 (may read) in the accent colour, -inf
 * (the future) in the masked colour. */
static void mask_row(ViewCtx *v, const DecodeUi *d, const TableGeo *G, int i, int y)
{
    const DecShow *sh = v->s->dec;
    const Theme *th = v->th;
    int T = sh->tf_n;
    float cw = G->mask_cell;
    if (!G->w[C_MASK]) /* left out of a narrow table */
        return;
    int x0 = G->x[C_MASK] + G->cpad;
    int ch = G->rh - ui_px(v->g, 8); /* thin cells stay row-high: a staircase */
    int top = y + (G->rh - ch) / 2;
    const float *m = sh->tf_mask + (size_t)i * T;
    for (int j = 0; j < T;) {
        int k = j;
        int future = isinf(m[j]) != 0;
        while (k < T && (isinf(m[k]) != 0) == future)
            k++;
        int xa = x0 + (int)lroundf(j * cw), xb = x0 + (int)lroundf(k * cw);
        ren_rect(v->r, (Rect){xa, top, xb - xa, ch}, future ? th->masked : th->accent);
        j = k;
    }
    if (cw >= 6) /* cell borders, when cells are big enough to count */
        for (int j = 1; j < T; j++)
            ren_rect(v->r, (Rect){x0 + (int)lroundf(j * cw), top, 1, ch}, th->panel);
    ren_rect_line(v->r, (Rect){x0 - 1, top - 1, (int)lroundf(T * cw) + 2, ch + 2}, 1, th->border);
    Rect cells = {x0, top, (int)lroundf(T * cw), ch};
    /* the keyboard's cell (row i, column j of the mask) when the mouse is
     * not over the mask's column */
    int kr, kc, mouse = v->in->mx >= x0 && v->in->mx < x0 + cells.w && v->in->my >= 0;
    int keys = view_key_cell(v, T, T, &kr, &kc) && !mouse && kr == i;
    if (keys) {
        Rect c = {x0 + (int)lroundf(kc * cw), top, (int)lroundf((kc + 1) * cw) - (int)lroundf(kc * cw), ch};
        view_key_outline(v, c);
    }
    if (ui_over(v->in, cells) || keys) {
        int j = keys ? kc : (int)((v->in->mx - x0) / cw);
        if (j >= 0 && j < T)
            ui_hover_own(v, m[j], isinf(m[j]) ? _("causal mask, position %d reading position %d (the future: hidden)")
                                   : _("causal mask, position %d reading position %d (the past or itself: may read)"),
                      i, j);
    }
}

/* ---- the header ---- */

/* The two blocks' titles go at lx and rx, lw and rw wide. */
static void blocks(ViewCtx *v, const TableGeo *G, int *lx, int *lw, int *rx, int *rw)
{
    int pad = ui_px(v->g, 6);
    *lx = G->x[C_POS];
    *lw = G->x[C_GAP] - *lx - pad;
    *rx = G->x[C_GAP] + G->w[C_GAP] / 2;
    *rw = G->x[C_GP] + G->w[C_GP] - *rx;
}

/* The subtitles, longest first, "" last (none rather than a cut one). */
static void subtitles(const DecShow *sh, const char *ls[3], const char *rs[4])
{
    ls[0] = sh->ref ? _("reads the true target, every position in one pass")
                   : _("reads the greedy output (no reference typed), in one pass");
    ls[1] = sh->ref ? _("reads the true target") : _("reads the greedy output");
    ls[2] = "";
    rs[0] = _("reads its own outputs, step by step");
    rs[1] = _("step by step");
    rs[2] = _("stepwise");
    rs[3] = "";
}

/* Is there room for a subtitle on both sides? (else their line goes) */
static int subtitles_fit(ViewCtx *v, const DecodeUi *d, const TableGeo *G)
{
    const char *ls[3], *rs[4];
    int lx, lw, rx, rw, pad = ui_px(v->g, 6);
    subtitles(v->s->dec, ls, rs);
    blocks(v, G, &lx, &lw, &rx, &rw);
    return ren_text_width(v->g->small, ls[1]) <= lw && ren_text_width(v->g->small, rs[2]) <= rw - pad;
}

static void header(ViewCtx *v, const DecodeUi *d, const TableGeo *G, int y)
{
    const Theme *th = v->th;
    Gfx *g = v->g;
    int pad = ui_px(g, 6);
    int lh = ren_font_height(g->ui), sh = ren_font_height(g->small);
    int lx, lw, rx, rw;
    blocks(v, G, &lx, &lw, &rx, &rw);
    /* the long titles, or the short ones when the blocks are narrow (both
     * short when one must be); none rather than a cut one */
    const char *lt[3] = {_("Teacher forcing · training"), _("Training"), ""};
    const char *rt[3] = {_("Generation · inference"), _("Inference"), ""};
    int brief = ren_text_width(g->ui, lt[0]) > lw || ren_text_width(g->ui, rt[0]) > rw - pad;
    RenFont *tf = g->ui; /* the small font before none */
    if (brief && (ren_text_width(g->ui, lt[1]) > lw || ren_text_width(g->ui, rt[1]) > rw - pad))
        tf = g->small;
    int ty = y + lh - ren_font_height(tf);
    ui_text_alt(v->r, tf, lt + brief, 3 - brief, lx + pad, ty, lw, th->accent);
    ui_text_alt(v->r, tf, rt + brief, 3 - brief, rx + pad, ty, rw - pad, th->accent2);
    y += lh;
    /* the subtitles, shorter when the blocks are narrow; their line goes
     * when neither fits */
    if (G->subs) {
        const char *ls[3], *rs[4];
        subtitles(v->s->dec, ls, rs);
        ui_text_alt(v->r, g->small, ls, 3, lx + pad, y, lw, th->dim);
        ui_text_alt(v->r, g->small, rs, 4, rx + pad, y, rw - pad, th->dim);
        y += sh + ui_px(g, 4);
    }
    const char *names[C_N] = {_("pos"), _("reads"), _("mask"), _("predicts"), _("true next"), "−log p",
                              "", _("reads"), _("generates"), "p"};
    if (ren_text_width(g->small, names[C_TRUTH]) > G->w[C_TRUTH] - pad)
        names[C_TRUTH] = _("truth");
    if (ren_text_width(g->small, names[C_TRUTH]) > G->w[C_TRUTH] - pad)
        names[C_TRUTH] = ""; /* none rather than a cut one */
    for (int c = 0; c < C_N; c++) {
        if (!G->w[c] || !names[c][0])
            continue;
        int right = c == C_LOSS || c == C_GP;
        int tw = ren_text_width(g->small, names[c]);
        int x = right ? G->x[c] + G->w[c] - tw - pad : G->x[c] + pad;
        const char *alts[2] = {names[c], ""}; /* none rather than a cut one */
        ui_text_alt(v->r, g->small, alts, 2, x, y, G->w[c] - pad, th->dim);
    }
    y += sh + ui_px(g, 3);
    ren_rect(v->r, (Rect){lx, y, G->x[C_GAP] - lx, 1}, th->border);
    ren_rect(v->r, (Rect){rx, y, rw, 1}, th->border);
}

/* ---- one row ---- */

static void tf_cells(ViewCtx *v, const DecodeUi *d, const TableGeo *G, int i, int y)
{
    const DecShow *sh = v->s->dec;
    const Scene *sc = v->s;
    const Theme *th = v->th;
    int h = G->rh;
    char buf[16];
    snprintf(buf, sizeof buf, "%d", i);
    if (G->w[C_POS])
        ren_text(v->r, v->g->small, buf, G->x[C_POS] + ui_px(v->g, 6), text_mid(v->g->small, y, h), th->dim);
    if (i >= sh->tf_n)
        return;
    int right = sh->tf_pred[i] == sh->tf_truth[i];
    token_cell(v, G, G->x[C_READS], G->w[C_READS], y, h, dec_tok(sc, sh->tf_in[i]), th->text, NULL, th->text);
    mask_row(v, d, G, i, y);
    token_cell(v, G, G->x[C_PRED], G->w[C_PRED], y, h, dec_tok(sc, sh->tf_pred[i]),
               right ? th->text : th->bad, right ? " ✓" : " ✗", right ? th->good : th->bad);
    if (G->w[C_TRUTH])
        token_cell(v, G, G->x[C_TRUTH], G->w[C_TRUTH], y, h, dec_tok(sc, sh->tf_truth[i]), th->dim, NULL, th->dim);
    num_cell(v, G->x[C_LOSS], G->w[C_LOSS], y, h, sh->tf_loss[i], right ? th->text : th->bad);
    Rect lossr = {G->x[C_PRED], y, G->x[C_LOSS] + G->w[C_LOSS] - G->x[C_PRED], h};
    if (ui_over(v->in, lossr))
        ui_hover_own(v, sh->tf_loss[i],
                  _("teacher forcing, position %d: predicts '%s' (p %.3f); true next '%s': −log p('%s')"),
                  i, dec_tok(sc, sh->tf_pred[i]), sh->tf_pred_p[i], dec_tok(sc, sh->tf_truth[i]),
                  dec_tok(sc, sh->tf_truth[i]));
}

static void gen_cells(ViewCtx *v, const DecodeUi *d, const TableGeo *G, int i, int y)
{
    const DecShow *sh = v->s->dec;
    const Scene *sc = v->s;
    const Theme *th = v->th;
    int h = G->rh;
    if (i > sh->gen_n) /* a teacher-forcing row past the generated output */
        return;
    int in = dec_gen_input(sh, i);
    /* reading something the reference never had: off the true path */
    int off = sh->ref && i < sh->tf_n && in != sh->tf_in[i];
    if (i == d->shown && i < sh->gen_n) { /* the next step, not taken yet */
        if (G->w[C_GREADS])
            token_cell(v, G, G->x[C_GREADS], G->w[C_GREADS], y, h, dec_tok(sc, in), th->dim, NULL, th->dim);
        token_cell(v, G, G->x[C_GEN], G->w[C_GEN], y, h, "…", th->dim, NULL, th->dim);
        return;
    }
    if (i >= d->shown)
        return;
    if (G->w[C_GREADS])
        token_cell(v, G, G->x[C_GREADS], G->w[C_GREADS], y, h, dec_tok(sc, in), off ? th->warn : th->text,
                   NULL, th->text);
    int tok = sh->gen_ids[i];
    const char *mark = NULL;
    Color c = th->text, mc = th->text;
    if (sh->ref && i < sh->tf_n) {
        int right = tok == sh->tf_truth[i];
        mark = right ? " ✓" : " ✗";
        c = right ? th->text : th->bad;
        mc = right ? th->good : th->bad;
    }
    if (sh->steps[i].forced) { /* the learner put it there */
        mark = " ⚑";
        mc = th->warn;
    }
    token_cell(v, G, G->x[C_GEN], G->w[C_GEN], y, h, dec_tok(sc, tok), c, mark, mc);
    if (G->w[C_GP])
        num_cell(v, G->x[C_GP], G->w[C_GP], y, h, sh->steps[i].prob, th->text);
    Rect cell = {G->x[C_GAP] + G->w[C_GAP] / 2, y, G->x[C_GP] + G->w[C_GP] - G->x[C_GAP] - G->w[C_GAP] / 2, h};
    if (ui_over(v->in, cell))
        ui_hover_own(v, sh->steps[i].prob, _("generation step %d: read '%s', generated '%s' with p"), i + 1,
                  dec_tok(sc, in), dec_tok(sc, tok));
}

static void row(ViewCtx *v, DecodeUi *d, const TableGeo *G, int i, int y)
{
    const DecShow *sh = v->s->dec;
    const Theme *th = v->th;
    int h = G->rh;
    int x0 = G->x[C_POS], x1 = G->x[C_GP] + G->w[C_GP];
    Rect full = {x0, y, x1 - x0, h};
    if (i == d->sel)
        ren_rect(v->r, full, th->panel2);
    else if (ui_over(v->in, full))
        ren_rect(v->r, full, (Color){th->panel2.r, th->panel2.g, th->panel2.b, 120});
    tf_cells(v, d, G, i, y);
    gen_cells(v, d, G, i, y);
    if (i == d->sel) {
        int gx = G->x[C_GAP] + G->w[C_GAP] / 2;
        ren_rect_line(v->r, (Rect){gx, y, x1 - gx, h}, 2, th->select);
    }
    /* both sides predicted here and disagree: point at it */
    if (i < sh->tf_n && i < d->shown && sh->tf_pred[i] != sh->gen_ids[i]) {
        Rect gap = {G->x[C_GAP], y, G->w[C_GAP] / 2 + ui_px(v->g, 4), h};
        ui_text_center(v->r, v->g->ui, "≠", gap, th->warn);
    }
    if (ui_clicked(v->in, full) && i < d->shown)
        dec_select(d, i);
}

/* ---- the note under the table: what went wrong, and a summary ---- */

static void note_text(ViewCtx *v, const DecodeUi *d, int w, char *sum, char *story, size_t cap)
{
    const DecShow *sh = v->s->dec;
    const Scene *sc = v->s;
    int roomy = w >= ui_px(v->g, 560);
    story[0] = 0;
    if (!sh->ref && !roomy) {
        snprintf(sum, cap, "%s", _("No reference typed: teacher forcing reads the greedy output, so both "
                 "sides agree. Type the true translation in the Target line."));
        return;
    }
    if (!sh->ref) {
        snprintf(sum, cap, "%s",
                 _("No reference: with the Target line empty, teacher forcing reads the model's own "
                 "greedy output, so both sides agree row by row (the causal mask makes one pass "
                 "equal to step by step). Type the true translation in the Target line to see "
                 "training and inference part ways."));
        return;
    }
    if (sh->tf_eps > 0)
        snprintf(sum, cap,
                 roomy ? _("Teacher forcing: %d of %d positions right, mean −log p(true) %.3f. Training minimises "
                           "the label-smoothed cross-entropy H(q, p) = %.3f, never below H(q) = %.3f; generation "
                           "has no loss: it never sees the reference.")
                       : _("Teacher forcing: %d of %d right, −log p %.3f, H(q, p) %.3f ≥ %.3f."),
                 sh->tf_right, sh->tf_n, sh->tf_mean_loss, sh->tf_smooth_loss, sh->tf_smooth_floor);
    else
        snprintf(sum, cap,
                 roomy ? _("Teacher forcing: %d of %d positions right, mean −log p(true) %.3f (without label "
                           "smoothing, what training minimises; generation has no loss: it never sees the "
                           "reference).")
                       : _("Teacher forcing: %d of %d right, −log p %.3f."),
                 sh->tf_right, sh->tf_n, sh->tf_mean_loss);
    /* only what the rows revealed so far show: stepping keeps its surprise */
    int e = sh->diverge, all = d->shown >= sh->gen_n;
    if (e < 0 || e >= d->shown) {
        if (e < 0 && all)
            snprintf(story, cap, "%s", _("Generation reproduces the reference: it never has to read a mistake."));
        else if (d->shown > 0)
            snprintf(story, cap, "%s", _("So far generation follows the reference."));
        return;
    }
    int same = sh->tf_pred[e] == sh->gen_ids[e];
    const char *fmt = !roomy ? _("Position %d: generated '%s', the reference has '%s'. ")
                      : same ? _("Position %d: generation produced '%s' where the reference has '%s' "
                                 "(teacher forcing agrees there: same prefix). ")
                             : _("Position %d: generation produced '%s' where the reference has '%s'. ");
    int n = snprintf(story, cap, fmt, e, dec_tok(sc, sh->gen_ids[e]), dec_tok(sc, sh->tf_truth[e]));
    if (n < 0 || (size_t)n >= cap)
        return;
    int k = sh->contrast;
    if (k >= 0 && k < d->shown)
        snprintf(story + n, cap - (size_t)n,
                 roomy ? _("Position %d: teacher forcing predicts '%s' from the true prefix, but generation "
                           "produced '%s' after its own earlier mistake.")
                       : _("Position %d: the true prefix gives '%s', its own mistake gives '%s'."),
                 k, dec_tok(sc, sh->tf_pred[k]), dec_tok(sc, sh->gen_ids[k]));
    else
        snprintf(story + n, cap - (size_t)n, "%s",
                 all ? _("From there on generation reads its own output, which training never showed it.")
                     : _("From here on generation reads its own mistake: step on."));
}

/* Up to max whole lines of a wrapped paragraph at (x, *y); moves *y down
 * and returns the lines drawn. */
static int note_lines(ViewCtx *v, RenFont *f, const char *s, int x, int *y, int w, Color c, int max)
{
    RenLine lines[32];
    int n = ren_text_wrap(f, s, w, lines, 32);
    n = n < max ? n : max;
    n = n < 32 ? n : 32;
    int lh = ren_font_height(f);
    for (int i = 0; i < n; i++, *y += lh)
        ren_text_n(v->r, f, s + lines[i].start, lines[i].len, x, *y, c);
    return n > 0 ? n : 0;
}

static int note_height(RenFont *f, const char *sum, const char *story, int w)
{
    int n = ren_text_wrap(f, sum, w, NULL, 0);
    if (story[0])
        n += ren_text_wrap(f, story, w, NULL, 0);
    return n * ren_font_height(f);
}

static void geometry(ViewCtx *v, const DecodeUi *d, Rect rc, TableGeo *G)
{
    const DecShow *sh = v->s->dec;
    Gfx *g = v->g;
    memset(G, 0, sizeof *G);
    G->rh = ren_font_height(g->ui) + ui_px(g, 6);
    G->total = sh->tf_n > sh->gen_n ? sh->tf_n : sh->gen_n;
    columns(v, d, rc, G);
    G->subs = subtitles_fit(v, d, G);
    G->head_h = ren_font_height(g->ui) + (1 + G->subs) * ren_font_height(g->small) + ui_px(g, G->subs ? 10 : 6);
}

int dec_table_height(ViewCtx *v, const DecodeUi *d, int w)
{
    const DecShow *sh = v->s->dec;
    if (sh->tf_n < 1)
        return 0;
    char sum[600], story[600];
    note_text(v, d, w, sum, story, sizeof sum);
    TableGeo G;
    geometry(v, d, (Rect){0, 0, w, 0}, &G);
    return G.head_h + G.total * G.rh + ui_px(v->g, 12) + note_height(v->g->small, sum, story, w);
}

void dec_table_draw(ViewCtx *v, DecodeUi *d, Rect rc)
{
    const DecShow *sh = v->s->dec;
    const Theme *th = v->th;
    Gfx *g = v->g;
    if (rc.w < 60 || rc.h < 40 || sh->tf_n < 1)
        return;
    /* the note first: the rows get the rest */
    char sum[600], story[600];
    note_text(v, d, rc.w, sum, story, sizeof sum);
    RenFont *nf = g->small;
    TableGeo G;
    geometry(v, d, rc, &G);
    /* a few rows come first: the note keeps only the paragraphs that fit
     * whole after them, what went wrong before the summary */
    int rows_min = G.total < 4 ? G.total : 4;
    int room = rc.h - G.head_h - rows_min * G.rh - ui_px(g, 6), fh = ren_font_height(nf);
    int hs = story[0] ? ren_text_wrap(nf, story, rc.w, NULL, 0) * fh : 0;
    int hm = ren_text_wrap(nf, sum, rc.w, NULL, 0) * fh;
    if (hs > room)
        story[0] = 0, hs = 0;
    if (hs + hm > room)
        sum[0] = 0, hm = 0;
    int nh = hs + hm ? hs + hm + ui_px(g, 6) : 0;
    G.rows = (rc.h - nh - G.head_h) / G.rh;
    int sub_h = ren_font_height(g->small) + ui_px(g, 4);
    if (G.subs && G.rows < G.total && (rc.h - nh - G.head_h + sub_h) / G.rh > G.rows) {
        G.subs = 0; /* a row before the subtitles */
        G.head_h -= sub_h;
        G.rows = (rc.h - nh - G.head_h) / G.rh;
    }
    if (G.rows < 1)
        G.rows = 1;
    if (G.rows > G.total)
        G.rows = G.total;
    /* scrolling: the wheel, and keep the inspected step in view */
    Rect body = {rc.x, rc.y + G.head_h, rc.w, G.rows * G.rh};
    if (ui_over(v->in, body) && v->in->wheel)
        d->scroll -= v->in->wheel;
    if (d->follow) {
        int want = d->sel >= 0 ? d->sel : 0;
        if (d->shown < sh->gen_n && d->shown > want)
            want = d->shown; /* the pending row too */
        if (want < d->scroll)
            d->scroll = want;
        if (want >= d->scroll + G.rows)
            d->scroll = want - G.rows + 1;
        d->follow = 0;
    }
    if (d->scroll > G.total - G.rows)
        d->scroll = G.total - G.rows;
    if (d->scroll < 0)
        d->scroll = 0;
    header(v, d, &G, rc.y);
    ren_clip_push(v->r, body);
    for (int r = 0; r < G.rows; r++)
        row(v, d, &G, d->scroll + r, body.y + r * G.rh);
    ren_clip_pop(v->r);
    if (G.rows < G.total) { /* a scroll bar on the right edge */
        int bw = ui_px(g, 4), x = G.x[C_GP] + G.w[C_GP] + ui_px(g, 2);
        if (x + bw > rc.x + rc.w)
            x = rc.x + rc.w - bw;
        int th_h = body.h * G.rows / G.total, ty = body.y + body.h * d->scroll / G.total;
        ren_rect(v->r, (Rect){x, body.y, bw, body.h}, th->panel2);
        ren_rect(v->r, (Rect){x, ty, bw, th_h > 6 ? th_h : 6}, th->dim);
    }
    int ny = body.y + body.h + ui_px(g, 6);
    int lines = (rc.y + rc.h - ny) / fh;
    /* what went wrong first: it is the point of the view */
    if (story[0])
        lines -= note_lines(v, nf, story, rc.x, &ny, rc.w,
                            sh->diverge >= 0 && sh->diverge < d->shown ? th->warn : th->good, lines);
    if (sum[0])
        note_lines(v, nf, sum, rc.x, &ny, rc.w, th->dim, lines);
}
