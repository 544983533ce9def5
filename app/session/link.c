/* link.c - view links: a fragment of fields to a SceneLink and back (link.h). */
#include "link.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "num.h"
#include "stage.h"

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* percent-decode p[0..n) into out[cap]: 0, or -1 with a message */
static int decode(const char *key, const char *p, size_t n, char *out, size_t cap, TfErr *err)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        int c = (unsigned char)p[i];
        if (c == '+') {
            c = ' ';
        } else if (c == '%') {
            if (i + 2 >= n || hexval(p[i + 1]) < 0 || hexval(p[i + 2]) < 0)
                return tf_fail(err, "link: %s: '%%' must be followed by two hex digits", key);
            c = hexval(p[i + 1]) * 16 + hexval(p[i + 2]);
            i += 2;
        }
        if (c == 0 || (c < 0x20 && c != '\t'))
            return tf_fail(err, "link: %s: control characters are not allowed", key);
        if (o + 1 >= cap)
            return tf_fail(err, "link: %s is longer than %zu bytes", key, cap - 1);
        out[o++] = (char)c;
    }
    out[o] = 0;
    return 0;
}

/* a decimal integer in [lo, hi], the whole of s */
static int int_in(const char *s, int lo, int hi, int *v)
{
    char *end;
    if (!*s || strlen(s) > 6)
        return -1;
    long x = strtol(s, &end, 10);
    if (*end || x < lo || x > hi)
        return -1;
    *v = (int)x;
    return 0;
}

/* a number in [lo, hi], the whole of s */
static int num_in(const char *s, double lo, double hi, float *v)
{
    char *end;
    if (!*s || strlen(s) > 12)
        return -1;
    double x = strtod(s, &end);
    if (*end || !(x >= lo && x <= hi))
        return -1;
    *v = (float)x;
    return 0;
}

/* "enc:L:H" with a known part and two numbers (ranges: link_experiment) */
static int head_spec(const char *s)
{
    int L, H;
    char part[8], tail;
    if (sscanf(s, "%7[a-z]:%d:%d%c", part, &L, &H, &tail) != 3)
        return -1;
    if (strcmp(part, "enc") && strcmp(part, "dec") && strcmp(part, "cross"))
        return -1;
    return L >= 0 && H >= 0 ? 0 : -1;
}

/* "enc:L" or "dec:L", as --no-ffn takes it */
static int ffn_spec(const char *s)
{
    if (strncmp(s, "enc:", 4) && strncmp(s, "dec:", 4))
        return -1;
    int L;
    return int_in(s + 4, 0, 999, &L);
}

static int parse_exp(SceneLink *l, const char *v, TfErr *err)
{
    const char *p = v;
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        char item[LINK_SPEC_MAX + 7]; /* "ablate:" + a spec that fits */
        int pos;
        if (n >= sizeof item)
            return tf_fail(err, "link: exp: '%.40s' is too long", p);
        memcpy(item, p, n);
        item[n] = 0;
        if (!strcmp(item, "no-scale")) {
            l->no_scale = 1;
        } else if (!strcmp(item, "no-pe")) {
            l->no_pe = 1;
        } else if (!strcmp(item, "no-causal")) {
            l->no_causal = 1;
        } else if (!strcmp(item, "no-residual")) {
            l->no_residual = 1;
        } else if (!strncmp(item, "no-ffn:", 7) && !ffn_spec(item + 7)) {
            if (l->n_ffn >= TF_EXP_MAX_FFN)
                return tf_fail(err, "link: exp: at most %d feed-forward layers off", TF_EXP_MAX_FFN);
            memcpy(l->ffn[l->n_ffn++], item + 7, strlen(item + 7) + 1);
        } else if (!strncmp(item, "ablate:", 7) && !head_spec(item + 7)) {
            if (l->n_ablate >= TF_EXP_MAX_ABLATE)
                return tf_fail(err, "link: exp: at most %d ablated heads", TF_EXP_MAX_ABLATE);
            memcpy(l->ablate[l->n_ablate++], item + 7, strlen(item + 7) + 1);
        } else if (!strncmp(item, "hide:", 5) && !int_in(item + 5, 0, TF_MAX_LEN - 1, &pos)) {
            if (l->n_hide >= TF_EXP_MAX_HIDE)
                return tf_fail(err, "link: exp: at most %d hidden positions", TF_EXP_MAX_HIDE);
            l->hide[l->n_hide++] = pos;
        } else if (n) {
            return tf_fail(err, "link: exp: unknown experiment '%s' (no-scale, no-pe, no-causal, "
                                "ablate:enc|dec|cross:L:H, hide:I, no-residual, no-ffn:enc|dec:L)", item);
        }
        p += n + (comma != NULL);
    }
    return 0;
}

/* The numeric fields: a whole number in lo..hi (real: any number there), or
 * "link: KEY must be MUST, not 'V'". */
typedef struct NumField {
    const char *key;
    unsigned flag;
    size_t at; /* offsetof the int (or float) in SceneLink */
    int real;
    double lo, hi;
    const char *must;
} NumField;

static const NumField NUMS[] = {
    {"layer", LINK_LAYER, offsetof(SceneLink, layer), 0, 0, TF_MAX_LAYERS - 1, "a layer index from 0"},
    {"head", LINK_HEAD, offsetof(SceneLink, head), 0, -1, TF_MAX_HEADS - 1, "a head index from 0 (or -1 for all)"},
    {"step", LINK_STEP, offsetof(SceneLink, step), 0, 1, 9999, "a step number from 1"},
    {"batch", LINK_BATCH, offsetof(SceneLink, batch), 0, 0, 3, "a sentence index 0..3"},
    {"beam", LINK_BEAM, offsetof(SceneLink, beam), 0, 1, 8, "1..8"},
    {"alpha", LINK_ALPHA, offsetof(SceneLink, alpha), 1, 0, 10, "a number in 0..10"},
    {"temp", LINK_TEMP, offsetof(SceneLink, temp), 1, 0.05, 5, "a number in 0.05..5"},
    {"topk", LINK_TOPK, offsetof(SceneLink, top_k), 0, 0, 100000, "0 (off) or a count"},
    {"topp", LINK_TOPP, offsetof(SceneLink, top_p), 1, 0.001, 1, "a number in (0, 1]"},
    {"seed", LINK_SEED, offsetof(SceneLink, seed), 0, 0, 999999, "a whole number 0..999999"},
    {"rollout", LINK_ROLLOUT, offsetof(SceneLink, rollout), 0, 0, 1, "0 or 1"},
};

static int num_field(SceneLink *l, const NumField *f, const char *v, TfErr *err)
{
    char *at = (char *)l + f->at;
    if (f->real ? num_in(v, f->lo, f->hi, (float *)(void *)at) : int_in(v, (int)f->lo, (int)f->hi, (int *)(void *)at))
        return tf_fail(err, "link: %s must be %s, not '%.40s'", f->key, f->must, v);
    l->has |= f->flag;
    return 0;
}

static int field(SceneLink *l, const char *key, const char *v, TfErr *err)
{
    for (size_t i = 0; i < sizeof NUMS / sizeof *NUMS; i++)
        if (!strcmp(key, NUMS[i].key))
            return num_field(l, &NUMS[i], v, err);
    if (!strcmp(key, "src")) {
        snprintf(l->src, sizeof l->src, "%s", v);
        l->has |= LINK_SRC;
    } else if (!strcmp(key, "tgt")) {
        snprintf(l->tgt, sizeof l->tgt, "%s", v);
        l->has |= LINK_TGT;
    } else if (!strcmp(key, "stage")) {
        if (stage_find(v) < 0 || strlen(v) >= LINK_NAME_MAX)
            return tf_fail(err, "link: unknown stage '%.60s'", v);
        snprintf(l->stage, sizeof l->stage, "%s", v);
        l->has |= LINK_STAGE;
    } else if (!strcmp(key, "lang")) {
        if (strcmp(v, "en") && strcmp(v, "zh"))
            return tf_fail(err, "link: lang must be en or zh, not '%.40s'", v);
        l->lang = !strcmp(v, "zh");
        l->has |= LINK_LANG;
    } else if (!strcmp(key, "lesson")) {
        if (!*v || strlen(v) >= LINK_NAME_MAX || strpbrk(v, "/\\"))
            return tf_fail(err, "link: lesson must be a lesson id, not '%.40s'", v);
        snprintf(l->lesson, sizeof l->lesson, "%s", v);
        l->has |= LINK_LESSON;
    } else if (!strcmp(key, "view")) {
        if (!*v || strlen(v) >= LINK_NAME_MAX)
            return tf_fail(err, "link: view must be a view name, not '%.40s'", v);
        snprintf(l->view, sizeof l->view, "%s", v);
        l->has |= LINK_VIEW;
    } else if (!strcmp(key, "exp")) {
        l->no_scale = l->no_pe = l->no_causal = l->n_ablate = l->n_hide = l->no_residual = l->n_ffn = 0;
        if (parse_exp(l, v, err))
            return -1;
        l->has |= LINK_EXP;
    } else if (!strcmp(key, "model")) {
        if (!*v || strlen(v) >= sizeof l->model || strpbrk(v, "/\\"))
            return tf_fail(err, "link: model must be a bundled model's name or NAME~SHA, not '%.40s'", v);
        snprintf(l->model, sizeof l->model, "%s", v);
        l->has |= LINK_MODEL;
    } else if (!strcmp(key, "pane")) {
        if (strcmp(v, "gen") && strcmp(v, "step") && strcmp(v, "beam") && strcmp(v, "sample"))
            return tf_fail(err, "link: pane must be gen, step, beam or sample, not '%.40s'", v);
        memcpy(l->pane, v, strlen(v) + 1); /* one of the four names above */
        l->has |= LINK_PANE;
    } else if (!strcmp(key, "cmp")) {
        if (strcmp(v, "diff") && strcmp(v, "normal"))
            return tf_fail(err, "link: cmp must be diff or normal, not '%.40s'", v);
        l->cmp = !strcmp(v, "diff") ? LINK_CMP_DIFF : LINK_CMP_NORMAL;
        l->has |= LINK_CMP;
    } else {
        return tf_fail(err, "link: unknown field '%.40s' (src, tgt, stage, layer, head, lang, lesson, "
                            "step, view, exp, model, batch, pane, beam, alpha, temp, topk, topp, seed, cmp, rollout)", key);
    }
    return 0;
}

int link_parse(const char *frag, SceneLink *l, TfErr *err)
{
    memset(l, 0, sizeof *l);
    if (!frag)
        return 0;
    const char *p = frag[0] == '#' ? frag + 1 : frag;
    char val[LINK_TEXT_MAX];
    while (*p) {
        const char *amp = strchr(p, '&');
        size_t n = amp ? (size_t)(amp - p) : strlen(p);
        const char *eq = memchr(p, '=', n);
        char key[LINK_NAME_MAX];
        size_t kn = eq ? (size_t)(eq - p) : n;
        if (n && kn == 0) {
            memset(l, 0, sizeof *l);
            return tf_fail(err, "link: a field without a name ('%.40s')", p);
        }
        if (n && (decode("field name", p, kn, key, sizeof key, err) ||
                  (!eq && tf_fail(err, "link: %s has no value (write %s=...)", key, key)) ||
                  decode(key, eq + 1, n - kn - 1, val, sizeof val, err) || field(l, key, val, err))) {
            memset(l, 0, sizeof *l);
            return -1;
        }
        p += n + (amp != NULL);
    }
    return 0;
}

void link_exp_spec(const SceneLink *l, TfExpSpec *x, LinkPos pos[TF_EXP_MAX_HIDE])
{
    memset(x, 0, sizeof *x);
    x->no_scale = l->no_scale;
    x->no_pe = l->no_pe;
    x->no_causal = l->no_causal;
    x->no_residual = l->no_residual;
    for (int k = 0; k < l->n_ffn && k < TF_EXP_MAX_FFN; k++)
        x->ffn[x->n_ffn++] = l->ffn[k];
    for (int k = 0; k < l->n_ablate && k < TF_EXP_MAX_ABLATE; k++)
        x->ablate[x->n_ablate++] = l->ablate[k];
    for (int k = 0; k < l->n_hide && k < TF_EXP_MAX_HIDE; k++) {
        snprintf(pos[k], sizeof pos[k], "%d", l->hide[k]);
        x->hide[x->n_hide++] = pos[k];
    }
}

int link_experiment(const SceneLink *l, const TfConfig *cfg, int S, TfExperiment *e, TfErr *err)
{
    TfExpSpec x;
    LinkPos pos[TF_EXP_MAX_HIDE];
    link_exp_spec(l, &x, pos);
    return tf_exp_build(&x, cfg, S, e, err);
}

/* ---- writing ---- */

typedef struct Out {
    char *buf;
    size_t cap, n;
    int over;
} Out;

static void put(Out *o, const char *s, size_t n)
{
    if (o->n + n + 1 > o->cap) {
        o->over = 1;
        return;
    }
    memcpy(o->buf + o->n, s, n);
    o->n += n;
    o->buf[o->n] = 0;
}

/* key=value with everything but unreserved characters %-escaped */
static void put_field(Out *o, const char *key, const char *v)
{
    if (o->n)
        put(o, "&", 1);
    put(o, key, strlen(key));
    put(o, "=", 1);
    for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
        int c = *p;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("-._~:,|", c)) {
            char ch = (char)c;
            put(o, &ch, 1);
        } else {
            char esc[4];
            snprintf(esc, sizeof esc, "%%%02X", c);
            put(o, esc, 3);
        }
    }
}

static void put_int(Out *o, const char *key, int v)
{
    char s[16];
    snprintf(s, sizeof s, "%d", v);
    put_field(o, key, s);
}

/* the shortest text that reads back as the same float */
static void put_num(Out *o, const char *key, float v)
{
    char s[32];
    tf_float_text(s, sizeof s, v, 1);
    put_field(o, key, s);
}

int link_format(const SceneLink *l, char *buf, size_t cap)
{
    Out o = {buf, cap, 0, cap == 0};
    if (cap)
        buf[0] = 0;
    if (l->has & LINK_MODEL)
        put_field(&o, "model", l->model);
    if (l->has & LINK_SRC)
        put_field(&o, "src", l->src);
    if (l->has & LINK_TGT)
        put_field(&o, "tgt", l->tgt);
    if (l->has & LINK_STAGE)
        put_field(&o, "stage", l->stage);
    if (l->has & LINK_LAYER)
        put_int(&o, "layer", l->layer);
    if (l->has & LINK_HEAD)
        put_int(&o, "head", l->head);
    if (l->has & LINK_LANG)
        put_field(&o, "lang", l->lang ? "zh" : "en");
    if (l->has & LINK_LESSON)
        put_field(&o, "lesson", l->lesson);
    if (l->has & LINK_STEP)
        put_int(&o, "step", l->step);
    if (l->has & LINK_VIEW)
        put_field(&o, "view", l->view);
    if (l->has & LINK_BATCH)
        put_int(&o, "batch", l->batch);
    if (l->has & LINK_EXP) {
        char e[TF_EXP_MAX_ABLATE * (LINK_SPEC_MAX + 8) + TF_EXP_MAX_HIDE * 12 + 40];
        size_t n = 0;
        e[0] = 0;
#define ADD(...) n += (size_t)snprintf(e + n, sizeof e - n, "%s" __VA_ARGS__)
        if (l->no_scale)
            ADD("no-scale", n ? "," : "");
        if (l->no_pe)
            ADD("no-pe", n ? "," : "");
        if (l->no_causal)
            ADD("no-causal", n ? "," : "");
        for (int k = 0; k < l->n_ablate; k++)
            ADD("ablate:%s", n ? "," : "", l->ablate[k]);
        for (int k = 0; k < l->n_hide; k++)
            ADD("hide:%d", n ? "," : "", l->hide[k]);
        if (l->no_residual)
            ADD("no-residual", n ? "," : "");
        for (int k = 0; k < l->n_ffn; k++)
            ADD("no-ffn:%s", n ? "," : "", l->ffn[k]);
#undef ADD
        put_field(&o, "exp", e);
    }
    if (l->has & LINK_PANE)
        put_field(&o, "pane", l->pane);
    if (l->has & LINK_BEAM)
        put_int(&o, "beam", l->beam);
    if (l->has & LINK_ALPHA)
        put_num(&o, "alpha", l->alpha);
    if (l->has & LINK_TEMP)
        put_num(&o, "temp", l->temp);
    if (l->has & LINK_TOPK)
        put_int(&o, "topk", l->top_k);
    if (l->has & LINK_TOPP)
        put_num(&o, "topp", l->top_p);
    if (l->has & LINK_SEED)
        put_int(&o, "seed", l->seed);
    if ((l->has & LINK_CMP) && l->cmp != LINK_CMP_EXP)
        put_field(&o, "cmp", l->cmp == LINK_CMP_DIFF ? "diff" : "normal");
    if (l->has & LINK_ROLLOUT)
        put_int(&o, "rollout", l->rollout);
    return o.over ? -1 : (int)o.n;
}
