/* test_theme_contrast.c - every theme's text colours read on every
 * background they are drawn on at WCAG AA (4.5:1 for text), the
 * masked-cell label on the masked fill, and the black or white ink the
 * heatmaps write on any cell of any colour map. */
#include "colormap.h"
#include "test_util.h"
#include "ui.h"

#include <stdio.h>

#define AA 4.5f

static void test_contrast_formula(void **state)
{
    (void)state;
    Color black = {0, 0, 0, 255}, white = {255, 255, 255, 255}, grey = {118, 118, 118, 255};
    expect_true(fabsf(cmap_contrast(black, white) - 21.0f) < 1e-3f, "black on white is 21:1, got %g",
                cmap_contrast(black, white));
    expect_true(fabsf(cmap_contrast(white, white) - 1.0f) < 1e-6f, "a colour on itself is 1:1");
    /* #767676 on white is the lightest grey that passes AA: 4.54 */
    float g = cmap_contrast(grey, white);
    expect_true(g > 4.5f && g < 4.6f, "#767676 on white: 4.54, got %g", g);
    expect_true(cmap_contrast(grey, white) == cmap_contrast(white, grey), "symmetric");
}

static void test_every_theme_text_pair(void **state)
{
    (void)state;
    int bad = 0;
    for (int t = 0; t < THEME_COUNT; t++) {
        const Theme *th = theme_get((ThemeId)t);
        const struct { const char *name; Color c; } fg[] = {
            {"text", th->text},   {"dim", th->dim},       {"accent", th->accent}, {"accent2", th->accent2},
            {"select", th->select}, {"warn", th->warn},   {"good", th->good},     {"bad", th->bad},
        };
        const struct { const char *name; Color c; } bg[] = {
            {"bg", th->bg}, {"panel", th->panel}, {"panel2", th->panel2}};
        for (size_t i = 0; i < sizeof fg / sizeof fg[0]; i++)
            for (size_t j = 0; j < sizeof bg / sizeof bg[0]; j++) {
                float r = cmap_contrast(fg[i].c, bg[j].c);
                if (r < AA) {
                    printf("  theme %s: %s on %s is %.2f:1\n", th->name, fg[i].name, bg[j].name, r);
                    bad++;
                }
            }
        float m = cmap_contrast(th->masked_text, th->masked);
        if (m < AA) {
            printf("  theme %s: the masked label on the masked fill is %.2f:1\n", th->name, m);
            bad++;
        }
        float p = cmap_contrast(th->text, th->pad);
        if (p < AA) {
            printf("  theme %s: text on a padding cell is %.2f:1\n", th->name, p);
            bad++;
        }
    }
    expect_true(bad == 0, "%d text/background pairs below %.1f:1", bad, AA);
}

/* The numbers written on heatmap cells: black or white, whichever reads,
 * on every colour of every map (sampled finely). */
static void test_cell_ink_on_every_map(void **state)
{
    (void)state;
    float worst = 21;
    for (int id = 0; id < CMAP_COUNT; id++)
        for (int i = 0; i <= 1000; i++) {
            Color bg = cmap_color((CmapId)id, (float)i / 1000);
            float r = cmap_contrast(cmap_ink_on(bg), bg);
            if (r < worst)
                worst = r;
            expect_true(r >= AA, "%s at %g: ink %d on (%d,%d,%d) is %.2f:1", cmap_name((CmapId)id), i / 1000.0,
                        cmap_ink_on(bg).r, bg.r, bg.g, bg.b, r);
        }
    printf("  worst cell ink: %.2f:1\n", worst);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_contrast_formula),
        cmocka_unit_test(test_every_theme_text_pair),
        cmocka_unit_test(test_cell_ink_on_every_map),
    };
    return cmocka_run_group_tests_name("theme contrast", tests, NULL, NULL);
}
