/* test_config.c - presets, validation, and parameter counts of every preset
 * against the formula written out independently here. */
#include <string.h>

#include "config.h"
#include "params.h"
#include "test_util.h"

/* Parameters of the encoder-decoder, counted the long way:
 * per encoder layer: W_Q, W_K, W_V, W_O (d x d each) + 4d biases,
 *   linear1 (d_ff x d) + d_ff, linear2 (d x d_ff) + d, two LayerNorms (2 x 2d);
 * per decoder layer: two attention blocks, the FFN, three LayerNorms. */
static size_t by_hand(size_t d, size_t dff, size_t Ne, size_t Nd, size_t Vs,
                      size_t Vt, int tie, int pre)
{
    size_t attn = 4 * d * d + 4 * d;
    size_t ffn = dff * d + dff + d * dff + d;
    size_t enc = Ne * (attn + ffn + 2 * 2 * d) + (pre ? 2 * d : 0);
    size_t dec = Nd * (2 * attn + ffn + 3 * 2 * d) + (pre ? 2 * d : 0);
    size_t emb = tie == TF_TIE_ALL ? Vt * d : (Vs + Vt) * d;
    size_t gen = Vt + (tie == TF_TIE_NONE ? Vt * d : 0);
    return enc + dec + emb + gen;
}

/* Preset `name` with one vocabulary of n tokens on both sides. */
static TfConfig preset_vocab(const char *name, int n)
{
    TfConfig c;
    expect_true(cfg_preset(&c, name, NULL) == 0, "preset %s", name);
    c.src_vocab = c.tgt_vocab = n;
    return c;
}

static void test_presets(void **state)
{
    (void)state;
    TfConfig c;
    TfErr err;
    expect_true(cfg_preset(&c, "base", &err) == 0, "base exists");
    expect_true(c.d_model == 512 && c.n_heads == 8 && c.d_ff == 2048 && c.n_enc == 6 && c.n_dec == 6,
                "base is 512/8/2048/6+6, got %d/%d/%d/%d+%d", c.d_model, c.n_heads, c.d_ff, c.n_enc, c.n_dec);
    expect_true(c.norm == TF_NORM_POST && c.dropout == 0.1f && c.label_smoothing == 0.1f,
                "post-LN, dropout 0.1, smoothing 0.1 by default");
    expect_true(cfg_preset(&c, "big", &err) == 0 && c.d_model == 1024 && c.n_heads == 16 && c.d_ff == 4096,
                "big is 1024/16/4096");
    expect_true(cfg_preset(&c, "classroom", &err) == 0 && c.d_model == 64 && c.n_heads == 4 &&
                    c.d_ff == 256 && c.n_enc == 2 && c.n_dec == 2,
                "classroom is 64/4/256/2+2");
    expect_true(cfg_preset(&c, "huge", &err) != 0, "unknown preset refused");
    expect_true(strstr(err.msg, "classroom") != NULL, "message lists presets: %s", err.msg);
}

static void test_param_counts(void **state)
{
    (void)state;
    const char *names[3] = {"classroom", "base", "big"};
    int vocab[3] = {32, 37000, 37000};
    for (int i = 0; i < 3; i++) {
        for (int tie = 0; tie <= 2; tie++) {
            for (int pre = 0; pre <= 1; pre++) {
                TfConfig c;
                TfErr err;
                cfg_preset(&c, names[i], &err);
                c.src_vocab = c.tgt_vocab = vocab[i];
                c.tie = (TfTie)tie;
                c.norm = pre ? TF_NORM_PRE : TF_NORM_POST;
                expect_true(cfg_validate(&c, &err) == 0, "valid: %s", err.msg);
                size_t want = by_hand((size_t)c.d_model, (size_t)c.d_ff, (size_t)c.n_enc, (size_t)c.n_dec,
                                      (size_t)c.src_vocab, (size_t)c.tgt_vocab, tie, pre);
                TfParamCount pc = cfg_param_count(&c);
                expect_true(pc.total == want, "%s tie %d pre %d: %zu parameters, got %zu", names[i], tie, pre, want, pc.total);
                expect_true(params_size(&c) == want, "the size table allocates %zu, got %zu", want, params_size(&c));
                expect_true(pc.embed + pc.encoder + pc.decoder + pc.generator == pc.total, "components add up");
            }
        }
    }
    /* the paper's base model with a shared 37000-token vocabulary */
    TfConfig c = preset_vocab("base", 37000);
    c.tie = TF_TIE_ALL;
    TfParamCount pc = cfg_param_count(&c);
    printf("  base, shared vocabulary of 37000: %zu parameters\n", pc.total);
    expect_true(pc.total == 63119496, "base has 63,119,496 parameters, got %zu", pc.total);
    c = preset_vocab("big", 37000);
    c.tie = TF_TIE_ALL;
    pc = cfg_param_count(&c);
    printf("  big, shared vocabulary of 37000: %zu parameters\n", pc.total);
    expect_true(pc.total > 200000000 && pc.total < 215000000, "big is about 213M, got %zu", pc.total);
}

static void test_validation(void **state)
{
    (void)state;
    TfErr err;
    TfConfig c = preset_vocab("classroom", 32);
    TfConfig bad = c;
    bad.n_heads = 5;
    expect_true(cfg_validate(&bad, &err) != 0, "64 not divisible by 5 refused");
    bad = c;
    bad.d_model = 0;
    expect_true(cfg_validate(&bad, &err) != 0, "d_model 0 refused");
    bad = c;
    bad.src_vocab = 33;
    bad.tie = TF_TIE_ALL;
    expect_true(cfg_validate(&bad, &err) != 0, "sharing with different vocabularies refused");
    bad = c;
    bad.d_model = 8192;
    bad.n_heads = 8;
    bad.d_ff = 65536;
    bad.n_enc = bad.n_dec = 64;
    bad.src_vocab = bad.tgt_vocab = 1000000;
    expect_true(cfg_validate(&bad, &err) != 0, "a model beyond the parameter limit refused");
    printf("  -> %s\n", err.msg);
    bad = c;
    bad.dropout = 1.0f;
    expect_true(cfg_validate(&bad, &err) != 0, "dropout 1 refused");
}

static void test_flops(void **state)
{
    (void)state;
    TfConfig c = preset_vocab("base", 37000);
    TfFlops f = cfg_flops(&c, 32, 32);
    /* generator: 2 * T * d * V */
    expect_true(f.generator == 2.0 * 32 * 512 * 37000, "generator FLOPs");
    /* one encoder layer at S = 32: 2*(S*d*3d + S*d*d + 2*S*S*d + 2*S*d*dff) */
    double layer = 2.0 * (32.0 * 512 * 1536 + 32.0 * 512 * 512 + 2.0 * 32 * 32 * 512 + 2.0 * 32 * 512 * 2048);
    expect_true(f.encoder == 6 * layer, "encoder FLOPs %.0f, got %.0f", 6 * layer, f.encoder);
}

int main(void)
{
    TU_RUN(NULL, NULL,
           cmocka_unit_test(test_presets),
           cmocka_unit_test(test_param_counts),
           cmocka_unit_test(test_validation),
           cmocka_unit_test(test_flops));
}
