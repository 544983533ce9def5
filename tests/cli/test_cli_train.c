/* test_cli_train.c - `stepformer train` keeps the run: --out is checked
 * before the first step (a missing or read-only folder is one line at
 * once), 0-1 usable pairs train without a held-out set and save, and a
 * signal during the final evaluation (even twice) stops it and saves. */
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "checkpoint.h"
#include "test_util.h"

TU_SCRATCH_GROUP("clitrain")

static char g_prog[512];

/* Run the program with args (NULL-terminated), stderr to errf; returns the
 * exit status (-signal when killed). kill_after: when > 0, send SIGTERM
 * twice once errf holds the text `when`. */
static int run(const char *errf, const char *when, const char *const *args)
{
    fflush(stdout);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fd = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        dup2(fd, 2);
        int nul = open("/dev/null", O_WRONLY);
        dup2(nul, 1);
        alarm(120);
        tu_exec(g_prog, args);
    }
    int status = 0, sent = 0;
    for (;;) {
        pid_t w = waitpid(pid, &status, when ? WNOHANG : 0);
        if (w == pid)
            break;
        usleep(20000);
        if (when && sent < 2) {
            FILE *f = fopen(errf, "r");
            char buf[4096] = {0};
            size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
            if (f)
                fclose(f);
            buf[n] = 0;
            if (strstr(buf, when)) {
                kill(pid, SIGTERM);
                sent++;
                usleep(50000);
            }
        }
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

static int count_lines(const char *path, char *text, size_t cap)
{
    return tu_read_lines(path, text, cap);
}

static void test_out_checked_before_training(void **state)
{
    (void)state;
    char errf[128], text[8192];
    path_in(errf, sizeof errf, "err1.txt");
    const char *outs[] = {"/nonexistent-stepformer/x/m.st", "/proc/m.st", "/etc/passwd/m.st"};
    for (int i = 0; i < 3; i++) {
        const char *args[] = {"train", "--task", "copy", "--steps", "100000", "--out", outs[i], NULL};
        int rc = run(errf, NULL, args);
        int lines = count_lines(errf, text, sizeof text);
        expect_true(rc != 0 && lines == 1 && strstr(text, outs[i]) && !strstr(text, "step "),
                    "--out %s: one line naming it before any step; rc %d, %d lines:\n%s", outs[i],
                    rc, lines, text);
    }
}

/* A run's data file, output and stderr capture in the scratch folder. */
typedef struct Files {
    char data[128], out[128], errf[128], text[8192];
} Files;

static FILE *files(Files *F, const char *tag)
{
    char name[64];
    snprintf(name, sizeof name, "%s.tsv", tag);
    path_in(F->data, sizeof F->data, name);
    snprintf(name, sizeof name, "%s.st", tag);
    path_in(F->out, sizeof F->out, name);
    snprintf(name, sizeof name, "%s.err", tag);
    path_in(F->errf, sizeof F->errf, name);
    FILE *f = fopen(F->data, "w");
    assert_non_null(f);
    return f;
}

static void expect_loadable(const char *path, const char *what)
{
    TfModel m;
    TfErr err;
    expect_true(ckpt_load(&m, path, &err) == 0, "%s: %s", what, err.msg);
    model_free(&m);
}

static void test_one_pair_trains_and_saves(void **state)
{
    (void)state;
    static Files F;
    char *data = F.data, *out = F.out, *errf = F.errf, *text = F.text;
    FILE *f = files(&F, "header-only");
    fputs("source\ttarget\n", f);
    fclose(f);
    const char *args[] = {"train", "--data", data, "--steps", "3", "--d-model", "16", "--heads", "2",
                          "--layers", "1", "--d-ff", "16", "--eval-every", "1", "--out", out, NULL};
    int rc = run(errf, NULL, args);
    count_lines(errf, text, sizeof F.text);
    expect_true(rc == 0, "a one-pair file trains, rc %d:\n%s", rc, text);
    const char *once = strstr(text, "without a held-out set");
    expect_true(once && !strstr(once + 1, "without a held-out set"), "said once:\n%s", text);
    expect_loadable(out, "saved and loadable");
}

static void test_signal_during_final_eval_saves(void **state)
{
    (void)state;
    static Files F;
    char *data = F.data, *out = F.out, *errf = F.errf, *text = F.text;
    FILE *f = files(&F, "many");
    for (int i = 0; i < 40000; i++)
        fprintf(f, "w%d w%d w%d\tv%d v%d v%d\n", i, i % 97, i % 13, i % 89, i, i % 7);
    fclose(f);
    const char *args[] = {"train", "--data", data, "--steps", "1", "--d-model", "16", "--heads", "2",
                          "--layers", "1", "--d-ff", "16", "--eval-pairs", "0", "--threads", "1",
                          "--out", out, NULL};
    int rc = run(errf, "step 1/1", args);
    count_lines(errf, text, sizeof F.text);
    expect_true(rc == 0, "two SIGTERMs during the final evaluation: saved, rc %d:\n%s", rc, text);
    expect_loadable(out, "the trained step is saved");
}

/* An evaluation that runs out of memory (STEPFORMER_MEM_LIMIT: room for a
 * batch of 1, not for the evaluation's 32) never discards the run: the
 * final one saves first and then reports; a periodic one saves the run so
 * far with its optimizer state (resumable) and then reports. The memory
 * message says a tenth is held back. */
static void test_failed_evaluation_keeps_the_run(void **state)
{
    (void)state;
    static Files F;
    char *out = F.out, *errf = F.errf, *text = F.text;
    fclose(files(&F, "evalmem"));
    setenv("STEPFORMER_MEM_LIMIT", "3000000", 1);
    const char *fin[] = {"train", "--task", "copy", "--steps", "1", "--eval-every", "0", "--batch", "1",
                         "--out", out, NULL};
    int rc = run(errf, NULL, fin);
    count_lines(errf, text, sizeof F.text);
    printf("  %s", strstr(text, "stepformer") ? strstr(text, "stepformer") : text);
    expect_true(rc != 0 && strstr(text, "final evaluation failed") && strstr(text, "saved") &&
                    strstr(text, "a tenth is kept"), "rc %d:\n%s", rc, text);
    expect_loadable(out, "the final evaluation failed, the trained model is saved");
    unlink(out);
    const char *mid[] = {"train", "--task", "copy", "--steps", "3", "--eval-every", "1", "--batch", "1",
                         "--out", out, NULL};
    rc = run(errf, NULL, mid);
    count_lines(errf, text, sizeof F.text);
    expect_true(rc != 0 && strstr(text, "evaluation at step 1") && strstr(text, "--resume"), "rc %d:\n%s",
                rc, text);
    unsetenv("STEPFORMER_MEM_LIMIT");
    TfModel m;
    CkptOptim opt = {0};
    TfErr err;
    expect_true(ckpt_load_full(&m, &opt, out, &err) == 0 && opt.m, "resumable: %s", err.msg);
    model_free(&m);
    ckpt_optim_free(&opt);
}

/* --out's folder disappears during training (as when its disk fails): the
 * final save cannot go there, so the run is saved, resumable, in $TMPDIR
 * and the message says how to continue. */
static void test_failed_save_is_rescued(void **state)
{
    (void)state;
    static Files F;
    char dir[160], out[200], tmpdir[160], rescue[240], *text = F.text;
    fclose(files(&F, "rescue"));
    path_in(dir, sizeof dir, "vanishing");
    path_in(tmpdir, sizeof tmpdir, "tmpdir");
    assert_true(mkdir(dir, 0700) == 0 && mkdir(tmpdir, 0700) == 0);
    snprintf(out, sizeof out, "%s/run.st", dir);
    snprintf(rescue, sizeof rescue, "%s/stepformer-rescue-run.st", tmpdir);
    setenv("TMPDIR", tmpdir, 1);
    fflush(stdout);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fd = open(F.errf, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        dup2(fd, 2);
        int nul = open("/dev/null", O_WRONLY);
        dup2(nul, 1);
        alarm(120);
        execl(g_prog, g_prog, "train", "--task", "copy", "--steps", "300", "--batch", "2", "--log-every", "100",
              "--eval-every", "0", "--eval-pairs", "8", "--d-model", "16", "--heads", "2", "--layers", "1",
              "--d-ff", "16", "--out", out, (char *)NULL);
        _exit(127);
    }
    int removed = 0, status = 0;
    while (waitpid(pid, &status, WNOHANG) != pid) {
        usleep(5000);
        if (!removed && tu_read_lines(F.errf, text, sizeof F.text) > 0 && strstr(text, "step 1/"))
            removed = rmdir(dir) == 0;
    }
    unsetenv("TMPDIR");
    count_lines(F.errf, text, sizeof F.text);
    expect_true(removed, "the folder was removed while training:\n%s", text);
    expect_true(WIFEXITED(status) && WEXITSTATUS(status) != 0 && strstr(text, "saved in") &&
                    strstr(text, "--resume"), "the failed save is said with where the run went:\n%s", text);
    TfModel m;
    CkptOptim opt = {0};
    TfErr err;
    expect_true(ckpt_load_full(&m, &opt, rescue, &err) == 0 && opt.m && opt.step == 300,
                "the run is in %s, resumable: %s", rescue, err.msg);
    model_free(&m);
    ckpt_optim_free(&opt);
    unlink(rescue);
}

/* --data -: pairs from a pipe, as from zcat, train and save. */
static void test_data_from_a_pipe(void **state)
{
    (void)state;
    static Files F;
    FILE *f = files(&F, "piped");
    for (int i = 0; i < 40; i++)
        fprintf(f, "a%d b%d\tc%d d%d\n", i % 7, i % 5, i % 3, i);
    fclose(f);
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "cat '%s' | '%s' train --data - --steps 2 --d-model 16 --heads 2 --layers 1 --d-ff 16 --out '%s' "
             ">/dev/null 2>'%s'",
             F.data, g_prog, F.out, F.errf);
    int rc = system(cmd);
    count_lines(F.errf, F.text, sizeof F.text);
    expect_true(rc == 0, "trained from a pipe:\n%s", F.text);
    expect_loadable(F.out, "saved");
}

int main(int argc, char **argv)
{
    (void)argc;
    tu_program_path(g_prog, sizeof g_prog, argv[0]);
    TU_RUN(setup, teardown, cmocka_unit_test(test_out_checked_before_training),
           cmocka_unit_test(test_one_pair_trains_and_saves),
           cmocka_unit_test(test_signal_during_final_eval_saves),
           cmocka_unit_test(test_failed_evaluation_keeps_the_run),
           cmocka_unit_test(test_failed_save_is_rescued),
           cmocka_unit_test(test_data_from_a_pipe));
}
