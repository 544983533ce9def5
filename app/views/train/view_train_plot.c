/* view_train_plot.c - the curves of the train view.
 *
 * Four small plots over the optimizer steps, all read from Scene.train (the
 * worker's publication, never the trainer):
 *
 *   loss            the label-smoothed cross-entropy of each training batch
 *                   (averaged over a few steps once the run is long) and of
 *                   the held-out pairs; with smoothing 0.1 even a perfect
 *                   model keeps a loss well above 0;
 *   accuracy        the teacher-forced token accuracy, training and
 *                   held-out, and the held-out exact match of whole
 *                   greedy translations (which comes much later);
 *   learning rate   the whole schedule lrate = scale · d_model^-0.5 ·
 *                   min(step^-0.5, step · warmup^-1.5): a straight rise
 *                   for `warmup` steps, then decay as 1/√step; the part
 *                   already trained is bold, the current step marked;
 *   head entropy    the entropy of every probe head over the steps
 *                   (train_probe.c): heads "snap" into a pattern;
 *                   H switches this plot to tokens/s, target tokens per
 *                   second of training, and back.
 *
 * The loss, accuracy and tokens/s plots share one step axis; the schedule
 * has its own, long enough to show the peak and the decay. The step of
 * the snapshot shown (when scrubbing back) is marked on every curve. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "colormap.h"
#include "view_train.h"

typedef struct Axis {
    Rect r;          /* the plotting area */
    double x0, x1;   /* steps */
    double y0, y1;
} Axis;

/* Screen x of a step; steps outside the axis land just outside the area
 * (clipped), never at an absurd coordinate. */
static float ax_x(const Axis *A, double x)
{
    double span = A->x1 > A->x0 ? A->x1 - A->x0 : 1, t = (x - A->x0) / span;
    t = isfinite(t) ? (t < -0.1 ? -0.1 : t > 1.1 ? 1.1 : t) : 0;
    return (float)(A->r.x + t * A->r.w);
}

static float ax_y(const Axis *A, double y)
{
    double span = A->y1 > A->y0 ? A->y1 - A->y0 : 1, t = (y - A->y0) / span;
    t = isfinite(t) ? (t < 0 ? 0 : t > 1 ? 1 : t) : 0;
    return (float)(A->r.y + A->r.h - t * A->r.h);
}

/* 1, 2, 2.5, 5 times a power of ten, at least v. */
static double nice_ceil(double v)
{
    if (!(v > 0) || !isfinite(v))
        return 1;
    double p = pow(10, floor(log10(v)));
    static const double M[] = {1, 2, 2.5, 5, 10};
    for (int i = 0; i < 5; i++)
        if (M[i] * p >= v * 0.9999)
            return M[i] * p;
    return 10 * p;
}

/* Short numbers for axes and legends: "0.75", "2.5", "38k", "4.4e-3". */
static void fmt_num(char *buf, size_t cap, double v)
{
    double a = fabs(v);
    if (a == 0) {
        snprintf(buf, cap, "0");
    } else if (!isfinite(a)) {
        snprintf(buf, cap, "%g", v);
    } else if (a >= 1e6) { /* a learning rate gone wild */
        int e = (int)floor(log10(a));
        snprintf(buf, cap, "%.2ge%d", v / pow(10, e), e);
    } else if (a >= 1e4) {
        double k = v / 1e3;
        snprintf(buf, cap, fabs(k - lround(k)) < 0.05 || a >= 1e5 ? "%.0fk" : "%.1fk", k);
    } else if (a >= 100) {
        snprintf(buf, cap, "%.0f", v);
    } else if (a >= 0.01) {
        snprintf(buf, cap, "%.3g", v);
    } else {
        int e = (int)floor(log10(a));
        snprintf(buf, cap, "%.2ge%d", v / pow(10, e), e);
    }
}

/* Frame, grid and the numbers of the axes. */
static void draw_axes(ViewCtx *v, const Axis *A, int x_labels, int percent)
{
    const Theme *th = v->th;
    RenFont *sf = v->g->small;
    int fh = ren_font_height(sf);
    char buf[32];
    ren_rect(v->r, A->r, th->panel);
    Color grid = th->border;
    grid.a = 110;
    for (int i = 1; i < 4; i++) { /* quarters */
        int y = A->r.y + A->r.h * i / 4;
        ren_rect(v->r, (Rect){A->r.x, y, A->r.w, 1}, grid);
    }
    ren_rect_line(v->r, A->r, 1, th->border);
    for (int i = 0; i <= 2; i++) {
        double y = A->y0 + (A->y1 - A->y0) * i / 2;
        if (percent)
            snprintf(buf, sizeof buf, "%.0f%%", 100 * y);
        else
            fmt_num(buf, sizeof buf, y);
        int w = ren_text_width(sf, buf);
        int py = (int)ax_y(A, y) - fh / 2;
        py = py < A->r.y ? A->r.y : py > A->r.y + A->r.h - fh ? A->r.y + A->r.h - fh : py;
        ren_text(v->r, sf, buf, A->r.x - w - ui_px(v->g, 4), py, th->dim);
    }
    if (!x_labels)
        return;
    /* the x axis's title, in the margin under the y numbers */
    const char *xt = _("step");
    ren_text(v->r, sf, xt, A->r.x - ren_text_width(sf, xt) - ui_px(v->g, 4), A->r.y + A->r.h + 2, th->dim);
    for (int i = 0; i <= 2; i++) {
        double x = A->x0 + (A->x1 - A->x0) * i / 2;
        snprintf(buf, sizeof buf, "%.0f", x);
        int w = ren_text_width(sf, buf), px = (int)ax_x(A, x) - w / 2;
        px = px < A->r.x ? A->r.x : px > A->r.x + A->r.w - w ? A->r.x + A->r.w - w : px;
        ren_text(v->r, sf, buf, px, A->r.y + A->r.h + 2, th->dim);
    }
}

/* A title followed by coloured "name value" pairs; returns its height. */
typedef struct Legend {
    const char *name;
    char value[32];
    Color c;
} Legend;

/* Does a title's legend need a second line? Measured with room for the
 * widest numbers, so the answer does not change while they do. */
static int legend_wraps(ViewCtx *v, Rect rc, const char *title, const Legend *lg, int n)
{
    RenFont *sf = v->g->small;
    int sp = ui_px(v->g, 10), x = rc.x + ren_text_width(sf, title) + sp;
    for (int i = 0; i < n; i++)
        x += ui_px(v->g, 13) + ren_text_width(sf, lg[i].name) + ren_text_width(sf, " 100.0%") + sp;
    return x - sp > rc.x + rc.w;
}

/* The title and the legend after it; entries that do not fit go on a
 * second line (legend_wraps), none is left out. */
static void draw_title(ViewCtx *v, Rect rc, const char *title, const Legend *lg, int n)
{
    RenFont *sf = v->g->small;
    int fh = ren_font_height(sf), wraps = legend_wraps(v, rc, title, lg, n);
    int x = rc.x, y = rc.y, right = rc.x + rc.w, sp = ui_px(v->g, 10);
    ren_clip_push(v->r, (Rect){rc.x, rc.y, rc.w, (wraps ? 2 : 1) * fh});
    x += ren_text(v->r, sf, title, x, rc.y, v->th->text) + sp;
    for (int i = 0; i < n; i++) {
        char buf[96];
        snprintf(buf, sizeof buf, "%s %s", lg[i].name, lg[i].value);
        int w = ui_px(v->g, 13) + ren_text_width(sf, buf);
        if (x + w > right && wraps && y == rc.y) { /* the rest on the second line */
            x = rc.x + ui_px(v->g, 8);
            y += fh;
        }
        if (x + w > right && x > rc.x + ui_px(v->g, 8))
            break;
        ren_rect(v->r, (Rect){x, y + fh / 2 - 1, ui_px(v->g, 10), ui_px(v->g, 3)}, lg[i].c);
        x += ui_px(v->g, 13);
        x += ren_text(v->r, sf, buf, x, y, lg[i].c) + sp;
    }
    ren_clip_pop(v->r);
}

/* The plotting area inside a plot's rectangle (room for the title and its
 * legend, the numbers of the y axis on the left and, when asked, of the x
 * axis with its title), for steps 0..x1 and values 0..y1. */
static Axis plot_area(ViewCtx *v, Rect rc, int x_labels, double x1, double y1, const char *title,
                      const Legend *lg, int n)
{
    RenFont *sf = v->g->small;
    int fh = ren_font_height(sf), th = (legend_wraps(v, rc, title, lg, n) ? 2 : 1) * fh;
    int left = ren_text_width(sf, "2.5e-3") + ui_px(v->g, 8);
    Axis A;
    memset(&A, 0, sizeof A);
    A.r = (Rect){rc.x + left, rc.y + th + ui_px(v->g, 4), rc.w - left - ui_px(v->g, 4),
                 rc.h - th - ui_px(v->g, 6) - (x_labels ? fh + 2 : 0)};
    A.x1 = x1;
    A.y1 = y1;
    return A;
}

/* A polyline of (step, value) pairs already in u->xy as data coordinates. */
static void curve(ViewCtx *v, TrainUi *u, const Axis *A, int n, float width, Color c, int dots)
{
    for (int i = 0; i < n; i++) {
        u->xy[2 * i] = ax_x(A, u->xy[2 * i]);
        u->xy[2 * i + 1] = ax_y(A, u->xy[2 * i + 1]);
    }
    ren_clip_push(v->r, A->r);
    if (n >= 2)
        ren_polyline(v->r, u->xy, n, width, c);
    int d = ui_px(v->g, dots ? 5 : 4);
    if (dots || n == 1)
        for (int i = 0; i < n; i++)
            ren_rect(v->r, (Rect){(int)u->xy[2 * i] - d / 2, (int)u->xy[2 * i + 1] - d / 2, d, d}, c);
    ren_clip_pop(v->r);
}

/* The log's field `which` (0 loss, 1 accuracy, 2 tokens/s) and the
 * held-out one (0 loss, 1 token accuracy, 2 exact match). */
static double log_value(const TvPoint *p, int which)
{
    return which == 0 ? p->loss : which == 1 ? p->acc : p->tok_s;
}

static double eval_value(const TvEval *e, int which)
{
    return which == 0 ? e->loss : which == 1 ? e->acc : e->exact;
}

/* The largest value of the log's field which_log and (which_eval >= 0)
 * of the held-out one: what a plot's axis must reach. */
static double top_of(const TrainShow *st, int which_log, int which_eval)
{
    double top = 0;
    for (int i = 0; i < st->n_log; i++)
        top = fmax(top, log_value(&st->log[i], which_log));
    for (int i = 0; which_eval >= 0 && i < st->n_eval; i++)
        top = fmax(top, eval_value(&st->evals[i], which_eval));
    return top;
}

/* The log's field `which` into u->xy,
 * raw (smooth 0) or as an exponential moving average over about a
 * thirtieth of the curve, which shows the trend through the batch-to-batch
 * noise (drawn bold over the faint raw curve). */
static int log_points(const TrainShow *st, TrainUi *u, int which, int smooth)
{
    double k = st->n_log / 30.0, alpha = smooth ? 2.0 / ((k < 1 ? 1 : k) + 1) : 1.0, m = 0;
    for (int i = 0; i < st->n_log; i++) {
        const TvPoint *p = &st->log[i];
        double x = log_value(p, which);
        m = i == 0 ? x : m + alpha * (x - m);
        u->xy[2 * i] = (float)p->step;
        u->xy[2 * i + 1] = (float)m;
    }
    return st->n_log;
}

/* The last value of the smoothed curve (the legend's number). */
static double smoothed_last(const TrainShow *st, TrainUi *u, int which)
{
    int n = log_points(st, u, which, 1);
    return n ? u->xy[2 * n - 1] : 0;
}

/* A training curve: faint raw, bold smoothed. */
static void train_curve(ViewCtx *v, TrainUi *u, const Axis *A, int which, Color c)
{
    const TrainShow *st = v->s->train;
    Color faint = c;
    faint.a = 80;
    curve(v, u, A, log_points(st, u, which, 0), 1.0f * v->g->scale, faint, 0);
    curve(v, u, A, log_points(st, u, which, 1), 2.0f * v->g->scale, c, 0);
}

/* The held-out field `which` (0 loss, 1 token accuracy, 2 exact match). */
static int eval_points(const TrainShow *st, TrainUi *u, int which)
{
    int n = 0;
    for (int i = 0; i < st->n_eval; i++) {
        const TvEval *e = &st->evals[i];
        if (which == 2 && e->exact < 0) /* a check that did not decode */
            continue;
        u->xy[2 * n] = (float)e->step;
        u->xy[2 * n + 1] = (float)eval_value(e, which);
        n++;
    }
    return n;
}

/* The last exact-match figure, or -1. */
static float last_exact(const TrainShow *st)
{
    for (int i = st->n_eval - 1; i >= 0; i--)
        if (st->evals[i].exact >= 0)
            return st->evals[i].exact;
    return -1;
}

/* The shown snapshot's step, and a readout where the mouse is. */
static void marks(ViewCtx *v, const Axis *A, const char *what, int which_log, int which_eval)
{
    const Theme *th = v->th;
    const TrainShow *st = v->s->train;
    if (st->want_snap >= 0 && st->probe.step >= A->x0 && st->probe.step <= A->x1) {
        int x = (int)ax_x(A, (double)st->probe.step);
        ren_rect(v->r, (Rect){x, A->r.y, ui_px(v->g, 2), A->r.h}, th->select);
    }
    if (!ui_over(v->in, A->r))
        return;
    double step = A->x0 + (double)(v->in->mx - A->r.x) / A->r.w * (A->x1 - A->x0);
    ren_rect(v->r, (Rect){v->in->mx, A->r.y, 1, A->r.h}, th->dim);
    int best = -1;
    for (int i = 0; i < st->n_log; i++)
        if (best < 0 || fabs((double)st->log[i].step - step) < fabs((double)st->log[best].step - step))
            best = i;
    int be = -1;
    for (int i = 0; i < st->n_eval; i++)
        if (be < 0 || fabs((double)st->evals[i].step - step) < fabs((double)st->evals[be].step - step))
            be = i;
    if (best < 0 && be < 0)
        return;
    const TvPoint *p = best >= 0 ? &st->log[best] : NULL;
    const TvEval *e = be >= 0 ? &st->evals[be] : NULL;
    float lv = p ? (float)log_value(p, which_log) : 0;
    float ev = !e ? 0 : which_eval == 0 ? e->loss : e->acc;
    /* the status line shows "where = value": the training value, or the
     * held-out one where there is no training curve */
    if (p && e && which_eval >= 0)
        ui_hover_own(v, lv, _("%s · step %lld (held-out at step %lld: %.4g)"), what, p->step, e->step, (double)ev);
    else if (p)
        ui_hover_own(v, lv, _("%s · step %lld (steps averaged: %d)"), what, p->step, p->n);
    else
        ui_hover_own(v, ev, _("%s · held-out at step %lld"), what, e->step);
}

static void plot_loss(ViewCtx *v, TrainUi *u, Rect rc, double X, int xl, int pass)
{
    const Theme *th = v->th;
    const TrainShow *st = v->s->train;
    double top = top_of(st, 0, 0);
    Legend lg[2] = {{_("train"), "", th->accent}, {_("held-out"), "", th->accent2}};
    Axis A = plot_area(v, rc, xl, X, nice_ceil(top), _("loss"), lg, 2);
    if (pass) {
        marks(v, &A, _("loss"), 0, 0);
        return;
    }
    snprintf(lg[0].value, sizeof lg[0].value, st->n_log ? "%.3f" : "–", smoothed_last(st, u, 0));
    snprintf(lg[1].value, sizeof lg[1].value, st->n_eval ? "%.3f" : "–",
             st->n_eval ? (double)st->evals[st->n_eval - 1].loss : 0.0);
    draw_title(v, rc, _("loss"), lg, 2);
    draw_axes(v, &A, xl, 0);
    train_curve(v, u, &A, 0, th->accent);
    curve(v, u, &A, eval_points(st, u, 0), 1.5f * v->g->scale, th->accent2, 1);
}

static void plot_acc(ViewCtx *v, TrainUi *u, Rect rc, double X, int xl, int pass)
{
    const Theme *th = v->th;
    const TrainShow *st = v->s->train;
    Legend lg[3] = {{_("train"), "", th->accent}, {_("held-out"), "", th->accent2},
                    {_("exact"), "", th->good}};
    Axis A = plot_area(v, rc, xl, X, 1, _("accuracy"), lg, 3);
    if (pass) {
        marks(v, &A, _("accuracy"), 1, 1);
        return;
    }
    snprintf(lg[0].value, sizeof lg[0].value, st->n_log ? "%.0f%%" : "–", 100.0 * smoothed_last(st, u, 1));
    snprintf(lg[1].value, sizeof lg[1].value, st->n_eval ? "%.0f%%" : "–",
             st->n_eval ? 100.0 * st->evals[st->n_eval - 1].acc : 0.0);
    float ex = last_exact(st);
    snprintf(lg[2].value, sizeof lg[2].value, ex >= 0 ? "%.0f%%" : "–", ex >= 0 ? 100.0 * ex : 0.0);
    draw_title(v, rc, _("accuracy"), lg, 3);
    draw_axes(v, &A, xl, 1);
    float w = 1.5f * v->g->scale;
    train_curve(v, u, &A, 1, th->accent);
    curve(v, u, &A, eval_points(st, u, 1), w, th->accent2, 1);
    curve(v, u, &A, eval_points(st, u, 2), w, th->good, 1);
}

static void plot_tok(ViewCtx *v, TrainUi *u, Rect rc, double X, int xl, int pass)
{
    const Theme *th = v->th;
    const TrainShow *st = v->s->train;
    double top = top_of(st, 2, -1);
    Legend lg[1] = {{_("now"), "", th->accent}};
    Axis A = plot_area(v, rc, xl, X, nice_ceil(top), _("tokens/s"), lg, 1);
    if (pass) {
        marks(v, &A, _("tokens/s"), 2, -1);
        return;
    }
    if (st->n_log)
        fmt_num(lg[0].value, sizeof lg[0].value, smoothed_last(st, u, 2));
    else
        snprintf(lg[0].value, sizeof lg[0].value, "–");
    draw_title(v, rc, _("tokens/s"), lg, 1);
    draw_axes(v, &A, xl, 0);
    train_curve(v, u, &A, 2, th->accent);
}

/* The entropy of every probe head of the attention the probe shows, over
 * the steps (Scene.train's hh): one line per head, the dashed top the
 * entropy of a uniform row; a head that learns a pattern drops, often
 * suddenly. */
static void plot_heads(ViewCtx *v, TrainUi *u, Rect rc, double X, int xl, int pass)
{
    const Theme *th = v->th;
    const TrainShow *h = v->s->train;
    int n_heads = h->probe.have ? h->hh.heads[u->attn] : 0;
    double top = nice_ceil(h->hh.max > 0 ? h->hh.max * 1.05 : 1.0);
    static const char *const KIND[TV_ATTN_COUNT] = {N_("head entropy · cross (nats)"),
                                                    N_("head entropy · encoder (nats)"),
                                                    N_("head entropy · decoder (nats)")};
    Legend lg[1] = {{_("uniform ln n"), "", th->dim}};
    Axis A = plot_area(v, rc, xl, X, top, _(KIND[u->attn]), lg, 1);
    if (pass)
        return; /* nothing moves with the mouse here */
    snprintf(lg[0].value, sizeof lg[0].value, "%.2f", h->hh.max);
    draw_title(v, rc, _(KIND[u->attn]), lg, 1);
    draw_axes(v, &A, xl, 0);
    if (h->hh.max > 0) { /* a uniform row's entropy, dashed */
        float y = ax_y(&A, h->hh.max);
        for (int x = A.r.x; x < A.r.x + A.r.w; x += ui_px(v->g, 8))
            ren_rect(v->r, (Rect){x, (int)y, ui_px(v->g, 4), 1}, th->dim);
    }
    if (h->hh.gen != h->probe.gen || h->hh.n < 1 || n_heads < 1) {
        ui_text_fit(v->r, v->g->small, _("the heads' entropy appears as the run trains"), A.r.x + 4,
                    A.r.y + 4, A.r.w - 8, th->dim);
        return;
    }
    int NH = h->cfg.n_heads;
    for (int k = 0; k < n_heads; k++) {
        int n = 0;
        for (int i = 0; i < h->hh.n; i++) {
            float H = h->hh.H[((size_t)i * TV_ATTN_COUNT + u->attn) * TV_HH_HEADS + k];
            if (isfinite(H)) {
                u->xy[2 * n] = (float)h->hh.step[i];
                u->xy[2 * n + 1] = H;
                n++;
            }
        }
        /* each head its own hue; the chosen layer and head in bold */
        float t = NH > 1 ? (float)(k % NH) / (float)(NH - 1) : 0.5f;
        Color c = cmap_color(CMAP_VIRIDIS, 0.15f + 0.8f * t);
        int bold = u->head >= 0 ? k == u->layer * NH + u->head : k / NH == u->layer;
        if (!bold)
            c.a = 110;
        curve(v, u, &A, n, (bold ? 2.0f : 1.0f) * v->g->scale, c, 0);
    }
}

/* The fourth plot: the heads' entropy (H switches), or tokens/s. */
static void plot_fourth(ViewCtx *v, TrainUi *u, Rect rc, double X, int xl, int pass)
{
    if (u->show_hh)
        plot_heads(v, u, rc, X, xl, pass);
    else
        plot_tok(v, u, rc, X, xl, pass);
}

/* The schedule over its own axis (Scene.train's lr_x1: long enough to show
 * the warm-up peak and the decay after it, or the whole run when that is
 * longer), from its points lr[i] at steps 1 + (lr_x1 - 1) i / TV_LR_N. */
static double lr_step(const TrainShow *st, int i)
{
    return 1 + (st->lr_x1 - 1) * i / TV_LR_N;
}

/* The schedule's marks: the step of the snapshot shown, the point under
 * the mouse. */
static void lr_marks(ViewCtx *v, const Axis *A)
{
    const Theme *th = v->th;
    const TrainShow *st = v->s->train;
    if (st->want_snap >= 0) {
        int x = (int)ax_x(A, (double)st->probe.step);
        ren_rect(v->r, (Rect){x, A->r.y, ui_px(v->g, 2), A->r.h}, th->select);
    }
    if (!ui_over(v->in, A->r))
        return;
    double s = A->x0 + (double)(v->in->mx - A->r.x) / A->r.w * (A->x1 - A->x0);
    int i = (int)lround((s - 1) / (st->lr_x1 > 1 ? st->lr_x1 - 1 : 1) * TV_LR_N);
    i = i < 0 ? 0 : i > TV_LR_N ? TV_LR_N : i;
    ren_rect(v->r, (Rect){v->in->mx, A->r.y, 1, A->r.h}, th->dim);
    ui_hover_own(v, st->lr[i], _("learning rate · step %lld"), (long long)lr_step(st, i));
}

static void plot_lr(ViewCtx *v, TrainUi *u, Rect rc, int xl, int pass)
{
    const Theme *th = v->th;
    const TrainShow *st = v->s->train;
    int W = st->warmup > 0 ? st->warmup : 1;
    long long now = st->step;
    Legend lg[2] = {{_("now"), "", th->accent2}, {_("peak"), "", th->dim}};
    Axis A = plot_area(v, rc, xl, st->lr_x1, nice_ceil(st->lr_peak * 1.1), _("learning rate"), lg, 2);
    if (pass) {
        lr_marks(v, &A);
        return;
    }
    fmt_num(lg[0].value, sizeof lg[0].value, now > 0 ? st->lr_now : 0);
    fmt_num(lg[1].value, sizeof lg[1].value, st->lr_peak);
    draw_title(v, rc, _("learning rate"), lg, 2);
    draw_axes(v, &A, xl, 0);
    /* the warm-up's end, dashed */
    int wx = (int)ax_x(&A, W), dash = ui_px(v->g, 4);
    for (int y = A.r.y; y < A.r.y + A.r.h; y += 2 * dash)
        ren_rect(v->r, (Rect){wx, y, 1, dash}, th->dim);
    char buf[64];
    snprintf(buf, sizeof buf, _("warm-up %d"), W);
    /* at the bottom, right of the line: the curve peaks at its top */
    ren_text(v->r, v->g->small, buf, wx + ui_px(v->g, 4), A.r.y + A.r.h - ren_font_height(v->g->small) - 2, th->dim);
    /* the schedule: the part trained bold, the rest thin */
    int n_done = 0, n = TV_LR_N + 1;
    for (int i = 0; i < n; i++) {
        double s = lr_step(st, i);
        if (s <= (double)now)
            n_done = i + 1;
        u->xy[2 * i] = (float)s;
        u->xy[2 * i + 1] = st->lr[i];
    }
    float past[2 * (TV_LR_N + 1)];
    memcpy(past, u->xy, sizeof past);
    Color faint = th->dim;
    faint.a = 150;
    curve(v, u, &A, n, 1.0f * v->g->scale, faint, 0);
    if (n_done >= 2) {
        memcpy(u->xy, past, (size_t)n_done * 2 * sizeof(float));
        u->xy[2 * (n_done - 1)] = (float)now;
        u->xy[2 * (n_done - 1) + 1] = (float)st->lr_now;
        curve(v, u, &A, n_done, 2.5f * v->g->scale, th->accent2, 0);
    }
    if (now > 0) {
        int d = ui_px(v->g, 8);
        int x = (int)ax_x(&A, (double)now), y = (int)ax_y(&A, st->lr_now);
        ren_rect(v->r, (Rect){x - d / 2, y - d / 2, d, d}, th->accent2);
    }
}

/* The four plots in rc; pass 0 draws what stays until the worker publishes
 * again (titles, axes, curves), pass 1 the marks over them (the snapshot
 * shown, the mouse's step and its readout). */
static void plots_pass(ViewCtx *v, TrainUi *u, Rect rc, int pass)
{
    int gap = ui_px(v->g, 12), fh = ren_font_height(v->g->small);
    long long step = v->s->train->step;
    double X = (double)(step > 20 ? step : 20) * 1.04;
    int min_h = 2 * fh + ui_px(v->g, 44), min_w = ui_px(v->g, 300);
    /* one column of four when tall, two by two, or one row of four */
    if (rc.h >= 4 * min_h + 3 * gap && rc.w < 2 * min_w + gap) {
        int h = (rc.h - 3 * gap) / 4;
        plot_loss(v, u, (Rect){rc.x, rc.y, rc.w, h}, X, 0, pass);
        plot_acc(v, u, (Rect){rc.x, rc.y + (h + gap), rc.w, h}, X, 0, pass);
        plot_fourth(v, u, (Rect){rc.x, rc.y + 2 * (h + gap), rc.w, h}, X, 1, pass);
        plot_lr(v, u, (Rect){rc.x, rc.y + 3 * (h + gap) + fh, rc.w, h - fh}, 1, pass);
        return;
    }
    if (rc.h >= 2 * min_h + gap) {
        int w = (rc.w - gap) / 2, h = (rc.h - gap) / 2;
        plot_loss(v, u, (Rect){rc.x, rc.y, w, h}, X, 0, pass);
        plot_acc(v, u, (Rect){rc.x + w + gap, rc.y, w, h}, X, 0, pass);
        plot_fourth(v, u, (Rect){rc.x, rc.y + h + gap, w, h}, X, 1, pass);
        plot_lr(v, u, (Rect){rc.x + w + gap, rc.y + h + gap, w, h}, 1, pass);
        return;
    }
    int w = (rc.w - 3 * gap) / 4;
    plot_loss(v, u, (Rect){rc.x, rc.y, w, rc.h}, X, 1, pass);
    plot_acc(v, u, (Rect){rc.x + (w + gap), rc.y, w, rc.h}, X, 1, pass);
    plot_lr(v, u, (Rect){rc.x + 2 * (w + gap), rc.y, w, rc.h}, 1, pass);
    plot_fourth(v, u, (Rect){rc.x + 3 * (w + gap), rc.y, w, rc.h}, X, 1, pass);
}

/* What the plots' layer shows: the worker's publication, the head-entropy
 * history, which heads are bold, the layout, theme, text size, language. */
static uint64_t plots_key(const ViewCtx *v, const TrainUi *u, Rect rc)
{
    const TrainShow *t = v->s->train;
    uint64_t w[] = {t->gen, t->seq, t->hh.gen, (uint64_t)t->hh.ver, (uint64_t)u->show_hh,
                    (uint64_t)t->probe.have, t->probe.gen, (uint64_t)t->cfg.n_heads, (uint64_t)u->attn,
                    (uint64_t)u->layer, (uint64_t)u->head};
    return ui_layer_key(v, 0x7C, rc, w, (int)(sizeof w / sizeof w[0]));
}

void tv_plots_draw(ViewCtx *v, TrainUi *u, Rect rc)
{
    int fh = ren_font_height(v->g->small);
    if (rc.w < ui_px(v->g, 160) || rc.h < 2 * fh + ui_px(v->g, 24))
        return; /* no room for a curve worth reading */
    /* the curves change when the worker publishes (a few times a second),
     * the frames come more often: drawn once into a layer, then copied */
    GfxLayer L;
    if (gfx_layer_begin(v->g, &L, 0, plots_key(v, u, rc), rc, v->th->bg))
        plots_pass(v, u, rc, 0);
    gfx_layer_end(v->g, &L);
    plots_pass(v, u, rc, 1);
}
