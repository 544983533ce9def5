/* ren_cairo.c - the renderer's second backend: SVG and PDF through cairo.
 *
 * Between ren_vector_begin() and ren_vector_end() every drawing call of
 * ren.h on that Ren goes into a cairo document instead of the SDL frame, so
 * the views draw into it unchanged. Fonts and images made for the Ren keep
 * working: text is measured by SDL_ttf exactly as in a PNG (same layout),
 * then drawn with cairo's text API from the same font files, so it stays
 * text (selectable, searchable, fonts embedded as subsets); images drawn
 * scaled (the heatmaps) become one rectangle per source pixel, merged
 * along rows where neighbours share a colour, so cells stay sharp at any
 * zoom; an image drawn 1:1 is a picture and is embedded as one.
 *
 * Units: one frame pixel is one SVG px, and 0.75 PDF pt (96 per inch), so
 * `rsvg-convert` and `pdftoppm -r 96` give back the frame's size. A PDF
 * gets one page per frame (ren_begin); an SVG holds one frame. The file is
 * written through the one atomic writer (core/io/atomic). */
#include "ren.h"
#include "ren_internal.h"

#include "atomic.h"

#include <cairo-ft.h>
#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>
#include <fontconfig/fontconfig.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum {
    VEC_MAX_CELLS = 400000 /* visible image pixels drawn as rectangles;
                              beyond, the image is embedded unsmoothed */
};

struct RenVec {
    RenVecFormat fmt;
    cairo_surface_t *surf;
    cairo_t *cr;
    cairo_font_face_t *face[REN_FACE_COUNT];
    TfAtomic out;
    int write_failed;
    int page_w, page_h; /* frame pixels */
    int pages;          /* frames begun */
    double unit;        /* document units per frame pixel */
};

/* ------------------------------------------------------------- document */

RenVecFormat ren_vector_format(const char *path)
{
    const char *dot = path ? strrchr(path, '.') : NULL;
    if (!dot || strchr(dot, '/'))
        return REN_VEC_NONE;
    if (strcasecmp(dot, ".svg") == 0)
        return REN_VEC_SVG;
    if (strcasecmp(dot, ".pdf") == 0)
        return REN_VEC_PDF;
    return REN_VEC_NONE;
}

int ren_is_vector(Ren *r)
{
    return r && r->vec;
}

int ren_vector_pages(Ren *r)
{
    return r && r->vec ? r->vec->pages : 0;
}

static cairo_status_t vec_write(void *closure, const unsigned char *data,
                                unsigned int len)
{
    RenVec *v = closure;
    if (fwrite(data, 1, len, v->out.f) != len) {
        v->write_failed = 1;
        return CAIRO_STATUS_WRITE_ERROR;
    }
    return CAIRO_STATUS_SUCCESS;
}

static void vec_free(RenVec *v)
{
    if (v->cr)
        cairo_destroy(v->cr);
    if (v->surf)
        cairo_surface_destroy(v->surf);
    for (int i = 0; i < REN_FACE_COUNT; i++)
        if (v->face[i])
            cairo_font_face_destroy(v->face[i]);
    free(v);
}

static cairo_surface_t *vec_surface(RenVec *v, int extra_h)
{
    double w = v->page_w, h = v->page_h + extra_h;
    if (v->fmt == REN_VEC_PDF) {
        v->unit = 0.75;
        cairo_surface_t *s = cairo_pdf_surface_create_for_stream(
            vec_write, v, w * v->unit, h * v->unit);
        cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_CREATOR,
                                       "Stepformer");
        return s;
    }
    v->unit = 1.0;
    cairo_surface_t *s = cairo_svg_surface_create_for_stream(vec_write, v, w, h);
    cairo_svg_surface_set_document_unit(s, CAIRO_SVG_UNIT_PX);
    return s;
}

int ren_vector_begin(Ren *r, const char *path, RenVecFormat fmt, int extra_h,
                     TfErr *err)
{
    int w = 0, h = 0;
    if (r)
        ren_output_size(r, &w, &h);
    return ren_vector_begin_area(r, path, fmt, (Rect){0, 0, w, h}, extra_h, err);
}

int ren_vector_begin_area(Ren *r, const char *path, RenVecFormat fmt, Rect area,
                          int extra_h, TfErr *err)
{
    if (!r || !path || (fmt != REN_VEC_SVG && fmt != REN_VEC_PDF))
        return tf_fail(err, "ren_vector_begin: no renderer, path or format");
    if (r->vec)
        return tf_fail(err, "%s: a vector document is already open", path);
    RenVec *v = calloc(1, sizeof *v);
    if (!v)
        return tf_fail(err, "%s: out of memory", path);
    TfErr e = {{0}};
    if (tf_atomic_open(&v->out, path, 0666, &e) < 0) {
        free(v);
        return tf_fail(err, "cannot save %s", e.msg);
    }
    v->fmt = fmt;
    v->page_w = area.w > 0 ? area.w : 1;
    v->page_h = area.h > 0 ? area.h : 1;
    v->surf = vec_surface(v, extra_h > 0 ? extra_h : 0);
    v->cr = cairo_create(v->surf);
    if (cairo_status(v->cr) != CAIRO_STATUS_SUCCESS) {
        tf_fail(err, "cannot save %s: cairo: %s", path,
                cairo_status_to_string(cairo_status(v->cr)));
        tf_atomic_discard(&v->out);
        vec_free(v);
        return -1;
    }
    cairo_scale(v->cr, v->unit, v->unit);
    cairo_translate(v->cr, -area.x, -area.y); /* the area's corner at the page's */
    r->vec = v;
    r->clip_n = 0;
    r->clip_empty = 0;
    return 0;
}

static int vec_close(Ren *r, int keep, TfErr *err)
{
    RenVec *v = r->vec;
    if (!v)
        return tf_fail(err, "ren_vector_end: no vector document open");
    r->vec = NULL;
    r->clip_n = 0;
    r->clip_empty = 0;
    cairo_destroy(v->cr);
    v->cr = NULL;
    cairo_surface_finish(v->surf);
    cairo_status_t st = cairo_surface_status(v->surf);
    int rc = 0;
    if (!keep) {
        tf_atomic_discard(&v->out);
    } else if (v->write_failed || st != CAIRO_STATUS_SUCCESS) {
        rc = tf_fail(err, "cannot save %s: %s", v->out.path,
                     v->write_failed ? "write error (disk full?)"
                                     : cairo_status_to_string(st));
        tf_atomic_discard(&v->out);
    } else {
        TfErr e = {{0}};
        if (tf_atomic_commit(&v->out, &e) < 0)
            rc = tf_fail(err, "cannot save %s", e.msg);
    }
    vec_free(v);
    return rc;
}

int ren_vector_end(Ren *r, TfErr *err)
{
    if (!r)
        return tf_fail(err, "ren_vector_end: no renderer");
    return vec_close(r, 1, err);
}

void ren_vector_abort(Ren *r)
{
    if (r && r->vec)
        vec_close(r, 0, NULL);
}

/* ---------------------------------------------------------------- frames */

static void set_color(cairo_t *cr, Color c, double amul)
{
    cairo_set_source_rgba(cr, c.r / 255.0, c.g / 255.0, c.b / 255.0,
                          c.a / 255.0 * amul);
}

void vec_begin(Ren *r, Color clear)
{
    RenVec *v = r->vec;
    if (v->pages > 0 && v->fmt == REN_VEC_PDF)
        cairo_show_page(v->cr);
    v->pages++;
    cairo_reset_clip(v->cr);
    set_color(v->cr, clear, 1.0);
    cairo_paint(v->cr);
}

/* The clip of ren_frame.c (already intersected), or none. */
void vec_clip(Ren *r)
{
    cairo_t *cr = r->vec->cr;
    cairo_reset_clip(cr);
    int d = mini(r->clip_n, REN_CLIP_DEPTH);
    if (d == 0 || r->clip_empty)
        return;
    Rect c = r->clip[d - 1];
    cairo_rectangle(cr, c.x, c.y, c.w, c.h);
    cairo_clip(cr);
}

/* What drawing can reach: the clip, or the whole page (a caption band
 * below the frame included). */
static Rect vec_visible(Ren *r)
{
    int d = mini(r->clip_n, REN_CLIP_DEPTH);
    if (d)
        return r->clip[d - 1];
    double x0, y0, x1, y1;
    cairo_clip_extents(r->vec->cr, &x0, &y0, &x1, &y1);
    return (Rect){(int)floor(x0), (int)floor(y0), (int)ceil(x1 - x0),
                  (int)ceil(y1 - y0)};
}

/* ---------------------------------------------------------------- shapes */

void vec_rect(Ren *r, Rect rc, Color c)
{
    cairo_t *cr = r->vec->cr;
    set_color(cr, c, 1.0);
    cairo_rectangle(cr, rc.x, rc.y, rc.w, rc.h);
    cairo_fill(cr);
}

/* Round caps and joins like the software renderer; thinner than a pixel
 * fades instead of thinning. */
void vec_polyline(Ren *r, const float *xy, int n, float width, Color c)
{
    cairo_t *cr = r->vec->cr;
    set_color(cr, c, fmin(width, 1.0));
    cairo_set_line_width(cr, fmax(width, 1.0));
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    cairo_move_to(cr, xy[0], xy[1]);
    for (int i = 1; i < n; i++)
        cairo_line_to(cr, xy[2 * i], xy[2 * i + 1]);
    cairo_stroke(cr);
}

static int same_color(Color a, Color b)
{
    return a.r == b.r && a.g == b.g && a.b == b.b && a.a == b.a;
}

/* Triangles of one colour are filled as paths (runs of the same colour as
 * one path); shaded ones become Gouraud patches of one mesh pattern. */
void vec_triangles(Ren *r, const float *xy, const Color *col, int nv)
{
    cairo_t *cr = r->vec->cr;
    cairo_pattern_t *mesh = NULL;
    for (int t = 0; t + 2 < nv; t += 3) {
        const float *p = xy + 2 * t;
        const Color *c = col + t;
        if (same_color(c[0], c[1]) && same_color(c[0], c[2])) {
            cairo_move_to(cr, p[0], p[1]);
            cairo_line_to(cr, p[2], p[3]);
            cairo_line_to(cr, p[4], p[5]);
            cairo_close_path(cr);
            if (t + 5 >= nv || !same_color(c[0], c[3]) ||
                !same_color(c[3], c[4]) || !same_color(c[3], c[5])) {
                set_color(cr, c[0], 1.0);
                cairo_fill(cr);
            }
            continue;
        }
        if (!mesh)
            mesh = cairo_pattern_create_mesh();
        cairo_mesh_pattern_begin_patch(mesh);
        cairo_mesh_pattern_move_to(mesh, p[0], p[1]);
        cairo_mesh_pattern_line_to(mesh, p[2], p[3]);
        cairo_mesh_pattern_line_to(mesh, p[4], p[5]);
        for (int k = 0; k < 3; k++)
            cairo_mesh_pattern_set_corner_color_rgba(
                mesh, (unsigned)k, c[k].r / 255.0, c[k].g / 255.0,
                c[k].b / 255.0, c[k].a / 255.0);
        cairo_mesh_pattern_end_patch(mesh);
    }
    cairo_new_path(cr);
    if (mesh) {
        cairo_set_source(cr, mesh);
        cairo_paint(cr);
        cairo_pattern_destroy(mesh);
    }
}

/* ------------------------------------------------------------------ text */

/* The cairo face for one of our faces: the same file fontconfig gave the
 * raster text, so glyphs and metrics match the PNG. */
static cairo_font_face_t *vec_face(Ren *r, RenFace which)
{
    RenVec *v = r->vec;
    if (v->face[which])
        return v->face[which];
    const FontFile *ff = &r->files[which];
    if (ff->state != 1)
        return NULL;
    FcPattern *p = FcPatternCreate();
    if (!p)
        return NULL;
    FcPatternAddString(p, FC_FILE, (const FcChar8 *)ff->path);
    FcPatternAddInteger(p, FC_INDEX, ff->index);
    FcPatternAddBool(p, FC_HINTING, FcFalse);
    v->face[which] = cairo_ft_font_face_create_for_pattern(p);
    FcPatternDestroy(p);
    if (cairo_font_face_status(v->face[which]) != CAIRO_STATUS_SUCCESS) {
        cairo_font_face_destroy(v->face[which]);
        v->face[which] = NULL;
    }
    return v->face[which];
}

/* Is a line of text at (x, y), w wide, h high, where drawing can reach? */
int vec_text_visible(Ren *r, int x, int y, int w, int h)
{
    Rect vis = vec_visible(r);
    return !r->clip_empty && w > 0 && y < vis.y + vis.h && y + h > vis.y &&
           x < vis.x + vis.w && x + w > vis.x;
}

void vec_text_run(Ren *r, RenFace which, int px, const char *utf8,
                  double x, double baseline, Color c)
{
    cairo_t *cr = r->vec->cr;
    cairo_font_face_t *face = vec_face(r, which);
    if (!face)
        return;
    cairo_set_font_face(cr, face);
    cairo_set_font_size(cr, px);
    set_color(cr, c, 1.0);
    cairo_move_to(cr, x, baseline);
    cairo_show_text(cr, utf8);
    cairo_new_path(cr);
}

void vec_turn_begin(Ren *r, double x, double y)
{
    cairo_t *cr = r->vec->cr;
    cairo_save(cr);
    cairo_translate(cr, x, y);
    cairo_rotate(cr, -1.5707963267948966); /* -pi/2 */
}

void vec_turn_end(Ren *r)
{
    cairo_restore(r->vec->cr);
}

/* ---------------------------------------------------------------- images */

static Color px_color(uint32_t w)
{
    return (Color){(uint8_t)(w >> 24), (uint8_t)(w >> 16), (uint8_t)(w >> 8),
                   (uint8_t)w};
}

/* The edge of source column i (0..n) within dst, on whole pixels as SDL's
 * nearest-neighbour copy puts it. */
static int cell_edge(int d0, int dlen, int i, int n)
{
    return d0 + (int)(((long long)i * dlen + n / 2) / n);
}

/* An image too big for rectangles: embedded, scaled without smoothing. */
static void vec_image_embed(cairo_t *cr, RenImage *im, Rect s, Rect dst)
{
    cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, s.w, s.h);
    if (cairo_surface_status(img) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(img);
        return;
    }
    cairo_surface_flush(img);
    unsigned char *data = cairo_image_surface_get_data(img);
    int stride = cairo_image_surface_get_stride(img);
    for (int y = 0; y < s.h; y++) {
        uint32_t *row = (uint32_t *)(void *)(data + (size_t)y * stride);
        const uint32_t *src = im->pixels + (size_t)(s.y + y) * im->w + s.x;
        for (int x = 0; x < s.w; x++) {
            Color c = px_color(src[x]);
            unsigned a = c.a;
            row[x] = (a << 24) | ((unsigned)(c.r * a / 255) << 16) |
                     ((unsigned)(c.g * a / 255) << 8) | (unsigned)(c.b * a / 255);
        }
    }
    cairo_surface_mark_dirty(img);
    cairo_save(cr);
    cairo_rectangle(cr, dst.x, dst.y, dst.w, dst.h);
    cairo_clip(cr);
    cairo_translate(cr, dst.x, dst.y);
    cairo_scale(cr, (double)dst.w / s.w, (double)dst.h / s.h);
    cairo_set_source_surface(cr, img, 0, 0);
    cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
    cairo_paint(cr);
    cairo_restore(cr);
    cairo_surface_destroy(img);
}

/* One rectangle per run of equal source pixels in a row. Opaque cells
 * reach half a pixel into their right and lower neighbours (which paint
 * over it), so no hairline seams show where a viewer antialiases edges. */
static void vec_image_cells(cairo_t *cr, RenImage *im, Rect s, Rect dst,
                            int i0, int i1, int j0, int j1)
{
    for (int j = j0; j < j1; j++) {
        const uint32_t *row = im->pixels + (size_t)(s.y + j) * im->w + s.x;
        int y0 = cell_edge(dst.y, dst.h, j, s.h), y1 = cell_edge(dst.y, dst.h, j + 1, s.h);
        if (y1 <= y0)
            continue;
        for (int i = i0; i < i1;) {
            int k = i + 1;
            while (k < i1 && row[k] == row[i])
                k++;
            Color c = px_color(row[i]);
            int x0 = cell_edge(dst.x, dst.w, i, s.w), x1 = cell_edge(dst.x, dst.w, k, s.w);
            double ox = c.a == 255 && k < s.w ? 0.5 : 0, oy = c.a == 255 && j + 1 < s.h ? 0.5 : 0;
            if (x1 > x0 && c.a) {
                set_color(cr, c, 1.0);
                cairo_rectangle(cr, x0, y0, x1 - x0 + ox, y1 - y0 + oy);
                cairo_fill(cr);
            }
            i = k;
        }
    }
}

void vec_image(Ren *r, RenImage *im, Rect src, Rect dst)
{
    if (!im->pixels)
        return;
    Rect s = src.w > 0 ? src : (Rect){0, 0, im->w, im->h};
    if (s.x < 0 || s.y < 0 || s.w <= 0 || s.h <= 0 || s.x + s.w > im->w ||
        s.y + s.h > im->h)
        return;
    /* only the cells that can show */
    Rect vis = vec_visible(r);
    int i0 = 0, i1 = s.w, j0 = 0, j1 = s.h;
    while (i0 < s.w && cell_edge(dst.x, dst.w, i0 + 1, s.w) <= vis.x)
        i0++;
    while (i1 > i0 && cell_edge(dst.x, dst.w, i1 - 1, s.w) >= vis.x + vis.w)
        i1--;
    while (j0 < s.h && cell_edge(dst.y, dst.h, j0 + 1, s.h) <= vis.y)
        j0++;
    while (j1 > j0 && cell_edge(dst.y, dst.h, j1 - 1, s.h) >= vis.y + vis.h)
        j1--;
    if (i1 <= i0 || j1 <= j0)
        return;
    /* drawn 1:1 it is a picture (the lines view paints its lines into
     * one), not a grid of cells */
    int picture = dst.w == s.w && dst.h == s.h;
    if (picture || (long long)(i1 - i0) * (j1 - j0) > VEC_MAX_CELLS)
        vec_image_embed(r->vec->cr, im, s, dst);
    else
        vec_image_cells(r->vec->cr, im, s, dst, i0, i1, j0, j1);
}
