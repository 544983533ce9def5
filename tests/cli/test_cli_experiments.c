/* test_cli_experiments.c - the experiment flags, `heads`, sampling and
 * forcing on the command line, run as a child process (build/stepformer
 * with the bundled en2zh model): heads' entropies agree with those
 * recomputed from dump's weights, bad values are refused with one line,
 * translate samples reproducibly, shot refuses a bad input, and long or
 * non-finite input fails with a message instead of an empty line. */
#include <cJSON.h>
#include <unistd.h>

#include "checkpoint.h"
#include "vocab.h"
#include "test_util.h"

TU_SCRATCH_GROUP("cliexp")

static char g_prog[4096];

/* Run `stepformer ARGS` (a shell fragment); stdout into out, the exit
 * status returned; stderr into err (when not NULL). */
static int run(char *out, size_t cap, char *err, size_t ecap, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int run(char *out, size_t cap, char *err, size_t ecap, const char *fmt, ...)
{
    char errpath[256];
    path_in(errpath, sizeof errpath, "stderr.txt");
    va_list ap;
    va_start(ap, fmt);
    int rc = tu_run_prog(g_prog, errpath, out, cap, err, ecap, fmt, ap);
    va_end(ap);
    return rc;
}

static char g_out[1 << 20], g_err[1 << 16];

/* heads --json: one JSON array (json.load reads it), an object per head;
 * entropy, max_weight and first_share recomputed from dump --format json
 * agree to 1e-5, with an experiment on. */
static void test_heads_agree_with_dump(void **state)
{
    (void)state;
    static const char *const SRC = "--src 'i love china' --tgt '我 爱 中国'";
    static const char *const EXP = "--ablate enc:0:1 --hide-src 1 --no-scale";
    int rc = run(g_out, sizeof g_out, g_err, sizeof g_err, "heads %s %s --json", SRC, EXP);
    expect_true(rc == 0, "heads exited %d: %s", rc, g_err);
    cJSON *all = cJSON_Parse(g_out);
    expect_true(all != NULL && cJSON_IsArray(all), "one JSON array: %.200s", g_out);
    int n = cJSON_GetArraySize(all), checked = 0;
    expect_true(n == 3 * 2 * 8, "48 heads (2 layers, 8 heads, 3 parts), got %d", n);
    expect_true(tu_count_lines(g_out) == n, "an object a line (%d lines)", tu_count_lines(g_out));
    double worst = 0;
    for (int k = 0; k < n; k++) {
        cJSON *o = cJSON_GetArrayItem(all, k);
        char *line = cJSON_PrintUnformatted(o);
        expect_true(o != NULL && cJSON_IsObject(o), "an object per head");
        const char *part = cJSON_GetObjectItem(o, "part")->valuestring;
        int l = cJSON_GetObjectItem(o, "layer")->valueint, h = cJSON_GetObjectItem(o, "head")->valueint;
        const char *stage = strcmp(part, "enc") == 0   ? "enc.self.weights"
                            : strcmp(part, "dec") == 0 ? "dec.self.weights"
                                                       : "dec.cross.weights";
        expect_true(cJSON_GetObjectItem(o, "label") && cJSON_GetObjectItem(o, "offset_share"),
                    "label and offset_share in %s", line);
        expect_true(!strcmp(part, "cross") == !!cJSON_GetObjectItem(o, "monotonic"),
                    "monotonic for cross-attention only: %s", line);
        rc = run(g_out, sizeof g_out, g_err, sizeof g_err,
                 "dump %s %s --stage %s --layer %d --head %d --format json", SRC, EXP, stage, l, h);
        expect_true(rc == 0, "dump exited %d: %s", rc, g_err);
        cJSON *d = cJSON_Parse(g_out);
        expect_true(d != NULL, "dump JSON");
        cJSON *data = cJSON_GetObjectItem(d, "data"), *row;
        double ent = 0, mx = 0, first = 0;
        int rows = 0;
        cJSON_ArrayForEach(row, data)
        {
            double hr = 0, best = 0, sum = 0;
            cJSON *x;
            int j = 0;
            cJSON_ArrayForEach(x, row)
            {
                double w = cJSON_IsNumber(x) ? x->valuedouble : 0;
                sum += w;
                if (w > 0)
                    hr -= w * log(w);
                if (w > best)
                    best = w;
                if (j++ == 0)
                    first += w;
            }
            if (sum == 0)
                continue;
            rows++;
            ent += hr;
            mx += best;
        }
        expect_true(rows > 0, "rows in %s", stage);
        double de = fabs(ent / rows - cJSON_GetObjectItem(o, "entropy")->valuedouble);
        double dm = fabs(mx / rows - cJSON_GetObjectItem(o, "max_weight")->valuedouble);
        double df = fabs(first / rows - cJSON_GetObjectItem(o, "first_share")->valuedouble);
        expect_true(de < 1e-5 && dm < 1e-5 && df < 1e-5, "%s %d %d: entropy off by %g, max %g, first %g",
                    part, l, h, de, dm, df);
        if (de > worst)
            worst = de;
        if (!strcmp(part, "enc") && l == 0 && h == 1)
            expect_true(cJSON_GetObjectItem(o, "entropy")->valuedouble >= 0, "ablated head still measured");
        cJSON_Delete(d);
        free(line);
        checked++;
    }
    cJSON_Delete(all);
    printf("  %d heads: entropies from dump agree (worst %.2g nats)\n", checked, worst);
    rc = run(g_out, sizeof g_out, g_err, sizeof g_err, "heads %s", SRC);
    expect_true(rc == 0 && tu_count_lines(g_out) == 49 && strstr(g_out, "entropy"),
                "the readable table: a header and 48 rows (%d lines)", tu_count_lines(g_out));
    rc = run(g_out, sizeof g_out, g_err, sizeof g_err, "heads --help");
    expect_true(rc == 0 && strstr(g_out, "--ablate") && strstr(g_out, "entropy"), "heads --help");
}

/* Each flag changes what dump shows; bad values get one line and exit 1. */
static void test_flags_change_dump_and_refuse(void **state)
{
    (void)state;
    static char plain[1 << 16];
    const char *base = "dump --src 'i love china' --tgt '我 爱 中国' --format json";
    int rc = run(plain, sizeof plain, g_err, sizeof g_err, "%s --stage out.logits", base);
    expect_true(rc == 0, "dump: %s", g_err);
    static const char *const FLAGS[] = {"--no-scale", "--no-pe", "--no-causal", "--ablate enc:1:3",
                                        "--ablate dec:0:0 --ablate cross:1:7", "--hide-src 0",
                                        "--no-scale --no-pe --hide-src 2", "--no-residual", "--no-ffn enc:0",
                                        "--no-ffn dec:1", "--no-ffn dec:0 --no-residual"};
    for (size_t k = 0; k < sizeof FLAGS / sizeof FLAGS[0]; k++) {
        rc = run(g_out, sizeof g_out, g_err, sizeof g_err, "%s --stage out.logits %s", base, FLAGS[k]);
        expect_true(rc == 0 && strcmp(g_out, plain) != 0, "%s changes the logits (rc %d %s)", FLAGS[k],
                    rc, g_err);
    }
    rc = run(g_out, sizeof g_out, g_err, sizeof g_err, "%s --stage enc.self.mask --hide-src 1", base);
    expect_true(rc == 0 && strstr(g_out, "-inf"), "the mask shows the hidden key: %s", g_out);
    static const TuPair BAD[] = {
        {"--ablate enc:2:0", "the layer must be 0..1"}, {"--ablate cross:0:8", "the head must be 0..7"},
        {"--ablate x:0:0", "expected enc:LAYER:HEAD"}, {"--hide-src 3", "the source has 3 tokens"},
        {"--hide-src -1", "--hide-src -1"},           {"--ablate", "--ablate"},
        {"--no-ffn dec:2", "the layer must be 0..1"}, {"--no-ffn cross:0", "expected enc:LAYER or dec:LAYER"},
        {"--no-ffn", "--no-ffn"},
    };
    for (size_t k = 0; k < sizeof BAD / sizeof BAD[0]; k++)
        for (int cmd = 0; cmd < 3; cmd++) {
            static const char *const CMD[] = {"dump --stage out.logits --src 'i love china'",
                                              "translate 'i love china'", "heads --src 'i love china'"};
            rc = run(g_out, sizeof g_out, g_err, sizeof g_err, "%s %s", CMD[cmd], BAD[k].in);
            expect_true(rc == 1 && strstr(g_err, BAD[k].want) && tu_count_lines(g_err) == 1,
                        "%s %s: exit 1 and one line with '%s', got %d: %s", CMD[cmd], BAD[k].in,
                        BAD[k].want, rc, g_err);
        }
}

/* translate --sample: N lines per input, the same for a seed, greedy at
 * top-k 1; --force puts the token and generation continues; --src-ids. */
static void test_translate_sampling_and_force(void **state)
{
    (void)state;
    static char greedy[4096], a[8192];
    int rc = run(greedy, sizeof greedy, g_err, sizeof g_err, "translate 'i love china' 'you like tea'");
    expect_true(rc == 0 && tu_count_lines(greedy) == 2, "greedy: %d %s", rc, g_err);
    rc = run(a, sizeof a, g_err, sizeof g_err,
             "translate --sample --temperature 2 --seed 7 --samples 5 'i love china' 'you like tea'");
    expect_true(rc == 0 && tu_count_lines(a) == 10, "5 samples for each of 2 inputs: %d lines", tu_count_lines(a));
    rc = run(g_out, sizeof g_out, g_err, sizeof g_err,
             "translate --sample --temperature 2 --seed 7 --samples 5 'i love china' 'you like tea'");
    expect_true(rc == 0 && strcmp(a, g_out) == 0, "the same seed draws the same samples");
    rc = run(g_out, sizeof g_out, g_err, sizeof g_err,
             "translate --sample --temperature 2 --seed 8 --samples 5 'i love china' 'you like tea'");
    expect_true(rc == 0 && strcmp(a, g_out) != 0, "another seed draws others");
    rc = run(g_out, sizeof g_out, g_err, sizeof g_err,
             "translate --sample --top-k 1 --temperature 3 'i love china' 'you like tea'");
    expect_true(rc == 0 && strcmp(greedy, g_out) == 0, "top-k 1 is greedy: %s vs %s", g_out, greedy);
    rc = run(g_out, sizeof g_out, g_err, sizeof g_err,
             "translate --sample --temperature 0.01 'i love china' 'you like tea'");
    expect_true(rc == 0 && strcmp(greedy, g_out) == 0, "T 0.01 is greedy: %s", g_out);
    rc = run(g_out, sizeof g_out, g_err, sizeof g_err, "translate --sample --temperature 0 x");
    expect_true(rc == 1 && strstr(g_err, "--temperature"), "T 0 refused: %s", g_err);
    rc = run(g_out, sizeof g_out, g_err, sizeof g_err, "translate --temperature 2 'i love china'");
    expect_true(rc == 1 && strstr(g_err, "go with --sample"), "sampling options without --sample: %s", g_err);
    rc = run(g_out, sizeof g_out, g_err, sizeof g_err, "translate --sample --beam 3 'i love china'");
    expect_true(rc == 1 && strstr(g_err, "--beam"), "sampling with a beam refused: %s", g_err);
    /* a token other than greedy's first, its text from dump's row labels */
    int tok = 0;
    char text[128] = "";
    for (int id = 5; id < 40 && !tok; id++) {
        rc = run(g_out, sizeof g_out, g_err, sizeof g_err,
                 "dump --src 'i love china' --tgt-ids 1,%d --stage out.logits --format json", id);
        cJSON *d = cJSON_Parse(g_out);
        expect_true(rc == 0 && d, "dump: %s", g_err);
        const char *lab = cJSON_GetArrayItem(cJSON_GetObjectItem(d, "row_labels"), 1)->valuestring;
        size_t n = strlen(lab);
        if (n && n < sizeof text && !strchr(lab, '<') && strncmp(greedy, lab, n) != 0) {
            tok = id;
            snprintf(text, sizeof text, "%s", lab);
        }
        cJSON_Delete(d);
    }
    expect_true(tok > 0, "a token to force");
    rc = run(g_out, sizeof g_out, g_err, sizeof g_err, "translate --force 0:%d 'i love china'", tok);
    expect_true(rc == 0 && strncmp(g_out, text, strlen(text)) == 0 && g_out[strlen(text)] == ' ',
                "forcing %s (%d) at step 0: it comes first and generation continues: %s", text, tok, g_out);
    char forced[256];
    snprintf(forced, sizeof forced, "%.200s", g_out);
    rc = run(g_out, sizeof g_out, g_err, sizeof g_err, "translate --force 1:4 --force 1:4 'i love china'");
    expect_true(rc == 0 && tu_count_lines(g_out) == 1, "forcing at step 1: %s", g_out);
    rc = run(g_out, sizeof g_out, g_err, sizeof g_err, "translate --force 0:999999 x");
    expect_true(rc == 1 && strstr(g_err, "--force 0:999999"), "a token outside the vocabulary: %s", g_err);
    rc = run(g_out, sizeof g_out, g_err, sizeof g_err, "translate --force 3 x");
    expect_true(rc == 1 && strstr(g_err, "STEP:TOKEN"), "malformed --force: %s", g_err);
    printf("  greedy: %.*s  forced 0:%d: %s", (int)strcspn(greedy, "\n"), greedy, tok, forced);
    /* ids, including the specials a typed word can no longer be */
    rc = run(g_out, sizeof g_out, g_err, sizeof g_err, "translate --src-ids 4,5,6 --src-ids 3,3");
    expect_true(rc == 0 && tu_count_lines(g_out) == 2, "--src-ids: %d %s", rc, g_err);
    /* typed specials are words (<unk>), the same as --src-ids 3 */
    static char typed[4096];
    rc = run(typed, sizeof typed, g_err, sizeof g_err, "translate '<pad> <bos>'");
    expect_true(rc == 0 && strstr(g_err, "'<pad>' becomes <unk>"), "typed <pad>: %s", g_err);
    rc = run(g_out, sizeof g_out, g_err, sizeof g_err, "translate --src-ids 3,3");
    expect_true(rc == 0 && strcmp(g_out, typed) == 0, "typed specials = <unk> <unk>: %s vs %s", typed, g_out);
    rc = run(g_out, sizeof g_out, g_err, sizeof g_err, "translate --src-ids 4,x");
    expect_true(rc == 1 && strstr(g_err, "--src-ids") && tu_count_lines(g_out) == 1,
                "bad ids: an empty line and a message: %s", g_err);
    rc = run(g_out, sizeof g_out, g_err, sizeof g_err, "translate --src-ids 99999999");
    expect_true(rc == 1 && strstr(g_err, "outside the source vocabulary"), "id out of range: %s", g_err);
}

/* Numbers on the command line are digits only: a trailing or leading
 * comma, a sign, 0x are refused like ","; --ablate with a fourth field
 * blames the form, not the head; --force beyond the output is an error,
 * a step the output ends before is a warning, two tokens for one step an
 * error. */
static void test_strict_numbers(void **state)
{
    (void)state;
    struct {
        const char *args, *want;
        int rc;
    } cases[] = {
        {"--src-ids 1,2,", "--src-ids must be", 1},
        {"--src-ids ,5", "--src-ids must be", 1},
        {"--src-ids +5", "--src-ids must be", 1},
        {"--src-ids ' 5'", "--src-ids must be", 1},
        {"--src-ids 0x5", "--src-ids must be", 1},
        {"--src-ids -1", "--src-ids must be", 1},
        {"--beam +2 x", "--beam must be an integer", 1},
        {"--ablate enc:0:0:0 x", "(three fields)", 1},
        {"--force 63:5 'i love china'", "at most 53 steps", 1},
        {"--force +1:5 'i love china'", "STEP:TOKEN", 1},
        {"--force 1:0x5 'i love china'", "the token must be an id", 1},
        {"--force 0:5 --force 0:6 'i love china'", "step 0 is forced twice, also to 5", 1},
        {"--force 10:5 'i love china'", "the output ended at step", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc = run(g_out, sizeof g_out, g_err, sizeof g_err, "translate %s", cases[i].args);
        expect_true(rc == cases[i].rc && strstr(g_err, cases[i].want) && tu_count_lines(g_err) == 1,
                    "translate %s: rc %d, want %d and '%s' in one line: %s", cases[i].args, rc, cases[i].rc,
                    cases[i].want, g_err);
    }
}

/* A line over 16 MiB on stdin: a message naming <stdin>:LINE, the next
 * line still translated. */
static void test_translate_long_stdin_line(void **state)
{
    (void)state;
    char path[256];
    path_in(path, sizeof path, "long.txt");
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("i love china\n", f);
    for (int i = 0; i < (17 << 20) / 4; i++)
        fputs("aaaa", f);
    fputs("\ni love china\n", f);
    fclose(f);
    int rc = run(g_out, sizeof g_out, g_err, sizeof g_err, "translate < '%s'", path);
    expect_true(rc == 1 && strstr(g_err, "<stdin>:2: line longer than 16 MiB"), "rc %d: %s", rc, g_err);
    expect_true(tu_count_lines(g_out) == 3, "three output lines, the second empty: %s", g_out);
    rc = run(g_out, sizeof g_out, g_err, sizeof g_err, "translate < /dev/null");
    expect_true(rc == 0 && g_out[0] == 0, "empty input: no output");
}

/* Weights too large for float: translate and dump fail with the stage
 * named instead of printing an empty line. */
static void test_non_finite_fails(void **state)
{
    (void)state;
    TfModel m;
    tu_model(&m, 3, .d_model = 8, .n_heads = 2, .d_ff = 8, .n_enc = 1, .n_dec = 1, .src_vocab = 12,
             .tgt_vocab = 12, .max_len = 16);
    for (size_t i = 0; i < (size_t)m.cfg.tgt_vocab * m.cfg.d_model; i++)
        m.p.gen_w[i] = 3e38f;
    char path[256];
    path_in(path, sizeof path, "huge.safetensors");
    TfErr err;
    expect_true(ckpt_save(&m, path, &err) == 0, "save: %s", err.msg);
    model_free(&m);
    int rc = run(g_out, sizeof g_out, g_err, sizeof g_err, "translate --model '%s' --src-ids 4,5", path);
    expect_true(rc == 1 && strstr(g_err, "non-finite"), "translate: rc %d: %s", rc, g_err);
    rc = run(g_out, sizeof g_out, g_err, sizeof g_err,
             "dump --model '%s' --src-ids 4,5 --tgt-ids 1,4 --stage out.probs", path);
    expect_true(rc == 1 && strstr(g_err, "non-finite") && g_out[0] == 0, "dump: rc %d: %s", rc, g_err);
    rc = run(g_out, sizeof g_out, g_err, sizeof g_err, "heads --model '%s' --src-ids 4,5", path);
    expect_true(rc == 1 && strstr(g_err, "non-finite"), "heads: rc %d: %s", rc, g_err);
}

/* shot refuses a bad input instead of drawing it; an experiment changes
 * the picture. */
static void test_shot(void **state)
{
    (void)state;
    char a[256], b[256];
    path_in(a, sizeof a, "plain.png");
    path_in(b, sizeof b, "exp.png");
    static const TuPair BAD[] = {
        {"--stage enc.self.weights --src \"$(printf '\\377\\376')\"", "UTF-8"},
        {"--stage enc.self.weights --src 'a|b|c|d|e|f|g'", "at most 4 sentences"},
        {"--stage enc.self.weights --src 'a|b' --src 'c|d|e'", "at most 4 sentences"},
        {"--stage enc.self.weights --layer 63 --head 127", "layer 63"},
        {"--stage enc.self.weights --head 127", "--head 127"},
        {"--stage enc.self.weights --layer 63", "layer 63"},
        {"--stage enc.self.weights --ablate enc:5:0", "the layer must be 0..1"},
        {"--stage enc.self.weights --hide-src 7", "the source has"},
    };
    for (size_t k = 0; k < sizeof BAD / sizeof BAD[0]; k++) {
        int rc = run(g_out, sizeof g_out, g_err, sizeof g_err, "shot %s --out '%s'", BAD[k].in, a);
        expect_true(rc == 1 && strstr(g_err, BAD[k].want) && access(a, F_OK) != 0,
                    "shot %s: exit 1, '%s', no picture; got %d: %s", BAD[k].in, BAD[k].want, rc, g_err);
    }
    int rc = run(g_out, sizeof g_out, g_err, sizeof g_err, "shot --stage enc.self.weights --out '%s'", a);
    expect_true(rc == 0, "plain shot: %s", g_err);
    rc = run(g_out, sizeof g_out, g_err, sizeof g_err,
             "shot --stage enc.self.weights --no-scale --hide-src 1 --out '%s'", b);
    expect_true(rc == 0, "experiment shot: %s", g_err);
    char cmd[2048], c[256];
    snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s'", a, b);
    expect_true(system(cmd) != 0, "the experiment changes the picture");
    path_in(c, sizeof c, "diff.png");
    rc = run(g_out, sizeof g_out, g_err, sizeof g_err,
             "shot --stage enc.self.weights --no-scale --hide-src 1 --compare --out '%s'", c);
    expect_true(rc == 0 && g_err[0] == 0, "compare shot: %s", g_err);
    snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s' || cmp -s '%s' '%s'", a, c, b, c);
    expect_true(system(cmd) != 0, "the difference picture is neither the plain nor the experiment one");
    rc = run(g_out, sizeof g_out, g_err, sizeof g_err, "shot --stage enc.self.weights --compare --out '%s'", c);
    expect_true(rc == 1 && strstr(g_err, "--compare needs an experiment"), "compare alone: %s", g_err);
}

/* shot --out: a name that says no picture format is refused (no PNG named
 * x.txt); a folder --all cannot create is named with the reason; --lang zh
 * without the Chinese catalog warns (a copy of the program beside no
 * locale/ folder, its data elsewhere). */
static void test_shot_names_and_catalog(void **state)
{
    (void)state;
    char txt[256], cmd[16384], cwd[1024], bin[256], share[256], png[256];
    path_in(txt, sizeof txt, "x.txt");
    int rc = run(g_out, sizeof g_out, g_err, sizeof g_err, "shot --stage src.embed --out '%s'", txt);
    expect_true(rc == 1 && strstr(g_err, "must end in .png, .svg or .pdf") && access(txt, F_OK) != 0,
                "x.txt refused, nothing written: %s", g_err);
    rc = run(g_out, sizeof g_out, g_err, sizeof g_err, "shot --all --out /proc/stepformer-all");
    expect_true(rc == 1 && strstr(g_err, "cannot create the directory /proc/stepformer-all: "), "with the reason: %s",
                g_err);
    assert_non_null(getcwd(cwd, sizeof cwd));
    path_in(bin, sizeof bin, "relocated/bin");
    path_in(share, sizeof share, "relocated/share");
    path_in(png, sizeof png, "zh.png");
    snprintf(cmd, sizeof cmd,
             "mkdir -p '%s' '%s' && cp '%s' '%s/' && ln -sfn '%s/assets' '%s/assets' && ln -sfn '%s/lessons' '%s/lessons' "
             "&& ln -sfn '%s/data' '%s/data'",
             bin, share, g_prog, bin, cwd, share, cwd, share, cwd, share);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, /* from elsewhere than the tree, whose build/locale would be found */
             "cd '%s' && STEPFORMER_DATADIR='%s' '%s/stepformer' shot --stage src.embed --lang zh --out '%s' 2>&1",
             g_dir, share, bin, png);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t k = fread(g_err, 1, sizeof g_err - 1, p);
    g_err[k] = 0;
    rc = pclose(p);
    printf("  %s", g_err);
    expect_true(rc == 0 && strstr(g_err, "no Chinese catalog") && access(png, F_OK) == 0,
                "drawn in English with a warning: %d %s", rc, g_err);
}

/* Tokens from a model file are printed with their control characters
 * escaped by translate and dump: an escape code cannot drive the terminal. */
static void test_tokens_escaped(void **state)
{
    (void)state;
    TfModel m;
    TfErr err;
    tu_model(&m, 4, .d_model = 8, .n_heads = 2, .d_ff = 8, .n_enc = 1, .n_dec = 1, .src_vocab = 12,
             .tgt_vocab = 12, .max_len = 16);
    vocab_free(&m.tgt_vocab);
    expect_true(vocab_init(&m.tgt_vocab, TOK_WORD, &err) == 0, "vocab: %s", err.msg);
    static const char *const EVIL = "\x1b]0;pwned\x07red";
    expect_true(vocab_add(&m.tgt_vocab, EVIL, (int)strlen(EVIL), &err) == 4, "add: %s", err.msg);
    for (int i = 5; i < 12; i++) {
        char w[8];
        snprintf(w, sizeof w, "w%d", i);
        vocab_add(&m.tgt_vocab, w, (int)strlen(w), &err);
    }
    char path[256];
    path_in(path, sizeof path, "evil.safetensors");
    expect_true(ckpt_save(&m, path, &err) == 0, "save: %s", err.msg);
    model_free(&m);
    const char *cmds[] = {"translate --model '%s' --src-ids 4,5 --force 0:4",
                          "dump --model '%s' --src-ids 4,5 --tgt-ids 1,4 --stage out.logits",
                          "dump --model '%s' --src-ids 4,5 --tgt-ids 1,4 --stage out.logits --format json"};
    for (int k = 0; k < 3; k++) {
        char args[512];
        snprintf(args, sizeof args, cmds[k], path);
        int rc = run(g_out, sizeof g_out, g_err, sizeof g_err, "%s", args);
        expect_true(rc == 0, "%s: %s", args, g_err);
        expect_true(!strchr(g_out, 0x1b) && !strchr(g_out, 0x07), "raw escape codes from %s", args);
        expect_true(strstr(g_out, k == 2 ? "\\u001b]0;pwned\\u0007red" : "\\x1b]0;pwned\\x07red"),
                    "escaped token in the output of %s: %.300s", args, g_out);
    }
}

/* 2000 seeded samples of the first token: their frequencies match
 * softmax(z / 2) over the 5 most probable tokens (z from dump), within a
 * total variation of 0.03 (T 1 would be about 0.1 off). */
static void test_sample_frequencies(void **state)
{
    (void)state;
    int rc = run(g_out, sizeof g_out, g_err, sizeof g_err,
                 "dump --src 'i love china' --tgt-ids 1 --stage out.logits --format json");
    cJSON *d = cJSON_Parse(g_out);
    expect_true(rc == 0 && d, "dump: %s", g_err);
    cJSON *z = cJSON_GetArrayItem(cJSON_GetObjectItem(d, "data"), 0), *lab = cJSON_GetObjectItem(d, "col_labels");
    int V = cJSON_GetArraySize(z), top[5];
    double p[5], sum = 0;
    for (int k = 0; k < 5; k++) { /* the 5 largest logits, <pad> and <bos> left out */
        top[k] = -1;
        for (int i = 2; i < V; i++) {
            int used = 0;
            for (int j = 0; j < k; j++)
                used |= top[j] == i;
            if (!used && (top[k] < 0 || cJSON_GetArrayItem(z, i)->valuedouble >
                                            cJSON_GetArrayItem(z, top[k])->valuedouble))
                top[k] = i;
        }
    }
    for (int k = 0; k < 5; k++)
        sum += p[k] = exp((cJSON_GetArrayItem(z, top[k])->valuedouble -
                           cJSON_GetArrayItem(z, top[0])->valuedouble) / 2.0);
    int N = 2000, count[6] = {0};
    rc = run(g_out, sizeof g_out, g_err, sizeof g_err,
             "translate --sample --temperature 2 --top-k 5 --seed 11 --samples %d 'i love china'", N);
    expect_true(rc == 0 && tu_count_lines(g_out) == N, "%d samples: %s", N, g_err);
    for (char *line = g_out; *line;) {
        char *nl = strchr(line, '\n');
        size_t w = strcspn(line, " \n");
        int which = 5;
        for (int k = 0; k < 5; k++) {
            const char *t = cJSON_GetArrayItem(lab, top[k])->valuestring;
            if (top[k] == TOK_EOS ? w == 0 : strlen(t) == w && strncmp(t, line, w) == 0)
                which = k;
        }
        count[which]++;
        line = nl + 1;
    }
    double tv = 0.5 * (double)count[5] / N;
    for (int k = 0; k < 5; k++)
        tv += 0.5 * fabs(p[k] / sum - (double)count[k] / N);
    expect_true(count[5] == 0, "%d samples began outside the top 5", count[5]);
    expect_true(tv < 0.03, "total variation %.4f from softmax(z/2) over the top 5", tv);
    printf("  %d samples at T 2, top-k 5: total variation %.4f\n", N, tv);
    cJSON_Delete(d);
}

/* dump's greedy target (no --tgt) is as long as translate's output: an
 * untrained model that never writes <eos> runs to the length cap, and
 * dump's decoder rows are <bos> + every token translate prints (it was
 * one short), but never more positions than the model has. */
static void test_dump_greedy_as_long_as_translate(void **state)
{
    (void)state;
    static const int MAX_LEN[] = {80, 40};
    for (int c = 0; c < 2; c++) {
        TfModel m;
        tu_model(&m, 5, .d_model = 8, .n_heads = 2, .d_ff = 8, .n_enc = 1, .n_dec = 1, .src_vocab = 12,
                 .tgt_vocab = 12, .max_len = MAX_LEN[c]);
        for (int id = 0; id < 4; id++) /* never ends by itself, and writes only words translate prints */
            m.p.gen_b[id] = -1e4f;
        char path[256];
        path_in(path, sizeof path, "no-eos.safetensors");
        TfErr err;
        expect_true(ckpt_save(&m, path, &err) == 0, "save: %s", err.msg);
        model_free(&m);
        int rc = run(g_out, sizeof g_out, g_err, sizeof g_err, "translate --model '%s' --src-ids 4,5,6", path);
        int words = 0;
        for (const char *p = g_out; *p;) {
            while (*p == ' ' || *p == '\n')
                p++;
            if (!*p)
                break;
            words++;
            while (*p && *p != ' ' && *p != '\n')
                p++;
        }
        expect_true(rc == 0 && words > 0, "translate: rc %d: %s", rc, g_err);
        rc = run(g_out, sizeof g_out, g_err, sizeof g_err,
                 "dump --model '%s' --src-ids 4,5,6 --stage dec.self.weights --format csv", path);
        int lines = 0;
        for (const char *p = g_out; *p; p++)
            lines += *p == '\n';
        int want = 1 + words < MAX_LEN[c] ? 1 + words : MAX_LEN[c];
        /* a header line, then one line per decoder position */
        expect_true(rc == 0 && lines - 1 == want, "max_len %d: dump has %d decoder rows, translate %d tokens (want %d)",
                    MAX_LEN[c], lines - 1, words, want);
    }
}

int main(int argc, char **argv)
{
    tu_program_path(g_prog, sizeof g_prog, argc > 0 ? argv[0] : NULL);
    TU_RUN(setup, teardown, cmocka_unit_test(test_heads_agree_with_dump),
           cmocka_unit_test(test_flags_change_dump_and_refuse),
           cmocka_unit_test(test_translate_sampling_and_force), cmocka_unit_test(test_strict_numbers),
           cmocka_unit_test(test_shot_names_and_catalog),
           cmocka_unit_test(test_translate_long_stdin_line), cmocka_unit_test(test_non_finite_fails),
           cmocka_unit_test(test_shot), cmocka_unit_test(test_tokens_escaped),
           cmocka_unit_test(test_sample_frequencies), cmocka_unit_test(test_dump_greedy_as_long_as_translate));
}
