/* shot_vector.c - figures into files: PNG, SVG or PDF by the extension,
 * an optional caption under the figure, and handouts (one PDF page per
 * stage of the walk or per lesson step). The vector formats draw through
 * the renderer's cairo backend (ren_vector_begin), so every view draws
 * unchanged; see shot_vector.h. */
#include "shot_vector.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lesson_ui.h"
#include "stage.h"

enum {
    CAPTION_PX = 14,  /* caption text size at scale 1 */
    CAPTION_PAD = 10  /* pixels around the caption line */
};

/* ------------------------------------------------------------- caption */

/* The caption's words (the catalog has their Chinese). */
static const char *const CAPTION_WORDS[5] = {
    N_("  |  view %s"), N_("  |  stage %s"), N_(", layer %d of %d"), N_(", all %d heads"),
    N_(", head %d of %d"),
};

void shot_caption_text(const Session *ses, ViewId v, int zh, char *buf, size_t cap)
{
    const char *W[5];
    for (int i = 0; i < 5; i++)
        W[i] = L(zh ? 1 : 0, CAPTION_WORDS[i]);
    StagePos p = session_pos(ses);
    const StageInfo *si = stage_info(p.stage);
    const TfConfig *c = &ses->model.cfg;
    const char *tgt = ses->tgt[0] ? ses->tgt : ses->translation;
    int n = snprintf(buf, cap, "%s  |  \"%s\"", ses->model_label, ses->src_line);
    if (tgt[0] && n >= 0 && (size_t)n < cap)
        n += snprintf(buf + n, cap - (size_t)n, " -> \"%s\"", tgt);
    if (n < 0 || (size_t)n >= cap)
        return;
    if (v == VIEW_DECODE || v == VIEW_TRAIN) {
        n += snprintf(buf + n, cap - (size_t)n, W[0], view_name(v));
    } else {
        n += snprintf(buf + n, cap - (size_t)n, W[1], si->name);
        if ((size_t)n < cap && (si->flags & SF_LAYER)) {
            int layers = (si->flags & SF_DECODER) ? c->n_dec : c->n_enc;
            n += snprintf(buf + n, cap - (size_t)n, W[2], p.layer + 1, layers);
        }
        if ((size_t)n < cap && (si->flags & (SF_HEAD | SF_HEAD_OPT))) {
            if (ses->head < 0 || v == VIEW_HEADS)
                n += snprintf(buf + n, cap - (size_t)n, W[3], c->n_heads);
            else
                n += snprintf(buf + n, cap - (size_t)n, W[4], ses->head + 1, c->n_heads);
        }
    }
    if (n >= 0 && (size_t)n < cap && session_has_exp(ses)) { /* what was switched off */
        char words[512];
        app_exp_words(ses, zh ? 1 : 0, words, sizeof words);
        snprintf(buf + n, cap - (size_t)n, L(zh ? 1 : 0, N_("  |  EXPERIMENT: %s")), words);
    }
}

static int caption_px(const App *a)
{
    float s = a->look.text_scale > 0 ? a->look.text_scale : 1.0f;
    int px = (int)(CAPTION_PX * s + 0.5f);
    return px < 8 ? 8 : px;
}

static int caption_band(const App *a)
{
    /* a line of text at caption_px is about 1.2 em high */
    return caption_px(a) * 12 / 10 + 2 * CAPTION_PAD;
}

/* The caption on a band below the frame (y from h on). */
static int caption_draw(App *a, Ren *r, int h, TfErr *err)
{
    RenFont *f = ren_font_open(r, REN_SANS, caption_px(a), err);
    if (!f)
        return -1;
    const Theme *th = theme_get(a->look.theme);
    int w;
    ren_output_size(r, &w, NULL);
    char text[SHOT_CAPTION_MAX];
    shot_caption_text(&a->ses, app_current_view(a), a->look.lang == 1, text, sizeof text);
    int band = caption_band(a);
    ren_rect(r, (Rect){0, h, w, band}, th->panel);
    ren_rect(r, (Rect){0, h, w, 1}, th->border);
    int y = h + (band - ren_font_height(f)) / 2;
    ren_clip_push(r, (Rect){CAPTION_PAD, h, w - 2 * CAPTION_PAD, band});
    ren_text(r, f, text, CAPTION_PAD, y, th->text);
    ren_clip_pop(r);
    ren_font_close(f);
    return 0;
}

/* The caption under a view of width w, wrapped to that width: its text
 * and font (open: the caller closes it), its lines and the band's height. */
typedef struct ViewCaption {
    char text[SHOT_CAPTION_MAX];
    RenFont *f;
    int lines, band;
} ViewCaption;

static int view_caption_open(App *a, Ren *r, int w, ViewCaption *c, TfErr *err)
{
    c->f = ren_font_open(r, REN_SANS, caption_px(a), err);
    if (!c->f)
        return -1;
    shot_caption_text(&a->ses, app_current_view(a), a->look.lang == 1, c->text, sizeof c->text);
    c->lines = ren_text_wrap(c->f, c->text, w - 2 * CAPTION_PAD, NULL, 0);
    if (c->lines < 1)
        c->lines = 1;
    c->band = c->lines * (ren_font_height(c->f) + 2) + 2 * CAPTION_PAD;
    return 0;
}

/* The caption on a band of the view's width below it. */
static void caption_under(App *a, Ren *r, Rect view, const ViewCaption *c)
{
    const Theme *th = theme_get(a->look.theme);
    int y0 = view.y + view.h;
    ren_rect(r, (Rect){view.x, y0, view.w, c->band}, th->panel);
    ren_rect(r, (Rect){view.x, y0, view.w, 1}, th->border);
    ui_paragraph(r, c->f, c->text, view.x + CAPTION_PAD, y0 + CAPTION_PAD, view.w - 2 * CAPTION_PAD, th->text);
}

/* ------------------------------------------------------------- drawing */

/* One frame of the App as the window shows it once transitions end. A
 * live App (the window) keeps its clock; a headless one gets a fixed one,
 * so that pictures do not depend on the time. */
static void draw_frame(App *a, Ren *r, int live)
{
    if (!live) {
        a->now = 1000.0;
        a->anim_start = 0;
        app_draw(a, r);
        return;
    }
    double start = a->anim_start;
    a->anim_start = a->now - 1000.0;
    app_draw(a, r);
    a->anim_start = start;
}

/* A raster frame with the caption under it: the view is drawn at the
 * frame's size, kept as an image, and put back on a taller frame. */
static int png_captioned(App *a, Ren *r, const char *path, TfErr *err)
{
    int w, h, band = caption_band(a);
    ren_output_size(r, &w, &h);
    uint32_t *px = malloc((size_t)w * (size_t)h * sizeof *px);
    RenImage *im = NULL;
    int rc = -1;
    if (!px) {
        tf_fail(err, "cannot save PNG %s: out of memory", path);
        goto done;
    }
    draw_frame(a, r, 0);
    if (ren_read_pixels(r, (Rect){0, 0, w, h}, px) < 0 ||
        !(im = ren_image_new(r, w, h)) || ren_resize_headless(r, w, h + band) < 0) {
        tf_fail(err, "cannot save PNG %s: no room for a %dx%d frame", path, w, h + band);
        goto done;
    }
    ren_image_update(im, px);
    ren_begin(r, theme_get(a->look.theme)->bg);
    ren_image_draw(r, im, (Rect){0, 0, 0, 0}, (Rect){0, 0, w, h});
    rc = caption_draw(a, r, h, err);
    if (rc == 0)
        rc = ren_save_png(r, path, err);
    ren_end(r);
    ren_resize_headless(r, w, h);
done:
    ren_image_free(im);
    free(px);
    return rc;
}

/* Draw frames into the document at path: `page` is called once per page
 * with its index and returns 1 to draw it, 0 when done. */
typedef int (*PageFn)(App *a, int i);

static int vector_doc(App *a, Ren *r, const char *path, int caption, int live,
                      PageFn page, int *pages, TfErr *err)
{
    RenVecFormat fmt = ren_vector_format(path);
    int h;
    ren_output_size(r, NULL, &h);
    if (ren_vector_begin(r, path, fmt, caption ? caption_band(a) : 0, err) < 0)
        return -1;
    int rc = 0, n = 0;
    for (; rc == 0 && page(a, n); n++) {
        draw_frame(a, r, live);
        if (caption)
            rc = caption_draw(a, r, h, err);
        ren_end(r);
    }
    if (rc) {
        ren_vector_abort(r);
        return -1;
    }
    if (pages)
        *pages = n;
    return ren_vector_end(r, err);
}

static int page_once(App *a, int i)
{
    (void)a;
    return i == 0;
}

int shot_save_vector(App *a, Ren *r, const char *path, int caption, TfErr *err)
{
    if (ren_vector_format(path) == REN_VEC_NONE)
        return tf_fail(err, "%s: a vector figure is an .svg or a .pdf file", path);
    return vector_doc(a, r, path, caption, 1, page_once, NULL, err);
}

int shot_save_view(App *a, Ren *r, const char *path, TfErr *err)
{
    RenVecFormat fmt = ren_vector_format(path);
    if (fmt == REN_VEC_NONE)
        return tf_fail(err, "%s: a vector figure is an .svg or a .pdf file", path);
    if (a->view_rect.w <= 0 || a->view_rect.h <= 0) { /* no frame yet: lay one out */
        app_draw(a, r);
        ren_end(r);
    }
    Rect view = a->view_rect;
    if (view.w < 20 || view.h < 20)
        return tf_fail(err, "%s: the window has no room for the view", path);
    ViewCaption cap;
    if (view_caption_open(a, r, view.w, &cap, err) < 0)
        return -1;
    if (ren_vector_begin_area(r, path, fmt, view, cap.band, err) < 0) {
        ren_font_close(cap.f);
        return -1;
    }
    double start = a->anim_start; /* the view as it is once eased in */
    a->anim_start = a->now - 1000.0;
    app_draw_view_alone(a, r);
    a->anim_start = start;
    caption_under(a, r, view, &cap);
    ren_end(r);
    ren_font_close(cap.f);
    return ren_vector_end(r, err);
}

int shot_save_view_png(App *a, Ren *r, const char *path, TfErr *err)
{
    if (a->view_rect.w <= 0 || a->view_rect.h <= 0) { /* no frame yet: lay one out */
        app_draw(a, r);
        ren_end(r);
    }
    Rect view = a->view_rect;
    int W, H;
    ren_output_size(r, &W, &H);
    if (view.w < 20 || view.h < 20 || view.x + view.w > W || view.y + view.h > H)
        return tf_fail(err, "%s: the window has no room for the view", path);
    ViewCaption cap;
    if (view_caption_open(a, r, view.w, &cap, err) < 0)
        return -1;
    uint32_t *px = malloc((size_t)view.w * (size_t)view.h * sizeof *px);
    RenImage *im = NULL;
    int rc = -1;
    double start = a->anim_start; /* the view as it is once eased in */
    a->anim_start = a->now - 1000.0;
    app_draw_view_alone(a, r);
    a->anim_start = start;
    if (!px || ren_read_pixels(r, view, px) < 0 || !(im = ren_image_new(r, view.w, view.h))) {
        tf_fail(err, "cannot save PNG %s: no memory for the %dx%d view", path, view.w, view.h);
        goto done;
    }
    ren_image_update(im, px);
    /* the view at the top left of a fresh frame, the caption under it */
    int band = view.h + cap.band <= H ? cap.band : H - view.h;
    Rect at = {0, 0, view.w, view.h};
    ren_begin(r, theme_get(a->look.theme)->bg);
    ren_image_draw(r, im, (Rect){0, 0, 0, 0}, at);
    ren_clip_push(r, (Rect){0, 0, view.w, view.h + band});
    caption_under(a, r, at, &cap);
    ren_clip_pop(r);
    rc = ren_save_png_area(r, (Rect){0, 0, view.w, view.h + band}, path, err);
done:
    ren_image_free(im);
    free(px);
    ren_font_close(cap.f);
    return rc;
}

int shot_save(App *a, Ren *r, const char *path, int caption, TfErr *err)
{
    if (ren_vector_format(path) != REN_VEC_NONE)
        return vector_doc(a, r, path, caption, 0, page_once, NULL, err);
    if (caption)
        return png_captioned(a, r, path, err);
    draw_frame(a, r, 0);
    int rc = ren_save_png(r, path, err);
    ren_end(r);
    return rc;
}

/* ------------------------------------------------------------ handouts */

static int page_walk(App *a, int i)
{
    if (i >= a->ses.n_walk)
        return 0;
    StagePos p = a->ses.walk[i];
    app_goto(a, p.stage, p.layer);
    a->view = VIEW_AUTO;
    session_set_head(&a->ses, 0);
    return 1;
}

static int page_lesson(App *a, int i)
{
    int step = 0;
    const Lesson *l = lesson_ui_current(a, &step, NULL);
    if (!l || i >= l->n_steps)
        return 0;
    if (i > 0) {
        lesson_ui_step(a, 1);
        lesson_ui_current(a, &step, NULL);
        if (step != i)
            return 0;
    }
    return 1;
}

static int need_pdf(const char *path, TfErr *err)
{
    if (ren_vector_format(path) != REN_VEC_PDF)
        return tf_fail(err, "%s: a handout of several pages is a .pdf file", path);
    return 0;
}

int shot_walk_pdf(App *a, Ren *r, const char *path, int caption, int *pages,
                  TfErr *err)
{
    if (need_pdf(path, err) < 0)
        return -1;
    return vector_doc(a, r, path, caption, 0, page_walk, pages, err);
}

int shot_lesson_pdf(App *a, Ren *r, const char *path, int caption, int *pages,
                    TfErr *err)
{
    if (need_pdf(path, err) < 0)
        return -1;
    int step = 0;
    if (!lesson_ui_current(a, &step, NULL))
        return tf_fail(err, "%s: no lesson is open", path);
    /* from the first step, whatever --step said */
    while (step > 0) {
        lesson_ui_step(a, -1);
        int before = step;
        lesson_ui_current(a, &step, NULL);
        if (step >= before)
            break;
    }
    return vector_doc(a, r, path, caption, 0, page_lesson, pages, err);
}
