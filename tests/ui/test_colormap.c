/* test_colormap.c - the colour maps against their published values, their
 * lightness profiles, NaN and range handling, and the lookup tables. */
#include "colormap.h"
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

static const CmapId ALL[] = {CMAP_VIRIDIS, CMAP_CIVIDIS, CMAP_DIVERGING};

/* CIE L* (D65) of an sRGB colour. */
static double lightness(Color c)
{
    double ch[3] = {c.r / 255.0, c.g / 255.0, c.b / 255.0};
    for (int i = 0; i < 3; i++)
        ch[i] = ch[i] <= 0.04045 ? ch[i] / 12.92 : pow((ch[i] + 0.055) / 1.055, 2.4);
    double y = 0.2126 * ch[0] + 0.7152 * ch[1] + 0.0722 * ch[2];
    double f = y > 216.0 / 24389.0 ? cbrt(y) : (24389.0 / 27.0 * y + 16.0) / 116.0;
    return 116.0 * f - 16.0;
}

static int channel_diff(Color a, Color b)
{
    int d = abs(a.r - b.r);
    if (abs(a.g - b.g) > d)
        d = abs(a.g - b.g);
    if (abs(a.b - b.b) > d)
        d = abs(a.b - b.b);
    return d;
}

/* A published colour: map id at t is (r, g, b) within tol (0..255). */
typedef struct Published {
    CmapId id;
    float t;
    double r, g, b;
    int tol;
} Published;

static const Published PUBLISHED[] = {
    /* matplotlib's _viridis_data[0], [255], the mean of [127] and [128],
     * and [64] at t = 64/255 */
    {CMAP_VIRIDIS, 0.0f, 0.267004, 0.004874, 0.329415, 0},
    {CMAP_VIRIDIS, 1.0f, 0.993248, 0.906157, 0.143936, 0},
    {CMAP_VIRIDIS, 0.5f, (0.128729 + 0.127568) / 2, (0.563265 + 0.566949) / 2,
     (0.551229 + 0.550556) / 2, 1},
    {CMAP_VIRIDIS, 64.0f / 255, 0.231674, 0.318106, 0.544834, 1},
    /* matplotlib's _cividis_data, the same places */
    {CMAP_CIVIDIS, 0.0f, 0.000000, 0.135112, 0.304751, 0},
    {CMAP_CIVIDIS, 1.0f, 0.995737, 0.909344, 0.217772, 0},
    {CMAP_CIVIDIS, 0.5f, (0.481622 + 0.485141) / 2, (0.479573 + 0.482451) / 2,
     (0.469767 + 0.470384) / 2, 1},
    /* ColorBrewer Blues #08519c, the neutral #f7f7f7, Oranges #a63603 */
    {CMAP_DIVERGING, 0.0f, 0x08 / 255.0, 0x51 / 255.0, 0x9c / 255.0, 0},
    {CMAP_DIVERGING, 0.5f, 0xf7 / 255.0, 0xf7 / 255.0, 0xf7 / 255.0, 0},
    {CMAP_DIVERGING, 1.0f, 0xa6 / 255.0, 0x36 / 255.0, 0x03 / 255.0, 0},
};

static void test_published_values(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof PUBLISHED / sizeof *PUBLISHED; i++) {
        const Published *p = &PUBLISHED[i];
        Color c = cmap_color(p->id, p->t);
        Color want = {(uint8_t)lround(p->r * 255), (uint8_t)lround(p->g * 255),
                      (uint8_t)lround(p->b * 255), 255};
        printf("  %s(%.2f): got (%d,%d,%d) want (%d,%d,%d)\n", cmap_name(p->id), p->t,
               c.r, c.g, c.b, want.r, want.g, want.b);
        expect_true(channel_diff(c, want) <= p->tol && c.a == 255,
                    "%s at %.2f off by %d (tolerance %d)", cmap_name(p->id), p->t,
                    channel_diff(c, want), p->tol);
    }
}

/* The packed form and which side of the diverging map is which. */
static void test_packed_and_sides(void **state)
{
    (void)state;
    expect_true(cmap_rgba(CMAP_VIRIDIS, 0) == 0x440154FFu, "packed %08x",
                cmap_rgba(CMAP_VIRIDIS, 0));
    expect_true(cmap_rgba(CMAP_VIRIDIS, 1) == 0xFDE725FFu, "packed %08x",
                cmap_rgba(CMAP_VIRIDIS, 1));
    Color lo = cmap_color(CMAP_DIVERGING, 0.2f), hi = cmap_color(CMAP_DIVERGING, 0.8f);
    expect_true(lo.b > lo.r, "low side blue, got (%d,%d,%d)", lo.r, lo.g, lo.b);
    expect_true(hi.r > hi.b, "high side orange, got (%d,%d,%d)", hi.r, hi.g, hi.b);
}

/* L* never falls by more than rounding as t rises. */
static void expect_monotone_lightness(CmapId id, int rising)
{
    double prev = rising ? -1 : 101, worst = 0;
    for (int i = 0; i <= 255; i++) {
        double l = lightness(cmap_color(id, i / 255.0f));
        double drop = rising ? prev - l : l - prev;
        if (drop > worst)
            worst = drop;
        prev = l;
    }
    printf("  %s: worst step against the trend %.3f L*\n", cmap_name(id), worst);
    expect_true(worst < 0.6, "%s lightness monotone, worst reversal %.3f",
                cmap_name(id), worst);
}

static void test_sequential_lightness(void **state)
{
    (void)state;
    expect_monotone_lightness(CMAP_VIRIDIS, 1);
    expect_monotone_lightness(CMAP_CIVIDIS, 1);
    double l0 = lightness(cmap_color(CMAP_VIRIDIS, 0));
    double l1 = lightness(cmap_color(CMAP_VIRIDIS, 1));
    expect_true(l1 - l0 > 70, "viridis spans lightness, got %.1f..%.1f", l0, l1);
}

static void test_diverging_lightness(void **state)
{
    (void)state;
    double worst_asym = 0, worst_step = 0;
    double prev_lo = 101, prev_hi = 101;
    for (int i = 0; i <= 128; i++) {
        float d = i / 256.0f; /* distance from the centre */
        double lo = lightness(cmap_color(CMAP_DIVERGING, 0.5f - d));
        double hi = lightness(cmap_color(CMAP_DIVERGING, 0.5f + d));
        worst_asym = fmax(worst_asym, fabs(lo - hi));
        worst_step = fmax(worst_step, fmax(lo - prev_lo, hi - prev_hi));
        prev_lo = lo;
        prev_hi = hi;
    }
    Color mid = cmap_color(CMAP_DIVERGING, 0.5f);
    double lm = lightness(mid);
    printf("  centre L* %.1f, ends %.1f / %.1f, worst asymmetry %.2f\n", lm,
           lightness(cmap_color(CMAP_DIVERGING, 0)),
           lightness(cmap_color(CMAP_DIVERGING, 1)), worst_asym);
    expect_true(lm > 95, "a light centre, got L* %.1f", lm);
    expect_true(mid.r == mid.g && mid.g == mid.b, "a neutral centre, got (%d,%d,%d)",
                mid.r, mid.g, mid.b);
    expect_true(worst_step < 0.6, "darker away from the centre, worst %.2f",
                worst_step);
    expect_true(worst_asym < 6.0, "arms of matching lightness, worst %.2f",
                worst_asym);
}

static void test_nan_and_range(void **state)
{
    (void)state;
    Color nan_c = CMAP_NAN_COLOR;
    for (size_t m = 0; m < 3; m++) {
        CmapId id = ALL[m];
        Color c = cmap_color(id, NAN);
        expect_true(c.r == nan_c.r && c.g == nan_c.g && c.b == nan_c.b,
                    "%s NaN grey, got (%d,%d,%d)", cmap_name(id), c.r, c.g, c.b);
        int closest = 255;
        for (int i = 0; i <= 255; i++) {
            int d = channel_diff(cmap_color(id, i / 255.0f), nan_c);
            closest = d < closest ? d : closest;
        }
        expect_true(closest >= 20, "%s: NaN grey distinct, nearest %d away",
                    cmap_name(id), closest);
        expect_true(cmap_rgba(id, -3.0f) == cmap_rgba(id, 0.0f), "clamp below");
        expect_true(cmap_rgba(id, 7.0f) == cmap_rgba(id, 1.0f), "clamp above");
        expect_true(cmap_rgba(id, -INFINITY) == cmap_rgba(id, 0.0f), "-inf");
        expect_true(cmap_rgba(id, INFINITY) == cmap_rgba(id, 1.0f), "+inf");
    }
    expect_true(nan_c.r == nan_c.g && nan_c.g == nan_c.b, "NaN colour is grey");
    Color bad = cmap_color(CMAP_COUNT, 0.5f);
    expect_true(bad.r == nan_c.r, "unknown map gives the NaN grey");
    expect_true(strcmp(cmap_name(CMAP_COUNT), "?") == 0, "unknown map name");
}

static void test_names(void **state)
{
    (void)state;
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < i; j++)
            expect_true(strcmp(cmap_name(ALL[i]), cmap_name(ALL[j])) != 0,
                        "distinct names, got %s twice", cmap_name(ALL[i]));
    expect_true(strcmp(cmap_name(CMAP_VIRIDIS), "viridis") == 0, "viridis name");
}

static void test_lut(void **state)
{
    (void)state;
    for (size_t m = 0; m < 3; m++) {
        CmapLut lut;
        cmap_lut_build(&lut, ALL[m]);
        for (int i = 0; i < CMAP_LUT_N; i++)
            expect_true(lut.rgba[i] == cmap_rgba(ALL[m], i / 255.0f),
                        "entry %d %08x vs %08x", i, lut.rgba[i],
                        cmap_rgba(ALL[m], i / 255.0f));
        expect_true(cmap_lut_get(&lut, NAN) == lut.nan_rgba, "LUT NaN");
        expect_true(cmap_lut_get(&lut, 0.5f) == lut.rgba[128], "LUT middle");
        expect_true(cmap_lut_get(&lut, 2.0f) == lut.rgba[255], "LUT clamp");

        const float v[6] = {-2.0f, 2.0f, 0.0f, NAN, -9.0f, INFINITY};
        uint32_t out[6];
        cmap_lut_map(&lut, v, 6, -2.0f, 2.0f, out);
        expect_true(out[0] == lut.rgba[0] && out[1] == lut.rgba[255],
                    "lo and hi map to the ends");
        expect_true(out[2] == lut.rgba[128], "0 maps to the middle");
        expect_true(out[3] == lut.nan_rgba, "NaN maps to NaN grey");
        expect_true(out[4] == lut.rgba[0] && out[5] == lut.rgba[255],
                    "out of range clamps");
        cmap_lut_map(&lut, v, 3, 1.0f, 1.0f, out);
        expect_true(out[0] == lut.rgba[128] && out[1] == lut.rgba[128],
                    "flat range maps to the middle");
    }
}

/* Text on a cell is black on light colours and white on dark ones, the
 * same for a Color and its packed form. */
static void test_ink_on(void **state)
{
    (void)state;
    static const struct { Color bg; int black; } CASES[] = {
        {{0, 0, 0, 255}, 0},       {{255, 255, 255, 255}, 1}, {{255, 255, 0, 255}, 1},
        {{0, 0, 255, 255}, 0},     {{117, 117, 117, 255}, 0}, {{118, 118, 118, 255}, 1},
        {{247, 247, 247, 255}, 1}, {{68, 1, 84, 255}, 0},
    };
    float white = cmap_luminance((Color){255, 255, 255, 255});
    expect_true(fabsf(white - 255.0f) < 1e-3f, "got %g", white);
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        Color bg = CASES[i].bg;
        Color ink = cmap_ink_on(bg), packed = cmap_ink_on_rgba(cmap_pack(bg));
        int want = CASES[i].black ? 0 : 255;
        expect_true(ink.r == want && ink.g == want && ink.b == want && ink.a == 255,
                    "ink on (%d,%d,%d): expected %s, got (%d,%d,%d)", bg.r, bg.g, bg.b,
                    CASES[i].black ? "black" : "white", ink.r, ink.g, ink.b);
        expect_true(memcmp(&ink, &packed, sizeof ink) == 0, "ink on (%d,%d,%d): packed gives another colour",
                    bg.r, bg.g, bg.b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_published_values),
        cmocka_unit_test(test_packed_and_sides),
        cmocka_unit_test(test_sequential_lightness),
        cmocka_unit_test(test_diverging_lightness),
        cmocka_unit_test(test_nan_and_range),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_lut),
        cmocka_unit_test(test_ink_on),
    };
    return cmocka_run_group_tests_name("colormap", tests, NULL, NULL);
}
