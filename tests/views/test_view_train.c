/* test_view_train.c - the train view driven by synthetic events on a
 * headless renderer, with real training on its worker thread: the first
 * frame makes a model (paused at step 0, the probe run on it); the Step and
 * Start/Pause buttons and the S, P, [ ], 1-9, 0, J, D, R keys do what
 * they say; a short run on `copy` lowers the loss; a TSV file with no
 * usable pairs, an absurd size and a NaN each end in a message on screen
 * while the app keeps working (the worker's, worded in the window's
 * language: Z rewords it); Save writes a checkpoint (a bad directory
 * is a message and training goes on); the timeline shows kept snapshots;
 * Open puts the shown parameters into the window's Decode view; every
 * theme, size, language and presenter scale draws; and
 * `shot --view train --task copy --train-steps 50` renders. */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "app.h"
#include "checkpoint.h"
#include "test_app_util.h"
#include "test_util.h"
#include "train_host.h"

static char MODEL[160];
static char g_dir[64];
static char g_cli[4096]; /* build/.../stepformer, next to the tests folder */

static int setup(void **state)
{
    (void)state;
    strcpy(g_dir, "/tmp/stepformer-trainview-XXXXXX");
    if (!mkdtemp(g_dir))
        return -1;
    return tu_fixture_open(MODEL, sizeof MODEL, "train-view.safetensors", 40, 24, 5, 1280, 800);
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    tu_fixture_close(MODEL);
    snprintf(cmd, sizeof cmd, "rm -rf %s", g_dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void open_app(App *a)
{
    AppOpts o = tu_opts(MODEL, "t5 t6 t7", NULL, "train");
    tu_open(a, &o, 100);
}

/* A click in the middle of a control drawn in the last frame. */
static void click(App *a, Rect r, const char *what)
{
    expect_true(r.w > 0 && r.h > 0, "the %s control was drawn", what);
    int x = r.x + r.w / 2, y = r.y + r.h / 2;
    ev_mouse(a, IN_MOUSE_MOVE, x, y, MB_LEFT);
    ev_mouse(a, IN_MOUSE_DOWN, x, y, MB_LEFT);
    tu_frame(a);
    ev_mouse(a, IN_MOUSE_UP, x, y, MB_LEFT);
}

/* Frames until the settings settled, the worker finished what it was
 * asked, and the view copied it. */
static TrainHost *settle(App *a)
{
    tu_frame(a);
    tu_frame(a);
    TrainHost *h = a->train;
    expect_true(h != NULL && a->vstate[VIEW_TRAIN] != NULL, "the window made the view's host and state");
    if (h->w)
        tw_wait_idle(h->w);
    tu_frame(a);
    tu_frame(a);
    return h;
}

/* The step of the probe's pass shown (-1: none yet). */
static long long shown(const TrainHost *h)
{
    return h->pass && h->pass->gen == h->st.gen ? h->pass->step : -1;
}

/* The train view opened and settled; *u (unless NULL) its state. */
static TrainHost *open_train(App *a, TrainUi **u)
{
    open_app(a);
    TrainHost *h = settle(a);
    if (u)
        *u = a->vstate[VIEW_TRAIN];
    return h;
}

/* Frames until the worker reached a step, a minute at most: it trains
 * nicer than the window's thread (TW_NICE), so on a machine busy with
 * other programs it may take a while. */
static void wait_step(App *a, long long at_least)
{
    for (int i = 0; i < 6000 && a->train->st.step < at_least; i++) {
        sleep_ms(10);
        tu_frame(a);
    }
}

/* The first frame makes the model it would train (en2zh, classroom size)
 * and shows it at step 0: probe run, held-out loss measured. */
static void test_first_frame(void **state)
{
    (void)state;
    static App a;
    TrainUi *u;
    TrainHost *h = open_train(&a, &u);
    expect_true(h->st.state == TW_PAUSED && h->st.step == 0, "paused at step 0: state %d step %lld",
                h->st.state, h->st.step);
    expect_true(strcmp(h->st.data_name, "en2zh") == 0 && h->st.cfg.d_model == 64 && h->st.cfg.n_heads == 4,
                "en2zh on the classroom size: %s %d/%d", h->st.data_name, h->st.cfg.d_model, h->st.cfg.n_heads);
    expect_true(h->pass && h->pass->step == 0 && h->st.probe.have && h->st.probe.out_n > 0,
                "the probe ran at step 0 (%d tokens out)", h->st.probe.out_n);
    expect_true(strcmp(h->st.probe_src, "i read books at home today") == 0 &&
                    strcmp(h->st.probe_ref, "我 今天 在 家 读 书") == 0,
                "the probe and its truth: '%s' → '%s'", h->st.probe_src, h->st.probe_ref);
    expect_true(h->st.n_eval == 1 && h->st.evals[0].loss > 3, "held-out loss at step 0: %d evals, %.3f",
                h->st.n_eval, h->st.n_eval ? (double)h->st.evals[0].loss : 0.0);
    expect_true(u->layer == 1 && u->head == 0 && u->attn == TV_CROSS,
                "cross-attention of the last layer, head 1: attn %d layer %d head %d", u->attn, u->layer, u->head);
    app_free(&a);
    expect_true(a.vstate[VIEW_TRAIN] == NULL, "app_free frees the view");
}

/* The buttons and keys: Step, S, Start/Pause, P, layer, head, attention,
 * task and reset. */
static void test_buttons_and_keys(void **state)
{
    (void)state;
    static App a;
    TrainUi *u;
    TrainHost *h = open_train(&a, &u);
    click(&a, u->hit.step, "Step");
    h = settle(&a);
    expect_true(h->st.step == 1 && shown(h) == 1, "the Step button: step %lld, shown %lld", h->st.step, shown(h));
    ev_key(&a, 's', 0);
    h = settle(&a);
    expect_true(h->st.step == 2, "S: step 2, got %lld", h->st.step);
    click(&a, u->hit.start, "Start");
    tu_frame(&a);
    expect_true(h->st.state == TW_RUNNING, "Start: training, state %d", h->st.state);
    expect_true(a.wake_at > 0, "while training the view asks for frames (wake_at %.2f)", a.wake_at);
    wait_step(&a, 12);
    expect_true(h->st.step >= 12, "it trains: step %lld", h->st.step);
    click(&a, u->hit.start, "Pause");
    h = settle(&a);
    expect_true(h->st.state == TW_PAUSED, "Pause: state %d", h->st.state);
    long long at = h->st.step;
    sleep_ms(60);
    h = settle(&a);
    expect_true(h->st.step == at && shown(h) == at, "paused stays at %lld, got %lld (shown %lld)", at, h->st.step,
                shown(h));
    ev_key(&a, 'p', 0);
    tu_frame(&a);
    expect_true(h->st.state == TW_RUNNING, "P plays, state %d", h->st.state);
    ev_key(&a, 'p', 0);
    h = settle(&a);
    expect_true(h->st.state == TW_PAUSED, "P again pauses, state %d", h->st.state);
    /* what the probe shows */
    ev_key(&a, '[', 0);
    expect_true(u->layer == 0, "[ : layer 1, got %d", u->layer + 1);
    ev_key(&a, '[', 0);
    expect_true(u->layer == 0, "[ stops at layer 1, got %d", u->layer + 1);
    ev_key(&a, ']', 0);
    expect_true(u->layer == 1, "] : layer 2, got %d", u->layer + 1);
    ev_key(&a, '3', 0);
    expect_true(u->head == 2, "3: head 3, got %d", u->head + 1);
    ev_key(&a, '9', 0);
    expect_true(u->head == 2, "9 is not a head of 4: stays 3, got %d", u->head + 1);
    ev_key(&a, '0', 0);
    expect_true(u->head == -1 && a.ses.head != -1, "0: every head, in the view only (app head %d)", a.ses.head);
    ev_key(&a, 'j', 0);
    expect_true(u->attn == TV_ENC, "J: encoder self-attention, got %d", u->attn);
    ev_key(&a, 'j', MOD_SHIFT);
    expect_true(u->attn == TV_CROSS, "Shift+J: back to cross-attention, got %d", u->attn);
    tu_frame(&a);
    int stage_at = a.ses.at;
    ev_key(&a, KEY_RIGHT, 0);
    expect_true(a.ses.at == stage_at, "→ scrubs snapshots here, the stage stays (%d, %d)", a.ses.at, stage_at);
    /* a task change waits for Reset once the run has trained */
    ev_key(&a, 'd', MOD_SHIFT);
    h = settle(&a);
    expect_true(u->task == 2 && strcmp(h->st.data_name, "en2zh") == 0,
                "Shift+D: sort chosen, the trained run kept (task %d, run %s)", u->task, h->st.data_name);
    ev_key(&a, 'r', 0);
    h = settle(&a);
    expect_true(strcmp(h->st.data_name, "sort") == 0 && h->st.step == 0 && h->st.gen == 2,
                "R: a new run on sort at step 0 (run %llu %s, step %lld)", (unsigned long long)h->st.gen,
                h->st.data_name, h->st.step);
    expect_true(strcmp(h->st.probe_src, "attention") == 0 && strcmp(h->st.probe_ref, "aeinnottt") == 0,
                "the string tasks' probe: '%s' → '%s'", h->st.probe_src, h->st.probe_ref);
    app_free(&a);
}

/* A short run on copy: the held-out and the training loss fall. */
static void test_copy_loss_falls(void **state)
{
    (void)state;
    static App a;
    TrainUi *u;
    TrainHost *h = open_train(&a, &u);
    click(&a, u->hit.task[0], "copy");
    h = settle(&a);
    expect_true(strcmp(h->st.data_name, "copy") == 0, "the copy chip: %s", h->st.data_name);
    ev_key(&a, 'p', 0);
    wait_step(&a, 150);
    ev_key(&a, 'p', 0);
    h = settle(&a);
    const TwStatus *st = &h->st;
    expect_true(st->step >= 150 && st->n_eval >= 4, "150 steps, 4 held-out checks: %lld, %d", st->step,
                st->n_eval);
    float first = st->evals[0].loss, last = st->evals[st->n_eval - 1].loss;
    printf("  copy: held-out loss %.3f at step 0, %.3f at step %lld\n", (double)first, (double)last,
           st->evals[st->n_eval - 1].step);
    expect_true(last < first - 0.8f, "the held-out loss falls by more than 0.8: %.3f -> %.3f", (double)first,
                (double)last);
    double a0 = 0, a1 = 0;
    for (int i = 0; i < 10; i++) {
        a0 += st->log[i].loss / 10;
        a1 += st->log[st->n_log - 1 - i].loss / 10;
    }
    expect_true(a1 < a0 - 0.8, "the training loss falls: first ten %.3f, last ten %.3f", a0, a1);
    app_free(&a);
}

/* A TSV file with no usable pair: its reason on screen; then a task works. */
static void test_bad_tsv(void **state)
{
    (void)state;
    static App a;
    char path[256];
    snprintf(path, sizeof path, "%s/nothing.tsv", g_dir);
    tu_write_text(g_dir, "nothing.tsv", "# a comment\n\nno tab here\nan empty side\t\n");
    TrainUi *u;
    TrainHost *h = open_train(&a, &u);
    /* F focuses the field; the "f" typed with it does not land there */
    ev_key(&a, 'f', 0);
    ev_text(&a, "f");
    tu_frame(&a);
    expect_true(ui_editing(&a.ui, u->path) && u->path[0] == 0,
                "F: the path field has the focus and is empty ('%s')", u->path);
    ev_key(&a, KEY_ESCAPE, 0);
    expect_true(!a.ui.focus && !a.win.want_quit, "Esc leaves the field (and does not quit)");
    tu_frame(&a);
    click(&a, u->hit.task[TV_TASK_FILE], "TSV file");
    expect_true(ui_editing(&a.ui, u->path), "the file chip focuses the path field");
    ev_text(&a, g_dir);
    ev_text(&a, "/nothing.tsv");
    ev_key(&a, KEY_RETURN, 0);
    expect_true(strcmp(u->path, path) == 0 && strcmp(a.ses.src_line, "t5 t6 t7") == 0,
                "typed into the path ('%s'), not the source line ('%s')", u->path, a.ses.src_line);
    h = settle(&a);
    expect_true(h->st.state == TW_EMPTY && h->show.msg[0] && strstr(h->show.msg, "nothing.tsv"),
                "no run and a message naming the file: state %d, '%s'", h->st.state, h->show.msg);
    expect_true(a.notice_error && strstr(a.notice, "nothing.tsv"), "a notice too: '%s'", a.notice);
    printf("  message: %s\n", h->show.msg);
    tu_frame(&a); /* still draws */
    click(&a, u->hit.task[1], "reverse");
    h = settle(&a);
    expect_true(h->st.state == TW_PAUSED && h->st.probe.have && strcmp(h->st.data_name, "reverse") == 0 && !h->show.msg[0],
                "reverse works afterwards: state %d, %s, message '%s'", h->st.state, h->st.data_name, h->show.msg);
    app_free(&a);
}

/* d_model 8192: refused before allocating, a message about memory; the
 * classroom preset (M) works again. */
static void test_absurd_size(void **state)
{
    (void)state;
    static App a;
    TrainUi *u;
    TrainHost *h = open_train(&a, &u);
    expect_true(u->field == TVF_DMODEL, "X starts on d_model, got %d", u->field);
    for (int i = 0; i < 12; i++)
        ev_key(&a, '.', 0);
    ev_key(&a, 'x', 0);
    ev_key(&a, 'x', 0);
    for (int i = 0; i < 12; i++)
        ev_key(&a, '.', 0); /* 64 layers */
    h = settle(&a);
    expect_true(h->st.state == TW_EMPTY && strstr(h->show.msg, "memory") && strstr(h->show.msg, "8192"),
                "too big: no run, a message about memory: state %d, '%s'", h->st.state, h->show.msg);
    printf("  message: %s\n", h->show.msg);
    tu_frame(&a);
    ev_key(&a, 'y', 0);
    h = settle(&a);
    expect_true(h->st.state == TW_PAUSED && h->st.cfg.d_model == 64 && h->st.cfg.n_enc == 2,
                "Y: the classroom size trains again (state %d, d_model %d, %d layers)", h->st.state,
                h->st.cfg.d_model, h->st.cfg.n_enc);
    app_free(&a);
}

/* A learning rate 10^20 times the schedule's: NaN, a message, the last
 * good parameters kept; a lower rate and Reset train again. */
static void test_nan(void **state)
{
    (void)state;
    static App a;
    TrainHost *h = open_train(&a, NULL);
    for (int i = 0; i < TVF_LR; i++)
        ev_key(&a, 'x', 0);
    for (int i = 0; i < 8; i++)
        ev_key(&a, '.', 0);
    h = settle(&a);
    expect_true(h->st.o.lr_scale > 1e19f, "lr × 10^20 applied at step 0: %g", (double)h->st.o.lr_scale);
    ev_key(&a, 'p', 0);
    for (int i = 0; i < 300 && !h->show.msg[0]; i++) {
        sleep_ms(5);
        tu_frame(&a);
    }
    h = settle(&a);
    expect_true(strstr(h->show.msg, "NaN") || strstr(h->show.msg, "not finite") || strstr(h->show.msg, "infinite"),
                "a message about the NaN, got '%s'", h->show.msg);
    printf("  message: %s\n", h->show.msg);
    expect_true(h->st.state == TW_STOPPED && h->show.stopped && shown(h) == h->st.step,
                "stopped at step %lld (shown %lld)", h->st.step, shown(h));
    /* the worker's message is worded in the window's language, each frame */
    expect_true(strncmp(h->show.msg, "training stopped: ", 18) == 0, "in English: '%s'", h->show.msg);
    a.look.lang = 1;
    tu_frame(&a);
    expect_true(strncmp(h->show.msg, "训练已停止：", strlen("训练已停止：")) == 0 && strstr(h->show.msg, "NaN"),
                "in Chinese after Z, the engine's reason kept: '%s'", h->show.msg);
    ev_key(&a, 'p', 0);
    expect_true(a.notice_error && strstr(a.notice, "重置"), "P on a stopped run says to reset: '%s'", a.notice);
    a.look.lang = 0;
    TfModel sm;
    long long sm_step;
    TfErr sm_err;
    int finite = tw_shown_model(h->w, h->st.gen, &sm, &sm_step, &sm_err) == 0 && sm_step == h->st.step;
    for (size_t i = 0; finite && i < sm.n_params; i++)
        finite &= isfinite(sm.block[i]);
    expect_true(finite, "the shown parameters are the last good ones (finite)");
    if (sm_step >= 0)
        model_free(&sm);
    for (int i = 0; i < 4; i++)
        ev_key(&a, ',', 0); /* back to lr × 1 */
    ev_key(&a, 'r', 0);
    h = settle(&a);
    ev_key(&a, 's', 0);
    ev_key(&a, 's', 0);
    h = settle(&a);
    expect_true(h->st.step == 2 && !h->show.msg[0] && h->st.o.lr_scale == 1.0f,
                "after Reset with lr × 1 it trains: step %lld, message '%s'", h->st.step, h->show.msg);
    app_free(&a);
}

static int find_checkpoint(char *out, size_t cap)
{
    DIR *d = opendir(g_dir);
    struct dirent *e;
    int found = 0;
    while (d && (e = readdir(d)))
        if (strncmp(e->d_name, "stepformer-en2zh-", 17) == 0 && strstr(e->d_name, ".safetensors")) {
            snprintf(out, cap, "%s/%s", g_dir, e->d_name);
            found = 1;
        }
    if (d)
        closedir(d);
    return found;
}

/* Save, a bad directory, the snapshot timeline, and Open in Decode. */
static void test_save_snapshots_open(void **state)
{
    (void)state;
    static App a;
    TrainUi *u;
    TrainHost *h = open_train(&a, &u);
    snprintf(h->save_dir, sizeof h->save_dir, "%s", g_dir);
    ev_key(&a, 's', 0);
    expect_true(tw_steps(h->w, 24, NULL) == 0, "24 more steps queued");
    h = settle(&a);
    char path[512];
    /* the first W asks (it writes a file): where, and W again */
    ev_key(&a, 'w', 0);
    h = settle(&a);
    expect_true(!find_checkpoint(path, sizeof path) && strstr(a.notice, "W again") && strstr(a.notice, g_dir),
                "the first W asks before writing, naming the folder: %s", a.notice);
    ev_key(&a, 'w', 0);
    h = settle(&a);
    expect_true(find_checkpoint(path, sizeof path), "W again wrote a checkpoint into %s (message %d '%s')", g_dir,
                h->st.msg, h->st.msg_text);
    TfModel m;
    TfErr err;
    expect_true(ckpt_load(&m, path, &err) == 0, "it loads: %s", err.msg);
    const char *ts = model_meta_get(&m, "train_step"), *task = model_meta_get(&m, "data_task");
    expect_true(ts && strcmp(ts, "25") == 0 && task && strcmp(task, "en2zh") == 0,
                "it is step 25 of en2zh: train_step %s, data_task %s", ts ? ts : "-", task ? task : "-");
    model_free(&m);
    /* a directory that does not exist: a message, and training goes on */
    snprintf(h->save_dir, sizeof h->save_dir, "%s/no/such/dir", g_dir);
    ev_key(&a, 'w', 0); /* another folder: asks again */
    ev_key(&a, 'w', 0);
    ev_key(&a, 's', 0);
    h = settle(&a);
    expect_true(a.notice_error && strstr(a.notice, "could not save") && h->st.step == 26,
                "a bad path is a message ('%s'), training goes on (step %lld)", a.notice, h->st.step);
    /* snapshots at 0, 10, 20; the live step is 26 */
    expect_true(h->st.n_snap == 3 && h->st.snaps[2].step == 20, "snapshots 0, 10, 20: %d, last %lld",
                h->st.n_snap, h->st.n_snap ? h->st.snaps[h->st.n_snap - 1].step : -1);
    ev_key(&a, KEY_LEFT, 0);
    h = settle(&a);
    expect_true(h->want_snap == 20 && shown(h) == 20, "←: snapshot 20 shown, got %lld / %lld", h->want_snap,
                shown(h));
    TfModel sm;
    long long sm_step = -1;
    TfErr sm_err;
    size_t n = h->st.n_params;
    float *p = malloc(n * sizeof(float));
    long long got;
    float loss;
    expect_true(tw_shown_model(h->w, h->st.gen, &sm, &sm_step, &sm_err) == 0 && sm_step == 20 &&
                    tw_params(h->w, h->st.gen, 20, p, n, &got, &loss) == 0 &&
                    memcmp(p, sm.block, n * sizeof(float)) == 0,
                "the probe runs on the snapshot's parameters");
    if (sm_step >= 0)
        model_free(&sm);
    ev_key(&a, KEY_HOME, 0);
    h = settle(&a);
    expect_true(shown(h) == 0, "Home: step 0, got %lld", shown(h));
    ev_key(&a, KEY_RIGHT, 0);
    h = settle(&a);
    expect_true(shown(h) == 10, "→: step 10, got %lld", shown(h));
    ev_key(&a, KEY_END, 0);
    h = settle(&a);
    expect_true(h->want_snap < 0 && shown(h) == 26, "End: live step 26, got %lld", shown(h));
    /* a click on the timeline's left end picks step 0 */
    Rect t = u->hit.track;
    click(&a, (Rect){t.x - 2, t.y - 2, 4, 4}, "timeline");
    h = settle(&a);
    expect_true(shown(h) == 0, "a click at the timeline's start: step 0, got %lld", shown(h));
    ev_key(&a, KEY_RIGHT, 0);
    tu_frame(&a);
    ev_key(&a, KEY_RIGHT, 0);
    h = settle(&a);
    /* open the shown model (step 20) in the Decode view */
    float *want = p;
    expect_true(shown(h) == 20 && tw_params(h->w, h->st.gen, 20, want, n, &got, &loss) == 0, "step 20 shown: %lld",
                shown(h));
    click(&a, u->hit.open, "Open in Decode");
    tu_frame(&a);
    expect_true(app_current_view(&a) == VIEW_DECODE && strstr(a.ses.model_label, "en2zh") &&
                    strstr(a.ses.model_label, "20"),
                "the Decode view with the model of step 20: view %s, label '%s'", view_name(app_current_view(&a)),
                a.ses.model_label);
    expect_true(a.ses.model.n_params == n && memcmp(a.ses.model.block, want, n * sizeof(float)) == 0,
                "the window's model has the snapshot's parameters");
    expect_true(strcmp(a.ses.src_line, "i read books at home today") == 0 && strcmp(a.ses.tgt, "我 今天 在 家 读 书") == 0 &&
                    !a.ses.input_error[0],
                "on the probe and its truth: '%s' / '%s' (%s)", a.ses.src_line, a.ses.tgt, a.ses.input_error);
    free(want);
    tu_frame(&a);
    app_free(&a);
}

/* After some steps every legend entry of every plot is drawn (none left
 * out when the numbers grow), the x axes say "step", and the tab says it
 * trains a model of its own (T9, B3). */
static void test_legends_and_axes(void **state)
{
    (void)state;
    static App a;
    TrainHost *h = open_train(&a, NULL);
    ev_key(&a, 's', 0);
    expect_true(tw_steps(h->w, 40, NULL) == 0, "40 more steps queued");
    h = settle(&a);
    tu_drawn_frame(&a, tu_ren);
    const char *names[] = {"train ", "held-out ", "exact ", "now ", "peak "};
    for (int i = 0; i < 5; i++)
        expect_true(tu_drawn_prefix(names[i], NULL) >= 1, "the legend entry '%s…' drawn, got %d", names[i],
                    tu_drawn_prefix(names[i], NULL));
    expect_true(tu_drawn_prefix("step", NULL) >= 2, "the plots' x axes titled 'step', got %d", tu_drawn_prefix("step", NULL));
    expect_true(tu_drawn_prefix("This tab trains a new model of its own", NULL) + tu_drawn_prefix("A new model", NULL) >= 1,
                "the tab says it trains a model of its own, got %s", "nothing");
    app_free(&a);
}

/* Three W saves within a second write three files (the names were the
 * time to the second, so they overwrote each other). */
static void test_quick_saves_differ(void **state)
{
    (void)state;
    static App a;
    TrainHost *h = open_train(&a, NULL);
    char dir[300];
    snprintf(dir, sizeof dir, "%s/quick", g_dir);
    mkdir(dir, 0755);
    snprintf(h->save_dir, sizeof h->save_dir, "%s", dir);
    ev_key(&a, 's', 0);
    h = settle(&a);
    for (int i = 0; i < 4; i++) /* the first asks, the next three write */
        ev_key(&a, 'w', 0);
    h = settle(&a);
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d)))
        n += strstr(e->d_name, ".safetensors") != NULL && !strstr(e->d_name, ".tmp");
    if (d)
        closedir(d);
    expect_true(n == 3, "three saves, three files (%d)", n);
    app_free(&a);
}

/* A FIFO typed as the data file: refused with a message at once, and
 * Ctrl+Q still quits and the app closes (a stuck worker would hang it). */
static void test_fifo_data_file(void **state)
{
    (void)state;
    static App a;
    char fifo[300];
    snprintf(fifo, sizeof fifo, "%s/data.fifo", g_dir);
    expect_true(mkfifo(fifo, 0644) == 0, "mkfifo");
    alarm(30);
    TrainUi *u;
    open_train(&a, &u);
    tu_frame(&a);
    click(&a, u->hit.task[TV_TASK_FILE], "TSV file");
    ev_text(&a, fifo);
    ev_key(&a, KEY_RETURN, 0);
    settle(&a);
    expect_true(a.notice_error && strstr(a.notice, "FIFO") != NULL, "refused: '%s'", a.notice);
    click(&a, u->hit.task[TV_TASK_FILE], "TSV file");
    ev_key(&a, 'q', MOD_CTRL);
    expect_true(a.win.want_quit, "Ctrl+Q quits");
    app_free(&a);
    alarm(0);
    remove(fifo);
}

/* Every theme, size, scale and language, both arrangements, one head and
 * every head, each attention, with the mouse over the curves and cells. */
static void test_draws_everywhere(void **state)
{
    (void)state;
    static App a;
    TrainUi *u;
    TrainHost *h = open_train(&a, &u);
    expect_true(tw_steps(h->w, 60, NULL) == 0, "steps queued");
    h = settle(&a);
    static const int SIZES[][2] = {{1280, 800}, {1920, 1080}, {800, 600}};
    for (int s = 0; s < 3; s++) {
        ren_resize_headless(tu_ren, SIZES[s][0], SIZES[s][1]);
        for (int t = 0; t < THEME_COUNT; t++)
            for (int k = 0; k < 6; k++) {
                a.look.theme = (ThemeId)t;
                a.look.text_scale = k % 2 ? 1.6f : 1.0f;
                a.look.lang = k / 2 % 2;
                u->head = k < 3 ? 0 : -1;
                u->attn = (TvAttn)(k % TV_ATTN_COUNT);
                u->pane = k % 2;
                u->custom = k == 5;
                for (int m = 0; m < 6; m++) {
                    ev_mouse(&a, IN_MOUSE_MOVE, SIZES[s][0] * (2 + m) / 9, SIZES[s][1] * (2 + m) / 8, 0);
                    tu_frame(&a);
                }
            }
    }
    ren_resize_headless(tu_ren, 1280, 800);
    a.look.text_scale = 1.0f;
    a.look.theme = THEME_DARK;
    a.look.lang = 0;
    tu_frame(&a);
    expect_true(!u->compact, "1280x800 at scale 1 shows curves and probe together");
    a.look.text_scale = 1.6f;
    tu_frame(&a);
    expect_true(u->compact, "presenter scale on 1280x800: one pane at a time");
    u->pane = 0;
    ev_key(&a, 'v', 0);
    expect_true(u->pane == 1, "V switches to the attention pane");
    a.look.text_scale = 1.0f;
    /* the view's words are in Chinese */
    a.look.lang = 1;
    expect_true(strcmp(L(a.look.lang, "▶ Start  P"), "▶ Start  P") != 0 && strcmp(L(a.look.lang, "learning rate"), "learning rate") != 0 &&
                    strcmp(L(a.look.lang, "the Decode view shows the model of step %lld"), "the Decode view shows the model of step %lld") != 0,
                "Chinese labels: '%s', '%s'", L(a.look.lang, "▶ Start  P"), L(a.look.lang, "learning rate"));
    a.look.lang = 0;
    app_free(&a);
}

/* `stepformer shot --view train --task copy --train-steps 50` renders. */
static void test_shot(void **state)
{
    (void)state;
    char cmd[4096 + 512], out[256];
    snprintf(out, sizeof out, "%s/train.png", g_dir);
    snprintf(cmd, sizeof cmd, "%s shot --view train --task copy --train-steps 50 --out %s", g_cli, out);
    int rc = system(cmd);
    struct stat sb;
    expect_true(rc == 0 && stat(out, &sb) == 0 && sb.st_size > 20000, "%s: exit %d, %lld bytes", cmd, rc,
                stat(out, &sb) == 0 ? (long long)sb.st_size : -1LL);
    snprintf(cmd, sizeof cmd, "%s shot --view train --task %s/missing.tsv --out %s 2>/dev/null", g_cli, g_dir, out);
    expect_true(system(cmd) != 0, "a missing TSV file fails the shot: %s", cmd);
}

int main(int argc, char **argv)
{
    TU_RUN_CLI(g_cli, argc, argv, setup, teardown, cmocka_unit_test(test_first_frame),
               cmocka_unit_test(test_buttons_and_keys), cmocka_unit_test(test_copy_loss_falls),
               cmocka_unit_test(test_bad_tsv), cmocka_unit_test(test_absurd_size),
               cmocka_unit_test(test_nan), cmocka_unit_test(test_save_snapshots_open),
               cmocka_unit_test(test_quick_saves_differ), cmocka_unit_test(test_legends_and_axes),
               cmocka_unit_test(test_fifo_data_file),
               cmocka_unit_test(test_draws_everywhere), cmocka_unit_test(test_shot));
}
