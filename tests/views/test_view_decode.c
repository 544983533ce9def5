/* test_view_decode.c - the decode view on small random models, headless:
 * what it shows is what the engine computes (generation is tf_greedy and
 * the same as `stepformer translate`, beam size 1 is greedy; teacher
 * forcing and the rest of the lab are tested without a window in
 * tests/session/test_decode_lab.c), the keys do what they
 * say (S steps, P plays to the end, B cycles the beam size), and degenerate
 * inputs (a 1-token source, an output that never reaches <eos>, 30+ tokens,
 * presenter scale, every theme, random clicks) draw without a crash. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "checkpoint.h"
#include "test_app_util.h"
#include "test_util.h"
#include "decode_host.h"
#include "view_decode.h"

static char MODEL[160];
static char MODEL_LONG[160];
static char MODEL_EOS[160];
static char g_cli[4096]; /* build/.../stepformer, next to the tests folder */

static int setup(void **state)
{
    (void)state;
    tu_tmp(MODEL_LONG, sizeof MODEL_LONG, "decode-long.safetensors");
    tu_tmp(MODEL_EOS, sizeof MODEL_EOS, "decode-eos.safetensors");
    if (tu_small_model(MODEL_LONG, 40, 48, 5) || tu_small_model(MODEL_EOS, 40, 48, 7))
        return -1;
    return tu_fixture_open(MODEL, sizeof MODEL, "decode.safetensors", 40, 24, 5, 1280, 800);
}

static int teardown(void **state)
{
    (void)state;
    tu_fixture_close(MODEL);
    remove(MODEL_LONG);
    remove(MODEL_EOS);
    return 0;
}

/* The app on model in the decode view with src (and tgt, NULL: none),
 * one frame drawn; *L is its lab. */
static DecodeUi *open_decode(App *a, const char *model, const char *src, const char *tgt, DecodeLab **L)
{
    AppOpts o = tu_opts(model, src, tgt, "decode");
    o.no_save = 0;
    tu_open(a, &o, 100);
    tu_frame(a);
    expect_true(app_current_view(a) == VIEW_DECODE, "the decode view is shown, got %s",
                view_name(app_current_view(a)));
    expect_true(((DecodeUi *)a->vstate[VIEW_DECODE])->ready, "the view set its state up on the first frame");
    *L = dhost_lab(a);
    return a->vstate[VIEW_DECODE];
}

/* Run `stepformer translate` on the model and sentence; its output line. */
static int translate_cli(const char *model, const char *src, char *out, size_t cap)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "'%s' translate --model '%s' '%s' 2>/dev/null", g_cli, model, src);
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    out[0] = 0;
    char *ok = fgets(out, (int)cap, p);
    int rc = pclose(p);
    if (!ok || rc != 0)
        return -1;
    out[strcspn(out, "\n")] = 0;
    return 0;
}

/* Generation shown = tf_greedy with the trace `translate` uses = the CLI. */
static void check_generation(const char *model, const char *src_text)
{
    static App a;
    DecodeLab *L;
    DecodeUi *d = open_decode(&a, model, src_text, NULL, &L);
    expect_true(L->err[0] == 0, "no error, got '%s'", L->err);
    TfTrace tr;
    TfErr err;
    int T = a.ses.model.cfg.max_len;
    expect_true(trace_build(&tr, &a.ses.model.cfg, 1, T, 0, &err) == 0, "trace: %s", err.msg);
    DecodeResult g;
    int max_out = decode_max_out(&a.ses.model, &tr, a.ses.src_n[0]);
    expect_true(tf_greedy(&a.ses.model, &tr, a.ses.src_ids[0], a.ses.src_n[0], max_out, 0, &g, &err) == 0,
                "greedy: %s", err.msg);
    expect_true(L->gen.n == g.n, "'%s': generation shows %d tokens, tf_greedy made %d", src_text,
                L->gen.n, g.n);
    for (int i = 0; i < g.n && i < L->gen.n; i++)
        expect_true(L->gen.ids[i] == g.ids[i], "token %d: tf_greedy %d, shown %d", i, g.ids[i],
                    L->gen.ids[i]);
    expect_true(d->shown == g.n && d->sel == g.n - 1,
                "every step shown at first (%d of %d, inspecting %d)", d->shown, g.n, d->sel);
    /* the steps' rows are what greedy kept: the token and top-1 agree */
    for (int i = 0; i < L->gen.n; i++)
        expect_true(L->gen.steps[i].token == L->gen.ids[i] && L->gen.steps[i].top_id[0] == L->gen.ids[i],
                    "step %d keeps its token %d (top-1 %d)", i, L->gen.steps[i].token,
                    L->gen.steps[i].top_id[0]);
    char want[APP_TEXT_MAX], got[APP_TEXT_MAX];
    vocab_decode(&a.ses.model.tgt_vocab, L->gen.ids, L->gen.n, want, sizeof want);
    expect_true(translate_cli(model, src_text, got, sizeof got) == 0, "running %s translate", g_cli);
    expect_true(strcmp(want, got) == 0, "the view shows «%s», stepformer translate says «%s»", want, got);
    printf("  '%s' -> %d tokens%s\n", src_text, g.n,
           g.ids[g.n - 1] == TOK_EOS ? ", <eos> included" : ", no <eos> (maximum length)");
    decode_result_free(&g);
    trace_free(&tr);
    app_free(&a);
}

static void test_generation_is_greedy_and_translate(void **state)
{
    (void)state;
    check_generation(MODEL, "t5 t6 t7");
    check_generation(MODEL, "t20");
    /* 20 tokens: S + 50 exceeds max_len, so the cap decides the length */
    check_generation(MODEL, "t4 t5 t6 t7 t8 t9 t10 t11 t12 t13 t14 t15 t16 t17 t18 t19 t20 t21 t22 t23");
    check_generation(MODEL_LONG, "t30 t31 t32 t33 t34");
    check_generation(MODEL_EOS, "t30 t31 t32 t33 t34");
    check_generation(MODEL_EOS, "t4 t5 t6 t7 t8 t9 t10 t11 t12 t13 t14 t15 t16 t17 t18 t19 t20 t21 t22 t23 "
                                "t24 t25 t26 t27 t28 t29 t30 t31 t32 t33 t34 t35");
}

/* B cycles the beam size 1..8 and shows the tree; size 1 is greedy. */
static void test_beam_keys_and_beam1_is_greedy(void **state)
{
    (void)state;
    static App a;
    DecodeLab *L;
    DecodeUi *d = open_decode(&a, MODEL, "t5 t6 t7 t8 t9", NULL, &L);
    int k0 = d->beam_k;
    for (int i = 1; i <= DEC_MAX_BEAM; i++) {
        ev_key(&a, 'b', 0);
        int want = (k0 + i - 1) % DEC_MAX_BEAM + 1;
        expect_true(d->beam_k == want, "B press %d: beam size %d, got %d", i, want, d->beam_k);
        expect_true(d->pane == DEC_PANE_BEAM, "B shows the beam tree");
        expect_true(L->beam_for_k == want && L->beam.n > 0, "the tree is searched with %d beams (for %d)",
                    want, L->beam_for_k);
        tu_frame(&a);
    }
    ev_key(&a, 'b', MOD_SHIFT);
    expect_true(d->beam_k == (k0 + DEC_MAX_BEAM - 2) % DEC_MAX_BEAM + 1, "Shift+B goes back, got %d", d->beam_k);
    while (d->beam_k != 1)
        ev_key(&a, 'b', 0);
    tu_frame(&a);
    expect_true(L->beam.n == L->gen.n, "beam 1 makes %d tokens like greedy, got %d", L->gen.n, L->beam.n);
    for (int i = 0; i < L->beam.n && i < L->gen.n; i++)
        expect_true(L->beam.ids[i] == L->gen.ids[i], "beam 1 token %d: greedy %d, beam %d", i,
                    L->gen.ids[i], L->beam.ids[i]);
    expect_true(fabs(L->beam.logprob - L->gen.logprob) < 1e-4, "log P greedy %.6f, beam %.6f",
                L->gen.logprob, L->beam.logprob);
    /* A cycles the length penalty; the winner is the best finished score */
    int a0 = d->alpha_i;
    ev_key(&a, 'a', 0);
    expect_true(d->alpha_i == (a0 + 1) % DEC_N_ALPHA, "A cycles alpha, got index %d", d->alpha_i);
    ev_key(&a, 'b', 0);
    ev_key(&a, 'b', 0);
    ev_key(&a, 'b', 0); /* beam 4 */
    tu_frame(&a);
    double best = -INFINITY;
    for (int i = 0; i < L->beam.n_nodes; i++)
        if (L->beam.nodes[i].state == BEAM_FINISHED && L->beam.nodes[i].score > best)
            best = L->beam.nodes[i].score;
    const BeamNode *win = &L->beam.nodes[L->beam.best_node];
    expect_true(win->state == BEAM_FINISHED ? L->beam.score == best : L->beam.score >= best,
                "the winner's score %.6f is the best finished one %.6f (or an unfinished one at max_out beats it)",
                L->beam.score, best);
    for (int k = L->beam.best_node; k >= 0; k = L->beam.nodes[k].parent)
        expect_true(L->on_path[k], "node %d on the winner's path is marked", k);
    expect_true(L->n_cols >= 2, "the tree has columns, got %d", L->n_cols);
    ev_key(&a, 'j', 0);
    expect_true(d->pane == DEC_PANE_SAMPLE, "J goes on to sampling, got %d", d->pane);
    ev_key(&a, 'j', 0);
    expect_true(d->pane == DEC_PANE_GEN, "J goes on to the first pane, got %d", d->pane);
    expect_true(app_decode_setup(&a, "beam", 2, 1.0f) == 0 && d->pane == DEC_PANE_BEAM && d->beam_k == 2 &&
                    DEC_ALPHAS[d->alpha_i] == 1.0f && L->beam_for_k == 2,
                "setup shows beam 2, alpha 1 (pane %d, k %d, alpha %g)", d->pane, d->beam_k, DEC_ALPHAS[d->alpha_i]);
    expect_true(app_decode_setup(&a, "nope", 0, -1) == -1, "an unknown pane is refused");
    app_free(&a);
}

/* S reveals one token at a time and restarts at the end; P plays to the
 * end at a visible pace; ←/→ inspect earlier steps; keys stay in the view. */
static void test_step_and_play_keys(void **state)
{
    (void)state;
    static App a;
    DecodeLab *L;
    DecodeUi *d = open_decode(&a, MODEL, "t5 t6 t7", "t8 t9", &L);
    int n = L->gen.n;
    expect_true(n >= 2, "some tokens to step through, got %d", n);
    ev_key(&a, 's', 0);
    expect_true(d->shown == 0 && d->sel == -1, "S at the end restarts at <bos>: shown %d sel %d", d->shown, d->sel);
    tu_frame(&a);
    for (int i = 1; i <= n; i++) {
        ev_key(&a, 's', 0);
        expect_true(d->shown == i && d->sel == i - 1, "S press %d: %d shown (got %d), inspecting %d (got %d)",
                    i, i, d->shown, i - 1, d->sel);
        tu_frame(&a);
    }
    ev_key(&a, KEY_LEFT, 0);
    expect_true(d->sel == n - 2 && d->shown == n, "Left inspects step %d, got %d", n - 2, d->sel);
    ev_key(&a, KEY_HOME, 0);
    expect_true(d->sel == 0, "Home inspects the first step, got %d", d->sel);
    ev_key(&a, KEY_RIGHT, 0);
    expect_true(d->sel == 1, "Right inspects the next step, got %d", d->sel);
    tu_frame(&a);
    /* play: from the end it restarts, then one token per DEC_PACE */
    ev_key(&a, 'p', 0);
    expect_true(d->playing && d->shown == 0, "P plays from the start (playing %d, shown %d)", d->playing, d->shown);
    int frames = 0, last = 0, monotone = 1;
    while (d->playing && frames < 1000) {
        a.now += 0.2;
        app_frame(&a, tu_ren);
        monotone &= d->shown >= last && d->shown <= last + 1;
        last = d->shown;
        frames++;
        expect_true(!d->playing || app_next_wake_ms(&a) >= 0, "a playing view asks to be woken up");
    }
    expect_true(!d->playing && d->shown == n, "P played to the end: %d of %d shown after %d frames", d->shown, n, frames);
    expect_true(monotone, "one token at a time");
    expect_true(frames >= (int)((n - 1) * DEC_PACE / 0.2), "at a visible pace: %d frames of 0.2 s for %d tokens", frames, n);
    ev_key(&a, 'p', 0);
    ev_key(&a, 'p', 0);
    expect_true(!d->playing, "P twice pauses");
    ev_key(&a, KEY_SPACE, 0);
    expect_true(d->playing, "Space plays too");
    ev_key(&a, 'r', 0);
    expect_true(!d->playing && d->shown == 0, "R restarts");
    /* heads and layers without leaving the view */
    ev_key(&a, '0', 0);
    expect_true(a.ses.head == -1 && app_current_view(&a) == VIEW_DECODE, "0 averages the heads and stays (view %s)",
                view_name(app_current_view(&a)));
    ev_key(&a, '2', 0);
    expect_true(a.ses.head == 1, "2 picks head 2, got %d", a.ses.head + 1);
    int l = d->layer;
    ev_key(&a, '[', 0);
    expect_true(d->layer == (l > 0 ? l - 1 : 0), "[ goes down a layer, got %d", d->layer);
    ev_key(&a, ']', 0);
    expect_true(d->layer == l, "] comes back to layer %d, got %d", l, d->layer);
    /* typing in the target line is not a shortcut */
    app_focus_line(&a, APP_LINE_TGT);
    ev_key(&a, 's', 0);
    expect_true(d->shown == 0, "S while typing is text, shown stays %d", d->shown);
    app_focus_line(&a, -1);
    app_free(&a);
}

/* Every pane in every theme, at presenter scale and on a small window,
 * with an untrained model and a 1-token source; then 30+ tokens whose
 * output never reaches <eos>; then random clicks, wheel and keys. */
static void draw_everything(App *a)
{
    DecodeUi *d = a->vstate[VIEW_DECODE];
    for (int t = 0; t < THEME_COUNT; t++)
        for (int p = 0; p < DEC_PANE_COUNT; p++) {
            a->look.theme = (ThemeId)t;
            d->pane = (DecPane)p;
            tu_frame(a);
            a->look.text_scale = 1.6f;
            tu_frame(a);
            a->look.text_scale = 1.0f;
        }
    ren_resize_headless(tu_ren, 800, 600);
    for (int p = 0; p < DEC_PANE_COUNT; p++) {
        d->pane = (DecPane)p;
        tu_frame(a);
    }
    ren_resize_headless(tu_ren, 1280, 800);
    a->look.theme = THEME_DARK;
}

static void test_degenerate_inputs(void **state)
{
    (void)state;
    static App a;
    DecodeLab *L;
    DecodeUi *d = open_decode(&a, MODEL, "t5", NULL, &L);
    expect_true(L->S == 1 && L->gen.n >= 1, "a 1-token source decodes (S %d, %d tokens)", L->S, L->gen.n);
    expect_true(L->ref == 0 && L->diverge == -1, "no target typed: the greedy output stands in");
    draw_everything(&a);
    /* an empty target line, then a target that is only spaces */
    app_set_text(&a, APP_LINE_TGT, "   ");
    tu_frame(&a);
    expect_true(L->tf_n == 1 && L->tf_truth[0] == TOK_EOS, "an empty reference: one position, true next <eos> (%d, %d)",
                L->tf_n, L->tf_truth[0]);
    draw_everything(&a);
    app_free(&a);

    const char *long_src = "t4 t5 t6 t7 t8 t9 t10 t11 t12 t13 t14 t15 t16 t17 t18 t19 t20 t21 t22 t23 "
                           "t24 t25 t26 t27 t28 t29 t30 t31 t32 t33 t34 t35";
    d = open_decode(&a, MODEL_LONG, long_src, "t9 t8 t7 t6 t5 t4 t9 t8 t7 t6 t5 t4 t9 t8 t7 t6 t5 t4 t9 t8 t7 t6 t5 t4 t9 t8 t7 t6 t5 t4 t9", &L);
    expect_true(L->S == 32, "a 32-token source, got %d", L->S);
    printf("  32 tokens in: %d out, %s\n", L->gen.n,
           L->gen.ids[L->gen.n - 1] == TOK_EOS ? "<eos> reached" : "no <eos> (maximum length)");
    ev_key(&a, 'b', 0);
    while (d->beam_k != DEC_MAX_BEAM)
        ev_key(&a, 'b', 0);
    printf("  beam 8: %d nodes in %d columns\n", L->beam.n_nodes, L->n_cols);
    draw_everything(&a);
    /* random mouse and keys over the view */
    srand(3);
    static const Key keys[] = {'s', 'p', 'r', 'b', 'a', 'j', KEY_LEFT,
                                       KEY_RIGHT, '0', '1', '[', ']'};
    for (int i = 0; i < 600; i++) {
        int x = rand() % 1280, y = rand() % 800, r = rand() % 10;
        ev_mouse(&a, IN_MOUSE_MOVE, x, y, 0);
        if (r < 4) {
            ev_mouse(&a, IN_MOUSE_DOWN, x, y, MB_LEFT);
            ev_mouse(&a, IN_MOUSE_UP, x, y, MB_LEFT);
        } else if (r < 6) {
            ev_mouse(&a, IN_WHEEL, 0, 0, rand() % 5 - 2);
        } else if (r < 8) {
            ev_key(&a, keys[rand() % (int)(sizeof keys / sizeof keys[0])], 0);
        }
        app_focus_line(&a, -1);
        a.show_help = 0;
        a.win.want_quit = 0;
        a.view = VIEW_DECODE;
        if (i % 3 == 0)
            tu_frame(&a);
    }
    expect_true(a.vstate[VIEW_DECODE] == d && d->shown <= L->gen.n && d->sel < d->shown, "state stays consistent (shown %d, sel %d)",
                d->shown, d->sel);
    app_free(&a);
    expect_true(a.vstate[VIEW_DECODE] == NULL, "app_free frees the view's state");
}

/* Text drawn on one line of the view must not overlap: an output longer
 * than the step strip has room for labels every k-th token, and the first
 * label ("<bos>"), kept inside the strip's left edge, used to run into the
 * k-th one ("<bost5"). */
typedef struct Boxes {
    int n;
    Rect box[2048];
    char s[2048][24];
} Boxes;

static void on_box(void *user, const char *utf8, int len, Rect box, const char *tag)
{
    (void)tag;
    Boxes *b = user;
    if (b->n < 2048 && len > 0) {
        b->box[b->n] = box;
        snprintf(b->s[b->n], sizeof b->s[b->n], "%.*s", len < 23 ? len : 23, utf8);
        b->n++;
    }
}

static void test_step_labels_do_not_overlap(void **state)
{
    (void)state;
    static App a;
    static Boxes b;
    /* 20000 tokens (names like t13023) and 56 generated: the strip labels
     * every k-th token */
    char path[160];
    tu_tmp(path, sizeof path, "decode-wide.safetensors");
    expect_true(tu_small_model(path, 20000, 96, 3) == 0, "model");
    DecodeLab *L;
    open_decode(&a, path, "t5 t6 t7 t8 t9 t10", NULL, &L);
    for (int i = 0; i < 100 && app_idle_work(&a) == 1; i++)
        tu_frame(&a);
    tu_frame(&a);
    expect_true(L->gen.n > 30, "a long output (%d tokens)", L->gen.n);
    memset(&b, 0, sizeof b);
    ren_text_hook(on_box, &b);
    tu_frame(&a);
    ren_text_hook(NULL, NULL);
    int pairs = 0, bos = 0;
    for (int i = 0; i < b.n; i++) {
        bos += !strcmp(b.s[i], "<bos>");
        for (int j = i + 1; j < b.n; j++) {
            Rect p = b.box[i], q = b.box[j];
            if (p.y != q.y || p.h != q.h)
                continue;
            int overlap = p.x < q.x + q.w - 1 && q.x < p.x + p.w - 1;
            pairs += overlap;
            expect_true(!overlap, "'%s' at x %d..%d and '%s' at x %d..%d (y %d) overlap", b.s[i], p.x,
                        p.x + p.w, b.s[j], q.x, q.x + q.w, p.y);
        }
    }
    expect_true(bos >= 1, "the view labels <bos> (%d)", bos);
    printf("  %d pieces of text, %d overlapping pairs\n", b.n, pairs);
    app_free(&a);
    remove(path);
}

int main(int argc, char **argv)
{
    TU_RUN_CLI(g_cli, argc, argv, setup, teardown,
               cmocka_unit_test(test_generation_is_greedy_and_translate),
               cmocka_unit_test(test_beam_keys_and_beam1_is_greedy),
               cmocka_unit_test(test_step_and_play_keys), cmocka_unit_test(test_degenerate_inputs),
               cmocka_unit_test(test_step_labels_do_not_overlap));
}
