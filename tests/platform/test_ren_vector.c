/* test_ren_vector.c - the renderer's cairo backend (ren_cairo.c) and the
 * font checks at start-up, in-process and without external tools: formats
 * by extension, one PDF page per frame, heatmap cells as rectangles, text
 * as text, atomic files, and what happens without fonts. */
#include "ren_fixture.h"
#include "tool_util.h"

#include <sys/stat.h>
#include <unistd.h>

static void test_format_by_extension(void **state)
{
    (void)state;
    static const struct {
        const char *path;
        RenVecFormat want;
    } cases[] = {
        {"a.svg", REN_VEC_SVG}, {"dir/b.SVG", REN_VEC_SVG}, {"c.pdf", REN_VEC_PDF},
        {"d.Pdf", REN_VEC_PDF}, {"e.png", REN_VEC_NONE},    {"svg", REN_VEC_NONE},
        {"x.svg/y", REN_VEC_NONE}, {"", REN_VEC_NONE},      {"f.svgz", REN_VEC_NONE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        RenVecFormat got = ren_vector_format(cases[i].path);
        expect_true(got == cases[i].want, "'%s' -> %d, want %d", cases[i].path,
                    (int)got, (int)cases[i].want);
    }
    expect_true(ren_vector_format(NULL) == REN_VEC_NONE, "NULL path");
}

/* A document begun at dir/name in a scratch folder dir (both must work);
 * path gets its path (dir holds 256 bytes, path 300). */
static void vec_begin(Fixture *fx, char *dir, char *path, const char *name, RenVecFormat fmt, int extra_h)
{
    tu_scratch_file(dir, 256, "vec", path, 300, name);
    TfErr err = {{0}};
    expect_true(ren_vector_begin(fx->r, path, fmt, extra_h, &err) == 0, "begin %s: %s", path, err.msg);
}

/* The document ended (which must work). */
static void vec_end(Fixture *fx)
{
    TfErr err = {{0}};
    expect_true(ren_vector_end(fx->r, &err) == 0, "end: %s", err.msg);
}

/* Three frames into one PDF: three pages, and the raster frame works again
 * afterwards. */
static void test_pdf_page_per_frame(void **state)
{
    Fixture *fx = *state;
    char dir[256], path[300];
    vec_begin(fx, dir, path, "three.pdf", REN_VEC_PDF, 0);
    expect_true(ren_is_vector(fx->r), "vector mode on");
    for (int i = 0; i < 3; i++) {
        ren_begin(fx->r, WHITE);
        ren_rect(fx->r, (Rect){10 * i, 10, 20, 20}, BLACK);
        ren_text(fx->r, fx->sans, "page marker", 10, 50, BLACK);
        ren_end(fx->r);
    }
    expect_true(ren_vector_pages(fx->r) == 3, "3 pages begun, got %d", ren_vector_pages(fx->r));
    vec_end(fx);
    expect_true(!ren_is_vector(fx->r), "vector mode off");
    size_t len = 0;
    char *pdf = tu_slurp(path, &len);
    expect_true(pdf && len > 100 && memcmp(pdf, "%PDF", 4) == 0, "a PDF file at %s", path);
    int pages = tu_count(pdf, len, "/Type /Page\n") + tu_count(pdf, len, "/Type /Page ");
    expect_true(pages == 3, "3 page objects, got %d", pages);
    free(pdf);
    /* back to raster */
    ren_begin(fx->r, WHITE);
    ren_rect(fx->r, (Rect){0, 0, 4, 4}, BLACK);
    expect_true(pixel(fx->r, 1, 1) == rgba(BLACK), "raster drawing after the document");
    ren_end(fx->r);
    tu_scratch_remove(dir);
}

/* One frame holding im drawn into dst, as SVG at path; its text. */
static char *image_svg(Fixture *fx, const char *path, RenImage *im, Rect dst, size_t *len)
{
    expect_true(ren_vector_begin(fx->r, path, REN_VEC_SVG, 0, &(TfErr){{0}}) == 0, "begin %s", path);
    ren_begin(fx->r, WHITE);
    ren_image_draw(fx->r, im, (Rect){0, 0, 0, 0}, dst);
    ren_end(fx->r);
    vec_end(fx);
    return tu_slurp(path, len);
}

/* A 3 x 2 image drawn scaled (a heatmap) becomes rectangles, one per cell
 * (no embedded bitmap); drawn 1:1 it is embedded as a picture. */
static void test_svg_cells_are_rectangles(void **state)
{
    Fixture *fx = *state;
    char dir[256], path[300];
    tu_scratch_file(dir, sizeof dir, "vec", path, sizeof path, "cells.svg");
    const uint32_t px[6] = {0xFF0000FF, 0x00FF00FF, 0x0000FFFF,
                            0x112233FF, 0x445566FF, 0x778899FF};
    RenImage *im = ren_image_new(fx->r, 3, 2);
    ren_image_update(im, px);
    size_t len = 0;
    char *svg = image_svg(fx, path, im, (Rect){10, 10, 90, 40}, &len);
    expect_true(svg != NULL, "read %s", path);
    expect_true(tu_count(svg, len, "<image") == 0, "no embedded bitmap for a scaled image");
    static const char *colors[] = {"rgb(100%,0%,0%)", "rgb(0%,100%,0%)", "rgb(0%,0%,100%)"};
    for (int i = 0; i < 3; i++)
        expect_true(tu_count(svg, len, colors[i]) == 1, "one rectangle of %s, got %d",
                    colors[i], tu_count(svg, len, colors[i]));
    free(svg);
    svg = image_svg(fx, path, im, (Rect){10, 10, 3, 2}, &len);
    expect_true(svg && tu_count(svg, len, "<image") == 1, "a 1:1 image is embedded once");
    free(svg);
    ren_image_free(im);
    tu_scratch_remove(dir);
}

/* Text in a PDF stays text: the font is embedded with a Unicode map. */
static void test_pdf_embeds_fonts(void **state)
{
    Fixture *fx = *state;
    char dir[256], path[300];
    vec_begin(fx, dir, path, "text.pdf", REN_VEC_PDF, 40);
    ren_begin(fx->r, WHITE);
    ren_text(fx->r, fx->sans, "attention 注意力", 10, 10, BLACK);
    ren_text(fx->r, fx->mono, "QK^T", 10, H + 10, BLACK); /* in the band below */
    ren_end(fx->r);
    vec_end(fx);
    size_t len = 0;
    char *pdf = tu_slurp(path, &len);
    expect_true(pdf != NULL, "read %s", path);
    expect_true(tu_count(pdf, len, "/FontFile") >= 2, "embedded fonts (Latin and Chinese), got %d",
                tu_count(pdf, len, "/FontFile"));
    expect_true(tu_count(pdf, len, "/ToUnicode") >= 2, "a Unicode map per font, got %d",
                tu_count(pdf, len, "/ToUnicode"));
    /* 320 x 240 px + 40 px of band = 240 x 210 pt */
    expect_true(tu_count(pdf, len, "/MediaBox [ 0 0 240 210 ]") == 1, "page size 240 x 210 pt");
    free(pdf);
    tu_scratch_remove(dir);
}

/* Failing to create the file names the path; nothing is left behind. */
static void test_unwritable_path(void **state)
{
    Fixture *fx = *state;
    TfErr err = {{0}};
    const char *path = "/nonexistent-folder-stepformer/x.pdf";
    expect_true(ren_vector_begin(fx->r, path, REN_VEC_PDF, 0, &err) < 0, "begin fails");
    expect_true(strstr(err.msg, path) != NULL, "message names the path: %s", err.msg);
    expect_true(!ren_is_vector(fx->r), "still raster");
    char dir[256], p2[300];
    vec_begin(fx, dir, p2, "aborted.svg", REN_VEC_SVG, 0);
    ren_begin(fx->r, WHITE);
    ren_vector_abort(fx->r);
    struct stat st;
    expect_true(stat(p2, &st) != 0, "no file after abort");
    char cmd[400];
    snprintf(cmd, sizeof cmd, "test -z \"$(ls -A '%s')\"", dir);
    expect_true(system(cmd) == 0, "no temporary left in %s", dir);
    tu_scratch_remove(dir);
}

/* --- fonts at start-up: through fontconfig, or one clear error ----------- */

static void write_conf(const char *path, const char *dirs)
{
    FILE *f = fopen(path, "w");
    fprintf(f, "<?xml version=\"1.0\"?>\n<!DOCTYPE fontconfig SYSTEM \"fonts.dtd\">\n"
               "<fontconfig>%s</fontconfig>\n", dirs);
    fclose(f);
}

/* Point fontconfig at conf ("" unsets it), keeping the old value in saved. */
static void fonts_use(const char *conf, char *saved, size_t cap)
{
    const char *old = getenv("FONTCONFIG_FILE");
    if (saved)
        snprintf(saved, cap, "%s", old ? old : "");
    if (conf[0])
        setenv("FONTCONFIG_FILE", conf, 1);
    else
        unsetenv("FONTCONFIG_FILE");
}

/* A headless w x h renderer (which must open) under a fontconfig file conf
 * holding dirs; saved (512 bytes) keeps the old setting for fonts_use. */
static Ren *open_with_conf(const char *conf, const char *dirs, char *saved, int w, int h)
{
    write_conf(conf, dirs);
    fonts_use(conf, saved, 512);
    TfErr err = {{0}};
    Ren *r = ren_open_headless(w, h, &err);
    expect_true(r != NULL, "headless: %s", err.msg);
    return r;
}

/* With no fonts at all the check fails with the message naming the Debian
 * package; before the fix a headless frame drew nothing and said nothing. */
static void test_no_fonts_is_an_error(void **state)
{
    (void)state;
    char dir[256], conf[300];
    tu_scratch_file(dir, sizeof dir, "fonts", conf, sizeof conf, "empty.conf");
    char saved[512];
    Ren *r = open_with_conf(conf, "", saved, 64, 64);
    TfErr err = {{0}};
    char warn[600];
    expect_true(ren_fonts_check(r, warn, sizeof warn, &err) < 0, "no fonts is an error");
    expect_true(strstr(err.msg, "fonts-dejavu-core") != NULL, "names the package: %s", err.msg);
    expect_true(ren_font_open(r, REN_SANS, 16, &err) == NULL, "no sans font opens");
    ren_close(r);
    fonts_use(saved, NULL, 0);
    tu_scratch_remove(dir);
}

/* Without a Chinese font, Latin text still draws (every face opens, CJK
 * among them, from the Latin font) and one warning names the package. */
static void test_no_cjk_font_draws_latin(void **state)
{
    (void)state;
    const char *dejavu = "/usr/share/fonts/truetype/dejavu";
    struct stat st;
    if (stat(dejavu, &st) != 0) {
        printf("  skipped: %s is missing (fonts-dejavu-core)\n", dejavu);
        skip();
    }
    char dir[256], conf[300], body[700];
    tu_scratch_file(dir, sizeof dir, "fonts", conf, sizeof conf, "latin.conf");
    snprintf(body, sizeof body, "<dir>%s</dir><cachedir>%s/cache</cachedir>", dejavu, dir);
    char saved[512];
    Ren *r = open_with_conf(conf, body, saved, 200, 40);
    TfErr err = {{0}};
    char warn[600];
    expect_true(ren_fonts_check(r, warn, sizeof warn, &err) == 0, "Latin fonts suffice: %s", err.msg);
    expect_true(strstr(warn, "fonts-wqy-microhei") != NULL, "warning names the package: '%s'", warn);
    expect_true(ren_fonts_check(r, warn, sizeof warn, &err) == 0 && warn[0] == 0,
                "said once, got '%s' the second time", warn);
    RenFont *f[3];
    for (int i = 0; i < 3; i++) {
        f[i] = ren_font_open(r, (RenFace)i, 16, &err);
        expect_true(f[i] != NULL, "face %d opens without a Chinese font: %s", i, err.msg);
    }
    ren_begin(r, WHITE);
    ren_text(r, f[REN_CJK], "Latin", 4, 4, BLACK);
    int ink = count_ink(r, (Rect){0, 0, 200, 40}, rgba(WHITE));
    expect_true(ink > 50, "Latin text drawn, %d pixels of ink", ink);
    ren_end(r);
    ren_close(r);
    fonts_use(saved, NULL, 0);
    tu_scratch_remove(dir);
}

int main(void)
{
    TU_RUN(setup, teardown,
           cmocka_unit_test(test_format_by_extension),
           cmocka_unit_test(test_pdf_page_per_frame),
           cmocka_unit_test(test_svg_cells_are_rectangles),
           cmocka_unit_test(test_pdf_embeds_fonts),
           cmocka_unit_test(test_unwritable_path),
           cmocka_unit_test(test_no_fonts_is_an_error),
           cmocka_unit_test(test_no_cjk_font_draws_latin));
}
