/* test_cli_marian.c - the commands read a MarianMT folder's text through
 * its sentencepiece models: `translate` (with --target-lang) gives the
 * text tools/marian_fixture.py's port gives (MarianTokenizer's rules, the
 * port's greedy ids, target.spm's decoding), `dump` shows the pieces and
 * their ids, `heads` runs, and bad input is one line. */
#include <unistd.h>

#include "tool_util.h"
#include "torch_ref.h"

#define SPMDIR "tests/fixtures/marian/spm_model"

TU_SCRATCH_GROUP("climarian")

static char g_cli[512];

/* stdout and stderr of a command line in buf; its exit status. */
static int run(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int run(char *buf, size_t cap, const char *fmt, ...)
{
    char cmd[8192] = "exec 2>&1; "; /* a 2>/dev/null in fmt still wins */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), fmt, ap);
    va_end(ap);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(buf, 1, cap - 1, p);
    buf[n] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* translate.ref: text \t source ids \t greedy ids \t greedy text. */
static void test_translate_matches_port(void **state)
{
    (void)state;
    FILE *f = fopen(SPMDIR "/translate.ref", "r");
    assert_non_null(f);
    char line[2048], out[4096];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *field[4] = {line};
        for (int k = 1; k < 4; k++) {
            field[k] = strchr(field[k - 1], '\t');
            assert_non_null(field[k]);
            *field[k]++ = 0;
        }
        int rc = run(out, sizeof out, "'%s' translate --model " SPMDIR " '%s' 2>/dev/null", g_cli,
                     field[0]);
        out[strcspn(out, "\n")] = 0;
        expect_true(rc == 0 && !strcmp(out, field[3]), "'%s': we say '%s', the port '%s'", field[0], out,
                    field[3]);
        char json[8192];
        rc = run(json, sizeof json,
                 "'%s' dump --model " SPMDIR " --src '%s' --stage src.tokens --format json 2>/dev/null",
                 g_cli, field[0]);
        char want[1024] = "";
        for (char *w = strtok(field[1], " "); w; w = strtok(NULL, " "))
            snprintf(want + strlen(want), sizeof want - strlen(want), "%s[%s]", want[0] ? "," : "", w);
        expect_true(rc == 0 && strstr(json, want), "'%s': dump's ids %s in %s", field[0], want, json);
        n++;
    }
    fclose(f);
    printf("  %d sentences: translate's text and dump's source ids are the port's\n", n);
    expect_true(n >= 8, "the reference has its lines");
}

/* --target-lang fra is the same as typing >>fra<< in front. */
static void test_target_lang(void **state)
{
    (void)state;
    char a[1024], b[1024];
    expect_true(run(a, sizeof a, "'%s' translate --model " SPMDIR " --target-lang fra 'the dog likes the house'",
                    g_cli) == 0, "--target-lang fra: %s", a);
    expect_true(run(b, sizeof b, "'%s' translate --model " SPMDIR " '>>fra<< the dog likes the house'",
                    g_cli) == 0, "typed tag: %s", b);
    expect_true(!strcmp(a, b), "'%s' vs '%s'", a, b);
    expect_true(run(a, sizeof a, "'%s' translate --model " SPMDIR " --target-lang '>>deu<<' 'today'",
                    g_cli) == 0, "a tag with its brackets: %s", a);
    int rc = run(a, sizeof a, "'%s' translate --model " SPMDIR " --target-lang cmn_Hans 'the dog'", g_cli);
    printf("  %s", a);
    expect_true(rc != 0 && strstr(a, ">>cmn_Hans<< is not in the vocabulary") && strstr(a, ">>fra<<"),
                "an unknown tag is refused, naming some it has: %s", a);
    expect_true(tu_count(a, strlen(a), "\n") == 1, "one line");
}

/* A sentence longer than max_position_embeddings (64 here), an empty one,
 * and heads on the same folder. */
static void test_bad_sentences_and_heads(void **state)
{
    (void)state;
    char longs[2048] = "", out[8192];
    for (int i = 0; i < 40; i++)
        strcat(longs, "the cat ");
    int rc = run(out, sizeof out, "'%s' translate --model " SPMDIR " '%s'", g_cli, longs);
    printf("  %s", out);
    expect_true(rc != 0 && strstr(out, "at most 64 (max_position_embeddings)"), "too long: %s", out);
    rc = run(out, sizeof out, "'%s' dump --model " SPMDIR " --src '%s' --stage src.tokens", g_cli, longs);
    expect_true(rc != 0 && strstr(out, "max_position_embeddings") && tu_count(out, strlen(out), "\n") == 1,
                "dump too: %s", out);
    rc = run(out, sizeof out, "'%s' translate --model " SPMDIR " ''", g_cli);
    expect_true(rc != 0 && strstr(out, "source sentence is empty"), "empty: %s", out);
    rc = run(out, sizeof out, "'%s' heads --model " SPMDIR " --src 'the cat sees a bird.' --tgt 'le chat'",
             g_cli);
    expect_true(rc == 0 && strstr(out, "cross"), "heads runs on the folder: %s", out);
}

/* convert drops a stored table equal to the formula (and says so) and
 * refuses one that is not. */
static void test_convert_tables(void **state)
{
    (void)state;
    char out[2048], path[256];
    path_in(path, sizeof path, "hub.safetensors");
    int rc = run(out, sizeof out, "'%s' convert tests/fixtures/marian/relu_f16_hub --out '%s'", g_cli, path);
    expect_true(rc == 0 && strstr(out, "equals the formula") && strstr(out, "wrote"), "%s", out);
    path_in(path, sizeof path, "other.safetensors");
    rc = run(out, sizeof out, "'%s' convert tests/fixtures/marian/pe_stored_other --out '%s'", g_cli, path);
    printf("  %s", out);
    expect_true(rc != 0 && strstr(out, "differs from the sinusoid formula") && tu_count(out, strlen(out), "\n") == 1,
                "refused in one line: %s", out);
    expect_true(access(path, F_OK) != 0, "nothing written");
}

/* convert onto its own input: --out naming a file of the folder (or any
 * path inside it, through .. or a symlink) is refused and every file of
 * the folder is unchanged. */
static void test_convert_onto_input(void **state)
{
    (void)state;
    char dir[256], out[8192], link[256];
    path_in(dir, sizeof dir, "conv");
    path_in(link, sizeof link, "conv-link");
    assert_int_equal(tu_sh("cp -r tests/fixtures/marian/swish_f32 '%s' && ln -sfn '%s' '%s'", dir, dir, link), 0);
    const char *outs[] = {"vocab.json", "config.json", "model.safetensors", "generation_config.json", "new.st",
                          "../conv/x.st"};
    for (size_t i = 0; i < sizeof outs / sizeof *outs; i++) {
        int rc = run(out, sizeof out, "'%s' convert '%s' --out '%s/%s'", g_cli, dir, dir, outs[i]);
        expect_true(rc != 0 && strstr(out, "inside the folder") && tu_count(out, strlen(out), "\n") == 1,
                    "--out %s refused in one line: %s", outs[i], out);
    }
    int rc = run(out, sizeof out, "'%s' convert '%s' --out '%s/x.st'", g_cli, link, dir);
    expect_true(rc != 0 && strstr(out, "inside the folder"), "through a symlink: %s", out);
    rc = tu_sh("cd '%s' && for f in *; do cmp -s \"$f\" \"$OLDPWD/tests/fixtures/marian/swish_f32/$f\" || exit 1; done "
               "&& test $(ls | wc -l) = $(ls $OLDPWD/tests/fixtures/marian/swish_f32 | wc -l)", dir);
    expect_true(rc == 0, "the folder is unchanged");
    tu_sh("rm -rf '%s' '%s'", dir, link);
}

/* eval reads a TSV through the folder's tokenizer: the port's own greedy
 * texts as references are matched exactly; --task is refused. */
static void test_eval(void **state)
{
    (void)state;
    char path[256], out[4096], line[2048];
    path_in(path, sizeof path, "ref.tsv");
    FILE *in = fopen(SPMDIR "/translate.ref", "r"), *tsv = fopen(path, "w");
    assert_non_null(in);
    assert_non_null(tsv);
    while (fgets(line, sizeof line, in)) { /* text \t ids \t ids \t greedy text */
        char *f1 = strchr(line, '\t'), *f3 = strrchr(line, '\t');
        *f1 = 0;
        fprintf(tsv, "%s\t%s", line, f3 + 1);
    }
    fclose(in);
    fclose(tsv);
    int rc = run(out, sizeof out, "'%s' eval --model " SPMDIR " --data '%s'", g_cli, path);
    expect_true(rc == 0 && strstr(out, "8 pairs") && strstr(out, "exact match     100.00%"), "%s", out);
    /* the same lines as a stream: --data - */
    rc = run(out, sizeof out, "cat '%s' | '%s' eval --model " SPMDIR " --data -", path, g_cli);
    expect_true(rc == 0 && strstr(out, "8 pairs") && strstr(out, "exact match     100.00%"), "--data -: %s", out);
    rc = run(out, sizeof out, "'%s' eval --model " SPMDIR " --task en2zh", g_cli);
    expect_true(rc != 0 && strstr(out, "--data FILE.tsv") && tu_count(out, strlen(out), "\n") == 1, "%s", out);
}

/* A padded batch as the port (MarianMTModel's semantics) pads it: with the
 * model's pad_token_id (47 here, not 0 = </s>), keys masked by length. Each
 * shorter sentence of forward.ref's batch is given to `dump` with the others
 * and every row of every head (padded query rows too: their queries come
 * from the pad embedding) must be the port's, as must the logits. */
static const char *const WNAME[3] = {"enc.self.weights", "dec.self.weights", "dec.cross.weights"};
enum { V = 48 }; /* the fixtures' vocabulary */

/* The port's forward.ref (torch_ref.h's format) of a model of V tokens,
 * 4 heads and 2 + 2 layers: every weight is there. */
static void fwd_ref_read(TorchRef *r, const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/forward.ref", dir);
    const TfConfig c = {.tgt_vocab = V, .n_heads = 4};
    torch_ref_load(r, path, &c);
    expect_true(r->logits != NULL, "%s: the logits", path);
    for (int k = 0; k < 3; k++)
        for (int l = 0; l < 2; l++)
            expect_true(r->w[k][l] != NULL, "%s: %s of layer %d", path, WNAME[k], l);
}

/* "--src-ids a,b --tgt-ids c,d" for each sentence: its real tokens only */
static void batch_args(const TorchRef *r, char *buf, size_t cap)
{
    buf[0] = 0;
    for (int b = 0; b < r->B; b++) {
        const char *opt[2] = {" --src-ids ", " --tgt-ids "};
        const int *ids[2] = {r->src + b * r->S, r->tgt + b * r->T}, n[2] = {r->src_len[b], r->tgt_len[b]};
        for (int s = 0; s < 2; s++) {
            snprintf(buf + strlen(buf), cap - strlen(buf), "%s", opt[s]);
            for (int i = 0; i < n[s]; i++)
                snprintf(buf + strlen(buf), cap - strlen(buf), "%s%d", i ? "," : "", ids[s][i]);
        }
    }
}

/* dump's JSON "data" as floats into x (at most n); how many were read */
static int json_data(const char *json, float *x, int n)
{
    const char *p = strstr(json, "\"data\":");
    int k = 0;
    if (!p)
        return -1;
    for (p += 7; *p && k < n;) {
        if (*p == '[' || *p == ']' || *p == ',' || *p == ' ') {
            p++;
            continue;
        }
        char *end;
        double v = strtod(p, &end);
        if (end == p)
            break;
        x[k++] = (float)v;
        p = end;
    }
    return k;
}

static void test_padded_batch_matches_port(void **state)
{
    (void)state;
    static const char *const DIRS[] = {"tests/fixtures/marian/swish_f32", "tests/fixtures/marian/relu_f16_hub"};
    static char json[1 << 16];
    char args[1024];
    float got[64 * 48];
    for (size_t d = 0; d < sizeof DIRS / sizeof *DIRS; d++) {
        TorchRef r;
        fwd_ref_read(&r, DIRS[d]);
        batch_args(&r, args, sizeof args);
        double worst = 0;
        int checked = 0;
        for (int b = 0; b < r.B; b++) {
            if (r.src_len[b] == r.S && r.tgt_len[b] == r.T)
                continue; /* nothing padded in this sentence */
            int rc = run(json, sizeof json, "'%s' dump --model %s%s --batch-index %d --stage src.tokens --format json",
                         g_cli, DIRS[d], args, b);
            int n = json_data(json, got, 64);
            for (int i = r.src_len[b]; i < r.S; i++)
                expect_true(rc == 0 && n == r.S && got[i] == r.src[b * r.S + i],
                            "%s sentence %d position %d padded with %d (pad_token_id): %s", DIRS[d], b, i,
                            r.src[b * r.S + i], json);
            for (int k = 0; k < 3; k++)
                for (int l = 0; l < 2; l++)
                    for (int h = 0; h < 4; h += 3) { /* the first and the last head */
                        int q = k == 0 ? r.S : r.T, kk = k == 2 ? r.S : q;
                        rc = run(json, sizeof json,
                                 "'%s' dump --model %s%s --batch-index %d --stage %s --layer %d --head %d --format json",
                                 g_cli, DIRS[d], args, b, WNAME[k], l, h);
                        n = json_data(json, got, 64 * 48);
                        expect_true(rc == 0 && n == q * kk, "%s: %s: %d values, want %d", DIRS[d], WNAME[k], n, q * kk);
                        const float *want_w = r.w[k][l] + ((size_t)b * 4 + h) * q * kk;
                        for (int i = 0; rc == 0 && i < n && i < q * kk; i++) {
                            double e = fabs(got[i] - want_w[i]);
                            worst = e > worst ? e : worst;
                            expect_true(e < 1e-4, "%s sentence %d %s layer %d head %d [%d][%d]: %g, the port %g",
                                        DIRS[d], b, WNAME[k], l, h, i / kk, i % kk, got[i], want_w[i]);
                            checked++;
                        }
                    }
            rc = run(json, sizeof json, "'%s' dump --model %s%s --batch-index %d --stage out.logits --format json",
                     g_cli, DIRS[d], args, b);
            n = json_data(json, got, 64 * 48);
            expect_true(rc == 0 && n == r.T * V, "%s: logits: %d values", DIRS[d], n);
            for (int i = 0; rc == 0 && i < n && i < r.T * V; i++) {
                float want_z = r.logits[(size_t)b * r.T * V + i];
                expect_true(fabs(got[i] - want_z) <= 1e-3 * (1 + fabs(want_z)), "%s sentence %d logit [%d][%d]: %g, the port %g",
                            DIRS[d], b, i / V, i % V, got[i], want_z);
            }
        }
        printf("  %s: %d attention weights of the padded sentences (padded rows too) within %.2g of the port\n",
               DIRS[d], checked, worst);
        torch_ref_free(&r);
    }
}

int main(int argc, char **argv)
{
    TU_RUN_CLI(g_cli, argc, argv, setup, teardown, cmocka_unit_test(test_translate_matches_port),
               cmocka_unit_test(test_padded_batch_matches_port),
               cmocka_unit_test(test_target_lang), cmocka_unit_test(test_bad_sentences_and_heads), cmocka_unit_test(test_convert_tables),
               cmocka_unit_test(test_convert_onto_input),
               cmocka_unit_test(test_eval));
}
