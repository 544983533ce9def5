/* test_view_decode_sample.c - sampling and forcing in the decode view
 * (experiments), by synthetic events: the temperature slider is on a log scale
 * from 0.1 to 5 and the first bar's fill follows softmax(z/T) in pixels at
 * once; Sample (N) draws what tf_translate draws for that seed, a new seed
 * each time, and top-k 1 gives the greedy output; a click on a top-k token
 * of a step forces it, generation goes on from there, the step is marked,
 * and F takes it back. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "test_app_util.h"
#include "test_util.h"
#include "decode_host.h"
#include "view_decode.h"

static char MODEL[160];

TU_FIXTURE(MODEL, "decsample.safetensors", 1280, 800)

static const Rect AREA = {0, 0, 1000, 720};

static DecodeUi *open_decode(App *a, const char *pane)
{
    AppOpts o = tu_opts(MODEL, "t5 t6 t7 t8", NULL, "decode");
    tu_open(a, &o, 100);
    app_compute_all(a);
    tu_view_frame(a, tu_ren, VIEW_DECODE, AREA);
    expect_true(app_decode_setup(a, pane, 0, -1) == 0, "pane %s", pane);
    tu_view_frame(a, tu_ren, VIEW_DECODE, AREA);
    return a->vstate[VIEW_DECODE];
}

static int near_color(uint32_t px, Color c, int tol)
{
    int r = (int)(px >> 24 & 255), g = (int)(px >> 16 & 255), b = (int)(px >> 8 & 255);
    return abs(r - c.r) <= tol && abs(g - c.g) <= tol && abs(b - c.b) <= tol;
}

/* p(id) under softmax(z/T) over the tokens sampling may draw (not <pad>
 * 0 or <bos> 1). */
static double softmax_t(const float *z, int V, double T, int id)
{
    double m = -INFINITY, s = 0;
    for (int i = 2; i < V; i++)
        m = z[i] > m ? z[i] : m;
    for (int i = 2; i < V; i++)
        s += exp((z[i] - m) / T);
    return exp((z[id] - m) / T) / s;
}

/* A hover on a top-k token of step 1. */
static int on_step1_token(const Hover *h, const void *arg)
{
    (void)arg;
    return h->valid && strncmp(h->where, "step 1: p('", 11) == 0;
}

static void press_at(App *a, int x, int y)
{
    ev_mouse(a, IN_MOUSE_MOVE, x, y, 0);
    ev_mouse(a, IN_MOUSE_DOWN, x, y, MB_LEFT);
    tu_view_frame(a, tu_ren, VIEW_DECODE, AREA);
}

static void release_at(App *a, int x, int y)
{
    ev_mouse(a, IN_MOUSE_UP, x, y, MB_LEFT);
    tu_view_frame(a, tu_ren, VIEW_DECODE, AREA);
}

/* The first bar's fill in pixels against softmax(z/T) of its token. */
static void check_bar(App *a, DecodeUi *d)
{
    const DecodeLab *L = dhost_lab(a);
    tu_view_frame(a, tu_ren, VIEW_DECODE, AREA);
    Rect b = d->smp.bar0;
    const Theme *th = theme_get(a->look.theme);
    static uint32_t row[4096];
    ren_read_pixels(tu_ren, (Rect){b.x, b.y + b.h / 2, b.w, 1}, row);
    int fill = 0;
    for (int x = 0; x < b.w; x++)
        fill += near_color(row[x], th->accent, 6);
    double p = softmax_t(L->smp.logits, L->smp.V, d->smp.temp, d->smp.bar0_id);
    expect_true(fabs(fill - p * b.w) <= 3.5, "T %.3f: bar of '%d' %d px, softmax(z/T) %.4f x %d = %.1f px",
                d->smp.temp, d->smp.bar0_id, fill, p, b.w, p * b.w);
}

static void test_temperature_slider(void **state)
{
    (void)state;
    static App a;
    DecodeUi *d = open_decode(&a, "sample");
    DecodeLab *L = dhost_lab(&a);
    dec_select(d, 0);
    d->pane = DEC_PANE_SAMPLE;
    tu_view_frame(&a, tu_ren, VIEW_DECODE, AREA);
    Rect s = d->smp.slider;
    expect_true(s.w > 50, "the slider is drawn (%d px)", s.w);
    d->smp.temp = DEC_T_MAX; /* flat: every token among the bars' candidates */
    tu_view_frame(&a, tu_ren, VIEW_DECODE, AREA);
    for (int i = 0; i < L->smp.n_bars; i++)
        expect_true(L->smp.bar_id[i] != 0 && L->smp.bar_id[i] != 1, "bar %d shows token %d, which is never drawn", i,
                    L->smp.bar_id[i]);
    expect_true(L->smp.dist[0] == 0 && L->smp.dist[1] == 0 && L->smp.n_set == L->smp.V - 2,
                "<pad> and <bos> are never drawn: p %g and %g, %d of %d tokens in the set", L->smp.dist[0],
                L->smp.dist[1], L->smp.n_set, L->smp.V);
    float want[3] = {0.1f, sqrtf(0.1f * 5.0f), 5.0f};
    for (int k = 0; k < 3; k++) {
        int x = s.x + (k == 2 ? s.w : k * s.w / 2);
        press_at(&a, x, s.y + s.h / 2);
        release_at(&a, x, s.y + s.h / 2);
        expect_true(fabsf(d->smp.temp - want[k]) <= 0.02f * want[k] + 0.005f, "log scale: at %d/2 T = %g, want %g", k,
                    d->smp.temp, want[k]);
        check_bar(&a, d);
    }
    /* dragging: T follows the mouse, the bars follow T at once */
    press_at(&a, s.x + 2, s.y + s.h / 2);
    float last = d->smp.temp;
    for (int x = s.x + 10; x < s.x + s.w; x += s.w / 5) {
        ev_mouse(&a, IN_MOUSE_MOVE, x, s.y + s.h / 2, 0);
        tu_view_frame(&a, tu_ren, VIEW_DECODE, AREA);
        expect_true(d->smp.temp > last, "dragging right raises T (%g > %g)", d->smp.temp, last);
        last = d->smp.temp;
        check_bar(&a, d);
    }
    release_at(&a, s.x + s.w / 2, s.y + s.h / 2);
    /* keys: . up and , down by 1.25, never outside [0.1, 5]; T stays the theme */
    float t0 = d->smp.temp;
    ev_key(&a, '.', 0);
    expect_true(fabsf(d->smp.temp - t0 * 1.25f) < 1e-4f || d->smp.temp == DEC_T_MAX, ". : up");
    for (int i = 0; i < 40; i++)
        ev_key(&a, ',', 0);
    expect_true(d->smp.temp == DEC_T_MIN, ", stops at 0.1 (%g)", d->smp.temp);
    ThemeId th0 = a.look.theme;
    float t1 = d->smp.temp;
    a.now += 1;
    ev_key(&a, 't', 0);
    expect_true(a.look.theme != th0 && d->smp.temp == t1, "T in the Sampling pane: the theme (%d -> %d), not T",
                th0, a.look.theme);
    check_bar(&a, d);
    /* the bars are computed when their inputs change, not every frame */
    tu_view_frame(&a, tu_ren, VIEW_DECODE, AREA);
    unsigned made = L->smp.bars_made;
    for (int i = 0; i < 3; i++)
        tu_view_frame(&a, tu_ren, VIEW_DECODE, AREA);
    expect_true(L->smp.bars_made == made, "3 frames of the same bars computed them %u times (none wanted)",
                L->smp.bars_made - made);
    ev_key(&a, 'k', 0); /* top-k */
    tu_view_frame(&a, tu_ren, VIEW_DECODE, AREA);
    expect_true(L->smp.bars_made == made + 1 && d->smp.top_k == 1 && L->smp.n_bars == 1 && L->smp.bar_p[0] == 1.0f,
                "top-k 1: computed %u times (once wanted), %d bars, the first p %g", L->smp.bars_made - made,
                L->smp.n_bars, L->smp.bar_p[0]);
    app_free(&a);
}

static void test_sample_button(void **state)
{
    (void)state;
    static App a;
    DecodeUi *d = open_decode(&a, "sample");
    DecodeLab *L = dhost_lab(&a);
    d->smp.temp = 2.0f;
    ev_key(&a, 'n', 0);
    ev_key(&a, 'n', 0);
    expect_true(L->smp.n_samples == 2 && L->smp.sample_seed[0] == 2 && L->smp.sample_seed[1] == 1,
                "two draws, seeds 1 then 2 (%d)", L->smp.n_samples);
    /* what tf_translate draws for that seed */
    TfTrace tr;
    TfErr err;
    const TfModel *m = &a.ses.model;
    expect_true(trace_build(&tr, &m->cfg, 1, 8, 0, &err) == 0, "%s", err.msg);
    for (int k = 0; k < 2; k++) {
        DecodeOpts o;
        decode_opts_default(&o);
        o.sample = 1;
        o.sampling = (SampleOpts){2.0f, 0, 1.0f};
        o.seed = L->smp.sample_seed[k];
        DecodeResult r = {0};
        expect_true(tf_translate(m, &tr, L->src, L->S, &o, &r, &err) == 0, "%s", err.msg);
        expect_true(r.n == L->smp.sample_n[k] && memcmp(r.ids, L->smp.sample_ids[k], (size_t)r.n * sizeof(int)) == 0,
                    "draw %d is tf_translate's for seed %llu", k, (unsigned long long)o.seed);
        decode_result_free(&r);
    }
    trace_free(&tr);
    /* top-k 1: the greedy output */
    ev_key(&a, 'k', 0);
    expect_true(d->smp.top_k == 1, "K: top-k 1");
    ev_key(&a, 'n', 0);
    expect_true(L->smp.sample_n[0] == L->gen.n && memcmp(L->smp.sample_ids[0], L->gen.ids, (size_t)L->gen.n * sizeof(int)) == 0,
                "top-k 1 samples the greedy translation");
    /* the button draws too */
    tu_view_frame(&a, tu_ren, VIEW_DECODE, AREA);
    int n0 = L->smp.n_samples, found = 0;
    for (int y = 0; y < 200 && !found; y += 4)
        for (int x = 0; x < AREA.w && !found; x += 6) {
            press_at(&a, x, y);
            release_at(&a, x, y);
            found = L->smp.n_samples > n0 || (L->smp.n_samples == DEC_N_SAMPLES && L->smp.sample_seed[0] > 4);
        }
    expect_true(found, "the Sample button draws a translation");
    app_free(&a);
}

static int count_color(Color c)
{
    static uint32_t px[1000 * 720];
    ren_read_pixels(tu_ren, AREA, px);
    int n = 0;
    for (int i = 0; i < AREA.w * AREA.h; i++)
        n += near_color(px[i], c, 4);
    return n;
}

static void test_force_a_token(void **state)
{
    (void)state;
    static App a;
    DecodeUi *d = open_decode(&a, "step");
    DecodeLab *L = dhost_lab(&a);
    dec_select(d, 0);
    tu_view_frame(&a, tu_ren, VIEW_DECODE, AREA);
    int greedy[DEC_CAP_T], gn = L->gen.n;
    memcpy(greedy, L->gen.ids, (size_t)gn * sizeof(int));
    expect_true(gn >= 1, "something generated");
    const Theme *th = theme_get(a.look.theme);
    int warn0 = count_color(th->warn);
    /* a top-k row of step 1 that is not the greedy choice */
    int fx = -1, fy = -1;
    Rect rows = {300, 100, AREA.w - 300, AREA.h - 100};
    expect_true(tu_hover_find(&a, VIEW_DECODE, AREA, rows, 40, 5, on_step1_token, NULL, &fx, &fy),
                "a top-k token of step 1 under the mouse");
    press_at(&a, fx, fy);
    release_at(&a, fx, fy);
    tu_view_frame(&a, tu_ren, VIEW_DECODE, AREA);
    expect_true(L->smp.force.n_force == 1 && L->gen.steps[0].forced && L->gen.ids[0] != greedy[0],
                "step 1 forced to %d (greedy %d)", L->gen.ids[0], greedy[0]);
    /* generation went on from there: what tf_generate makes with that force */
    TfTrace tr;
    TfErr err;
    const TfModel *m = &a.ses.model;
    expect_true(trace_build(&tr, &m->cfg, 1, 8, TRACE_RECORD, &err) == 0, "%s", err.msg);
    DecodeOpts o;
    decode_opts_default(&o);
    o.n_force = 1;
    o.force[0] = (DecodeForce){0, L->gen.ids[0]};
    DecodeResult r = {0};
    expect_true(tf_generate(m, &tr, L->src, L->S, L->max_out, 0, &o, &r, &err) == 0, "%s", err.msg);
    expect_true(r.n == L->gen.n && memcmp(r.ids, L->gen.ids, (size_t)r.n * sizeof(int)) == 0,
                "the rest is generated from the forced prefix");
    decode_result_free(&r);
    trace_free(&tr);
    expect_true(d->sel == 0, "the forced step is inspected");
    int warn1 = count_color(th->warn);
    expect_true(warn1 > warn0 + 20, "the forced step is marked (%d -> %d warning-coloured pixels)", warn0, warn1);
    /* F: back to greedy */
    ev_key(&a, 'f', 0);
    tu_view_frame(&a, tu_ren, VIEW_DECODE, AREA);
    expect_true(L->smp.force.n_force == 0 && L->gen.n == gn && memcmp(L->gen.ids, greedy, (size_t)gn * sizeof(int)) == 0,
                "F takes the forced token back");
    app_free(&a);
}

/* The Sampling pane, entered with the step generation ended on still
 * inspected, inspects the step the model was least sure of; a step the
 * learner chose stays chosen. */
static void test_pane_opens_on_least_sure_step(void **state)
{
    (void)state;
    static App a;
    DecodeUi *d = open_decode(&a, "gen");
    DecodeLab *L = dhost_lab(&a);
    expect_true(L->gen.n >= 2 && L->gen.steps && d->sel == L->gen.n - 1, "generation ends on step %d of %d",
                d->sel, L->gen.n);
    int least = 0;
    for (int i = 1; i < L->gen.n; i++)
        if (L->gen.steps[i].prob < L->gen.steps[least].prob)
            least = i;
    printf("  generation: %d steps, the least sure %d\n", L->gen.n, least);
    expect_true(app_decode_setup(&a, "sample", 0, -1) == 0, "pane sample");
    tu_view_frame(&a, tu_ren, VIEW_DECODE, AREA);
    expect_true(d->sel == least && L->smp.logits_at == least,
                "the Sampling pane inspects step %d (p %.3f, the least sure), shows its bars (at %d)", d->sel,
                L->gen.steps[least].prob, L->smp.logits_at);
    int other = least == 0 ? 1 : 0;
    expect_true(app_decode_setup(&a, "gen", 0, -1) == 0, "back to gen");
    dec_select(d, other);
    expect_true(app_decode_setup(&a, "sample", 0, -1) == 0, "sample again");
    expect_true(d->sel == other, "a step the learner chose stays (%d, want %d)", d->sel, other);
    app_free(&a);
}

/* Another sentence of the batch (the input's version unchanged): the bars
 * are those of the new sentence's prefix, not the last one's kept. */
static void test_bars_follow_the_sentence(void **state)
{
    (void)state;
    static App a;
    AppOpts o = tu_opts(MODEL, "t5 t6 t7 t8", NULL, "decode");
    o.src[1] = "t9 t10 t11 t12 t13 t14";
    o.n_src = 2;
    tu_open(&a, &o, 100);
    app_compute_all(&a);
    tu_view_frame(&a, tu_ren, VIEW_DECODE, AREA);
    expect_true(app_decode_setup(&a, "sample", 0, -1) == 0, "pane sample");
    DecodeUi *d = a.vstate[VIEW_DECODE];
    DecodeLab *L = dhost_lab(&a);
    tu_view_frame(&a, tu_ren, VIEW_DECODE, AREA);
    int V = L->smp.V, s = d->sel;
    expect_true(V > 0 && L->smp.logits_at == s && s >= 0, "the bars of sentence 1, step %d", s);
    float *first = malloc((size_t)V * sizeof(float));
    memcpy(first, L->smp.logits, (size_t)V * sizeof(float));
    uint64_t version = L->version;
    session_set_batch(&a.ses, 1);
    tu_view_frame(&a, tu_ren, VIEW_DECODE, AREA);
    dec_select(d, s); /* the step whose bars sentence 1 left */
    tu_view_frame(&a, tu_ren, VIEW_DECODE, AREA);
    expect_true(L->version == version && L->batch == 1 && L->S == 6, "sentence 2 shown, the version kept");
    TfTrace tr;
    TfErr err;
    expect_true(trace_build(&tr, &a.ses.model.cfg, 1, 8, 0, &err) == 0 &&
                    tf_teacher_forced(&a.ses.model, &tr, a.ses.src_ids[1], a.ses.src_n[1], L->gen.ids, s, NULL, NULL,
                                      NULL, &err) == 0,
                "teacher forced: %s", err.msg);
    const float *want = tr.logits + (size_t)s * V;
    expect_true(L->smp.logits_at == s && memcmp(L->smp.logits, want, (size_t)V * sizeof(float)) == 0 &&
                    memcmp(first, want, (size_t)V * sizeof(float)) != 0,
                "the bars are sentence 2's logits at step %d, not sentence 1's", s);
    trace_free(&tr);
    free(first);
    app_free(&a);
}

static void test_decode_under_experiment(void **state)
{
    (void)state;
    static App a;
    open_decode(&a, "gen");
    DecodeLab *L = dhost_lab(&a);
    TfExperiment e = {0};
    e.no_causal = 1;
    app_set_exp(&a, &e);
    app_compute_all(&a);
    tu_view_frame(&a, tu_ren, VIEW_DECODE, AREA);
    static uint32_t px[2][1000 * 720];
    ren_read_pixels(tu_ren, AREA, px[0]);
    int T = L->tf_n, inf = 0;
    for (int i = 0; i < T * T; i++)
        inf += isinf(L->tf_mask[i]) != 0;
    expect_true(T > 1 && inf == 0 && L->tr.exp.no_causal, "experiment: no causal mask applied (%d -inf)", inf);
    a.cmp = CMP_NORMAL;
    tu_view_frame(&a, tu_ren, VIEW_DECODE, AREA);
    ren_read_pixels(tu_ren, AREA, px[1]);
    inf = 0;
    for (int i = 0; i < T * T; i++)
        inf += isinf(L->tf_mask[i]) != 0;
    expect_true(inf == T * (T - 1) / 2 && !L->tr.exp.no_causal, "D, normal: the causal mask again (%d -inf)", inf);
    expect_true(memcmp(px[0], px[1], sizeof px[0]) != 0, "another picture");
    app_free(&a);
}

int main(void)
{
    TU_RUN(setup, teardown, cmocka_unit_test(test_temperature_slider), cmocka_unit_test(test_sample_button),
           cmocka_unit_test(test_force_a_token), cmocka_unit_test(test_decode_under_experiment),
           cmocka_unit_test(test_pane_opens_on_least_sure_step), cmocka_unit_test(test_bars_follow_the_sentence));
}
