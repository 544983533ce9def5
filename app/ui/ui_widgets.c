/* ui_widgets.c - the widgets of the context (ui.h) that are not text: the
 * button, the slider, a drag, and the flow layout that places controls
 * left to right. Each takes an id and a rectangle, updates from the input
 * through ui_control, draws, and returns UI_* flags. */
#include <string.h>

#include "ui.h"

/* A button's id: its label's text where it is (two "◀" in a row are two
 * buttons; the text, not its address, which may be a buffer on the stack
 * of a caller drawn from different depths). */
static UiId button_id(const UiCtx *ui, Rect rc, const char *label)
{
    struct {
        UiId text;
        int x, y;
    } key = {ui_id_str(ui, label), rc.x, rc.y};
    return ui_id(ui, &key, sizeof key);
}

int ui_button(UiCtx *ui, Rect rc, const char *label, int on)
{
    const Theme *th = ui->th;
    UiId id = button_id(ui, rc, label);
    int over = ui_control(ui, id, rc);
    Color bg = on ? th->accent : over ? th->panel2 : th->panel;
    ren_rect(ui->r, rc, bg);
    ren_rect_line(ui->r, rc, 1, on ? th->accent : th->border);
    /* a label wider than the button is cut with an ellipsis, never drawn
     * past its edges (a translation can be longer than the English) */
    char cut[512];
    const char *shown = label;
    if (ren_text_width(ui->g->small, label) > rc.w - 2)
        shown = ui_text_cut(ui->g->small, label, rc.w - 2, cut, sizeof cut);
    ui_text_center(ui->r, ui->g->small, shown, rc, on ? th->bg : th->text);
    int key = ui_tab_stop(ui, id, rc, UI_STOP_PRESS); /* Tab reaches it, Enter presses it */
    return (over && ui->in.pressed) || key ? UI_CLICKED : 0;
}

int ui_slider(UiCtx *ui, UiId id, Rect rc, float *value, float lo, float hi)
{
    const Theme *th = ui->th;
    ui_control(ui, id, rc);
    int res = 0;
    if (ui->active == id && ui->in.down && rc.w > 1 && hi > lo) {
        float t = (float)(ui->in.mx - rc.x) / (float)(rc.w - 1);
        t = t < 0 ? 0 : t > 1 ? 1 : t;
        float v = lo + t * (hi - lo);
        if (v != *value) {
            *value = v;
            res = UI_CHANGED;
        }
    }
    if (ui->kfocus == id && ui->knudge && hi > lo) { /* arrows on it: a twentieth of the range a press */
        float v = *value + (float)ui->knudge * (hi - lo) / 20.0f;
        v = v < lo ? lo : v > hi ? hi : v;
        ui->knudge = 0;
        if (v != *value) {
            *value = v;
            res = UI_CHANGED;
        }
    }
    float t = hi > lo ? (*value - lo) / (hi - lo) : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    int knob = rc.h / 2 > 4 ? rc.h / 2 : 4, kx = rc.x + (int)(t * (float)(rc.w - knob));
    ren_rect(ui->r, (Rect){rc.x, rc.y + rc.h / 2 - 1, rc.w, 2}, th->border);
    ren_rect(ui->r, (Rect){kx, rc.y, knob, rc.h}, ui->active == id || ui->hot == id ? th->accent : th->dim);
    ui_tab_stop(ui, id, rc, UI_STOP_SLIDER);
    return res;
}

int ui_drag(UiCtx *ui, UiId id, Rect rc, int *dx, int *dy)
{
    ui_control(ui, id, rc);
    *dx = *dy = 0;
    if (ui->active != id || !ui->in.down)
        return 0;
    *dx = ui->in.mx - ui->drag_x;
    *dy = ui->in.my - ui->drag_y;
    ui->drag_x = ui->in.mx;
    ui->drag_y = ui->in.my;
    return 1;
}

/* ---- flow layout: controls placed left to right, wrapping ---- */

UiFlow ui_flow(UiCtx *ui, Rect rc)
{
    int h = ren_font_height(ui->g->small) + ui_px(ui->g, 10);
    return (UiFlow){ui, rc, rc.x, rc.y, h, ui_px(ui->g, 5)};
}

void ui_flow_break(UiFlow *f)
{
    if (f->x == f->rc.x)
        return;
    f->x = f->rc.x;
    f->y += f->h + f->gap;
}

Rect ui_flow_next(UiFlow *f, int w)
{
    if (w > f->rc.w)
        w = f->rc.w;
    if (f->x + w > f->rc.x + f->rc.w && f->x > f->rc.x)
        ui_flow_break(f);
    Rect r = {f->x, f->y, w, f->h};
    f->x += w + f->gap;
    return r;
}

void ui_flow_keep(UiFlow *f, int w)
{
    if (f->x > f->rc.x && f->x + w > f->rc.x + f->rc.w)
        ui_flow_break(f);
}

int ui_flow_button_w(const Gfx *g, const char *label)
{
    return ren_text_width(g->small, label) + ui_px(g, 16);
}

int ui_flow_text_w(const Gfx *g, const char *s)
{
    return ren_text_width(g->small, s) + ui_px(g, 4);
}

int ui_flow_button(UiFlow *f, const char *label, int on)
{
    return ui_button(f->ui, ui_flow_next(f, ui_flow_button_w(f->ui->g, label)), label, on);
}

void ui_flow_text(UiFlow *f, const char *s, Color c)
{
    RenFont *font = f->ui->g->small;
    Rect r = ui_flow_next(f, ui_flow_text_w(f->ui->g, s));
    ui_text_fit(f->ui->r, font, s, r.x, r.y + (r.h - ren_font_height(font)) / 2, r.w, c);
}

int ui_flow_height(const UiFlow *f)
{
    return f->y + (f->x > f->rc.x ? f->h : -f->gap) - f->rc.y;
}
