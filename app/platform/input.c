/* input.c - SDL events into our InputEvent (input.h): the one table of SDL
 * keycodes in the program. */
#include "input.h"

#include <SDL_events.h>
#include <SDL_keyboard.h>
#include <stdio.h>
#include <string.h>

static const struct { SDL_Keycode sym; Key key; } KEYMAP[] = {
    {SDLK_RIGHT, KEY_RIGHT},       {SDLK_LEFT, KEY_LEFT},
    {SDLK_DOWN, KEY_DOWN},         {SDLK_UP, KEY_UP},
    {SDLK_HOME, KEY_HOME},         {SDLK_END, KEY_END},
    {SDLK_PAGEUP, KEY_PAGEUP},     {SDLK_PAGEDOWN, KEY_PAGEDOWN},
    {SDLK_F11, KEY_F11},           {SDLK_KP_ENTER, KEY_KP_ENTER},
    {SDLK_KP_PLUS, KEY_KP_PLUS},   {SDLK_KP_MINUS, KEY_KP_MINUS},
    {SDLK_KP_0, KEY_KP_0},         {SDLK_KP_1, KEY_KP_0 + 1},
    {SDLK_KP_2, KEY_KP_0 + 2},     {SDLK_KP_3, KEY_KP_0 + 3},
    {SDLK_KP_4, KEY_KP_0 + 4},     {SDLK_KP_5, KEY_KP_0 + 5},
    {SDLK_KP_6, KEY_KP_0 + 6},     {SDLK_KP_7, KEY_KP_0 + 7},
    {SDLK_KP_8, KEY_KP_0 + 8},     {SDLK_KP_9, KEY_KP_0 + 9},
};

static Key key_of(SDL_Keycode sym)
{
    if (sym > 0 && sym < 128) /* SDL's keycodes of ASCII keys are the characters */
        return (Key)sym;
    for (size_t i = 0; i < sizeof KEYMAP / sizeof KEYMAP[0]; i++)
        if (KEYMAP[i].sym == sym)
            return KEYMAP[i].key;
    return KEY_NONE;
}

static int mod_of(Uint16 m)
{
    return ((m & KMOD_SHIFT) ? MOD_SHIFT : 0) | ((m & KMOD_CTRL) ? MOD_CTRL : 0) |
           ((m & KMOD_ALT) ? MOD_ALT : 0);
}

int input_from_sdl(const void *sdl_event, InputEvent *out)
{
    const SDL_Event *e = sdl_event;
    memset(out, 0, sizeof *out);
    switch (e->type) {
    case SDL_QUIT: out->type = IN_QUIT; break;
    case SDL_KEYDOWN:
        out->type = IN_KEY;
        out->key = key_of(e->key.keysym.sym);
        out->mod = mod_of(e->key.keysym.mod);
        break;
    case SDL_TEXTINPUT:
        out->type = IN_TEXT;
        snprintf(out->text, sizeof out->text, "%s", e->text.text);
        break;
    case SDL_MOUSEMOTION:
        out->type = IN_MOUSE_MOVE;
        out->x = e->motion.x;
        out->y = e->motion.y;
        break;
    case SDL_MOUSEBUTTONDOWN: case SDL_MOUSEBUTTONUP:
        out->type = e->type == SDL_MOUSEBUTTONDOWN ? IN_MOUSE_DOWN : IN_MOUSE_UP;
        out->x = e->button.x;
        out->y = e->button.y;
        out->clicks = e->button.clicks;
        out->mod = mod_of((Uint16)SDL_GetModState());
        out->button = e->button.button == SDL_BUTTON_LEFT ? MB_LEFT
                      : e->button.button == SDL_BUTTON_RIGHT ? MB_RIGHT
                      : e->button.button == SDL_BUTTON_MIDDLE ? MB_MIDDLE : 0;
        break;
    case SDL_MOUSEWHEEL:
        out->type = IN_WHEEL;
        out->wheel = e->wheel.y;
        break;
    case SDL_DROPFILE: /* SDL hands us the path to free */
        out->type = IN_DROP;
        if (e->drop.file && strlen(e->drop.file) < sizeof out->path)
            snprintf(out->path, sizeof out->path, "%s", e->drop.file);
        SDL_free(e->drop.file);
        break;
    case SDL_WINDOWEVENT:
        if (e->window.event != SDL_WINDOWEVENT_LEAVE)
            return 0;
        out->type = IN_MOUSE_LEAVE;
        break;
    default: return 0;
    }
    return 1;
}
