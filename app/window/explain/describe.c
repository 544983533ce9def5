/* describe.c - what a screen reader would say about the view shown
 * (describe.h): what it is, its shape, each row's largest values with
 * their tokens, the masked cells and the experiment, as plain sentences in
 * the window's language. `stepformer describe` prints it; Ctrl+D in the
 * window copies it. Every number is the trace's, rounded to 3 decimals. */
#include "describe.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "expl_stage.h"
#include "ui.h"

#define TOP_N 3

/* Text appended to a bounded buffer; once full, the rest is dropped and
 * the buffer ends in "…". */
typedef struct Out {
    char *buf;
    size_t cap, len;
    int full;
} Out;

static void say(Out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(Out *o, const char *fmt, ...)
{
    if (o->full)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= o->cap - o->len) {
        o->full = 1;
        o->len = o->cap - 1;
        if (o->cap >= 4)
            memcpy(o->buf + o->cap - 4, "…", 3); /* U+2026, 3 bytes, then the NUL */
        return;
    }
    o->len += (size_t)n;
}

static const char *axis_words(LabelKind k)
{
    switch (k) {
    case LBL_SRC: return _("source tokens");
    case LBL_TGT: return _("decoder input tokens");
    case LBL_POS: return _("positions");
    case LBL_DIM: return _("dimensions");
    case LBL_VOCAB: return _("vocabulary tokens");
    default: return _("entries");
    }
}

/* Is the stage's natural reading "which columns are largest in each row"
 * (weights, probabilities, scores, logits)? */
static int ranked(StageKind k)
{
    return k == SK_WEIGHTS || k == SK_PROBS || k == SK_SCORES || k == SK_LOGITS;
}

/* The TOP_N largest (ranked stages) or largest in magnitude (others) of
 * row r: their columns, best first. */
static int row_top(const TfView *v, const TfView *mask, int r, int by_size, int *col)
{
    int n = 0;
    float best[TOP_N];
    for (int c = 0; c < v->cols; c++) {
        float x = tf_view_at(v, r, c);
        if (!isfinite(x) || (mask && isinf(tf_view_at(mask, r, c))))
            continue;
        float key = by_size ? fabsf(x) : x;
        if (n == TOP_N && !(key > best[n - 1]))
            continue;
        int at = n < TOP_N ? n++ : TOP_N - 1;
        while (at > 0 && key > best[at - 1]) {
            best[at] = best[at - 1];
            col[at] = col[at - 1];
            at--;
        }
        best[at] = key;
        col[at] = c;
    }
    return n;
}

/* The mask (0 or −∞) that goes with v: the mask stage itself, or the one
 * of the attention block of v's scores or weights. 0, or -1 for none. */
static int mask_of(const App *a, const TfView *v, TfView *mv)
{
    StageKind k = stage_info(v->stage)->kind;
    TfErr err;
    if (k == SK_MASK) {
        *mv = *v;
        return 0;
    }
    if (k != SK_WEIGHTS && k != SK_SCORES)
        return -1;
    StageId id = (StageId)(k == SK_WEIGHTS ? v->stage - 1 : v->stage + 1);
    if (tf_view(&a->ses.trace, id, v->layer, -1, v->b, mv, &err) || stage_info(mv->stage)->kind != SK_MASK ||
        mv->rows != v->rows || mv->cols != v->cols)
        return -1;
    return 0;
}

/* The masked cells (−∞ in the mask), row by row. */
static void masked_cells(Out *o, const App *a, const TfView *mv)
{
    const TfTrace *tr = &a->ses.trace;
    const TfModel *m = &a->ses.model;
    int total = 0;
    for (int r = 0; r < mv->rows; r++)
        for (int c = 0; c < mv->cols; c++)
            total += isinf(tf_view_at(mv, r, c)) != 0;
    if (!total) {
        say(o, "%s\n", _("No cell is masked."));
        return;
    }
    say(o, _("%d cells are masked (−∞ before the softmax, weight 0 after):"), total);
    say(o, "\n");
    char lab[96];
    for (int r = 0; r < mv->rows; r++) {
        int any = 0;
        for (int c = 0; c < mv->cols; c++) {
            if (!isinf(tf_view_at(mv, r, c)))
                continue;
            if (!any)
                say(o, _("  row %d “%s”: "), r + 1, tf_view_label(tr, m, mv, 0, r, lab, sizeof lab));
            say(o, "%s“%s”", any ? ", " : "", tf_view_label(tr, m, mv, 1, c, lab, sizeof lab));
            any = 1;
        }
        if (any)
            say(o, "\n");
    }
}

/* Each row with its largest values (ranked stages) or its largest
 * magnitudes and its mean (vectors, projections, activations). */
static void rows_of(Out *o, const App *a, const TfView *v, const TfView *mask)
{
    const TfTrace *tr = &a->ses.trace;
    const TfModel *m = &a->ses.model;
    StageKind k = stage_info(v->stage)->kind;
    char rl[96], cl[96];
    for (int r = 0; r < v->rows; r++) {
        say(o, _("  row %d “%s”:"), r + 1, tf_view_label(tr, m, v, 0, r, rl, sizeof rl));
        if (!v->data) {
            say(o, _(" id %d\n"), v->ids[r]);
            continue;
        }
        int col[TOP_N], n = row_top(v, mask, r, !ranked(k), col);
        for (int i = 0; i < n; i++)
            say(o, v->col_kind == LBL_DIM ? _("%s %.3f at dimension %s") : _("%s %.3f on “%s”"), i ? _(",") : "",
                (double)tf_view_at(v, r, col[i]), tf_view_label(tr, m, v, 1, col[i], cl, sizeof cl));
        if (!ranked(k)) {
            double sum = 0;
            for (int c = 0; c < v->cols; c++)
                sum += tf_view_at(v, r, c);
            say(o, _("; mean %.3f"), sum / (v->cols ? v->cols : 1));
        }
        say(o, "\n");
    }
}

static void one_matrix(Out *o, const App *a, const TfView *v)
{
    StageKind k = stage_info(v->stage)->kind;
    say(o, _("A %d × %d matrix: rows are %s, columns are %s."), v->rows, v->cols, axis_words(v->row_kind),
        axis_words(v->col_kind));
    say(o, " %s\n", ranked(k) ? _("Each row's largest values:") : _("Each row's largest values by size:"));
    TfView mv;
    int has_mask = mask_of(a, v, &mv) == 0;
    rows_of(o, a, v, has_mask && k != SK_MASK ? &mv : NULL);
    if (has_mask)
        masked_cells(o, a, &mv);
}

int app_describe(const App *a, char *buf, size_t cap)
{
    if (!buf || cap < 8)
        return -1;
    Out o = {buf, cap, 0, 0};
    buf[0] = 0;
    const Session *s = &a->ses;
    StagePos p = session_pos(s);
    const StageInfo *si = stage_info(p.stage);
    char title[160];
    ui_stage_title(a->look.lang, s->head, p, title, sizeof title);
    ViewId view = app_current_view(a);
    say(&o, _("%s (%s), in the %s view."), _(expl_stage(p.stage)->title), title, _(view_name(view)));
    say(&o, "\n");
    say(&o, _("Model: %s."), s->model_label);
    say(&o, " ");
    const char *sent = s->src[s->batch];
    int sn = (int)strlen(sent);
    while (sn > 0 && sent[sn - 1] == ' ')
        sn--;
    while (sn > 0 && *sent == ' ')
        sent++, sn--;
    say(&o, _("Sentence %d of %d: “%.*s”."), s->batch + 1, s->n_src, sn, sent);
    TfView tv;
    TfErr terr;
    if (tf_view(&s->trace, ST_TGT_TOKENS, 0, -1, s->batch, &tv, &terr) == 0) {
        char lab[96];
        say(&o, " %s", _("The decoder reads:"));
        for (int r = 0; r < tv.rows; r++)
            say(&o, " %s", tf_view_label(&s->trace, &s->model, &tv, 0, r, lab, sizeof lab));
        say(&o, ".");
    }
    say(&o, "\n");
    if (session_has_exp(s)) {
        char e[256];
        tf_exp_describe(&s->exp, e, sizeof e);
        say(&o, _("Experiment on: %s. The numbers below are the experiment's."), e);
    } else {
        say(&o, "%s", _("No experiment: the model as trained."));
    }
    say(&o, "\n");
    if (s->input_error[0]) {
        say(&o, "%s\n", s->input_error);
        return (int)o.len;
    }
    /* per-head stages with all heads shown: each head in turn */
    int all = s->head < 0 && (si->flags & SF_HEAD);
    int h0 = all ? 0 : (si->flags & (SF_HEAD | SF_HEAD_OPT)) ? s->head : -1;
    int h1 = all ? s->model.cfg.n_heads : h0 + 1;
    for (int h = h0; h < h1; h++) {
        TfView v;
        TfErr err;
        if (tf_view(&s->trace, p.stage, p.layer, h, s->batch, &v, &err)) {
            say(&o, "%s\n", err.msg);
            break;
        }
        if (all)
            say(&o, _("Head %d of %d. "), h + 1, h1);
        one_matrix(&o, a, &v);
    }
    return (int)o.len;
}

extern char **environ;

int app_speak(const char *text)
{
    static pid_t talking = -1;
    if (talking > 0) { /* a new text interrupts the one being read */
        if (waitpid(talking, NULL, WNOHANG) == 0) {
            kill(talking, SIGTERM);
            waitpid(talking, NULL, 0);
        }
        talking = -1;
    }
    char *argv[] = {"spd-say", "-e", NULL};
    int fd[2];
    if (pipe(fd))
        return -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd[0], 0);
    posix_spawn_file_actions_addclose(&fa, fd[1]);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, "spd-say", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fd[0]);
    if (rc) {
        close(fd[1]);
        return -1;
    }
    /* the text on its standard input (-e); a reader that stops early is
     * not an error of ours */
    void (*old)(int) = signal(SIGPIPE, SIG_IGN);
    size_t n = strlen(text);
    for (size_t off = 0; off < n;) {
        ssize_t w = write(fd[1], text + off, n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    close(fd[1]);
    signal(SIGPIPE, old);
    talking = pid;
    return 0;
}
