/* view_pe_base.c - what the positional encoding view's panels share
 * (view_pe_base.h): the numbers they show (ω_i, the rotation R(k·ω) made
 * with cglm), reading the engine's table, and small drawing helpers (dots,
 * rings, the "label [−] value [+]" stepper). view_pe.c draws the waves and
 * the table and lays the panels out; view_pe_rot.c draws the rotation. */
#include <cglm/cglm.h>
#include <math.h>

#include "view.h"
#include "view_pe_base.h"

/* ---- numbers ---- */

/* ω_i = 1 / 10000^(2i / d_model), as pe_table computes it. */
double pe_omega(int pair, int C)
{
    return 1.0 / pow(10000.0, (double)(2 * pair) / C);
}

/* The rotation demonstration in numbers, for pair i (dims 2i, 2i+1) of a
 * (rows, C) table: R = R(k·ω_i) (row-major, acting on (sin, cos) column
 * vectors) and out = R · PE(pos). The matrix is cglm's 2D rotation by
 * -k·ω: with the sine first, positions advance clockwise, and
 *   [ cos kω   sin kω ] [sin a]   [sin(a + kω)]
 *   [-sin kω   cos kω ] [cos a] = [cos(a + kω)]
 * which is exactly PE(pos+k) for a = pos·ω. Returns 0, or -1 when the pair,
 * pos or pos+k is outside the table. */
int pe_rotate(const float *pe, int rows, int C, int pair, int pos, int k,
              float R[2][2], float out[2])
{
    return pe_rotate_cols(pe, rows, C, 2 * pair, 2 * pair + 1, pair, pos, k, R, out);
}

int pe_rotate_cols(const float *pe, int rows, int C, int sc, int cc, int pair, int pos, int k,
                   float R[2][2], float out[2])
{
    if (!pe || pair < 0 || sc < 0 || cc >= C || 2 * pair + 1 >= C || pos < 0 || pos >= rows ||
        pos + k < 0 || pos + k >= rows)
        return -1;
    /* the angle reduced to one turn first, so its float rounding stays
     * tiny even for the fastest pair and far offsets */
    double ang = fmod((double)k * pe_omega(pair, C), 2.0 * M_PI);
    mat3 m;
    glm_rotate2d_make(m, (float)-ang);
    const float *p = pe + (size_t)pos * C;
    vec3 in = {p[sc], p[cc], 1.0f}, res;
    glm_mat3_mulv(m, in, res);
    /* cglm matrices are column-major: m[column][row] */
    R[0][0] = m[0][0];
    R[0][1] = m[1][0];
    R[1][0] = m[0][1];
    R[1][1] = m[1][1];
    out[0] = res[0];
    out[1] = res[1];
    return 0;
}

/* ---- small drawing helpers ---- */

/* A filled dot. Tiny ones are squares (the same to the eye, and one
 * rectangle instead of a fan of triangles); bigger ones get as many
 * triangles as their size needs. */
void pe_disc(Ren *r, float cx, float cy, float rad, Color c)
{
    if (rad < 2.6f) {
        int s = (int)lroundf(2 * rad);
        ren_rect(r, (Rect){(int)lroundf(cx - s / 2.0f), (int)lroundf(cy - s / 2.0f), s, s}, c);
        return;
    }
    enum { NMAX = 20 };
    int n = rad < 6 ? 10 : NMAX;
    float xy[NMAX * 6];
    Color col[NMAX * 3];
    for (int i = 0; i < n; i++) {
        float a0 = (float)(2 * M_PI * i / n), a1 = (float)(2 * M_PI * (i + 1) / n);
        float *t = xy + i * 6;
        t[0] = cx;
        t[1] = cy;
        t[2] = cx + rad * cosf(a0);
        t[3] = cy + rad * sinf(a0);
        t[4] = cx + rad * cosf(a1);
        t[5] = cy + rad * sinf(a1);
        col[i * 3] = col[i * 3 + 1] = col[i * 3 + 2] = c;
    }
    ren_triangles(r, xy, col, n * 3);
}

void pe_ring(Ren *r, float cx, float cy, float rad, float width, Color c)
{
    enum { N = 48 };
    float xy[(N + 1) * 2];
    for (int i = 0; i <= N; i++) {
        float a = (float)(2 * M_PI * i / N);
        xy[2 * i] = cx + rad * cosf(a);
        xy[2 * i + 1] = cy + rad * sinf(a);
    }
    ren_polyline(r, xy, N + 1, width, c);
}

Color pe_with_alpha(Color c, int a)
{
    c.a = (uint8_t)a;
    return c;
}

/* "label [−] value [+]": returns -1 or +1 when a button was clicked, else 0.
 * Draws nothing and returns 0 when it does not fit in max_w; *w_out gets the
 * width it takes (also when not drawn). */
int pe_stepper(ViewCtx *v, int x, int y, int h, int max_w, const char *label,
               const char *value, Color c, int *w_out)
{
    RenFont *f = v->g->small;
    int bw = h + 2, lw = label[0] ? ren_text_width(f, label) + 6 : 0;
    int vw = ren_text_width(f, value) + 12;
    int w = lw + bw + vw + bw;
    *w_out = w;
    if (w > max_w)
        return 0;
    int fy = y + (h - ren_font_height(f)) / 2, d = 0;
    if (lw)
        ren_text(v->r, f, label, x, fy, v->th->dim);
    if (ui_button(v->ui, (Rect){x + lw, y, bw, h}, "−", 0))
        d = -1;
    ui_text_center(v->r, f, value, (Rect){x + lw + bw, y, vw, h}, c);
    if (ui_button(v->ui, (Rect){x + lw + bw + vw, y, bw, h}, "+", 0))
        d = 1;
    return d;
}

/* ---- the table ---- */

float pe_value(const PeData *d, int pos, int dim)
{
    return d->pe[(size_t)pos * d->C + dim];
}
