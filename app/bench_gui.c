/* bench_gui.c - frame times of every view at 1920x1080 through the software
 * renderer (what `stepformer shot` uses; a GPU window is faster), and the
 * time from an edited source sentence to the redrawn view. */
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "checkpoint.h"
#include "cli.h"
#include "views.h"

typedef struct FrameCtx {
    App *a;
    Ren *r;
    int tick;
} FrameCtx;

/* One frame, with the mouse moving over the view as a learner's would. */
static void frame_body(void *p)
{
    FrameCtx *f = p;
    App *a = f->a;
    f->tick++;
    a->now += 1.0;
    a->in.mx = 700 + (f->tick * 37) % 600;
    a->in.my = 300 + (f->tick * 23) % 400;
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

static void bench_frames(double secs, const char *only)
{
    TfErr err;
    Ren *r = ren_open_headless(1920, 1080, &err);
    if (!r) {
        fprintf(stderr, "bench: %s\n", err.msg);
        return;
    }
    static App a;
    AppOpts o = {0};
    o.src[0] = "i read books at home today";
    o.n_src = 1;
    if (app_init(&a, &o, &err)) {
        fprintf(stderr, "bench: %s\n", err.msg);
        ren_close(r);
        return;
    }
    a.notice[0] = 0;
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        const ViewCase *c = &CASES[i];
        if (!want(only, c->name))
            continue;
        app_goto(&a, stage_find(c->stage), c->layer);
        a.head = c->head;
        a.view = c->view;
        FrameCtx f = {&a, r, 0};
        BenchStats s = bench_run(frame_body, &f, 30, secs);
        bench_print(c->name, &s, 0, 0, 0, NULL, 0);
    }
    app_free(&a);
    ren_close(r);
}

typedef struct EditCtx {
    App *a;
    Ren *r;
    int tick;
} EditCtx;

/* Change one word of the source, recompute, redraw. */
static void edit_body(void *p)
{
    EditCtx *e = p;
    App *a = e->a;
    e->tick++;
    char *last = strrchr(a->src_line, ' ');
    if (last)
        snprintf(last + 1, 16, "t%d", 4 + e->tick % 900);
    a->dirty = 1;
    a->now += 1.0;
    app_frame(a, e->r);
}

static void bench_edit(double secs)
{
    TfErr err;
    TfConfig c;
    TfModel m;
    cfg_preset(&c, "base", &err);
    c.src_vocab = c.tgt_vocab = 1000;
    c.tie = TF_TIE_ALL;
    c.max_len = 64;
    if (model_init_random(&m, &c, 3, &err) ||
        ckpt_save(&m, "/tmp/stepformer-bench-base.safetensors", &err)) {
        fprintf(stderr, "bench: %s\n", err.msg);
        return;
    }
    model_free(&m);
    Ren *r = ren_open_headless(1920, 1080, &err);
    if (!r)
        return;
    static App a;
    AppOpts o = {0};
    char src[512] = "", tgt[512] = "";
    for (int i = 0; i < 32; i++) {
        snprintf(src + strlen(src), sizeof src - strlen(src), "%st%d", i ? " " : "", 10 + i);
        snprintf(tgt + strlen(tgt), sizeof tgt - strlen(tgt), "%st%d", i ? " " : "", 50 + i);
    }
    o.model_path = "/tmp/stepformer-bench-base.safetensors";
    o.src[0] = src;
    o.n_src = 1;
    o.tgt = tgt;
    o.stage = "enc.self.weights";
    if (app_init(&a, &o, &err) == 0) {
        a.lazy = 1; /* as the window runs it */
        EditCtx e = {&a, r, 0};
        BenchStats s = bench_run(edit_body, &e, 10, secs);
        bench_print("edit_redraw_base_s32", &s, 0, 0, 0, NULL, 0);
        app_free(&a);
    }
    ren_close(r);
    remove("/tmp/stepformer-bench-base.safetensors");
}

void bench_gui(double secs, const char *only)
{
    bench_frames(secs, only);
    if (want(only, "edit_redraw_base_s32"))
        bench_edit(secs);
}
