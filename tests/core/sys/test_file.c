/* test_file.c - only regular files are opened, without blocking on a FIFO;
 * lines are read with a limit, so a file of one endless line costs the
 * limit in memory, not the file's size. */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file.h"
#include "test_util.h"

TU_SCRATCH_GROUP("file")

static void test_only_regular_files(void **state)
{
    (void)state;
    char fifo[128], reg[128];
    snprintf(fifo, sizeof fifo, "%s/pipe", g_dir);
    snprintf(reg, sizeof reg, "%s/plain.txt", g_dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    FILE *w = fopen(reg, "w");
    fputs("abc\n", w);
    fclose(w);
    static const struct {
        const char *path, *want;
    } cases[] = {
        {NULL, "FIFO"},       /* the fifo: must not block */
        {"/dev/zero", "device"},
        {"/tmp", "folder"},
        {"/nonexistent/x", "No such file"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *p = cases[i].path ? cases[i].path : fifo;
        TfErr err = {{0}};
        FILE *f = tf_fopen_regular(p, NULL, &err);
        expect_true(!f && strstr(err.msg, cases[i].want) && strstr(err.msg, p),
                    "%s: want \"%s\" in \"%s\"", p, cases[i].want, err.msg);
        if (f)
            fclose(f);
    }
    off_t size = 0;
    TfErr err;
    FILE *f = tf_fopen_regular(reg, &size, &err);
    expect_true(f && size == 4, "a regular file opens (size %lld)", (long long)size);
    /* blocking reads again once opened */
    expect_true(!(fcntl(fileno(f), F_GETFL) & O_NONBLOCK), "O_NONBLOCK cleared");
    fclose(f);
}

static void test_lines_with_a_limit(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof path, "%s/lines.txt", g_dir);
    FILE *w = fopen(path, "w");
    fputs("short\r\n", w);
    for (int i = 0; i < 300000; i++) /* one line of 3 MB */
        fputs("0123456789", w);
    fputs("\n\nafter\nlast without newline", w);
    fclose(w);
    FILE *f = fopen(path, "r");
    char *buf = NULL;
    size_t cap = 0;
    const size_t limit = 1 << 20; /* 1 MiB */
    static const struct {
        ssize_t n;
        const char *text;
    } want[] = {{5, "short"}, {-2, NULL}, {0, ""}, {5, "after"}, {20, "last without newline"}, {-1, NULL}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        ssize_t n = tf_read_line(f, &buf, &cap, limit);
        expect_true(n == want[i].n && (!want[i].text || strcmp(buf, want[i].text) == 0),
                    "line %zu: got %zd, want %zd", i + 1, n, want[i].n);
        expect_true(cap <= limit + 1, "buffer %zu bytes, limit %zu", cap, limit);
    }
    free(buf);
    fclose(f);
}

/* A NUL byte ends reading at once (TF_LINE_NUL), wherever it is; a line
 * longer than the limit on a pipe is not skipped (it may never end):
 * TF_LINE_ENDLESS after limit bytes, not a read to the end of the stream. */
static void test_endless_streams(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t cap = 0;
    FILE *z = fopen("/dev/zero", "rb");
    assert_non_null(z);
    expect_true(tf_read_line(z, &buf, &cap, TF_LINE_MAX) == TF_LINE_NUL, "/dev/zero: a NUL byte");
    expect_true(cap == 0, "nothing kept for it (cap %zu)", cap);
    fclose(z);
    int fd[2];
    assert_int_equal(pipe(fd), 0);
    char block[4096];
    memset(block, 'a', sizeof block);
    assert_true(write(fd[1], "ok\n", 3) == 3 && write(fd[1], block, sizeof block) == (ssize_t)sizeof block);
    FILE *p = fdopen(fd[0], "rb");
    assert_non_null(p);
    expect_true(tf_read_line(p, &buf, &cap, 100) == 2 && strcmp(buf, "ok") == 0, "a line first");
    ssize_t n = tf_read_line(p, &buf, &cap, 100); /* the writer is still open: a skip would block */
    expect_true(n == TF_LINE_ENDLESS, "an over-long line on a pipe: %zd", n);
    char why[96];
    expect_true(strstr(tf_line_error(n, TF_LINE_MAX, why, sizeof why), "on a stream") != NULL, "%s", why);
    fclose(p);
    close(fd[1]);
    free(buf);
}

int main(void)
{
    TU_RUN(setup, teardown,
           cmocka_unit_test(test_only_regular_files),
           cmocka_unit_test(test_lines_with_a_limit),
           cmocka_unit_test(test_endless_streams));
}
