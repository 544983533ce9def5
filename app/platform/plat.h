/* plat.h - what the window's event loop needs from SDL, and nothing of the
 * App (plat.c): the clipboard, the window's settings, and the
 * events as our own InputEvents (input.h). The loop itself is the command
 * line's (app/cli/cmd_gui.c), above the window. */
#ifndef APP_PLAT_H
#define APP_PLAT_H

#include "input.h"
#include "ren.h"

/* The clipboard's text (malloc'd, the caller frees it), or NULL; and
 * text put into it (Ctrl+C, Ctrl+X in a text field). */
char *plat_clipboard_text(void);
void plat_clipboard_set(const char *text);
/* After opening: a minimum window size and text input on. */
void plat_window_setup(Ren *r);
/* Full-screen on or off (desktop resolution). */
void plat_set_fullscreen(Ren *r, int on);
/* Waits for events (wait_ms < 0: until one comes; 0: only those already
 * there; > 0: at most that long) and hands each to fn as an InputEvent;
 * returns how many SDL events came (some map to no InputEvent). */
int plat_events(int wait_ms, void (*fn)(void *user, const InputEvent *in), void *user);

#endif
