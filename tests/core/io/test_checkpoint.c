/* test_checkpoint.c - safetensors checkpoints: bit-exact round trips, and a
 * clear error (never a crash or a huge allocation) for every kind of broken
 * file; saving is atomic even when the disk fills or the process is killed. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "checkpoint.h"
#include "test_util.h"

TU_SCRATCH_GROUP("ckpt")

static void small_model(TfModel *m, TfNorm norm, TfTie tie, uint64_t seed)
{
    TfErr err;
    TfConfig c = tu_config((TuSize){.d_model = 16, .n_heads = 2, .d_ff = 24, .n_enc = 2, .n_dec = 1,
                                    .src_vocab = tie == TF_TIE_ALL ? 11 : 9, .tgt_vocab = 11, .max_len = 12});
    c.norm = norm;
    c.tie = tie;
    expect_true(model_init_random(m, &c, seed, &err) == 0, "model: %s", err.msg);
}

static void test_round_trip(void **state)
{
    (void)state;
    for (int variant = 0; variant < 3; variant++) {
        TfModel a, b;
        TfErr err;
        small_model(&a, variant == 1 ? TF_NORM_PRE : TF_NORM_POST, (TfTie)variant, 40 + variant);
        vocab_free(&a.tgt_vocab);
        vocab_init(&a.tgt_vocab, TOK_CHAR, &err);
        const char *toks[] = {"我", "爱", "中国", "\"q\"", "a,b", "\\", "x"};
        for (int i = 0; i < 7; i++)
            vocab_add(&a.tgt_vocab, toks[i], (int)strlen(toks[i]), &err);
        a.src_vocab.lower = 1;
        model_meta_set(&a, "train_command", "stepformer train --task en2zh");
        model_meta_set(&a, "note", "ünïcödé \"quoted\"");
        char p[128];
        path_in(p, sizeof p, "rt.safetensors");
        expect_true(ckpt_save(&a, p, &err) == 0, "save: %s", err.msg);
        expect_true(ckpt_load(&b, p, &err) == 0, "load: %s", err.msg);
        expect_true(memcmp(&a.cfg, &b.cfg, sizeof a.cfg) == 0, "config survives");
        expect_true(a.n_params == b.n_params, "%zu params, got %zu", a.n_params, b.n_params);
        expect_true(memcmp(a.block, b.block, a.n_params * sizeof(float)) == 0,
                    "variant %d: every parameter bit-exact", variant);
        expect_true(b.tgt_vocab.mode == TOK_CHAR && b.tgt_vocab.n == 11 &&
                    strcmp(vocab_token(&b.tgt_vocab, 6), "中国") == 0,
                    "char vocabulary survives, token 6 = %s", vocab_token(&b.tgt_vocab, 6));
        expect_true(b.src_vocab.lower == 1, "lowercase flag survives");
        const char *note = model_meta_get(&b, "note");
        expect_true(note && strcmp(note, "ünïcödé \"quoted\"") == 0, "metadata survives: %s", note ? note : "(none)");
        if (variant != 0)
            expect_true(b.p.gen_w == b.p.tgt_embed, "tied generator aliases the embedding");
        if (variant == 2)
            expect_true(b.p.src_embed == b.p.tgt_embed, "all tied: source embedding aliases too");
        /* saving again gives the same bytes */
        char p2[128];
        path_in(p2, sizeof p2, "rt2.safetensors");
        expect_true(ckpt_save(&b, p2, &err) == 0, "save again");
        FILE *f1 = fopen(p, "rb"), *f2 = fopen(p2, "rb");
        int same = 1, c1, c2;
        do {
            c1 = fgetc(f1);
            c2 = fgetc(f2);
            same &= c1 == c2;
        } while (c1 != EOF && c2 != EOF);
        fclose(f1);
        fclose(f2);
        expect_true(same, "re-saved file is byte-identical");
        model_free(&a);
        model_free(&b);
    }
}

/* ---- broken files: edit a valid header and reload ---- */

typedef struct Blob {
    unsigned char *buf;
    size_t len;
    char *hdr;     /* NUL-terminated copy of the JSON header */
    size_t hlen;
} Blob;

static void read_blob(Blob *b, const char *path)
{
    FILE *f = fopen(path, "rb");
    fseek(f, 0, SEEK_END);
    b->len = (size_t)ftell(f);
    rewind(f);
    b->buf = malloc(b->len);
    expect_true(fread(b->buf, 1, b->len, f) == b->len, "read");
    fclose(f);
    b->hlen = 0;
    for (int i = 7; i >= 0; i--)
        b->hlen = (b->hlen << 8) | b->buf[i];
    b->hdr = malloc(b->hlen + 1);
    memcpy(b->hdr, b->buf + 8, b->hlen);
    b->hdr[b->hlen] = 0;
}

/* Rebuild a file from a (possibly edited) header and the original data. */
static unsigned char *with_header(const Blob *b, const char *hdr, size_t *len)
{
    size_t hl = strlen(hdr), data = b->len - 8 - b->hlen;
    unsigned char *out = malloc(8 + hl + data);
    for (int i = 0; i < 8; i++)
        out[i] = (unsigned char)((uint64_t)hl >> (8 * i));
    memcpy(out + 8, hdr, hl);
    memcpy(out + 8 + hl, b->buf + 8 + b->hlen, data);
    *len = 8 + hl + data;
    return out;
}

static char *replace(const char *s, const char *from, const char *to)
{
    const char *at = strstr(s, from);
    expect_true(at != NULL, "'%s' is in the header", from);
    size_t n = strlen(s) - strlen(from) + strlen(to);
    char *out = malloc(n + 1);
    size_t pre = (size_t)(at - s);
    memcpy(out, s, pre);
    strcpy(out + pre, to);
    strcat(out, at + strlen(from));
    return out;
}

static void expect_load_error(const unsigned char *buf, size_t len, const char *what,
                              const char *needle)
{
    TfModel m;
    TfErr err;
    int rc = ckpt_load_mem(&m, buf, len, "broken.safetensors", &err);
    printf("  %-28s -> %s\n", what, rc ? err.msg : "(loaded!)");
    expect_true(rc != 0, "%s is refused", what);
    expect_true(strstr(err.msg, needle) != NULL, "message mentions '%s'", needle);
    expect_true(strchr(err.msg, '\n') == NULL, "message is one line");
}

typedef void (*ExpectFn)(const unsigned char *buf, size_t len, const char *what, const char *needle);

/* The blob with `from` replaced by `to` in its header, checked by expect. */
static void edited_with(ExpectFn expect, const Blob *b, const char *from, const char *to,
                        const char *what, const char *needle)
{
    char *h = replace(b->hdr, from, to);
    size_t len;
    unsigned char *buf = with_header(b, h, &len);
    expect(buf, len, what, needle);
    free(buf);
    free(h);
}

static void edited(const Blob *b, const char *from, const char *to, const char *what,
                   const char *needle)
{
    edited_with(expect_load_error, b, from, to, what, needle);
}

/* A small post-LN model from seed, saved as g_dir/name (the path into p). */
static void saved_model(TfModel *m, uint64_t seed, const char *name, char *p, size_t cap)
{
    TfErr err;
    small_model(m, TF_NORM_POST, TF_TIE_NONE, seed);
    path_in(p, cap, name);
    expect_true(ckpt_save(m, p, &err) == 0, "save %s: %s", name, err.msg);
}

static void test_broken_files(void **state)
{
    (void)state;
    char p[128];
    TfModel m;
    saved_model(&m, 1, "good.safetensors", p, sizeof p);
    model_free(&m);
    TfErr err;
    Blob b;
    read_blob(&b, p);

    expect_load_error(b.buf, 0, "empty file", "too short");
    expect_load_error(b.buf, 5, "5-byte file", "too short");
    /* header length beyond the file, and absurdly large */
    unsigned char *t = malloc(b.len);
    memcpy(t, b.buf, b.len);
    t[0] = 0xff; t[1] = 0xff; t[2] = 0xff;
    expect_load_error(t, b.len, "header longer than file", "does not fit");
    memset(t, 0xff, 8);
    expect_load_error(t, b.len, "header length 2^64-1", "does not fit");
    memcpy(t, b.buf, b.len);
    expect_load_error(t, 8 + b.hlen / 2, "truncated header", "does not fit");
    expect_load_error(t, b.len - 100, "truncated data", "outside");
    free(t);

    edited(&b, "{\"__metadata__\"", "[\"__metadata__\"", "broken JSON", "JSON");
    edited(&b, "\"__metadata__\"", "\"__metadata\"", "no metadata", "__metadata__");
    edited(&b, "\"d_model\":\"16\"", "\"d_model\":16", "non-string metadata", "not a string");
    edited(&b, "\"d_model\":\"16\"", "\"d_model\":\"sixteen\"", "non-numeric d_model", "not an integer");
    edited(&b, "\"d_model\":\"16\"", "\"d_model\":\"1000000000\"", "absurd d_model", "out of range");
    edited(&b, "\"n_heads\":\"2\"", "\"n_heads\":\"3\"", "heads not dividing d_model", "divisible");
    edited(&b, "\"n_enc_layers\":\"2\"", "\"n_enc_layers\":\"64\"", "64 layers without data", "missing");
    edited(&b, "\"d_ff\":\"24\"", "\"d_ff\":\"65536\"", "huge d_ff, small file", "shape");
    edited(&b, "\"norm\":\"post\"", "\"norm\":\"sideways\"", "unknown norm", "norm");
    edited(&b, "\"format\":\"stepformer-1\"", "\"format\":\"stepformer-9\"", "wrong format", "format");
    edited(&b, "\"tie_embeddings\":\"none\"", "\"tie_embeddings\":\"all\"", "tie with two vocabularies", "vocabular");
    edited(&b, "[\\\"<pad>\\\",\\\"<bos>\\\"", "[\\\"<bos>\\\",\\\"<pad>\\\"", "specials out of order", "special");
    edited(&b, "\\\"t4\\\"", "\\\"t5\\\"", "duplicate token", "twice");
    edited(&b, "\"src_vocab\":\"[", "\"src_vocab\":\"{", "vocabulary not an array", "array");
    edited(&b, "\"src_embed.weight\":{\"dtype\":\"F32\"", "\"src_embed.weight\":{\"dtype\":\"F16\"", "wrong dtype", "F16");
    edited(&b, "\"src_embed.weight\":{\"dtype\":\"F32\",\"shape\":[9,16]",
           "\"src_embed.weight\":{\"dtype\":\"F32\",\"shape\":[16,9]", "wrong shape", "shape");
    edited(&b, "\"src_embed.weight\"", "\"src_embedding.weight\"", "missing tensor", "missing");
    edited(&b, "\"generator.bias\":{", "\"extra.thing\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},\"generator.bias\":{",
           "unknown tensor", "unknown tensor");
    edited(&b, "\"data_offsets\":[0,576]", "\"data_offsets\":[0,-576]", "negative offset", "data_offsets");
    edited(&b, "\"data_offsets\":[0,576]", "\"data_offsets\":[99999999,99999999]", "offset beyond data", "outside");
    edited(&b, "\"data_offsets\":[0,576]", "\"data_offsets\":[4,580]", "overlapping tensors", "overlap");
    edited(&b, "\"data_offsets\":[0,576]", "\"data_offsets\":[0,572]", "size not matching shape", "bytes");

    /* a NaN among the weights */
    t = malloc(b.len);
    memcpy(t, b.buf, b.len);
    float nan = NAN;
    memcpy(t + 8 + b.hlen + 40, &nan, 4);
    expect_load_error(t, b.len, "NaN weight", "NaN");
    free(t);
    free(b.buf);
    free(b.hdr);

    TfModel x;
    expect_true(ckpt_load(&x, "/nonexistent/model.safetensors", &err) != 0, "missing file refused");
    printf("  %-28s -> %s\n", "missing file", err.msg);
    expect_true(ckpt_load(&x, g_dir, &err) != 0, "a directory is refused");
}

/* Save fails cleanly when the file size limit (a stand-in for a full disk)
 * is hit: the old file is untouched and no temporary file is left. */
static void test_full_disk_keeps_old_file(void **state)
{
    (void)state;
    TfModel m;
    TfErr err;
    char p[128];
    saved_model(&m, 2, "keep.safetensors", p, sizeof p);
    struct stat before;
    stat(p, &before);
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = {4096, 4096};
        setrlimit(RLIMIT_FSIZE, &rl);
        m.block[0] += 1;
        int rc = ckpt_save(&m, p, &err);
        _exit(rc != 0 && strstr(err.msg, "write failed") ? 0 : 1);
    }
    int status;
    waitpid(pid, &status, 0);
    expect_true(WIFEXITED(status) && WEXITSTATUS(status) == 0, "save under a full disk reports 'write failed'");
    TfModel back;
    expect_true(ckpt_load(&back, p, &err) == 0, "old file still loads: %s", err.msg);
    expect_true(memcmp(back.block, m.block, m.n_params * 4) == 0, "old file unchanged");
    model_free(&back);
    int leftovers = tu_count_names(g_dir, ".tmp-");
    expect_true(leftovers == 0, "no temporary file left, found %d", leftovers);
    path_in(p, sizeof p, "no/such/dir/m.safetensors");
    expect_true(ckpt_save(&m, p, &err) != 0, "save into a missing directory fails");
    printf("  -> %s\n", err.msg);
    model_free(&m);
}

/* Kill a process that keeps saving at random moments: the file on disk always
 * loads and is one of the complete versions. */
static void test_kill_during_save(void **state)
{
    (void)state;
    /* ~1.3 MB files, so a kill lands mid-write */
    TfConfig c = tu_config((TuSize){.src_vocab = 2000, .tgt_vocab = 2000});
    TfModel m;
    TfErr err;
    expect_true(model_init_random(&m, &c, 9, &err) == 0, "model");
    char p[128];
    path_in(p, sizeof p, "kill.safetensors");
    expect_true(ckpt_save(&m, p, &err) == 0, "first save");
    Rng r;
    rng_seed(&r, 3);
    for (int round = 0; round < 12; round++) {
        pid_t pid = fork();
        if (pid == 0) {
            for (int k = 1;; k++) {
                m.block[0] = (float)k;
                ckpt_save(&m, p, &err);
            }
        }
        usleep(2000 + rng_below(&r, 20000));
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        TfModel back;
        int rc = ckpt_load(&back, p, &err);
        expect_true(rc == 0, "round %d: file loads after a kill: %s", round, rc ? err.msg : "");
        expect_true(memcmp(back.block + 1, m.block + 1, (m.n_params - 1) * 4) == 0,
                    "round %d: weights intact", round);
        model_free(&back);
    }
    model_free(&m);
}

/* ---- optimizer state (training checkpoints) ---- */

static void expect_full_error(const unsigned char *buf, size_t len, const char *what,
                              const char *needle)
{
    TfModel m;
    CkptOptim opt;
    TfErr err;
    int rc = ckpt_load_mem_full(&m, &opt, buf, len, "train.safetensors", &err);
    printf("  %-34s -> %s\n", what, rc ? err.msg : "(loaded!)");
    expect_true(rc != 0, "%s is refused", what);
    expect_true(strstr(err.msg, needle) != NULL, "message mentions '%s'", needle);
    expect_true(opt.m == NULL, "nothing allocated on failure");
}

static void edited_full(const Blob *b, const char *from, const char *to,
                        const char *what, const char *needle)
{
    edited_with(expect_full_error, b, from, to, what, needle);
}

static void fill_optim(CkptOptim *o, size_t n, long long step)
{
    TfErr err;
    expect_true(ckpt_optim_alloc(o, n, &err) == 0, "alloc");
    Rng r;
    rng_seed(&r, 17);
    for (size_t i = 0; i < n; i++) {
        o->m[i] = rng_normal(&r) * 1e-3f;
        o->v[i] = rng_uniform(&r) * 1e-6f;
    }
    o->step = step;
}

/* Moments and step survive bit-exactly; plain loading ignores them; a
 * file without them loads with none. */
static void test_optimizer_round_trip(void **state)
{
    (void)state;
    for (int variant = 0; variant < 3; variant++) {
        TfModel a, b, c;
        CkptOptim o, back, none;
        TfErr err;
        small_model(&a, variant == 1 ? TF_NORM_PRE : TF_NORM_POST, (TfTie)variant, 60 + variant);
        fill_optim(&o, a.n_params, 1234 + variant);
        char p[128], plain[128], p2[128];
        path_in(p, sizeof p, "opt.safetensors");
        path_in(plain, sizeof plain, "plain.safetensors");
        path_in(p2, sizeof p2, "opt2.safetensors");
        expect_true(ckpt_save_full(&a, &o, p, &err) == 0, "save with optimizer: %s", err.msg);
        expect_true(ckpt_save(&a, plain, &err) == 0, "save plain");
        expect_true(ckpt_load_full(&b, &back, p, &err) == 0, "load: %s", err.msg);
        expect_true(memcmp(a.block, b.block, a.n_params * 4) == 0, "parameters bit-exact");
        expect_true(back.m && memcmp(o.m, back.m, a.n_params * 4) == 0 &&
                    memcmp(o.v, back.v, a.n_params * 4) == 0, "variant %d: moments bit-exact", variant);
        expect_true(back.step == o.step, "step %lld, got %lld", o.step, back.step);
        expect_true(model_meta_get(&b, "optimizer") == NULL,
                    "optimizer keys are not extra metadata of the model");
        struct stat s1, s2;
        stat(p, &s1);
        stat(plain, &s2);
        printf("  variant %d: %lld bytes with optimizer state, %lld without\n", variant,
               (long long)s1.st_size, (long long)s2.st_size);
        expect_true(s1.st_size > 2 * s2.st_size, "moments make the file about three times larger");
        expect_true(ckpt_save_full(&b, &back, p2, &err) == 0, "save again");
        Blob x, y;
        read_blob(&x, p);
        read_blob(&y, p2);
        expect_true(x.len == y.len && memcmp(x.buf, y.buf, x.len) == 0, "re-saved file is byte-identical");
        free(x.buf); free(x.hdr); free(y.buf); free(y.hdr);
        expect_true(ckpt_load(&c, p, &err) == 0, "a training checkpoint opens as a model: %s", err.msg);
        expect_true(memcmp(a.block, c.block, a.n_params * 4) == 0, "same parameters");
        model_free(&c);
        expect_true(ckpt_load_full(&c, &none, plain, &err) == 0, "plain file, full load");
        expect_true(none.m == NULL && none.step == 0, "no optimizer state in a plain file");
        model_free(&c);
        ckpt_optim_free(&o);
        ckpt_optim_free(&back);
        model_free(&a);
        model_free(&b);
    }
}

static void test_optimizer_broken(void **state)
{
    (void)state;
    TfModel m;
    CkptOptim o;
    TfErr err;
    small_model(&m, TF_NORM_POST, TF_TIE_NONE, 3);
    fill_optim(&o, m.n_params, 77);
    char p[128], plain[128];
    path_in(p, sizeof p, "optbad.safetensors");
    path_in(plain, sizeof plain, "optplain.safetensors");
    expect_true(ckpt_save_full(&m, &o, p, &err) == 0, "save");
    expect_true(ckpt_save(&m, plain, &err) == 0, "save plain");
    Blob b, pb;
    read_blob(&b, p);
    read_blob(&pb, plain);
    edited_full(&b, "\"optimizer\":\"adam\"", "\"optimizer\":\"sgd\"", "another optimizer", "adam");
    edited_full(&b, "\"optimizer\":\"adam\",", "", "tensors without 'optimizer'", "adam");
    edited_full(&b, "\"optimizer_step\":\"77\"", "\"optimizer_step\":\"-5\"", "negative step", "step count");
    edited_full(&b, "\"optimizer_step\":\"77\"", "\"optimizer_step\":\"77x\"", "step not a number", "step count");
    edited_full(&b, "\"optimizer_step\":\"77\"", "\"optimizer_steps\":\"77\"", "step missing", "optimizer_step");
    edited_full(&b, "\"optimizer.v.generator.bias\"", "\"optimizer.w.generator.bias\"",
                "a moment tensor renamed", "optimizer.v.generator.bias is missing");
    edited_full(&b, "\"optimizer.m.generator.bias\":{\"dtype\":\"F32\",\"shape\":[11]",
                "\"optimizer.m.generator.bias\":{\"dtype\":\"F32\",\"shape\":[12]",
                "a moment of the wrong shape", "shape");
    edited_full(&pb, "\"norm\":\"post\"", "\"norm\":\"post\",\"optimizer\":\"adam\",\"optimizer_step\":\"3\"",
                "metadata without tensors", "no optimizer tensors");
    /* overlapping data: point a moment at a parameter's bytes */
    const char *at = strstr(b.hdr, "\"optimizer.m.generator.bias\"");
    expect_true(at != NULL, "moment entry");
    const char *off = strstr(at, "data_offsets\":[");
    char from[96], to[96];
    int n = (int)(strchr(off, ']') - off) + 1;
    snprintf(from, sizeof from, "%.*s", n, off);
    snprintf(to, sizeof to, "data_offsets\":[0,44]");
    edited_full(&b, from, to, "a moment overlapping a parameter", "overlap");
    /* values: a negative second moment, a NaN first moment */
    size_t data = 8 + b.hlen, np = m.n_params;
    unsigned char *t = malloc(b.len);
    memcpy(t, b.buf, b.len);
    float neg = -1.0f, nan = NAN;
    memcpy(t + data + 2 * np * 4 + 8, &neg, 4);
    expect_full_error(t, b.len, "negative second moment", "negative second moment");
    memcpy(t, b.buf, b.len);
    memcpy(t + data + np * 4 + 12, &nan, 4);
    expect_full_error(t, b.len, "NaN first moment", "NaN");
    /* truncated: the moments are cut off */
    expect_full_error(b.buf, b.len - 64, "truncated moments", "outside");
    free(t);
    free(b.buf); free(b.hdr); free(pb.buf); free(pb.hdr);
    ckpt_optim_free(&o);
    model_free(&m);
}

int main(void)
{
    TU_RUN(setup, teardown,
           cmocka_unit_test(test_round_trip),
           cmocka_unit_test(test_broken_files),
           cmocka_unit_test(test_full_disk_keeps_old_file),
           cmocka_unit_test(test_kill_during_save),
           cmocka_unit_test(test_optimizer_round_trip),
           cmocka_unit_test(test_optimizer_broken));
}
