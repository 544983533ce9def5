/* test_view_cost.c - the cost view (app/views/view_cost.c):
 *   - the memory it plots is what the trace records (trace.c's plan): per encoder layer,
 *     trace_floats grows by the self-attention's and the FFN's floats of
 *     ses_cost_bytes (ses_measure.c) plus the two Add & Norm steps, at every n measured;
 *   - self-attention's memory grows like n² (×4 per doubling at large n),
 *     the FFN's like n (×2);
 *   - drawn headless, every length is measured within a few frames (a frame
 *     measures what fits its budget, at least one), all times positive and
 *     finite; a tiny area and a big model's shape draw without a crash;
 *   - it is in the tabs of every stage and `view_find("cost")` names it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "ses_measure.h"
#include "test_app_util.h"
#include "test_util.h"
#include "trace.h"
#include "view.h"

static char g_model[96];
TU_FIXTURE(g_model, "view-cost", 1280, 800)

static void test_memory_is_the_traces(void **state)
{
    (void)state;
    TfConfig c = tu_config((TuSize){64, 8, 256, 1, 1, 40, 40, 512});
    for (int n = 8; n <= 256; n *= 2) {
        TfConfig two = c;
        two.n_enc = 2;
        double per_layer = (double)(trace_floats(&two, 1, n, TRACE_RECORD) - trace_floats(&c, 1, n, TRACE_RECORD));
        double attn, ffn;
        ses_cost_bytes(n, c.d_model, c.n_heads, c.d_ff, &attn, &ffn);
        /* the two Add & Norm steps: sum, norm, and mean, rstd (n floats
         * each, which the trace rounds up to 16-float slices) */
        double pad16 = ceil(n / 16.0) * 16.0;
        double norms = 2.0 * (2.0 * n * c.d_model + 2.0 * pad16);
        expect_true(fabs(per_layer - ((attn + ffn) / 4 + norms)) < 0.5,
                    "n = %d: an encoder layer records %.0f floats, attention + FFN + norms = %.0f", n, per_layer,
                    (attn + ffn) / 4 + norms);
    }
    double a128, f128, a256, f256;
    ses_cost_bytes(128, 64, 8, 256, &a128, &f128); /* the shipped models' shape */
    ses_cost_bytes(256, 64, 8, 256, &a256, &f256);
    expect_true(a256 / a128 > 3.5 && a256 / a128 <= 4.0 && fabs(f256 / f128 - 2.0) < 1e-9,
                "doubling n: attention ×%.2f (n² dominates), FFN ×%.2f", a256 / a128, f256 / f128);
}

static void test_measured_in_frames(void **state)
{
    (void)state;
    static App a;
    AppOpts o = tu_opts(g_model, "t5 t6 t7", NULL, "cost");
    tu_open(&a, &o, 1);
    expect_true(app_current_view(&a) == VIEW_COST && view_find("cost") == VIEW_COST, "the cost view opens by name");
    expect_true(tu_offers(&a, VIEW_COST), "the cost view is among the tabs");
    int frames = 0, done = 0;
    while (frames < 12 && (done = a.ses.measure ? a.ses.measure->cost.done : 0) < 6) {
        tu_frame(&a);
        frames++;
    }
    expect_true(done == 6, "all 6 lengths measured within %d frames, got %d", frames, done);
    for (int k = 0; k < 6; k++) {
        double as = a.ses.measure->cost.attn_s[k], fs = a.ses.measure->cost.ffn_s[k];
        expect_true(as > 0 && fs > 0 && isfinite(as) && isfinite(fs) && as < 10 && fs < 10,
                    "n = %d: times %.3g s and %.3g s are measured", 8 << k, as, fs);
    }
    Rect tiny = {10, 10, 50, 40};
    tu_view_frame(&a, tu_ren, VIEW_COST, tiny);
    ren_end(tu_ren);
    app_free(&a);
}

int main(void)
{
    TU_RUN(setup, teardown, cmocka_unit_test(test_memory_is_the_traces), cmocka_unit_test(test_measured_in_frames));
}
