/* test_view_fit.c - the views' words fit where they are drawn: the decode
 * view's panes and the mask view, at 800x600 and 1280x800, at normal and
 * presenter text size, in English and in Simplified Chinese, on the
 * bundled en2zh model and the classroom's sentence, draw no
 * sentence cut short with an ellipsis (where room is short a view picks a
 * shorter wording, ui_text_alt). The words are read back through the text
 * layer's test hook (ren_text_hook), the ones drawn while a view draws.
 * Chinese is checked when the compiled catalog holds the views' words
 * (po/zh_CN.i18n-b.po folded into po/zh_CN.po); until then it is English
 * again, and the test says so. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "paths.h"
#include "test_app_util.h"
#include "test_util.h"
#include "decode_host.h"
#include "view_decode.h"


/* The strings a view drew cut short: ui_text_fit draws the part that fits
 * (a prefix of its string, so the byte after it is not the end) and then
 * an ellipsis on its own. */
typedef struct Cut {
    int n;
    char first[4][200];
    char last[200];       /* the string drawn before, when it was a prefix */
    int last_partial;
} Cut;

static void on_text(void *user, const char *s, int len, Rect box, const char *tag)
{
    Cut *c = user;
    (void)box;
    if (!tag || strcmp(tag, "view") != 0) {
        c->last_partial = 0;
        return;
    }
    if (strcmp(s, "…") == 0 && len == (int)strlen("…")) {
        if (c->last_partial && c->n < 4)
            snprintf(c->first[c->n], sizeof c->first[0], "%.190s…", c->last);
        c->n += c->last_partial;
        c->last_partial = 0;
        return;
    }
    c->last_partial = s[len] != 0;
    snprintf(c->last, sizeof c->last, "%.*s", len, s);
}

typedef struct Case {
    const char *view, *stage, *tgt;
    const char *pane;    /* decode pane: gen, step or beam */
} Case;

static const Case CASES[] = {
    {"decode", NULL, NULL, "gen"},
    {"decode", NULL, "我 爱 美国", "gen"}, /* a reference: the longer notes */
    {"decode", NULL, NULL, "step"},
    {"decode", NULL, NULL, "beam"},
    {"mask", "dec.self.mask", NULL, NULL},
};

/* Every case at both sizes and text scales in language lang; returns the
 * cut strings found (the first few named in msg). */
static int cuts(int lang, char *msg, size_t cap)
{
    static const int SIZES[2][2] = {{800, 600}, {1280, 800}};
    static const float SCALES[2] = {1.0f, 1.5f};
    int total = 0;
    msg[0] = 0;
    for (size_t k = 0; k < sizeof CASES / sizeof CASES[0]; k++)
        for (int s = 0; s < 2; s++)
            for (int z = 0; z < 2; z++) {
                TfErr err;
                Ren *r = ren_open_headless(SIZES[s][0], SIZES[s][1], &err);
                expect_true(r != NULL, "headless renderer: %s", err.msg);
                static App a;
                AppOpts o = tu_opts(NULL, "i love china", CASES[k].tgt, CASES[k].view);
                o.stage = CASES[k].stage;
                o.lang = lang;
                tu_open(&a, &o, 100);
                a.look.text_scale = SCALES[z];
                if (CASES[k].pane)
                    app_decode_setup(&a, CASES[k].pane, 3, 0.6f);
                Cut c = {0};
                app_frame(&a, r); /* the first frame sets the views up */
                ren_text_hook(on_text, &c);
                a.now += 0.5;
                app_frame(&a, r);
                ren_text_hook(NULL, NULL);
                for (int i = 0; i < c.n && i < 4; i++) {
                    size_t n = strlen(msg);
                    snprintf(msg + n, cap - n, "\n  %s %s at %dx%d, scale %.1f: '%s'", CASES[k].view,
                             CASES[k].pane ? CASES[k].pane : "", SIZES[s][0], SIZES[s][1], (double)SCALES[z], c.first[i]);
                }
                total += c.n;
                app_free(&a);
                ren_close(r);
            }
    return total;
}

static void test_english_fits(void **state)
{
    (void)state;
    char msg[4096];
    int n = cuts(0, msg, sizeof msg);
    expect_true(n == 0, "%d strings cut short in English:%s", n, msg);
}

static void test_chinese_fits(void **state)
{
    (void)state;
    char dir[4096];
    if (!paths_locale(dir, sizeof dir) || ui_i18n_init(dir) != 1) {
        print_message("no compiled catalog: the Chinese part is skipped\n");
        return;
    }
    ui_set_lang(1);
    int have = strcmp(_("reads its own outputs, step by step"), "reads its own outputs, step by step") != 0;
    ui_set_lang(0);
    if (!have)
        print_message("the catalog lacks the views' Chinese (po/zh_CN.i18n-b.po not folded in yet): "
                      "checked in English words\n");
    char msg[4096];
    int n = cuts(1, msg, sizeof msg);
    expect_true(n == 0, "%d strings cut short in Chinese:%s", n, msg);
}

/* A decode pane at 800x600 with presenter text, drawn until its pass and
 * search are done, then once more; what that frame drew in tu_drawn. */
static void draw_small(App *a, Ren *r, int lang, const char *pane)
{
    AppOpts o = tu_opts(NULL, "i love china", NULL, "decode");
    o.lang = lang;
    tu_open(a, &o, 100);
    a->look.text_scale = 1.5f;
    app_decode_setup(a, pane, 4, 0.6f);
    app_frame(a, r);
    /* the session's pass and the beam search run over frames and idle calls */
    const DecodeLab *L = dhost_lab(a);
    for (int i = 0; i < 200 && (app_idle_work(a) == 1 || (L && L->beam_on)); i++) {
        a->now += 0.02;
        app_frame(a, r);
        L = dhost_lab(a);
    }
    tu_drawn_frame(a, r);
}

/* At 800x600 with presenter text the decode view still shows a class what
 * it is for: every row of the table (each generated token drawn in its
 * own cell) and the beam tree with its tokens on the nodes (more than the
 * winner's line), in English and in Chinese. */
static void test_small_presenter_readable(void **state)
{
    (void)state;
    TfErr err;
    Ren *r = ren_open_headless(800, 600, &err);
    expect_true(r != NULL, "headless renderer: %s", err.msg);
    for (int lang = 0; lang < 2; lang++) {
        static App a;
        draw_small(&a, r, lang, "gen");
        const DecodeLab *L = dhost_lab(&a);
        int rows = 0;
        for (int i = 0; i < L->gen.n; i++)
            rows += tu_drawn_find(vocab_token(&a.ses.model.tgt_vocab, L->gen.ids[i]), "view") >= 0;
        expect_true(L->gen.n == 4 && rows == L->gen.n, "lang %d: the table shows all %d generated tokens, %d drawn",
                    lang, L->gen.n, rows);
        app_free(&a);
        draw_small(&a, r, lang, "beam");
        int nodes = 0; /* the view's strings, each once, that are tokens */
        for (int i = 0; i < tu_drawn.n; i++)
            nodes += tu_drawn_find(tu_drawn.s[i], "view") == i &&
                     vocab_find(&a.ses.model.tgt_vocab, tu_drawn.s[i], (int)strlen(tu_drawn.s[i])) >= 0;
        expect_true(nodes >= 5, "lang %d: the beam tree's nodes carry their tokens: %d tokens drawn", lang, nodes);
        app_free(&a);
    }
    ren_close(r);
}

int main(void)
{
    TU_RUN(NULL, NULL, cmocka_unit_test(test_english_fits), cmocka_unit_test(test_chinese_fits),
           cmocka_unit_test(test_small_presenter_readable));
}
