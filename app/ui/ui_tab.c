/* ui_tab.c - the keyboard's ring (ui.h): every control a frame draws is a
 * stop, kept in reading order for the next frame; Tab and Shift+Tab move
 * the ring through them, Enter and Space press the control it is on,
 * arrows move a slider. The controls find out in the frame they draw
 * (ui_tab_stop), as they find out about a click. */
#include <string.h>

#include "ui.h"

void ui_tab_group(UiCtx *ui, int group)
{
    ui->group = group;
}

/* How far the ring reaches out of its control. */
static int ring_reach(const UiCtx *ui)
{
    return (ui_px(ui->g, 3) > 3 ? ui_px(ui->g, 3) : 3) + 2 + 1;
}

void ui_focus_ring(UiCtx *ui, Rect rc)
{
    /* a band of the page's colour between the control and the ring, so
     * the ring stands off the control's own border (a selected or current
     * control has one in the same colour) */
    int t = ui_px(ui->g, 3) > 3 ? ui_px(ui->g, 3) : 3, gap = 2;
    const Theme *th = ui->th;
    Rect in = {rc.x - gap, rc.y - gap, rc.w + 2 * gap, rc.h + 2 * gap};
    Rect out = {in.x - t, in.y - t, in.w + 2 * t, in.h + 2 * t};
    ren_rect_line(ui->r, in, gap, th->bg);
    ren_rect_line(ui->r, out, t, th->select);
    ren_rect_line(ui->r, (Rect){out.x - 1, out.y - 1, out.w + 2, out.h + 2}, 1, th->bg);
}

int ui_tab_stop(UiCtx *ui, UiId id, Rect rc, UiStopKind kind)
{
    if (rc.w <= 0 || rc.h <= 0 || ui->group < 0)
        return 0;
    if (ui->n_stops < UI_STOPS)
        ui->stops[ui->n_stops] = (UiStop){id, rc, ui->group, ui->n_stops, kind, NULL, 0}, ui->n_stops++;
    if (ui->kfocus != id)
        return 0;
    if (!(kind == UI_STOP_TEXT && ui->focus == id)) /* a field with the keyboard shows its own frame */
        ui_focus_ring(ui, rc);
    if (!ui->kpress)
        return 0;
    ui->kpress = 0;
    return 1;
}

void ui_tab_field(UiCtx *ui, UiId id, Rect rc, char *buf, int cap)
{
    int n = ui->n_stops;
    ui_tab_stop(ui, id, rc, UI_STOP_TEXT);
    if (ui->n_stops > n) {
        ui->stops[n].buf = buf;
        ui->stops[n].cap = cap;
    }
}

/* The ring on a text field: the field gets the keyboard now. */
static void take_keyboard(UiCtx *ui, const UiStop *s)
{
    if (s->kind == UI_STOP_TEXT && s->buf && ui->focus != s->id)
        ui_focus_text(ui, s->id, s->buf, s->cap);
}

/* A place that takes a click, its id made of name and the two numbers. */
static int hit(UiCtx *ui, Rect rc, const char *name, int a, int b)
{
    struct {
        UiId name;
        int a, b;
    } key = {ui_id_str(ui, name), a, b};
    int pressed = ui_tab_stop(ui, ui_id(ui, &key, sizeof key), rc, UI_STOP_PRESS);
    return ui_clicked(&ui->in, rc) || pressed;
}

int ui_hit(UiCtx *ui, Rect rc, const char *name)
{
    return hit(ui, rc, name, rc.x, rc.y);
}

int ui_hit_n(UiCtx *ui, Rect rc, const char *name, int n)
{
    return hit(ui, rc, name, -1, n);
}

static int find_last(const UiCtx *ui, UiId id)
{
    for (int i = 0; id && i < ui->n_last; i++)
        if (ui->last[i].id == id)
            return i;
    return -1;
}

int ui_tab_move(UiCtx *ui, int dir)
{
    int n = ui->n_last;
    if (n == 0)
        return 0;
    int at = find_last(ui, ui->kfocus), next;
    if (at >= 0)
        next = at + dir;
    else if (ui->kfocus) /* its control is gone: from where it was */
        next = dir > 0 ? ui->kat : ui->kat - 1;
    else
        next = dir > 0 ? 0 : n - 1;
    next = ((next % n) + n) % n;
    ui->kfocus = ui->last[next].id;
    ui->kat = next;
    ui->kmoved = 1;
    ui->kpress = ui->knudge = 0;
    take_keyboard(ui, &ui->last[next]);
    return 1;
}

int ui_tab_reveal(UiCtx *ui, int first, Rect view)
{
    if (!ui->kmoved || !ui->kfocus)
        return 0;
    for (int i = first < 0 ? 0 : first; i < ui->n_stops; i++) {
        if (ui->stops[i].id != ui->kfocus)
            continue;
        ui->kmoved = 0;
        Rect r = ui->stops[i].rc;
        int m = ring_reach(ui), top = r.y - m, bottom = r.y + r.h + m;
        if (top < view.y || bottom - top > view.h)
            return top - view.y; /* above, or taller than the view: its top at the top */
        if (bottom > view.y + view.h)
            return bottom - (view.y + view.h);
        return 0;
    }
    return 0;
}

const UiStop *ui_tab_focused(const UiCtx *ui)
{
    int at = find_last(ui, ui->kfocus);
    return at >= 0 ? &ui->last[at] : NULL;
}

int ui_tab_key(UiCtx *ui, Key key, int mod)
{
    if (!ui->kfocus)
        return 0;
    const UiStop *s = ui_tab_focused(ui);
    if (key == KEY_ESCAPE) {
        ui->kfocus = 0;
        return 1;
    }
    if (!s || (mod & (MOD_CTRL | MOD_ALT)))
        return 0;
    if (key == KEY_RETURN || key == KEY_KP_ENTER || key == KEY_SPACE) {
        if (s->kind == UI_STOP_TEXT)
            take_keyboard(ui, s);
        else
            ui->kpress = 1;
        return 1;
    }
    if (s->kind == UI_STOP_SLIDER && (key == KEY_LEFT || key == KEY_DOWN || key == KEY_RIGHT || key == KEY_UP)) {
        ui->knudge += key == KEY_LEFT || key == KEY_DOWN ? -1 : 1;
        return 1;
    }
    return 0;
}
