/* test_ren.c - the renderer layer, headless, apart from text (that is
 * test_ren_text.c): shapes and clipping read back pixel by pixel, the line
 * rasterizer's ends, images scaled crisply, PNG export (and its failures),
 * frame sizes and a window where there is a video driver.
 *
 * Needs no display: main() drops DISPLAY and WAYLAND_DISPLAY before any
 * test, so the software renderer has to do everything. */
#include "ren_fixture.h"
#include "ui.h"

#include <SDL.h>
#include <SDL_image.h>
#include <dirent.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* An image that turns opaque, transparent and opaque again (its texture
 * changes format with it) draws its pixels each time, exactly when
 * opaque, blended over the frame when not. */
static void test_image_opacity_changes(void **state)
{
    Fixture *fx = *state;
    Ren *r = fx->r;
    uint32_t opaque[6] = {0x102030FF, 0xF0E0D0FF, 0x00FF00FF, 0x123456FF, 0xFFFFFFFF, 0x000000FF};
    uint32_t clear[6] = {0xFF000080, 0xFF000080, 0xFF000080, 0xFF000080, 0xFF000080, 0x00000000};
    RenImage *im = ren_image_new(r, 3, 2);
    expect_true(im != NULL, "image made");
    int bad = 0;
    for (int round = 0; round < 3; round++) {
        ren_image_update(im, round == 1 ? clear : opaque);
        ren_begin(r, BLACK);
        ren_image_draw(r, im, (Rect){0, 0, 0, 0}, (Rect){10, 10, 30, 20});
        for (int i = 0; i < 6; i++) {
            uint32_t got = pixel(r, 10 + (i % 3) * 10 + 5, 10 + (i / 3) * 10 + 5);
            int ok = round == 1 ? (i == 5 ? got == rgba(BLACK) : abs((int)red(got) - 128) <= 1 && (got & 0xFFFF00) == 0)
                                : got == opaque[i];
            if (!ok && bad++ < 3)
                printf("  round %d, pixel %d: got %08x\n", round, i, got);
        }
        ren_end(r);
    }
    expect_true(bad == 0, "every pixel right after each change: %d off", bad);
    ren_image_free(im);
}

/* ---------------------------------------------------------------- PNG */

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

/* ----------------------------------------------------- frames, window */

/* The frame's pixels of rc (rc.w * rc.h words, malloc'd). */
static uint32_t *grab(Ren *r, Rect rc)
{
    uint32_t *px = malloc((size_t)rc.w * rc.h * sizeof *px);
    expect_true(px && ren_read_pixels(r, rc, px) == 0, "read %dx%d pixels", rc.w, rc.h);
    return px;
}

static int differing(const uint32_t *a, const uint32_t *b, size_t n, int tol)
{
    int bad = 0;
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 32; k += 8) {
            int d = (int)(a[i] >> k & 0xff) - (int)(b[i] >> k & 0xff);
            bad += d > tol || d < -tol;
        }
    return bad;
}

/* Something of every kind, in frame coordinates, partly clipped. */
static void layer_scene(Fixture *fx)
{
    Ren *r = fx->r;
    ren_clip_push(r, (Rect){40, 30, 200, 150});
    ren_rect(r, (Rect){30, 40, 120, 60}, (Color){200, 40, 40, 255});
    ren_rect(r, (Rect){60, 60, 100, 100}, (Color){40, 200, 40, 120});
    const float xy[] = {35, 170, 90, 35, 150, 160, 235, 50};
    ren_polyline(r, xy, 4, 1.5f, WHITE);
    ren_text(r, fx->sans, "layer 层", 70, 120, (Color){250, 250, 120, 255});
    ren_clip_pop(r);
}

/* Drawing into a layer, then copying it, gives the frame's own pixels:
 * coordinates and clips are the frame's; the frame outside is untouched
 * and the clip stack works on afterwards. */
static void test_layer(void **state)
{
    Fixture *fx = *state;
    Ren *r = fx->r;
    Color bg = {20, 30, 50, 255};
    Rect at = {20, 20, 240, 180};
    ren_begin(r, bg);
    layer_scene(fx);
    uint32_t *direct = grab(r, at);
    ren_begin(r, bg);
    RenImage *lay = ren_layer_new(r, at.w, at.h);
    expect_true(lay != NULL, "a software renderer makes layers");
    ren_clip_push(r, (Rect){0, 0, 100, 100}); /* a clip already pushed */
    expect_true(ren_layer_begin(r, lay, at, bg) == 0, "layer begins");
    ren_clip_pop(r);
    layer_scene(fx);
    ren_layer_end(r);
    expect_true(pixel(r, 100, 100) == rgba(bg), "the frame untouched until the copy, got %08x",
                pixel(r, 100, 100));
    ren_image_draw(r, lay, (Rect){0, 0, 0, 0}, at);
    uint32_t *copied = grab(r, at);
    int bad = differing(direct, copied, (size_t)at.w * at.h, 0);
    expect_true(bad == 0, "layer copy equals drawing in place, %d channels differ", bad);
    ren_clip_push(r, (Rect){0, 0, 10, 10});
    ren_rect(r, (Rect){0, 0, 50, 50}, WHITE);
    ren_clip_pop(r);
    expect_true(pixel(r, 5, 5) == rgba(WHITE) && pixel(r, 12, 12) == rgba(bg),
                "clip after the layer, got %08x %08x", pixel(r, 5, 5), pixel(r, 12, 12));
    ren_image_update(lay, direct); /* nothing for a layer */
    ren_image_free(lay);
    free(direct);
    free(copied);
}

/* gfx_hatch's cached texture looks like the lines it stands for. */
static void test_hatch_cached(void **state)
{
    Fixture *fx = *state;
    Ren *r = fx->r;
    Gfx *g = calloc(1, sizeof *g);
    TfErr err;
    expect_true(g && gfx_init(g, r, &err) == 0, "gfx: %s", err.msg);
    Color bg = {40, 40, 48, 255}, ink = {200, 200, 210, 255};
    for (int dir = -1; dir <= 1; dir += 2) {
        Rect rc = {13, 17, 57, 43};
        ren_begin(r, bg);
        gfx_hatch_lines(r, rc, dir, 6, ink);
        uint32_t *lines = grab(r, rc);
        for (int twice = 0; twice < 2; twice++) { /* painted, then from the cache */
            ren_begin(r, bg);
            gfx_hatch(g, r, rc, dir, 6, ink);
            uint32_t *img = grab(r, rc);
            int bad = differing(lines, img, (size_t)rc.w * rc.h, 2);
            expect_true(bad == 0, "hatching %d, pass %d: %d channels differ by more than 2", dir, twice, bad);
            free(img);
        }
        free(lines);
    }
    gfx_free(g);
    free(g);
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

/* The first window fits the display: a 1280 x 800 window on an 800 x 600
 * screen (570 usable under a panel) opens at 800 x 570, on a big one as
 * asked, and as asked when the display's size is unknown. */
static void test_fit_window(void **state)
{
    (void)state;
    struct { int room_w, room_h, w, h; } cases[] = {
        {800, 570, 800, 570}, {1920, 1050, 1280, 800}, {1024, 900, 1024, 800}, {0, 0, 1280, 800}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int w = 1280, h = 800;
        ren_fit_window(&w, &h, cases[i].room_w, cases[i].room_h);
        expect_true(w == cases[i].w && h == cases[i].h, "1280x800 on a %dx%d display: %dx%d, want %dx%d",
                    cases[i].room_w, cases[i].room_h, w, h, cases[i].w, cases[i].h);
    }
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

int main(void)
{
    srand(7);
    TU_RUN_HEADLESS(setup, teardown,
                    cmocka_unit_test(test_rect_exact),
                    cmocka_unit_test(test_clip),
                    cmocka_unit_test(test_lines),
                    cmocka_unit_test(test_line_ends),
                    cmocka_unit_test(test_triangles),
                    cmocka_unit_test(test_image_crisp),
                    cmocka_unit_test(test_image_opacity_changes),
                    cmocka_unit_test(test_png_roundtrip),
                    cmocka_unit_test(test_png_errors),
                    cmocka_unit_test(test_layer),
                    cmocka_unit_test(test_hatch_cached),
                    cmocka_unit_test(test_headless_sizes),
                    cmocka_unit_test(test_fit_window),
                    cmocka_unit_test(test_window));
}
