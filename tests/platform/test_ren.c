/* test_ren.c - the renderer layer, headless: shapes and clipping read back
 * pixel by pixel, text in Latin, Chinese and math, wrapping rules, images
 * scaled crisply, PNG export (and its failures), and a bounded text cache.
 *
 * Needs no display: main() drops DISPLAY and WAYLAND_DISPLAY before any
 * test, so the software renderer has to do everything. */
#include "ren.h"
#include "test_util.h"

#include <SDL.h>
#include <SDL_image.h>
#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define W 320
#define H 240

static const Color BLACK = {0, 0, 0, 255};
static const Color WHITE = {255, 255, 255, 255};

typedef struct Fixture {
    Ren *r;
    RenFont *sans, *mono, *cjk;
} Fixture;

static int setup(void **state)
{
    static Fixture fx;
    TfErr err = {{0}};
    fx.r = ren_open_headless(W, H, &err);
    if (!fx.r) {
        printf("  ren_open_headless: %s\n", err.msg);
        return -1;
    }
    fx.sans = ren_font_open(fx.r, REN_SANS, 16, &err);
    fx.mono = fx.sans ? ren_font_open(fx.r, REN_MONO, 14, &err) : NULL;
    fx.cjk = fx.mono ? ren_font_open(fx.r, REN_CJK, 16, &err) : NULL;
    if (!fx.cjk) {
        printf("  ren_font_open: %s\n", err.msg);
        return -1;
    }
    *state = &fx;
    return 0;
}

static int teardown(void **state)
{
    Fixture *fx = *state;
    ren_close(fx->r); /* also closes the fonts */
    return 0;
}

static uint32_t rgba(Color c)
{
    return (uint32_t)c.r << 24 | (uint32_t)c.g << 16 | (uint32_t)c.b << 8 | c.a;
}

static uint32_t pixel(Ren *r, int x, int y)
{
    uint32_t p = 0;
    ren_read_pixels(r, (Rect){x, y, 1, 1}, &p);
    return p;
}

static int red(uint32_t p) { return (int)(p >> 24); }

/* Pixels of rc that differ from bg. */
static int count_ink(Ren *r, Rect rc, uint32_t bg)
{
    static uint32_t buf[W * H];
    if (ren_read_pixels(r, rc, buf) < 0)
        return -1;
    int n = 0;
    for (int i = 0; i < rc.w * rc.h; i++)
        n += buf[i] != bg;
    return n;
}

/* Last row of rc holding a pixel with red above 128 (text drawn white on
 * black), or -1. */
static int last_ink_row(Ren *r, Rect rc)
{
    static uint32_t buf[W * H];
    ren_read_pixels(r, rc, buf);
    int last = -1;
    for (int y = 0; y < rc.h; y++)
        for (int x = 0; x < rc.w; x++)
            if (red(buf[y * rc.w + x]) > 128)
                last = y;
    return last;
}

/* ------------------------------------------------------------- shapes */

static void test_rect_exact(void **state)
{
    Fixture *fx = *state;
    Ren *r = fx->r;
    ren_begin(r, (Color){10, 20, 30, 255});
    ren_rect(r, (Rect){40, 50, 30, 20}, (Color){200, 100, 50, 255});
    ren_rect(r, (Rect){100, 100, 10, 10}, (Color){255, 255, 255, 128});
    uint32_t inside = pixel(r, 40, 50), corner = pixel(r, 69, 69);
    uint32_t left = pixel(r, 39, 50), below = pixel(r, 40, 70);
    expect_true(inside == 0xC86432FFu && corner == 0xC86432FFu,
                "rect pixels 0xC86432FF, got %08x and %08x", inside, corner);
    expect_true(left == 0x0A141EFFu && below == 0x0A141EFFu,
                "background just outside, got %08x and %08x", left, below);
    /* white at alpha 128 over (10,20,30): 10 + (255-10)*128/255 = 133 */
    uint32_t half = pixel(r, 105, 105);
    expect_true(abs(red(half) - 133) <= 1, "blended red ~133, got %d", red(half));

    ren_begin(r, BLACK);
    ren_rect_line(r, (Rect){10, 10, 20, 20}, 2, WHITE);
    expect_true(pixel(r, 10, 10) == rgba(WHITE) && pixel(r, 11, 20) == rgba(WHITE) &&
                    pixel(r, 29, 29) == rgba(WHITE),
                "outline drawn inside its rect");
    expect_true(pixel(r, 12, 12) == rgba(BLACK) && pixel(r, 30, 30) == rgba(BLACK),
                "outline interior and outside untouched, got %08x %08x",
                pixel(r, 12, 12), pixel(r, 30, 30));
    ren_end(r);
}

static void test_clip(void **state)
{
    Fixture *fx = *state;
    Ren *r = fx->r;
    ren_begin(r, BLACK);
    ren_clip_push(r, (Rect){50, 50, 100, 100});
    ren_clip_push(r, (Rect){0, 0, 80, 80}); /* intersects to 50,50 30x30 */
    ren_rect(r, (Rect){0, 0, W, H}, WHITE);
    ren_clip_pop(r);
    int inner = count_ink(r, (Rect){0, 0, W, H}, rgba(BLACK));
    expect_true(inner == 30 * 30, "nested clip paints 900 pixels, got %d", inner);
    expect_true(pixel(r, 50, 50) == rgba(WHITE) && pixel(r, 79, 79) == rgba(WHITE) &&
                    pixel(r, 80, 80) == rgba(BLACK) && pixel(r, 49, 60) == rgba(BLACK),
                "clip edges exact");
    ren_rect(r, (Rect){0, 0, W, H}, (Color){255, 0, 0, 255}); /* outer clip */
    ren_clip_pop(r);
    expect_true(pixel(r, 149, 149) == 0xFF0000FFu && pixel(r, 150, 150) == rgba(BLACK),
                "outer clip restored after pop, got %08x %08x", pixel(r, 149, 149),
                pixel(r, 150, 150));
    ren_clip_push(r, (Rect){10, 10, 0, 5}); /* empty: draws nothing */
    ren_rect(r, (Rect){0, 0, W, H}, WHITE);
    ren_line(r, 0, 0, W, H, 5, WHITE);
    ren_text(r, fx->sans, "hidden", 10, 10, WHITE);
    ren_clip_pop(r);
    expect_true(pixel(r, 5, 5) == rgba(BLACK) && pixel(r, 200, 200) == rgba(BLACK),
                "empty clip draws nothing, got %08x", pixel(r, 200, 200));
    ren_clip_push(r, (Rect){0, 0, 100, H}); /* lines clip too */
    ren_line(r, 20, 200, 300, 200, 4, WHITE);
    ren_clip_pop(r);
    expect_true(pixel(r, 99, 200) == rgba(WHITE) && pixel(r, 100, 200) == rgba(BLACK),
                "line stops at the clip edge, got %08x %08x", pixel(r, 99, 200),
                pixel(r, 100, 200));
    ren_end(r);
}

static void test_lines(void **state)
{
    Fixture *fx = *state;
    Ren *r = fx->r;
    ren_begin(r, BLACK);
    /* 2 px wide along y = 30: rows 29 and 30 fully covered, 28 and 31 not */
    ren_line(r, 10, 30, 110, 30, 2, WHITE);
    expect_true(pixel(r, 60, 29) == rgba(WHITE) && pixel(r, 60, 30) == rgba(WHITE),
                "line core white, got %08x %08x", pixel(r, 60, 29), pixel(r, 60, 30));
    expect_true(pixel(r, 60, 28) == rgba(BLACK) && pixel(r, 60, 31) == rgba(BLACK),
                "nothing beyond the width, got %08x %08x", pixel(r, 60, 28),
                pixel(r, 60, 31));
    /* diagonal, 3 px: on the line full, 3.5 px away untouched, and the
     * edge antialiased (some pixels strictly between black and white) */
    ren_line(r, 150, 10, 240, 100, 3, WHITE);
    expect_true(pixel(r, 195, 55) == rgba(WHITE), "on the diagonal, got %08x",
                pixel(r, 195, 55));
    expect_true(pixel(r, 195, 60) == rgba(BLACK), "off the diagonal, got %08x",
                pixel(r, 195, 60));
    uint32_t buf[20 * 20];
    ren_read_pixels(r, (Rect){185, 40, 20, 20}, buf);
    int partial = 0;
    for (int i = 0; i < 400; i++)
        partial += red(buf[i]) > 0 && red(buf[i]) < 255;
    expect_true(partial >= 10, "antialiased edge pixels, got %d", partial);

    /* a polyline's join is drawn once: half-transparent colour stays even */
    ren_begin(r, BLACK);
    const float pl[6] = {20, 150, 100, 150, 100, 230};
    ren_polyline(r, pl, 3, 3, (Color){255, 255, 255, 128});
    int straight = red(pixel(r, 60, 149)), join = red(pixel(r, 99, 149));
    expect_true(straight > 100 && abs(join - straight) <= 2,
                "join %d like the straight part %d", join, straight);
    /* thin and degenerate inputs do not crash and draw little */
    ren_line(r, 5, 5, 5, 5, 1, WHITE);
    ren_line(r, NAN, 0, 10, 10, 2, WHITE);
    ren_line(r, 0, 0, 10, 10, 0, WHITE);
    ren_polyline(r, pl, 1, 2, WHITE);
    int dot = count_ink(r, (Rect){0, 0, 12, 12}, rgba(BLACK));
    expect_true(dot > 0 && dot < 10, "a zero-length line is a small dot, got %d", dot);
    ren_end(r);
}

/* The software rasterizer's ends: round caps reaching half the width past
 * each endpoint, whichever way the line runs, and coverage falling over one
 * pixel. Each case draws one line on black and looks at one pixel. */
enum { INK_NONE, INK_PART, INK_FULL };

typedef struct LineCase {
    const char *what;
    float x0, y0, x1, y1, width;
    int x, y; /* the pixel looked at */
    int ink;
} LineCase;

static const LineCase LINE_CASES[] = {
    /* 2 px along y = 10 from x = 20 to 60: rows 9 and 10, caps of radius 1 */
    {"inside the start", 20, 10, 60, 10, 2, 20, 10, INK_FULL},
    {"the start cap", 20, 10, 60, 10, 2, 19, 10, INK_PART},
    {"before the start cap", 20, 10, 60, 10, 2, 18, 10, INK_NONE},
    {"inside the end", 20, 10, 60, 10, 2, 59, 9, INK_FULL},
    {"the end cap", 20, 10, 60, 10, 2, 60, 9, INK_PART},
    {"past the end cap", 20, 10, 60, 10, 2, 61, 9, INK_NONE},
    {"above the line", 20, 10, 60, 10, 2, 40, 8, INK_NONE},
    {"below the line", 20, 10, 60, 10, 2, 40, 11, INK_NONE},
    {"reversed: inside the end", 60, 10, 20, 10, 2, 20, 10, INK_FULL},
    {"reversed: the cap", 60, 10, 20, 10, 2, 19, 10, INK_PART},
    {"reversed: past the cap", 60, 10, 20, 10, 2, 18, 10, INK_NONE},
    /* 1 px down x = 30.5 from y = 50 to 90 (the steep walk) */
    {"steep: on the line", 30.5f, 50, 30.5f, 90, 1, 30, 70, INK_FULL},
    {"steep: beside it", 30.5f, 50, 30.5f, 90, 1, 31, 70, INK_NONE},
    {"steep: the last row", 30.5f, 50, 30.5f, 90, 1, 30, 89, INK_FULL},
    {"steep: the end cap", 30.5f, 50, 30.5f, 90, 1, 30, 90, INK_PART},
    {"steep: past the end", 30.5f, 50, 30.5f, 90, 1, 30, 91, INK_NONE},
    {"steep: the start cap", 30.5f, 50, 30.5f, 90, 1, 30, 49, INK_PART},
    {"steep: before the start", 30.5f, 50, 30.5f, 90, 1, 30, 48, INK_NONE},
    /* thinner than a pixel: the same footprint, fainter */
    {"half a pixel wide", 20, 100.5f, 60, 100.5f, 0.5f, 40, 100, INK_PART},
};

static void test_line_ends(void **state)
{
    Fixture *fx = *state;
    Ren *r = fx->r;
    static const char *INK[] = {"none", "partial", "full"};
    for (size_t i = 0; i < sizeof LINE_CASES / sizeof *LINE_CASES; i++) {
        const LineCase *c = &LINE_CASES[i];
        ren_begin(r, BLACK);
        ren_line(r, c->x0, c->y0, c->x1, c->y1, c->width, WHITE);
        int v = red(pixel(r, c->x, c->y));
        int ink = v == 0 ? INK_NONE : v == 255 ? INK_FULL : INK_PART;
        expect_true(ink == c->ink, "%s: pixel %d,%d %s, got red %d", c->what, c->x, c->y,
                    INK[c->ink], v);
    }
    /* both directions cover the same pixels */
    ren_begin(r, BLACK);
    ren_line(r, 20, 10, 60, 10, 2, WHITE);
    int fwd = count_ink(r, (Rect){0, 0, W, H}, rgba(BLACK));
    ren_begin(r, BLACK);
    ren_line(r, 60, 10, 20, 10, 2, WHITE);
    int back = count_ink(r, (Rect){0, 0, W, H}, rgba(BLACK));
    expect_true(fwd == back && fwd > 80, "a line and its reverse ink %d and %d pixels", fwd, back);
    /* a half-pixel line is about half as bright as a full one */
    ren_begin(r, BLACK);
    ren_line(r, 20, 100.5f, 60, 100.5f, 0.5f, WHITE);
    int half = red(pixel(r, 40, 100));
    expect_true(half > 110 && half < 150, "0.5 px wide at about half intensity, got %d", half);
    ren_end(r);
}

static void test_triangles(void **state)
{
    Fixture *fx = *state;
    Ren *r = fx->r;
    ren_begin(r, BLACK);
    const float xy[6] = {10, 10, 110, 10, 10, 110};
    const Color col[3] = {{0, 200, 0, 255}, {0, 200, 0, 255}, {0, 200, 0, 255}};
    ren_triangles(r, xy, col, 3);
    expect_true(pixel(r, 30, 30) == 0x00C800FFu, "inside green, got %08x",
                pixel(r, 30, 30));
    expect_true(pixel(r, 100, 100) == rgba(BLACK), "outside black, got %08x",
                pixel(r, 100, 100));
    ren_end(r);
}

/* --------------------------------------------------------------- text */

static void test_text_latin_and_chinese(void **state)
{
    Fixture *fx = *state;
    Ren *r = fx->r;
    int h = ren_font_height(fx->sans);
    expect_true(h >= 16 && h <= 26, "16 px font line height, got %d", h);

    ren_begin(r, BLACK);
    int wl = ren_text(r, fx->sans, "Hello, Transformer", 10, 10, WHITE);
    int ink = count_ink(r, (Rect){10, 10, wl, h}, rgba(BLACK));
    printf("  Latin: width %d, %d ink pixels\n", wl, ink);
    expect_true(wl > 100 && wl < 200, "plausible Latin width, got %d", wl);
    expect_true(ink > 150, "Latin text inked, got %d pixels", ink);
    expect_true(wl == ren_text_width(fx->sans, "Hello, Transformer"),
                "drawn advance equals measured width");

    int wc = ren_text(r, fx->sans, "我 爱 中国", 10, 40, WHITE);
    ink = count_ink(r, (Rect){10, 40, wc, h}, rgba(BLACK));
    printf("  Chinese: width %d, %d ink pixels\n", wc, ink);
    expect_true(wc >= 4 * 14 && wc <= 4 * 16 + 2 * 12, "plausible width, got %d", wc);
    expect_true(ink > 150, "Chinese text inked (no empty boxes), got %d", ink);
    /* each ideograph has ink of its own: 4 separate inked column groups */
    int wo = ren_text_width(fx->sans, "我 ");
    expect_true(count_ink(r, (Rect){10, 40, 14, h}, rgba(BLACK)) > 30 &&
                    count_ink(r, (Rect){10 + wo, 40, 14, h}, rgba(BLACK)) > 30,
                "ink under 我 and 爱");

    /* Latin and Chinese share a baseline */
    ren_begin(r, BLACK);
    int x = 10 + ren_text(r, fx->sans, "H", 10, 100, WHITE);
    ren_text(r, fx->sans, "中", x + 4, 100, WHITE);
    int base_h = last_ink_row(r, (Rect){10, 100, x - 10, h + 4});
    int base_c = last_ink_row(r, (Rect){x + 4, 100, 18, h + 4});
    expect_true(base_h > 0 && abs(base_h - base_c) <= 2,
                "baselines H %d and 中 %d within 2 px", base_h, base_c);
    ren_end(r);
}

static void test_text_math_and_colour(void **state)
{
    Fixture *fx = *state;
    Ren *r = fx->r;
    const uint32_t need[] = {'A', 0x6211 /* 我 */, 0x221A /* √ */,
                             0x1D40 /* ᵀ */, 0xB7 /* · */, 0xFF0C /* ， */};
    RenFont *fonts[3] = {fx->sans, fx->mono, fx->cjk};
    for (int f = 0; f < 3; f++)
        for (size_t i = 0; i < sizeof need / sizeof *need; i++)
            expect_true(ren_font_has_glyph(fonts[f], need[i]),
                        "font %d has U+%04X", f, (unsigned)need[i]);
    expect_true(!ren_font_has_glyph(fx->sans, 0x10FFFD), "no glyph for U+10FFFD");

    ren_begin(r, BLACK);
    const char *formula = "softmax(QKᵀ/√d_k)·V 注意力";
    int w = ren_text(r, fx->sans, formula, 5, 5, (Color){255, 0, 0, 255});
    expect_true(w > 150 && w < 300, "formula width plausible, got %d", w);
    uint32_t buf[300 * 26];
    ren_read_pixels(r, (Rect){5, 2, w, 26}, buf);
    int reds = 0, wrong = 0;
    for (int i = 0; i < w * 26; i++) {
        int g = (buf[i] >> 16) & 255, b = (buf[i] >> 8) & 255;
        reds += red(buf[i]) > 0;
        wrong += g != 0 || b != 0;
    }
    expect_true(reds > 200 && wrong == 0, "red text only, %d red %d other", reds,
                wrong);
    /* the monospace face: every ASCII glyph the same advance */
    int wi = ren_text_width(fx->mono, "iiiiiiiiii");
    int wm = ren_text_width(fx->mono, "MMMMMMMMMM");
    expect_true(wi == wm && wi > 0, "monospace advances %d vs %d", wi, wm);
    /* control characters and malformed UTF-8 are skipped, not boxes */
    /* (each piece is measured alone: rounding may differ by a pixel) */
    int wab = ren_text_width(fx->sans, "ab"), waz = ren_text_width(fx->sans, "az");
    expect_true(abs(ren_text_width(fx->sans, "a\tb\x01") - wab) <= 1, "controls skipped");
    expect_true(abs(ren_text_width(fx->sans, "a\xff\xc0z") - waz) <= 1,
                "malformed bytes skipped");
    expect_true(ren_text(r, fx->sans, "", 0, 0, WHITE) == 0, "empty text");
    expect_true(ren_text_n(r, fx->sans, "abc", 2, 0, 0, WHITE) ==
                    ren_text_width(fx->sans, "ab"),
                "ren_text_n draws a prefix");
    ren_end(r);
}

/* ----------------------------------------------------------- wrapping */

/* Lines cover the text in order; between lines only spaces and line ends
 * are dropped. */
static void expect_cover(const char *s, const RenLine *ln, int n)
{
    int at = 0;
    for (int i = 0; i < n; i++) {
        expect_true(ln[i].start >= at, "line %d starts at %d, before %d", i,
                    ln[i].start, at);
        for (int k = at; k < ln[i].start; k++)
            expect_true(s[k] == ' ' || s[k] == '\n' || s[k] == '\r', "only spaces skipped, got '%c'",
                        s[k]);
        at = ln[i].start + ln[i].len;
    }
    for (int k = at; s[k]; k++)
        expect_true(s[k] == ' ' || s[k] == '\n' || s[k] == '\r', "text after the last line");
}

static int starts_with(const char *s, const RenLine *ln, const char *prefix)
{
    return strncmp(s + ln->start, prefix, strlen(prefix)) == 0;
}

static int ends_with(const char *s, const RenLine *ln, const char *suffix)
{
    size_t k = strlen(suffix);
    return ln->len >= (int)k &&
           strncmp(s + ln->start + ln->len - k, suffix, k) == 0;
}

static void test_wrap_english(void **state)
{
    Fixture *fx = *state;
    const char *s = "The Transformer follows this overall architecture using "
                    "stacked self-attention and point-wise, fully connected "
                    "layers for both the encoder and decoder.";
    RenLine ln[32];
    int n = ren_text_wrap(fx->sans, s, 200, ln, 32);
    expect_true(n >= 4 && n <= 32, "several lines, got %d", n);
    for (int i = 0; i < n && i < 32; i++) {
        int real = ren_text_width_n(fx->sans, s + ln[i].start, ln[i].len);
        printf("  [%3d] %.*s\n", real, ln[i].len, s + ln[i].start);
        expect_true(real <= 200 && ln[i].width == real, "line %d width %d (says %d)",
                    i, real, ln[i].width);
        expect_true(s[ln[i].start] != ' ' && s[ln[i].start + ln[i].len - 1] != ' ',
                    "line %d trimmed", i);
    }
    expect_cover(s, ln, n);
    /* lines are reasonably full: each but the last would overflow with the
     * next line's first word */
    for (int i = 0; i + 1 < n; i++) {
        int next_word = 0;
        while (next_word < ln[i + 1].len && s[ln[i + 1].start + next_word] != ' ')
            next_word++;
        int with = ren_text_width_n(fx->sans, s + ln[i].start,
                                    ln[i + 1].start + next_word - ln[i].start);
        expect_true(with > 200 || s[ln[i + 1].start - 1] == '-',
                    "line %d could have taken the next word (%d px)", i, with);
    }
    /* the count of lines needed comes back even when fewer are stored */
    expect_true(ren_text_wrap(fx->sans, s, 200, ln, 1) == n, "count without room");
    expect_true(ren_text_wrap(fx->sans, s, 200, NULL, 0) == n, "count only");
}

static void test_wrap_chinese(void **state)
{
    Fixture *fx = *state;
    const char *s = "注意力机制让模型在处理每个词时，都能关注输入序列中的其他位置。"
                    "它是模型的核心：编码器和解码器都用它！";
    const char *no_start[] = {"，", "。", "：", "！"};
    RenLine ln[64];
    for (int width = 60; width <= 200; width += 7) {
        int n = ren_text_wrap(fx->cjk, s, width, ln, 64);
        expect_true(n > 1 && n <= 64, "width %d: several lines, got %d", width, n);
        expect_cover(s, ln, n);
        for (int i = 0; i < n; i++) {
            expect_true(ln[i].width <= width, "width %d line %d is %d px", width, i,
                        ln[i].width);
            for (size_t k = 0; k < 4; k++)
                expect_true(!starts_with(s, &ln[i], no_start[k]),
                            "width %d line %d starts with %s", width, i, no_start[k]);
        }
        /* breaks fall between ideographs: lines end up nearly full */
        for (int i = 0; i + 1 < n; i++)
            expect_true(ln[i].width > width - 2 * 17, "width %d line %d only %d px",
                        width, i, ln[i].width);
    }
    int n = ren_text_wrap(fx->cjk, s, 100, ln, 64);
    for (int i = 0; i < n; i++)
        printf("  [%3d] %.*s\n", ln[i].width, ln[i].len, s + ln[i].start);
}

static void test_wrap_mixed(void **state)
{
    Fixture *fx = *state;
    const char *s = "它是 Transformer 的核心（也是本课的主题），我们用 softmax 把"
                    "分数变成权重。\n\n第二段：Supercalifragilisticexpialidocious!";
    RenLine ln[64];
    for (int width = 50; width <= 220; width += 5) {
        int n = ren_text_wrap(fx->sans, s, width, ln, 64);
        expect_true(n >= 4 && n <= 64, "width %d: got %d lines", width, n);
        expect_cover(s, ln, n);
        int empty = 0;
        for (int i = 0; i < n; i++) {
            empty += ln[i].len == 0;
            expect_true(ln[i].width <= width, "width %d line %d is %d px", width, i,
                        ln[i].width);
            expect_true(!starts_with(s, &ln[i], "）") && !starts_with(s, &ln[i], "，") &&
                            !starts_with(s, &ln[i], "。") && !starts_with(s, &ln[i], "!"),
                        "width %d line %d starts with closing punctuation", width, i);
            expect_true(!ends_with(s, &ln[i], "（"), "width %d line %d ends with （",
                        width, i);
        }
        expect_true(empty == 1, "the blank line between paragraphs, got %d", empty);
    }
    int n = ren_text_wrap(fx->sans, s, 120, ln, 64);
    for (int i = 0; i < n; i++)
        printf("  [%3d] %.*s\n", ln[i].width, ln[i].len, s + ln[i].start);
    expect_true(ren_text_wrap(fx->sans, "", 100, ln, 4) == 0, "no text, no lines");
    expect_true(ren_text_wrap(fx->sans, "one\n", 100, ln, 4) == 1, "trailing newline");
}

/* Exact breaks that hold whatever the font: '\n' and "\r\n" force a
 * break, a width of 1 px cuts every code point onto its own line, and
 * malformed bytes stay in the lines (each one character, U+FFFD) though
 * they take no width (drawing skips them). want: the lines' texts joined
 * by '|'. */
typedef struct WrapCase {
    const char *text;
    int width;
    int n;
    const char *want;
} WrapCase;

enum { WIDE = 10000 };

static const WrapCase WRAP_CASES[] = {
    {"", WIDE, 0, ""},
    {"two words", WIDE, 1, "two words"},
    {"trailing spaces   ", WIDE, 1, "trailing spaces"},
    {"a\nb", WIDE, 2, "a|b"},
    {"a\r\nb", WIDE, 2, "a|b"},
    {"one\n", WIDE, 1, "one"},
    {"\n\n", WIDE, 2, "|"},
    {"abc", 1, 3, "a|b|c"},
    {"中文字", 1, 3, "中|文|字"},
    {"ab\xff" "cd", WIDE, 1, "ab\xff" "cd"},
    {"ab\xff" "cd", 1, 5, "a|b|\xff|c|d"},
    {"\xe4\xbd", 1, 1, "\xe4\xbd"}, /* truncated: kept, but no width */
};

static void test_wrap_cases(void **state)
{
    Fixture *fx = *state;
    for (size_t i = 0; i < sizeof WRAP_CASES / sizeof *WRAP_CASES; i++) {
        const WrapCase *c = &WRAP_CASES[i];
        RenLine ln[16];
        int n = ren_text_wrap(fx->sans, c->text, c->width, ln, 16);
        char got[256] = "";
        for (int k = 0; k < n && k < 16; k++)
            snprintf(got + strlen(got), sizeof got - strlen(got), "%s%.*s", k ? "|" : "",
                     ln[k].len, c->text + ln[k].start);
        expect_true(n == c->n && strcmp(got, c->want) == 0,
                    "case %zu at %d px: %d lines \"%s\", got %d \"%s\"", i, c->width, c->n,
                    c->want, n, got);
        expect_cover(c->text, ln, n);
    }
}

/* ------------------------------------------------------------- images */

static void test_image_crisp(void **state)
{
    Fixture *fx = *state;
    Ren *r = fx->r;
    const uint32_t src[4 * 3] = {
        0xFF0000FF, 0x00FF00FF, 0x0000FFFF, 0xFFFFFFFF,
        0x123456FF, 0x654321FF, 0xABCDEFFF, 0x000000FF,
        0x808080FF, 0x10E060FF, 0xF0F000FF, 0x00FFFF80, /* last half alpha */
    };
    RenImage *im = ren_image_new(r, 4, 3);
    expect_true(im != NULL, "image made");
    ren_image_update(im, src);
    ren_begin(r, BLACK);
    ren_image_draw(r, im, (Rect){0, 0, 0, 0}, (Rect){20, 30, 16, 12});
    uint32_t got[16 * 12];
    ren_read_pixels(r, (Rect){20, 30, 16, 12}, got);
    int bad = 0;
    for (int y = 0; y < 12; y++)
        for (int x = 0; x < 16; x++) {
            uint32_t want = src[(y / 4) * 4 + x / 4];
            if (x / 4 == 3 && y / 4 == 2)
                want = 0x008080FF; /* cyan at alpha 128 over black */
            if (abs((int)(got[y * 16 + x] >> 16 & 255) - (int)(want >> 16 & 255)) > 1 ||
                red(got[y * 16 + x]) != red(want) ||
                abs((int)(got[y * 16 + x] >> 8 & 255) - (int)(want >> 8 & 255)) > 1)
                bad++;
        }
    expect_true(bad == 0, "4x blocks exact, %d pixels off", bad);
    expect_true(pixel(r, 19, 30) == rgba(BLACK) && pixel(r, 36, 30) == rgba(BLACK),
                "nothing drawn outside dst");
    /* a sub-rectangle of the image */
    ren_image_draw(r, im, (Rect){1, 1, 2, 1}, (Rect){100, 100, 20, 10});
    expect_true(pixel(r, 100, 100) == 0x654321FFu && pixel(r, 119, 109) == 0xABCDEFFFu,
                "src rect drawn, got %08x %08x", pixel(r, 100, 100), pixel(r, 119, 109));
    ren_image_free(im);
    expect_true(ren_image_new(r, 0, 5) == NULL, "empty image refused");
    expect_true(ren_image_new(r, ren_image_max_size(r) + 1, 1) == NULL,
                "oversized image refused");
    ren_end(r);
}

/* ---------------------------------------------------------------- PNG */

static void make_tmpdir(char *dir, size_t cap)
{
    snprintf(dir, cap, "%s/test_ren.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    expect_true(mkdtemp(dir) != NULL, "mkdtemp %s", dir);
}

static int dir_entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (d)
        closedir(d);
    return n;
}

static void draw_pattern(Fixture *fx, int noise)
{
    Ren *r = fx->r;
    ren_begin(r, (Color){30, 40, 50, 255});
    for (int i = 0; i < 8; i++)
        ren_rect(r, (Rect){i * 40, 0, 40, 60},
                 (Color){(uint8_t)(i * 30), (uint8_t)(255 - i * 30), 128, 255});
    ren_line(r, 0, 70, W, H, 3, (Color){250, 200, 0, 255});
    ren_text(r, fx->sans, "PNG 导出 ✓", 20, 100, WHITE);
    for (int i = 0; noise && i < 4000; i++) /* incompressible content */
        ren_rect(r, (Rect){rand() % W, rand() % H, 1, 1},
                 (Color){(uint8_t)rand(), (uint8_t)rand(), (uint8_t)rand(), 255});
}

static void test_png_roundtrip(void **state)
{
    Fixture *fx = *state;
    char dir[256], path[300];
    make_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/frame.png", dir);
    draw_pattern(fx, 0);
    TfErr err = {{0}};
    int rc = ren_save_png(fx->r, path, &err);
    expect_true(rc == 0, "saved, got %d: %s", rc, err.msg);
    expect_true(dir_entries(dir) == 1, "no temporary file left, %d entries",
                dir_entries(dir));
    SDL_Surface *img = IMG_Load(path);
    expect_true(img != NULL, "IMG_Load: %s", IMG_GetError());
    SDL_Surface *conv = SDL_ConvertSurfaceFormat(img, SDL_PIXELFORMAT_RGBA8888, 0);
    expect_true(conv && conv->w == W && conv->h == H, "%dx%d PNG", conv ? conv->w : 0,
                conv ? conv->h : 0);
    static uint32_t frame[W * H];
    ren_read_pixels(fx->r, (Rect){0, 0, W, H}, frame);
    int diff = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            uint32_t p = ((uint32_t *)((uint8_t *)conv->pixels + y * conv->pitch))[x];
            if (p != frame[y * W + x] && !diff++)
                printf("  first difference at %d,%d: PNG %08x frame %08x\n", x, y, p,
                       frame[y * W + x]);
        }
    expect_true(diff == 0, "PNG equals the frame, %d pixels differ", diff);
    struct stat st;
    stat(path, &st);
    mode_t mask = umask(0);
    umask(mask);
    expect_true((st.st_mode & 0777) == (0666 & ~mask),
                "PNG mode %o like any new file (umask %o)", st.st_mode & 0777, mask);
    SDL_FreeSurface(conv);
    SDL_FreeSurface(img);
    /* saving again replaces the file atomically and removes the temporary
     * file ("NAME.tmp-XXXXXX") an earlier save left when it was killed */
    char stale[320];
    snprintf(stale, sizeof stale, "%s.tmp-Ab12Cd", path);
    FILE *f = fopen(stale, "w");
    expect_true(f != NULL, "stale temporary %s made", stale);
    fclose(f);
    expect_true(ren_save_png(fx->r, path, &err) == 0, "overwrite: %s", err.msg);
    expect_true(dir_entries(dir) == 1, "still one file, got %d", dir_entries(dir));
    unlink(path);
    rmdir(dir);
    ren_end(fx->r);
}

/* Saving to path fails with one line naming path and containing reason,
 * and leaves dir with `left` entries (no PNG, no temporary file). */
static void expect_save_fails(Fixture *fx, const char *path, const char *reason,
                              const char *dir, int left)
{
    TfErr err = {{0}};
    int rc = ren_save_png(fx->r, path, &err);
    printf("  %s\n", err.msg);
    expect_true(rc < 0 && strstr(err.msg, "cannot save PNG") && strstr(err.msg, path) &&
                    strstr(err.msg, reason),
                "error naming %s and \"%s\", got: %s", path, reason, err.msg);
    expect_true(strchr(err.msg, '\n') == NULL, "a one-line error, got: %s", err.msg);
    expect_true(dir_entries(dir) == left, "%d entries left in %s, got %d", left, dir,
                dir_entries(dir));
}

static void test_png_errors(void **state)
{
    Fixture *fx = *state;
    char dir[256], path[300];
    draw_pattern(fx, 1);
    make_tmpdir(dir, sizeof dir);

    snprintf(path, sizeof path, "%s/no-such-folder/out.png", dir);
    expect_save_fails(fx, path, "No such file or directory", dir, 0);
    expect_save_fails(fx, "/nonexistent-stepformer-dir/sub/out.png",
                      "No such file or directory", dir, 0);
    snprintf(path, sizeof path, "%s/", dir);
    expect_save_fails(fx, path, "not a usable file path", dir, 0);

    snprintf(path, sizeof path, "%s/already-a-dir.png", dir);
    mkdir(path, 0755);
    expect_save_fails(fx, path, "not a regular file", dir, 1);
    rmdir(path);

    /* A full disk, simulated by a file size limit: the write fails, the
     * error says why, and neither the PNG nor a temporary file remains. */
    struct rlimit old, small = {4096, 0};
    getrlimit(RLIMIT_FSIZE, &old);
    small.rlim_max = old.rlim_max;
    void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);
    snprintf(path, sizeof path, "%s/full.png", dir);
    fflush(stdout);
    fflush(stderr);
    setrlimit(RLIMIT_FSIZE, &small);
    TfErr err = {{0}};
    int rc = ren_save_png(fx->r, path, &err);
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, prev);
    printf("  %s\n", err.msg);
    expect_true(rc < 0 && strstr(err.msg, path) && strstr(err.msg, "too large"),
                "write failure reported: %s", err.msg);
    expect_true(dir_entries(dir) == 0, "nothing left behind, %d entries",
                dir_entries(dir));
    rmdir(dir);
    ren_end(fx->r);
}

/* ------------------------------------------------------ cache and life */

static long rss_kb(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, resident = 0;
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
            resident = 0;
        fclose(f);
    }
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static void test_text_cache_bounded(void **state)
{
    Fixture *fx = *state;
    Ren *r = fx->r;
    int entries = 0, first_entries = 0;
    size_t bytes = 0;
    long rss_start = 0;
    char label[64];
    for (int frame = 0; frame < 1000; frame++) {
        ren_begin(r, BLACK);
        for (int i = 0; i < 10; i++) /* the same labels every frame */
            ren_text(r, fx->sans, i % 2 ? "attention" : "注意力", 5, 5 + 20 * i, WHITE);
        for (int i = 0; i < 20; i++) { /* values that change every frame */
            snprintf(label, sizeof label, "step %d value %.4f 值", frame, i * 0.37 + frame);
            ren_text(r, fx->sans, label, 120, 5 + 11 * i, WHITE);
        }
        ren_end(r);
        if (frame == 99) {
            ren_font_stats(fx->sans, &first_entries, NULL);
            rss_start = rss_kb();
        }
    }
    ren_font_stats(fx->sans, &entries, &bytes);
    long grown = rss_kb() - rss_start;
    printf("  cache: %d entries (%d after 100 frames), %zu texture bytes; RSS +%ld kB "
           "over the last 900 frames\n",
           entries, first_entries, bytes, grown);
    expect_true(entries <= REN_TEXT_ENTRIES, "cache bounded, %d entries", entries);
    expect_true(bytes <= (size_t)64 << 20, "texture bytes bounded, %zu", bytes);
#ifndef __SANITIZE_ADDRESS__ /* ASan's quarantine holds freed memory */
    expect_true(grown < 16 * 1024, "memory flat after warm-up, grew %ld kB", grown);
#endif
    /* still correct after eviction: an old label draws again */
    ren_begin(r, BLACK);
    int w = ren_text(r, fx->sans, "step 3 value 3.0000 值", 10, 10, WHITE);
    expect_true(count_ink(r, (Rect){10, 10, w, 20}, rgba(BLACK)) > 100,
                "evicted label redrawn");
    ren_end(r);
}

static void test_headless_sizes(void **state)
{
    Fixture *fx = *state;
    int w, h;
    ren_output_size(fx->r, &w, &h);
    expect_true(w == W && h == H, "output %dx%d", w, h);
    expect_true(ren_pixel_scale(fx->r) == 1.0f, "headless scale 1");
    expect_true(ren_window_handle(fx->r) == NULL, "no window headless");
    expect_true(ren_resize_headless(fx->r, 100, 50) == 0, "resized");
    ren_output_size(fx->r, &w, &h);
    expect_true(w == 100 && h == 50, "output now %dx%d", w, h);
    ren_begin(fx->r, BLACK);
    int tw = ren_text(fx->r, fx->sans, "still here", 2, 2, WHITE); /* fonts kept */
    expect_true(count_ink(fx->r, (Rect){2, 2, tw, 18}, rgba(BLACK)) > 50, "text after resize");
    expect_true(ren_read_pixels(fx->r, (Rect){90, 40, 20, 20}, (uint32_t[400]){0}) < 0,
                "reading outside the frame refused");
    expect_true(ren_resize_headless(fx->r, 0, 10) < 0, "bad size refused");
    ren_output_size(fx->r, &w, &h);
    expect_true(w == 100 && h == 50, "old frame kept, %dx%d", w, h);
    expect_true(ren_resize_headless(fx->r, W, H) == 0, "resized back");
    ren_end(fx->r);

    TfErr err = {{0}};
    expect_true(ren_open_headless(0, 100, &err) == NULL && err.msg[0],
                "0-wide frame refused: %s", err.msg);
    char path[4096];
    int index = -1;
    expect_true(ren_font_find(REN_CJK, path, sizeof path, &index, &err) == 0,
                "CJK font found: %s", err.msg);
    expect_true(access(path, R_OK) == 0 && index >= 0, "font file %s readable", path);
    printf("  CJK font: %s (face %d)\n", path, index);
}

/* A window where SDL has a video driver (run-tests.sh sets the offscreen
 * one); without any (no driver named, no display) a clear error. */
static void test_window(void **state)
{
    (void)state;
    const char *drv = getenv("SDL_VIDEODRIVER");
#ifdef __SANITIZE_ADDRESS__
    /* Keep GPU drivers (Mesa's, which leak at exit) out of ASan runs: the
     * software renderer, blitting the window surface without GL. */
    SDL_SetHint(SDL_HINT_RENDER_DRIVER, "software");
    SDL_SetHint(SDL_HINT_FRAMEBUFFER_ACCELERATION, "0");
#endif
    TfErr err = {{0}};
    Ren *r = ren_open_window("test", 200, 100, &err);
    if (!drv || !*drv) {
        printf("  no video driver: %s\n", err.msg);
        expect_true(r == NULL && strstr(err.msg, "cannot open a window"),
                    "no display gives an error, got %p: %s", (void *)r, err.msg);
        ren_close(r);
        return;
    }
    expect_true(r != NULL, "window with driver %s: %s", drv, err.msg);
    int w, h;
    ren_output_size(r, &w, &h);
    expect_true(w >= 200 && h >= 100 && ren_window_handle(r) != NULL, "window %dx%d", w, h);
    expect_true(ren_pixel_scale(r) >= 1.0f, "scale %.2f", ren_pixel_scale(r));
    expect_true(ren_resize_headless(r, 10, 10) < 0, "a window is not resized here");
    RenFont *f = ren_font_open(r, REN_SANS, 14, &err);
    expect_true(f != NULL, "font in the window: %s", err.msg);
    ren_begin(r, BLACK);
    ren_rect(r, (Rect){10, 10, 20, 20}, (Color){0, 0, 255, 255});
    ren_line(r, 40, 50, 190, 50, 2, WHITE);
    int tw = ren_text(r, f, "窗口 window", 40, 70, WHITE);
    expect_true(pixel(r, 15, 15) == 0x0000FFFFu, "window rect, got %08x", pixel(r, 15, 15));
    expect_true(red(pixel(r, 100, 49)) > 200, "window line, got %08x", pixel(r, 100, 49));
    expect_true(count_ink(r, (Rect){40, 70, tw, 16}, rgba(BLACK)) > 50, "window text");
    ren_end(r);
    ren_close(r); /* closes the font too */
}

/* With a fontconfig that knows no fonts, the error names the package. */
static void test_font_missing(void **state)
{
    (void)state;
    char dir[256], conf[300];
    make_tmpdir(dir, sizeof dir);
    snprintf(conf, sizeof conf, "%s/fonts.conf", dir);
    FILE *f = fopen(conf, "w");
    expect_true(f != NULL, "write %s", conf);
    fputs("<?xml version=\"1.0\"?>\n<fontconfig></fontconfig>\n", f);
    fclose(f);
    const char *old = getenv("FONTCONFIG_FILE");
    char saved[512] = "";
    if (old)
        snprintf(saved, sizeof saved, "%s", old);
    setenv("FONTCONFIG_FILE", conf, 1);

    TfErr err = {{0}};
    char path[512];
    int rc_cjk = ren_font_find(REN_CJK, path, sizeof path, NULL, &err);
    printf("  %s\n", err.msg);
    int named_cjk = strstr(err.msg, "fonts-wqy-microhei") != NULL;
    int rc_sans = ren_font_find(REN_SANS, path, sizeof path, NULL, &err);
    printf("  %s\n", err.msg);
    int named_sans = strstr(err.msg, "fonts-dejavu-core") != NULL;
    Ren *r = ren_open_headless(10, 10, &err);
    RenFont *font = r ? ren_font_open(r, REN_MONO, 12, &err) : NULL;
    ren_close(r);

    if (old)
        setenv("FONTCONFIG_FILE", saved, 1);
    else
        unsetenv("FONTCONFIG_FILE");
    unlink(conf);
    rmdir(dir);
    expect_true(rc_cjk < 0 && named_cjk, "missing CJK font names its package");
    expect_true(rc_sans < 0 && named_sans, "missing Latin font names its package");
    expect_true(font == NULL && strstr(err.msg, "fonts-dejavu-core"),
                "ren_font_open fails with the reason: %s", err.msg);
}

int main(void)
{
    unsetenv("DISPLAY");
    unsetenv("WAYLAND_DISPLAY");
    srand(7);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rect_exact),
        cmocka_unit_test(test_clip),
        cmocka_unit_test(test_lines),
        cmocka_unit_test(test_line_ends),
        cmocka_unit_test(test_triangles),
        cmocka_unit_test(test_text_latin_and_chinese),
        cmocka_unit_test(test_text_math_and_colour),
        cmocka_unit_test(test_wrap_english),
        cmocka_unit_test(test_wrap_chinese),
        cmocka_unit_test(test_wrap_mixed),
        cmocka_unit_test(test_wrap_cases),
        cmocka_unit_test(test_image_crisp),
        cmocka_unit_test(test_png_roundtrip),
        cmocka_unit_test(test_png_errors),
        cmocka_unit_test(test_text_cache_bounded),
        cmocka_unit_test(test_headless_sizes),
        cmocka_unit_test(test_window),
        cmocka_unit_test(test_font_missing),
    };
    return cmocka_run_group_tests_name("ren", tests, setup, teardown);
}
