/* test_catalog.c - the gettext catalog: po/zh_CN.po complete (no fuzzy or
 * untranslated entry) and po/stepformer.pot in step with the sources
 * (po/po.sh check); the compiled catalog found beside the program and
 * answering through libintl; English needing no catalog; Z switching live;
 * libc's own messages staying English. */
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
    assert_string_equal(_("Add & Norm"), "残差与归一化");
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_po_complete_and_in_step),
        cmocka_unit_test(test_translates_and_switches_live),
        cmocka_unit_test(test_libc_stays_english),
        cmocka_unit_test(test_no_catalog_is_english),
    };
    return cmocka_run_group_tests_name("catalog", tests, NULL, NULL);
}
