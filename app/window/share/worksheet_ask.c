/* worksheet_ask.c - a worksheet's questions and their answers for one
 * student's sentence (worksheet_int.h): every quiz, and every @predict
 * (row, next, number, output, breaks) asked again about that sentence,
 * its answer computed by the engine as the window and `lessons --check`
 * compute it; which picture goes above each question without giving its
 * answer away; and the sentences, from the data the model trained on. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "heads_pairs.h"
#include "stage.h"
#include "tasks.h"
#include "trace.h"
#include "worksheet_int.h"

const char *ws_token(const App *a, int decoder, int row, char *buf, size_t cap)
{
    const TfTrace *tr = &a->ses.trace;
    TfView v;
    TfErr err;
    if (tf_view(tr, decoder ? ST_TGT_TOKENS : ST_SRC_TOKENS, 0, -1, 0, &v, &err) || row < 0 || row >= v.rows)
        return "?";
    return tf_view_label(tr, &a->ses.model, &v, 0, row, buf, cap);
}

/* The whole pass, the greedy translation included. */
static void settle(App *a)
{
    app_compute_all(a);
    for (int k = 0; k < 100000 && app_idle_work(a) == 1; k++)
        ;
}

static void set_exp(App *a, const TfExperiment *e)
{
    TfExperiment none;
    memset(&none, 0, sizeof none);
    app_put_exp(a, e ? e : &none);
}

/* The step's view on the student's sentence: stage, layer, head, view and
 * (with_exp) the experiment as the step says. */
static void show_step(App *a, const LessonStep *s, int with_exp)
{
    const LessonView *v = &s->view;
    set_exp(a, with_exp && v->has_exp ? &v->exp : NULL);
    settle(a);
    int st = v->stage[0] ? stage_find(v->stage) : -1;
    if (st >= 0)
        app_goto(a, (StageId)st, v->layer >= 0 ? v->layer : 0);
    if (v->head >= -1)
        session_set_head(&a->ses, v->head);
    int vid = v->view[0] ? view_find(v->view) : -1;
    a->view = vid >= 0 ? (ViewId)vid : VIEW_AUTO;
    if (v->pane[0])
        app_decode_setup(a, v->pane, 0, -1.0f);
    settle(a);
}

static int step_has_exp(const LessonStep *s)
{
    return s->view.has_exp && !tf_exp_is_none(&s->view.exp);
}

/* The stage whose numbers go into stage st (what a student computes a
 * number of st from), or -1 when there is no one such picture: the scores
 * for the weights, the weights for a head's output, the sum for a norm,
 * the embedding for the encoder's input, ... */
static int input_stage(int st)
{
    StageKind k = stage_info((StageId)st)->kind;
    if (k == SK_TOKENS || k == SK_PE || k == SK_QKV || k == SK_SCORES || k == SK_MASK || st == 0)
        return -1;
    int prev = st - 1;
    StageKind pk = stage_info((StageId)prev)->kind;
    if (pk == SK_MASK || pk == SK_PE) /* weights come from the scores, the input from the embedding */
        prev--;
    return stage_info((StageId)prev)->kind == SK_TOKENS ? -1 : prev;
}

/* The heatmap's label of a row (cols 0) or column (1), for a question. */
static void label_of(const App *a, const TfView *v, int cols, int i, char *buf, size_t cap)
{
    char t[64];
    tf_view_label(&a->ses.trace, &a->ses.model, v, cols, i, t, sizeof t);
    if (cols && v->col_kind == LBL_DIM)
        snprintf(buf, cap, _("dimension %s"), t);
    else if (cols)
        snprintf(buf, cap, _("column “%s”"), t);
    else
        snprintf(buf, cap, "“%s”", t);
}

/* @predict row or next, for the sentence: the lesson's token, or the same
 * place (the second token) when the sentence has no such token. */
static int ask_row_next(WsSheet *sh, const LessonStep *s, WsQuestion *q)
{
    App *a = sh->a;
    show_step(a, s, 1);
    const TfTrace *tr = &a->ses.trace;
    StagePos p = session_pos(&a->ses);
    int decoder = 1;
    if (q->kind == LESSON_PREDICT_ROW) {
        if (!lesson_predict_stage_ok(p.stage, &decoder))
            return -1;
        q->stage = p.stage;
        q->layer = p.layer;
        q->head = a->ses.head < 0 ? 0 : a->ses.head;
    }
    const Vocab *voc = decoder ? &a->ses.model.tgt_vocab : &a->ses.model.src_vocab;
    int n = decoder ? tr->tgt_len[0] : tr->src_len[0];
    int row = lesson_predict_row(&s->predict, tr, voc, decoder, 0);
    q->row = row >= 0 ? row : (n > 1 ? 1 : 0);
    if (q->row >= n)
        q->row = n - 1;
    ws_token(a, decoder, q->row, q->row_tok, sizeof q->row_tok);
    q->answer = lesson_predict_answer(tr, q->kind, q->stage, q->layer, q->head, 0, q->row);
    if (q->answer < 0)
        return -1;
    if (q->kind == LESSON_PREDICT_NEXT) {
        size_t len = 0; /* what the decoder has read: its input up to the row, no further */
        for (int r = 0; r <= q->row && len + 1 < sizeof q->prefix; r++) {
            char t[64];
            int k = snprintf(q->prefix + len, sizeof q->prefix - len, "%s%s", r ? " " : "", ws_token(a, 1, r, t, sizeof t));
            if (k < 0)
                break;
            len += (size_t)k;
        }
        const char *w = vocab_token(&a->ses.model.tgt_vocab, q->answer);
        snprintf(q->key, sizeof q->key, _("after “%s”: “%s”"), q->row_tok, w ? w : "?");
        return 0;
    }
    /* the row's three largest weights, as `dump` has them */
    TfView v;
    TfErr err;
    int len = snprintf(q->key, sizeof q->key, _("row “%s”:"), q->row_tok);
    if (tf_view(tr, (StageId)q->stage, q->layer, q->head, 0, &v, &err))
        return -1;
    unsigned char used[256] = {0};
    TfView mk; /* masked keys are no answer: left out of the key and the choices, as describe leaves them */
    StageId ms = stage_attn_part(stage_attn_block((StageId)q->stage), AP_MASK);
    if (tf_view(tr, ms, q->layer, q->head, 0, &mk, &err) == 0 && mk.rows == v.rows && mk.cols == v.cols)
        for (int c = 0; c < v.cols && c < 256; c++)
            used[c] = isinf(tf_view_at(&mk, q->row, c)) && tf_view_at(&mk, q->row, c) < 0;
    q->n_keys = v.cols < WS_MAX_KEYS ? v.cols : WS_MAX_KEYS;
    for (int c = 0; c < q->n_keys; c++)
        q->masked[c] = c < 256 && used[c];
    for (int i = 0; i < 3 && i < v.cols && len < (int)sizeof q->key; i++) {
        int best = -1;
        for (int c = 0; c < v.cols && c < 256; c++)
            if (!used[c] && (best < 0 || tf_view_at(&v, q->row, c) > tf_view_at(&v, q->row, best)))
                best = c;
        if (best < 0)
            break;
        used[best] = 1;
        char t[64];
        len += snprintf(q->key + len, sizeof q->key - (size_t)len, "%s %.3f “%s”", i ? "," : "",
                        (double)tf_view_at(&v, q->row, best),
                        tf_view_label(tr, &a->ses.model, &v, 1, best, t, sizeof t));
    }
    return 0;
}

/* @predict number, for the sentence: the same row and column as the
 * lesson's when the sentence has those tokens, else the same place. */
static int ask_number(WsSheet *sh, const LessonStep *s, WsQuestion *q)
{
    App *a = sh->a;
    show_step(a, s, 1);
    const TfTrace *tr = &a->ses.trace;
    const TfModel *m = &a->ses.model;
    StagePos p = session_pos(&a->ses);
    q->stage = p.stage;
    q->layer = p.layer;
    q->head = a->ses.head < 0 ? 0 : a->ses.head;
    TfView v;
    TfErr err;
    if (tf_view(tr, (StageId)q->stage, q->layer, q->head, 0, &v, &err) || v.rows < 1 || v.cols < 1 || !v.data)
        return -1;
    LessonPredict lp = s->predict;
    int row = -1, col = -1;
    if (lesson_predict_cell(&lp, tr, &m->src_vocab, &m->tgt_vocab, q->stage, 0, v.rows, v.cols, &row, &col)) {
        /* a token the sentence lacks: the lesson's place instead (#N, or the second row; the last column) */
        if (row < 0 || row >= v.rows) {
            int want = lp.query && lp.query[0] == '#' ? atoi(lp.query + 1) - 1 : 1;
            row = want < 0 ? 0 : want < v.rows ? want : v.rows - 1;
        }
        col = -1;
        if (lp.what == LESSON_NUM_CELL) {
            int want = lp.col && lp.col[0] == '#' ? atoi(lp.col + 1) - 1 : v.cols - 1;
            col = want < 0 ? 0 : want < v.cols ? want : v.cols - 1;
        }
    }
    if (lp.what == LESSON_NUM_CELL) {
        q->value = tf_view_at(&v, row, col); /* what lesson_predict_number reads for a cell */
    } else {
        char rq[16];
        snprintf(rq, sizeof rq, "#%d", row + 1);
        lp.query = rq;
        if (lesson_predict_number(&lp, tr, &m->src_vocab, &m->tgt_vocab, q->stage, q->layer, q->head, 0, &q->value))
            return -1;
    }
    q->row = row;
    q->col = lp.what == LESSON_NUM_CELL ? col : -1;
    label_of(a, &v, 0, row, q->row_tok, sizeof q->row_tok);
    if (q->col >= 0)
        label_of(a, &v, 1, q->col, q->col_tok, sizeof q->col_tok);
    q->answer = 0;
    /* the picture: what goes into the stage, never the stage itself */
    q->pic_stage = input_stage(q->stage);
    q->picture = q->pic_stage >= 0;
    q->pic_layer = q->layer;
    q->pic_head = q->head;
    if (q->picture && stage_info((StageId)q->stage)->kind == SK_HEADS && !(stage_info((StageId)q->stage)->flags & SF_HEAD) &&
        q->col >= 0) /* the concatenation: the head whose block holds the column */
        q->pic_head = q->col / (m->cfg.d_model / m->cfg.n_heads);
    if (q->picture && !(stage_info((StageId)q->pic_stage)->flags & (SF_HEAD | SF_HEAD_OPT)))
        q->pic_head = -2;
    q->pic_exp = 1;
    q->why = q->picture ? N_("The picture shows what goes into the number asked about; the stage itself would show "
                             "the answer.")
                        : N_("No picture: it would show the answer.");
    return 0;
}

/* What the key says a number is: a count whole, any other to 4 places. */
static void number_text(const WsQuestion *q, char *buf, size_t cap)
{
    if (q->step->predict.what == LESSON_NUM_ZEROS)
        snprintf(buf, cap, "%.0f", q->value);
    else
        snprintf(buf, cap, "%.4f", q->value);
}

void ws_number_what(const WsQuestion *q, char *buf, size_t cap)
{
    switch (q->step->predict.what) {
    case LESSON_NUM_CELL: snprintf(buf, cap, _("the number in row %s, %s"), q->row_tok, q->col_tok); break;
    case LESSON_NUM_MEAN: snprintf(buf, cap, _("the mean of row %s"), q->row_tok); break;
    case LESSON_NUM_STD: snprintf(buf, cap, _("the standard deviation of row %s"), q->row_tok); break;
    case LESSON_NUM_ZEROS: snprintf(buf, cap, _("the count of exact zeros in row %s"), q->row_tok); break;
    default: snprintf(buf, cap, _("the largest number in row %s"), q->row_tok); break;
    }
}

/* @predict output: the greedy translation under the step's experiment. */
static int ask_output(WsSheet *sh, const LessonStep *s, WsQuestion *q)
{
    App *a = sh->a;
    show_step(a, s, 1);
    app_exp_words(&a->ses, sh->o->lang, q->exp_words, sizeof q->exp_words);
    snprintf(q->key, sizeof q->key, _("with “%s”: “%s”"), q->exp_words, a->ses.translation);
    return 0;
}

/* @predict breaks: each of the lesson's changes, its hidden source
 * positions moved into the sentence, tried on it. */
static int ask_breaks(WsSheet *sh, const LessonStep *s, WsQuestion *q)
{
    App *a = sh->a;
    const LessonPredict *p = &s->predict;
    int S = a->ses.trace.src_len[0];
    q->n_brk = 0;
    for (int c = 0; c < s->quiz.n_choices && c < LESSON_MAX_CHOICES && p->exps; c++) {
        WsBreak *b = &q->brk[q->n_brk++];
        b->exp = p->exps[c];
        snprintf(b->label, sizeof b->label, "%s", lesson_choice_label(s->quiz.choices[c]));
        if (b->exp.n_hide) { /* the lesson's word is not in this sentence: name the one hidden here */
            char words[200] = "", t[64];
            int n = 0;
            for (int k = 0; k < b->exp.n_hide; k++) {
                int pos = b->exp.hide_src[k] < S ? b->exp.hide_src[k] : S - 1;
                int dup = 0;
                for (int j = 0; j < n; j++)
                    dup |= b->exp.hide_src[j] == pos;
                if (dup)
                    continue;
                b->exp.hide_src[n++] = pos;
                size_t w = strlen(words);
                snprintf(words + w, sizeof words - w, "%s“%s”", w ? ", " : "", ws_token(a, 0, pos, t, sizeof t));
            }
            b->exp.n_hide = n;
            snprintf(b->label, sizeof b->label, _("hide %s as a key from every attention"), words);
        }
        set_exp(a, &b->exp);
        settle(a);
        snprintf(b->out, sizeof b->out, "%s", a->ses.translation);
        b->changed = strcmp(b->out, sh->translation) != 0;
    }
    set_exp(a, NULL);
    settle(a);
    int len = 0;
    for (int c = 0; c < q->n_brk && len < (int)sizeof q->key; c++) {
        char one[WS_TEXT + 64];
        if (q->brk[c].changed)
            snprintf(one, sizeof one, _("(%c) changes it to “%s”"), 'A' + c, q->brk[c].out);
        else
            snprintf(one, sizeof one, _("(%c) leaves it"), 'A' + c);
        len += snprintf(q->key + len, sizeof q->key - (size_t)len, "%s%s", c ? "; " : "", one);
    }
    return q->n_brk ? 0 : -1;
}

/* Does a choice begin with a shape, "5 × 4"? */
static int shape_choice(const char *c)
{
    const char *p = c;
    while (*p == ' ')
        p++;
    const char *d = p;
    while (*p >= '0' && *p <= '9')
        p++;
    if (p == d)
        return 0;
    while (*p == ' ')
        p++;
    return strncmp(p, "×", strlen("×")) == 0;
}

/* A quiz: the step's picture, unless it shows what is asked. */
static void ask_quiz(const LessonStep *s, WsQuestion *q)
{
    q->answer = s->quiz.answer;
    q->picture = 1;
    q->pic_stage = -1;
    q->pic_exp = 1;
    int st = s->view.stage[0] ? stage_find(s->view.stage) : -1;
    int view_default = !s->view.view[0] || strcmp(s->view.view, "auto") == 0 || strcmp(s->view.view, "mask") == 0 ||
                       strcmp(s->view.view, "matrix") == 0;
    if (st >= 0 && stage_info((StageId)st)->kind == SK_MASK && view_default) {
        q->picture = 0; /* the quizzes on a mask count its −∞ cells */
        q->why = N_("No picture: the mask would show the answer.");
    } else if (st >= 0 && (stage_info((StageId)st)->kind == SK_SCORES || stage_info((StageId)st)->kind == SK_WEIGHTS)) {
        int shapes = s->quiz.n_choices > 0; /* the quizzes that ask an attention matrix's shape */
        for (int c = 0; c < s->quiz.n_choices; c++)
            shapes &= shape_choice(s->quiz.choices[c]);
        if (shapes) {
            q->picture = 0;
            q->why = N_("No picture: its rows and columns would show the answer.");
        }
    }
    if (q->picture && step_has_exp(s)) {
        q->pic_exp = 0;
        q->why = N_("The picture is drawn without the step's experiment: with it, it would show the answer.");
    }
}

/* The stage, layer and head q's picture shows (head -1: all heads). */
static void picture_of(const WsQuestion *q, int *st, int *layer, int *head)
{
    const LessonView *v = &q->step->view;
    *st = q->pic_stage >= 0 ? q->pic_stage : v->stage[0] ? stage_find(v->stage) : -1;
    *layer = q->pic_stage >= 0 ? q->pic_layer : v->layer >= 0 ? v->layer : 0;
    *head = q->pic_stage >= 0 ? q->pic_head : v->head >= -1 ? v->head : 0;
    if (strcmp(v->view, "heads") == 0 && q->pic_stage < 0)
        *head = -1;
}

/* Would a picture of stage st (layer, head) show the answer of question
 * p: the weights a row prediction hides (or their scores), the stage of a
 * number, the output a next token is read from? */
static int shows_answer(int st, int layer, int head, const char *view, const WsQuestion *p)
{
    if (st < 0)
        return p->kind == LESSON_PREDICT_NEXT && strcmp(view, "decode") == 0;
    StageKind k = stage_info((StageId)st)->kind;
    int same_head = head == -1 || head == p->head || !(stage_info((StageId)st)->flags & (SF_HEAD | SF_HEAD_OPT));
    switch (p->kind) {
    case LESSON_PREDICT_ROW:
        return (k == SK_SCORES || k == SK_WEIGHTS) && stage_attn_block((StageId)st) == stage_attn_block((StageId)p->stage) &&
               layer == p->layer && same_head;
    case LESSON_PREDICT_NUMBER: return st == p->stage && layer == p->layer && same_head;
    case LESSON_PREDICT_NEXT: return k == SK_LOGITS || k == SK_PROBS || strcmp(view, "decode") == 0;
    case LESSON_PREDICT_OUTPUT:
    case LESSON_PREDICT_BREAKS: return strcmp(view, "decode") == 0;
    default: return 0;
    }
}

/* No picture on the sheet may give away another question's answer. */
static void hide_answers(WsSheet *sh)
{
    for (int i = 0; i < sh->n_q; i++) {
        WsQuestion *q = &sh->q[i];
        if (!q->picture)
            continue;
        int st, layer, head;
        picture_of(q, &st, &layer, &head);
        const char *view = q->pic_stage >= 0 ? "" : q->step->view.view;
        for (int j = 0; j < sh->n_q; j++)
            if (j != i && sh->q[j].kind && shows_answer(st, layer, head, view, &sh->q[j])) {
                q->picture = 0;
                q->why = N_("No picture: it would show the answer to another question.");
                break;
            }
    }
}

void ws_ask(WsSheet *sh, const char *src)
{
    App *a = sh->a;
    set_exp(a, NULL);
    app_set_text(a, APP_LINE_SRC, src);
    app_set_text(a, APP_LINE_TGT, "");
    settle(a);
    snprintf(sh->src, sizeof sh->src, "%s", src);
    snprintf(sh->translation, sizeof sh->translation, "%s", a->ses.translation);
    sh->n_q = 0;
    for (int i = 0; i < sh->les->n_steps && sh->n_q < WS_MAX_Q; i++) {
        const LessonStep *s = &sh->les->steps[i];
        WsQuestion *q = &sh->q[sh->n_q];
        memset(q, 0, sizeof *q);
        q->step = s;
        q->col = -1;
        q->pic_stage = -1;
        int rc = 0;
        if (s->has_quiz && s->predict.kind == LESSON_PREDICT_NONE) {
            ask_quiz(s, q);
        } else if (s->predict.kind == LESSON_PREDICT_NONE) {
            continue;
        } else {
            q->kind = s->predict.kind;
            q->why = N_("No picture: it would show the answer.");
            switch (q->kind) {
            case LESSON_PREDICT_ROW:
            case LESSON_PREDICT_NEXT: rc = ask_row_next(sh, s, q); break;
            case LESSON_PREDICT_NUMBER: rc = ask_number(sh, s, q); break;
            case LESSON_PREDICT_OUTPUT: rc = ask_output(sh, s, q); break;
            case LESSON_PREDICT_BREAKS: rc = ask_breaks(sh, s, q); break;
            default: rc = -1;
            }
        }
        if (q->kind == LESSON_PREDICT_NUMBER && rc == 0) {
            char num[64], what[300];
            number_text(q, num, sizeof num);
            ws_number_what(q, what, sizeof what);
            snprintf(q->key, sizeof q->key, _("%s: %s"), what, num);
        }
        if (rc == 0)
            sh->n_q++;
    }
    hide_answers(sh);
    sh->show_translation = 1; /* not when it answers a question: the next token, the output */
    for (int i = 0; i < sh->n_q; i++)
        if (sh->q[i].kind == LESSON_PREDICT_NEXT || sh->q[i].kind == LESSON_PREDICT_OUTPUT)
            sh->show_translation = 0;
    set_exp(a, NULL);
    settle(a);
}

int ws_show_picture(WsSheet *sh, const WsQuestion *q)
{
    if (!q->picture)
        return 0;
    App *a = sh->a;
    show_step(a, q->step, q->pic_exp);
    if (q->pic_stage >= 0) {
        a->view = VIEW_AUTO;
        app_goto(a, (StageId)q->pic_stage, q->pic_layer);
        if (q->pic_head >= -1)
            session_set_head(&a->ses, q->pic_head);
        settle(a);
    }
    return 1;
}

/* ---- the sentences ---- */

/* Fisher-Yates on 0..n-1 with the seed's hash chain. */
static int *shuffled(int n, uint64_t seed)
{
    int *order = malloc((size_t)(n > 0 ? n : 1) * sizeof *order);
    if (!order)
        return NULL;
    for (int i = 0; i < n; i++)
        order[i] = i;
    uint64_t s = tf_fnv_word(TF_FNV_SEED, seed);
    for (int i = n - 1; i > 0; i--) {
        s = tf_fnv_word(s, (uint64_t)i);
        int j = (int)(s % (uint64_t)(i + 1)), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    return order;
}

/* texts[k] for every student from n candidates (cand(i) writes the i-th),
 * in the seed's order, a repeat only when the candidates run out. */
typedef void (*CandFn)(void *ctx, int i, char *out, size_t cap);
static int pick(int n, CandFn cand, void *ctx, const WorksheetOpts *o, char *texts, TfErr *err)
{
    int *order = shuffled(n, o->seed);
    if (!order)
        return tf_fail(err, "out of memory");
    int k = 0;
    for (int i = 0; i < n && k < o->students; i++) {
        char *t = texts + (size_t)k * WS_TEXT;
        cand(ctx, order[i], t, WS_TEXT);
        int dup = !t[0];
        for (int j = 0; j < k && !dup; j++)
            dup = strcmp(texts + (size_t)j * WS_TEXT, t) == 0;
        k += !dup;
    }
    for (int j = 0; k < o->students; k++, j++) /* more students than sentences */
        memcpy(texts + (size_t)k * WS_TEXT, texts + (size_t)(j % (k ? k : 1)) * WS_TEXT, WS_TEXT);
    free(order);
    return k ? 0 : tf_fail(err, "worksheet: no sentence to give the students");
}

typedef struct PairsCtx {
    const TfModel *m;
    const HeadsPairs *hp;
} PairsCtx;

static void pair_text(void *ctx, int i, char *out, size_t cap)
{
    const PairsCtx *c = ctx;
    vocab_decode(&c->m->src_vocab, c->hp->pairs[i].src, c->hp->pairs[i].S, out, cap);
}

static void task_text(void *ctx, int i, char *out, size_t cap)
{
    const Dataset *d = ctx;
    const Pair *p = &d->pairs[d->n_train + i];
    vocab_decode(&d->src, d->ids + p->src_off, p->src_len, out, cap);
}

int ws_sentences(const TfModel *m, const WorksheetOpts *o, char *texts, char *what, size_t wcap, TfErr *err)
{
    HeadsPairs hp;
    TfErr e2;
    if (heads_pairs_load(m, NULL, NULL, 0, &hp, &e2) == 0) { /* the model's own data */
        snprintf(what, wcap, "%s", hp.name);
        PairsCtx c = {m, &hp};
        int rc = pick(hp.n, pair_text, &c, o, texts, err);
        heads_pairs_free(&hp);
        return rc;
    }
    static Dataset d; /* the model does not say: en2zh's held-out pairs */
    memset(&d, 0, sizeof d);
    TaskOpts to = {0};
    if (task_build(&d, "en2zh", &to, err))
        return -1;
    snprintf(what, wcap, "%s", "en2zh");
    int rc = pick(d.n_pairs - d.n_train, task_text, &d, o, texts, err);
    dataset_free(&d);
    return rc;
}
