/* ui_ctx.c - the widget context (ui.h): ids from hashes within pushed
 * scopes, the frame (ui_begin, ui_end: it keeps the frame's stops of the
 * keyboard's ring, ui_tab.c, in reading order), and hot, active and focus as ids,
 * as microui's mu_Context keeps them (mu_get_id, mu_update_control). */
#include <string.h>

#include "hash.h"
#include "ui.h"

/* The id of data within the innermost scope; never 0 (0 is "no widget"). */
UiId ui_id(const UiCtx *ui, const void *data, size_t n)
{
    int top = ui->depth < UI_ID_DEPTH ? ui->depth : UI_ID_DEPTH; /* deeper pushes are ignored */
    uint64_t seed = top > 0 ? tf_fnv_word(TF_FNV_SEED, ui->ids[top - 1]) : TF_FNV_SEED;
    UiId id = tf_fnv_fold(tf_fnv_bytes(seed, data, n));
    return id ? id : 1;
}

UiId ui_id_ptr(const UiCtx *ui, const void *p)
{
    return ui_id(ui, &p, sizeof p);
}

UiId ui_id_str(const UiCtx *ui, const char *s)
{
    return ui_id(ui, s, strlen(s));
}

/* Scopes nest UI_ID_DEPTH deep; a push beyond that, and its pop, are ignored
 * (the ids inside are those of the deepest scope kept). */
void ui_push_id(UiCtx *ui, const void *data, size_t n)
{
    UiId id = ui_id(ui, data, n);
    if (ui->depth < UI_ID_DEPTH)
        ui->ids[ui->depth] = id;
    ui->depth++;
}

void ui_pop_id(UiCtx *ui)
{
    if (ui->depth > 0)
        ui->depth--;
}

void ui_bind(UiCtx *ui, Ren *r, Gfx *g, const Theme *th, double now)
{
    ui->r = r;
    ui->g = g;
    ui->th = th;
    ui->now = now;
}

void ui_begin(UiCtx *ui, Ren *r, Gfx *g, const Theme *th, double now)
{
    ui_bind(ui, r, g, th, now);
    if (ui->blink_restart || ui->focus != ui->blink_focus) { /* the caret shows at once */
        ui->blink_from = now;
        ui->blink_focus = ui->focus;
        ui->blink_restart = 0;
    }
    if (!ui->in.down) /* the button came up between frames: no drag, no press held */
        ui->active = 0;
    if (ui->in.pressed) /* the mouse is in charge: no ring */
        ui->kfocus = 0;
    ui->n_stops = 0;
    ui->hot_next = 0;
    ui->focus_seen = ui->focus_fresh = 0;
    ui->depth = 0;
}

/* The stops of the frame in reading order: by band, then as drawn
 * (insertion sort: stable, and a frame has a few dozen). */
static void tab_end(UiCtx *ui)
{
    int n = ui->n_stops;
    for (int i = 0; i < n; i++) {
        UiStop s = ui->stops[i];
        int j = i;
        for (; j > 0 && ui->last[j - 1].group > s.group; j--)
            ui->last[j] = ui->last[j - 1];
        ui->last[j] = s;
    }
    ui->n_last = n;
    for (int i = 0; i < n; i++)
        if (ui->last[i].id == ui->kfocus)
            ui->kat = i;
    ui->n_stops = 0;
    ui->group = 0;
    ui->kpress = 0; /* a press not taken: its control was not drawn */
}

void ui_end(UiCtx *ui)
{
    tab_end(ui);
    ui->hot = ui->hot_next;
    if (!ui->in.down)
        ui->active = 0;
    if (ui->focus && !ui->focus_seen) /* its field is not on screen: no typing blind */
        ui_focus_clear(ui);
    UiInput *in = &ui->in;
    in->pressed = in->released = in->rpressed = 0;
    in->wheel = 0;
    in->moved = 0;
}

int ui_control(UiCtx *ui, UiId id, Rect rc)
{
    if (ui->focus == id)
        ui->focus_seen = 1;
    int over = ui_over(&ui->in, rc);
    if (over && (!ui->active || ui->active == id))
        ui->hot_next = id;
    if (over && ui->in.pressed) {
        ui->active = id;
        ui->drag_x = ui->in.mx;
        ui->drag_y = ui->in.my;
    }
    return over;
}

void ui_focus_text(UiCtx *ui, UiId id, char *buf, int cap)
{
    ui->focus = id;
    ui->focus_seen = 1; /* taken in this frame: drawn in it or the next */
    ui->focus_fresh = 1;
    ui->blink_restart = 1;
    ui->edit.buf = buf;
    ui->edit.cap = cap;
    ui->edit.cursor = ui->edit.anchor = buf ? (int)strlen(buf) : 0;
}

void ui_focus_clear(UiCtx *ui)
{
    ui->focus = 0;
    ui->edit = (UiEdit){0};
}

int ui_editing(const UiCtx *ui, const char *buf)
{
    return ui->focus && buf && ui->edit.buf == buf;
}
