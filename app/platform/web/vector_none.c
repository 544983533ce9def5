/* vector_none.c - the browser build has no cairo: SVG and PDF export are
 * left out (ren_cairo.c is not built). ren_vector_begin refuses with one line
 * that the window shows where the export would have been; since no vector
 * document ever opens, the vec_* drawing calls are never reached. */
#include "ren.h"
#include "ren_internal.h"

#include <string.h>
#include <strings.h>

RenVecFormat ren_vector_format(const char *path)
{
    const char *dot = path ? strrchr(path, '.') : NULL;
    if (!dot || strchr(dot, '/'))
        return REN_VEC_NONE;
    return !strcasecmp(dot, ".svg") ? REN_VEC_SVG : !strcasecmp(dot, ".pdf") ? REN_VEC_PDF : REN_VEC_NONE;
}

int ren_is_vector(Ren *r) { (void)r; return 0; }
int ren_vector_pages(Ren *r) { (void)r; return 0; }

int ren_vector_begin(Ren *r, const char *path, RenVecFormat fmt, int extra_h, TfErr *err)
{
    (void)r, (void)fmt, (void)extra_h;
    return tf_fail(err, "%s: SVG and PDF export needs cairo, which the browser build leaves out "
                        "(save a PNG with Ctrl+S, or use the desktop program)",
                   path ? path : "vector export");
}

int ren_vector_begin_area(Ren *r, const char *path, RenVecFormat fmt, Rect area, int extra_h, TfErr *err)
{
    (void)area;
    return ren_vector_begin(r, path, fmt, extra_h, err);
}

int ren_vector_end(Ren *r, TfErr *err)
{
    (void)r;
    return tf_fail(err, "ren_vector_end: no vector document open");
}

void ren_vector_abort(Ren *r) { (void)r; }

void vec_begin(Ren *r, Color clear) { (void)r, (void)clear; }
void vec_turn_begin(Ren *r, double x, double y) { (void)r, (void)x, (void)y; }
void vec_turn_end(Ren *r) { (void)r; }
void vec_clip(Ren *r) { (void)r; }
void vec_rect(Ren *r, Rect rc, Color c) { (void)r, (void)rc, (void)c; }
void vec_polyline(Ren *r, const float *xy, int n, float width, Color c) { (void)r, (void)xy, (void)n, (void)width, (void)c; }
void vec_triangles(Ren *r, const float *xy, const Color *col, int n) { (void)r, (void)xy, (void)col, (void)n; }
int vec_text_visible(Ren *r, int x, int y, int w, int h) { (void)r, (void)x, (void)y, (void)w, (void)h; return 0; }
void vec_image(Ren *r, RenImage *im, Rect src, Rect dst) { (void)r, (void)im, (void)src, (void)dst; }
void vec_text_run(Ren *r, RenFace which, int px, const char *utf8, double x, double baseline, Color c)
{
    (void)r, (void)which, (void)px, (void)utf8, (void)x, (void)baseline, (void)c;
}
