/* test_tasks.c - the built-in tasks and the TSV loader (core/data/tasks*.c, dataset.c, tsv.c).
 *
 * Run from the repository root (the TSV fixtures are read from
 * tests/fixtures/tsv/). Checks: determinism from the seed, disjoint and
 * distinct train/held-out splits, correct targets for copy/reverse/sort, the
 * en2zh grammar (showcase pairs, lexicon coverage, reordering rules), and the
 * loader on good, bad, empty, missing, binary, CRLF and very long input. */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_util.h"
#include "tasks.h"

#define FIX "tests/fixtures/tsv/"

/* ---- helpers ---------------------------------------------------------- */

/* Decode one side of pair i as text. */
static const char *side_text(const Dataset *d, int i, int tgt, char *buf,
                             size_t cap)
{
    const Pair *p = &d->pairs[i];
    int off = tgt ? p->tgt_off : p->src_off, n = tgt ? p->tgt_len : p->src_len;
    int *ids = malloc((size_t)(n ? n : 1) * sizeof *ids);
    for (int k = 0; k < n; k++)
        ids[k] = d->ids[off + k];
    vocab_decode(tgt ? &d->tgt : &d->src, ids, n, buf, cap);
    free(ids);
    return buf;
}

static int find_pair(const Dataset *d, const char *src)
{
    char buf[512];
    for (int i = 0; i < d->n_pairs; i++)
        if (strcmp(side_text(d, i, 0, buf, sizeof buf), src) == 0)
            return i;
    return -1;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every source sentence occurs once in the whole data set (so train and
 * held-out are disjoint too), and both splits are non-empty. */
static void check_distinct(const Dataset *d)
{
    expect_true(d->n_train > 0 && d->n_train < d->n_pairs,
                "train %d of %d pairs, want both splits non-empty", d->n_train,
                d->n_pairs);
    char **s = malloc((size_t)d->n_pairs * sizeof *s);
    for (int i = 0; i < d->n_pairs; i++) {
        char buf[1024];
        s[i] = strdup(side_text(d, i, 0, buf, sizeof buf));
    }
    qsort(s, (size_t)d->n_pairs, sizeof *s, cmp_str);
    int dups = 0;
    for (int i = 1; i < d->n_pairs; i++)
        if (strcmp(s[i - 1], s[i]) == 0 && dups++ == 0)
            printf("  repeated source: \"%s\"\n", s[i]);
    for (int i = 0; i < d->n_pairs; i++)
        free(s[i]);
    free(s);
    expect_true(dups == 0, "%d repeated source sentences, want 0", dups);
}

static void check_same(const Dataset *a, const Dataset *b)
{
    expect_true(a->n_pairs == b->n_pairs && a->n_train == b->n_train &&
                    a->n_ids == b->n_ids,
                "pairs %d/%d train %d/%d ids %zu/%zu, want equal", a->n_pairs,
                b->n_pairs, a->n_train, b->n_train, a->n_ids, b->n_ids);
    expect_true(memcmp(a->pairs, b->pairs, (size_t)a->n_pairs * sizeof(Pair)) == 0,
                "%s", "identical pair tables");
    expect_true(memcmp(a->ids, b->ids, a->n_ids * sizeof(int32_t)) == 0, "%s",
                "identical token pools");
    expect_true(a->src.n == b->src.n && a->tgt.n == b->tgt.n,
                "vocab sizes %d/%d %d/%d", a->src.n, b->src.n, a->tgt.n, b->tgt.n);
    for (int i = 0; i < a->src.n; i++)
        expect_true(strcmp(a->src.tok[i], b->src.tok[i]) == 0,
                    "src token %d \"%s\" vs \"%s\"", i, a->src.tok[i], b->src.tok[i]);
    for (int i = 0; i < a->tgt.n; i++)
        expect_true(strcmp(a->tgt.tok[i], b->tgt.tok[i]) == 0,
                    "tgt token %d \"%s\" vs \"%s\"", i, a->tgt.tok[i], b->tgt.tok[i]);
}

static int differs(const Dataset *a, const Dataset *b)
{
    return a->n_pairs != b->n_pairs || a->n_ids != b->n_ids ||
           memcmp(a->ids, b->ids, a->n_ids * sizeof(int32_t)) != 0 ||
           memcmp(a->pairs, b->pairs, (size_t)a->n_pairs * sizeof(Pair)) != 0;
}

static void build_ok(Dataset *d, const char *name, const TaskOpts *o)
{
    TfErr err = {{0}};
    int rc = task_build(d, name, o, &err);
    expect_true(rc == 0, "task_build(%s) = %d: %s", name, rc, err.msg);
}

/* ---- task table -------------------------------------------------------- */

static void test_names(void **state)
{
    (void)state;
    int n = 0;
    const char *const *names = task_names(&n);
    const char *want[] = {"copy", "reverse", "sort", "en2zh"};
    expect_true(n == 4, "4 task names, got %d", n);
    for (int i = 0; i < 4; i++) {
        expect_true(strcmp(names[i], want[i]) == 0, "name %d \"%s\", got \"%s\"",
                    i, want[i], names[i]);
        expect_true(strlen(task_describe(names[i])) > 10, "a description of %s",
                    names[i]);
    }
    expect_true(strcmp(task_describe("nope"), "") == 0, "%s", "\"\" for an unknown task");

    Dataset d;
    TfErr err = {{0}};
    int rc = task_build(&d, "nope", NULL, &err);
    expect_true(rc == -1, "unknown task fails, got %d", rc);
    expect_true(strstr(err.msg, "nope") && strstr(err.msg, "copy") &&
                    strstr(err.msg, "en2zh"),
                "message names the task and the known ones, got \"%s\"", err.msg);
    dataset_free(&d);
    TaskOpts big = {.max_len = TASK_MAX_MAX_LEN + 1};
    rc = task_build(&d, "copy", &big, &err);
    expect_true(rc == -1 && strstr(err.msg, "max_len"),
                "max_len too large is an error, got %d \"%s\"", rc, err.msg);
    dataset_free(&d);
}

/* ---- copy / reverse / sort -------------------------------------------- */

static void expected_target(const char *task, const char *src, char *out)
{
    size_t n = strlen(src);
    for (size_t i = 0; i < n; i++)
        out[i] = strcmp(task, "reverse") == 0 ? src[n - 1 - i] : src[i];
    out[n] = 0;
    if (strcmp(task, "sort") == 0) /* insertion sort, the slow obvious way */
        for (size_t i = 1; i < n; i++)
            for (size_t j = i; j > 0 && out[j - 1] > out[j]; j--) {
                char t = out[j]; out[j] = out[j - 1]; out[j - 1] = t;
            }
}

static void check_char_task(const char *task, int max_len)
{
    Dataset d;
    TaskOpts o = {.max_len = max_len, .seed = 7};
    build_ok(&d, task, &o);
    int ml = max_len ? max_len : TASK_DEFAULT_MAX_LEN;
    printf("  %s max_len %d: %d pairs, %d train\n", task, ml, d.n_pairs, d.n_train);
    expect_true(strcmp(d.name, task) == 0, "name %s, got %s", task, d.name);
    expect_true(d.src.n == 30 && d.tgt.n == 30, "30 tokens each side, got %d %d",
                d.src.n, d.tgt.n);
    for (int i = 0; i < 26; i++) {
        char c[2] = {(char)('a' + i), 0};
        expect_true(strcmp(d.src.tok[4 + i], c) == 0 &&
                        strcmp(d.tgt.tok[4 + i], c) == 0,
                    "id %d is \"%s\" on both sides, got \"%s\" \"%s\"", 4 + i, c,
                    d.src.tok[4 + i], d.tgt.tok[4 + i]);
    }
    check_distinct(&d);
    int train_len[TASK_MAX_MAX_LEN + 1] = {0}, held_len[TASK_MAX_MAX_LEN + 1] = {0};
    int wrong = 0;
    for (int i = 0; i < d.n_pairs; i++) {
        char s[512], t[512], want[512];
        side_text(&d, i, 0, s, sizeof s);
        side_text(&d, i, 1, t, sizeof t);
        expected_target(task, s, want);
        if (strcmp(t, want) != 0 && wrong++ < 3)
            printf("  %s(\"%s\") = \"%s\", want \"%s\"\n", task, s, t, want);
        const Pair *p = &d.pairs[i];
        expect_true(p->src_len >= 1 && p->src_len <= ml && p->tgt_len == p->src_len,
                    "lengths 1..%d, got %d -> %d", ml, p->src_len, p->tgt_len);
        (i < d.n_train ? train_len : held_len)[p->src_len]++;
    }
    expect_true(wrong == 0, "every target correct, %d wrong", wrong);
    expect_true(d.max_src == ml && d.max_tgt == ml, "max lengths %d, got %d %d",
                ml, d.max_src, d.max_tgt);
    for (int len = 1; len <= ml; len++) {
        expect_true(train_len[len] > 0, "length %d in train, got %d", len,
                    train_len[len]);
        expect_true(held_len[len] > 0, "length %d in held-out, got %d", len,
                    held_len[len]);
    }
    /* length 1 has only 26 strings: some held out, never all */
    expect_true(held_len[1] >= 1 && held_len[1] <= 5 && train_len[1] >= 21,
                "length 1: a few of 26 held out, got train %d held %d",
                train_len[1], held_len[1]);
    dataset_free(&d);
}

static void test_char_tasks(void **state)
{
    (void)state;
    check_char_task("copy", 0);
    check_char_task("reverse", 0);
    check_char_task("sort", 0);
    check_char_task("reverse", 3);
    check_char_task("sort", 20);

    Dataset d;
    build_ok(&d, "copy", NULL);
    expect_true(d.n_train >= 15000 && d.n_train <= TASK_CHAR_TRAIN,
                "about 20k training pairs by default, got %d", d.n_train);
    int held = d.n_pairs - d.n_train;
    expect_true(held >= 400 && held <= 600, "about 500 held out, got %d", held);
    dataset_free(&d);

    TaskOpts o = {.max_len = 1, .seed = 3};
    build_ok(&d, "reverse", &o);
    expect_true(d.n_pairs == 26 && d.n_train >= 21 && d.n_train < 26,
                "max_len 1: all 26 letters, a few held out; got %d pairs %d train",
                d.n_pairs, d.n_train);
    dataset_free(&d);
}

static void test_determinism(void **state)
{
    (void)state;
    const char *tasks[] = {"copy", "reverse", "sort", "en2zh"};
    for (int t = 0; t < 4; t++) {
        Dataset a, b, c;
        TaskOpts o = {.seed = 42}, o2 = {.seed = 43};
        build_ok(&a, tasks[t], &o);
        build_ok(&b, tasks[t], &o);
        build_ok(&c, tasks[t], &o2);
        check_same(&a, &b);
        expect_true(differs(&a, &c), "seeds 42 and 43 give different %s data",
                    tasks[t]);
        dataset_free(&a);
        dataset_free(&b);
        dataset_free(&c);
    }
    /* a pair drawn from seed 42 is the same pair on every machine */
    Dataset d;
    TaskOpts o = {.seed = 42};
    build_ok(&d, "en2zh", &o);
    check_distinct(&d);
    dataset_free(&d);
}

static void test_heldout_option(void **state)
{
    (void)state;
    Dataset d;
    TaskOpts o = {.seed = 1, .n_heldout = 100};
    build_ok(&d, "reverse", &o);
    expect_true(d.n_pairs - d.n_train == 100, "100 held out, got %d",
                d.n_pairs - d.n_train);
    dataset_free(&d);
    build_ok(&d, "en2zh", &o);
    int held = d.n_pairs - d.n_train;
    expect_true(held >= 95 && held <= 110, "about 100 held out, got %d", held);
    dataset_free(&d);
    TfErr err = {{0}};
    o.n_heldout = -1;
    expect_true(task_build(&d, "copy", &o, &err) == -1, "%s", "negative n_heldout fails");
    dataset_free(&d);
    o.n_heldout = TASK_MAX_HELDOUT + 1;
    expect_true(task_build(&d, "copy", &o, &err) == -1 && strstr(err.msg, "n_heldout"),
                "huge n_heldout fails, got \"%s\"", err.msg);
    dataset_free(&d);
}

/* ---- en2zh ------------------------------------------------------------- */

static const char *const SHOWCASE[][2] = {
    {"i love china", "我 爱 中国"},
    {"i read books today", "我 今天 读 书"},
    {"do you like tea ?", "你 喜欢 茶 吗 ？"},
    {"i read books at home today", "我 今天 在 家 读 书"},
    {"does she read books today ?", "她 今天 读 书 吗 ？"},
    {"he does not eat apples", "他 不 吃 苹果"},
    {"i do not like coffee", "我 不 喜欢 咖啡"},
    {"we drink tea every day", "我们 每天 喝 茶"},
    {"she loves you", "她 爱 你"},
    {"the teacher reads new books in the library", "老师 在 图书馆 读 新 书"},
    {"what do you eat tonight ?", "你 今晚 吃 什么 ？"},
    {"where does he read newspapers ?", "他 在 哪里 读 报纸 ？"},
    {"they like red apples very much", "他们 很 喜欢 红 苹果"},
    {"do you like music very much ?", "你 很 喜欢 音乐 吗 ？"},
    {"she eats rice and noodles", "她 吃 米饭 和 面条"},
};

static void test_en2zh_showcase(void **state)
{
    (void)state;
    Dataset d;
    TaskOpts o = {.seed = 1};
    build_ok(&d, "en2zh", &o);
    printf("  en2zh: %d pairs (%d train), max lengths %d / %d, vocab %d / %d\n",
           d.n_pairs, d.n_train, d.max_src, d.max_tgt, d.src.n, d.tgt.n);
    expect_true(d.n_pairs >= 2000, ">= 2000 pairs, got %d", d.n_pairs);
    expect_true(d.max_src <= 12 && d.max_tgt <= 12, "<= 12 tokens, got %d / %d",
                d.max_src, d.max_tgt);
    expect_true(d.src.lower == 1 && d.src.mode == TOK_WORD && d.tgt.mode == TOK_WORD,
                "word level, lowercased source; got lower %d modes %d %d",
                d.src.lower, d.src.mode, d.tgt.mode);
    int held = d.n_pairs - d.n_train;
    expect_true(held >= 450 && held <= 550, "about 500 held out, got %d", held);
    for (size_t i = 0; i < sizeof SHOWCASE / sizeof SHOWCASE[0]; i++) {
        int at = find_pair(&d, SHOWCASE[i][0]);
        char t[256];
        expect_true(at >= 0, "\"%s\" present", SHOWCASE[i][0]);
        expect_true(at < d.n_train, "\"%s\" in train, at %d of %d train",
                    SHOWCASE[i][0], at, d.n_train);
        side_text(&d, at, 1, t, sizeof t);
        expect_true(strcmp(t, SHOWCASE[i][1]) == 0, "\"%s\" -> \"%s\", got \"%s\"",
                    SHOWCASE[i][0], SHOWCASE[i][1], t);
        /* and dataset_find, with the capitals a user might type */
        char typed[256], out[256];
        snprintf(typed, sizeof typed, "%s", SHOWCASE[i][0]);
        typed[0] = (char)(typed[0] - 32);
        expect_true(dataset_find(&d, typed, out, sizeof out) == 1 &&
                        strcmp(out, SHOWCASE[i][1]) == 0,
                    "dataset_find(\"%s\") -> \"%s\", got \"%s\"", typed,
                    SHOWCASE[i][1], out);
    }
    char out[64] = "x";
    expect_true(dataset_find(&d, "i love pizza", out, sizeof out) == 0 && !out[0],
                "unknown sentence not found, got \"%s\"", out);
    expect_true(dataset_find(&d, "\xff", out, sizeof out) == 0, "%s",
                "invalid UTF-8 not found");
    expect_true(dataset_find(&d, "", out, sizeof out) == 0, "%s", "empty not found");
    dataset_free(&d);
}

/* How many training pairs contain the (multi-)word w on the given side. */
static int train_count(const Dataset *d, int tgt, const char *w)
{
    char pad[64];
    snprintf(pad, sizeof pad, " %s ", w);
    int c = 0;
    for (int i = 0; i < d->n_train; i++) {
        char buf[512], line[520];
        snprintf(line, sizeof line, " %s ", side_text(d, i, tgt, buf, sizeof buf));
        c += strstr(line, pad) != NULL;
    }
    return c;
}

static void test_en2zh_lexicon(void **state)
{
    (void)state;
    static const char *const LEX[][2] = {
        {"i", "我"}, {"you", "你"}, {"he", "他"}, {"she", "她"}, {"we", "我们"},
        {"they", "他们"}, {"love", "爱"}, {"loves", "爱"}, {"like", "喜欢"},
        {"likes", "喜欢"}, {"read", "读"}, {"reads", "读"}, {"eat", "吃"},
        {"eats", "吃"}, {"drink", "喝"}, {"drinks", "喝"}, {"see", "看"},
        {"sees", "看"}, {"china", "中国"}, {"books", "书"}, {"apples", "苹果"},
        {"tea", "茶"}, {"movies", "电影"}, {"today", "今天"},
        {"tomorrow", "明天"}, {"new books", "新 书"}, {"red apples", "红 苹果"},
        {"at home", "在 家"}, {"at school", "在 学校"}, {"every day", "每天"},
        {"not", "不"}, {"?", "？"},
    };
    Dataset d;
    TaskOpts o = {.seed = 5};
    build_ok(&d, "en2zh", &o);
    for (size_t i = 0; i < sizeof LEX / sizeof LEX[0]; i++) {
        int e = train_count(&d, 0, LEX[i][0]), z = train_count(&d, 1, LEX[i][1]);
        expect_true(e > 0 && z > 0, "\"%s\"/\"%s\" in train, got %d/%d pairs",
                    LEX[i][0], LEX[i][1], e, z);
    }
    /* every vocabulary token is used by some training pair */
    for (int side = 0; side < 2; side++) {
        const Vocab *v = side ? &d.tgt : &d.src;
        int *seen = calloc((size_t)v->n, sizeof *seen);
        for (int i = 0; i < d.n_train; i++) {
            const Pair *p = &d.pairs[i];
            int off = side ? p->tgt_off : p->src_off;
            int n = side ? p->tgt_len : p->src_len;
            for (int k = 0; k < n; k++)
                seen[d.ids[off + k]]++;
        }
        for (int id = TOK_NSPECIAL; id < v->n; id++)
            expect_true(seen[id] > 0, "token \"%s\" used in train", v->tok[id]);
        for (int id = 0; id < TOK_NSPECIAL; id++)
            expect_true(seen[id] == 0, "special %d never in the pool, got %d", id,
                        seen[id]);
        free(seen);
    }
    dataset_free(&d);
}

static int word_index(char **w, int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (strcmp(w[i], s) == 0)
            return i;
    return -1;
}

static int split_words(char *s, char **w, int max)
{
    int n = 0;
    for (char *t = strtok(s, " "); t && n < max; t = strtok(NULL, " "))
        w[n++] = t;
    return n;
}

/* The grammar's rules, checked on every pair of the data set. */
static void check_rules(const char *en_text, const char *zh_text)
{
    char eb[512], zb[512];
    char *e[32], *z[32];
    snprintf(eb, sizeof eb, "%s", en_text);
    snprintf(zb, sizeof zb, "%s", zh_text);
    int ne = split_words(eb, e, 32), nz = split_words(zb, z, 32);
    int q = strcmp(e[ne - 1], "?") == 0;
    expect_true(q == (strcmp(z[nz - 1], "？") == 0),
                "\"%s\" -> \"%s\": questions end in ？", en_text, zh_text);
    expect_true((word_index(e, ne, "not") >= 0) == (word_index(z, nz, "不") >= 0),
                "\"%s\" -> \"%s\": not <-> 不", en_text, zh_text);
    expect_true((word_index(e, ne, "what") == 0) == (word_index(z, nz, "什么") >= 0),
                "\"%s\" -> \"%s\": what <-> 什么", en_text, zh_text);
    expect_true((word_index(e, ne, "where") == 0) == (word_index(z, nz, "哪里") >= 0),
                "\"%s\" -> \"%s\": where <-> 在 哪里", en_text, zh_text);
    expect_true((word_index(e, ne, "much") >= 0) == (word_index(z, nz, "很") >= 0),
                "\"%s\" -> \"%s\": very much <-> 很", en_text, zh_text);
    int yesno = q && (strcmp(e[0], "do") == 0 || strcmp(e[0], "does") == 0);
    expect_true(yesno == (word_index(z, nz, "吗") >= 0),
                "\"%s\" -> \"%s\": yes/no question <-> 吗", en_text, zh_text);
    expect_true(!q || (strcmp(e[1], "i") != 0 && strcmp(e[2], "i") != 0),
                "\"%s\": no question about i", en_text);
    /* the time word comes right after the subject (the first Chinese word) */
    static const char *const TIMES[] = {"今天", "明天", "今晚", "每天", "早上"};
    for (int t = 0; t < 5; t++) {
        int at = word_index(z, nz, TIMES[t]);
        expect_true(at < 0 || at == 1, "\"%s\" -> \"%s\": %s second", en_text,
                    zh_text, TIMES[t]);
    }
    /* English: a time phrase is last (before "?"); Chinese: it never is */
    /* 3rd person: "he/she/the teacher" + action verb takes -s or "does" */
    int third = strcmp(e[0], "he") == 0 || strcmp(e[0], "she") == 0 ||
                (strcmp(e[0], "the") == 0 && strcmp(e[1], "teacher") == 0);
    int v = strcmp(e[0], "the") == 0 ? 2 : 1;
    if (third && !q)
        expect_true(strcmp(e[v], "does") == 0 || e[v][strlen(e[v]) - 1] == 's',
                    "\"%s\": 3rd person verb \"%s\" ends in -s", en_text, e[v]);
    int plural = !third && !q && strcmp(e[0], "what") && strcmp(e[0], "where");
    if (plural)
        expect_true(strcmp(e[v], "does") != 0, "\"%s\": do, not does", en_text);
    /* love and like take no time or place */
    int stative = word_index(e, ne, "love") >= 0 || word_index(e, ne, "loves") >= 0 ||
                  word_index(e, ne, "like") >= 0 || word_index(e, ne, "likes") >= 0;
    if (stative)
        expect_true(word_index(z, nz, "在") < 0 && (nz < 2 ||
                    (strcmp(z[1], "今天") && strcmp(z[1], "明天") &&
                     strcmp(z[1], "每天") && strcmp(z[1], "今晚") &&
                     strcmp(z[1], "早上"))),
                    "\"%s\" -> \"%s\": love/like without time or place", en_text,
                    zh_text);
}

static void test_en2zh_rules(void **state)
{
    (void)state;
    Dataset d;
    TaskOpts o = {.seed = 11};
    build_ok(&d, "en2zh", &o);
    int kinds[8] = {0}, held_kinds[8] = {0};
    for (int i = 0; i < d.n_pairs; i++) {
        char e[512], z[512];
        side_text(&d, i, 0, e, sizeof e);
        side_text(&d, i, 1, z, sizeof z);
        check_rules(e, z);
        /* construction, told apart by its English markers */
        int k = strncmp(e, "what ", 5) == 0    ? 0
                : strncmp(e, "where ", 6) == 0 ? 1
                : strstr(e, " very much ?")    ? 2
                : strstr(e, " very much")      ? 3
                : strstr(e, " ?")              ? 4
                : strstr(e, " not ")           ? 5
                : strstr(e, " and ")           ? 6
                                               : 7;
        kinds[k]++;
        held_kinds[k] += i >= d.n_train;
    }
    static const char *const KN[8] = {"what", "where", "very much ?", "very much",
                                      "yes/no", "negation", "and", "statement"};
    for (int k = 0; k < 8; k++) {
        printf("  %-12s %5d pairs, %3d held out\n", KN[k], kinds[k], held_kinds[k]);
        expect_true(kinds[k] >= 100 && held_kinds[k] >= 1 && held_kinds[k] < kinds[k],
                    "construction %s in both splits, got %d / %d held", KN[k],
                    kinds[k], held_kinds[k]);
    }
    dataset_free(&d);
}

/* ---- TSV loader -------------------------------------------------------- */

/* Warnings sent to the log hook: all counted, the first 64 kept. */
typedef struct LogCap {
    int n;
    char msg[64][256];
} LogCap;

static void log_capture(int level, const char *msg, void *user)
{
    LogCap *c = user;
    if (level != TF_LOG_WARN)
        return;
    if (c->n < 64)
        snprintf(c->msg[c->n], sizeof c->msg[0], "%s", msg);
    c->n++;
}

static int logged(const LogCap *c, const char *prefix)
{
    for (int i = 0; i < c->n && i < 64; i++)
        if (strncmp(c->msg[i], prefix, strlen(prefix)) == 0)
            return 1;
    return 0;
}

static void test_tsv_good(void **state)
{
    (void)state;
    Dataset d;
    TfErr err = {{0}};
    int bad = -1;
    int rc = tsv_load(&d, FIX "good.tsv", TOK_WORD, TOK_WORD, 0, 1, &bad, &err);
    expect_true(rc == 0, "good.tsv loads, got %d: %s", rc, err.msg);
    expect_true(d.n_pairs == 20 && bad == 0, "20 pairs 0 bad, got %d %d", d.n_pairs,
                bad);
    expect_true(d.n_pairs - d.n_train == 2, "10%% = 2 held out, got %d",
                d.n_pairs - d.n_train);
    expect_true(strcmp(d.name, "good") == 0, "name \"good\", got \"%s\"", d.name);
    /* vocabularies in order of first appearance */
    const char *src0[] = {"hello", "world", "i", "love", "china", "the"};
    const char *tgt0[] = {"bonjour", "le", "monde", "j'aime", "la", "chine"};
    for (int i = 0; i < 6; i++) {
        expect_true(strcmp(vocab_token(&d.src, 4 + i), src0[i]) == 0,
                    "src id %d \"%s\", got \"%s\"", 4 + i, src0[i],
                    vocab_token(&d.src, 4 + i));
        expect_true(strcmp(vocab_token(&d.tgt, 4 + i), tgt0[i]) == 0,
                    "tgt id %d \"%s\", got \"%s\"", 4 + i, tgt0[i],
                    vocab_token(&d.tgt, 4 + i));
    }
    char out[128];
    expect_true(dataset_find(&d, "where is the station ?", out, sizeof out) &&
                    strcmp(out, "où est la gare ?") == 0,
                "lookup gives \"où est la gare ?\", got \"%s\"", out);
    expect_true(d.max_src == 5 && d.max_tgt == 5, "max 5/5, got %d/%d", d.max_src,
                d.max_tgt);
    check_distinct(&d);
    /* both splits keep file order */
    char a[128], b[128];
    for (int i = 1; i < d.n_train; i++)
        expect_true(d.pairs[i].src_off > d.pairs[i - 1].src_off,
                    "train in file order at %d (\"%s\" after \"%s\")", i,
                    side_text(&d, i, 0, a, sizeof a),
                    side_text(&d, i - 1, 0, b, sizeof b));

    /* the same file character-level on the target side */
    Dataset c;
    rc = tsv_load(&c, FIX "good.tsv", TOK_WORD, TOK_CHAR, 0, 1, &bad, &err);
    expect_true(rc == 0 && c.tgt.mode == TOK_CHAR, "char target loads: %s", err.msg);
    expect_true(c.n_pairs == 20 && c.max_tgt == 24,
                "20 pairs, longest target \"nous mangeons des pommes\" of 24 "
                "characters; got %d pairs, max %d", c.n_pairs, c.max_tgt);
    expect_true(dataset_find(&c, "good morning", out, sizeof out) &&
                    strcmp(out, "bonjour") == 0,
                "char target decodes \"bonjour\", got \"%s\"", out);
    dataset_free(&c);

    /* split determinism: same seed same split, some seed differs */
    Dataset e;
    tsv_load(&e, FIX "good.tsv", TOK_WORD, TOK_WORD, 0, 1, NULL, &err);
    check_same(&d, &e);
    int any_diff = 0;
    for (uint64_t s = 2; s < 10 && !any_diff; s++) {
        Dataset f;
        tsv_load(&f, FIX "good.tsv", TOK_WORD, TOK_WORD, 0, s, NULL, &err);
        any_diff = differs(&d, &f);
        dataset_free(&f);
    }
    expect_true(any_diff, "%s", "some other seed holds out other pairs");
    dataset_free(&e);
    dataset_free(&d);
}

static void test_tsv_crlf(void **state)
{
    (void)state;
    Dataset a, b;
    TfErr err = {{0}};
    int bad = -1;
    int rc = tsv_load(&a, FIX "good.tsv", TOK_WORD, TOK_CHAR, 0, 9, NULL, &err);
    expect_true(rc == 0, "good.tsv: %s", err.msg);
    rc = tsv_load(&b, FIX "good_crlf.tsv", TOK_WORD, TOK_CHAR, 0, 9, &bad, &err);
    expect_true(rc == 0 && bad == 0, "good_crlf.tsv loads with 0 bad, got %d %d: %s",
                rc, bad, err.msg);
    check_same(&a, &b);
    expect_true(vocab_find(&b.tgt, "\r", 1) < 0 && vocab_find(&b.src, "\r", 1) < 0,
                "%s", "no \\r token");
    dataset_free(&a);
    dataset_free(&b);
}

static void test_tsv_bad_lines(void **state)
{
    (void)state;
    LogCap cap = {0};
    tf_set_log(log_capture, &cap);
    Dataset d;
    TfErr err = {{0}};
    int bad = -1;
    int rc = tsv_load(&d, FIX "bad_lines.tsv", TOK_WORD, TOK_WORD, 8, 1, &bad, &err);
    tf_set_log(NULL, NULL);
    expect_true(rc == 0, "loads the good lines, got %d: %s", rc, err.msg);
    for (int i = 0; i < cap.n; i++)
        printf("  log: %s\n", cap.msg[i]);
    expect_true(bad == 10, "10 bad lines, got %d", bad);
    expect_true(d.n_pairs == 3, "3 good pairs, got %d", d.n_pairs);
    expect_true(cap.n == 11, "10 bad lines + 1 repeat logged, got %d", cap.n);
    /* each bad line is reported with its number and reason */
    static const struct { int line; const char *reason; } BAD[] = {
        {3, "no tab"},          {4, "more than one tab"},
        {5, "empty source"},    {6, "empty target"},
        {7, "invalid UTF-8"},   {8, "source has 9 tokens"},
        {9, "target has 9 tokens"}, {10, "longer than 255 bytes"},
        {13, "<eos> is a reserved token"}, {14, "invalid UTF-8"},
    };
    for (int i = 0; i < 10; i++) {
        char want[96];
        snprintf(want, sizeof want, FIX "bad_lines.tsv:%d: ", BAD[i].line);
        int at = -1;
        for (int k = 0; k < cap.n && k < 64; k++)
            if (strncmp(cap.msg[k], want, strlen(want)) == 0)
                at = k;
        expect_true(at >= 0, "a warning starting \"%s\"", want);
        expect_true(strstr(cap.msg[at], BAD[i].reason) != NULL,
                    "line %d: \"%s\", got \"%s\"", BAD[i].line, BAD[i].reason,
                    cap.msg[at]);
    }
    expect_true(logged(&cap, FIX "bad_lines.tsv:11: source repeats line 2"),
                "%s", "the repeat of line 2 is logged");
    char out[128];
    expect_true(dataset_find(&d, "i love china", out, sizeof out) &&
                    strcmp(out, "我 爱 中国") == 0,
                "first translation kept, got \"%s\"", out);
    expect_true(dataset_find(&d, "you like tea ?", out, sizeof out) &&
                    strcmp(out, "你 喜欢 茶 吗 ？") == 0,
                "line 12 survives, got \"%s\"", out);
    expect_true(dataset_find(&d, "we read books", out, sizeof out) &&
                    strcmp(out, "我们 读 书") == 0,
                "last line without newline survives, got \"%s\"", out);
    expect_true(vocab_find(&d.src, "no", 2) < 0 && vocab_find(&d.src, "short", 5) < 0,
                "%s", "bad lines add no tokens");
    expect_true(d.n_pairs - d.n_train == 1, "1 of 3 held out, got %d",
                d.n_pairs - d.n_train);
    dataset_free(&d);

    /* without a length limit lines 8 and 9 are fine */
    rc = tsv_load(&d, FIX "bad_lines.tsv", TOK_WORD, TOK_WORD, 0, 1, &bad, &err);
    expect_true(rc == 0 && bad == 8 && d.n_pairs == 5,
                "max_len 0: 8 bad, 5 pairs; got %d %d %d", rc, bad, d.n_pairs);
    dataset_free(&d);
}

static void expect_load_error(const char *path, const char *want_in_msg)
{
    Dataset d;
    TfErr err = {{0}};
    int bad = -1;
    int rc = tsv_load(&d, path, TOK_WORD, TOK_WORD, 0, 1, &bad, &err);
    expect_true(rc == -1, "%s fails, got %d", path, rc);
    expect_true(strstr(err.msg, path) && strstr(err.msg, want_in_msg),
                "message names %s and says \"%s\", got \"%s\"", path, want_in_msg,
                err.msg);
    expect_true(d.n_pairs == 0 && d.ids == NULL && d.src.n == 0,
                "%s", "dataset left empty");
    dataset_free(&d);
}

static void test_tsv_errors(void **state)
{
    (void)state;
    expect_load_error(FIX "does_not_exist.tsv", "cannot open");
    expect_load_error(FIX "no_usable.tsv", "no usable");
    expect_load_error("tests/fixtures/tsv", "folder"); /* refused, not read */
    Dataset d;
    TfErr err = {{0}};
    int bad = -1;
    tsv_load(&d, FIX "no_usable.tsv", TOK_CHAR, TOK_CHAR, 0, 1, &bad, &err);
    expect_true(bad == 2, "no_usable.tsv has 2 bad lines, got %d", bad);
    dataset_free(&d);

    int rc = tsv_load(&d, FIX "one_pair.tsv", TOK_WORD, TOK_WORD, 0, 1, &bad, &err);
    expect_true(rc == 0 && d.n_pairs == 1 && d.n_train == 1,
                "one pair: loaded, in train; got %d %d %d", rc, d.n_pairs, d.n_train);
    dataset_free(&d);
}

/* Write n bytes to a fresh temporary file; returns its path (static). */
static const char *temp_file(const void *data, size_t n)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/test_tasks_XXXXXX");
    int fd = mkstemp(path);
    expect_true(fd >= 0, "%s", "a temporary file");
    FILE *f = fdopen(fd, "wb");
    expect_true(fwrite(data, 1, n, f) == n, "%s", "written");
    fclose(f);
    return path;
}

static void test_tsv_garbage(void **state)
{
    (void)state;
    /* random bytes, NULs included: "not a text file" */
    size_t n = 1 << 16;
    unsigned char *buf = malloc(n);
    uint32_t x = 12345;
    for (size_t i = 0; i < n; i++) {
        x = x * 1664525u + 1013904223u;
        buf[i] = (unsigned char)(x >> 24);
    }
    const char *p = temp_file(buf, n);
    expect_load_error(p, "NUL");
    unlink(p);
    /* random bytes without NULs: every line is bad, so no usable line */
    for (size_t i = 0; i < n; i++)
        if (!buf[i])
            buf[i] = 0xff;
    p = temp_file(buf, n);
    LogCap cap = {0};
    tf_set_log(log_capture, &cap);
    expect_load_error(p, "no usable");
    tf_set_log(NULL, NULL);
    /* 100 bad lines one by one, "more bad lines", "N bad lines in all" */
    expect_true(cap.n == 102, "102 warnings (capped), got %d", cap.n);
    unlink(p);
    free(buf);
}

static void test_tsv_long_lines(void **state)
{
    (void)state;
    /* a 2 MB line of short words, a 1 MB single word, then a normal line */
    size_t words = 1 << 20, big = 1 << 20;
    size_t n = words * 2 + 16 + big + 16 + 32;
    char *buf = malloc(n), *w = buf;
    for (size_t i = 0; i < words; i++) {
        *w++ = 'a';
        *w++ = ' ';
    }
    w += sprintf(w, "\tlong\n");
    memset(w, 'b', big);
    w += big;
    w += sprintf(w, "\tbig\nshort line\tok\n");
    const char *p = temp_file(buf, (size_t)(w - buf));
    Dataset d;
    TfErr err = {{0}};
    int bad = -1;
    int rc = tsv_load(&d, p, TOK_WORD, TOK_WORD, 100, 1, &bad, &err);
    expect_true(rc == 0 && bad == 2 && d.n_pairs == 1,
                "max_len 100: 2 bad lines, 1 pair; got %d %d %d (%s)", rc, bad,
                d.n_pairs, err.msg);
    dataset_free(&d);
    rc = tsv_load(&d, p, TOK_WORD, TOK_CHAR, 0, 1, &bad, &err);
    expect_true(rc == 0 && bad == 1 && d.n_pairs == 2 && d.max_src == (int)words,
                "no limit: the 1M-word line loads; got %d bad %d pairs %d max %d", rc,
                bad, d.n_pairs, d.max_src);
    dataset_free(&d);
    unlink(p);
    free(buf);
}

/* Lines are read with a 16 MiB limit: a file without newlines, a FIFO or a
 * device is one clear message naming the file, never a hang or memory that
 * follows the file. */
static void expect_load_error_rlimit(const char *path, const char *want, size_t headroom)
{
    fflush(stdout);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        alarm(20); /* a hang is a failure, not a stuck test */
#if defined(__SANITIZE_ADDRESS__)
        headroom = 0; /* ASan's shadow and allocator need address space of their own */
#endif
        if (headroom) { /* the address space this process has now, plus headroom */
            FILE *f = fopen("/proc/self/statm", "r");
            unsigned long pages = 0;
            if (!f || fscanf(f, "%lu", &pages) != 1)
                _exit(3);
            fclose(f);
            struct rlimit rl;
            rl.rlim_cur = rl.rlim_max = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + headroom;
            if (setrlimit(RLIMIT_AS, &rl))
                _exit(3);
        }
        Dataset d;
        TfErr err = {{0}};
        int rc = tsv_load(&d, path, TOK_WORD, TOK_WORD, 0, 1, NULL, &err);
        printf("  %s: %s\n", path, err.msg);
        _exit(rc == -1 && strstr(err.msg, path) && strstr(err.msg, want) ? 0 : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    expect_true(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                "%s: one error naming it and \"%s\" (status %d)", path, want, status);
}

static void test_tsv_unbounded_inputs(void **state)
{
    (void)state;
    char dir[64], fifo[96], big[96], nonl[96];
    assert_int_equal(tu_scratch(dir, sizeof dir, "tsvbig"), 0);
    snprintf(fifo, sizeof fifo, "%s/pipe.tsv", dir);
    snprintf(big, sizeof big, "%s/one-line.tsv", dir);
    snprintf(nonl, sizeof nonl, "%s/no-newline.tsv", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    expect_load_error_rlimit(fifo, "FIFO", 0);
    expect_load_error_rlimit("/dev/zero", "device", 0);
    /* one 20 MB line of words */
    tu_write_long_line(big, (size_t)20 << 20);
    expect_load_error_rlimit(big, ":1: line longer than 16 MiB", 0);
    /* 200 MB of zeros without a newline, with 64 MiB of memory to spare:
     * the first NUL byte ends it (binary data), never "no usable sentence
     * pairs" and never memory that follows the file */
    int fd = open(nonl, O_WRONLY | O_CREAT, 0600);
    assert_true(fd >= 0 && ftruncate(fd, (off_t)200 << 20) == 0);
    close(fd);
    expect_load_error_rlimit(nonl, ":1: a NUL byte", (size_t)64 << 20);
    tu_scratch_remove(dir);
}

/* More than a million distinct words: the error names the file, the line
 * and the side, not just "vocabulary larger than 1000000 tokens". */
static void test_tsv_vocab_too_large(void **state)
{
    (void)state;
    char dir[64], path[96];
    tu_scratch_file(dir, sizeof dir, "tsvvocab", path, sizeof path, "words.tsv");
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    int w = 0;
    for (int line = 0; line < 40001; line++) {
        for (int k = 0; k < 25; k++)
            fprintf(f, "%sw%d", k ? " " : "", w++);
        fputs("\tx\n", f);
    }
    fclose(f);
    Dataset d;
    TfErr err = {{0}};
    int rc = tsv_load(&d, path, TOK_WORD, TOK_WORD, 0, 1, NULL, &err);
    char want[256];
    snprintf(want, sizeof want, "%s:40000: source: vocabulary larger than", path);
    expect_true(rc == -1 && strstr(err.msg, want), "want \"%s\", got \"%s\"", want, err.msg);
    tu_scratch_remove(dir);
}

int main(void)
{
    TU_RUN(NULL, NULL,
           cmocka_unit_test(test_names),
           cmocka_unit_test(test_char_tasks),
           cmocka_unit_test(test_determinism),
           cmocka_unit_test(test_heldout_option),
           cmocka_unit_test(test_en2zh_showcase),
           cmocka_unit_test(test_en2zh_lexicon),
           cmocka_unit_test(test_en2zh_rules),
           cmocka_unit_test(test_tsv_good),
           cmocka_unit_test(test_tsv_crlf),
           cmocka_unit_test(test_tsv_bad_lines),
           cmocka_unit_test(test_tsv_errors),
           cmocka_unit_test(test_tsv_garbage),
           cmocka_unit_test(test_tsv_long_lines),
           cmocka_unit_test(test_tsv_unbounded_inputs),
           cmocka_unit_test(test_tsv_vocab_too_large));
}
