/* test_view_scale.c - the "scale" view (app/views/view_scale.c), why the
 * scores are divided by √d_k:
 *   - q·k of random unit-variance vectors has a measured standard deviation
 *     within 4% of √d_k (d_k = 8, 16, 64, 512) and a mean near 0; divided by
 *     √d_k it is within 4% of 1;
 *   - the histogram counts every value once, those beyond the axis in the
 *     end bins, so the bars add up to the count;
 *   - drawn on the en2zh model at enc.self.scores, each of its six
 *     histograms' bars add up to the values it counted: 4000 random pairs,
 *     and this head's 16 QKᵀ entries of "i read books today"; the model's
 *     entries are the unscaled QKᵀ with the scale on and with no-scale alike;
 *   - it is in the tabs of score and weight stages only, and `view_find`
 *     names it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "ses_measure.h"
#include "test_app_util.h"
#include "test_util.h"
#include "view.h"
#include "view_scale.h"

#define MODEL "assets/models/en2zh.safetensors"

static char g_model[96];
TU_FIXTURE(g_model, "view-scale", 1280, 800)

static void test_random_std(void **state)
{
    (void)state;
    static float x[SES_DOTS_N];
    static const int DK[4] = {8, 16, 64, 512};
    for (int i = 0; i < 4; i++) {
        ses_random_dots(DK[i], SES_DOTS_N, 17 + (uint64_t)i, x);
        double sd = scale_std(x, SES_DOTS_N), want = sqrt((double)DK[i]), mean = 0;
        for (int k = 0; k < SES_DOTS_N; k++)
            mean += x[k];
        mean /= SES_DOTS_N;
        expect_true(fabs(sd / want - 1) < 0.04, "d_k = %d: std %.3f, √d_k = %.3f", DK[i], sd, want);
        expect_true(fabs(mean) < 3 * want / sqrt((double)SES_DOTS_N), "d_k = %d: mean %.3f near 0", DK[i], mean);
        for (int k = 0; k < SES_DOTS_N; k++)
            x[k] /= (float)want;
        expect_true(fabs(scale_std(x, SES_DOTS_N) - 1) < 0.04, "d_k = %d: divided by √d_k, std %.3f", DK[i],
                    scale_std(x, SES_DOTS_N));
    }
    float a[8], b[8];
    ses_random_dots(8, 8, 5, a);
    ses_random_dots(8, 8, 5, b);
    expect_true(memcmp(a, b, sizeof a) == 0, "the same seed draws the same pairs");
}

static void test_hist_counts(void **state)
{
    (void)state;
    float x[7] = {-100, -24, -0.1f, 0, 0.1f, 23.9f, 100};
    int c[SCALE_BINS], sum = 0;
    scale_hist(x, 7, -24, 24, SCALE_BINS, c);
    for (int b = 0; b < SCALE_BINS; b++)
        sum += c[b];
    expect_true(sum == 7 && c[0] == 2 && c[SCALE_BINS - 1] == 2 && c[SCALE_BINS / 2 - 1] == 1 &&
                    c[SCALE_BINS / 2] == 2,
                "7 values, beyond the axis in the end bins: sum %d, first %d, last %d, around 0 %d %d", sum, c[0],
                c[SCALE_BINS - 1], c[SCALE_BINS / 2 - 1], c[SCALE_BINS / 2]);
}

static void draw_scale(App *a, int *n, int *sum, double *sd)
{
    tu_view_frame(a, tu_ren, VIEW_SCALE, (Rect){0, 0, 700, 640});
    ren_end(tu_ren);
    for (int h = 0; h < 6; h++)
        expect_true(view_scale_drawn(a->vstate[VIEW_SCALE], h, &n[h], &sum[h], &sd[h]),
                    "histogram %d is drawn", h);
}

static void test_drawn(void **state)
{
    (void)state;
    static App a;
    AppOpts o = tu_opts(MODEL, "i read books today", NULL, "scale");
    o.stage = "enc.self.scores";
    o.head = 1;
    tu_open(&a, &o, 1);
    expect_true(view_find("scale") == VIEW_SCALE, "view_find names the scale view");
    expect_true(tu_offers(&a, VIEW_SCALE), "a scores stage offers it");
    int n[6], sum[6];
    double sd[6];
    draw_scale(&a, n, sum, sd);
    for (int h = 0; h < 6; h++)
        expect_true(n[h] > 0 && sum[h] == n[h], "histogram %d: its bars add up to %d, the values counted %d", h,
                    sum[h], n[h]);
    expect_true(n[0] == 16 && n[2] == SES_DOTS_N && n[4] == SES_DOTS_N,
                "this head's 4 × 4 entries, 4000 random pairs each: %d %d %d", n[0], n[2], n[4]);
    expect_true(fabs(sd[2] / sqrt(8.0) - 1) < 0.04 && fabs(sd[4] / 8.0 - 1) < 0.04 && fabs(sd[3] - 1) < 0.04 &&
                    fabs(sd[5] - 1) < 0.04,
                "printed: d_k = 8 std %.2f, d_k = 64 std %.2f, divided %.2f %.2f", sd[2], sd[4], sd[3], sd[5]);
    expect_true(fabs(sd[1] * sqrt(8.0) - sd[0]) < 1e-3 * sd[0], "this head divided by √8: %.3f vs %.3f", sd[1],
                sd[0]);
    double scaled_on = sd[0];
    TfExperiment e;
    memset(&e, 0, sizeof e);
    e.no_scale = 1;
    app_set_exp(&a, &e);
    app_compute_all(&a);
    draw_scale(&a, n, sum, sd);
    expect_true(n[0] == 16 && fabs(sd[0] - scaled_on) < 1e-3 * scaled_on,
                "with no-scale the scores are QKᵀ itself: std %.4f, with the scale undone %.4f", sd[0], scaled_on);
    app_goto(&a, ST_ENC_INPUT, 0);
    expect_true(!tu_offers(&a, VIEW_SCALE), "enc.input does not offer it");
    tu_view_frame(&a, tu_ren, VIEW_SCALE, (Rect){0, 0, 90, 40}); /* off attention, tiny: no crash */
    ren_end(tu_ren);
    app_free(&a);
}

int main(void)
{
    TU_RUN(setup, teardown, cmocka_unit_test(test_random_std), cmocka_unit_test(test_hist_counts),
           cmocka_unit_test(test_drawn));
}
