/* colormap.c - colour maps as anchor tables interpolated with cglm.
 *
 * Viridis and cividis anchors are every fifth entry (indices 0, 5, ..., 255)
 * of the published 256-entry tables (viridis: van der Walt & Smith 2015,
 * as shipped by matplotlib; cividis: Nuñez, Anderton & Renslow 2018, PLoS
 * ONE 13(7) e0199239), so that linear interpolation between them stays
 * within one 8-bit level of the full tables for viridis and four for
 * cividis (which bends sharply near its dark end).
 *
 * The diverging map joins ColorBrewer's sequential Blues and Oranges
 * (Cynthia Brewer, colorbrewer2.org), which step down in lightness at
 * matched rates, through the neutral #f7f7f7 at the centre: CIE L* runs
 * 35 46 58 68 79 87 92 | 97 | 93 86 77 70 61 51 39 from end to end. */
#include "colormap.h"

#include <cglm/cglm.h>
#include <math.h>

typedef struct CmapTable {
    const char *name;
    const float (*rgb)[3]; /* anchors at t = i / (n - 1) */
    int n;
} CmapTable;

static const float VIRIDIS[52][3] = {
    {0.267004, 0.004874, 0.329415}, {0.273809, 0.031497, 0.358853},
    {0.278791, 0.062145, 0.386592}, {0.281924, 0.089666, 0.412415},
    {0.283197, 0.115680, 0.436115}, {0.282623, 0.140926, 0.457517},
    {0.280255, 0.165693, 0.476498}, {0.276194, 0.190074, 0.493001},
    {0.270595, 0.214069, 0.507052}, {0.263663, 0.237631, 0.518762},
    {0.255645, 0.260703, 0.528312}, {0.246811, 0.283237, 0.535941},
    {0.237441, 0.305202, 0.541921}, {0.227802, 0.326594, 0.546532},
    {0.218130, 0.347432, 0.550038}, {0.208623, 0.367752, 0.552675},
    {0.199430, 0.387607, 0.554642}, {0.190631, 0.407061, 0.556089},
    {0.182256, 0.426184, 0.557120}, {0.174274, 0.445044, 0.557792},
    {0.166617, 0.463708, 0.558119}, {0.159194, 0.482237, 0.558073},
    {0.151918, 0.500685, 0.557587}, {0.144759, 0.519093, 0.556572},
    {0.137770, 0.537492, 0.554906}, {0.131172, 0.555899, 0.552459},
    {0.125394, 0.574318, 0.549086}, {0.121148, 0.592739, 0.544641},
    {0.119423, 0.611141, 0.538982}, {0.121380, 0.629492, 0.531973},
    {0.128087, 0.647749, 0.523491}, {0.140210, 0.665859, 0.513427},
    {0.157851, 0.683765, 0.501686}, {0.180653, 0.701402, 0.488189},
    {0.208030, 0.718701, 0.472873}, {0.239374, 0.735588, 0.455688},
    {0.274149, 0.751988, 0.436601}, {0.311925, 0.767822, 0.415586},
    {0.352360, 0.783011, 0.392636}, {0.395174, 0.797475, 0.367757},
    {0.440137, 0.811138, 0.340967}, {0.487026, 0.823929, 0.312321},
    {0.535621, 0.835785, 0.281908}, {0.585678, 0.846661, 0.249897},
    {0.636902, 0.856542, 0.216620}, {0.688944, 0.865448, 0.182725},
    {0.741388, 0.873449, 0.149561}, {0.793760, 0.880678, 0.120005},
    {0.845561, 0.887322, 0.099702}, {0.896320, 0.893616, 0.096335},
    {0.945636, 0.899815, 0.112838}, {0.993248, 0.906157, 0.143936},
};

static const float CIVIDIS[52][3] = {
    {0.000000, 0.135112, 0.304751}, {0.000000, 0.149791, 0.337065},
    {0.000000, 0.163058, 0.371608}, {0.000000, 0.176082, 0.407577},
    {0.000000, 0.188769, 0.439563}, {0.032110, 0.201199, 0.440785},
    {0.087465, 0.214879, 0.437342}, {0.124291, 0.228697, 0.433547},
    {0.154261, 0.242475, 0.430120}, {0.180503, 0.256180, 0.427299},
    {0.204385, 0.269823, 0.425126}, {0.226598, 0.283419, 0.423678},
    {0.247605, 0.296986, 0.422917}, {0.267693, 0.310542, 0.422821},
    {0.287065, 0.324103, 0.423373}, {0.305886, 0.337681, 0.424512},
    {0.324250, 0.351289, 0.426250}, {0.342246, 0.364939, 0.428559},
    {0.359916, 0.378641, 0.431501}, {0.377371, 0.392404, 0.434890},
    {0.394568, 0.406236, 0.438986}, {0.411607, 0.420145, 0.443577},
    {0.428462, 0.434140, 0.448864}, {0.445148, 0.448226, 0.454885},
    {0.461616, 0.462405, 0.461969}, {0.478186, 0.476699, 0.468845},
    {0.495913, 0.491076, 0.471751}, {0.514226, 0.505546, 0.472640},
    {0.532829, 0.520135, 0.472401}, {0.551612, 0.534849, 0.471439},
    {0.570607, 0.549695, 0.469593}, {0.589753, 0.564682, 0.467090},
    {0.609105, 0.579816, 0.463638}, {0.628576, 0.595104, 0.459641},
    {0.648222, 0.610553, 0.454801}, {0.668008, 0.626171, 0.449270},
    {0.687957, 0.641966, 0.442886}, {0.708067, 0.657942, 0.435647},
    {0.728334, 0.674107, 0.427554}, {0.748772, 0.690470, 0.418448},
    {0.769353, 0.707035, 0.408516}, {0.790116, 0.723810, 0.397423},
    {0.811054, 0.740801, 0.385198}, {0.832192, 0.758014, 0.371529},
    {0.853515, 0.775454, 0.356500}, {0.875057, 0.793125, 0.339685},
    {0.896818, 0.811030, 0.320982}, {0.918828, 0.829168, 0.299960},
    {0.941147, 0.847530, 0.275815}, {0.963872, 0.866089, 0.247445},
    {0.987293, 0.884718, 0.213336}, {0.995737, 0.909344, 0.217772},
};

static const float BLUE_ORANGE[15][3] = {
    {0.031373, 0.317647, 0.611765}, /* #08519c */
    {0.129412, 0.443137, 0.709804}, /* #2171b5 */
    {0.258824, 0.572549, 0.776471}, /* #4292c6 */
    {0.419608, 0.682353, 0.839216}, /* #6baed6 */
    {0.619608, 0.792157, 0.882353}, /* #9ecae1 */
    {0.776471, 0.858824, 0.937255}, /* #c6dbef */
    {0.870588, 0.921569, 0.968627}, /* #deebf7 */
    {0.968627, 0.968627, 0.968627}, /* #f7f7f7 */
    {0.996078, 0.901961, 0.807843}, /* #fee6ce */
    {0.992157, 0.815686, 0.635294}, /* #fdd0a2 */
    {0.992157, 0.682353, 0.419608}, /* #fdae6b */
    {0.992157, 0.552941, 0.235294}, /* #fd8d3c */
    {0.945098, 0.411765, 0.074510}, /* #f16913 */
    {0.850980, 0.282353, 0.003922}, /* #d94801 */
    {0.650980, 0.211765, 0.011765}, /* #a63603 */
};

static const CmapTable TABLES[CMAP_COUNT] = {
    [CMAP_VIRIDIS] = {"viridis", VIRIDIS, 52},
    [CMAP_CIVIDIS] = {"cividis", CIVIDIS, 52},
    [CMAP_DIVERGING] = {"blue-orange", BLUE_ORANGE, 15},
};

static uint8_t to_byte(float v)
{
    return (uint8_t)lrintf(glm_clamp_zo(v) * 255.0f);
}

Color cmap_color(CmapId id, float t)
{
    if (isnan(t) || (unsigned)id >= CMAP_COUNT)
        return CMAP_NAN_COLOR;
    const CmapTable *m = &TABLES[id];
    float x = glm_clamp_zo(t) * (float)(m->n - 1);
    int k = (int)x;
    if (k > m->n - 2)
        k = m->n - 2;
    vec3 a, b, c;
    for (int i = 0; i < 3; i++) {
        a[i] = m->rgb[k][i];
        b[i] = m->rgb[k + 1][i];
    }
    glm_vec3_lerp(a, b, x - (float)k, c);
    return (Color){to_byte(c[0]), to_byte(c[1]), to_byte(c[2]), 255};
}

uint32_t cmap_pack(Color c)
{
    return (uint32_t)c.r << 24 | (uint32_t)c.g << 16 | (uint32_t)c.b << 8 | c.a;
}

uint32_t cmap_rgba(CmapId id, float t)
{
    return cmap_pack(cmap_color(id, t));
}

const char *cmap_name(CmapId id)
{
    return (unsigned)id < CMAP_COUNT ? TABLES[id].name : "?";
}

float cmap_luminance(Color c)
{
    return 0.2126f * c.r + 0.7152f * c.g + 0.0722f * c.b;
}

/* Whichever of black and white has the higher contrast ratio: at least
 * 4.58:1 on any colour, so every cell's number passes WCAG AA. */
Color cmap_ink_on(Color bg)
{
    Color black = {0, 0, 0, 255}, white = {255, 255, 255, 255};
    return cmap_contrast(black, bg) >= cmap_contrast(white, bg) ? black : white;
}

static double linear_luminance(Color c)
{
    const uint8_t ch[3] = {c.r, c.g, c.b};
    double lin[3];
    for (int i = 0; i < 3; i++) {
        double v = ch[i] / 255.0;
        lin[i] = v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
    }
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
}

float cmap_contrast(Color a, Color b)
{
    double la = linear_luminance(a), lb = linear_luminance(b);
    return (float)((fmax(la, lb) + 0.05) / (fmin(la, lb) + 0.05));
}

Color cmap_ink_on_rgba(uint32_t bg)
{
    return cmap_ink_on((Color){(uint8_t)(bg >> 24), (uint8_t)(bg >> 16), (uint8_t)(bg >> 8), 255});
}

void cmap_lut_build(CmapLut *lut, CmapId id)
{
    for (int i = 0; i < CMAP_LUT_N; i++)
        lut->rgba[i] = cmap_rgba(id, (float)i / (CMAP_LUT_N - 1));
    lut->nan_rgba = cmap_pack(CMAP_NAN_COLOR);
}

void cmap_lut_map(const CmapLut *lut, const float *v, size_t n, float lo,
                  float hi, uint32_t *out)
{
    float span = hi - lo;
    int flat = !(span != 0.0f) || !isfinite(span);
    float scale = flat ? 0.0f : 1.0f / span;
    for (size_t i = 0; i < n; i++) {
        float t = flat ? 0.5f : (v[i] - lo) * scale;
        out[i] = cmap_lut_get(lut, isnan(v[i]) ? v[i] : t);
    }
}
