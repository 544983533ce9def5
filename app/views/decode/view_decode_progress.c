/* view_decode_progress.c - the decode view while the session decodes.
 *
 * The window decodes step by step between frames (session.c), so a
 * base-size model never freezes it: until the greedy translation is made
 * the view shows the tokens generated so far and how far it has got; then
 * it takes the session's decode (every step's attention rows included)
 * instead of decoding the sentence a second time. */
#include <stdio.h>
#include <string.h>

#include "session.h"
#include "text.h"
#include "view_decode.h"

int dec_from_session(const Scene *sc, DecodeUi *d, int b)
{
    const Session *s = sc->ses;
    d->pending = 0;
    if (b != 0 || d->S != s->src_n[0])
        return -1; /* only sentence 0 keeps its steps */
    if (session_decoding(s, NULL, NULL)) {
        d->pending = 1;
        return 0;
    }
    if (s->greedy.n < 1 || !s->greedy.steps || s->greedy.S != d->S)
        return -1;
    const TfConfig *c = &sc->model->cfg;
    return decode_result_copy(&d->gen, &s->greedy, c->n_dec, c->n_heads) == 0 ? 1 : -1;
}

int dec_decoded(const Scene *sc, const DecodeUi *d)
{
    return d->pending && !d->gen_on && !session_decoding(sc->ses, NULL, NULL);
}

void dec_draw_progress_of(ViewCtx *v, Rect body, const char *line, int done, int max_out,
                          const int *ids, int n)
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
    if (n > 0) {
        char toks[1024];
        tf_text_decode_to(v->s->model, ids, n, toks, sizeof toks);
        ui_paragraph(v->r, v->g->ui, toks, x, y, w, th->dim);
    }
}

void dec_progress_line(char *buf, size_t cap, int done, int max_out)
{
    snprintf(buf, cap, _("Decoding step by step: %d of at most %d tokens"), done, max_out);
}

void dec_draw_progress(ViewCtx *v, const DecodeUi *d, Rect body)
{
    const Session *s = v->s->ses;
    int done = 0, max_out = 0;
    char line[256];
    if (d->gen_on) { /* the view's own: forced tokens or an experiment */
        const TfDecoder *g = &d->gdec;
        dec_progress_line(line, sizeof line, g->t, g->max_out);
        dec_draw_progress_of(v, body, line, g->t, g->max_out, g->res.ids, g->res.n);
        return;
    }
    if (d->tf_wait || d->tfo_on) { /* the generation is there, the pass beside it not yet: how far it is */
        int pad = ui_px(v->g, 10);
        int h = ui_paragraph(v->r, v->g->ui, _("Teacher forcing · training"), body.x + pad, body.y + pad,
                             body.w - 2 * pad, v->th->accent);
        if (d->tfo_on) /* the view's own pass */
            ses_pass_progress(v->s->model, &d->tfo, &done, &max_out);
        else
            session_pass_ready(s, &done, &max_out);
        dec_draw_progress_of(v, (Rect){body.x, body.y + h + pad / 2, body.w, body.h - h - pad / 2},
                             d->ref ? _("reads the true target, every position in one pass")
                                    : _("reads the greedy output (no reference typed), in one pass"),
                             done, max_out, d->gen.ids, d->gen.n);
        return;
    }
    session_decoding(s, &done, &max_out);
    if (max_out > 0)
        dec_progress_line(line, sizeof line, done, max_out);
    else
        snprintf(line, sizeof line, "%s", _("Decoding: encoding the source"));
    int on = s->gdec.on && s->gdec.dec.res.n > 0;
    dec_draw_progress_of(v, body, line, done, max_out, on ? s->gdec.dec.res.ids : NULL, on ? s->gdec.dec.res.n : 0);
}
