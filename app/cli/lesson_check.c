/* lesson_check.c - the lesson checker (see lesson_check.h). */
#include "lesson_check.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "cli.h"
#include "model_open.h"
#include "session.h"
#include "stage.h"

static const char *LANGS[] = {"en", "zh"};
#define N_LANGS 2

static int say(CheckFn report, void *user, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (report)
        report(msg, user);
    return 1;
}

/* Was the directive at `line` given in step i (not carried over)? */
static int in_step(const Lesson *l, int i, int line)
{
    return line > l->steps[i].line && (i + 1 == l->n_steps || line < l->steps[i + 1].line);
}

/* The ablated heads of an @experiment against the model (once, on the step
 * that gives it). */
static int check_exp(const Lesson *l, int i, const TfConfig *cfg, CheckFn report, void *user)
{
    const LessonView *v = &l->steps[i].view;
    if (!v->has_exp || !in_step(l, i, v->exp_line))
        return 0;
    static const char *KIND[3] = {"enc", "dec", "cross"};
    int bad = 0;
    for (int k = 0; k < v->exp.n_ablate; k++) {
        const TfHeadRef *h = &v->exp.ablate[k];
        int layers = h->kind == TF_ATTN_ENC ? cfg->n_enc : cfg->n_dec;
        if (h->layer >= layers)
            bad += say(report, user, "%s:%d: @experiment ablate %s:%d:%d: the %s model has layers 0..%d (from 0)",
                       l->path, v->exp_line, KIND[h->kind], h->layer, h->head, l->model, layers - 1);
        else if (h->head >= cfg->n_heads)
            bad += say(report, user, "%s:%d: @experiment ablate %s:%d:%d: the %s model has heads 0..%d (from 0)",
                       l->path, v->exp_line, KIND[h->kind], h->layer, h->head, l->model, cfg->n_heads - 1);
    }
    for (int k = 0; k < v->exp.n_hide; k++)
        if (v->exp.hide_src[k] >= cfg->max_len)
            bad += say(report, user, "%s:%d: @experiment hide-src %d: the %s model reads at most %d tokens",
                       l->path, v->exp_line, v->exp.hide_src[k], l->model, cfg->max_len);
    return bad;
}

/* Can the step's view show what its @pane or @predict asks for? */
static int check_pane_predict(const Lesson *l, int i, const TfConfig *cfg, CheckFn report, void *user)
{
    const LessonStep *s = &l->steps[i];
    const LessonView *v = &s->view;
    int st = v->stage[0] ? stage_find(v->stage) : -1, bad = 0;
    int decode = strcmp(v->view, "decode") == 0;
    if (v->pane[0] && in_step(l, i, v->pane_line) && !decode)
        bad += say(report, user, "%s:%d: @pane %s is the decode view's: add @view decode", l->path, v->pane_line,
                   v->pane);
    if (strcmp(v->view, "scale") == 0 && !lesson_predict_stage_ok(st, NULL))
        bad += say(report, user, "%s:%d: @view scale shows one head's QKᵀ: set @stage to the scores or weights of "
                   "an attention (enc.self.scores, dec.self.weights, ...), not %s", l->path, s->line,
                   v->stage[0] ? v->stage : "no stage");
    const LessonPredict *p = &s->predict;
    if (p->kind == LESSON_PREDICT_ROW) {
        int natural = !v->view[0] || strcmp(v->view, "auto") == 0 || strcmp(v->view, "matrix") == 0;
        if (st < 0 || !lesson_predict_stage_ok(st, NULL) || !natural)
            bad += say(report, user, "%s:%d: @predict row needs the heatmap of attention scores or weights "
                       "(@stage enc.self.weights, dec.self.weights, dec.cross.weights or their scores; "
                       "view matrix), not %s%s%s", l->path, p->line, v->stage[0] ? v->stage : "no stage",
                       v->view[0] ? " in view " : "", v->view);
        else if (v->head == -1)
            bad += say(report, user, "%s:%d: @predict row hides a row of one head's heatmap: set @head N, "
                       "not all", l->path, p->line);
    } else if (p->kind == LESSON_PREDICT_NEXT) {
        int output = strcmp(v->view, "output") == 0 ||
                     (st == ST_OUT_PROBS && (!v->view[0] || strcmp(v->view, "auto") == 0));
        int gen = decode && (!v->pane[0] || strcmp(v->pane, "gen") == 0);
        if (!output && !gen)
            bad += say(report, user, "%s:%d: @predict next needs the output view (@view output) or the decode "
                       "view's generation pane (@view decode, @pane gen)", l->path, p->line);
    }
    (void)cfg;
    return bad;
}

int lesson_check_view(const Lesson *l, const TfConfig *cfg, CheckFn report, void *user)
{
    int bad = 0;
    for (int i = 0; i < l->n_steps; i++) {
        const LessonStep *s = &l->steps[i];
        const LessonView *v = &s->view;
        bad += check_exp(l, i, cfg, report, user) + check_pane_predict(l, i, cfg, report, user);
        int st = v->stage[0] ? stage_find(v->stage) : -1;
        if (!v->stage[0] && !v->view[0])
            bad += say(report, user, "%s:%d: step %d shows nothing: give it a @stage or @view", l->path, s->line, i + 1);
        if (v->stage[0] && st < 0)
            bad += say(report, user, "%s:%d: unknown stage '%s'", l->path, s->line, v->stage);
        if (st >= 0 && !stage_exists(st, cfg))
            bad += say(report, user, "%s:%d: stage '%s' does not exist in the %s model", l->path, s->line, v->stage, l->model);
        if (v->view[0] && strcmp(v->view, "auto") != 0 && view_find(v->view) < 0)
            bad += say(report, user, "%s:%d: unknown view '%s'", l->path, s->line, v->view);
        if (st >= 0 && (stage_info(st)->flags & SF_LAYER) && v->layer >= stage_layers(st, cfg))
            bad += say(report, user, "%s:%d: layer %d, but %s has %d", l->path, s->line, v->layer + 1,
                       v->stage, stage_layers(st, cfg));
        if (v->head >= cfg->n_heads)
            bad += say(report, user, "%s:%d: head %d, but the model has %d heads", l->path, s->line,
                       v->head + 1, cfg->n_heads);
        if (v->batch >= APP_MAX_SENT)
            bad += say(report, user, "%s:%d: batch %d, at most %d sentences", l->path, s->line, v->batch + 1, APP_MAX_SENT);
    }
    return bad;
}

/* One step's sentence run through the model as the window runs it: the
 * @predict query is a token of it, the hidden positions inside it. */
static int check_step_run(const Lesson *l, int i, Session *ses, CheckFn report, void *user)
{
    const LessonStep *s = &l->steps[i];
    const LessonView *v = &s->view;
    const LessonPredict *p = &s->predict;
    int hides = v->has_exp && v->exp.n_hide && in_step(l, i, v->exp_line);
    if (!p->kind && !hides)
        return 0;
    if (!v->src)
        return p->kind ? say(report, user, "%s:%d: @predict needs the sentence it is about: give @src", l->path,
                             p->line) : 0;
    session_set_text(ses, 0, v->src ? v->src : "");
    session_set_text(ses, 1, v->tgt ? v->tgt : "");
    session_compute_all(ses);
    if (ses->input_error[0])
        return say(report, user, "%s:%d: the step's sentence does not run: %s", l->path, s->line, ses->input_error);
    int bad = 0;
    TfErr err;
    if (hides && tf_exp_check_source(&v->exp, ses->pad.S, &err))
        bad += say(report, user, "%s:%d: @experiment %s", l->path, v->exp_line, err.msg + 2 * (err.msg[0] == '-'));
    if (!p->kind)
        return bad;
    int b = v->batch >= 0 ? v->batch : 0, decoder = 1, st = v->stage[0] ? stage_find(v->stage) : -1;
    if (p->kind == LESSON_PREDICT_ROW && !lesson_predict_stage_ok(st, &decoder))
        return bad; /* said by lesson_check_view */
    const Vocab *voc = decoder ? &ses->model.tgt_vocab : &ses->model.src_vocab;
    int row = lesson_predict_row(p, &ses->trace, voc, decoder, b);
    int n = decoder ? ses->trace.tgt_len[b] : ses->trace.src_len[b];
    if (row < 0) {
        char toks[600] = "";
        const int *ids = decoder ? ses->trace.tgt_ids + (size_t)b * ses->trace.T : ses->trace.src_ids + (size_t)b * ses->trace.S;
        for (int k = 0; k < n && strlen(toks) < sizeof toks - 40; k++)
            snprintf(toks + strlen(toks), sizeof toks - strlen(toks), "%s%s", k ? " " : "", vocab_token(voc, ids[k]));
        return bad + say(report, user, "%s:%d: @predict %s %s: the %s has no such token (it reads: %s; or #1..#%d)",
                         l->path, p->line, p->kind == LESSON_PREDICT_ROW ? "row" : "next", p->query,
                         decoder ? "decoder input" : "source", toks, n);
    }
    return bad;
}

static int same(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

int lesson_check_pair(const Lesson *en, const Lesson *o, CheckFn report, void *user)
{
    int bad = 0;
    if (en->n_steps != o->n_steps)
        return say(report, user, "%s: %d steps, but %s has %d", o->path, o->n_steps, en->path, en->n_steps);
    if (strcmp(en->model, o->model) != 0)
        bad += say(report, user, "%s: @model %s, but %s uses %s", o->path, o->model, en->path, en->model);
    for (int i = 0; i < en->n_steps; i++) {
        const LessonStep *a = &en->steps[i], *b = &o->steps[i];
        if (!same(a->directives, b->directives))
            bad += say(report, user, "%s:%d: step %d's view directives differ from %s:%d", o->path, b->line,
                       i + 1, en->path, a->line);
        if (a->has_quiz != b->has_quiz || (a->has_quiz && (a->quiz.n_choices != b->quiz.n_choices ||
                                                           a->quiz.answer != b->quiz.answer)))
            bad += say(report, user, "%s:%d: step %d's quiz differs from %s:%d (choices or answer)", o->path,
                       b->line, i + 1, en->path, a->line);
        if (a->predict.kind != b->predict.kind || !a->predict.explain != !b->predict.explain)
            bad += say(report, user, "%s:%d: step %d's @predict or its @explain differs from %s:%d", o->path,
                       b->line, i + 1, en->path, a->line);
        if (!a->try_text != !b->try_text)
            bad += say(report, user, "%s:%d: step %d has a @try in one language only", o->path, b->line, i + 1);
    }
    return bad;
}

static int check_text(const char *what, const char *s, RenFont *font, const Lesson *l, int line,
                      CheckFn report, void *user)
{
    if (!s)
        return 0;
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        int k = utf8_next(s + i, n - i, &cp);
        if (k < 0)
            return say(report, user, "%s:%d: %s is not valid UTF-8", l->path, line, what);
        if (cp >= 0x20 && !ren_font_has_glyph(font, cp))
            return say(report, user, "%s:%d: %s uses U+%04X '%.*s', which the fonts cannot draw", l->path,
                       line, what, cp, k, s + i);
        i += (size_t)k;
    }
    return 0;
}

int lesson_check_glyphs(const Lesson *l, RenFont *font, CheckFn report, void *user)
{
    if (!font)
        return 0;
    int bad = check_text("the title", l->title, font, l, 1, report, user) +
              check_text("the summary", l->summary, font, l, 1, report, user);
    for (int i = 0; i < l->n_steps; i++) {
        const LessonStep *s = &l->steps[i];
        bad += check_text("the step title", s->title, font, l, s->line, report, user);
        bad += check_text("the text", s->text, font, l, s->line, report, user);
        bad += check_text("the @try", s->try_text, font, l, s->line, report, user);
        bad += check_text("the quiz", s->quiz.question, font, l, s->line, report, user);
        bad += check_text("the explanation", s->quiz.explain, font, l, s->line, report, user);
        for (int c = 0; c < s->quiz.n_choices; c++)
            bad += check_text("a choice", s->quiz.choices[c], font, l, s->line, report, user);
    }
    return bad;
}

typedef struct Ctx {
    CheckFn report;
    void *user;
    int bad;
} Ctx;

static void on_parse_error(const char *msg, void *user)
{
    Ctx *c = user;
    c->bad += say(c->report, c->user, "%s", msg);
}

static const char *model_path(const char *name, char *path, size_t cap)
{
    char rel[256];
    snprintf(rel, sizeof rel, "assets/models/%s.safetensors", name);
    return cli_data_path(rel, path, cap);
}

int lesson_check_run(const Lesson *l, const char *model_file, CheckFn report, void *user)
{
    int need = 0;
    for (int i = 0; i < l->n_steps; i++)
        need |= l->steps[i].predict.kind || (l->steps[i].view.has_exp && l->steps[i].view.exp.n_hide);
    if (!need)
        return 0;
    static Session ses;
    TfErr err;
    if (session_init(&ses, model_file, 0, &err))
        return say(report, user, "%s: its model %s does not load: %s", l->path, model_file, err.msg);
    int bad = 0;
    for (int i = 0; i < l->n_steps; i++)
        bad += check_step_run(l, i, &ses, report, user);
    session_free(&ses);
    return bad;
}

static int model_config(const char *root, const char *name, TfConfig *cfg)
{
    char path[4096];
    (void)root;
    model_path(name, path, sizeof path);
    TfModel m;
    TfErr err;
    if (tf_model_open(path, &m, &err))
        return -1;
    *cfg = m.cfg;
    model_free(&m);
    return 0;
}

int lessons_check_all(const char *root, CheckFn report, void *user, int *n_lessons)
{
    Ctx c = {report, user, 0};
    LessonSet sets[N_LANGS];
    char dir[1024];
    int n = 0;
    for (int k = 0; k < N_LANGS; k++) {
        snprintf(dir, sizeof dir, "%s/%s", root, LANGS[k]);
        lessons_load_dir(&sets[k], dir, on_parse_error, &c, NULL);
        n += sets[k].n;
    }
    TfErr err;
    Ren *r = ren_open_headless(64, 64, &err);
    RenFont *font = r ? ren_font_open(r, REN_SANS, 16, &err) : NULL;
    if (!font)
        c.bad += say(report, user, "cannot open the fonts to check glyphs: %s", err.msg);
    for (int k = 0; k < N_LANGS; k++) {
        for (int i = 0; i < sets[k].n; i++) {
            const Lesson *l = &sets[k].lessons[i];
            TfConfig cfg;
            if (model_config(root, l->model, &cfg))
                c.bad += say(report, user, "%s: its model '%s' (assets/models/%s.safetensors) does not load",
                             l->path, l->model, l->model);
            else {
                char path[4096];
                c.bad += lesson_check_view(l, &cfg, report, user);
                c.bad += lesson_check_run(l, model_path(l->model, path, sizeof path), report, user);
            }
            c.bad += lesson_check_glyphs(l, font, report, user);
            if (k == 0)
                continue;
            int j = lessons_find(&sets[0], l->id);
            if (j < 0)
                c.bad += say(report, user, "%s: no English lesson '%s'", l->path, l->id);
            else
                c.bad += lesson_check_pair(&sets[0].lessons[j], l, report, user);
        }
    }
    for (int k = 1; k < N_LANGS; k++)
        for (int i = 0; i < sets[0].n; i++)
            if (lessons_find(&sets[k], sets[0].lessons[i].id) < 0)
                c.bad += say(report, user, "%s: no %s version of this lesson", sets[0].lessons[i].path, LANGS[k]);
    if (r)
        ren_close(r);
    for (int k = 0; k < N_LANGS; k++)
        lessons_free(&sets[k]);
    if (n_lessons)
        *n_lessons = n;
    return c.bad;
}
