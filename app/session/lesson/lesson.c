/* lesson.c - the lesson parser (see lesson.h and lessons/README.md): one
 * lesson's text into its steps; lesson_files.c reads the files and folders. */
#include "lesson.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "num.h"
#include "utf8.h"

/* ---- small string helpers ---- */

static char *dup_n(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

static void trim(const char **s, size_t *n)
{
    while (*n && (**s == ' ' || **s == '\t')) {
        (*s)++;
        (*n)--;
    }
    while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t' || (*s)[*n - 1] == '\r'))
        (*n)--;
}

/* A step's text grows line by line; its length and capacity are tracked
 * so that appending stays linear in the size of the file. */
typedef struct Buf {
    size_t len, cap;
} Buf;

/* Append n raw bytes, keeping the text NUL-terminated. */
static int buf_add(char **text, Buf *b, const char *s, size_t n)
{
    if (!*text)
        b->len = b->cap = 0;
    size_t need = b->len + n + 1;
    if (need > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < need)
            cap *= 2;
        char *t = realloc(*text, cap);
        if (!t)
            return -1;
        *text = t;
        b->cap = cap;
    }
    memcpy(*text + b->len, s, n);
    b->len += n;
    (*text)[b->len] = 0;
    return 0;
}

/* Append a line; lines are separated by "\n", paragraphs by "\n\n". */
static int append(char **text, Buf *b, const char *s, size_t n, int new_para)
{
    if (!*text)
        b->len = b->cap = 0;
    const char *sep = b->len ? (new_para ? "\n\n" : "\n") : "";
    return buf_add(text, b, sep, strlen(sep)) || buf_add(text, b, s, n) ? -1 : 0;
}

/* A number from 0 (layers, heads and positions as on the command line). */
static int parse_index(const char *v, size_t n, int *out)
{
    return n > 4 ? -1 : tf_parse_int(v, n, 0, 9999, out);
}

/* A number from 1 (layers, heads, sentences as the window counts them),
 * returned from 0. */
static int parse_count(const char *v, size_t n, int *out)
{
    int x;
    if (n > 3 || parse_index(v, n, &x) || x < 1)
        return -1;
    *out = x - 1;
    return 0;
}

/* ---- parsing ---- */

typedef struct Parser {
    Lesson *l;
    const char *path;
    int line;
    LessonStep *step;
    LessonView cur;   /* carried forward */
    int blank;        /* the previous line was blank */
    int in_quiz;
    Buf text;         /* length and capacity of step->text */
    Buf dirs;         /* length and capacity of step->directives */
    TfErr *err;
} Parser;

static int fail(Parser *p, const char *fmt, const char *a)
{
    char msg[300];
    snprintf(msg, sizeof msg, fmt, a);
    return tf_fail(p->err, "%s:%d: %s", p->path, p->line, msg);
}

/* strspn bounded by the slice's length */
static size_t span_of(const char *v, size_t n, const char *set)
{
    size_t k = 0;
    while (k < n && v[k] && strchr(set, v[k]))
        k++;
    return k;
}

/* lesson_choice_number on the slice v[0..n): the parser's values are not
 * NUL-terminated (the file's bytes follow), so the number is read from a
 * bounded copy; only its first characters matter. */
static int number_prefix(const char *v, size_t n, double *out, int *decimals)
{
    char buf[64];
    size_t k = n < sizeof buf - 1 ? n : sizeof buf - 1;
    memcpy(buf, v, k);
    buf[k] = 0;
    return lesson_choice_number(buf, out, decimals);
}

static int set_str(Parser *p, char **dst, const char *v, size_t n)
{
    free(*dst);
    *dst = dup_n(v, n);
    return *dst ? 0 : fail(p, "%s", "out of memory");
}

/* Record "@key value\n" for comparing the languages' directives, in time
 * linear in the total. */
static int add_directive_text(Parser *p, const char *key, const char *v, size_t n)
{
    char **d = &p->step->directives;
    if (buf_add(d, &p->dirs, "@", 1) || buf_add(d, &p->dirs, key, strlen(key)) ||
        buf_add(d, &p->dirs, " ", 1) || buf_add(d, &p->dirs, v, n) ||
        buf_add(d, &p->dirs, "\n", 1))
        return fail(p, "%s", "out of memory");
    return 0;
}

/* "enc:L:H", "dec:L:H" or "cross:L:H" */
static int parse_head_ref(const char *v, size_t n, TfHeadRef *h)
{
    static const char *KINDS[3] = {"enc", "dec", "cross"};
    const char *c1 = memchr(v, ':', n);
    const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(v + n - c1 - 1)) : NULL;
    if (!c2)
        return -1;
    h->kind = -1;
    for (int k = 0; k < 3; k++)
        if ((size_t)(c1 - v) == strlen(KINDS[k]) && memcmp(v, KINDS[k], (size_t)(c1 - v)) == 0)
            h->kind = k;
    if (h->kind < 0 || parse_index(c1 + 1, (size_t)(c2 - c1 - 1), &h->layer) ||
        parse_index(c2 + 1, (size_t)(v + n - c2 - 1), &h->head))
        return -1;
    return 0;
}

/* "enc:L" or "dec:L": a feed-forward network. */
static int parse_layer_ref(const char *v, size_t n, TfLayerRef *f)
{
    const char *c1 = memchr(v, ':', n);
    if (!c1)
        return -1;
    size_t k = (size_t)(c1 - v);
    f->kind = k == 3 && memcmp(v, "enc", 3) == 0 ? TF_ATTN_ENC : k == 3 && memcmp(v, "dec", 3) == 0 ? TF_ATTN_DEC : -1;
    if (f->kind < 0 || parse_index(c1 + 1, (size_t)(v + n - c1 - 1), &f->layer))
        return -1;
    return 0;
}

/* The next space-separated word of v[*i..n): its start and length. */
static size_t next_word(const char *v, size_t n, size_t *i, const char **w)
{
    while (*i < n && (v[*i] == ' ' || v[*i] == '\t'))
        (*i)++;
    *w = v + *i;
    size_t s = *i;
    while (*i < n && v[*i] != ' ' && v[*i] != '\t')
        (*i)++;
    return *i - s;
}

static int word_is(const char *w, size_t k, const char *lit)
{
    return k == strlen(lit) && memcmp(w, lit, k) == 0;
}

static int fail_word(Parser *p, const char *fmt, const char *w, size_t k)
{
    char word[64];
    snprintf(word, sizeof word, "%.*s", (int)(k < 60 ? k : 60), w);
    return fail(p, fmt, word);
}

/* @experiment FLAGS: the command line's experiment flags without the dashes;
 * they replace the flags in force. */
static int parse_exp(Parser *p, const char *v, size_t n, TfExperiment *out, int *cmp_out, int *none_out)
{
    TfExperiment e;
    memset(&e, 0, sizeof e);
    int cmp = LESSON_CMP_EXP, none = 0, words = 0, cmp_set = 0;
    size_t i = 0;
    const char *w;
    size_t k;
    if (n == 0)
        return fail(p, "%s", "@experiment needs flags: no-scale no-pe no-causal no-residual ablate P:L:H "
                             "hide-src I no-ffn P:L compare normal, or none");
    while ((k = next_word(v, n, &i, &w)) > 0) {
        words++;
        if (word_is(w, k, "none"))
            none = 1;
        else if (word_is(w, k, "no-scale"))
            e.no_scale = 1;
        else if (word_is(w, k, "no-pe"))
            e.no_pe = 1;
        else if (word_is(w, k, "no-causal"))
            e.no_causal = 1;
        else if (word_is(w, k, "no-residual"))
            e.no_residual = 1;
        else if (word_is(w, k, "no-ffn")) {
            TfLayerRef f;
            const char *a;
            size_t ak = next_word(v, n, &i, &a);
            if (ak == 0 || parse_layer_ref(a, ak, &f))
                return fail(p, "%s", "@experiment no-ffn needs enc:L or dec:L (L from 0)");
            if (e.n_no_ffn >= TF_EXP_MAX_FFN)
                return fail(p, "@experiment: at most %s feed-forward networks can be off", "64");
            if (!tf_exp_ffn_off(&e, (TfAttnKind)f.kind, f.layer))
                e.no_ffn[e.n_no_ffn++] = f;
        }
        else if (word_is(w, k, "compare") || word_is(w, k, "normal")) {
            int want = w[0] == 'c' ? LESSON_CMP_DIFF : LESSON_CMP_NORMAL;
            if (cmp_set && cmp != want)
                return fail(p, "%s", "@experiment: compare and normal are two D modes; give one");
            cmp = want;
            cmp_set = 1;
        } else if (word_is(w, k, "ablate")) {
            TfHeadRef h;
            const char *a;
            size_t ak = next_word(v, n, &i, &a);
            if (ak == 0 || parse_head_ref(a, ak, &h))
                return fail(p, "%s", "@experiment ablate needs enc:L:H, dec:L:H or cross:L:H (L and H from 0)");
            if (e.n_ablate >= TF_EXP_MAX_ABLATE)
                return fail(p, "@experiment: at most %s heads can be ablated", "64");
            e.ablate[e.n_ablate++] = h;
        } else if (word_is(w, k, "hide-src")) {
            const char *a;
            size_t ak = next_word(v, n, &i, &a);
            int pos;
            if (ak == 0 || parse_index(a, ak, &pos))
                return fail(p, "%s", "@experiment hide-src needs a source position from 0");
            if (e.n_hide >= TF_EXP_MAX_HIDE)
                return fail(p, "@experiment: at most %s positions can be hidden", "64");
            e.hide_src[e.n_hide++] = pos;
        } else {
            return fail_word(p, "unknown @experiment flag '%s' (no-scale no-pe no-causal no-residual ablate "
                                "hide-src no-ffn compare normal none)", w, k);
        }
    }
    if (none && words > 1)
        return fail(p, "%s", "@experiment none clears the experiment: give it alone");
    if (!none && tf_exp_is_none(&e))
        return fail(p, "%s", "@experiment compare/normal needs an experiment flag to compare with");
    *out = e;
    *cmp_out = cmp;
    *none_out = none;
    return 0;
}

static int experiment_directive(Parser *p, const char *v, size_t n)
{
    LessonView *c = &p->cur;
    TfExperiment e;
    int cmp, none;
    if (parse_exp(p, v, n, &e, &cmp, &none))
        return -1;
    c->has_exp = 1;
    c->exp = e;
    c->cmp = cmp;
    c->exp_line = p->line;
    return 0;
}

static int pane_directive(Parser *p, const char *v, size_t n)
{
    static const char *PE[3] = {"waves", "table", "rotation"};
    for (int k = 0; k < 3; k++)
        if (word_is(v, n, PE[k])) {
            snprintf(p->cur.pe_panel, sizeof p->cur.pe_panel, "%s", PE[k]);
            p->cur.pe_panel_line = p->line;
            return 0;
        }
    static const char *PANES[4] = {"gen", "step", "beam", "sample"};
    for (int k = 0; k < 4; k++)
        if (word_is(v, n, PANES[k])) {
            snprintf(p->cur.pane, sizeof p->cur.pane, "%s", PANES[k]);
            p->cur.pane_line = p->line;
            return 0;
        }
    return fail(p, "%s", "@pane needs gen, step, beam or sample (decode), or waves, table or rotation (pe)");
}

int lesson_predict_has_choices(int kind)
{
    return kind == LESSON_PREDICT_NUMBER || kind == LESSON_PREDICT_OUTPUT || kind == LESSON_PREDICT_BREAKS;
}

/* A query: a token as written, or #N (from 1). */
static int check_query(Parser *p, const char *q, size_t qn)
{
    int pos;
    if (qn && q[0] == '#' && (parse_index(q + 1, qn - 1, &pos) || pos < 1))
        return fail(p, "%s", "@predict: #N counts positions from 1");
    return 0;
}

/* @predict number WHAT: cell R C | mean R | std R | zeros R | max R. */
static int predict_number(Parser *p, LessonPredict *pr, const char *v, size_t n)
{
    static const char *WHAT[5] = {"cell", "mean", "std", "zeros", "max"};
    size_t i = 0, rn, cn;
    const char *w, *r, *c;
    size_t k = next_word(v, n, &i, &w);
    pr->what = -1;
    for (int m = 0; m < 5; m++)
        if (word_is(w, k, WHAT[m]))
            pr->what = m;
    rn = next_word(v, n, &i, &r);
    cn = next_word(v, n, &i, &c);
    const char *usage = "@predict number needs cell ROW COL, mean ROW, std ROW, zeros ROW or max ROW "
                        "(a token of the sentence or #N from 1)";
    if (pr->what < 0 || rn == 0 || (pr->what == LESSON_NUM_CELL) != (cn > 0) || i < n)
        return fail(p, "%s", usage);
    if (check_query(p, r, rn) || check_query(p, c, cn) || set_str(p, &pr->query, r, rn))
        return -1;
    return cn ? set_str(p, &pr->col, c, cn) : 0;
}

/* @predict KIND ...: one step only. The kinds with choices read the
 * @choice / @answer lines that follow into the step's quiz. */
static int predict_directive(Parser *p, const char *v, size_t n)
{
    LessonPredict *pr = &p->step->predict;
    if (pr->kind)
        return fail(p, "%s", "a step has at most one @predict");
    if (p->step->has_quiz)
        return fail(p, "%s", "a step has a @quiz or a @predict, not both");
    size_t i = 0;
    const char *w, *q;
    size_t k = next_word(v, n, &i, &w);
    while (i < n && (v[i] == ' ' || v[i] == '\t'))
        i++;
    q = v + i;
    size_t qn = n - i;
    pr->line = p->line;
    p->in_quiz = 0;
    if (word_is(w, k, "row")) {
        if (qn == 0)
            return fail(p, "%s", "@predict row needs the query: a token of the sentence, or #N (from 1)");
        pr->kind = LESSON_PREDICT_ROW;
    } else if (word_is(w, k, "next")) {
        pr->kind = LESSON_PREDICT_NEXT;
    } else if (word_is(w, k, "number")) {
        pr->kind = LESSON_PREDICT_NUMBER;
        p->in_quiz = 1;
        p->step->quiz.answer = -1;
        return predict_number(p, pr, q, qn);
    } else if (word_is(w, k, "output") || word_is(w, k, "breaks")) {
        if (qn)
            return fail(p, "%s", "@predict output / breaks take no argument: the choices follow as @choice and "
                                 "@answer lines");
        pr->kind = w[0] == 'o' ? LESSON_PREDICT_OUTPUT : LESSON_PREDICT_BREAKS;
        p->in_quiz = 1;
        p->step->quiz.answer = -1;
        if (pr->kind == LESSON_PREDICT_BREAKS &&
            !(pr->exps = calloc(LESSON_MAX_CHOICES, sizeof *pr->exps)))
            return fail(p, "%s", "out of memory");
        return 0;
    } else {
        return fail(p, "%s", "@predict needs row QUERY, next [QUERY], number WHAT, output or breaks");
    }
    if (check_query(p, q, qn))
        return -1;
    return qn ? set_str(p, &pr->query, q, qn) : 0;
}

/* @train TASK [heads N]: the Train view's task and number of heads for the
 * run the learner starts (the other settings stay the classroom size). */
static int train_directive(Parser *p, const char *v, size_t n)
{
    static const char *TASKS[4] = {"copy", "reverse", "sort", "en2zh"};
    static const char *USAGE = "@train needs a task (copy, reverse, sort, en2zh) and optionally heads N "
                               "(1, 2, 4, 8, 16, 32, 64 or 128): @train reverse heads 1";
    size_t i = 0;
    const char *w;
    size_t k = next_word(v, n, &i, &w);
    int t = -1, h = 0;
    for (int j = 0; j < 4; j++)
        if (word_is(w, k, TASKS[j]))
            t = j;
    if (t < 0)
        return fail(p, "%s", USAGE);
    k = next_word(v, n, &i, &w);
    if (k) {
        if (!word_is(w, k, "heads"))
            return fail(p, "%s", USAGE);
        k = next_word(v, n, &i, &w);
        if (!k || parse_index(w, k, &h) || h < 1 || h > 128 || (h & (h - 1)))
            return fail(p, "%s", USAGE);
        if (next_word(v, n, &i, &w))
            return fail(p, "%s", USAGE);
    }
    snprintf(p->cur.train_task, sizeof p->cur.train_task, "%s", TASKS[t]);
    p->cur.train_heads = h;
    p->cur.train_line = p->line;
    return 0;
}

/* @force N TOKEN: one step only; N from 1, TOKEN a target token (checked
 * against the model by lessons --check). */
static int force_directive(Parser *p, const char *v, size_t n)
{
    LessonStep *s = p->step;
    if (s->force_step)
        return fail(p, "%s", "a step has at most one @force");
    size_t i = 0;
    const char *w;
    size_t k = next_word(v, n, &i, &w);
    while (i < n && (v[i] == ' ' || v[i] == '\t'))
        i++;
    int step;
    if (k == 0 || parse_index(w, k, &step) || step < 1 || i >= n)
        return fail(p, "%s", "@force needs a generation step from 1 and a target token: @force 1 你");
    s->force_step = step;
    s->force_line = p->line;
    return set_str(p, &s->force_token, v + i, n - i);
}

/* A name of at most cap - 1 bytes into dst, or msg. */
static int name_value(Parser *p, char *dst, size_t cap, const char *v, size_t n, const char *msg)
{
    if (n == 0 || n >= cap)
        return fail(p, "%s", msg);
    memcpy(dst, v, n);
    dst[n] = 0;
    return 0;
}

/* Some text into *dst, or msg when there is none; where dash_clears is
 * set, "-" keeps an empty text (cleared). */
static int text_value(Parser *p, char **dst, const char *v, size_t n, const char *msg, int dash_clears)
{
    if (n == 0)
        return fail(p, "%s", msg);
    return set_str(p, dst, v, dash_clears && n == 1 && v[0] == '-' ? 0 : n);
}

static int view_directive(Parser *p, const char *key, const char *v, size_t n)
{
    LessonView *c = &p->cur;
    if (strcmp(key, "stage") == 0) {
        if (name_value(p, c->stage, sizeof c->stage, v, n, "@stage needs a stage name"))
            return -1;
        c->view[0] = 0; /* a new stage starts in its natural view */
    } else if (strcmp(key, "view") == 0) {
        if (name_value(p, c->view, sizeof c->view, v, n, "@view needs a view name"))
            return -1;
    } else if (strcmp(key, "layer") == 0) {
        if (parse_count(v, n, &c->layer))
            return fail(p, "%s", "@layer needs a number from 1");
    } else if (strcmp(key, "head") == 0) {
        if (n == 3 && memcmp(v, "all", 3) == 0)
            c->head = -1;
        else if (parse_count(v, n, &c->head))
            return fail(p, "%s", "@head needs a number from 1, or all");
    } else if (strcmp(key, "batch") == 0) {
        if (parse_count(v, n, &c->batch))
            return fail(p, "%s", "@batch needs a number from 1");
    } else if (strcmp(key, "src") == 0) {
        if (text_value(p, &c->src, v, n, "@src needs a sentence", 0))
            return -1;
    } else if (strcmp(key, "tgt") == 0) {
        if (text_value(p, &c->tgt, v, n, "@tgt needs a sentence, or - to clear it", 1))
            return -1;
    } else if (strcmp(key, "highlight") == 0) {
        if (text_value(p, &c->highlight, v, n, "@highlight needs a token", 0))
            return -1;
    } else if (strcmp(key, "pane") == 0) {
        if (pane_directive(p, v, n))
            return -1;
    } else if (strcmp(key, "experiment") == 0) {
        if (experiment_directive(p, v, n))
            return -1;
    } else if (strcmp(key, "colormap") == 0) {
        if (!word_is(v, n, "viridis") && !word_is(v, n, "cividis") && !word_is(v, n, "blue-orange"))
            return fail(p, "%s", "@colormap needs viridis, cividis or blue-orange");
        memcpy(c->cmap, v, n);
        c->cmap[n] = 0;
    } else if (strcmp(key, "train") == 0) {
        if (train_directive(p, v, n))
            return -1;
    } else if (strcmp(key, "beam") == 0) {
        int k;
        if (parse_index(v, n, &k) || k < 1 || k > 8)
            return fail(p, "%s", "@beam needs a beam width from 1 to 8");
        c->beam = k;
    } else if (strcmp(key, "alpha") == 0) {
        double a;
        int dec;
        if (number_prefix(v, n, &a, &dec) || a < 0 || a > 2 || span_of(v, n, "0123456789.") < n)
            return fail(p, "%s", "@alpha needs a length penalty from 0 to 2, e.g. 0.6");
        c->alpha = (float)a;
    } else if (strcmp(key, "predict") == 0) {
        if (predict_directive(p, v, n))
            return -1;
    } else if (strcmp(key, "force") == 0) {
        if (force_directive(p, v, n))
            return -1;
    } else {
        return 1; /* not a view directive */
    }
    return add_directive_text(p, key, v, n);
}

static int quiz_directive(Parser *p, const char *key, const char *v, size_t n)
{
    LessonQuiz *q = &p->step->quiz;
    if (strcmp(key, "quiz") == 0) {
        if (p->step->has_quiz)
            return fail(p, "%s", "a step has at most one @quiz");
        if (p->step->predict.kind)
            return fail(p, "%s", "a step has a @quiz or a @predict, not both");
        if (n == 0)
            return fail(p, "%s", "@quiz needs a question");
        p->step->has_quiz = 1;
        p->in_quiz = 1;
        q->answer = -1;
        q->line = p->line;
        return set_str(p, &q->question, v, n);
    }
    int choice = strcmp(key, "choice") == 0, answer = strcmp(key, "answer") == 0;
    if (choice || answer) {
        if (!p->in_quiz)
            return fail(p, "@%s outside a quiz (start one with @quiz)", key);
        if (n == 0)
            return fail(p, "@%s needs text", key);
        if (q->n_choices >= LESSON_MAX_CHOICES)
            return fail(p, "%s", "too many choices (at most 8)");
        if (answer && q->answer >= 0)
            return fail(p, "%s", "a quiz has exactly one @answer; this is the second");
        if (answer)
            q->answer = q->n_choices;
        if (p->step->predict.kind == LESSON_PREDICT_BREAKS) {
            const char *bar = memchr(v, '|', n);
            size_t fn = bar ? (size_t)(bar - v) : n;
            while (fn && (v[fn - 1] == ' ' || v[fn - 1] == '\t'))
                fn--;
            int cmp, none;
            TfExperiment *e = &p->step->predict.exps[q->n_choices];
            if (parse_exp(p, v, fn, e, &cmp, &none))
                return -1;
            if (none)
                return fail(p, "%s", "a @predict breaks choice is a change: experiment flags, not none");
        } else if (p->step->predict.kind == LESSON_PREDICT_NUMBER) {
            double x;
            int dec;
            if (number_prefix(v, n, &x, &dec))
                return fail(p, "%s", "a @predict number choice starts with its number (0.25, −1, 6 cells)");
        }
        return set_str(p, &q->choices[q->n_choices++], v, n);
    }
    if (strcmp(key, "explain") == 0 && p->step->predict.kind) {
        if (n == 0)
            return fail(p, "%s", "@explain needs text");
        if (p->step->predict.explain)
            return fail(p, "%s", "a @predict has one @explain; this is the second");
        return set_str(p, &p->step->predict.explain, v, n);
    }
    if (strcmp(key, "explain") == 0) {
        if (!p->in_quiz)
            return fail(p, "%s", "@explain outside a quiz or a @predict");
        if (q->explain)
            return fail(p, "%s", "a quiz has one @explain; this is the second");
        return set_str(p, &q->explain, v, n);
    }
    return 1;
}

/* A quiz is complete when it has choices and one answer. */
static int close_quiz(Parser *p)
{
    if (!p->step || (!p->step->has_quiz && !lesson_predict_has_choices(p->step->predict.kind)))
        return 0;
    if (!p->step->has_quiz)
        p->step->quiz.line = p->step->predict.line;
    LessonQuiz *q = &p->step->quiz;
    int line = p->line;
    p->line = q->line;
    int rc = 0;
    if (q->n_choices < 2)
        rc = fail(p, "%s", p->step->has_quiz ? "unterminated quiz: it needs @choice lines and one @answer"
                                             : "this @predict needs @choice lines and one @answer");
    else if (q->answer < 0)
        rc = fail(p, "%s", "quiz has no @answer (exactly one choice must be right)");
    p->line = line;
    p->in_quiz = 0;
    return rc;
}

static int close_step(Parser *p)
{
    if (!p->step)
        return 0;
    if (close_quiz(p))
        return -1;
    LessonStep *s = p->step;
    if (!s->text || !s->text[0]) {
        int line = p->line;
        p->line = s->line;
        int rc = fail(p, "step '%s' has no text", s->title);
        p->line = line;
        return rc;
    }
    /* the view as resolved at the end of the step */
    s->view = p->cur;
    s->view.src = p->cur.src ? dup_n(p->cur.src, strlen(p->cur.src)) : NULL;
    s->view.tgt = p->cur.tgt ? dup_n(p->cur.tgt, strlen(p->cur.tgt)) : NULL;
    s->view.highlight = p->cur.highlight ? dup_n(p->cur.highlight, strlen(p->cur.highlight)) : NULL;
    return 0;
}

static int directive(Parser *p, const char *line, size_t n)
{
    size_t k = 1;
    while (k < n && line[k] != ' ' && line[k] != '\t')
        k++;
    char key[24];
    if (k - 1 == 0 || k - 1 >= sizeof key)
        return fail(p, "%s", "unknown directive (see lessons/README.md)");
    memcpy(key, line + 1, k - 1);
    key[k - 1] = 0;
    const char *v = line + k;
    size_t vn = n - k;
    trim(&v, &vn);
    Lesson *l = p->l;
    if (strcmp(key, "title") == 0 || strcmp(key, "summary") == 0 || strcmp(key, "model") == 0) {
        if (p->step)
            return fail(p, "@%s belongs before the first @step", key);
        if (vn == 0)
            return fail(p, "@%s needs text", key);
        if (key[0] == 't')
            return set_str(p, &l->title, v, vn);
        if (key[0] == 's')
            return set_str(p, &l->summary, v, vn);
        if (vn >= sizeof l->model)
            return fail(p, "%s", "@model name too long");
        memcpy(l->model, v, vn);
        l->model[vn] = 0;
        return 0;
    }
    if (strcmp(key, "recap") == 0 || strcmp(key, "exercise") == 0) {
        int ex = key[0] == 'e';
        int *cnt = ex ? &l->n_exercise : &l->n_recap;
        if (vn == 0)
            return fail(p, "@%s needs text", key);
        if (*cnt >= LESSON_MAX_RECAP)
            return fail(p, ex ? "at most %s @exercise lines" : "at most %s @recap lines", "8");
        char **dst = ex ? &l->exercise[*cnt] : &l->recap[*cnt];
        (*cnt)++;
        return set_str(p, dst, v, vn);
    }
    if (strcmp(key, "test") == 0) { /* a pre-test or post-test: answers recorded, no reveal */
        if (p->step)
            return fail(p, "%s", "@test belongs before the first @step");
        if (!(vn == 3 && !memcmp(v, "pre", 3)) && !(vn == 4 && !memcmp(v, "post", 4)) &&
            !(vn == 4 && !memcmp(v, "test", 4)))
            return fail(p, "%s", "@test needs pre, post or test");
        memcpy(l->test, v, vn);
        l->test[vn] = 0;
        return 0;
    }
    if (strcmp(key, "qid") == 0) { /* a test question's id, the same in the pre- and post-test */
        if (!p->step)
            return fail(p, "%s", "@qid belongs to a step");
        if (vn == 0 || vn >= sizeof p->step->qid || span_of(v, vn, "abcdefghijklmnopqrstuvwxyz0123456789-") < vn)
            return fail(p, "%s", "@qid needs an id of a-z, 0-9 and - (at most 31)");
        memcpy(p->step->qid, v, vn);
        p->step->qid[vn] = 0;
        return 0;
    }
    if (strcmp(key, "step") == 0) {
        if (close_step(p))
            return -1;
        if (!l->title)
            return fail(p, "%s", "the lesson needs a @title before its first @step");
        if (l->n_steps >= LESSON_MAX_STEPS)
            return fail(p, "too many steps (at most %s)", "64");
        if (vn == 0)
            return fail(p, "%s", "@step needs a title");
        if (l->n_steps == l->cap_steps) { /* grown, so a short lesson stays small */
            int cap = l->cap_steps ? 2 * l->cap_steps : 4;
            LessonStep *grown = realloc(l->steps, (size_t)cap * sizeof *grown);
            if (!grown)
                return fail(p, "%s", "out of memory");
            l->steps = grown;
            l->cap_steps = cap;
        }
        p->step = &l->steps[l->n_steps++];
        memset(p->step, 0, sizeof *p->step);
        p->step->line = p->line;
        p->blank = 1;
        return set_str(p, &p->step->title, v, vn);
    }
    if (!p->step)
        return fail(p, "@%s before the first @step", key);
    int rc = view_directive(p, key, v, vn);
    if (rc <= 0)
        return rc;
    rc = quiz_directive(p, key, v, vn);
    if (rc <= 0)
        return rc;
    if (strcmp(key, "try") == 0) {
        if (vn == 0)
            return fail(p, "%s", "@try needs text");
        if (p->step->try_text)
            return fail(p, "%s", "a step has one @try; this is the second");
        return set_str(p, &p->step->try_text, v, vn);
    }
    return fail(p, "unknown directive @%s (see lessons/README.md)", key);
}

static int text_line(Parser *p, const char *s, size_t n)
{
    if (n == 0) {
        p->blank = 1;
        return 0;
    }
    if (!p->step)
        return fail(p, "%s", "text before the first @step");
    if (p->in_quiz)
        return fail(p, "%s", p->step->has_quiz ? "text inside a quiz (put it before @quiz)" : "text after the choices (put it before @predict)");
    /* lines are kept as written; a blank line before starts a paragraph
     * (stored as an empty line) */
    if (append(&p->step->text, &p->text, s, n, p->blank && p->step->text))
        return fail(p, "%s", "out of memory");
    p->blank = 0;
    return 0;
}

static void id_from_path(Lesson *l, const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    int order = 0;
    const char *s = base;
    while (*s >= '0' && *s <= '9') { /* "99999999999999999999-x" stays in range */
        if (order < 100000000)
            order = order * 10 + (*s - '0');
        s++;
    }
    if (*s == '-' || *s == '_')
        s++;
    size_t n = strcspn(s, ".");
    if (n >= sizeof l->id)
        n = sizeof l->id - 1;
    memcpy(l->id, s, n);
    l->id[n] = 0;
    l->order = order;
    snprintf(l->path, sizeof l->path, "%s", path);
}

int lesson_parse(Lesson *l, const char *text, size_t len, const char *path,
                 TfErr *err)
{
    memset(l, 0, sizeof *l);
    snprintf(l->model, sizeof l->model, "en2zh");
    id_from_path(l, path);
    if (len > LESSON_MAX_BYTES)
        return tf_fail(err, "%s: larger than %d bytes", path, LESSON_MAX_BYTES);
    Parser p = {.l = l, .path = path, .blank = 1, .err = err};
    p.cur.layer = p.cur.head = p.cur.batch = -2;
    p.cur.alpha = -1.0f;
    /* a UTF-8 byte order mark, as some editors write, is not text */
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
        text += 3;
        len -= 3;
    }
    size_t bad;
    if (utf8_check(text, len, &bad)) {
        int line = 1;
        for (size_t i = 0; i < bad; i++)
            line += text[i] == '\n';
        return tf_fail(err, "%s:%d: not valid UTF-8 (byte %zu)", path, line, bad);
    }
    int rc = 0;
    size_t i = 0;
    while (i < len && !rc) {
        /* lines end in "\n", "\r\n" or a lone "\r" (old Mac files) */
        size_t e = i;
        while (e < len && text[e] != '\n' && text[e] != '\r')
            e++;
        p.line++;
        const char *s = text + i;
        size_t n = e - i;
        if (memchr(s, 0, n))
            rc = fail(&p, "%s", "a NUL byte in the text");
        else {
            trim(&s, &n);
            if (n && s[0] == '#')
                ; /* comment */
            else if (n && s[0] == '@')
                rc = directive(&p, s, n);
            else
                rc = text_line(&p, s, n);
        }
        i = e + (e + 1 < len && text[e] == '\r' && text[e + 1] == '\n' ? 2 : 1);
    }
    if (!rc)
        rc = close_step(&p);
    if (!rc && !l->title)
        rc = tf_fail(err, "%s:1: the lesson has no @title", path);
    if (!rc && l->n_steps == 0)
        rc = tf_fail(err, "%s:%d: the lesson has no @step", path, p.line);
    free(p.cur.src);
    free(p.cur.tgt);
    free(p.cur.highlight);
    if (rc)
        lesson_free(l);
    return rc;
}

static void free_step(LessonStep *s)
{
    free(s->title);
    free(s->text);
    free(s->try_text);
    free(s->directives);
    free(s->quiz.question);
    free(s->quiz.explain);
    free(s->predict.query);
    free(s->predict.col);
    free(s->predict.exps);
    free(s->predict.explain);
    free(s->force_token);
    for (int i = 0; i < s->quiz.n_choices; i++)
        free(s->quiz.choices[i]);
    free(s->view.src);
    free(s->view.tgt);
    free(s->view.highlight);
}

void lesson_free(Lesson *l)
{
    if (!l)
        return;
    for (int i = 0; i < l->n_steps; i++) /* the one being parsed included */
        free_step(&l->steps[i]);
    free(l->steps);
    for (int i = 0; i < l->n_recap; i++)
        free(l->recap[i]);
    for (int i = 0; i < l->n_exercise; i++)
        free(l->exercise[i]);
    free(l->title);
    free(l->summary);
    memset(l, 0, sizeof *l);
}
