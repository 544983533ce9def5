/* view_lens.c - the logit lens: what the decoder would say if it stopped
 * after each layer. One row per decoder layer (the last is the output the
 * model gives), one column per decoder position: the k most probable next
 * tokens with their probabilities, and the rank of the reference token
 * (the next decoder input; <eos> after the last). Watching a column from
 * the top row down shows the layer where the answer appears. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "view.h"

static void lens_draw(ViewCtx *v)
{
    const Scene *sc = v->s;
    const SceneLens *l = sc->lens;
    RenFont *ui = v->g->ui, *f = v->g->small;
    int fh = ren_font_height(f), uh = ren_font_height(ui);
    float s = v->g->scale;
    Rect a = {v->area.x + 8, v->area.y + 6, v->area.w - 16, v->area.h - 12};
    ui_text_fit(v->r, ui, _("Logit lens · what the decoder would output after each layer"), a.x, a.y, a.w,
                v->th->text);
    int y = a.y + uh + 2;
    y += ui_paragraph(v->r, f,
                      _("Each row applies the output layer to one decoder layer's result: softmax(W_gen · n(y_L) + "
                        "b), n the final norm of a pre-LN model. The last row is the model's output. "
                        "Under each cell: the rank of the reference token (the next decoder input)."),
                      a.x, y, a.w, v->th->dim);
    y += 8;
    if (!l || l->T < 1) {
        ui_paragraph(v->r, f, _("The lens needs the decoder: type a source sentence."), a.x, y, a.w, v->th->warn);
        return;
    }
    const TfModel *m = sc->model;
    int lab_w = ren_text_width(f, _("layer 10 (output)")) + (int)(12 * s);
    int min_cw = (int)(84 * s), cols = l->T;
    int cw = cols > 0 ? (a.w - lab_w) / cols : 0;
    int shown = cols, first = 0;
    if (cw < min_cw) {
        shown = (a.w - lab_w) / min_cw;
        cw = min_cw;
    }
    if (shown < 1)
        return;
    /* too many positions: the columns follow the target token selected */
    if (shown < cols && sc->sel.side == 2 && sc->sel.index >= shown)
        first = (sc->sel.index < cols ? sc->sel.index : cols - 1) - shown + 1;
    /* the keyboard's cell (row a layer, column a position), unless the
     * mouse is over the grid; the columns follow it too */
    int kr = -1, kc = -1;
    Rect grid = {a.x + lab_w, y + 2 * (fh + 2) + 4, shown * cw, a.y + a.h - y};
    int keys = view_key_cell(v, l->layers, cols, &kr, &kc) && !ui_over(v->in, grid);
    if (keys && shown < cols && (kc < first || kc >= first + shown))
        first = kc < first ? kc : kc - shown + 1;
    int line = fh + 2, ch = l->k * line + line + (int)(8 * s);
    int head_h = 2 * line + 4;
    int room = a.y + a.h - y - head_h;
    if (l->layers * ch > room && room > 0)
        ch = room / l->layers;
    /* the columns' headers: the decoder input at each position */
    char buf[320], tok[300];
    const TfTrace *tr = sc->trace;
    for (int c = 0; c < shown; c++) {
        int t = first + c, x = a.x + lab_w + c * cw;
        view_token(&m->tgt_vocab, tr->tgt_ids[(size_t)sc->batch * tr->T + t], tok, sizeof tok);
        snprintf(buf, sizeof buf, _("after %s"), tok);
        ui_text_fit(v->r, f, buf, x + 4, y, cw - 8, v->th->dim);
        view_token(&m->tgt_vocab, l->ref_id[t], tok, sizeof tok);
        snprintf(buf, sizeof buf, _("ref. %s"), tok);
        ui_text_fit(v->r, f, buf, x + 4, y + line, cw - 8, v->th->accent);
    }
    y += head_h;
    for (int li = 0; li < l->layers; li++) {
        int ry = y + li * ch, last = li == l->layers - 1;
        snprintf(buf, sizeof buf, last ? _("layer %d (output)") : _("layer %d"), li + 1);
        ui_text_fit(v->r, f, buf, a.x, ry + 4, lab_w - 8, last ? v->th->accent : v->th->text);
        for (int c = 0; c < shown; c++) {
            int t = first + c;
            Rect cell = {a.x + lab_w + c * cw, ry, cw - 4, ch - 4};
            ren_rect(v->r, cell, last ? v->th->panel2 : v->th->panel);
            const int *ids = l->ids + ((size_t)li * l->T + t) * l->k;
            const float *p = l->p + ((size_t)li * l->T + t) * l->k;
            for (int k = 0; k < l->k; k++) {
                int ly = cell.y + 4 + k * line;
                if (ly + fh > cell.y + cell.h)
                    break;
                view_token(&m->tgt_vocab, ids[k], tok, sizeof tok);
                /* a bar for the probability under the token */
                ren_rect(v->r, (Rect){cell.x + 2, ly + 1, (int)((cell.w - 4) * p[k]), fh - 2},
                         ui_mix(cell.w ? v->th->panel : v->th->panel, v->th->accent, 0.35f));
                snprintf(buf, sizeof buf, "%s %.2f", tok, p[k]);
                ui_text_fit(v->r, f, buf, cell.x + 4, ly, cell.w - 8,
                            ids[k] == l->ref_id[t] ? v->th->good : v->th->text);
            }
            int rank = l->ref_rank[(size_t)li * l->T + t];
            int ly = cell.y + 4 + l->k * line;
            if (ly + fh <= cell.y + cell.h) {
                snprintf(buf, sizeof buf, _("ref. rank %d"), rank);
                ui_text_fit(v->r, f, buf, cell.x + 4, ly, cell.w - 8, rank == 1 ? v->th->good : v->th->warn);
            }
            int keyed = keys && kr == li && kc == t;
            if (ui_over(v->in, cell) || keyed) {
                if (keyed)
                    view_key_outline(v, cell);
                else
                    ren_rect_line(v->r, cell, 1, v->th->select);
                view_token(&m->tgt_vocab, ids[0], tok, sizeof tok);
                ui_hover_own(v, p[0], _("layer %d, position %d: top %s %.4f; reference rank %d (p %.4f)"), li + 1,
                             t, tok, p[0], rank, l->ref_p[(size_t)li * l->T + t]);
            }
        }
    }
    if (shown < l->T) {
        snprintf(buf, sizeof buf, _("positions %d–%d of %d shown: click a target token (or widen the window) for the rest"),
                 first + 1, first + shown, l->T);
        ui_text_fit(v->r, f, buf, a.x, a.y + a.h - fh, a.w, v->th->dim);
    }
}

static void view_lens(ViewCtx *v)
{
    ui_draw_inside(v, lens_draw);
}

const ViewDef VIEW_LENS_DEF = {"lens", N_("Lens"), view_lens, NULL, 0, NULL, VIEW_NEED_ALL, VIEW_WANT_LENS};
