/* test_cli_safe.c - text from a file is printed with its control characters
 * escaped: an escape code in a model's metadata cannot drive the terminal
 * (`info` prints it as \x1b...), while Chinese and other UTF-8 stay as they
 * are. */
#include <unistd.h>

#include "checkpoint.h"
#include "cli.h"
#include "test_util.h"

TU_SCRATCH_GROUP("clisafe")

static const char *g_argv0;

static void test_escapes_controls_keeps_text(void **state)
{
    (void)state;
    static const char *const KEPT[] = {"plain words", "电影 好看", ""};
    /* control characters (C0, DEL, C1), invalid UTF-8 and a bidi override */
    static const TuPair ESCAPED[] = {
        {"\x1b]0;pwned\x07", "\\x1b]0;pwned\\x07"},
        {"a\nb\tc\rd", "a\\x0ab\\x09c\\x0dd"},
        {"del\x7f", "del\\x7f"},
        {"c1 \xc2\x9b" "31m", "c1 \\u009b31m"},
        {"bad \xff\xfe utf8", "bad \\xff\\xfe utf8"},
        {"bidi \xe2\x80\xae" "x", "bidi \\u202ex"},
    };
    char buf[128];
    for (size_t i = 0; i < sizeof KEPT / sizeof KEPT[0]; i++) {
        const char *got = cli_safe(buf, sizeof buf, KEPT[i]);
        expect_true(strcmp(got, KEPT[i]) == 0, "\"%s\" kept as it is, got \"%s\"", KEPT[i], got);
    }
    for (size_t i = 0; i < sizeof ESCAPED / sizeof ESCAPED[0]; i++) {
        const char *got = cli_safe(buf, sizeof buf, ESCAPED[i].in);
        expect_true(strcmp(got, ESCAPED[i].want) == 0, "case %zu: want \"%s\", got \"%s\"", i,
                    ESCAPED[i].want, got);
    }
}

static void test_truncates_whole_characters(void **state)
{
    (void)state;
    char buf[8];
    const char *got = cli_safe(buf, sizeof buf, "电影电影电影");
    /* 8 bytes: room for one 3-byte character and "..." */
    expect_true(strcmp(got, "电...") == 0, "got \"%s\"", got);
    got = cli_safe(buf, sizeof buf, "\x1b\x1b\x1b");
    expect_true(strlen(got) < sizeof buf && !strchr(got, '\x1b'), "got \"%s\"", got);
    char tiny[2];
    got = cli_safe(tiny, sizeof tiny, "abc");
    expect_true(strlen(got) <= 1, "got \"%s\"", got);
}

static void test_info_escapes_metadata(void **state)
{
    (void)state;
    TfModel m;
    tu_model(&m, 1, .d_model = 8, .n_heads = 2, .d_ff = 8, .n_enc = 1, .n_dec = 1, .src_vocab = 9,
             .tgt_vocab = 9, .max_len = 8);
    assert_int_equal(model_meta_set(&m, "note\x1b[2J", "\x1b]0;pwned\x07\x1b[31mred"), 0);
    char path[128], prog[512], cmd[1024];
    path_in(path, sizeof path, "evil.safetensors");
    TfErr err;
    expect_true(ckpt_save(&m, path, &err) == 0, "save: %s", err.msg);
    model_free(&m);
    tu_program_path(prog, sizeof prog, g_argv0);
    snprintf(cmd, sizeof cmd, "'%s' info --model '%s'", prog, path);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char out[8192];
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = 0;
    int rc = pclose(p);
    expect_true(rc == 0, "info exited %d", rc);
    expect_true(!memchr(out, 0x1b, n) && !memchr(out, 0x07, n), "raw escape codes in:\n%s", out);
    expect_true(strstr(out, "\\x1b]0;pwned\\x07\\x1b[31mred") && strstr(out, "note\\x1b[2J"),
                "escaped metadata missing in:\n%s", out);
}

int main(int argc, char **argv)
{
    (void)argc;
    g_argv0 = argv[0];
    TU_RUN(setup, teardown, cmocka_unit_test(test_escapes_controls_keeps_text),
           cmocka_unit_test(test_truncates_whole_characters),
           cmocka_unit_test(test_info_escapes_metadata));
}
