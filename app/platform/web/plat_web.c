/* plat_web.c - the browser's side of the window (plat_web.h).
 *
 * The loop: emscripten_set_main_loop_arg runs tick() from the browser's
 * animation frames. When the window has nothing to do (frame returns < 0)
 * the loop is paused, so an idle page runs no code at all; an SDL event
 * watch resumes it the moment the browser delivers input (SDL's handlers
 * queue the event and call the watch from the DOM event), and a timed wish
 * (a blinking cursor, a notice to expire) resumes it from a setTimeout.
 * The clipboard: SDL 2.26 has none in the browser (its own copy of the
 * text only), so copies are handed to the browser's clipboard here and
 * pastes come from the page's paste event. */
#include "plat_web.h"

#include <SDL.h>
#include <dirent.h>
#include <emscripten.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int (*g_frame)(void *);
static void *g_user;
static int g_paused;
static long g_timer_gen; /* a newer pause cancels an older timer's resume */

static void resume(void)
{
    if (g_paused) {
        g_paused = 0;
        emscripten_resume_main_loop();
    }
}

static void timed_resume(void *arg)
{
    if ((long)(size_t)arg == g_timer_gen)
        resume();
}

static int on_sdl_event(void *user, SDL_Event *e)
{
    (void)user, (void)e;
    resume();
    return 1;
}

static void tick(void *arg)
{
    (void)arg;
    int wait = g_frame(g_user);
    if (wait == 0)
        return;
    /* nothing queued: sleep until an event, or for the time asked */
    SDL_PumpEvents();
    if (SDL_PeepEvents(NULL, 1, SDL_PEEKEVENT, SDL_FIRSTEVENT, SDL_LASTEVENT) > 0)
        return;
    g_paused = 1;
    g_timer_gen++;
    emscripten_pause_main_loop();
    if (wait > 0)
        emscripten_async_call(timed_resume, (void *)(size_t)g_timer_gen, wait);
}

void plat_web_run(int (*frame)(void *user), void *user)
{
    g_frame = frame;
    g_user = user;
    SDL_AddEventWatch(on_sdl_event, NULL);
    emscripten_set_main_loop_arg(tick, NULL, 0, 0);
}

void plat_web_wake(void)
{
    resume();
}

void plat_web_fragment(char *buf, size_t cap)
{
    if (!cap)
        return;
    buf[0] = 0;
    char *h = (char *)(size_t)EM_ASM_INT({
        var s = window.location.hash || "";
        if (s.charAt(0) == "#") s = s.substring(1);
        var n = lengthBytesUTF8(s) + 1;
        var p = _malloc(n);
        stringToUTF8(s, p, n);
        return p;
    });
    if (h) {
        snprintf(buf, cap, "%s", h);
        free(h);
    }
}

int plat_web_download_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    char path[1024];
    while ((e = readdir(d))) {
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (e->d_name[0] == '.' || stat(path, &st) || !S_ISREG(st.st_mode))
            continue;
        EM_ASM({ Module.stepformerDownload(UTF8ToString($0), UTF8ToString($1)); }, path, e->d_name);
        unlink(path);
        n++;
    }
    closedir(d);
    return n;
}

void plat_web_persist_soon(void)
{
    EM_ASM({
        if (Module.stepformerPersist) Module.stepformerPersist();
    });
}

void plat_web_ready(void)
{
    EM_ASM({
        if (window.stepformer) {
            window.stepformer.ready = true;
            if (window.stepformer.onready) window.stepformer.onready();
        }
    });
}

void plat_web_viewport(int *w, int *h, double *dpr)
{
    *w = EM_ASM_INT({ return window.innerWidth; });
    *h = EM_ASM_INT({ return window.innerHeight; });
    *dpr = emscripten_get_device_pixel_ratio();
}

void plat_web_clipboard_set(const char *text)
{
    if (!text)
        return;
    SDL_SetClipboardText(text);
    EM_ASM({
        var t = UTF8ToString($0);
        if (window.stepformer) window.stepformer.lastCopy = t;
        function area() { /* plain http: no navigator.clipboard */
            var a = document.createElement("textarea");
            a.value = t;
            a.setAttribute("readonly", "");
            a.style.position = "fixed";
            a.style.opacity = "0";
            document.body.appendChild(a);
            a.select();
            try { document.execCommand("copy"); } catch (e) { /* refused: the window's own copy stays */ }
            a.remove();
        }
        if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(t).catch(area);
        else area();
    }, text);
}

void plat_web_paste(const char *text, int shift)
{
    if (text)
        SDL_SetClipboardText(text);
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = SDL_KEYDOWN;
    e.key.state = SDL_PRESSED;
    e.key.keysym.scancode = SDL_SCANCODE_V;
    e.key.keysym.sym = SDLK_v;
    e.key.keysym.mod = (Uint16)(KMOD_LCTRL | (shift ? KMOD_LSHIFT : 0));
    SDL_PushEvent(&e); /* the event watch resumes the loop */
}

int plat_web_speak(const char *text)
{
    return EM_ASM_INT({
        if (!window.speechSynthesis || !window.SpeechSynthesisUtterance) return -1;
        var t = UTF8ToString($0);
        var u = new SpeechSynthesisUtterance(t);
        u.lang = "en-US";
        for (var i = 0; i < t.length; i++)
            if (t.charCodeAt(i) >= 0x4e00 && t.charCodeAt(i) <= 0x9fff) { u.lang = "zh-CN"; break; }
        speechSynthesis.cancel();
        speechSynthesis.speak(u);
        if (window.stepformer) window.stepformer.lastSpoken = t;
        return 0;
    }, text ? text : "");
}

void plat_web_gl_finish(void)
{
    EM_ASM({
        /* reading a pixel back waits for every draw before it (finish() alone may not) */
        if (typeof GLctx !== "undefined" && GLctx) GLctx.readPixels(0, 0, 1, 1, GLctx.RGBA, GLctx.UNSIGNED_BYTE, new Uint8Array(4));
    });
}
