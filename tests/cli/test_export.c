/* test_export.c - `stepformer shot` into SVG and PDF, checked with the
 * tools a reader would use: the SVG is well-formed (xmllint), renders
 * (rsvg-convert) and its raster is close to the PNG shot; the walk's PDF
 * has one page per stage (pdfinfo) and its text holds the tokens and labels
 * drawn (pdftotext); captions; no fonts is an error. A test whose tool is
 * missing says so and is skipped (CI installs them all: tools/deps.sh). */
#include "tool_util.h"

#include <SDL.h>
#include <SDL_image.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checkpoint.h"
#include "walk.h"

static char PROG[1024];
TU_SCRATCH_GROUP("export")

/* How often needle is in a text. */
static int count_of(const char *hay, const char *needle)
{
    return tu_count(hay, hay ? strlen(hay) : 0, needle);
}

static char *slurp(const char *path)
{
    return tu_slurp(path, NULL);
}

static int px_dist(const SDL_Surface *a, int ax, int ay, const SDL_Surface *b, int bx, int by)
{
    const uint8_t *pa = (const uint8_t *)a->pixels + (size_t)ay * a->pitch + 4 * ax;
    const uint8_t *pb = (const uint8_t *)b->pixels + (size_t)by * b->pitch + 4 * bx;
    int worst = 0;
    for (int k = 0; k < 3; k++) {
        int d = abs(pa[k] - pb[k]);
        worst = d > worst ? d : worst;
    }
    return worst;
}

/* Per-pixel difference of two pictures of the same size: the mean over
 * channels (0..255), and the share of pixels of a that no pixel of b within
 * one pixel matches to 64 (antialiased glyph edges may move by a pixel; a
 * missing or wrongly coloured shape may not). */
static int image_diff(const char *a, const char *b, double *mean, double *far, int *w, int *h)
{
    SDL_Surface *sa = IMG_Load(a), *sb = IMG_Load(b);
    SDL_Surface *ca = sa ? SDL_ConvertSurfaceFormat(sa, SDL_PIXELFORMAT_RGBA32, 0) : NULL;
    SDL_Surface *cb = sb ? SDL_ConvertSurfaceFormat(sb, SDL_PIXELFORMAT_RGBA32, 0) : NULL;
    int rc = -1;
    if (ca && cb && ca->w == cb->w && ca->h == cb->h) {
        double sum = 0;
        long nfar = 0;
        for (int y = 0; y < ca->h; y++)
            for (int x = 0; x < ca->w; x++) {
                const uint8_t *pa = (const uint8_t *)ca->pixels + (size_t)y * ca->pitch + 4 * x;
                const uint8_t *pb = (const uint8_t *)cb->pixels + (size_t)y * cb->pitch + 4 * x;
                for (int k = 0; k < 3; k++)
                    sum += abs(pa[k] - pb[k]);
                int best = 255;
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++) {
                        int bx = x + dx, by = y + dy;
                        if (bx >= 0 && by >= 0 && bx < cb->w && by < cb->h) {
                            int d = px_dist(ca, x, y, cb, bx, by);
                            best = d < best ? d : best;
                        }
                    }
                nfar += best > 64;
            }
        *mean = sum / (3.0 * ca->w * ca->h);
        *far = (double)nfar / ((double)ca->w * ca->h);
        rc = 0;
    }
    *w = ca ? ca->w : 0;
    *h = ca ? ca->h : 0;
    SDL_FreeSurface(ca);
    SDL_FreeSurface(cb);
    SDL_FreeSurface(sa);
    SDL_FreeSurface(sb);
    return rc;
}

/* The same view as PNG and SVG: the SVG is well-formed, renders, and its
 * raster at the PNG's size is close to the PNG (text antialiasing and
 * hinting differ a little; nothing else should). */
static void test_svg_renders_close_to_png(void **state)
{
    (void)state;
    TU_NEED("rsvg-convert");
    TU_NEED("xmllint");
    static const TuPair cases[] = {
        {"weights", "--stage enc.self.weights"},
        {"heads", "--stage enc.self.weights --head -1"},
        {"mask", "--stage dec.self.mask"},
        {"pe", "--stage pos.enc"},
        {"ffn", "--stage enc.ffn.hidden --layer 1"},
        {"output", "--stage out.probs"},
        {"decode", "--view decode"},
        {"beam", "--view decode --decode-pane beam --beam 3"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *n = cases[i].in, *args = cases[i].want; /* a name, the shot's options */
        expect_true(tu_sh("'%s' shot %s --out %s/%s.png >/dev/null", PROG, args, g_dir, n) == 0 &&
                        tu_sh("'%s' shot %s --out %s/%s.svg >/dev/null", PROG, args, g_dir, n) == 0,
                    "shot %s as PNG and SVG", args);
        expect_true(tu_sh("xmllint --noout %s/%s.svg", g_dir, n) == 0, "%s.svg is well-formed XML", n);
        expect_true(tu_sh("rsvg-convert %s/%s.svg -o %s/%s.svg.png", g_dir, n, g_dir, n) == 0,
                    "rsvg-convert renders %s.svg", n);
        char a[400], b[400];
        snprintf(a, sizeof a, "%s/%s.png", g_dir, n);
        snprintf(b, sizeof b, "%s/%s.svg.png", g_dir, n);
        double mean = 0, far = 0;
        int w = 0, h = 0;
        expect_true(image_diff(a, b, &mean, &far, &w, &h) == 0,
                    "%s: both pictures load and are the same size (SVG raster %dx%d)", n, w, h);
        printf("  %-8s %dx%d: mean difference %.2f / 255, %.3f%% of pixels unmatched within 1 px\n", n, w,
               h, mean, 100 * far);
        expect_true(mean < 5.0 && far < 0.003, "%s: raster of the SVG close to the PNG", n);
    }
}

/* The walk as one PDF: one page per stage, and the words on screen are
 * text in it. */
static void test_walk_pdf_pages_and_text(void **state)
{
    (void)state;
    TU_NEED("pdfinfo");
    TU_NEED("pdftotext");
    TfModel m;
    TfErr err;
    expect_true(ckpt_load(&m, "assets/models/en2zh.safetensors", &err) == 0, "bundled model: %s", err.msg);
    int n_walk = tf_walk_build(&m.cfg, NULL, 0);
    model_free(&m);
    expect_true(tu_sh("'%s' shot --walk --out %s/walk.pdf >/dev/null", PROG, g_dir) == 0, "shot --walk");
    expect_true(tu_sh("pdfinfo %s/walk.pdf > %s/walk.info", g_dir, g_dir) == 0, "pdfinfo walk.pdf");
    char path[400];
    snprintf(path, sizeof path, "%s/walk.info", g_dir);
    char *info = slurp(path);
    int pages = -1;
    const char *p = info ? strstr(info, "Pages:") : NULL;
    if (p)
        sscanf(p + 6, "%d", &pages);
    expect_true(pages == n_walk, "one page per stage of the walk: %d pages, walk %d", pages, n_walk);
    free(info);
    expect_true(tu_sh("pdftotext %s/walk.pdf %s/walk.txt", g_dir, g_dir) == 0, "pdftotext walk.pdf");
    snprintf(path, sizeof path, "%s/walk.txt", g_dir);
    char *txt = slurp(path);
    expect_true(txt != NULL, "read %s", path);
    static const char *words[] = {"love", "china", "enc.self.weights", "dec.cross.weights",
                                  "out.probs", "Attention weights", "Positional", "我", "中国"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        expect_true(strstr(txt, words[i]) != NULL, "'%s' is text in the walk's PDF", words[i]);
    expect_true(count_of(txt, "\f") >= n_walk - 1, "a page break per page");
    free(txt);
}

/* The decode view as PDF: searchable text, the caption under it. */
static void test_decode_pdf_caption(void **state)
{
    (void)state;
    TU_NEED("pdftotext");
    TU_NEED("pdfinfo");
    expect_true(tu_sh("'%s' shot --view decode --caption --out %s/dec.pdf >/dev/null", PROG, g_dir) == 0,
                "shot --view decode --caption");
    expect_true(tu_sh("'%s' shot --stage enc.self.weights --layer 1 --head 2 --caption --out %s/cap.pdf >/dev/null",
                   PROG, g_dir) == 0, "shot --stage --caption");
    expect_true(tu_sh("pdftotext %s/dec.pdf %s/dec.txt && pdftotext %s/cap.pdf %s/cap.txt", g_dir, g_dir,
                   g_dir, g_dir) == 0, "pdftotext");
    char path[400];
    snprintf(path, sizeof path, "%s/dec.txt", g_dir);
    char *dec = slurp(path);
    snprintf(path, sizeof path, "%s/cap.txt", g_dir);
    char *cap = slurp(path);
    expect_true(dec && cap, "read the texts");
    static const char *dec_words[] = {"Teacher forcing", "Generation", "<eos>", "<bos>", "中国",
                                      "view decode", "en2zh"};
    for (size_t i = 0; i < sizeof dec_words / sizeof dec_words[0]; i++)
        expect_true(strstr(dec, dec_words[i]) != NULL, "'%s' in the decode PDF", dec_words[i]);
    static const char *cap_words[] = {"stage enc.self.weights", "layer 2 of 2", "head 3 of",
                                      "i love china"};
    for (size_t i = 0; i < sizeof cap_words / sizeof cap_words[0]; i++)
        expect_true(strstr(cap, cap_words[i]) != NULL, "'%s' in the caption", cap_words[i]);
    free(dec);
    free(cap);
    /* the caption is under the figure: the page is taller than 800 px */
    expect_true(tu_sh("pdfinfo %s/cap.pdf | grep -q 'Page size: *960 x 6[1-9][0-9]'", g_dir) == 0,
                "a 960 pt wide page taller than 600 pt");
}

/* --all --format pdf: one PDF per picture, as many as PNGs. */
static void test_all_format(void **state)
{
    (void)state;
    expect_true(tu_sh("'%s' shot --all --format svg --out %s/all >/dev/null", PROG, g_dir) == 0, "--all --format svg");
    expect_true(tu_sh("test $(ls %s/all/*.svg | wc -l) -gt 90 && test -z \"$(ls %s/all | grep -v '\\.svg$')\"",
                   g_dir, g_dir) == 0, "only SVG files, more than 90");
    expect_true(tu_sh("'%s' shot --walk --out %s/walk.svg 2>/dev/null", PROG, g_dir) != 0,
                "a walk into an SVG is refused");
    expect_true(tu_sh("'%s' shot --all --format gif --out %s/x 2>/dev/null", PROG, g_dir) != 0,
                "--format gif is refused");
}

/* No fonts: a clear error naming the Debian package and no picture; before
 * the fix this wrote a blank PNG and exited 0, and the window showed one
 * colour. */
static void test_no_fonts_fails_clearly(void **state)
{
    (void)state;
    char conf[400], out[400];
    snprintf(conf, sizeof conf, "%s/empty-fonts.conf", g_dir);
    FILE *f = fopen(conf, "w");
    fputs("<?xml version=\"1.0\"?>\n<fontconfig></fontconfig>\n", f);
    fclose(f);
    /* shot into each format, then the window: the same line and exit 1
     * (the window shows a message box where a display can show one) */
    static const char *exts[] = {"png", "svg", "pdf", NULL};
    for (int i = 0; i < 4; i++) {
        int rc;
        if (exts[i]) {
            snprintf(out, sizeof out, "%s/nofont.%s", g_dir, exts[i]);
            rc = tu_sh("FONTCONFIG_FILE=%s '%s' shot --stage enc.self.weights --out %s 2>%s/nofont.err",
                       conf, PROG, out, g_dir);
            struct stat st;
            expect_true(stat(out, &st) != 0, "no picture written: %s", out);
        } else {
            /* (under the sanitizer build, SDL's video drivers, loaded and
             * unloaded by SDL itself, leak a few strings: not counted) */
            rc = tu_sh("FONTCONFIG_FILE=%s SDL_VIDEODRIVER=offscreen ASAN_OPTIONS=detect_leaks=0 "
                       "timeout 30 '%s' 2>%s/nofont.err", conf, PROG, g_dir);
        }
        expect_true(rc == 1, "no fonts: exit 1 for %s (got %d)", exts[i] ? exts[i] : "the window", rc);
        char path[400];
        snprintf(path, sizeof path, "%s/nofont.err", g_dir);
        char *e = slurp(path);
        expect_true(e && strstr(e, "fonts-dejavu-core") && count_of(e, "\n") == 1,
                    "one line naming the package, got: %s", e ? e : "(nothing)");
        free(e);
    }
}

/* shot --lesson renders a step the checker would reject, but warns with
 * every problem lessons --check finds in it, one line each (issue 28.12). */
static void test_lesson_warns_like_check(void **state)
{
    (void)state;
    char dir[400], path[500];
    snprintf(dir, sizeof dir, "%s/lw", g_dir);
    expect_true(tu_sh("mkdir -p %s/en %s/zh", dir, dir) == 0, "a lesson folder");
    static const char *BADL = "@title Bad\n@step S\n@stage enc.self.weights\n@layer 9\n@head 99\n@src i love china\n"
                              "Text.\n@step T\n@stage no.such.stage\n@predict row love\nMore.\n";
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/%s/01-bad.txt", dir, k ? "zh" : "en");
        FILE *f = fopen(path, "w");
        fputs(BADL, f);
        fclose(f);
    }
    int rc = tu_sh("'%s' shot --lessons %s --lesson bad --out %s/lw.png 2>%s/lw.err", PROG, dir, g_dir, g_dir);
    snprintf(path, sizeof path, "%s/lw.err", g_dir);
    char *e = slurp(path);
    expect_true(rc == 0 && e &&
                    strstr(e, "01-bad.txt:2: layer 9, but enc.self.weights has 2") &&
                    strstr(e, "01-bad.txt:2: head 99, but the model has 8 heads") &&
                    strstr(e, "01-bad.txt:8: unknown stage 'no.such.stage'") && strstr(e, "@predict row needs"),
                "the picture, and a warning for each problem: rc %d\n%s", rc, e ? e : "(nothing)");
    free(e);
}

int main(int argc, char **argv)
{
    TU_RUN_CLI(PROG, argc, argv, setup, teardown, cmocka_unit_test(test_svg_renders_close_to_png),
               cmocka_unit_test(test_walk_pdf_pages_and_text), cmocka_unit_test(test_decode_pdf_caption),
               cmocka_unit_test(test_all_format), cmocka_unit_test(test_no_fonts_fails_clearly),
               cmocka_unit_test(test_lesson_warns_like_check));
}
