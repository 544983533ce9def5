/* test_events.h - synthetic SDL events for the app tests: keys, text as
 * SDL delivers it (events of at most 31 bytes, cut at UTF-8 boundaries),
 * mouse motion, buttons and the wheel, fed through app_event(). */
#ifndef TEST_EVENTS_H
#define TEST_EVENTS_H

#include <SDL.h>
#include <string.h>

#include "app.h"

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
