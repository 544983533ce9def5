/* lesson_panel.c - drawing lessons: the panel beside the view (title, step,
 * text with paragraphs, bullets and **bold**, the try-it box, the quiz,
 * Back/Next) and the lesson list with progress marks. Chinese wraps between
 * characters (ren_text_wrap), mixed Chinese/Latin/formula lines share one
 * baseline (the fonts fall back per character). */
#include <stdio.h>
#include <string.h>

#include "cmd_table.h"
#include "lesson_ui.h"
#include "panels.h"

#define RICH_MAX 8192

static int is_cjk_byte_start(const char *s)
{
    /* CJK ideographs and punctuation are 3-byte UTF-8 from U+2E80 */
    unsigned char c = (unsigned char)s[0];
    return c >= 0xE2 && c <= 0xEF && ((c == 0xE2 && (unsigned char)s[1] >= 0xBA) || c > 0xE2);
}

/* Build one item's plain text (no ** markers) and a bold flag per byte;
 * source lines are joined with a space, or directly between CJK text. An
 * unbroken run of more than LESSON_MAX_WORD bytes of Latin text is broken
 * with a space, so that it wraps (and costs a line, not a frame). */
static int flatten(const char *src0, size_t n0, char *plain, unsigned char *bold, int cap)
{
    static char conv[RICH_MAX];
    size_t n = lesson_text_plain(src0, n0, conv, sizeof conv); /* h_{t−1} → hₜ₋₁ */
    const char *src = conv;
    int k = 0, on = 0, run = 0;
    for (size_t i = 0; i < n && k < cap - 1; i++) {
        unsigned char c = (unsigned char)src[i];
        if (c == ' ' || c == '\n' || is_cjk_byte_start(src + i))
            run = 0;
        else if ((c & 0xC0) != 0x80 && ++run > LESSON_MAX_WORD && k < cap - 2) { /* at a character's start */
            plain[k] = ' ';
            bold[k++] = (unsigned char)on;
            run = 1;
        }
        if (src[i] == '*' && i + 1 < n && src[i + 1] == '*') {
            on = !on;
            i++;
            continue;
        }
        if (src[i] == '\n') {
            int cjk_before = k >= 3 && is_cjk_byte_start(plain + k - 3);
            int cjk_after = i + 1 < n && is_cjk_byte_start(src + i + 1);
            if (!(cjk_before && cjk_after) && k > 0 && plain[k - 1] != ' ') {
                plain[k] = ' ';
                bold[k++] = (unsigned char)on;
            }
            continue;
        }
        plain[k] = src[i];
        bold[k++] = (unsigned char)on;
    }
    plain[k] = 0;
    return k;
}

/* Draw one wrapped item; returns its height. */
static int draw_item(UiCtx *ui, App *a, RenFont *f, const char *src, size_t n, int x, int y, int w,
                     Color normal, Color strong, int draw)
{
    static char plain[RICH_MAX];
    static unsigned char bold[RICH_MAX];
    static RenLine lines[256];
    flatten(src, n, plain, bold, RICH_MAX);
    int nl = ren_text_wrap(f, plain, w, lines, 256);
    if (nl > 256)
        nl = 256;
    int lh = ren_font_height(f);
    for (int i = 0; draw && i < nl; i++) {
        int cx = x, s = lines[i].start, e = s + lines[i].len;
        while (s < e) {
            int t = s;
            while (t < e && bold[t] == bold[s])
                t++;
            cx += ren_text_n(ui->r, f, plain + s, t - s, cx, y + i * lh, bold[s] ? strong : normal);
            s = t;
        }
    }
    return nl * lh;
}

/* Paragraphs (blank lines), bullets ("- "), bold; returns the height. */
static int rich_text(UiCtx *ui, App *a, RenFont *f, const char *text, int x, int y, int w, Color normal,
                     Color strong, int draw)
{
    int y0 = y, lh = ren_font_height(f);
    const char *p = text;
    int new_para = 0;
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t n = eol ? (size_t)(eol - p) : strlen(p);
        if (n == 0) {
            new_para = 1;
            p += 1;
            continue;
        }
        int bullet = n >= 2 && p[0] == '-' && p[1] == ' ';
        /* the item runs until a blank line or the next bullet */
        const char *end = p + n;
        while (*end == '\n' && end[1] && end[1] != '\n' && !(end[1] == '-' && end[2] == ' ')) {
            const char *nx = strchr(end + 1, '\n');
            end = nx ? nx : end + 1 + strlen(end + 1);
        }
        if (new_para && y > y0)
            y += lh / 2;
        new_para = 0;
        const char *body = bullet ? p + 2 : p;
        int indent = bullet ? ren_text_width(f, "•  ") : 0;
        if (bullet && draw)
            ren_text(ui->r, f, "•", x + 2, y, strong);
        y += draw_item(ui, a, f, body, (size_t)(end - body), x + indent, y, w - indent, normal, strong, draw);
        p = *end ? end + 1 : end;
    }
    return y - y0;
}

static int box_text(UiCtx *ui, App *a, const char *label, const char *text, int x, int y, int w, Color c, int draw)
{
    RenFont *f = ui->g->ui;
    int pad = 10, lh = ren_font_height(ui->g->small);
    int th = rich_text(ui, a, f, text, x + pad, y + pad + lh + 4, w - 2 * pad, ui->th->text, c, 0);
    int h = th + 2 * pad + lh + 4;
    if (draw) {
        ren_rect(ui->r, (Rect){x, y, w, h}, ui_mix(ui->th->panel, c, 0.10f));
        ren_rect(ui->r, (Rect){x, y, 4, h}, c);
        ren_text(ui->r, ui->g->small, label, x + pad, y + pad - 2, c);
        rich_text(ui, a, f, text, x + pad, y + pad + lh + 4, w - 2 * pad, ui->th->text, c, 1);
    }
    return h;
}

/* What of a quiz or a prediction with choices is drawn (or measured):
 * all of it, its head (the label and the question) or its choices (the
 * rows and what is said under them). The choices of an open question are
 * pinned above the footer when the panel is too short for the step, and
 * the head scrolls with the text. */
enum { PART_ALL, PART_HEAD, PART_CHOICES, PART_SMALL = 4 /* with PART_CHOICES: the small font, less padding */ };
#define PART(p) ((p) & 3)

static int quiz_block(UiCtx *ui, App *a, const LessonStep *s, int answered, int x, int y, int w, int draw, int part)
{
    const Theme *th = ui->th;
    RenFont *f = ui->g->ui;
    int y0 = y, pad = 8, shown = 0;
    int order[LESSON_MAX_CHOICES];
    lesson_ui_quiz_order(a, order);
    unsigned wrong = lesson_ui_quiz_wrong(a, &shown);
    const Lesson *cur = lesson_ui_current(a, NULL, NULL);
    int test = cur && cur->test[0]; /* a test: answered once, nothing revealed */
    if (PART(part) != PART_CHOICES) {
        if (draw)
            ren_text(ui->r, ui->g->small, test ? _("Test question: your first answer counts") : lesson_ui_word(a, LW_QUIZ),
                     x, y, th->accent2);
        y += ren_font_height(ui->g->small) + 4;
        y += rich_text(ui, a, f, s->quiz.question, x, y, w, th->text, th->accent2, draw) + 8;
    }
    if (PART(part) == PART_HEAD)
        return y - y0;
    if (part & PART_SMALL) {
        f = ui->g->small;
        pad = 4;
    }
    for (int k = 0; k < s->quiz.n_choices; k++) {
        int c = order[k];
        char num[16];
        snprintf(num, sizeof num, "%d", k + 1);
        int nw = ren_text_width(f, "8  ");
        int h = rich_text(ui, a, f, s->quiz.choices[c], 0, 0, w - nw - 2 * pad, th->text, th->text, 0) + 2 * pad;
        Rect rc = {x, y, w, h};
        if (draw) {
            int right = c == s->quiz.answer, tried = wrong >> c & 1u, chosen = c == answered;
            Color bg = th->panel2, edge = th->border;
            if (test && chosen) {
                bg = ui_mix(th->panel, th->accent, 0.25f);
                edge = th->accent;
            } else if (test) {
                /* nothing revealed */
            } else if (answered >= 0 && right) {
                bg = ui_mix(th->panel, th->good, 0.25f);
                edge = th->good;
            } else if (tried) {
                bg = ui_mix(th->panel, th->bad, 0.25f);
                edge = th->bad;
            } else if (answered < 0 && ui_over(&ui->in, rc)) {
                bg = ui_mix(th->panel2, th->accent, 0.2f);
            }
            ren_rect(ui->r, rc, bg);
            ren_rect_line(ui->r, rc, test ? (chosen ? 2 : 1) : tried || (answered >= 0 && right) ? 2 : 1, edge);
            ren_text(ui->r, f, num, x + pad, y + pad, th->dim);
            rich_text(ui, a, f, s->quiz.choices[c], x + pad + nw, y + pad, w - nw - 2 * pad, th->text, th->text, 1);
            lesson_ui_choice_drawn(a, k, rc);
            if (answered < 0 && !tried && ui_hit_n(ui, rc, "quiz choice", k))
                lesson_ui_answer(a, c);
        }
        y += h + 4;
    }
    if (answered >= 0 && test) { /* recorded, and how far the test is: never right or wrong */
        int done = 0, total = 0;
        lesson_ui_test_count(a, &done, &total);
        char msg[200];
        snprintf(msg, sizeof msg, _("Answer recorded (%d of %d). Go on with PgDn / Next."), done, total);
        y += rich_text(ui, a, f, msg, x, y + 2, w, th->accent, th->accent, draw) + 8;
        return y - y0;
    }
    int pos = 0; /* where the answer is shown */
    for (int k = 0; k < s->quiz.n_choices; k++)
        if (order[k] == s->quiz.answer)
            pos = k;
    char msg[160];
    Color mc = th->good;
    if (answered >= 0 && !wrong && !shown)
        snprintf(msg, sizeof msg, "%s", lesson_ui_word(a, LW_RIGHT));
    else if (answered >= 0 && !shown)
        snprintf(msg, sizeof msg, "%s", _("Right, at another try."));
    else if (answered >= 0) {
        snprintf(msg, sizeof msg, lesson_ui_word(a, LW_WRONG), pos + 1);
        mc = th->bad;
    } else if (wrong) {
        snprintf(msg, sizeof msg, "%s", _("Not quite: try another choice."));
        mc = th->bad;
    } else
        msg[0] = 0;
    if (msg[0]) {
        if (draw)
            ren_text(ui->r, f, msg, x, y + 2, mc);
        y += ren_font_height(f) + 6;
    }
    if (answered < 0 && wrong) { /* giving up shows the answer */
        const char *give = _("show the answer");
        Rect gr = {x, y, ren_text_width(ui->g->small, give), ren_font_height(ui->g->small)};
        if (draw) {
            ren_text(ui->r, ui->g->small, give, gr.x, gr.y, ui_over(&ui->in, gr) ? th->accent : th->dim);
            if (ui_hit_n(ui, gr, "give up", 0))
                lesson_ui_show_answer(a);
        }
        y += gr.h + 6;
    }
    if (answered >= 0 && s->quiz.explain)
        y += rich_text(ui, a, f, s->quiz.explain, x, y, w, th->text, th->accent, draw) + 4;
    return y - y0;
}

/* A @predict with choices: the choices, shuffled as quizzes are, and after
 * the pick the verdict with what the model computed. */
static int predict_choices(UiCtx *ui, App *a, const LessonStep *s, const LessonPredictState *ps, int x, int y, int w,
                           int draw, int part)
{
    const Theme *th = ui->th;
    RenFont *f = ui->g->ui;
    int y0 = y, pad = 8;
    const LessonPredict *p = &s->predict;
    if (PART(part) != PART_CHOICES) {
        if (draw)
            ren_text(ui->r, ui->g->small, _("Predict"), x, y, th->accent2);
        y += ren_font_height(ui->g->small) + 4;
    }
    const char *ask = p->kind == LESSON_PREDICT_NUMBER ? _("Pick the number you expect; it is hidden on screen until you do.")
                      : p->kind == LESSON_PREDICT_OUTPUT ? _("Pick the translation you expect the model to write; the "
                                                             "view and the Target line hide it until you do.")
                                                         : _("Pick the change you expect to alter the translation.");
    if (ps->picked < 0 && PART(part) != PART_CHOICES)
        y += rich_text(ui, a, f, ask, x, y, w, th->text, th->accent2, draw) + 8;
    if (PART(part) == PART_HEAD)
        return y - y0;
    if (part & PART_SMALL) {
        f = ui->g->small;
        pad = 4;
    }
    int order[LESSON_MAX_CHOICES];
    lesson_ui_quiz_order(a, order);
    for (int k = 0; k < s->quiz.n_choices; k++) {
        int c = order[k];
        const char *t = p->kind == LESSON_PREDICT_BREAKS ? lesson_choice_label(s->quiz.choices[c]) : s->quiz.choices[c];
        char num[16];
        snprintf(num, sizeof num, "%d", k + 1);
        int nw = ren_text_width(f, "8  ");
        int h = rich_text(ui, a, f, t, 0, 0, w - nw - 2 * pad, th->text, th->text, 0) + 2 * pad;
        Rect rc = {x, y, w, h};
        if (draw) {
            int right = c == ps->answer, chosen = c == ps->picked;
            Color bg = th->panel2, edge = th->border;
            if (ps->picked >= 0 && right) {
                bg = ui_mix(th->panel, th->good, 0.25f);
                edge = th->good;
            } else if (chosen) {
                bg = ui_mix(th->panel, th->bad, 0.25f);
                edge = th->bad;
            } else if (ps->picked < 0 && ui_over(&ui->in, rc)) {
                bg = ui_mix(th->panel2, th->accent, 0.2f);
            }
            ren_rect(ui->r, rc, bg);
            ren_rect_line(ui->r, rc, chosen || (ps->picked >= 0 && right) ? 2 : 1, edge);
            ren_text(ui->r, f, num, x + pad, y + pad, th->dim);
            rich_text(ui, a, f, t, x + pad + nw, y + pad, w - nw - 2 * pad, th->text, th->text, 1);
            lesson_ui_choice_drawn(a, k, rc);
            if (ps->picked < 0 && ui_hit_n(ui, rc, "prediction", k))
                lesson_ui_predict(a, c);
        }
        y += h + 4;
    }
    if (ps->picked >= 0) {
        char msg[SES_TEXT_MAX + 200];
        int right = ps->picked == ps->answer;
        double v;
        if (p->kind == LESSON_PREDICT_NUMBER &&
            lesson_predict_number(p, app_shown_trace(a), &a->ses.model.src_vocab, &a->ses.model.tgt_vocab,
                                  app_pos(a).stage, app_pos(a).layer, a->ses.head, a->ses.batch, &v) == 0)
            snprintf(msg, sizeof msg, right ? _("Right! The model computed %.4g.") : _("Not quite: the model computed %.4g."),
                     v);
        else if (p->kind == LESSON_PREDICT_OUTPUT)
            snprintf(msg, sizeof msg, right ? _("Right! The model writes «%s».") : _("Not quite: the model writes «%s»."),
                     a->ses.translation);
        else
            snprintf(msg, sizeof msg, "%s", right ? lesson_ui_word(a, LW_RIGHT) : _("Not quite."));
        y += rich_text(ui, a, f, msg, x, y, w, right ? th->good : th->bad, th->accent2, draw) + 6;
        if (p->explain)
            y += rich_text(ui, a, f, p->explain, x, y, w, th->text, th->accent, draw) + 4;
    }
    return y - y0;
}

/* A @predict: what to do before the reveal; after it, right or not, the
 * values, and the @explain. */
static int predict_block(UiCtx *ui, App *a, const LessonStep *s, int x, int y, int w, int draw, int part)
{
    const Theme *th = ui->th;
    RenFont *f = ui->g->ui;
    LessonPredictState ps;
    int ok = lesson_ui_predict_state(a, &ps), y0 = y;
    if (draw && PART(part) != PART_CHOICES) /* (predict_choices writes it again, in the same place) */
        ren_text(ui->r, ui->g->small, _("Predict"), x, y, th->accent2);
    y += ren_font_height(ui->g->small) + 4;
    char msg[700];
    const TfModel *m = &a->ses.model;
    const TfTrace *tr = &a->ses.trace;
    int b = a->ses.batch, dec = 1;
    lesson_predict_stage_ok(ps.stage, &dec);
    const char *q = !ok ? "?" : s->predict.kind == LESSON_PREDICT_NEXT || dec
                                  ? vocab_token(&m->tgt_vocab, tr->tgt_ids[(size_t)b * tr->T + ps.row])
                                  : vocab_token(&m->src_vocab, tr->src_ids[(size_t)b * tr->S + ps.row]);
    if (!ok)
        snprintf(msg, sizeof msg, "%s", _("This prediction needs the lesson's sentence and view."));
    else if (ps.picked < 0 && ps.kind == LESSON_PREDICT_ROW)
        snprintf(msg, sizeof msg, _("The row of «%s» is hidden. Click the cell of the key you expect it to weigh "
                                    "most."), q);
    else if (ps.picked < 0)
        snprintf(msg, sizeof msg, "%s", _("Pick the token you expect the model to write next (over the view)."));
    else if (ps.kind == LESSON_PREDICT_ROW) {
        /* the key's label: what the columns are */
        const char *key = dec && ps.stage < ST_DEC_CROSS_Q
                              ? vocab_token(&m->tgt_vocab, tr->tgt_ids[(size_t)b * tr->T + ps.answer])
                              : vocab_token(&m->src_vocab, tr->src_ids[(size_t)b * tr->S + ps.answer]);
        if (ps.picked == ps.answer)
            snprintf(msg, sizeof msg, _("Right! «%s» puts its largest weight on «%s»."), q, key);
        else
            snprintf(msg, sizeof msg, _("Not quite: «%s» puts its largest weight on «%s» (column %d; you picked "
                                        "column %d)."), q, key, ps.answer + 1, ps.picked + 1);
    } else {
        const char *want = vocab_token(&m->tgt_vocab, ps.answer);
        if (ps.picked == ps.answer)
            snprintf(msg, sizeof msg, _("Right! After «%s» the model writes «%s»."), q, want);
        else
            snprintf(msg, sizeof msg, _("Not quite: after «%s» the model writes «%s», not «%s»."), q, want,
                     vocab_token(&m->tgt_vocab, ps.picked));
    }
    if (ok && lesson_predict_has_choices(ps.kind))
        return predict_choices(ui, a, s, &ps, x, y0, w, draw, part);
    if (PART(part) == PART_CHOICES) /* the choices are over the view */
        return 0;
    Color c = ps.picked < 0 ? th->text : ps.picked == ps.answer ? th->good : th->bad;
    y += rich_text(ui, a, f, msg, x, y, w, c, th->accent2, draw) + 6;
    if (ps.picked >= 0 && s->predict.explain)
        y += rich_text(ui, a, f, s->predict.explain, x, y, w, th->text, th->accent, draw) + 4;
    return y - y0;
}

/* The PyTorch lines of the stage shown (the window's Code tab), below the
 * step's text when the learner asks for them. */
static int code_box(UiCtx *ui, App *a, int x, int y, int w, int draw)
{
    StagePos p = app_pos(a);
    const char *code = explain_code(p.stage, a->ses.model.cfg.norm == TF_NORM_PRE);
    if (!code)
        code = _("This view has no code of its own: step to a stage to see its lines.");
    RenFont *f = ui->g->small;
    int pad = 8, lh = ren_font_height(f), nl = 1;
    for (const char *c = code; *c; c++)
        nl += *c == '\n';
    int h = nl * lh + 2 * pad + lh + 4;
    if (draw) {
        ren_rect(ui->r, (Rect){x, y, w, h}, ui->th->panel2);
        ren_text(ui->r, f, _("Code (PyTorch)"), x + pad, y + pad - 2, ui->th->accent);
        const char *c = code;
        for (int i = 0; *c; i++) {
            const char *e = strchr(c, '\n');
            int len = e ? (int)(e - c) : (int)strlen(c);
            char line[256];
            snprintf(line, sizeof line, "%.*s", len < 255 ? len : 255, c);
            ui_text_fit(ui->r, f, line, x + pad, y + pad + lh + 4 + i * lh, w - 2 * pad, ui->th->text);
            c += len + (e != NULL);
        }
    }
    return h;
}

/* Height of a step's body as drawn (measured without drawing): all of it,
 * all but the choices (PART_HEAD), or the choices alone. */
static int body_height(UiCtx *ui, App *a, const LessonStep *s, int answered, int w, int part)
{
    int h = 0;
    if (PART(part) != PART_CHOICES) {
        int *code = lesson_ui_code(a);
        if (code && *code)
            h += code_box(ui, a, 0, 0, w, 0) + 12;
        h += rich_text(ui, a, ui->g->ui, s->text, 0, 0, w, ui->th->text, ui->th->select, 0) + 12;
        if (s->try_text)
            h += box_text(ui, a, "", s->try_text, 0, 0, w, ui->th->accent, 0) + 12;
    }
    if (s->has_quiz)
        h += quiz_block(ui, a, s, answered, 0, 0, w, 0, part);
    if (s->predict.kind)
        h += predict_block(ui, a, s, 0, 0, w, 0, part);
    return h;
}

/* The button that exports this account's test answers for the teacher
 * (Ctrl+Shift+E does the same), drawn (draw set) or only measured; returns
 * its height. */
static int results_button(UiCtx *ui, App *a, int x, int y, int w, int draw)
{
    char key[32], label[160];
    cmd_key_of("lesson.results", key, sizeof key);
    snprintf(label, sizeof label, _("Export my answers (%s)"), key);
    int bh = ren_font_height(ui->g->ui) + 14, bw = ren_text_width(ui->g->ui, label) + 24;
    if (bw > w)
        bw = w;
    if (draw && ui_button(ui, (Rect){x, y, bw, bh}, label, 0))
        app_save_results(a);
    y += bh + 6;
    const char *note = _("For your teacher: a CSV file in Documents/Stepformer (the notice says which).");
    int nh = draw ? ui_paragraph(ui->r, ui->g->small, note, x, y, w, ui->th->dim) : ui_paragraph_height(ui->g->small, note, w);
    return nh + bh + 6;
}

/* A paragraph drawn (draw set) or only measured; its height. */
static int para(UiCtx *ui, RenFont *f, const char *s, int x, int y, int w, Color c, int draw)
{
    return draw ? ui_paragraph(ui->r, f, s, x, y, w, c) : ui_paragraph_height(f, s, w);
}

/* The lesson-end screen: the checks right, what the learner can now do,
 * the exercises, and Next to the next lesson; drawn from y (draw set) or
 * only measured. Returns its height. */
static int summary_draw(UiCtx *ui, App *a, const Lesson *l, int right, int total, int x, int y, int w, int draw)
{
    const Theme *th = ui->th;
    RenFont *f = ui->g->ui;
    char buf[300];
    int y0 = y, done = 0, asked = 0;
    if (lesson_ui_test_count(a, &done, &asked)) { /* a test: how many answered, and the answers for the teacher */
        y += para(ui, ui->g->title, _("Test done"), x, y, w, th->good, draw) + 6;
        snprintf(buf, sizeof buf,
                 _("You answered %d of %d questions. They are kept under a random id, never your name, and nothing "
                   "says which were right."),
                 done, asked);
        y += para(ui, f, buf, x, y, w, th->text, draw) + 12;
        y += results_button(ui, a, x, y, w, draw);
        return y - y0;
    }
    y += para(ui, ui->g->title, _("Lesson done"), x, y, w, th->good, draw) + 6;
    if (total)
        snprintf(buf, sizeof buf, _("%d of %d checks right at the first try"), right, total);
    else
        snprintf(buf, sizeof buf, "%s", _("This lesson has no checks."));
    y += para(ui, f, buf, x, y, w, th->text, draw) + 12;
    const char *tag = ren_text_tag("lesson");
    if (l->n_recap) {
        y += para(ui, ui->g->small, _("You can now"), x, y, w, th->accent2, draw) + 4;
        for (int i = 0; i < l->n_recap; i++) {
            if (draw)
                ren_text(ui->r, f, "•", x + 2, y, th->accent);
            y += rich_text(ui, a, f, l->recap[i], x + ren_text_width(f, "•  "), y, w - ren_text_width(f, "•  "),
                           th->text, th->select, draw) + 4;
        }
        y += 8;
    }
    if (l->n_exercise) {
        y += para(ui, ui->g->small, _("Exercises"), x, y, w, th->accent2, draw) + 4;
        for (int i = 0; i < l->n_exercise; i++) {
            char num[16];
            snprintf(num, sizeof num, "%d.", i + 1);
            if (draw)
                ren_text(ui->r, f, num, x, y, th->dim);
            y += rich_text(ui, a, f, l->exercise[i], x + ren_text_width(f, "8.  "), y, w - ren_text_width(f, "8.  "),
                           th->text, th->select, draw) + 4;
        }
    }
    ren_text_tag(tag);
    return y - y0;
}

/* The wheel over `body` scrolls content taller than it: the offset. */
static int body_scroll(UiCtx *ui, App *a, Rect body, int content)
{
    int to_end = 0, *scroll = lesson_ui_scroll(a, &to_end);
    int max_scroll = content > body.h ? content - body.h : 0;
    if (!scroll)
        return 0;
    if (to_end)
        *scroll = max_scroll;
    if (ui->in.wheel && ui_over(&ui->in, body))
        *scroll -= ui->in.wheel * 3 * ren_font_height(ui->g->ui);
    if (*scroll > max_scroll)
        *scroll = max_scroll;
    if (*scroll < 0)
        *scroll = 0;
    return *scroll;
}

/* Tab to a control drawn in the scrolled text (the stops from first on)
 * but out of its view: the text scrolls to show it whole, ring and all;
 * the next frame draws it there. */
static void body_reveal(UiCtx *ui, App *a, Rect body, int content, int first)
{
    int to_end = 0, *scroll = lesson_ui_scroll(a, &to_end);
    int reveal = ui_tab_reveal(ui, first, body), max_scroll = content > body.h ? content - body.h : 0;
    if (!reveal || !scroll)
        return;
    int to = *scroll + reveal;
    *scroll = to < 0 ? 0 : to > max_scroll ? max_scroll : to;
    a->redraw_soon = 1;
}

void lesson_panel_draw(UiCtx *ui, App *a, Rect area)
{
    const Theme *th = ui->th;
    Rect rc = area;
    int step, answered;
    const Lesson *l = lesson_ui_current(a, &step, &answered);
    if (!l)
        return;
    const LessonStep *s = &l->steps[step];
    int x = rc.x + 14, w = rc.w - 26, y = rc.y + 10;
    int sh = ren_font_height(ui->g->small);
    /* header: lesson title and step dots */
    /* "Lessons" opens the list, "close" leaves the lesson */
    const char *les = lesson_ui_word(a, LW_LESSONS), *cl = lesson_ui_word(a, LW_CLOSE);
    Rect lr = {x, y, ren_text_width(ui->g->small, les), sh};
    ren_text(ui->r, ui->g->small, les, x, y, ui_over(&ui->in, lr) ? th->accent : th->dim);
    if (ui_hit(ui, lr, "lessons"))
        lesson_ui_toggle_list(a);
    int cw = ren_text_width(ui->g->small, cl);
    Rect cr = {x + w - cw, y, cw, sh};
    ren_text(ui->r, ui->g->small, cl, cr.x, y, ui_over(&ui->in, cr) ? th->accent : th->dim);
    if (ui_hit(ui, cr, "close")) {
        lesson_ui_close(a);
        return;
    }
    char buf[96];
    snprintf(buf, sizeof buf, lesson_ui_word(a, LW_STEP), step + 1, l->n_steps);
    /* centred, but only in the gap between "Lessons" and "close" */
    int bw = ren_text_width(ui->g->small, buf), gl = x + lr.w + 10, gr = cr.x - 10;
    int bx = x + (w - bw) / 2;
    if (bx < gl)
        bx = gl;
    if (bx + bw > gr)
        bx = gr - bw > gl ? gr - bw : gl;
    if (bx + bw > gr) /* no room for the sentence: the numbers alone */
        snprintf(buf, sizeof buf, "%d / %d", step + 1, l->n_steps);
    if (gr - gl > 20)
        ui_text_fit(ui->r, ui->g->small, buf, bx, y, gr - bx, th->dim);
    y += sh + 4;
    const char *tag = ren_text_tag("lesson"); /* the lesson files' own text */
    int tlh = ren_font_height(ui->g->title);
    if (rc.h < 560 && ui_paragraph_height(ui->g->title, l->title, w) > 2 * tlh) { /* a small window: the step's room first */
        ui_text_fit(ui->r, ui->g->title, l->title, x, y, w, th->text);
        y += tlh + 6;
    } else {
        y += ui_paragraph(ui->r, ui->g->title, l->title, x, y, w, th->text) + 6;
    }
    ren_text_tag(tag);
    int dot = sh / 2 + 2;
    for (int i = 0; i < l->n_steps && (i + 1) * (dot + 4) < w; i++) {
        Rect d = {x + i * (dot + 4), y, dot, dot};
        ren_rect(ui->r, d, i == step ? th->accent : i < step ? th->dim : th->panel2);
        if (ui_hit(ui, (Rect){d.x - 2, d.y - 4, d.w + 4, d.h + 8}, "step dot"))
            lesson_ui_step(a, i - step);
    }
    y += dot + 10;
    int right = 0, total = 0, summary = lesson_ui_summary(a, &right, &total);
    if (!summary) { /* the step's title stays while its body scrolls; the code link beside it */
        const char *cl_code = _("code ›");
        int *code = lesson_ui_code(a), ccw = ren_text_width(ui->g->small, cl_code);
        Rect cr2 = {x + w - ccw, y + 2, ccw, sh};
        if (code) {
            ren_text(ui->r, ui->g->small, cl_code, cr2.x, cr2.y, *code || ui_over(&ui->in, cr2) ? th->accent : th->dim);
            if (ui_hit(ui, cr2, "code"))
                *code = !*code;
        }
        tag = ren_text_tag("lesson");
        y += ui_paragraph(ui->r, ui->g->ui, s->title, x, y, w - ccw - 10, th->accent) + 8;
        ren_text_tag(tag);
    }
    /* footer: Back / Next */
    int fh = ren_font_height(ui->g->ui) + 14;
    Rect back = {x, rc.y + rc.h - fh - 8, (w - 8) / 2, fh};
    Rect next = {x + (w + 8) / 2, back.y, (w - 8) / 2, fh};
    if ((step > 0 || summary) && ui_button(ui, back, lesson_ui_word(a, LW_PREV), 0))
        lesson_ui_step(a, -1);
    if (ui_button(ui, next, lesson_ui_word(a, LW_NEXT), 1))
        lesson_ui_step(a, 1);
    int keys_y = back.y - sh - 6;
    LessonPredictState pst;
    int picked = lesson_ui_predict_state(a, &pst) && pst.picked >= 0;
    int open_choices = !summary && ((s->has_quiz && answered < 0) ||
                                    (lesson_predict_has_choices(s->predict.kind) && !picked));
    /* a step taller than the panel with a question open: its choices are
     * pinned above the footer and the text above them scrolls, so that
     * the choices never need scrolling to (a small window, large text);
     * when even the choices are too tall, all of it scrolls and the key
     * line says the choices are below */
    int room = keys_y - 6 - y, lh = ren_font_height(ui->g->ui);
    int pin = 0, below = 0;
    lesson_ui_choice_drawn(a, -1, (Rect){0, 0, 0, 0}); /* none drawn yet in this frame */
    int pin_part = PART_CHOICES;
    if (open_choices && body_height(ui, a, s, answered, w, PART_ALL) > room) {
        pin = body_height(ui, a, s, answered, w, PART_CHOICES);
        if (pin > room - 2 * lh) { /* tighter, in the small font */
            pin_part = PART_CHOICES | PART_SMALL;
            pin = body_height(ui, a, s, answered, w, pin_part);
        }
        if (pin > room - lh)
            pin = 0;
        below = !pin;
    }
    if (open_choices && below)
        snprintf(buf, sizeof buf, _("▼ choices below · 1-%d: answer"), s->quiz.n_choices);
    else if (open_choices)
        snprintf(buf, sizeof buf, _("1-%d: answer · PgDn: next step"), s->quiz.n_choices);
    else
        snprintf(buf, sizeof buf, "%s", lesson_ui_word(a, LW_KEYS));
    ui_text_fit(ui->r, ui->g->small, buf, x, keys_y, w, th->dim);
    /* body, clipped above the footer, scrolled by the wheel; under it,
     * while the mouse is over a cell, how that number was computed (what
     * the explanation panel would show: the lesson's "hover a cell") */
    Rect body = {rc.x, y, rc.w, keys_y - 6 - y};
    if (body.h <= 0)
        return;
    if (summary) { /* it scrolls too: a small window keeps the exercises below */
        int content = summary_draw(ui, a, l, right, total, x, 0, w, 0);
        int off = body_scroll(ui, a, body, content);
        ren_clip_push(ui->r, body);
        summary_draw(ui, a, l, right, total, x, y - off, w, 1);
        ren_clip_pop(ui->r);
        panel_scroll_bar(ui, body, content, off);
        return;
    }
    /* the box of the hovered cell: under the text when the text keeps two
     * lines beside it, else over the whole panel, drawn last (a large
     * text, a small window: its sums whole while the mouse is on the cell) */
    int lh2 = 2 * ren_font_height(ui->g->ui) + 8, how_h = explain_how_height(ui, a, body.w);
    int how_over = how_h > 0 && how_h > body.h - lh2;
    if (!how_over)
        body.h -= explain_how_box(ui, a, body, lh2);
    if (body.h <= 0)
        return;
    Rect pinned = {rc.x, body.y + body.h - pin, rc.w, pin};
    if (pin) {
        body.h -= pin + 6;
        ren_rect(ui->r, (Rect){x, pinned.y - 4, w, 1}, th->border);
        ren_clip_push(ui->r, pinned);
        lesson_ui_choice_seen(a, pinned);
        const char *ptag = ren_text_tag("lesson");
        if (s->predict.kind)
            predict_block(ui, a, s, x, pinned.y, w, 1, pin_part);
        if (s->has_quiz)
            quiz_block(ui, a, s, answered, x, pinned.y, w, 1, pin_part);
        ren_text_tag(ptag);
        ren_clip_pop(ui->r);
    }
    if (body.h <= 0)
        return;
    /* room under the last control for the keyboard's ring round it */
    int content = body_height(ui, a, s, answered, w, pin ? PART_HEAD : PART_ALL) + ui_px(ui->g, 8);
    int off = body_scroll(ui, a, body, content);
    ren_clip_push(ui->r, body);
    int first_stop = ui->n_stops; /* the controls in the scrolled text */
    if (!pin)
        lesson_ui_choice_seen(a, body);
    y -= off;
    tag = ren_text_tag("lesson");
    y += rich_text(ui, a, ui->g->ui, s->text, x, y, w, th->text, th->select, 1) + 12;
    if (s->try_text)
        y += box_text(ui, a, lesson_ui_word(a, LW_TRY), s->try_text, x, y, w, th->accent, 1) + 12;
    int part = pin ? PART_HEAD : PART_ALL;
    if (s->predict.kind) /* a step has a @quiz or a @predict */
        y += predict_block(ui, a, s, x, y, w, 1, part);
    if (s->has_quiz)
        y += quiz_block(ui, a, s, answered, x, y, w, 1, part);
    int *code = lesson_ui_code(a);
    if (code && *code)
        code_box(ui, a, x, y, w, 1);
    ren_text_tag(tag);
    ren_clip_pop(ui->r);
    body_reveal(ui, a, body, content, first_stop);
    panel_scroll_bar(ui, body, content, off); /* a scroll bar, and a hint that there is more */
    if (how_over) /* over the panel, from its top down to the footer's top at most */
        explain_how_box(ui, a, (Rect){rc.x, rc.y, rc.w, rc.h - 4}, 0);
}

void lesson_list_draw(UiCtx *ui, App *a, int W, int H)
{
    const Theme *th = ui->th;
    const LessonSet *set = lesson_ui_set(a);
    RenFont *f = ui->g->ui, *s = ui->g->small;
    int lh = ren_font_height(f), sh = ren_font_height(s);
    int row = lh + sh + 14;
    int n = set ? set->n : 0;
    int w = W * 2 / 3 > 900 ? 900 : W * 2 / 3, h = n * row + ren_font_height(ui->g->title) + 60;
    if (w < 300)
        w = W - 20;
    if (h > H - 40)
        h = H - 40;
    Rect box = ui_overlay(ui->r, ui->th, W, H, w, h);
    int y = box.y + 14;
    ren_text(ui->r, ui->g->title, lesson_ui_word(a, LW_LESSONS), box.x + 20, y, th->accent);
    const char *hint = _("Enter opens · Esc closes · Z 中文");
    ren_text(ui->r, s, hint, box.x + w - ren_text_width(s, hint) - 20, y + 6, th->dim);
    y += ren_font_height(ui->g->title) + 8;
    { /* the pre/post-tests' answers for the teacher: Ctrl+Shift+E here too */
        char key[32], label[160];
        cmd_key_of("lessons.list.results", key, sizeof key);
        snprintf(label, sizeof label, _("Export my test answers for the teacher (%s)"), key);
        Rect lr = {box.x + 20, y, ren_text_width(s, label), sh};
        int over = ui_over(&ui->in, lr);
        ui_text_fit(ui->r, s, label, lr.x, lr.y, w - 40, over ? th->accent : th->accent2);
        if (over && ui->in.pressed) {
            a->ui.in.pressed = 0;
            app_save_results(a);
        }
        y += sh + 10;
    }
    if (!n) {
        /* the folder actually searched (the data path, or --lessons) */
        char msg[4200];
        const char *dir = lesson_ui_dir(a);
        snprintf(msg, sizeof msg, lesson_ui_word(a, LW_NONE), dir ? dir : a->look.lang ? "lessons/zh" : "lessons/en");
        ui_paragraph(ui->r, f, msg, box.x + 20, y, w - 40, th->warn);
    }
    int sel = lesson_ui_list_sel(a);
    for (int i = 0; i < n; i++, y += row) {
        const Lesson *l = &set->lessons[i];
        Rect r = {box.x + 10, y, w - 20, row - 4};
        if (r.y + r.h > box.y + box.h)
            break;
        int over = ui_over(&ui->in, r);
        if (i == sel || over)
            ren_rect(ui->r, r, i == sel ? ui_mix(th->panel, th->accent, 0.2f) : th->panel2);
        int reached;
        unsigned long long right;
        lesson_ui_progress(a, l->id, &reached, &right);
        char num[16], prog[48];
        snprintf(num, sizeof num, "%2d", i + 1);
        if (reached >= l->n_steps)
            snprintf(prog, sizeof prog, "✓ %s", lesson_ui_word(a, LW_DONE));
        else if (reached > 0)
            snprintf(prog, sizeof prog, "%d / %d", reached, l->n_steps);
        else
            snprintf(prog, sizeof prog, "%d", l->n_steps);
        ren_text(ui->r, f, num, r.x + 8, r.y + 5, th->dim);
        int px = r.x + r.w - ren_text_width(s, prog) - 10;
        ren_text(ui->r, s, prog, px, r.y + 7, reached >= l->n_steps ? th->good : th->dim);
        int tx = r.x + 16 + ren_text_width(f, "00");
        const char *tag = ren_text_tag("lesson"); /* the lesson files' own text */
        ui_text_fit(ui->r, f, l->title, tx, r.y + 5, px - tx - 10, th->text);
        if (l->summary)
            ui_text_fit(ui->r, s, l->summary, tx, r.y + 7 + lh, r.x + r.w - tx - 10, th->dim);
        ren_text_tag(tag);
        if (over && ui->in.pressed) {
            lesson_ui_list_select(a, i);
            int resume = reached > 0 && reached < l->n_steps ? reached - 1 : 0;
            a->ui.in.pressed = 0; /* &ui->in is a->ui.in */
            lesson_ui_open(a, l->id, resume);
            break;
        }
    }
    ren_clip_pop(ui->r);
}
