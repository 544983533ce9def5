/* test_catalog.c - the gettext catalog: po/zh_CN.po complete (no fuzzy or
 * untranslated entry) and po/stepformer.pot in step with the sources
 * (po/po.sh check); the compiled catalog found beside the program and
 * answering through our own .mo reader (i18n.c); English needing no
 * catalog; Z switching live; libc's own messages staying English; a broken
 * catalog (cut short, wrong magic, offsets outside the file) read as none. */
#include "paths.h"
#include "test_util.h"
#include "ui.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* po/po.sh check from the top of the tree (make test runs there). */
static void test_po_complete_and_in_step(void **state)
{
    (void)state;
    FILE *p = popen("po/po.sh check 2>&1", "r");
    expect_true(p != NULL, "cannot run po/po.sh");
    char line[512], all[8192] = "";
    while (fgets(line, sizeof line, p))
        if (strlen(all) + strlen(line) < sizeof all)
            strcat(all, line);
    int rc = pclose(p);
    expect_true(rc == 0, "po/po.sh check failed:\n%s", all);
    expect_true(strstr(all, "translated messages") != NULL, "no statistics:\n%s", all);
}

static void bind(void)
{
    char dir[4096];
    expect_true(paths_locale(dir, sizeof dir) != NULL,
                "no build/locale/zh_CN/LC_MESSAGES/stepformer.mo (make builds it)");
    expect_true(ui_i18n_init(dir) == 1, "the catalog in %s does not answer", dir);
    expect_true(ui_i18n_dir() && strcmp(ui_i18n_dir(), dir) == 0, "ui_i18n_dir");
}

static void test_translates_and_switches_live(void **state)
{
    (void)state;
    bind();
    ui_set_lang(1);
    assert_string_equal(_("Encoder"), "编码器");
    assert_string_equal(_("Add & Norm"), "残差与规范化");
    /* not in the catalog: the English itself */
    assert_string_equal(_("no such msgid, surely"), "no such msgid, surely");
    ui_set_lang(0);
    assert_string_equal(_("Encoder"), "Encoder");
    ui_set_lang(1);
    assert_string_equal(_("Encoder"), "编码器");
    assert_string_equal(L(0, "Decoder"), "Decoder");
    assert_string_equal(L(1, "Decoder"), "解码器");
    ui_set_lang(0);
}

/* The CLI's errors quote strerror(): binding the catalog leaves them English. */
static void test_libc_stays_english(void **state)
{
    (void)state;
    bind();
    ui_set_lang(1);
    assert_string_equal(strerror(ENOENT), "No such file or directory");
    ui_set_lang(0);
}

static void test_no_catalog_is_english(void **state)
{
    (void)state;
    expect_true(ui_i18n_init(NULL) == 0, "NULL folder");
    expect_true(ui_i18n_init("/nonexistent/locale") == 0, "a folder without the catalog");
    expect_true(ui_i18n_dir() == NULL, "no folder to show");
    assert_string_equal(L(1, "Encoder"), "Encoder");
    bind();
}

/* dir/zh_CN/LC_MESSAGES/stepformer.mo holding bytes[0..n) */
static void write_mo(const char *dir, const unsigned char *bytes, size_t n)
{
    char path[4200];
    snprintf(path, sizeof path, "mkdir -p %s/zh_CN/LC_MESSAGES", dir);
    expect_true(system(path) == 0, "%s", path);
    snprintf(path, sizeof path, "%s/zh_CN/LC_MESSAGES/stepformer.mo", dir);
    FILE *f = fopen(path, "wb");
    expect_true(f && fwrite(bytes, 1, n, f) == n && fclose(f) == 0, "cannot write %s", path);
}

static void test_broken_catalog_is_english(void **state)
{
    (void)state;
    char good[4096], path[4200];
    expect_true(paths_locale(good, sizeof good) != NULL, "no compiled catalog");
    snprintf(path, sizeof path, "%s/zh_CN/LC_MESSAGES/stepformer.mo", good);
    FILE *f = fopen(path, "rb");
    static unsigned char mo[1 << 20];
    size_t n = f ? fread(mo, 1, sizeof mo, f) : 0;
    if (f)
        fclose(f);
    expect_true(n > 28 && n < sizeof mo, "read %zu bytes of %s", n, path);
    char dir[] = "/tmp/test_catalog_XXXXXX";
    expect_true(mkdtemp(dir) != NULL, "mkdtemp");
    /* the whole file answers from another folder */
    write_mo(dir, mo, n);
    expect_true(ui_i18n_init(dir) == 1 && strcmp(L(1, "Encoder"), "编码器") == 0, "a copy of the catalog");
    static unsigned char bad[1 << 20];
    const struct {
        const char *what;
        size_t at, len; /* bytes [at, at+len) set to 0xff; len 0: the file cut at `at` */
    } cases[] = {
        {"cut inside the header", 20, 0},
        {"cut inside the tables", 40, 0},
        {"cut before the strings end", n - 3, 0},
        {"a wrong magic", 0, 2},
        {"a huge count", 8, 4},
        {"a table outside the file", 12, 4},
        {"a string's offset outside the file", 28 + 4, 4},
        {"a string's length past the end", 28, 4},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        memcpy(bad, mo, n);
        size_t len = n;
        if (cases[k].len)
            memset(bad + cases[k].at, 0xff, cases[k].len);
        else
            len = cases[k].at;
        write_mo(dir, bad, len);
        expect_true(ui_i18n_init(dir) == 0 && ui_i18n_dir() == NULL, "%s: the catalog was taken", cases[k].what);
        assert_string_equal(L(1, "Encoder"), "Encoder");
    }
    snprintf(path, sizeof path, "rm -rf %s", dir);
    expect_true(system(path) == 0, "%s", path);
    bind();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_po_complete_and_in_step),
        cmocka_unit_test(test_translates_and_switches_live),
        cmocka_unit_test(test_libc_stays_english),
        cmocka_unit_test(test_no_catalog_is_english),
        cmocka_unit_test(test_broken_catalog_is_english),
    };
    return cmocka_run_group_tests_name("catalog", tests, NULL, NULL);
}
