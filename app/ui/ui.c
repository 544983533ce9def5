/* ui.c - the plain widgets (ui.h): text fitted, centred, wrapped or in
 * shorter wordings, mouse tests, colour mixing, value and stage labels. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ui.h"

int ui_side_of(LabelKind k)
{
    return k == LBL_SRC ? 1 : k == LBL_TGT ? 2 : 0;
}

int ui_over(const UiInput *in, Rect r)
{
    return in->mx >= r.x && in->mx < r.x + r.w && in->my >= r.y && in->my < r.y + r.h;
}

int ui_clicked(const UiInput *in, Rect r)
{
    return in->pressed && ui_over(in, r);
}

Color ui_mix(Color a, Color b, float t)
{
    Color c;
    c.r = (uint8_t)lroundf(a.r + (b.r - a.r) * t);
    c.g = (uint8_t)lroundf(a.g + (b.g - a.g) * t);
    c.b = (uint8_t)lroundf(a.b + (b.b - a.b) * t);
    c.a = (uint8_t)lroundf(a.a + (b.a - a.a) * t);
    return c;
}

static const char ELLIPSIS[] = "…";

/* How many bytes of s (of n) fit in w pixels with an ellipsis after them:
 * whole UTF-8 characters dropped from the end until they do. */
static int cut_len(RenFont *f, const char *s, int n, int w)
{
    int ew = ren_text_width(f, ELLIPSIS), len = n;
    while (len > 0) {
        len--;
        while (len > 0 && ((unsigned char)s[len] & 0xC0) == 0x80)
            len--;
        if (ren_text_width_n(f, s, len) + ew <= w)
            break;
    }
    return len;
}

const char *ui_text_cut(RenFont *f, const char *s, int w, char *buf, size_t cap)
{
    size_t n = strlen(s);
    if (!cap)
        return buf;
    if (ren_text_width(f, s) <= w || n + 1 > cap) {
        snprintf(buf, cap, "%s", s);
        return buf;
    }
    int len = cut_len(f, s, (int)n, w);
    snprintf(buf, cap, "%.*s%s", len, s, len + 4 <= (int)cap ? ELLIPSIS : "");
    return buf;
}

int ui_text_fit(Ren *r, RenFont *f, const char *s, int x, int y, int w, Color c)
{
    int full = ren_text_width(f, s);
    if (full <= w)
        return ren_text(r, f, s, x, y, c);
    int adv = ren_text_n(r, f, s, cut_len(f, s, (int)strlen(s), w), x, y, c);
    return adv + ren_text(r, f, ELLIPSIS, x + adv, y, c);
}

void ui_text_center(Ren *r, RenFont *f, const char *s, Rect rc, Color c)
{
    int w = ren_text_width(f, s), h = ren_font_height(f);
    ren_clip_push(r, rc);
    int x = rc.x + (rc.w - w) / 2;
    if (w > rc.w)
        x = rc.x + 2;
    ren_text(r, f, s, x, rc.y + (rc.h - h) / 2, c);
    ren_clip_pop(r);
}

int ui_paragraph(Ren *r, RenFont *f, const char *s, int x, int y, int w, Color c)
{
    RenLine lines[64];
    int n = ren_text_wrap(f, s, w, lines, 64);
    if (n > 64)
        n = 64;
    int lh = ren_font_height(f);
    for (int i = 0; i < n; i++)
        ren_text_n(r, f, s + lines[i].start, lines[i].len, x, y + i * lh, c);
    return n * lh;
}

int ui_paragraph_height(RenFont *f, const char *s, int w)
{
    return ren_text_wrap(f, s, w, NULL, 0) * ren_font_height(f);
}

Rect ui_overlay(Ren *r, const Theme *th, int win_w, int win_h, int w, int h)
{
    Rect box = {(win_w - w) / 2, (win_h - h) / 2, w, h};
    ren_rect(r, (Rect){0, 0, win_w, win_h}, (Color){0, 0, 0, 150});
    ren_rect(r, box, th->panel);
    ren_rect_line(r, box, 2, th->accent);
    ren_clip_push(r, box);
    return box;
}

void ui_fmt(char *buf, size_t cap, float v)
{
    if (isinf(v))
        snprintf(buf, cap, v < 0 ? "−∞" : "+∞");
    else if (isnan(v))
        snprintf(buf, cap, "NaN");
    else if (v == 0)
        snprintf(buf, cap, "0");
    else if (fabsf(v) >= 1000 || fabsf(v) < 0.001f)
        snprintf(buf, cap, "%.3g", v);
    else
        snprintf(buf, cap, "%.4g", v);
    /* a probability of 0.99999 must not read as exactly 1 */
    if ((strcmp(buf, "1") == 0 && v != 1.0f) || (strcmp(buf, "-1") == 0 && v != -1.0f))
        snprintf(buf, cap, "%.7g", v);
}

void ui_stage_title(int lang, int head, StagePos p, char *buf, size_t cap)
{
    const StageInfo *si = stage_info(p.stage);
    char layer[64] = "", heads[64] = "";
    if (si->flags & SF_LAYER)
        snprintf(layer, sizeof layer, L(lang, "layer %d"), p.layer + 1);
    if ((si->flags & (SF_HEAD | SF_HEAD_OPT))) {
        if (head < 0)
            snprintf(heads, sizeof heads, "%s", L(lang, "all heads"));
        else
            snprintf(heads, sizeof heads, L(lang, "head %d"), head + 1);
    }
    snprintf(buf, cap, "%s%s%s%s%s", si->name, layer[0] ? "  " : "", layer, heads[0] ? "  " : "", heads);
}

/* ---- sizes and wordings ---- */

int ui_px(const Gfx *g, float base)
{
    return (int)(base * g->scale + 0.5f);
}

void ui_text_alt(Ren *r, RenFont *f, const char *const *alts, int n, int x, int y, int w, Color c)
{
    for (int i = 0; i < n - 1; i++)
        if (ren_text_width(f, alts[i]) <= w) {
            ren_text(r, f, alts[i], x, y, c);
            return;
        }
    ui_text_fit(r, f, alts[n - 1], x, y, w, c);
}

const char *ui_token(const char *tok, char *buf, size_t cap)
{
    if (!cap)
        return buf;
    size_t o = 0, m = sizeof UI_WORD_MARK - 1;
    for (size_t i = 0; tok[i] && o + 1 < cap;) {
        if (!strncmp(tok + i, "\xe2\x96\x81", 3)) {
            if (o + m >= cap)
                break;
            memcpy(buf + o, UI_WORD_MARK, m); /* memmove-safe: o + m <= i + 3 */
            o += m;
            i += 3;
        } else {
            buf[o++] = tok[i++];
        }
    }
    buf[o] = 0;
    return buf;
}
