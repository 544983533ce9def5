/* test_app_util.h - what the app tests share: a small random model saved
 * to a file, and synthetic SDL events (keys, text as SDL delivers it in
 * events of at most 31 bytes cut at UTF-8 boundaries, mouse motion,
 * buttons and the wheel) fed through app_event(). */
#ifndef TEST_APP_UTIL_H
#define TEST_APP_UTIL_H

#include <SDL.h>
#include <string.h>

#include "app.h"
#include "checkpoint.h"

/* A random classroom-shaped model (d_model 32, 4 heads, d_ff 64, 2 + 2
 * layers) with vocabularies of t4 t5 ... up to `vocab`, saved at path. */
static inline int tu_small_model(const char *path, int vocab, int max_len, uint64_t seed)
{
    TfConfig c;
    TfErr err;
    TfModel m;
    cfg_preset(&c, "classroom", &err);
    c.d_model = 32;
    c.n_heads = 4;
    c.d_ff = 64;
    c.src_vocab = c.tgt_vocab = vocab;
    c.max_len = max_len;
    if (model_init_random(&m, &c, seed, &err))
        return -1;
    int rc = ckpt_save(&m, path, &err);
    model_free(&m);
    return rc;
}

static inline void ev_key(App *a, SDL_Keycode k, Uint16 mod)
{
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = SDL_KEYDOWN;
    e.key.keysym.sym = k;
    e.key.keysym.mod = mod;
    app_event(a, &e);
}

static inline void ev_text(App *a, const char *t)
{
    size_t n = strlen(t);
    while (n > 0) {
        size_t k = n < 31 ? n : 31;
        while (k < n && k > 0 && ((unsigned char)t[k] & 0xC0) == 0x80)
            k--;
        SDL_Event e;
        memset(&e, 0, sizeof e);
        e.type = SDL_TEXTINPUT;
        memcpy(e.text.text, t, k);
        app_event(a, &e);
        t += k;
        n -= k;
    }
}

/* type: SDL_MOUSEMOTION, SDL_MOUSEBUTTONDOWN/UP (button), SDL_MOUSEWHEEL
 * (button = the wheel's clicks) */
static inline void ev_mouse(App *a, int type, int x, int y, int button)
{
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = (Uint32)type;
    if (type == SDL_MOUSEMOTION) {
        e.motion.x = x;
        e.motion.y = y;
    } else if (type == SDL_MOUSEWHEEL) {
        e.wheel.y = button;
    } else {
        e.button.x = x;
        e.button.y = y;
        e.button.button = (Uint8)button;
    }
    app_event(a, &e);
}

#endif
