/* test_pickle.c - the torch.save reader: a real pytorch_model.bin (made by
 * torch.save in tools/marian_fixture.py) is read, and pickles that would
 * run code or use opcodes a state dict does not need are refused with one
 * line naming the reason. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pickle.h"
#include "test_util.h"

static void test_torch_save_file(void **state)
{
    (void)state;
    PtFile f;
    TfErr err;
    const char *path = "tests/fixtures/marian/swish_f16_bin/pytorch_model.bin";
    expect_true(pt_open(&f, path, &err) == 0, "opens: %s", err.msg);
    printf("  %d tensors, prefix '%s'\n", f.tab.n, f.prefix);
    const PkTensor *t = pk_find(&f.tab, "model.shared.weight");
    expect_true(t && t->nd == 2 && t->shape[0] == 48 && t->shape[1] == 32 && t->dtype == PK_F16 &&
                    t->contiguous,
                "the shared embedding: [48, 32] F16");
    const PkTensor *b = pk_find(&f.tab, "final_logits_bias");
    expect_true(b && b->nd == 2 && b->shape[0] == 1 && b->shape[1] == 48, "final_logits_bias [1, 48]");
    float x[48];
    expect_true(pt_read(&f, b, x, 48, &err) == 0, "reads: %s", err.msg);
    expect_true(pk_find(&f.tab, "model.decoder.layers.1.fc2.bias") != NULL, "every layer's tensors");
    pt_close(&f);
}

static void refused(const char *what, const char *bytes, size_t n, const char *want)
{
    PkTable t;
    TfErr err = {{0}};
    int rc = pk_parse((const unsigned char *)bytes, n, "x.pkl", &t, &err);
    printf("  %s: %s\n", what, err.msg);
    expect_true(rc != 0, "%s refused", what);
    expect_true(strstr(err.msg, want) != NULL, "%s: '%s' names '%s'", what, err.msg, want);
    expect_true(strchr(err.msg, '\n') == NULL, "one line");
}

#define S(lit) lit, sizeof lit - 1

static void test_refused(void **state)
{
    (void)state;
    refused("os.system", S("\x80\x02" "cos\nsystem\n" "X\x02\x00\x00\x00ls" "\x85R."), "calls os.system");
    refused("builtins.eval", S("\x80\x04\x8c\x08" "builtins" "\x8c\x04" "eval" "\x93."), "builtins.eval");
    refused("BINFLOAT", S("\x80\x02G\x3f\xf0\x00\x00\x00\x00\x00\x00."), "opcode 0x47");
    refused("INST", S("\x80\x02(itorch\nx\n."), "opcode 0x69");
    refused("cut short", S("\x80\x02X\xff\x00\x00\x00" "ab"), "past the end");
    refused("no STOP", S("\x80\x02}"), "middle of an opcode");
    refused("not a dict", S("\x80\x02K\x05."), "not hold a state dict");
    refused("memo never set", S("\x80\x02h\x07."), "never set");
    refused("empty stack", S("\x80\x02R."), "empty stack");
    refused("value not a tensor", S("\x80\x02}X\x01\x00\x00\x00" "a" "K\x01s."), "not a name and a tensor");
    refused("storage type called", S("\x80\x02" "ctorch\nFloatStorage\n" ")R."), "storage type");
    refused("odict with args", S("\x80\x02" "ccollections\nOrderedDict\n" "K\x01\x85R."), "with arguments");
}

static void test_bad_zip(void **state)
{
    (void)state;
    PtFile f;
    TfErr err;
    expect_true(pt_open(&f, "tests/fixtures/marian/swish_f32/config.json", &err) != 0, "not a zip");
    printf("  %s\n", err.msg);
    pt_close(&f);
    expect_true(pt_open(&f, "tests/fixtures/marian", &err) != 0, "a folder refused");
    pt_close(&f);
}

int main(void)
{
    TU_RUN(NULL, NULL, cmocka_unit_test(test_torch_save_file), cmocka_unit_test(test_refused),
           cmocka_unit_test(test_bad_zip));
}
