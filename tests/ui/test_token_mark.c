/* test_token_mark.c - sentencepiece's word-start mark ▁ (U+2581, a full
 * low bar that reads as "_") is drawn as the thin UI_WORD_MARK, which each
 * of the window's fonts has (never a box). */
#include "../platform/ren_fixture.h"
#include "ui.h"
#include "utf8.h"

static void test_token_mark(void **state)
{
    (void)state;
    static const TuPair cases[] = {
        {"\xe2\x96\x81the", UI_WORD_MARK "the"},
        {"\xe2\x96\x81", UI_WORD_MARK},
        {"a\xe2\x96\x81\xe2\x96\x81" "b", "a" UI_WORD_MARK UI_WORD_MARK "b"},
        {"plain", "plain"},
        {"\xe4\xbd\xa0\xe2\x96\x81", "\xe4\xbd\xa0" UI_WORD_MARK},
        {"\xe2\x96\x82x", "\xe2\x96\x82x"}, /* another block element stays */
        {"", ""},
    };
    char buf[64];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        expect_true(!strcmp(ui_token(cases[i].in, buf, sizeof buf), cases[i].want), "case %zu: '%s'", i, buf);
        snprintf(buf, sizeof buf, "%s", cases[i].in); /* in place */
        expect_true(!strcmp(ui_token(buf, buf, sizeof buf), cases[i].want), "case %zu in place: '%s'", i, buf);
    }
    char tiny[4];
    ui_token("\xe2\x96\x81\xe2\x96\x81\xe2\x96\x81", tiny, sizeof tiny);
    expect_true(!strcmp(tiny, UI_WORD_MARK), "cut at a whole mark: '%s'", tiny);
}

static void test_fonts_have_the_mark(void **state)
{
    Fixture *fx = *state;
    uint32_t cp = 0;
    expect_true(utf8_next(UI_WORD_MARK, sizeof UI_WORD_MARK - 1, &cp) > 0, "the mark is one character");
    RenFont *fonts[3] = {fx->sans, fx->mono, fx->cjk};
    for (int f = 0; f < 3; f++)
        expect_true(ren_font_has_glyph(fonts[f], cp), "font %d has U+%04X", f, (unsigned)cp);
    int w = ren_text_width(fx->sans, UI_WORD_MARK), wx = ren_text_width(fx->sans, "x");
    expect_true(w > 0 && w <= wx, "thin: %d px, 'x' is %d px", w, wx);
}

int main(void)
{
    TU_RUN(setup, teardown, cmocka_unit_test(test_token_mark), cmocka_unit_test(test_fonts_have_the_mark));
}
