/* test_lesson_predict.c - the teaching directives (@predict, @view cost, @pane) in the window, by
 * synthetic events on a headless renderer:
 *
 *   @predict row   the query row of the heatmap is covered (one colour, no
 *                  value in the status line) until a cell of it is clicked;
 *                  a wrong cell is scored wrong, once (a second click
 *                  changes nothing), then the row shows its own colours; a
 *                  right click is kept in the progress file like a quiz
 *   @predict next  the output view is covered by the tokens offered; the
 *                  argmax is among them; clicking it scores right
 *   @experiment    sets the Session's experiment and D mode; `none` and
 *                  leaving the lesson clear it
 *   @pane          switches the decode view's pane, and the panel a narrow
 *                  PE view shows (rotation, waves) */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app.h"
#include "lesson_ui.h"
#include "test_app_util.h"
#include "test_util.h"
#include "view.h"
#include "decode_host.h"
#include "view_decode.h"
#include "view_pe_base.h"
#include "view_train.h"
#include "train_host.h"


static const char *LESSON =
    "@title Predict\n"
    "@summary For the tests.\n"
    "@model tiny\n"
    "@step Row\n"
    "@stage enc.self.weights\n"
    "@layer 2\n"
    "@head 3\n"
    "@src t5 t6 t7\n"
    "@predict row t6\n"
    "@explain An explanation.\n"
    "Guess.\n"
    "@step Next\n"
    "@view output\n"
    "@tgt t8 t9\n"
    "@predict next t8\n"
    "Guess the next one.\n"
    "@step Experiment\n"
    "@view decode\n"
    "@pane beam\n"
    "@experiment no-scale ablate enc:1:2 compare\n"
    "The beam.\n"
    "@step None\n"
    "@pane step\n"
    "@experiment none\n"
    "Back to normal.\n"
    "@step Too many heads\n"
    "@experiment ablate enc:1:9\n"
    "This model has 4 heads.\n"
    "@step Choices\n"
    "@experiment none\n"
    "@view matrix\n"
    "@stage enc.self.weights\n"
    "Which translation?\n"
    "@predict output\n"
    "@choice t10 t11\n"
    "@answer t8 t9\n"
    "@choice t9\n"
    "@step Cell\n"
    "@stage enc.self.weights\n"
    "@layer 2\n"
    "@head 3\n"
    "How much?\n"
    "@predict number cell t6 t7\n"
    "@choice 0.1\n"
    "@answer 0.9\n"
    "@choice 0.5\n"
    "@step Rotation\n"
    "@stage pos.enc\n"
    "@layer 1\n"
    "@view pe\n"
    "@pane rotation\n"
    "The circle.\n"
    "@step Waves\n"
    "@pane waves\n"
    "The waves.\n"
    "@step Train\n"
    "@view train\n"
    "@train reverse heads 1\n"
    "One head.\n";

TU_LESSON_HOME_GROUP("predict", write_lessons)

static void write_lessons(void)
{
    tu_write_lesson(g_dir, "01-predict.txt", LESSON);
}

static void open_at(App *a, int step)
{
    tu_open_lessons(a, g_dir, g_model, -2);
    expect_true(lesson_ui_open(a, "predict", step) == 0, "the lesson opens: %s", a->notice);
    tu_frame(a);
}

/* The same, and the step's prediction into *ps: 1 when it has one. */
static int open_predict(App *a, int step, LessonPredictState *ps)
{
    open_at(a, step);
    return lesson_ui_predict_state(a, ps);
}

/* The middle of cell (row, col) of the heatmap drawn last, and a point
 * off the "?" in it. */
static void cell_point(const App *a, int row, int col, int *x, int *y, int off)
{
    *x = a->heat.grid.x + (int)((col + (off ? 0.2f : 0.5f)) * a->heat.cw);
    *y = a->heat.grid.y + (int)((row + (off ? 0.25f : 0.5f)) * a->heat.ch);
}

/* The colours of the row's cells in a frame drawn now. */
static void row_pixels(App *a, int row, uint32_t *px, int n)
{
    a->now += 0.5;
    app_draw(a, tu_ren);
    for (int c = 0; c < n; c++) {
        int x, y;
        cell_point(a, row, c, &x, &y, 1);
        ren_read_pixels(tu_ren, (Rect){x, y, 1, 1}, &px[c]);
    }
    ren_end(tu_ren);
}

static void test_row_wrong_then_right(void **state)
{
    (void)state;
    static App a;
    LessonPredictState ps;
    expect_true(open_predict(&a, 0, &ps) && ps.kind == LESSON_PREDICT_ROW && ps.row == 1 && ps.picked < 0,
                "step 1 hides row 2 (t6) and waits, got kind %d row %d picked %d", ps.kind, ps.row + 1, ps.picked);
    expect_true(a.heat.valid && a.heat.cols == 3, "a 3-column heatmap was drawn: valid %d cols %d", a.heat.valid,
                a.heat.cols);
    uint32_t before[3], after[3], other[3];
    row_pixels(&a, 1, before, 3);
    row_pixels(&a, 0, other, 3);
    expect_true(before[0] == before[1] && before[1] == before[2],
                "the hidden row is one colour: %08x %08x %08x", before[0], before[1], before[2]);
    expect_true(other[0] != other[1] || other[1] != other[2], "the other rows show their weights: %08x %08x %08x",
                other[0], other[1], other[2]);
    /* hovering the hidden row tells nothing in the status line */
    int x, y;
    cell_point(&a, 1, ps.answer, &x, &y, 0);
    ev_mouse(&a, IN_MOUSE_MOVE, x, y, 0);
    tu_frame(&a);
    expect_true(!a.hover.valid, "no value under the mouse on the hidden row");
    int wrong = (ps.answer + 1) % 3;
    cell_point(&a, 1, wrong, &x, &y, 0);
    tu_click(&a, x, y);
    lesson_ui_predict_state(&a, &ps);
    expect_true(ps.picked == wrong, "the click on column %d is the pick, got %d", wrong + 1, ps.picked + 1);
    int reached;
    unsigned long long right;
    lesson_ui_progress(&a, "predict", &reached, &right);
    expect_true(!(right & 1u), "a wrong prediction scores nothing: bits %llx", right);
    cell_point(&a, 1, ps.answer, &x, &y, 0);
    tu_click(&a, x, y);
    lesson_ui_predict_state(&a, &ps);
    expect_true(ps.picked == wrong && lesson_ui_predict(&a, ps.answer) == -1,
                "a prediction is made once: still %d", ps.picked + 1);
    row_pixels(&a, 1, after, 3);
    expect_true(after[0] != before[0] || after[1] != before[1] || after[2] != before[2],
                "revealed: the row shows its own colours: %08x %08x %08x", after[0], after[1], after[2]);
    app_free(&a);

    /* a new learner's session: the right cell */
    static App b;
    open_predict(&b, 0, &ps);
    expect_true(ps.picked < 0, "a new session starts unpicked (%d)", ps.picked);
    cell_point(&b, 1, ps.answer, &x, &y, 0);
    tu_click(&b, x, y);
    lesson_ui_predict_state(&b, &ps);
    expect_true(ps.picked == ps.answer, "the right cell is picked: %d of %d", ps.picked + 1, ps.answer + 1);
    lesson_ui_progress(&b, "predict", &reached, &right);
    expect_true(right & 1u, "scored right in the progress: bits %llx", right);
    app_free(&b);
    static App c; /* kept in the progress file */
    open_at(&c, 0);
    lesson_ui_progress(&c, "predict", &reached, &right);
    expect_true(right & 1u, "the progress file keeps it: bits %llx", right);
    app_free(&c);
}

static void test_next_token(void **state)
{
    (void)state;
    static App a;
    LessonPredictState ps;
    expect_true(open_predict(&a, 1, &ps) && ps.kind == LESSON_PREDICT_NEXT && ps.row == 1,
                "step 2 asks for the token after t8 (row 2), got kind %d row %d", ps.kind, ps.row + 1);
    int ids[LESSON_PREDICT_CAND];
    Rect rc[LESSON_PREDICT_CAND];
    int n = lesson_ui_predict_candidates(&a, ids, rc), at = -1;
    for (int i = 0; i < n; i++)
        if (ids[i] == ps.answer)
            at = i;
    expect_true(n == LESSON_PREDICT_CAND && at >= 0, "%d tokens offered, the argmax %d among them (at %d)", n,
                ps.answer, at);
    int want[LESSON_PREDICT_CAND];
    int m = lesson_predict_candidates(&a.ses.trace, 0, ps.row, lesson_predict_seed("predict", 1), want,
                                      LESSON_PREDICT_CAND);
    expect_true(m == n && memcmp(want, ids, sizeof want) == 0,
                "offered in the step's shuffled order (lesson_predict_candidates), %d of %d", n, m);
    for (int y = 200; y < 700; y += 50) { /* the covered view tells nothing under the mouse */
        ev_mouse(&a, IN_MOUSE_MOVE, 500, y, 0);
        tu_frame(&a);
        expect_true(!a.hover.valid, "no value in the status line at (500, %d): '%s'", y, a.hover.where);
    }
    expect_true(lesson_ui_hides_output(&a), "the Target line and the status line hide the translation");
    tu_click(&a, rc[at].x + rc[at].w / 2, rc[at].y + rc[at].h / 2);
    lesson_ui_predict_state(&a, &ps);
    expect_true(ps.picked == ps.answer, "the click picks it: %d vs %d", ps.picked, ps.answer);
    expect_true(!lesson_ui_hides_output(&a), "revealed: they show it again");
    expect_true(lesson_ui_predict_candidates(&a, NULL, NULL) == 0, "revealed: the tokens are no longer offered");
    app_free(&a);
}

/* The window loop draws a frame after each event and then sleeps until
 * app_next_wake_ms says: the frame that handles the click (drawn before the
 * click's effect, in immediate mode) must ask for the next at once, which
 * shows the revealed row with the mouse still (S3). */
static void test_click_reveals_without_a_move(void **state)
{
    (void)state;
    static App a;
    LessonPredictState ps;
    open_predict(&a, 0, &ps);
    uint32_t before[3], after[3];
    row_pixels(&a, 1, before, 3);
    int x, y;
    cell_point(&a, 1, ps.answer, &x, &y, 0);
    ev_mouse(&a, IN_MOUSE_MOVE, x, y, 0);
    tu_frame(&a);
    ev_mouse(&a, IN_MOUSE_DOWN, x, y, 1);
    tu_frame(&a); /* the press picks the cell while the frame is built */
    lesson_ui_predict_state(&a, &ps);
    expect_true(ps.picked == ps.answer, "picked by the press");
    int wait = app_next_wake_ms(&a);
    expect_true(wait >= 0 && wait <= 16, "the next frame comes at once, not on the next event: %d ms", wait);
    ev_mouse(&a, IN_MOUSE_UP, x, y, 1);
    tu_frame(&a);
    wait = app_next_wake_ms(&a);
    expect_true(wait >= 0 && wait <= 16, "after the release too: %d ms", wait);
    row_pixels(&a, 1, after, 3); /* that frame, the mouse not moved */
    expect_true(after[0] != before[0] || after[1] != before[1] || after[2] != before[2],
                "the row is revealed: %08x %08x %08x", after[0], after[1], after[2]);
    tu_frame(&a);
    a.notice[0] = 0;
    tu_frame(&a);
    expect_true(app_next_wake_ms(&a) < 0 || app_next_wake_ms(&a) > 16, "idle again once nothing changes: %d ms",
                app_next_wake_ms(&a));
    app_free(&a);
}

/* A @predict with choices: the view is covered until the learner picks by
 * a number key (the position shown), scored once against the @answer. */
static void test_choices(void **state)
{
    (void)state;
    static App a;
    LessonPredictState ps;
    expect_true(open_predict(&a, 5, &ps) && ps.kind == LESSON_PREDICT_OUTPUT && ps.answer == 1 &&
                    ps.picked < 0,
                "step 6 predicts the output, answer choice 2, got kind %d answer %d", ps.kind, ps.answer);
    expect_true(lesson_ui_hides_output(&a), "the translation is hidden");
    for (int y = 200; y < 700; y += 100) {
        ev_mouse(&a, IN_MOUSE_MOVE, 500, y, 0);
        tu_frame(&a);
        expect_true(!a.hover.valid, "the covered view tells nothing at (500, %d)", y);
    }
    int order[LESSON_MAX_CHOICES], pos = 0;
    lesson_ui_quiz_order(&a, order);
    while (order[pos] != 1)
        pos++;
    ev_key(&a, '1' + pos, 0);
    tu_frame(&a);
    lesson_ui_predict_state(&a, &ps);
    expect_true(ps.picked == 1 && !lesson_ui_hides_output(&a), "key %d picks the answer and reveals", pos + 1);
    ev_key(&a, '1' + (pos + 1) % 3, 0);
    lesson_ui_predict_state(&a, &ps);
    expect_true(ps.picked == 1, "a second pick changes nothing");
    app_free(&a);
}

/* @predict number cell on a weights heatmap: the whole row is covered (its
 * other cells would give the sum away) until the pick; past the last step
 * the lesson-end screen covers and hides nothing. */
static void test_number_cell(void **state)
{
    (void)state;
    static App a;
    LessonPredictState ps;
    expect_true(open_predict(&a, 6, &ps) && ps.kind == LESSON_PREDICT_NUMBER && ps.picked < 0,
                "step 7 predicts a number");
    uint32_t before[3], after[3];
    row_pixels(&a, 1, before, 3);
    expect_true(before[0] == before[1] && before[1] == before[2], "the row of t6 is covered: %08x %08x %08x", before[0],
                before[1], before[2]);
    expect_true(!lesson_ui_hides_output(&a), "a number hides no translation");
    lesson_ui_predict(&a, 1);
    tu_frame(&a);
    row_pixels(&a, 1, after, 3);
    expect_true(after[0] != before[0] || after[1] != before[1] || after[2] != before[2], "revealed after the pick");
    for (int k = 0; k < 4; k++) /* the two PE steps, the Train step, then the end */
        lesson_ui_step(&a, 1);
    int right = -1, total = -1;
    expect_true(lesson_ui_summary(&a, &right, &total) && total == 4 && right == 1 && !lesson_ui_predict_state(&a, &ps),
                "the end screen: 1 of 4 right (only this one was answered), got %d of %d", right, total);
    app_free(&a);
}

static void test_experiment_and_pane(void **state)
{
    (void)state;
    static App a;
    open_at(&a, 2);
    expect_true(a.ses.exp.no_scale && a.ses.exp.n_ablate == 1 && a.ses.exp.ablate[0].layer == 1 &&
                    a.ses.exp.ablate[0].head == 2 && a.cmp == CMP_DIFF,
                "step 3 sets no-scale, ablates enc:1:2 and shows the difference: %d %d cmp %d", a.ses.exp.no_scale,
                a.ses.exp.n_ablate, a.cmp);
    DecodeUi *d = a.vstate[VIEW_DECODE];
    expect_true(app_current_view(&a) == VIEW_DECODE && d && d->pane == DEC_PANE_BEAM, "the decode view's beam pane");
    lesson_ui_step(&a, 1);
    tu_frame(&a);
    expect_true(!session_has_exp(&a.ses) && a.cmp == CMP_EXP, "@experiment none clears it");
    expect_true(d->pane == DEC_PANE_STEP, "@pane step, got %d", d->pane);
    app_notice(&a, 0, "%s", "an old notice");
    a.now += 30; /* long gone */
    lesson_ui_step(&a, -1);
    tu_frame(&a);
    expect_true(session_has_exp(&a.ses), "back on step 3 the experiment is on again");
    expect_true(!(a.now < a.notice_until && strcmp(a.notice, "an old notice") == 0),
                "an old notice does not come back with the step's experiment: '%s' for %.1f s", a.notice,
                a.notice_until - a.now);
    lesson_ui_step(&a, 2);
    tu_frame(&a);
    expect_true(!session_has_exp(&a.ses) && a.notice_error && a.now < a.notice_until &&
                    strstr(a.notice, "01-predict.txt:") && strstr(a.notice, "does not fit"),
                "an @experiment the model cannot do is left off with its line named: exp %d, '%s'",
                session_has_exp(&a.ses), a.notice);
    lesson_ui_close(&a);
    expect_true(!session_has_exp(&a.ses) && a.cmp == CMP_EXP, "leaving the lesson leaves its experiment");
    /* a learner's own experiment is not touched by a lesson without any */
    app_free(&a);
}

static void test_pe_panel(void **state)
{
    (void)state;
    static App a;
    open_at(&a, 7);
    PeUi *pe = a.vstate[VIEW_PE];
    expect_true(app_current_view(&a) == VIEW_PE && pe && pe->panel == PANEL_ROT,
                "@pane rotation: the PE view's rotation panel, got view %d panel %d", app_current_view(&a),
                pe ? pe->panel : -1);
    lesson_ui_step(&a, 1);
    tu_frame(&a);
    expect_true(pe->panel == PANEL_WAVES, "@pane waves, got %d", pe->panel);
    app_free(&a);
}

/* @train: the Train view's next run is the reverse task with one head,
 * not started (the learner starts it). */
static void test_train_settings(void **state)
{
    (void)state;
    static App a;
    open_at(&a, 9);
    TrainUi *u = tv_state(a.vstate[VIEW_TRAIN]);
    TrainChoice c;
    tv_choice(u, &c);
    expect_true(app_current_view(&a) == VIEW_TRAIN && strcmp(c.task, "reverse") == 0 && c.n_heads == 1,
                "@train reverse heads 1: the next run's task '%s', %d heads", c.task, c.n_heads);
    expect_true(!a.train || a.train->st.step == 0, "nothing trained yet");
    app_free(&a);
}

int main(void)
{
    TU_RUN(setup, teardown, cmocka_unit_test(test_row_wrong_then_right), cmocka_unit_test(test_next_token),
           cmocka_unit_test(test_click_reveals_without_a_move), cmocka_unit_test(test_choices), cmocka_unit_test(test_number_cell),
           cmocka_unit_test(test_experiment_and_pane), cmocka_unit_test(test_pe_panel),
           cmocka_unit_test(test_train_settings));
}
