/* view_cost.c - what attention costs, measured on this machine: one layer of
 * the loaded model's size (d_model, h, d_ff) run by the engine's own ops at
 * n = 8, 16, ..., 256 tokens, self-attention (Q/K/V projections, QKᵀ,
 * softmax, A·V, W_O) beside the feed-forward network, as time per layer
 * and as the bytes the trace records for it, both on log-log axes; below,
 * Table 1 of the paper (complexity per layer, sequential operations,
 * maximum path length).
 *
 * Measuring never freezes the window: each frame measures the next n until
 * a small time budget is spent (at least one n), then asks for another
 * frame; the results are kept in the view's state for the model's shape.
 * The memory figures are counted from the trace's layout (AttnAct: packed
 * Q|K|V, scores, mask, weights, heads, out; FFN: hidden, out), so they are
 * exact and the same on every machine; the times are this machine's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "ops.h"
#include "parallel.h"
#include "view.h"

#define COST_N 6
static const int COST_NS[COST_N] = {8, 16, 32, 64, 128, 256};
#define COST_TRIALS 5
#define COST_BUDGET 0.040 /* seconds of measuring per frame */

typedef struct CostUi {
    int C, NH, F;            /* the shape measured for */
    int done;                /* values of n measured */
    double attn_s[COST_N], ffn_s[COST_N]; /* seconds per layer, fastest of 5 */
    double attn_b[COST_N], ffn_b[COST_N]; /* bytes the trace records */
    float *mem;              /* weights and activations for n = 256 */
    int failed;              /* no memory for the buffers */
} CostUi;

/* Bytes the trace records for one layer's self-attention and FFN at n
 * tokens, batch 1 (trace.h: AttnAct, EncLayerAct). */
void cost_bytes(int n, int C, int NH, int F, double *attn, double *ffn)
{
    double nn = (double)n * n;
    *attn = 4.0 * (3.0 * n * C + NH * nn + nn + NH * nn + (double)n * C + (double)n * C);
    *ffn = 4.0 * ((double)n * F + (double)n * C);
}

/* The buffers of one layer for the largest n, laid out in one block. */
typedef struct CostBufs {
    float *x, *wqkv, *bqkv, *qkv, *scores, *mask, *weights, *heads, *wo, *bo, *out;
    float *w1, *b1, *hidden, *w2, *b2, *out2;
} CostBufs;

static size_t bufs_layout(CostBufs *b, float *base, int C, int NH, int F)
{
    size_t N = (size_t)COST_NS[COST_N - 1], at = 0;
    float *p = base;
#define TAKE(f, cnt) do { b->f = p ? p + at : NULL; at += (cnt); } while (0)
    TAKE(x, N * C);
    TAKE(wqkv, (size_t)3 * C * C);
    TAKE(bqkv, (size_t)3 * C);
    TAKE(qkv, N * 3 * C);
    TAKE(scores, (size_t)NH * N * N);
    TAKE(mask, N * N);
    TAKE(weights, (size_t)NH * N * N);
    TAKE(heads, N * C);
    TAKE(wo, (size_t)C * C);
    TAKE(bo, (size_t)C);
    TAKE(out, N * C);
    TAKE(w1, (size_t)F * C);
    TAKE(b1, (size_t)F);
    TAKE(hidden, N * F);
    TAKE(w2, (size_t)C * F);
    TAKE(b2, (size_t)C);
    TAKE(out2, N * C);
#undef TAKE
    return at;
}

static void run_attn(const CostBufs *b, int n, int C, int NH)
{
    linear_forward(b->qkv, b->x, b->wqkv, b->bqkv, n, C, 3 * C);
    AttnDims d = {1, n, n, C, NH, 3 * C, 3 * C, 0, &n, 0, NULL};
    attention_forward(b->heads, b->scores, b->mask, b->weights, b->qkv, b->qkv + C, b->qkv + 2 * C, &d);
    linear_forward(b->out, b->heads, b->wo, b->bo, n, C, C);
}

static void run_ffn(const CostBufs *b, int n, int C, int F)
{
    linear_forward(b->hidden, b->x, b->w1, b->b1, n, C, F);
    relu_forward(b->hidden, b->hidden, (size_t)n * F);
    linear_forward(b->out2, b->hidden, b->w2, b->b2, n, F, C);
}

static double est_flops(int n, int C, int F);

/* Seconds per call: repeated until 0.3 ms have passed, the fastest of
 * COST_TRIALS such means (the least disturbed by other programs). */
static double time_one(const CostBufs *b, int which, int n, int C, int NH, int F)
{
    /* on one core: the products are not split with the helper thread (whose
     * wake-up on a busy machine would show as a jump, not as a cost of n) */
    int own = par_claim();
    /* a big layer at a long n is timed once (no warm-up): five of them
     * would hold one frame for most of a second */
    int trials = est_flops(n, C, F) > 1e8 ? 1 : COST_TRIALS;
    double t[COST_TRIALS];
    if (trials > 1)
        which ? run_ffn(b, n, C, F) : run_attn(b, n, C, NH); /* warm the caches */
    for (int k = 0; k < trials; k++) {
        int reps = 0;
        double t0 = tf_seconds(), el;
        do {
            which ? run_ffn(b, n, C, F) : run_attn(b, n, C, NH);
            reps++;
            el = tf_seconds() - t0;
        } while (el < 3e-4 && reps < 4096);
        t[k] = el / reps;
    }
    if (own)
        par_release();
    double best = t[0];
    for (int k = 1; k < trials; k++)
        best = t[k] < best ? t[k] : best;
    return best;
}

/* Multiply-adds of one call of each, to guess its time before measuring. */
static double est_flops(int n, int C, int F)
{
    return 2.0 * n * C * 3 * C + 4.0 * n * n * C + 2.0 * n * C * C + 4.0 * n * C * F;
}

/* Measure the next values of n within the frame's budget. On opening, the
 * lengths a small model runs in a few milliseconds are all measured at once
 * (the picture is complete in the first frame, and in `shot`); the rest one
 * a frame. */
static void cost_measure(CostUi *u, const TfConfig *cfg)
{
    if (u->C != cfg->d_model || u->NH != cfg->n_heads || u->F != cfg->d_ff) {
        free(u->mem);
        memset(u, 0, sizeof *u);
        u->C = cfg->d_model;
        u->NH = cfg->n_heads;
        u->F = cfg->d_ff;
    }
    if (u->done >= COST_N || u->failed)
        return;
    CostBufs b;
    if (!u->mem) {
        size_t n = bufs_layout(&b, NULL, u->C, u->NH, u->F);
        u->mem = malloc(n * sizeof(float));
        if (!u->mem) {
            u->failed = 1;
            return;
        }
        for (size_t i = 0; i < n; i++) /* small values, no denormals */
            u->mem[i] = 0.02f * sinf(0.37f * (float)(i % 1000));
    }
    bufs_layout(&b, u->mem, u->C, u->NH, u->F);
    double t0 = tf_seconds();
    int first = u->done == 0;
    do {
        int k = u->done, n = COST_NS[k];
        u->attn_s[k] = time_one(&b, 0, n, u->C, u->NH, u->F);
        u->ffn_s[k] = time_one(&b, 1, n, u->C, u->NH, u->F);
        cost_bytes(n, u->C, u->NH, u->F, &u->attn_b[k], &u->ffn_b[k]);
        u->done++;
    } while (u->done < COST_N &&
             (tf_seconds() - t0 < COST_BUDGET || (first && est_flops(COST_NS[u->done], u->C, u->F) < 5e7)));
}

/* ---- drawing ---- */

typedef struct Axis {
    double lo, hi; /* decades: 10^lo .. 10^hi */
} Axis;

static Axis axis_of(const double *a, const double *b, int n)
{
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < n; i++) {
        double x = fmin(a[i], b[i]), y = fmax(a[i], b[i]);
        lo = fmin(lo, x);
        hi = fmax(hi, y);
    }
    if (!(lo > 0) || !isfinite(hi))
        return (Axis){0, 1};
    Axis ax = {floor(log10(lo)), ceil(log10(hi))};
    if (ax.hi <= ax.lo)
        ax.hi = ax.lo + 1;
    return ax;
}

/* "1 µs", "10 ms", "1 KB", "10 MB": the value 10^e in the unit's steps. */
static void decade_label(int e, int time, char *buf, size_t cap)
{
    static const char *T[] = {"ns", "µs", "ms", "s"};
    static const char *B[] = {"B", "kB", "MB", "GB"};
    int base = time ? e + 9 : e; /* time in seconds from 1 ns */
    int step = base < 0 ? 0 : base / 3;
    if (step > 3)
        step = 3;
    int rest = base - 3 * step;
    double v = pow(10.0, rest);
    snprintf(buf, cap, "%g %s", v, time ? T[step] : B[step]);
}

static double xpos(Rect p, int k) { return p.x + (double)p.w * k / (COST_N - 1); }
static double ypos(Rect p, Axis ax, double v)
{
    double t = (log10(v) - ax.lo) / (ax.hi - ax.lo);
    return p.y + p.h - t * p.h;
}

/* One log-log plot: attention and FFN against n. */
static void plot(ViewCtx *v, Rect rc, const char *title, const double *attn, const double *ffn, int n, int time)
{
    const Theme *th = v->th;
    RenFont *f = v->g->small;
    int fh = ren_font_height(f);
    ui_text_fit(v->r, v->g->ui, title, rc.x, rc.y, rc.w, th->text);
    char buf[64];
    int lw = ren_text_width(f, "100 ms") + 8;
    Rect p = {rc.x + lw, rc.y + ren_font_height(v->g->ui) + 8, rc.w - lw - 12,
              rc.h - ren_font_height(v->g->ui) - 8 - 2 * fh - 10};
    if (p.w < 40 || p.h < 30)
        return;
    ren_rect_line(v->r, p, 1, th->border);
    Axis ax = n ? axis_of(attn, ffn, n) : (Axis){time ? -6 : 3, time ? -3 : 6};
    for (int e = (int)ax.lo; e <= (int)ax.hi; e++) {
        int y = (int)ypos(p, ax, pow(10.0, e));
        ren_rect(v->r, (Rect){p.x, y, p.w, 1}, ui_mix(th->bg, th->border, 0.6f));
        decade_label(e, time, buf, sizeof buf);
        ren_text(v->r, f, buf, p.x - ren_text_width(f, buf) - 4, y - fh / 2, th->dim);
    }
    int every = (int)xpos(p, 1) - (int)xpos(p, 0) < ren_text_width(f, "2560") ? 2 : 1;
    for (int k = 0; k < COST_N; k++) {
        int x = (int)xpos(p, k);
        ren_rect(v->r, (Rect){x, p.y + p.h, 1, 4}, th->border);
        snprintf(buf, sizeof buf, "%d", COST_NS[k]);
        if ((COST_N - 1 - k) % every == 0)
            ren_text(v->r, f, buf, x - ren_text_width(f, buf) / 2, p.y + p.h + 4, th->dim);
    }
    const char *xl = _("n, tokens (log scale)");
    int xw = ren_text_width(f, xl) < p.w ? ren_text_width(f, xl) : p.w;
    ui_text_fit(v->r, f, xl, p.x + (p.w - xw) / 2, p.y + p.h + 6 + fh, p.w, th->dim);
    const double *ser[2] = {attn, ffn};
    Color col[2] = {th->accent2, th->accent};
    for (int s = 0; s < 2; s++) {
        float xy[2 * COST_N];
        for (int k = 0; k < n; k++) {
            xy[2 * k] = (float)xpos(p, k);
            xy[2 * k + 1] = (float)ypos(p, ax, ser[s][k]);
            ren_rect(v->r, (Rect){(int)xy[2 * k] - 3, (int)xy[2 * k + 1] - 3, 7, 7}, col[s]);
            Rect hit = {(int)xy[2 * k] - 6, (int)xy[2 * k + 1] - 6, 13, 13};
            if (ui_over(v->in, hit)) {
                if (time)
                    ui_hover_own(v, (float)(ser[s][k] * 1e3), s ? _("FFN, n = %d: ms per layer")
                                                                : _("self-attention, n = %d: ms per layer"), COST_NS[k]);
                else
                    ui_hover_own(v, (float)(ser[s][k] / 1000.0), s ? _("FFN, n = %d: kB the trace records")
                                                                   : _("self-attention, n = %d: kB the trace records"),
                                 COST_NS[k]);
            }
        }
        if (n > 1)
            ren_polyline(v->r, xy, n, 2.0f, col[s]);
    }
}

/* Table 1 of the paper. */
static const char *TABLE1[5][4] = {
    {N_("Layer type"), N_("Complexity per layer"), N_("Sequential operations"), N_("Maximum path length")},
    {N_("Self-attention"), "O(n²·d)", "O(1)", "O(1)"},
    {N_("Recurrent"), "O(n·d²)", "O(n)", "O(n)"},
    {N_("Convolutional"), "O(k·n·d²)", "O(1)", "O(log_k(n))"},
    {N_("Self-attention (restricted)"), "O(r·n·d)", "O(1)", "O(n/r)"},
};

static const char *TABLE_NOTE = N_("Table 1 of the paper: n the sequence length, d the representation dimension, "
                                   "k the kernel size of convolutions, r the neighbourhood of restricted "
                                   "self-attention.");

/* The table (and its note when with_note); returns its height. */
static int table_draw(ViewCtx *v, Rect rc, int draw, int with_note)
{
    const Theme *th = v->th;
    RenFont *f = v->g->small;
    int fh = ren_font_height(f), rh = fh + 6;
    int w0 = 0;
    for (int r = 1; r < 5; r++) {
        int w = ren_text_width(f, _(TABLE1[r][0]));
        w0 = w > w0 ? w : w0;
    }
    w0 += 16;
    if (w0 > rc.w / 3)
        w0 = rc.w / 3;
    int cw = (rc.w - w0) / 3, hh = 0; /* the header wraps in narrow columns */
    for (int c = 0; c < 4; c++) {
        int h = ui_paragraph_height(f, _(TABLE1[0][c]), (c ? cw : w0) - 8);
        hh = h > hh ? h : hh;
    }
    hh += 6;
    int note_h = with_note ? ui_paragraph_height(f, _(TABLE_NOTE), rc.w) + 4 : 0;
    if (!draw)
        return hh + 4 * rh + note_h;
    ren_rect(v->r, (Rect){rc.x, rc.y, rc.w, hh}, th->panel2);
    ren_rect(v->r, (Rect){rc.x, rc.y + hh, rc.w, rh}, ui_mix(th->bg, th->accent2, 0.15f));
    for (int c = 0; c < 4; c++) {
        int x = c == 0 ? rc.x + 6 : rc.x + w0 + (c - 1) * cw + 6;
        ui_paragraph(v->r, f, _(TABLE1[0][c]), x, rc.y + 3, (c ? cw : w0) - 8, th->dim);
        for (int r = 1; r < 5; r++)
            ui_text_fit(v->r, f, c == 0 ? _(TABLE1[r][0]) : TABLE1[r][c], x, rc.y + hh + (r - 1) * rh + 3,
                        (c ? cw : w0) - 8, th->text);
    }
    if (with_note)
        ui_paragraph(v->r, f, _(TABLE_NOTE), rc.x, rc.y + hh + 4 * rh + 4, rc.w, th->dim);
    return hh + 4 * rh + note_h;
}

static void cost_draw(ViewCtx *v)
{
    const Scene *sc = v->s;
    const Theme *th = v->th;
    CostUi *u = v->st;
    Rect A = v->area;
    cost_measure(u, &sc->model->cfg);
    if (u->done < COST_N && !u->failed) /* the next n in the next frame */
        v->out->wake_at = sc->now + 0.01;
    RenFont *f = v->g->small, *ui = v->g->ui;
    int fh = ren_font_height(f), pad = 10;
    int y = A.y + 4;
    char buf[256], said[512];
    snprintf(buf, sizeof buf, _("One layer of this model (d_model %d, h %d, d_ff %d), one sentence, one core of this machine"), u->C, u->NH, u->F);
    y += ui_paragraph(v->r, ui, buf, A.x + pad, y, A.w - 2 * pad, th->text) + 4;
    /* the legend, on two lines when one is too narrow */
    const char *leg[2] = {_("self-attention: Q, K, V, QKᵀ, softmax, A·V, W_O"),
                          _("feed-forward network: two linear layers and ReLU")};
    Color lc[2] = {th->accent2, th->accent};
    int x = A.x + pad;
    int one_line = 40 + ren_text_width(f, leg[0]) + 18 + ren_text_width(f, leg[1]) < A.w - 2 * pad;
    for (int i = 0; i < 2; i++) {
        ren_rect(v->r, (Rect){x, y + fh / 2 - 2, 14, 4}, lc[i]);
        x += 20;
        int w = ui_text_fit(v->r, f, leg[i], x, y, A.x + A.w - pad - x, th->text);
        if (one_line)
            x += w + 18;
        else {
            x = A.x + pad;
            y += fh + 2;
        }
    }
    y += one_line ? fh + 8 : 6;
    int W = A.w - 2 * pad;
    int with_note = 1, table_h = table_draw(v, (Rect){A.x + pad, 0, W, 0}, 0, 1);
    if (u->failed)
        snprintf(said, sizeof said, "%s", _("not enough memory to measure this model"));
    else if (u->done < COST_N)
        snprintf(said, sizeof said, _("measuring… %d of %d lengths"), u->done, COST_N);
    else
        snprintf(said, sizeof said,
                 _("From n = 128 to 256: self-attention ×%.1f in time and ×%.1f in memory, the FFN ×%.1f and ×%.1f "
                   "(doubling n: n² grows ×4, n ×2)."),
                 u->attn_s[5] / u->attn_s[4], u->attn_b[5] / u->attn_b[4], u->ffn_s[5] / u->ffn_s[4],
                 u->ffn_b[5] / u->ffn_b[4]);
    int said_h = ui_paragraph_height(f, said, W) + 14;
    int plots_h = A.y + A.h - y - table_h - said_h;
    if (plots_h < 120) { /* a small window: the note goes first */
        with_note = 0;
        table_h = table_draw(v, (Rect){A.x + pad, 0, W, 0}, 0, 0);
        plots_h = A.y + A.h - y - table_h - said_h;
    }
    if (plots_h < 80)
        plots_h = 80;
    int half = (A.w - 3 * pad) / 2;
    plot(v, (Rect){A.x + pad, y, half, plots_h}, _("Time per layer (log scale)"), u->attn_s, u->ffn_s, u->done, 1);
    plot(v, (Rect){A.x + 2 * pad + half, y, half, plots_h}, _("Memory the trace records (log scale)"), u->attn_b,
         u->ffn_b, u->done, 0);
    y += plots_h + 6;
    y += ui_paragraph(v->r, f, said, A.x + pad, y, W, u->done < COST_N ? th->warn : th->select) + 8;
    table_draw(v, (Rect){A.x + pad, y, W, 0}, 1, with_note);
}

static void cost_free(void *st)
{
    CostUi *u = st;
    free(u->mem);
    u->mem = NULL;
}

/* For tests: how many lengths are measured and the figures of the k-th. */
int view_cost_result(const void *st, int k, double *attn_s, double *ffn_s, double *attn_b, double *ffn_b)
{
    const CostUi *u = st;
    if (k >= 0 && k < u->done) {
        *attn_s = u->attn_s[k];
        *ffn_s = u->ffn_s[k];
        *attn_b = u->attn_b[k];
        *ffn_b = u->ffn_b[k];
    }
    return u->done;
}

const ViewDef VIEW_COST_DEF = {"cost", N_("Cost"), cost_draw, NULL, sizeof(CostUi), cost_free, VIEW_NEED_STAGE};
