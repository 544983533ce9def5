/* test_shot_vector.c - shot_vector.c in-process: the window's vector save
 * (keeps the window's clock, refuses other extensions), Ctrl+Shift+S (the
 * view alone with its caption, the size of the view, no chrome, no notice,
 * into ~/Pictures/Stepformer, the head in the name), Ctrl+S (the same
 * figure as a PNG) and Ctrl+Alt+S (the whole window), the caption's words,
 * a captioned PNG (a band under an unchanged frame), and the walk as one
 * PDF page per stage. */
#include <SDL.h>
#include <SDL_image.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "app.h"
#include "shot_vector.h"
#include "test_app_util.h"
#include "tool_util.h"

static char MODEL[160];
static char DIR_[256];

TU_FIXTURE(MODEL, "shot-vector.safetensors", 1280, 800)

static void open_app(App *a)
{
    tu_open_src(a, MODEL, "t5 t6 t7", 100);
}

/* path (400 bytes) = the scratch folder's name. */
static char *out_path(char *path, const char *name)
{
    snprintf(path, 400, "%s/%s", DIR_, name);
    return path;
}

/* What Ctrl+Shift+S in the window will call: an SVG and a PDF of the current view, in the
 * middle of a transition, and the window's clock is left as it was. */
static void test_window_save_keeps_clock(void **state)
{
    (void)state;
    static App a;
    open_app(&a);
    a.now = 100.0;
    a.anim_start = 99.95; /* a stage change is easing in */
    app_frame(&a, tu_ren);
    static const char *names[] = {"window.svg", "window.pdf"};
    static const char *magic[] = {"<?xml", "%PDF"};
    for (int i = 0; i < 2; i++) {
        char path[400];
        out_path(path, names[i]);
        TfErr err = {{0}};
        expect_true(shot_save_vector(&a, tu_ren, path, 0, &err) == 0, "save %s: %s", path, err.msg);
        expect_true(a.now == 100.0 && a.anim_start == 99.95,
                    "clock kept: now %.3f, anim_start %.3f", a.now, a.anim_start);
        size_t len = 0;
        char *doc = tu_slurp(path, &len);
        expect_true(doc && len > 1000 && memcmp(doc, magic[i], strlen(magic[i])) == 0,
                    "%s starts with %s (%zu bytes)", path, magic[i], len);
        free(doc);
        expect_true(!ren_is_vector(tu_ren), "back to raster");
    }
    app_frame(&a, tu_ren); /* the window goes on */
    TfErr err = {{0}};
    char png[400];
    out_path(png, "window.png");
    expect_true(shot_save_vector(&a, tu_ren, png, 0, &err) < 0 && strstr(err.msg, ".svg"),
                "a .png is not a vector figure: %s", err.msg);
    app_free(&a);
}

/* HOME (and XDG_CONFIG_HOME, unset) moved to a fresh folder NAME under
 * the test's output for a save's default folder; home_end puts them back. */
static char g_keep_home[512], g_keep_cfg[512];

static void home_begin(char home[400], const char *name)
{
    snprintf(g_keep_home, sizeof g_keep_home, "%s", getenv("HOME") ? getenv("HOME") : "");
    snprintf(g_keep_cfg, sizeof g_keep_cfg, "%s", getenv("XDG_CONFIG_HOME") ? getenv("XDG_CONFIG_HOME") : "");
    out_path(home, name);
    mkdir(home, 0755);
    setenv("HOME", home, 1);
    unsetenv("XDG_CONFIG_HOME");
}

static void home_end(void)
{
    setenv("HOME", g_keep_home, 1);
    if (g_keep_cfg[0])
        setenv("XDG_CONFIG_HOME", g_keep_cfg, 1);
}

/* The window on layer 2 head 2 of the cross-attention, drawn twice with a
 * notice that a figure must leave out; the view's rectangle. */
static Rect open_figure(App *a)
{
    open_app(a);
    app_goto(a, ST_DEC_CROSS_WEIGHTS, 1);
    session_set_head(&a->ses, 1);
    app_frame(a, tu_ren);
    app_notice(a, 0, "%s", "a notice that must not be in the figure");
    app_frame(a, tu_ren);
    return a->view_rect;
}

/* What tu_drawn recorded of a saved figure: its caption, and none of the
 * window's words (input lines, title, lesson button, notice, navigator). */
static void expect_figure_alone(void)
{
    expect_true(strstr(tu_drawn.text, "dec.cross.weights, layer 2 of 2, head 2 of 4") != NULL,
                "the caption is drawn: %.600s", tu_drawn.text);
    static const char *const CHROME[] = {"Source", "Target", "Stepformer", "Lessons", "must not be", "Encoder"};
    for (size_t i = 0; i < sizeof CHROME / sizeof CHROME[0]; i++)
        expect_true(!strstr(tu_drawn.text, CHROME[i]), "no '%s' of the window in the figure", CHROME[i]);
}

/* Ctrl+Shift+S: the view alone (its size, its caption under it), none of
 * the window's navigator, input lines, status line or notice, into the
 * XDG pictures folder's Stepformer (made), named with the layer and head;
 * the notice names the folder. */
static void test_view_export_alone(void **state)
{
    (void)state;
    char home[400], cfg[480], dirs[480];
    home_begin(home, "home");
    snprintf(cfg, sizeof cfg, "%s/.config", home);
    mkdir(cfg, 0755);
    tu_write_text(cfg, "user-dirs.dirs", "# the user's folders\nXDG_PICTURES_DIR=\"$HOME/Bilder\"\n");
    static App a;
    Rect view = open_figure(&a);
    tu_drawn_start();
    app_save_vector(&a, tu_ren);
    tu_drawn_stop();
    snprintf(dirs, sizeof dirs, "%s/Bilder/Stepformer", home);
    expect_true(strstr(a.notice, dirs) != NULL && !a.notice_error, "the notice names the folder: '%s'", a.notice);
    char svg[1024], pdf[1024];
    expect_true(tu_find_name(dirs, "", ".svg", svg, sizeof svg) && tu_find_name(dirs, "", ".pdf", pdf, sizeof pdf),
                "an SVG and a PDF in %s", dirs);
    expect_true(strstr(svg, "stepformer-dec.cross.weights-l2-h2-") != NULL, "layer and head in the name: %s", svg);
    size_t len = 0;
    char *doc = tu_slurp(svg, &len);
    int w = 0, h = 0;
    const char *at = doc ? strstr(doc, "<svg") : NULL;
    if (at && strstr(at, "width=\""))
        w = atoi(strstr(at, "width=\"") + 7);
    if (at && strstr(at, "height=\""))
        h = atoi(strstr(at, "height=\"") + 8);
    free(doc);
    expect_true(w == view.w && h > view.h && h < view.h + 80,
                "the page is the view (%dx%d) and a caption band: %dx%d", view.w, view.h, w, h);
    expect_true(view.w < 1280 - 300 && view.h < 800 - 100, "the view is less than the window: %dx%d", view.w, view.h);
    expect_figure_alone();
    app_free(&a);
    home_end();
}

/* Ctrl+S: the view alone as PNG, the view's width and its height with the
 * caption band, none of the window's words, the notice saying "the view
 * alone" and the folder; Ctrl+Alt+S: the whole window, said so. */
static void test_ctrl_s_saves_the_view(void **state)
{
    (void)state;
    char home[400], pics[480], png[800];
    home_begin(home, "home-png");
    snprintf(pics, sizeof pics, "%s/Pictures/Stepformer", home);
    static App a;
    Rect view = open_figure(&a);
    ev_key(&a, 's', MOD_CTRL);
    expect_true(a.win.want_save_png && !a.win.want_save_window && !a.win.want_save_vector, "Ctrl+S asks for the view");
    a.win.want_save_png = 0;
    tu_drawn_start();
    app_save_png(&a, tu_ren); /* as the window loop does, after the frame */
    tu_drawn_stop();
    expect_true(tu_find_name(pics, "", ".png", png, sizeof png), "a PNG in %s (%s)", pics, a.notice);
    SDL_Surface *s = IMG_Load(png);
    expect_true(s && s->w == view.w && s->h > view.h && s->h < view.h + 80,
                "the view (%dx%d) and a caption band: %dx%d", view.w, view.h, s ? s->w : 0, s ? s->h : 0);
    SDL_FreeSurface(s);
    expect_true(strstr(png, "stepformer-dec.cross.weights-l2-h2-") != NULL, "layer and head in the name: %s", png);
    expect_true(strstr(a.notice, "view alone") && strstr(a.notice, pics) && !a.notice_error,
                "the notice says the view alone was saved, and where: '%s'", a.notice);
    expect_figure_alone();
    remove(png);
    /* Ctrl+Alt+S: the frame as drawn, window size */
    a.now += 1;
    ev_key(&a, 's', MOD_CTRL | MOD_ALT);
    expect_true(a.win.want_save_window && !a.win.want_save_png, "Ctrl+Alt+S asks for the whole window");
    a.win.want_save_window = 0;
    app_draw(&a, tu_ren);
    app_save_window(&a, tu_ren);
    ren_end(tu_ren);
    expect_true(tu_find_name(pics, "", ".png", png, sizeof png), "a PNG of the window in %s", pics);
    s = IMG_Load(png);
    expect_true(s && s->w == 1280 && s->h == 800, "the whole window: %dx%d", s ? s->w : 0, s ? s->h : 0);
    SDL_FreeSurface(s);
    expect_true(strstr(a.notice, "whole window") && strstr(a.notice, pics), "and the notice says so: '%s'", a.notice);
    app_free(&a);
    home_end();
}

/* The caption names the model, the sentence, the stage, layer and head as
 * the window counts them (from 1). */
static void test_caption_words(void **state)
{
    (void)state;
    static App a;
    open_app(&a);
    app_goto(&a, stage_find("enc.self.weights"), 0);
    app_set_head(&a, 1);
    char text[SHOT_CAPTION_MAX];
    shot_caption_text(&a.ses, app_current_view(&a), 0, text, sizeof text);
    printf("  caption: %s\n", text);
    static const char *words[] = {"t5 t6 t7", "stage enc.self.weights", "layer 1 of", "head 2 of"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        expect_true(strstr(text, words[i]) != NULL, "'%s' in the caption '%s'", words[i], text);
    app_set_head(&a, -1);
    shot_caption_text(&a.ses, app_current_view(&a), 0, text, sizeof text);
    expect_true(strstr(text, "all ") && strstr(text, " heads"), "all heads: '%s'", text);
    a.view = VIEW_DECODE;
    shot_caption_text(&a.ses, app_current_view(&a), 0, text, sizeof text);
    expect_true(strstr(text, "view decode") && !strstr(text, "layer"), "the decode view: '%s'", text);
    char tiny[8];
    shot_caption_text(&a.ses, app_current_view(&a), 0, tiny, sizeof tiny);
    expect_true(strlen(tiny) < sizeof tiny, "cut to fit a small buffer");
    /* in the window's language: Chinese words around the same data */
    a.view = VIEW_AUTO;
    app_set_head(&a, 1);
    shot_caption_text(&a.ses, app_current_view(&a), 1, text, sizeof text);
    static const char *zh[] = {"t5 t6 t7", "阶段 enc.self.weights", "第 1 层", "第 2 个头"};
    for (size_t i = 0; i < sizeof zh / sizeof zh[0]; i++)
        expect_true(strstr(text, zh[i]) != NULL, "'%s' in the Chinese caption '%s'", zh[i], text);
    expect_true(!strstr(text, "layer") && !strstr(text, "head "), "no English words: '%s'", text);
    app_free(&a);
}

/* A captioned PNG is the frame with a band under it; the frame keeps its
 * size for the next picture. */
static void test_captioned_png(void **state)
{
    (void)state;
    static App a;
    open_app(&a);
    char path[400];
    out_path(path, "cap.png");
    TfErr err = {{0}};
    expect_true(shot_save(&a, tu_ren, path, 1, &err) == 0, "save: %s", err.msg);
    SDL_Surface *s = IMG_Load(path);
    expect_true(s && s->w == 1280 && s->h > 800 && s->h < 900, "1280 wide, a band under 800: %dx%d",
                s ? s->w : 0, s ? s->h : 0);
    SDL_FreeSurface(s);
    int w, h;
    ren_output_size(tu_ren, &w, &h);
    expect_true(w == 1280 && h == 800, "frame back to 1280x800, got %dx%d", w, h);
    app_free(&a);
}

static void test_walk_one_page_per_stage(void **state)
{
    (void)state;
    static App a;
    open_app(&a);
    char path[400];
    out_path(path, "walk.pdf");
    TfErr err = {{0}};
    int pages = 0;
    expect_true(shot_walk_pdf(&a, tu_ren, path, 1, &pages, &err) == 0, "walk: %s", err.msg);
    expect_true(pages == a.ses.n_walk, "%d pages for a walk of %d", pages, a.ses.n_walk);
    size_t len = 0;
    char *pdf = tu_slurp(path, &len);
    int objs = tu_count(pdf, len, "/Type /Page\n") + tu_count(pdf, len, "/Type /Page ");
    expect_true(objs == a.ses.n_walk, "%d page objects in the file", objs);
    free(pdf);
    out_path(path, "walk.svg");
    expect_true(shot_walk_pdf(&a, tu_ren, path, 0, &pages, &err) < 0, "a walk is not an SVG");
    struct stat st;
    expect_true(stat(path, &st) != 0, "nothing written for the refused SVG");
    app_free(&a);
}

int main(void)
{
    if (tu_scratch(DIR_, sizeof DIR_, "shotvec") < 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_window_save_keeps_clock),
        cmocka_unit_test(test_view_export_alone),
        cmocka_unit_test(test_ctrl_s_saves_the_view),
        cmocka_unit_test(test_caption_words),
        cmocka_unit_test(test_captioned_png),
        cmocka_unit_test(test_walk_one_page_per_stage),
    };
    int rc = cmocka_run_group_tests(tests, setup, teardown);
    tu_scratch_remove(DIR_);
    return rc;
}
