/* model_ui.c - the window's parts for a real model: the language chooser
 * next to the source line (a MarianMT vocabulary's >>lang<< tags; choosing
 * one puts it in front of the source text, as `translate --target-lang`
 * does) and opening a folder or file dropped onto the window. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "marian_tok.h"
#include "model_open.h"
#include "model_ui.h"
#include "panels.h"

#define MAX_TAGS 512

typedef struct ModelUi {
    char **vocab_tok; /* the vocabulary the tags were read from */
    int vocab_n;
    int ids[MAX_TAGS], n;
    int open;          /* the list is shown */
    Rect pop;          /* where the list was drawn last frame */
    int cols, cell_w, cell_h;
} ModelUi;

static ModelUi *mui(App *a)
{
    if (!a->mui)
        a->mui = calloc(1, sizeof *a->mui);
    return a->mui;
}

void model_ui_free(App *a)
{
    free(a->mui);
    a->mui = NULL;
}

/* The language tags of the current model (read again when it changed). */
static ModelUi *tags(App *a)
{
    ModelUi *u = mui(a);
    const Vocab *v = &a->ses.model.src_vocab;
    if (!u)
        return NULL;
    if (u->vocab_tok != v->tok || u->vocab_n != v->n) {
        u->vocab_tok = v->tok;
        u->vocab_n = v->n;
        u->n = a->ses.model.cfg.kind == TF_KIND_MARIAN ? marian_lang_tags(v, u->ids, MAX_TAGS) : 0;
        if (u->n > MAX_TAGS)
            u->n = MAX_TAGS;
        u->open = 0;
    }
    return u;
}

/* Length of the >>tag<< (and the spaces after it) the text starts with. */
static size_t lead_tag(const char *s, char *tag, size_t cap)
{
    const char *e = strncmp(s, ">>", 2) ? NULL : strstr(s + 3, "<<");
    if (!e) {
        if (cap)
            tag[0] = 0;
        return 0;
    }
    size_t n = (size_t)(e + 2 - s);
    snprintf(tag, cap, "%.*s", (int)n, s);
    while (s[n] == ' ')
        n++;
    return n;
}

int model_ui_chooser_width(UiCtx *ui, App *a)
{
    ModelUi *u = tags(a);
    if (!u || !u->n)
        return 0;
    char tag[128];
    lead_tag(a->ses.src_line, tag, sizeof tag);
    int w = ren_text_width(ui->g->small, tag[0] ? tag : _("target language")),
        w2 = ren_text_width(ui->g->small, vocab_token(&a->ses.model.src_vocab, u->ids[0]));
    return (w > w2 ? w : w2) + ui_px(ui->g, 28);
}

void model_ui_choose(App *a, int id)
{
    char text[APP_TEXT_MAX], tag[128];
    const char *s = a->ses.src_line;
    s += lead_tag(s, tag, sizeof tag);
    snprintf(text, sizeof text, "%s %s", vocab_token(&a->ses.model.src_vocab, id), s);
    app_set_text(a, APP_LINE_SRC, text);
    if (app_focused_line(a) == APP_LINE_SRC)
        app_focus_line(a, APP_LINE_SRC); /* the cursor at the end */
    app_notice(a, 0, _("target language: %s (the tag starts the source sentence)"),
               vocab_token(&a->ses.model.src_vocab, id));
}

void model_ui_chooser_draw(UiCtx *ui, App *a, Rect rc)
{
    ModelUi *u = tags(a);
    if (!u || !u->n || rc.w <= 0)
        return;
    char tag[128], label[160];
    lead_tag(a->ses.src_line, tag, sizeof tag);
    snprintf(label, sizeof label, "%s ▾", tag[0] ? tag : _("target language"));
    if (ui_button(ui, rc, label, u->open))
        u->open = !u->open;
    if (!u->open)
        return;
    /* the list: a grid of tags above the source line, right-aligned */
    RenFont *f = ui->g->small;
    int w = 0;
    for (int i = 0; i < u->n; i++) {
        int k = ren_text_width(f, vocab_token(&a->ses.model.src_vocab, u->ids[i]));
        w = k > w ? k : w;
    }
    u->cell_w = w + ui_px(ui->g, 16);
    u->cell_h = ren_font_height(f) + ui_px(ui->g, 8);
    int max_w = rc.x + rc.w - 20, max_h = rc.y - 60;
    u->cols = max_w / u->cell_w < 1 ? 1 : max_w / u->cell_w;
    if (u->cols > u->n)
        u->cols = u->n;
    int rows = (u->n + u->cols - 1) / u->cols;
    if (rows * u->cell_h > max_h)
        rows = max_h / u->cell_h > 1 ? max_h / u->cell_h : 1;
    u->pop = (Rect){rc.x + rc.w - u->cols * u->cell_w - 8, rc.y - rows * u->cell_h - 12,
                    u->cols * u->cell_w + 8, rows * u->cell_h + 8};
}

/* The list is drawn over everything else, last. */
void model_ui_overlay(UiCtx *ui, App *a)
{
    ModelUi *u = a->mui;
    if (!u || !u->open || !u->n)
        return;
    const Theme *th = ui->th;
    ren_rect(ui->r, u->pop, th->panel2);
    ren_rect_line(ui->r, u->pop, 1, th->border);
    char tag[128];
    lead_tag(a->ses.src_line, tag, sizeof tag);
    int rows = (u->pop.h - 8) / u->cell_h;
    for (int i = 0; i < u->n && i < rows * u->cols; i++) {
        Rect c = {u->pop.x + 4 + (i % u->cols) * u->cell_w, u->pop.y + 4 + (i / u->cols) * u->cell_h,
                  u->cell_w - 4, u->cell_h - 4};
        const char *t = vocab_token(&a->ses.model.src_vocab, u->ids[i]);
        int on = !strcmp(t, tag), over = ui_over(&ui->in, c);
        ren_rect(ui->r, c, on ? th->accent : over ? th->panel : th->panel2);
        ui_text_center(ui->r, ui->g->small, t, c, on ? th->bg : th->text);
        /* Tab reaches it, Enter picks it (a click is taken before the frame: model_ui_click) */
        if (ui_tab_stop(ui, ui_id(ui, &u->ids[i], sizeof u->ids[i]), c, UI_STOP_PRESS)) {
            u->open = 0;
            model_ui_choose(a, u->ids[i]);
            return;
        }
    }
}

int model_ui_click(App *a)
{
    ModelUi *u = a->mui;
    if (!u || !u->open || !a->ui.in.pressed)
        return 0;
    const UiInput *in = &a->ui.in;
    u->open = 0;
    if (!ui_over(in, u->pop)) /* a click elsewhere closes the list (and goes on) */
        return 0;
    int col = (in->mx - u->pop.x - 4) / (u->cell_w ? u->cell_w : 1),
        row = (in->my - u->pop.y - 4) / (u->cell_h ? u->cell_h : 1), i = row * u->cols + col;
    if (col >= 0 && col < u->cols && row >= 0 && i < u->n)
        model_ui_choose(a, u->ids[i]);
    return 1;
}

int model_ui_list(const App *a, Rect *where)
{
    const ModelUi *u = a->mui;
    if (where && u)
        *where = u->pop;
    return u && u->open;
}

void model_ui_close(App *a)
{
    if (a->mui)
        a->mui->open = 0;
}

/* ---- a dropped folder or file ---- */

int app_open_dropped(App *a, const char *path)
{
    if (!path[0]) {
        app_notice(a, 1, "%s", _("the dropped file's path is too long to open"));
        return -1;
    }
    char dir[4096];
    const char *open = tf_model_source(path, dir, sizeof dir); /* a file of a MarianMT folder: the folder */
    if (app_load_model(a, open))
        return -1; /* the old model stays; the notice says why */
    app_notice(a, 0, _("opened %s"), open);
    return 0;
}
