/* marian.c - MarianMT / OPUS-MT directories (see marian.h). */
#include "marian.h"

#include <cJSON.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "file.h"
#include "marian_tok.h"
#include "ops.h"
#include "pickle.h"
#include "safetensors.h"
#include "sysmem.h"

#define JSON_MAX ((off_t)64 << 20)

/* The name is there (lstat: a symlink that loops or dangles is there too,
 * and opening it then says what is wrong with it, not "missing"). */
static int exists(const char *dir, const char *name)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    struct stat st;
    return lstat(p, &st) == 0;
}

/* Read dir/name as JSON. Missing: NULL with *missing = 1 (and err set);
 * a name that is there but cannot be followed (a symlink loop, no
 * permission) is that error, not "missing". */
static cJSON *read_json(const char *dir, const char *name, int *missing, TfErr *err)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    struct stat sb;
    int e = stat(p, &sb) == 0 ? 0 : errno;
    *missing = e == ENOENT || e == ENOTDIR;
    if (*missing) {
        tf_fail(err, "%s: %s is missing", dir, name);
        return NULL;
    }
    if (e) {
        tf_fail(err, "%s: %s", p, strerror(e));
        return NULL;
    }
    off_t size = 0;
    FILE *f = tf_fopen_regular(p, &size, err);
    if (!f)
        return NULL;
    if (size > JSON_MAX) {
        fclose(f);
        tf_fail(err, "%s: larger than %lld MiB", p, (long long)(JSON_MAX >> 20));
        return NULL;
    }
    char *buf = malloc((size_t)size + 1);
    if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) {
        free(buf);
        fclose(f);
        tf_fail(err, "%s: cannot read it", p);
        return NULL;
    }
    fclose(f);
    cJSON *j = cJSON_ParseWithLength(buf, (size_t)size);
    free(buf);
    if (!j)
        tf_fail(err, "%s: not valid JSON", p);
    return j;
}

/* An integer field: *v keeps its value when the key is absent or null;
 * *from (when not NULL) becomes file when the key sets it. Ranges are
 * checked later, with the key's own range (check_marian). */
static int get_int(const cJSON *o, const char *key, int *v, const char **from, const char *file, TfErr *err)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!x || cJSON_IsNull(x))
        return 0;
    if (!cJSON_IsNumber(x))
        return tf_fail(err, "%s: %s is not a number", file, key);
    if (x->valuedouble != floor(x->valuedouble))
        return tf_fail(err, "%s: %s = %g is not an integer", file, key, x->valuedouble);
    if (x->valuedouble > INT_MAX || x->valuedouble < INT_MIN)
        return tf_fail(err, "%s: %s = %.0f is far too large", file, key, x->valuedouble);
    *v = (int)x->valuedouble;
    if (from)
        *from = file;
    return 0;
}

typedef struct MarianCfg {
    int d_model, enc_layers, dec_layers, enc_heads, dec_heads, enc_ffn, dec_ffn;
    int vocab, dec_vocab, max_pos, pad, eos, unk, start, max_length, share, scale;
    TfAct act;
    const char *cfg_file;                                 /* config.json's path */
    const char *pad_from, *eos_from, *start_from, *len_from; /* the file that set each */
} MarianCfg;

/* config.json's sizes: the key, the MarianCfg field it sets, its range */
typedef struct SizeKey {
    const char *key;
    size_t at;
    int lo, hi;
} SizeKey;

static const SizeKey SIZES[] = {
    {"d_model", offsetof(MarianCfg, d_model), 1, TF_MAX_DMODEL},
    {"encoder_layers", offsetof(MarianCfg, enc_layers), 1, TF_MAX_LAYERS},
    {"decoder_layers", offsetof(MarianCfg, dec_layers), 1, TF_MAX_LAYERS},
    {"encoder_attention_heads", offsetof(MarianCfg, enc_heads), 1, TF_MAX_HEADS},
    {"decoder_attention_heads", offsetof(MarianCfg, dec_heads), 1, TF_MAX_HEADS},
    {"encoder_ffn_dim", offsetof(MarianCfg, enc_ffn), 1, TF_MAX_DFF},
    {"decoder_ffn_dim", offsetof(MarianCfg, dec_ffn), 1, TF_MAX_DFF},
    {"vocab_size", offsetof(MarianCfg, vocab), 5, TF_MAX_VOCAB},
    {"decoder_vocab_size", offsetof(MarianCfg, dec_vocab), INT_MIN, INT_MAX}, /* against vocab_size later */
    {"max_position_embeddings", offsetof(MarianCfg, max_pos), 2, TF_MAX_LEN},
};

/* The keys generation_config.json may set again: the key, its field, and
 * the field that names the file that set it. The first N_TOKEN_IDS are
 * token ids (within the vocabulary). */
typedef struct GenKey {
    const char *key;
    size_t at, from;
} GenKey;

static const GenKey GEN_KEYS[] = {
    {"pad_token_id", offsetof(MarianCfg, pad), offsetof(MarianCfg, pad_from)},
    {"eos_token_id", offsetof(MarianCfg, eos), offsetof(MarianCfg, eos_from)},
    {"decoder_start_token_id", offsetof(MarianCfg, start), offsetof(MarianCfg, start_from)},
    {"max_length", offsetof(MarianCfg, max_length), offsetof(MarianCfg, len_from)},
};
enum { N_TOKEN_IDS = 3 };
#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* The int, or the file name, at offset at of c */
static int *field(MarianCfg *c, size_t at) { return (int *)(void *)((char *)c + at); }
static int value(const MarianCfg *c, size_t at) { return *(const int *)(const void *)((const char *)c + at); }
static const char **from_field(MarianCfg *c, size_t at) { return (const char **)(void *)((char *)c + at); }
static const char *from_value(const MarianCfg *c, size_t at)
{
    return *(const char *const *)(const void *)((const char *)c + at);
}

/* The GEN_KEYS that object j holds, each noting file as where it came from. */
static int get_gen_keys(const cJSON *j, MarianCfg *c, const char *file, TfErr *err)
{
    for (size_t i = 0; i < N_OF(GEN_KEYS); i++)
        if (get_int(j, GEN_KEYS[i].key, field(c, GEN_KEYS[i].at), from_field(c, GEN_KEYS[i].from), file, err))
            return -1;
    return 0;
}

static int parse_act(const char *s, TfAct *a)
{
    if (!strcmp(s, "relu"))
        *a = TF_ACT_RELU;
    else if (!strcmp(s, "swish") || !strcmp(s, "silu"))
        *a = TF_ACT_SILU;
    else if (!strcmp(s, "gelu"))
        *a = TF_ACT_GELU;
    else
        return -1;
    return 0;
}

static int parse_config(const cJSON *j, MarianCfg *c, const char *file, TfErr *err)
{
    if (!cJSON_IsObject(j))
        return tf_fail(err, "%s: not a JSON object", file);
    const cJSON *mt = cJSON_GetObjectItemCaseSensitive(j, "model_type");
    const char *type = cJSON_IsString(mt) ? mt->valuestring : "no model_type";
    if (strcmp(type, "marian") != 0)
        return tf_fail(err, "%s: only MarianMT/OPUS-MT models are supported; this folder holds %s",
                       file, type);
    /* configuration_marian.py's defaults */
    *c = (MarianCfg){.d_model = 1024, .enc_layers = 12, .dec_layers = 12, .enc_heads = 16,
                     .dec_heads = 16, .enc_ffn = 4096, .dec_ffn = 4096, .vocab = 58101,
                     .dec_vocab = -1, .max_pos = 1024, .pad = 58100, .eos = 0, .unk = 1,
                     .start = 58100, .max_length = -1, .share = 1, .scale = 0,
                     .act = TF_ACT_SILU};
    c->cfg_file = c->pad_from = c->eos_from = c->start_from = file;
    c->len_from = NULL; /* max_length: not given */
    for (size_t i = 0; i < N_OF(SIZES); i++)
        if (get_int(j, SIZES[i].key, field(c, SIZES[i].at), NULL, file, err))
            return -1;
    if (get_gen_keys(j, c, file, err))
        return -1;
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(j, "activation_function");
    if (a) {
        if (!cJSON_IsString(a))
            return tf_fail(err, "%s: activation_function is not a string", file);
        if (parse_act(a->valuestring, &c->act))
            return tf_fail(err, "%s: activation_function \"%s\" is not supported (relu, swish/silu, gelu)",
                           file, a->valuestring);
    }
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(j, "scale_embedding");
    if (s)
        c->scale = cJSON_IsTrue(s);
    s = cJSON_GetObjectItemCaseSensitive(j, "share_encoder_decoder_embeddings");
    if (s)
        c->share = cJSON_IsTrue(s);
    return 0;
}

/* generation_config.json overrides the ids and max_length. */
static int apply_generation(const cJSON *j, MarianCfg *c, const char *file, TfErr *err)
{
    if (!cJSON_IsObject(j))
        return tf_fail(err, "%s: not a JSON object", file);
    return get_gen_keys(j, c, file, err);
}

/* The config in the user's words: each value against its range, named by
 * the key and the file that holds it (config.json or
 * generation_config.json), before the engine's own checks. */
static int check_marian(const MarianCfg *mc, TfErr *err)
{
    const char *f = mc->cfg_file;
    for (size_t i = 0; i < N_OF(SIZES); i++) {
        const SizeKey *k = &SIZES[i];
        int v = value(mc, k->at);
        if (v < k->lo || v > k->hi)
            return tf_fail(err, "%s: %s = %d is out of range [%d, %d]", f, k->key, v, k->lo, k->hi);
    }
    if (mc->d_model % mc->enc_heads)
        return tf_fail(err, "%s: d_model %d is not divisible by encoder_attention_heads %d", f, mc->d_model,
                       mc->enc_heads);
    for (size_t i = 0; i < N_TOKEN_IDS; i++) {
        const GenKey *k = &GEN_KEYS[i];
        int v = value(mc, k->at);
        if (v < 0 || v >= mc->vocab)
            return tf_fail(err, "%s: %s = %d is outside the vocabulary of %d (vocab_size in config.json)",
                           from_value(mc, k->from), k->key, v, mc->vocab);
    }
    /* the decoder starts with one token and must be able to end with </s> */
    if (mc->len_from && mc->max_length < 2)
        return tf_fail(err, "%s: max_length = %d: at least 2 (the start token and </s>)", mc->len_from,
                       mc->max_length);
    return 0;
}

static int to_tf_config(const MarianCfg *mc, TfConfig *c, const char *file, TfErr *err)
{
    if (check_marian(mc, err))
        return -1;
    if (mc->dec_vocab >= 0 && mc->dec_vocab != mc->vocab)
        return tf_fail(err, "%s: decoder_vocab_size %d differs from vocab_size %d (only one shared "
                       "vocabulary is supported)", file, mc->dec_vocab, mc->vocab);
    if (!mc->share)
        return tf_fail(err, "%s: share_encoder_decoder_embeddings is false (only shared embeddings "
                       "are supported)", file);
    if (mc->enc_heads != mc->dec_heads || mc->enc_ffn != mc->dec_ffn)
        return tf_fail(err, "%s: encoder and decoder differ in heads (%d, %d) or ffn_dim (%d, %d)",
                       file, mc->enc_heads, mc->dec_heads, mc->enc_ffn, mc->dec_ffn);
    memset(c, 0, sizeof *c);
    c->d_model = mc->d_model;
    c->n_heads = mc->enc_heads;
    c->d_ff = mc->enc_ffn;
    c->n_enc = mc->enc_layers;
    c->n_dec = mc->dec_layers;
    c->src_vocab = c->tgt_vocab = mc->vocab;
    c->max_len = mc->max_pos;
    c->norm = TF_NORM_POST;
    c->tie = TF_TIE_ALL;
    c->kind = TF_KIND_MARIAN;
    c->act = mc->act;
    c->pe_layout = TF_PE_HALVES;
    c->no_embed_scale = !mc->scale;
    c->ids = (TfSpecials){1, mc->pad, mc->eos, mc->unk, mc->start};
    c->gen_max_length = mc->max_length > 1 ? mc->max_length : 0;
    if (cfg_validate(c, err))
        return tf_fail_prefix(err, "%s", file);
    return 0;
}

/* vocab.json: an object piece -> id, ids in 0..V-1, each at most once;
 * ids it leaves out become "<unused N>". */
static int load_vocab(Vocab *out, const cJSON *j, int V, const char *file, TfErr *err)
{
    if (!cJSON_IsObject(j))
        return tf_fail(err, "%s: not an object of ids", file);
    if (V <= 0) { /* as many as the largest id says */
        const cJSON *e;
        cJSON_ArrayForEach(e, j)
        {
            if (cJSON_IsNumber(e) && e->valuedouble >= V && e->valuedouble < VOCAB_MAX_TOKENS)
                V = (int)e->valuedouble + 1;
        }
        if (V <= 0)
            return tf_fail(err, "%s: no ids", file);
    }
    int n = cJSON_GetArraySize(j); /* memory follows the entries, not the largest id or vocab_size */
    if (V > 4 * n + 1024)
        return tf_fail(err, "%s: the vocabulary has %d ids but only %d pieces are given", file, V, n);
    const char **toks = calloc((size_t)V, sizeof *toks);
    char (*unused)[32] = NULL;
    if (!toks)
        return tf_fail(err, "%s: out of memory", file);
    int rc = -1;
    const cJSON *e;
    cJSON_ArrayForEach(e, j)
    {
        if (!cJSON_IsNumber(e) || e->valuedouble != floor(e->valuedouble)) {
            tf_fail(err, "%s: not an object of ids (\"%s\" maps to something else)", file, e->string);
            goto out;
        }
        double id = e->valuedouble;
        if (id < 0 || id >= V) {
            tf_fail(err, "%s: id %.0f of \"%s\" is outside the vocabulary of %d", file, id, e->string, V);
            goto out;
        }
        if (toks[(int)id]) {
            tf_fail(err, "%s: id %.0f is given twice (\"%s\", \"%s\")", file, id, toks[(int)id], e->string);
            goto out;
        }
        toks[(int)id] = e->string;
    }
    int n_unused = 0;
    for (int i = 0; i < V; i++)
        n_unused += !toks[i];
    if (n_unused) {
        unused = calloc((size_t)n_unused, sizeof *unused);
        if (!unused) {
            tf_fail(err, "%s: out of memory", file);
            goto out;
        }
        for (int i = 0, k = 0; i < V; i++)
            if (!toks[i]) {
                snprintf(unused[k], sizeof unused[k], "<unused %d>", i);
                toks[i] = unused[k++];
            }
    }
    if (vocab_from_tokens(out, TOK_WORD, toks, V, err)) {
        tf_fail_prefix(err, "%s", file);
        goto out;
    }
    rc = 0;
out:
    free(unused);
    free(toks);
    return rc;
}

/* ---- safetensors with F32 / F16 / BF16 ---- */

typedef struct St {
    PtFile *pt; /* pytorch_model.bin instead */
    FILE *f;
    const char *path;
    cJSON *hdr;
    unsigned long long data_start, size;
} St;

static int st_open(St *st, const char *path, TfErr *err)
{
    memset(st, 0, sizeof *st);
    st->path = path;
    off_t size = 0;
    st->f = tf_fopen_regular(path, &size, err);
    if (!st->f)
        return -1;
    st->size = (unsigned long long)size;
    size_t at = 0;
    SftSrc src = {st->f, NULL, (size_t)size, path};
    st->hdr = sft_header_read(&src, &at, err); /* the checkpoint loader's checks */
    if (!st->hdr)
        return -1;
    st->data_start = at;
    return 0;
}

static void st_close(St *st)
{
    if (st->f)
        fclose(st->f);
    cJSON_Delete(st->hdr);
}

/* Read tensor name of shape (rows, cols) (cols 0: a vector of rows;
 * lead 1: a [1, rows] vector also fits) into out. Returns 1 when absent
 * (nothing written), 0 when read, -1 on error. */
static int shape_check(const St *st, const char *name, int nd, const long long *got, int rows, int cols,
                       TfErr *err)
{
    int ok;
    if (cols)
        ok = nd == 2 && got[0] == rows && got[1] == cols;
    else
        ok = (nd == 1 && got[0] == rows) || (nd == 2 && got[0] == 1 && got[1] == rows);
    if (ok)
        return 0;
    char s[96] = "";
    for (int i = 0, o = 0; i < nd && i < 4; i++)
        o += snprintf(s + o, sizeof s - (size_t)o, "%s%lld", i ? ", " : "", got[i]);
    if (cols)
        return tf_fail(err, "%s: tensor %s has shape [%s]; the config says [%d, %d]", st->path, name, s,
                       rows, cols);
    return tf_fail(err, "%s: tensor %s has shape [%s]; the config says [%d]", st->path, name, s, rows);
}

static int st_read(St *st, const char *name, int rows, int cols, float *out, TfErr *err)
{
    if (st->pt) {
        const PkTensor *pt = pk_find(&st->pt->tab, name);
        if (!pt)
            return 1;
        if (shape_check(st, name, pt->nd, pt->shape, rows, cols, err))
            return -1;
        return pt_read(st->pt, pt, out, (size_t)rows * (cols ? (size_t)cols : 1), err);
    }
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(st->hdr, name);
    if (!t)
        return 1;
    const cJSON *dt = cJSON_GetObjectItemCaseSensitive(t, "dtype");
    const cJSON *sh = cJSON_GetObjectItemCaseSensitive(t, "shape");
    const cJSON *off = cJSON_GetObjectItemCaseSensitive(t, "data_offsets");
    if (!cJSON_IsString(dt) || !cJSON_IsArray(sh) || !cJSON_IsArray(off) ||
        cJSON_GetArraySize(off) != 2)
        return tf_fail(err, "%s: tensor %s has a malformed entry", st->path, name);
    int es = !strcmp(dt->valuestring, "F32") ? 4
             : (!strcmp(dt->valuestring, "F16") || !strcmp(dt->valuestring, "BF16")) ? 2
                                                                                      : 0;
    if (!es)
        return tf_fail(err, "%s: tensor %s is %s (F32, F16 and BF16 are read)", st->path, name,
                       dt->valuestring);
    int bf = !strcmp(dt->valuestring, "BF16");
    int nd = cJSON_GetArraySize(sh);
    long long got[4] = {0};
    for (int i = 0; i < nd && i < 4; i++) {
        const cJSON *x = cJSON_GetArrayItem(sh, i);
        got[i] = cJSON_IsNumber(x) ? (long long)x->valuedouble : -1;
    }
    if (shape_check(st, name, nd, got, rows, cols, err))
        return -1;
    size_t n = (size_t)rows * (cols ? (size_t)cols : 1);
    double a = cJSON_GetArrayItem(off, 0)->valuedouble, b = cJSON_GetArrayItem(off, 1)->valuedouble;
    if (!(a >= 0 && b >= a && b - a == (double)n * es && st->data_start + b <= (double)st->size))
        return tf_fail(err, "%s: tensor %s has data offsets outside the file or of the wrong size",
                       st->path, name);
    if (fseeko(st->f, (off_t)(st->data_start + (unsigned long long)a), SEEK_SET))
        return tf_fail(err, "%s: cannot seek to tensor %s", st->path, name);
    if (es == 4) {
        if (fread(out, 4, n, st->f) != n)
            return tf_fail(err, "%s: tensor %s is cut short", st->path, name);
        return 0;
    }
    unsigned short *h = malloc(n * 2);
    if (!h)
        return tf_fail(err, "%s: out of memory for tensor %s", st->path, name);
    if (fread(h, 2, n, st->f) != n) {
        free(h);
        return tf_fail(err, "%s: tensor %s is cut short", st->path, name);
    }
    for (size_t i = 0; i < n; i++)
        out[i] = bf ? tf_bf16_to_f32(h[i]) : tf_f16_to_f32(h[i]);
    free(h);
    return 0;
}

/* st_read, and the values it read are finite: a NaN or an infinity in the
 * weights is refused at load (as in our own files), not blamed later on
 * "weights too large" or written by convert into a file that is refused. */
static int st_read_finite(St *st, const char *name, int rows, int cols, float *out, TfErr *err)
{
    int rc = st_read(st, name, rows, cols, out, err);
    if (rc != 0)
        return rc;
    size_t n = (size_t)rows * (cols ? (size_t)cols : 1);
    for (size_t i = 0; i < n; i++)
        if (!isfinite(out[i]))
            return tf_fail(err, "%s: tensor %s holds %s at element %zu", st->path, name,
                           isnan(out[i]) ? "NaN" : "an infinity", i);
    return 0;
}

/* A tensor that must be there. */
static int st_need(St *st, const char *name, int rows, int cols, float *out, TfErr *err)
{
    int rc = st_read_finite(st, name, rows, cols, out, err);
    if (rc == 1)
        return tf_fail(err, "%s: tensor %s is missing", st->path, name);
    return rc;
}

/* name.weight (rows x cols; cols 0: a vector of rows values) into w and
 * name.bias (rows values) into b. */
static int load_linear(St *st, const char *name, int rows, int cols, float *w, float *b, TfErr *err)
{
    char n[256];
    snprintf(n, sizeof n, "%s.weight", name);
    if (st_need(st, n, rows, cols, w, err))
        return -1;
    snprintf(n, sizeof n, "%s.bias", name);
    return st_need(st, n, rows, 0, b, err);
}

/* q, k, v, out projections of one attention block into our packed rows. */
static int load_attn(St *st, const char *pre, const AttnParams *a, int C, TfErr *err)
{
    static const char *qkv[3] = {"q_proj", "k_proj", "v_proj"};
    char n[256];
    for (int i = 0; i < 3; i++) {
        snprintf(n, sizeof n, "%s.%s", pre, qkv[i]);
        if (load_linear(st, n, C, C, a->qkv_w + (size_t)i * C * C, a->qkv_b + (size_t)i * C, err))
            return -1;
    }
    snprintf(n, sizeof n, "%s.out_proj", pre);
    return load_linear(st, n, C, C, a->o_w, a->o_b, err);
}

static int load_ln(St *st, const char *pre, float *w, float *b, int C, TfErr *err)
{
    return load_linear(st, pre, C, 0, w, b, err);
}

static int load_ffn(St *st, const char *pre, const LayerParams *L, int C, int F, TfErr *err)
{
    char n[256];
    snprintf(n, sizeof n, "%s.fc1", pre);
    if (load_linear(st, n, F, C, L->f1w, L->f1b, err))
        return -1;
    snprintf(n, sizeof n, "%s.fc2", pre);
    return load_linear(st, n, C, F, L->f2w, L->f2b, err);
}

/* One layer under pre: self_attn, (decoder) encoder_attn, the layer norms
 * in the order of LayerParams, then fc1 and fc2. */
static int load_layer(St *st, const char *pre, const LayerParams *L, int dec, int C, int F, TfErr *err)
{
    static const char *const NORMS[2][3] = {{"self_attn_layer_norm", "final_layer_norm"},
                                            {"self_attn_layer_norm", "encoder_attn_layer_norm", "final_layer_norm"}};
    char sub[192];
    snprintf(sub, sizeof sub, "%s.self_attn", pre);
    if (load_attn(st, sub, &L->sa, C, err))
        return -1;
    snprintf(sub, sizeof sub, "%s.encoder_attn", pre);
    if (dec && load_attn(st, sub, &L->ca, C, err))
        return -1;
    for (int i = 0; i < 2 + dec; i++) {
        snprintf(sub, sizeof sub, "%s.%s", pre, NORMS[dec][i]);
        if (load_ln(st, sub, L->ln_w[i], L->ln_b[i], C, err))
            return -1;
    }
    return load_ffn(st, pre, L, C, F, err);
}

/* The stored table of one side, or NULL (the formula). */
static int load_pe(St *st, const char *name, float **pe, int L, int C, TfErr *err)
{
    *pe = malloc((size_t)L * C * sizeof(float));
    if (!*pe)
        return tf_fail(err, "out of memory for the positional table");
    int rc = st_read_finite(st, name, L, C, *pe, err);
    if (rc != 0) {
        free(*pe);
        *pe = NULL;
    }
    return rc < 0 ? -1 : 0;
}

/* How far stored tables are from the formula (halves): in the metadata,
 * "marian.pe_stored_diff", for info and convert (the Hub's tables equal
 * it up to the rounding of their dtype). */
static int pe_check(TfModel *m, TfErr *err)
{
    const TfConfig *c = &m->cfg;
    if (!m->pe_src && !m->pe_tgt)
        return 0;
    size_t n = (size_t)c->max_len * c->d_model;
    float *f = malloc(n * sizeof *f);
    if (!f)
        return tf_fail(err, "out of memory for the positional table");
    pe_table_halves(f, c->max_len, c->d_model);
    double d = 0;
    for (size_t i = 0; i < n; i++) {
        if (m->pe_src)
            d = fmax(d, fabs((double)m->pe_src[i] - f[i]));
        if (m->pe_tgt)
            d = fmax(d, fabs((double)m->pe_tgt[i] - f[i]));
    }
    free(f);
    char v[32];
    snprintf(v, sizeof v, "%.3g", d);
    return model_meta_set(m, "marian.pe_stored_diff", v) ? tf_fail(err, "out of memory for the metadata") : 0;
}

static int load_weights(TfModel *m, St *st, TfErr *err)
{
    const TfConfig *c = &m->cfg;
    int C = c->d_model, F = c->d_ff, V = c->tgt_vocab;
    static const char *shared[] = {"model.shared.weight", "model.encoder.embed_tokens.weight",
                                   "model.decoder.embed_tokens.weight", "lm_head.weight"};
    int rc = 1;
    for (int i = 0; i < 4 && rc == 1; i++)
        rc = st_read_finite(st, shared[i], V, C, m->p.tgt_embed, err);
    if (rc == 1)
        return tf_fail(err, "%s: the shared embedding is missing (model.shared.weight)", st->path);
    if (rc < 0)
        return -1;
    rc = st_read_finite(st, "final_logits_bias", V, 0, m->p.gen_b, err);
    if (rc < 0)
        return -1;
    if (rc == 1)
        memset(m->p.gen_b, 0, (size_t)V * sizeof(float));
    char pre[128];
    for (int l = 0; l < c->n_enc + c->n_dec; l++) {
        int dec = l >= c->n_enc, k = dec ? l - c->n_enc : l;
        LayerParams L = dec ? params_dec_layer(&m->p, c, k) : params_enc_layer(&m->p, c, k);
        snprintf(pre, sizeof pre, "model.%s.layers.%d", dec ? "decoder" : "encoder", k);
        if (load_layer(st, pre, &L, dec, C, F, err))
            return -1;
    }
    if (load_pe(st, "model.encoder.embed_positions.weight", &m->pe_src, c->max_len, C, err) ||
        load_pe(st, "model.decoder.embed_positions.weight", &m->pe_tgt, c->max_len, C, err))
        return -1;
    return pe_check(m, err);
}

/* vocab.json holds what MarianTokenizer needs: </s> at eos_token_id,
 * <pad> at pad_token_id, <unk> (its id becomes the model's unk), and at
 * least one piece besides them (an empty {} would translate into
 * <unused N>). */
static int check_vocab(const Vocab *v, TfConfig *c, const char *file, const MarianCfg *mc, TfErr *err)
{
    static const char *const NAME[3] = {"</s>", "<pad>", "<unk>"};
    const char *key[2] = {"eos_token_id", "pad_token_id"}, *from[2] = {mc->eos_from, mc->pad_from};
    int want[2] = {c->ids.eos, c->ids.pad}, id[3];
    for (int i = 0; i < 3; i++) {
        id[i] = vocab_find(v, NAME[i], (int)strlen(NAME[i]));
        if (id[i] < 0)
            return tf_fail(err, "%s: there is no %s (a MarianMT vocabulary has </s>, <unk> and <pad>)", file,
                           NAME[i]);
        if (i < 2 && id[i] != want[i]) {
            const char *base = strrchr(from[i], '/');
            return tf_fail(err, "%s: %s is id %d but %s says %s = %d", file, NAME[i], id[i],
                           base ? base + 1 : from[i], key[i], want[i]);
        }
    }
    c->ids.unk = id[2];
    int pieces = 0;
    for (int i = 0; i < v->n && !pieces; i++)
        pieces = i != id[0] && i != id[1] && i != id[2] && strncmp(v->tok[i], "<unused ", 8) != 0;
    if (!pieces)
        return tf_fail(err, "%s: no pieces besides </s>, <unk> and <pad>", file);
    return 0;
}

static void tok_free(void *t)
{
    marian_tok_free(t);
    free(t);
}

static int load_dir(TfModel *m, const char *dir, TfErr *err)
{
    char file[4096];
    int missing;
    char cfg_file[4096]; /* mc points at it */
    snprintf(cfg_file, sizeof cfg_file, "%s/config.json", dir);
    cJSON *j = read_json(dir, "config.json", &missing, err);
    if (!j)
        return -1;
    MarianCfg mc;
    int rc = parse_config(j, &mc, cfg_file, err);
    cJSON_Delete(j);
    if (rc)
        return -1;
    char gen_file[4096]; /* mc points at it for the ids it sets */
    snprintf(gen_file, sizeof gen_file, "%s/generation_config.json", dir);
    j = read_json(dir, "generation_config.json", &missing, err);
    if (!j && !missing)
        return -1;
    if (j) {
        rc = apply_generation(j, &mc, gen_file, err);
        cJSON_Delete(j);
        if (rc)
            return -1;
    }
    TfConfig cfg;
    if (to_tf_config(&mc, &cfg, cfg_file, err))
        return -1;
    if (mc.max_length > 0) {
        char v[32];
        snprintf(v, sizeof v, "%d", mc.max_length);
        model_meta_set(m, "marian.max_length", v);
    }
    const char *wname = "model.safetensors";
    if (!exists(dir, wname))
        wname = "pytorch_model.bin";
    if (!exists(dir, wname))
        return tf_fail(err, "%s: model.safetensors (or pytorch_model.bin) is missing", dir);
    /* the small files first: a bad vocab.json is found before gigabytes
     * of weights are read */
    Vocab voc;
    snprintf(file, sizeof file, "%s/vocab.json", dir);
    if (marian_vocab_read(dir, &voc, cfg.tgt_vocab, err))
        return -1;
    if (check_vocab(&voc, &cfg, file, &mc, err)) {
        vocab_free(&voc);
        return -1;
    }
    snprintf(file, sizeof file, "%s/%s", dir, wname);
    if (tf_mem_check(params_size(&cfg) * sizeof(float), file, err)) {
        vocab_free(&voc);
        return -1;
    }
    TfMeta *meta = m->meta;
    int n_meta = m->n_meta;
    m->meta = NULL;
    m->n_meta = 0;
    rc = model_build(m, &cfg, err);
    m->meta = meta;
    m->n_meta = n_meta;
    if (rc) {
        vocab_free(&voc);
        return -1;
    }
    St st;
    PtFile pt;
    if (!strcmp(wname, "pytorch_model.bin")) {
        memset(&st, 0, sizeof st);
        st.path = file;
        st.pt = &pt;
        rc = pt_open(&pt, file, err) || load_weights(m, &st, err);
        pt_close(&pt);
    } else {
        rc = st_open(&st, file, err) || load_weights(m, &st, err);
        st_close(&st);
    }
    if (rc) {
        vocab_free(&voc);
        return -1;
    }
    vocab_free(&m->src_vocab);
    vocab_free(&m->tgt_vocab);
    m->src_vocab = voc;
    if (vocab_copy(&m->tgt_vocab, &m->src_vocab, err))
        return -1;
    if (exists(dir, "source.spm") || exists(dir, "target.spm")) {
        MarianTok *t = malloc(sizeof *t);
        if (!t)
            return tf_fail(err, "out of memory");
        MarianIds ids = {cfg_eos_id(&m->cfg), cfg_unk_id(&m->cfg), cfg_pad_id(&m->cfg)};
        if (marian_tok_open(t, dir, ids, err)) {
            free(t);
            return -1;
        }
        m->tok = t;
        m->tok_free = tok_free;
        model_meta_set(m, "marian.tokenizer", "source.spm, target.spm");
    }
    model_meta_set(m, "kind", "marian");
    model_meta_set(m, "marian.dir", dir);
    model_meta_set(m, "marian.weights", wname);
    model_meta_set(m, "activation", cfg_act_name(cfg.act));
    const char *pd = model_meta_get(m, "marian.pe_stored_diff");
    char pl[96];
    snprintf(pl, sizeof pl, !pd ? "halves (formula)" : atof(pd) <= MARIAN_PE_SAME ? "halves (stored table = the formula to %s)"
                                                     : "halves (stored table, %s from the formula)", pd ? pd : "");
    model_meta_set(m, "pe_layout", pl);
    return 0;
}

/* ---- Marian settings in our checkpoints' __metadata__ ---- */

static const char *const MKEYS[] = {"pad_id", "eos_id", "unk_id", "start_id"};

void marian_meta_put(const TfConfig *c, cJSON *meta)
{
    if (c->kind != TF_KIND_MARIAN)
        return; /* ours: nothing new, files stay as they were */
    char b[32];
    cJSON_AddStringToObject(meta, "kind", "marian");
    cJSON_AddStringToObject(meta, "activation", cfg_act_name(c->act));
    cJSON_AddStringToObject(meta, "pe_layout", cfg_pe_name(c->pe_layout));
    cJSON_AddStringToObject(meta, "embed_scale", c->no_embed_scale ? "false" : "true");
    const int v[4] = {c->ids.pad, c->ids.eos, c->ids.unk, c->ids.start};
    for (int i = 0; i < 4; i++) {
        snprintf(b, sizeof b, "%d", v[i]);
        cJSON_AddStringToObject(meta, MKEYS[i], b);
    }
    snprintf(b, sizeof b, "%d", c->gen_max_length);
    cJSON_AddStringToObject(meta, "gen_max_length", b);
}

static int meta_num(const cJSON *meta, const char *key, int *out, const char *name, TfErr *err)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(meta, key);
    char *end;
    long v = x && cJSON_IsString(x) ? strtol(x->valuestring, &end, 10) : -1;
    if (!x || !cJSON_IsString(x) || end == x->valuestring || *end || v < 0 || v > TF_MAX_VOCAB)
        return tf_fail(err, "%s: __metadata__ '%s' is missing or not a count", name, key);
    *out = (int)v;
    return 0;
}

int marian_meta_get(TfConfig *c, const cJSON *meta, const char *name, TfErr *err)
{
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(meta, "kind");
    if (!k)
        return 0;
    if (!cJSON_IsString(k) || strcmp(k->valuestring, "marian"))
        return tf_fail(err, "%s: kind must be \"marian\" when given", name);
    c->kind = TF_KIND_MARIAN;
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(meta, "activation");
    if (!cJSON_IsString(a) || parse_act(a->valuestring, &c->act))
        return tf_fail(err, "%s: activation is missing or not relu, silu or gelu", name);
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(meta, "pe_layout");
    if (!cJSON_IsString(p) || (strcmp(p->valuestring, "halves") && strcmp(p->valuestring, "interleaved")))
        return tf_fail(err, "%s: pe_layout is missing or not halves or interleaved", name);
    c->pe_layout = strcmp(p->valuestring, "halves") ? TF_PE_INTERLEAVED : TF_PE_HALVES;
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(meta, "embed_scale");
    c->no_embed_scale = cJSON_IsString(e) && !strcmp(e->valuestring, "false");
    int *v[4] = {&c->ids.pad, &c->ids.eos, &c->ids.unk, &c->ids.start};
    for (int i = 0; i < 4; i++)
        if (meta_num(meta, MKEYS[i], v[i], name, err))
            return -1;
    c->ids.set = 1;
    return meta_num(meta, "gen_max_length", &c->gen_max_length, name, err);
}

int marian_config_parse(const char *cfg, size_t n, const char *gen, size_t gn, TfConfig *out, TfErr *err)
{
    cJSON *j = cJSON_ParseWithLength(cfg, n);
    if (!j)
        return tf_fail(err, "config.json: not valid JSON");
    MarianCfg mc;
    int rc = parse_config(j, &mc, "config.json", err);
    cJSON_Delete(j);
    if (!rc && gen) {
        if (!(j = cJSON_ParseWithLength(gen, gn)))
            return tf_fail(err, "generation_config.json: not valid JSON");
        rc = apply_generation(j, &mc, "generation_config.json", err);
        cJSON_Delete(j);
    }
    return rc ? -1 : to_tf_config(&mc, out, "config.json", err);
}

int marian_vocab_parse(const char *json, size_t n, Vocab *v, int V, TfErr *err)
{
    memset(v, 0, sizeof *v);
    cJSON *j = cJSON_ParseWithLength(json, n);
    if (!j)
        return tf_fail(err, "vocab.json: not valid JSON");
    int rc = load_vocab(v, j, V, "vocab.json", err);
    cJSON_Delete(j);
    return rc;
}

int marian_vocab_read(const char *dir, Vocab *v, int V, TfErr *err)
{
    memset(v, 0, sizeof *v);
    char file[4096];
    int missing;
    snprintf(file, sizeof file, "%s/vocab.json", dir);
    cJSON *j = read_json(dir, "vocab.json", &missing, err);
    if (!j)
        return -1;
    int rc = load_vocab(v, j, V, file, err);
    cJSON_Delete(j);
    return rc;
}

int marian_load(TfModel *m, const char *dir, TfErr *err)
{
    memset(m, 0, sizeof *m);
    if (load_dir(m, dir, err)) {
        model_free(m);
        return -1;
    }
    return 0;
}
