/* test_lesson_force.c - a lesson step's @force N TOKEN in the window: the
 * decode view's generation is made to write TOKEN at step N and goes on
 * from there, while teacher forcing still reads the step's target (the
 * seed's 你-for-我 example); the next step without @force, and closing the
 * lesson, take the forced token back. */
#include <string.h>

#include "app.h"
#include "decode_host.h"
#include "decode_lab_state.h"
#include "lesson_ui.h"
#include "test_app_util.h"
#include "test_util.h"

static const char *LESSON =
    "@title Forcing\n"
    "@model tiny\n"
    "@step Forced\n"
    "@view decode\n"
    "@pane gen\n"
    "@src t5 t6 t7\n"
    "@tgt t8 t9\n"
    "@force 1 t4\n"
    "The first token is forced.\n"
    "@step Free\n"
    "Generation is its own again.\n";

TU_LESSON_HOME_GROUP("lesson-force", write_lessons)

static void write_lessons(void)
{
    tu_write_lesson(g_dir, "01-force.txt", LESSON);
}

/* Frames until the decode lab has its results. */
static const DecodeLab *settle(App *a)
{
    for (int i = 0; i < 200; i++) {
        tu_frame(a);
        const DecodeLab *L = dhost_lab(a);
        if (L && !L->busy && L->made && L->tf_n)
            return L;
    }
    return dhost_lab(a);
}

static void test_force_and_take_back(void **state)
{
    (void)state;
    static App a;
    tu_open_lessons(&a, g_dir, g_model, 0);
    expect_true(lesson_ui_open(&a, "force", 0) == 0, "lesson opens: %s", a.notice);
    const Vocab *tv = &a.ses.model.tgt_vocab;
    int t4 = vocab_find(tv, "t4", 2), t8 = vocab_find(tv, "t8", 2);
    const DecodeLab *L = settle(&a);
    expect_true(L && L->smp.force.n_force == 1 && L->smp.force.force[0].step == 0 &&
                    L->smp.force.force[0].token == t4,
                "step 1: one forced token, t4 at generation step 1 (got %d)", L ? L->smp.force.n_force : -1);
    expect_true(L->gen.n > 0 && L->gen.ids[0] == t4, "generation writes t4 first (got id %d, t4 is %d)",
                L->gen.n > 0 ? L->gen.ids[0] : -1, t4);
    expect_true(L->tf_n == 3 && L->tf_in[1] == t8, "teacher forcing still reads the target: t8 after <bos> (got %d)",
                L->tf_in[1]);
    ev_key(&a, KEY_PAGEDOWN, 0);
    L = settle(&a);
    expect_true(L->smp.force.n_force == 0, "step 2 has no @force: the token is taken back (%d)", L->smp.force.n_force);
    ev_key(&a, KEY_PAGEUP, 0);
    L = settle(&a);
    expect_true(L->smp.force.n_force == 1 && L->gen.ids[0] == t4, "back on step 1: forced again");
    lesson_ui_close(&a);
    L = settle(&a);
    expect_true(L->smp.force.n_force == 0, "closing the lesson takes it back");
    app_free(&a);
}

int main(void)
{
    TU_RUN(setup, teardown, cmocka_unit_test(test_force_and_take_back));
}
