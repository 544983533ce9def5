/* view_train_probe.c - the probe sentence of the train view.
 *
 * One fixed sentence of the task (a showcase sentence such as "i read
 * books at home today" for en2zh, "attention" for the string tasks, the
 * first held-out pair of a TSV file) is run through the model of the step
 * shown: live while training, or a kept snapshot on the timeline. Two
 * passes, on the probe's own copy of the parameters (train_probe.c, the
 * window shows them here through Scene.train):
 *
 *   greedy       what the model says on its own, token by token, compared
 *                with the true translation (right tokens green, wrong red);
 *   teacher      <bos> + the true translation in one pass, as training
 *   forced       sees it: its attention weights are the heatmaps.
 *
 * Heatmaps show one head (the chosen layer and head, with its numbers when
 * the cells are big enough) or every layer and head at once. Early on
 * every row is nearly uniform (1/n everywhere); as the model learns, the
 * heads of cross-attention pick out the source word each output word comes
 * from, and for `reverse` an anti-diagonal appears. Textures are coloured
 * again only when the probe is recomputed (probe.ver). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "view_train.h"

#define PROBE_KEY_TAG 0xA7ull /* heat-cache keys of this view (top byte) */

static const StageId ATTN_STAGE[TV_ATTN_COUNT] = {ST_DEC_CROSS_WEIGHTS, ST_ENC_SELF_WEIGHTS,
                                                  ST_DEC_SELF_WEIGHTS};
static const char *const ATTN_NAME[TV_ATTN_COUNT] = {N_("Cross-attention"), N_("Encoder self-attention"),
                                                     N_("Decoder self-attention")};
static const char *const ATTN_SHORT[TV_ATTN_COUNT] = {N_("cross"), N_("encoder"), N_("decoder")};

int tv_attn_layers(const TrainShow *t, TvAttn a)
{
    return a == TV_ENC ? t->cfg.n_enc : t->cfg.n_dec;
}

static int attn_layers(const ViewCtx *v, const TrainUi *u)
{
    return tv_attn_layers(v->s->train, u->attn);
}

/* ---- drawing ---- */

/* A label in the small font, then text in the big one, on one line. */
static int labelled(ViewCtx *v, const char *label, int lw, int x, int y, int w)
{
    RenFont *f = v->g->ui, *sf = v->g->small;
    int fh = ren_font_height(f);
    ui_text_fit(v->r, sf, label, x, y + (fh - ren_font_height(sf)) / 2, lw, v->th->dim);
    (void)w;
    return x + lw;
}

/* The sentence, its truth, and what the model says now, one a line. */
static int draw_sentences(ViewCtx *v, Rect rc)
{
    const TrainShow *t = v->s->train;
    const Theme *th = v->th;
    RenFont *f = v->g->ui, *sf = v->g->small;
    int fh = ren_font_height(f), y = rc.y, right = rc.x + rc.w, line = fh + ui_px(v->g, 2);
    const char *lab[3] = {_("probe"), _("truth"), _("model")};
    int lw = 0;
    for (int i = 0; i < 3; i++) {
        int w = ren_text_width(sf, lab[i]);
        lw = w > lw ? w : lw;
    }
    lw += ui_px(v->g, 10);
    int x = labelled(v, lab[0], lw, rc.x, y, rc.w);
    ui_text_fit(v->r, f, t->probe_src, x, y, right - x, th->text);
    y += line;
    x = labelled(v, lab[1], lw, rc.x, y, rc.w);
    ui_text_fit(v->r, f, t->probe_ref, x, y, right - x, th->text);
    y += line;
    x = labelled(v, lab[2], lw, rc.x, y, rc.w);
    int stale = t->probe.out_step != t->probe.step; /* a big model decodes when paused */
    if (t->probe.decoding) { /* a step a frame: the progress */
        char at[160];
        snprintf(at, sizeof at, _("Decoding step by step: %d of at most %d tokens"), t->probe.dec_t, t->probe.dec_max);
        x += ren_text(v->r, sf, at, x, y + (fh - ren_font_height(sf)) / 2, th->dim) + ren_text_width(sf, "  ");
    }
    if (stale && t->probe.out_n > 0) {
        char at[64];
        snprintf(at, sizeof at, _("(step %lld) "), t->probe.out_step);
        x += ren_text(v->r, sf, at, x, y + (fh - ren_font_height(sf)) / 2, th->dim);
    }
    int space = ren_text_width(f, " ");
    for (int i = 0; i < t->probe.out_n && x < right; i++) {
        int id = t->probe.out[i];
        const char *tok = vocab_token(&t->probe.model->tgt_vocab, id);
        int want = i < t->probe.ref_n ? t->probe.ref[i] : i == t->probe.ref_n ? TOK_EOS : -1;
        Color c = id == want ? th->good : th->bad;
        if (id == TOK_EOS && want == TOK_EOS)
            c = th->dim;
        int w = ren_text_width(f, tok);
        if (x + w > right) {
            ren_text(v->r, f, "…", x, y, th->dim);
            break;
        }
        x += ren_text(v->r, f, tok, x, y, c) + space;
    }
    if (t->probe.out_n == 0)
        ren_text(v->r, f, "…", x, y, th->dim);
    if (ui_over(v->in, (Rect){rc.x, y, rc.w, fh}))
        ui_hover_own(v, (float)t->probe.out_step, "%s",
                 _("greedy decoding, token by token, green where it matches the truth; at step"));
    return y + fh + ui_px(v->g, 6) - rc.y;
}

/* Attention kind, layer and head chips. */
static int draw_chips(ViewCtx *v, TrainUi *u, Rect rc)
{
    char buf[32];
    UiFlow f = ui_flow(v->ui, rc);
    for (int k = 0; k < TV_ATTN_COUNT; k++)
        if (ui_flow_button(&f, _(ATTN_SHORT[k]), u->attn == (TvAttn)k)) {
            u->attn = (TvAttn)k;
            if (u->layer >= attn_layers(v, u))
                u->layer = attn_layers(v, u) - 1;
        }
    f.x += ui_px(v->g, 8);
    ui_flow_text(&f, _("layer"), v->th->dim);
    for (int l = 0; l < attn_layers(v, u) && l < 12; l++) {
        snprintf(buf, sizeof buf, "%d", l + 1);
        if (ui_flow_button(&f, buf, u->layer == l && u->head >= 0)) {
            u->layer = l;
            if (u->head < 0)
                u->head = 0;
        }
    }
    f.x += ui_px(v->g, 8);
    ui_flow_text(&f, _("head"), v->th->dim);
    for (int h = 0; h < v->s->train->cfg.n_heads && h < 16; h++) {
        snprintf(buf, sizeof buf, "%d", h + 1);
        if (ui_flow_button(&f, buf, u->head == h))
            u->head = h;
    }
    if (ui_flow_button(&f, _("all"), u->head < 0))
        u->head = -1;
    return ui_flow_height(&f) + ui_px(v->g, 6);
}

static RenImage *attn_image(ViewCtx *v, TrainUi *u, const TfView *tv, int layer, int head)
{
    uint64_t key = (PROBE_KEY_TAG << 56) |
                   heat_key(ATTN_STAGE[u->attn], layer, head, 0, v->s->cmap_prob, 0x7A17);
    return heat_image(v->g, v->s->train->probe.ver, key, tv, 0.0f, 1.0f, v->s->cmap_prob,
                      cmap_pack(v->th->masked));
}

static void set_cell_hover(ViewCtx *v, const TfView *tv, int r, int c)
{
    const TrainShow *t = v->s->train;
    char rl[128], cl[128];
    view_tok_label(t->probe.trace, t->probe.model, tv, 0, r, rl, sizeof rl);
    view_tok_label(t->probe.trace, t->probe.model, tv, 1, c, cl, sizeof cl);
    ui_hover_own(v, tf_view_at(tv, r, c), _("step %lld · layer %d head %d · '%s' → '%s'"), t->probe.step,
             tv->layer + 1, tv->head + 1, rl, cl);
}

/* Black or white text, whichever reads on the cell's colour. */
static Color ink_on(const ViewCtx *v, float t)
{
    return cmap_ink_on_rgba(cmap_lut_get(&v->g->lut[v->s->cmap_prob], t));
}

/* Token labels of one axis. Keys go above the columns on two staggered
 * lines, so neighbours that would touch take turns; queries go left of
 * the rows, and one that would touch the one above is left out. */
static void draw_labels(ViewCtx *v, const TfView *tv, Rect grid, float c, int axis)
{
    const TrainShow *t = v->s->train;
    RenFont *f = v->g->small;
    int fh = ren_font_height(f), n = axis ? tv->cols : tv->rows, sp = ui_px(v->g, 3);
    int last[2] = {-(1 << 30), -(1 << 30)};
    char buf[128];
    for (int i = 0; i < n; i++) {
        view_tok_label(t->probe.trace, t->probe.model, tv, axis, i, buf, sizeof buf);
        int w = ren_text_width(f, buf);
        if (axis) {
            int x = grid.x + (int)lroundf((i + 0.5f) * c) - w / 2;
            int row = x >= last[0] + sp ? 0 : x >= last[1] + sp ? 1 : -1;
            if (row < 0)
                continue;
            ren_text(v->r, f, buf, x, grid.y - (row + 1) * fh - sp, v->th->text);
            last[row] = x + w;
        } else {
            int y = grid.y + (int)lroundf((i + 0.5f) * c) - fh / 2;
            if (y < last[0])
                continue;
            ren_text(v->r, f, buf, grid.x - w - ui_px(v->g, 6), y, v->th->text);
            last[0] = y + fh;
        }
    }
}

/* One head, big: labels, cells (numbers when they fit), colour bar.
 * Returns the height used. Pass 0 draws what stays until the probe or the
 * choice of head changes, pass 1 the cell under the mouse. */
static int draw_one(ViewCtx *v, TrainUi *u, Rect rc, int pass)
{
    const Scene *sc = v->s;
    const Theme *th = v->th;
    RenFont *sf = v->g->small;
    const TrainShow *t = v->s->train;
    TfView tv;
    TfErr err;
    if (tf_view(t->probe.trace, ATTN_STAGE[u->attn], u->layer, u->head, 0, &tv, &err))
        return pass ? ui_paragraph_height(sf, err.msg, rc.w) : ui_paragraph(v->r, sf, err.msg, rc.x, rc.y, rc.w, th->warn);
    int fh = ren_font_height(sf);
    if (!pass) {
        char cap[160];
        snprintf(cap, sizeof cap, _("%s · layer %d · head %d"), _(ATTN_NAME[u->attn]), u->layer + 1,
                 u->head + 1);
        ui_text_fit(v->r, sf, cap, rc.x, rc.y, rc.w, th->dim);
    }
    int lab_w = 0;
    char buf[128];
    for (int i = 0; i < tv.rows; i++) {
        int w = ren_text_width(sf, view_tok_label(t->probe.trace, t->probe.model, &tv, 0, i, buf, sizeof buf));
        lab_w = w > lab_w ? w : lab_w;
    }
    lab_w += ui_px(v->g, 10);
    int cb_w = ui_px(v->g, 60), top = fh + ui_px(v->g, 6) + 2 * fh + ui_px(v->g, 4);
    float c = fminf((float)(rc.w - lab_w - cb_w) / tv.cols, (float)(rc.h - top - fh - 4) / tv.rows);
    c = fminf(c, 64.0f * v->g->scale);
    if (c < 2)
        return 0;
    c = c >= 8 ? floorf(c) : c;
    Rect grid = {rc.x + lab_w, rc.y + top, (int)lroundf(c * tv.cols), (int)lroundf(c * tv.rows)};
    int bar = 4 * fh > grid.h ? 4 * fh : grid.h;
    if (pass) {
        int kr, kc, keyed = view_key_cell(v, tv.rows, tv.cols, &kr, &kc); /* the keyboard's cell */
        if (ui_over(v->in, grid)) {
            int k = (int)((v->in->mx - grid.x) / c), r = (int)((v->in->my - grid.y) / c);
            if (r >= 0 && r < tv.rows && k >= 0 && k < tv.cols) {
                set_cell_hover(v, &tv, r, k);
                ren_rect_line(v->r, (Rect){grid.x + (int)lroundf(k * c) - 1, grid.y + (int)lroundf(r * c) - 1,
                                           (int)c + 2, (int)c + 2}, 2, th->select);
            }
        } else if (keyed) {
            set_cell_hover(v, &tv, kr, kc);
            view_key_outline(v, (Rect){grid.x + (int)lroundf(kc * c), grid.y + (int)lroundf(kr * c), (int)c, (int)c});
        }
        return top + bar + fh + 4;
    }
    RenImage *img = attn_image(v, u, &tv, u->layer, u->head);
    if (img)
        ren_image_draw(v->r, img, (Rect){0, 0, 0, 0}, grid);
    ren_rect_line(v->r, (Rect){grid.x - 1, grid.y - 1, grid.w + 2, grid.h + 2}, 1, th->border);
    draw_labels(v, &tv, grid, c, 0);
    draw_labels(v, &tv, grid, c, 1);
    if (c >= ren_text_width(sf, "0.00") + ui_px(v->g, 3) && c >= fh + 2)
        for (int r = 0; r < tv.rows; r++)
            for (int k = 0; k < tv.cols; k++) {
                float x = tf_view_at(&tv, r, k);
                snprintf(buf, sizeof buf, "%.2f", (double)x);
                Rect cell = {grid.x + (int)lroundf(k * c), grid.y + (int)lroundf(r * c), (int)c, (int)c};
                ui_text_center(v->r, sf, buf, cell, ink_on(v, x));
            }
    ui_colorbar(v, (Rect){grid.x + grid.w + ui_px(v->g, 14), grid.y, ui_px(v->g, 12),
                          grid.h > 4 * fh ? grid.h : 4 * fh},
                sc->cmap_prob, 0, 1, NULL);
    ui_text_fit(v->r, sf, _("rows: queries · columns: keys · each row sums to 1"), rc.x, grid.y + bar + 4,
                rc.w, th->dim);
    return top + bar + fh + 4;
}

/* Every layer (down) and head (across): heads forming, side by side.
 * Pass 0 draws the tiles, pass 1 the one under the mouse and its click,
 * or else (keys) the keyboard's cell: Ctrl+PgUp / PgDn the tile (layer by
 * layer, head by head), Ctrl+arrows the cell in it. */
static void draw_all(ViewCtx *v, TrainUi *u, Rect rc, int pass, int keys)
{
    const Theme *th = v->th;
    RenFont *sf = v->g->small;
    const TrainShow *t = v->s->train;
    int fh = ren_font_height(sf), NL = attn_layers(v, u), NH = t->cfg.n_heads;
    TfView tv;
    TfErr err;
    if (tf_view(t->probe.trace, ATTN_STAGE[u->attn], 0, 0, 0, &tv, &err))
        return;
    char buf[160];
    snprintf(buf, sizeof buf, _("%s · %d layers × %d heads · click one to see it big"), _(ATTN_NAME[u->attn]),
             NL, NH);
    if (!pass)
        ui_text_fit(v->r, sf, buf, rc.x, rc.y, rc.w, th->dim);
    int cap_w = ren_text_width(sf, "L00") + ui_px(v->g, 8), gap = ui_px(v->g, 6);
    int top = fh + ui_px(v->g, 6) + fh + ui_px(v->g, 2);
    float c = fminf((float)(rc.w - cap_w - (NH - 1) * gap) / (float)(NH * tv.cols),
                    (float)(rc.h - top - (NL - 1) * gap) / (float)(NL * tv.rows));
    c = fminf(c, 40.0f * v->g->scale);
    if (c < 1.5f) {
        if (!pass)
            ui_paragraph(v->r, sf, _("Too many heads for this space: press 1-9 to see one head."), rc.x,
                         rc.y + top, rc.w, th->dim);
        return;
    }
    c = c >= 4 ? floorf(c) : c;
    int tw = (int)lroundf(c * tv.cols), thh = (int)lroundf(c * tv.rows);
    int kt = -1, kr = 0, kc = 0;
    Rect tiles = {rc.x + cap_w, rc.y + top, NH * (tw + gap), NL * (thh + gap)};
    if (pass && keys) { /* the keyboard's tile, unless the mouse is over the tiles */
        int on = view_key_thumb(v, 0, NL * NH, &kt);
        on = view_key_cell(v, tv.rows, tv.cols, &kr, &kc) && on;
        if (!on || ui_over(v->in, tiles))
            kt = -1;
    }
    for (int h = 0; h < NH && !pass; h++) {
        snprintf(buf, sizeof buf, _("head %d"), 10);
        int wide = tw >= ren_text_width(sf, buf);
        snprintf(buf, sizeof buf, wide ? _("head %d") : "%d", h + 1);
        ui_text_center(v->r, sf, buf, (Rect){rc.x + cap_w + h * (tw + gap), rc.y + fh + ui_px(v->g, 4), tw, fh},
                       th->dim);
    }
    for (int l = 0; l < NL; l++) {
        int y = rc.y + top + l * (thh + gap);
        snprintf(buf, sizeof buf, "L%d", l + 1);
        if (!pass)
            ren_text(v->r, sf, buf, rc.x, y + (thh - fh) / 2, l == u->layer ? th->accent : th->dim);
        for (int h = 0; h < NH; h++) {
            if (tf_view(t->probe.trace, ATTN_STAGE[u->attn], l, h, 0, &tv, &err))
                continue;
            Rect tile = {rc.x + cap_w + h * (tw + gap), y, tw, thh};
            Rect edge = {tile.x - 1, tile.y - 1, tile.w + 2, tile.h + 2};
            if (!pass) {
                RenImage *img = attn_image(v, u, &tv, l, h);
                if (img)
                    ren_image_draw(v->r, img, (Rect){0, 0, 0, 0}, tile);
                ren_rect_line(v->r, edge, 1, th->border);
                continue;
            }
            if (l * NH + h == kt) {
                view_key_outline(v, (Rect){tile.x + (int)lroundf(kc * c), tile.y + (int)lroundf(kr * c),
                                           (int)ceilf(c), (int)ceilf(c)});
                set_cell_hover(v, &tv, kr, kc);
            }
            if (!ui_over(v->in, tile))
                continue;
            ren_rect_line(v->r, edge, 1, th->select); /* opaque: over the border */
            int k = (int)((v->in->mx - tile.x) / c), r = (int)((v->in->my - tile.y) / c);
            if (r >= 0 && r < tv.rows && k >= 0 && k < tv.cols)
                set_cell_hover(v, &tv, r, k);
            if (ui_clicked(v->in, tile)) {
                u->layer = l;
                u->head = h;
            }
        }
    }
}

static void heads_pass(ViewCtx *v, TrainUi *u, Rect body, int pass)
{
    long long shown = v->s->train->probe.step;
    if (shown >= 0 && body.h > 30 && u->head < 0) {
        draw_all(v, u, body, pass, 1);
    } else if (shown >= 0 && body.h > 30) {
        /* the head big, and every head below it when there is room */
        int used = draw_one(v, u, body, pass) + ui_px(v->g, 16);
        int fh = ren_font_height(v->g->small);
        Rect rest = {body.x, body.y + used, body.w, body.h - used};
        if (rest.h >= 3 * fh + attn_layers(v, u) * ui_px(v->g, 28))
            draw_all(v, u, rest, pass, 0); /* the keyboard's cell is in the big one */
    }
}

/* What the heatmaps' layer shows (with the probe's version). */
static uint64_t heads_key(const ViewCtx *v, const TrainUi *u, Rect body)
{
    const TrainShow *t = v->s->train;
    uint64_t w[] = {t->probe.gen, (uint64_t)t->probe.step, (uint64_t)u->attn, (uint64_t)u->layer,
                    (uint64_t)u->head, (uint64_t)v->s->cmap_prob};
    return ui_layer_key(v, PROBE_KEY_TAG, body, w, (int)(sizeof w / sizeof w[0]));
}

void tv_probe_draw(ViewCtx *v, TrainUi *u, Rect rc)
{
    const Theme *th = v->th;
    const TrainShow *t = v->s->train;
    const char *err = t->probe.err ? t->probe.err : "";
    if (!t->probe.have || rc.h < 40) {
        if (err[0])
            ui_paragraph(v->r, v->g->small, err, rc.x, rc.y, rc.w, th->warn);
        return;
    }
    ren_clip_push(v->r, rc);
    int y = rc.y;
    y += draw_sentences(v, (Rect){rc.x, y, rc.w, rc.h});
    y += draw_chips(v, u, (Rect){rc.x, y, rc.w, rc.h});
    Rect body = {rc.x, y, rc.w, rc.y + rc.h - y};
    if (err[0]) {
        ui_paragraph(v->r, v->g->small, err, body.x, body.y, body.w, th->warn);
    } else if (body.h > 0) {
        /* the heatmaps change with the probe (a few times a second while
         * training) or the head chosen: drawn once into a layer, the
         * marks of the mouse over them each frame */
        GfxLayer L;
        if (gfx_layer_begin(v->g, &L, t->probe.ver, heads_key(v, u, body), body, th->bg))
            heads_pass(v, u, body, 0);
        gfx_layer_end(v->g, &L);
        heads_pass(v, u, body, 1);
    }
    ren_clip_pop(v->r);
}
