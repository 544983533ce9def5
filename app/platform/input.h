/* input.h - input events of our own: one Key enum and an InputEvent that
 * the window reads instead of SDL's (input.c maps SDL_Event to it; tests
 * build them directly). Printable ASCII keys are their character (letters
 * lowercase), so views can write case 'p'; the others are named below. */
#ifndef APP_INPUT_H
#define APP_INPUT_H

typedef enum Key {
    KEY_NONE = 0,       /* a key we have no name for (still an event) */
    KEY_BACKSPACE = 8,
    KEY_TAB = '\t',
    KEY_RETURN = '\r',
    KEY_ESCAPE = 27,
    KEY_SPACE = ' ',
    KEY_DELETE = 127,
    /* 32..126: the printable ASCII characters themselves */
    KEY_RIGHT = 0x100,
    KEY_LEFT,
    KEY_DOWN,
    KEY_UP,
    KEY_HOME,
    KEY_END,
    KEY_PAGEUP,
    KEY_PAGEDOWN,
    KEY_F11,
    KEY_KP_ENTER,
    KEY_KP_PLUS,
    KEY_KP_MINUS,
    KEY_KP_0,           /* KEY_KP_0 + d is keypad digit d */
    KEY_KP_9 = KEY_KP_0 + 9,
} Key;

/* Modifier bits held with a key. */
enum { MOD_SHIFT = 1, MOD_CTRL = 2, MOD_ALT = 4 };

typedef enum MouseButton { MB_LEFT = 1, MB_MIDDLE = 2, MB_RIGHT = 3 } MouseButton;

typedef enum InputType {
    IN_NONE = 0,
    IN_QUIT,        /* the window was closed */
    IN_KEY,         /* key, mod */
    IN_TEXT,        /* text: UTF-8 typed (an input method may send several characters) */
    IN_MOUSE_MOVE,  /* x, y in window coordinates */
    IN_MOUSE_DOWN,  /* x, y, button */
    IN_MOUSE_UP,    /* x, y, button */
    IN_WHEEL,       /* wheel: clicks, + up */
    IN_MOUSE_LEAVE, /* the mouse left the window */
    IN_DROP,        /* path: a file or folder dropped onto the window ("" if too long) */
} InputType;

#define INPUT_TEXT_MAX 32
#define INPUT_PATH_MAX 4096

typedef struct InputEvent {
    InputType type;
    Key key;
    int mod;                    /* MOD_* bits */
    int x, y;
    int button;                 /* MouseButton */
    int clicks;                 /* IN_MOUSE_DOWN: 1 a single click, 2 a double, 3 a triple
                                 * (the system's own timing and distance); 0 counts as 1 */
    int wheel;
    char text[INPUT_TEXT_MAX];  /* NUL-terminated */
    char path[INPUT_PATH_MAX];  /* IN_DROP */
} InputEvent;

/* Map an SDL event (passed as const void * so this header needs no SDL)
 * into out; returns 0 when the event means nothing to the window. */
int input_from_sdl(const void *sdl_event, InputEvent *out);

#endif
