/* test_view_pe_norm_ffn.c - the positional-encoding, Add & Norm and feed-forward
 * views, drawn headless and checked against the engine's numbers:
 *   - the rotation demo: R(k·ω)·PE(pos) equals the table's PE(pos+k) for
 *     every pair, pos and k, and R is a rotation;
 *   - PE table cells have the colour of their value on -1..1; a click on a
 *     column plots that dimension;
 *   - the Add & Norm matrices are the right buffers for both norm
 *     placements (sum = x + Sublayer, LayerNorm(input) with the model's γ, β
 *     gives the output, the stored mean/rstd are the input's);
 *   - ReLU zeros are drawn in the zero grey and only they; the sentence the
 *     FFN view shows counts the zeros of the trace;
 *   - the token labels under the waves: every token (or every k-th, the
 *     same k for all) written whole or cut, none over another, and the
 *     whole token beside the mouse;
 *   - 1-token and 33-token sentences, d_model 512, pre-LN, tiny areas,
 *     presenter text and every theme draw without a crash and stay inside
 *     their area.
 * Needs no display (the software renderer, headless). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "checkpoint.h"
#include "colormap.h"
#include "ops.h"
#include "test_app_util.h"
#include "test_util.h"
#include "view.h"

#define W 1280
#define H 800

/* The rectangle the tests draw the views into and hover over. */
static const Rect AREA = {300, 70, 680, 640};

/* Model files, named by the process id so that two runs at once (make test
 * and make test SANITIZE=1) do not remove each other's. */
static char POST[96], PRE[96], BASE[96];

/* γ and β away from 1 and 0, so using the wrong LayerNorm would show. */
static void perturb_ln(float *w, float *b, size_t n)
{
    for (size_t i = 0; w && i < n; i++) {
        w[i] = 1.0f + 0.3f * sinf(0.7f * (float)i);
        b[i] = 0.2f * cosf(1.3f * (float)i);
    }
}

static int write_model(const char *path, int C, int F, int L, TfNorm norm)
{
    TfConfig c;
    TfErr err;
    cfg_preset(&c, "classroom", &err);
    c.d_model = C;
    c.n_heads = 4;
    c.d_ff = F;
    c.n_enc = c.n_dec = L;
    c.src_vocab = c.tgt_vocab = 40;
    c.max_len = 64;
    c.norm = norm;
    TfModel m;
    if (model_init_random(&m, &c, 11, &err))
        return -1;
    TfParams *p = &m.p;
    size_t LC = (size_t)L * C;
    perturb_ln(p->enc_ln1_w, p->enc_ln1_b, LC);
    perturb_ln(p->enc_ln2_w, p->enc_ln2_b, LC);
    perturb_ln(p->dec_ln1_w, p->dec_ln1_b, LC);
    perturb_ln(p->dec_ln2_w, p->dec_ln2_b, LC);
    perturb_ln(p->dec_ln3_w, p->dec_ln3_b, LC);
    perturb_ln(p->enc_lnf_w, p->enc_lnf_b, (size_t)C);
    perturb_ln(p->dec_lnf_w, p->dec_lnf_b, (size_t)C);
    int rc = ckpt_save(&m, path, &err);
    model_free(&m);
    return rc;
}

static int setup(void **state)
{
    (void)state;
    TfErr err;
    int pid = (int)getpid();
    snprintf(POST, sizeof POST, "/tmp/stepformer-test-view-pe-%d-post.safetensors", pid);
    snprintf(PRE, sizeof PRE, "/tmp/stepformer-test-view-pe-%d-pre.safetensors", pid);
    snprintf(BASE, sizeof BASE, "/tmp/stepformer-test-view-pe-%d-512.safetensors", pid);
    if (write_model(POST, 64, 256, 2, TF_NORM_POST) || write_model(PRE, 64, 256, 2, TF_NORM_PRE) ||
        write_model(BASE, 512, 2048, 1, TF_NORM_POST))
        return -1;
    tu_ren = ren_open_headless(W, H, &err);
    return tu_ren ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    tu_fixture_close(NULL);
    remove(POST);
    remove(PRE);
    remove(BASE);
    return 0;
}

static void open_app(App *a, const char *model, const char *src, const char *tgt, const char *stage,
                     int layer)
{
    AppOpts o = tu_opts(model, src, tgt, NULL);
    o.stage = stage;
    o.layer = layer;
    o.no_save = 0;
    tu_open(a, &o, 100);
    a->anim_start = 0;
}

/* Draw one view into area on a fresh frame with the mouse at (mx, my)
 * (pressed when `press`); the frame stays open for reading. */
static void draw_view(App *a, ViewId view, Rect area, int mx, int my, int press)
{
    a->ui.in = (UiInput){.mx = mx, .my = my, .pressed = press, .down = press};
    tu_view_frame(a, tu_ren, view, area);
}

static uint32_t pixel(int x, int y)
{
    uint32_t p = 0;
    ren_read_pixels(tu_ren, (Rect){x, y, 1, 1}, &p);
    return p;
}

static int chan_diff(uint32_t p, Color c)
{
    int d = abs((int)(p >> 24) - c.r);
    int e = abs((int)((p >> 16) & 255) - c.g);
    int f = abs((int)((p >> 8) & 255) - c.b);
    return d > e ? (d > f ? d : f) : (e > f ? e : f);
}

/* Largest |got - want| over n values, and where. */
static double worst_diff(const float *got, const float *want, size_t n, size_t *at)
{
    double w = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)got[i] - want[i]);
        if (!(d <= w)) { /* NaN counts as the worst */
            w = d;
            *at = i;
        }
    }
    return w;
}

/* A cell of a heatmap found by hovering: (x, y) is inside it and so are its
 * four neighbours, so the pixel there is the cell's colour. */
typedef struct Probe {
    int x, y, row, col;
    float value;
    char where[640];
} Probe;

static int hover_at(App *a, ViewId view, Rect area, int x, int y, StageId st, Hover *h)
{
    draw_view(a, view, area, x, y, 0);
    ren_end(tu_ren);
    *h = a->hover;
    return h->valid && h->stage == st && strncmp(h->where, "row ", 4) == 0;
}

/* Up to max probes of stage st's heatmap cells, hovering a grid of points
 * of `where` (a part of the view's area, to keep the test fast). */
static int find_cells(App *a, ViewId view, Rect area, Rect where, StageId st, Probe *out,
                      int max, int step)
{
    int n = 0;
    for (int y = where.y + 2; y < where.y + where.h - 2 && n < max; y += step) {
        for (int x = where.x + 2; x < where.x + where.w - 2 && n < max; x += step) {
            Hover h, k;
            if (!hover_at(a, view, area, x, y, st, &h))
                continue;
            /* both diagonal neighbours in the same cell: so is the whole
             * 3 x 3 block (cells are rectangles) */
            int same = 1;
            for (int d = -1; d <= 1 && same; d += 2)
                same = hover_at(a, view, area, x + d, y + d, st, &k) && k.row == h.row && k.col == h.col;
            if (!same)
                continue;
            out[n] = (Probe){x, y, h.row, h.col, h.value, ""};
            snprintf(out[n].where, sizeof out[n].where, "%s", h.where);
            n++;
        }
    }
    return n;
}

/* ------------------------------------------------------------------ PE */

static void test_rotation_equals_table(void **state)
{
    (void)state;
    static App a;
    open_app(&a, POST, "t5 t6 t7", NULL, "pos.enc", 0);
    const TfTrace *tr = &a.ses.trace;
    int C = tr->cfg.d_model, rows = tr->cap_T;
    double worst = 0;
    int at[3] = {0, 0, 0}, checked = 0;
    for (int i = 0; 2 * i + 1 < C; i++)
        for (int pos = 0; pos < rows; pos++)
            for (int k = -pos; pos + k < rows; k++) {
                float R[2][2], out[2];
                expect_true(pe_rotate(tr->pe, rows, C, i, pos, k, R, out) == 0,
                            "pair %d pos %d k %d inside the table", i, pos, k);
                const float *want = tr->pe + (size_t)(pos + k) * C + 2 * i;
                double d = fmax(fabs(out[0] - want[0]), fabs(out[1] - want[1]));
                if (d > worst) {
                    worst = d;
                    at[0] = i, at[1] = pos, at[2] = k;
                }
                checked++;
            }
    printf("  %d rotations: worst |R·PE(pos) − PE(pos+k)| = %.3g at pair %d pos %d k %d\n", checked,
           worst, at[0], at[1], at[2]);
    expect_true(worst <= 1e-5, "R·PE(pos) = PE(pos+k) within 1e-5, got %.3g", worst);
    float R[2][2], out[2];
    expect_true(pe_rotate(tr->pe, rows, C, 0, rows - 1, 1, R, out) == -1 &&
                    pe_rotate(tr->pe, rows, C, C / 2, 0, 1, R, out) == -1 &&
                    pe_rotate(tr->pe, rows, C, 0, 2, -3, R, out) == -1,
                "positions and pairs outside the table are refused");
    app_free(&a);
}

static void test_rotation_is_a_rotation(void **state)
{
    (void)state;
    static App a;
    open_app(&a, POST, "t5 t6 t7", NULL, "pos.enc", 0);
    const TfTrace *tr = &a.ses.trace;
    int C = tr->cfg.d_model;
    double worst = 0;
    for (int i = 0; i < C / 2; i += 5) {
        for (int k = 1; k < 20; k += 6) {
            float R[2][2], out[2];
            pe_rotate(tr->pe, tr->cap_T, C, i, 0, k, R, out);
            double w = 1.0 / pow(10000.0, 2.0 * i / C), c = cos(k * w), s = sin(k * w);
            float got[4] = {R[0][0], R[0][1], R[1][0], R[1][1]};
            float want[4] = {(float)c, (float)s, (float)-s, (float)c};
            size_t at = 0;
            double d = worst_diff(got, want, 4, &at);
            worst = d > worst ? d : worst;
            expect_true(d <= 1e-6, "R(k·ω) pair %d k %d = [cos kω, sin kω; -sin kω, cos kω]: entry %zu is %.9g, want %.9g",
                        i, k, at, got[at], want[at]);
            float det = R[0][0] * R[1][1] - R[0][1] * R[1][0];
            expect_true(fabsf(det - 1) < 1e-5f, "det R = 1, got %.7f", det);
            expect_true(fabs(pe_omega(i, C) - w) < 1e-12, "ω_%d = %.9g, got %.9g", i, w, pe_omega(i, C));
        }
    }
    printf("  R(k·ω) against cos/sin of k·ω: worst entry difference %.3g\n", worst);
    app_free(&a);
}

static void test_pe_table_cells(void **state)
{
    (void)state;
    static App a;
    open_app(&a, POST, "t5 t6 t7 t8", "t9 t10", "pos.enc", 0);
    Probe p[16];
    Rect low_left = {AREA.x, AREA.y + AREA.h / 2, AREA.w / 2, AREA.h / 2};
    int n = find_cells(&a, VIEW_PE, AREA, low_left, ST_POS_ENC, p, 16, 19);
    expect_true(n >= 8, "found PE table cells by hovering, got %d", n);
    draw_view(&a, VIEW_PE, AREA, 0, 0, 0); /* no hover outline now */
    int bad = 0;
    /* the engine's table (the trace's own holds only the rows the input needs) */
    int C = a.ses.trace.cfg.d_model, rows = a.ses.trace.cfg.max_len;
    float *table = malloc((size_t)rows * C * sizeof(float));
    pe_table(table, rows, C);
    for (int i = 0; i < n; i++) {
        float want_v = table[(size_t)p[i].row * C + p[i].col];
        Color want = cmap_color(a.look.cmap_signed, (want_v + 1.0f) / 2.0f);
        uint32_t got = pixel(p[i].x, p[i].y);
        int d = chan_diff(got, want);
        if (d > 4 || p[i].value != want_v) {
            printf("  cell pos %d dim %d: value %g (table %g) colour %08x, want %02x%02x%02x (diff %d)\n",
                   p[i].row, p[i].col, p[i].value, want_v, got, want.r, want.g, want.b, d);
            bad++;
        }
    }
    ren_end(tu_ren);
    free(table);
    printf("  %d PE table cells checked against cmap((v + 1) / 2)\n", n);
    expect_true(bad == 0, "every probed cell has its value's colour on -1..1, %d differ", bad);
    /* a click on a column plots that dimension (wave slot 3) and rotates
     * its pair */
    draw_view(&a, VIEW_PE, AREA, p[n - 1].x, p[n - 1].y, 1);
    ren_end(tu_ren);
    int dims[4], pair, pos, k;
    view_pe_choices(a.vstate[VIEW_PE], dims, &pair, &pos, &k);
    expect_true(dims[3] == p[n - 1].col && pair == p[n - 1].col / 2,
                "click on dim %d: wave 4 shows dim %d, pair %d", p[n - 1].col, dims[3], pair);
    app_free(&a);
}

/* ------------------------------------------------------------ Add & Norm */

static const float *ln_params(const TfModel *m, StageId st, int l, int bias)
{
    const TfParams *p = &m->p;
    size_t o = (size_t)l * m->cfg.d_model;
    switch (st) {
    case ST_ENC_ADD1: case ST_ENC_NORM1: return (bias ? p->enc_ln1_b : p->enc_ln1_w) + o;
    case ST_ENC_ADD2: case ST_ENC_NORM2: return (bias ? p->enc_ln2_b : p->enc_ln2_w) + o;
    case ST_DEC_ADD1: case ST_DEC_NORM1: return (bias ? p->dec_ln1_b : p->dec_ln1_w) + o;
    case ST_DEC_ADD2: case ST_DEC_NORM2: return (bias ? p->dec_ln2_b : p->dec_ln2_w) + o;
    case ST_DEC_ADD3: case ST_DEC_NORM3: return (bias ? p->dec_ln3_b : p->dec_ln3_w) + o;
    case ST_ENC_FINAL: return bias ? p->enc_lnf_b : p->enc_lnf_w;
    default: return bias ? p->dec_lnf_b : p->dec_lnf_w;
    }
}

/* One check of one stage: fail naming the stage when over tolerance; keep
 * the worst for the summary. */
static void expect_near(const char *what, const char *stage, int layer, const float *got, const float *want,
                        size_t n, double tol, double *worst)
{
    size_t at = 0;
    double d = worst_diff(got, want, n, &at);
    if (!(d <= *worst))
        *worst = d;
    expect_true(d <= tol, "%s layer %d: %s within %g, worst %.3g at [%zu] (got %.9g, want %.9g)", stage, layer,
                what, tol, d, at, got[at], want[at]);
}

/* For every Add & Norm stage and layer: x + Sublayer = the sum (exactly),
 * and LayerNorm(the LN input) with the model's γ, β = the LN output, with
 * the stored mean and rstd. */
static void check_norm_steps(const char *model, TfNorm norm)
{
    static App a;
    open_app(&a, model, "t5 t6 t7 t8 t9", "t10 t11 t12", NULL, 0);
    const TfTrace *tr = &a.ses.trace;
    expect_true(tr->cfg.norm == norm, "model norm placement %d, got %d", norm, tr->cfg.norm);
    static const StageId st[] = {ST_ENC_ADD1, ST_ENC_NORM1, ST_ENC_ADD2, ST_ENC_NORM2, ST_DEC_ADD1,
                                 ST_DEC_NORM1, ST_DEC_ADD2, ST_DEC_NORM2, ST_DEC_ADD3, ST_DEC_NORM3,
                                 ST_ENC_FINAL, ST_DEC_FINAL};
    int C = tr->cfg.d_model, pre = norm == TF_NORM_PRE, steps = 0;
    static float ln[APP_CAP_T * 64], mean[APP_CAP_T], rstd[APP_CAP_T], sum[APP_CAP_T * 64];
    double w_sum = 0, w_ln = 0, w_stats = 0;
    for (size_t s = 0; s < sizeof st / sizeof st[0]; s++) {
        if (!stage_exists(st[s], &tr->cfg))
            continue;
        for (int l = 0; l < stage_layers(st[s], &tr->cfg); l++) {
            TfView v[4];
            int in, out;
            const float *m, *r;
            int n = norm_step_views(tr, st[s], l, 0, v, &in, &out, &m, &r);
            const char *name = stage_info(st[s])->name;
            int final = st[s] == ST_ENC_FINAL || st[s] == ST_DEC_FINAL;
            expect_true(n == (final ? 2 : 4), "%s: %d matrices, got %d", name, final ? 2 : 4, n);
            size_t rows = (size_t)v[0].rows;
            if (!final) { /* the sum is x + Sublayer, bit for bit */
                int isub = pre ? 2 : 1, isum = pre ? 3 : 2;
                add_forward(sum, v[0].data, v[isub].data, rows * C);
                expect_near("x + Sublayer = sum", name, l, v[isum].data, sum, rows * C, 0, &w_sum);
                expect_true(in == (pre ? 0 : 2) && out == (pre ? 1 : 3), "%s: LN in %d out %d", name, in, out);
            }
            layernorm_forward(ln, mean, rstd, v[in].data, ln_params(&a.ses.model, st[s], l, 0),
                              ln_params(&a.ses.model, st[s], l, 1), (int)rows, C);
            expect_near("LayerNorm(input)·γ + β = output", name, l, v[out].data, ln, rows * C, 1e-5, &w_ln);
            expect_near("stored mean", name, l, m, mean, rows, 1e-6, &w_stats);
            expect_near("stored rstd", name, l, r, rstd, rows, 1e-5, &w_stats);
            steps++;
        }
    }
    printf("  %d steps: sum = x + Sublayer worst %.3g; LN(input) = output worst %.3g; mean, rstd worst %.3g\n",
           steps, w_sum, w_ln, w_stats);
    expect_true(steps == (pre ? 22 : 20), "Add & Norm stages checked: %d", steps);
    app_free(&a);
}

static void test_norm_buffers_post_ln(void **state)
{
    (void)state;
    check_norm_steps(POST, TF_NORM_POST);
}

static void test_norm_buffers_pre_ln(void **state)
{
    (void)state;
    check_norm_steps(PRE, TF_NORM_PRE);
}

/* The Add & Norm view's heatmaps are the step's matrices: hovering finds
 * the sum and the norm of the current stage with their trace values. */
static void test_norm_view_hover(void **state)
{
    (void)state;
    static App a;
    open_app(&a, POST, "t5 t6 t7", "t8 t9", "enc.norm1", 1);
    Probe p[8];
    /* post-LN: x, Sublayer(x) above the sum and the norm, bottom right */
    Rect top = {AREA.x, AREA.y, AREA.w, AREA.h / 2};
    Rect quad = {AREA.x + AREA.w / 2, AREA.y + AREA.h / 4, AREA.w / 2, AREA.h / 4};
    int n = find_cells(&a, VIEW_NORM, AREA, quad, ST_ENC_NORM1, p, 6, 13);
    expect_true(n >= 3, "hovering finds cells of enc.norm1, got %d", n);
    const float *norm = a.ses.trace.enc[1].n1.norm;
    for (int i = 0; i < n; i++) {
        float want = norm[(size_t)p[i].row * a.ses.trace.cfg.d_model + p[i].col];
        expect_true(p[i].value == want, "hover %s = %g, trace %g", p[i].where, p[i].value, want);
    }
    top.w /= 2;
    top.y += top.h / 2;
    top.h /= 2;
    n = find_cells(&a, VIEW_NORM, AREA, top, ST_ENC_ADD1, p, 2, 13);
    expect_true(n >= 1, "the sum x + Sublayer(x) is on screen too, found %d cells", n);
    app_free(&a);
}

/* Under the experiment no-residual the add stage holds Sublayer(x) alone:
 * the view's titles say what was computed (LayerNorm(Sublayer(x))), never
 * the paper's x + Sublayer(x), for post-LN and pre-LN; without it they are
 * the paper's. */
static void expect_norm_titles(App *a, const char *want, const char *absent, const char *what)
{
    tu_drawn_start();
    draw_view(a, VIEW_NORM, AREA, 0, 0, 0);
    ren_end(tu_ren);
    tu_drawn_stop();
    expect_true(strstr(tu_drawn.text, want) != NULL, "%s: the Add & Norm view draws \"%s\"", what, want);
    expect_true(strstr(tu_drawn.text, absent) == NULL, "%s: it does not draw \"%s\"", what, absent);
}

static void test_norm_view_no_residual(void **state)
{
    (void)state;
    static App a;
    const char *model[2] = {POST, PRE};
    const char *paper[2] = {"x + Sublayer(x)", "x + Sublayer(LayerNorm(x))"};
    const char *none[2] = {"LayerNorm(Sublayer(x))", "Sublayer(LayerNorm(x)), x not added"};
    for (int m = 0; m < 2; m++) {
        open_app(&a, model[m], "t5 t6 t7", "t8 t9", "enc.norm1", 0);
        expect_norm_titles(&a, paper[m], none[m], m ? "pre-LN, normal pass" : "post-LN, normal pass");
        TfExperiment e = {0};
        e.no_residual = 1;
        app_set_exp(&a, &e);
        app_compute_all(&a);
        expect_true(a.ses.trace.exp.no_residual == 1, "the trace shown is the experiment's");
        expect_norm_titles(&a, none[m], paper[m], m ? "pre-LN, no-residual" : "post-LN, no-residual");
        app_free(&a);
    }
}

/* The rotation panel's labels on the circle, the tokens "0 i" … "3 today"
 * and the axis names "dim 4 (sin)", "dim 5 (cos)", keep a gap of 6 px
 * between any two, in English and Chinese (whose axis names are wider), at
 * the view's sizes in a 1280 x 800 and an 800 x 600 window; the panel a
 * lesson's @pane asks for is the one a narrow view shows. */
static int rot_label(const char *s)
{
    static const char *toks[] = {"0 i", "1 read", "2 books", "3 today"};
    for (size_t i = 0; i < sizeof toks / sizeof toks[0]; i++)
        if (strcmp(s, toks[i]) == 0)
            return 1;
    return strstr(s, "(sin)") || strstr(s, "(cos)") || strstr(s, "（正弦）") || strstr(s, "（余弦）");
}

static void test_rotation_labels_apart(void **state)
{
    (void)state;
    static App a;
    static const Rect areas[] = {{290, 90, 680, 625}, {190, 90, 400, 425}};
    for (int lang = 0; lang < 2; lang++)
        for (size_t k = 0; k < sizeof areas / sizeof areas[0]; k++) {
            open_app(&a, "assets/models/en2zh.safetensors", "i read books today", NULL, "pos.enc", 0);
            a.look.lang = lang;
            expect_true(view_pe_panel(a.vstate[VIEW_PE], "rotation") == 0 &&
                            view_pe_panel(a.vstate[VIEW_PE], "circle") == -1,
                        "the PE view takes the panels' names");
            tu_drawn_start();
            draw_view(&a, VIEW_PE, areas[k], -1, -1, 0);
            ren_end(tu_ren);
            tu_drawn_stop();
            int idx[16], n = 0;
            for (int i = 0; i < tu_drawn.n && n < 16; i++)
                if (rot_label(tu_drawn.s[i]))
                    idx[n++] = i;
            expect_true(n == 6, "lang %d, area %zu: 4 tokens and 2 axis names on the circle, found %d:\n%s", lang, k,
                        n, tu_drawn.text);
            for (int i = 0; i < n; i++)
                for (int j = i + 1; j < n; j++) {
                    Rect p = tu_drawn.box[idx[i]], q = tu_drawn.box[idx[j]];
                    int apart = p.x + p.w + 6 <= q.x || q.x + q.w + 6 <= p.x || p.y + p.h + 6 <= q.y ||
                                q.y + q.h + 6 <= p.y;
                    expect_true(apart, "lang %d, area %zu: \"%s\" (%d,%d %dx%d) is 6 px clear of \"%s\" (%d,%d %dx%d)",
                                lang, k, tu_drawn.s[idx[i]], p.x, p.y, p.w, p.h, tu_drawn.s[idx[j]], q.x, q.y, q.w,
                                q.h);
                }
            app_free(&a);
        }
}

/* ------------------------------------------------------------------ FFN */

static void test_ffn_zero_cells(void **state)
{
    (void)state;
    static App a;
    open_app(&a, POST, "t5 t6 t7", "t8 t9", "enc.ffn.hidden", 0);
    a.pz[VIEW_FFN].zoom = 2.0f; /* cells a few pixels wide */
    Probe p[24];
    Rect top = {AREA.x, AREA.y, AREA.w, AREA.h / 2};
    int n = find_cells(&a, VIEW_FFN, AREA, top, ST_ENC_FFN_HIDDEN, p, 24, 9);
    draw_view(&a, VIEW_FFN, AREA, 0, 0, 0);
    const float *hid = a.ses.trace.enc[0].ffn_hidden;
    int F = a.ses.trace.cfg.d_ff, zeros = 0, bad = 0;
    float mx = 0;
    for (int i = 0; i < a.ses.trace.S * F; i++)
        mx = fmaxf(mx, hid[i]);
    for (int i = 0; i < n; i++) {
        float v = hid[(size_t)p[i].row * F + p[i].col];
        uint32_t got = pixel(p[i].x, p[i].y);
        CmapId cm = a.look.cmap_signed == CMAP_DIVERGING ? a.look.cmap_prob : a.look.cmap_signed;
        Color want = v == 0 ? CMAP_NAN_COLOR : cmap_color(cm, v / mx);
        int d = chan_diff(got, want);
        zeros += v == 0;
        if (d > 4 || p[i].value != v || (v == 0) != (strstr(p[i].where, "ReLU") != NULL)) {
            printf("  cell %d,%d value %g (hover %g, %s) colour %08x want %02x%02x%02x\n", p[i].row,
                   p[i].col, v, p[i].value, p[i].where, got, want.r, want.g, want.b);
            bad++;
        }
        if (v != 0 && chan_diff(got, CMAP_NAN_COLOR) < 12) {
            printf("  non-zero cell %d,%d looks like the zero grey\n", p[i].row, p[i].col);
            bad++;
        }
    }
    ren_end(tu_ren);
    printf("  %d FFN cells checked, %d of them ReLU zeros\n", n, zeros);
    expect_true(n >= 16 && zeros >= 3 && zeros < n, "probes cover zeros and non-zeros: %d / %d", zeros, n);
    expect_true(bad == 0, "zeros are the flat zero grey, the rest their colour: %d wrong", bad);
    a.pz[VIEW_FFN] = (PanZoom){1, 0, 0};
    app_free(&a);
}

static void test_ffn_sentence_counts_trace(void **state)
{
    (void)state;
    static App a;
    open_app(&a, POST, "t5 t6 t7", "t8 t9", "enc.ffn.hidden", 1);
    int F = a.ses.trace.cfg.d_ff;
    for (int tok = 0; tok < 3; tok++) {
        a.sel = (Selection){1, tok};
        draw_view(&a, VIEW_FFN, AREA, 0, 0, 0);
        ren_end(tu_ren);
        const float *row = a.ses.trace.enc[1].ffn_hidden + (size_t)tok * F;
        int z = 0;
        for (int c = 0; c < F; c++)
            z += row[c] == 0.0f;
        char want[256];
        snprintf(want, sizeof want, "%d%% of the %d hidden units are exactly 0 for 't%d'",
                 (int)lround(100.0 * z / F), F, tok + 5);
        expect_true(strcmp(view_ffn_said(a.vstate[VIEW_FFN]), want) == 0, "\"%s\", got \"%s\"", want, view_ffn_said(a.vstate[VIEW_FFN]));
    }
    TfView tv;
    TfErr err;
    tf_view(&a.ses.trace, ST_ENC_FFN_HIDDEN, 1, -1, 0, &tv, &err);
    int per[APP_CAP_T];
    long total = ffn_count_zeros(&tv, per), want = 0;
    for (int i = 0; i < tv.rows * F; i++)
        want += a.ses.trace.enc[1].ffn_hidden[i] == 0.0f;
    expect_true(total == want, "zeros counted %ld, trace %ld", total, want);
    app_free(&a);
}

/* ---------------------------------------------------------- degenerate */

/* Pixels outside area still have the background colour. */
static int ink_outside(Rect area, Color bg)
{
    static uint32_t buf[W * H];
    if (ren_read_pixels(tu_ren, (Rect){0, 0, W, H}, buf))
        return -1;
    uint32_t b = cmap_pack(bg);
    int n = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int in = x >= area.x && x < area.x + area.w && y >= area.y && y < area.y + area.h;
            n += !in && buf[y * W + x] != b;
        }
    return n;
}

static int ink_inside(Rect area, Color bg)
{
    static uint32_t buf[W * H];
    if (area.w < 1 || area.h < 1 || ren_read_pixels(tu_ren, area, buf))
        return 0;
    uint32_t b = cmap_pack(bg);
    int n = 0;
    for (int i = 0; i < area.w * area.h; i++)
        n += buf[i] != b;
    return n;
}

/* Every theme in the main area; the other sizes cycle through the themes
 * (with presenter text on every other one). */
static void draw_all_sizes(App *a, const char *stage, int layer, ViewId view)
{
    static const Rect areas[] = {{300, 70, 680, 640}, {300, 70, 680, 640}, {300, 70, 680, 640},
                                 {190, 60, 384, 440}, {10, 10, 120, 90},   {5, 5, 30, 20},
                                 {0, 0, W, H},        {400, 300, 200, 150}};
    app_goto(a, stage_find(stage), layer);
    for (size_t i = 0; i < sizeof areas / sizeof areas[0]; i++) {
        a->look.theme = (ThemeId)(i % THEME_COUNT);
        a->look.text_scale = i % 2 ? 1.6f : 1.0f;
        draw_view(a, view, areas[i], areas[i].x + areas[i].w / 2, areas[i].y + areas[i].h / 2, 0);
        const Theme *th = theme_get(a->look.theme);
        int out = ink_outside(areas[i], th->bg), in = ink_inside(areas[i], th->bg);
        ren_end(tu_ren);
        expect_true(out == 0, "%s in %dx%d at %d,%d (theme %s, text x%.1f): %d pixels drawn outside", stage,
                    areas[i].w, areas[i].h, areas[i].x, areas[i].y, th->name, a->look.text_scale, out);
        if (areas[i].w >= 300)
            expect_true(in > 1000, "%s in %dx%d (theme %s) draws something, %d pixels", stage, areas[i].w,
                        areas[i].h, th->name, in);
    }
    a->look.theme = THEME_DARK;
    a->look.text_scale = 1.0f;
}

static void draw_every_view(App *a)
{
    draw_all_sizes(a, "pos.enc", 0, VIEW_PE);
    draw_all_sizes(a, "enc.add1", 0, VIEW_NORM);
    draw_all_sizes(a, "enc.norm2", 0, VIEW_NORM);
    draw_all_sizes(a, "dec.norm3", 0, VIEW_NORM);
    draw_all_sizes(a, "dec.add2", 0, VIEW_NORM);
    draw_all_sizes(a, "enc.ffn.hidden", 0, VIEW_FFN);
    draw_all_sizes(a, "dec.ffn.hidden", 0, VIEW_FFN);
}

/* The token labels tN the waves view drew (tu_drawn), in order, each a
 * whole token "t12"; *tip set when `tip` was drawn too. */
typedef struct PeLabels {
    int n;
    int pos[64];
    Rect box[64];
} PeLabels;

static void pe_labels(PeLabels *L)
{
    L->n = 0;
    for (int i = 0; i < tu_drawn.n && L->n < 64; i++) {
        int id;
        char rest;
        if (sscanf(tu_drawn.s[i], "t%d%c", &id, &rest) != 1) /* a whole token label "t12" */
            continue;
        L->pos[L->n] = id;
        L->box[L->n++] = tu_drawn.box[i];
    }
}

/* Under the waves: one label per position (or every k-th), in order, none
 * over the next (level: boxes apart; turned: columns a line's letters
 * apart), and hovering one tells its position and token. */
static void test_wave_token_labels(void **state)
{
    (void)state;
    static App a;
    static PeLabels L;
    static const int NS[] = {3, 12, 33};
    for (size_t k = 0; k < sizeof NS / sizeof NS[0]; k++) {
        char src[512] = "";
        for (int i = 0; i < NS[k]; i++) /* t4 t5 ...: distinct tokens, their position in their name */
            snprintf(src + strlen(src), sizeof src - strlen(src), "t%d ", 4 + i);
        open_app(&a, POST, src, "t5", "pos.enc", 0);
        Rect area = {0, 0, 900, 640};
        tu_drawn_start();
        draw_view(&a, VIEW_PE, area, -1, -1, 0);
        tu_drawn_stop();
        pe_labels(&L);
        int fh = ren_font_height(app_gfx(&a, tu_ren)->small), turned = L.n > 1 && L.box[0].h > L.box[0].w;
        expect_true(L.n >= 2 && L.n <= NS[k], "%d tokens: %d labels under the waves", NS[k], L.n);
        int every = L.n > 1 ? L.pos[1] - L.pos[0] : 1;
        expect_true(L.pos[0] == 4 && (L.n - 1) * every + 1 <= NS[k] && NS[k] - ((L.n - 1) * every + 1) < every,
                    "%d tokens: every %d-th labelled from the first, %d labels", NS[k], every, L.n);
        for (int i = 1; i < L.n; i++) {
            expect_true(L.pos[i] - L.pos[i - 1] == every, "%d tokens: label %d is t%d after t%d (every %d)", NS[k], i,
                        L.pos[i], L.pos[i - 1], every);
            Rect p0 = L.box[i - 1], p1 = L.box[i];
            int apart = turned ? p1.x - p0.x >= fh * 3 / 4 /* a turned line's letters */
                               : p1.x >= p0.x + p0.w || p1.y >= p0.y + p0.h || p0.y >= p1.y + p1.h;
            expect_true(apart, "%d tokens: t%d (x %d, w %d) is clear of t%d (x %d, w %d)", NS[k], L.pos[i],
                        L.box[i].x, L.box[i].w, L.pos[i - 1], L.box[i - 1].x, L.box[i - 1].w);
        }
        if (NS[k] == 3)
            expect_true(every == 1 && L.n == 3, "3 tokens: all three labelled, got %d", L.n);
        /* the mouse over the last label: its position and token beside it */
        Rect b = L.box[L.n - 1];
        int p = L.pos[L.n - 1] - 4;
        char tip[64];
        snprintf(tip, sizeof tip, "position %d: t%d", p, p + 4);
        tu_drawn_start();
        draw_view(&a, VIEW_PE, area, b.x + b.w / 2, b.y + b.h / 2, 0);
        tu_drawn_stop();
        expect_true(tu_drawn_find(tip, NULL) >= 0, "%d tokens: hovering t%d says '%s'", NS[k], p + 4, tip);
        app_free(&a);
    }
}

static void test_one_token(void **state)
{
    (void)state;
    static App a;
    open_app(&a, POST, "t5", "t6", "pos.enc", 0);
    expect_true(a.ses.trace.S == 1, "one source token, got %d", a.ses.trace.S);
    draw_every_view(&a);
    app_free(&a);
}

static void test_long_sentence_and_pre_ln(void **state)
{
    (void)state;
    static App a;
    char src[512] = "";
    for (int i = 0; i < 33; i++)
        snprintf(src + strlen(src), sizeof src - strlen(src), "t%d ", 4 + i % 30);
    open_app(&a, PRE, src, "t5 t6 t7 t8 t9 t10 t11 t12 t13 t14 t15 t16 t17 t18 t19 t20 t21 t22 t23 t24",
             "pos.enc", 0);
    expect_true(a.ses.trace.S == 33, "33 source tokens, got %d", a.ses.trace.S);
    draw_every_view(&a);
    draw_all_sizes(&a, "enc.final_norm", 0, VIEW_NORM);
    draw_all_sizes(&a, "dec.norm1", 1, VIEW_NORM);
    app_free(&a);
}

static void test_d_model_512(void **state)
{
    (void)state;
    static App a;
    open_app(&a, BASE, "t5 t6 t7 t8", "t9 t10", "pos.enc", 0);
    expect_true(a.ses.trace.cfg.d_model == 512 && a.ses.trace.cfg.d_ff == 2048, "d_model 512, d_ff 2048");
    draw_all_sizes(&a, "pos.enc", 0, VIEW_PE);
    draw_all_sizes(&a, "enc.norm1", 0, VIEW_NORM);
    draw_all_sizes(&a, "enc.ffn.hidden", 0, VIEW_FFN);
    /* the whole window too, tiny and large, through the app's own frame */
    for (int s = 0; s < 2; s++) {
        ren_resize_headless(tu_ren, s ? 200 : W, s ? 150 : H);
        app_goto(&a, ST_DEC_FFN_HIDDEN, 0);
        a.now += 1;
        app_frame(&a, tu_ren);
    }
    ren_resize_headless(tu_ren, W, H);
    app_free(&a);
}

int main(void)
{
    TU_RUN_HEADLESS(setup, teardown,
                    cmocka_unit_test(test_rotation_equals_table),
                    cmocka_unit_test(test_rotation_is_a_rotation),
                    cmocka_unit_test(test_pe_table_cells),
                    cmocka_unit_test(test_norm_buffers_post_ln),
                    cmocka_unit_test(test_norm_buffers_pre_ln),
                    cmocka_unit_test(test_norm_view_hover),
                    cmocka_unit_test(test_norm_view_no_residual),
                    cmocka_unit_test(test_rotation_labels_apart),
                    cmocka_unit_test(test_ffn_zero_cells),
                    cmocka_unit_test(test_ffn_sentence_counts_trace),
                    cmocka_unit_test(test_wave_token_labels),
                    cmocka_unit_test(test_one_token),
                    cmocka_unit_test(test_long_sentence_and_pre_ln),
                    cmocka_unit_test(test_d_model_512));
}
