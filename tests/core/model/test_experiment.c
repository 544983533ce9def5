/* test_experiment.c - the interventions of core/model/experiment.h against
 * PyTorch fixtures made with the same change (tools/torch_reference.py
 * FLAGS), on a post-LN and a pre-LN tied model with a padded batch; "none"
 * is bit-identical to the normal pass; every stage shows the experiment
 * (the mask holds the hidden keys and no causal part, ablated heads' concat
 * columns are 0); the command-line specs are checked. */
#include "checkpoint.h"
#include "experiment.h"
#include "stage.h"
#include "test_util.h"
#include "torch_ref.h"

/* Each fixture model and the experiments tools/torch_reference.py ran on
 * it: FIX exp_<prefix>_<experiment>.ref */
static const struct {
    const char *model, *prefix;
    const char *exps[9]; /* NULL-terminated */
} REFS[] = {
    {"post.safetensors", "post", {"no_scale", "no_pe", "no_causal", "ablate", "hide", "all", "no_residual", "no_ffn"}},
    {"pre_tied.safetensors", "pre", {"all", "hide", "no_residual", "no_ffn"}},
};

static void test_against_pytorch(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof REFS / sizeof REFS[0]; i++)
        for (int k = 0; REFS[i].exps[k]; k++) {
            char m[256], r[256];
            snprintf(m, sizeof m, FIX "%s", REFS[i].model);
            snprintf(r, sizeof r, FIX "exp_%s_%s.ref", REFS[i].prefix, REFS[i].exps[k]);
            torch_compare(m, r);
        }
}

/* The same batch with and without an experiment. */
typedef struct Pair {
    TfModel m;
    TfTrace normal, exp;
    TorchRef r;
} Pair;

static void run_pair(Pair *p, const TfExperiment *e)
{
    TfErr err;
    expect_true(ckpt_load(&p->m, FIX "post.safetensors", &err) == 0, "model: %s", err.msg);
    torch_ref_load(&p->r, FIX "post.ref", &p->m.cfg);
    TfBatch b = {p->r.B, p->r.S, p->r.T, p->r.src, p->r.tgt, p->r.src_len, p->r.tgt_len};
    expect_true(trace_build(&p->normal, &p->m.cfg, p->r.B, 8, TRACE_RECORD, &err) == 0, "trace");
    expect_true(trace_build(&p->exp, &p->m.cfg, p->r.B, 8, TRACE_RECORD, &err) == 0, "trace");
    p->exp.exp = *e;
    expect_true(tf_forward(&p->m, &p->normal, &b, 0, &err) == 0, "forward: %s", err.msg);
    expect_true(tf_forward(&p->m, &p->exp, &b, 0, &err) == 0, "forward: %s", err.msg);
}

static void free_pair(Pair *p)
{
    trace_free(&p->normal);
    trace_free(&p->exp);
    torch_ref_free(&p->r);
    model_free(&p->m);
}

static void test_none_is_bit_identical(void **state)
{
    (void)state;
    const TfExperiment none = {0};
    Pair p;
    run_pair(&p, &none);
    expect_true(tf_exp_is_none(&p.exp.exp), "zero is none");
    expect_true(memcmp(p.normal.block, p.exp.block, p.normal.n_floats * sizeof(float)) == 0,
                "every float of the trace is identical");
    free_pair(&p);
}

static void test_stages_show_the_experiment(void **state)
{
    (void)state;
    /* no causal mask, source position 1 hidden, cross-attention head 1:2 ablated */
    const TfExperiment e = {
        .no_causal = 1, .n_hide = 1, .hide_src = {1}, .n_ablate = 1, .ablate = {{TF_ATTN_CROSS, 1, 2}}};
    TfErr err;
    Pair p;
    run_pair(&p, &e);
    TfView v;
    /* encoder self-attention: key 1 is -inf in every real row of sentence 0 */
    expect_true(tf_view(&p.exp, ST_ENC_SELF_MASK, 0, 0, 0, &v, &err) == 0, "mask view");
    for (int i = 0; i < v.rows; i++)
        expect_true(isinf(tf_view_at(&v, i, 1)) && tf_view_at(&v, i, 0) == 0, "row %d: key 1 hidden", i);
    /* decoder self-attention without the causal part: row 0 sees key 2 */
    expect_true(tf_view(&p.exp, ST_DEC_SELF_MASK, 0, 0, 0, &v, &err) == 0, "mask view");
    expect_true(tf_view_at(&v, 0, 2) == 0, "no causal mask: %g", tf_view_at(&v, 0, 2));
    expect_true(tf_view(&p.normal, ST_DEC_SELF_MASK, 0, 0, 0, &v, &err) == 0, "mask view");
    expect_true(isinf(tf_view_at(&v, 0, 2)), "normal pass: causal");
    /* cross-attention: hidden key weight 0; the ablated head's columns 0 */
    expect_true(tf_view(&p.exp, ST_DEC_CROSS_WEIGHTS, 0, 3, 0, &v, &err) == 0, "weights view");
    for (int i = 0; i < v.rows; i++)
        expect_true(tf_view_at(&v, i, 1) == 0, "cross row %d: hidden key has weight 0", i);
    expect_true(tf_view(&p.exp, ST_DEC_CROSS_CONCAT, 1, -1, 0, &v, &err) == 0, "concat view");
    int dk = cfg_dk(&p.m.cfg);
    for (int i = 0; i < v.rows; i++)
        for (int j = 2 * dk; j < 3 * dk; j++)
            expect_true(tf_view_at(&v, i, j) == 0, "concat [%d][%d] of head 3 is 0", i, j);
    expect_true(tf_view(&p.exp, ST_DEC_CROSS_CONCAT, 1, -1, 0, &v, &err) == 0 && tf_view_at(&v, 0, 0) != 0,
                "other heads are not");
    free_pair(&p);
}

/* No residual: every add stage is its sub-layer's output alone; an FFN
 * switched off gives 0 (bias included) and its add stage is the sub-layer's
 * input, while the hidden layer is still computed; the other FFNs are
 * untouched. */
static void test_stages_show_residual_and_ffn(void **state)
{
    (void)state;
    TfExperiment e = {.no_residual = 1};
    TfErr err;
    Pair p;
    run_pair(&p, &e);
    TfView add, out;
    static const StageId ADD[] = {ST_ENC_ADD1, ST_ENC_ADD2, ST_DEC_ADD1, ST_DEC_ADD2, ST_DEC_ADD3};
    static const StageId OUT[] = {ST_ENC_SELF_OUT, ST_ENC_FFN_OUT, ST_DEC_SELF_OUT, ST_DEC_CROSS_OUT, ST_DEC_FFN_OUT};
    for (int k = 0; k < 5; k++) {
        expect_true(tf_view(&p.exp, ADD[k], 1, -1, 0, &add, &err) == 0 &&
                        tf_view(&p.exp, OUT[k], 1, -1, 0, &out, &err) == 0, "views: %s", err.msg);
        float worst = 0;
        for (int i = 0; i < add.rows; i++)
            for (int j = 0; j < add.cols; j++)
                worst = fmaxf(worst, fabsf(tf_view_at(&add, i, j) - tf_view_at(&out, i, j)));
        expect_true(worst == 0, "no-residual: %s = %s (worst %g)", stage_info(ADD[k])->name,
                    stage_info(OUT[k])->name, worst);
        expect_true(tf_view(&p.normal, ADD[k], 1, -1, 0, &add, &err) == 0 &&
                        tf_view_at(&add, 0, 0) != tf_view_at(&out, 0, 0), "normal: %s adds the input",
                    stage_info(ADD[k])->name);
    }
    free_pair(&p);

    memset(&e, 0, sizeof e);
    e.no_ffn[e.n_no_ffn++] = (TfLayerRef){TF_ATTN_DEC, 1};
    e.no_ffn[e.n_no_ffn++] = (TfLayerRef){TF_ATTN_ENC, 0};
    run_pair(&p, &e);
    TfView hid, nrm;
    expect_true(tf_view(&p.exp, ST_ENC_FFN_OUT, 0, -1, 0, &out, &err) == 0 &&
                    tf_view(&p.exp, ST_ENC_ADD2, 0, -1, 0, &add, &err) == 0 &&
                    tf_view(&p.exp, ST_ENC_NORM1, 0, -1, 0, &nrm, &err) == 0 &&
                    tf_view(&p.exp, ST_ENC_FFN_HIDDEN, 0, -1, 0, &hid, &err) == 0, "views: %s", err.msg);
    int zero = 1, same = 1, hidden = 0;
    for (int i = 0; i < out.rows; i++)
        for (int j = 0; j < out.cols; j++) {
            zero &= tf_view_at(&out, i, j) == 0;
            same &= tf_view_at(&add, i, j) == tf_view_at(&nrm, i, j);
        }
    for (int i = 0; i < hid.rows; i++)
        for (int j = 0; j < hid.cols; j++)
            hidden += tf_view_at(&hid, i, j) != 0;
    expect_true(zero && same && hidden > 0, "enc FFN 0 off: out all 0 (%d), add2 = norm1 (%d), hidden "
                "still computed (%d nonzero)", zero, same, hidden);
    expect_true(tf_view(&p.exp, ST_ENC_FFN_OUT, 1, -1, 0, &out, &err) == 0 && tf_view_at(&out, 0, 0) != 0,
                "enc FFN 1 is on");
    expect_true(tf_view(&p.exp, ST_DEC_FFN_OUT, 1, -1, 0, &out, &err) == 0 && tf_view_at(&out, 0, 0) == 0,
                "dec FFN 1 off");
    free_pair(&p);
}

typedef struct SpecCase {
    int head; /* 1: --ablate, 0: --hide-src, 2: --no-ffn */
    const char *spec;
    int ok;
    const char *msg;
} SpecCase;

static void test_command_line_specs(void **state)
{
    (void)state;
    TfErr err;
    TfConfig c = tu_config((TuSize){.n_heads = 4, .n_enc = 2, .n_dec = 3, .max_len = 32});
    static const SpecCase cases[] = {
        {1, "enc:1:3", 1, NULL},       {1, "dec:2:0", 1, NULL},      {1, "cross:0:0", 1, NULL},
        {1, "enc:2:0", 0, "layer must be 0..1"}, {1, "dec:0:4", 0, "head must be 0..3"},
        {1, "self:0:0", 0, "expected enc:LAYER:HEAD"}, {1, "enc:0", 0, "expected"},
        {1, "enc:-1:0", 0, "layer"},   {1, "enc:0:1x", 0, "head"},   {0, "0", 1, NULL},
        {0, "31", 1, NULL},            {0, "32", 0, "0..31"},        {0, "x", 0, "0..31"},
        {0, "", 0, "0..31"},           {2, "enc:1", 1, NULL},        {2, "dec:2", 1, NULL},
        {2, "dec:3", 0, "layer must be 0..2"}, {2, "cross:0", 0, "expected enc:LAYER or dec:LAYER"},
        {2, "enc", 0, "expected"},     {2, "enc:x", 0, "0..1"},
    };
    TfExperiment e;
    memset(&e, 0, sizeof e);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const SpecCase *k = &cases[i];
        int rc = k->head == 1   ? tf_exp_add_head(&e, k->spec, &c, &err)
                 : k->head == 2 ? tf_exp_add_ffn(&e, k->spec, &c, &err)
                                : tf_exp_add_hide(&e, k->spec, &c, &err);
        expect_true((rc == 0) == k->ok && (k->ok || strstr(err.msg, k->msg)), "'%s': rc %d \"%s\"", k->spec,
                    rc, rc ? err.msg : "");
    }
    expect_true(e.n_ablate == 3 && e.n_hide == 2 && e.n_no_ffn == 2, "%d heads, %d positions, %d FFNs",
                e.n_ablate, e.n_hide, e.n_no_ffn);
    e.no_residual = 1;
    char d[256];
    tf_exp_describe(&e, d, sizeof d);
    expect_true(strcmp(d, "ablate enc:1:3, ablate dec:2:0, ablate cross:0:0, hide-src 0, hide-src 31, "
                          "no-residual, no-ffn enc:1, no-ffn dec:2") == 0,
                "described as '%s'", d);
    TfExperiment f = e;
    expect_true(tf_exp_equal(&e, &f) && tf_exp_toggle_ffn(&f, TF_ATTN_ENC, 1) == 0 && !tf_exp_equal(&e, &f) &&
                    !tf_exp_ffn_off(&f, TF_ATTN_ENC, 1) && tf_exp_ffn_off(&f, TF_ATTN_DEC, 2),
                "toggling an FFN back on changes the experiment");
    f = e;
    f.no_residual = 0;
    expect_true(!tf_exp_equal(&e, &f), "no-residual counts in equality");
    memset(&f, 0, sizeof f);
    f.no_residual = 1;
    expect_true(!tf_exp_is_none(&f), "no-residual alone is an experiment");
    expect_true(tf_exp_check_source(&e, 10, &err) < 0 && strstr(err.msg, "10 tokens"), "31 >= 10: %s", err.msg);
    expect_true(tf_exp_toggle_head(&e, TF_ATTN_DEC, 2, 0) == 0 && e.n_ablate == 2, "toggle off");
    expect_true(tf_exp_toggle_hide(&e, 5) == 1 && tf_exp_hidden(&e, 5), "toggle on");
}

/* A spec as the command line and links write it down: the switches and
 * every spec kept, the first bad spec or hidden position refused by name. */
static void test_spec_builds(void **state)
{
    (void)state;
    TfErr err;
    TfConfig c = tu_config((TuSize){.n_heads = 4, .n_enc = 2, .n_dec = 3, .max_len = 32});
    TfExpSpec x = {.no_pe = 1, .no_residual = 1, .n_ablate = 1, .n_hide = 1, .n_ffn = 1,
                   .ablate = {"cross:1:2"}, .hide = {"3"}, .ffn = {"dec:2"}};
    TfExperiment e;
    expect_true(tf_exp_build(&x, &c, 4, &e, &err) == 0, "%s", err.msg);
    expect_true(e.no_pe && e.no_residual && !e.no_scale && tf_exp_ablated(&e, TF_ATTN_CROSS, 1, 2) &&
                    tf_exp_hidden(&e, 3) && tf_exp_ffn_off(&e, TF_ATTN_DEC, 2),
                "every part of the spec is in the experiment");
    expect_true(tf_exp_build(&x, &c, 3, &e, &err) < 0 && strstr(err.msg, "3 tokens"), "position 3 of 3: %s",
                err.msg);
    x.ablate[0] = "enc:2:0";
    expect_true(tf_exp_build(&x, &c, 0, &e, &err) < 0 && strstr(err.msg, "enc:2:0"), "a bad head: %s", err.msg);
}

int main(void)
{
    TU_RUN(NULL, NULL, cmocka_unit_test(test_against_pytorch), cmocka_unit_test(test_none_is_bit_identical),
           cmocka_unit_test(test_stages_show_the_experiment), cmocka_unit_test(test_stages_show_residual_and_ffn),
           cmocka_unit_test(test_command_line_specs), cmocka_unit_test(test_spec_builds));
}
