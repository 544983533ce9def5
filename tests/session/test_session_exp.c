/* test_session_exp.c - the Session's two passes (normal and experiment),
 * with no window: the normal pass is computed once per input, whatever the
 * experiments toggled in between (a counter says how many were made),
 * stays bit-identical to a plain pass, and is made again when the input
 * changes; clearing the experiment leaves one pass again. */
#include <stdlib.h>
#include <string.h>

#include "session.h"
#include "test_app_util.h"
#include "test_util.h"

static char MODEL[160];

TU_MODEL_FIXTURE(MODEL, "session-exp.safetensors", 40, 24, 5)

static int same_view(const TfTrace *a, const TfTrace *b, StageId st, int layer, int head)
{
    TfView x, y;
    TfErr err;
    if (tf_view(a, st, layer, head, 0, &x, &err) || tf_view(b, st, layer, head, 0, &y, &err) || x.rows != y.rows ||
        x.cols != y.cols)
        return 0;
    for (int r = 0; r < x.rows; r++)
        if (memcmp(x.data + (size_t)r * x.stride, y.data + (size_t)r * y.stride, (size_t)x.cols * sizeof(float)))
            return 0;
    return 1;
}

static void test_normal_pass_once_per_input(void **state)
{
    (void)state;
    static Session s, plain;
    tu_session(&s, MODEL, "t5 t6 t7 t8", NULL);
    tu_session(&plain, MODEL, "t5 t6 t7 t8", NULL);
    expect_true(s.ext.base_passes == 0 && !session_has_exp(&s), "no experiment: no second pass");
    TfExperiment e = {0};
    TfExperiment steps[6];
    memset(steps, 0, sizeof steps);
    steps[0].no_scale = 1;
    steps[1] = steps[0];
    steps[1].no_pe = 1;
    steps[2] = steps[1];
    steps[2].no_causal = 1;
    steps[3] = steps[2];
    tf_exp_toggle_head(&steps[3], TF_ATTN_CROSS, 1, 2);
    steps[4] = steps[3];
    tf_exp_toggle_hide(&steps[4], 1);
    steps[5].no_pe = 1;
    for (int k = 0; k < 6; k++) {
        session_set_exp(&s, &steps[k]);
        session_compute_all(&s);
        expect_true(s.ext.have_base && s.ext.base_passes == 1, "after toggle %d: %u normal passes", k + 1, s.ext.base_passes);
        expect_true(tf_exp_equal(&s.trace.exp, &steps[k]), "the shown pass applies experiment %d", k + 1);
        expect_true(same_view(&s.ext.base, &plain.trace, ST_OUT_LOGITS, 0, -1) &&
                        same_view(&s.ext.base, &plain.trace, ST_DEC_CROSS_WEIGHTS, 1, 2),
                    "the normal pass is the plain pass, bit for bit");
    }
    expect_true(!same_view(&s.trace, &plain.trace, ST_OUT_LOGITS, 0, -1), "the experiment changes the logits");
    session_set_text(&s, 0, "t9 t10");
    session_compute_all(&s);
    expect_true(s.ext.base_passes == 2, "a new input: a new normal pass (%u)", s.ext.base_passes);
    session_set_exp(&s, &e);
    session_compute_all(&s);
    unsigned n = s.ext.base_passes;
    session_set_exp(&s, &steps[0]);
    session_compute_all(&s);
    expect_true(s.ext.base_passes == n, "back to an experiment on the same input: the kept pass (%u, %u)", n,
                s.ext.base_passes);
    session_free(&s);
    session_free(&plain);
}

/* After an edit the kept normal pass belongs to the old sentence: compare
 * mode must not draw it beside the new one until it is made again. */
static void test_base_follows_the_input(void **state)
{
    (void)state;
    static Session s;
    tu_session(&s, MODEL, NULL, NULL);
    TfExperiment e = {0};
    e.no_scale = 1;
    session_set_exp(&s, &e);
    session_set_text(&s, 0, "t5 t6 t7 t8");
    session_compute_all(&s);
    expect_true(session_base_ready(&s), "the normal pass of the input is ready");
    session_set_text(&s, 0, "t9 t10");
    expect_true(!session_base_ready(&s), "an edit: the old normal pass is not offered");
    s.lazy = 1;
    session_update(&s, SES_NEED_STAGE);
    expect_true(!session_base_ready(&s), "the new pass is only partly made: still not offered");
    session_compute_all(&s);
    expect_true(session_base_ready(&s) && s.ext.base.S == s.trace.S, "made again for the new input");
    session_free(&s);
}

/* Toggling an experiment decodes no greedy target again: each is kept for
 * its (model, source sentence); off again, the normal translation is back
 * at once. A changed sentence of the batch is decoded, the others not. */
static void test_targets_kept_across_experiments(void **state)
{
    (void)state;
    static Session s;
    tu_session(&s, MODEL, "t5 t6 t7 t8 | t9 t10", NULL);
    char normal[SES_TEXT_MAX];
    snprintf(normal, sizeof normal, "%s", s.translation);
    int tn = s.tgt_n[1], t1[SES_CAP_T];
    memcpy(t1, s.tgt_ids[1], sizeof t1);
    unsigned steps = s.gdec.steps;
    expect_true(steps > 0 && normal[0], "decoded: %u steps, «%s»", steps, normal);
    TfExperiment e = {0};
    e.no_pe = 1;
    session_set_exp(&s, &e);
    session_compute_all(&s);
    expect_true(s.gdec.steps == steps, "the experiment on: %u targets' steps run again", s.gdec.steps - steps);
    expect_true(strcmp(s.ext.base_translation, normal) == 0, "before: «%s» (want «%s»)", s.ext.base_translation, normal);
    char under[SES_TEXT_MAX];
    snprintf(under, sizeof under, "%s", s.translation);
    session_set_exp(&s, &(TfExperiment){0});
    session_update(&s, SES_NEED_STAGE);
    expect_true(s.gdec.steps == steps && strcmp(s.translation, normal) == 0,
                "off again: %u steps run, the translation «%s» (want «%s»)", s.gdec.steps - steps, s.translation,
                normal);
    /* the same experiment on again: its translation is kept too */
    unsigned pieces = s.ext.pieces;
    session_set_exp(&s, &e);
    session_compute_all(&s);
    expect_true(s.ext.pieces == pieces && !session_exp_pending(&s) && strcmp(s.translation, under) == 0,
                "on again: %u pieces run, «%s» (want «%s»)", s.ext.pieces - pieces, s.translation, under);
    session_set_exp(&s, &(TfExperiment){0});
    session_compute_all(&s);
    expect_true(s.tgt_n[1] == tn && memcmp(s.tgt_ids[1], t1, (size_t)tn * sizeof(int)) == 0,
                "sentence 2's target is the one decoded before");
    /* the typed target changes nothing of the greedy targets */
    session_set_text(&s, 1, "t7 t8");
    session_compute_all(&s);
    expect_true(s.gdec.steps == steps && !s.tgt_auto, "a typed target: %u steps", s.gdec.steps - steps);
    /* a new first sentence: only it is decoded */
    session_set_text(&s, 1, "");
    session_set_text(&s, 0, "t6 t5 | t9 t10");
    session_compute_all(&s);
    unsigned more = s.gdec.steps - steps;
    expect_true(more > 0 && s.tgt_n[1] == tn && memcmp(s.tgt_ids[1], t1, (size_t)tn * sizeof(int)) == 0,
                "a new first sentence: %u steps, the second's target kept", more);
    /* the same as decoding it afresh */
    static Session f;
    tu_session(&f, MODEL, "t6 t5 | t9 t10", NULL);
    expect_true(strcmp(f.translation, s.translation) == 0 && f.tgt_n[0] == s.tgt_n[0] &&
                    memcmp(f.tgt_ids[0], s.tgt_ids[0], (size_t)f.tgt_n[0] * sizeof(int)) == 0,
                "fresh «%s», kept «%s»", f.translation, s.translation);
    session_free(&f);
    session_free(&s);
}

int main(void)
{
    TU_RUN(setup, teardown, cmocka_unit_test(test_normal_pass_once_per_input),
           cmocka_unit_test(test_base_follows_the_input), cmocka_unit_test(test_targets_kept_across_experiments));
}
