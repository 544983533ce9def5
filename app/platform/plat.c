/* plat.c - the SDL side of the window's event loop (plat.h): the
 * clipboard, window settings, and waiting for events without using
 * CPU while idle (SDL_WaitEventTimeout). */
#include <SDL.h>
#include <stdlib.h>
#include <string.h>

#include "plat.h"

char *plat_clipboard_text(void)
{
    if (!SDL_HasClipboardText())
        return NULL;
    char *t = SDL_GetClipboardText();
    char *copy = t ? strdup(t) : NULL;
    SDL_free(t);
    return copy;
}

void plat_clipboard_set(const char *text)
{
    SDL_SetClipboardText(text);
}

void plat_window_setup(Ren *r)
{
    SDL_Window *w = ren_window_handle(r);
    if (w)
        SDL_SetWindowMinimumSize(w, 200, 150);
    SDL_StartTextInput();
}

void plat_set_fullscreen(Ren *r, int on)
{
    SDL_Window *w = ren_window_handle(r);
    if (w)
        SDL_SetWindowFullscreen(w, on ? SDL_WINDOW_FULLSCREEN_DESKTOP : 0);
}

int plat_events(int wait_ms, void (*fn)(void *user, const InputEvent *in), void *user)
{
    SDL_Event e;
    int got = wait_ms == 0 ? SDL_PollEvent(&e) : wait_ms < 0 ? SDL_WaitEvent(&e) : SDL_WaitEventTimeout(&e, wait_ms);
    int n = 0;
    while (got) {
        InputEvent in;
        n++;
        if (input_from_sdl(&e, &in))
            fn(user, &in);
        got = SDL_PollEvent(&e);
    }
    return n;
}
