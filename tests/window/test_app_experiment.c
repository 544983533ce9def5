/* test_app_experiment.c - experiments in the window, by
 * synthetic events: the Session keeps the normal pass apart from the
 * experiment's (and does not redo it when only the experiment changes), E
 * opens the panel and its keys and buttons toggle interventions, D cycles
 * experiment / normal / difference, a difference cell is drawn in the
 * diverging colour of its value, and the status line says before → after. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "colormap.h"
#include "test_app_util.h"
#include "test_util.h"

static char MODEL[160];

TU_FIXTURE(MODEL, "exp.safetensors", 1280, 800)

static float max_abs_diff(const float *x, const float *y, size_t n)
{
    float m = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i]) && isfinite(y[i]) && fabsf(x[i] - y[i]) > m)
            m = fabsf(x[i] - y[i]);
    return m;
}

/* The two passes: the experiment changes the shown trace, the normal pass
 * stays the plain forward pass and is computed once per input. */
static void test_session_keeps_the_normal_pass(void **state)
{
    (void)state;
    static App a;
    tu_open_exp(&a, MODEL, NULL);
    Session *s = &a.ses;
    TfView plain, ex, base;
    TfErr err;
    expect_true(tf_view(&s->trace, ST_ENC_SELF_WEIGHTS, 0, 0, 0, &plain, &err) == 0, "view: %s", err.msg);
    static float keep[4096];
    size_t n = (size_t)plain.rows * plain.cols;
    for (int r = 0; r < plain.rows; r++)
        memcpy(keep + r * plain.cols, plain.data + (size_t)r * plain.stride, plain.cols * sizeof(float));
    TfExperiment e = {0};
    e.no_scale = 1;
    app_set_exp(&a, &e);
    app_compute_all(&a);
    expect_true(s->ext.have_base && s->ext.base_passes == 1, "one normal pass (%u)", s->ext.base_passes);
    tf_view(&s->trace, ST_ENC_SELF_WEIGHTS, 0, 0, 0, &ex, &err);
    tf_view(&s->ext.base, ST_ENC_SELF_WEIGHTS, 0, 0, 0, &base, &err);
    static float eb[4096], bb[4096];
    for (int r = 0; r < ex.rows; r++) {
        memcpy(eb + r * ex.cols, ex.data + (size_t)r * ex.stride, ex.cols * sizeof(float));
        memcpy(bb + r * ex.cols, base.data + (size_t)r * base.stride, ex.cols * sizeof(float));
    }
    expect_true(max_abs_diff(bb, keep, n) == 0, "the normal pass is the plain one, bit for bit");
    expect_true(max_abs_diff(eb, keep, n) > 1e-4f, "no_scale changes the weights");
    /* only the experiment changes: the normal pass is not recomputed */
    e.no_pe = 1;
    app_set_exp(&a, &e);
    app_compute_all(&a);
    expect_true(s->ext.base_passes == 1, "the normal pass kept (%u passes)", s->ext.base_passes);
    /* the input changes: it is */
    app_set_text(&a, APP_LINE_SRC, "t6 t7");
    app_compute_all(&a);
    expect_true(s->ext.base_passes == 2, "a new input, a new normal pass (%u)", s->ext.base_passes);
    /* none again: the shown pass is the plain one */
    memset(&e, 0, sizeof e);
    app_set_exp(&a, &e);
    app_compute_all(&a);
    expect_true(!session_has_exp(s) && a.cmp == CMP_EXP, "cleared");
    app_free(&a);
}

/* E opens the panel, Alt+S Alt+P Alt+M toggle, Alt+X clears; D cycles the three modes and
 * the Scene follows; the status line shows before → after. */
static void test_keys_and_modes(void **state)
{
    (void)state;
    static App a;
    tu_open_exp(&a, MODEL, "matrix");
    ev_key(&a, 'd', 0);
    expect_true(a.cmp == CMP_EXP, "D without an experiment does nothing but say so");
    ev_key(&a, 'e', 0);
    expect_true(a.show_exp, "E opens the panel");
    ev_key(&a, 's', MOD_ALT);
    expect_true(a.ses.exp.no_scale, "Alt+S: no scaling");
    ev_key(&a, 'p', MOD_ALT);
    ev_key(&a, 'm', MOD_ALT);
    expect_true(a.ses.exp.no_pe && a.ses.exp.no_causal, "Alt+P and Alt+M");
    ev_key(&a, 'p', MOD_ALT);
    expect_true(!a.ses.exp.no_pe, "Alt+P again turns it off");
    tu_frame(&a);
    Scene sc;
    app_scene(&a, &sc);
    expect_true(sc.trace == &a.ses.trace && sc.cmp == CMP_EXP, "experiment mode shows the experiment");
    ev_key(&a, 'd', 0);
    app_scene(&a, &sc);
    expect_true(a.cmp == CMP_NORMAL && sc.trace == &a.ses.ext.base, "D: the normal pass");
    ev_key(&a, 'd', 0);
    app_scene(&a, &sc);
    expect_true(a.cmp == CMP_DIFF && sc.base == &a.ses.ext.base && sc.trace == &a.ses.trace, "D: difference");
    ev_key(&a, 'd', 0);
    expect_true(a.cmp == CMP_EXP, "D: back to the experiment");
    char buf[2200];
    expect_true(app_exp_status(&a, buf, sizeof buf) && strstr(buf, "→"), "status: %s", buf);
    ev_key(&a, 'x', MOD_ALT);
    expect_true(!session_has_exp(&a.ses), "Alt+X clears");
    /* Alt+R: no residual (the identity path); Alt+F: the FFN of the layer shown (decoder layer 2 here) */
    ev_key(&a, 'r', MOD_ALT);
    expect_true(a.ses.exp.no_residual, "Alt+R: no residual connections");
    session_goto(&a.ses, ST_DEC_FFN_HIDDEN, 1);
    expect_true(session_pos(&a.ses).stage == ST_DEC_FFN_HIDDEN && session_pos(&a.ses).layer == 1, "at decoder layer 2's FFN");
    ev_key(&a, 'f', MOD_ALT);
    expect_true(a.ses.exp.n_no_ffn == 1 && tf_exp_ffn_off(&a.ses.exp, TF_ATTN_DEC, 1), "Alt+F: decoder FFN 2 off");
    session_goto(&a.ses, ST_ENC_ADD1, 0);
    ev_key(&a, 'f', MOD_ALT);
    expect_true(a.ses.exp.n_no_ffn == 2 && tf_exp_ffn_off(&a.ses.exp, TF_ATTN_ENC, 0), "Alt+F: encoder FFN 1 off");
    ev_key(&a, 'f', MOD_ALT);
    expect_true(a.ses.exp.n_no_ffn == 1 && !tf_exp_ffn_off(&a.ses.exp, TF_ATTN_ENC, 0), "Alt+F again: back on");
    ev_key(&a, 'r', MOD_ALT);
    expect_true(!a.ses.exp.no_residual && session_has_exp(&a.ses), "Alt+R again: the residual back, the FFN still off");
    ev_key(&a, 'x', MOD_ALT);
    ev_key(&a, 'e', 0);
    expect_true(!a.show_exp, "E closes the panel");
    app_free(&a);
}

/* A difference cell's colour is the diverging map of experiment − normal,
 * on a range symmetric about 0. */
static void test_difference_cell_colour(void **state)
{
    (void)state;
    static App a;
    tu_open_exp_at(&a, MODEL, "matrix", ST_ENC_SELF_WEIGHTS);
    tu_exp_no_scale(&a);
    a.cmp = CMP_DIFF;
    Rect area = {0, 0, 900, 700};
    HeatGeo *h = &a.heat;
    tu_view_frame(&a, tu_ren, VIEW_MATRIX, area);
    expect_true(h->valid && h->cmap == CMAP_DIVERGING && h->lo == -h->hi && h->hi > 0,
                "diverging, centred at 0: [%g, %g] map %d", h->lo, h->hi, h->cmap);
    TfView ev, bv;
    TfErr err;
    tf_view(&a.ses.trace, ST_ENC_SELF_WEIGHTS, 0, 0, 0, &ev, &err);
    tf_view(&a.ses.ext.base, ST_ENC_SELF_WEIGHTS, 0, 0, 0, &bv, &err);
    int checked = 0;
    for (int r = 0; r < ev.rows; r++)
        for (int c = 0; c < ev.cols; c++) {
            float d = tf_view_at(&ev, r, c) - tf_view_at(&bv, r, c);
            int x = h->grid.x + (int)((c + 0.15f) * h->cw), y = h->grid.y + (int)((r + 0.15f) * h->ch);
            uint32_t px;
            ren_read_pixels(tu_ren, (Rect){x, y, 1, 1}, &px);
            uint32_t want = cmap_rgba(CMAP_DIVERGING, (d - h->lo) / (h->hi - h->lo));
            int ok = 1;
            for (int k = 1; k <= 3; k++) {
                int got = (int)(px >> (8 * k)) & 255, exp = (int)(want >> (8 * k)) & 255;
                ok &= abs(got - exp) <= 8;
            }
            expect_true(ok, "cell (%d,%d) = %g: pixel %08x, the map says %08x", r, c, d, px, want);
            checked++;
        }
    expect_true(checked >= 9, "%d cells checked", checked);
    /* hover shows both values */
    a.ui.in.mx = h->grid.x + (int)(1.5f * h->cw);
    a.ui.in.my = h->grid.y + (int)(0.5f * h->ch);
    tu_view_frame(&a, tu_ren, VIEW_MATRIX, area);
    expect_true(a.hover.valid && strstr(a.hover.where, "experiment") && strstr(a.hover.where, "normal"),
                "hover: %s", a.hover.where);
    app_free(&a);
}

/* A hover on the thumbnail of layer 2, head 3. */
static int on_l2h3(const Hover *h, const void *arg)
{
    (void)arg;
    return h->valid && h->layer == 1 && h->head == 2;
}

/* Alt+click on a head of the all-heads grid ablates it (and again brings
 * it back); a plain click still opens the head. */
static void test_alt_click_ablates_a_head(void **state)
{
    (void)state;
    static App a;
    tu_open_exp_at(&a, MODEL, NULL, ST_ENC_SELF_WEIGHTS);
    app_set_head(&a, -1);
    a.view = VIEW_AUTO;
    Rect area = {0, 0, 900, 700};
    int hx = -1, hy = -1;
    expect_true(tu_hover_find(&a, VIEW_HEADS, area, area, 12, 12, on_l2h3, NULL, &hx, &hy),
                "layer 2 head 3 found in the grid");
    for (int k = 0; k < 2; k++) {
        ev_mouse_mod(&a, IN_MOUSE_DOWN, hx, hy, MB_LEFT, MOD_ALT);
        tu_view_frame(&a, tu_ren, VIEW_HEADS, area);
        ev_mouse(&a, IN_MOUSE_UP, hx, hy, MB_LEFT);
        int on = tf_exp_ablated(&a.ses.exp, TF_ATTN_ENC, 1, 2);
        expect_true(on == (k == 0) && a.ses.exp.n_ablate == (k == 0),
                    "Alt+click %d: enc:1:2 ablated %d (%d heads)", k + 1, on, a.ses.exp.n_ablate);
        expect_true(app_pos(&a).stage == ST_ENC_SELF_WEIGHTS && a.ses.head == -1, "the grid stays");
    }
    app_free(&a);
}

int main(void)
{
    TU_RUN(setup, teardown, cmocka_unit_test(test_session_keeps_the_normal_pass), cmocka_unit_test(test_keys_and_modes),
           cmocka_unit_test(test_difference_cell_colour), cmocka_unit_test(test_alt_click_ablates_a_head));
}
