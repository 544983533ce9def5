/* test_atomic.c - the one atomic writer (core/io/atomic.c): commit replaces
 * the target in one step, abort leaves it untouched and removes the
 * temporary file, a save killed half-way leaves no temporary file (it has
 * no name until complete), a stale NAME.tmp-XXXXXX left by an older kind of
 * save is removed by the next open, room is checked against free space, and a missing or read-only folder gives a one-line
 * error that names the path. */
#include "test_util.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "atomic.h"

TU_SCRATCH_GROUP("atomic")

static void put_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    expect_true(f != NULL, "create %s", path);
    fputs(text, f);
    fclose(f);
}

/* The whole file, or "" when it cannot be read. */
static const char *slurp(const char *path)
{
    static char buf[256];
    buf[0] = 0;
    FILE *f = fopen(path, "r");
    if (f) {
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = 0;
        fclose(f);
    }
    return buf;
}

/* Temporary files in the scratch folder. */
static int count_temps(void)
{
    return tu_count_names(g_dir, ".tmp-");
}

static void test_commit_replaces(void **state)
{
    (void)state;
    char path[300];
    path_in(path, sizeof path, "a.csv");
    put_file(path, "old\n");
    FILE *reader = fopen(path, "r"); /* someone reading the old file meanwhile */
    TfAtomic w;
    TfErr err;
    expect_true(tf_atomic_open(&w, path, 0644, &err) == 0, "open: %s", err.msg);
    fputs("new contents\n", w.f);
    fflush(w.f);
    expect_true(strcmp(slurp(path), "old\n") == 0, "before commit the target is the old file: '%s'", slurp(path));
    expect_true(count_temps() == (w.unnamed ? 0 : 1), "%s temporary file while writing, got %d",
                w.unnamed ? "no named" : "one", count_temps());
    expect_true(tf_atomic_commit(&w, &err) == 0, "commit: %s", err.msg);
    expect_true(strcmp(slurp(path), "new contents\n") == 0, "after commit the new file: '%s'", slurp(path));
    expect_true(count_temps() == 0, "no temporary file left, got %d", count_temps());
    char line[32] = "";
    expect_true(reader && fgets(line, sizeof line, reader) && strcmp(line, "old\n") == 0,
                "an open reader still sees the whole old file (renamed over, not rewritten): '%s'", line);
    fclose(reader);
    struct stat st;
    mode_t mask = umask(0);
    umask(mask);
    expect_true(stat(path, &st) == 0 && (st.st_mode & 0777) == (0644 & ~mask),
                "mode 0644 less the umask, got %o", (unsigned)(st.st_mode & 0777));
}

static void test_abort_leaves_target(void **state)
{
    (void)state;
    char path[300];
    path_in(path, sizeof path, "b.csv");
    put_file(path, "keep me\n");
    TfAtomic w;
    TfErr err;
    expect_true(tf_atomic_open(&w, path, 0644, &err) == 0, "open: %s", err.msg);
    fputs("half a file", w.f);
    tf_atomic_discard(&w);
    tf_atomic_discard(&w); /* safe twice */
    expect_true(strcmp(slurp(path), "keep me\n") == 0, "the target untouched: '%s'", slurp(path));
    expect_true(count_temps() == 0, "the temporary file removed, %d left", count_temps());
    expect_true(tf_atomic_commit(&w, &err) != 0, "commit after abort refused");
}

static void test_stale_temp_removed(void **state)
{
    (void)state;
    char path[300], stale[340], other[340], unlike[340];
    path_in(path, sizeof path, "c.bin");
    snprintf(stale, sizeof stale, "%s.tmp-Ab12Yz", path);   /* a killed save's */
    snprintf(other, sizeof other, "%s/d.bin.tmp-Ab12Yz", g_dir); /* another target's */
    snprintf(unlike, sizeof unlike, "%s.tmp-short", path);    /* not the pattern */
    put_file(stale, "stale");
    put_file(other, "other");
    put_file(unlike, "unlike");
    TfAtomic w;
    TfErr err;
    expect_true(tf_atomic_open(&w, path, 0644, &err) == 0, "open: %s", err.msg);
    expect_true(access(stale, F_OK) != 0, "the stale %s is removed by the next open", stale);
    expect_true(access(other, F_OK) == 0, "another target's temporary is kept");
    expect_true(access(unlike, F_OK) == 0, "a name off the pattern is kept");
    tf_atomic_discard(&w);
    unlink(other);
    unlink(unlike);
}

/* One line that names the path. */
static void expect_error_names(const char *path, const TfErr *err)
{
    expect_true(strstr(err->msg, path) == err->msg, "the message starts with the path %s: '%s'", path, err->msg);
    expect_true(!strchr(err->msg, '\n') && strlen(err->msg) > strlen(path) + 2, "one line with a reason: '%s'",
                err->msg);
}

/* A save killed (SIGKILL) half-way leaves no temporary file at all: the
 * file being written has no name until it is complete. */
static void test_killed_save_leaves_nothing(void **state)
{
    (void)state;
    char path[300];
    path_in(path, sizeof path, "killed.bin");
    put_file(path, "the old file\n");
    fflush(stdout);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        TfAtomic w;
        TfErr err;
        static char block[1 << 20];
        if (tf_atomic_open(&w, path, 0644, &err) == 0)
            fwrite(block, 1, sizeof block, w.f);
        fflush(w.f);
        raise(SIGKILL);
        _exit(0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    expect_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "the writer was killed");
    expect_true(count_temps() == 0, "a killed save leaves no temporary file, %d left", count_temps());
    expect_true(strcmp(slurp(path), "the old file\n") == 0, "the target untouched: '%s'", slurp(path));
}

/* Room for the file is checked against the folder's free space. */
static void test_room(void **state)
{
    (void)state;
    char path[300];
    path_in(path, sizeof path, "room.bin");
    TfErr err;
    expect_true(tf_atomic_room(path, 4096, &err) == 0, "4 KiB fit: %s", err.msg);
    expect_true(tf_atomic_room(path, 1ULL << 60, &err) != 0, "an exabyte does not fit");
    printf("  %s\n", err.msg);
    expect_error_names(path, &err);
    expect_true(strstr(err.msg, "MiB free") != NULL, "the figures: '%s'", err.msg);
}

static void test_missing_folder(void **state)
{
    (void)state;
    char path[300];
    path_in(path, sizeof path, "no/such/folder/x.csv");
    TfAtomic w;
    TfErr err;
    expect_true(tf_atomic_open(&w, path, 0644, &err) != 0, "a missing folder is an error");
    expect_error_names(path, &err);
    expect_true(strstr(err.msg, "No such file") != NULL, "and says why: '%s'", err.msg);
    expect_true(tf_atomic_probe(path, &err) != 0, "probe says the same");
    expect_error_names(path, &err);
}

static void test_read_only_folder(void **state)
{
    (void)state;
    char ro[300], path[320];
    if (geteuid() != 0) {
        path_in(ro, sizeof ro, "ro");
        expect_true(mkdir(ro, 0555) == 0, "make %s", ro);
        snprintf(path, sizeof path, "%s/x.csv", ro);
    } else { /* root writes anywhere it has permissions for: use a file system that refuses */
        snprintf(path, sizeof path, "/proc/stepformer-atomic-test.csv");
    }
    TfAtomic w;
    TfErr err;
    expect_true(tf_atomic_open(&w, path, 0644, &err) != 0, "%s cannot be written", path);
    printf("  %s\n", err.msg);
    expect_error_names(path, &err);
    expect_true(strstr(err.msg, "cannot create a file") != NULL, "the reason: '%s'", err.msg);
    expect_true(access(path, F_OK) != 0, "nothing created");
}

int main(void)
{
    TU_RUN(setup, teardown,
           cmocka_unit_test(test_commit_replaces),
           cmocka_unit_test(test_abort_leaves_target),
           cmocka_unit_test(test_stale_temp_removed),
           cmocka_unit_test(test_killed_save_leaves_nothing),
           cmocka_unit_test(test_room),
           cmocka_unit_test(test_missing_folder),
           cmocka_unit_test(test_read_only_folder));
}
