/* test_finite.c - a pass that overflows float is caught and located:
 * tf_check_finite names the first stage, layer and head where NaN or
 * infinity appears, in the order the model computes them. */
#include <string.h>

#include "finite.h"
#include "model.h"
#include "test_util.h"


static int run(const TfModel *m, TfTrace *tr, int flags, TfErr *err)
{
    int src[4] = {4, 5, 6, 7}, tgt[3] = {TOK_BOS, 8, 9}, S = 4, T = 3;
    expect_true(trace_build(tr, &m->cfg, 1, 8, flags, err) == 0, "build: %s", err->msg);
    TfBatch b = {1, S, T, src, tgt, &S, &T};
    expect_true(tf_forward(m, tr, &b, 0, err) == 0, "forward: %s", err->msg);
    return tf_check_finite(tr, err);
}

typedef struct Case {
    const char *what;
    int layer;        /* encoder layer whose W_Q and W_K are blown up, -1 none */
    float scale, gen; /* that scale; the output projection's scale */
    int flags;
    const char *want; /* part of the message, NULL: finite */
} Case;

static void test_first_non_finite_stage(void **state)
{
    (void)state;
    static const Case cases[] = {
        {"a normal model", -1, 1, 1, TRACE_RECORD, NULL},
        /* NaN scores give zero weights: the logits stay finite, the
         * check still finds the scores */
        {"W_Q, W_K x 1e25 in layer 2", 1, 1e25f, 1, TRACE_RECORD, "enc.self.scores, layer 2, head 1"},
        {"W_Q, W_K x 1e25 in layer 1", 0, 1e25f, 1, TRACE_RECORD, "enc.self.scores, layer 1, head 1"},
        {"output biases 3.4e38, weights x 1e37", -1, 1, 1e37f, TRACE_RECORD, "at out.logits"},
        {"not recorded: the logits", -1, 1, 1e37f, 0, "in out.logits"},
        {"not recorded, finite logits", 0, 1e25f, 1, 0, NULL},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const Case *c = &cases[k];
        TfModel m;
        tu_model(&m, 3, 16, 2, 16, 2, 2, 12, 12, 16);
        if (c->layer >= 0) {
            LayerParams lp = params_enc_layer(&m.p, &m.cfg, c->layer);
            size_t C = (size_t)m.cfg.d_model;
            for (size_t i = 0; i < 2 * C * C; i++) /* the W_Q and W_K rows */
                lp.sa.qkv_w[i] *= c->scale;
        }
        /* output biases at the top of float's range and larger weights:
         * the logits overflow to infinity */
        for (size_t i = 0; c->gen > 1 && i < (size_t)m.cfg.tgt_vocab * m.cfg.d_model; i++)
            m.p.gen_w[i] *= c->gen;
        for (int i = 0; c->gen > 1 && i < m.cfg.tgt_vocab; i++)
            m.p.gen_b[i] = 3.4e38f;
        TfTrace tr;
        TfErr err = {{0}};
        int rc = run(&m, &tr, c->flags, &err);
        if (!c->want)
            expect_true(rc == 0, "%s: finite, got \"%s\"", c->what, err.msg);
        else
            expect_true(rc < 0 && strstr(err.msg, c->want) && strstr(err.msg, "too large"),
                        "%s: want \"%s\" in \"%s\"", c->what, c->want, err.msg);
        printf("  %s -> %s\n", c->what, rc ? err.msg : "finite");
        trace_free(&tr);
        model_free(&m);
    }
}

int main(void)
{
    TU_RUN(NULL, NULL, cmocka_unit_test(test_first_non_finite_stage));
}
