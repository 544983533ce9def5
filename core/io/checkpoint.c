/* checkpoint.c - safetensors reading and atomic writing (see checkpoint.h). */
#include "checkpoint.h"
#include "marian.h"

#include "atomic.h"
#include "file.h"
#include "safetensors.h"

#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- metadata ---- */

static const char *const KNOWN_META[] = {
    "format", "d_model", "n_heads", "d_ff", "n_enc_layers", "n_dec_layers",
    "max_len", "norm", "tie_embeddings", "src_vocab", "tgt_vocab",
    "src_tokenize", "tgt_tokenize", "src_lowercase", "tgt_lowercase",
    "optimizer", "optimizer_step", "kind", "activation", "pe_layout", "embed_scale",
    "pad_id", "eos_id", "unk_id", "start_id", "gen_max_length", NULL};

static int is_known_meta(const char *k)
{
    for (int i = 0; KNOWN_META[i]; i++)
        if (strcmp(KNOWN_META[i], k) == 0)
            return 1;
    return 0;
}

static const char *meta_str(const cJSON *meta, const char *key, const char *name,
                            TfErr *err)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(meta, key);
    if (!it) {
        tf_fail(err, "%s: __metadata__ has no '%s'", name, key);
        return NULL;
    }
    return it->valuestring; /* every value was checked to be a string */
}

static int meta_int(const cJSON *meta, const char *key, const char *name,
                    int lo, int hi, int *out, TfErr *err)
{
    const char *s = meta_str(meta, key, name, err);
    if (!s)
        return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno)
        return tf_fail(err, "%s: __metadata__ '%s' is not an integer: \"%.40s\"",
                       name, key, s);
    if (v < lo || v > hi)
        return tf_fail(err, "%s: %s = %ld is out of range [%d, %d]", name, key,
                       v, lo, hi);
    *out = (int)v;
    return 0;
}

static int meta_mode(const cJSON *meta, const char *key, const char *name,
                     TokMode *mode, TfErr *err)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(meta, key);
    if (!it) {
        *mode = TOK_WORD;
        return 0;
    }
    if (strcmp(it->valuestring, "word") == 0)
        *mode = TOK_WORD;
    else if (strcmp(it->valuestring, "char") == 0)
        *mode = TOK_CHAR;
    else
        return tf_fail(err, "%s: %s must be \"word\" or \"char\", not \"%.40s\"",
                       name, key, it->valuestring);
    return 0;
}

static int parse_vocab(Vocab *v, const cJSON *meta, const char *key,
                       TokMode mode, int own_specials, const char *name, TfErr *err)
{
    const char *s = meta_str(meta, key, name, err);
    if (!s)
        return -1;
    cJSON *arr = cJSON_Parse(s);
    int rc = -1;
    if (sft_has_nul_escape(s, strlen(s))) {
        tf_fail(err, "%s: a token of %s holds a NUL character", name, key);
        goto done;
    }
    if (!cJSON_IsArray(arr)) {
        tf_fail(err, "%s: %s is not a JSON array of token strings", name, key);
        goto done;
    }
    int n = cJSON_GetArraySize(arr);
    if (n < TOK_NSPECIAL + 1 || n > TF_MAX_VOCAB) {
        tf_fail(err, "%s: %s has %d tokens (need %d..%d)", name, key, n,
                TOK_NSPECIAL + 1, TF_MAX_VOCAB);
        goto done;
    }
    /* a converted MarianMT model brings its own specials (config ids) */
    if (own_specials) {
        memset(v, 0, sizeof *v);
        v->mode = mode;
    } else if (vocab_init(v, mode, err)) {
        goto done;
    }
    int i = 0;
    const cJSON *t;
    cJSON_ArrayForEach(t, arr) {
        if (!cJSON_IsString(t)) {
            tf_fail(err, "%s: %s[%d] is not a string", name, key, i);
            goto done;
        }
        int id = vocab_add(v, t->valuestring, (int)strlen(t->valuestring), err);
        if (id < 0) {
            tf_fail_prefix(err, "%s: %s[%d]", name, key, i);
            goto done;
        }
        if (id != i) {
            tf_fail(err, "%s: %s[%d] \"%.40s\" %s", name, key, i, t->valuestring,
                    i < TOK_NSPECIAL ? "should be a special token (<pad> <bos> <eos> <unk> come first)"
                                     : "appears twice");
            goto done;
        }
        i++;
    }
    rc = 0;
done:
    cJSON_Delete(arr);
    return rc;
}

static int parse_config(TfConfig *c, const cJSON *meta, const char *name,
                        TfErr *err)
{
    memset(c, 0, sizeof *c);
    const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(meta, "format");
    if (fmt && strcmp(fmt->valuestring, CKPT_FORMAT) != 0)
        return tf_fail(err, "%s: format \"%.40s\" is not %s", name,
                       fmt->valuestring, CKPT_FORMAT);
    for (int k = 0; k < CFG_N_SIZES; k++)
        if (meta_int(meta, CFG_SIZES[k].key, name, CFG_SIZES[k].lo, CFG_SIZES[k].hi, cfg_size(c, k), err))
            return -1;
    const char *norm = meta_str(meta, "norm", name, err);
    if (!norm)
        return -1;
    if (strcmp(norm, "post") == 0)
        c->norm = TF_NORM_POST;
    else if (strcmp(norm, "pre") == 0)
        c->norm = TF_NORM_PRE;
    else
        return tf_fail(err, "%s: norm must be \"post\" or \"pre\", not \"%.40s\"", name, norm);
    const cJSON *tie = cJSON_GetObjectItemCaseSensitive(meta, "tie_embeddings");
    const char *t = tie ? tie->valuestring : "none";
    if (strcmp(t, "none") == 0 || strcmp(t, "false") == 0)
        c->tie = TF_TIE_NONE;
    else if (strcmp(t, "generator") == 0 || strcmp(t, "true") == 0)
        c->tie = TF_TIE_GENERATOR;
    else if (strcmp(t, "all") == 0)
        c->tie = TF_TIE_ALL;
    else
        return tf_fail(err, "%s: tie_embeddings must be none, generator or all, "
                       "not \"%.40s\"", name, t);
    c->dropout = 0.1f;
    c->label_smoothing = 0.1f;
    return marian_meta_get(c, meta, name, err); /* MarianMT settings, if any */
}

/* ---- tensors ---- */

typedef struct Span {
    size_t a, b;
    const char *name;
} Span;

static int cmp_span(const void *x, const void *y)
{
    const Span *p = x, *q = y;
    return p->a < q->a ? -1 : p->a > q->a ? 1 : 0;
}

static int json_size(const cJSON *it, size_t *out)
{
    if (!cJSON_IsNumber(it))
        return -1;
    double d = it->valuedouble;
    if (!(d >= 0 && d <= 9007199254740992.0) || d != floor(d))
        return -1;
    *out = (size_t)d;
    return 0;
}

/* Check one tensor's entry; fills its span. */
static int check_tensor(const cJSON *hdr, const char *tname, int rows, int cols,
                        size_t data_size, Span *sp, const char *name, TfErr *err)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(hdr, tname);
    if (!t)
        return tf_fail(err, "%s: tensor %s is missing", name, tname);
    if (!cJSON_IsObject(t))
        return tf_fail(err, "%s: tensor %s is not an object", name, tname);
    const cJSON *dt = cJSON_GetObjectItemCaseSensitive(t, "dtype");
    if (!cJSON_IsString(dt))
        return tf_fail(err, "%s: tensor %s has no dtype", name, tname);
    if (strcmp(dt->valuestring, "F32") != 0)
        return tf_fail(err, "%s: tensor %s has dtype %.16s; only F32 is supported",
                       name, tname, dt->valuestring);
    const cJSON *sh = cJSON_GetObjectItemCaseSensitive(t, "shape");
    int want_dims = cols ? 2 : 1;
    size_t d0 = 0, d1 = 0;
    if (!cJSON_IsArray(sh) || cJSON_GetArraySize(sh) != want_dims ||
        json_size(cJSON_GetArrayItem(sh, 0), &d0) ||
        (cols && json_size(cJSON_GetArrayItem(sh, 1), &d1)) ||
        d0 != (size_t)rows || (cols && d1 != (size_t)cols)) {
        if (cols)
            return tf_fail(err, "%s: tensor %s should have shape [%d, %d] for this config",
                           name, tname, rows, cols);
        return tf_fail(err, "%s: tensor %s should have shape [%d] for this config",
                       name, tname, rows);
    }
    const cJSON *off = cJSON_GetObjectItemCaseSensitive(t, "data_offsets");
    size_t a, b;
    if (!cJSON_IsArray(off) || cJSON_GetArraySize(off) != 2 ||
        json_size(cJSON_GetArrayItem(off, 0), &a) ||
        json_size(cJSON_GetArrayItem(off, 1), &b))
        return tf_fail(err, "%s: tensor %s has no valid data_offsets", name, tname);
    size_t bytes = (size_t)rows * (size_t)(cols ? cols : 1) * 4;
    if (b < a || b > data_size)
        return tf_fail(err, "%s: tensor %s data_offsets [%zu, %zu] lie outside "
                       "the %zu bytes of data", name, tname, a, b, data_size);
    if (b - a != bytes)
        return tf_fail(err, "%s: tensor %s holds %zu bytes, its shape needs %zu",
                       name, tname, b - a, bytes);
    sp->a = a;
    sp->b = b;
    return 0;
}

static int layer_count(const TfConfig *c, ParamStack st)
{
    return st == STACK_ENC ? c->n_enc : st == STACK_DEC ? c->n_dec : 1;
}

/* The tensors a file must hold: the parameters, then (with optimizer state)
 * the first and second Adam moments under the same names with a prefix. */
enum { KIND_PARAM, KIND_M, KIND_V, N_KINDS };
static const char *const KIND_PREFIX[N_KINDS] = {"", CKPT_OPTIM_M, CKPT_OPTIM_V};

typedef struct Expect {
    int n, per_kind;  /* tensors expected in all, and per kind */
    Span *spans;      /* (n) sorted copy for the overlap check */
    size_t *starts;   /* (n) data offset of each tensor, in table order */
    char (*names)[128];
} Expect;

static void expect_free(Expect *e)
{
    free(e->spans);
    free(e->starts);
    free(e->names);
}

/* The first listed tensor that the config does not explain, as an error. */
static int unknown_tensor(const Expect *e, const cJSON *hdr, int n_json,
                          const char *name, TfErr *err)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, hdr) {
        if (strcmp(it->string, "__metadata__") == 0)
            continue;
        int found = 0;
        for (int j = 0; j < e->n && !found; j++)
            found = strcmp(e->names[j], it->string) == 0;
        if (!found)
            return tf_fail(err, "%s: unknown tensor %.80s (not part of this config%s)",
                           name, it->string,
                           strstr(it->string, "generator.weight") ? ": tie_embeddings says it is shared" : "");
    }
    return tf_fail(err, "%s: %d tensors listed, %d expected", name, n_json, e->n);
}

/* Check every expected tensor's entry and that nothing else is listed. */
static int check_all(Expect *e, const TfConfig *c, const cJSON *hdr,
                     int kinds, size_t data_size, const char *name, TfErr *err)
{
    ParamDesc d[PARAMS_MAX_DESC];
    int nd = params_table(c, d, PARAMS_MAX_DESC);
    e->per_kind = 0;
    for (int i = 0; i < nd; i++)
        e->per_kind += layer_count(c, d[i].stack);
    e->n = e->per_kind * kinds;
    e->spans = calloc((size_t)e->n, sizeof *e->spans);
    e->starts = calloc((size_t)e->n, sizeof *e->starts);
    e->names = calloc((size_t)e->n, sizeof *e->names);
    if (!e->spans || !e->starts || !e->names)
        return tf_fail(err, "%s: out of memory", name);
    int k = 0;
    for (int kind = 0; kind < kinds; kind++) {
        for (int i = 0; i < nd; i++) {
            for (int l = 0; l < layer_count(c, d[i].stack); l++, k++) {
                char base[96];
                snprintf(base, sizeof base, d[i].name, l);
                snprintf(e->names[k], sizeof e->names[k], "%s%s", KIND_PREFIX[kind], base);
                e->spans[k].name = e->names[k];
                if (check_tensor(hdr, e->names[k], d[i].rows, d[i].cols, data_size,
                                 &e->spans[k], name, err))
                    return -1;
                e->starts[k] = e->spans[k].a;
            }
        }
    }
    int n_json = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, hdr) {
        if (strcmp(it->string, "__metadata__") != 0)
            n_json++;
    }
    if (n_json != e->n)
        return unknown_tensor(e, hdr, n_json, name, err);
    qsort(e->spans, (size_t)e->n, sizeof *e->spans, cmp_span);
    for (int j = 1; j < e->n; j++)
        if (e->spans[j].a < e->spans[j - 1].b)
            return tf_fail(err, "%s: tensors %s and %s overlap in the data", name,
                           e->spans[j - 1].name, e->spans[j].name);
    return 0;
}

/* Read one kind of tensor (parameters or a moment) into a block laid out
 * like the parameter block. Every value must be finite, second moments
 * also >= 0. */
static int read_kind(const Expect *e, int kind, const TfConfig *c, float *block,
                     const SftSrc *src, size_t data_off, TfErr *err)
{
    ParamDesc d[PARAMS_MAX_DESC];
    int nd = params_table(c, d, PARAMS_MAX_DESC);
    TfParams p;
    params_point(&p, c, block);
    int k = kind * e->per_kind;
    for (int i = 0; i < nd; i++) {
        for (int l = 0; l < layer_count(c, d[i].stack); l++, k++) {
            float *dst = params_tensor(&p, &d[i], l);
            size_t numel = param_desc_numel(&d[i]);
            if (sft_read(src, data_off + e->starts[k], dst, numel * 4, err))
                return -1;
            for (size_t q = 0; q < numel; q++) {
                if (!isfinite(dst[q]))
                    return tf_fail(err, "%s: tensor %s holds a NaN or infinite value at %zu",
                                   src->name, e->names[k], q);
                if (kind == KIND_V && dst[q] < 0)
                    return tf_fail(err, "%s: tensor %s holds a negative second moment at %zu",
                                   src->name, e->names[k], q);
            }
        }
    }
    return 0;
}

static int load_tensors(TfModel *m, CkptOptim *opt, int has_opt,
                        const cJSON *hdr, const SftSrc *src, size_t data_off,
                        size_t data_size, TfErr *err)
{
    Expect e = {0};
    int rc = -1;
    if (check_all(&e, &m->cfg, hdr, has_opt ? N_KINDS : 1, data_size, src->name, err))
        goto done;
    /* Everything fits in the file: now allocating is safe. */
    TfConfig cfg = m->cfg;
    Vocab sv = m->src_vocab, tv = m->tgt_vocab;
    if (model_build(m, &cfg, err)) {
        vocab_free(&sv);
        vocab_free(&tv);
        goto done;
    }
    m->src_vocab = sv;
    m->tgt_vocab = tv;
    if (read_kind(&e, KIND_PARAM, &m->cfg, m->block, src, data_off, err))
        goto done;
    if (opt && has_opt) {
        if (ckpt_optim_alloc(opt, m->n_params, err) ||
            read_kind(&e, KIND_M, &m->cfg, opt->m, src, data_off, err) ||
            read_kind(&e, KIND_V, &m->cfg, opt->v, src, data_off, err))
            goto done;
    }
    rc = 0;
done:
    expect_free(&e);
    return rc;
}

/* Does the file carry optimizer state? Returns 1 (step in *step), 0, or -1
 * when the metadata and the tensors disagree. */
static int optim_present(const cJSON *hdr, const cJSON *meta, long long *step,
                         const char *name, TfErr *err)
{
    int tensors = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, hdr) {
        if (strncmp(it->string, "optimizer.", 10) == 0)
            tensors = 1;
    }
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(meta, "optimizer");
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(meta, "optimizer_step");
    if (!tensors && !kind && !st)
        return 0;
    if (!tensors)
        return tf_fail(err, "%s: __metadata__ describes optimizer state but the "
                       "file holds no optimizer tensors", name);
    if (!kind || strcmp(kind->valuestring, "adam") != 0)
        return tf_fail(err, "%s: optimizer tensors need __metadata__ optimizer = "
                       "\"adam\"", name);
    const char *s = st ? st->valuestring : "";
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (!st || end == s || *end || errno || v < 0 || v > (1LL << 53))
        return tf_fail(err, "%s: optimizer_step must be a step count, not \"%.40s\"",
                       name, st ? s : "(missing)");
    *step = v;
    return 1;
}

/* The metadata that is not part of the format (training facts, the user's
 * own keys), kept on the model in one pass. */
static int keep_extra_meta(TfModel *m, const cJSON *meta)
{
    int n = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, meta) n++;
    if (n == 0)
        return 0;
    const char **keys = malloc((size_t)n * sizeof *keys);
    const char **vals = malloc((size_t)n * sizeof *vals);
    int k = 0, rc = -1;
    if (keys && vals) {
        cJSON_ArrayForEach(it, meta) {
            if (is_known_meta(it->string))
                continue;
            keys[k] = it->string;
            vals[k++] = it->valuestring;
        }
        rc = model_meta_set_many(m, keys, vals, k);
    }
    free(keys);
    free(vals);
    return rc;
}

/* A load starts from both cleared: on failure there is nothing to free. */
static void load_begin(TfModel *m, CkptOptim *opt)
{
    memset(m, 0, sizeof *m);
    if (opt)
        memset(opt, 0, sizeof *opt);
}

static int load(TfModel *m, CkptOptim *opt, const SftSrc *src, TfErr *err)
{
    const char *name = src->name;
    load_begin(m, opt);
    size_t data_at = 0;
    cJSON *hdr = sft_header_read(src, &data_at, err);
    if (!hdr)
        return -1;
    int rc = -1;
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(hdr, "__metadata__");
    if (!cJSON_IsObject(meta)) {
        tf_fail(err, "%s: header has no __metadata__ (is it a Stepformer model?)", name);
        goto done;
    }
    const cJSON *it;
    cJSON_ArrayForEach(it, meta) {
        if (!cJSON_IsString(it)) {
            tf_fail(err, "%s: __metadata__ '%.40s' is not a string", name, it->string);
            goto done;
        }
    }
    TokMode sm, tm;
    if (parse_config(&m->cfg, meta, name, err) ||
        meta_mode(meta, "src_tokenize", name, &sm, err) ||
        meta_mode(meta, "tgt_tokenize", name, &tm, err) ||
        parse_vocab(&m->src_vocab, meta, "src_vocab", sm, m->cfg.ids.set, name, err) ||
        parse_vocab(&m->tgt_vocab, meta, "tgt_vocab", tm, m->cfg.ids.set, name, err))
        goto done;
    const cJSON *lw = cJSON_GetObjectItemCaseSensitive(meta, "src_lowercase");
    m->src_vocab.lower = lw && strcmp(lw->valuestring, "true") == 0;
    lw = cJSON_GetObjectItemCaseSensitive(meta, "tgt_lowercase");
    m->tgt_vocab.lower = lw && strcmp(lw->valuestring, "true") == 0;
    m->cfg.src_vocab = m->src_vocab.n;
    m->cfg.tgt_vocab = m->tgt_vocab.n;
    if (cfg_validate(&m->cfg, err)) {
        tf_fail_prefix(err, "%s", name);
        goto done;
    }
    long long step = 0;
    int has_opt = optim_present(hdr, meta, &step, name, err);
    if (has_opt < 0)
        goto done;
    if (load_tensors(m, opt, has_opt, hdr, src, data_at, src->size - data_at, err))
        goto done;
    if (opt)
        opt->step = has_opt ? step : 0;
    if (keep_extra_meta(m, meta)) {
        tf_fail(err, "%s: out of memory for metadata", name);
        goto done;
    }
    rc = 0;
done:
    if (rc) {
        model_free(m);
        ckpt_optim_free(opt);
    }
    cJSON_Delete(hdr);
    return rc;
}

int ckpt_load_mem_full(TfModel *m, CkptOptim *opt, const void *buf,
                       size_t len, const char *name, TfErr *err)
{
    SftSrc s = {NULL, buf, len, name ? name : "<memory>"};
    return load(m, opt, &s, err);
}

int ckpt_load_mem(TfModel *m, const void *buf, size_t len, const char *name,
                  TfErr *err)
{
    return ckpt_load_mem_full(m, NULL, buf, len, name, err);
}

int ckpt_load_full(TfModel *m, CkptOptim *opt, const char *path, TfErr *err)
{
    load_begin(m, opt);
    off_t size = 0;
    FILE *f = tf_fopen_regular(path, &size, err);
    if (!f)
        return -1;
    SftSrc s = {f, NULL, (size_t)size, path};
    int rc = load(m, opt, &s, err);
    fclose(f);
    return rc;
}

int ckpt_load(TfModel *m, const char *path, TfErr *err)
{
    return ckpt_load_full(m, NULL, path, err);
}

int ckpt_optim_alloc(CkptOptim *opt, size_t n, TfErr *err)
{
    memset(opt, 0, sizeof *opt);
    if (n == 0 || n > TF_MAX_PARAMS)
        return tf_fail(err, "optimizer state for %zu parameters is out of range", n);
    opt->m = calloc(2 * n, sizeof(float));
    if (!opt->m)
        return tf_fail(err, "out of memory for the optimizer state (%.1f MiB)",
                       (double)n * 8 / (1 << 20));
    opt->v = opt->m + n;
    return 0;
}

void ckpt_optim_free(CkptOptim *opt)
{
    if (!opt)
        return;
    free(opt->m);
    memset(opt, 0, sizeof *opt);
}

/* ---- saving ---- */

static cJSON *vocab_json(const Vocab *v)
{
    cJSON *arr = cJSON_CreateArray();
    for (int i = 0; arr && i < v->n; i++)
        cJSON_AddItemToArray(arr, cJSON_CreateString(v->tok[i]));
    return arr;
}

static void add_meta_int(cJSON *meta, const char *k, int v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%d", v);
    cJSON_AddStringToObject(meta, k, buf);
}

static void add_meta_json(cJSON *meta, const char *k, cJSON *val)
{
    char *s = cJSON_PrintUnformatted(val);
    cJSON_AddStringToObject(meta, k, s ? s : "[]");
    free(s);
    cJSON_Delete(val);
}

/* Header entries of one block's tensors, data offsets continuing at *off. */
static void add_entries(cJSON *hdr, const TfConfig *c, const char *prefix,
                        size_t *off)
{
    ParamDesc d[PARAMS_MAX_DESC];
    int nd = params_table(c, d, PARAMS_MAX_DESC);
    char base[96], tname[128];
    for (int i = 0; i < nd; i++) {
        for (int l = 0; l < layer_count(c, d[i].stack); l++) {
            snprintf(base, sizeof base, d[i].name, l);
            snprintf(tname, sizeof tname, "%s%s", prefix, base);
            cJSON *t = cJSON_AddObjectToObject(hdr, tname);
            cJSON_AddStringToObject(t, "dtype", "F32");
            cJSON *sh = cJSON_AddArrayToObject(t, "shape");
            cJSON_AddItemToArray(sh, cJSON_CreateNumber(d[i].rows));
            if (d[i].cols)
                cJSON_AddItemToArray(sh, cJSON_CreateNumber(d[i].cols));
            size_t bytes = param_desc_numel(&d[i]) * 4;
            cJSON *o = cJSON_AddArrayToObject(t, "data_offsets");
            cJSON_AddItemToArray(o, cJSON_CreateNumber((double)*off));
            cJSON_AddItemToArray(o, cJSON_CreateNumber((double)(*off + bytes)));
            *off += bytes;
        }
    }
}

static char *build_header(const TfModel *m, const CkptOptim *opt,
                          size_t *len_out)
{
    const TfConfig *c = &m->cfg;
    cJSON *hdr = cJSON_CreateObject();
    cJSON *meta = cJSON_AddObjectToObject(hdr, "__metadata__");
    cJSON_AddStringToObject(meta, "format", CKPT_FORMAT);
    for (int k = 0; k < CFG_N_SIZES; k++)
        add_meta_int(meta, CFG_SIZES[k].key, cfg_size_of(c, k));
    cJSON_AddStringToObject(meta, "norm", c->norm == TF_NORM_PRE ? "pre" : "post");
    cJSON_AddStringToObject(meta, "tie_embeddings", cfg_tie_name(c->tie));
    add_meta_json(meta, "src_vocab", vocab_json(&m->src_vocab));
    add_meta_json(meta, "tgt_vocab", vocab_json(&m->tgt_vocab));
    cJSON_AddStringToObject(meta, "src_tokenize", m->src_vocab.mode == TOK_CHAR ? "char" : "word");
    cJSON_AddStringToObject(meta, "tgt_tokenize", m->tgt_vocab.mode == TOK_CHAR ? "char" : "word");
    cJSON_AddStringToObject(meta, "src_lowercase", m->src_vocab.lower ? "true" : "false");
    cJSON_AddStringToObject(meta, "tgt_lowercase", m->tgt_vocab.lower ? "true" : "false");
    marian_meta_put(c, meta);
    for (int i = 0; i < m->n_meta; i++)
        if (!is_known_meta(m->meta[i].key))
            cJSON_AddStringToObject(meta, m->meta[i].key, m->meta[i].val);
    if (opt) {
        char buf[32];
        snprintf(buf, sizeof buf, "%lld", opt->step);
        cJSON_AddStringToObject(meta, "optimizer", "adam");
        cJSON_AddStringToObject(meta, "optimizer_step", buf);
    }

    size_t off = 0;
    for (int kind = 0; kind < (opt ? N_KINDS : 1); kind++)
        add_entries(hdr, c, KIND_PREFIX[kind], &off);
    char *text = cJSON_PrintUnformatted(hdr);
    cJSON_Delete(hdr);
    if (!text)
        return NULL;
    /* pad with spaces so the data starts 8-byte aligned */
    size_t len = strlen(text), padded = (len + 7) & ~(size_t)7;
    char *out = realloc(text, padded + 1);
    if (!out) {
        free(text);
        return NULL;
    }
    memset(out + len, ' ', padded - len);
    out[padded] = 0;
    *len_out = padded;
    return out;
}

static int write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Write the tensors of one block laid out like the parameter block. */
static int write_block(int fd, const TfConfig *c, const float *block)
{
    ParamDesc d[PARAMS_MAX_DESC];
    int nd = params_table(c, d, PARAMS_MAX_DESC);
    TfParams p;
    params_point(&p, c, (float *)block);
    for (int i = 0; i < nd; i++)
        for (int l = 0; l < layer_count(c, d[i].stack); l++)
            if (write_all(fd, params_tensor(&p, &d[i], l), param_desc_numel(&d[i]) * 4))
                return -1;
    return 0;
}

static int write_body(int fd, const TfModel *m, const CkptOptim *opt,
                      const char *hdr, size_t hlen)
{
    unsigned char lenb[8];
    for (int i = 0; i < 8; i++)
        lenb[i] = (unsigned char)((uint64_t)hlen >> (8 * i));
    if (write_all(fd, lenb, 8) || write_all(fd, hdr, hlen))
        return -1;
    if (write_block(fd, &m->cfg, m->block))
        return -1;
    if (opt && (write_block(fd, &m->cfg, opt->m) || write_block(fd, &m->cfg, opt->v)))
        return -1;
    return 0;
}

int ckpt_save(const TfModel *m, const char *path, TfErr *err)
{
    return ckpt_save_full(m, NULL, path, err);
}

int ckpt_save_full(const TfModel *m, const CkptOptim *opt, const char *path,
                   TfErr *err)
{
    if (opt && (!opt->m || !opt->v || opt->step < 0))
        return tf_fail(err, "%s: incomplete optimizer state", path);
    size_t hlen = 0;
    char *hdr = build_header(m, opt, &hlen);
    if (!hdr)
        return tf_fail(err, "%s: out of memory building the header", path);
    TfAtomic w;
    int rc = -1;
    if (tf_atomic_open(&w, path, 0644, err) < 0)
        goto done;
    if (write_body(w.fd, m, opt, hdr, hlen)) {
        tf_fail(err, "%s: write failed: %s", path, strerror(errno));
        tf_atomic_discard(&w);
        goto done;
    }
    rc = tf_atomic_commit(&w, err);
done:
    free(hdr);
    return rc;
}
