/* test_cli_torture.c - build/stepformer against bad inputs, each run in a
 * child under a 2 GiB address-space limit (setrlimit RLIMIT_AS) and a time
 * limit (alarm). For a case that must fail: a non-zero exit, exactly one line
 * on stderr naming the file (when there is one) and the reason, no file
 * left behind in the output folder, no time-out. A case that must succeed
 * (a tiny wide model, typed control tokens) exits 0 in time and memory.
 *
 * To add a case, add a row to CASES: the arguments ("@D" is the scratch
 * folder, "@M" a small good model, "@O" an empty output folder made for the
 * case), the texts stderr must hold, and how the input is made. A case that
 * depends on a command this change does not fix is kept with XFAIL and a
 * comment: it is run and reported ("XFAIL" / "XPASS: drop the mark"), and
 * does not fail the test. A case may give standard input (an endless
 * stream: /dev/zero, /dev/urandom, a FIFO fed forever) and a ceiling on the
 * child's peak resident memory (getrusage); FAIL_IN_TIME only asks for a
 * non-zero exit before the time limit (random bytes give any number of
 * messages). "@S" is a small MarianMT folder with its sentencepiece models.
 * A bad file of sentence pairs goes into BAD_FILES and a command that reads
 * such files into READERS: every reader is tried on every bad file. */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_util.h"

TU_SCRATCH_GROUP("torture")

#define AS_LIMIT ((rlim_t)2 << 30)
/* AddressSanitizer reserves terabytes of address space for its shadow: under
 * SANITIZE=1 the limit is left out (the time limit and the checks stay). */
#if defined(__SANITIZE_ADDRESS__)
#define USE_AS_LIMIT 0
#else
#define USE_AS_LIMIT 1
#endif
#define TIME_LIMIT 30 /* seconds; a hang is caught, nothing is timed */

static char g_prog[512];

enum { FAIL_ONE_LINE, SUCCEED, FAIL_IN_TIME };
enum { XFAIL = 1 };

typedef struct Case {
    const char *name;
    int expect, xfail;
    const char *args[24];  /* NULL-terminated */
    const char *want[3];   /* texts stderr must hold (NULL-terminated) */
    void (*make)(const char *dir);
    const char *in;        /* standard input ("@D/x" or a device), else /dev/null */
    int max_rss_mb;        /* when > 0: the most memory the child may touch */
} Case;

/* ---- inputs ---- */

static void write_file(const char *dir, const char *name, const void *data, size_t n)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    assert_true(fwrite(data, 1, n, f) == n);
    fclose(f);
}

static void make_truncated(const char *dir)
{
    char p[256];
    snprintf(p, sizeof p, "%s/good.st", dir);
    FILE *f = fopen(p, "rb");
    assert_non_null(f);
    char buf[100];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    write_file(dir, "trunc.st", buf, n);
}

static void make_garbage(const char *dir)
{
    unsigned char buf[5000];
    uint32_t x = 7;
    for (size_t i = 0; i < sizeof buf; i++) {
        x = x * 1664525u + 1013904223u;
        buf[i] = (unsigned char)(x >> 24);
    }
    write_file(dir, "garbage.st", buf, sizeof buf);
}

static void make_huge_header(const char *dir)
{
    write_file(dir, "huge.st", "\0\0\0\0\0\1\0\0{}", 10); /* a 1 TiB header */
}

static void make_fifo(const char *dir)
{
    char p[256];
    snprintf(p, sizeof p, "%s/pipe.st", dir);
    unlink(p);
    assert_int_equal(mkfifo(p, 0600), 0);
}

static void make_long_line(const char *dir)
{
    char p[256];
    snprintf(p, sizeof p, "%s/long.tsv", dir);
    tu_write_long_line(p, (size_t)20 << 20);
}

static void make_no_newline(const char *dir)
{
    char p[256];
    snprintf(p, sizeof p, "%s/nonl.tsv", dir);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0 && ftruncate(fd, (off_t)3 << 30) == 0); /* 3 GiB of zeros, sparse */
    close(fd);
}

static void make_header_only(const char *dir)
{
    write_file(dir, "header.tsv", "source\ttarget\n", 14);
}

static void make_readonly(const char *dir)
{
    char p[256];
    snprintf(p, sizeof p, "%s/ro", dir);
    mkdir(p, 0755);
    chmod(p, 0555);
}

static void make_wide(const char *dir)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "'%s' init --preset classroom --vocab 16 --d-model 32 --heads 32 --layers 1 "
             "--d-ff 1 --max-len 4096 --out '%s/wide.st' >/dev/null",
             g_prog, dir);
    assert_int_equal(system(cmd), 0);
}

/* A FIFO that a child feeds with 'a' and never a newline, until its
 * reader goes (SIGPIPE ends the child). */
static void make_endless_fifo(const char *dir)
{
    char p[256];
    snprintf(p, sizeof p, "%s/endless.fifo", dir);
    unlink(p);
    assert_int_equal(mkfifo(p, 0600), 0);
    fflush(stdout);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        alarm(TIME_LIMIT + 5);
        int fd = open(p, O_WRONLY);
        static char block[1 << 16];
        memset(block, 'a', sizeof block);
        while (fd >= 0 && write(fd, block, sizeof block) > 0)
            ;
        _exit(0);
    }
}

/* One TSV line of 600,000 words and its reference. */
static void make_many_words(const char *dir)
{
    char p[256];
    snprintf(p, sizeof p, "%s/words.tsv", dir);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    for (int i = 0; i < 300000; i++)
        fputs("the cat ", f);
    fputs("\tle chat\n", f);
    fclose(f);
}

/* ---- the cases ---- */

static const Case CASES[] = {
    {"truncated checkpoint", FAIL_ONE_LINE, 0, {"info", "--model", "@D/trunc.st"},
     {"@D/trunc.st", "does not fit"}, make_truncated, NULL, 0},
    {"garbage checkpoint", FAIL_ONE_LINE, 0, {"translate", "--model", "@D/garbage.st", "t4"},
     {"@D/garbage.st"}, make_garbage, NULL, 0},
    {"huge header", FAIL_ONE_LINE, 0, {"dump", "--model", "@D/huge.st", "--src", "t4", "--stage", "src.embed"},
     {"@D/huge.st", "header"}, make_huge_header, NULL, 0},
    {"FIFO model", FAIL_ONE_LINE, 0, {"info", "--model", "@D/pipe.st"}, {"@D/pipe.st", "FIFO"}, make_fifo, NULL, 0},
    /* larger than the address-space limit, zeros: the first NUL byte ends it */
    {"3 GiB without a newline", FAIL_ONE_LINE, 0, {"train", "--data", "@D/nonl.tsv", "--out", "@O/m.st"},
     {"@D/nonl.tsv:1:", "NUL byte"}, make_no_newline, NULL, 0},
    {"unwritable --out", FAIL_ONE_LINE, 0, {"train", "--task", "copy", "--steps", "100000", "--out", "/proc/m.st"},
     {"/proc"}, NULL, NULL, 0},
    {"--out in a file", FAIL_ONE_LINE, 0, {"train", "--task", "copy", "--steps", "100000", "--out", "@M/m.st"},
     {"@M"}, NULL, NULL, 0},
    /* as root a chmod'ed folder stays writable: the case is meaningful for users only */
    {"read-only folder", FAIL_ONE_LINE, 0, {"train", "--task", "copy", "--steps", "100000", "--out", "@D/ro/m.st"},
     {"@D/ro"}, make_readonly, NULL, 0},
    {"missing folder", FAIL_ONE_LINE, 0, {"train", "--task", "copy", "--steps", "100000", "--out", "@D/missing/m.st"},
     {"@D/missing"}, NULL, NULL, 0},
    {"header-only TSV for eval", FAIL_ONE_LINE, 0, {"eval", "--model", "@M", "--data", "@D/header.tsv"},
     {"@D/header.tsv", "none held out"}, make_header_only, NULL, 0},
    {"invalid UTF-8 source", FAIL_ONE_LINE, 0, {"translate", "--model", "@M", "bad \xff"}, {"UTF-8"}, NULL, NULL, 0},
    {"unknown stage", FAIL_ONE_LINE, 0, {"dump", "--model", "@M", "--src", "t4", "--stage", "nosuch"},
     {"nosuch"}, NULL, NULL, 0},
    {"dump --layer out of range", FAIL_ONE_LINE, 0,
     {"dump", "--model", "@M", "--src", "t4", "--stage", "enc.self.weights", "--layer", "5", "--head", "0"},
     {"layer 5"}, NULL, NULL, 0},
    {"dump --head out of range", FAIL_ONE_LINE, 0,
     {"dump", "--model", "@M", "--src", "t4", "--stage", "enc.self.weights", "--layer", "0", "--head", "9"},
     {"head"}, NULL, NULL, 0},
    /* shot refuses a bad input as dump does, in one line */
    {"shot invalid UTF-8 source", FAIL_ONE_LINE, 0,
     {"shot", "--model", "@M", "--stage", "src.embed", "--src", "bad \xff", "--out", "@O/s.png"},
     {"UTF-8"}, NULL, NULL, 0},
    /* a layer the model does not have is refused, not clamped */
    {"shot --layer out of range", FAIL_ONE_LINE, 0,
     {"shot", "--model", "@M", "--stage", "enc.self.weights", "--layer", "63", "--head", "127", "--out", "@O/s.png"},
     {"layer"}, NULL, NULL, 0},
    /* endless input: a NUL byte, a line that never ends on a stream: an
     * error at once */
    {"translate < /dev/zero", FAIL_ONE_LINE, 0, {"translate", "--model", "@M"}, {"<stdin>:1:", "NUL byte"}, NULL,
     "/dev/zero", 0},
    {"translate < /dev/urandom", FAIL_IN_TIME, 0, {"translate", "--model", "@M"}, {NULL}, NULL, "/dev/urandom", 0},
    {"Marian translate < /dev/zero", FAIL_ONE_LINE, 0, {"translate", "--model", "@S"}, {"NUL byte"}, NULL,
     "/dev/zero", 0},
    {"translate < endless FIFO", FAIL_ONE_LINE, 0, {"translate", "--model", "@M"},
     {"<stdin>:1:", "longer than 16 MiB on a stream"}, make_endless_fifo, "@D/endless.fifo", 200},
    {"eval --data - < /dev/urandom", FAIL_IN_TIME, 0, {"eval", "--model", "@M", "--data", "-"}, {NULL}, NULL,
     "/dev/urandom", 0},
    {"train --data - < endless FIFO", FAIL_ONE_LINE, 0, {"train", "--data", "-", "--out", "@O/m.st"},
     {"<stdin>:1:", "longer than 16 MiB on a stream"}, make_endless_fifo, "@D/endless.fifo", 200},
    /* a line of 600,000 words is measured before sentencepiece splits it */
    {"Marian eval, one 600,000-word line", FAIL_IN_TIME, 0, {"eval", "--model", "@S", "--data", "@D/words.tsv"},
     {"no \"source<TAB>reference\" line"}, make_many_words, NULL, 100},
    /* typed control tokens are text: <unk> with the unknown-word notice */
    {"typed control tokens", SUCCEED, 0, {"translate", "--model", "@M", "<pad> <bos> <eos>"}, {"<unk>"}, NULL, NULL, 0},
    /* a tiny wide model: memory follows the input, not max_len 4096 x 32 heads */
    {"tiny wide model", SUCCEED, 0, {"translate", "--model", "@D/wide.st", "t4 t5"}, {NULL}, make_wide, NULL, 0},
};
#define N_CASES ((int)(sizeof CASES / sizeof CASES[0]))

/* Every command that reads a file of sentence pairs refuses the same bad
 * files in one line naming the file: each reader below is run on each bad
 * file it takes, the file's argument after the reader's. */
enum { BAD_FIFO = 1, BAD_ZERO = 2, BAD_RANDOM = 4, BAD_LONG = 8, BAD_STDIN = 16, BAD_ALL = 31 };

typedef struct Reader {
    const char *name;
    const char *args[8]; /* NULL-terminated, the file's flag last */
    int takes;           /* the bad files it is run on (BAD_*) */
} Reader;

static const Reader READERS[] = {
    {"train", {"train", "--out", "@O/m.st", "--data"}, BAD_ALL},
    {"eval", {"eval", "--model", "@M", "--data"}, BAD_ALL},
    /* a Marian model skips a line longer than its max_position_embeddings
     * with a warning, then finds nothing to evaluate: two lines */
    {"Marian eval", {"eval", "--model", "@S", "--data"}, BAD_ALL & ~BAD_LONG},
    /* the train view's --task names a file, never standard input */
    {"shot --task", {"shot", "--view", "train", "--out", "@O/s.png", "--task"}, BAD_ALL & ~BAD_STDIN},
};

typedef struct BadFile {
    int bit;
    const char *name, *arg;
    const char *want[3]; /* as Case.want */
    void (*make)(const char *dir);
    const char *in; /* as Case.in */
} BadFile;

static const BadFile BAD_FILES[] = {
    {BAD_FIFO, "a FIFO", "@D/pipe.st", {"@D/pipe.st", "FIFO"}, make_fifo, NULL},
    {BAD_ZERO, "/dev/zero", "/dev/zero", {"/dev/zero", "device"}, NULL, NULL},
    {BAD_RANDOM, "/dev/urandom", "/dev/urandom", {"/dev/urandom", "device"}, NULL, NULL},
    {BAD_LONG, "one 20 MB line", "@D/long.tsv", {"@D/long.tsv:1:", "line longer than 16 MiB"}, make_long_line, NULL},
    {BAD_STDIN, "- < /dev/zero", "-", {"<stdin>:1:", "NUL byte"}, NULL, "/dev/zero"},
};

/* The case of reader r on bad file f, its name written into name. */
static Case reader_case(const Reader *r, const BadFile *f, char *name, size_t cap)
{
    snprintf(name, cap, "%s on %s", r->name, f->name);
    Case c = {name, FAIL_ONE_LINE, 0, {NULL}, {f->want[0], f->want[1], f->want[2]}, f->make, f->in, 0};
    int n = 0;
    for (; r->args[n]; n++)
        c.args[n] = r->args[n];
    c.args[n] = f->arg;
    return c;
}

/* "@D/x" -> "<dir>/x" etc. */
static void expand(char *out, size_t cap, const char *s, const char *dir, const char *odir)
{
    size_t o = 0;
    for (; *s && o + 1 < cap; s++) {
        const char *rep = NULL;
        char mp[256];
        if (s[0] == '@' && (s[1] == 'D' || s[1] == 'M' || s[1] == 'O' || s[1] == 'S')) {
            if (s[1] == 'M')
                snprintf(mp, sizeof mp, "%s/good.st", dir);
            if (s[1] == 'S')
                snprintf(mp, sizeof mp, "tests/fixtures/marian/spm_model");
            rep = s[1] == 'D' ? dir : s[1] == 'O' ? odir : mp;
            s++;
        }
        if (rep) {
            int w = snprintf(out + o, cap - o, "%s", rep);
            o += w > 0 ? (size_t)w : 0;
            if (o >= cap)
                o = cap - 1;
        } else {
            out[o++] = *s;
        }
    }
    out[o] = 0;
}

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

/* Run one case; 0 when it behaved, else 1 (reason printed). */
static int run_case(int k, const Case *c)
{
    char odir[256], errf[256], argbuf[24][512], *argv[26];
    snprintf(odir, sizeof odir, "%s/out%d", g_dir, k);
    snprintf(errf, sizeof errf, "%s/err%d.txt", g_dir, k);
    mkdir(odir, 0755);
    if (c->make)
        c->make(g_dir);
    int n = 0;
    argv[n++] = g_prog;
    for (int i = 0; c->args[i] && i < 23; i++) {
        expand(argbuf[i], sizeof argbuf[i], c->args[i], g_dir, odir);
        argv[n++] = argbuf[i];
    }
    argv[n] = NULL;
    char in[256] = "/dev/null";
    if (c->in)
        expand(in, sizeof in, c->in, g_dir, odir);
    fflush(stdout);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct rlimit rl = {AS_LIMIT, AS_LIMIT};
        if (USE_AS_LIMIT)
            setrlimit(RLIMIT_AS, &rl);
        alarm(TIME_LIMIT); /* SIGALRM ends a hung child */
        int fd = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int nul = open("/dev/null", O_RDWR), input = open(in, O_RDONLY);
        dup2(input, 0);
        dup2(nul, 1);
        dup2(fd, 2);
        setenv("OPENBLAS_NUM_THREADS", "1", 1);
        execv(g_prog, argv);
        _exit(127);
    }
    int status = 0;
    struct rusage ru = {0};
    wait4(pid, &status, 0, &ru);
    long rss_mb = ru.ru_maxrss / 1024; /* KiB on Linux */
    char text[8192] = {0};
    int lines = tu_read_lines(errf, text, sizeof text);
    char why[768] = "";
    if (WIFSIGNALED(status))
        snprintf(why, sizeof why, "killed by signal %d%s", WTERMSIG(status),
                 WTERMSIG(status) == SIGALRM ? " (time-out)" : "");
    else if (c->expect == SUCCEED && WEXITSTATUS(status) != 0)
        snprintf(why, sizeof why, "exit %d, want 0", WEXITSTATUS(status));
    else if (c->expect != SUCCEED && WEXITSTATUS(status) == 0)
        snprintf(why, sizeof why, "exit 0, want an error");
    else if (c->max_rss_mb > 0 && rss_mb > c->max_rss_mb)
        snprintf(why, sizeof why, "took %ld MB, want at most %d", rss_mb, c->max_rss_mb);
    else if (c->expect == FAIL_ONE_LINE && lines != 1)
        snprintf(why, sizeof why, "%d lines on stderr, want 1", lines);
    for (int i = 0; !why[0] && i < 3 && c->want[i]; i++) {
        char w[512];
        expand(w, sizeof w, c->want[i], g_dir, odir);
        if (!strstr(text, w))
            snprintf(why, sizeof why, "stderr lacks \"%s\"", w);
    }
    if (!why[0] && c->expect == FAIL_ONE_LINE && count_entries(odir) != 0)
        snprintf(why, sizeof why, "%d files left in the output folder", count_entries(odir));
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", odir);
    if (system(cmd) != 0)
        printf("  (could not remove %s)\n", odir);
    if (!why[0]) {
        printf("  %s %s\n", c->xfail ? "XPASS: drop the XFAIL mark of" : "ok    ", c->name);
        return 0;
    }
    printf("  %s %s: %s; stderr:\n%s", c->xfail ? "XFAIL " : "FAILED", c->name, why, text);
    return c->xfail ? 0 : 1;
}

static void test_bad_inputs(void **state)
{
    (void)state;
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "'%s' init --preset classroom --vocab 16 --d-model 16 --heads 2 --layers 1 "
             "--d-ff 16 --out '%s/good.st' >/dev/null",
             g_prog, g_dir);
    assert_int_equal(system(cmd), 0);
    int failed = 0;
    for (int k = 0; k < N_CASES; k++) {
        if (geteuid() == 0 && CASES[k].make == make_readonly) {
            printf("  n/a    %s (root may write anywhere)\n", CASES[k].name);
            continue;
        }
        failed += run_case(k, &CASES[k]);
    }
    int n = N_CASES;
    for (size_t r = 0; r < sizeof READERS / sizeof READERS[0]; r++)
        for (size_t f = 0; f < sizeof BAD_FILES / sizeof BAD_FILES[0]; f++) {
            if (!(READERS[r].takes & BAD_FILES[f].bit))
                continue;
            char name[128];
            Case c = reader_case(&READERS[r], &BAD_FILES[f], name, sizeof name);
            failed += run_case(n++, &c);
        }
    expect_true(failed == 0, "%d of %d cases misbehaved (see above)", failed, n);
}

/* Run the program under an address-space limit of limit_kib (unsetting
 * OPENBLAS_NUM_THREADS, as a user's shell has it), stderr into text; the
 * wait status. */
static int run_limited(rlim_t limit_kib, const char *const *args, char *text, size_t cap)
{
    char errf[256];
    snprintf(errf, sizeof errf, "%s/as.txt", g_dir);
    fflush(stdout);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct rlimit rl = {limit_kib << 10, limit_kib << 10};
        if (USE_AS_LIMIT)
            setrlimit(RLIMIT_AS, &rl);
        alarm(TIME_LIMIT);
        int fd = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0600), nul = open("/dev/null", O_RDWR);
        dup2(nul, 0);
        dup2(nul, 1);
        dup2(fd, 2);
        unsetenv("OPENBLAS_NUM_THREADS");
        tu_exec(g_prog, args);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    tu_read_lines(errf, text, cap);
    return status;
}

/* Under a 250 MB address-space limit (ulimit -v 250000) OpenBLAS would
 * retry its work buffer forever: translate fails in one line instead,
 * in time (OPENBLAS_NUM_THREADS unset, as a user's shell has it). */
static void test_address_space_limit(void **state)
{
    (void)state;
    char text[4096];
    const char *args[] = {"translate", "i love china", NULL};
    int status = run_limited(250000, args, text, sizeof text);
    if (!USE_AS_LIMIT) {
        printf("  skipped: no address-space limit under the sanitizers\n");
        return;
    }
    int lines = tu_count_lines(text);
    printf("  %s", text);
    expect_true(WIFEXITED(status) && WEXITSTATUS(status) == 1 && lines == 1 && strstr(text, "ulimit -v"),
                "one line naming the limit, in time; status %d, %d lines:\n%s", status, lines, text);
}

/* Room for OpenBLAS's two buffers at the start, but a model that then
 * takes half of what is left: the second buffer was asked for only when
 * both threads made products at once, and OpenBLAS retried it forever.
 * Now the pool gets both before the model loads: the run ends in time
 * (here with a one-line "out of memory" for the model or its trace). */
static void test_address_space_two_threads(void **state)
{
    (void)state;
    if (!USE_AS_LIMIT) {
        printf("  skipped: no address-space limit under the sanitizers\n");
        return;
    }
    char model[256], cmd[1024], text[4096];
    snprintf(model, sizeof model, "%s/mid.st", g_dir); /* 14.7 M parameters, 56 MiB */
    snprintf(cmd, sizeof cmd,
             "'%s' init --preset classroom --vocab 16 --d-model 512 --heads 8 --layers 2 --d-ff 2048 --out '%s' "
             ">/dev/null",
             g_prog, model);
    assert_int_equal(system(cmd), 0);
    const char *args[] = {"translate", "--model", model, "t4 t5", NULL};
    /* what the program takes before its first product: the limit less what the message says is left */
    int st = run_limited(200000, args, text, sizeof text);
    const char *at = strstr(text, "leaves ");
    long left = at ? strtol(at + 7, NULL, 10) : -1;
    expect_true(WIFEXITED(st) && left > 0, "the room is named: %s", text);
    long base = 200000 / 1024 - left, model_mib = 56;
    rlim_t limit = (rlim_t)(base + 288 + model_mib / 2) << 10;
    st = run_limited(limit, args, text, sizeof text);
    printf("  limit %lu KiB: %s", (unsigned long)limit, text[0] ? text : "(translated)\n");
    expect_true(WIFEXITED(st), "ends in time, not killed (status %d): %s", st, text);
}

int main(int argc, char **argv)
{
    (void)argc;
    tu_program_path(g_prog, sizeof g_prog, argv[0]);
    TU_RUN(setup, teardown, cmocka_unit_test(test_bad_inputs), cmocka_unit_test(test_address_space_limit),
           cmocka_unit_test(test_address_space_two_threads));
}
