/* test_i18n_fit.c - the window's own words fit on a small screen in both
 * languages at normal and presenter text sizes (800 x 600, text x1 and
 * x1.5): every line of the help overlay shows, the lesson panel's step
 * counter overlaps neither "Lessons" nor "close", the choices of every
 * open quiz and prediction of the shipped lessons are on screen without
 * scrolling (text x1, both languages), every lesson-end screen scrolls
 * down to its last exercise, and the navigator's
 * block labels stay clear of the layer tabs. Boxes come from the text
 * layer's hook (ren_text_hook), which reports each string drawn where it
 * can be seen. */
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "lesson_ui.h"
#include "test_app_util.h"
#include "test_util.h"
#include "ui.h"

enum { MAX_SEEN = 600 };
typedef struct Drawn {
    char text[160];
    Rect box;
} Drawn;
static Drawn g_seen[MAX_SEEN];
static int g_n;

static void record(void *user, const char *utf8, int len, Rect box, const char *tag)
{
    (void)user;
    (void)tag;
    if (g_n >= MAX_SEEN)
        return;
    int n = len < 159 ? len : 159;
    memcpy(g_seen[g_n].text, utf8, (size_t)n);
    g_seen[g_n].text[n] = 0;
    g_seen[g_n].box = box;
    g_n++;
}

static const Drawn *seen(const char *text)
{
    for (int i = 0; i < g_n; i++)
        if (strcmp(g_seen[i].text, text) == 0)
            return &g_seen[i];
    return NULL;
}

static int overlap(Rect a, Rect b)
{
    return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

static void draw(App *a)
{
    g_n = 0;
    ren_text_hook(record, NULL);
    tu_frame(a);
    ren_text_hook(NULL, NULL);
}

static void open_app(App *a, int lang, float scale)
{
    AppOpts o = tu_opts(NULL, "i love china", NULL, NULL);
    tu_open(a, &o, 100);
    lesson_ui_set_lang(a, lang);
    a->look.text_scale = scale;
    app_goto(a, ST_ENC_SELF_WEIGHTS, 0);
    ui_set_lang(lang);
}

/* check on an app opened in each language at each text size. */
static void for_each_look(void (*check)(App *a, int lang, float scale))
{
    static const float SCALES[] = {1.0f, 1.5f};
    for (int lang = 0; lang < 2; lang++)
        for (int s = 0; s < 2; s++) {
            static App a;
            open_app(&a, lang, SCALES[s]);
            check(&a, lang, SCALES[s]);
            app_free(&a);
        }
}

static void help_shows_every_line(App *a, int lang, float scale)
{
    a->show_help = 1;
    draw(a);
    const char *first = _("Everywhere"); /* the heatmap's: then the E panel's */
    const char *last = "Alt+S  Alt+P  Alt+M"; /* the keys of the last line (its text may wrap) */
    expect_true(seen(first) && seen(last), "lang %d, text x%.1f: the help's first and last lines show (%s, %s)",
                lang, (double)scale, seen(first) ? "yes" : "no", seen(last) ? "yes" : "no");
}

static void test_help_shows_every_line(void **state)
{
    (void)state;
    for_each_look(help_shows_every_line);
}

static void lesson_header_and_nav_fit(App *a, int lang, float scale)
{
    const LessonSet *set = lesson_ui_set(a);
    expect_true(set && set->n > 0, "lessons");
    expect_true(lesson_ui_open(a, set->lessons[0].id, 2) == 0, "lesson opens");
    draw(a);
    const Drawn *les = seen(lesson_ui_word(a, LW_LESSONS));
    const Drawn *cl = seen(lesson_ui_word(a, LW_CLOSE));
    expect_true(les && cl, "lang %d x%.1f: the header's Lessons and close show", lang, (double)scale);
    char step[96];
    snprintf(step, sizeof step, lesson_ui_word(a, LW_STEP), 3, set->lessons[0].n_steps);
    for (int i = 0; i < g_n; i++) {
        const Drawn *d = &g_seen[i];
        int counter = strcmp(d->text, step) == 0 || strstr(d->text, " / ") || strncmp(d->text, step, 4) == 0;
        if (counter && d->box.y == les->box.y)
            expect_true(!overlap(d->box, les->box) && !overlap(d->box, cl->box),
                        "lang %d x%.1f: the step counter \"%s\" overlaps the header", lang, (double)scale, d->text);
    }
    /* the layer tabs "1", "2" of the navigator and the block labels */
    for (int i = 0; i < g_n; i++) {
        if (strcmp(g_seen[i].text, "1") && strcmp(g_seen[i].text, "2"))
            continue;
        if (g_seen[i].box.x > a->win.w / 3)
            continue; /* not the navigator's */
        for (int k = 0; k < g_n; k++)
            if (k != i && g_seen[k].box.x < a->win.w / 3 && strlen(g_seen[k].text) > 2)
                expect_true(!overlap(g_seen[i].box, g_seen[k].box), "lang %d x%.1f: layer tab %s overlaps \"%s\"",
                            lang, (double)scale, g_seen[i].text, g_seen[k].text);
    }
}

static void test_lesson_header_and_nav_fit(void **state)
{
    (void)state;
    for_each_look(lesson_header_and_nav_fit);
}

/* Every step of every shipped lesson that asks a question with choices:
 * at 800 x 600 its choices are drawn whole inside the part of the panel
 * that shows (pinned above the footer when the text is long), the panel
 * scrolled to its top as a step opens. */
static void test_quiz_choices_above_the_fold(void **state)
{
    (void)state;
    for (int lang = 0; lang < 2; lang++) {
        static App a;
        open_app(&a, lang, 1.0f);
        const LessonSet *set = lesson_ui_set(&a);
        expect_true(set && set->n > 10, "lang %d: the shipped lessons, got %d", lang, set ? set->n : 0);
        int asked = 0, bad = 0;
        char first[300] = "";
        for (int i = 0; set && i < set->n; i++) {
            const Lesson *l = &set->lessons[i];
            for (int st = 0; st < l->n_steps; st++) {
                const LessonStep *s = &l->steps[st];
                if (!s->has_quiz && !lesson_predict_has_choices(s->predict.kind))
                    continue;
                if (lesson_ui_open(&a, l->id, st) != 0)
                    continue;
                draw(&a);
                Rect rc[LESSON_MAX_CHOICES], vis;
                int n = lesson_ui_choice_rects(&a, rc, &vis), ok = n == s->quiz.n_choices && n > 0;
                ok = ok && vis.y >= 0 && vis.y + vis.h <= a.win.h && vis.x + vis.w <= a.win.w;
                for (int k = 0; ok && k < n; k++)
                    ok = rc[k].y >= vis.y && rc[k].y + rc[k].h <= vis.y + vis.h;
                asked++;
                if (!ok && bad++ == 0)
                    snprintf(first, sizeof first, "%s step %d: %d of %d choices, the last at y %d..%d, visible %d..%d",
                             l->id, st + 1, n, s->quiz.n_choices, n ? rc[n - 1].y : 0,
                             n ? rc[n - 1].y + rc[n - 1].h : 0, vis.y, vis.y + vis.h);
            }
        }
        expect_true(asked > 20, "lang %d: the lessons ask %d questions with choices", lang, asked);
        expect_true(bad == 0, "lang %d: %d of %d questions have choices below the fold at 800x600 (first: %s)", lang,
                    bad, asked, first);
        app_free(&a);
    }
}

/* Does the end of text t stand among the strings seen (its last line)? */
static int end_seen(const char *t)
{
    size_t n = strlen(t);
    for (int i = 0; i < g_n; i++) {
        size_t k = strlen(g_seen[i].text);
        if (k >= 2 && k <= n && strcmp(t + n - k, g_seen[i].text) == 0)
            return 1;
    }
    return 0;
}

/* Every shipped lesson's end screen at 800 x 600, both languages: the
 * wheel over the panel scrolls it down until its last exercise's last line
 * is seen (the capstone's four recaps and two exercises are taller than
 * the panel). */
static void test_lesson_end_scrolls_to_the_exercises(void **state)
{
    (void)state;
    for (int lang = 0; lang < 2; lang++) {
        static App a;
        open_app(&a, lang, 1.0f);
        const LessonSet *set = lesson_ui_set(&a);
        int ends = 0, bad = 0;
        char first[200] = "";
        for (int i = 0; set && i < set->n; i++) {
            const Lesson *l = &set->lessons[i];
            if (!l->n_exercise || lesson_ui_open(&a, l->id, l->n_steps - 1) != 0)
                continue;
            lesson_ui_step(&a, 1); /* the lesson-end screen */
            draw(&a);
            for (int k = 0; k < 8; k++) { /* the wheel, over the lesson panel */
                ev_mouse(&a, IN_MOUSE_MOVE, a.win.w - 90, a.win.h / 2, 0);
                ev_mouse(&a, IN_WHEEL, a.win.w - 90, a.win.h / 2, -5);
                draw(&a);
            }
            ends++;
            if (!end_seen(l->exercise[l->n_exercise - 1]) && bad++ == 0)
                snprintf(first, sizeof first, "%s", l->id);
        }
        expect_true(ends > 15, "lang %d: %d lesson-end screens with exercises", lang, ends);
        expect_true(bad == 0, "lang %d: %d lesson-end screens never show their last exercise (first: %s)", lang, bad,
                    first);
        app_free(&a);
    }
}

TU_RENDERER(800, 600)

int main(void)
{
    TU_RUN(setup, teardown, cmocka_unit_test(test_help_shows_every_line),
           cmocka_unit_test(test_lesson_header_and_nav_fit), cmocka_unit_test(test_quiz_choices_above_the_fold),
           cmocka_unit_test(test_lesson_end_scrolls_to_the_exercises));
}
