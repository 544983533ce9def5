/* ren_fixture.h - what the renderer's test programs share: a headless
 * W x H frame with the three fonts, reading pixels back, counting ink, and a
 * scratch folder. */
#ifndef REN_FIXTURE_H
#define REN_FIXTURE_H

#include "ren.h"
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

#define W 320
#define H 240

static const Color BLACK = {0, 0, 0, 255};
static const Color WHITE = {255, 255, 255, 255};

typedef struct Fixture {
    Ren *r;
    RenFont *sans, *mono, *cjk;
} Fixture;

static inline int setup(void **state)
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

static inline int teardown(void **state)
{
    Fixture *fx = *state;
    ren_close(fx->r); /* also closes the fonts */
    return 0;
}

static inline uint32_t rgba(Color c)
{
    return (uint32_t)c.r << 24 | (uint32_t)c.g << 16 | (uint32_t)c.b << 8 | c.a;
}

static inline uint32_t pixel(Ren *r, int x, int y)
{
    uint32_t p = 0;
    ren_read_pixels(r, (Rect){x, y, 1, 1}, &p);
    return p;
}

static inline int red(uint32_t p) { return (int)(p >> 24); }

/* Pixels of rc that differ from bg. */
static inline int count_ink(Ren *r, Rect rc, uint32_t bg)
{
    static uint32_t buf[W * H];
    if (ren_read_pixels(r, rc, buf) < 0)
        return -1;
    int n = 0;
    for (int i = 0; i < rc.w * rc.h; i++)
        n += buf[i] != bg;
    return n;
}

static inline void make_tmpdir(char *dir, size_t cap)
{
    snprintf(dir, cap, "%s/test_ren.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    expect_true(mkdtemp(dir) != NULL, "mkdtemp %s", dir);
}

#endif
