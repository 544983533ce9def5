/* test_err.c - error messages and the logging hook (core/sys/err.c):
 * tf_fail formats and truncates, tf_fail_prefix puts "prefix: " before the
 * old message and still fits TF_ERR_MAX, the hook gets every message with
 * its level and nothing once removed. */
#include "test_util.h"

#include "err.h"

static void test_fail_formats(void **state)
{
    (void)state;
    TfErr err;
    int rc = tf_fail(&err, "%s: line %d: %s", "data.tsv", 12, "no tab");
    expect_true(rc == -1, "tf_fail returns -1, got %d", rc);
    expect_true(strcmp(err.msg, "data.tsv: line 12: no tab") == 0, "the message, got '%s'", err.msg);
    expect_true(tf_fail(NULL, "ignored %d", 1) == -1, "a NULL err is allowed");
}

static void test_fail_truncates(void **state)
{
    (void)state;
    TfErr err;
    char big[3 * TF_ERR_MAX];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    memset(err.msg, '#', sizeof err.msg);
    tf_fail(&err, "%s", big);
    size_t n = strnlen(err.msg, sizeof err.msg);
    expect_true(n == TF_ERR_MAX - 1, "a long message cut to %d bytes and terminated, got %zu", TF_ERR_MAX - 1, n);
}

/* Each case: the old message, the prefix, what must result. */
static void test_prefix(void **state)
{
    (void)state;
    static const struct {
        const char *old, *prefix, *want;
    } CASES[] = {
        {"max_len 300 out of range 1..256", "task copy", "task copy: max_len 300 out of range 1..256"},
        {"", "empty", "empty: "},
        {"x", "", ": x"},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        TfErr err;
        tf_fail(&err, "%s", CASES[i].old);
        int rc = tf_fail_prefix(&err, "%s", CASES[i].prefix);
        expect_true(rc == -1 && strcmp(err.msg, CASES[i].want) == 0, "case %zu: '%s', got '%s' (rc %d)", i,
                    CASES[i].want, err.msg, rc);
    }
    expect_true(tf_fail_prefix(NULL, "p") == -1, "a NULL err is allowed");
}

/* A long prefix keeps as much of itself as fits, then ": ", then the old
 * message cut to fit; a prefix filling everything leaves no room for more. */
static void test_prefix_truncates(void **state)
{
    (void)state;
    char head[TF_ERR_MAX];
    TfErr err;
    memset(head, 'p', 400);
    head[400] = 0;
    char old[TF_ERR_MAX];
    memset(old, 'o', 300);
    old[300] = 0;
    tf_fail(&err, "%s", old);
    tf_fail_prefix(&err, "%s", head);
    size_t n = strlen(err.msg);
    expect_true(n == TF_ERR_MAX - 1, "400 + 2 + 300 bytes cut to %d, got %zu", TF_ERR_MAX - 1, n);
    expect_true(strncmp(err.msg, head, 400) == 0 && strncmp(err.msg + 400, ": oo", 4) == 0,
                "the prefix whole, then ': ' and the old message");
    char full[2 * TF_ERR_MAX];
    memset(full, 'q', sizeof full - 1);
    full[sizeof full - 1] = 0;
    tf_fail(&err, "old");
    tf_fail_prefix(&err, "%s", full);
    n = strlen(err.msg);
    expect_true(n == TF_ERR_MAX - 1 && err.msg[n - 1] == 'q', "an oversized prefix fills the message, got %zu '%c'",
                n, n ? err.msg[n - 1] : '?');
}

typedef struct Got {
    int n, level;
    char last[1100];
} Got;

static void hook(int level, const char *msg, void *user)
{
    Got *g = user;
    g->n++;
    g->level = level;
    snprintf(g->last, sizeof g->last, "%s", msg);
}

static void test_log_hook(void **state)
{
    (void)state;
    Got g = {0};
    tf_log(TF_LOG_WARN, "before any hook");
    tf_set_log(hook, &g);
    tf_log(TF_LOG_WARN, "%s:%d: %s", "a.tsv", 3, "empty source");
    expect_true(g.n == 1 && g.level == TF_LOG_WARN && strcmp(g.last, "a.tsv:3: empty source") == 0,
                "one warning with its text, got %d, level %d, '%s'", g.n, g.level, g.last);
    tf_log(TF_LOG_DEBUG, "detail");
    expect_true(g.n == 2 && g.level == TF_LOG_DEBUG, "debug messages reach the hook too (level %d)", g.level);
    char big[2000];
    memset(big, 'w', sizeof big - 1);
    big[sizeof big - 1] = 0;
    tf_log(TF_LOG_INFO, "%s", big);
    expect_true(g.n == 3 && strlen(g.last) == 1023, "a long log line cut to 1023 bytes, got %zu", strlen(g.last));
    tf_set_log(NULL, NULL);
    tf_log(TF_LOG_WARN, "after removal");
    expect_true(g.n == 3, "no message after tf_set_log(NULL): %d calls", g.n);
}

/* A message quoting a token with a newline or an escape code stays one
 * line (the vocabulary fuzzer found "format \"...\n...\" is not ..."). */
static void test_message_is_one_line(void **state)
{
    (void)state;
    TfErr e;
    tf_fail(&e, "f: format \"%s\" is wrong", "a\nb\r\x1b[31m\tc");
    expect_true(strcmp(e.msg, "f: format \"a b ?[31m c\" is wrong") == 0, "got \"%s\"", e.msg);
    tf_fail_prefix(&e, "x\ny");
    expect_true(!strchr(e.msg, '\n') && strncmp(e.msg, "x y: ", 5) == 0, "prefix: \"%s\"", e.msg);
}

int main(void)
{
    TU_RUN(NULL, NULL,
           cmocka_unit_test(test_fail_formats),
           cmocka_unit_test(test_fail_truncates),
           cmocka_unit_test(test_prefix), cmocka_unit_test(test_message_is_one_line),
           cmocka_unit_test(test_prefix_truncates),
           cmocka_unit_test(test_log_hook));
}
