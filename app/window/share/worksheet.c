/* worksheet.c - worksheets with per-student variants and an answer key
 * (worksheet.h), drawn through the renderer's vector backend into a PDF:
 * page by page, text as text, each picture the view itself (no window
 * around it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paths.h"
#include "stage.h"
#include "worksheet_int.h"

#define PAGE_W 1000
#define PAGE_H 1414 /* A4's 1 : √2 */
#define MARGIN 60

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

static void page_head(WsSheet *sh, int student, const char *what, int *y)
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
        if (sh->show_translation)
            snprintf(line, sizeof line, _("Your sentence: “%s”  →  the model: “%s”"), sh->src, sh->translation);
        else
            snprintf(line, sizeof line, _("Your sentence: “%s”"), sh->src);
        para(sh->r, g->ui, line, MARGIN, y, PAGE_W - 2 * MARGIN, th->text);
    }
    ren_rect(sh->r, (Rect){MARGIN, *y + 4, PAGE_W - 2 * MARGIN, 1}, th->border);
    *y += 16;
}

/* The choices of a question on one line each, lettered from (A). */
static void choices(WsSheet *sh, const char *const *text, int n, int *y)
{
    Gfx *g = app_gfx(sh->a, sh->r);
    const Theme *th = theme_get(THEME_LIGHT);
    char buf[4096], line[4200];
    for (int c = 0; c < n; c++) {
        plain(text[c], buf, sizeof buf);
        snprintf(line, sizeof line, "(%c)  %s", 'A' + c, buf);
        para(sh->r, g->ui, line, MARGIN + 20, y, PAGE_W - 2 * MARGIN - 20, th->text);
    }
}

/* Where a stage's numbers are, as the window counts: "enc.self.weights,
 * layer 1, head 2". */
static void where(const WsQuestion *q, char *buf, size_t cap)
{
    const StageInfo *si = stage_info((StageId)q->stage);
    int n = snprintf(buf, cap, "%s", si->name);
    if ((si->flags & SF_LAYER) && n >= 0 && (size_t)n < cap)
        n += snprintf(buf + n, cap - (size_t)n, _(", layer %d"), q->layer + 1);
    if ((si->flags & (SF_HEAD | SF_HEAD_OPT)) && n >= 0 && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, _(", head %d"), q->head + 1);
}

/* A prediction's question for this sentence (its picture, if any, is
 * drawn above it). */
static void predict_text(WsSheet *sh, const WsQuestion *q, int *y)
{
    Gfx *g = app_gfx(sh->a, sh->r);
    const Theme *th = theme_get(THEME_LIGHT);
    int W = PAGE_W - 2 * MARGIN;
    char line[4200], at[200], what[300];
    switch (q->kind) {
    case LESSON_PREDICT_ROW:
        where(q, at, sizeof at);
        snprintf(line, sizeof line,
                 _("Predict before you compute: in %s, which key does the query “%s” give the largest weight? Circle "
                   "one."),
                 at, q->row_tok);
        break;
    case LESSON_PREDICT_NEXT:
        snprintf(line, sizeof line, _("Predict: the decoder has read “%s”. Which token does the model write next?"),
                 q->prefix);
        break;
    case LESSON_PREDICT_NUMBER:
        where(q, at, sizeof at);
        ws_number_what(q, what, sizeof what);
        snprintf(line, sizeof line, _("Predict before you compute: in %s on your sentence, what is %s? Write the number."),
                 at, what);
        break;
    case LESSON_PREDICT_OUTPUT:
        snprintf(line, sizeof line,
                 _("Predict: with the experiment “%s” switched on, what does the model write for your sentence? "
                   "Write the translation."),
                 q->exp_words);
        break;
    default:
        snprintf(line, sizeof line, "%s",
                 _("Predict: which of these changes alter the model's translation of your sentence? Circle every "
                   "one that does."));
        break;
    }
    para(sh->r, g->ui, line, MARGIN, y, W, th->text);
    *y += 6;
    if (q->kind == LESSON_PREDICT_ROW) { /* the keys, as letters */
        int decoder_keys = q->stage >= ST_DEC_SELF_Q && q->stage < ST_DEC_CROSS_Q;
        char t[64];
        int x = MARGIN + 20;
        for (int k = 0; k < q->n_keys; k++) {
            /* a decoder key the causal mask hides from the row is offered by its place only: its token
             * is the model's own later output, which other questions may ask for */
            if (decoder_keys && q->masked[k])
                snprintf(t, sizeof t, _("token %d"), k + 1);
            else
                ws_token(sh->a, decoder_keys, k, t, sizeof t);
            snprintf(line, sizeof line, "(%c) %s", 'A' + k, t);
            int tw = ren_text_width(g->ui, line);
            if (x > MARGIN + 20 && x + tw > PAGE_W - MARGIN) {
                x = MARGIN + 20;
                *y += ren_font_height(g->ui);
            }
            ren_text(sh->r, g->ui, line, x, *y, th->text);
            x += tw + 28;
        }
        *y += ren_font_height(g->ui);
    } else if (q->kind == LESSON_PREDICT_BREAKS) {
        const char *lab[LESSON_MAX_CHOICES];
        for (int c = 0; c < q->n_brk; c++)
            lab[c] = q->brk[c].label;
        choices(sh, lab, q->n_brk, y);
    }
    /* the lesson's words around it: about the lesson's sentence, so said */
    if (q->step->text) {
        char buf[4096];
        *y += 6;
        plain(q->step->text, buf, sizeof buf);
        snprintf(line, sizeof line, _("From the lesson, on its own sentence: %s"), buf);
        para(sh->r, g->small, line, MARGIN, y, W, th->dim);
    }
}

/* One question: its picture (when it gives nothing away), its text and
 * room to answer. */
static void draw_question(WsSheet *sh, int k, int *y)
{
    const WsQuestion *q = &sh->q[k];
    Gfx *g = app_gfx(sh->a, sh->r);
    const Theme *th = theme_get(THEME_LIGHT);
    char buf[4096], line[4200];
    plain(q->step->title, buf, sizeof buf);
    snprintf(line, sizeof line, _("Question %d. %s"), k + 1, buf);
    ren_text(sh->r, g->title, line, MARGIN, *y, th->accent);
    *y += ren_font_height(g->title) + 6;
    int W = PAGE_W - 2 * MARGIN;
    if (ws_show_picture(sh, q)) {
        Rect area = {MARGIN, *y, W, 520};
        ViewCtx v = {NULL, NULL, NULL, sh->a->pz, &sh->a->ui, sh->r, g, th, area, &sh->a->ui.in, 1.0f};
        ui_bind(&sh->a->ui, sh->r, g, th, 0); /* the widgets some views draw (the PE view's steppers) */
        ren_clip_push(sh->r, area);
        app_draw_view(sh->a, &v, app_current_view(sh->a));
        ren_clip_pop(sh->r);
        ren_rect_line(sh->r, area, 1, th->border);
        *y += area.h + 6;
    }
    if (q->why) {
        para(sh->r, g->small, _(q->why), MARGIN, y, W, th->dim);
        *y += 6;
    }
    if (q->kind == 0) {
        plain(q->step->quiz.question, buf, sizeof buf);
        para(sh->r, g->ui, buf, MARGIN, y, W, th->text);
        *y += 4;
        choices(sh, (const char *const *)q->step->quiz.choices, q->step->quiz.n_choices, y);
    } else {
        predict_text(sh, q, y);
    }
    *y += 10;
    ren_text(sh->r, g->ui, _("Your answer and why:"), MARGIN, *y, th->dim);
    *y += ren_font_height(g->ui) + 6;
    for (int l = 0; l < 3; l++, *y += 34)
        ren_rect(sh->r, (Rect){MARGIN, *y + 26, W, 1}, th->border);
    *y += 20;
}

/* The key of one student: each answer as the engine computed it for
 * their sentence (a prediction's row with its three largest weights, a
 * number, a translation, what each change does), as `dump` has them. */
static void draw_key(WsSheet *sh, int student, int *y)
{
    Gfx *g = app_gfx(sh->a, sh->r);
    const Theme *th = theme_get(THEME_LIGHT);
    char line[WS_TEXT + 512], buf[512];
    snprintf(line, sizeof line, _("Student %d: “%s” → “%s”"), student, sh->src, sh->translation);
    para(sh->r, g->ui, line, MARGIN, y, PAGE_W - 2 * MARGIN, th->accent);
    for (int k = 0; k < sh->n_q; k++) {
        const WsQuestion *q = &sh->q[k];
        if (q->kind == 0) {
            plain(q->step->quiz.choices[q->answer], buf, sizeof buf);
            snprintf(line, sizeof line, _("  %d. (%c) %s"), k + 1, 'A' + q->answer, buf);
        } else {
            snprintf(line, sizeof line, "  %d. %s", k + 1, q->key);
        }
        para(sh->r, g->ui, line, MARGIN, y, PAGE_W - 2 * MARGIN, th->text);
    }
    *y += 14;
}

/* The model of the worksheet: --model, else the lesson's (@model, a
 * bundled one), else NULL: the bundled en2zh. */
static const char *model_of(const WorksheetOpts *o, const Lesson *l, char *buf, size_t cap)
{
    if (o->model_path)
        return o->model_path;
    if (!l->model[0] || strcmp(l->model, "en2zh") == 0)
        return NULL;
    char rel[128];
    snprintf(rel, sizeof rel, "assets/models/%s.safetensors", l->model);
    return paths_data(rel, buf, cap);
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
    static App a;
    int rc = -1;
    Ren *r = NULL;
    char *texts = malloc((size_t)o->students * WS_TEXT), what[64] = "", mbuf[4096];
    WsSheet *sh = calloc(1, sizeof *sh);
    if (!texts || !sh) {
        tf_fail(err, "out of memory");
        goto out;
    }
    AppOpts ao = {0};
    ao.model_path = model_of(o, &set.lessons[li], mbuf, sizeof mbuf);
    ao.head = -2;
    ao.no_save = 1;
    ao.lang = o->lang;
    ao.theme = "light";
    if (!(r = ren_open_headless(PAGE_W, PAGE_H, err)) || app_init(&a, &ao, err))
        goto out;
    ui_set_lang(o->lang);
    if (ws_sentences(&a.ses.model, o, texts, what, sizeof what, err))
        goto out_app;
    sh->a = &a;
    sh->r = r;
    sh->les = &set.lessons[li];
    sh->o = o;
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
            ws_ask(sh, texts + (size_t)k * WS_TEXT);
            if (pass == 0) {
                for (int q = 0; q < sh->n_q || (q == 0 && sh->n_q == 0); q++) {
                    int need = sh->n_q && sh->q[q].picture ? 760 : 420;
                    if (y > PAGE_H - need || q == 0) { /* a new page: each student starts one */
                        if (n_pages++)
                            ren_end(r);
                        ren_begin(r, th->panel);
                        y = MARGIN;
                        page_head(sh, k + 1, _("Worksheet"), &y);
                    }
                    if (sh->n_q)
                        draw_question(sh, q, &y);
                }
            } else {
                if (k == 0 || y > PAGE_H - 60 - 40 * (sh->n_q + 2)) {
                    if (n_pages++)
                        ren_end(r);
                    ren_begin(r, th->panel);
                    y = MARGIN;
                    page_head(sh, 0, _("Answer key (computed by the model)"), &y);
                    if (k == 0) {
                        char line[256];
                        snprintf(line, sizeof line, _("The sentences are held-out pairs of %s (seed %llu)."), what,
                                 (unsigned long long)o->seed);
                        ren_text(r, g->small, line, MARGIN, y, th->dim);
                        y += ren_font_height(g->small) + 8;
                    }
                }
                draw_key(sh, k + 1, &y);
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
    free(texts);
    free(sh);
    lessons_free(&set);
    return rc;
}
