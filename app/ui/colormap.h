/* colormap.h - colour maps for heatmaps and colour bars.
 *
 * A map turns t in [0, 1] into a colour. t is clamped (so -inf gives the
 * low end and +inf the high end); NaN gives CMAP_NAN_COLOR, a mid grey that
 * no map produces, so missing values stand out.
 *
 *   CMAP_VIRIDIS    perceptually uniform, dark blue -> yellow (the default
 *                   for 0..1 data such as attention weights)
 *   CMAP_CIVIDIS    like viridis, tuned to look the same to people with a
 *                   red-green colour vision deficiency
 *   CMAP_DIVERGING  blue -> light neutral grey at t = 0.5 -> orange, for
 *                   signed data centred on 0 (map v in [-m, m] to
 *                   t = (v + m) / 2m); blue-orange stays distinct under
 *                   every common colour vision deficiency, and both arms
 *                   darken at about the same rate
 *
 * Packed colours are uint32_t 0xRRGGBBAA, the order ren_image_update()
 * takes. A CmapLut holds 256 packed colours for filling heatmaps fast. */
#ifndef COLORMAP_H
#define COLORMAP_H

#include <stddef.h>
#include <stdint.h>

#include "ren.h"

typedef enum CmapId {
    CMAP_VIRIDIS,
    CMAP_CIVIDIS,
    CMAP_DIVERGING,
    CMAP_COUNT
} CmapId;

#define CMAP_NAN_COLOR ((Color){160, 160, 160, 255})
#define CMAP_LUT_N 256

typedef struct CmapLut {
    uint32_t rgba[CMAP_LUT_N]; /* entry i is the colour at t = i / 255 */
    uint32_t nan_rgba;
} CmapLut;

Color cmap_color(CmapId id, float t);
uint32_t cmap_rgba(CmapId id, float t);
uint32_t cmap_pack(Color c); /* Color -> 0xRRGGBBAA */
const char *cmap_name(CmapId id); /* "viridis", "cividis", "blue-orange" */

/* The luminance of an sRGB colour on the 0..255 scale of its channels
 * (Rec. 709 weights on the stored values, no linearisation: enough to tell
 * a dark colour from a light one). */
float cmap_luminance(Color c);
/* Black or white text, whichever reads on a cell of colour bg. */
Color cmap_ink_on(Color bg);
/* WCAG 2 contrast ratio of two colours, 1 to 21 (text wants 4.5 at least):
 * (L1 + 0.05) / (L2 + 0.05) of the relative luminances of linear sRGB. */
float cmap_contrast(Color a, Color b);
/* The same for a packed 0xRRGGBBAA colour (a lookup table's entry). */
Color cmap_ink_on_rgba(uint32_t bg);

void cmap_lut_build(CmapLut *lut, CmapId id);

/* The packed colour nearest to t (clamped; NaN -> nan_rgba). */
static inline uint32_t cmap_lut_get(const CmapLut *lut, float t)
{
    if (t != t)
        return lut->nan_rgba;
    if (!(t > 0.0f))
        t = 0.0f;
    if (t > 1.0f)
        t = 1.0f;
    return lut->rgba[(int)(t * (CMAP_LUT_N - 1) + 0.5f)];
}

/* out[i] = colour of (v[i] - lo) / (hi - lo) for n values (t = 0.5 when
 * hi == lo): one row of a heatmap. */
void cmap_lut_map(const CmapLut *lut, const float *v, size_t n, float lo,
                  float hi, uint32_t *out);

#endif
