/* test_lessons.c - the shipped lessons (lessons/en, lessons/zh) and the
 * lesson parser (app/session/lesson/lesson.c). Run from the repository root.
 *
 * The shipped lessons: every file parses, has a title and a summary and is
 * numbered in order, with at least 12 lessons of at least 5 steps; both
 * languages hold the same lessons with the same steps, view directives,
 * quizzes and "try it" prompts; every view directive names a stage, view,
 * layer and head that exist in the lesson's model (loaded from
 * assets/models/<model>.safetensors); the source and target sentences are
 * made of words the model knows and highlighted tokens are in them; every
 * quiz has exactly one right answer; every character has a glyph in the
 * font the app picks; `stepformer lessons --check` finds nothing.
 *
 * The parser: an example parses into the right steps; each malformed file
 * of a table gives "file:line: reason" with the right line; huge lines and
 * files; a folder with good and bad files loads the good ones and reports
 * the bad ones by name and line. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checkpoint.h"
#include "lesson.h"
#include "lesson_check.h"
#include "ren.h"
#include "stage.h"
#include "test_lesson_util.h"
#include "test_util.h"
#include "vocab.h"

#define MIN_LESSONS 12
#define MIN_STEPS 5

static const char *LANG_DIRS[2] = {"lessons/en", "lessons/zh"};

/* ---- loading (messages collected by tu_collect) ---- */

static void load_lang(LessonSet *set, int lang)
{
    TuMsgs m = {0};
    int n_bad = 0;
    int rc = lessons_load_dir(set, LANG_DIRS[lang], tu_collect, &m, &n_bad);
    expect_true(rc == 0, "%s opens (run the tests from the repository root): %s", LANG_DIRS[lang], m.text);
    expect_true(n_bad == 0 && m.n == 0, "every lesson in %s parses; %d did not:\n%s", LANG_DIRS[lang], n_bad,
                m.text);
}

/* A check of one shipped lesson: the index-th of its language lang. */
typedef void (*LessonCheck)(const Lesson *l, int index, int lang, void *ctx);

/* Run check on every shipped lesson, English then Chinese. */
static void each_shipped(LessonCheck check, void *ctx)
{
    for (int k = 0; k < 2; k++) {
        LessonSet set;
        load_lang(&set, k);
        for (int i = 0; i < set.n; i++)
            check(&set.lessons[i], i, k, ctx);
        lessons_free(&set);
    }
}

/* ---- the shipped lessons: complete and numbered ---- */

static void check_complete(const Lesson *l, int index, int lang, void *ctx)
{
    int *long_enough = ctx;
    expect_true(l->title && l->title[0], "%s has a title", l->path);
    expect_true(l->summary && l->summary[0], "%s has a summary for the lesson list", l->path);
    /* a pre-test numbered 00 may come first; the lessons count from 1 after it */
    static int pretest;
    if (index == 0)
        pretest = l->order == 0 && l->test[0];
    int want = index + 1 - pretest;
    expect_true(l->order == want, "%s is lesson %d in order, got number %d", l->path, want, l->order);
    if (l->n_steps >= MIN_STEPS)
        long_enough[lang]++;
    else
        printf("  %s: %d steps (want >= %d)\n", l->path, l->n_steps, MIN_STEPS);
}

static void test_shipped_complete(void **state)
{
    (void)state;
    int long_enough[2] = {0, 0};
    each_shipped(check_complete, long_enough);
    for (int k = 0; k < 2; k++)
        expect_true(long_enough[k] >= MIN_LESSONS, "at least %d lessons of >= %d steps in %s, got %d",
                    MIN_LESSONS, MIN_STEPS, LANG_DIRS[k], long_enough[k]);
}

/* ---- the shipped lessons: English and Chinese match ---- */

/* Step s of lesson a (English) and b (Chinese): the same directives, quiz
 * shape and "try it" prompt. */
static void expect_same_step(const Lesson *a, const Lesson *b, int s)
{
    const LessonStep *x = &a->steps[s], *y = &b->steps[s];
    const char *dx = x->directives ? x->directives : "", *dy = y->directives ? y->directives : "";
    expect_true(strcmp(dx, dy) == 0, "%s:%d and %s:%d (step %d) have the same view directives:\nen:\n%szh:\n%s",
                a->path, x->line, b->path, y->line, s + 1, dx, dy);
    expect_true(x->has_quiz == y->has_quiz, "%s step %d: quiz in en %d, in zh %d", a->id, s + 1, x->has_quiz,
                y->has_quiz);
    if (x->has_quiz) {
        expect_true(x->quiz.n_choices == y->quiz.n_choices && x->quiz.answer == y->quiz.answer,
                    "%s step %d: en quiz %d choices answer %d, zh %d choices answer %d", a->id, s + 1,
                    x->quiz.n_choices, x->quiz.answer + 1, y->quiz.n_choices, y->quiz.answer + 1);
        expect_true(!x->quiz.explain == !y->quiz.explain, "%s step %d: @explain in one language only", a->id,
                    s + 1);
    }
    expect_true(!x->try_text == !y->try_text, "%s step %d: @try in en %s, in zh %s", a->id, s + 1,
                x->try_text ? "yes" : "no", y->try_text ? "yes" : "no");
}

static void test_shipped_languages_match(void **state)
{
    (void)state;
    LessonSet en, zh;
    load_lang(&en, 0);
    load_lang(&zh, 1);
    expect_true(en.n == zh.n, "as many Chinese lessons as English ones: en %d, zh %d", en.n, zh.n);
    for (int i = 0; i < en.n; i++) {
        const Lesson *a = &en.lessons[i];
        int j = lessons_find(&zh, a->id);
        expect_true(j >= 0, "a Chinese version of lesson '%s' (%s)", a->id, a->path);
        const Lesson *b = &zh.lessons[j];
        expect_true(a->order == b->order, "lesson '%s' has number %d in both, zh has %d", a->id, a->order, b->order);
        expect_true(a->n_steps == b->n_steps, "lesson '%s': en %d steps, zh %d", a->id, a->n_steps, b->n_steps);
        expect_true(strcmp(a->model, b->model) == 0, "lesson '%s': model en '%s', zh '%s'", a->id, a->model,
                    b->model);
        for (int s = 0; s < a->n_steps; s++)
            expect_same_step(a, b, s);
        TuMsgs m = {0};
        int bad = lesson_check_pair(a, b, tu_collect, &m);
        expect_true(bad == 0, "lesson_check_pair finds no difference for '%s', got %d:\n%s", a->id, bad, m.text);
    }
    lessons_free(&en);
    lessons_free(&zh);
}

/* ---- the shipped lessons: views and sentences fit the model ---- */

/* Load the lesson's model; fail clearly when it is missing. */
static void load_model(TfModel *m, const char *name, const char *lesson_path)
{
    char path[256];
    snprintf(path, sizeof path, "assets/models/%s.safetensors", name);
    TfErr err;
    int rc = ckpt_load(m, path, &err);
    expect_true(rc == 0, "%s uses model '%s', which must load from %s (train it with `make models`): %s",
                lesson_path, name, path, err.msg);
}

/* Words of text (split at spaces and '|'): every one known by v. */
static void expect_known_words(const Vocab *v, const char *text, const char *what, const char *path, int line)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", text);
    for (char *sent = strtok(buf, "|"); sent; sent = strtok(NULL, "|")) {
        int ids[128], unk = 0;
        TfErr err;
        int n = vocab_encode(v, sent, ids, NULL, 128, &unk, &err);
        expect_true(n > 0 && n <= 128, "%s:%d: %s '%s' tokenises (got %d)", path, line, what, sent, n);
        expect_true(unk == 0, "%s:%d: every word of %s '%s' is in the model's vocabulary, %d unknown", path,
                    line, what, sent, unk);
    }
}

/* Is word one of the tokens of text (split at spaces and '|')? */
static int has_word(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = text; p && (p = strstr(p, word)); p += n) {
        int start = p == text || p[-1] == ' ' || p[-1] == '|';
        int end = p[n] == 0 || p[n] == ' ' || p[n] == '|';
        if (start && end)
            return 1;
    }
    return 0;
}

/* Step st of l: a stage or view, a source sentence of known words, a
 * highlight among its tokens and a batch row that exists. */
static void expect_step_view(const Lesson *l, const LessonStep *st, int s, const TfModel *m)
{
    const LessonView *v = &st->view;
    expect_true(v->stage[0] || v->view[0], "%s:%d: step %d shows a stage or a view", l->path, st->line, s + 1);
    expect_true(v->src && v->src[0], "%s:%d: step %d has a source sentence (@src earlier)", l->path, st->line,
                s + 1);
    expect_known_words(&m->src_vocab, v->src, "the @src", l->path, st->line);
    if (v->tgt && v->tgt[0])
        expect_known_words(&m->tgt_vocab, v->tgt, "the @tgt", l->path, st->line);
    if (v->highlight)
        expect_true(has_word(v->src, v->highlight) || (v->tgt && has_word(v->tgt, v->highlight)),
                    "%s:%d: @highlight '%s' is a token of the source '%s' or target '%s'", l->path, st->line,
                    v->highlight, v->src, v->tgt ? v->tgt : "");
    if (v->batch >= 0) {
        int n_sent = 1;
        for (const char *p = v->src; *p; p++)
            n_sent += *p == '|';
        expect_true(v->batch < n_sent, "%s:%d: @batch %d but the source has %d sentences", l->path, st->line,
                    v->batch + 1, n_sent);
    }
}

static void check_views(const Lesson *l, int index, int lang, void *ctx)
{
    TfModel m;
    load_model(&m, l->model, l->path);
    TuMsgs msgs = {0};
    int bad = lesson_check_view(l, &m.cfg, tu_collect, &msgs);
    expect_true(bad == 0, "every view directive of %s exists in model '%s' (%d layers, %d heads); %d do not:\n%s",
                l->path, l->model, m.cfg.n_enc, m.cfg.n_heads, bad, msgs.text);
    for (int s = 0; s < l->n_steps; s++)
        expect_step_view(l, &l->steps[s], s, &m);
    model_free(&m);
}

static void test_shipped_views_exist(void **state)
{
    (void)state;
    each_shipped(check_views, NULL);
}

/* ---- the shipped lessons: quizzes ---- */

typedef struct QuizCount {
    int quizzes, lessons_with_quiz, tries;
} QuizCount;

/* The raw file, independently of the parser: exactly one @answer after
 * every @quiz, and at most one @try and one @explain per step (the parser
 * keeps the last of several silently). */
static void expect_raw_quizzes(const Lesson *l)
{
    FILE *f = fopen(l->path, "r");
    expect_true(f != NULL, "%s opens", l->path);
    char line[8192];
    int in_quiz = 0, answers = 0, qline = 0, ln = 0, n_try = 0, n_explain = 0;
    while (fgets(line, sizeof line, f)) {
        ln++;
        if (strncmp(line, "@step", 5) == 0)
            n_try = n_explain = 0;
        if (strncmp(line, "@try", 4) == 0)
            expect_true(++n_try == 1, "%s:%d: one @try per step, this is number %d", l->path, ln, n_try);
        if (strncmp(line, "@explain", 8) == 0)
            expect_true(++n_explain == 1, "%s:%d: one @explain per step, this is number %d", l->path, ln,
                        n_explain);
        if (strncmp(line, "@quiz", 5) == 0 || strncmp(line, "@step", 5) == 0) {
            expect_true(!in_quiz || answers == 1, "%s:%d: the quiz has exactly one @answer, got %d", l->path,
                        qline, answers);
            in_quiz = strncmp(line, "@quiz", 5) == 0;
            answers = 0;
            qline = ln;
        } else if (strncmp(line, "@answer", 7) == 0) {
            answers++;
        }
    }
    fclose(f);
    expect_true(!in_quiz || answers == 1, "%s:%d: the quiz has exactly one @answer, got %d", l->path, qline,
                answers);
}

/* The parsed quiz: >= 2 distinct choices, the answer among them, an
 * explanation. */
static void expect_quiz(const Lesson *l, const LessonQuiz *q)
{
    expect_true(q->n_choices >= 2 && q->answer >= 0 && q->answer < q->n_choices,
                "%s:%d: the quiz has >= 2 choices and its answer among them: %d choices, answer %d", l->path,
                q->line, q->n_choices, q->answer + 1);
    expect_true(q->explain && q->explain[0], "%s:%d: the quiz has an @explain", l->path, q->line);
    for (int c = 0; c < q->n_choices; c++)
        for (int d = c + 1; d < q->n_choices; d++)
            expect_true(strcmp(q->choices[c], q->choices[d]) != 0, "%s:%d: choices %d and %d differ, both '%s'",
                        l->path, q->line, c + 1, d + 1, q->choices[c]);
}

static void check_quizzes(const Lesson *l, int index, int lang, void *ctx)
{
    QuizCount *n = ctx;
    int lq = 0;
    for (int s = 0; s < l->n_steps; s++) {
        const LessonStep *st = &l->steps[s];
        n->tries += st->try_text != NULL;
        if (st->has_quiz) {
            expect_quiz(l, &st->quiz);
            lq++;
        }
    }
    expect_raw_quizzes(l);
    n->lessons_with_quiz += lq > 0;
    n->quizzes += lq;
}

static void test_shipped_quizzes(void **state)
{
    (void)state;
    QuizCount n = {0, 0, 0};
    each_shipped(check_quizzes, &n);
    printf("  %d quizzes, %d try-it prompts, %d lessons with a quiz (both languages)\n", n.quizzes, n.tries,
           n.lessons_with_quiz);
    expect_true(n.lessons_with_quiz >= 2 * MIN_LESSONS * 3 / 4, "quizzes in most lessons: %d of the lessons have one",
                n.lessons_with_quiz);
    expect_true(n.tries >= 2 * MIN_LESSONS, "try-it prompts in the lessons: got %d", n.tries);
}

/* ---- the shipped lessons: glyphs, and the whole check ---- */

static void check_glyphs(const Lesson *l, int index, int lang, void *ctx)
{
    TuMsgs m = {0};
    int bad = lesson_check_glyphs(l, ctx, tu_collect, &m);
    expect_true(bad == 0, "every character of %s has a glyph; %d do not:\n%s", l->path, bad, m.text);
}

static void test_shipped_glyphs(void **state)
{
    (void)state;
    TfErr err;
    Ren *r = ren_open_headless(64, 64, &err);
    expect_true(r != NULL, "a headless renderer opens: %s", err.msg);
    RenFont *font = ren_font_open(r, REN_SANS, 16, &err);
    expect_true(font != NULL, "the app's sans font opens: %s", err.msg);
    /* the check can fail: a character no font has */
    expect_true(!ren_font_has_glyph(font, 0x10FFFD), "U+10FFFD (private use) has no glyph, but the font says it has");
    expect_true(ren_font_has_glyph(font, 0x4ECA) && ren_font_has_glyph(font, 0x221A),
                "the fonts draw 今 and √ (has_glyph 今 %d, √ %d)", ren_font_has_glyph(font, 0x4ECA),
                ren_font_has_glyph(font, 0x221A));
    each_shipped(check_glyphs, font);
    ren_close(r);
}

static void test_shipped_check_all(void **state)
{
    (void)state;
    TuMsgs m = {0};
    int n = 0;
    int bad = lessons_check_all("lessons", tu_collect, &m, &n);
    expect_true(bad == 0, "`stepformer lessons --check` finds no problem, got %d:\n%s", bad, m.text);
    expect_true(n >= 2 * MIN_LESSONS, "it checked >= %d lessons, got %d", 2 * MIN_LESSONS, n);
}

/* ---- the parser ---- */

static const char *GOOD =
    "@title A lesson\n"           /* 1 */
    "@summary One line.\n"        /* 2 */
    "\n"                          /* 3 */
    "@step First\n"               /* 4 */
    "@stage enc.self.weights\n"   /* 5 */
    "@layer 1\n"                  /* 6 */
    "@head 2\n"                   /* 7 */
    "@src i love china\n"         /* 8 */
    "Some **text**.\n"            /* 9 */
    "\n"                          /* 10 */
    "- a bullet\n"                /* 11 */
    "@try Press 3.\n"             /* 12 */
    "@quiz Which?\n"              /* 13 */
    "@choice no\n"                /* 14 */
    "@answer yes\n"               /* 15 */
    "@explain Because.\n"         /* 16 */
    "\n"                          /* 17 */
    "@step Second\n"              /* 18 */
    "@head all\n"                 /* 19 */
    "More text.\n";               /* 20 */

/* Parse text as path; expect failure with "path:line:" and a phrase. */
static void expect_error(const char *text, size_t len, int line, const char *phrase)
{
    tu_lesson_refused(text, len, "bad/07-broken.txt", line, phrase);
}

/* The example above: ids, order, steps, text, quiz and directives that carry
 * over from one step to the next. */
static void test_parse_example(void **state)
{
    (void)state;
    Lesson l;
    tu_lesson_parse(&l, GOOD, "dir/03-demo.txt");
    expect_true(strcmp(l.id, "demo") == 0 && l.order == 3, "id 'demo' order 3, got '%s' %d", l.id, l.order);
    expect_true(l.n_steps == 2, "2 steps, got %d", l.n_steps);
    const LessonStep *s = &l.steps[0];
    expect_true(s->line == 4, "step 1 at line 4, got %d", s->line);
    expect_true(strcmp(s->text, "Some **text**.\n\n- a bullet") == 0, "the text with its paragraph, got '%s'",
                s->text);
    expect_true(s->has_quiz && s->quiz.n_choices == 2 && s->quiz.answer == 1 && s->quiz.line == 13,
                "a quiz at line 13 with 2 choices, the second right: %d %d %d %d", s->has_quiz, s->quiz.n_choices,
                s->quiz.answer, s->quiz.line);
    expect_true(strcmp(s->view.stage, "enc.self.weights") == 0 && s->view.layer == 0 && s->view.head == 1,
                "view enc.self.weights layer 0 head 1, got %s %d %d", s->view.stage, s->view.layer, s->view.head);
    /* directives carry over; head all is -1 */
    const LessonStep *t = &l.steps[1];
    expect_true(strcmp(t->view.stage, "enc.self.weights") == 0 && t->view.layer == 0 && t->view.head == -1 &&
                    t->view.src && strcmp(t->view.src, "i love china") == 0,
                "step 2 keeps stage, layer and source and has all heads: %s %d %d '%s'", t->view.stage,
                t->view.layer, t->view.head, t->view.src ? t->view.src : "(null)");
    expect_true(t->directives && strcmp(t->directives, "@head all\n") == 0, "step 2's own directives '@head all', got '%s'",
                t->directives ? t->directives : "(null)");
    lesson_free(&l);
}

/* A malformed lesson: the line its error names and a phrase of it. */
typedef struct BadLesson {
    const char *text;
    size_t len;
    int line;
    const char *phrase;
} BadLesson;

/* A string literal and its length (NUL bytes inside included). */
#define TEXT(s) s, sizeof s - 1

static const BadLesson BAD[] = {
    {TEXT("@title T\n@step S\n@stage src.tokens\ntext\n@colour red\n"), 5, "unknown directive @colour"},
    {TEXT("@title T\n@step S\n@stage src.tokens\ntext\n@quiz Why?\n@choice a\n\n@step T\nx\n"), 5,
     "unterminated quiz"},
    {TEXT("@title T\n@step S\n@stage src.tokens\ntext\n\n@quiz Why?\n@choice a\n@choice b\n"), 6, "no @answer"},
    {TEXT("@title T\n@step One\n@stage src.tokens\ntext\n@step Two\n@stage pos.enc\n\n@step Three\nx\n"), 5,
     "has no text"},
    {TEXT("@title T\n@step One\n@stage src.tokens\ntext\n@step Two\n@try Look.\n"), 5, "has no text"},
    {TEXT("@title T\n@step S\n@stage src.tokens\ntext\n\xe4\xbb caf\xc3\n"), 5, "not valid UTF-8"},
    {TEXT("@title T\n@step S\n\xc0\xaf\n"), 3, "not valid UTF-8"}, /* overlong */
    {TEXT("@title T\nThis line is before any step.\n@step S\ntext\n"), 2, "text before the first @step"},
    {TEXT("@title T\n@step S\ntext\n@quiz Q\n@answer a\n@choice b\n@answer c\n"), 7, "second"},
    {TEXT("@title T\n@step S\ntext\n@quiz Q\n@answer a\nstray words\n"), 6, "text inside a quiz"},
    {TEXT("@title T\n@step S\n@layer 0\ntext\n"), 3, "@layer"},
    {TEXT("@title T\n@step S\ntext\n@choice a\n"), 4, "outside a quiz"},
    {TEXT("@title T\n@step S\nte\0xt\n"), 3, "NUL"},
    {TEXT("@step S\ntext\n"), 1, "@title"},
    {TEXT("@title T\n@step S\ntext\n@abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz value\n"), 4,
     "unknown directive"},
};

static void test_parse_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof BAD / sizeof *BAD; i++)
        expect_error(BAD[i].text, BAD[i].len, BAD[i].line, BAD[i].phrase);
}

/* A huge line: a 200 kB directive fails on its own line; a 200 kB text line
 * is kept whole; a file over LESSON_MAX_BYTES is refused. */
static void test_parse_huge(void **state)
{
    (void)state;
    size_t big = 200000;
    char *buf = malloc(big + 256);
    expect_true(buf != NULL, "memory for a big line");
    int k = snprintf(buf, 256, "@title T\n@step S\ntext\n@stage ");
    memset(buf + k, 'x', big);
    memcpy(buf + k + big, "\nmore\n", 6);
    expect_error(buf, (size_t)k + big + 6, 4, "@stage");

    k = snprintf(buf, 256, "@title T\n@step S\n@stage src.tokens\n");
    memset(buf + k, 'y', big);
    memcpy(buf + k + big, "\n", 1);
    Lesson l;
    TfErr err = {{0}};
    int rc = lesson_parse(&l, buf, (size_t)k + big + 1, "big.txt", &err);
    expect_true(rc == 0, "a 200 kB text line parses: %s", err.msg);
    expect_true(strlen(l.steps[0].text) == big, "the line is kept whole: %zu bytes, got %zu", big,
                strlen(l.steps[0].text));
    lesson_free(&l);

    free(buf);

    size_t huge = (size_t)LESSON_MAX_BYTES + 10;
    char *h = calloc(1, huge);
    expect_true(h != NULL, "memory for a huge file");
    memset(h, 'a', huge);
    rc = lesson_parse(&l, h, huge, "huge.txt", &err);
    expect_true(rc != 0 && strstr(err.msg, "huge.txt") && strstr(err.msg, "larger than"),
                "a file over %d bytes is refused by name, got rc %d '%s'", LESSON_MAX_BYTES, rc, err.msg);
    free(h);
}

/* A folder's files: two good lessons, three bad ones, one that is not a
 * lesson. */
static const struct {
    const char *name, *text;
} DIR_FILES[] = {
    {"01-good.txt", NULL /* GOOD */},
    {"02-unknown.txt", "@title T\n@step S\ntext\n@bogus x\n"},
    {"03-good-too.txt", "@title Second\n@step S\n@stage pos.enc\nWaves.\n"},
    {"04-quiz.txt", "@title T\n@step S\ntext\n@quiz Q?\n@choice a\n"},
    {"05-utf8.txt", "@title T\n@step S\n\xff\n"},
    {"notes.md", "not a lesson\n"},
};

static void test_load_dir_good_and_bad(void **state)
{
    (void)state;
    char dir[256];
    expect_true(tu_scratch(dir, sizeof dir, "test-lessons") == 0, "a scratch folder");
    for (size_t i = 0; i < sizeof DIR_FILES / sizeof *DIR_FILES; i++)
        tu_write_text(dir, DIR_FILES[i].name, DIR_FILES[i].text ? DIR_FILES[i].text : GOOD);
    LessonSet set;
    TuMsgs m = {0};
    int n_bad = -1;
    int rc = lessons_load_dir(&set, dir, tu_collect, &m, &n_bad);
    tu_scratch_remove(dir);
    expect_true(rc == 0, "the folder loads, rc %d", rc);
    expect_true(set.n == 2, "the 2 good lessons load, got %d", set.n);
    expect_true(set.n < 1 || strcmp(set.lessons[0].id, "good") == 0, "first 'good', got '%s'", set.lessons[0].id);
    expect_true(set.n < 2 || strcmp(set.lessons[1].id, "good-too") == 0, "then 'good-too', got '%s'",
                set.lessons[1].id);
    expect_true(n_bad == 3 && m.n == 3, "3 bad files reported, got n_bad %d, %d messages:\n%s", n_bad, m.n, m.text);
    expect_true(strstr(m.text, "02-unknown.txt:4: ") && strstr(m.text, "04-quiz.txt:4: ") &&
                    strstr(m.text, "05-utf8.txt:3: "),
                "each bad file by name and line, got:\n%s", m.text);
    lessons_free(&set);

    TuMsgs none = {0};
    rc = lessons_load_dir(&set, "/nonexistent/lessons", tu_collect, &none, NULL);
    expect_true(rc != 0 && none.n == 1 && strstr(none.text, "/nonexistent/lessons"),
                "a missing folder is an error that names it, got rc %d '%s'", rc, none.text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shipped_complete),
        cmocka_unit_test(test_shipped_languages_match),
        cmocka_unit_test(test_shipped_views_exist),
        cmocka_unit_test(test_shipped_quizzes),
        cmocka_unit_test(test_shipped_glyphs),
        cmocka_unit_test(test_shipped_check_all),
        cmocka_unit_test(test_parse_example),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_parse_huge),
        cmocka_unit_test(test_load_dir_good_and_bad),
    };
    return cmocka_run_group_tests_name("lessons", tests, NULL, NULL);
}
