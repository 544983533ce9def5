/* test_train_worker.c - the window's training thread (app/session/train_worker.c):
 * it starts, pauses, resumes, resets and stops; what it publishes is
 * internally consistent (the parameters, step and loss of a publication are
 * those a plain synchronous Trainer reaches at that step, bit for bit, and
 * so are the kept snapshots); a save asked for just before stopping or
 * resetting is never lost; a bad path, a NaN, an absurd size and a TSV file
 * with no usable pairs each end in a message while the worker keeps going.
 *
 * Built twice: with the other tests, and with -fsanitize=thread by
 * `make test-tsan`, which fails on any data race between the worker, the
 * trainer's helper thread and the thread reading the publications. It
 * needs the engine only (no SDL). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "checkpoint.h"
#include "train_worker.h"
#include "test_util.h"

TU_SCRATCH_GROUP("worker")

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* A tiny model on random pairs: thousands of steps a second. */
static TwSpec tiny_spec(uint64_t data_seed)
{
    TwSpec s;
    tw_spec_default(&s);
    s.task[0] = 0;
    s.d_model = 16;
    s.n_heads = 2;
    s.d_ff = 32;
    s.n_layers = 1;
    s.max_len = 16;
    s.o.batch = 8;
    s.o.warmup = 50;
    s.data = malloc(sizeof *s.data);
    TfErr err;
    expect_true(s.data && dataset_random(s.data, 200, 12, 5, 4, data_seed, &err) == 0,
                "a random data set: %s", err.msg);
    return s;
}

/* The same run, trained synchronously on this thread. */
typedef struct Ref {
    Dataset d;
    TfModel m;
    Trainer t;
    float last_loss;
} Ref;

static void ref_init(Ref *r, const TwStatus *st, uint64_t data_seed)
{
    TfErr err;
    memset(r, 0, sizeof *r);
    expect_true(dataset_random(&r->d, 200, 12, 5, 4, data_seed, &err) == 0, "%s", err.msg);
    expect_true(trainer_model_new(&r->m, &st->cfg, &r->d, st->o.seed, &err) == 0, "%s", err.msg);
    expect_true(trainer_init(&r->t, &r->m, &r->d, &st->o, &err) == 0, "%s", err.msg);
}

static void ref_to(Ref *r, long long step)
{
    TrainStats s;
    TfErr err;
    expect_true(r->t.step <= step, "the reference is not ahead: at %lld, asked %lld", r->t.step, step);
    while (r->t.step < step) {
        expect_true(trainer_step(&r->t, &s, &err) == 0, "reference step: %s", err.msg);
        r->last_loss = (float)s.loss;
    }
}

static void ref_free(Ref *r)
{
    trainer_free(&r->t);
    model_free(&r->m);
    dataset_free(&r->d);
}

static void same_params(const char *what, const float *got, const Ref *r)
{
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < r->m.n_params; i++)
        if (got[i] != r->m.block[i] && !bad++)
            first = i;
    expect_true(bad == 0, "%s: parameters equal the synchronous trainer's at step %lld; "
                "%zu of %zu differ, first [%zu] got %.9g want %.9g", what, r->t.step, bad,
                r->m.n_params, first, got[first], r->m.block[first]);
}

static TwStatus *status_now(TrainWorker *w)
{
    static TwStatus st;
    st.seq = 0;
    tw_status(w, &st, 1);
    return &st;
}

/* Play until the run is past step `after` (at most a minute: under
 * ThreadSanitizer on a loaded machine one step can take longer than any
 * fixed pause), then pause and wait until the worker is idle. */
static TwStatus *play_past(TrainWorker *w, long long after)
{
    tw_play(w, 1);
    for (int i = 0; i < 6000 && status_now(w)->step <= after; i++)
        sleep_ms(10);
    tw_play(w, 0);
    tw_wait_idle(w);
    return status_now(w);
}

/* Set the worker up with spec s, take n steps (none: 0), wait until it is
 * idle and return what it published. */
static TwStatus *run_spec(TrainWorker *w, TwSpec *s, long long n)
{
    TfErr err;
    tw_setup(w, s, &err);
    if (n > 0)
        tw_steps(w, n, &err);
    tw_wait_idle(w);
    return status_now(w);
}

/* A new run of tiny_spec(seed) takes n steps (`when`: for the message). */
static void expect_trains(TrainWorker *w, uint64_t seed, long long n, const char *when)
{
    TwSpec s = tiny_spec(seed);
    long long step = run_spec(w, &s, n)->step;
    expect_true(step == n, "%s it trains: step %lld, got %lld", when, n, step);
}

/* A worker with tiny_spec(seed) set up (both must work); *s is the spec. */
static TrainWorker *tiny_worker(TwSpec *s, uint64_t seed)
{
    TfErr err;
    TrainWorker *w = tw_new(&err);
    expect_true(w != NULL, "the worker starts: %s", err.msg);
    *s = tiny_spec(seed);
    expect_true(tw_setup(w, s, &err) == 0, "setup queued: %s", err.msg);
    return w;
}

/* Published (step, loss, parameters) taken while the worker trains, then
 * after pausing, resuming and pausing again, all match a plain trainer. */
static void test_publications_are_consistent(void **state)
{
    (void)state;
    TfErr err;
    TwSpec s;
    TrainWorker *w = tiny_worker(&s, 3);
    tw_wait_idle(w);
    TwStatus *st = status_now(w);
    expect_true(st->state == TW_PAUSED && st->step == 0 && st->gen == 1,
                "a fresh run is paused at step 0 of run 1: state %d step %lld gen %llu",
                st->state, st->step, (unsigned long long)st->gen);
    expect_true(st->n_snap == 1 && st->snaps[0].step == 0, "step 0 is kept: %d snapshots", st->n_snap);
    uint64_t gen = st->gen;
    size_t n = st->n_params;
    Ref r;
    ref_init(&r, st, 3);
    float *p = malloc(n * sizeof(float));
    long long at, got[8];
    float loss[8];
    float *copies[8];
    expect_true(p != NULL, "memory");
    expect_true(tw_params(w, gen, -1, p, n, &at, &loss[0]) == 0 && at == 0, "live params at 0");
    same_params("step 0", p, &r);

    /* while it trains: every copy is of one step, whatever the moment */
    tw_play(w, 1);
    int k = 0;
    for (int i = 0; i < 8; i++) {
        sleep_ms(15 + 7 * i);
        copies[k] = malloc(n * sizeof(float));
        if (tw_params(w, gen, -1, copies[k], n, &got[k], &loss[k]) == 0)
            k++;
        else
            free(copies[k]);
    }
    tw_play(w, 0);
    tw_wait_idle(w);
    st = status_now(w);
    expect_true(st->state == TW_PAUSED, "paused: state %d", st->state);
    expect_true(k >= 4 && got[k - 1] > got[0], "copies taken while training: %d, steps %lld..%lld",
                k, k ? got[0] : -1, k ? got[k - 1] : -1);
    for (int i = 0; i < k; i++) {
        ref_to(&r, got[i]);
        char what[64];
        snprintf(what, sizeof what, "copy %d (step %lld)", i, got[i]);
        same_params(what, copies[i], &r);
        expect_true(got[i] == 0 || loss[i] == r.last_loss, "%s: loss %.9g, reference %.9g", what,
                    loss[i], r.last_loss);
        free(copies[i]);
    }
    long long paused_at = st->step;
    /* the snapshots, too */
    for (int i = 0; i < st->n_snap; i++) {
        long long ss = st->snaps[i].step;
        if (ss < r.t.step)
            continue;
        ref_to(&r, ss);
        expect_true(tw_params(w, gen, ss, p, n, &at, &loss[0]) == 0, "snapshot %lld readable", ss);
        same_params("snapshot", p, &r);
    }
    /* resumed, then paused: still the same run */
    st = play_past(w, paused_at);
    expect_true(st->step > paused_at, "resumed: step %lld after %lld", st->step, paused_at);
    expect_true(tw_params(w, gen, -1, p, n, &at, &loss[0]) == 0 && at == st->step, "live params");
    ref_to(&r, at);
    same_params("after resuming", p, &r);
    expect_true(st->log[st->n_log - 1].step <= st->step && st->n_log > 0, "the curve ends at %lld",
                st->n_log ? st->log[st->n_log - 1].step : -1);
    ref_free(&r);

    /* reset: a new run at step 0 with the same initial parameters */
    TwSpec s2 = tiny_spec(3);
    expect_true(tw_setup(w, &s2, &err) == 0, "reset queued: %s", err.msg);
    tw_wait_idle(w);
    st = status_now(w);
    expect_true(st->gen == gen + 1 && st->step == 0 && st->n_log == 0,
                "reset: run %llu at step %lld with %d curve points", (unsigned long long)st->gen,
                st->step, st->n_log);
    expect_true(tw_params(w, gen, -1, p, n, &at, &loss[0]) == -1, "the old run's params are gone");
    ref_init(&r, st, 3);
    expect_true(tw_params(w, st->gen, -1, p, n, &at, &loss[0]) == 0, "new params");
    same_params("after reset", p, &r);
    ref_free(&r);
    free(p);
    /* stop while training */
    tw_play(w, 1);
    sleep_ms(20);
    tw_free(w);
}

/* Step takes exactly N steps, and still does after play and pause were
 * pressed in quick succession. */
static void test_step_command(void **state)
{
    (void)state;
    TfErr err;
    TwSpec s;
    TrainWorker *w = tiny_worker(&s, 4);
    expect_true(tw_steps(w, 1, &err) == 0 && tw_steps(w, 24, &err) == 0, "steps queued");
    tw_wait_idle(w);
    TwStatus *st = status_now(w);
    expect_true(st->step == 25 && st->state == TW_PAUSED, "1 + 24 steps: got step %lld, state %d",
                st->step, st->state);
    for (int i = 0; i < 20; i++) {
        tw_play(w, i % 2 == 0);
        sleep_ms(2);
    }
    tw_play(w, 0);
    tw_wait_idle(w);
    long long at = status_now(w)->step;
    tw_steps(w, 3, &err);
    tw_wait_idle(w);
    expect_true(status_now(w)->step == at + 3, "3 more steps: expected %lld, got %lld", at + 3,
                status_now(w)->step);
    tw_free(w);
}

/* How many of this process's threads run at nice `at_least` or above
 * (Linux: field 19 of /proc/self/task/TID/stat, after the name in ()). */
static int threads_niced(int at_least)
{
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[300], buf[1024];
        snprintf(path, sizeof path, "/proc/self/task/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        size_t got = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
        if (f)
            fclose(f);
        buf[got] = 0;
        const char *p = strrchr(buf, ')');
        int field = 2, nice = 0;
        for (; p && *p && field < 19; p++)
            if (*p == ' ')
                field++;
        if (p && field == 19 && sscanf(p, "%d", &nice) == 1 && nice >= at_least)
            n++;
    }
    closedir(d);
    return n;
}

/* The window's thread keeps its priority; the worker and the trainer's
 * helper it starts run TW_NICE nicer, so a frame drawn while training gets
 * a core at once. */
static void test_worker_runs_nicer(void **state)
{
    (void)state;
    TfErr err;
    int mine = getpriority(PRIO_PROCESS, 0), want = mine + TW_NICE > 19 ? 19 : mine + TW_NICE;
    expect_true(mine < want, "this test runs at nice %d: nothing can be nicer", mine);
    TrainWorker *w = tw_new(&err);
    expect_true(w != NULL, "worker: %s", err.msg);
    TwSpec s = tiny_spec(6);
    s.o.threads = 2;
    TwStatus *st = run_spec(w, &s, 5);
    expect_true(st->step == 5, "5 steps taken, got %lld", st->step);
    int n = threads_niced(want);
    expect_true(n == 2, "the worker and the trainer's helper run at nice %d: %d threads do", want, n);
    expect_true(getpriority(PRIO_PROCESS, 0) == mine, "this thread stays at nice %d", mine);
    tw_free(w);
}

static long long saved_step(const char *path)
{
    TfModel m;
    TfErr err;
    if (ckpt_load(&m, path, &err)) {
        printf("  %s: %s\n", path, err.msg);
        return -1;
    }
    const char *s = model_meta_get(&m, "train_step");
    long long v = s ? atoll(s) : -1;
    model_free(&m);
    return v;
}

/* Saves queued before a reset or a stop are written, of the right step. */
static void test_no_lost_save(void **state)
{
    (void)state;
    TfErr err;
    char a[128], b[128], c[128];
    snprintf(a, sizeof a, "%s/a.safetensors", g_dir);
    snprintf(b, sizeof b, "%s/b.safetensors", g_dir);
    snprintf(c, sizeof c, "%s/c.safetensors", g_dir);
    TwSpec s;
    TrainWorker *w = tiny_worker(&s, 5);
    tw_steps(w, 30, &err);
    tw_save(w, a, &err);       /* then straight into a reset ... */
    TwSpec s2 = tiny_spec(5);
    tw_setup(w, &s2, &err);
    tw_steps(w, 7, &err);
    tw_save(w, b, &err);       /* ... and a save right before stopping */
    tw_play(w, 1);
    tw_save(w, c, &err);       /* while playing */
    tw_free(w);
    expect_true(saved_step(a) == 30, "%s holds step 30, got %lld", a, saved_step(a));
    expect_true(saved_step(b) == 7, "%s holds step 7, got %lld", b, saved_step(b));
    expect_true(saved_step(c) >= 7, "%s was written while playing (step %lld)", c, saved_step(c));
}

/* Saves named by the worker: three within a second are three files
 * (stepformer-NAME-time, then -2, -3), each announced with its path and
 * step. */
static void test_named_saves_differ(void **state)
{
    (void)state;
    TfErr err;
    char dir[160];
    snprintf(dir, sizeof dir, "%s/named", g_dir);
    mkdir(dir, 0755);
    TrainWorker *w = tw_new(&err);
    TwSpec s = tiny_spec(4);
    TwStatus *st = run_spec(w, &s, 3);
    uint64_t seen = st->msg_seq;
    TwSaveName last = {"", 0};
    for (int i = 0; i < 3; i++)
        expect_true(tw_save_new(w, &last, dir, "tiny", &err) == 0, "save %d queued: %s", i, err.msg);
    tw_wait_idle(w);
    st = status_now(w);
    expect_true(st->msg_seq == seen + 3 && st->msg == TW_MSG_SAVED && !st->msg_error && st->msg_n[0] == 3 &&
                    strstr(st->msg_text, "/named/stepformer-tiny-"),
                "the third save announced: message %d, step %lld, '%s'", st->msg, st->msg_n[0], st->msg_text);
    tw_free(w);
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d)))
        n += strncmp(e->d_name, "stepformer-tiny-", 16) == 0 && strstr(e->d_name, ".safetensors") &&
             !strstr(e->d_name, ".tmp");
    if (d)
        closedir(d);
    expect_true(n == 3, "three saves, three files (%d)", n);
}

/* A save to a bad path is a message; training goes on. */
static void test_bad_save_path(void **state)
{
    (void)state;
    TfErr err;
    TwSpec s;
    TrainWorker *w = tiny_worker(&s, 6);
    tw_steps(w, 5, &err);
    tw_save(w, "/nonexistent-dir/x.safetensors", &err);
    tw_steps(w, 5, &err);
    tw_wait_idle(w);
    TwStatus *st = status_now(w);
    expect_true(st->msg_error && st->msg == TW_MSG_SAVE_FAILED && strstr(st->msg_text, "nonexistent-dir"),
                "a failed save naming the path, got message %d '%s'", st->msg, st->msg_text);
    expect_true(st->step == 10, "training went on: step %lld, expected 10", st->step);
    tw_free(w);
}

/* A learning rate 10^20 times the schedule's: NaN at step 2, a message,
 * the parameters of step 1 kept, and a Reset trains again. */
static void test_nan(void **state)
{
    (void)state;
    TfErr err;
    TrainWorker *w = tw_new(&err);
    TwSpec s = tiny_spec(7);
    s.o.lr_scale = 1e20f;
    tw_setup(w, &s, &err);
    tw_play(w, 1);
    for (int i = 0; i < 500 && status_now(w)->msg_seq == 0; i++)
        sleep_ms(5);
    tw_wait_idle(w);
    TwStatus *st = status_now(w);
    expect_true(st->msg_error && st->msg == TW_MSG_STOPPED &&
                    (strstr(st->msg_text, "NaN") || strstr(st->msg_text, "infinite") ||
                     strstr(st->msg_text, "not finite")),
                "a NaN message, got message %d '%s'", st->msg, st->msg_text);
    expect_true(st->state == TW_STOPPED, "stopped: state %d", st->state);
    size_t n = st->n_params;
    float *p = malloc(n * sizeof(float));
    long long at;
    float loss;
    expect_true(tw_params(w, st->gen, -1, p, n, &at, &loss) == 0, "params readable");
    int finite = 1;
    for (size_t i = 0; i < n; i++)
        finite &= isfinite(p[i]);
    expect_true(finite && at == st->step, "the last good parameters (step %lld) are finite", at);
    free(p);
    expect_trains(w, 7, 5, "after a reset");
    tw_free(w);
}

/* d_model 8192 with 64+64 layers: refused before allocating, with a
 * message about memory; a TSV file with no usable pair: its reason. */
static void test_bad_setups(void **state)
{
    (void)state;
    TfErr err;
    TrainWorker *w = tw_new(&err);
    TwSpec s;
    tw_spec_default(&s);
    snprintf(s.task, sizeof s.task, "copy");
    s.d_model = 8192;
    s.n_heads = 8;
    s.d_ff = 32768;
    s.n_layers = 64;
    TwStatus *st = run_spec(w, &s, 0);
    expect_true(st->state == TW_EMPTY && st->msg == TW_MSG_SETUP_FAILED && st->msg_error &&
                    strstr(st->msg_text, "memory") && strstr(st->msg_text, "8192"),
                "too big: no run and a message about memory, got state %d '%s'", st->state, st->msg_text);
    s.d_model = 30;
    s.n_heads = 4;
    s.d_ff = 64;
    s.n_layers = 1;
    st = run_spec(w, &s, 0);
    expect_true(st->state == TW_EMPTY && strstr(st->msg_text, "30") && strstr(st->msg_text, "heads"),
                "heads must divide d_model: got '%s'", st->msg_text);
    char path[128];
    snprintf(path, sizeof path, "%s/empty.tsv", g_dir);
    tu_write_text(g_dir, "empty.tsv", "# only comments\n\nno tab on this line\n");
    tw_spec_default(&s);
    s.task[0] = 0;
    snprintf(s.path, sizeof s.path, "%s", path);
    st = run_spec(w, &s, 0);
    expect_true(st->state == TW_EMPTY && st->msg_error && strstr(st->msg_text, "empty.tsv"),
                "no usable pairs: a message naming the file, got '%s'", st->msg_text);
    expect_trains(w, 8, 3, "after bad setups"); /* and it still works */
    tw_free(w);
}

/* The Train tab's file field: a FIFO or a device is refused at once (the
 * worker neither hangs on it nor blocks tw_free's join), a file without
 * newlines is "line longer than 16 MiB", not memory that follows it. */
static void test_file_field_not_regular(void **state)
{
    (void)state;
    alarm(60); /* a hang fails the test instead of stalling it */
    TfErr err;
    TrainWorker *w = tw_new(&err);
    TwSpec s;
    char fifo[128], nonl[128];
    snprintf(fifo, sizeof fifo, "%s/pipe.tsv", g_dir);
    snprintf(nonl, sizeof nonl, "%s/no-newline.tsv", g_dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    FILE *f = fopen(nonl, "w");
    for (int i = 0; i < (17 << 20) / 4; i++)
        fputs("abc ", f);
    fclose(f);
    expect_true(tw_data_file_check(fifo, &err) != 0 && strstr(err.msg, "FIFO"),
                "checked before a run is replaced: %s", err.msg);
    expect_true(tw_data_file_check(nonl, &err) == 0, "a regular file passes the check");
    static const struct {
        const char *path, *want;
    } cases[] = {{NULL, "FIFO"}, {"/dev/zero", "device"}, {"", "line longer than 16 MiB"}};
    for (int i = 0; i < 3; i++) {
        const char *p = !cases[i].path ? fifo : cases[i].path[0] ? cases[i].path : nonl;
        tw_spec_default(&s);
        s.task[0] = 0;
        snprintf(s.path, sizeof s.path, "%s", p);
        TwStatus *st = run_spec(w, &s, 0);
        expect_true(st->state == TW_EMPTY && st->msg_error && strstr(st->msg_text, p) &&
                        strstr(st->msg_text, cases[i].want),
                    "%s: a message naming it and \"%s\", got '%s'", p, cases[i].want, st->msg_text);
    }
    tw_free(w);
    unlink(fifo);
    unlink(nonl);
    alarm(0);
}

/* Snapshots thin out (every other dropped, interval doubled) and span the
 * whole run; the curve thins the same way. */
static void test_snapshots_thin(void **state)
{
    (void)state;
    TfErr err;
    TrainWorker *w = tw_new(&err);
    TwSpec s = tiny_spec(9);
    TwStatus *st = run_spec(w, &s, 1300);
    expect_true(st->n_snap >= 2 && st->n_snap <= st->snap_cap, "%d snapshots of at most %d",
                st->n_snap, st->snap_cap);
    expect_true(st->snaps[0].step == 0 && st->snaps[st->n_snap - 1].step > 1300 - st->snap_every,
                "from step 0 to near the end: %lld..%lld (every %lld)", st->snaps[0].step,
                st->snaps[st->n_snap - 1].step, st->snap_every);
    for (int i = 1; i < st->n_snap; i++)
        expect_true(st->snaps[i].step == st->snaps[i - 1].step + st->snap_every,
                    "evenly spaced: %lld after %lld", st->snaps[i].step, st->snaps[i - 1].step);
    expect_true(st->n_log > 0 && st->log[st->n_log - 1].step <= 1300 && st->n_eval > 1,
                "curve of %d points, %d evaluations", st->n_log, st->n_eval);
    tw_free(w);
}

/* Without threads (the browser): a cooperative worker runs nothing until
 * pumped, then trains in slices of about the time given, and ends at the
 * synchronous trainer's parameters, as the threaded worker does. */
static void test_cooperative_pumped(void **state)
{
    (void)state;
    TfErr err;
    tw_set_cooperative(1);
    TwSpec s;
    TrainWorker *w = tiny_worker(&s, 3);
    tw_set_cooperative(0);
    expect_true(tw_steps(w, 30, &err) == 0, "steps queued: %s", err.msg);
    TwStatus *st = status_now(w);
    expect_true(st->state != TW_PAUSED || st->n_params == 0, "nothing ran before a pump: state %d, %zu params",
                st->state, st->n_params);
    int pumps = 0;
    while (tw_pump(w, 0.0) && pumps < 1000) /* a zero budget: one command or step a pump */
        pumps++;
    st = status_now(w);
    expect_true(st->step == 30 && st->state == TW_PAUSED, "after %d pumps: step %lld, state %d", pumps, st->step,
                st->state);
    expect_true(pumps >= 30, "one step a pump with no time to spare: %d pumps for setup + 30 steps", pumps);
    expect_true(st->o.threads == 1, "no thread of its own for the trainer either: threads %d", st->o.threads);
    expect_true(tw_pump(w, 0.01) == 0, "idle: nothing left to pump");
    Ref r;
    ref_init(&r, st, 3);
    ref_to(&r, 30);
    float *p = malloc(st->n_params * sizeof(float));
    long long at;
    float loss;
    expect_true(p && tw_params(w, st->gen, -1, p, st->n_params, &at, &loss) == 0 && at == 30, "params at 30");
    same_params("pumped to step 30", p, &r);
    /* tw_wait_idle does the work itself */
    expect_true(tw_steps(w, 5, &err) == 0, "5 more: %s", err.msg);
    tw_wait_idle(w);
    expect_true(status_now(w)->step == 35, "tw_wait_idle pumped to 35: step %lld", status_now(w)->step);
    free(p);
    ref_free(&r);
    tw_free(w);
}

int main(void)
{
    TU_RUN(setup, teardown,
           cmocka_unit_test(test_publications_are_consistent),
           cmocka_unit_test(test_step_command),
           cmocka_unit_test(test_worker_runs_nicer),
           cmocka_unit_test(test_no_lost_save),
           cmocka_unit_test(test_named_saves_differ),
           cmocka_unit_test(test_bad_save_path),
           cmocka_unit_test(test_nan),
           cmocka_unit_test(test_bad_setups),
           cmocka_unit_test(test_file_field_not_regular),
           cmocka_unit_test(test_snapshots_thin),
           cmocka_unit_test(test_cooperative_pumped));
}
