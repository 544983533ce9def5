/* test_cli_heads_lab.c - the heads lab on the command line, run as a child
 * process (build/stepformer with the bundled en2zh model): dump of
 * dec.lens (the last layer's is out.probs) and of the rollouts over a
 * padded batch, heads --importance as one JSON array and as a sorted table,
 * on a task and on a TSV file, heads --qk-map's JSON, activation patching in
 * dump and translate, and one-line refusals. */
#include <cJSON.h>
#include <unistd.h>

#include "test_util.h"

TU_SCRATCH_GROUP("clilab")

static char g_prog[4096];
static char g_out[1 << 21], g_err[1 << 16];

/* `stepformer ARGS`: stdout into g_out, stderr into g_err, the exit status */
static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int run(const char *fmt, ...)
{
    char errpath[256];
    path_in(errpath, sizeof errpath, "stderr.txt");
    va_list ap;
    va_start(ap, fmt);
    int rc = tu_run_prog(g_prog, errpath, g_out, sizeof g_out, g_err, sizeof g_err, fmt, ap);
    va_end(ap);
    return rc;
}

/* `stepformer dump ARGS --format json`, parsed (ARGS made as printf does) */
static cJSON *dump_json(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static cJSON *dump_json(const char *fmt, ...)
{
    char args[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    int rc = run("dump %s --format json", args);
    expect_true(rc == 0, "dump %s exited %d: %s", args, rc, g_err);
    cJSON *o = cJSON_Parse(g_out);
    expect_true(o != NULL, "dump %s prints JSON", args);
    return o;
}

/* A dump's data as one line of JSON; the dump is freed. */
static char *data_text(cJSON *dump)
{
    char *text = cJSON_PrintUnformatted(cJSON_GetObjectItem(dump, "data"));
    cJSON_Delete(dump);
    return text;
}

/* Do two dumps hold the same data, every digit? Both are freed. */
static int same_data(cJSON *a, cJSON *b)
{
    char *ta = data_text(a), *tb = data_text(b);
    int same = ta && tb && !strcmp(ta, tb);
    free(ta);
    free(tb);
    return same;
}

static void test_dump_lens_and_rollout(void **state)
{
    (void)state;
    const char *S = "--src 'i read books today' --tgt '我 今天 读 书'";
    cJSON *lens = dump_json("%s --stage dec.lens --layer 1", S);
    cJSON *probs = dump_json("%s --stage out.probs", S);
    expect_true(!strcmp(cJSON_GetObjectItem(lens, "stage")->valuestring, "dec.lens"), "named dec.lens");
    expect_true(same_data(lens, probs), "the last layer's lens is out.probs, every digit");
    /* layer 0: each row a distribution, not the output's */
    lens = dump_json("%s --stage dec.lens --layer 0", S);
    cJSON *row;
    int rows = 0;
    cJSON_ArrayForEach(row, cJSON_GetObjectItem(lens, "data"))
    {
        double sum = 0;
        cJSON *x;
        cJSON_ArrayForEach(x, row)
            sum += x->valuedouble;
        expect_true(fabs(sum - 1) < 1e-4, "row %d sums to %.6f", rows, sum);
        rows++;
    }
    expect_true(rows == 5, "<bos> + 4 tokens: %d rows", rows);
    cJSON_Delete(lens);
    /* a padded batch: the short sentence's padded keys are 0 in the rollouts */
    cJSON *r = dump_json("--src 'i read books today' --src 'i love china' --batch-index 1 --stage enc.rollout --layer 1");
    rows = 0;
    cJSON_ArrayForEach(row, cJSON_GetObjectItem(r, "data"))
    {
        expect_true(cJSON_GetArraySize(row) == 4 && cJSON_GetArrayItem(row, 3)->valuedouble == 0,
                    "row %d: 4 keys, the padded one 0", rows);
        rows++;
    }
    expect_true(rows == 4, "4 rows, got %d", rows);
    cJSON_Delete(r);
    r = dump_json("--src 'i read books today' --src 'i love china' --batch-index 1 --stage dec.cross.rollout --layer 0");
    expect_true(!strcmp(cJSON_GetObjectItem(r, "stage")->valuestring, "dec.cross.rollout"), "named");
    cJSON_Delete(r);
    expect_true(run("dump %s --stage enc.rollout --layer 2", S) == 1 && strstr(g_err, "out of range") &&
                    tu_count_lines(g_err) == 1,
                "layer 2 of 2 refused with one line: %s", g_err);
    expect_true(run("dump --help") == 0 && strstr(g_out, "dec.lens") && strstr(g_out, "enc.rollout"),
                "dump --help lists the derived stages");
}

/* --json: one array of every head with its two deltas */
static int check_array(const char *what, int want_n)
{
    cJSON *a = cJSON_Parse(g_out);
    expect_true(a && cJSON_IsArray(a), "%s: one JSON array (%.80s)", what, g_out);
    int n = cJSON_GetArraySize(a), moved = 0;
    cJSON *o;
    cJSON_ArrayForEach(o, a)
    {
        expect_true(cJSON_GetObjectItem(o, "part") && cJSON_GetObjectItem(o, "layer") &&
                        cJSON_GetObjectItem(o, "head") && cJSON_GetObjectItem(o, "delta_nll") &&
                        cJSON_GetObjectItem(o, "delta_acc"),
                    "%s: part, layer, head, delta_nll, delta_acc", what);
        moved += fabs(cJSON_GetObjectItem(o, "delta_nll")->valuedouble) > 1e-4;
    }
    expect_true(n == want_n, "%s: %d heads, want %d", what, n, want_n);
    cJSON_Delete(a);
    return moved;
}

static void test_importance(void **state)
{
    (void)state;
    int rc = run("heads --importance --pairs 30 --json");
    expect_true(rc == 0, "heads --importance exited %d: %s", rc, g_err);
    int moved = check_array("the model's task", 48);
    expect_true(moved > 0, "some head matters on en2zh (%d)", moved);
    rc = run("heads --importance --task en2zh --pairs 30");
    expect_true(rc == 0 && strstr(g_out, "delta_nll") && tu_count_lines(g_out) == 2 + 48,
                "the table: two header lines and 48 rows (%d lines)", tu_count_lines(g_out));
    /* sorted: delta_nll never grows down the table */
    double prev = 1e30;
    int sorted = 1;
    for (char *line = strchr(strchr(g_out, '\n') + 1, '\n') + 1; *line; line = strchr(line, '\n') + 1) {
        char part[16];
        int l, h;
        double dn, da;
        if (sscanf(line, "%15s %d %d %lf %lf", part, &l, &h, &dn, &da) != 5)
            break;
        sorted &= dn <= prev;
        prev = dn;
    }
    expect_true(sorted, "the table is sorted by delta_nll");
    /* a TSV file: its lines, a bad one skipped with a warning */
    char tsv[512];
    tu_write_text(g_dir, "pairs.tsv", "i love china\t我 爱 中国\nno tab here\ni read books today\t我 今天 读 书\n");
    path_in(tsv, sizeof tsv, "pairs.tsv");
    rc = run("heads --importance --data '%s' --json", tsv);
    expect_true(rc == 0 && strstr(g_err, "skipped 1"), "exit %d, the bad line named: %s", rc, g_err);
    check_array("a TSV file", 48);
    expect_true(run("heads --importance --data /nonexistent.tsv") == 1 && tu_count_lines(g_err) == 1 &&
                    strstr(g_err, "/nonexistent.tsv"),
                "a missing file: one line naming it: %s", g_err);
    expect_true(run("heads --importance --task en2zh --data '%s'", tsv) == 1 && tu_count_lines(g_err) == 1,
                "--task and --data together refused: %s", g_err);
}

static void test_qk_map(void **state)
{
    (void)state;
    int rc = run("heads --qk-map --part cross --layer 1 --head 3 --src 'i read books today' --tgt '我 今天 读 书' --json");
    expect_true(rc == 0, "qk-map exited %d: %s", rc, g_err);
    cJSON *o = cJSON_Parse(g_out);
    expect_true(o != NULL, "JSON: %.80s", g_out);
    expect_true(cJSON_GetArraySize(cJSON_GetObjectItem(o, "queries")) == 5 &&
                    cJSON_GetArraySize(cJSON_GetObjectItem(o, "keys")) == 4 &&
                    cJSON_GetArraySize(cJSON_GetObjectItem(o, "query_tokens")) == 5 &&
                    !strcmp(cJSON_GetArrayItem(cJSON_GetObjectItem(o, "key_tokens"), 2)->valuestring, "books"),
                "5 queries (<bos> + 4), 4 keys (the source)");
    cJSON *ex = cJSON_GetObjectItem(o, "explained");
    double e0 = cJSON_GetArrayItem(ex, 0)->valuedouble, e1 = cJSON_GetArrayItem(ex, 1)->valuedouble;
    expect_true(e0 >= e1 && e1 > 0 && e0 + e1 <= 1 + 1e-9, "explained %.4f %.4f", e0, e1);
    cJSON_Delete(o);
    char tsv[512];
    tu_write_text(g_dir, "map.tsv", "i love china\t我 爱 中国\ni read books today\t我 今天 读 书\n");
    path_in(tsv, sizeof tsv, "map.tsv");
    rc = run("heads --qk-map --part enc --layer 0 --head 0 --data '%s' --json", tsv);
    o = cJSON_Parse(g_out);
    expect_true(rc == 0 && o && cJSON_GetArraySize(cJSON_GetObjectItem(o, "queries")) == 7,
                "a file's points in one map: 3 + 4 queries (%s)", g_err);
    cJSON_Delete(o);
    /* --task: the task's held-out pairs, here its first two (seed 1, as the
     * model's metadata says) written out as a file: the same map */
    static char by_task[1 << 16];
    tu_write_text(g_dir, "held.tsv",
                  "you love noodles\t你 爱 面条\nthe teacher sees me in the library tonight\t老师 今晚 在 图书馆 看 我\n");
    path_in(tsv, sizeof tsv, "held.tsv");
    rc = run("heads --qk-map --part cross --layer 1 --head 2 --task en2zh --pairs 2 --json");
    snprintf(by_task, sizeof by_task, "%s", g_out);
    expect_true(rc == 0 && run("heads --qk-map --part cross --layer 1 --head 2 --data '%s' --json", tsv) == 0 &&
                    !strcmp(by_task, g_out),
                "--task en2zh --pairs 2 maps its first two held-out pairs (%s)", g_err);
    expect_true(run("heads --qk-map --layer 0 --head 0 --src 'i love china'") == 1 && tu_count_lines(g_err) == 1 &&
                    strstr(g_err, "--part"),
                "no --part: one line: %s", g_err);
    expect_true(run("heads --qk-map --part dec --layer 5 --head 0 --src 'i love china'") == 1 &&
                    strstr(g_err, "not in this model"),
                "layer 5 refused: %s", g_err);
}

/* dump --patch-from / --patch: a head patched from its own sentence changes
 * nothing; from another, that head's output is the other's; refusals. */
static void test_patch(void **state)
{
    (void)state;
    const char *S = "--src 'i read books today' --tgt '我 今天 读 书'";
    cJSON *plain = dump_json("%s --stage out.probs", S);
    cJSON *self = dump_json("%s --stage out.probs --patch-from 'i read books today' --patch cross:1:3", S);
    expect_true(same_data(plain, self), "patched from its own sentence: the same output");
    /* from another sentence: dec.cross.heads of that head are the donor's */
    cJSON *donor = dump_json("--src 'you love china' --tgt '我 今天 读 书' --stage dec.cross.heads --layer 1 --head 3");
    cJSON *patched =
        dump_json("%s --stage dec.cross.heads --layer 1 --head 3 --patch-from 'you love china' --patch cross:1:3", S);
    expect_true(same_data(donor, patched), "the patched head's output is the donor's");
    expect_true(run("dump %s --stage out.probs --patch-from 'you love china' --patch enc:0:1", S) == 1 &&
                    strstr(g_err, "same length") && tu_count_lines(g_err) == 1,
                "an encoder head from a sentence of another length: one line: %s", g_err);
    expect_true(run("dump %s --stage out.probs --patch cross:1:3", S) == 1 && strstr(g_err, "together"),
                "--patch alone refused: %s", g_err);
}

/* Is column label tok the most probable at row r of a dump of out.probs,
 * up to a tie within 1e-5? */
static int is_argmax(cJSON *dump, int r, const char *tok)
{
    cJSON *row = cJSON_GetArrayItem(cJSON_GetObjectItem(dump, "data"), r);
    cJSON *labels = cJSON_GetObjectItem(dump, "col_labels");
    double best = -1, mine = -1;
    for (int j = 0; j < cJSON_GetArraySize(row); j++) {
        double p = cJSON_GetArrayItem(row, j)->valuedouble;
        best = p > best ? p : best;
        if (!strcmp(cJSON_GetArrayItem(labels, j)->valuestring, tok))
            mine = p;
    }
    return mine >= 0 && mine >= best - 1e-5;
}

/* translate --patch-from / --patch enc:L:H: generation reads the patched
 * encoder output. On a random pre-LN model, where that head moves the
 * output: patched from its own sentence nothing changes; from another the
 * output changes, it is dump's greedy translation under the same patch,
 * and each of its tokens is the most probable one of dump's full traced
 * pass over it (the oracle: the one-position steps of generation against
 * the whole pass). A decoder-side head, another length or --patch alone
 * are refused in one line. */
static void test_translate_patch(void **state)
{
    (void)state;
    static char model[512], plain[4096], mine[4096], args[2048], words[4096];
    path_in(model, sizeof model, "pre.safetensors");
    assert_int_equal(run("init --preset classroom --norm pre --src-vocab 40 --tgt-vocab 30 --seed 3 --out %s", model), 0);
    const char *src = "t5 t6 t7 t8", *other = "t20 t21 t22 t23";
    expect_true(run("translate --model %s '%s'", model, src) == 0, "plain: %s", g_err);
    snprintf(plain, sizeof plain, "%.4000s", g_out);
    expect_true(run("translate --model %s --patch-from '%s' --patch enc:1:1 '%s'", model, src, src) == 0 &&
                    !strcmp(g_out, plain),
                "patched from its own sentence: the same output (%s)", g_err);
    expect_true(run("translate --model %s --patch-from '%s' --patch enc:1:1 '%s'", model, other, src) == 0,
                "patched: %s", g_err);
    snprintf(mine, sizeof mine, "%.4000s", g_out);
    mine[strcspn(mine, "\n")] = 0;
    expect_true(strcmp(g_out, plain) != 0, "the patch changes the output: %s", mine);
    snprintf(args, sizeof args, "--model %.500s --src '%s' --stage out.probs --patch-from '%s' --patch enc:1:1", model,
             src, other);
    cJSON *d = dump_json("%s", args);
    cJSON *rows = cJSON_GetObjectItem(d, "row_labels");
    int n = cJSON_GetArraySize(rows), ok = n > 1;
    words[0] = 0;
    for (int r = 1; r < n; r++) { /* row r reads token r: row r - 1 chose it */
        const char *tok = cJSON_GetArrayItem(rows, r)->valuestring;
        ok &= is_argmax(d, r - 1, tok);
        if (strcmp(tok, "<bos>")) /* the text leaves <bos> out */
            snprintf(words + strlen(words), sizeof words - strlen(words), "%s%s", words[0] ? " " : "", tok);
    }
    expect_true(ok, "dump's greedy translation under the patch is its own pass's argmax, row by row");
    expect_true(!strcmp(words, mine), "translate says '%s', dump's greedy translation '%s'", mine, words);
    cJSON_Delete(d);
    expect_true(run("translate --model %s --patch-from '%s' --patch cross:1:1 '%s'", model, other, src) == 1 &&
                    strstr(g_err, "encoder heads only") && tu_count_lines(g_err) == 1,
                "a cross-attention head refused in one line: %s", g_err);
    expect_true(run("translate --model %s --patch-from 't20 t21' --patch enc:1:1 '%s'", model, src) == 1 &&
                    strstr(g_err, "same length") && tu_count_lines(g_err) == 1,
                "a donor of another length: one line: %s", g_err);
    expect_true(run("translate --model %s --patch enc:1:1 '%s'", model, src) == 1 && strstr(g_err, "together"),
                "--patch alone refused: %s", g_err);
}

int main(int argc, char **argv)
{
    tu_program_path(g_prog, sizeof g_prog, argc > 0 ? argv[0] : NULL);
    TU_RUN(setup, teardown, cmocka_unit_test(test_dump_lens_and_rollout), cmocka_unit_test(test_importance),
           cmocka_unit_test(test_qk_map), cmocka_unit_test(test_patch),
           cmocka_unit_test(test_translate_patch));
}
