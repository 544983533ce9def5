/* bench_gui.c - frame times of every view at 1920x1080 through the software
 * renderer (what `stepformer shot` uses; a GPU window is faster), the Q/K
 * map with the thousands of points of a data set, the time
 * from an edited source sentence to the redrawn view, what an idle window
 * with a focused field costs, how long typing into a base-size model holds
 * the window's loop (alone and under load), and training in the
 * window: frame times while the worker trains (frame_train), and the
 * worker's tokens/s while the train view is drawn at the pace the window
 * loop draws it (train_in_app_classroom), beside a plain trainer on the
 * same data in the same run. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "checkpoint.h"
#include "cli.h"
#include "app.h"
#include "heads_host.h"
#include "heads_lab.h"
#include "train_host.h"

/* One frame, with the mouse moving over the view as a learner's would. */
static void frame_body(void *p)
{
    BenchApp *f = p;
    App *a = f->a;
    f->tick++;
    a->now += 1.0;
    a->ui.in.mx = 700 + (f->tick * 37) % 600;
    a->ui.in.my = 300 + (f->tick * 23) % 400;
    app_frame(a, f->r);
}

typedef struct ViewCase {
    const char *name, *stage;
    int layer, head;
    ViewId view;
} ViewCase;

static const ViewCase CASES[] = {
    {"frame_matrix", "enc.self.weights", 0, 0, VIEW_AUTO},
    {"frame_tokens", "src.tokens", 0, 0, VIEW_AUTO},
    {"frame_vectors", "enc.input", 0, 0, VIEW_AUTO},
    {"frame_heads", "dec.cross.weights", 0, -1, VIEW_AUTO},
    {"frame_lines", "dec.cross.weights", 1, 0, VIEW_LINES},
    {"frame_mask", "dec.self.mask", 0, 0, VIEW_AUTO},
    {"frame_pe", "pos.enc", 0, 0, VIEW_AUTO},
    {"frame_norm", "enc.norm1", 0, 0, VIEW_AUTO},
    {"frame_ffn", "enc.ffn.hidden", 0, 0, VIEW_AUTO},
    {"frame_output", "out.probs", 0, 0, VIEW_AUTO},
    {"frame_decode", "out.probs", 0, 0, VIEW_DECODE},
    {"frame_train", "out.probs", 0, 0, VIEW_TRAIN},
};

static int want(const char *only, const char *name)
{
    return !only || strncmp(name, only, strlen(only)) == 0;
}

static void sleep_s(double s)
{
    if (s <= 0)
        return;
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

/* The train view's default run (en2zh, classroom size), playing; frames
 * are drawn until it is really training (ten seconds at most: the worker
 * runs nicer than this thread, slower on a busy machine). */
static int train_start(App *a, Ren *r)
{
    if (app_train_setup(a, "en2zh", 0))
        return 0;
    app_train_play(a, 1);
    for (int i = 0; i < 500 && a->train->st.step < 20; i++) {
        sleep_s(0.02);
        a->now += 0.02;
        app_frame(a, r);
    }
    return a->train->st.step >= 20;
}

Ren *bench_app(App *a, int w, int h, const char *stage)
{
    TfErr err;
    Ren *r = ren_open_headless(w, h, &err);
    if (!r) {
        fprintf(stderr, "bench: %s\n", err.msg);
        return NULL;
    }
    AppOpts o = {0};
    o.src[0] = "i read books at home today";
    o.n_src = 1;
    o.stage = stage;
    if (app_init(a, &o, &err)) {
        fprintf(stderr, "bench: %s\n", err.msg);
        ren_close(r);
        return NULL;
    }
    a->notice[0] = 0;
    return r;
}

/* frame_train_over_matrix: the train view's p95 (while it trains) over the
 * matrix view's, both measured in this run; and the same of the frames'
 * CPU time (a loaded machine inflates the wall clock of both alike only
 * on average). The goal is 1.5 at most. */
static void bench_frames(double secs, const char *only)
{
    static App a;
    Ren *r = bench_app(&a, 1920, 1080, NULL);
    if (!r)
        return;
    BenchStats matrix = {0}, train = {0};
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        const ViewCase *c = &CASES[i];
        if (!want(only, c->name))
            continue;
        app_goto(&a, stage_find(c->stage), c->layer);
        session_set_head(&a.ses, c->head);
        a.view = c->view;
        BenchApp f = {&a, r, 0};
        int training = c->view == VIEW_TRAIN && train_start(&a, r);
        BenchStats s = bench_run(frame_body, &f, 30, secs);
        if (training)
            app_train_play(&a, 0);
        bench_print(c->name, &s, 0, 0, 0, training ? "training" : NULL, 1);
        if (c->view == VIEW_TRAIN)
            train = s;
        else if (i == 0)
            matrix = s;
    }
    if (matrix.p95_ms > 0 && train.p95_ms > 0)
        printf("{\"name\": \"frame_train_over_matrix\", \"p95_ratio\": %.3f, \"median_ratio\": %.3f, "
               "\"cpu_p95_ratio\": %.3f, \"train_p95_ms\": %.3f, \"matrix_p95_ms\": %.3f}\n",
               train.p95_ms / matrix.p95_ms, train.median_ms / matrix.median_ms,
               matrix.cpu_p95_ms > 0 ? train.cpu_p95_ms / matrix.cpu_p95_ms : 0, train.p95_ms, matrix.p95_ms);
    app_free(&a);
    ren_close(r);
}

/* ---- the Q/K map over a data set ---- */

/* frame_qkmap (the sentence's points alone) and frame_qkmap_data_500 (with
 * the queries and keys of 500 held-out pairs of en2zh: thousands of
 * points) at 1920 x 1080, the mouse moving over the plot (hover search,
 * lines to the hovered query's keys); points and the data over sentence
 * p95 ratio in the second line. */
static void bench_qkmap(double secs)
{
    static App a;
    Ren *r = bench_app(&a, 1920, 1080, NULL);
    if (!r)
        return;
    app_goto(&a, stage_find("dec.cross.weights"), 1);
    session_set_head(&a.ses, 2);
    a.view = VIEW_QKMAP;
    BenchApp f = {&a, r, 0};
    BenchStats one = bench_run(frame_body, &f, 30, secs);
    bench_print("frame_qkmap", &one, 0, 0, 0, NULL, 0);
    if (hhost_qk_data(&a, NULL, 500)) {
        fprintf(stderr, "bench: %s\n", a.notice);
    } else {
        app_frame(&a, r); /* the map of every point made once, before timing */
        int points = a.hlab && a.hlab->qk_ok ? a.hlab->qk.map.nq + a.hlab->qk.map.nk : 0;
        BenchStats data = bench_run(frame_body, &f, 30, secs);
        BenchExtra x[] = {{"points", points}, {"p95_over_sentence", one.p95_ms > 0 ? data.p95_ms / one.p95_ms : 0}};
        bench_print_extras("frame_qkmap_data_500", &data, 0, 0, 0, x, 2);
    }
    app_free(&a);
    ren_close(r);
}

/* ---- a focused field in an idle window ---- */

/* idle_focused_line: the window at 1280 x 800 with the keyboard in the
 * Source line and nothing happening, over a minute of the window's clock
 * (advanced to each wake-up it asks for, app_next_wake_ms; the frames
 * themselves are drawn and timed for real). frames_per_min counts the
 * frames the caret asked for; idle_cpu_share is their CPU time over the
 * minute; idle_cpu_share_at_0.3s_tick the share the same frames would
 * cost at the fixed 0.3 s wake-up of before (200 a minute). */
static void bench_idle_focus(void)
{
    static App a;
    Ren *r = bench_app(&a, 1280, 800, NULL);
    if (!r)
        return;
    a.now = 1000;
    app_frame(&a, r);
    app_focus_line(&a, APP_LINE_SRC);
    int frames = 0;
    double cpu = 0, t_end = a.now + 60;
    while (a.now < t_end && frames < 100000) {
        double c0 = tf_thread_seconds();
        app_frame(&a, r);
        cpu += tf_thread_seconds() - c0;
        frames++;
        int ms = app_next_wake_ms(&a);
        if (ms < 0)
            break; /* asleep until an event */
        a.now += ms * 1e-3;
    }
    double per = frames ? cpu / frames : 0;
    printf("{\"name\": \"idle_focused_line\", \"frames_per_min\": %d, \"frame_cpu_ms\": %.3f, "
           "\"idle_cpu_share\": %.5f, \"idle_cpu_share_at_0.3s_tick\": %.5f, \"asleep\": %d}\n",
           frames, per * 1e3, cpu / 60, per * 200 / 60, app_next_wake_ms(&a) < 0 && app_focused_line(&a) == APP_LINE_SRC);
    app_free(&a);
    ren_close(r);
}

/* Change one word of the source, recompute, redraw. */
static void edit_body(void *p)
{
    BenchApp *e = p;
    App *a = e->a;
    e->tick++;
    char line[APP_TEXT_MAX];
    snprintf(line, sizeof line, "%s", a->ses.src_line);
    char *last = strrchr(line, ' ');
    if (last)
        snprintf(last + 1, 16, "t%d", 4 + e->tick % 900);
    app_set_text(a, APP_LINE_SRC, line);
    a->now += 1.0;
    app_frame(a, e->r);
}

/* The base-size model (vocabulary 1000, max_len 64) saved to path: 0, or
 * -1 after a line on stderr. */
static int save_base_model(const char *path)
{
    TfErr err;
    TfModel m;
    if (bench_base_model(&m, 1000, 64, 3, &err) || ckpt_save(&m, path, &err)) {
        fprintf(stderr, "bench: %s\n", err.msg);
        return -1;
    }
    model_free(&m);
    return 0;
}

/* The window on the model at path with 32 source tokens (and 32 target
 * tokens with_target) on the encoder's first attention, paced as the
 * window runs it: 0, or -1 (nothing to free). */
static int base_app_open(App *a, const char *path, int with_target)
{
    TfErr err;
    AppOpts o = {0};
    char src[512] = "", tgt[512] = "";
    for (int i = 0; i < 32; i++) {
        snprintf(src + strlen(src), sizeof src - strlen(src), "%st%d", i ? " " : "", 10 + i);
        snprintf(tgt + strlen(tgt), sizeof tgt - strlen(tgt), "%st%d", i ? " " : "", 50 + i);
    }
    o.model_path = path;
    o.src[0] = src;
    o.n_src = 1;
    o.tgt = with_target ? tgt : NULL;
    o.stage = "enc.self.weights";
    if (app_init(a, &o, &err))
        return -1;
    session_set_lazy(&a->ses, 1); /* as the window runs it */
    return 0;
}

static void bench_edit(double secs)
{
    const char *path = "/tmp/stepformer-bench-base.safetensors";
    if (save_base_model(path))
        return;
    TfErr err;
    Ren *r = ren_open_headless(1920, 1080, &err);
    if (!r)
        return;
    static App a;
    if (base_app_open(&a, path, 1) == 0) {
        BenchApp e = {&a, r, 0};
        BenchStats s = bench_run(edit_body, &e, 10, secs);
        bench_print("edit_redraw_base_s32", &s, 0, 0, 0, NULL, 0);
        app_free(&a);
    }
    ren_close(r);
    remove(path);
}

/* ---- typing under load ---- */

/* Busy threads: the competing load of a shared machine. */
typedef struct Burn {
    volatile int stop;
    volatile double sink;
} Burn;

static void *burn_main(void *p)
{
    Burn *b = p;
    double x = 1.0;
    while (!b->stop)
        for (int i = 0; i < 100000; i++)
            x = x * 1.0000001 + 1e-9;
    b->sink = x;
    return NULL;
}

typedef struct StallRun {
    double gap_p95, gap_max;     /* ms between two looks at the queue */
    double frame_p95, frame_max; /* ms of the frames drawn */
    int looks, keys;
} StallRun;

/* cmd_gui.c's loop over the window's App, with a key typed into the Source
 * line every 80 ms for secs seconds of wall time, instead of events: draw
 * when something changed, then the rest of the pass one piece at a time
 * (app_idle_work) between looks at the "queue" (here: is the next key
 * due?). The gap between two looks is the longest a key could wait, as
 * STEPFORMER_STALL_LOG measures it in the real window. */
static StallRun stall_loop(App *a, Ren *r, double secs)
{
    enum { MAXS = 20000 };
    static double gaps[MAXS], frames[MAXS];
    int ng = 0, nf = 0, keys = 0, redraw = 1;
    double t0 = tf_seconds(), next_key = t0, last_look = t0, last_draw = 0;
    while (tf_seconds() - t0 < secs) {
        a->now = tf_seconds();
        if (redraw) {
            double f0 = tf_seconds();
            app_frame(a, r);
            if (nf < MAXS)
                frames[nf++] = (tf_seconds() - f0) * 1e3;
            redraw = 0;
            last_draw = a->now;
        }
        int work = app_idle_work(a);
        double now = tf_seconds();
        if (ng < MAXS)
            gaps[ng++] = (now - last_look) * 1e3;
        last_look = now;
        if (now >= next_key) { /* an event: the next word typed */
            char line[APP_TEXT_MAX];
            snprintf(line, sizeof line, "%s", a->ses.src_line);
            char *last = strrchr(line, ' ');
            if (last)
                snprintf(last + 1, 16, "t%d", 10 + keys % 900);
            app_set_text(a, APP_LINE_SRC, line);
            keys++;
            next_key += 0.08;
            redraw = 1;
            continue;
        }
        if (work == 1) {
            redraw = session_decoding(&a->ses, NULL, NULL) || a->now - last_draw >= 0.05;
            continue;
        }
        if (work == 2) {
            redraw = 1;
            continue;
        }
        sleep_s(next_key - now); /* idle until the key */
        last_look = tf_seconds(); /* asleep in the queue: no stall */
    }
    StallRun s = {0};
    BenchStats g = bench_stats_of(gaps, ng), f = bench_stats_of(frames, nf);
    for (int i = 0; i < ng; i++)
        s.gap_max = gaps[i] > s.gap_max ? gaps[i] : s.gap_max;
    for (int i = 0; i < nf; i++)
        s.frame_max = frames[i] > s.frame_max ? frames[i] : s.frame_max;
    s.gap_p95 = g.p95_ms;
    s.frame_p95 = f.p95_ms;
    s.looks = ng;
    s.keys = keys;
    return s;
}

static void print_stall(const char *name, const StallRun *s, int load)
{
    printf("{\"name\": \"%s\", \"load_threads\": %d, \"keys\": %d, \"looks\": %d, \"gap_p95_ms\": %.2f, "
           "\"gap_max_ms\": %.2f, \"frame_p95_ms\": %.2f, \"frame_max_ms\": %.2f}\n",
           name, load, s->keys, s->looks, s->gap_p95, s->gap_max, s->frame_p95, s->frame_max);
}

/* edit_stall_base_s32: the base-size model of edit_redraw_base_s32 (32 + 32
 * tokens, vocabulary 1000) at 1920 x 1080 on the encoder's first
 * attention, typed into as above, alone and then with two busy threads
 * competing for the two cores (the other programs of a shared machine), in
 * one run; _translate the same with no target typed, so that every edit
 * also decodes the translation greedily in pieces; _deep the first on the
 * cross-attention of the last decoder layer (a stage that needs all
 * twelve layers of the pass). */
static void stall_case(const char *path, int with_target, const char *stage, int layer, const char *name,
                       double run)
{
    TfErr err;
    Ren *r = ren_open_headless(1920, 1080, &err);
    if (!r)
        return;
    static App a;
    if (base_app_open(&a, path, with_target) == 0) {
        app_goto(&a, stage_find(stage), layer);
        char loaded_name[64];
        snprintf(loaded_name, sizeof loaded_name, "%s_loaded", name);
        StallRun quiet = stall_loop(&a, r, run);
        print_stall(name, &quiet, 0);
        Burn b = {0, 0};
        pthread_t th[2];
        int started = 0;
        for (int i = 0; i < 2; i++)
            started += pthread_create(&th[i], NULL, burn_main, &b) == 0;
        StallRun loaded = stall_loop(&a, r, run);
        b.stop = 1;
        for (int i = 0; i < started; i++)
            pthread_join(th[i], NULL);
        print_stall(loaded_name, &loaded, started);
        app_free(&a);
    }
    ren_close(r);
}

static void bench_stall(double secs)
{
    const char *path = "/tmp/stepformer-bench-stall.safetensors";
    if (save_base_model(path))
        return;
    double run = secs < 1 ? 2 : 4;
    stall_case(path, 1, "enc.self.weights", 0, "edit_stall_base_s32", run);
    stall_case(path, 0, "enc.self.weights", 0, "edit_stall_base_s32_translate", run);
    stall_case(path, 1, "dec.cross.weights", 5, "edit_stall_base_s32_deep", run);
    remove(path);
}

/* ---- training in the window ---- */

#define TA_B 32 /* the train_classroom_b32_s16 entry's batch and length */
#define TA_L 16

/* Its data: B*10 random pairs, L source tokens, L-1 target tokens (+ <eos>). */
static Dataset *ta_data(void)
{
    Dataset *d = malloc(sizeof *d);
    TfErr err;
    if (d && dataset_random(d, TA_B * 10, 32, TA_L, TA_L - 1, 7, &err) == 0)
        return d;
    free(d);
    return NULL;
}

/* A plain Trainer on the same data and size, on this thread: target
 * tokens per second of wall time over `secs`, measured like the worker. */
static double ta_headless(double secs)
{
    Dataset *d = ta_data();
    TfModel m;
    Trainer t;
    TfConfig c;
    TrainOpts o;
    TfErr err;
    double rate = 0;
    if (!d)
        return 0;
    cfg_preset(&c, "classroom", &err);
    c.tie = TF_TIE_ALL;
    train_opts_default(&o);
    o.batch = TA_B;
    if (trainer_model_new(&m, &c, d, 1, &err) == 0) {
        if (trainer_init(&t, &m, d, &o, &err) == 0) {
            TrainStats s;
            long long tokens = 0;
            for (int i = 0; i < 5; i++)
                trainer_step(&t, &s, &err);
            double t0 = tf_seconds();
            while (tf_seconds() - t0 < secs && trainer_step(&t, &s, &err) == 0)
                tokens += s.tokens;
            rate = tokens / (tf_seconds() - t0);
            trainer_free(&t);
        }
        model_free(&m);
    }
    dataset_free(d);
    free(d);
    return rate;
}

typedef struct TaRun {
    double rate;       /* tokens/s of the worker */
    long long steps;
    BenchStats frames; /* frame times while it trained */
} TaRun;

/* The window loop's pace: draw a frame, sleep until the view asks for the
 * next one (a learner moving the mouse now and then), for `secs`. */
static TaRun ta_in_app(double secs)
{
    TaRun run = {0};
    TfErr err;
    Ren *r = ren_open_headless(1920, 1080, &err);
    static App a;
    AppOpts o = {0};
    o.view = "train";
    o.no_save = 1;
    Dataset *d = ta_data();
    if (!r || !d || app_init(&a, &o, &err)) {
        free(d);
        if (r)
            ren_close(r);
        return run;
    }
    TwSpec s;
    tw_spec_default(&s);
    s.task[0] = 0;
    s.data = d;
    s.o.batch = TA_B;
    if (app_train_start(&a, &s) == 0) {
        TrainHost *u = a.train;
        for (int i = 0; i < 200 && u->st.step < 20; i++) { /* until it trains */
            a.now = tf_seconds();
            app_frame(&a, r);
            sleep_s(0.02);
        }
        enum { MAXF = 4096 };
        static double ft[MAXF];
        int nf = 0;
        long long s0 = u->st.train_tokens, k0 = u->st.step;
        double t0 = tf_seconds();
        while (tf_seconds() - t0 < secs) {
            a.now = tf_seconds();
            a.ui.in.mx = 900 + (nf * 37) % 600;
            a.ui.in.my = 300 + (nf * 23) % 500;
            double f0 = tf_seconds();
            app_frame(&a, r);
            if (nf < MAXF)
                ft[nf++] = (tf_seconds() - f0) * 1e3;
            int ms = app_next_wake_ms(&a);
            sleep_s(ms < 0 || ms > 500 ? 0.5 : ms * 1e-3);
        }
        tw_status(u->w, &u->st, 1);
        double dt = tf_seconds() - t0;
        run.rate = (double)(u->st.train_tokens - s0) / dt;
        run.steps = u->st.step - k0;
        run.frames = bench_stats_of(ft, nf);
    }
    app_free(&a);
    ren_close(r);
    return run;
}

/* train_in_app_classroom: its tokens/s and the ratio to the headless
 * trainer (train_classroom_b32_s16 when measured in this run, else the
 * same loop without a window); the frames drawn meanwhile. */
static void bench_train_in_app(double secs, double ref_tok_s)
{
    double wall = secs >= 1 ? 5 : 3; /* long enough to average out a noisy machine */
    double headless = ta_headless(wall);
    TaRun run = ta_in_app(wall);
    if (run.steps < 1) {
        fprintf(stderr, "bench: training in the app did not run\n");
        return;
    }
    double ref = ref_tok_s > 0 ? ref_tok_s : headless;
    BenchStats step = {0};
    step.median_ms = step.p95_ms = step.min_ms = 1e3 * TA_B * TA_L / run.rate;
    step.reps = (int)run.steps;
    bench_print("train_headless_wall_classroom_b32_s16", &(BenchStats){.median_ms = 1e3 * TA_B * TA_L / headless,
                .p95_ms = 1e3 * TA_B * TA_L / headless}, 0, 0, TA_B * TA_L, "in_app_ratio", run.rate / headless);
    bench_print("train_in_app_classroom", &step, 0, 0, TA_B * TA_L, "ratio", run.rate / ref);
    bench_print("frame_train_in_app", &run.frames, 0, 0, 0, NULL, 0);
}

void bench_gui(double secs, const char *only, double train_ref_tok_s)
{
    bench_frames(secs, only);
    if (want(only, "frame_qkmap"))
        bench_qkmap(secs);
    if (want(only, "edit_redraw_base_s32"))
        bench_edit(secs);
    if (want(only, "idle_focused_line"))
        bench_idle_focus();
    if (want(only, "edit_stall_base_s32"))
        bench_stall(secs);
    if (want(only, "train_in_app_classroom"))
        bench_train_in_app(secs, train_ref_tok_s);
}
