/* worksheet.c - worksheets with per-student variants and an answer key
 * (worksheet.h), drawn through the renderer's vector backend into a PDF:
 * page by page, text as text, each picture the view itself (no window
 * around it). */
#include "worksheet.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "hash.h"
#include "lesson.h"
#include "paths.h"
#include "rng.h"
#include "stage.h"
#include "tasks.h"
#include "trace.h"

#define PAGE_W 1000
#define PAGE_H 1414 /* A4's 1 : √2 */
#define MARGIN 60
#define MAX_Q LESSON_MAX_STEPS

/* One question of one student's sheet, with its answer worked out. */
typedef struct Question {
    const LessonStep *step;
    int kind;                /* 0 quiz, else LESSON_PREDICT_* */
    int row;                 /* predict: the row asked about */
    int answer;              /* quiz: the choice; row: the key column; next: the token id */
    int stage, layer, head;  /* predict row: where the weights are */
    char row_tok[64];        /* the row's token */
} Question;

typedef struct Sheet {
    App *a;
    Ren *r;
    const Lesson *les;
    const WorksheetOpts *o;
    Question q[MAX_Q];
    int n_q;
    char src[1024], translation[1024];
} Sheet;

/* Lesson markup out of a text for paper: **bold**, `code` and the braces of
 * h_{t-1}; the rest stays. */
static void plain(const char *in, char *out, size_t cap)
{
    size_t o = 0;
    for (const char *p = in ? in : ""; *p && o + 1 < cap; p++) {
        if (*p == '*' && p[1] == '*') {
            p++;
            continue;
        }
        if (*p == '`' || *p == '{' || *p == '}')
            continue;
        out[o++] = *p;
    }
    out[o] = 0;
}

/* Wrapped text at (x, *y), at most w wide; *y moves below it. */
static void para(Ren *r, RenFont *f, const char *text, int x, int *y, int w, Color c)
{
    RenLine lines[64];
    int n = ren_text_wrap(f, text, w, lines, 64), h = ren_font_height(f);
    for (int i = 0; i < n && i < 64; i++, *y += h)
        ren_text_n(r, f, text + lines[i].start, lines[i].len, x, *y, c);
}

static const char *tok(const App *a, int decoder, int b, int row, char *buf, size_t cap)
{
    const TfTrace *tr = &a->ses.trace;
    TfView v;
    TfErr err;
    if (tf_view(tr, decoder ? ST_TGT_TOKENS : ST_SRC_TOKENS, 0, -1, b, &v, &err))
        return "?";
    return tf_view_label(tr, &a->ses.model, &v, 0, row, buf, cap);
}

/* The step's view on the student's sentence: stage, layer, head, view and
 * experiment as the step says. */
static void show_step(App *a, const LessonStep *s)
{
    const LessonView *v = &s->view;
    TfExperiment none = {0};
    app_set_exp(a, v->has_exp ? &v->exp : &none);
    app_compute_all(a);
    int st = v->stage[0] ? stage_find(v->stage) : -1;
    if (st >= 0)
        app_goto(a, (StageId)st, v->layer >= 0 ? v->layer : 0);
    if (v->head >= -1)
        session_set_head(&a->ses, v->head);
    int vid = v->view[0] ? view_find(v->view) : -1;
    a->view = vid >= 0 ? (ViewId)vid : VIEW_AUTO;
    if (v->pane[0])
        app_decode_setup(a, v->pane, 0, -1.0f);
    app_compute_all(a);
}

/* The questions of the lesson for the sentence now in the App. */
static void ask(Sheet *sh)
{
    sh->n_q = 0;
    for (int i = 0; i < sh->les->n_steps && sh->n_q < MAX_Q; i++) {
        const LessonStep *s = &sh->les->steps[i];
        Question *q = &sh->q[sh->n_q];
        memset(q, 0, sizeof *q);
        q->step = s;
        if (s->has_quiz) {
            q->kind = 0;
            q->answer = s->quiz.answer;
            sh->n_q++;
            continue;
        }
        if (s->predict.kind == LESSON_PREDICT_NONE)
            continue;
        show_step(sh->a, s);
        const TfTrace *tr = &sh->a->ses.trace;
        StagePos p = session_pos(&sh->a->ses);
        int decoder = 1;
        q->kind = s->predict.kind;
        if (q->kind == LESSON_PREDICT_ROW) {
            if (!lesson_predict_stage_ok(p.stage, &decoder))
                continue;
            q->stage = p.stage;
            q->layer = p.layer;
            q->head = sh->a->ses.head < 0 ? 0 : sh->a->ses.head;
        }
        const Vocab *voc = decoder ? &sh->a->ses.model.tgt_vocab : &sh->a->ses.model.src_vocab;
        int n = decoder ? tr->tgt_len[0] : tr->src_len[0];
        int row = lesson_predict_row(&s->predict, tr, voc, decoder, 0);
        /* the lesson's token may not be in this sentence: the same place, or the last */
        q->row = row >= 0 ? row : (n > 1 ? 1 : 0);
        if (q->row >= n)
            q->row = n - 1;
        tok(sh->a, decoder, 0, q->row, q->row_tok, sizeof q->row_tok);
        q->answer = lesson_predict_answer(tr, q->kind, q->stage, q->layer, q->head, 0, q->row);
        if (q->answer >= 0)
            sh->n_q++;
    }
}

static void page_head(Sheet *sh, int student, const char *what, int *y)
{
    Gfx *g = app_gfx(sh->a, sh->r);
    const Theme *th = theme_get(THEME_LIGHT);
    char line[512];
    snprintf(line, sizeof line, "%s · %s", sh->les->title, what);
    ren_text(sh->r, g->title, line, MARGIN, *y, th->text);
    *y += ren_font_height(g->title) + 6;
    if (student > 0) {
        snprintf(line, sizeof line, _("Student %d of %d · Name: ______________________"), student, sh->o->students);
        ren_text(sh->r, g->ui, line, MARGIN, *y, th->dim);
        *y += ren_font_height(g->ui) + 4;
        snprintf(line, sizeof line, _("Your sentence: “%s”  →  the model: “%s”"), sh->src, sh->translation);
        para(sh->r, g->ui, line, MARGIN, y, PAGE_W - 2 * MARGIN, th->text);
    }
    ren_rect(sh->r, (Rect){MARGIN, *y + 4, PAGE_W - 2 * MARGIN, 1}, th->border);
    *y += 16;
}

/* One question: its picture (not for a prediction), its text and room to
 * answer. */
static void draw_question(Sheet *sh, int k, int *y)
{
    const Question *q = &sh->q[k];
    Gfx *g = app_gfx(sh->a, sh->r);
    const Theme *th = theme_get(THEME_LIGHT);
    char buf[4096], line[4200];
    plain(q->step->title, buf, sizeof buf);
    snprintf(line, sizeof line, _("Question %d. %s"), k + 1, buf);
    ren_text(sh->r, g->title, line, MARGIN, *y, th->accent);
    *y += ren_font_height(g->title) + 6;
    int W = PAGE_W - 2 * MARGIN;
    if (q->kind == 0) {
        show_step(sh->a, q->step);
        Rect area = {MARGIN, *y, W, 520};
        ViewCtx v = {NULL, NULL, NULL, sh->a->pz, &sh->a->ui, sh->r, g, th, area, &sh->a->ui.in, 1.0f};
        ren_clip_push(sh->r, area);
        app_draw_view(sh->a, &v, app_current_view(sh->a));
        ren_clip_pop(sh->r);
        ren_rect_line(sh->r, area, 1, th->border);
        *y += area.h + 12;
        plain(q->step->quiz.question, buf, sizeof buf);
        para(sh->r, g->ui, buf, MARGIN, y, W, th->text);
        *y += 4;
        for (int c = 0; c < q->step->quiz.n_choices; c++) {
            plain(q->step->quiz.choices[c], buf, sizeof buf);
            snprintf(line, sizeof line, "(%c)  %s", 'A' + c, buf);
            para(sh->r, g->ui, line, MARGIN + 20, y, W - 20, th->text);
        }
    } else {
        const LessonStep *s = q->step;
        if (q->kind == LESSON_PREDICT_ROW) {
            snprintf(line, sizeof line,
                     _("Predict before you compute: in %s, layer %d, head %d, which key does the query “%s” "
                       "give the largest weight? Circle one."),
                     stage_info((StageId)q->stage)->name, q->layer + 1, q->head + 1, q->row_tok);
        } else {
            snprintf(line, sizeof line,
                     _("Predict: after the decoder has read up to “%s”, which token does the model write next?"),
                     q->row_tok);
        }
        para(sh->r, g->ui, line, MARGIN, y, W, th->text);
        *y += 6;
        if (q->kind == LESSON_PREDICT_ROW) {
            const TfTrace *tr = &sh->a->ses.trace;
            int decoder_keys = q->stage >= ST_DEC_SELF_Q && q->stage < ST_DEC_CROSS_Q;
            int n = decoder_keys ? tr->tgt_len[0] : tr->src_len[0];
            char t[64];
            int x = MARGIN + 20;
            for (int c = 0; c < n; c++) {
                snprintf(line, sizeof line, "(%c) %s", 'A' + c, tok(sh->a, decoder_keys, 0, c, t, sizeof t));
                ren_text(sh->r, g->ui, line, x, *y, th->text);
                x += ren_text_width(g->ui, line) + 28;
            }
            *y += ren_font_height(g->ui);
        }
        if (s->text) {
            *y += 6;
            plain(s->text, buf, sizeof buf);
            para(sh->r, g->small, buf, MARGIN, y, W, th->dim);
        }
    }
    *y += 10;
    ren_text(sh->r, g->ui, _("Your answer and why:"), MARGIN, *y, th->dim);
    *y += ren_font_height(g->ui) + 6;
    for (int l = 0; l < 3; l++, *y += 34)
        ren_rect(sh->r, (Rect){MARGIN, *y + 26, W, 1}, th->border);
    *y += 20;
}

/* The key of one student: each answer, with the numbers behind a
 * prediction (the row's three largest weights, as `dump` has them). */
static void draw_key(Sheet *sh, int student, int *y)
{
    Gfx *g = app_gfx(sh->a, sh->r);
    const Theme *th = theme_get(THEME_LIGHT);
    char line[1024], buf[512], t[64];
    snprintf(line, sizeof line, _("Student %d: “%s” → “%s”"), student, sh->src, sh->translation);
    para(sh->r, g->ui, line, MARGIN, y, PAGE_W - 2 * MARGIN, th->accent);
    for (int k = 0; k < sh->n_q; k++) {
        const Question *q = &sh->q[k];
        if (q->kind == 0) {
            plain(q->step->quiz.choices[q->answer], buf, sizeof buf);
            snprintf(line, sizeof line, _("  %d. (%c) %s"), k + 1, 'A' + q->answer, buf);
        } else if (q->kind == LESSON_PREDICT_ROW) {
            show_step(sh->a, q->step);
            TfView v;
            TfErr err;
            const TfTrace *tr = &sh->a->ses.trace;
            int n = snprintf(line, sizeof line, _("  %d. row “%s”:"), k + 1, q->row_tok);
            if (tf_view(tr, (StageId)q->stage, q->layer, q->head, 0, &v, &err) == 0) {
                float used[256] = {0};
                for (int i = 0; i < 3 && i < v.cols; i++) {
                    int best = -1;
                    for (int c = 0; c < v.cols && c < 256; c++)
                        if (!used[c] && (best < 0 || tf_view_at(&v, q->row, c) > tf_view_at(&v, q->row, best)))
                            best = c;
                    if (best < 0)
                        break;
                    used[best] = 1;
                    n += snprintf(line + n, sizeof line - (size_t)n, "%s %.3f “%s”", i ? "," : "",
                                  (double)tf_view_at(&v, q->row, best),
                                  tf_view_label(tr, &sh->a->ses.model, &v, 1, best, t, sizeof t));
                    if ((size_t)n >= sizeof line)
                        break;
                }
            }
        } else {
            const char *w = vocab_token(&sh->a->ses.model.tgt_vocab, q->answer);
            snprintf(line, sizeof line, _("  %d. after “%s”: “%s”"), k + 1, q->row_tok, w ? w : "?");
        }
        para(sh->r, g->ui, line, MARGIN, y, PAGE_W - 2 * MARGIN, th->text);
    }
    *y += 14;
}

/* The sentences: held-out pairs of the en2zh task, shuffled by seed, one
 * per student. */
static int pick_sentences(Dataset *d, const WorksheetOpts *o, int *pick, TfErr *err)
{
    TaskOpts to = {0};
    if (task_build(d, "en2zh", &to, err))
        return -1;
    int n = d->n_pairs - d->n_train, *order = malloc((size_t)n * sizeof *order);
    if (!order)
        return tf_fail(err, "out of memory");
    for (int i = 0; i < n; i++)
        order[i] = d->n_train + i;
    uint64_t s = tf_fnv_word(TF_FNV_SEED, o->seed);
    for (int i = n - 1; i > 0; i--) { /* Fisher-Yates with the seed's hash chain */
        s = tf_fnv_word(s, (uint64_t)i);
        int j = (int)(s % (uint64_t)(i + 1)), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (int k = 0; k < o->students; k++)
        pick[k] = order[k % n];
    free(order);
    return 0;
}

static void sentence_text(const Dataset *d, const Vocab *voc, const Pair *p, char *out, size_t cap)
{
    size_t o = 0;
    out[0] = 0;
    for (int i = 0; i < p->src_len && o + 1 < cap; i++) {
        const char *w = vocab_token(voc, d->ids[p->src_off + i]);
        int n = snprintf(out + o, cap - o, "%s%s", i ? " " : "", w ? w : "?");
        if (n < 0 || (size_t)n >= cap - o)
            break;
        o += (size_t)n;
    }
}

int worksheet_pdf(const WorksheetOpts *o, int *pages, TfErr *err)
{
    if (o->students < 1 || o->students > WORKSHEET_MAX_STUDENTS)
        return tf_fail(err, "worksheet: --students must be 1..%d", WORKSHEET_MAX_STUDENTS);
    if (ren_vector_format(o->out) != REN_VEC_PDF)
        return tf_fail(err, "worksheet: %s: a worksheet is a .pdf file", o->out);
    char dir[4096], rel[32];
    snprintf(rel, sizeof rel, "lessons/%s", o->lang ? "zh" : "en");
    if (o->lessons_dir)
        snprintf(dir, sizeof dir, "%s/%s", o->lessons_dir, o->lang ? "zh" : "en");
    else
        paths_data(rel, dir, sizeof dir);
    static LessonSet set;
    int bad = 0;
    if (lessons_load_dir(&set, dir, NULL, NULL, &bad) < 0 || set.n == 0)
        return tf_fail(err, "worksheet: no lessons in %s", dir);
    int li = lessons_find(&set, o->lesson);
    if (li < 0) {
        lessons_free(&set);
        return tf_fail(err, "worksheet: no lesson '%s' in %s", o->lesson, dir);
    }
    static Dataset d;
    static int pick[WORKSHEET_MAX_STUDENTS];
    static App a;
    memset(&d, 0, sizeof d);
    int rc = -1;
    Ren *r = NULL;
    if (pick_sentences(&d, o, pick, err))
        goto out;
    AppOpts ao = {0};
    ao.model_path = o->model_path;
    ao.head = -2;
    ao.no_save = 1;
    ao.lang = o->lang;
    ao.theme = "light";
    if (!(r = ren_open_headless(PAGE_W, PAGE_H, err)) || app_init(&a, &ao, err))
        goto out;
    ui_set_lang(o->lang);
    Sheet sh = {&a, r, &set.lessons[li], o, {{0}}, 0, "", ""};
    if (ren_vector_begin(r, o->out, REN_VEC_PDF, 0, err) < 0)
        goto out_app;
    Gfx *g = app_gfx(&a, r);
    if (!g || gfx_fonts(g, 1.0f, err))
        goto out_doc;
    const Theme *th = theme_get(THEME_LIGHT);
    int n_pages = 0;
    for (int pass = 0; pass < 2; pass++) { /* the sheets, then the key */
        int y = PAGE_H;
        for (int k = 0; k < o->students; k++) {
            sentence_text(&d, &d.src, &d.pairs[pick[k]], sh.src, sizeof sh.src);
            app_set_text(&a, APP_LINE_SRC, sh.src);
            app_set_text(&a, APP_LINE_TGT, "");
            app_compute_all(&a);
            snprintf(sh.translation, sizeof sh.translation, "%s", a.ses.translation);
            ask(&sh);
            if (pass == 0) {
                for (int q = 0; q < sh.n_q || (q == 0 && sh.n_q == 0); q++) {
                    if (y > PAGE_H - 720 || q == 0) { /* a new page: each student starts one */
                        if (n_pages++)
                            ren_end(r);
                        ren_begin(r, th->panel);
                        y = MARGIN;
                        page_head(&sh, k + 1, _("Worksheet"), &y);
                    }
                    if (sh.n_q)
                        draw_question(&sh, q, &y);
                }
            } else {
                if (k == 0 || y > PAGE_H - 60 - 30 * (sh.n_q + 2)) {
                    if (n_pages++)
                        ren_end(r);
                    ren_begin(r, th->panel);
                    y = MARGIN;
                    page_head(&sh, 0, _("Answer key (computed by the model)"), &y);
                }
                draw_key(&sh, k + 1, &y);
            }
        }
    }
    ren_end(r);
    if (ren_vector_end(r, err) < 0)
        goto out_app;
    *pages = n_pages;
    rc = 0;
    goto out_app;
out_doc:
    ren_vector_abort(r);
out_app:
    app_free(&a);
out:
    if (r)
        ren_close(r);
    dataset_free(&d);
    lessons_free(&set);
    return rc;
}
