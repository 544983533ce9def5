/* shot_vector.h - writing what the window shows into a file: a PNG, an SVG
 * or a PDF (chosen by the extension), with an optional caption under the
 * figure; whole walks and lessons as one PDF page each (a handout). Used
 * by `stepformer shot` and by the window (Ctrl+Shift+S). */
#ifndef APP_SHOT_VECTOR_H
#define APP_SHOT_VECTOR_H

#include <stddef.h>

#include "app.h"
#include "ren.h"

enum { SHOT_CAPTION_MAX = 1024 };

/* The caption stamped under a figure of view v (VIEW_AUTO resolved):
 * model, sentence (and target), stage or view, layer and head, in words
 * (layers and heads from 1, as the window shows them), in English or, with
 * zh, Simplified Chinese (the window's language). The one place its
 * wording lives. */
void shot_caption_text(const Session *ses, ViewId v, int zh, char *buf, size_t cap);

/* Draw the App's current view (as the window would, animations finished)
 * into path: PNG, SVG or PDF by the extension (anything else is a PNG),
 * with the caption under it when `caption`. Returns 0 or -1 with err. */
int shot_save(App *a, Ren *r, const char *path, int caption, TfErr *err);

/* The window's Ctrl+Shift+S: the current view as SVG or PDF (path's
 * extension; it must be one of them), drawn on the window's renderer
 * between two frames. Returns 0 or -1 with err. */
int shot_save_vector(App *a, Ren *r, const char *path, int caption, TfErr *err);

/* The window's Ctrl+Shift+S: the current view alone, where the last frame
 * drew it (a->view_rect; a frame is drawn first when there was none), with
 * its caption under it, as SVG or PDF (path's extension): the page is the
 * view's size plus the caption, with no window chrome and no notice.
 * Returns 0 or -1 with err. */
int shot_save_view(App *a, Ren *r, const char *path, TfErr *err);

/* The window's Ctrl+S: the same figure as shot_save_view (the view alone
 * with its caption, no chrome, no notice) as a PNG of the view's size plus
 * the caption band (cut to the window's height when the window is too
 * short for both), drawn on the window's renderer between two frames
 * without showing it. Returns 0 or -1 with err. */
int shot_save_view_png(App *a, Ren *r, const char *path, TfErr *err);

/* One PDF with one page per stage of the walk, in order (the view the
 * window picks for each, head 0). *pages gets the number written. */
int shot_walk_pdf(App *a, Ren *r, const char *path, int caption, int *pages,
                  TfErr *err);
/* One PDF with one page per step of the open lesson (lesson_ui_open). */
int shot_lesson_pdf(App *a, Ren *r, const char *path, int caption, int *pages,
                    TfErr *err);

#endif
