/* app_event.c - SDL events into App state: keys (navigation, presenter
 * controls, text editing), text input (UTF-8, so input methods for Chinese
 * work), mouse and window events. Mouse clicks on widgets are handled when
 * the frame is built (immediate mode); here they are only recorded. */
#include <SDL_events.h>
#include <string.h>

#include "app.h"
#include "lesson_ui.h"
#include "views.h"

/* Byte offset of the previous / next UTF-8 character. */
static int utf8_prev(const char *s, int at)
{
    if (at <= 0)
        return 0;
    at--;
    while (at > 0 && ((unsigned char)s[at] & 0xC0) == 0x80)
        at--;
    return at;
}

static int utf8_next_off(const char *s, int at)
{
    int n = (int)strlen(s);
    if (at >= n)
        return n;
    at++;
    while (at < n && ((unsigned char)s[at] & 0xC0) == 0x80)
        at++;
    return at;
}

static char *focused_text(App *a)
{
    if (a->focus == FOCUS_VIEW)
        return a->view_text;
    return a->focus == FOCUS_TGT ? a->tgt : a->focus == FOCUS_SRC ? a->src_line : NULL;
}

/* Editing the input lines re-runs the model; a view's own field does not. */
static void edited(App *a)
{
    if (a->focus == FOCUS_SRC || a->focus == FOCUS_TGT)
        a->dirty = 1;
}

/* Insert typed text at the cursor; invalid UTF-8 and control bytes are
 * dropped, and the line never overflows (the excess is cut with a notice). */
static void insert_text(App *a, const char *t)
{
    char *s = focused_text(a);
    if (!s)
        return;
    char clean[APP_TEXT_MAX];
    int n = 0;
    size_t len = strlen(t);
    for (size_t i = 0; i < len && n < APP_TEXT_MAX - 1;) {
        uint32_t cp;
        int k = utf8_next(t + i, len - i, &cp);
        if (k < 0) {
            i++;
            continue;
        }
        if (cp >= 0x20 && cp != 0x7f && n + k < APP_TEXT_MAX) {
            memcpy(clean + n, t + i, (size_t)k);
            n += k;
        }
        i += (size_t)k;
    }
    int cur = (int)strlen(s);
    if (cur + n > APP_TEXT_MAX - 1) {
        /* cut at a character boundary */
        int room = APP_TEXT_MAX - 1 - cur;
        while (room > 0 && (clean[room] & 0xC0) == 0x80)
            room--;
        n = room;
        app_notice(a, 1, "the line is full (%d bytes): the rest of the text was dropped", APP_TEXT_MAX - 1);
    }
    if (n <= 0)
        return;
    if (a->cursor > cur)
        a->cursor = cur;
    memmove(s + a->cursor + n, s + a->cursor, (size_t)(cur - a->cursor + 1));
    memcpy(s + a->cursor, clean, (size_t)n);
    a->cursor += n;
    edited(a);
}

static void delete_range(App *a, int from, int to)
{
    char *s = focused_text(a);
    if (!s || from >= to)
        return;
    memmove(s + from, s + to, strlen(s + to) + 1);
    a->cursor = from;
    edited(a);
}

static void cycle_cmap(App *a)
{
    StagePos p = app_pos(a);
    StageKind k = stage_info(p.stage)->kind;
    int prob = k == SK_WEIGHTS || k == SK_PROBS || k == SK_HIDDEN; /* 0.. data: sequential maps */
    CmapId *c = prob ? &a->cmap_prob : &a->cmap_signed;
    *c = (CmapId)((*c + 1) % CMAP_COUNT);
    app_notice(a, 0, "colour map: %s", cmap_name(*c));
}

static void text_key(App *a, const SDL_KeyboardEvent *k)
{
    char *s = focused_text(a);
    int ctrl = (k->keysym.mod & KMOD_CTRL) != 0;
    switch (k->keysym.sym) {
    case SDLK_BACKSPACE: delete_range(a, utf8_prev(s, a->cursor), a->cursor); break;
    case SDLK_DELETE: delete_range(a, a->cursor, utf8_next_off(s, a->cursor)); break;
    case SDLK_LEFT: a->cursor = utf8_prev(s, a->cursor); break;
    case SDLK_RIGHT: a->cursor = utf8_next_off(s, a->cursor); break;
    case SDLK_HOME: a->cursor = 0; break;
    case SDLK_END: a->cursor = (int)strlen(s); break;
    case SDLK_RETURN: case SDLK_KP_ENTER: case SDLK_ESCAPE: a->focus = FOCUS_NONE; break;
    case SDLK_TAB:
        if (a->focus == FOCUS_VIEW) { /* a view's field: Tab leaves it */
            a->focus = FOCUS_NONE;
            break;
        }
        a->focus = a->focus == FOCUS_SRC ? FOCUS_TGT : FOCUS_SRC;
        a->cursor = (int)strlen(focused_text(a));
        break;
    case SDLK_u:
        if (ctrl)
            delete_range(a, 0, (int)strlen(s));
        break;
    default: break;
    }
}

static void nav_key(App *a, const SDL_KeyboardEvent *k)
{
    SDL_Keycode sym = k->keysym.sym;
    int ctrl = (k->keysym.mod & KMOD_CTRL) != 0;
    if (a->show_help && sym != SDLK_F11) {
        a->show_help = 0;
        if (sym == SDLK_ESCAPE || sym == SDLK_QUESTION || sym == SDLK_SLASH)
            return;
    }
    if (ctrl) {
        if (sym == SDLK_s)
            a->want_save_png = 1;
        else if (sym == SDLK_e)
            a->want_save_csv = 1;
        else if (sym == SDLK_q)
            a->want_quit = 1;
        return;
    }
    switch (sym) {
    case SDLK_RIGHT: case SDLK_DOWN: app_step(a, 1); break;
    case SDLK_LEFT: case SDLK_UP: app_step(a, -1); break;
    case SDLK_HOME: app_step(a, -a->n_walk); break;
    case SDLK_END: app_step(a, a->n_walk); break;
    case SDLK_LEFTBRACKET: app_change_layer(a, -1); break;
    case SDLK_RIGHTBRACKET: app_change_layer(a, 1); break;
    case SDLK_TAB: app_toggle_side(a); break;
    case SDLK_0: case SDLK_KP_0: app_set_head(a, -1); a->view = VIEW_AUTO; break;
    case SDLK_F11: a->want_fullscreen_toggle = 1; break;
    case SDLK_EQUALS: case SDLK_PLUS: case SDLK_KP_PLUS:
        if (a->text_scale < 3.0f)
            a->text_scale *= 1.15f;
        break;
    case SDLK_MINUS: case SDLK_KP_MINUS:
        if (a->text_scale > 0.6f)
            a->text_scale /= 1.15f;
        break;
    case SDLK_t:
        a->theme = (ThemeId)((a->theme + 1) % THEME_COUNT);
        app_notice(a, 0, "theme: %s", theme_get(a->theme)->name);
        break;
    case SDLK_c: cycle_cmap(a); break;
    case SDLK_SLASH: case SDLK_QUESTION: a->show_help = 1; break;
    case SDLK_ESCAPE: a->want_quit = 1; break;
    case SDLK_SPACE:
        a->playing = !a->playing;
        a->play_next = a->now + 0.8;
        app_notice(a, 0, a->playing ? "playing: a stage every 1.6 s (Space pauses)" : "paused");
        break;
    case SDLK_RETURN: a->focus = FOCUS_SRC; a->cursor = (int)strlen(a->src_line); break;
    default:
        if (sym >= SDLK_1 && sym <= SDLK_9)
            app_set_head(a, (int)(sym - SDLK_1));
        else if (sym >= SDLK_KP_1 && sym <= SDLK_KP_9)
            app_set_head(a, (int)(sym - SDLK_KP_1));
        break;
    }
}

void app_event(App *a, const SDL_Event *e)
{
    float ps = a->pixel_scale > 0 ? a->pixel_scale : 1.0f;
    switch (e->type) {
    case SDL_QUIT: a->want_quit = 1; break;
    case SDL_KEYDOWN:
        if (a->focus == FOCUS_VIEW && !a->view_text)
            a->focus = FOCUS_NONE;
        if (a->focus != FOCUS_NONE && e->key.keysym.sym != SDLK_F11) {
            text_key(a, &e->key);
            break;
        }
        if (!a->show_help && !(e->key.keysym.mod & KMOD_CTRL)) {
            if (lesson_ui_key(a, e->key.keysym.sym))
                break;
            ViewId v = app_current_view(a);
            if (v == VIEW_DECODE && view_decode_key(a, e->key.keysym.sym, e->key.keysym.mod))
                break;
            if (v == VIEW_TRAIN && view_train_key(a, e->key.keysym.sym, e->key.keysym.mod))
                break;
        }
        nav_key(a, &e->key);
        break;
    case SDL_TEXTINPUT:
        /* outside a text field, keys are shortcuts (handled as KEYDOWN) */
        if (a->focus != FOCUS_NONE && focused_text(a))
            insert_text(a, e->text.text);
        break;
    case SDL_MOUSEMOTION:
        a->in.mx = (int)(e->motion.x * ps);
        a->in.my = (int)(e->motion.y * ps);
        a->in.moved = 1;
        break;
    case SDL_MOUSEBUTTONDOWN:
        a->in.mx = (int)(e->button.x * ps);
        a->in.my = (int)(e->button.y * ps);
        if (a->show_help) {
            a->show_help = 0;
            break;
        }
        if (e->button.button == SDL_BUTTON_LEFT) {
            a->in.down = 1;
            a->in.pressed = 1;
        } else if (e->button.button == SDL_BUTTON_RIGHT) {
            a->in.rpressed = 1;
        }
        break;
    case SDL_MOUSEBUTTONUP:
        if (e->button.button == SDL_BUTTON_LEFT) {
            a->in.down = 0;
            a->in.released = 1;
        }
        break;
    case SDL_MOUSEWHEEL:
        a->in.wheel += e->wheel.y;
        break;
    case SDL_WINDOWEVENT:
        if (e->window.event == SDL_WINDOWEVENT_LEAVE)
            a->in.mx = a->in.my = -1;
        break;
    default: break;
    }
}
