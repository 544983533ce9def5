/* test_app_marian.c - the window with a MarianMT folder: the source and
 * target lines are split by its sentencepiece models (the ids and the
 * greedy text of tools/marian_fixture.py's port), the language chooser
 * offers the vocabulary's >>lang<< tags and puts the chosen one in front of
 * the source, and a folder (or a file of it) dropped onto the window opens
 * it, while a bad drop keeps everything. */
#include <SDL.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "input.h"
#include "model_ui.h"
#include "test_app_util.h"
#include "test_util.h"

#define SPMDIR "tests/fixtures/marian/spm_model"

static char MODEL[160];

TU_FIXTURE(MODEL, "marian_app.safetensors", 1280, 800)

static void test_lines_through_sentencepiece(void **state)
{
    (void)state;
    static App a;
    tu_open_src(&a, SPMDIR, "the cat sees a bird.", 0);
    tu_frame(&a);
    static const int want[] = {10, 24, 1, 12, 35, 4, 0}; /* translate.ref, python sentencepiece */
    expect_true(a.ses.src_n[0] == 7, "%d source ids", a.ses.src_n[0]);
    for (int i = 0; i < 7; i++)
        expect_true(a.ses.src_ids[0][i] == want[i], "id %d: %d, python %d", i, a.ses.src_ids[0][i], want[i]);
    expect_true(!strcmp(a.ses.translation, "vvvvvvvvvv"), "the port's greedy text, not '%s'", a.ses.translation);
    expect_true(a.ses.tgt_ids[0][0] == 137, "the decoder starts with decoder_start_token_id (<pad> 137)");
    app_set_text(&a, APP_LINE_TGT, "le chat");
    tu_frame(&a);
    expect_true(a.ses.tgt_n[0] >= 3 && a.ses.tgt_ids[0][0] == 137 && a.ses.tgt_ids[0][a.ses.tgt_n[0] - 1] != 0,
                "target: start + target.spm pieces, no </s> (%d ids)", a.ses.tgt_n[0]);
    expect_true(!a.ses.input_error[0], "no error: %s", a.ses.input_error);
    /* the language chooser: the two tags, the chosen one replaces the one typed */
    int fra = vocab_find(&a.ses.model.src_vocab, ">>fra<<", 7), deu = vocab_find(&a.ses.model.src_vocab, ">>deu<<", 7);
    expect_true(fra >= 0 && deu >= 0, "tags in the vocabulary");
    model_ui_choose(&a, fra);
    expect_true(!strcmp(a.ses.src_line, ">>fra<< the cat sees a bird."), "'%s'", a.ses.src_line);
    model_ui_choose(&a, deu);
    expect_true(!strcmp(a.ses.src_line, ">>deu<< the cat sees a bird."), "replaced: '%s'", a.ses.src_line);
    tu_frame(&a);
    expect_true(a.ses.src_ids[0][0] == deu, "the tag is one token (%d)", a.ses.src_ids[0][0]);
    /* by mouse: the button at the right of the source line opens the list,
     * a click on its first tag (>>fra<<) picks it and closes it */
    ev_mouse(&a, IN_MOUSE_DOWN, 1225, 730, MB_LEFT);
    ev_mouse(&a, IN_MOUSE_UP, 1225, 730, MB_LEFT);
    tu_frame(&a);
    Rect pop;
    expect_true(model_ui_list(&a, &pop) && pop.w > 0 && pop.y + pop.h <= 720, "the list opens above the line");
    ren_save_png(tu_ren, "/tmp/stepformer_chooser.png", NULL);
    ev_key(&a, KEY_ESCAPE, 0); /* models.close: Esc closes the list and does not quit */
    expect_true(!model_ui_list(&a, NULL) && !a.win.want_quit, "Esc closes the language list");
    ev_mouse(&a, IN_MOUSE_DOWN, 1225, 730, MB_LEFT);
    ev_mouse(&a, IN_MOUSE_UP, 1225, 730, MB_LEFT);
    tu_frame(&a);
    expect_true(model_ui_list(&a, &pop), "the list opens again");
    ev_mouse(&a, IN_MOUSE_DOWN, pop.x + 10, pop.y + 10, MB_LEFT);
    ev_mouse(&a, IN_MOUSE_UP, pop.x + 10, pop.y + 10, MB_LEFT);
    tu_frame(&a);
    expect_true(!model_ui_list(&a, NULL) && !strcmp(a.ses.src_line, ">>fra<< the cat sees a bird."),
                "picked by mouse: '%s'", a.ses.src_line);
    /* by keyboard: Tab to the button, Enter opens the list, Tab goes into
     * it (>>fra<<, then >>deu<<), Enter picks */
    a.ui.in.mx = a.ui.in.my = -100;
    int on = 0;
    for (int k = 0; k <= a.ui.n_last && !on; k++) {
        ev_key(&a, KEY_TAB, 0);
        tu_frame(&a);
        const UiStop *s = ui_tab_focused(&a.ui);
        on = s && 1225 >= s->rc.x && 1225 < s->rc.x + s->rc.w && 730 >= s->rc.y && 730 < s->rc.y + s->rc.h;
    }
    expect_true(on, "Tab reaches the language button");
    ev_key(&a, KEY_RETURN, 0);
    tu_frame(&a);
    tu_frame(&a);
    expect_true(model_ui_list(&a, &pop), "Enter opens the list");
    ev_key(&a, KEY_TAB, 0);
    tu_frame(&a);
    ev_key(&a, KEY_TAB, 0);
    tu_frame(&a);
    ev_key(&a, KEY_RETURN, 0);
    tu_frame(&a);
    expect_true(!model_ui_list(&a, NULL) && !strcmp(a.ses.src_line, ">>deu<< the cat sees a bird."),
                "picked by keyboard: '%s'", a.ses.src_line);
    app_free(&a);
}

/* SDL_DROPFILE becomes IN_DROP with the path (SDL's copy freed). */
static void test_drop_event(void **state)
{
    (void)state;
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = SDL_DROPFILE;
    e.drop.file = SDL_strdup("/tmp/some folder/config.json");
    InputEvent in;
    expect_true(input_from_sdl(&e, &in) == 1 && in.type == IN_DROP, "a drop event");
    expect_true(!strcmp(in.path, "/tmp/some folder/config.json"), "its path: %s", in.path);
    char *longp = malloc(INPUT_PATH_MAX + 10);
    memset(longp, 'a', INPUT_PATH_MAX + 9);
    longp[INPUT_PATH_MAX + 9] = 0;
    e.drop.file = SDL_strdup(longp);
    free(longp);
    expect_true(input_from_sdl(&e, &in) == 1 && in.type == IN_DROP && !in.path[0], "too long: empty path");
}

static void drop(App *a, const char *path)
{
    InputEvent e;
    memset(&e, 0, sizeof e);
    e.type = IN_DROP;
    snprintf(e.path, sizeof e.path, "%s", path);
    app_event(a, &e);
    tu_frame(a);
}

static void test_drop_opens(void **state)
{
    (void)state;
    static App a;
    tu_open_src(&a, MODEL, "t5 t6", 0);
    tu_frame(&a);
    expect_true(a.ses.model.cfg.kind != TF_KIND_MARIAN, "ours first");
    drop(&a, "/nonexistent/folder");
    expect_true(a.notice_error && strstr(a.notice, "/nonexistent/folder") && !strchr(a.notice, '\n'),
                "one-line notice: %s", a.notice);
    expect_true(a.ses.model.cfg.kind != TF_KIND_MARIAN && !strcmp(a.ses.src_line, "t5 t6"), "nothing lost");
    drop(&a, SPMDIR "/config.json"); /* a file of the folder opens the folder */
    expect_true(a.ses.model.cfg.kind == TF_KIND_MARIAN && a.ses.model.tok, "the folder is open: %s", a.notice);
    expect_true(!a.notice_error, "no error: %s", a.notice);
    drop(&a, MODEL);
    expect_true(a.ses.model.cfg.kind != TF_KIND_MARIAN, "a model file opens: %s", a.notice);
    drop(&a, SPMDIR);
    expect_true(a.ses.model.cfg.kind == TF_KIND_MARIAN, "a folder opens: %s", a.notice);
    drop(&a, "");
    expect_true(a.notice_error && a.ses.model.cfg.kind == TF_KIND_MARIAN, "too long a path: %s", a.notice);
    app_free(&a);
}

int main(void)
{
    TU_RUN(setup, teardown, cmocka_unit_test(test_lines_through_sentencepiece), cmocka_unit_test(test_drop_event),
           cmocka_unit_test(test_drop_opens));
}
