/* test_session_targets.c - the target line types one target per sentence
 * of a batch, split at '|' like the source line: "a | b" teaches sentence 2
 * too (a padded target batch, where decoder self-attention combines the
 * causal and the padding masks); a blank piece keeps that sentence's greedy
 * translation; one sentence without '|' is sentence 1's target as before.
 * And what the session keeps so that no target is decoded twice
 * (session_keep.c):
 *   - a sentence's target key is the same for the same source ids and model,
 *     another for other ids or a new model, and never 0;
 *   - a kept greedy target is found under its key only, and forgotten;
 *   - the translations under experiments: found for (key, experiment) only,
 *     the oldest giving way when SES_KEEP_EXP + 1 are kept. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session.h"
#include "session_int.h"
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
    tu_session(&g, MODEL, NULL, NULL);
    tu_session(&s, MODEL, "t5 t6 | t7 t8 t9", "t10 t11 | t12");
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

static void test_target_keys(void **state)
{
    (void)state;
    static Session s;
    tu_session(&s, MODEL, "t5 t6 | t7 t8 t9 | t5 t6", NULL);
    expect_true(!s.input_error[0] && s.n_src == 3, "three sentences: %s", s.input_error);
    uint64_t k0 = ses_target_key(&s, 0), k1 = ses_target_key(&s, 1), k2 = ses_target_key(&s, 2);
    expect_true(k0 && k1 && k0 != k1 && k0 == k2, "same ids, same key; other ids, another (%llx %llx %llx)",
                (unsigned long long)k0, (unsigned long long)k1, (unsigned long long)k2);
    uint64_t in = ses_input_key(&s);
    session_set_text(&s, 0, "t5 t6 | t7 t8 t9 | t5 t7");
    session_compute_all(&s);
    expect_true(ses_target_key(&s, 0) == k0 && ses_input_key(&s) != in,
                "another third sentence: sentence 1's key stays, the input's changes");
    expect_true(session_load_model(&s, MODEL) >= 0, "the same file again is a new model");
    session_set_text(&s, 0, "t5 t6");
    session_compute_all(&s);
    expect_true(ses_target_key(&s, 0) != k0, "a new model, a new key");
    session_free(&s);
}

static void test_kept_targets(void **state)
{
    (void)state;
    static SesTargets t;
    int ids[3] = {1, 9, 4};
    memset(&t, 0, sizeof t);
    expect_true(!ses_targets_has(&t, 1, 77) && !ses_targets_has(&t, 1, 0), "nothing kept at first");
    ses_targets_keep(&t, 1, 77, ids, 3);
    expect_true(ses_targets_has(&t, 1, 77) && !ses_targets_has(&t, 1, 78) && !ses_targets_has(&t, 0, 77),
                "found under its key and sentence only");
    expect_true(t.n[1] == 3 && memcmp(t.ids[1], ids, sizeof ids) == 0, "the ids kept");
    ses_targets_forget(&t, 1);
    expect_true(!ses_targets_has(&t, 1, 77), "forgotten");
}

static void test_kept_translations(void **state)
{
    (void)state;
    static SesExpKept k;
    memset(&k, 0, sizeof k);
    TfExperiment e[SES_KEEP_EXP + 1];
    char text[16];
    for (int i = 0; i <= SES_KEEP_EXP; i++) {
        memset(&e[i], 0, sizeof e[i]);
        e[i].n_hide = 1;
        e[i].hide_src[0] = i; /* hide position i: another experiment each */
        snprintf(text, sizeof text, "t%d", i);
        ses_kept_put(&k, 5, &e[i], text);
    }
    expect_true(ses_kept_find(&k, 5, &e[0]) == NULL, "the oldest gave way");
    for (int i = 1; i <= SES_KEEP_EXP; i++) {
        const char *got = ses_kept_find(&k, 5, &e[i]);
        snprintf(text, sizeof text, "t%d", i);
        expect_true(got && strcmp(got, text) == 0, "experiment %d: «%s», got «%s»", i, text, got ? got : "(none)");
    }
    expect_true(ses_kept_find(&k, 6, &e[1]) == NULL, "another sentence key: nothing");
}

int main(void)
{
    TU_RUN(setup, teardown, cmocka_unit_test(test_one_target_per_sentence), cmocka_unit_test(test_target_keys),
           cmocka_unit_test(test_kept_targets), cmocka_unit_test(test_kept_translations));
}
