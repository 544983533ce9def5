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
 * tab bar through its » list, which takes its click; the Heads table's
 * Table only gives it the whole view (a dozen rows) and its ‹ › buttons
 * page through every column; the explanation
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

static void test_nothing_to_pad(void **state)
{
    (void)state;
    static App a;
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
        tu_drawn_frame(&a, tu_ren);
        expect_true(app_current_view(&a) == VIEW_MASK, "the mask view, got %d", (int)app_current_view(&a));
        expect_true(tu_drawn_count(same, "view") == cases[k].same, "'%s' | '%s': \"%s\" drawn %d times, expected %d",
                    cases[k].s0, cases[k].s1, same, tu_drawn_count(same, "view"), cases[k].same);
        /* one sentence chooser: the mask view's buttons, not the tab bar's too */
        expect_true(tu_drawn_count("sentence", "window") == 0 && tu_drawn_count("sentence", "view") == 1,
                    "the mask view: one chooser (the view's), got %d in the tab bar and %d in the view",
                    tu_drawn_count("sentence", "window"), tu_drawn_count("sentence", "view"));
        app_goto(&a, ST_ENC_SELF_Q, 0);
        tu_drawn_frame(&a, tu_ren);
        expect_true(tu_drawn_count("sentence", "window") == 1, "another view: the tab bar's chooser, got %d",
                    tu_drawn_count("sentence", "window"));
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
    char path[256];
    expect_true(tu_model_tmp(path, sizeof path, "feedback-rand.safetensors", 40, 48, 7) == 0, "a small model");
    snprintf(g_small, sizeof g_small, "%s", path);
    AppOpts o = tu_opts(g_small, "t5 t6 t7", NULL, NULL);
    tu_open(&a, &o, 100);
    app_goto(&a, ST_SRC_TOKENS, 0);
    tu_drawn_frame(&a, tu_ren);
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
    expect_true(tu_drawn_count(want, "view") == 1, "the run drawn as one chip \"%s\", got %d", want,
                tu_drawn_count(want, "view"));
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
    TuSize z = {.d_model = 32, .n_heads = 4, .d_ff = 64, .n_enc = 6, .n_dec = 6, .src_vocab = 40, .tgt_vocab = 40};
    tu_tmp(path, sizeof path, "feedback-6layers.safetensors");
    expect_true(tu_save_model(path, z, 3) == 0, "a 6-layer model at %s", path);
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

/* The y of the first string s the view drew, -1 none. */
static int y_of(const char *s)
{
    int i = tu_drawn_find(s, "view");
    return i < 0 ? -1 : tu_drawn.box[i].y;
}

/* The beam and sampling panes' controls at 1280x800: a label and its
 * buttons on one line, never split over two (T8, E9). */
static void test_decode_controls_do_not_wrap(void **state)
{
    (void)state;
    static App a;
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
        tu_drawn_frame(&a, tu_ren);
        if (k == 0) {
            int y = y_of("beam size"), bad = 0;
            for (int n = 1; n <= 8; n++) {
                char s[4];
                snprintf(s, sizeof s, "%d", n);
                int yn = y_of(s);
                bad += yn < 0 || abs(yn - y) > 4;
            }
            expect_true(y >= 0 && bad == 0, "beam size 1..8 on the label's line (y %d): %d apart", y, bad);
        } else {
            int ys = y_of("seed 1"), ym = y_of("−"), yp = y_of("+"), yn = y_of("Sample  N");
            expect_true(ys >= 0 && abs(ym - ys) <= 4 && abs(yp - ys) <= 4 && abs(yn - ys) <= 4,
                        "the seed, its − and +, and Sample on one line: y %d %d %d %d", ys, ym, yp, yn);
            int yk = y_of("top-k"), ya = y_of("all"), y40 = y_of("40");
            expect_true(yk >= 0 && abs(ya - yk) <= 4 && abs(y40 - yk) <= 4, "top-k and its choices on one line: %d %d %d",
                        yk, ya, y40);
        }
        app_free(&a);
    }
}

/* The app on the MarianMT fixture with "the cat sees a bird." at stage st,
 * its first frame recorded into tu_drawn. */
static void open_marian(App *a, StageId st)
{
    AppOpts o = tu_opts("tests/fixtures/marian/spm_model", "the cat sees a bird.", NULL, NULL);
    tu_open(a, &o, 100);
    app_goto(a, st, 0);
    tu_drawn_frame(a, tu_ren);
}

/* A MarianMT model masks no padding in decoder self-attention: the mask
 * view and the explanation say "causal" alone, with no padding diagram
 * or legend (M4). */
static void test_marian_causal_only(void **state)
{
    (void)state;
    static App a;
    open_marian(&a, ST_DEC_SELF_MASK);
    expect_true(tu_drawn_count("Decoder self-attention mask: causal only (this model masks no padding here)", "view") +
                        tu_drawn_count("Causal mask", "view") ==
                    1,
                "the mask view's title says causal only, got %d", tu_drawn_count("Causal mask", "view"));
    expect_true(tu_drawn_count("Causal mask", "window") == 1, "the explanation's title: 'Causal mask', got %d",
                tu_drawn_count("Causal mask", "window"));
    expect_true(!tu_drawn_count("padding (<pad> keys)", "view") && !tu_drawn_count("Causal + padding mask", "window") &&
                    !tu_drawn_count("Decoder self-attention mask: causal + padding", "view"),
                "no padding diagram or title, got %d %d", tu_drawn_count("padding (<pad> keys)", "view"),
                tu_drawn_count("Causal + padding mask", "window"));
    app_free(&a);
    /* the paper's models: causal + padding, as before */
    AppOpts o2 = tu_opts(NULL, "i love china", NULL, NULL);
    tu_open(&a, &o2, 100);
    app_goto(&a, ST_DEC_SELF_MASK, 0);
    tu_drawn_frame(&a, tu_ren);
    expect_true(tu_drawn_count("Decoder self-attention mask: causal + padding", "view") == 1,
                "en2zh: causal + padding, got %d", tu_drawn_count("Decoder self-attention mask: causal + padding", "view"));
    app_free(&a);
}

/* A MarianMT <unk> shows what was typed: "sees" is not in the fixture's
 * vocabulary, and its chip reads "sees", not "<unk>" (M2). */
static void test_marian_unk_shows_its_text(void **state)
{
    (void)state;
    static App a;
    open_marian(&a, ST_SRC_TOKENS);
    expect_true(a.ses.n_unk == 1, "one unknown piece, got %d", a.ses.n_unk);
    expect_true(tu_drawn_count("sees", "view") == 1 && tu_drawn_count("<unk> id 1", "view") == 1,
                "the <unk> chip reads 'sees' (%d) over '<unk> id 1' (%d)", tu_drawn_count("sees", "view"),
                tu_drawn_count("<unk> id 1", "view"));
    app_free(&a);
}

/* The PE circle: its axis names ("dim 1 (sin)") keep clear of the token
 * labels on the circle ("3 ·a"), on a MarianMT model whose pair 1 puts a
 * token at the end of the sine axis (M5). */
static void test_pe_circle_labels_apart(void **state)
{
    (void)state;
    static App a;
    open_marian(&a, ST_POS_ENC);
    tu_drawn_frame(&a, tu_ren);
    int names = 0, tokens = 0, overlaps = 0;
    for (int i = 0; i < tu_drawn.n; i++) {
        const char *s = tu_drawn.s[i];
        if (!tu_drawn_by(i, "view") || strncmp(s, "dim ", 4) != 0 || (!strstr(s, "(sin)") && !strstr(s, "(cos)")))
            continue;
        names++;
        for (int j = 0; j < tu_drawn.n; j++) {
            int p;
            char rest[48];
            if (!tu_drawn_by(j, "view") || sscanf(tu_drawn.s[j], "%d %47s", &p, rest) != 2) /* "pos token" */
                continue;
            tokens++;
            Rect x = tu_drawn.box[i], y = tu_drawn.box[j];
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

/* The small screen open and the app on "i read books today" in language
 * lang (0 English, 1 Chinese) at stage st, head 1. */
static void open_small(App *a, int lang, StageId st)
{
    open600();
    AppOpts o = tu_opts(NULL, "i read books today", NULL, NULL);
    o.lang = lang;
    tu_open(a, &o, 100);
    app_goto(a, st, 0);
    app_set_head(a, 0);
}

/* A click in the middle of r, with frames at 800x600. */
static void click_rect(App *a, Rect r)
{
    tu_click_then(a, r.x + r.w / 2, r.y + r.h / 2, frame600);
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
    static App a;
    char dir[4096];
    int have_zh = paths_locale(dir, sizeof dir) && ui_i18n_init(dir) == 1;
    StageId sts[3] = {ST_DEC_CROSS_WEIGHTS, ST_SRC_TOKENS, ST_ENC_SELF_SCORES};
    for (int lang = 0; lang < (have_zh ? 2 : 1); lang++)
        for (int k = 0; k < 3; k++) {
            open_small(&a, lang, sts[k]);
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

/* The Heads table at 800x600, in both languages: docked under the
 * thumbnails; Table only gives it the whole view (a dozen rows or more, the
 * file's field shown) and its ‹ › buttons page through every column; With
 * thumbnails gives the thumbnails back. */
static void test_atlas_small(void **state)
{
    (void)state;
    static App a;
    char dir[4096];
    int have_zh = paths_locale(dir, sizeof dir) && ui_i18n_init(dir) == 1;
    static const char *const TITLES[] = {N_("label"), N_("entropy"), N_("max"), N_("offset"), N_("first"),
                                         N_("monotonic"), N_("Δnll"), N_("Δacc")};
    for (int lang = 0; lang < (have_zh ? 2 : 1); lang++) {
        open_small(&a, lang, ST_DEC_CROSS_WEIGHTS);
        app_set_head(&a, -1);
        tu_drawn_start();
        frame600(&a);
        tu_drawn_stop();
        char row1[64];
        snprintf(row1, sizeof row1, L(lang, "L%d H%d"), 1, 1);
        int i = tu_drawn_find(L(lang, "Table only"), NULL);
        expect_true(tu_drawn_find(row1, NULL) >= 0 && i >= 0, "lang %d: the table docked, with Table only", lang);
        if (i < 0) {
            app_free(&a);
            continue;
        }
        click_rect(&a, tu_drawn.box[i]);
        tu_drawn_start();
        frame600(&a);
        tu_drawn_stop();
        int rows = 0;
        for (int l = 1; l <= 2; l++)
            for (int h = 1; h <= 8; h++) {
                snprintf(row1, sizeof row1, L(lang, "L%d H%d"), l, h);
                rows += tu_drawn_find(row1, NULL) >= 0;
            }
        expect_true(rows >= 12, "lang %d: Table only shows %d of the 16 rows (want 12 or more)", lang, rows);
        expect_true(strstr(tu_drawn.text, L(lang, "pairs.tsv (empty: the model's data)")) != NULL,
                    "lang %d: the file's field is there", lang);
        int seen[8] = {0}, pages = 0;
        for (; pages < 10; pages++) {
            for (int k = 0; k < 8; k++)
                for (int j = 0; j < tu_drawn.n; j++)
                    seen[k] |= !strncmp(tu_drawn.s[j], L(lang, TITLES[k]), strlen(L(lang, TITLES[k])));
            int next = tu_drawn_find("›", NULL);
            if (next < 0)
                break;
            char before[1 << 12];
            snprintf(before, sizeof before, "%s", tu_drawn.text);
            click_rect(&a, tu_drawn.box[next]);
            tu_drawn_start();
            frame600(&a);
            tu_drawn_stop();
            if (!strcmp(before, tu_drawn.text))
                break; /* the last page */
        }
        for (int k = 0; k < 8; k++)
            expect_true(seen[k], "lang %d: column '%s' reached in %d pages", lang, L(lang, TITLES[k]), pages + 1);
        i = tu_drawn_find(L(lang, "With thumbnails"), NULL);
        expect_true(i >= 0, "lang %d: a With thumbnails button", lang);
        if (i >= 0) {
            click_rect(&a, tu_drawn.box[i]);
            tu_drawn_start();
            frame600(&a);
            tu_drawn_stop();
            expect_true(tu_drawn_find(L(lang, "Table only"), NULL) >= 0, "lang %d: docked again", lang);
        }
        app_free(&a);
    }
}

/* An open list takes the click: one outside it closes it and does not
 * reach the view (no stage change under a click in the navigator). */
static void test_list_takes_its_click(void **state)
{
    (void)state;
    static App a;
    open_small(&a, 0, ST_DEC_CROSS_WEIGHTS);
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

/* At 800x600 the explanation is taller than its panel: a ▼ says there is
 * more, and the wheel over the panel scrolls it. */
static void test_explanation_scrolls(void **state)
{
    (void)state;
    static App a;
    open_small(&a, 0, ST_ENC_SELF_WEIGHTS);
    app_pick_tab(&a, VIEW_DECODE); /* the longest explanation (as the review found it) */
    tu_drawn_frame(&a, g_r600);
    expect_true(tu_drawn_count("▼", NULL), "a ▼ under the Decode tab's explanation at 800x600 (content %d px), got %s", a.expl.content,
                "none");
    ev_mouse(&a, IN_MOUSE_MOVE, 700, 300, 0);
    ev_mouse(&a, IN_WHEEL, 700, 300, -3);
    tu_drawn_frame(&a, g_r600);
    expect_true(a.expl.scroll > 0, "the wheel over the panel scrolls the explanation, got offset %d",
                a.expl.scroll);
    app_pick_tab(&a, VIEW_MATRIX);
    tu_drawn_frame(&a, g_r600);
    expect_true(a.expl.scroll == 0, "another view's explanation starts at its top, got offset %d", a.expl.scroll);
    app_free(&a);
    ren_close(g_r600); /* the last test on the small screen */
    g_r600 = NULL;
}

/* In a lesson the right panel is the lesson; hovering a cell still shows
 * how its number was computed, in a box under the lesson text, which takes
 * the room its sums need (text x1 and x2: none of them cut). */
static void test_lesson_hover_shows_how(void **state)
{
    (void)state;
    static App a;
    TfErr err;
    Ren *r = ren_open_headless(1280, 800, &err);
    expect_true(r != NULL, "a renderer: %s", err.msg);
    for (int run = 0; run < 4; run++) {
        int lang = run % 2;
        float scale = run < 2 ? 1.0f : 2.0f;
        AppOpts o = tu_opts(NULL, NULL, NULL, NULL);
        o.lesson = "attention";
        o.lesson_step = 3; /* "Scores: QKᵀ / √d_k": hover a cell */
        o.lang = lang;
        tu_open(&a, &o, 100);
        a.look.text_scale = scale;
        ui_set_lang(lang);
        const char *how = _("How this number was computed");
        tu_drawn_frame(&a, r);
        expect_true(lesson_ui_active(&a), "lang %d: the lesson is open, got %s", lang, "none");
        expect_true(a.heat.valid, "lang %d: the step shows a heatmap, got %s", lang, "none");
        expect_true(!tu_drawn_count(how, NULL) && !a.expl.how_h, "lang %d: no box before the mouse is over a cell, got %s",
                    lang, "one");
        int x = a.heat.grid.x + (int)(1.5f * a.heat.cw), y = a.heat.grid.y + (int)(0.5f * a.heat.ch);
        ev_mouse(&a, IN_MOUSE_MOVE, x, y, 0);
        tu_drawn_frame(&a, r);
        tu_drawn_frame(&a, r);
        expect_true(a.hover.valid && a.hover.row == 0 && a.hover.col == 1,
                    "lang %d: the mouse is over cell (0, 1), got valid %d (%d, %d)", lang, a.hover.valid,
                    a.hover.row, a.hover.col);
        expect_true(a.expl.how_h > 0 && (scale > 1 || tu_drawn_count(how, NULL)),
                    "lang %d: the lesson panel shows how the number was computed, got %s", lang, "nothing");
        expect_true(a.expl.how_h >= a.expl.how_need && a.expl.how_need > 0,
                    "lang %d, text x%.0f: the box has the %d px its sums need, got %d", lang, (double)scale,
                    a.expl.how_need, a.expl.how_h);
        app_free(&a);
    }
    ui_set_lang(0);
    ren_close(r);
}

int main(void)
{
    TU_RUN(setup, teardown, cmocka_unit_test(test_layer_ends_say_so), cmocka_unit_test(test_nothing_to_pad),
           cmocka_unit_test(test_target_placeholder_fits), cmocka_unit_test(test_repeats_collapse),
           cmocka_unit_test(test_nav_tabs_over_the_connector), cmocka_unit_test(test_decode_controls_do_not_wrap),
           cmocka_unit_test(test_marian_causal_only), cmocka_unit_test(test_pe_circle_labels_apart),
           cmocka_unit_test(test_marian_unk_shows_its_text), cmocka_unit_test(test_every_tab_reachable),
           cmocka_unit_test(test_list_takes_its_click), cmocka_unit_test(test_atlas_small),
           cmocka_unit_test(test_explanation_scrolls),
           cmocka_unit_test(test_lesson_hover_shows_how));
}
