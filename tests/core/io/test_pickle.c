/* test_pickle.c - the torch.save reader: a real pytorch_model.bin (made by
 * torch.save in tools/marian_fixture.py) is read, and pickles that would
 * run code or use opcodes a state dict does not need are refused with one
 * line naming the reason; stack, MARK and memo bombs and a huge data.pkl
 * fail at once in a few MB. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zip.h>

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

/* Peak resident memory of this process, in MiB. */
static long peak_mib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss / 1024;
}

/* Growth allowed while refusing a bomb: the reader's budget (24 MiB plus
 * 4 bytes a byte, 44 MiB for 5 MB) and the allocator's own. Under
 * AddressSanitizer every small block gets redzones and freed blocks sit in
 * quarantine (the doubling arrays' old copies), about twice the heap: a
 * reader without the cap still grows far past it (5 MB of "]a" is 2.6
 * million lists, over 160 MiB without ASan). */
#ifdef __SANITIZE_ADDRESS__
#define BOMB_MAX_MIB 96
#else
#define BOMB_MAX_MIB 48
#endif

/* Parse n bytes (made by fill) in a child: refused naming want, and the
 * child's peak memory grows by at most BOMB_MAX_MIB beyond the input. */
static void bomb(const char *what, size_t n, void (*fill)(unsigned char *, size_t), const char *want)
{
    fflush(stdout);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        unsigned char *b = malloc(n);
        if (!b)
            _exit(3);
        fill(b, n);
        long before = peak_mib();
        PkTable t;
        TfErr err = {{0}};
        int rc = pk_parse(b, n, "bomb.pkl", &t, &err);
        long grew = peak_mib() - before;
        printf("  %s (%zu bytes): %s (+%ld MiB)\n", what, n, err.msg, grew);
        fflush(stdout);
        _exit(rc != 0 && strstr(err.msg, want) && grew <= BOMB_MAX_MIB ? 0 : 1);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    expect_true(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: refused naming '%s' within %d MiB (status %d)", what,
                want, BOMB_MAX_MIB, st);
}

static void fill_lists(unsigned char *b, size_t n)
{
    memcpy(b, "\x80\x02", 2);
    memset(b + 2, ']', n - 2);
}

static void fill_marks(unsigned char *b, size_t n)
{
    memcpy(b, "\x80\x02", 2);
    memset(b + 2, '(', n - 2);
}

static void fill_appends(unsigned char *b, size_t n) /* ] then "]a" forever: a flat stack, values without end */
{
    memcpy(b, "\x80\x02]", 3);
    for (size_t i = 3; i + 1 < n; i += 2)
        b[i] = ']', b[i + 1] = 'a';
    b[n - 1] = '.';
}

static void fill_nones(unsigned char *b, size_t n)
{
    memcpy(b, "\x80\x02", 2);
    memset(b + 2, 'N', n - 2);
}

static void fill_memo(unsigned char *b, size_t n) /* ] and LONG_BINPUT 16,000,000 */
{
    memset(b, '.', n);
    memcpy(b, "\x80\x02]r\x00\x24\xf4\x00", 8);
}

static void test_bombs(void **state)
{
    (void)state;
    bomb("5 MB of ]", 5u << 20, fill_lists, "stack grows past");
    bomb("5 MB of (", 5u << 20, fill_marks, "MARKs");
    bomb("5 MB of N", 5u << 20, fill_nones, "stack grows past");
    bomb("5 MB of ]a", 5u << 20, fill_appends, "more than");
    bomb("memo index 16 million", 64, fill_memo, "memo index");
}

/* A pytorch_model.bin whose data.pkl inflates to 20 MB (from a few KB) is
 * refused before it is inflated. */
static void test_huge_data_pkl(void **state)
{
    (void)state;
    char dir[64], path[128];
    assert_int_equal(tu_scratch(dir, sizeof dir, "pklzip"), 0);
    snprintf(path, sizeof path, "%s/pytorch_model.bin", dir);
    size_t n = (size_t)20 << 20;
    unsigned char *b = malloc(n);
    assert_non_null(b);
    fill_nones(b, n);
    int ze = 0;
    zip_t *z = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &ze);
    assert_non_null(z);
    zip_source_t *src = zip_source_buffer(z, b, n, 0);
    assert_true(src && zip_file_add(z, "archive/data.pkl", src, ZIP_FL_OVERWRITE) >= 0);
    assert_int_equal(zip_close(z), 0);
    free(b);
    PtFile f;
    TfErr err = {{0}};
    long before = peak_mib();
    expect_true(pt_open(&f, path, &err) != 0 && strstr(err.msg, "too large"), "refused: %s", err.msg);
    printf("  %s (+%ld MiB)\n", err.msg, peak_mib() - before);
    expect_true(peak_mib() - before < 16, "not inflated");
    pt_close(&f);
    tu_scratch_remove(dir);
}

int main(void)
{
    TU_RUN(NULL, NULL, cmocka_unit_test(test_torch_save_file), cmocka_unit_test(test_refused),
           cmocka_unit_test(test_bad_zip), cmocka_unit_test(test_bombs), cmocka_unit_test(test_huge_data_pkl));
}
