/* plat_web.h - what the browser gives the window that a desktop does not,
 * or gives differently (plat_web.c; the only file with emscripten calls
 * besides the JS of tools/web/): the main loop as browser frames, sleeping
 * while idle; the address's fragment; files handed to the user as
 * downloads; progress kept in IndexedDB; the page's JS API told when the
 * first frame is up. */
#ifndef APP_PLAT_WEB_H
#define APP_PLAT_WEB_H

#include <stddef.h>

/* Run frame(user) from the browser's animation frames. frame returns the
 * milliseconds until it wants to run again: 0 at the next animation frame,
 * > 0 after that long, < 0 only when an event comes (the page then costs no
 * CPU). An input event, a resize or plat_web_wake() runs it at once.
 * Returns at once; the browser calls frame from then on. */
void plat_web_run(int (*frame)(void *user), void *user);
/* Ask for a frame soon (after a JS API call changed something). */
void plat_web_wake(void);
/* The address's fragment without '#', into buf ("" when none). */
void plat_web_fragment(char *buf, size_t cap);
/* Hand every regular file in dir to the user as a download, then delete it
 * (the window saves PNG and CSV files into its working folder). Returns how
 * many were handed over. */
int plat_web_download_dir(const char *dir);
/* Write what changed under the IndexedDB-backed folder (mounted by the
 * page's JS before main) back to IndexedDB, soon and once. */
void plat_web_persist_soon(void);
/* window.stepformer.ready = true (the first frame is drawn). */
void plat_web_ready(void);
/* The window copied text (Ctrl+C in a field, Ctrl+D, Ctrl+Shift+C): it
 * becomes SDL's clipboard, which Ctrl+V in the window reads, and the
 * browser's (navigator.clipboard; on a plain-http page, where that is
 * missing, a hidden text area and execCommand("copy")). */
void plat_web_clipboard_set(const char *text);
/* The browser pasted (tools/web/api.js: its paste event, which SDL's
 * keyboard handling would otherwise prevent): text (NULL: none came)
 * becomes SDL's clipboard and the window gets Ctrl+V (with shift:
 * Ctrl+Shift+V, a scene code). */
void plat_web_paste(const char *text, int shift);
/* text read aloud by the browser (speechSynthesis, in Chinese when it
 * holds Chinese), what was being read stopped first: 0, or -1 when the
 * browser has no speech */
int plat_web_speak(const char *text);
/* Wait until the GPU has drawn what the frame asked for (WebGL works
 * behind the script's back; a frame's time includes it only after this).
 * Nothing to wait for with SDL's software renderer. */
void plat_web_gl_finish(void);
/* The size the page shows the canvas at (CSS pixels) and the device pixel
 * ratio. */
void plat_web_viewport(int *w, int *h, double *dpr);

#endif
