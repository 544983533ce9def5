/* ren_lines.c - antialiased lines and polylines, and triangles.
 *
 * On accelerated renderers a line is a triangle strip through
 * SDL_RenderGeometry with a 1-pixel feather whose vertex alpha falls to 0.
 * SDL's software renderer snaps geometry vertices to whole pixels, which
 * would turn that feather into jaggies, so there (headless frames, PNGs)
 * lines are rasterized here instead: each pixel near the line gets its
 * coverage from its distance to the polyline, pixels are bucketed into 64
 * coverage levels and drawn with one SDL_RenderDrawPoints per level. */
#include "ren.h"
#include "ren_internal.h"

#include <cglm/cglm.h>
#include <math.h>
#include <string.h>

/* ----------------------------------------------- geometry (accelerated) */

/* Unit direction of segment j, or 0 if it has no length. */
static int seg_unit(const float *xy, int j, vec2 d)
{
    vec2 a = {xy[2 * j], xy[2 * j + 1]}, b = {xy[2 * j + 2], xy[2 * j + 3]};
    glm_vec2_sub(b, a, d);
    float len = glm_vec2_norm(d);
    if (!(len > 1e-6f))
        return 0;
    glm_vec2_scale(d, 1.0f / len, d);
    return 1;
}

/* Unit direction of segment i of an n-point polyline, borrowing a nearby
 * segment's when it has no length (repeated points). */
static void seg_dir(const float *xy, int n, int i, vec2 d)
{
    for (int k = 0; k < 16; k++) {
        if (i + k < n - 1 && seg_unit(xy, i + k, d))
            return;
        if (k > 0 && i - k >= 0 && seg_unit(xy, i - k, d))
            return;
    }
    d[0] = 1.0f;
    d[1] = 0.0f;
}

/* The mitred normal at point i scaled so offsets keep the line width. */
static void miter(const float *xy, int n, int i, vec2 m)
{
    vec2 d0, d1, n0, n1;
    seg_dir(xy, n, i > 0 ? i - 1 : 0, d0);
    seg_dir(xy, n, i < n - 1 ? i : n - 2, d1);
    n0[0] = -d0[1], n0[1] = d0[0];
    n1[0] = -d1[1], n1[1] = d1[0];
    glm_vec2_add(n0, n1, m);
    float len = glm_vec2_norm(m);
    if (len < 1e-3f) { /* a U-turn: no sensible mitre */
        glm_vec2_copy(n0, m);
        return;
    }
    glm_vec2_scale(m, 1.0f / len, m);
    float cosine = glm_vec2_dot(m, n0);
    glm_vec2_scale(m, 1.0f / fmaxf(cosine, 1.0f / MITER_LIMIT), m);
}

/* Four vertices across the line at p: outer, inner, inner, outer. */
static void put_column(SDL_Vertex *v, const vec2 p, const vec2 m, float hi,
                       float ho, Color c, float inner_a)
{
    const float off[4] = {-ho, -hi, hi, ho};
    for (int j = 0; j < 4; j++) {
        int in = j == 1 || j == 2;
        v[j].position = (SDL_FPoint){p[0] + m[0] * off[j], p[1] + m[1] * off[j]};
        v[j].color = (SDL_Color){c.r, c.g, c.b, in ? (Uint8)inner_a : 0};
        v[j].tex_coord = (SDL_FPoint){0, 0};
    }
}

/* Triangles joining each column to the next: three quads per gap (two
 * when the core has no width: SDL's software renderer mishandles the
 * zero-area triangles and drops their neighbours). */
static int strip_indices(int *idx, int columns, int core)
{
    int k = 0;
    for (int col = 0; col + 1 < columns; col++)
        for (int j = 0; j < 3; j++) {
            if (j == 1 && !core)
                continue;
            int a = col * 4 + j, b = a + 1, c = b + 4, d = a + 4;
            int q[6] = {a, b, c, a, c, d};
            memcpy(idx + k, q, sizeof q);
            k += 6;
        }
    return k;
}

/* Points s .. s+m-1 of the polyline, with feathered caps at its two ends. */
static void poly_batch(Ren *r, const float *xy, int n, int s, int m, float hi,
                       float ho, Color c, float a)
{
    SDL_Vertex *v = r->vert;
    int cols = 0;
    vec2 p, mv, d;
    if (s == 0) { /* start cap: one pixel back along the line, alpha 0 */
        seg_dir(xy, n, 0, d);
        miter(xy, n, 0, mv);
        p[0] = xy[0] - d[0], p[1] = xy[1] - d[1];
        put_column(v + 4 * cols++, p, mv, hi, ho, c, 0);
    }
    for (int i = s; i < s + m; i++) {
        p[0] = xy[2 * i], p[1] = xy[2 * i + 1];
        miter(xy, n, i, mv);
        put_column(v + 4 * cols++, p, mv, hi, ho, c, a);
    }
    if (s + m == n) { /* end cap */
        seg_dir(xy, n, n - 2, d);
        p[0] = xy[2 * n - 2] + d[0], p[1] = xy[2 * n - 1] + d[1];
        put_column(v + 4 * cols++, p, mv, hi, ho, c, 0);
    }
    int ni = strip_indices(r->index, cols, hi > 0.01f);
    SDL_RenderGeometry(r->sdl, NULL, v, cols * 4, r->index, ni);
    r->calls++;
}

static void geom_polyline(Ren *r, const float *xy, int n, float hw, Color c,
                          float a)
{
    float hi = hw - 0.5f, ho = hw + 0.5f;
    for (int s = 0; s < n - 1; s += POLY_BATCH - 1)
        poly_batch(r, xy, n, s, mini(POLY_BATCH, n - s), hi, ho, c, a);
}

/* --------------------------------------------- pixel coverage (software) */

/* Draw the buffered pixels, one colour (alpha = level) at a time. */
static void aa_flush(Ren *r, Color c)
{
    int count[AA_LEVELS] = {0}, start[AA_LEVELS];
    for (int i = 0; i < r->aa_n; i++)
        count[r->aa_level[i]]++;
    for (int lv = 0, at = 0; lv < AA_LEVELS; lv++) {
        start[lv] = at;
        at += count[lv];
    }
    int fill[AA_LEVELS];
    memcpy(fill, start, sizeof fill);
    for (int i = 0; i < r->aa_n; i++)
        r->aa_sorted[fill[r->aa_level[i]]++] = r->aa_pt[i];
    for (int lv = 1; lv < AA_LEVELS; lv++) {
        if (!count[lv])
            continue;
        int a = (c.a * lv + (AA_LEVELS - 1) / 2) / (AA_LEVELS - 1);
        SDL_SetRenderDrawColor(r->sdl, c.r, c.g, c.b, (Uint8)a);
        SDL_RenderDrawPoints(r->sdl, r->aa_sorted + start[lv], count[lv]);
        r->calls++;
    }
    r->aa_n = 0;
}

static void aa_plot(Ren *r, int x, int y, float cover, Color c)
{
    int lv = (int)(cover * (AA_LEVELS - 1) + 0.5f);
    if (lv <= 0)
        return;
    if (r->aa_n == AA_CAP)
        aa_flush(r, c);
    r->aa_pt[r->aa_n] = (SDL_Point){x, y};
    r->aa_level[r->aa_n++] = (uint8_t)lv;
}

/* Squared distance from (px, py) to segment j of a polyline. */
static float seg_dist2(const float *xy, int j, float px, float py)
{
    float ax = xy[2 * j], ay = xy[2 * j + 1];
    float dx = xy[2 * j + 2] - ax, dy = xy[2 * j + 3] - ay;
    float l2 = dx * dx + dy * dy;
    float t = l2 > 0 ? glm_clamp_zo(((px - ax) * dx + (py - ay) * dy) / l2) : 0;
    float ex = ax + t * dx - px, ey = ay + t * dy - py;
    return ex * ex + ey * ey;
}

/* Is segment j the nearest of its neighbours to the pixel centre? (Each
 * pixel is drawn once, so joins do not double-blend.) */
static int aa_owns(const float *xy, int n, int j, float px, float py, float d2)
{
    if (j > 0 && seg_dist2(xy, j - 1, px, py) <= d2)
        return 0;
    if (j < n - 2 && seg_dist2(xy, j + 1, px, py) < d2)
        return 0;
    return 1;
}

/* The pixels within hw + 0.5 of segment j, walked along its major axis;
 * coverage = hw + 0.5 - distance, clamped (round caps and joins). */
static void aa_segment(Ren *r, const float *xy, int n, int j, float hw,
                       float amul, Color c, Rect vis)
{
    const float *p = xy + 2 * j;
    int steep = fabsf(p[3] - p[1]) > fabsf(p[2] - p[0]);
    float au = p[steep], av = p[!steep], bu = p[2 + steep], bv = p[2 + !steep];
    float du = bu - au, dv = bv - av, rad = hw + 0.5f;
    float reach = du != 0 ? rad * sqrtf(du * du + dv * dv) / fabsf(du) : rad;
    int ulo = steep ? vis.y : vis.x, uhi = ulo + (steep ? vis.h : vis.w) - 1;
    int vlo = steep ? vis.x : vis.y, vhi = vlo + (steep ? vis.w : vis.h) - 1;
    int u0 = maxi(ulo, (int)floorf(fminf(au, bu) - rad));
    int u1 = mini(uhi, (int)ceilf(fmaxf(au, bu) + rad));
    for (int u = u0; u <= u1; u++) {
        float cu = u + 0.5f, t = du != 0 ? glm_clamp_zo((cu - au) / du) : 0;
        float vc = av + t * dv;
        int v0 = maxi(vlo, (int)floorf(vc - reach - 0.5f));
        int v1 = mini(vhi, (int)ceilf(vc + reach));
        for (int v = v0; v <= v1; v++) {
            float px = steep ? v + 0.5f : cu, py = steep ? cu : v + 0.5f;
            float d2 = seg_dist2(xy, j, px, py);
            if (d2 >= rad * rad || !aa_owns(xy, n, j, px, py, d2))
                continue;
            aa_plot(r, steep ? v : u, steep ? u : v,
                    glm_clamp_zo(rad - sqrtf(d2)) * amul, c);
        }
    }
}

static void aa_polyline(Ren *r, const float *xy, int n, float hw, Color c,
                        float amul)
{
    Rect vis = ren_visible(r);
    if (vis.w <= 0 || vis.h <= 0)
        return;
    for (int j = 0; j < n - 1; j++)
        aa_segment(r, xy, n, j, hw, amul, c, vis);
    aa_flush(r, c);
}

/* ------------------------------------------------------------- drawing */

void ren_polyline(Ren *r, const float *xy, int n, float width, Color c)
{
    if (!r || !xy || n < 2 || r->clip_empty || !(width > 0) || !isfinite(width))
        return;
    for (int i = 0; i < 2 * n; i++)
        if (!isfinite(xy[i]) || fabsf(xy[i]) > 1e6f)
            return;
    /* Full coverage in the core, falling to 0 over one pixel centred on the
     * true edge; lines thinner than a pixel keep that footprint and fade. */
    float amul = fminf(width, 1.0f), hw = fmaxf(width, 1.0f) * 0.5f;
    if (r->vec)
        vec_polyline(r, xy, n, width, c);
    else if (r->soft)
        aa_polyline(r, xy, n, hw, c, amul);
    else
        geom_polyline(r, xy, n, hw, c, c.a * amul);
}

void ren_line(Ren *r, float x0, float y0, float x1, float y1, float width,
              Color c)
{
    const float xy[4] = {x0, y0, x1, y1};
    ren_polyline(r, xy, 2, width, c);
}

void ren_triangles(Ren *r, const float *xy, const Color *col, int n_vertices)
{
    if (!r || !xy || !col || r->clip_empty)
        return;
    n_vertices -= n_vertices % 3;
    if (r->vec) {
        vec_triangles(r, xy, col, n_vertices);
        return;
    }
    for (int s = 0; s < n_vertices; s += TRI_BATCH) {
        int m = mini(TRI_BATCH, n_vertices - s);
        for (int i = 0; i < m; i++) {
            const float *p = xy + 2 * (s + i);
            Color c = col[s + i];
            r->vert[i] = (SDL_Vertex){{p[0], p[1]}, {c.r, c.g, c.b, c.a}, {0, 0}};
        }
        SDL_RenderGeometry(r->sdl, NULL, r->vert, m, NULL, 0);
        r->calls++;
    }
}
