/* lesson_check.c - the lesson checker (see lesson_check.h). */
#include "lesson_check.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
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

/* The ablated heads and feed-forward networks of an @experiment against the
 * model (once, on the step
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
    for (int k = 0; k < v->exp.n_no_ffn; k++) {
        const TfLayerRef *f = &v->exp.no_ffn[k];
        int layers = f->kind == TF_ATTN_ENC ? cfg->n_enc : cfg->n_dec;
        if (f->layer >= layers)
            bad += say(report, user, "%s:%d: @experiment no-ffn %s:%d: the %s model has layers 0..%d (from 0)",
                       l->path, v->exp_line, KIND[f->kind], f->layer, l->model, layers - 1);
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
    if (v->train_task[0] && in_step(l, i, v->train_line) && strcmp(v->view, "train") != 0)
        bad += say(report, user, "%s:%d: @train sets the Train view's next run: add @view train", l->path,
                   v->train_line);
    int pe = strcmp(v->view, "pe") == 0 || (!v->view[0] && st == ST_POS_ENC);
    if (v->pe_panel[0] && in_step(l, i, v->pe_panel_line) && !pe)
        bad += say(report, user, "%s:%d: @pane %s is the PE view's: add @view pe", l->path, v->pe_panel_line,
                   v->pe_panel);
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
    } else if (p->kind == LESSON_PREDICT_NUMBER) {
        if (st < 0)
            bad += say(report, user, "%s:%d: @predict number reads a number of the stage shown: give @stage",
                       l->path, p->line);
    }
    if ((p->kind == LESSON_PREDICT_NEXT || p->kind == LESSON_PREDICT_OUTPUT || p->kind == LESSON_PREDICT_BREAKS) &&
        v->tgt && v->tgt[0])
        bad += say(report, user, "%s:%d: @predict %s with a @tgt: the Target line would print the answer "
                   "(@tgt - before it)", l->path, p->line, p->kind == LESSON_PREDICT_NEXT ? "next"
                   : p->kind == LESSON_PREDICT_OUTPUT ? "output" : "breaks");
    if (p->kind == LESSON_PREDICT_NEXT) {
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

/* ---- a quiz's answer read off its own screen ---- */

/* s (n bytes) folded for comparing into out (cap bytes, terminated): ASCII
 * lower case; spaces, markup and punctuation dropped, ASCII and the
 * full-width ，。：；！？（）、“”‘’ alike. Returns its length. */
static size_t fold(const char *s, size_t n, char *out, size_t cap)
{
    static const char *const WIDE[] = {"，", "。", "：", "；", "！", "？", "（", "）", "、", "“", "”", "‘", "’"};
    size_t k = 0;
    for (size_t i = 0; i < n && k + 1 < cap;) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x80) {
            if (!strchr(" \t\n*\"'.,:;!?()-", c))
                out[k++] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
            i++;
            continue;
        }
        size_t w = 1;
        for (size_t j = 0; j < sizeof WIDE / sizeof *WIDE && w == 1; j++)
            if (strncmp(s + i, WIDE[j], strlen(WIDE[j])) == 0)
                w = 0, i += strlen(WIDE[j]);
        if (!w)
            continue;
        out[k++] = s[i++];
    }
    out[k] = 0;
    return k;
}

#define GIVEAWAY_MIN 8 /* folded bytes: a short answer ("64", "是") may stand anywhere */

/* Does the step's title or text hold its quiz's answer, whole or the part
 * before its first colon (the key phrase: "No: ..." -> "No")? */
static int check_giveaway(const Lesson *l, int i, CheckFn report, void *user)
{
    const LessonStep *s = &l->steps[i];
    if (!s->has_quiz || s->quiz.answer < 0 || s->quiz.answer >= s->quiz.n_choices)
        return 0;
    const char *a = s->quiz.choices[s->quiz.answer];
    size_t tn = strlen(s->title) + (s->text ? strlen(s->text) : 0) + 2;
    char *screen = malloc(2 * tn), *t = screen ? screen + tn : NULL;
    char whole[512], key[512];
    if (!screen)
        return 0;
    snprintf(screen, tn, "%s %s", s->title, s->text ? s->text : "");
    fold(screen, strlen(screen), t, tn);
    const char *colon = strpbrk(a, ":");
    const char *wide = strstr(a, "：");
    size_t kn = colon ? (size_t)(colon - a) : strlen(a);
    if (wide && (size_t)(wide - a) < kn)
        kn = (size_t)(wide - a);
    size_t wl = fold(a, strlen(a), whole, sizeof whole), kl = fold(a, kn, key, sizeof key);
    int bad = 0;
    if ((wl >= GIVEAWAY_MIN && strstr(t, whole)) || (kl >= GIVEAWAY_MIN && strstr(t, key)))
        bad = say(report, user, "%s:%d: the @answer \"%s\" stands in the step's own title or text: the learner "
                  "reads it off the screen (ask for what the screen does not say)", l->path, s->quiz.line, a);
    free(screen);
    return bad;
}

int lesson_check_view(const Lesson *l, const TfConfig *cfg, CheckFn report, void *user)
{
    int bad = 0;
    for (int i = 0; i < l->n_steps; i++) {
        const LessonStep *s = &l->steps[i];
        const LessonView *v = &s->view;
        bad += check_exp(l, i, cfg, report, user) + check_pane_predict(l, i, cfg, report, user) +
               check_giveaway(l, i, report, user);
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

/* The greedy translation of sentence 1 under experiment e (none: NULL). */
static void translate_under(Session *ses, const TfExperiment *e, char *out, size_t cap)
{
    TfExperiment none;
    memset(&none, 0, sizeof none);
    session_set_exp(ses, e ? e : &none);
    session_compute_all(ses);
    for (int k = 0; k < 100000 && session_idle_work(ses) == 1; k++)
        ;
    snprintf(out, cap, "%s", ses->translation);
}

/* A @predict with choices: the model, run as the window runs the step,
 * gives the @answer and none of the @choice lines. */
static int check_choices(const Lesson *l, int i, Session *ses, CheckFn report, void *user)
{
    const LessonStep *s = &l->steps[i];
    const LessonView *v = &s->view;
    const LessonPredict *p = &s->predict;
    const LessonQuiz *q = &s->quiz;
    int bad = 0;
    TfExperiment step_exp;
    memset(&step_exp, 0, sizeof step_exp);
    if (v->has_exp)
        step_exp = v->exp;
    if (p->kind == LESSON_PREDICT_NUMBER) {
        int st = v->stage[0] ? stage_find(v->stage) : -1;
        if (st < 0)
            return 0; /* said by lesson_check_view */
        session_set_exp(ses, &step_exp);
        session_compute_all(ses);
        double x;
        int b = v->batch >= 0 ? v->batch : 0;
        int head = v->head >= 0 ? v->head : 0, layer = v->layer >= 0 ? v->layer : 0;
        if (lesson_predict_number(p, &ses->trace, &ses->model.src_vocab, &ses->model.tgt_vocab, st, layer, head, b,
                                  &x))
            return say(report, user, "%s:%d: @predict number: the %s of stage %s has no such row or column (%s%s%s)",
                       l->path, p->line, "matrix", v->stage, p->query, p->col ? " " : "", p->col ? p->col : "");
        for (int c = 0; c < q->n_choices; c++) {
            double w;
            int d;
            lesson_choice_number(q->choices[c], &w, &d);
            int m = lesson_number_matches(x, w, d);
            if (c == q->answer && !m)
                bad += say(report, user, "%s:%d: @predict number: the @answer says %s, but the model gives %.6g",
                           l->path, p->line, q->choices[c], x);
            else if (c != q->answer && m)
                bad += say(report, user, "%s:%d: @predict number: the @choice %s is right too (the model gives %.6g)",
                           l->path, p->line, q->choices[c], x);
        }
        return bad;
    }
    char base[SES_TEXT_MAX], got[SES_TEXT_MAX];
    if (p->kind == LESSON_PREDICT_OUTPUT) {
        translate_under(ses, &step_exp, got, sizeof got);
        for (int c = 0; c < q->n_choices; c++) {
            int m = strcmp(q->choices[c], got) == 0;
            if (c == q->answer && !m)
                bad += say(report, user, "%s:%d: @predict output: the @answer is '%s', but the model writes '%s'",
                           l->path, p->line, q->choices[c], got);
            else if (c != q->answer && m)
                bad += say(report, user, "%s:%d: @predict output: the @choice '%s' is what the model writes",
                           l->path, p->line, q->choices[c]);
        }
        return bad;
    }
    /* breaks: each choice's change against the translation without one */
    translate_under(ses, NULL, base, sizeof base);
    for (int c = 0; c < q->n_choices; c++) {
        TfErr err;
        if (tf_exp_check_source(&p->exps[c], ses->pad.S, &err)) {
            bad += say(report, user, "%s:%d: @predict breaks choice %d: %s", l->path, p->line, c + 1,
                       err.msg + 2 * (err.msg[0] == '-'));
            continue;
        }
        translate_under(ses, &p->exps[c], got, sizeof got);
        int changed = strcmp(got, base) != 0;
        if (c == q->answer && !changed)
            bad += say(report, user, "%s:%d: @predict breaks: the @answer '%s' leaves the translation '%s' as it is",
                       l->path, p->line, q->choices[c], base);
        else if (c != q->answer && changed)
            bad += say(report, user, "%s:%d: @predict breaks: the @choice '%s' changes it too ('%s' → '%s')",
                       l->path, p->line, q->choices[c], base, got);
    }
    translate_under(ses, NULL, base, sizeof base);
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
    int forced = 0;
    if (s->force_step) {
        if (strcmp(v->view, "decode") != 0 || (v->pane[0] && strcmp(v->pane, "gen") != 0))
            forced += say(report, user, "%s:%d: @force needs the decode view's generation pane (@view decode, @pane gen)",
                          l->path, s->force_line);
        if (vocab_find(&ses->model.tgt_vocab, s->force_token, (int)strlen(s->force_token)) < 0)
            forced += say(report, user, "%s:%d: @force %s: not a token of the %s model's target vocabulary",
                          l->path, s->force_line, s->force_token, l->model);
    }
    if (!p->kind && !hides)
        return forced;
    if (!v->src)
        return forced + (p->kind ? say(report, user, "%s:%d: @predict needs the sentence it is about: give @src",
                                       l->path, p->line) : 0);
    TfExperiment none;
    memset(&none, 0, sizeof none);
    session_set_exp(ses, &none);
    session_set_text(ses, 0, v->src ? v->src : "");
    session_set_text(ses, 1, v->tgt ? v->tgt : "");
    session_compute_all(ses);
    if (ses->input_error[0])
        return say(report, user, "%s:%d: the step's sentence does not run: %s", l->path, s->line, ses->input_error);
    int bad = forced;
    TfErr err;
    if (hides && tf_exp_check_source(&v->exp, ses->pad.S, &err))
        bad += say(report, user, "%s:%d: @experiment %s", l->path, v->exp_line, err.msg + 2 * (err.msg[0] == '-'));
    if (!p->kind)
        return bad;
    if (lesson_predict_has_choices(p->kind))
        return bad + check_choices(l, i, ses, report, user);
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
    if (en->n_recap != o->n_recap || en->n_exercise != o->n_exercise)
        bad += say(report, user, "%s: %d @recap and %d @exercise lines, but %s has %d and %d", o->path, o->n_recap,
                   o->n_exercise, en->path, en->n_recap, en->n_exercise);
    for (int i = 0; i < en->n_steps; i++) {
        const LessonStep *a = &en->steps[i], *b = &o->steps[i];
        if (!same(a->directives, b->directives))
            bad += say(report, user, "%s:%d: step %d's view directives differ from %s:%d", o->path, b->line,
                       i + 1, en->path, a->line);
        if (a->has_quiz != b->has_quiz || (a->has_quiz && (a->quiz.n_choices != b->quiz.n_choices ||
                                                           a->quiz.answer != b->quiz.answer)))
            bad += say(report, user, "%s:%d: step %d's quiz differs from %s:%d (choices or answer)", o->path,
                       b->line, i + 1, en->path, a->line);
        if (lesson_predict_has_choices(a->predict.kind) && a->predict.kind == b->predict.kind &&
            (a->quiz.n_choices != b->quiz.n_choices || a->quiz.answer != b->quiz.answer))
            bad += say(report, user, "%s:%d: step %d's @predict choices differ from %s:%d (choices or answer)",
                       o->path, b->line, i + 1, en->path, a->line);
        for (int c = 0; a->predict.kind == LESSON_PREDICT_BREAKS && b->predict.kind == a->predict.kind &&
                        c < a->quiz.n_choices && c < b->quiz.n_choices; c++)
            if (!tf_exp_equal(&a->predict.exps[c], &b->predict.exps[c]))
                bad += say(report, user, "%s:%d: step %d's @predict breaks choice %d is another change than in %s",
                           o->path, b->line, i + 1, c + 1, en->path);
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
        bad += check_text("the @predict's explanation", s->predict.explain, font, l, s->line, report, user);
    }
    for (int k = 0; k < l->n_recap; k++)
        bad += check_text("a @recap", l->recap[k], font, l, 1, report, user);
    for (int k = 0; k < l->n_exercise; k++)
        bad += check_text("an @exercise", l->exercise[k], font, l, 1, report, user);
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

static int needs_run(const Lesson *l)
{
    int need = 0;
    for (int i = 0; i < l->n_steps; i++)
        need |= l->steps[i].predict.kind || l->steps[i].force_step ||
                (l->steps[i].view.has_exp && l->steps[i].view.exp.n_hide);
    return need;
}

/* The session of the last model run, kept for the next lesson on it (a
 * folder of many lessons opens its model once). */
typedef struct RunCache {
    Session ses;
    char path[4096];
    int open;
} RunCache;

static void cache_close(RunCache *c)
{
    if (c->open)
        session_free(&c->ses);
    c->open = 0;
}

static int run_cached(RunCache *c, const Lesson *l, const char *model_file, CheckFn report, void *user)
{
    if (!needs_run(l))
        return 0;
    if (!c->open || strcmp(c->path, model_file) != 0) {
        cache_close(c);
        TfErr err;
        if (session_init(&c->ses, model_file, 0, &err))
            return say(report, user, "%s: its model %s does not load: %s", l->path, model_file, err.msg);
        snprintf(c->path, sizeof c->path, "%s", model_file);
        c->open = 1;
    }
    int bad = 0;
    for (int i = 0; i < l->n_steps; i++)
        bad += check_step_run(l, i, &c->ses, report, user);
    return bad;
}

int lesson_check_run(const Lesson *l, const char *model_file, CheckFn report, void *user)
{
    static RunCache c;
    int bad = run_cached(&c, l, model_file, report, user);
    cache_close(&c);
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

int lesson_check_one(const Lesson *l, const char *model_file, const TfConfig *cfg, RenFont *font, CheckFn report,
                     void *user)
{
    return lesson_check_view(l, cfg, report, user) + lesson_check_run(l, model_file, report, user) +
           lesson_check_glyphs(l, font, report, user);
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
    static RunCache run; /* one model open at a time, for all its lessons */
    char cfg_name[64] = "";
    TfConfig cfg;
    int cfg_ok = 0;
    for (int k = 0; k < N_LANGS; k++) {
        for (int i = 0; i < sets[k].n; i++) {
            const Lesson *l = &sets[k].lessons[i];
            if (strcmp(cfg_name, l->model) != 0) { /* read once per model in a row */
                snprintf(cfg_name, sizeof cfg_name, "%s", l->model);
                cfg_ok = model_config(root, l->model, &cfg) == 0;
            }
            if (!cfg_ok)
                c.bad += say(report, user, "%s: its model '%s' (assets/models/%s.safetensors) does not load",
                             l->path, l->model, l->model);
            else {
                char path[4096];
                c.bad += lesson_check_view(l, &cfg, report, user);
                c.bad += run_cached(&run, l, model_path(l->model, path, sizeof path), report, user);
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
    cache_close(&run);
    if (r)
        ren_close(r);
    for (int k = 0; k < N_LANGS; k++)
        lessons_free(&sets[k]);
    if (n_lessons)
        *n_lessons = n;
    return c.bad;
}
