/* view_decode_draw.c - small drawing helpers the decode view's panes share:
 * token text, the decoder input of a step, the progress mark while the lab
 * still decodes (the window decodes step by step between frames, so a
 * base-size model never freezes it: until the results are made the view
 * shows the tokens generated so far and how far it has got), and the line
 * naming the experiment the view decodes under. They call nothing of the
 * panes. */
#include <stdio.h>
#include <string.h>

#include "view_decode.h"

const char *dec_tok(const Scene *sc, int id)
{
    static char buf[8][VOCAB_MAX_TOKEN_BYTES + 1]; /* a few alive at once (one frame's labels) */
    static int next;
    next = (next + 1) % 8;
    return view_token(&sc->model->tgt_vocab, id, buf[next], sizeof buf[next]);
}

int dec_gen_input(const DecShow *sh, int s)
{
    if (s <= 0)
        return sh->start_id;
    return s <= sh->gen_n ? sh->gen_ids[s - 1] : -1; /* past the output: nothing read there */
}

void dec_draw_progress_of(ViewCtx *v, Rect body, const char *line, int done, int max_out, const char *text)
{
    const Theme *th = v->th;
    int pad = ui_px(v->g, 10);
    int x = body.x + pad, y = body.y + pad, w = body.w - 2 * pad;
    y += ui_paragraph(v->r, v->g->ui, line, x, y, w, th->text) + pad / 2;
    /* the progress bar: the steps made of the longest output tried */
    int bh = ui_px(v->g, 8);
    ren_rect_line(v->r, (Rect){x, y, w, bh}, 1, th->border);
    if (max_out > 0)
        ren_rect(v->r, (Rect){x, y, (int)((double)w * done / max_out), bh}, th->select);
    y += bh + pad;
    if (text && text[0])
        ui_paragraph(v->r, v->g->ui, text, x, y, w, th->dim);
}

void dec_progress_line(char *buf, size_t cap, int done, int max_out)
{
    snprintf(buf, cap, _("Decoding step by step: %d of at most %d tokens"), done, max_out);
}

void dec_draw_progress(ViewCtx *v, const DecShow *sh, Rect body)
{
    const DecProgress *p = &sh->prog;
    char line[256];
    if (p->tf) { /* the generation is there, the pass beside it not yet: how far it is */
        int pad = ui_px(v->g, 10);
        int h = ui_paragraph(v->r, v->g->ui, _("Teacher forcing · training"), body.x + pad, body.y + pad,
                             body.w - 2 * pad, v->th->accent);
        dec_draw_progress_of(v, (Rect){body.x, body.y + h + pad / 2, body.w, body.h - h - pad / 2},
                             sh->ref ? _("reads the true target, every position in one pass")
                                     : _("reads the greedy output (no reference typed), in one pass"),
                             p->done, p->total, p->text);
        return;
    }
    if (p->total > 0)
        dec_progress_line(line, sizeof line, p->done, p->total);
    else
        snprintf(line, sizeof line, "%s", _("Decoding: encoding the source"));
    dec_draw_progress_of(v, body, line, p->done, p->total, p->text);
}

int dec_exp_line(ViewCtx *v, int x, int y, int w)
{
    const Scene *sc = v->s;
    const DecShow *sh = sc->dec;
    if (!sh->exp)
        return 0;
    char desc[256], buf[2600];
    tf_exp_describe(sh->exp, desc, sizeof desc);
    const char *after = sh->exp_pending ? "…" : sh->translation; /* still decoding */
    if (sc->cmp == 1)
        snprintf(buf, sizeof buf, _("the normal pass (D) · the experiment (%s) translates it as %s"), desc, after);
    else
        snprintf(buf, sizeof buf, _("decoding under the experiment (%s) · greedy before → after: %s → %s"), desc,
                 sh->base_translation, after);
    RenFont *f = v->g->small;
    ui_text_fit(v->r, f, buf, x, y, w, v->th->warn);
    return ren_font_height(f) + ui_px(v->g, 6);
}
