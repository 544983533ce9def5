/* test_patch.c - activation patching (experiment.h: patch): one head's
 * output taken from another pass, against an oracle written here. For each
 * attention (enc, dec, cross) of a post-LN and a pre-LN model:
 *   - patching a head with its own pass's output changes no bit;
 *   - patching it with zeros is exactly --ablate;
 *   - patched from another sentence, the head's columns of concat are the
 *     donor's, the other heads' columns are the normal pass's, and the
 *     block's output is W_O . concat + b (recomputed here in double), while
 *     the logits move. */
#include <math.h>

#include "experiment.h"
#include "headstats.h"
#include "model.h"
#include "params.h"
#include "test_util.h"

static const int SRC_A[5] = {4, 5, 6, 7, 8}, SRC_B[5] = {9, 10, 11, 4, 12}, TGT[4] = {1, 5, 9, 6};

static AttnAct *block(TfTrace *tr, TfHeadRef h)
{
    return h.kind == TF_ATTN_ENC ? &tr->enc[h.layer].sa : h.kind == TF_ATTN_DEC ? &tr->dec[h.layer].sa
                                                                               : &tr->dec[h.layer].ca;
}

static void run(const TfModel *m, TfTrace *tr, const int *src, const TfExperiment *e)
{
    TfErr err;
    int S = 5, T = 4;
    TfBatch b = {1, S, T, src, TGT, &S, &T};
    tr->exp = *e;
    expect_true(tf_forward(m, tr, &b, 0, &err) == 0, "forward: %s", err.msg);
}

static void test_patch_oracle(void **state)
{
    (void)state;
    for (int pre = 0; pre < 2; pre++) {
        TfConfig c = tu_config((TuSize){16, 4, 24, 2, 2, 14, 14, 16});
        c.norm = pre ? TF_NORM_PRE : TF_NORM_POST;
        TfModel m;
        TfErr err;
        expect_true(model_init_random(&m, &c, 21, &err) == 0, "model");
        int C = c.d_model, dk = C / c.n_heads, V = c.tgt_vocab;
        TfTrace a, b, p;
        expect_true(trace_build(&a, &c, 1, 8, TRACE_RECORD, &err) == 0 && trace_build(&b, &c, 1, 8, TRACE_RECORD, &err) == 0 &&
                        trace_build(&p, &c, 1, 8, TRACE_RECORD, &err) == 0,
                    "traces");
        TfExperiment none;
        memset(&none, 0, sizeof none);
        run(&m, &a, SRC_A, &none); /* the normal pass */
        run(&m, &b, SRC_B, &none); /* the donor */
        for (int kind = 0; kind < 3; kind++) {
            TfHeadRef h = {kind, 1, 2};
            int rows = kind == TF_ATTN_ENC ? 5 : 4;
            static float own[8 * 16], zeros[8 * 16], donor[8 * 16];
            memcpy(own, block(&a, h)->heads, (size_t)rows * C * sizeof(float));
            memcpy(donor, block(&b, h)->heads, (size_t)rows * C * sizeof(float));
            memset(zeros, 0, sizeof zeros);
            TfExperiment e = none;
            e.patch = h;
            e.patch_rows = rows;
            /* its own output: not a bit changes */
            e.patch_heads = own;
            run(&m, &p, SRC_A, &e);
            expect_true(memcmp(p.logits, a.logits, (size_t)4 * V * sizeof(float)) == 0,
                        "%s %s: patched with its own output, the logits are the normal pass's",
                        pre ? "pre-LN" : "post-LN", tf_attn_kind_name((TfAttnKind)kind));
            /* zeros: exactly the ablation */
            e.patch_heads = zeros;
            run(&m, &p, SRC_A, &e);
            TfTrace q;
            expect_true(trace_build(&q, &c, 1, 8, TRACE_RECORD, &err) == 0, "trace");
            TfExperiment ab = none;
            ab.n_ablate = 1;
            ab.ablate[0] = h;
            run(&m, &q, SRC_A, &ab);
            expect_true(memcmp(p.logits, q.logits, (size_t)4 * V * sizeof(float)) == 0,
                        "%s: patched with zeros = ablated", tf_attn_kind_name((TfAttnKind)kind));
            trace_free(&q);
            /* the donor's: its columns, the others', and W_O in double */
            e.patch_heads = donor;
            run(&m, &p, SRC_A, &e);
            const AttnAct *pa = block(&p, h), *na = block(&a, h);
            int bad_cols = 0;
            for (int r = 0; r < rows; r++)
                for (int j = 0; j < C; j++) {
                    float want = j / dk == h.head ? donor[r * C + j] : na->heads[r * C + j];
                    bad_cols += pa->heads[r * C + j] != want; /* layer 1's input is the normal pass's */
                }
            expect_true(bad_cols == 0, "%s: concat = the donor's head beside the normal heads (%d off)",
                        tf_attn_kind_name((TfAttnKind)kind), bad_cols);
            LayerParams W = kind == TF_ATTN_ENC ? params_enc_layer(&m.p, &c, h.layer) : params_dec_layer(&m.p, &c, h.layer);
            const float *ow = kind == TF_ATTN_CROSS ? W.ca.o_w : W.sa.o_w, *ob = kind == TF_ATTN_CROSS ? W.ca.o_b : W.sa.o_b;
            float want_out[8 * 16];
            for (int r = 0; r < rows; r++)
                for (int o = 0; o < C; o++) {
                    double s = ob[o];
                    for (int j = 0; j < C; j++)
                        s += (double)ow[o * C + j] * pa->heads[r * C + j];
                    want_out[r * C + o] = (float)s;
                }
            check_close("W_O . patched concat + b", pa->out, want_out, (size_t)rows * C, 1e-5f, 1e-5f);
            double moved = 0;
            for (int i = 0; i < 4 * V; i++)
                moved = fmax(moved, fabs(p.logits[i] - a.logits[i]));
            expect_true(moved > 1e-4, "%s: the patch moves the logits (%.3g)", tf_attn_kind_name((TfAttnKind)kind),
                        moved);
            char d[128];
            tf_exp_describe(&e, d, sizeof d);
            expect_true(strstr(d, "patch") != NULL && !tf_exp_is_none(&e) && !tf_exp_equal(&e, &none),
                        "a patch is an experiment: '%s'", d);
        }
        trace_free(&a);
        trace_free(&b);
        trace_free(&p);
        model_free(&m);
    }
}

int main(void)
{
    TU_RUN(NULL, NULL, cmocka_unit_test(test_patch_oracle));
}
