/* test_lesson_directives.c - the teaching directives in the parser
 * (app/session/lesson/lesson.c) and in `lessons --check` (app/cli/lesson_check.c):
 * @pane, @view cost, @experiment, @predict row|next with its @explain.
 *
 * Good lines parse into the step's view (carried over where they should be,
 * for one step where not); each bad line of a table gives "file:line:
 * reason" on its own line; the checker reports, against the en2zh model and
 * the step's sentence, an ablated layer or head out of range, a hidden
 * position past the source, a @pane without the decode view, a @predict on
 * a view that cannot show it, and a query that is not a token of the
 * sentence. Run from the repository root (it reads assets/models). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "checkpoint.h"
#include "lesson.h"
#include "lesson_check.h"
#include "model_open.h"
#include "session.h"
#include "stage.h"
#include "test_lesson_util.h"
#include "test_util.h"
#include "vocab.h"

#define MODEL "assets/models/en2zh.safetensors"

static const char *GOOD =
    "@title New directives\n"                       /* 1 */
    "@step Predict a row\n"                         /* 2 */
    "@stage enc.self.weights\n"                     /* 3 */
    "@head 2\n"                                     /* 4 */
    "@src i love china\n"                           /* 5 */
    "@predict row love\n"                           /* 6 */
    "@explain Most of its weight goes to china.\n"  /* 7 */
    "Click the key.\n"                              /* 8 */
    "@step Beam\n"                                  /* 9 */
    "@view decode\n"                                /* 10 */
    "@pane beam\n"                                  /* 11 */
    "@experiment no-scale ablate enc:0:1 ablate cross:1:3 hide-src 2 compare\n" /* 12 */
    "The tree.\n"                                   /* 13 */
    "@step Next\n"                                  /* 14 */
    "@pane gen\n"                                   /* 15 */
    "@predict next #2\n"                            /* 16 */
    "What comes next?\n"                            /* 17 */
    "@step Clear\n"                                 /* 18 */
    "@view cost\n"                                  /* 19 */
    "@experiment none\n"                            /* 20 */
    "Cost.\n";                                      /* 21 */

static void test_parse_good(void **state)
{
    (void)state;
    Lesson l;
    const LessonStep *s = tu_lesson_parse(&l, GOOD, "x/05-new.txt");
    expect_true(s[0].predict.kind == LESSON_PREDICT_ROW && strcmp(s[0].predict.query, "love") == 0 &&
                    s[0].predict.line == 6 && s[0].predict.explain &&
                    strcmp(s[0].predict.explain, "Most of its weight goes to china.") == 0,
                "step 1: @predict row love at line 6 with its explanation, got kind %d '%s' line %d",
                s[0].predict.kind, s[0].predict.query ? s[0].predict.query : "(null)", s[0].predict.line);
    expect_true(!s[0].has_quiz && !s[0].view.has_exp && !s[0].view.pane[0],
                "step 1 has no quiz, no experiment, no pane");
    const LessonView *v = &s[1].view;
    expect_true(strcmp(v->pane, "beam") == 0 && v->pane_line == 11, "step 2: pane beam from line 11, got '%s' %d",
                v->pane, v->pane_line);
    expect_true(v->has_exp && v->exp.no_scale && !v->exp.no_pe && v->exp.n_ablate == 2 && v->exp.n_hide == 1 &&
                    v->exp.hide_src[0] == 2 && v->cmp == LESSON_CMP_DIFF && v->exp_line == 12,
                "step 2: no-scale, 2 ablated heads, hide-src 2, compare, from line 12; got %d %d %d %d %d line %d",
                v->exp.no_scale, v->exp.n_ablate, v->exp.n_hide, v->exp.hide_src[0], v->cmp, v->exp_line);
    expect_true(v->exp.ablate[1].kind == TF_ATTN_CROSS && v->exp.ablate[1].layer == 1 && v->exp.ablate[1].head == 3,
                "cross:1:3 is cross-attention layer 1 head 3, got %d:%d:%d", v->exp.ablate[1].kind,
                v->exp.ablate[1].layer, v->exp.ablate[1].head);
    expect_true(s[1].predict.kind == LESSON_PREDICT_NONE, "@predict is not carried over");
    v = &s[2].view;
    expect_true(strcmp(v->pane, "gen") == 0 && v->has_exp && v->exp.n_ablate == 2 && strcmp(v->view, "decode") == 0,
                "step 3 keeps the experiment and the view, and has pane gen: '%s' %d '%s'", v->pane, v->exp.n_ablate,
                v->view);
    expect_true(s[2].predict.kind == LESSON_PREDICT_NEXT && strcmp(s[2].predict.query, "#2") == 0,
                "step 3: @predict next #2");
    v = &s[3].view;
    expect_true(v->has_exp && tf_exp_is_none(&v->exp) && v->cmp == LESSON_CMP_EXP && strcmp(v->view, "cost") == 0,
                "step 4: @experiment none clears everything, view cost; got none %d cmp %d view '%s'",
                tf_exp_is_none(&v->exp), v->cmp, v->view);
    expect_true(s[1].directives && strstr(s[1].directives, "@pane beam\n") &&
                    strstr(s[1].directives, "@experiment no-scale ablate"),
                "the new directives are among the step's own (compared across languages): '%s'", s[1].directives);
    expect_true(s[0].directives && strstr(s[0].directives, "@predict row love\n"), "and @predict: '%s'",
                s[0].directives);
    lesson_free(&l);
}

static const TuLessonBad BAD[] = {
    {"@pane tree\n", "@pane needs gen, step, beam or sample", 4},
    {"@pane\n", "@pane needs", 4},
    {"@experiment\n", "@experiment needs flags", 4},
    {"@experiment no-scale no-dropout\n", "unknown @experiment flag 'no-dropout'", 4},
    {"@experiment --no-scale\n", "unknown @experiment flag '--no-scale'", 4},
    {"@experiment ablate\n", "ablate needs enc:L:H", 4},
    {"@experiment ablate enc:1\n", "ablate needs enc:L:H", 4},
    {"@experiment ablate self:0:1\n", "ablate needs enc:L:H", 4},
    {"@experiment ablate enc:x:1\n", "ablate needs enc:L:H", 4},
    {"@experiment hide-src\n", "hide-src needs a source position", 4},
    {"@experiment hide-src -1\n", "hide-src needs a source position", 4},
    {"@experiment none no-pe\n", "give it alone", 4},
    {"@experiment compare\n", "needs an experiment flag", 4},
    {"@experiment no-pe compare normal\n", "give one", 4},
    {"@experiment no-ffn\n", "no-ffn needs enc:L or dec:L", 4},
    {"@experiment no-ffn cross:0\n", "no-ffn needs enc:L or dec:L", 4},
    {"@experiment no-ffn dec:1:0\n", "no-ffn needs enc:L or dec:L", 4},
    {"@experiment no-residuals\n", "unknown @experiment flag 'no-residuals'", 4},
    {"@force\n", "@force needs a generation step from 1 and a target token", 4},
    {"@force 0 你\n", "@force needs a generation step from 1", 4},
    {"@force 1\n", "@force needs a generation step from 1 and a target token", 4},
    {"@force 1 你\n@force 2 我\n", "at most one @force", 5},
    {"@predict\n", "@predict needs row QUERY, next [QUERY], number WHAT, output or breaks", 4},
    {"@predict column love\n", "@predict needs row QUERY, next [QUERY], number WHAT, output or breaks", 4},
    {"@predict row\n", "@predict row needs the query", 4},
    {"@predict row #0\n", "#N counts positions from 1", 4},
    {"@predict row #x\n", "#N counts positions from 1", 4},
    {"@predict row a\n@predict next\n", "at most one @predict", 5},
    {"@quiz Q?\n@choice a\n@answer b\n@predict next\n", "not both", 7},
    {"@predict next\n@quiz Q?\n", "not both", 5},
    {"@predict next\n@explain a\n@explain b\n", "one @explain; this is the second", 6},
    {"@explain alone\n", "@explain outside a quiz or a @predict", 4},
};

static void test_parse_bad(void **state)
{
    (void)state;
    tu_lesson_bad_table(BAD, sizeof BAD / sizeof *BAD, "bad/09-new.txt");
}

/* The checker on lessons that parse: each case's problems, by line. */
static const TuLessonCheck CHECKS[] = {
    {"@step S\n@stage enc.self.weights\n@head 1\n@src i love china\n@predict row love\nx\n", NULL, 0},
    {"@step S\n@stage enc.self.scores\n@head 1\n@src i love china\n@predict row #3\nx\n", NULL, 0},
    {"@step S\n@stage dec.cross.weights\n@head 1\n@src i love china\n@tgt 我 爱 中国\n@predict row 爱\nx\n", NULL, 0},
    {"@step S\n@view output\n@src i love china\n@predict next\nx\n", NULL, 0},
    {"@step S\n@view decode\n@src i love china\n@predict next\nx\n", NULL, 0},
    {"@step S\n@view decode\n@pane beam\n@experiment ablate dec:1:3 hide-src 2 compare\nx\n", NULL, 0},
    {"@step S\n@view cost\nx\n", NULL, 0},
    {"@step S\n@view decode\n@pane sample\nx\n", NULL, 0},
    {"@step S\n@stage enc.self.scores\n@view scale\nx\n", NULL, 0},
    {"@step S\n@stage dec.cross.weights\n@view scale\nx\n", NULL, 0},
    {"@step S\n@stage enc.self.out\n@view scale\nx\n", "@view scale shows one head's QKᵀ", 2},
    {"@step S\n@view output\n@pane sample\nx\n", "@pane sample is the decode view's", 4},
    {"@step S\n@view decode\n@pane sample\n@src i love china\n@predict next\nx\n",
     "@predict next needs the output view", 6},
    {"@step S\n@stage enc.self.weights\n@src i love china\n@predict row books\nx\n",
     "@predict row books: the source has no such token (it reads: i love china; or #1..#3)", 5},
    {"@step S\n@stage dec.self.weights\n@src i love china\n@tgt 我 爱 中国\n@predict row #5\nx\n",
     "the decoder input has no such token (it reads: <bos> 我 爱 中国", 6},
    {"@step S\n@stage enc.self.weights\n@head all\n@src i love china\n@predict row love\nx\n", "set @head N", 6},
    {"@step S\n@stage enc.self.out\n@src i love china\n@predict row love\nx\n",
     "@predict row needs the heatmap of attention scores or weights", 5},
    {"@step S\n@stage enc.self.weights\n@view lines\n@src i love china\n@predict row love\nx\n",
     "not enc.self.weights in view lines", 6},
    {"@step S\n@view decode\n@pane beam\n@src i love china\n@predict next\nx\n", "@predict next needs the output view", 6},
    {"@step S\n@view matrix\n@stage enc.input\n@src i love china\n@predict next\nx\n", "@predict next needs the output view", 6},
    {"@step S\n@view output\n@predict next\nx\n", "@predict needs the sentence it is about: give @src", 4},
    {"@step S\n@stage enc.input\n@pane beam\nx\n", "@pane beam is the decode view's", 4},
    {"@step S\n@view decode\n@experiment ablate enc:2:0\nx\n", "ablate enc:2:0: the en2zh model has layers 0..1", 4},
    {"@step S\n@view decode\n@experiment ablate cross:0:8\nx\n", "ablate cross:0:8: the en2zh model has heads 0..7", 4},
    {"@step S\n@view decode\n@src i love china\n@experiment hide-src 3\nx\n",
     "@experiment hide-src 3: the source has 3 tokens (positions 0..2)", 5},
    {"@step S\n@view nonsense\nx\n", "unknown view 'nonsense'", 2},
    {"@step S\n@view decode\n@experiment no-residual no-ffn enc:1 no-ffn dec:0\nx\n", NULL, 0},
    {"@step S\n@view decode\n@experiment no-ffn dec:2\nx\n", "no-ffn dec:2: the en2zh model has layers 0..1", 4},
    {"@step S\n@view decode\n@pane gen\n@src i love china\n@tgt 我 爱 中国\n@force 1 你\nx\n", NULL, 0},
    {"@step S\n@view decode\n@src i love china\n@force 2 猫猫\nx\n", "@force 猫猫: not a token of the en2zh model's target vocabulary", 5},
    {"@step S\n@view output\n@src i love china\n@force 1 你\nx\n", "@force needs the decode view's generation pane", 5},
};

/* no-residual and no-ffn P:L (repeatable; twice the same is once). */
static void test_parse_residual_ffn(void **state)
{
    (void)state;
    static const char *TEXT = "@title T\n@step S\n@experiment no-ffn dec:1 no-residual no-ffn enc:0 no-ffn dec:1\nx\n";
    Lesson l;
    tu_lesson_parse(&l, TEXT, "x/05-new.txt");
    const TfExperiment *e = &l.steps[0].view.exp;
    expect_true(!l.steps[0].force_step, "no @force");
    expect_true(e->no_residual && e->n_no_ffn == 2 && tf_exp_ffn_off(e, TF_ATTN_DEC, 1) &&
                    tf_exp_ffn_off(e, TF_ATTN_ENC, 0) && !tf_exp_ffn_off(e, TF_ATTN_ENC, 1),
                "no-residual, FFNs dec:1 and enc:0 off; got %d, %d FFNs", e->no_residual, e->n_no_ffn);
    lesson_free(&l);
}

static void test_check(void **state)
{
    (void)state;
    tu_lesson_check_table(CHECKS, sizeof CHECKS / sizeof *CHECKS, MODEL, "chk/01-c.txt");
}

/* The answer of a @predict is the argmax of the weights row (also when the
 * scores are shown) and of the next-token probabilities. */
static void test_predict_answer(void **state)
{
    (void)state;
    TfModel m;
    TfErr err;
    expect_true(ckpt_load(&m, MODEL, &err) == 0, "%s loads: %s", MODEL, err.msg);
    TfTrace tr;
    expect_true(trace_build(&tr, &m.cfg, 1, 8, TRACE_RECORD, &err) == 0, "a trace: %s", err.msg);
    int src[3], S = vocab_encode(&m.src_vocab, "i love china", src, NULL, 3, NULL, &err);
    int tgt[4] = {TOK_BOS};
    int T = 1 + vocab_encode(&m.tgt_vocab, "我 爱 中国", tgt + 1, NULL, 3, NULL, &err);
    expect_true(S == 3 && T == 4, "the sentence has 3 and 1+3 tokens, got %d %d", S, T);
    TfBatch b = {1, S, T, src, tgt, &S, &T};
    expect_true(tf_forward(&m, &tr, &b, 0, &err) == 0, "the pass runs: %s", err.msg);
    LessonPredict p = {.kind = LESSON_PREDICT_ROW, .query = "love", .line = 1};
    int row = lesson_predict_row(&p, &tr, &m.src_vocab, 0, 0);
    expect_true(row == 1, "'love' is source row 2, got %d", row + 1);
    TfView w;
    expect_true(tf_view(&tr, ST_ENC_SELF_WEIGHTS, 1, 2, 0, &w, &err) == 0, "the weights: %s", err.msg);
    int best = 0;
    for (int c = 1; c < w.cols; c++)
        if (tf_view_at(&w, row, c) > tf_view_at(&w, row, best))
            best = c;
    expect_true(lesson_predict_answer(&tr, LESSON_PREDICT_ROW, ST_ENC_SELF_WEIGHTS, 1, 2, 0, row) == best &&
                    lesson_predict_answer(&tr, LESSON_PREDICT_ROW, ST_ENC_SELF_SCORES, 1, 2, 0, row) == best,
                "the answer is the weights' argmax %d for weights and scores", best);
    LessonPredict q = {.kind = LESSON_PREDICT_NEXT, .query = "我", .line = 1};
    row = lesson_predict_row(&q, &tr, &m.tgt_vocab, 1, 0);
    int next = lesson_predict_answer(&tr, LESSON_PREDICT_NEXT, -1, 0, 0, 0, row);
    expect_true(row == 1 && next >= 0 && strcmp(vocab_token(&m.tgt_vocab, next), "爱") == 0,
                "after '<bos> 我' the model writes 爱: row %d, got '%s'", row, next >= 0 ? vocab_token(&m.tgt_vocab, next) : "?");
    trace_free(&tr);
    model_free(&m);
}

/* The tokens offered never include the model's own padding and start
 * token, read from its specials: a MarianMT model (pad = start = 47,
 * </s> = 0, <unk> = 1) offers </s>, which ends the sentence, and never
 * its pad. */
static void test_predict_specials(void **state)
{
    (void)state;
    const char *dir = "tests/fixtures/marian/swish_f32";
    TfModel m;
    TfErr err;
    expect_true(tf_model_open(dir, &m, &err) == 0, "%s loads: %s", dir, err.msg);
    int V = m.cfg.tgt_vocab, pad = cfg_pad_id(&m.cfg), start = cfg_start_id(&m.cfg), eos = cfg_eos_id(&m.cfg);
    expect_true(V == 48 && pad == 47 && start == 47 && eos == 0, "the fixture's ids: V %d pad %d start %d eos %d",
                V, pad, start, eos);
    TfTrace tr;
    expect_true(trace_build(&tr, &m.cfg, 1, 8, TRACE_RECORD, &err) == 0, "a trace: %s", err.msg);
    int src[3] = {5, 6, eos}, tgt[3] = {start, 5, 6}, S = 3, T = 3;
    TfBatch b = {1, S, T, src, tgt, &S, &T};
    expect_true(tf_forward(&m, &tr, &b, 0, &err) == 0, "the pass runs: %s", err.msg);
    int ids[64];
    int n = lesson_predict_candidates(&tr, 0, 1, 7, ids, V);
    int has_eos = 0, has_unk = 0, has_pad = 0;
    for (int i = 0; i < n; i++) {
        has_eos |= ids[i] == eos;
        has_unk |= ids[i] == cfg_unk_id(&m.cfg);
        has_pad |= ids[i] == pad;
    }
    expect_true(n == V - 1 && has_eos && has_unk && !has_pad,
                "all but the pad/start id offered: %d of %d, </s> %d, <unk> %d, pad %d", n, V, has_eos, has_unk,
                has_pad);
    trace_free(&tr);
    model_free(&m);
}

/* Where the answer of a @predict next sits among the tokens offered. */
static int answer_at(const TfTrace *tr, int b, int row, unsigned seed, int answer, int *ids, int *n)
{
    *n = lesson_predict_candidates(tr, b, row, seed, ids, 6);
    for (int i = 0; i < *n; i++)
        if (ids[i] == answer)
            return i;
    return -1;
}

/* The tokens offered for @predict next are the six most probable, in an
 * order fixed by the step that gives nothing away: over many seeds the
 * argmax takes every position; over the shipped lessons' @predict next
 * steps it is not always at the same place (in the vocabulary's order 我
 * and 爱, the most frequent words, came first). */
static void test_predict_order(void **state)
{
    (void)state;
    static Session ses;
    TfErr err;
    expect_true(session_init(&ses, MODEL, 0, &err) == 0, "%s loads: %s", MODEL, err.msg);
    session_set_text(&ses, 0, "i love china");
    session_set_text(&ses, 1, "我 爱 中国");
    session_compute_all(&ses);
    int ans = lesson_predict_answer(&ses.trace, LESSON_PREDICT_NEXT, -1, 0, 0, 0, 0);
    int ids[6], first[6], n, seen[6] = {0};
    for (unsigned seed = 0; seed < 60; seed++) {
        int at = answer_at(&ses.trace, 0, 0, seed, ans, ids, &n);
        expect_true(n == 6 && at >= 0, "seed %u: six tokens, the argmax among them (at %d)", seed, at);
        seen[at]++;
        if (seed == 0)
            memcpy(first, ids, sizeof ids);
        for (int i = 0; i < 6; i++) { /* the same six tokens, only the order moves */
            int found = 0;
            for (int j = 0; j < 6; j++)
                found |= ids[i] == first[j];
            expect_true(found, "seed %u offers token %d, not among seed 0's", seed, ids[i]);
        }
        int again[6], m;
        answer_at(&ses.trace, 0, 0, seed, ans, again, &m);
        expect_true(m == n && memcmp(again, ids, sizeof ids) == 0, "seed %u gives the same order twice", seed);
    }
    for (int i = 0; i < 6; i++)
        expect_true(seen[i] > 0 && seen[i] < 60 * 4 / 10, "over 60 seeds the argmax is at position %d %d times",
                    i + 1, seen[i]);
    static const char *DIRS[2] = {"lessons/en", "lessons/zh"};
    int n_next = 0, pos[16];
    for (int k = 0; k < 2; k++) {
        LessonSet set;
        expect_true(lessons_load_dir(&set, DIRS[k], NULL, NULL, NULL) == 0, "%s loads", DIRS[k]);
        for (int li = 0; li < set.n; li++)
            for (int i = 0; i < set.lessons[li].n_steps; i++) {
                const LessonStep *st = &set.lessons[li].steps[i];
                if (st->predict.kind != LESSON_PREDICT_NEXT || n_next == 16)
                    continue;
                session_set_text(&ses, 0, st->view.src ? st->view.src : "");
                session_set_text(&ses, 1, st->view.tgt ? st->view.tgt : "");
                session_compute_all(&ses);
                int row = lesson_predict_row(&st->predict, &ses.trace, &ses.model.tgt_vocab, 1, 0);
                int a = lesson_predict_answer(&ses.trace, LESSON_PREDICT_NEXT, -1, 0, 0, 0, row);
                int at = answer_at(&ses.trace, 0, row, lesson_predict_seed(set.lessons[li].id, i), a, ids, &n);
                expect_true(at >= 0, "%s step %d: the answer is offered", set.lessons[li].path, i + 1);
                pos[n_next++] = at;
            }
        lessons_free(&set);
    }
    int same = 1;
    for (int i = 1; i < n_next; i++)
        same &= pos[i] == pos[0];
    expect_true(n_next >= 2 && !same, "over the lessons' %d @predict next steps the answer is not always at "
                "position %d", n_next, pos[0] + 1);
    session_free(&ses);
}

/* The whole check, as `lessons --check` runs it, on a tree of two
 * languages: a query not in the sentence by file and line, and a Chinese
 * @predict without the English one's @explain. */
static void test_check_all(void **state)
{
    (void)state;
    char dir[256], sub[300];
    expect_true(tu_scratch(dir, sizeof dir, "test-lesson-directives") == 0, "a scratch folder");
    const char *en = "@title T\n@summary S\n@step S\n@stage enc.self.weights\n@head 1\n@src i love china\n"
                     "@predict row books\n@explain E.\nx\n";
    const char *zh = "@title T\n@summary S\n@step S\n@stage enc.self.weights\n@head 1\n@src i love china\n"
                     "@predict row books\n文字\n";
    snprintf(sub, sizeof sub, "%s/en", dir);
    mkdir(sub, 0755);
    tu_write_text(sub, "01-p.txt", en);
    snprintf(sub, sizeof sub, "%s/zh", dir);
    mkdir(sub, 0755);
    tu_write_text(sub, "01-p.txt", zh);
    TuMsgs m = {0};
    int n = 0, bad = lessons_check_all(dir, tu_collect, &m, &n);
    char want_en[600], want_pair[600];
    snprintf(want_en, sizeof want_en, "%s/en/01-p.txt:7: @predict row books: the source has no such token", dir);
    snprintf(want_pair, sizeof want_pair, "%s/zh/01-p.txt:3: step 1's @predict or its @explain differs", dir);
    tu_scratch_remove(dir);
    expect_true(n == 2 && bad == 3 && strstr(m.text, want_en) && strstr(m.text, want_pair),
                "2 lessons, 3 problems (the query in both, the pair), got %d %d:\n%s", n, bad, m.text);
}

int main(void)
{
    TU_RUN(NULL, NULL, cmocka_unit_test(test_parse_good), cmocka_unit_test(test_parse_bad),
           cmocka_unit_test(test_check), cmocka_unit_test(test_predict_answer), cmocka_unit_test(test_predict_specials),
           cmocka_unit_test(test_predict_order), cmocka_unit_test(test_parse_residual_ffn),
           cmocka_unit_test(test_check_all));
}
