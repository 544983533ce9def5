/* lesson.c - the lesson parser (see lesson.h and lessons/README.md). */
#include "lesson.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file.h"
#include "vocab.h"

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

static int parse_count(const char *v, size_t n, int *out)
{
    if (n == 0 || n > 3)
        return -1;
    int x = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i] < '0' || v[i] > '9')
            return -1;
        x = x * 10 + (v[i] - '0');
    }
    if (x < 1)
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

static int view_directive(Parser *p, const char *key, const char *v, size_t n)
{
    LessonView *c = &p->cur;
    if (strcmp(key, "stage") == 0) {
        if (n == 0 || n >= sizeof c->stage)
            return fail(p, "%s", "@stage needs a stage name");
        memcpy(c->stage, v, n);
        c->stage[n] = 0;
        c->view[0] = 0; /* a new stage starts in its natural view */
    } else if (strcmp(key, "view") == 0) {
        if (n == 0 || n >= sizeof c->view)
            return fail(p, "%s", "@view needs a view name");
        memcpy(c->view, v, n);
        c->view[n] = 0;
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
        if (n == 0)
            return fail(p, "%s", "@src needs a sentence");
        if (set_str(p, &c->src, v, n))
            return -1;
    } else if (strcmp(key, "tgt") == 0) {
        if (n == 0)
            return fail(p, "%s", "@tgt needs a sentence, or - to clear it");
        if (set_str(p, &c->tgt, v, (n == 1 && v[0] == '-') ? 0 : n))
            return -1;
    } else if (strcmp(key, "highlight") == 0) {
        if (n == 0)
            return fail(p, "%s", "@highlight needs a token");
        if (set_str(p, &c->highlight, v, n))
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
        return set_str(p, &q->choices[q->n_choices++], v, n);
    }
    if (strcmp(key, "explain") == 0) {
        if (!p->in_quiz)
            return fail(p, "%s", "@explain outside a quiz");
        if (q->explain)
            return fail(p, "%s", "a quiz has one @explain; this is the second");
        return set_str(p, &q->explain, v, n);
    }
    return 1;
}

/* A quiz is complete when it has choices and one answer. */
static int close_quiz(Parser *p)
{
    if (!p->step || !p->step->has_quiz)
        return 0;
    LessonQuiz *q = &p->step->quiz;
    int line = p->line;
    p->line = q->line;
    int rc = 0;
    if (q->n_choices < 2)
        rc = fail(p, "%s", "unterminated quiz: it needs @choice lines and one @answer");
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
    if (strcmp(key, "step") == 0) {
        if (close_step(p))
            return -1;
        if (!l->title)
            return fail(p, "%s", "the lesson needs a @title before its first @step");
        if (l->n_steps >= LESSON_MAX_STEPS)
            return fail(p, "%s", "too many steps");
        if (vn == 0)
            return fail(p, "%s", "@step needs a title");
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
        return fail(p, "%s", "text inside a quiz (put it before @quiz)");
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
    Parser p = {.l = l, .path = path, .cur = {"", "", -2, -2, -2, NULL, NULL, NULL},
                .blank = 1, .err = err};
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

int lesson_load(Lesson *l, const char *path, TfErr *err)
{
    memset(l, 0, sizeof *l);
    FILE *f = tf_fopen_regular(path, NULL, err);
    if (!f)
        return -1;
    char *buf = malloc(LESSON_MAX_BYTES + 1);
    if (!buf) {
        fclose(f);
        return tf_fail(err, "%s: out of memory", path);
    }
    size_t n = fread(buf, 1, LESSON_MAX_BYTES + 1, f);
    int rerr = ferror(f);
    fclose(f);
    int rc;
    if (rerr)
        rc = tf_fail(err, "%s: read failed", path);
    else
        rc = lesson_parse(l, buf, n, path, err);
    free(buf);
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
    for (int i = 0; i < l->n_steps; i++)
        free_step(&l->steps[i]);
    /* a step being parsed when an error stopped parsing */
    if (l->n_steps < LESSON_MAX_STEPS)
        free_step(&l->steps[l->n_steps]);
    free(l->title);
    free(l->summary);
    memset(l, 0, sizeof *l);
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int lessons_load_dir(LessonSet *set, const char *dir, LessonErrFn on_error,
                     void *user, int *n_bad)
{
    memset(set, 0, sizeof *set);
    if (n_bad)
        *n_bad = 0;
    DIR *d = opendir(dir);
    if (!d) {
        if (on_error) {
            char msg[700];
            snprintf(msg, sizeof msg, "%s: cannot open the lesson folder: %s", dir, strerror(errno));
            on_error(msg, user);
        }
        return -1;
    }
    char **names = NULL;
    int nn = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len <= 4 || strcmp(e->d_name + len - 4, ".txt") != 0)
            continue;
        if (nn == cap) {
            cap = cap ? 2 * cap : 64;
            char **grown = realloc(names, (size_t)cap * sizeof *names);
            if (!grown)
                break;
            names = grown;
        }
        if ((names[nn] = strdup(e->d_name)))
            nn++;
    }
    closedir(d);
    if (nn)
        qsort(names, (size_t)nn, sizeof *names, cmp_name);
    set->lessons = calloc((size_t)(nn ? nn : 1), sizeof *set->lessons);
    for (int i = 0; i < nn; i++) {
        char path[1024];
        TfErr err;
        int pl = snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (set->lessons && (pl < 0 || (size_t)pl >= sizeof path)) {
            snprintf(err.msg, sizeof err.msg, "%s/%s: the path is longer than %zu bytes", dir,
                     names[i], sizeof path - 1);
            if (n_bad)
                (*n_bad)++;
            if (on_error)
                on_error(err.msg, user);
        } else if (set->lessons && lesson_load(&set->lessons[set->n], path, &err) == 0) {
            set->n++;
        } else if (set->lessons) {
            if (n_bad)
                (*n_bad)++;
            if (on_error)
                on_error(err.msg, user);
        }
        free(names[i]);
    }
    free(names);
    return set->lessons ? 0 : -1;
}

void lessons_free(LessonSet *set)
{
    for (int i = 0; i < set->n; i++)
        lesson_free(&set->lessons[i]);
    free(set->lessons);
    memset(set, 0, sizeof *set);
}

int lessons_find(const LessonSet *set, const char *id)
{
    for (int i = 0; i < set->n; i++)
        if (strcmp(set->lessons[i].id, id) == 0)
            return i;
    return -1;
}
