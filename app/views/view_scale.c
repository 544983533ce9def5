/* view_scale.c - why the scores are divided by √d_k, live (section
 * 3.2.1 and footnote 4 of the paper): if the components of q and k
 * are independent with mean 0 and variance 1, q·k = Σ qᵢkᵢ has mean 0 and
 * variance d_k, so the scores spread like √d_k and the softmax saturates
 * for large d_k unless they are divided by √d_k.
 *
 * Three rows of two histograms: the current head's own QKᵀ entries (the
 * query rows and keys the mask lets through, before the scaling; with the
 * no-scale experiment the scores already are QKᵀ), then q·k of random
 * unit-variance vectors at d_k = 8 and at d_k = 64 (a fixed seed, drawn
 * once by the session: Scene.dots). Left q·k on one axis for all three rows, right q·k/√d_k on
 * another; under each its measured standard deviation. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view.h"
#include "view_scale.h"

#define N_HIST 6
static const float RANGE[2] = {24.0f, 4.0f}; /* the axes: ±24 for q·k, ±4 scaled */

typedef struct ScaleUi {
    float *model;               /* this head's entries, unscaled */
    int model_cap;
    int drawn[N_HIST], drawn_n[N_HIST], drawn_sum[N_HIST];
    double drawn_std[N_HIST];
} ScaleUi;

double scale_std(const float *x, int n)
{
    if (n < 2)
        return 0;
    double m = 0, v = 0;
    for (int i = 0; i < n; i++)
        m += x[i];
    m /= n;
    for (int i = 0; i < n; i++)
        v += (x[i] - m) * (x[i] - m);
    return sqrt(v / (n - 1));
}

void scale_hist(const float *x, int n, float lo, float hi, int bins, int *counts)
{
    memset(counts, 0, sizeof *counts * (size_t)bins);
    for (int i = 0; i < n; i++) {
        int b = (int)floorf((x[i] - lo) / (hi - lo) * (float)bins);
        counts[b < 0 ? 0 : b >= bins ? bins - 1 : b]++;
    }
}

/* The current head's QKᵀ entries that the softmax sees (real query rows,
 * unmasked keys), before the 1/√d_k. Returns how many, -1 off attention. */
static int model_dots(const Scene *sc, ScaleUi *u, int *layer, int *head)
{
    StageKind k = stage_info(sc->pos.stage)->kind;
    if (k != SK_SCORES && k != SK_WEIGHTS)
        return -1;
    StageId blk = stage_attn_block(sc->pos.stage);
    const TfTrace *tr = sc->exp_trace;
    TfView tv;
    TfErr err;
    *layer = sc->pos.layer;
    *head = sc->head < 0 ? 0 : sc->head;
    if (tf_view(tr, stage_attn_part(blk, AP_SCORES), *layer, *head, sc->batch, &tv, &err) || !tv.data)
        return -1;
    if (tv.rows * tv.cols > u->model_cap) {
        float *m = realloc(u->model, sizeof *m * (size_t)(tv.rows * tv.cols));
        if (!m)
            return -1;
        u->model = m;
        u->model_cap = tv.rows * tv.cols;
    }
    int rows = tv.row_kind == LBL_SRC ? tr->src_len[tv.b] : tv.row_kind == LBL_TGT ? tr->tgt_len[tv.b] : tv.rows;
    float undo = sc->exp->no_scale ? 1.0f : sqrtf((float)cfg_dk(&sc->model->cfg));
    int n = 0;
    for (int r = 0; r < rows && r < tv.rows; r++)
        for (int c = 0; c < tv.cols; c++) {
            float x = tf_view_at(&tv, r, c);
            if (isfinite(x))
                u->model[n++] = x * undo;
        }
    return n;
}

/* One histogram with its axis ends and caption; keeps what it drew. */
static void hist_draw(ViewCtx *v, ScaleUi *u, int h, Rect rc, const float *x, int n, float range,
                      const char *caption, Color c)
{
    const Theme *th = v->th;
    RenFont *f = v->g->small;
    int fh = ren_font_height(f);
    int counts[SCALE_BINS], top = 1, sum = 0;
    scale_hist(x, n, -range, range, SCALE_BINS, counts);
    for (int b = 0; b < SCALE_BINS; b++)
        top = counts[b] > top ? counts[b] : top;
    Rect plot = {rc.x, rc.y, rc.w, rc.h - 2 * fh - 6};
    if (plot.h < 8)
        plot.h = 8;
    ren_rect(v->r, plot, th->panel2);
    float bw = (float)plot.w / SCALE_BINS;
    for (int b = 0; b < SCALE_BINS; b++) {
        int bh = (int)lroundf((float)counts[b] / (float)top * (float)(plot.h - 2));
        int x0 = plot.x + (int)lroundf(b * bw), x1 = plot.x + (int)lroundf((b + 1) * bw);
        if (bh > 0)
            ren_rect(v->r, (Rect){x0, plot.y + plot.h - bh, x1 - x0 > 1 ? x1 - x0 - 1 : 1, bh}, c);
        sum += counts[b];
    }
    ren_rect(v->r, (Rect){plot.x + plot.w / 2, plot.y, 1, plot.h}, th->border); /* 0 */
    char buf[32];
    int y = plot.y + plot.h + 1;
    snprintf(buf, sizeof buf, "−%g", range);
    ren_text(v->r, f, buf, plot.x, y, th->dim);
    ren_text(v->r, f, "0", plot.x + plot.w / 2 - ren_text_width(f, "0") / 2, y, th->dim);
    snprintf(buf, sizeof buf, "%g", range);
    ren_text(v->r, f, buf, plot.x + plot.w - ren_text_width(f, buf), y, th->dim);
    ui_text_fit(v->r, f, caption, rc.x, y + fh + 2, rc.w, th->text);
    u->drawn[h] = 1;
    u->drawn_n[h] = n;
    u->drawn_sum[h] = sum;
}

static void scale_draw(ViewCtx *v)
{
    const Scene *sc = v->s;
    const Theme *th = v->th;
    ScaleUi *u = v->st;
    Rect A = v->area;
    int pad = 10, W = A.w - 2 * pad, x = A.x + pad, y = A.y + 6;
    RenFont *f = v->g->small, *ui = v->g->ui;
    int fh = ren_font_height(f), dk = cfg_dk(&sc->model->cfg), layer = 0, head = 0;
    y += ui_paragraph(v->r, ui, _("Why the scores are divided by √d_k: the spread of q·k"), x, y, W, th->text) + 2;
    y += ui_paragraph(v->r, f,
                      _("If the components of q and k are independent with mean 0 and variance 1, q·k has mean 0 "
                        "and variance d_k (footnote 4): its standard deviation grows like √d_k."),
                      x, y, W, th->dim) + 6;
    int n_model = model_dots(sc, u, &layer, &head);
    const char *note = _("Left: q·k on one axis (±24); right: divided by √d_k (±4); values beyond an axis count in "
                         "its end bars. Dividing brings random vectors of every d_k back to a standard deviation "
                         "near 1.");
    int note_h = ui_paragraph_height(f, note, W), half = (W - pad) / 2, title_h = 0;
    char title[3][256], cap[2][160];
    for (int r = 0; r < 3; r++) { /* the row titles first: they wrap when narrow */
        int d = r ? sc->dots_dk[r - 1] : dk;
        if (r == 0 && n_model < 0)
            snprintf(title[r], sizeof title[r], "%s", _("This head: go to an attention stage (its scores or weights)"));
        else if (r == 0)
            snprintf(title[r], sizeof title[r],
                     _("This model, layer %d head %d (d_k = %d, √d_k = %.2f): its %d entries of QKᵀ"), layer + 1,
                     head + 1, d, sqrt((double)d), n_model);
        else
            snprintf(title[r], sizeof title[r],
                     _("Random q, k with unit-variance components, d_k = %d (√d_k = %.2f): %d pairs"), d,
                     sqrt((double)d), sc->dots_n);
        title_h += ui_paragraph_height(f, title[r], W) + 2;
    }
    int row_h = (A.y + A.h - y - note_h - title_h - 6) / 3 - 4;
    if (row_h < 3 * fh)
        row_h = 3 * fh;
    for (int r = 0; r < 3; r++) {
        const float *vals = r ? sc->dots[r - 1] : u->model;
        int n = r ? sc->dots_n : n_model > 0 ? n_model : 0, d = r ? sc->dots_dk[r - 1] : dk;
        y += ui_paragraph(v->r, f, title[r], x, y, W, r ? th->dim : th->accent) + 2;
        float *scaled = malloc(sizeof *scaled * (size_t)(n > 0 ? n : 1));
        float s = sqrtf((float)d);
        for (int i = 0; scaled && i < n; i++)
            scaled[i] = vals[i] / s;
        double sd = scale_std(vals, n), ss = scale_std(scaled ? scaled : vals, scaled ? n : 0);
        snprintf(cap[0], sizeof cap[0], _("q·k: std %.2f"), sd);
        snprintf(cap[1], sizeof cap[1], _("q·k / √%d: std %.2f"), d, ss);
        Color c = r ? th->accent2 : th->accent;
        hist_draw(v, u, 2 * r, (Rect){x, y, half, row_h}, vals, n, RANGE[0], cap[0], c);
        hist_draw(v, u, 2 * r + 1, (Rect){x + half + pad, y, half, row_h}, scaled ? scaled : vals,
                  scaled ? n : 0, RANGE[1], cap[1], c);
        u->drawn_std[2 * r] = sd;
        u->drawn_std[2 * r + 1] = ss;
        free(scaled);
        y += row_h + 4;
    }
    ui_paragraph(v->r, f, note, x, y, W, th->dim);
}

static void scale_free(void *st)
{
    ScaleUi *u = st;
    free(u->model);
    u->model = NULL;
    u->model_cap = 0;
}

int view_scale_drawn(const void *st, int h, int *n, int *bar_sum, double *std)
{
    const ScaleUi *u = st;
    if (!u || h < 0 || h >= N_HIST || !u->drawn[h])
        return 0;
    *n = u->drawn_n[h];
    *bar_sum = u->drawn_sum[h];
    *std = u->drawn_std[h];
    return 1;
}

const ViewDef VIEW_SCALE_DEF = {"scale", N_("Why √d_k"), scale_draw, NULL, sizeof(ScaleUi), scale_free,
                                VIEW_NEED_STAGE, VIEW_WANT_DOTS};
