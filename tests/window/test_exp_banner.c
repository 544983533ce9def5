/* test_exp_banner.c - an experiment stays visible once the Experiments
 * panel is closed: a banner over every view names it in the window's
 * numbering (layers and heads from 1) and in the window's language, and
 * says what D shows; without an experiment there is none. The formula of
 * the explanation panel changes with the experiment, the caption of a
 * figure names it, the notices count from 1, and the panel docks beside
 * the view instead of covering the matrix. A hidden source token tells one
 * story: struck through in the tokens view, and the tokens view and the
 * Target line say that both passes read the normal translation. */
#include <string.h>

#include "app.h"
#include "shot_vector.h"
#include "test_app_util.h"
#include "test_util.h"

static char MODEL[160];

TU_FIXTURE(MODEL, "banner.safetensors", 1280, 800)

/* What the text layer drew in the last frame, with its tags. */
static char g_drawn[32768];
static char g_banner[4096];

static void record(void *user, const char *utf8, int len, Rect box, const char *tag)
{
    (void)user;
    (void)box;
    char *to = tag && strcmp(tag, "banner") == 0 ? g_banner : g_drawn;
    size_t cap = to == g_banner ? sizeof g_banner : sizeof g_drawn, n = strlen(to);
    if (n + (size_t)len + 2 < cap) {
        memcpy(to + n, utf8, (size_t)len);
        to[n + (size_t)len] = '\n';
        to[n + (size_t)len + 1] = 0;
    }
}

static void frame_recorded(App *a)
{
    g_drawn[0] = g_banner[0] = 0;
    ren_text_hook(record, NULL);
    tu_frame(a);
    ren_text_hook(NULL, NULL);
}

/* Every view the window has, each with the banner when an experiment is on
 * and without it when none is. */
static void test_banner_on_every_view(void **state)
{
    (void)state;
    static App a;
    tu_open_exp(&a, MODEL, NULL);
    for (int on = 0; on < 2; on++) {
        TfExperiment e = {0};
        e.no_scale = on;
        if (on)
            tf_exp_toggle_head(&e, TF_ATTN_CROSS, 1, 0);
        app_put_exp(&a, &e);
        app_compute_all(&a);
        for (int v = VIEW_MATRIX; v < VIEW_COUNT; v++) {
            a.view = (ViewId)v;
            frame_recorded(&a);
            if (on)
                expect_true(strstr(g_banner, "EXPERIMENT: no 1/√d_k · ablate cross L2 H1") != NULL,
                            "view %s: the banner names the experiment from 1, got '%s'", view_name((ViewId)v),
                            g_banner);
            else
                expect_true(g_banner[0] == 0, "view %s: no banner without an experiment, got '%s'",
                            view_name((ViewId)v), g_banner);
        }
    }
    app_free(&a);
}

/* D's three modes each say what is shown; in Chinese the banner is
 * Chinese. */
static void test_banner_says_what_d_shows(void **state)
{
    (void)state;
    static App a;
    tu_open_exp(&a, MODEL, NULL);
    tu_exp_no_scale(&a);
    const char *want[CMP_COUNT] = {"experiment's pass", "normal pass", "experiment − normal"};
    for (int m = 0; m < CMP_COUNT; m++) {
        a.cmp = m;
        frame_recorded(&a);
        expect_true(strstr(g_banner, want[m]) != NULL, "mode %d: '%s' in '%s'", m, want[m], g_banner);
    }
    a.cmp = CMP_EXP;
    a.look.lang = 1;
    frame_recorded(&a);
    expect_true(ui_i18n_dir() != NULL, "the Chinese catalog is found (make builds it)");
    expect_true(strstr(g_banner, "实验") != NULL && !strstr(g_banner, "EXPERIMENT"),
                "the banner in Chinese: '%s'", g_banner);
    app_free(&a);
}

/* The weights' formula loses its √d_k with no-scale (and has it without). */
static void test_formula_follows_the_experiment(void **state)
{
    (void)state;
    static App a;
    tu_open_exp_at(&a, MODEL, NULL, ST_ENC_SELF_WEIGHTS);
    frame_recorded(&a);
    expect_true(strstr(g_drawn, "A = softmax(QKᵀ/√d_k + M)") != NULL, "the paper's formula without an experiment");
    tu_exp_no_scale(&a);
    frame_recorded(&a);
    expect_true(strstr(g_drawn, "A = softmax(QKᵀ + M)") != NULL && !strstr(g_drawn, "A = softmax(QKᵀ/√d_k + M)"),
                "the formula without the scaling under no-scale");
    TfExperiment e = {0};
    tf_exp_toggle_head(&e, TF_ATTN_ENC, 0, 0);
    app_put_exp(&a, &e);
    app_compute_all(&a);
    frame_recorded(&a);
    expect_true(strstr(g_drawn, "ablated head keeps these weights") != NULL,
                "an ablation says why the weights do not change");
    app_free(&a);
}

/* The caption of a figure names the experiment; the notice of an ablation
 * counts layers and heads from 1, as the window does. */
static void test_caption_and_notice_count_from_one(void **state)
{
    (void)state;
    static App a;
    tu_open_exp(&a, MODEL, NULL);
    TfExperiment e = {0};
    tf_exp_toggle_head(&e, TF_ATTN_CROSS, 1, 0);
    app_set_exp(&a, &e);
    expect_true(strstr(a.notice, "ablate cross L2 H1") != NULL && !strstr(a.notice, "cross:1:0"),
                "the notice counts from 1: '%s'", a.notice);
    char cap[SHOT_CAPTION_MAX];
    shot_caption_text(&a.ses, app_current_view(&a), 0, cap, sizeof cap);
    expect_true(strstr(cap, "EXPERIMENT: ablate cross L2 H1") != NULL, "the caption names it: '%s'", cap);
    app_put_exp(&a, &(TfExperiment){0});
    shot_caption_text(&a.ses, app_current_view(&a), 0, cap, sizeof cap);
    expect_true(!strstr(cap, "EXPERIMENT"), "no experiment, none in the caption: '%s'", cap);
    app_free(&a);
}

static int overlap(Rect a, Rect b)
{
    return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

/* E opens the panel beside the matrix, never over it: at 1280 x 800 in the
 * right panel, at 640 x 480 (no right panel) beside the view. */
static void test_panel_docks_beside_the_matrix(void **state)
{
    (void)state;
    static App a;
    tu_open_exp_at(&a, MODEL, "matrix", ST_ENC_SELF_WEIGHTS);
    ev_key(&a, 'e', 0);
    expect_true(a.show_exp, "E opens the panel");
    for (int size = 0; size < 2; size++) {
        if (size == 1)
            expect_true(ren_resize_headless(tu_ren, 640, 480) == 0, "a small frame");
        tu_frame(&a);
        tu_frame(&a);
        expect_true(a.exp_rect.w > 0 && a.exp_rect.h > 0, "size %d: the panel is drawn", size);
        expect_true(a.heat.valid, "size %d: the matrix is drawn", size);
        expect_true(!overlap(a.exp_rect, a.heat.grid) && !overlap(a.exp_rect, a.view_rect),
                    "size %d: panel (%d,%d %dx%d) clear of the view (%d,%d %dx%d) and the matrix", size,
                    a.exp_rect.x, a.exp_rect.y, a.exp_rect.w, a.exp_rect.h, a.view_rect.x, a.view_rect.y,
                    a.view_rect.w, a.view_rect.h);
    }
    ren_resize_headless(tu_ren, 1280, 800);
    app_free(&a);
}

/* Alt+click hides source token 2: its chip is struck through (a warning
 * line across it), the tokens view says what the decoder reads, and the
 * Target line's hint says the same. */
static void test_hidden_token_one_story(void **state)
{
    (void)state;
    static App a;
    tu_open_exp_at(&a, MODEL, NULL, ST_SRC_TOKENS);
    app_exp_toggle_hide(&a, 1);
    app_compute_all(&a);
    expect_true(strstr(a.notice, "hide source token 2") != NULL, "named from 1: '%s'", a.notice);
    frame_recorded(&a);
    frame_recorded(&a);
    expect_true(strstr(g_drawn, "Struck through") != NULL, "the tokens view says what the strike means");
    expect_true(strstr(g_drawn, "both passes read this as the decoder input") != NULL,
                "and which translation the decoder reads");
    expect_true(strstr(g_drawn, "under the experiment the model translates it as") != NULL,
                "and the experiment's own translation");
    expect_true(strstr(g_drawn, "both passes read the normal greedy translation") != NULL,
                "the Target line tells the same story");
    app_free(&a);
}

int main(void)
{
    TU_RUN(setup, teardown, cmocka_unit_test(test_banner_on_every_view),
           cmocka_unit_test(test_banner_says_what_d_shows), cmocka_unit_test(test_formula_follows_the_experiment),
           cmocka_unit_test(test_caption_and_notice_count_from_one),
           cmocka_unit_test(test_panel_docks_beside_the_matrix), cmocka_unit_test(test_hidden_token_one_story));
}
