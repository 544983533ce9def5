/* view_decode_step.c - one generated token, as the model made it.
 *
 * For the inspected step s of greedy generation: the row of masked
 * self-attention of the new token's query over the s+1 tokens that exist
 * so far (<bos> and its own earlier outputs: no future token exists yet,
 * so nothing needs hiding), the row of cross-attention over the source,
 * for the chosen decoder layer and head (or their average), and the top-k
 * probabilities the token was chosen from. These are the rows the model
 * computed at that step (kept by tf_greedy), not a recomputation. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "view_decode.h"

typedef enum RowKind { ROW_SELF, ROW_CROSS } RowKind;

/* The weights of one head, or the average over heads (head < 0), of the
 * step's self- (n = s+1) or cross-attention (n = S) row, into out. */
static void attn_row(const Scene *sc, const DecShowStep *st, RowKind kind, int n, int layer,
                     float *out)
{
    int NH = sc->model->cfg.n_heads, head = sc->head;
    const float *base = kind == ROW_SELF ? st->self_w : st->cross_w;
    if (head >= NH)
        head = NH - 1;
    if (head >= 0) {
        memcpy(out, base + ((size_t)layer * NH + head) * n, (size_t)n * sizeof(float));
        return;
    }
    for (int j = 0; j < n; j++)
        out[j] = 0;
    for (int h = 0; h < NH; h++)
        for (int j = 0; j < n; j++)
            out[j] += base[((size_t)layer * NH + h) * n + j] / NH;
}

static const char *row_label(const Scene *sc, const DecodeUi *d, RowKind kind, int j)
{
    const DecShow *ds = sc->dec;
    static char buf[VOCAB_MAX_TOKEN_BYTES + 1];
    return kind == ROW_SELF ? dec_tok(sc, dec_gen_input(ds, j))
                            : view_token(&sc->model->src_vocab, ds->src[j], buf, sizeof buf);
}

/* A caption (the first of three wordings that fits), a row of n cells
 * coloured by weight (the probability colour map, fixed 0..1), the weights
 * printed when they fit, the tokens below. */
static int strip(ViewCtx *v, const DecodeUi *d, Rect rc, RowKind kind, int s, int ch,
                 const char *const caption[3])
{
    const DecShow *ds = v->s->dec;
    const Scene *sc = v->s;
    const Theme *th = v->th;
    Gfx *g = v->g;
    const DecShowStep *st = &ds->steps[s];
    int n = kind == ROW_SELF ? s + 1 : ds->S;
    float w[DEC_CAP_T];
    attn_row(sc, st, kind, n, d->layer, w);
    int sh = ren_font_height(g->small), lh = ren_font_height(g->ui);
    ui_text_alt(v->r, g->small, caption, 3, rc.x, rc.y, rc.w, th->dim);
    int y = rc.y + sh + ui_px(g, 3);
    float cw = fminf((float)ui_px(g, 70) * ch / ui_px(g, 26), (float)rc.w / (float)n);
    CmapId cmap = sc->cmap_prob;
    int vw = ren_text_width(g->small, "0.00") + 4;
    /* labels too wide for their cells: every k-th one, in the small font */
    int every = 1, widest = 0;
    for (int j = 0; j < n; j++) {
        int lw = ren_text_width(g->ui, row_label(sc, d, kind, j));
        widest = lw > widest ? lw : widest;
    }
    if (widest > cw - 2) {
        widest = 0;
        for (int j = 0; j < n; j++) {
            int lw = ren_text_width(g->small, row_label(sc, d, kind, j));
            widest = lw > widest ? lw : widest;
        }
        while (every * cw < widest + ui_px(g, 6) && every < n)
            every++;
    }
    int last_right = rc.x - ui_px(g, 4); /* where the last small label ended */
    /* the keyboard's cell: row 0 the self-attention strip, 1 the cross-attention one */
    int kr = -1, kc = -1, self_n = s + 1, wide = self_n > ds->S ? self_n : ds->S;
    int keys = 0;
    if (d->pane == DEC_PANE_STEP) { /* in the first pane the cell is the table's mask */
        keys = !ui_over(v->in, (Rect){rc.x, y, (int)lroundf(n * cw), ch + lh + 1}) &&
               view_key_cell(v, 2, wide, &kr, &kc) && kr == (kind == ROW_SELF ? 0 : 1);
        if (!keys)
            view_key_cell(v, 2, wide, &kr, &kc); /* its room */
    }
    for (int j = 0; j < n; j++) {
        int x0 = rc.x + (int)lroundf(j * cw), x1 = rc.x + (int)lroundf((j + 1) * cw);
        Rect cell = {x0, y, x1 - x0 - (cw >= 8 ? 1 : 0), ch};
        Color c = cmap_color(cmap, w[j]);
        ren_rect(v->r, cell, c);
        if (cw >= vw) {
            char buf[16];
            snprintf(buf, sizeof buf, "%.2f", w[j]);
            ui_text_center(v->r, g->small, buf, cell, cmap_ink_on(c));
        }
        const char *lab = row_label(sc, d, kind, j);
        Rect lr = {x0, y + ch + 1, x1 - x0, lh};
        int keyed = keys && (kc < n ? kc : n - 1) == j;
        int over = ui_over(v->in, (Rect){x0, y, x1 - x0, ch + lh}) || keyed;
        if (every == 1) {
            ui_text_center(v->r, g->ui, lab, lr, over ? th->select : th->text);
        } else if (j % every == 0 || over) {
            int tw = ren_text_width(g->small, lab);
            int lx = x0 + (x1 - x0 - tw) / 2;
            lx = lx < rc.x ? rc.x : lx;
            /* the first label, pushed right to stay inside, may reach the
             * next one's place: then that one is left out */
            if (over || lx >= last_right + ui_px(g, 4)) {
                ren_text(v->r, g->small, lab, lx, lr.y + (lh - sh) / 2, over ? th->select : th->dim);
                if (!over)
                    last_right = lx + tw;
            }
        }
        if (over) {
            if (keyed)
                view_key_outline(v, cell);
            else
                ren_rect_line(v->r, (Rect){cell.x - 1, cell.y - 1, cell.w + 2, cell.h + 2}, 2, th->select);
            const char *q = row_label(sc, d, ROW_SELF, s);
            int self = kind == ROW_SELF;
            if (sc->head < 0)
                ui_hover_own(v, w[j],
                             self ? _("step %d, masked self-attention, layer %d, average of the heads: '%s' → '%s'")
                                  : _("step %d, cross-attention, layer %d, average of the heads: '%s' → '%s'"),
                             s + 1, d->layer + 1, q, lab);
            else
                ui_hover_own(v, w[j],
                             self ? _("step %d, masked self-attention, layer %d, head %d: '%s' → '%s'")
                                  : _("step %d, cross-attention, layer %d, head %d: '%s' → '%s'"),
                             s + 1, d->layer + 1, sc->head + 1, q, lab);
        }
    }
    ren_rect_line(v->r, (Rect){rc.x - 1, y - 1, (int)lroundf(n * cw) + 2, ch + 2}, 1, th->border);
    return sh + ui_px(g, 3) + ch + lh + ui_px(g, 10);
}

/* What a strip needs besides its cells. */
static int strip_overhead(const Gfx *g)
{
    return ren_font_height(g->small) + ui_px(g, 3) + ren_font_height(g->ui) + ui_px(g, 10);
}

int dec_step_min_height(ViewCtx *v)
{
    Gfx *g = v->g;
    int title = ren_font_height(g->ui) + ui_px(g, 4);
    int flow = ren_font_height(g->small) + ui_px(g, 10) + ui_px(g, 8);
    return title + flow + 2 * (strip_overhead(g) + ui_px(g, 22));
}

/* A click on row rc, a top-k token id of step s, forces it (the window's
 * lab generates again from there). */
static void force_click(ViewCtx *v, DecodeUi *d, Rect rc, int s, int id)
{
    const DecShow *ds = v->s->dec;
    if (ui_over(v->in, rc) && s >= 0 && s < ds->gen_n && id != ds->gen_ids[s])
        ren_rect_line(v->r, rc, 1, v->th->warn); /* a click would force it */
    if (s >= 0 && s < ds->gen_n && id >= 0 && id != ds->gen_ids[s] && ui_hit(v->ui, rc, "force")) {
        d->wish.force = 1;
        d->wish.force_step = s;
        d->wish.force_id = id;
        view_notice(v, 0, _("step %d forced to '%s': generation goes on from there"), s + 1, dec_tok(v->s, id));
    }
}

/* The top-k bars: the chosen token (greedy: the first) highlighted, the
 * reference's token at this position marked when there is one. */
static void topk(ViewCtx *v, DecodeUi *d, Rect rc, int s)
{
    const DecShow *ds = v->s->dec;
    const Scene *sc = v->s;
    const Theme *th = v->th;
    Gfx *g = v->g;
    const DecShowStep *st = &ds->steps[s];
    int sh = ren_font_height(g->small), lh = ren_font_height(g->ui);
    const char *head[3] = {st->forced ? _("forced here · click another token to force it")
                                      : _("top-k it was chosen from · click another token to force it"),
                           st->forced ? _("forced here") : _("top-k it was chosen from"), _("top-k")};
    ui_text_alt(v->r, g->small, head, 3, rc.x, rc.y, rc.w, st->forced ? th->warn : th->dim);
    int y = rc.y + sh + ui_px(g, 4);
    int rh = lh + ui_px(g, 3);
    int k = (rc.y + rc.h - y) / rh;
    int V = sc->model->cfg.tgt_vocab;
    int maxk = V < DEC_SHOW_TOPK ? V : DEC_SHOW_TOPK;
    if (k > maxk)
        k = maxk;
    int ref = ds->ref && s < ds->tf_n ? ds->tf_truth[s] : -1;
    int lw = 0;
    for (int i = 0; i < k; i++) {
        int w = ren_text_width(g->ui, dec_tok(sc, st->top_id[i]));
        lw = w > lw ? w : lw;
    }
    lw += ui_px(g, 8);
    if (lw > rc.w * 2 / 5)
        lw = rc.w * 2 / 5;
    int refw = ref >= 0 ? ren_text_width(g->small, _(" reference")) + ui_px(g, 4) : 0;
    int vw = ren_text_width(g->small, "0.000") + ui_px(g, 6);
    int bar_w = rc.w - lw - vw - refw;
    if (bar_w < 10)
        bar_w = 10;
    int ref_seen = 0;
    for (int i = 0; i < k; i++, y += rh) {
        int id = st->top_id[i];
        float p = st->top_p[i];
        int chosen = id == st->token, is_ref = id == ref;
        ref_seen |= is_ref;
        Color tc = chosen ? th->select : th->text;
        const char *tok = dec_tok(sc, id);
        int tw = ren_text_width(g->ui, tok);
        ui_text_fit(v->r, g->ui, tok, rc.x + (tw < lw - ui_px(g, 8) ? lw - ui_px(g, 8) - tw : 0),
                    y + (rh - lh) / 2, lw - ui_px(g, 8), tc);
        int bh = rh - ui_px(g, 6);
        Rect bar = {rc.x + lw, y + (rh - bh) / 2, (int)lroundf(p * bar_w), bh};
        ren_rect(v->r, (Rect){bar.x, bar.y, bar_w, bh}, th->panel2);
        ren_rect(v->r, bar, chosen ? th->select : th->accent);
        char buf[16];
        snprintf(buf, sizeof buf, "%.3f", p);
        ren_text(v->r, g->small, buf, bar.x + bar_w + ui_px(g, 4), y + (rh - sh) / 2, th->text);
        if (is_ref)
            ren_text(v->r, g->small, _(" reference"), bar.x + bar_w + vw, y + (rh - sh) / 2, th->good);
        if (ui_over(v->in, (Rect){rc.x, y, rc.w, rh}))
            ui_hover_own(v, p, chosen ? _("step %d, the greedy choice: p('%s')") : _("step %d: p('%s')"), s + 1, tok);
        force_click(v, d, (Rect){rc.x, y, rc.w, rh}, s, id); /* click: force it */
    }
    if (ref >= 0 && !ref_seen && y + sh <= rc.y + rc.h) {
        char buf[200];
        snprintf(buf, sizeof buf, _("the reference's '%s' is not among them"), dec_tok(sc, ref));
        ui_text_fit(v->r, g->small, buf, rc.x, y, rc.w, th->good);
    }
}

/* The step's title: what it made, then what it read. */
static void title(ViewCtx *v, const DecodeUi *d, Rect rc, int s)
{
    const DecShow *ds = v->s->dec;
    const Scene *sc = v->s;
    char read[400], buf[700], brief[200];
    int n = 0;
    read[0] = 0;
    for (int j = 0; j <= s && n < (int)sizeof read - 80; j++) {
        if (j == 6 && s > 8) { /* long prefixes: the start, …, the end */
            n += snprintf(read + n, sizeof read - n, " …");
            j = s - 2;
        }
        n += snprintf(read + n, sizeof read - n, "%s%s", n ? " " : "", dec_tok(sc, dec_gen_input(ds, j)));
    }
    const char *made = dec_tok(sc, ds->gen_ids[s]);
    float p = ds->steps[s].prob;
    snprintf(buf, sizeof buf, _("Step %d of %d generates %s (p %.3f) after reading %s"), s + 1, ds->gen_n, made,
             p, read);
    snprintf(brief, sizeof brief, _("Step %d of %d generates %s (p %.3f)"), s + 1, ds->gen_n, made, p);
    char least[200];
    snprintf(least, sizeof least, _("Step %d → '%s'"), s + 1, made);
    const char *alts[3] = {buf, brief, least}; /* the prefix read only when it fits */
    ui_text_alt(v->r, v->g->ui, alts, 3, rc.x, rc.y, rc.w, v->th->text);
}

static void selectors(ViewCtx *v, DecodeUi *d, UiFlow *f)
{
    const Scene *sc = v->s;
    char buf[32];
    int NL = sc->model->cfg.n_dec, NH = sc->model->cfg.n_heads;
    ui_flow_text(f, _("decoder layer"), v->th->dim);
    for (int l = 0; l < NL && l < 12; l++) {
        snprintf(buf, sizeof buf, "%d", l + 1);
        if (ui_flow_button(f, buf, d->layer == l))
            d->layer = l;
    }
    f->x += ui_px(v->g, 8);
    ui_flow_text(f, _("head"), v->th->dim);
    for (int h = 0; h < NH && h < 16; h++) {
        snprintf(buf, sizeof buf, "%d", h + 1);
        if (ui_flow_button(f, buf, sc->head == h))
            view_set_head(v, h);
    }
    if (ui_flow_button(f, _("average"), sc->head < 0))
        view_set_head(v, -1);
}

void dec_step_draw(ViewCtx *v, DecodeUi *d, Rect rc)
{
    const DecShow *ds = v->s->dec;
    const Scene *sc = v->s;
    const Theme *th = v->th;
    Gfx *g = v->g;
    if (rc.w < 60 || rc.h < 40)
        return;
    int s = d->sel;
    if (s < 0 || s >= d->shown || !ds->steps) {
        ui_paragraph(v->r, g->ui,
                     _("Step 0: the decoder holds only <bos>. Press S (or Step) to generate the first "
                       "token, P to play to the end."),
                     rc.x, rc.y, rc.w, th->dim);
        return;
    }
    title(v, d, rc, s);
    int y = rc.y + ren_font_height(g->ui) + ui_px(g, 4);
    UiFlow f = ui_flow(v->ui, (Rect){rc.x, y, rc.w, rc.h});
    selectors(v, d, &f);
    y += ui_flow_height(&f) + ui_px(g, 8);
    /* attention strips left, top-k right */
    int tk_w = (int)fmaxf(rc.w * 0.34f, (float)ui_px(g, 150));
    if (tk_w > rc.w * 0.42f)
        tk_w = (int)(rc.w * 0.42f);
    int gap = ui_px(g, 16);
    Rect left = {rc.x, y, rc.w - tk_w - gap, rc.y + rc.h - y};
    Rect right = {rc.x + rc.w - tk_w, y, tk_w, rc.y + rc.h - y};
    /* the captions name the layer and the head (or the average of all) */
    char cap[200], cap2[120];
    int avg = sc->head < 0, L1 = d->layer + 1, H = avg ? sc->model->cfg.n_heads : sc->head + 1;
    /* cells as tall as the room allows, within reason */
    int ch = (left.h - 2 * strip_overhead(g)) / 2;
    ch = ch < ui_px(g, 22) ? ui_px(g, 22) : ch > ui_px(g, 44) ? ui_px(g, 44) : ch;
    ren_clip_push(v->r, left);
    snprintf(cap, sizeof cap,
             avg ? (s ? _("masked self-attention over the %d tokens so far (layer %d, average of %d heads)")
                      : _("masked self-attention over the %d token so far (layer %d, average of %d heads)"))
                 : (s ? _("masked self-attention over the %d tokens so far (layer %d, head %d)")
                      : _("masked self-attention over the %d token so far (layer %d, head %d)")),
             s + 1, L1, H);
    snprintf(cap2, sizeof cap2,
             avg ? _("masked self-attention (layer %d, average of %d heads)")
                 : _("masked self-attention (layer %d, head %d)"),
             L1, H);
    const char *self_caps[3] = {cap, cap2, _("masked self-attention")};
    int used = strip(v, d, left, ROW_SELF, s, ch, self_caps);
    if (left.h - used > ren_font_height(g->small) * 2) {
        snprintf(cap, sizeof cap,
                 avg ? _("cross-attention over the source (layer %d, average of %d heads)")
                     : _("cross-attention over the source (layer %d, head %d)"),
                 L1, H);
        snprintf(cap2, sizeof cap2,
                 avg ? _("cross-attention (layer %d, average of %d heads)") : _("cross-attention (layer %d, head %d)"),
                 L1, H);
        const char *cross_caps[3] = {cap, cap2, _("cross-attention")};
        strip(v, d, (Rect){left.x, left.y + used, left.w, left.h - used}, ROW_CROSS, s, ch, cross_caps);
    }
    ren_clip_pop(v->r);
    ren_clip_push(v->r, right);
    topk(v, d, right, s);
    ren_clip_pop(v->r);
}

/* ---- the generated tokens as chips ---- */

#define CHIP_LINES 3

int dec_chips_draw(ViewCtx *v, DecodeUi *d, Rect rc)
{
    const DecShow *ds = v->s->dec;
    const Scene *sc = v->s;
    const Theme *th = v->th;
    Gfx *g = v->g;
    int sh = ren_font_height(g->small), lh = ren_font_height(g->ui);
    const char *head[2] = {_("generated so far (click a token to inspect the step that made it)"),
                           _("generated so far")};
    ui_text_alt(v->r, g->small, head, 2, rc.x, rc.y, rc.w, th->dim);
    int y0 = rc.y + sh + ui_px(g, 4);
    int ch = lh + ui_px(g, 8), gap = ui_px(g, 5), padx = ui_px(g, 8);
    /* chip -1 is <bos>, 0..shown-1 the outputs, shown the next one ("…") */
    int last = d->shown < ds->gen_n ? d->shown : d->shown - 1;
    int line_of[DEC_CAP_T + 2];
    int x = rc.x, line = 0;
    for (int i = -1; i <= last; i++) {
        const char *t = i < 0 ? "<bos>" : i == d->shown ? "…" : dec_tok(sc, ds->gen_ids[i]);
        int w = ren_text_width(g->ui, t) + 2 * padx;
        if (x + w > rc.x + rc.w && x > rc.x) {
            x = rc.x;
            line++;
        }
        line_of[i + 1] = line;
        x += w + gap;
    }
    int first = 0;
    if (d->sel >= 0 && line_of[d->sel + 1] >= CHIP_LINES)
        first = line_of[d->sel + 1] - CHIP_LINES + 1;
    x = rc.x;
    int cur = -1;
    for (int i = -1; i <= last; i++) {
        const char *t = i < 0 ? "<bos>" : i == d->shown ? "…" : dec_tok(sc, ds->gen_ids[i]);
        int w = ren_text_width(g->ui, t) + 2 * padx;
        if (line_of[i + 1] != cur) {
            x = rc.x;
            cur = line_of[i + 1];
        }
        int l = cur - first;
        if (l < 0 || l >= CHIP_LINES) {
            x += w + gap;
            continue;
        }
        Rect r = {x, y0 + l * (ch + gap), w, ch};
        x += w + gap;
        int pending = i == d->shown, sel = i == d->sel && i >= 0;
        int wrong = i >= 0 && !pending && ds->ref && i < ds->tf_n && ds->gen_ids[i] != ds->tf_truth[i];
        ren_rect(v->r, r, pending || i < 0 ? th->panel : th->panel2);
        ren_rect_line(v->r, r, sel ? 2 : 1, sel ? th->select : th->border);
        if (i >= 0 && !pending && ds->steps[i].forced) /* forced by the learner */
            ren_rect_line(v->r, (Rect){r.x - 2, r.y - 2, r.w + 4, r.h + 4}, 2, th->warn);
        ui_text_center(v->r, g->ui, t, r, pending || i < 0 ? th->dim : wrong ? th->bad : th->text);
        if (i >= 0 && !pending && ui_over(v->in, r)) {
            ui_hover_own(v, ds->steps[i].prob, _("step %d generated '%s' with p"), i + 1, t);
            if (v->in->pressed)
                dec_select(d, i);
        }
    }
    int lines = line + 1 - first < CHIP_LINES ? line + 1 - first : CHIP_LINES;
    return sh + ui_px(g, 4) + lines * (ch + gap);
}
