/* test_cli_marian.c - the commands read a MarianMT folder's text through
 * its sentencepiece models: `translate` (with --target-lang) gives the
 * text tools/marian_fixture.py's port gives (MarianTokenizer's rules, the
 * port's greedy ids, target.spm's decoding), `dump` shows the pieces and
 * their ids, `heads` runs, and bad input is one line. */
#include <unistd.h>

#include "tool_util.h"

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
    rc = run(out, sizeof out, "'%s' eval --model " SPMDIR " --task en2zh", g_cli);
    expect_true(rc != 0 && strstr(out, "--data FILE.tsv") && tu_count(out, strlen(out), "\n") == 1, "%s", out);
}

int main(int argc, char **argv)
{
    TU_RUN_CLI(g_cli, argc, argv, setup, teardown, cmocka_unit_test(test_translate_matches_port),
               cmocka_unit_test(test_target_lang), cmocka_unit_test(test_bad_sentences_and_heads), cmocka_unit_test(test_convert_tables),
               cmocka_unit_test(test_eval));
}
