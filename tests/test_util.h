/* test_util.h - shared helpers for the cmocka test programs.
 *
 * Every comparison says what it expected and what it got: check_close()
 * prints the worst difference and where it is before failing. Also: a
 * scratch folder per test program (TU_SCRATCH_GROUP), small model configs
 * (tu_config) and running a table of tests (TU_RUN). */
#ifndef TEST_UTIL_H
#define TEST_UTIL_H

#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "config.h"

/* Worst |a-b| / (atol + rtol*|b|) over n values; fails when it exceeds 1. */
static inline void check_close_(const char *what, const float *got,
                                const float *want, size_t n, float atol,
                                float rtol, const char *file, int line)
{
    double worst = 0;
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)got[i] - (double)want[i]);
        double lim = atol + rtol * fabs((double)want[i]);
        double r = (isnan(got[i]) != isnan(want[i])) ? INFINITY : d == 0 ? 0 : d / lim;
        if (isinf(want[i]) && got[i] == want[i])
            r = 0;
        if (!(r <= worst)) {
            worst = r;
            at = i;
        }
    }
    if (n)
        printf("  %s: worst %.3g of tolerance at [%zu] got %.9g want %.9g\n",
               what, worst, at, got[at], want[at]);
    if (!(worst <= 1.0))
        _fail(file, line);
}
#define check_close(what, got, want, n, atol, rtol) \
    check_close_(what, got, want, n, atol, rtol, __FILE__, __LINE__)

/* Fail with a message saying what was expected and what came. */
#define expect_true(cond, ...)                                   \
    do {                                                         \
        if (!(cond)) {                                           \
            printf("  expected %s: ", #cond);                    \
            printf(__VA_ARGS__);                                 \
            printf("\n");                                        \
            _fail(__FILE__, __LINE__);                           \
        }                                                        \
    } while (0)

/* A scratch folder /tmp/stepformer-NAME-XXXXXX for a test program, and
 * its removal. */
static inline int tu_scratch(char *dir, size_t cap, const char *name)
{
    snprintf(dir, cap, "/tmp/stepformer-%s-XXXXXX", name);
    return mkdtemp(dir) ? 0 : -1;
}

/* Messages a loader or checker reports (tu_collect as its callback, a
 * TuMsgs as user): how many, and their text a line each while it fits. */
typedef struct TuMsgs {
    int n;
    char text[4096];
} TuMsgs;

static inline void tu_collect(const char *msg, void *user)
{
    TuMsgs *m = user;
    size_t used = strlen(m->text);
    if (used + strlen(msg) + 2 < sizeof m->text)
        snprintf(m->text + used, sizeof m->text - used, "%s\n", msg);
    m->n++;
}

/* Write text into dir/name (a failed test when it cannot). */
static inline void tu_write_text(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    expect_true(f != NULL, "%s can be written", path);
    if (!f)
        return;
    fputs(text, f);
    fclose(f);
}

static inline int tu_scratch_remove(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* A scratch folder for one test, as tu_scratch makes it, and the path of
 * file in it (a failed test when the folder cannot be made). */
static inline void tu_scratch_file(char *dir, size_t dcap, const char *name, char *path, size_t pcap,
                                   const char *file)
{
    expect_true(tu_scratch(dir, dcap, name) == 0, "a scratch folder for %s", name);
    snprintf(path, pcap, "%s/%s", dir, file);
}

/* cmocka's group setup and teardown, named setup and teardown: OPEN makes
 * the fixture and CLOSE removes it, each an expression giving 0 or -1. */
#define TU_GROUP(OPEN, CLOSE)                                             \
    static int setup(void **state)                                       \
    {                                                                    \
        (void)state;                                                     \
        return (OPEN);                                                   \
    }                                                                    \
    static int teardown(void **state)                                    \
    {                                                                    \
        (void)state;                                                     \
        return (CLOSE);                                                  \
    }

/* g_dir, a scratch folder made before the group's tests and removed after;
 * path_in(buf, cap, name) = g_dir/name; the group's setup and teardown. */
#define TU_SCRATCH_GROUP(NAME)                                            \
    static char g_dir[64];                                               \
    __attribute__((unused)) static void path_in(char *buf, size_t cap,   \
                                                const char *name)        \
    {                                                                    \
        snprintf(buf, cap, "%s/%s", g_dir, name);                        \
    }                                                                    \
    TU_GROUP(tu_scratch(g_dir, sizeof g_dir, NAME), tu_scratch_remove(g_dir))

/* Run the tests listed (cmocka_unit_test(...), ...) with a group setup and
 * teardown (or NULL) and return cmocka's result from the caller.
 * TEST_FILTER='test_mask*' in the environment runs only the tests whose
 * names match. */
#define TU_RUN(SETUP, TEARDOWN, ...)                                      \
    do {                                                                 \
        const struct CMUnitTest tu_tests_[] = {__VA_ARGS__};             \
        if (getenv("TEST_FILTER"))                                       \
            cmocka_set_test_filter(getenv("TEST_FILTER"));               \
        return cmocka_run_group_tests(tu_tests_, SETUP, TEARDOWN);       \
    } while (0)

/* The same with no display to open a window on: what a program that tests
 * the headless renderer runs under, even inside a desktop session. */
#define TU_RUN_HEADLESS(SETUP, TEARDOWN, ...)                             \
    do {                                                                 \
        unsetenv("DISPLAY");                                             \
        unsetenv("WAYLAND_DISPLAY");                                     \
        TU_RUN(SETUP, TEARDOWN, __VA_ARGS__);                            \
    } while (0)

/* The same with build/stepformer's path put in cli first (for tests that
 * run the program itself). */
#define TU_RUN_CLI(cli, argc, argv, SETUP, TEARDOWN, ...)                       \
    do {                                                                       \
        tu_program_path(cli, sizeof cli, (argc) > 0 ? (argv)[0] : NULL);      \
        TU_RUN(SETUP, TEARDOWN, __VA_ARGS__);                                  \
    } while (0)

/* A row of a table of cases: an input and what is expected of it. */
typedef struct TuPair {
    const char *in, *want;
} TuPair;

/* The sizes of a small test model; 0 keeps the classroom preset's. */
typedef struct TuSize {
    int d_model, n_heads, d_ff, n_enc, n_dec, src_vocab, tgt_vocab, max_len;
} TuSize;

/* The classroom preset (post-LN, untied, dropout and label smoothing 0.1)
 * with the sizes given. */
static inline TfConfig tu_config(TuSize z)
{
    TfConfig c;
    cfg_preset(&c, "classroom", NULL);
    int *field[] = {&c.d_model, &c.n_heads, &c.d_ff, &c.n_enc, &c.n_dec, &c.src_vocab, &c.tgt_vocab, &c.max_len};
    const int want[] = {z.d_model, z.n_heads, z.d_ff, z.n_enc, z.n_dec, z.src_vocab, z.tgt_vocab, z.max_len};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++)
        if (want[k])
            *field[k] = want[k];
    return c;
}

/* Where a model puts its norms and which matrices it ties: the variants a
 * test of the whole pass runs through. */
typedef struct TuVariant {
    const char *name;
    TfNorm norm;
    TfTie tie;
} TuVariant;

/* Post-LN and pre-LN, each untied, with the generator tied, all tied. */
__attribute__((unused)) static const TuVariant TU_VARIANTS[] = {
    {"post-LN untied", TF_NORM_POST, TF_TIE_NONE},
    {"pre-LN untied", TF_NORM_PRE, TF_TIE_NONE},
    {"post-LN tied generator", TF_NORM_POST, TF_TIE_GENERATOR},
    {"pre-LN tied generator", TF_NORM_PRE, TF_TIE_GENERATOR},
    {"post-LN all tied", TF_NORM_POST, TF_TIE_ALL},
    {"pre-LN all tied", TF_NORM_PRE, TF_TIE_ALL},
};
#define TU_N_VARIANTS ((int)(sizeof TU_VARIANTS / sizeof TU_VARIANTS[0]))

/* tu_config(z) in variant v */
static inline TfConfig tu_variant_config(TuSize z, const TuVariant *v)
{
    TfConfig c = tu_config(z);
    c.norm = v->norm;
    c.tie = v->tie;
    return c;
}

/* A random model of tu_config(z) (fails the test if it cannot be made). */
#define tu_model(m, seed, ...)                                                  \
    do {                                                                         \
        TfConfig tu_c_ = tu_config((TuSize){__VA_ARGS__});                       \
        TfErr tu_e_;                                                             \
        expect_true(model_init_random((m), &tu_c_, (seed), &tu_e_) == 0, "model: %s", tu_e_.msg); \
    } while (0)

/* How work grows with its input: the best of seven runs of run(small) and
 * of run(big), as big / small. With 16 times the input, linear work gives
 * about 16 and quadratic 256, so a bound of 64 leaves a busy machine room
 * for a factor of four of noise either way. */
#define TU_GROWTH_BOUND 64.0
static inline double tu_growth(double (*run)(const void *), const void *small, const void *big)
{
    double ts = 1e30, tb = 1e30;
    for (int r = 0; r < 7; r++) {
        double t = run(small);
        ts = t < ts ? t : ts;
        t = run(big);
        tb = t < tb ? t : tb;
    }
    printf("  small %.4f s, big %.4f s: ratio %.1f (linear 16, quadratic 256)\n", ts, tb, tb / ts);
    return tb / ts;
}

/* Read up to cap - 1 bytes of the file at path into text (NUL-terminated;
 * empty when it cannot be read) and return how many lines it holds. */
static inline int tu_read_lines(const char *path, char *text, size_t cap)
{
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(text, 1, cap - 1, f) : 0;
    if (f)
        fclose(f);
    text[n] = 0;
    int lines = 0;
    for (size_t i = 0; i < n; i++)
        lines += text[i] == '\n';
    return lines;
}

/* A TSV file whose first line is `bytes` of words, then a tab and "x". */
static inline void tu_write_long_line(const char *path, size_t bytes)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (size_t i = 0; i < bytes / 8; i++)
        fputs("abc def ", f);
    fputs("\tx\n", f);
    fclose(f);
}

/* Entries of folder dir whose name contains needle (-1: cannot read it). */
static inline int tu_count_names(const char *dir, const char *needle)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strstr(e->d_name, needle) != NULL;
    closedir(d);
    return n;
}

/* The first entry of folder dir whose name starts with prefix and ends
 * with suffix (and is longer than suffix), as dir/name into path; 1 when
 * there is one, else 0. */
static inline int tu_find_name(const char *dir, const char *prefix, const char *suffix, char *path, size_t cap)
{
    DIR *d = opendir(dir);
    int found = 0;
    size_t p = strlen(prefix), k = strlen(suffix);
    for (struct dirent *e; d && !found && (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n > k && n >= p && strncmp(e->d_name, prefix, p) == 0 && strcmp(e->d_name + n - k, suffix) == 0) {
            snprintf(path, cap, "%s/%s", dir, e->d_name);
            found = 1;
        }
    }
    if (d)
        closedir(d);
    return found;
}

/* Run the shell command cmd, keep up to cap - 1 bytes of what it prints
 * in out (NUL-terminated) and return pclose's status. */
static inline int tu_run_cmd(const char *cmd, char *out, size_t cap)
{
    FILE *p = popen(cmd, "r");
    expect_true(p != NULL, "popen %s", cmd);
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = 0;
    return pclose(p);
}

/* How many lines text holds (its newlines). */
static inline int tu_count_lines(const char *text)
{
    int n = 0;
    for (; *text; text++)
        n += *text == '\n';
    return n;
}

/* Run `prog ARGS` through the shell, ARGS (a shell fragment) made from fmt
 * and ap, its standard error going to the file errpath: up to cap - 1 bytes
 * of its standard output in out, up to ecap - 1 of its standard error in err
 * (unless err is NULL), both NUL-terminated; its exit status, or -1 when it
 * did not exit. */
static inline int tu_run_prog(const char *prog, const char *errpath, char *out, size_t cap, char *err,
                              size_t ecap, const char *fmt, va_list ap)
{
    char args[8192], cmd[8192 + 4096 + 512];
    vsnprintf(args, sizeof args, fmt, ap);
    snprintf(cmd, sizeof cmd, "'%s' %s 2>'%s'", prog, args, errpath);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = 0;
    while (fgetc(p) != EOF) /* the rest, so that the child is not cut short */
        ;
    int st = pclose(p);
    if (err)
        tu_read_lines(errpath, err, ecap);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* In a child process: become prog run with args (NULL-terminated, at most
 * 30 of them) as its arguments; exit 127 when it cannot. */
static inline void tu_exec(const char *prog, const char *const *args)
{
    char *argv[32];
    int n = 0;
    argv[n++] = (char *)prog;
    for (; args[n - 1] && n < 31; n++)
        argv[n] = (char *)args[n - 1];
    argv[n] = NULL;
    execv(prog, argv);
    _exit(127);
}

/* build/tests/test_x -> build/stepformer: the program beside the tests */
static inline void tu_program_path(char *buf, size_t cap, const char *argv0)
{
    snprintf(buf, cap, "%s", argv0 ? argv0 : "");
    char *slash = strrchr(buf, '/');
    if (slash)
        slash[0] = 0;
    else
        snprintf(buf, cap, ".");
    size_t n = strlen(buf);
    snprintf(buf + n, cap - n, "/../stepformer");
}

#endif
