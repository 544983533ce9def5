/* test_lesson_kinds.c - the lesson format's newer directives (app/session/
 * lesson.c) and what `lessons --check` verifies of them (app/cli/
 * lesson_check.c): @predict number / output / breaks with their choices,
 * a quiz answer that stands in its own step's text,
 * @colormap, @beam, @alpha, @recap, @exercise, @train, @pane for the PE
 * view's panels; the shuffled, balanced quiz
 * order; brace markup as drawn; memory that follows the text and a folder
 * of too many files. Run from the repository root (it reads assets/models). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lesson.h"
#include "lesson_check.h"
#include "model_open.h"
#include "test_lesson_util.h"
#include "test_util.h"

#define MODEL "assets/models/en2zh.safetensors"

static const char *GOOD =
    "@title Kinds\n"                                   /* 1 */
    "@recap read one weight\n"                         /* 2 */
    "@step A cell\n"                                   /* 3 */
    "@stage dec.self.weights\n"                        /* 4 */
    "@layer 1\n"                                       /* 5 */
    "@head 1\n"                                        /* 6 */
    "@src i love china\n"                              /* 7 */
    "@tgt 我 爱 中国\n"                                /* 8 */
    "@colormap cividis\n"                              /* 9 */
    "The first row sees only itself.\n"                /* 10 */
    "@predict number cell <bos> <bos>\n"               /* 11 */
    "@choice 0.5\n"                                    /* 12 */
    "@answer 1\n"                                      /* 13 */
    "@choice 0\n"                                      /* 14 */
    "@explain One key, all the weight.\n"              /* 15 */
    "@step The output\n"                               /* 16 */
    "@view decode\n"                                   /* 17 */
    "@tgt -\n"                                         /* 18 */
    "@beam 4\n"                                        /* 19 */
    "@alpha 0.6\n"                                     /* 20 */
    "@experiment no-pe\n"                              /* 21 */
    "Without positions?\n"                             /* 22 */
    "@predict output\n"                                /* 23 */
    "@answer 我 爱 中国\n"                             /* 24 */
    "@choice 中国 爱 我\n"                             /* 25 */
    "@step What breaks\n"                              /* 26 */
    "@experiment none\n"                               /* 27 */
    "Which change alters it?\n"                        /* 28 */
    "@predict breaks\n"                                /* 29 */
    "@choice no-scale | scores not divided by √d_k\n"  /* 30 */
    "@answer hide-src 2 | china hidden\n"              /* 31 */
    "@exercise Explain in your own words why.\n";      /* 32 */

static void test_parse(void **state)
{
    (void)state;
    Lesson l;
    const LessonStep *s = tu_lesson_parse(&l, GOOD, "x/03-kinds.txt");
    expect_true(l.n_steps == 3 && l.n_recap == 1 && l.n_exercise == 1 && strcmp(l.recap[0], "read one weight") == 0 &&
                    strcmp(l.exercise[0], "Explain in your own words why.") == 0,
                "3 steps, a @recap and an @exercise kept at any place, got %d %d %d", l.n_steps, l.n_recap, l.n_exercise);
    expect_true(s[0].predict.kind == LESSON_PREDICT_NUMBER && s[0].predict.what == LESSON_NUM_CELL &&
                    strcmp(s[0].predict.query, "<bos>") == 0 && strcmp(s[0].predict.col, "<bos>") == 0 &&
                    !s[0].has_quiz && s[0].quiz.n_choices == 3 && s[0].quiz.answer == 1 && s[0].predict.explain,
                "@predict number keeps its cell, three choices, the answer second, no quiz");
    expect_true(strcmp(s[0].view.cmap, "cividis") == 0 && s[1].view.beam == 4 && s[1].view.alpha > 0.59f &&
                    s[1].view.alpha < 0.61f && strcmp(s[2].view.cmap, "cividis") == 0 && s[0].view.beam == 0 &&
                    s[0].view.alpha < 0,
                "@colormap, @beam and @alpha are view settings, carried over, unset before");
    expect_true(s[1].predict.kind == LESSON_PREDICT_OUTPUT && s[1].quiz.answer == 0 && s[1].quiz.n_choices == 2,
                "@predict output with its choices");
    expect_true(s[2].predict.kind == LESSON_PREDICT_BREAKS && s[2].predict.exps && s[2].predict.exps[0].no_scale &&
                    s[2].predict.exps[1].n_hide == 1 && s[2].predict.exps[1].hide_src[0] == 2 &&
                    strcmp(lesson_choice_label(s[2].quiz.choices[1]), "china hidden") == 0,
                "@predict breaks parses each choice's change and shows its label");
    expect_true(l.cap_steps <= 4, "a 3-step lesson holds room for %d steps, not %d", l.cap_steps, LESSON_MAX_STEPS);
    lesson_free(&l);
}

static const TuLessonBad BAD[] = {
    {"@predict number\n", "@predict number needs cell ROW COL", 4},
    {"@predict number cell #1\n", "@predict number needs cell ROW COL", 4},
    {"@predict number mean #1 #2\n", "@predict number needs cell ROW COL", 4},
    {"@predict number mean #0\n", "#N counts positions from 1", 4},
    {"@predict number std #1\n@choice big\n@answer 1\n", "starts with its number", 5},
    {"@predict number std #1\n@answer 1\n", "needs @choice lines and one @answer", 4},
    {"@predict output\n@choice a\n@choice b\n", "no @answer", 4},
    {"@predict output now\n", "take no argument", 4},
    {"@predict breaks\n@choice no-such | x\n@answer no-pe\n", "unknown @experiment flag 'no-such'", 5},
    {"@predict breaks\n@choice none\n@answer no-pe\n", "a change", 5},
    {"@predict output\n@answer a\n@choice b\nmore text\n", "text after the choices", 7},
    {"@predict guess\n", "@predict needs row QUERY, next [QUERY], number WHAT, output or breaks", 4},
    {"@colormap jet\n", "@colormap needs viridis, cividis or blue-orange", 4},
    {"@beam 9\n", "@beam needs a beam width from 1 to 8", 4},
    {"@alpha 3\n", "@alpha needs a length penalty from 0 to 2", 4},
    {"@alpha -1\n", "@alpha needs a length penalty from 0 to 2", 4},
    {"@recap\n", "@recap needs text", 4},
    {"@train fly\n", "@train needs a task (copy, reverse, sort, en2zh)", 4},
    {"@train reverse heads 3\n", "@train needs a task", 4},
    {"@train reverse heads\n", "@train needs a task", 4},
    {"@train reverse layers 2\n", "@train needs a task", 4},
    {"@pane circle\n", "@pane needs gen, step, beam or sample (decode), or waves, table or rotation (pe)", 4},
    {"@exercise a\n@exercise b\n@exercise c\n@exercise d\n@exercise e\n@exercise f\n@exercise g\n@exercise h\n"
     "@exercise i\n", "at most 8 @exercise lines", 12},
};

static void test_parse_bad(void **state)
{
    (void)state;
    tu_lesson_bad_table(BAD, sizeof BAD / sizeof *BAD, "bad/09-k.txt");
}

/* The checker runs the model: a right @answer passes, a wrong one (or a
 * @choice that is right too) is reported at the @predict's line. */
#define CELL "@step S\n@stage dec.self.weights\n@layer 1\n@head 1\n@src i love china\n@tgt 我 爱 中国\nx\n"
static const TuLessonCheck CHECKS[] = {
    {CELL "@predict number cell <bos> <bos>\n@answer 1\n@choice 0.5\n", NULL, 0},
    {CELL "@predict number cell <bos> <bos>\n@answer 0.5\n@choice 0\n", "the @answer says 0.5, but the model gives 1",
     9},
    {CELL "@predict number cell <bos> <bos>\n@answer 1\n@choice 1.0\n", "the @choice 1.0 is right too", 9},
    {CELL "@predict number cell 我 爱\n@answer 0\n@choice 0.5\n", NULL, 0},
    {CELL "@predict number zeros <bos>\n@answer 3\n@choice 0\n", NULL, 0},
    {CELL "@predict number max 我\n@answer 0.4\n@choice 0.5\n", "the @answer says 0.4", 9},
    {CELL "@predict number cell 我 你\n@answer 0\n@choice 1\n", "has no such row or column", 9},
    {"@step S\n@stage enc.norm1\n@layer 1\n@src i love china\nx\n@predict number mean i\n@answer 0.0\n@choice 1\n",
     NULL, 0},
    {"@step S\n@view decode\n@src i love china\n@experiment no-pe\nx\n@predict output\n@answer 我 爱 中国\n"
     "@choice 你 爱 中国\n", NULL, 0},
    {"@step S\n@view decode\n@src i love china\n@experiment hide-src 2\nx\n@predict output\n@answer 我 爱 中国\n"
     "@choice 你\n", "the @answer is '我 爱 中国', but the model writes", 7},
    {"@step S\n@view decode\n@src i love china\nx\n@predict breaks\n@answer hide-src 2\n@choice no-scale\n", NULL, 0},
    {"@step S\n@view decode\n@src i love china\nx\n@predict breaks\n@answer no-scale\n@choice ablate enc:0:0\n",
     "the @answer 'no-scale' leaves the translation", 6},
    {"@step S\n@view decode\n@src i love china\nx\n@predict breaks\n@answer hide-src 2\n@choice hide-src 7\n",
     "choice 2: ", 6},
    {"@step S\n@view decode\n@src i love china\n@tgt 我 爱 中国\nx\n@predict output\n@answer 我 爱 中国\n@choice 你\n",
     "the Target line would print the answer", 7},
    {"@step S\n@view train\n@train reverse heads 1\nx\n", NULL, 0},
    /* a quiz whose answer (or its key phrase, before a colon) is on its own screen */
    {"@step S\n@stage enc.self.weights\n@src i love china\nHere it is **greedy decoding**.\n@quiz Which?\n"
     "@answer Greedy decoding\n@choice Beam search\n", "the @answer \"Greedy decoding\" stands in the step's own", 6},
    {"@step Four heads\n@stage enc.self.weights\n@src i love china\nx\n@quiz Which?\n"
     "@answer Four heads: each follows its own pattern\n@choice One head\n", "stands in the step's own title", 6},
    {"@step S\n@stage enc.self.weights\n@src i love china\nd_k = 64 here.\n@quiz d_k?\n@answer 64\n@choice 8\n", NULL, 0},
    {"@step S\n@stage enc.self.weights\n@src i love china\n不是贪心解码。\n@quiz 哪一个？\n@answer “贪心解码”\n"
     "@choice 束搜索\n", "stands in the step's own", 6},
    {"@step S\n@stage enc.self.weights\n@train reverse\nx\n", "@train sets the Train view's next run: add @view train",
     4},
    {"@step S\n@stage pos.enc\n@pane rotation\nx\n", NULL, 0},
    {"@step S\n@stage enc.input\n@pane rotation\nx\n", "@pane rotation is the PE view's: add @view pe", 4},
};

/* @train and the PE panels parse into the step's view, apart from the
 * decode view's @pane. */
static void test_train_and_panels(void **state)
{
    (void)state;
    static const char *T = "@title T\n@step A\n@view train\n@train reverse heads 4\nx\n"
                           "@step B\n@stage pos.enc\n@pane rotation\nx\n@step C\n@view decode\n@pane beam\nx\n";
    Lesson l;
    const LessonStep *s = tu_lesson_parse(&l, T, "x/04-t.txt");
    expect_true(strcmp(s[0].view.train_task, "reverse") == 0 && s[0].view.train_heads == 4 && s[0].view.train_line == 4,
                "@train reverse heads 4 at line 4, got '%s' %d %d", s[0].view.train_task, s[0].view.train_heads,
                s[0].view.train_line);
    expect_true(strcmp(s[1].view.pe_panel, "rotation") == 0 && !s[1].view.pane[0] && s[1].view.pe_panel_line == 8,
                "@pane rotation is the PE view's panel, not a decode pane");
    expect_true(strcmp(s[2].view.pane, "beam") == 0 && strcmp(s[2].view.pe_panel, "rotation") == 0,
                "@pane beam is the decode view's; the PE panel carries over");
    lesson_free(&l);
}

static void test_check(void **state)
{
    (void)state;
    tu_lesson_check_table(CHECKS, sizeof CHECKS / sizeof *CHECKS, MODEL, "chk/01-k.txt");
}

/* The numbers of choices: what the checker compares with the model. */
static void test_choice_numbers(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        double v;
        int dec;
    } OK[] = {{"0.25", 0.25, 2}, {"−1", -1, 0}, {"≈ 3.0", 3, 1}, {"6 cells", 6, 0}, {"-0.5 of it", -0.5, 1}};
    for (size_t i = 0; i < sizeof OK / sizeof *OK; i++) {
        double v;
        int d;
        expect_true(lesson_choice_number(OK[i].text, &v, &d) == 0 && v == OK[i].v && d == OK[i].dec,
                    "'%s' is %g with %d decimals", OK[i].text, OK[i].v, OK[i].dec);
    }
    double v;
    expect_true(lesson_choice_number("about 3", &v, NULL) != 0 && lesson_choice_number("", &v, NULL) != 0,
                "a text without a leading number is refused");
    expect_true(lesson_number_matches(0.9987, 1.00, 2) && !lesson_number_matches(0.994, 1.00, 2) &&
                    lesson_number_matches(2.6, 3, 0) && !lesson_number_matches(2.4, 3, 0),
                "a number matches to the decimals it is written with");
}

/* Over a lesson's quizzes the answers take each position in turn; each
 * order is a permutation; another seed gives another order. */
static void test_quiz_order(void **state)
{
    (void)state;
    char text[4096] = "@title Q\n";
    for (int i = 0; i < 6; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text),
                 "@step S%d\nx\n@quiz Q?\n@answer right\n@choice w1\n@choice w2\n", i);
    Lesson l;
    TfErr err;
    expect_true(lesson_parse(&l, text, strlen(text), "q/01-q.txt", &err) == 0, "six quizzes parse: %s", err.msg);
    int differs = 0;
    for (unsigned seed = 1; seed < 40; seed++) {
        int at[3] = {0, 0, 0}, first[LESSON_MAX_CHOICES];
        for (int st = 0; st < 6; st++) {
            int order[LESSON_MAX_CHOICES], seen = 0;
            lesson_quiz_order(&l, st, seed, order);
            for (int k = 0; k < 3; k++) {
                seen |= 1 << order[k];
                if (order[k] == 0)
                    at[k]++;
            }
            expect_true(seen == 7, "seed %u step %d: a permutation of the 3 choices", seed, st);
            if (st == 0 && seed == 1)
                memcpy(first, order, sizeof first);
            if (st == 0 && seed > 1)
                differs |= memcmp(first, order, 3 * sizeof *order) != 0;
        }
        expect_true(at[0] == 2 && at[1] == 2 && at[2] == 2, "seed %u: the answer is 1st, 2nd, 3rd twice each: %d %d %d",
                    seed, at[0], at[1], at[2]);
    }
    expect_true(differs, "learners' seeds give different orders");
    lesson_free(&l);
}

/* Brace markup as drawn: Unicode scripts where every character has one. */
static void test_text_plain(void **state)
{
    (void)state;
    static const char *CASES[][2] = {
        {"h_{t−1} = f(h_{t-1}, x_t)", "hₜ₋₁ = f(hₜ₋₁, x_t)"},
        {"x^{2} + 10000^{2i}", "x² + 10000²ⁱ"},
        {"W_{ü}", "W_(ü)"},
        {"a_{b", "a_{b"},
        {"no braces", "no braces"},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++) {
        char out[128];
        lesson_text_plain(CASES[i][0], strlen(CASES[i][0]), out, sizeof out);
        expect_true(strcmp(out, CASES[i][1]) == 0, "'%s' is drawn '%s', got '%s'", CASES[i][0], CASES[i][1], out);
    }
    char small[6];
    size_t n = lesson_text_plain("abcdefghij", 10, small, sizeof small);
    expect_true(n == 5 && strcmp(small, "abcde") == 0, "the output stops at its capacity: '%s'", small);
}

/* More files than LESSON_MAX_FILES: the first by name are read, one
 * message says how many were not; the memory of what is read follows the
 * text (a small lesson holds a few steps, not LESSON_MAX_STEPS). */
static void test_many_files(void **state)
{
    (void)state;
    char dir[256], path[400];
    expect_true(tu_scratch(dir, sizeof dir, "test-lesson-kinds") == 0, "a scratch folder");
    int n = LESSON_MAX_FILES + 5;
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/%05d-l.txt", dir, i);
        FILE *f = fopen(path, "w");
        expect_true(f != NULL, "%s can be written", path);
        fputs("@title T\n@step S\n@stage enc.input\nText.\n", f);
        fclose(f);
    }
    LessonSet set;
    TuMsgs m = {0};
    int bad = 0;
    lessons_load_dir(&set, dir, tu_collect, &m, &bad);
    expect_true(set.n == LESSON_MAX_FILES && bad == 1 && m.n == 1 && strstr(m.text, "more than 1000 lesson files; 5 "
                                                                                   "were not read"),
                "%d read, one message, got %d read, %d bad:\n%s", LESSON_MAX_FILES, set.n, bad, m.text);
    expect_true(strcmp(set.lessons[0].path + strlen(dir), "/00000-l.txt") == 0 &&
                    strcmp(set.lessons[set.n - 1].path + strlen(dir), "/00999-l.txt") == 0,
                "the first by name: %s .. %s", set.lessons[0].path, set.lessons[set.n - 1].path);
    expect_true(set.lessons[0].cap_steps <= 4, "a one-step lesson holds %d steps", set.lessons[0].cap_steps);
    lessons_free(&set);
    tu_scratch_remove(dir);
}

int main(void)
{
    TU_RUN(NULL, NULL, cmocka_unit_test(test_parse), cmocka_unit_test(test_parse_bad),
           cmocka_unit_test(test_train_and_panels), cmocka_unit_test(test_check),
           cmocka_unit_test(test_choice_numbers), cmocka_unit_test(test_quiz_order), cmocka_unit_test(test_text_plain),
           cmocka_unit_test(test_many_files));
}
