/* test_app.c - the window's state driven by synthetic input events, drawn on a
 * headless renderer: stepping through every stage, layer and head keys,
 * typing (Chinese included) and deleting, clicks on the navigator and on
 * tokens and on the tabs (applied after the frame that drew them: drawing
 * changes nothing), resizing, bad input, the lazy pass (random events:
 * test_soak.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "checkpoint.h"
#include "colormap.h"
#include "test_app_util.h"
#include "test_util.h"
#include "view.h"

static char MODEL[160];

TU_FIXTURE(MODEL, "app.safetensors", 1280, 800)

static void open_app(App *a, const char *src)
{
    AppOpts o = tu_opts(MODEL, src, NULL, NULL);
    o.head = 0;
    o.no_save = 0;
    tu_open(a, &o, 100);
}

static void test_step_through_every_stage(void **state)
{
    (void)state;
    static App a;
    open_app(&a, "t5 t6 t7");
    tu_frame(&a);
    int n = a.ses.n_walk, seen_dec = 0;
    expect_true(n > 60, "the walk covers every stage of 2+2 layers, got %d", n);
    for (int i = 0; i < n - 1; i++) {
        ev_key(&a, KEY_RIGHT, 0);
        tu_frame(&a);
        expect_true(a.ses.at == i + 1, "Right moves to step %d, at %d", i + 1, a.ses.at);
        seen_dec |= (stage_info(app_pos(&a).stage)->flags & SF_DECODER) != 0;
    }
    expect_true(app_pos(&a).stage == ST_OUT_PROBS, "the walk ends at out.probs, got %s", stage_info(app_pos(&a).stage)->name);
    ev_key(&a, KEY_RIGHT, 0);
    expect_true(a.ses.at == n - 1, "Right at the end stays");
    for (int i = n - 1; i > 0; i--) {
        ev_key(&a, KEY_LEFT, 0);
        tu_frame(&a);
    }
    expect_true(a.ses.at == 0 && app_pos(&a).stage == ST_SRC_TOKENS, "Left back to src.tokens");
    expect_true(seen_dec, "the decoder was visited");
    /* every stage in the walk exists exactly once per layer */
    for (int s = 0; s < ST_COUNT; s++) {
        if (!stage_exists(s, &a.ses.model.cfg))
            continue;
        int count = 0;
        for (int i = 0; i < n; i++)
            count += a.ses.walk[i].stage == (StageId)s;
        expect_true(count == stage_layers(s, &a.ses.model.cfg), "%s appears %d times, got %d",
                    stage_info(s)->name, stage_layers(s, &a.ses.model.cfg), count);
    }
    app_free(&a);
}

static void test_layer_head_tab_keys(void **state)
{
    (void)state;
    static App a;
    open_app(&a, "t5 t6 t7");
    app_goto(&a, ST_ENC_SELF_WEIGHTS, 0);
    ev_key(&a, ']', 0);
    expect_true(app_pos(&a).stage == ST_ENC_SELF_WEIGHTS && app_pos(&a).layer == 1, "] goes to layer 2");
    ev_key(&a, ']', 0);
    expect_true(app_pos(&a).layer == 1, "] at the last layer stays");
    ev_key(&a, '[', 0);
    expect_true(app_pos(&a).layer == 0, "[ back to layer 1");
    ev_key(&a, '3', 0);
    expect_true(a.ses.head == 2, "3 picks head 3 (index 2), got %d", a.ses.head);
    ev_key(&a, '9', 0);
    expect_true(a.ses.head == 2, "9 is ignored with 4 heads, head stays %d", a.ses.head);
    ev_key(&a, '0', 0);
    tu_frame(&a);
    expect_true(a.ses.head == -1 && app_current_view(&a) == VIEW_HEADS, "0 shows all heads in the grid");
    ev_key(&a, '1', 0);
    ev_key(&a, 'j', 0);
    expect_true(app_pos(&a).stage == ST_DEC_SELF_WEIGHTS, "J goes to decoder self-attention weights, got %s",
                stage_info(app_pos(&a).stage)->name);
    ev_key(&a, 'j', 0);
    expect_true(app_pos(&a).stage == ST_ENC_SELF_WEIGHTS, "J comes back");
    app_goto(&a, ST_DEC_CROSS_WEIGHTS, 1);
    ev_key(&a, 'j', 0);
    expect_true(app_pos(&a).stage == ST_ENC_SELF_WEIGHTS && app_pos(&a).layer == 1, "J from cross-attention to encoder");
    ThemeId t0 = a.look.theme;
    ev_key(&a, 't', 0);
    expect_true(a.look.theme != t0, "T changes the theme");
    float s0 = a.look.text_scale;
    ev_key(&a, '=', 0);
    expect_true(a.look.text_scale > s0, "+ enlarges text");
    ev_key(&a, '-', 0);
    ev_key(&a, '-', 0);
    expect_true(a.look.text_scale < s0, "- shrinks text");
    tu_frame(&a);
    ev_key(&a, '/', 0);
    expect_true(a.show_help, "? opens help");
    tu_frame(&a);
    ev_key(&a, KEY_ESCAPE, 0);
    expect_true(!a.show_help && !a.win.want_quit, "Esc closes help first");
    ev_key(&a, KEY_ESCAPE, 0);
    expect_true(a.win.want_quit, "Esc then quits");
    app_free(&a);
}

static void test_typing(void **state)
{
    (void)state;
    static App a;
    open_app(&a, "t5");
    tu_frame(&a);
    ev_key(&a, KEY_RETURN, 0);
    expect_true(app_focused_line(&a) == APP_LINE_SRC, "Enter focuses the source line");
    ev_text(&a, " t6");
    ev_text(&a, " 我爱");
    tu_frame(&a);
    expect_true(strcmp(a.ses.src_line, "t5 t6 我爱") == 0, "typed text lands, got '%s'", a.ses.src_line);
    expect_true(a.ses.n_unk == 1 && a.ses.src_n[0] == 3, "'我爱' is one unknown word: %d unknown, %d tokens", a.ses.n_unk, a.ses.src_n[0]);
    ev_key(&a, KEY_BACKSPACE, 0);
    expect_true(strcmp(a.ses.src_line, "t5 t6 我") == 0, "Backspace removes one character, got '%s'", a.ses.src_line);
    ev_key(&a, KEY_HOME, 0);
    ev_key(&a, KEY_DELETE, 0);
    expect_true(strcmp(a.ses.src_line, "5 t6 我") == 0, "Delete at the start, got '%s'", a.ses.src_line);
    ev_key(&a, 'u', MOD_CTRL);
    tu_frame(&a);
    expect_true(a.ses.src_line[0] == 0 && a.ses.input_error[0] != 0, "an empty line is reported: '%s'", a.ses.input_error);
    printf("  empty -> %s\n", a.ses.input_error);
    ev_text(&a, "t9 t10");
    tu_frame(&a);
    expect_true(a.ses.input_error[0] == 0 && a.ses.src_n[0] == 2, "back to running");
    /* keys are text while a field has focus, shortcuts after Esc */
    int at = a.ses.at;
    ev_text(&a, "t");
    ev_key(&a, KEY_RIGHT, 0);
    expect_true(a.ses.at == at, "Right moves the cursor, not the stage, while typing");
    ev_key(&a, KEY_ESCAPE, 0);
    expect_true(!a.ui.focus && !a.win.want_quit, "Esc leaves the field");
    ev_key(&a, KEY_RIGHT, 0);
    expect_true(a.ses.at == at + 1, "then Right steps");
    /* a target typed by hand is used (teacher forcing) */
    app_focus_line(&a, APP_LINE_TGT);
    ui_edit_cursor(&a.ui, a.ses.tgt, 0);
    ev_text(&a, "t7 t8 t9");
    tu_frame(&a);
    expect_true(!a.ses.tgt_auto && a.ses.tgt_n[0] == 4 && a.ses.trace.T == 4, "decoder input <bos> + 3 typed tokens, T = %d", a.ses.trace.T);
    app_free(&a);
}

static void test_bad_input(void **state)
{
    (void)state;
    static App a;
    open_app(&a, "t5 t6");
    app_focus_line(&a, APP_LINE_SRC);
    /* 10 KB pasted: arrives as many small text events */
    for (int i = 0; i < 10240 / 30; i++)
        ev_text(&a, " t11 t12 t13 t14 t15 t16 t17 ");
    tu_frame(&a);
    expect_true(strlen(a.ses.src_line) < APP_TEXT_MAX, "the line is capped at %d bytes, got %zu", APP_TEXT_MAX - 1, strlen(a.ses.src_line));
    expect_true(a.ses.truncated && a.ses.src_n[0] == a.ses.trace.cap_T, "the sentence is cut to %d tokens, got %d", a.ses.trace.cap_T, a.ses.src_n[0]);
    expect_true(a.notice[0] != 0, "a notice says so: %s", a.notice);
    printf("  long paste -> %s\n", a.notice);
    /* invalid UTF-8 from an input method is dropped, valid parts kept */
    ev_key(&a, 'u', MOD_CTRL);
    ev_text(&a, "t5 \xff\xfe t6 \xe6\x88");
    tu_frame(&a);
    size_t bad;
    expect_true(utf8_check(a.ses.src_line, strlen(a.ses.src_line), &bad) == 0, "the line stays valid UTF-8: '%s'", a.ses.src_line);
    expect_true(a.ses.input_error[0] == 0, "and runs");
    /* a batch of 4 sentences of different lengths */
    ev_key(&a, 'u', MOD_CTRL);
    ev_text(&a, "t5 | t6 t7 t8 t9 | t10 t11 | t12 t13 t14 t15 t16 t17");
    tu_frame(&a);
    expect_true(a.ses.n_src == 4 && a.ses.trace.B == 4 && a.ses.trace.S == 6, "4 sentences padded to 6, got B %d S %d from '%s' (%d %d %d %d)",
                a.ses.trace.B, a.ses.trace.S, a.ses.src_line, a.ses.src_n[0], a.ses.src_n[1], a.ses.src_n[2], a.ses.src_n[3]);
    ev_text(&a, " | t5");
    tu_frame(&a);
    expect_true(a.ses.n_src == 4, "a fifth sentence is ignored (at most 4)");
    /* a model that fails to load keeps the old one */
    char BROKEN[160];
    tu_tmp(BROKEN, sizeof BROKEN, "broken.safetensors");
    FILE *f = fopen(BROKEN, "wb");
    fputs("not a model", f);
    fclose(f);
    int loaded = app_load_model(&a, BROKEN);
    expect_true(loaded != 0 && a.ses.have_model && strcmp(a.ses.model_path, MODEL) == 0, "the old model stays");
    expect_true(a.notice_error, "an error notice: %s", a.notice);
    printf("  broken model -> %s\n", a.notice);
    remove(BROKEN);
    tu_frame(&a);
    app_free(&a);
}

static void test_clicks(void **state)
{
    (void)state;
    static App a;
    open_app(&a, "t5 t6 t7");
    tu_frame(&a);
    expect_true(a.nav.n_hits > 10, "the navigator drew its blocks: %d", a.nav.n_hits);
    /* click every navigator block: each jumps to its stage */
    int n = a.nav.n_hits;
    HitRect hits[128];
    memcpy(hits, a.nav.hits, sizeof hits);
    for (int i = 0; i < n; i++) {
        Rect r = hits[i].r;
        tu_click(&a, r.x + r.w / 2, r.y + r.h / 2);
        expect_true(a.ses.at == hits[i].walk, "block %d jumps to step %d, at %d (%s)", i, hits[i].walk, a.ses.at,
                    stage_info(app_pos(&a).stage)->name);
    }
    /* the heatmap: hover a cell, its value is the engine's */
    app_goto(&a, ST_ENC_SELF_SCORES, 1);
    session_set_head(&a.ses, 1);
    tu_frame(&a);
    expect_true(a.heat.valid && a.heat.rows == 3 && a.heat.cols == 3, "scores heatmap 3x3");
    HeatGeo h = a.heat;
    int cx = h.grid.x + (int)(1.5f * h.cw), cy = h.grid.y + (int)(2.5f * h.ch);
    ev_mouse(&a, IN_MOUSE_MOVE, cx, cy, 0);
    tu_frame(&a);
    TfView tv;
    TfErr err;
    tf_view(&a.ses.trace, ST_ENC_SELF_SCORES, 1, 1, 0, &tv, &err);
    expect_true(a.hover.valid && a.hover.row == 2 && a.hover.col == 1, "hover on cell (2,1), got (%d,%d)", a.hover.row, a.hover.col);
    expect_true(a.hover.value == tf_view_at(&tv, 2, 1), "hover shows %g, got %g", tf_view_at(&tv, 2, 1), a.hover.value);
    /* the cell's colour is the colour map of its value */
    uint32_t px;
    ren_read_pixels(tu_ren, (Rect){h.grid.x + (int)(0.3f * h.cw), h.grid.y + (int)(0.3f * h.ch), 1, 1}, &px);
    float t = (tf_view_at(&tv, 0, 0) - h.lo) / (h.hi - h.lo);
    uint32_t want = cmap_rgba(h.cmap, t);
    int dr = abs((int)(px >> 24) - (int)(want >> 24)), dg = abs((int)((px >> 16) & 255) - (int)((want >> 16) & 255)),
        db = abs((int)((px >> 8) & 255) - (int)((want >> 8) & 255));
    expect_true(dr <= 3 && dg <= 3 && db <= 3, "cell (0,0) colour %08x is the colour map of its value %08x", px, want);
    /* wheel zoom and right-click reset */
    ev_mouse(&a, IN_WHEEL, 0, 0, 3);
    tu_frame(&a);
    expect_true(a.pz[VIEW_MATRIX].zoom > 1.5f, "wheel zooms in, zoom %g", a.pz[VIEW_MATRIX].zoom);
    ev_mouse(&a, IN_MOUSE_DOWN, cx, cy, MB_RIGHT);
    tu_frame(&a);
    expect_true(a.pz[VIEW_MATRIX].zoom == 1.0f, "right-click resets the zoom");
    /* clicking a row label selects that token */
    tu_click(&a, h.grid.x - 12, h.grid.y + (int)(1.5f * h.ch));
    expect_true(a.sel.side == 1 && a.sel.index == 1, "row label click selects source token 1, got side %d index %d",
                a.sel.side, a.sel.index);
    app_free(&a);
}

/* Where the tab labelled `want` was drawn, and the head the session had
 * while the frame drew its status line (after the tabs). */
typedef struct TabSpy {
    const char *want;
    Rect box;
    int found;
    const App *a;
    int head_in_frame;
} TabSpy;

static void spy(void *user, const char *utf8, int len, Rect box, const char *tag)
{
    TabSpy *s = user;
    (void)tag;
    if ((int)strlen(s->want) == len && !memcmp(utf8, s->want, (size_t)len)) {
        s->box = box;
        s->found = 1;
    }
    s->head_in_frame = s->a->ses.head; /* the last string drawn: the frame's end */
}

static void test_tab_click(void **state)
{
    (void)state;
    static App a;
    open_app(&a, "t5 t6 t7");
    app_goto(&a, ST_ENC_SELF_WEIGHTS, 0);
    TabSpy s = {"All heads", {0, 0, 0, 0}, 0, &a, 0};
    ren_text_hook(spy, &s);
    tu_frame(&a);
    expect_true(s.found && a.ses.head == 0 && app_current_view(&a) == VIEW_MATRIX,
                "the weights of head 1, with an all-heads tab (found %d, head %d)", s.found, a.ses.head);
    int x = s.box.x + s.box.w / 2, y = s.box.y + s.box.h / 2;
    ev_mouse(&a, IN_MOUSE_MOVE, x, y, 0);
    ev_mouse(&a, IN_MOUSE_DOWN, x, y, MB_LEFT);
    ev_mouse(&a, IN_MOUSE_UP, x, y, MB_LEFT);
    tu_frame(&a);
    ren_text_hook(NULL, NULL);
    expect_true(s.head_in_frame == 0, "the frame that saw the click drew head 1 to its end, got head %d",
                s.head_in_frame);
    expect_true(a.ses.head == -1 && a.view == VIEW_AUTO && app_current_view(&a) == VIEW_HEADS,
                "after it: every head (head %d), the all-heads view (%s)", a.ses.head,
                view_name(app_current_view(&a)));
    app_free(&a);
}

static void test_resize(void **state)
{
    (void)state;
    static App a;
    open_app(&a, "t5 t6 t7 t8");
    int sizes[][2] = {{1920, 1080}, {800, 600}, {640, 480}, {200, 150}, {1280, 800}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        expect_true(ren_resize_headless(tu_ren, sizes[i][0], sizes[i][1]) == 0, "resize");
        for (int k = 0; k < 8; k++) {
            tu_frame(&a);
            ev_key(&a, KEY_RIGHT, 0);
        }
        expect_true(a.win.w == sizes[i][0] && a.win.h == sizes[i][1], "frame at %dx%d", sizes[i][0], sizes[i][1]);
    }
    ren_resize_headless(tu_ren, 1280, 800);
    app_free(&a);
}

/* The window computes only what the shown stage needs after an edit, runs
 * the rest when idle, and ends with exactly the numbers of a full pass. */
static void test_lazy_pass(void **state)
{
    (void)state;
    static App a, b;
    open_app(&a, "t5 t6 t7");
    open_app(&b, "t5 t6 t7 t8 t9");
    session_set_lazy(&a.ses, 1);
    app_goto(&a, ST_ENC_SELF_WEIGHTS, 0);
    tu_frame(&a);
    app_focus_line(&a, APP_LINE_SRC);
    ev_text(&a, " t8 t9");
    tu_frame(&a);
    expect_true(a.ses.units_done == 2, "an encoder layer-1 stage needs 2 units (embeddings, layer 1), ran %d", a.ses.units_done);
    expect_true(a.ses.trace.T == 0, "no decoder stage is valid yet");
    TfView tv;
    TfErr err;
    expect_true(tf_view(&a.ses.trace, ST_DEC_SELF_WEIGHTS, 0, 0, 0, &tv, &err) != 0, "decoder views refused until computed");
    int work, n = 0;
    while ((work = app_idle_work(&a)) == 1)
        n++;
    expect_true(work == 2 && a.ses.units_done == a.ses.model.cfg.n_enc + a.ses.model.cfg.n_dec + 4,
                "idle work finishes the pass (%d more units)", n + 1);
    expect_true(app_idle_work(&a) == 0, "then there is nothing left");
    size_t probs = (size_t)a.ses.trace.B * a.ses.trace.T * a.ses.model.cfg.tgt_vocab;
    expect_true(a.ses.trace.T == b.ses.trace.T && a.ses.trace.S == b.ses.trace.S, "same shapes as a full pass");
    check_close("probs after idle work vs a full pass", a.ses.trace.probs, b.ses.trace.probs, probs, 0, 0);
    /* a decoder stage shown right after an edit computes everything it needs */
    app_goto(&a, ST_DEC_CROSS_WEIGHTS, 1);
    ev_text(&a, " t10");
    tu_frame(&a);
    expect_true(a.ses.trace.T > 0 && tf_view(&a.ses.trace, ST_DEC_CROSS_WEIGHTS, 1, 0, 0, &tv, &err) == 0,
                "dec.cross.weights of layer 2 is ready in the same frame");
    app_free(&a);
    app_free(&b);
}

int main(void)
{
    TU_RUN(setup, teardown, cmocka_unit_test(test_step_through_every_stage), cmocka_unit_test(test_layer_head_tab_keys),
           cmocka_unit_test(test_typing), cmocka_unit_test(test_bad_input), cmocka_unit_test(test_clicks),
           cmocka_unit_test(test_tab_click), cmocka_unit_test(test_resize), cmocka_unit_test(test_lazy_pass));
}
