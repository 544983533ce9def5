/* test_ren_text.c - the renderer's text, headless: Latin, Chinese and math
 * drawn and measured, the wrapping rules (and exact cases), a text cache
 * that stays bounded, and the error when no font is installed.
 *
 * Needs no display: main() drops DISPLAY and WAYLAND_DISPLAY before any
 * test, so the software renderer has to do everything. */
#include "ren_fixture.h"

#include <unistd.h>

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

/* A Chinese sentence with Latin words, numbers and formulas at many widths
 * (UAX #14): a line never starts with closing punctuation nor ends with
 * opening punctuation, and a word or number narrower than the line is never
 * cut (the old breaker cut "1-9" after its hyphen). */
static void test_wrap_chinese_latin_numbers(void **state)
{
    Fixture *fx = *state;
    const char *s = "每一层的头可以按键 1-9 逐个查看（共 8 个），Transformer 的 d_model = 512，"
                    "dropout 为 0.1，在 8 块 P100 上训练 3.5 天。「教师强制」让每个位置都读入真实前文。";
    const char *whole[] = {"1-9", "Transformer", "d_model", "512", "0.1", "P100", "3.5", "dropout"};
    const char *no_start[] = {"，", "。", "）", "」"};
    const char *no_end[] = {"（", "「"};
    RenLine ln[96];
    int checked = 0;
    for (int width = 60; width <= 400; width++) {
        int n = ren_text_wrap(fx->cjk, s, width, ln, 96);
        expect_true(n >= 1 && n <= 96, "width %d: %d lines", width, n);
        expect_cover(s, ln, n);
        for (int i = 0; i < n; i++) {
            expect_true(ln[i].width <= width, "width %d line %d is %d px", width, i, ln[i].width);
            for (size_t k = 0; k < 4; k++)
                expect_true(!starts_with(s, &ln[i], no_start[k]), "width %d line %d starts with %s",
                            width, i, no_start[k]);
            for (size_t k = 0; k < 2; k++)
                expect_true(!ends_with(s, &ln[i], no_end[k]), "width %d line %d ends with %s", width,
                            i, no_end[k]);
        }
        for (size_t k = 0; k < sizeof whole / sizeof *whole; k++) {
            const char *at = strstr(s, whole[k]);
            int a = (int)(at - s), b = a + (int)strlen(whole[k]);
            if (ren_text_width(fx->cjk, whole[k]) > width)
                continue;
            for (int i = 0; i < n; i++) {
                int ls = ln[i].start, le = ln[i].start + ln[i].len;
                expect_true(!(ls > a && ls < b) && !(le > a && le < b),
                            "width %d: \"%s\" cut by line %d \"%.*s\"", width, whole[k], i,
                            ln[i].len, s + ls);
            }
            checked++;
        }
    }
    expect_true(checked > 2000, "words checked: %d", checked);
    int n = ren_text_wrap(fx->cjk, s, 130, ln, 96);
    for (int i = 0; i < n; i++)
        printf("  [%3d] %.*s\n", ln[i].width, ln[i].len, s + ln[i].start);
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

/* --------------------------------------------------------- text cache */

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

/* A line's texture holds its inked pixels only (every pixel of it is
 * blended each time it is drawn; the line box is mostly empty above and
 * below lowercase letters): "we are" keeps under 0.7 of its box, a blank
 * line a single pixel, and the letters still land where they did (their
 * ink starts at the left edge, within the line's height). */
static void test_text_texture_inked_only(void **state)
{
    Fixture *fx = *state;
    Ren *r = fx->r;
    TfErr err;
    RenFont *f = ren_font_open(r, REN_SANS, 16, &err); /* an empty cache */
    expect_true(f != NULL, "font: %s", err.msg);
    size_t b0, b1, b2;
    int h = ren_font_height(f);
    ren_begin(r, BLACK);
    ren_font_stats(f, NULL, &b0);
    int w = ren_text(r, f, "we are", 10, 40, WHITE);
    ren_font_stats(f, NULL, &b1);
    ren_text(r, f, "     ", 10, 100, WHITE);
    ren_font_stats(f, NULL, &b2);
    size_t box = (size_t)w * (size_t)h * 4;
    printf("  \"we are\": %zu texture bytes for a %d x %d box; spaces: %zu\n", b1 - b0, w, h, b2 - b1);
    expect_true(b1 - b0 > 0 && b1 - b0 < box * 7 / 10, "the texture keeps the inked pixels: %zu bytes of %zu",
                b1 - b0, box);
    expect_true(b2 - b1 == 4, "a blank line keeps one pixel: %zu bytes", b2 - b1);
    expect_true(count_ink(r, (Rect){10, 40, 3, h}, rgba(BLACK)) > 0, "the letters start at x");
    expect_true(count_ink(r, (Rect){0, 40 - h, W, h}, rgba(BLACK)) == 0 &&
                    count_ink(r, (Rect){0, 40 + h, W, h}, rgba(BLACK)) == 0,
                "the letters stay within their line");
    expect_true(count_ink(r, (Rect){0, 100, W, h}, rgba(BLACK)) == 0, "a blank line draws nothing");
    ren_end(r);
    ren_font_close(f);
}

/* Turned text (ren_text_up): a line reading upwards fills the box it is
 * given, font-height wide and as tall as the line is wide, with its first
 * letter at the bottom; nothing is drawn outside the box. */
static void test_text_turned_up(void **state)
{
    Fixture *fx = *state;
    Ren *r = fx->r;
    int h = ren_font_height(fx->sans);
    ren_begin(r, BLACK);
    int w = ren_text_up(r, fx->sans, "books today", 40, 200, WHITE);
    int ink_box = count_ink(r, (Rect){40, 200 - w, h, w}, rgba(BLACK));
    int ink_all = count_ink(r, (Rect){0, 0, W, H}, rgba(BLACK));
    /* the first letter ("b") at the bottom, the last ("y") at the top */
    int ink_bottom = count_ink(r, (Rect){40, 200 - w / 4, h, w / 4}, rgba(BLACK));
    int ink_top = count_ink(r, (Rect){40, 200 - w, h, w / 4}, rgba(BLACK));
    ren_end(r);
    printf("  turned \"books today\": %d px tall, %d ink pixels in its box, %d in all\n", w, ink_box, ink_all);
    expect_true(w == ren_text_width(fx->sans, "books today"), "the box is as tall as the text is wide: %d", w);
    expect_true(ink_box > 150 && ink_box == ink_all, "every ink pixel inside the box: %d of %d", ink_box, ink_all);
    expect_true(ink_bottom > 20 && ink_top > 20, "letters at both ends of the box: %d below, %d above", ink_bottom,
                ink_top);
}

/* The wrapped-text cache: asked again, a text at a width is answered from
 * it, with the lines a font that never wrapped it gives (also for texts
 * of more lines than an entry keeps, for fewer lines asked for, and after
 * eviction by more texts than it holds). */
static int same_wrap(RenFont *a, RenFont *b, const char *s, int width, int max)
{
    RenLine la[256], lb[256];
    memset(la, 0, sizeof la);
    memset(lb, 0, sizeof lb);
    int na = ren_text_wrap(a, s, width, max ? la : NULL, max);
    int nb = ren_text_wrap(b, s, width, max ? lb : NULL, max);
    int k = na < max ? na : max;
    return na == nb && memcmp(la, lb, (size_t)k * sizeof la[0]) == 0;
}

static void test_wrap_cache(void **state)
{
    Fixture *fx = *state;
    TfErr err;
    static const char *WORDS[] = {"attention", "注意力", "softmax(QKᵀ/√d_k)·V", "the", "key", "值",
                                  "d_model", "0.25", "（查询）", "layer-norm"};
    char text[2048];
    long long hits0, hits1;
    ren_text_wrap(fx->sans, "attention 注意力 the key d_model", 90, NULL, 0);
    ren_wrap_stats(fx->sans, NULL, &hits0);
    int bad = 0, cases = 0;
    for (int t = 0; t < 3 * REN_WRAP_ENTRIES; t++) {
        int n = 0;
        for (int k = 0; k < 4 + t * 3 && n < (int)sizeof text - 64; k++)
            n += snprintf(text + n, sizeof text - (size_t)n, "%s%s", WORDS[(t + k * 7) % 10],
                          k % 11 == 10 ? "\n" : " ");
        int width = 40 + (t * 37) % 300;
        RenFont *fresh = ren_font_open(fx->r, REN_SANS, 16, &err);
        expect_true(fresh != NULL, "a second font: %s", err.msg);
        ren_text_wrap(fx->sans, text, width, NULL, 0); /* now kept */
        static const int MAX[] = {0, 1, 3, 64, 200};
        for (int m = 0; m < 5; m++, cases++) {
            RenFont *g = ren_font_open(fx->r, REN_SANS, 16, &err); /* never wrapped it */
            bad += !same_wrap(fx->sans, g, text, width, MAX[m]);
            ren_font_close(g);
        }
        bad += !same_wrap(fx->sans, fresh, text, width, 256);
        ren_font_close(fresh);
        if (t >= REN_WRAP_ENTRIES) { /* a text evicted since: wrapped again, alike */
            RenFont *g = ren_font_open(fx->r, REN_SANS, 16, &err);
            bad += !same_wrap(fx->sans, g, "attention 注意力 the key d_model", 90, 8);
            ren_font_close(g);
        }
    }
    int entries;
    ren_wrap_stats(fx->sans, &entries, &hits1);
    printf("  %d cases, %lld answered from the cache, %d texts kept\n", cases, hits1 - hits0, entries);
    expect_true(bad == 0, "%d of %d wraps differ from a font's first wrap of the text", bad, cases);
    expect_true(entries == REN_WRAP_ENTRIES, "the cache is bounded: %d texts kept", entries);
    expect_true(hits1 - hits0 >= cases / 2, "asked again, a wrap comes from the cache: %lld of %d",
                hits1 - hits0, cases);
}

/* -------------------------------------------------------------- fonts */

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
    TU_RUN_HEADLESS(setup, teardown,
                    cmocka_unit_test(test_text_latin_and_chinese),
                    cmocka_unit_test(test_text_math_and_colour),
                    cmocka_unit_test(test_wrap_english),
                    cmocka_unit_test(test_wrap_chinese),
                    cmocka_unit_test(test_wrap_mixed),
                    cmocka_unit_test(test_wrap_cases),
                    cmocka_unit_test(test_wrap_chinese_latin_numbers),
                    cmocka_unit_test(test_wrap_cache),
                    cmocka_unit_test(test_text_texture_inked_only),
                    cmocka_unit_test(test_text_turned_up),
                    cmocka_unit_test(test_text_cache_bounded),
                    cmocka_unit_test(test_font_missing));
}
