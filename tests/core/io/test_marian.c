/* test_marian.c - MarianMT directories: the loader's semantics, the forward
 * pass and greedy decoding against the PyTorch port of
 * tools/marian_fixture.py (swish F32 in save_pretrained's layout, relu F16
 * in the Hub's layout with stored positions, gelu BF16), and one-line
 * errors for broken directories. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"
#include "decode.h"
#include "marian.h"
#include "model.h"
#include "model_open.h"
#include "ops.h"
#include "test_util.h"
#include "text.h"
#include "torch_ref.h"
#include "train.h"

#define MFIX "tests/fixtures/marian/"

TU_SCRATCH_GROUP("marian")

static const char *const DIRS[] = {MFIX "swish_f32", MFIX "relu_f16_hub", MFIX "gelu_bf16",
                                   MFIX "swish_f16_bin"};
#define N_DIRS 4

static void test_semantics(void **state)
{
    (void)state;
    TfModel m;
    TfErr err;
    expect_true(tf_model_open(MFIX "relu_f16_hub", &m, &err) == 0, "loads: %s", err.msg);
    const TfConfig *c = &m.cfg;
    expect_true(c->kind == TF_KIND_MARIAN && c->act == TF_ACT_RELU && c->pe_layout == TF_PE_HALVES,
                "kind, activation, PE layout");
    expect_true(c->d_model == 32 && c->n_heads == 4 && c->d_ff == 32 && c->n_enc == 2 &&
                    c->n_dec == 2 && c->tgt_vocab == 48 && c->max_len == 64 && c->tie == TF_TIE_ALL,
                "sizes");
    expect_true(cfg_pad_id(c) == 47 && cfg_eos_id(c) == 0 && cfg_unk_id(c) == 1 &&
                    cfg_start_id(c) == 47 && c->gen_max_length == 12,
                "special ids from the model, max_length from generation_config.json");
    expect_true(!c->no_embed_scale, "scale_embedding true");
    expect_true(m.pe_src && m.pe_tgt, "the Hub's stored positions are used");
    /* the stored table (F16) equals the halves formula */
    float *pe = malloc(64 * 32 * sizeof *pe);
    pe_table_halves(pe, 64, 32);
    double worst = 0;
    for (int i = 0; i < 64 * 32; i++)
        worst = fmax(worst, fabs(pe[i] - m.pe_src[i]));
    expect_true(worst < 1e-3, "stored table = halves formula (%g)", worst);
    expect_true(fabsf(pe[3 * 32 + 0] - sinf(3.0f)) < 1e-6 && fabsf(pe[3 * 32 + 16] - cosf(3.0f)) < 1e-6,
                "sin in the first half, cos in the second");
    free(pe);
    expect_true(strcmp(vocab_token(&m.tgt_vocab, 0), "</s>") == 0 &&
                    strcmp(vocab_token(&m.tgt_vocab, 47), "<pad>") == 0,
                "vocabulary from vocab.json");
    model_free(&m);
    expect_true(tf_model_open(MFIX "swish_f32", &m, &err) == 0, "loads: %s", err.msg);
    expect_true(m.cfg.act == TF_ACT_SILU && !m.pe_src, "swish = SiLU; no stored table");
    model_free(&m);
    expect_true(tf_model_open(MFIX "gelu_bf16/model.safetensors", &m, &err) == 0 && m.cfg.act == TF_ACT_GELU,
                "a file of the folder opens the folder: %s", err.msg);
    model_free(&m);
    char dir[256];
    expect_true(!strcmp(tf_model_source(MFIX "gelu_bf16/vocab.json", dir, sizeof dir), MFIX "gelu_bf16"),
                "vocab.json stands for its folder: %s", dir);
    const char *own = "tests/fixtures/torch/post.safetensors";
    expect_true(tf_model_source(own, dir, sizeof dir) == own, "our own file is read as it is");
    expect_true(ckpt_load(&m, MFIX "gelu_bf16", &err) != 0 && strstr(err.msg, "folder"),
                "ckpt_load reads our files only: %s", err.msg);
}

static void test_forward_matches_port(void **state)
{
    (void)state;
    for (int i = 0; i < N_DIRS; i++) {
        char ref[256];
        snprintf(ref, sizeof ref, "%s/forward.ref", DIRS[i]);
        torch_compare(DIRS[i], ref);
    }
}

/* Greedy ids of the model at path equal the port's in dir/greedy.ref. */
static void greedy_compare(const char *path, const char *dir)
{
    {
        TfModel m;
        TfErr err;
        expect_true(tf_model_open(path, &m, &err) == 0, "loads: %s", err.msg);
        TfTrace tr;
        expect_true(trace_build(&tr, &m.cfg, 1, 8, 0, &err) == 0, "trace");
        char line[1024];
        char ref[256];
        snprintf(ref, sizeof ref, "%s/greedy.ref", dir);
        FILE *f = fopen(ref, "r");
        expect_true(f != NULL, "%s opens", ref);
        int n_lines = 0;
        while (fgets(line, sizeof line, f)) {
            int src[64], want[64], S = 0, W = 0, side = 0;
            for (char *w = strtok(line, " \n"); w; w = strtok(NULL, " \n")) {
                if (!strcmp(w, "|"))
                    side = 1;
                else if (side)
                    want[W++] = atoi(w);
                else
                    src[S++] = atoi(w);
            }
            DecodeResult r;
            int max_out = decode_max_out(&m, &tr, S);
            expect_true(max_out == 11, "max_length 12 - the start token");
            expect_true(tf_greedy(&m, &tr, src, S, max_out, 0, &r, &err) == 0, "greedy: %s", err.msg);
            expect_true(r.n == W, "%s line %d: %d ids, the port %d", ref, n_lines + 1, r.n, W);
            for (int i = 0; i < W; i++)
                expect_true(r.ids[i] == want[i], "%s line %d: id %d is %d, the port %d", ref,
                            n_lines + 1, i, r.ids[i], want[i]);
            decode_result_free(&r);
            n_lines++;
        }
        fclose(f);
        printf("  %s: %d greedy translations equal the port's ids\n", path, n_lines);
        expect_true(n_lines == 8, "8 sentences");
        trace_free(&tr);
        model_free(&m);
    }
}

static void test_greedy_matches_port(void **state)
{
    (void)state;
    for (int d = 0; d < N_DIRS; d++)
        greedy_compare(DIRS[d], DIRS[d]);
}

/* convert: our format with the Marian settings in the metadata gives the
 * same numbers. (Models without a stored table: a stored one becomes the
 * formula, which an F16 table differs from by its rounding, 4e-4.) */
static void test_converted_matches_port(void **state)
{
    (void)state;
    for (int d = 0; d < N_DIRS; d += 2) {
        TfModel m;
        TfErr err;
        expect_true(marian_load(&m, DIRS[d], &err) == 0, "loads: %s", err.msg);
        char out[256], ref[256];
        path_in(out, sizeof out, "converted.safetensors");
        expect_true(ckpt_save(&m, out, &err) == 0, "saves: %s", err.msg);
        model_free(&m);
        snprintf(ref, sizeof ref, "%s/forward.ref", DIRS[d]);
        torch_compare(out, ref);
        greedy_compare(out, DIRS[d]);
    }
}

/* A copy of the swish fixture in g_dir/name, with file replaced by text
 * (NULL: removed). */
static void broken_copy(char *dir, size_t cap, const char *name, const char *file, const char *text)
{
    path_in(dir, cap, name);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -r " MFIX "swish_f32 '%s'", dir, dir);
    expect_true(system(cmd) == 0, "copy");
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, file);
    if (!text) {
        remove(p);
        return;
    }
    FILE *f = fopen(p, "w");
    fputs(text, f);
    fclose(f);
}

/* dir is refused with one line that says want; nothing is left allocated. */
static void expect_refused(const char *dir, const char *name, const char *want)
{
    TfModel m;
    TfErr err = {{0}};
    int rc = tf_model_open(dir, &m, &err);
    printf("  %s: %s\n", name, rc ? err.msg : "loads");
    expect_true(rc != 0, "%s refused", name);
    expect_true(strstr(err.msg, want) != NULL, "%s: '%s' says '%s'", name, err.msg, want);
    expect_true(strchr(err.msg, '\n') == NULL, "one line");
    expect_true(m.block == NULL && m.n_meta == 0, "nothing left allocated");
}

#define CFG_HEAD "{\"model_type\": \"marian\", \"d_model\": 32, \"encoder_layers\": 2, " \
                 "\"decoder_layers\": 2, \"encoder_attention_heads\": 4, \"decoder_attention_heads\": 4, " \
                 "\"vocab_size\": 48, " \
                 "\"max_position_embeddings\": 64, \"scale_embedding\": true, \"pad_token_id\": 47, " \
                 "\"decoder_start_token_id\": 47, "

static void test_bad_dirs(void **state)
{
    (void)state;
    struct {
        const char *name, *file, *text, *want;
    } cases[] = {
        {"no_config", "config.json", NULL, "config.json is missing"},
        {"no_vocab", "vocab.json", NULL, "vocab.json is missing"},
        {"no_weights", "model.safetensors", NULL, "model.safetensors (or pytorch_model.bin) is missing"},
        {"bart", "config.json", "{\"model_type\": \"bart\"}",
         "only MarianMT/OPUS-MT models are supported; this folder holds bart"},
        {"act", "config.json", CFG_HEAD "\"encoder_ffn_dim\": 32, \"decoder_ffn_dim\": 32, \"activation_function\": \"tanh\"}",
         "activation_function \"tanh\" is not supported"},
        {"shape", "config.json", CFG_HEAD "\"activation_function\": \"swish\", \"encoder_ffn_dim\": 48, "
                                          "\"decoder_ffn_dim\": 48}",
         "has shape [32, 32]; the config says [48, 32]"},
        {"vocab_array", "vocab.json", "[\"</s>\", \"<unk>\"]", "not an object of ids"},
        {"vocab_string", "vocab.json", "{\"</s>\": \"zero\"}", "not an object of ids"},
        {"vocab_range", "vocab.json", "{\"</s>\": 0, \"x\": 48}", "outside the vocabulary of 48"},
        {"gen_json", "generation_config.json", "{", "not valid JSON"},
        {"weights_cut", "model.safetensors", "\x08", "too short"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char dir[256];
        broken_copy(dir, sizeof dir, cases[i].name, cases[i].file, cases[i].text);
        expect_refused(dir, cases[i].name, cases[i].want);
    }
}

/* config.json and generation_config.json in the user's words: the file
 * and the key the user wrote, the key's own range; vocab.json must have
 * its specials and pieces, and is checked before the weights are read;
 * non-finite weights are refused at load. */
/* The fixture's config.json with key set to value (text; "" keeps all). */
static const char *cfg_with(const char *key, const char *value)
{
    static char buf[2048];
    static const char *const KV[][2] = {
        {"model_type", "\"marian\""}, {"d_model", "32"}, {"encoder_layers", "2"}, {"decoder_layers", "2"},
        {"encoder_attention_heads", "4"}, {"decoder_attention_heads", "4"}, {"encoder_ffn_dim", "32"},
        {"decoder_ffn_dim", "32"}, {"vocab_size", "48"}, {"max_position_embeddings", "64"},
        {"activation_function", "\"swish\""}, {"scale_embedding", "true"}, {"pad_token_id", "47"},
        {"eos_token_id", "0"}, {"decoder_start_token_id", "47"}};
    size_t o = (size_t)snprintf(buf, sizeof buf, "{");
    for (size_t i = 0; i < sizeof KV / sizeof KV[0]; i++)
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%s\"%s\": %s", i ? ", " : "", KV[i][0],
                              strcmp(KV[i][0], key) ? KV[i][1] : value);
    snprintf(buf + o, sizeof buf - o, "}");
    return buf;
}

static void test_user_words(void **state)
{
    (void)state;
    struct {
        const char *name, *file, *key, *value, *want[2];
    } cases[] = {
        {"int_max", "config.json", "d_model", "2147483647", {"config.json: d_model = 2147483647 is out of range [1, 8192]"}},
        {"max_pos", "config.json", "max_position_embeddings", "99999",
         {"config.json: max_position_embeddings = 99999 is out of range"}},
        {"dec_layers", "config.json", "decoder_layers", "0", {"config.json: decoder_layers = 0"}},
        {"vocab_size", "config.json", "vocab_size", "2", {"config.json: vocab_size = 2"}},
        {"heads0", "config.json", "encoder_attention_heads", "0", {"encoder_attention_heads = 0 is out of range"}},
        {"frac", "config.json", "d_model", "31.5", {"d_model = 31.5 is not an integer"}},
        {"gen_id", "generation_config.json", NULL, "{\"pad_token_id\": 999}",
         {"generation_config.json: pad_token_id = 999 is outside the vocabulary of 48"}},
        {"gen_len0", "generation_config.json", NULL, "{\"max_length\": 0}",
         {"generation_config.json: max_length = 0", "at least 2"}},
        {"gen_len-5", "generation_config.json", NULL, "{\"max_length\": -5}", {"max_length = -5"}},
        {"vocab_empty", "vocab.json", NULL, "{}", {"vocab.json: there is no </s>"}},
        {"vocab_specials", "vocab.json", NULL, "{\"</s>\": 0, \"<unk>\": 1, \"<pad>\": 47}", {"no pieces besides"}},
        {"vocab_pad", "vocab.json", NULL, "{\"</s>\": 0, \"<unk>\": 1, \"<pad>\": 46, \"x\": 2}",
         {"<pad> is id 46", "pad_token_id = 47"}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char dir[256];
        broken_copy(dir, sizeof dir, cases[i].name, cases[i].file,
                    cases[i].key ? cfg_with(cases[i].key, cases[i].value) : cases[i].value);
        for (int k = 0; k < 2 && cases[i].want[k]; k++)
            expect_refused(dir, cases[i].name, cases[i].want[k]);
    }
    /* a symlink loop is that, not "missing" */
    char dir[256], p[320];
    broken_copy(dir, sizeof dir, "loop", "config.json", NULL);
    snprintf(p, sizeof p, "%s/config.json", dir);
    expect_true(symlink("config.json", p) == 0, "make the loop");
    expect_refused(dir, "loop", "symbolic links");
    broken_copy(dir, sizeof dir, "weights_loop", "model.safetensors", NULL);
    snprintf(p, sizeof p, "%s/model.safetensors", dir);
    expect_true(symlink("model.safetensors", p) == 0, "make the loop");
    expect_refused(dir, "weights_loop", "symbolic links");
    /* the small files first: a bad vocab.json is named even when the
     * weights are broken too */
    broken_copy(dir, sizeof dir, "vocab_first", "model.safetensors", "\x08");
    snprintf(p, sizeof p, "%s/vocab.json", dir);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs("{}", f);
    fclose(f);
    expect_refused(dir, "vocab_first", "vocab.json");
    /* a NaN in the weights (the first float of the data: final_logits_bias) */
    broken_copy(dir, sizeof dir, "nan", "README", "x");
    snprintf(p, sizeof p, "%s/model.safetensors", dir);
    f = fopen(p, "r+b");
    assert_non_null(f);
    unsigned char len8[8];
    assert_true(fread(len8, 1, 8, f) == 8);
    unsigned long long hl = 0;
    for (int i = 7; i >= 0; i--)
        hl = hl << 8 | len8[i];
    const unsigned char nan_le[4] = {0x00, 0x00, 0xc0, 0x7f};
    assert_true(fseek(f, (long)(8 + hl), SEEK_SET) == 0 && fwrite(nan_le, 1, 4, f) == 4);
    fclose(f);
    expect_refused(dir, "nan", "final_logits_bias holds NaN");
}

/* The fixture's model.safetensors in a copy named name, its header JSON
 * rebuilt as pre + the JSON + post (the data after it unchanged). */
static void header_copy(char *dir, size_t cap, const char *name, const char *pre, const char *post)
{
    broken_copy(dir, cap, name, "config.json", NULL);
    char cmd[1024], p[512];
    snprintf(cmd, sizeof cmd, "cp " MFIX "swish_f32/config.json '%s'/", dir);
    expect_true(system(cmd) == 0, "copy config.json");
    FILE *f = fopen(MFIX "swish_f32/model.safetensors", "rb");
    expect_true(f != NULL, "open the fixture");
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    unsigned char *b = malloc((size_t)size);
    expect_true(b && fread(b, 1, (size_t)size, f) == (size_t)size, "read the fixture");
    fclose(f);
    unsigned long long n = 0;
    for (int i = 7; i >= 0; i--)
        n = n << 8 | b[i];
    size_t np = strlen(pre), nq = strlen(post), m = (size_t)n - 1 + np + nq; /* pre replaces the brace */
    unsigned char len[8];
    for (int i = 0; i < 8; i++)
        len[i] = (unsigned char)(m >> (8 * i));
    snprintf(p, sizeof p, "%s/model.safetensors", dir);
    f = fopen(p, "wb");
    fwrite(len, 1, 8, f);
    fwrite(pre, 1, np, f);
    fwrite(b + 8 + 1, 1, (size_t)n - 1, f); /* after the opening brace, which pre holds */
    fwrite(post, 1, nq, f);
    fwrite(b + 8 + n, 1, (size_t)size - 8 - (size_t)n, f);
    fclose(f);
    free(b);
}

/* A MarianMT folder's weights go through checkpoint.c's header reader:
 * bytes after the JSON object and a NUL inside a name are refused there
 * as in our own checkpoints, with the same line. */
static void test_weights_header(void **state)
{
    (void)state;
    struct {
        const char *name, *pre, *post, *want;
    } cases[] = {
        {"hdr_trailing", "{", "x", "model.safetensors: bytes after the header's JSON object"},
        {"hdr_nul", "{\"a\\u0000b\": 0, ", "", "model.safetensors: a string in the header holds a NUL character"},
    };
    char dir[256];
    header_copy(dir, sizeof dir, "hdr_same", "{", ""); /* the copy itself loads */
    TfModel m;
    TfErr err = {{0}};
    expect_true(tf_model_open(dir, &m, &err) == 0, "the rewritten header loads: %s", err.msg);
    model_free(&m);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        header_copy(dir, sizeof dir, cases[i].name, cases[i].pre, cases[i].post);
        expect_refused(dir, cases[i].name, cases[i].want);
    }
}

/* A folder with source.spm and target.spm tokenizes through them; an spm
 * file that does not load is a one-line error. */
static void test_folder_tokenizer(void **state)
{
    (void)state;
    char dir[256], cmd[1024];
    broken_copy(dir, sizeof dir, "with_spm", "README", "x");
    snprintf(cmd, sizeof cmd, "cp " MFIX "spm/source.spm " MFIX "spm/target.spm '%s'", dir);
    expect_true(system(cmd) == 0, "copy");
    TfModel m;
    TfErr err;
    expect_true(tf_model_open(dir, &m, &err) == 0 && m.tok, "loads with its tokenizer: %s", err.msg);
    int ids[64];
    int n = tf_text_encode(&m, ">>fra<< the cat", ids, 64, NULL, &err);
    expect_true(n >= 2 && ids[n - 1] == 0, "</s> appended (%d ids)", n);
    char *out;
    expect_true(tf_text_decode(&m, ids, n, &out, &err) >= 0, "decodes: %s", err.msg);
    free(out);
    model_free(&m);
    broken_copy(dir, sizeof dir, "bad_spm", "source.spm", "not a model");
    snprintf(cmd, sizeof cmd, "cp " MFIX "spm/target.spm '%s'", dir);
    expect_true(system(cmd) == 0, "copy");
    expect_true(tf_model_open(dir, &m, &err) != 0, "a broken source.spm is refused");
    printf("  %s\n", err.msg);
    expect_true(strstr(err.msg, "source.spm") && !strchr(err.msg, '\n'), "one line naming it");
}

/* A folder with one spm file of the two names the other; the JSON readers
 * over memory (the fuzzer's entry) allocate what the input holds, not what
 * its largest id or vocab_size claims. */
static void test_spm_pair_and_memory(void **state)
{
    (void)state;
    char dir[256], cmd[1024];
    broken_copy(dir, sizeof dir, "one_spm", "README", "x");
    snprintf(cmd, sizeof cmd, "cp " MFIX "spm/source.spm '%s'", dir);
    expect_true(system(cmd) == 0, "copy");
    TfModel m;
    TfErr err;
    expect_true(tf_model_open(dir, &m, &err) != 0 && strstr(err.msg, "target.spm is missing") &&
                    !strchr(err.msg, '\n'), "names the missing target.spm: %s", err.msg);
    Vocab v;
    const char *sparse = "{\"</s>\": 0, \"x\": 999999}";
    expect_true(marian_vocab_parse(sparse, strlen(sparse), &v, 0, &err) != 0 && strstr(err.msg, "only 2 pieces"),
                "a far id in a short file is refused: %s", err.msg);
    expect_true(marian_vocab_parse(sparse, strlen(sparse), &v, 65001, &err) != 0, "so is a large vocab_size");
    const char *ok = "{\"</s>\": 0, \"<unk>\": 1, \"<pad>\": 2}";
    expect_true(marian_vocab_parse(ok, strlen(ok), &v, 0, &err) == 0 && v.n == 3, "a whole one loads: %s", err.msg);
    vocab_free(&v);
    TfConfig c;
    const char *cfg = CFG_HEAD "\"encoder_ffn_dim\": 32, \"decoder_ffn_dim\": 32, \"activation_function\": \"gelu\"}";
    expect_true(marian_config_parse(cfg, strlen(cfg), NULL, 0, &c, &err) == 0 && c.act == TF_ACT_GELU &&
                    c.tgt_vocab == 48 && c.pe_layout == TF_PE_HALVES, "the config parses from memory: %s", err.msg);
    expect_true(marian_config_parse("{", 1, NULL, 0, &c, &err) != 0 && strstr(err.msg, "config.json"), "%s", err.msg);
}

/* A stored table that is not the formula is the one used (the port's
 * numbers), its distance is in the metadata, and convert refuses it; the
 * Hub's F16 table is the formula to its rounding. */
static void test_stored_table(void **state)
{
    (void)state;
    torch_compare(MFIX "pe_stored_other", MFIX "pe_stored_other/forward.ref");
    greedy_compare(MFIX "pe_stored_other", MFIX "pe_stored_other");
    TfModel m;
    TfErr err;
    expect_true(tf_model_open(MFIX "pe_stored_other", &m, &err) == 0, "loads: %s", err.msg);
    const char *d = model_meta_get(&m, "marian.pe_stored_diff");
    expect_true(d && atof(d) > 0.05, "far from the formula: %s", d ? d : "(none)");
    model_free(&m);
    expect_true(tf_model_open(MFIX "relu_f16_hub", &m, &err) == 0, "loads: %s", err.msg);
    d = model_meta_get(&m, "marian.pe_stored_diff");
    expect_true(d && atof(d) > 0 && atof(d) <= MARIAN_PE_SAME, "the formula to F16's rounding: %s", d ? d : "(none)");
    model_free(&m);
    expect_true(tf_model_open(MFIX "swish_f32", &m, &err) == 0 && !model_meta_get(&m, "marian.pe_stored_diff"),
                "no table, no distance");
    model_free(&m);
}

static void test_training_refused(void **state)
{
    (void)state;
    TfModel m;
    TfErr err;
    expect_true(tf_model_open(MFIX "swish_f32", &m, &err) == 0, "loads: %s", err.msg);
    Dataset d;
    memset(&d, 0, sizeof d);
    strcpy(d.name, "none");
    TrainOpts o;
    train_opts_default(&o);
    Trainer *t = calloc(1, sizeof *t);
    expect_true(trainer_init(t, &m, &d, &o, &err) != 0, "training a SiLU Marian model is refused");
    printf("  %s\n", err.msg);
    expect_true(strstr(err.msg, "ReLU") != NULL, "the message names ReLU");
    free(t);
    model_free(&m);
}

int main(void)
{
    TU_RUN(setup, teardown,
           cmocka_unit_test(test_semantics),
           cmocka_unit_test(test_forward_matches_port),
           cmocka_unit_test(test_greedy_matches_port),
           cmocka_unit_test(test_converted_matches_port),
           cmocka_unit_test(test_bad_dirs), cmocka_unit_test(test_user_words),
           cmocka_unit_test(test_weights_header),
           cmocka_unit_test(test_folder_tokenizer),
           cmocka_unit_test(test_spm_pair_and_memory),
           cmocka_unit_test(test_stored_table),
           cmocka_unit_test(test_training_refused));
}
