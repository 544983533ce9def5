/* test_app_feedback.c - the window answers a key or an input that changes
 * nothing, instead of looking broken: [ at the first layer and ] at the
 * last say so (T6); a batch of sentences of one length says that nothing
 * is padded, and the mask view, which has its own sentence buttons (with
 * each one's length), is the only sentence chooser on screen (T7). And
 * long text fits where it is drawn: the Target line's placeholder ends in
 * an ellipsis at the box's edge, with sentencepiece's ▁ as the tokens'
 * middle dot (T11, M3); an untrained model's repeated output is one chip
 * "t35 ×54" (B1). And on a small screen (800x600): every view tab the
 * stage offers can be reached with the mouse, those that do not fit the
 * tab bar through its » list, which takes its click; the explanation
 * scrolls with a cue; in a lesson, hovering a cell shows how its number
 * was computed under the lesson text (S2). On the bundled en2zh model
 * (2 + 2 layers) and small random ones, drawn headless; clicks go through
 * app_event() as synthetic events. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "lesson_ui.h"
#include "paths.h"
#include "test_app_util.h"
#include "test_util.h"

TU_RENDERER(1280, 800)

static void test_layer_ends_say_so(void **state)
{
    (void)state;
    static App a;
    AppOpts o = tu_opts(NULL, "i love china", NULL, NULL);
    tu_open(&a, &o, 100);
    app_goto(&a, ST_ENC_SELF_WEIGHTS, 0);
    a.notice[0] = 0;
    ev_key(&a, '[', 0);
    expect_true(app_pos(&a).layer == 0 && strstr(a.notice, "layer 1 is the first") != NULL,
                "[ at layer 1: stays, and says it is the first; got layer %d, notice '%s'", app_pos(&a).layer + 1,
                a.notice);
    ev_key(&a, ']', 0);
    expect_true(app_pos(&a).layer == 1, "] moves to layer 2, got layer %d", app_pos(&a).layer + 1);
    a.notice[0] = 0;
    ev_key(&a, ']', 0);
    expect_true(app_pos(&a).layer == 1 && strstr(a.notice, "layer 2 is the last") != NULL,
                "] at layer 2 of 2: stays, and says it is the last; got layer %d, notice '%s'",
                app_pos(&a).layer + 1, a.notice);
    app_goto(&a, ST_SRC_TOKENS, 0);
    a.notice[0] = 0;
    ev_key(&a, ']', 0);
    expect_true(strstr(a.notice, "one layer") != NULL, "] on the tokens: says the stage has one layer, got '%s'",
                a.notice);
    app_free(&a);
}

/* The strings drawn in a frame, by whom (the view or the window). */
typedef struct Drawn {
    int n;
    char s[512][96];
    char tag[512][8];
} Drawn;

static void on_drawn(void *user, const char *s, int len, Rect box, const char *tag)
{
    Drawn *d = user;
    (void)box;
    if (len >= 96 || d->n >= 512)
        return;
    snprintf(d->s[d->n], sizeof d->s[0], "%.*s", len, s);
    snprintf(d->tag[d->n++], sizeof d->tag[0], "%s", tag ? tag : "");
}

static int drawn_by(const Drawn *d, const char *s, const char *tag)
{
    int k = 0;
    for (int i = 0; i < d->n; i++)
        k += strcmp(d->s[i], s) == 0 && strcmp(d->tag[i], tag) == 0;
    return k;
}

static void frame_drawn(App *a, Drawn *d)
{
    memset(d, 0, sizeof *d);
    ren_text_hook(on_drawn, d);
    tu_frame(a);
    ren_text_hook(NULL, NULL);
}

static void test_nothing_to_pad(void **state)
{
    (void)state;
    static App a;
    static Drawn d;
    const char *same = "all sentences have the same length: nothing to pad";
    struct { const char *s0, *s1; int same; } cases[] = {{"i love china", "you read books", 1},
                                                        {"i love china", "you read", 0}};
    for (int k = 0; k < 2; k++) {
        AppOpts o = tu_opts(NULL, NULL, NULL, NULL);
        o.src[0] = cases[k].s0;
        o.src[1] = cases[k].s1;
        o.n_src = 2;
        tu_open(&a, &o, 100);
        app_goto(&a, ST_ENC_SELF_MASK, 0);
        frame_drawn(&a, &d);
        expect_true(app_current_view(&a) == VIEW_MASK, "the mask view, got %d", (int)app_current_view(&a));
        expect_true(drawn_by(&d, same, "view") == cases[k].same, "'%s' | '%s': \"%s\" drawn %d times, expected %d",
                    cases[k].s0, cases[k].s1, same, drawn_by(&d, same, "view"), cases[k].same);
        /* one sentence chooser: the mask view's buttons, not the tab bar's too */
        expect_true(drawn_by(&d, "sentence", "window") == 0 && drawn_by(&d, "sentence", "view") == 1,
                    "the mask view: one chooser (the view's), got %d in the tab bar and %d in the view",
                    drawn_by(&d, "sentence", "window"), drawn_by(&d, "sentence", "view"));
        app_goto(&a, ST_ENC_SELF_Q, 0);
        frame_drawn(&a, &d);
        expect_true(drawn_by(&d, "sentence", "window") == 1, "another view: the tab bar's chooser, got %d",
                    drawn_by(&d, "sentence", "window"));
        app_free(&a);
    }
}

/* Strings drawn past the right edge of the window (x + width > W). */
typedef struct Edge {
    int past, ell, bar;
    char first[200];
} Edge;

static void on_edge(void *user, const char *s, int len, Rect box, const char *tag)
{
    Edge *e = user;
    (void)tag;
    if (box.x + box.w > 1280 && e->past++ == 0)
        snprintf(e->first, sizeof e->first, "%.*s", len < 190 ? len : 190, s);
    if (len == (int)strlen("…") && strncmp(s, "…", (size_t)len) == 0 && box.y > 740)
        e->ell++;
    for (int i = 0; i + 3 <= len; i++)
        e->bar += strncmp(s + i, "\xe2\x96\x81", 3) == 0;
}

static void test_target_placeholder_fits(void **state)
{
    (void)state;
    static App a;
    static Edge e;
    AppOpts o = tu_opts(NULL, "i love china", NULL, NULL);
    tu_open(&a, &o, 100);
    tu_frame(&a);
    /* a long translation with sentencepiece's word marks, as a MarianMT
     * model's batch gives */
    char *t = a.ses.translation;
    t[0] = 0;
    for (int i = 0; i < 40; i++)
        strcat(t, "\xe2\x96\x81very");
    memset(&e, 0, sizeof e);
    ren_text_hook(on_edge, &e);
    tu_frame(&a);
    ren_text_hook(NULL, NULL);
    expect_true(e.past == 0, "nothing drawn past the window's right edge, got %d strings (first '%s')", e.past,
                e.first);
    expect_true(e.ell >= 1, "the Target placeholder ends with an ellipsis, got %d", e.ell);
    expect_true(e.bar == 0, "no ▁ drawn (the middle dot instead), got %d", e.bar);
    app_free(&a);
}

static char g_small[256];

static void test_repeats_collapse(void **state)
{
    (void)state;
    static App a;
    static Drawn d;
    char path[256];
    expect_true(tu_model_tmp(path, sizeof path, "feedback-rand.safetensors", 40, 48, 7) == 0, "a small model");
    snprintf(g_small, sizeof g_small, "%s", path);
    AppOpts o = tu_opts(g_small, "t5 t6 t7", NULL, NULL);
    tu_open(&a, &o, 100);
    app_goto(&a, ST_SRC_TOKENS, 0);
    frame_drawn(&a, &d);
    /* the longest run of one token in the greedy output */
    const int *g = a.ses.greedy.ids;
    int n = 0, best = 0, best_id = -1;
    while (n < a.ses.greedy.n && g[n] != cfg_eos_id(&a.ses.model.cfg))
        n++;
    for (int i = 0; i < n;) {
        int k = 1;
        while (i + k < n && g[i + k] == g[i])
            k++;
        if (k > best)
            best = k, best_id = g[i];
        i += k;
    }
    char want[96];
    snprintf(want, sizeof want, "%s ×%d", vocab_token(&a.ses.model.tgt_vocab, best_id), best);
    expect_true(best >= 3, "the random model repeats a token (a run of %d)", best);
    expect_true(drawn_by(&d, want, "view") == 1, "the run drawn as one chip \"%s\", got %d", want,
                drawn_by(&d, want, "view"));
    app_free(&a);
    remove(path);
}

/* The navigator of a 6-layer model: the orange line from the encoder to
 * the decoder's cross-attention runs behind the decoder's layer tabs, so
 * no digit of a tab has the line's colour in it (B2). */
typedef struct Digits {
    int n;
    Rect box[32];
} Digits;

static void on_digit(void *user, const char *s, int len, Rect box, const char *tag)
{
    Digits *d = user;
    if (tag && strcmp(tag, "window") == 0 && len == 1 && s[0] >= '1' && s[0] <= '6' && box.x < 280 && d->n < 32)
        d->box[d->n++] = box;
}

static void test_nav_tabs_over_the_connector(void **state)
{
    (void)state;
    static App a;
    static Digits d;
    char path[256];
    TfConfig c;
    TfErr err;
    TfModel m;
    cfg_preset(&c, "classroom", &err);
    c.d_model = 32;
    c.n_heads = 4;
    c.d_ff = 64;
    c.n_enc = c.n_dec = 6;
    c.src_vocab = c.tgt_vocab = 40;
    tu_tmp(path, sizeof path, "feedback-6layers.safetensors");
    expect_true(model_init_random(&m, &c, 3, &err) == 0 && ckpt_save(&m, path, &err) == 0, "a 6-layer model: %s",
                err.msg);
    model_free(&m);
    AppOpts o = tu_opts(path, "t5 t6 t7", NULL, NULL);
    tu_open(&a, &o, 100);
    app_goto(&a, ST_DEC_CROSS_WEIGHTS, 0);
    tu_frame(&a);
    memset(&d, 0, sizeof d);
    ren_text_hook(on_digit, &d);
    a.now += 0.5;
    app_draw(&a, tu_ren);
    ren_text_hook(NULL, NULL);
    Color o2 = theme_get(a.look.theme)->accent2;
    int orange = 0, tabs = 0;
    static uint32_t px[64 * 64];
    for (int i = 0; i < d.n; i++) {
        Rect b = d.box[i];
        if (b.w > 64 || b.h > 64)
            continue;
        tabs++;
        ren_read_pixels(tu_ren, b, px);
        for (int k = 0; k < b.w * b.h; k++) {
            uint32_t p = px[k];
            int r = (int)(p >> 24), g = (int)(p >> 16 & 255), bl = (int)(p >> 8 & 255);
            orange += abs(r - o2.r) < 24 && abs(g - o2.g) < 24 && abs(bl - o2.b) < 24;
        }
    }
    ren_end(tu_ren);
    expect_true(tabs >= 12, "both columns' layer tabs drawn (6 + 6 digits), got %d", tabs);
    expect_true(orange == 0, "no pixel of the connector's colour on a layer number, got %d", orange);
    app_free(&a);
    remove(path);
}

/* Where each string was drawn (the view's), for rows of controls. */
typedef struct Boxes {
    int n;
    char s[400][48];
    Rect box[400];
} Boxes;

static void on_box(void *user, const char *s, int len, Rect box, const char *tag)
{
    Boxes *b = user;
    if (!tag || strcmp(tag, "view") != 0 || len >= 48 || b->n >= 400)
        return;
    snprintf(b->s[b->n], sizeof b->s[0], "%.*s", len, s);
    b->box[b->n++] = box;
}

/* The y of the first string s drawn, -1 none. */
static int y_of(const Boxes *b, const char *s)
{
    for (int i = 0; i < b->n; i++)
        if (strcmp(b->s[i], s) == 0)
            return b->box[i].y;
    return -1;
}

/* The beam and sampling panes' controls at 1280x800: a label and its
 * buttons on one line, never split over two (T8, E9). */
static void test_decode_controls_do_not_wrap(void **state)
{
    (void)state;
    static App a;
    static Boxes b;
    const char *panes[2] = {"beam", "sample"};
    for (int k = 0; k < 2; k++) {
        AppOpts o = tu_opts(NULL, "i read books today", NULL, "decode");
        tu_open(&a, &o, 100);
        app_decode_setup(&a, panes[k], 4, 0.6f);
        for (int i = 0; i < 40; i++) {
            a.now += 0.05;
            app_idle_work(&a);
            app_frame(&a, tu_ren);
        }
        memset(&b, 0, sizeof b);
        ren_text_hook(on_box, &b);
        tu_frame(&a);
        ren_text_hook(NULL, NULL);
        if (k == 0) {
            int y = y_of(&b, "beam size"), bad = 0;
            for (int n = 1; n <= 8; n++) {
                char s[4];
                snprintf(s, sizeof s, "%d", n);
                int yn = y_of(&b, s);
                bad += yn < 0 || abs(yn - y) > 4;
            }
            expect_true(y >= 0 && bad == 0, "beam size 1..8 on the label's line (y %d): %d apart", y, bad);
        } else {
            int ys = y_of(&b, "seed 1"), ym = y_of(&b, "−"), yp = y_of(&b, "+"), yn = y_of(&b, "Sample  N");
            expect_true(ys >= 0 && abs(ym - ys) <= 4 && abs(yp - ys) <= 4 && abs(yn - ys) <= 4,
                        "the seed, its − and +, and Sample on one line: y %d %d %d %d", ys, ym, yp, yn);
            int yk = y_of(&b, "top-k"), ya = y_of(&b, "all"), y40 = y_of(&b, "40");
            expect_true(yk >= 0 && abs(ya - yk) <= 4 && abs(y40 - yk) <= 4, "top-k and its choices on one line: %d %d %d",
                        yk, ya, y40);
        }
        app_free(&a);
    }
}

/* A MarianMT model masks no padding in decoder self-attention: the mask
 * view and the explanation say "causal" alone, with no padding diagram
 * or legend (M4). */
static void test_marian_causal_only(void **state)
{
    (void)state;
    static App a;
    static Drawn d;
    AppOpts o = tu_opts("tests/fixtures/marian/spm_model", "the cat sees a bird.", NULL, NULL);
    tu_open(&a, &o, 100);
    app_goto(&a, ST_DEC_SELF_MASK, 0);
    frame_drawn(&a, &d);
    expect_true(drawn_by(&d, "Decoder self-attention mask: causal only (this model masks no padding here)", "view") +
                        drawn_by(&d, "Causal mask", "view") ==
                    1,
                "the mask view's title says causal only, got %d", drawn_by(&d, "Causal mask", "view"));
    expect_true(drawn_by(&d, "Causal mask", "window") == 1, "the explanation's title: 'Causal mask', got %d",
                drawn_by(&d, "Causal mask", "window"));
    expect_true(!drawn_by(&d, "padding (<pad> keys)", "view") && !drawn_by(&d, "Causal + padding mask", "window") &&
                    !drawn_by(&d, "Decoder self-attention mask: causal + padding", "view"),
                "no padding diagram or title, got %d %d", drawn_by(&d, "padding (<pad> keys)", "view"),
                drawn_by(&d, "Causal + padding mask", "window"));
    app_free(&a);
    /* the paper's models: causal + padding, as before */
    AppOpts o2 = tu_opts(NULL, "i love china", NULL, NULL);
    tu_open(&a, &o2, 100);
    app_goto(&a, ST_DEC_SELF_MASK, 0);
    frame_drawn(&a, &d);
    expect_true(drawn_by(&d, "Decoder self-attention mask: causal + padding", "view") == 1,
                "en2zh: causal + padding, got %d", drawn_by(&d, "Decoder self-attention mask: causal + padding", "view"));
    app_free(&a);
}

/* A MarianMT <unk> shows what was typed: "sees" is not in the fixture's
 * vocabulary, and its chip reads "sees", not "<unk>" (M2). */
static void test_marian_unk_shows_its_text(void **state)
{
    (void)state;
    static App a;
    static Drawn d;
    AppOpts o = tu_opts("tests/fixtures/marian/spm_model", "the cat sees a bird.", NULL, NULL);
    tu_open(&a, &o, 100);
    app_goto(&a, ST_SRC_TOKENS, 0);
    frame_drawn(&a, &d);
    expect_true(a.ses.n_unk == 1, "one unknown piece, got %d", a.ses.n_unk);
    expect_true(drawn_by(&d, "sees", "view") == 1 && drawn_by(&d, "<unk> id 1", "view") == 1,
                "the <unk> chip reads 'sees' (%d) over '<unk> id 1' (%d)", drawn_by(&d, "sees", "view"),
                drawn_by(&d, "<unk> id 1", "view"));
    app_free(&a);
}

/* The PE circle: its axis names ("dim 1 (sin)") keep clear of the token
 * labels on the circle ("3 ·a"), on a MarianMT model whose pair 1 puts a
 * token at the end of the sine axis (M5). */
static void test_pe_circle_labels_apart(void **state)
{
    (void)state;
    static App a;
    static Boxes b;
    AppOpts o = tu_opts("tests/fixtures/marian/spm_model", "the cat sees a bird.", NULL, NULL);
    tu_open(&a, &o, 100);
    app_goto(&a, ST_POS_ENC, 0);
    tu_frame(&a);
    memset(&b, 0, sizeof b);
    ren_text_hook(on_box, &b);
    tu_frame(&a);
    ren_text_hook(NULL, NULL);
    int names = 0, tokens = 0, overlaps = 0;
    for (int i = 0; i < b.n; i++) {
        if (strncmp(b.s[i], "dim ", 4) != 0 || (!strstr(b.s[i], "(sin)") && !strstr(b.s[i], "(cos)")))
            continue;
        names++;
        for (int j = 0; j < b.n; j++) {
            int p;
            char rest[48];
            if (sscanf(b.s[j], "%d %47s", &p, rest) != 2) /* a token label: "pos token" */
                continue;
            tokens++;
            Rect x = b.box[i], y = b.box[j];
            overlaps += x.x < y.x + y.w && y.x < x.x + x.w && x.y < y.y + y.h && y.y < x.y + x.h;
        }
    }
    expect_true(names == 2 && tokens > 4, "two axis names and the token labels drawn: %d, %d", names, tokens);
    expect_true(overlaps == 0, "no axis name over a token label, got %d", overlaps);
    app_free(&a);
}


/* ---- a small screen (800x600: small laptops, old projectors) ---- */

static Ren *g_r600; /* an 800x600 window, opened by the tests that need it */

static void frame600(App *a)
{
    a->now += 0.5;
    app_frame(a, g_r600);
}

static void open600(void)
{
    TfErr err;
    if (!g_r600)
        g_r600 = ren_open_headless(800, 600, &err);
    expect_true(g_r600 != NULL, "an 800x600 renderer: %s", err.msg);
}

static void click_at(App *a, int x, int y)
{
    ev_mouse(a, IN_MOUSE_MOVE, x, y, 0);
    ev_mouse(a, IN_MOUSE_DOWN, x, y, 1);
    frame600(a);
    ev_mouse(a, IN_MOUSE_UP, x, y, 1);
    frame600(a);
}

static void click_rect(App *a, Rect r)
{
    click_at(a, r.x + r.w / 2, r.y + r.h / 2);
}

/* Click tab v where the last frame drew it: in the bar, or in the » list
 * (opened first). 0 when it is in neither. */
static int click_tab(App *a, ViewId v)
{
    for (int i = 0; i < a->tabs_more.n_bar; i++)
        if (a->tabs_more.bar_view[i] == v) {
            click_rect(a, a->tabs_more.bar[i]);
            return 1;
        }
    int listed = -1;
    for (int i = 0; i < a->tabs_more.n; i++)
        if (a->tabs_more.view[i] == v)
            listed = i;
    if (listed < 0 || a->tabs_more.button.w <= 0)
        return 0;
    click_rect(a, a->tabs_more.button);
    if (!a->tabs_more.open)
        return 0;
    click_rect(a, a->tabs_more.item[listed]);
    return 1;
}

static void test_every_tab_reachable(void **state)
{
    (void)state;
    open600();
    static App a;
    char dir[4096];
    int have_zh = paths_locale(dir, sizeof dir) && ui_i18n_init(dir) == 1;
    StageId sts[3] = {ST_DEC_CROSS_WEIGHTS, ST_SRC_TOKENS, ST_ENC_SELF_SCORES};
    for (int lang = 0; lang < (have_zh ? 2 : 1); lang++)
        for (int k = 0; k < 3; k++) {
            AppOpts o = tu_opts(NULL, "i read books today", NULL, NULL);
            o.lang = lang;
            tu_open(&a, &o, 100);
            app_goto(&a, sts[k], 0);
            app_set_head(&a, 0);
            frame600(&a);
            ViewId ch[APP_MAX_VIEW_CHOICES];
            int n = app_view_choices(&a, ch);
            expect_true(a.tabs_more.n_bar + a.tabs_more.n == n,
                        "lang %d %s: each of the %d tabs in the bar or the list: %d and %d", lang,
                        stage_info(sts[k])->name, n, a.tabs_more.n_bar, a.tabs_more.n);
            if (k == 0 && lang == 0)
                expect_true(a.tabs_more.n > 0, "at 800x600 some tabs of %s go to the » list, got %d",
                            stage_info(sts[k])->name, a.tabs_more.n);
            for (int i = 0; i < n; i++) {
                app_pick_tab(&a, ch[0]); /* from the natural view each time */
                app_set_head(&a, 0);
                frame600(&a);
                expect_true(click_tab(&a, ch[i]), "lang %d %s: the tab of view %d is drawn somewhere", lang,
                            stage_info(sts[k])->name, (int)ch[i]);
                ViewId got = app_current_view(&a);
                expect_true(got == ch[i], "lang %d %s: a click on the tab of view %d shows it, got view %d", lang,
                            stage_info(sts[k])->name, (int)ch[i], (int)got);
                expect_true(!a.tabs_more.open, "the list closes after a pick, got %s", "open");
            }
            app_free(&a);
        }
}

/* An open list takes the click: one outside it closes it and does not
 * reach the view (no stage change under a click in the navigator). */
static void test_list_takes_its_click(void **state)
{
    (void)state;
    open600();
    static App a;
    AppOpts o = tu_opts(NULL, "i read books today", NULL, NULL);
    tu_open(&a, &o, 100);
    app_goto(&a, ST_DEC_CROSS_WEIGHTS, 0);
    app_set_head(&a, 0);
    frame600(&a);
    expect_true(a.tabs_more.button.w > 0, "a » button at 800x600, got width %d", a.tabs_more.button.w);
    click_rect(&a, a.tabs_more.button);
    expect_true(a.tabs_more.open, "a click on » opens the list, got %s", "closed");
    StagePos before = app_pos(&a);
    int hits = a.nav.n_hits;
    expect_true(hits > 0, "the navigator drew blocks, got %d", hits);
    Rect blk = a.nav.hits[0].r;
    click_rect(&a, blk);
    StagePos after = app_pos(&a);
    expect_true(!a.tabs_more.open, "a click elsewhere closes the list, got %s", "open");
    expect_true(after.stage == before.stage && after.layer == before.layer,
                "the click that closed the list did not move the stage: %d/%d -> %d/%d", (int)before.stage,
                before.layer, (int)after.stage, after.layer);
    click_rect(&a, blk);
    after = app_pos(&a);
    expect_true(after.stage != before.stage || after.layer != before.layer,
                "with the list closed the same click jumps (the block works): still %d", (int)after.stage);
    app_free(&a);
}

/* The strings the window drew outside the views, and whether s is one. */
typedef struct Seen {
    int down_mark;  /* "▼" */
    int how;        /* the "how it was computed" title */
    const char *how_title;
} Seen;

static void on_text(void *user, const char *s, int len, Rect box, const char *tag)
{
    Seen *d = user;
    (void)box;
    (void)tag;
    if (len == (int)strlen("▼") && strncmp(s, "▼", (size_t)len) == 0)
        d->down_mark = 1;
    if (len == (int)strlen(d->how_title) && strncmp(s, d->how_title, (size_t)len) == 0)
        d->how = 1;
}

static void frame_seen(App *a, Ren *r, Seen *d)
{
    d->down_mark = d->how = 0;
    ren_text_hook(on_text, d);
    a->now += 0.5;
    app_frame(a, r);
    ren_text_hook(NULL, NULL);
}

/* At 800x600 the explanation is taller than its panel: a ▼ says there is
 * more, and the wheel over the panel scrolls it. */
static void test_explanation_scrolls(void **state)
{
    (void)state;
    open600();
    static App a;
    static Seen d;
    AppOpts o = tu_opts(NULL, "i read books today", NULL, NULL);
    tu_open(&a, &o, 100);
    app_goto(&a, ST_ENC_SELF_WEIGHTS, 0);
    app_set_head(&a, 0);
    app_pick_tab(&a, VIEW_DECODE); /* the longest explanation (as the review found it) */
    d.how_title = _("How this number was computed");
    frame_seen(&a, g_r600, &d);
    expect_true(d.down_mark, "a ▼ under the Decode tab's explanation at 800x600 (content %d px), got %s", a.expl_content,
                "none");
    ev_mouse(&a, IN_MOUSE_MOVE, 700, 300, 0);
    ev_mouse(&a, IN_WHEEL, 700, 300, -3);
    frame_seen(&a, g_r600, &d);
    expect_true(a.expl_scroll > 0, "the wheel over the panel scrolls the explanation, got offset %d",
                a.expl_scroll);
    app_pick_tab(&a, VIEW_MATRIX);
    frame_seen(&a, g_r600, &d);
    expect_true(a.expl_scroll == 0, "another view's explanation starts at its top, got offset %d", a.expl_scroll);
    app_free(&a);
    ren_close(g_r600); /* the last test on the small screen */
    g_r600 = NULL;
}

/* In a lesson the right panel is the lesson; hovering a cell still shows
 * how its number was computed, in a box under the lesson text. */
static void test_lesson_hover_shows_how(void **state)
{
    (void)state;
    static App a;
    static Seen d;
    TfErr err;
    Ren *r = ren_open_headless(1280, 800, &err);
    expect_true(r != NULL, "a renderer: %s", err.msg);
    for (int lang = 0; lang < 2; lang++) {
        AppOpts o = tu_opts(NULL, NULL, NULL, NULL);
        o.lesson = "attention";
        o.lesson_step = 3; /* "Scores: QKᵀ / √d_k": hover a cell */
        o.lang = lang;
        tu_open(&a, &o, 100);
        ui_set_lang(lang);
        d.how_title = _("How this number was computed");
        frame_seen(&a, r, &d);
        expect_true(lesson_ui_active(&a), "lang %d: the lesson is open, got %s", lang, "none");
        expect_true(a.heat.valid, "lang %d: the step shows a heatmap, got %s", lang, "none");
        expect_true(!d.how, "lang %d: no box before the mouse is over a cell, got %s", lang, "one");
        int x = a.heat.grid.x + (int)(1.5f * a.heat.cw), y = a.heat.grid.y + (int)(0.5f * a.heat.ch);
        ev_mouse(&a, IN_MOUSE_MOVE, x, y, 0);
        frame_seen(&a, r, &d);
        frame_seen(&a, r, &d);
        expect_true(a.hover.valid && a.hover.row == 0 && a.hover.col == 1,
                    "lang %d: the mouse is over cell (0, 1), got valid %d (%d, %d)", lang, a.hover.valid,
                    a.hover.row, a.hover.col);
        expect_true(d.how, "lang %d: the lesson panel shows how the number was computed, got %s", lang,
                    "nothing");
        app_free(&a);
    }
    ui_set_lang(0);
    ren_close(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layer_ends_say_so),
        cmocka_unit_test(test_nothing_to_pad),
        cmocka_unit_test(test_target_placeholder_fits),
        cmocka_unit_test(test_repeats_collapse),
        cmocka_unit_test(test_nav_tabs_over_the_connector),
        cmocka_unit_test(test_decode_controls_do_not_wrap),
        cmocka_unit_test(test_marian_causal_only),
        cmocka_unit_test(test_pe_circle_labels_apart),
        cmocka_unit_test(test_marian_unk_shows_its_text),
        cmocka_unit_test(test_every_tab_reachable),
        cmocka_unit_test(test_list_takes_its_click),
        cmocka_unit_test(test_explanation_scrolls),
        cmocka_unit_test(test_lesson_hover_shows_how),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
