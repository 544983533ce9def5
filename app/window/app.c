/* app.c - the App's model, input, recomputation and navigation (app.h). */
#include "app.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "checkpoint.h"
#include "cli.h"
#include "lesson_ui.h"
#include "views.h"

static const char *VIEW_NAMES[VIEW_COUNT] = {
    "auto", "matrix", "heads", "lines", "mask", "pe", "norm", "ffn", "output",
    "decode", "train"};

const char *view_name(ViewId v)
{
    return (int)v >= 0 && v < VIEW_COUNT ? VIEW_NAMES[v] : "?";
}

int view_find(const char *name)
{
    for (int i = 0; i < VIEW_COUNT; i++)
        if (strcmp(VIEW_NAMES[i], name) == 0)
            return i;
    return -1;
}

void app_notice(App *a, int error, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->notice, sizeof a->notice, fmt, ap);
    va_end(ap);
    a->notice_error = error;
    a->notice_until = a->now + (error ? 8.0 : 4.0);
}

/* ---- the stage walk ---- */

static void build_walk(App *a)
{
    static unsigned walks; /* ids unique in the process, whatever App */
    a->walk_id = ++walks;
    int n = tf_walk_build(&a->model.cfg, a->walk, APP_MAX_STEPS);
    a->n_walk = n < APP_MAX_STEPS ? n : APP_MAX_STEPS;
}

StagePos app_pos(const App *a)
{
    if (a->n_walk == 0)
        return (StagePos){ST_SRC_TOKENS, 0};
    return a->walk[a->at];
}

/* The views that make sense for the current stage, as tabs. */
int app_view_choices(const App *a, ViewId *out)
{
    StagePos p = app_pos(a);
    const StageInfo *si = stage_info(p.stage);
    int n = 0;
    ViewId natural = app_auto_view(a, p.stage);
    if (natural == VIEW_HEADS)
        natural = VIEW_MATRIX;
    out[n++] = natural;
    if (natural != VIEW_MATRIX && si->kind != SK_TOKENS)
        out[n++] = VIEW_MATRIX;
    if (si->kind == SK_WEIGHTS)
        out[n++] = VIEW_LINES;
    if (si->flags & SF_HEAD)
        out[n++] = VIEW_HEADS;
    out[n++] = VIEW_DECODE;
    out[n++] = VIEW_TRAIN;
    return n;
}

static void moved(App *a)
{
    a->anim_start = a->now;
    a->hover.valid = 0;
    /* a view picked from the tabs stays only while the stage offers it */
    if (a->view != VIEW_AUTO) {
        ViewId ch[8];
        int n = app_view_choices(a, ch), ok = 0;
        for (int i = 0; i < n; i++)
            ok |= ch[i] == a->view;
        if (!ok)
            a->view = VIEW_AUTO;
    }
}

void app_goto(App *a, StageId st, int layer)
{
    int best = -1;
    for (int i = 0; i < a->n_walk; i++) {
        if (a->walk[i].stage != st)
            continue;
        if (best < 0 || a->walk[i].layer == layer)
            best = i;
        if (a->walk[i].layer == layer)
            break;
    }
    if (best >= 0 && best != a->at) {
        a->at = best;
        moved(a);
    }
}

void app_step(App *a, int delta)
{
    int at = a->at + delta;
    if (at < 0)
        at = 0;
    if (at >= a->n_walk)
        at = a->n_walk - 1;
    if (at != a->at) {
        a->at = at;
        moved(a);
    }
}

void app_change_layer(App *a, int delta)
{
    StagePos p = app_pos(a);
    int n = stage_layers(p.stage, &a->model.cfg);
    int l = p.layer + delta;
    if (l < 0 || l >= n)
        return;
    app_goto(a, p.stage, l);
}

/* Tab: the same kind of stage on the other side, or the other side's start. */
void app_toggle_side(App *a)
{
    StagePos p = app_pos(a);
    const StageInfo *si = stage_info(p.stage);
    const char *name = si->name;
    char other[64];
    if (strncmp(name, "enc.self.", 9) == 0)
        snprintf(other, sizeof other, "dec.self.%s", name + 9);
    else if (strncmp(name, "dec.self.", 9) == 0 || strncmp(name, "dec.cross.", 10) == 0)
        snprintf(other, sizeof other, "enc.self.%s", strchr(name + 4, '.') + 1);
    else if (strncmp(name, "enc.", 4) == 0)
        snprintf(other, sizeof other, "dec.%s", name + 4);
    else if (strncmp(name, "dec.", 4) == 0)
        snprintf(other, sizeof other, "enc.%s", name + 4);
    else if (strcmp(name, "src.tokens") == 0)
        snprintf(other, sizeof other, "tgt.tokens");
    else if (strcmp(name, "src.embed") == 0)
        snprintf(other, sizeof other, "tgt.embed");
    else if (strcmp(name, "enc.input") == 0)
        snprintf(other, sizeof other, "dec.input");
    else if (si->flags & SF_DECODER)
        snprintf(other, sizeof other, "src.tokens");
    else
        snprintf(other, sizeof other, "tgt.tokens");
    int id = stage_find(other);
    if (id < 0 || !stage_exists(id, &a->model.cfg))
        id = (si->flags & SF_DECODER) ? ST_SRC_TOKENS : ST_TGT_TOKENS;
    int n = stage_layers(id, &a->model.cfg);
    app_goto(a, id, p.layer < n ? p.layer : n - 1);
}

void app_set_head(App *a, int head)
{
    if (head >= a->model.cfg.n_heads)
        return;
    a->head = head;
    a->hover.valid = 0;
}

ViewId app_auto_view(const App *a, StageId st)
{
    const StageInfo *si = stage_info(st);
    if ((si->flags & SF_HEAD) && a->head < 0)
        return VIEW_HEADS;
    switch (si->kind) {
    case SK_MASK: return VIEW_MASK;
    case SK_PE: return VIEW_PE;
    case SK_ADD: case SK_NORM: return VIEW_NORM;
    case SK_HIDDEN: return VIEW_FFN;
    case SK_PROBS: return VIEW_OUTPUT;
    default: return VIEW_MATRIX;
    }
}

ViewId app_current_view(const App *a)
{
    if (a->view != VIEW_AUTO)
        return a->view;
    return app_auto_view(a, app_pos(a).stage);
}

/* ---- input and recomputation ---- */

void app_set_text(App *a, Focus which, const char *text)
{
    char *dst = which == FOCUS_TGT ? a->tgt : a->src_line;
    snprintf(dst, APP_TEXT_MAX, "%s", text);
    a->dirty = 1;
}

static int cap_T(const App *a)
{
    return a->model.cfg.max_len < APP_CAP_T ? a->model.cfg.max_len : APP_CAP_T;
}

/* Tokenise one line into ids; 0 on success, -1 with input_error set. */
static int encode_line(App *a, const Vocab *v, const char *text, int *ids,
                       int max, int *n, const char *what)
{
    TfErr err;
    int unk = 0;
    int k = vocab_encode(v, text, ids, NULL, max, &unk, &err);
    if (k < 0) {
        snprintf(a->input_error, sizeof a->input_error, "%s: %s", what, err.msg);
        return -1;
    }
    if (k > max) {
        a->truncated = 1;
        k = max;
    }
    a->n_unk += unk;
    *n = k;
    return 0;
}

/* <bos> + the greedy translation of source i (without <eos>). */
static int greedy_target(App *a, int i, int keep)
{
    TfErr err;
    DecodeResult r;
    int max_out = decode_max_out(&a->model, &a->scratch, a->src_n[i]);
    if (tf_greedy(&a->model, &a->scratch, a->src_ids[i], a->src_n[i], max_out, keep, &r, &err)) {
        snprintf(a->input_error, sizeof a->input_error, "%s", err.msg);
        return -1;
    }
    a->tgt_ids[i][0] = TOK_BOS;
    a->tgt_n[i] = 1;
    for (int k = 0; k < r.n && r.ids[k] != TOK_EOS && a->tgt_n[i] < cap_T(a); k++)
        a->tgt_ids[i][a->tgt_n[i]++] = r.ids[k];
    if (i == 0) {
        vocab_decode(&a->model.tgt_vocab, r.ids, r.n, a->translation, sizeof a->translation);
        decode_result_free(&a->greedy);
        a->greedy = r;
    } else {
        decode_result_free(&r);
    }
    return 0;
}

/* Split the source line at '|' into at most APP_MAX_SENT sentences. */
static void split_sources(App *a)
{
    const char *p = a->src_line;
    a->n_src = 0;
    while (a->n_src < APP_MAX_SENT) {
        const char *bar = strchr(p, '|');
        size_t n = bar ? (size_t)(bar - p) : strlen(p);
        if (n >= APP_TEXT_MAX)
            n = APP_TEXT_MAX - 1;
        memcpy(a->src[a->n_src], p, n);
        a->src[a->n_src][n] = 0;
        /* a blank sentence between bars (while typing) is skipped */
        if (strspn(a->src[a->n_src], " \t") != n || a->n_src == 0)
            a->n_src++;
        if (!bar)
            break;
        p = bar + 1;
    }
}

/* ---- recomputation, one unit at a time ----
 *
 * After an edit the pass is redone in units: 0 the source embeddings,
 * 1..n_enc the encoder layers, then the decoder inputs (the typed target or
 * greedy decoding), the target embeddings, the decoder layers and the
 * output. A frame computes only the units its stage needs; the window runs
 * the rest while it is idle (app_idle_work), so an edit redraws at once even
 * for a big model. Headless use (lazy off) computes everything at once. */

enum { U_ENC_EMBED = 0 };
static int u_targets(const App *a) { return a->model.cfg.n_enc + 1; }
static int u_dec_embed(const App *a) { return a->model.cfg.n_enc + 2; }
static int u_total(const App *a) { return a->model.cfg.n_enc + a->model.cfg.n_dec + 4; }

/* The unit that computes a stage (of layer l). */
static int stage_unit(const App *a, StageId st, int l)
{
    const TfConfig *c = &a->model.cfg;
    const StageInfo *si = stage_info(st);
    if (st == ST_OUT_LOGITS || st == ST_OUT_PROBS)
        return u_total(a) - 1;
    if (st == ST_ENC_FINAL)
        return c->n_enc;
    if (st == ST_DEC_FINAL)
        return u_dec_embed(a) + c->n_dec;
    if (si->flags & SF_DECODER)
        return (si->flags & SF_LAYER) ? u_dec_embed(a) + 1 + l : u_dec_embed(a);
    if (si->flags & SF_LAYER)
        return 1 + l;
    return U_ENC_EMBED;
}

/* What the current frame needs computed. */
static int needed_unit(const App *a)
{
    if (!a->lazy)
        return u_total(a) - 1;
    StagePos p = app_pos(a);
    ViewId v = app_current_view(a);
    if (v == VIEW_DECODE || v == VIEW_TRAIN || v == VIEW_OUTPUT)
        return u_total(a) - 1;
    int l = p.layer;
    if (v == VIEW_HEADS) /* every layer of the stack */
        l = stage_layers(p.stage, &a->model.cfg) - 1;
    return stage_unit(a, p.stage, l);
}

/* Tokenise the input and start a new pass; the units follow. */
static void start_pass(App *a)
{
    int T = cap_T(a);
    a->input_error[0] = 0;
    a->n_unk = 0;
    a->truncated = 0;
    a->units_done = u_total(a); /* nothing to run unless the input is good */
    a->trace.T = 0;             /* no decoder stage is valid until computed */
    a->translation[0] = 0;
    a->version++;
    split_sources(a);
    for (int i = 0; i < a->n_src; i++) {
        if (encode_line(a, &a->model.src_vocab, a->src[i], a->src_ids[i], T, &a->src_n[i], "source"))
            return;
        if (a->src_n[i] == 0) {
            if (a->n_src > 1) { /* drop a blank first sentence of a batch */
                memmove(a->src[i], a->src[i + 1], (size_t)(a->n_src - i - 1) * APP_TEXT_MAX);
                a->n_src--;
                i--;
                continue;
            }
            snprintf(a->input_error, sizeof a->input_error, "type a sentence to run the model");
            return;
        }
    }
    int B = a->n_src, S = 1;
    for (int i = 0; i < B; i++)
        if (a->src_n[i] > S)
            S = a->src_n[i];
    memset(a->src_pad, 0, sizeof a->src_pad);
    for (int i = 0; i < B; i++)
        memcpy(a->src_pad + i * S, a->src_ids[i], (size_t)a->src_n[i] * sizeof(int));
    a->pad_S = S;
    if (a->batch >= B)
        a->batch = B - 1;
    a->units_done = 0;
    if (a->truncated)
        app_notice(a, 0, "a sentence was longer than %d tokens and was cut", T);
}

/* The decoder inputs: the typed target for sentence 0, else greedy; the
 * greedy translation of sentence 0 is kept either way (hint, decode view). */
static int make_targets(App *a)
{
    int T = cap_T(a);
    if (greedy_target(a, 0, 1))
        return -1;
    a->tgt_auto = 1;
    if (a->tgt[0]) {
        int n;
        a->tgt_ids[0][0] = TOK_BOS;
        if (encode_line(a, &a->model.tgt_vocab, a->tgt, a->tgt_ids[0] + 1, T - 1, &n, "target"))
            return -1;
        a->tgt_n[0] = n + 1;
        a->tgt_auto = 0;
    }
    for (int i = 1; i < a->n_src; i++)
        if (greedy_target(a, i, 0))
            return -1;
    int TT = 1;
    for (int i = 0; i < a->n_src; i++)
        if (a->tgt_n[i] > TT)
            TT = a->tgt_n[i];
    memset(a->tgt_pad, 0, sizeof a->tgt_pad);
    for (int i = 0; i < a->n_src; i++)
        memcpy(a->tgt_pad + i * TT, a->tgt_ids[i], (size_t)a->tgt_n[i] * sizeof(int));
    a->pad_T = TT;
    return 0;
}

static int run_unit(App *a, int u)
{
    const TfModel *m = &a->model;
    int n_enc = m->cfg.n_enc;
    TfErr err;
    int rc = 0;
    if (u == U_ENC_EMBED)
        rc = tf_encode_begin(m, &a->trace, a->n_src, a->pad_S, a->src_pad, a->src_n, 0, &err);
    else if (u <= n_enc)
        tf_encode_layer(m, &a->trace, u - 1, 0);
    else if (u == u_targets(a))
        return make_targets(a);
    else if (u == u_dec_embed(a))
        rc = tf_decode_begin(m, &a->trace, a->pad_T, a->tgt_pad, a->tgt_n, 0, &err);
    else if (u < u_total(a) - 1)
        tf_decode_layer(m, &a->trace, u - u_dec_embed(a) - 1, 0);
    else
        tf_decode_end(m, &a->trace, 0);
    if (rc)
        snprintf(a->input_error, sizeof a->input_error, "%s", err.msg);
    return rc;
}

static void compute_until(App *a, int need)
{
    while (!a->input_error[0] && a->units_done <= need && a->units_done < u_total(a)) {
        if (run_unit(a, a->units_done)) {
            a->units_done = u_total(a);
            return;
        }
        a->units_done++;
    }
}

void app_update(App *a)
{
    if (a->dirty) {
        a->dirty = 0;
        start_pass(a);
    }
    compute_until(a, needed_unit(a));
}

void app_compute_all(App *a)
{
    app_update(a);
    compute_until(a, u_total(a) - 1);
}

int app_idle_work(App *a)
{
    if (a->input_error[0] || a->units_done >= u_total(a))
        return 0;
    compute_until(a, a->units_done);
    return a->units_done < u_total(a) && !a->input_error[0] ? 1 : 2;
}

/* ---- models ---- */

static int adopt(App *a, TfModel *m, const char *path, int untrained, TfErr *err)
{
    TfTrace tr, sc;
    int T = m->cfg.max_len < APP_CAP_T ? m->cfg.max_len : APP_CAP_T;
    if (trace_build(&tr, &m->cfg, APP_MAX_SENT, T, TRACE_RECORD, err))
        return -1;
    if (trace_build(&sc, &m->cfg, 1, T, TRACE_RECORD, err)) {
        trace_free(&tr);
        return -1;
    }
    trace_free(&a->trace);
    trace_free(&a->scratch);
    model_free(&a->model);
    decode_result_free(&a->greedy);
    a->model = *m;
    a->trace = tr;
    a->scratch = sc;
    a->have_model = 1;
    a->untrained = untrained;
    snprintf(a->model_path, sizeof a->model_path, "%s", path);
    const char *slash = strrchr(path, '/');
    snprintf(a->model_label, sizeof a->model_label, "%s%s", slash ? slash + 1 : path,
             untrained ? " (untrained)" : "");
    StagePos p = app_pos(a);
    build_walk(a);
    a->at = 0;
    app_goto(a, p.stage, p.layer);
    if (a->head >= m->cfg.n_heads)
        a->head = 0;
    a->dirty = 1;
    a->version++;
    return 0;
}

int app_load_model(App *a, const char *path)
{
    TfModel m;
    TfErr err;
    if (ckpt_load(&m, path, &err)) {
        app_notice(a, 1, "could not open the model: %s", err.msg);
        return -1;
    }
    const char *tr = model_meta_get(&m, "trained");
    if (adopt(a, &m, path, tr && strcmp(tr, "false") == 0, &err)) {
        model_free(&m);
        app_notice(a, 1, "could not use the model: %s", err.msg);
        return -1;
    }
    app_update(a);
    return 0;
}

int app_use_model(App *a, TfModel *m, const char *label)
{
    TfErr err;
    if (adopt(a, m, label, 0, &err)) {
        model_free(m);
        app_notice(a, 1, "could not use the model: %s", err.msg);
        return -1;
    }
    app_update(a);
    return 0;
}

/* A random classroom model with a small English/Chinese vocabulary, so the
 * window has something honest to show when no trained model is found. */
static int random_model(App *a, TfErr *err)
{
    TfConfig c;
    cfg_preset(&c, "classroom", err);
    static const char *src[] = {"i", "you", "love", "like", "read", "china", "books", "tea", "today"};
    static const char *tgt[] = {"我", "你", "爱", "喜欢", "读", "中国", "书", "茶", "今天"};
    TfModel m;
    memset(&m, 0, sizeof m);
    Vocab sv, tv;
    if (vocab_init(&sv, TOK_WORD, err) || vocab_init(&tv, TOK_WORD, err))
        return -1;
    sv.lower = 1;
    for (int i = 0; i < 9; i++) {
        vocab_add(&sv, src[i], (int)strlen(src[i]), err);
        vocab_add(&tv, tgt[i], (int)strlen(tgt[i]), err);
    }
    c.src_vocab = sv.n;
    c.tgt_vocab = tv.n;
    if (model_build(&m, &c, err)) {
        vocab_free(&sv);
        vocab_free(&tv);
        return -1;
    }
    params_init(&m.p, &c, 1);
    m.src_vocab = sv;
    m.tgt_vocab = tv;
    if (adopt(a, &m, "random classroom model", 1, err)) {
        model_free(&m);
        return -1;
    }
    return 0;
}

int app_init(App *a, const AppOpts *o, TfErr *err)
{
    memset(a, 0, sizeof *a);
    a->text_scale = 1.0f;
    a->pixel_scale = 1.0f;
    a->cmap_prob = CMAP_VIRIDIS;
    a->cmap_signed = CMAP_DIVERGING;
    a->head = 0;
    for (int v = 0; v < VIEW_COUNT; v++)
        a->pz[v].zoom = 1.0f;
    snprintf(a->src_line, APP_TEXT_MAX, "i love china");
    if (o && o->n_src > 0) {
        int n = o->n_src > APP_MAX_SENT ? APP_MAX_SENT : o->n_src, at = 0;
        for (int i = 0; i < n && at < APP_TEXT_MAX - 1; i++)
            at += snprintf(a->src_line + at, (size_t)(APP_TEXT_MAX - at), "%s%s",
                           i ? " | " : "", o->src[i]);
    }
    if (o && o->tgt)
        snprintf(a->tgt, APP_TEXT_MAX, "%s", o->tgt);
    char buf[4096];
    const char *path = o && o->model_path ? o->model_path
                                          : cli_data_path("assets/models/en2zh.safetensors", buf, sizeof buf);
    TfModel m;
    TfErr lerr;
    int loaded = 0;
    if (ckpt_load(&m, path, &lerr) == 0) {
        const char *tr = model_meta_get(&m, "trained");
        if (adopt(a, &m, path, tr && strcmp(tr, "false") == 0, err) == 0)
            loaded = 1;
        else
            model_free(&m);
    }
    if (!loaded) {
        if (o && o->model_path) {
            tf_fail(err, "%s", lerr.msg);
            return -1;
        }
        if (random_model(a, err))
            return -1;
        app_notice(a, 0, "no trained model found (%s): showing an untrained random model", path);
    }
    if (o && o->theme) {
        for (int t = 0; t < THEME_COUNT; t++)
            if (strcmp(theme_get(t)->name, o->theme) == 0)
                a->theme = t;
    }
    if (o && o->stage) {
        int id = stage_find(o->stage);
        if (id >= 0)
            app_goto(a, id, o->layer);
    }
    if (o) {
        if (o->head >= -1 && o->head < a->model.cfg.n_heads)
            a->head = o->head;
        if (o->view) {
            int v = view_find(o->view);
            if (v >= 0)
                a->view = v;
        }
        a->batch = o->batch;
        a->lang = o->lang;
        a->no_save = o->no_save;
        if (o->lessons_dir)
            snprintf(a->lessons_dir, sizeof a->lessons_dir, "%s", o->lessons_dir);
    }
    a->dirty = 1;
    app_update(a);
    if (o && o->lesson && lesson_ui_open(a, o->lesson, o->lesson_step)) {
        tf_fail(err, "%s", a->notice);
        return -1;
    }
    return 0;
}

void app_free(App *a)
{
    view_decode_free(a);
    view_train_free(a);
    lesson_ui_free(a);
    app_gfx_free(a);
    trace_free(&a->trace);
    trace_free(&a->scratch);
    decode_result_free(&a->greedy);
    model_free(&a->model);
}
