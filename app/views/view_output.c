/* view_output.c - what the model predicts next, position by position: for
 * every decoder input token, the k most probable next tokens of
 * softmax(logits) as horizontal bars on a fixed 0..1 scale, each with its
 * exact probability. The argmax (what greedy decoding would pick) is
 * highlighted. When the learner typed the target (teacher forcing), the
 * true next token is marked too: green when the argmax is right, red when
 * it is not, with its rank when it is not even in the top k.
 *
 * One card per position, "after '我' →", laid out in as many columns as fit;
 * k shrinks from 10 to 5 before the cards scroll (mouse wheel). The top-k
 * lists are computed once per trace (cached by sc->version), not per frame. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hash.h"
#include "topk.h"
#include "view.h"

#define OUT_KMAX 10
#define OUT_KMIN 5

/* The top-k of every position of one sentence, rebuilt when the trace or
 * the sentence changes. */
typedef struct TopK {
    uint64_t version, print; /* the trace's version and fingerprint */
    int b, n, V;
    int id[VIEW_CAP_T][OUT_KMAX];
    float p[VIEW_CAP_T][OUT_KMAX];
    int truth[VIEW_CAP_T];        /* true next token, or -1 (no typed target) */
    int truth_rank[VIEW_CAP_T];   /* 1-based rank of the true token */
    float truth_p[VIEW_CAP_T];
    /* search by token (a field of the view): the text, the token found
     * and its probability and rank at each position */
    char find[VIEW_TEXT_MAX];
    int find_id, find_for;           /* id (-1 none) and the id the ranks are for */
    uint64_t find_version, find_print;
    int find_rank[VIEW_CAP_T];
    float find_p[VIEW_CAP_T];
} TopK;

/* The view's state (owned by the window) is its TopK. */
#define TOP(v) ((TopK *)(v)->st)

typedef struct OutGeo {
    int cols, k, card_w, card_h, gap, bar_h, lab_w;
    int rows_total;  /* card rows */
    Rect body;
    int key_t, key_r; /* the keyboard's cell: position (card) and rank (bar); -1 none */
} OutGeo;

static const float *prob_row(const Scene *sc, int b, int t)
{
    const TfTrace *tr = sc->trace;
    return tr->probs + ((size_t)b * tr->T + t) * sc->model->cfg.tgt_vocab;
}

/* A few numbers of the trace folded together (FNV-1a): versions count per
 * session, so the version alone does not tell two sessions apart. */
static uint64_t fingerprint(const Scene *sc, int b)
{
    const TfTrace *tr = sc->trace;
    int head[4] = {tr->T, tr->tgt_len[b], sc->model->cfg.tgt_vocab, sc->tgt_auto};
    uint64_t k = tf_fnv_ints(TF_FNV_SEED, head, 4);
    const float *p = prob_row(sc, b, 0);
    for (int i = 0; i < 16 && i < sc->model->cfg.tgt_vocab; i++) {
        uint32_t u;
        memcpy(&u, &p[i], sizeof u);
        k = tf_fnv_word(k, u);
    }
    return k;
}

static void topk_update(ViewCtx *v, int b)
{
    const Scene *sc = v->s;
    TopK *T = TOP(v);
    uint64_t print = fingerprint(sc, b);
    if (T->V && T->version == sc->version && T->b == b && T->print == print)
        return;
    const TfTrace *tr = sc->trace;
    T->version = sc->version;
    T->print = print;
    T->b = b;
    T->V = sc->model->cfg.tgt_vocab;
    T->n = tr->tgt_len[b] < VIEW_CAP_T ? tr->tgt_len[b] : VIEW_CAP_T;
    int typed = b == 0 && !sc->tgt_auto;
    for (int t = 0; t < T->n; t++) {
        const float *p = prob_row(sc, b, t);
        tf_top_k(p, T->V, OUT_KMAX, T->id[t], T->p[t]);
        /* teacher forcing: after input token t comes target token t + 1,
         * and after the last one, <eos> */
        T->truth[t] = !typed ? -1 : t + 1 < T->n ? tr->tgt_ids[(size_t)b * tr->T + t + 1] : cfg_eos_id(&sc->model->cfg);
        if (T->truth[t] < 0 || T->truth[t] >= T->V)
            continue;
        float pt = p[T->truth[t]];
        int rank = 1;
        for (int k = 0; k < T->V; k++)
            rank += p[k] > pt;
        T->truth_p[t] = pt;
        T->truth_rank[t] = rank;
    }
}

/* The token the search field names: the text itself, else the word-start
 * piece ▁text (a sentencepiece vocabulary), the mark typed as · or _ too. */
static int find_token(const Vocab *voc, const char *q)
{
    char buf[VOCAB_MAX_TOKEN_BYTES + 4];
    size_t n = strlen(q);
    if (!n || n > VOCAB_MAX_TOKEN_BYTES)
        return -1;
    int id = vocab_find(voc, q, (int)n);
    if (id >= 0)
        return id;
    const char *rest = !strncmp(q, UI_WORD_MARK, 2) ? q + 2 : q[0] == '_' ? q + 1 : q;
    int k = snprintf(buf, sizeof buf, "\xe2\x96\x81%s", rest);
    return vocab_find(voc, buf, k);
}

static void find_update(ViewCtx *v)
{
    const Scene *sc = v->s;
    TopK *T = TOP(v);
    T->find_id = find_token(&sc->model->tgt_vocab, T->find);
    if (T->find_id < 0 || T->find_id >= T->V ||
        (T->find_for == T->find_id && T->find_version == T->version && T->find_print == T->print))
        return;
    for (int t = 0; t < T->n; t++) {
        const float *p = prob_row(sc, T->b, t);
        float pt = p[T->find_id];
        int rank = 1;
        for (int k = 0; k < T->V; k++)
            rank += p[k] > pt;
        T->find_p[t] = pt;
        T->find_rank[t] = rank;
    }
    T->find_for = T->find_id;
    T->find_version = T->version;
    T->find_print = T->print;
}

/* The search field at the right of the header's first line; returns its
 * width. */
static int find_field(ViewCtx *v, int right, int y)
{
    TopK *T = TOP(v);
    RenFont *f = v->g->small;
    int fh = ren_font_height(f), w = ui_px(v->g, 200);
    Rect box = {right - w, y, w, fh + 6};
    int warn = T->find[0] && T->find_id < 0; /* no such token */
    ui_textbox(v->ui, ui_id_ptr(v->ui, T->find), T->find, (int)sizeof T->find, box, _("find a token…"),
               UI_SMALL | (warn ? UI_WARN : 0));
    return w;
}

/* The searched token's line in a card. */
static void find_line(ViewCtx *v, Rect card, int y, int t)
{
    TopK *T = TOP(v);
    char buf[300], pv[32], tb[VOCAB_MAX_TOKEN_BYTES + 1];
    ui_fmt(pv, sizeof pv, T->find_p[t]);
    snprintf(buf, sizeof buf, _("'%s' (id %d): %s, rank %d of %d"),
             view_token(&v->s->model->tgt_vocab, T->find_id, tb, sizeof tb), T->find_id, pv, T->find_rank[t], T->V);
    ui_text_fit(v->r, v->g->small, buf, card.x + 8, y + 3, card.w - 16, v->th->accent2);
}

/* ---- layout ---- */

static int card_height(const ViewCtx *v, int k, int bar_h)
{
    int uh = ren_font_height(v->g->ui), fh = ren_font_height(v->g->small);
    int extra = TOP(v)->truth[0] >= 0 ? fh + 6 : 0; /* the "true next" line */
    extra += v->s->base ? fh + 2 : 0;                /* "before" / "after" */
    extra += TOP(v)->find_id >= 0 ? fh + 6 : 0;       /* the searched token */
    return uh + 12 + k * bar_h + extra + 8;
}

static void out_layout(ViewCtx *v, Rect body, OutGeo *G)
{
    float sc = v->g->scale;
    int fh = ren_font_height(v->g->small);
    G->body = body;
    G->gap = (int)(10 * sc);
    G->bar_h = fh + (int)(8 * sc);
    int min_w = (int)(250 * sc);
    G->cols = (body.w + G->gap) / (min_w + G->gap);
    if (G->cols < 1)
        G->cols = 1;
    if (G->cols > TOP(v)->n)
        G->cols = TOP(v)->n;
    G->card_w = (body.w - (G->cols - 1) * G->gap) / G->cols;
    G->rows_total = (TOP(v)->n + G->cols - 1) / G->cols;
    int kmax = TOP(v)->V < OUT_KMAX ? TOP(v)->V : OUT_KMAX;
    int kmin = kmax < OUT_KMIN ? kmax : OUT_KMIN;
    /* as many bars as fit without scrolling, at least 5 */
    for (G->k = kmax; G->k > kmin; G->k--)
        if (G->rows_total * (card_height(v, G->k, G->bar_h) + G->gap) <= body.h)
            break;
    G->card_h = card_height(v, G->k, G->bar_h);
    /* the token column: as wide as the longest token shown, within reason */
    RenFont *f = v->g->small;
    int w = ren_text_width(f, "<eos>");
    for (int t = 0; t < TOP(v)->n; t++)
        for (int r = 0; r < G->k && TOP(v)->id[t][r] >= 0; r++) {
            char tb[VOCAB_MAX_TOKEN_BYTES + 1];
            int k = ren_text_width(f, view_token(&v->s->model->tgt_vocab, TOP(v)->id[t][r], tb, sizeof tb));
            w = k > w ? k : w;
        }
    G->lab_w = w + 12;
    if (G->lab_w > G->card_w * 35 / 100)
        G->lab_w = G->card_w * 35 / 100;
}

/* ---- one card ---- */

static void set_hover(ViewCtx *v, int b, int t, int id, float p)
{
    const Scene *sc = v->s;
    const TfTrace *tr = sc->trace;
    Hover *h = &v->out->hover;
    h->valid = 1;
    h->stage = ST_OUT_PROBS;
    h->layer = 0;
    h->head = -1;
    h->b = b;
    h->row = t;
    h->col = id;
    h->value = p;
    char t1[VOCAB_MAX_TOKEN_BYTES + 1], t2[VOCAB_MAX_TOKEN_BYTES + 1], r[VOCAB_MAX_TOKEN_BYTES + 40],
        c[VOCAB_MAX_TOKEN_BYTES + 40];
    view_index_name(LBL_TGT, t, view_token(&sc->model->tgt_vocab, tr->tgt_ids[(size_t)b * tr->T + t], t1, sizeof t1),
                    r, sizeof r);
    view_index_name(LBL_VOCAB, id, view_token(&sc->model->tgt_vocab, id, t2, sizeof t2), c, sizeof c);
    snprintf(h->where, sizeof h->where, _("row %s, col %s"), r, c);
}

/* One bar: token, a track for 0..1, the fill, the probability. */
static void draw_bar(ViewCtx *v, const OutGeo *G, Rect row, int t, int r)
{
    const Theme *th = v->th;
    RenFont *f = v->g->small;
    int fh = ren_font_height(f);
    int id = TOP(v)->id[t][r];
    float p = TOP(v)->p[t][r];
    int is_truth = id == TOP(v)->truth[t];
    int argmax = r == 0, right = TOP(v)->truth[t] == TOP(v)->id[t][0];
    char buf[32], tb[VOCAB_MAX_TOKEN_BYTES + 1];
    const char *tok = view_token(&v->s->model->tgt_vocab, id, tb, sizeof tb);
    int ty = row.y + (row.h - fh) / 2;
    Color tc = argmax ? th->accent : th->text;
    if (is_truth)
        tc = right ? th->good : th->bad;
    int tw = ren_text_width(f, tok);
    ui_text_fit(v->r, f, tok, row.x + G->lab_w - 6 - (tw < G->lab_w - 6 ? tw : G->lab_w - 6), ty,
                G->lab_w - 6, tc);
    ui_fmt(buf, sizeof buf, p);
    int pw = ren_text_width(f, "0.0000") + 8;
    Rect track = {row.x + G->lab_w, row.y + 3, row.w - G->lab_w - pw, row.h - 6};
    if (track.w < 10)
        return;
    ren_rect(v->r, track, th->panel2);
    int fw = (int)lroundf(p * track.w);
    Color fill = argmax ? th->accent : th->dim;
    if (is_truth)
        fill = right ? th->good : th->bad;
    ren_rect(v->r, (Rect){track.x, track.y, fw, track.h}, fill);
    if (is_truth && !argmax) /* the true token, missed: outlined in red */
        ren_rect_line(v->r, track, 2, th->bad);
    ren_text(v->r, f, buf, track.x + fw + 4, ty, argmax ? th->text : th->dim);
    if (ui_over(v->in, row))
        set_hover(v, TOP(v)->b, t, id, p);
    if (G->key_t == t && G->key_r == r) { /* the keyboard's bar, read as the hovered one */
        view_key_outline(v, row);
        set_hover(v, TOP(v)->b, t, id, p);
    }
}

/* ---- with an experiment: the top-k before (the normal pass) and after ---- */

static void cmp_bar(ViewCtx *v, Rect row, int id, float p, int first, int b, int t, int keyed)
{
    const Theme *th = v->th;
    RenFont *f = v->g->small;
    int fh = ren_font_height(f), ty = row.y + (row.h - fh) / 2;
    int lab = row.w * 38 / 100, pw = ren_text_width(f, "0.000") + 6;
    const char *tok = vocab_token(&v->s->model->tgt_vocab, id);
    int tw = ren_text_width(f, tok);
    ui_text_fit(v->r, f, tok, row.x + lab - 4 - (tw < lab - 4 ? tw : lab - 4), ty, lab - 4,
                first ? th->accent : th->text);
    Rect track = {row.x + lab, row.y + 3, row.w - lab - pw, row.h - 6};
    if (track.w < 6)
        return;
    ren_rect(v->r, track, th->panel2);
    int fw = (int)lroundf(p * track.w);
    ren_rect(v->r, (Rect){track.x, track.y, fw, track.h}, first ? th->accent : th->dim);
    char buf[32];
    snprintf(buf, sizeof buf, "%.3f", p);
    ren_text(v->r, f, buf, track.x + track.w + 4, ty, first ? th->text : th->dim);
    if (ui_over(v->in, row))
        set_hover(v, b, t, id, p);
    if (keyed) {
        view_key_outline(v, row);
        set_hover(v, b, t, id, p);
    }
}

/* Do the cards show the normal pass beside the experiment's? */
static int compares(const Scene *sc)
{
    const TfTrace *ex = sc->exp_trace, *no = sc->base;
    return no && no->T == ex->T && no->B == ex->B && no->probs && ex->probs;
}

/* Two columns in the card: "before" the normal pass's top-k, "after" the
 * experiment's, each bar its token's probability in that pass. */
static int draw_card_compare(ViewCtx *v, const OutGeo *G, Rect card, int y, int t)
{
    const Scene *sc = v->s;
    const TfTrace *ex = sc->exp_trace, *no = sc->base;
    int b = TOP(v)->b, V = sc->model->cfg.tgt_vocab;
    if (!compares(sc))
        return 0;
    RenFont *f = v->g->small;
    int fh = ren_font_height(f), half = (card.w - 20) / 2;
    const char *title[2] = {_("before (normal)"), _("after (experiment)")};
    const TfTrace *tr[2] = {no, ex};
    for (int c = 0; c < 2; c++) {
        int x = card.x + 8 + c * (half + 4);
        ui_text_fit(v->r, f, title[c], x, y, half, c ? v->th->warn : v->th->dim);
        int id[OUT_KMAX];
        float p[OUT_KMAX];
        tf_top_k(tr[c]->probs + ((size_t)b * tr[c]->T + t) * V, V, G->k, id, p);
        int yy = y + fh + 2;
        /* the keyboard's cell: its rank among the k before, then the k after */
        for (int r = 0; r < G->k && id[r] >= 0; r++, yy += G->bar_h)
            cmp_bar(v, (Rect){x, yy, half, G->bar_h}, id[r], p[r], r == 0, b, t,
                    G->key_t == t && G->key_r == c * G->k + r);
    }
    return 1;
}

static void draw_card(ViewCtx *v, const OutGeo *G, Rect card, int t)
{
    const Scene *sc = v->s;
    const Theme *th = v->th;
    const TfTrace *tr = sc->trace;
    RenFont *ui = v->g->ui, *f = v->g->small;
    int uh = ren_font_height(ui);
    int sel = sc->sel.side == 2 && sc->sel.index == t;
    ren_rect(v->r, card, th->panel);
    ren_rect_line(v->r, card, sel ? 2 : 1, sel ? th->select : th->border);
    char head[300], tb[VOCAB_MAX_TOKEN_BYTES + 1];
    const char *in = view_token(&sc->model->tgt_vocab, tr->tgt_ids[(size_t)TOP(v)->b * tr->T + t], tb, sizeof tb);
    snprintf(head, sizeof head, _("%d · after '%s' →"), t, in);
    Rect hr = {card.x + 8, card.y + 5, card.w - 16, uh + 4};
    ui_text_fit(v->r, ui, head, hr.x, hr.y, hr.w, sel ? th->select : th->text);
    if (ui_clicked(v->in, hr)) /* follow this decoder input token across views */
        view_select(v, sel ? 0 : 2, sel ? 0 : t);
    int y = card.y + uh + 12;
    if (draw_card_compare(v, G, card, y - 4, t))
        return;
    for (int r = 0; r < G->k && TOP(v)->id[t][r] >= 0; r++, y += G->bar_h)
        draw_bar(v, G, (Rect){card.x + 8, y, card.w - 16, G->bar_h}, t, r);
    if (TOP(v)->find_id >= 0) {
        find_line(v, card, y, t);
        y += ren_font_height(f) + 6;
    }
    int truth = TOP(v)->truth[t];
    if (truth < 0 || TOP(v)->truth_rank[t] <= G->k)
        return;
    char buf[300], pv[32];
    ui_fmt(pv, sizeof pv, TOP(v)->truth_p[t]);
    snprintf(buf, sizeof buf, _("true next '%s': %s (rank %d)"), view_token(&sc->model->tgt_vocab, truth, tb, sizeof tb), pv,
             TOP(v)->truth_rank[t]);
    ui_text_fit(v->r, f, buf, card.x + 8, y + 3, card.w - 16, th->bad);
}

/* ---- header ---- */

static int header_height(const ViewCtx *v)
{
    return ren_font_height(v->g->ui) + 2 + 2 * ren_font_height(v->g->small) + 8;
}

static void draw_header(ViewCtx *v, Rect body, int b, int scrolls)
{
    const Scene *sc = v->s;
    const TfTrace *tr = sc->trace;
    RenFont *ui = v->g->ui, *f = v->g->small;
    char t[200], s[600], pad[160] = "", more[64] = "";
    if (sc->n_src > 1)
        snprintf(t, sizeof t, _("Next-token probabilities · sentence %d of %d · %d tokens"), b + 1, sc->n_src, TOP(v)->V);
    else
        snprintf(t, sizeof t, _("Next-token probabilities over the %d target tokens"), TOP(v)->V);
    int npad = tr->T - TOP(v)->n;
    if (npad > 0)
        /* the loss mask: these rows have no true next token */
        snprintf(pad, sizeof pad,
                 npad > 1 ? _(" · %d padded positions not shown: no true next token, loss weight 0")
                          : _(" · %d padded position not shown: no true next token, loss weight 0"),
                 npad);
    if (scrolls)
        snprintf(more, sizeof more, _(" · %d positions: the wheel scrolls"), TOP(v)->n);
    /* what the marks mean first: the header may be cut short */
    if (TOP(v)->truth[0] >= 0)
        snprintf(s, sizeof s, "%s%s · %s%s", _("highlighted: the argmax · green/red: the true next token (argmax right/wrong)"),
                 more, _("softmax(logits) on a 0..1 scale"), pad);
    else
        snprintf(s, sizeof s, "%s · %s%s · %s%s", _("highlighted: the argmax"),
                 b == 0 ? _("the input is the greedy translation: each argmax became the next input")
                        : _("this sentence's input is its greedy translation"),
                 more, _("softmax(logits) on a 0..1 scale"), pad);
    int y = body.y, fw = find_field(v, body.x + body.w, y);
    ui_text_fit(v->r, ui, t, body.x, y, body.w - fw - 10, v->th->text);
    y += ren_font_height(ui) + 2;
    ren_clip_push(v->r, (Rect){body.x, y, body.w, 2 * ren_font_height(f)}); /* two lines at most */
    ui_paragraph(v->r, f, s, body.x, y, body.w, v->th->dim);
    ren_clip_pop(v->r);
}

/* Wheel scrolling when the cards do not fit; the offset lives in the
 * view's PanZoom slot. */
static int scroll(ViewCtx *v, const OutGeo *G)
{
    PanZoom *pz = &v->pz[VIEW_OUTPUT];
    int total = G->rows_total * (G->card_h + G->gap) - G->gap;
    int over = total - G->body.h;
    if (over <= 0) {
        pz->oy = 0;
        return 0;
    }
    if (ui_over(v->in, G->body) && v->in->wheel)
        pz->oy += v->in->wheel * (G->card_h + G->gap) * 0.5f;
    if (pz->oy > 0)
        pz->oy = 0;
    if (pz->oy < -over)
        pz->oy = (float)-over;
    return (int)pz->oy;
}

static void output_draw(ViewCtx *v)
{
    const Scene *sc = v->s;
    int b = sc->batch;
    if (sc->trace->B < 1 || b < 0 || b >= sc->trace->B || sc->trace->T < 1) {
        ui_paragraph(v->r, v->g->ui, _("Nothing has been computed yet."), v->area.x + 10, v->area.y + 10,
                     v->area.w - 20, v->th->warn);
        return;
    }
    topk_update(v, b);
    find_update(v);
    Rect area = {v->area.x + 4, v->area.y + 4, v->area.w - 8, v->area.h - 8};
    int hh = header_height(v);
    Rect body = {area.x, area.y + hh, area.w, area.h - hh};
    if (body.h < 40 || body.w < 120 || TOP(v)->n < 1) {
        draw_header(v, area, b, 0);
        return;
    }
    OutGeo G;
    out_layout(v, body, &G);
    /* the keyboard's cell (a position's card, a bar in it; with an
     * experiment the bars before, then after) when the mouse is not over
     * the cards; they scroll to show it */
    G.key_t = G.key_r = -1;
    int bars = compares(sc) ? 2 * G.k : G.k;
    if (view_key_cell(v, TOP(v)->n, bars, &G.key_t, &G.key_r) && !ui_over(v->in, body)) {
        PanZoom *pz = &v->pz[VIEW_OUTPUT];
        int top = G.key_t / G.cols * (G.card_h + G.gap);
        if (top + pz->oy < 0)
            pz->oy = (float)-top;
        if (top + G.card_h + pz->oy > body.h)
            pz->oy = (float)(body.h - top - G.card_h);
    } else {
        G.key_t = G.key_r = -1;
    }
    int dy = scroll(v, &G);
    draw_header(v, area, b, G.rows_total * (G.card_h + G.gap) - G.gap > body.h);
    ren_clip_push(v->r, body);
    for (int t = 0; t < TOP(v)->n; t++) {
        int r = t / G.cols, c = t % G.cols;
        Rect card = {body.x + c * (G.card_w + G.gap), body.y + dy + r * (G.card_h + G.gap), G.card_w, G.card_h};
        if (card.y + card.h < body.y || card.y > body.y + body.h)
            continue;
        draw_card(v, &G, card, t);
    }
    ren_clip_pop(v->r);
}

char *view_output_find_text(void *st)
{
    return ((TopK *)st)->find;
}

int view_output_found(const void *st, int t, int *rank, float *p)
{
    const TopK *T = st;
    if (T->find_id < 0 || t < 0 || t >= T->n)
        return -1;
    *rank = T->find_rank[t];
    *p = T->find_p[t];
    return T->find_id;
}

static void view_output(ViewCtx *v)
{
    ui_draw_inside(v, output_draw);
}

const ViewDef VIEW_OUTPUT_DEF = {"output", N_("Top-k"), view_output, NULL, sizeof(TopK), NULL, VIEW_NEED_ALL, 0};
