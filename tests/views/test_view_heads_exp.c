/* test_view_heads_exp.c - the metrics of the all-heads grid, by
 * synthetic events: M lays each head's entropy and plain-language label
 * (tf_head_label) over its thumbnail (darker pixels at its foot), O sorts
 * the heads of a layer by a metric (the grid's first row holds the most
 * focused heads, in order), and a click still opens the head it shows. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "headstats.h"
#include "test_app_util.h"
#include "test_util.h"

static char MODEL[160];

TU_FIXTURE(MODEL, "hx.safetensors", 1280, 800)

static const Rect AREA = {0, 0, 900, 700};

/* The heads under a horizontal line y, left to right (each once). */
static int heads_along(App *a, int y, int *heads, int *xs, int max)
{
    int n = 0, last = -1;
    for (int x = 0; x < AREA.w && n < max; x += 4) {
        a->ui.in.mx = x;
        a->ui.in.my = y;
        tu_view_frame(a, tu_ren, VIEW_HEADS, AREA);
        if (a->hover.valid && a->hover.layer == 0 && a->hover.head != last) {
            heads[n] = last = a->hover.head;
            xs[n++] = x;
        }
    }
    return n;
}

static uint32_t FOOT[2][20 * 6];

static void test_overlay_and_sort(void **state)
{
    (void)state;
    static App a;
    AppOpts o = tu_opts(MODEL, "t5 t6 t7 t8 t9 t10", NULL, "heads");
    o.head = -1;
    tu_open(&a, &o, 100);
    app_goto(&a, ST_ENC_SELF_WEIGHTS, 0);
    app_set_head(&a, -1);
    app_compute_all(&a);
    /* a row through the first thumbnails */
    int y = -1, heads[16], xs[16], n = 0;
    for (int yy = 100; yy < AREA.h && y < 0; yy += 6) {
        a.ui.in.mx = 0;
        n = heads_along(&a, yy, heads, xs, 16);
        if (n >= 2)
            y = yy;
    }
    expect_true(y > 0 && n >= 2 && heads[0] == 0 && heads[1] == 1, "the first row: heads 1, 2 ... (%d)", n);
    /* the foot of head 1's thumbnail gets darker under the overlay */
    Rect foot = {xs[0] + 2, 0, 20, 0};
    a.ui.in.mx = a.ui.in.my = -50;
    int bottom = y;
    for (; bottom < AREA.h; bottom += 2) {
        a.ui.in.mx = xs[0] + 2;
        a.ui.in.my = bottom;
        tu_view_frame(&a, tu_ren, VIEW_HEADS, AREA);
        if (!a.hover.valid || a.hover.head != 0)
            break;
    }
    foot.y = bottom - 8;
    foot.h = 6;
    a.ui.in.mx = a.ui.in.my = -50;
    tu_view_frame(&a, tu_ren, VIEW_HEADS, AREA);
    ren_read_pixels(tu_ren, foot, FOOT[0]);
    ev_key(&a, 'm', 0);
    tu_view_frame(&a, tu_ren, VIEW_HEADS, AREA);
    ren_read_pixels(tu_ren, foot, FOOT[1]);
    int changed = 0;
    for (int i = 0; i < foot.w * foot.h; i++)
        changed += FOOT[0][i] != FOOT[1][i];
    expect_true(changed > foot.w * foot.h / 2, "M: the overlay covers the thumbnail's foot (%d of %d pixels)",
                changed, foot.w * foot.h);
    /* O: sorted by entropy, the most focused first */
    ev_key(&a, 'o', 0);
    int sh[16], sx[16];
    int m = heads_along(&a, y, sh, sx, 16);
    expect_true(m == n, "as many heads in the row (%d, %d)", m, n);
    TfHeadMetrics hm[16];
    TfErr err;
    int NH = a.ses.model.cfg.n_heads;
    for (int h = 0; h < NH; h++)
        expect_true(tf_head_metrics(&a.ses.trace, TF_ATTN_ENC, 0, h, 0, &hm[h], &err) == 0, "%s", err.msg);
    for (int i = 0; i < m; i++)
        for (int h = 0; h < NH; h++) { /* the first row holds the lowest entropies */
            int in_row = 0;
            for (int j = 0; j < m; j++)
                in_row |= sh[j] == h;
            if (!in_row)
                expect_true(hm[h].entropy >= hm[sh[i]].entropy, "head %d (H %g) after head %d (H %g)", h + 1,
                            hm[h].entropy, sh[i] + 1, hm[sh[i]].entropy);
        }
    for (int i = 1; i < m; i++)
        expect_true(hm[sh[i - 1]].entropy <= hm[sh[i]].entropy, "ascending entropy: head %d %g, head %d %g",
                    sh[i - 1] + 1, hm[sh[i - 1]].entropy, sh[i] + 1, hm[sh[i]].entropy);
    /* a click opens the head shown there (beside the Heads table, the
     * first click selects its row and the second opens it) */
    for (int c = 0; c < 2; c++) {
        a.ui.in.mx = sx[m - 1];
        a.ui.in.my = y;
        ev_mouse(&a, IN_MOUSE_DOWN, sx[m - 1], y, MB_LEFT);
        tu_view_frame(&a, tu_ren, VIEW_HEADS, AREA);
        ev_mouse(&a, IN_MOUSE_UP, sx[m - 1], y, MB_LEFT);
    }
    expect_true(a.ses.head == sh[m - 1], "the click opened head %d (%d)", sh[m - 1] + 1, a.ses.head + 1);
    /* O cycles back to the numbering */
    for (int k = 1; k < 5; k++)
        ev_key(&a, 'o', 0);
    app_free(&a);
}

/* The labels the overlay shows are tf_head_label's, on crafted weights. */
static void test_labels_on_crafted_weights(void **state)
{
    (void)state;
    float prev[16] = {1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0} /* offsets 0 -1 -1 -1 */, flat[16], diag[16] = {0};
    for (int i = 0; i < 16; i++)
        flat[i] = 0.25f;
    for (int i = 0; i < 4; i++)
        diag[i * 5] = 1;
    TfHeadMetrics m;
    tf_metrics_of(prev, 4, 4, 4, &m);
    expect_true(strcmp(tf_head_label(&m, TF_ATTN_DEC), "previous token") == 0, "previous: %s",
                tf_head_label(&m, TF_ATTN_DEC));
    tf_metrics_of(flat, 4, 4, 4, &m);
    expect_true(strcmp(tf_head_label(&m, TF_ATTN_ENC), "broad") == 0, "flat: %s", tf_head_label(&m, TF_ATTN_ENC));
    tf_metrics_of(diag, 4, 4, 4, &m);
    expect_true(strcmp(tf_head_label(&m, TF_ATTN_ENC), "diagonal") == 0, "diagonal: %s",
                tf_head_label(&m, TF_ATTN_ENC));
    expect_true(strcmp(tf_head_label(&m, TF_ATTN_CROSS), "aligns with the source") == 0, "cross diagonal: %s",
                tf_head_label(&m, TF_ATTN_CROSS));
}

int main(void)
{
    TU_RUN(setup, teardown, cmocka_unit_test(test_overlay_and_sort), cmocka_unit_test(test_labels_on_crafted_weights));
}
