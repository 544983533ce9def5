/* test_checkpoint_header.c - the safetensors header is read strictly and in
 * time linear in its size: only spaces may follow the JSON object, a NUL
 * hidden in a string (\u0000) is refused rather than silently cutting a
 * token short, and a header with a hundred thousand metadata keys loads
 * without the quadratic slowdown of one lookup per key. Every case edits
 * the shipped model's header in memory and loads it with ckpt_load_mem. */
#include <cJSON.h>

#include "checkpoint.h"
#include "clock.h"
#include "test_util.h"

#define MODEL "assets/models/en2zh.safetensors"

static unsigned char *g_file;
static size_t g_size, g_hlen;

static int setup(void **state)
{
    (void)state;
    FILE *f = fopen(MODEL, "rb");
    if (!f)
        return -1;
    fseek(f, 0, SEEK_END);
    g_size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    g_file = malloc(g_size);
    size_t got = fread(g_file, 1, g_size, f);
    fclose(f);
    if (got != g_size)
        return -1;
    for (int i = 7; i >= 0; i--)
        g_hlen = (g_hlen << 8) | g_file[i];
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free(g_file);
    return 0;
}

/* The shipped file with its header replaced by hdr (raw bytes, n of them). */
static unsigned char *with_header(const char *hdr, size_t n, size_t *out_len)
{
    size_t data = g_size - 8 - g_hlen;
    unsigned char *b = malloc(8 + n + data);
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)((uint64_t)n >> (8 * i));
    memcpy(b + 8, hdr, n);
    memcpy(b + 8 + n, g_file + 8 + g_hlen, data);
    *out_len = 8 + n + data;
    return b;
}

static cJSON *header_json(void)
{
    return cJSON_ParseWithLength((const char *)g_file + 8, g_hlen);
}

/* Load the shipped file with header text hdr + tail; returns ckpt's rc. */
static int load_text(const char *hdr, const char *tail, TfModel *m, TfErr *err)
{
    size_t hl = strlen(hdr), tl = strlen(tail), len;
    char *h = malloc(hl + tl + 1);
    memcpy(h, hdr, hl);
    memcpy(h + hl, tail, tl + 1);
    unsigned char *b = with_header(h, hl + tl, &len);
    int rc = ckpt_load_mem(m, b, len, "edited.safetensors", err);
    free(b);
    free(h);
    return rc;
}

typedef struct TailCase {
    const char *tail;
    int ok;
    const char *msg; /* part of the error */
} TailCase;

static void test_what_may_follow_the_json(void **state)
{
    (void)state;
    static const TailCase cases[] = {
        {"", 1, NULL},
        {"        ", 1, NULL},
        {"x", 0, "bytes after the header"},
        {"   {}", 0, "bytes after the header"},
        {"\n", 0, "bytes after the header"},
    };
    cJSON *h = header_json();
    char *text = cJSON_PrintUnformatted(h);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        TfModel m;
        TfErr err = {{0}};
        int rc = load_text(text, cases[i].tail, &m, &err);
        expect_true((rc == 0) == cases[i].ok, "tail \"%s\": rc %d (%s)", cases[i].tail, rc, err.msg);
        if (rc == 0)
            model_free(&m);
        else
            expect_true(strstr(err.msg, cases[i].msg) && strstr(err.msg, "edited.safetensors"),
                        "tail \"%s\": message \"%s\"", cases[i].tail, err.msg);
    }
    free(text);
    cJSON_Delete(h);
}

/* Replace metadata key's value; returns the header text. */
static char *edit_meta(const char *key, const char *val)
{
    cJSON *h = header_json();
    cJSON *meta = cJSON_GetObjectItemCaseSensitive(h, "__metadata__");
    cJSON_ReplaceItemInObjectCaseSensitive(meta, key, cJSON_CreateString(val));
    char *text = cJSON_PrintUnformatted(h);
    cJSON_Delete(h);
    return text;
}

static void test_nul_in_a_token_is_refused(void **state)
{
    (void)state;
    cJSON *h = header_json();
    cJSON *meta = cJSON_GetObjectItemCaseSensitive(h, "__metadata__");
    const char *tv = cJSON_GetObjectItemCaseSensitive(meta, "tgt_vocab")->valuestring;
    cJSON *arr = cJSON_Parse(tv);
    /* "我" becomes "我\u0000x": cJSON would keep only "我" */
    cJSON *last = cJSON_GetArrayItem(arr, cJSON_GetArraySize(arr) - 1);
    char *inner = cJSON_PrintUnformatted(arr);
    char *at = strstr(inner, last->valuestring);
    size_t pre = (size_t)(at - inner) + strlen(last->valuestring);
    char *edited = malloc(strlen(inner) + 16);
    memcpy(edited, inner, pre);
    strcpy(edited + pre, "\\u0000x");
    strcat(edited, inner + pre);
    char *text = edit_meta("tgt_vocab", edited);
    TfModel m;
    TfErr err = {{0}};
    int rc = load_text(text, "", &m, &err);
    expect_true(rc < 0 && strstr(err.msg, "NUL") && strstr(err.msg, "tgt_vocab"),
                "rc %d, message \"%s\"", rc, err.msg);
    if (rc == 0)
        model_free(&m);
    free(text);
    free(edited);
    free(inner);
    cJSON_Delete(arr);
    cJSON_Delete(h);
}

static void test_nul_in_metadata_is_refused(void **state)
{
    (void)state;
    cJSON *h = header_json();
    cJSON *meta = cJSON_GetObjectItemCaseSensitive(h, "__metadata__");
    cJSON_AddStringToObject(meta, "note", "PLACEHOLDER");
    char *text = cJSON_PrintUnformatted(h);
    char *ph = strstr(text, "PLACEHOLDER");
    size_t pre = (size_t)(ph - text);
    char *edited = malloc(strlen(text) + 16);
    memcpy(edited, text, pre);
    strcpy(edited + pre, "a\\u0000b"); /* the value "a<NUL>b" */
    strcat(edited, ph + strlen("PLACEHOLDER"));
    TfModel m;
    TfErr err = {{0}};
    int rc = load_text(edited, "", &m, &err);
    expect_true(rc < 0 && strstr(err.msg, "NUL"), "rc %d, message \"%s\"", rc, err.msg);
    if (rc == 0)
        model_free(&m);
    free(edited);
    free(text);
    cJSON_Delete(h);
}

/* A header with n extra keys "kNNNNNNN" (and "dup" given twice). */
static char *many_keys(int n)
{
    cJSON *h = header_json();
    cJSON *meta = cJSON_GetObjectItemCaseSensitive(h, "__metadata__");
    char k[32];
    for (int i = 0; i < n; i++) {
        snprintf(k, sizeof k, "k%07d", i);
        cJSON_AddStringToObject(meta, k, "v");
    }
    cJSON_AddStringToObject(meta, "dup", "first");
    cJSON_AddStringToObject(meta, "dup", "second");
    char *text = cJSON_PrintUnformatted(h);
    cJSON_Delete(h);
    return text;
}

/* Load header text, check it, free it: seconds taken. */
static double load_seconds(const void *text)
{
    TfModel m;
    TfErr err = {{0}};
    double t0 = tf_thread_seconds();
    int rc = load_text(text, "", &m, &err);
    double t = tf_thread_seconds() - t0;
    expect_true(rc == 0, "load: %s", err.msg);
    if (rc == 0)
        model_free(&m);
    return t;
}

/* Quadratic loading made 100k keys take 21 s; linear loading keeps the
 * time of 16x the keys near 16x (quadratic would be 256x). */
static void test_many_keys_load_in_linear_time(void **state)
{
    (void)state;
    char *small = many_keys(5000), *big = many_keys(80000);
    double ratio = tu_growth(load_seconds, small, big);
    expect_true(ratio < TU_GROWTH_BOUND, "5k -> 80k keys: ratio %.1f", ratio);
    TfModel m;
    TfErr err = {{0}};
    expect_true(load_text(big, "", &m, &err) == 0, "load: %s", err.msg);
    expect_true(m.n_meta >= 80001, "n_meta %d", m.n_meta);
    const char *d = model_meta_get(&m, "dup");
    expect_true(d && strcmp(d, "second") == 0, "dup = %s", d ? d : "(none)");
    const char *k = model_meta_get(&m, "k0079999");
    expect_true(k && strcmp(k, "v") == 0, "k0079999 = %s", k ? k : "(none)");
    model_free(&m);
    free(small);
    free(big);
}

static void test_meta_set_many(void **state)
{
    (void)state;
    TfModel m;
    memset(&m, 0, sizeof m);
    const char *keys[] = {"b", "a", "b", "c", "a"};
    const char *vals[] = {"1", "2", "3", "4", "5"};
    assert_int_equal(model_meta_set_many(&m, keys, vals, 5), 0);
    expect_true(m.n_meta == 3, "n_meta %d", m.n_meta);
    /* first-appearance order b, a, c; later values win */
    const char *want_k[] = {"b", "a", "c"}, *want_v[] = {"3", "5", "4"};
    for (int i = 0; i < 3; i++)
        expect_true(strcmp(m.meta[i].key, want_k[i]) == 0 && strcmp(m.meta[i].val, want_v[i]) == 0,
                    "[%d] %s=%s, want %s=%s", i, m.meta[i].key, m.meta[i].val, want_k[i], want_v[i]);
    model_free(&m);
}

int main(void)
{
    TU_RUN(setup, teardown,
           cmocka_unit_test(test_what_may_follow_the_json),
           cmocka_unit_test(test_nul_in_a_token_is_refused),
           cmocka_unit_test(test_nul_in_metadata_is_refused),
           cmocka_unit_test(test_meta_set_many),
           cmocka_unit_test(test_many_keys_load_in_linear_time));
}
