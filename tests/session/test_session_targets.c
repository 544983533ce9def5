/* test_session_targets.c - the target line types one target per sentence
 * of a batch, split at '|' like the source line: "a | b" teaches sentence 2
 * too (a padded target batch, where decoder self-attention combines the
 * causal and the padding masks); a blank piece keeps that sentence's greedy
 * translation; one sentence without '|' is sentence 1's target as before. */
#include <stdlib.h>
#include <string.h>

#include "session.h"
#include "test_app_util.h"
#include "test_util.h"

static char MODEL[160];

TU_MODEL_FIXTURE(MODEL, "session-targets.safetensors", 40, 24, 7)

static int id_of(const Session *s, const char *tok)
{
    return vocab_find(&s->model.tgt_vocab, tok, (int)strlen(tok));
}

static void test_one_target_per_sentence(void **state)
{
    (void)state;
    static Session s, g;
    TfErr err;
    expect_true(session_init(&s, MODEL, 0, &err) == 0 && session_init(&g, MODEL, 0, &err) == 0, "%s", err.msg);
    session_set_text(&s, 0, "t5 t6 | t7 t8 t9");
    session_set_text(&s, 1, "t10 t11 | t12");
    session_compute_all(&s);
    expect_true(!s.input_error[0], "%s", s.input_error);
    expect_true(s.n_src == 2 && !s.tgt_auto, "two sentences, the first typed");
    expect_true(s.tgt_n[0] == 3 && s.tgt_n[1] == 2, "tgt_n %d %d, want 3 2", s.tgt_n[0], s.tgt_n[1]);
    expect_true(s.tgt_ids[0][1] == id_of(&s, "t10") && s.tgt_ids[0][2] == id_of(&s, "t11") &&
                    s.tgt_ids[1][1] == id_of(&s, "t12"),
                "the typed ids");
    expect_true(s.pad.T == 3 && s.pad.tgt[3 + 2] == cfg_pad_id(&s.model.cfg), "sentence 2 padded to 3");
    expect_true(s.trace.tgt_len[1] == 2, "the decoder sees sentence 2's length: %d", s.trace.tgt_len[1]);

    /* a blank first piece: sentence 1 keeps its greedy target */
    session_set_text(&g, 0, "t5 t6 | t7 t8 t9");
    session_compute_all(&g);
    session_set_text(&s, 1, " | t12");
    session_compute_all(&s);
    expect_true(s.tgt_auto && s.tgt_n[0] == g.tgt_n[0] &&
                    memcmp(s.tgt_ids[0], g.tgt_ids[0], (size_t)g.tgt_n[0] * sizeof(int)) == 0,
                "sentence 1 greedy");
    expect_true(s.tgt_n[1] == 2 && s.tgt_ids[1][1] == id_of(&s, "t12"), "sentence 2 typed");

    /* no bar: sentence 1 only, as before */
    session_set_text(&s, 1, "t13");
    session_compute_all(&s);
    expect_true(!s.tgt_auto && s.tgt_n[0] == 2 && s.tgt_n[1] == g.tgt_n[1], "one target: sentence 1's");
    session_free(&s);
    session_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_one_target_per_sentence)};
    return cmocka_run_group_tests(tests, setup, teardown);
}
