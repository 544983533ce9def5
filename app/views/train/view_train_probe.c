/* view_train_probe.c - the probe sentence of the train view.
 *
 * One fixed sentence of the task (a showcase sentence such as "i read
 * books at home today" for en2zh, "attention" for the string tasks, the
 * first held-out pair of a TSV file) is run through the model of the step
 * shown: live while training, or a kept snapshot on the timeline. Two
 * passes, on the view's own copy of the parameters:
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
 * again only when the probe is recomputed (probe_ver). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "view_train.h"

#define PROBE_KEY_TAG 0xA7ull /* heat-cache keys of this view (top byte) */

static const StageId ATTN_STAGE[TV_ATTN_COUNT] = {ST_DEC_CROSS_WEIGHTS, ST_ENC_SELF_WEIGHTS,
                                                  ST_DEC_SELF_WEIGHTS};
static const char *const ATTN_NAME[TV_ATTN_COUNT] = {N_("Cross-attention"), N_("Encoder self-attention"),
                                                     N_("Decoder self-attention")};
static const char *const ATTN_SHORT[TV_ATTN_COUNT] = {N_("cross"), N_("encoder"), N_("decoder")};

/* ---- the model and the passes ---- */

void tv_probe_greedy_cancel(TrainUi *u);

void tv_probe_free(TrainUi *u)
{
    tv_probe_greedy_cancel(u);
    if (u->have_pm)
        model_free(&u->pm);
    if (u->have_ptr)
        trace_free(&u->ptr);
    if (u->have_gtr)
        trace_free(&u->gtr);
    u->have_pm = u->have_ptr = u->have_gtr = 0;
}

static int attn_layers(const TrainUi *u)
{
    return u->attn == TV_ENC ? u->pm.cfg.n_enc : u->pm.cfg.n_dec;
}

/* Ids of the probe and its reference in the run's vocabularies. */
static int probe_encode(TrainUi *u, TfErr *err)
{
    int T = u->pm.cfg.max_len < TV_CAP_T ? u->pm.cfg.max_len : TV_CAP_T, unk = 0;
    int n = vocab_encode(&u->pm.src_vocab, u->st.probe_src, u->psrc, NULL, T, &unk, err);
    if (n < 0)
        return -1;
    u->pS = n < T ? n : T;
    if (u->pS < 1)
        return tf_fail(err, "%s", _("the probe sentence is empty"));
    n = vocab_encode(&u->pm.tgt_vocab, u->st.probe_ref, u->pref, NULL, T - 1, NULL, err);
    if (n < 0)
        return -1;
    u->pref_n = n < T - 1 ? n : T - 1;
    return 0;
}

void tv_probe_new_run(TrainUi *u)
{
    TfErr err;
    tv_probe_free(u);
    u->pm_gen = u->st.gen; /* tried once per run, even when it fails */
    u->shown_step = -1;
    u->want_snap = -1;
    u->gen_n = 0;
    u->gen_step = -1;
    u->greedy_cost = 0;
    u->probe_err[0] = 0;
    if (tw_model_like(u->w, u->st.gen, &u->pm, &err)) {
        snprintf(u->probe_err, sizeof u->probe_err, "%s", err.msg);
        return;
    }
    u->have_pm = 1;
    const TfConfig *c = &u->pm.cfg;
    int T = c->max_len < 8 ? c->max_len : 8; /* small: the traces grow with the probe */
    if (trace_build(&u->ptr, c, 1, T, TRACE_RECORD, &err) == 0)
        u->have_ptr = 1;
    if (u->have_ptr && trace_build(&u->gtr, c, 1, T, 0, &err) == 0)
        u->have_gtr = 1;
    if (!u->have_gtr || probe_encode(u, &err)) {
        snprintf(u->probe_err, sizeof u->probe_err, "%s", err.msg);
        tv_probe_free(u);
        return;
    }
    int L = attn_layers(u);
    if (u->layer < 0 || u->layer >= L)
        u->layer = L - 1; /* the last layer: its heads align best */
    if (u->head >= c->n_heads)
        u->head = 0;
}

/* ---- what the model says on its own, a step at a time ----
 *
 * Greedy decoding, a little past the reference's length (enough to see
 * whether it stops in time). A base-size model takes tens of milliseconds a
 * step and a big one more (10 tokens: about 0.4 s and 0.7 s here), so the
 * probe decodes between frames like the session's targets: each call runs
 * steps while their weight reads stay within SES_DEC_FRAME_BYTES, at least
 * one (a classroom model still decodes in one call). New parameters in pm
 * cancel a decoding in flight (tv_probe_greedy_cancel). */

void tv_probe_greedy_cancel(TrainUi *u)
{
    if (u->pdec_on)
        tf_dec_free(&u->pdec);
    u->pdec_on = 0;
}

static void probe_fail(TrainUi *u, const TfErr *err)
{
    tv_probe_greedy_cancel(u);
    snprintf(u->probe_err, sizeof u->probe_err, "%s", err->msg);
}

int tv_probe_greedy_steps(TrainUi *u, int all)
{
    TfErr err;
    double t0 = tf_seconds();
    if (u->pdec_on && !u->pdec.done) {
        int t = u->pdec.t;
        if (tf_dec_run(&u->pdec, all ? 0 : SES_DEC_FRAME_BYTES, &err) < 0)
            probe_fail(u, &err);
        else
            u->pdec_steps += (unsigned)(u->pdec.t - t);
    }
    if (u->pdec_on && u->pdec.done) { /* no final pass (no_trace): only the hand-over */
        DecodeResult r;
        u->pdec_on = 0;
        if (tf_dec_finish(&u->pdec, &r, NULL, &err) == 0) {
            u->gen_n = r.n < TV_CAP_T ? r.n : TV_CAP_T;
            memcpy(u->gen_ids, r.ids, (size_t)u->gen_n * sizeof(int));
            u->gen_step = u->pdec_for;
            decode_result_free(&r);
        } else {
            snprintf(u->probe_err, sizeof u->probe_err, "%s", err.msg);
        }
    }
    u->greedy_cost += tf_seconds() - t0;
    return u->pdec_on;
}

void tv_probe_greedy(TrainUi *u)
{
    TfErr err;
    tv_probe_greedy_cancel(u);
    u->greedy_cost = 0;
    double t0 = tf_seconds();
    DecodeOpts o;
    decode_opts_default(&o);
    o.max_out = decode_max_out(&u->pm, &u->gtr, u->pS);
    if (o.max_out > u->pref_n + 3)
        o.max_out = u->pref_n + 3;
    o.no_trace = 1; /* only the tokens are shown */
    if (tf_dec_start(&u->pdec, &u->pm, &u->gtr, u->psrc, u->pS, &o, 0, &err)) {
        snprintf(u->probe_err, sizeof u->probe_err, "%s", err.msg);
        return;
    }
    u->pdec_on = 1;
    u->pdec_for = u->shown_step;
    u->pdec_steps++; /* the encoder counts as a step */
    u->greedy_cost = tf_seconds() - t0;
}

void tv_probe_run(TrainUi *u, int with_greedy)
{
    TfErr err;
    if (!u->have_pm || u->pS < 1)
        return;
    u->probe_err[0] = 0;
    if (with_greedy) {
        tv_probe_greedy(u);
        tv_probe_greedy_steps(u, 0);
    }
    /* teacher forced: <bos> + the reference, the pass training makes */
    if (tf_teacher_forced(&u->pm, &u->ptr, u->psrc, u->pS, u->pref, u->pref_n, NULL, NULL, NULL, &err))
        snprintf(u->probe_err, sizeof u->probe_err, "%s", err.msg);
    u->probe_ver++;
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
static int draw_sentences(ViewCtx *v, TrainUi *u, Rect rc)
{
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
    ui_text_fit(v->r, f, u->st.probe_src, x, y, right - x, th->text);
    y += line;
    x = labelled(v, lab[1], lw, rc.x, y, rc.w);
    ui_text_fit(v->r, f, u->st.probe_ref, x, y, right - x, th->text);
    y += line;
    x = labelled(v, lab[2], lw, rc.x, y, rc.w);
    int stale = u->gen_step != u->shown_step; /* a big model decodes when paused */
    if (u->pdec_on) { /* a step a frame: the progress */
        char at[160];
        snprintf(at, sizeof at, _("Decoding step by step: %d of at most %d tokens"), u->pdec.t, u->pdec.max_out);
        x += ren_text(v->r, sf, at, x, y + (fh - ren_font_height(sf)) / 2, th->dim) + ren_text_width(sf, "  ");
    }
    if (stale && u->gen_n > 0) {
        char at[64];
        snprintf(at, sizeof at, _("(step %lld) "), u->gen_step);
        x += ren_text(v->r, sf, at, x, y + (fh - ren_font_height(sf)) / 2, th->dim);
    }
    int space = ren_text_width(f, " ");
    for (int i = 0; i < u->gen_n && x < right; i++) {
        int id = u->gen_ids[i];
        const char *tok = vocab_token(&u->pm.tgt_vocab, id);
        int want = i < u->pref_n ? u->pref[i] : i == u->pref_n ? TOK_EOS : -1;
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
    if (u->gen_n == 0)
        ren_text(v->r, f, "…", x, y, th->dim);
    if (ui_over(v->in, (Rect){rc.x, y, rc.w, fh}))
        ui_hover_own(v, (float)u->gen_step, "%s",
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
            if (u->layer >= attn_layers(u))
                u->layer = attn_layers(u) - 1;
        }
    f.x += ui_px(v->g, 8);
    ui_flow_text(&f, _("layer"), v->th->dim);
    for (int l = 0; l < attn_layers(u) && l < 12; l++) {
        snprintf(buf, sizeof buf, "%d", l + 1);
        if (ui_flow_button(&f, buf, u->layer == l && u->head >= 0)) {
            u->layer = l;
            if (u->head < 0)
                u->head = 0;
        }
    }
    f.x += ui_px(v->g, 8);
    ui_flow_text(&f, _("head"), v->th->dim);
    for (int h = 0; h < u->pm.cfg.n_heads && h < 16; h++) {
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
    return heat_image(v->g, u->probe_ver, key, tv, 0.0f, 1.0f, v->s->cmap_prob,
                      cmap_pack(v->th->masked));
}

static void set_cell_hover(ViewCtx *v, TrainUi *u, const TfView *tv, int r, int c)
{
    char rl[128], cl[128];
    view_tok_label(&u->ptr, &u->pm, tv, 0, r, rl, sizeof rl);
    view_tok_label(&u->ptr, &u->pm, tv, 1, c, cl, sizeof cl);
    ui_hover_own(v, tf_view_at(tv, r, c), _("step %lld · layer %d head %d · '%s' → '%s'"), u->shown_step,
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
static void draw_labels(ViewCtx *v, TrainUi *u, const TfView *tv, Rect grid, float c, int axis)
{
    RenFont *f = v->g->small;
    int fh = ren_font_height(f), n = axis ? tv->cols : tv->rows, sp = ui_px(v->g, 3);
    int last[2] = {-(1 << 30), -(1 << 30)};
    char buf[128];
    for (int i = 0; i < n; i++) {
        view_tok_label(&u->ptr, &u->pm, tv, axis, i, buf, sizeof buf);
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
    TfView tv;
    TfErr err;
    if (tf_view(&u->ptr, ATTN_STAGE[u->attn], u->layer, u->head, 0, &tv, &err))
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
        int w = ren_text_width(sf, view_tok_label(&u->ptr, &u->pm, &tv, 0, i, buf, sizeof buf));
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
        if (ui_over(v->in, grid)) {
            int k = (int)((v->in->mx - grid.x) / c), r = (int)((v->in->my - grid.y) / c);
            if (r >= 0 && r < tv.rows && k >= 0 && k < tv.cols) {
                set_cell_hover(v, u, &tv, r, k);
                ren_rect_line(v->r, (Rect){grid.x + (int)lroundf(k * c) - 1, grid.y + (int)lroundf(r * c) - 1,
                                           (int)c + 2, (int)c + 2}, 2, th->select);
            }
        }
        return top + bar + fh + 4;
    }
    RenImage *img = attn_image(v, u, &tv, u->layer, u->head);
    if (img)
        ren_image_draw(v->r, img, (Rect){0, 0, 0, 0}, grid);
    ren_rect_line(v->r, (Rect){grid.x - 1, grid.y - 1, grid.w + 2, grid.h + 2}, 1, th->border);
    draw_labels(v, u, &tv, grid, c, 0);
    draw_labels(v, u, &tv, grid, c, 1);
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
 * Pass 0 draws the tiles, pass 1 the one under the mouse and its click. */
static void draw_all(ViewCtx *v, TrainUi *u, Rect rc, int pass)
{
    const Theme *th = v->th;
    RenFont *sf = v->g->small;
    int fh = ren_font_height(sf), NL = attn_layers(u), NH = u->pm.cfg.n_heads;
    TfView tv;
    TfErr err;
    if (tf_view(&u->ptr, ATTN_STAGE[u->attn], 0, 0, 0, &tv, &err))
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
            if (tf_view(&u->ptr, ATTN_STAGE[u->attn], l, h, 0, &tv, &err))
                continue;
            Rect t = {rc.x + cap_w + h * (tw + gap), y, tw, thh};
            Rect edge = {t.x - 1, t.y - 1, t.w + 2, t.h + 2};
            if (!pass) {
                RenImage *img = attn_image(v, u, &tv, l, h);
                if (img)
                    ren_image_draw(v->r, img, (Rect){0, 0, 0, 0}, t);
                ren_rect_line(v->r, edge, 1, th->border);
                continue;
            }
            if (!ui_over(v->in, t))
                continue;
            ren_rect_line(v->r, edge, 1, th->select); /* opaque: over the border */
            int k = (int)((v->in->mx - t.x) / c), r = (int)((v->in->my - t.y) / c);
            if (r >= 0 && r < tv.rows && k >= 0 && k < tv.cols)
                set_cell_hover(v, u, &tv, r, k);
            if (ui_clicked(v->in, t)) {
                u->layer = l;
                u->head = h;
            }
        }
    }
}

static void heads_pass(ViewCtx *v, TrainUi *u, Rect body, int pass)
{
    if (u->shown_step >= 0 && body.h > 30 && u->head < 0) {
        draw_all(v, u, body, pass);
    } else if (u->shown_step >= 0 && body.h > 30) {
        /* the head big, and every head below it when there is room */
        int used = draw_one(v, u, body, pass) + ui_px(v->g, 16);
        int fh = ren_font_height(v->g->small);
        Rect rest = {body.x, body.y + used, body.w, body.h - used};
        if (rest.h >= 3 * fh + attn_layers(u) * ui_px(v->g, 28))
            draw_all(v, u, rest, pass);
    }
}

/* What the heatmaps' layer shows (with the probe's version). */
static uint64_t heads_key(const ViewCtx *v, const TrainUi *u, Rect body)
{
    uint64_t w[] = {u->pm_gen, (uint64_t)u->shown_step, (uint64_t)u->attn, (uint64_t)u->layer,
                    (uint64_t)u->head, (uint64_t)v->s->cmap_prob};
    return ui_layer_key(v, PROBE_KEY_TAG, body, w, (int)(sizeof w / sizeof w[0]));
}

void tv_probe_draw(ViewCtx *v, TrainUi *u, Rect rc)
{
    const Theme *th = v->th;
    if (!u->have_pm || rc.h < 40) {
        if (u->probe_err[0])
            ui_paragraph(v->r, v->g->small, u->probe_err, rc.x, rc.y, rc.w, th->warn);
        return;
    }
    ren_clip_push(v->r, rc);
    int y = rc.y;
    y += draw_sentences(v, u, (Rect){rc.x, y, rc.w, rc.h});
    y += draw_chips(v, u, (Rect){rc.x, y, rc.w, rc.h});
    Rect body = {rc.x, y, rc.w, rc.y + rc.h - y};
    if (u->probe_err[0]) {
        ui_paragraph(v->r, v->g->small, u->probe_err, body.x, body.y, body.w, th->warn);
    } else if (body.h > 0) {
        /* the heatmaps change with the probe (a few times a second while
         * training) or the head chosen: drawn once into a layer, the
         * marks of the mouse over them each frame */
        GfxLayer L;
        if (gfx_layer_begin(v->g, &L, u->probe_ver, heads_key(v, u, body), body, th->bg))
            heads_pass(v, u, body, 0);
        gfx_layer_end(v->g, &L);
        heads_pass(v, u, body, 1);
    }
    ren_clip_pop(v->r);
}
