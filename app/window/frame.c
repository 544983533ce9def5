/* frame.c - one frame of the window: the layout (top bar, navigator, main
 * view with its view tabs, explanation panel, input lines, status line),
 * the current view drawn through the VIEWS table (host.c builds its Scene
 * and applies its ViewOut), and the overlays (the `?` keys from the
 * command table). */
#include <cglm/cglm.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cmd_table.h"
#include "explain_model.h"
#include "lesson_ui.h"
#include "model_ui.h"
#include "panels.h"
#include "scene.h"

typedef struct Layout {
    Rect top, nav, steps, tabs, main, panel, src, tgt, status;
} Layout;

static Layout layout(const Gfx *g, int W, int H)
{
    Layout L;
    int s_ui = ren_font_height(g->ui), s_small = ren_font_height(g->small);
    int title_h = ren_font_height(g->title);
    int top_h = title_h + 12, line_h = s_ui + 12, status_h = s_small + 10;
    int tabs_h = s_small + 12;
    float sc = g->scale;
    int nav_w = W < 520 ? 0 : (int)fminf(fmaxf(0.22f * W, 190 * sc), 340 * sc);
    int panel_w = W < 700 ? 0 : (int)fminf(fmaxf(0.24f * W, 210 * sc), 420 * sc);
    /* large text on a small window: the view keeps at least 38 % of the
     * width, and more as the text grows (presenter mode is for what the
     * view shows: from ×2 on it keeps 55 %) */
    float side = fmaxf(0.62f - 0.17f * (sc - 1), 0.45f);
    if (nav_w + panel_w > W * side) {
        float k = W * side / (float)(nav_w + panel_w);
        nav_w = (int)(nav_w * k);
        panel_w = (int)(panel_w * k);
    }
    if (H < 260)
        nav_w = panel_w = 0;
    int bottom = 2 * line_h + status_h;
    if (bottom + top_h > H) { /* tiny window: keep only the status line */
        top_h = 0;
        line_h = 0;
        bottom = status_h;
    }
    L.top = (Rect){0, 0, W, top_h};
    L.status = (Rect){0, H - status_h, W, status_h};
    L.tgt = (Rect){0, H - status_h - line_h, W, line_h};
    L.src = (Rect){0, H - status_h - 2 * line_h, W, line_h};
    int mid_y = top_h, mid_h = H - top_h - bottom;
    if (mid_h < 0)
        mid_h = 0;
    L.nav = (Rect){0, mid_y, nav_w, mid_h};
    L.panel = (Rect){W - panel_w, mid_y, panel_w, mid_h};
    int strip = mid_h > 3 * tabs_h ? tabs_h : 0;
    L.steps = (Rect){nav_w, mid_y, W - nav_w - panel_w, strip};
    L.tabs = (Rect){nav_w, mid_y + strip, W - nav_w - panel_w, strip};
    L.main = (Rect){nav_w + 8, mid_y + 2 * strip + 6, W - nav_w - panel_w - 16,
                    mid_h - 2 * strip - 12};
    return L;
}

static void draw_top(UiCtx *ui, App *a, Rect rc)
{
    const Theme *th = ui->th;
    if (rc.h <= 0)
        return;
    ren_rect(ui->r, rc, th->panel);
    ren_rect(ui->r, (Rect){rc.x, rc.y + rc.h - 1, rc.w, 1}, th->border);
    int fh = ren_font_height(ui->g->title);
    int y = rc.y + (rc.h - fh) / 2;
    int x = rc.x + 12;
    x += ren_text(ui->r, ui->g->title, "Stepformer", x, y, th->accent) + 16;
    int sy = rc.y + (rc.h - ren_font_height(ui->g->ui)) / 2;
    x += ren_text(ui->r, ui->g->ui, a->ses.model_label, x, sy, a->ses.untrained ? th->warn : th->dim) + 24;
    char t[256];
    ui_stage_title(a->look.lang, a->ses.head, app_pos(a), t, sizeof t);
    /* right side: Lessons, the language, help */
    RenFont *sf = ui->g->small;
    int bh = ren_font_height(sf) + 10, by = rc.y + (rc.h - bh) / 2;
    char key[32], les[96], help[96]; /* with their keys (cmd_table.c) */
    snprintf(les, sizeof les, "%s (%s)", _("Lessons"), cmd_key_of("lessons", key, sizeof key));
    snprintf(help, sizeof help, "%s %s", cmd_key_of("help", key, sizeof key), _("help"));
    int lw = ren_text_width(sf, les) + 18, gw = ren_text_width(sf, "EN | 中文") + 18;
    int hw = ren_text_width(sf, help) + 16;
    int rx = rc.x + rc.w - hw - gw - lw - 16;
    if (rx > x + 40) {
        if (ui_button(ui, (Rect){rx, by, lw, bh}, les, lesson_ui_active(a) || lesson_ui_list_open(a)))
            lesson_ui_toggle_list(a);
        /* the language switch names both languages in their own script */
        if (ui_button(ui, (Rect){rx + lw + 6, by, gw, bh}, a->look.lang ? "中文 | EN" : "EN | 中文", 0))
            lesson_ui_set_lang(a, !a->look.lang);
        ren_text(ui->r, sf, help, rc.x + rc.w - hw + 4, rc.y + (rc.h - ren_font_height(sf)) / 2, th->dim);
    } else {
        rx = rc.x + rc.w - 8;
    }
    ui_text_fit(ui->r, ui->g->ui, t, x, sy, rx - x - 12, th->text);
}

static const char *view_label(const App *a, ViewId v, StageKind k)
{
    if (v == VIEW_MATRIX && k == SK_TOKENS)
        return _("Tokens");
    return explain_view_label(a, v, _(v > VIEW_AUTO && v < VIEW_COUNT ? VIEWS[v]->label : view_name(v)));
}

/* What a click on the tabs asks for; drawing changes nothing, so it is
 * applied after the frame (a tab: VIEW_COUNT none; a sentence: -1 none). */
typedef struct TabWish {
    ViewId tab;
    int batch;
} TabWish;

/* The tabs from the first one on that fit before limit (the » button's
 * width reserved when some do not): how many. */
static int tabs_fitting(UiCtx *ui, const App *a, const ViewId *ch, int n, int x, int limit, StageKind kind)
{
    int k = 0;
    for (; k < n; k++) {
        int w = ren_text_width(ui->g->small, view_label(a, ch[k], kind)) + 18;
        if (x + w > limit)
            break;
        x += w + 4;
    }
    return k;
}

static void draw_tabs(UiCtx *ui, App *a, Rect rc, TabWish *wish)
{
    a->tabs_more.n = a->tabs_more.n_bar = 0;
    a->tabs_more.button = (Rect){0, 0, 0, 0};
    if (rc.h <= 0 || rc.w <= 0) {
        a->tabs_more.open = 0;
        return;
    }
    ViewId ch[APP_MAX_VIEW_CHOICES];
    int n = app_view_choices(a, ch);
    ViewId cur = app_current_view(a);
    StageKind kind = stage_info(app_pos(a).stage)->kind;
    int x = rc.x + 8;
    /* the sentence of the batch, unless the view has its own chooser (the
     * mask view's buttons, with each sentence's length) */
    int choose = a->ses.n_src > 1 && cur != VIEW_MASK;
    int limit = rc.x + rc.w - (choose ? a->ses.n_src * (rc.h + 7) + 8 : 0);
    int fit = tabs_fitting(ui, a, ch, n, x, limit, kind);
    char more[96] = "»";
    if (fit < n) { /* the rest go to a list under a » button at the end */
        int mw = ren_text_width(ui->g->small, more) + 18;
        fit = tabs_fitting(ui, a, ch, n, x, limit - mw - 4, kind);
        int cur_listed = 0;
        for (int i = fit; i < n && a->tabs_more.n < 16; i++) {
            a->tabs_more.view[a->tabs_more.n++] = ch[i];
            cur_listed |= ch[i] == cur;
        }
        if (cur_listed) { /* the view shown is in the list: the button names it, if it can */
            int xe = x;
            for (int i = 0; i < fit; i++)
                xe += ren_text_width(ui->g->small, view_label(a, ch[i], kind)) + 22;
            char named[96];
            snprintf(named, sizeof named, "» %s", view_label(a, cur, kind));
            if (xe + ren_text_width(ui->g->small, named) + 18 <= limit)
                snprintf(more, sizeof more, "%s", named);
        }
    } else {
        a->tabs_more.open = 0;
    }
    for (int i = 0; i < fit; i++) {
        const char *lab = view_label(a, ch[i], kind);
        int w = ren_text_width(ui->g->small, lab) + 18;
        int active = cur == ch[i] || (cur == VIEW_HEADS && ch[i] == VIEW_HEADS);
        const char *tag = ren_text_tag("view"); /* the label is the view's (ViewDef) */
        Rect b = {x, rc.y + 4, w, rc.h - 6};
        int hit = ui_button(ui, b, lab, active);
        ren_text_tag(tag);
        if (a->tabs_more.n_bar < 16) {
            a->tabs_more.bar_view[a->tabs_more.n_bar] = ch[i];
            a->tabs_more.bar[a->tabs_more.n_bar++] = b;
        }
        if (hit)
            wish->tab = ch[i];
        x += w + 4;
    }
    if (a->tabs_more.n) {
        int shown = 0;
        for (int i = 0; i < a->tabs_more.n; i++)
            shown |= a->tabs_more.view[i] == cur;
        int w = ren_text_width(ui->g->small, more) + 18;
        Rect b = {x, rc.y + 4, w, rc.h - 6};
        a->tabs_more.button = b;
        if (ui_button(ui, b, more, shown || a->tabs_more.open))
            a->tabs_more.open = !a->tabs_more.open;
    }
    /* the sentence of the batch, right-aligned so it is never cut */
    if (choose) {
        int bw = rc.h + 4, lw = ren_text_width(ui->g->small, _("sentence"));
        int sx = rc.x + rc.w - a->ses.n_src * (bw + 3) - lw - 12;
        if (sx < x) { /* no room for the label: buttons only */
            sx = rc.x + rc.w - a->ses.n_src * (bw + 3) - 4;
            lw = -6;
        }
        if (lw > 0)
            ren_text(ui->r, ui->g->small, _("sentence"), sx, rc.y + (rc.h - ren_font_height(ui->g->small)) / 2, ui->th->dim);
        sx += lw + 6;
        for (int b = 0; b < a->ses.n_src; b++) {
            char s[16];
            snprintf(s, sizeof s, "%d", b + 1);
            if (ui_button(ui, (Rect){sx, rc.y + 4, bw, rc.h - 6}, s, a->ses.batch == b))
                wish->batch = b;
            sx += bw + 3;
        }
    }
}

/* A click while the list of the tabs that do not fit is open: on one of
 * them it picks it, anywhere else it closes the list; either way the click
 * is used (the view under the list does not get it). Runs before the frame
 * is drawn, on where the last frame drew the list. */
static void tabs_more_click(App *a, TabWish *wish)
{
    if (!a->tabs_more.open || !a->ui.in.pressed)
        return;
    for (int i = 0; i < a->tabs_more.n; i++)
        if (ui_over(&a->ui.in, a->tabs_more.item[i]))
            wish->tab = a->tabs_more.view[i];
    a->tabs_more.open = 0;
    a->ui.in.pressed = 0;
    a->redraw_soon = 1;
}

/* The list of the tabs that do not fit, under the » button, over the view. */
static void draw_tabs_more(UiCtx *ui, App *a, int W)
{
    if (!a->tabs_more.n)
        a->tabs_more.open = 0;
    if (!a->tabs_more.open)
        return;
    const Theme *th = ui->th;
    RenFont *f = ui->g->small;
    StageKind kind = stage_info(app_pos(a).stage)->kind;
    ViewId cur = app_current_view(a);
    int fh = ren_font_height(f), row = fh + 12, w = 0;
    for (int i = 0; i < a->tabs_more.n; i++) {
        int k = ren_text_width(f, view_label(a, a->tabs_more.view[i], kind));
        w = k > w ? k : w;
    }
    w += 32;
    Rect b = a->tabs_more.button;
    Rect box = {b.x + b.w - w, b.y + b.h + 2, w, a->tabs_more.n * row + 8};
    if (box.x + box.w > W - 4)
        box.x = W - 4 - box.w;
    if (box.x < 4)
        box.x = 4;
    ren_rect(ui->r, (Rect){box.x + 3, box.y + 3, box.w, box.h}, (Color){0, 0, 0, 90}); /* a shadow */
    ren_rect(ui->r, box, th->panel2);
    ren_rect_line(ui->r, box, 1, th->select);
    const char *tag = ren_text_tag("view"); /* the labels are the views' (ViewDef) */
    for (int i = 0; i < a->tabs_more.n; i++) {
        Rect it = {box.x + 4, box.y + 4 + i * row, box.w - 8, row};
        a->tabs_more.item[i] = it;
        int on = a->tabs_more.view[i] == cur;
        if (on || ui_over(&ui->in, it))
            ren_rect(ui->r, it, on ? th->accent : th->panel);
        ren_text(ui->r, f, view_label(a, a->tabs_more.view[i], kind), it.x + 12, it.y + (row - fh) / 2,
                 on ? th->bg : th->text);
        /* Tab reaches it (the list's stops follow the » button), Enter picks it;
         * a click was taken before the frame (tabs_more_click) */
        if (ui_tab_stop(ui, ui_id(ui, &a->tabs_more.view[i], sizeof a->tabs_more.view[i]), it, UI_STOP_PRESS)) {
            a->tabs_more.open = 0;
            app_pick_tab(a, a->tabs_more.view[i]);
            a->redraw_soon = 1;
        }
    }
    ren_text_tag(tag);
    a->tabs_more.box = box;
}

/* An input line: its label, the text box (the widget context edits it:
 * ui_text.c) and, beside the source, the >>lang<< tags of a many-language
 * model. Drawn even when there is no room, so that its focus holds. */
static void draw_input(UiCtx *ui, App *a, Rect rc, int side)
{
    const Theme *th = ui->th;
    char *text = side == APP_LINE_SRC ? a->ses.src_line : a->ses.tgt;
    if (rc.h <= 0) {
        ui_textbox(ui, app_line_id(a, side), text, APP_TEXT_MAX, (Rect){0, 0, 0, 0}, NULL, 0);
        return;
    }
    RenFont *f = ui->g->ui;
    int fh = ren_font_height(f);
    ren_rect(ui->r, rc, th->panel);
    const char *label = side == APP_LINE_SRC ? _("Source") : _("Target");
    int sw = ren_text_width(f, _("Source")), tw = ren_text_width(f, _("Target"));
    int lw = (sw > tw ? sw : tw) + 24;
    ren_text(ui->r, f, label, rc.x + 12, rc.y + (rc.h - fh) / 2, th->dim);
    int cw = side == APP_LINE_SRC ? model_ui_chooser_width(ui, a) : 0; /* >>lang<< tags */
    Rect box = {rc.x + lw, rc.y + 4, rc.w - lw - 12 - (cw ? cw + 8 : 0), rc.h - 8};
    Rect chooser = {box.x + box.w + 8, box.y, cw, box.h}; /* drawn after the field: Tab reads left to right */
    char hint[APP_TEXT_MAX + 96];
    const char *base = a->ses.ext.base_translation, *hid = _("hidden until you predict");
    int hide = lesson_ui_hides_output(a);
    /* sentencepiece's ▁ as the mark the tokens show (ui_token) */
    char shown[APP_TEXT_MAX], shown_base[APP_TEXT_MAX];
    ui_token(a->ses.translation, shown, sizeof shown);
    ui_token(base, shown_base, sizeof shown_base);
    if (side == APP_LINE_TGT && session_has_exp(&a->ses))
        /* one story: the decoder input of both passes is the normal pass's
         * greedy output (session.c, target_step), not the experiment's */
        snprintf(hint, sizeof hint, _("empty: both passes read the normal greedy translation «%s»; the experiment's own: «%s»"),
                 hide ? hid : shown_base[0] ? shown_base : "…",
                 hide ? hid : session_exp_pending(&a->ses) ? "…" : shown);
    else if (side == APP_LINE_TGT && a->ses.input_error[0]) /* nothing is being computed */
        snprintf(hint, sizeof hint, "%s", _("empty: the decoder reads the greedy translation of the source, once there is one"));
    else if (side == APP_LINE_TGT)
        snprintf(hint, sizeof hint, _("empty: the decoder reads its own greedy translation  «%s»"),
                 hide ? hid : shown[0] ? shown : "…");
    else
        snprintf(hint, sizeof hint, "%s", _("type a sentence (up to 4, separated by |)"));
    /* a visible clear button (Ctrl+U does the same) */
    Rect clear = {0, 0, 0, 0};
    if (text[0] && box.w > 6 * box.h) {
        clear = (Rect){box.x + box.w - box.h, box.y, box.h, box.h};
        box.w -= box.h + 4;
    }
    ui_textbox(ui, app_line_id(a, side), text, APP_TEXT_MAX, box, hint, 0);
    if (clear.w) {
        const char *tag = ren_text_tag("clear"); /* for the tests */
        int band = ui->group;
        ui_tab_group(ui, -1); /* no stop of the ring: Tab goes from Source to Target (Ctrl+U clears) */
        int hit = ui_button(ui, clear, "×", 0);
        ui_tab_group(ui, band);
        ren_text_tag(tag);
        if (hit) {
            app_set_text(a, side, "");
            app_focus_line(a, side);
        }
    }
    if (cw)
        model_ui_chooser_draw(ui, a, chooser);
    /* a click beside the field (on its label, around it) gives it the keyboard */
    Rect band = {rc.x, rc.y, box.x + box.w - rc.x + 4, rc.h};
    if (ui_clicked(&ui->in, band) && !ui_over(&ui->in, box))
        app_focus_line(a, side);
}

static void draw_status(UiCtx *ui, App *a, Rect rc)
{
    const Theme *th = ui->th;
    RenFont *f = ui->g->small;
    int fh = ren_font_height(f), y = rc.y + (rc.h - fh) / 2;
    ren_rect(ui->r, rc, th->panel2);
    char buf[700];
    StagePos p = app_pos(a);
    TfView tv;
    TfErr err;
    int head = a->ses.head < 0 && (stage_info(p.stage)->flags & SF_HEAD) ? 0 : a->ses.head;
    int x = rc.x + 10;
    if (!a->ses.input_error[0] && tf_view(&a->ses.trace, p.stage, p.layer, head, a->ses.batch, &tv, &err) == 0) {
        snprintf(buf, sizeof buf, "%s  [%d × %d]", stage_info(p.stage)->name, tv.rows, tv.cols);
        x += ren_text(ui->r, f, buf, x, y, th->text) + 20;
    }
    if (a->notice[0] && a->now < a->notice_until) {
        ui_text_fit(ui->r, f, a->notice, x, y, rc.x + rc.w - x - 10, a->notice_error ? th->warn : th->good);
        return;
    }
    if (!a->hover.valid && !lesson_ui_hides_output(a) && app_exp_status(a, buf, sizeof buf)) {
        ui_text_fit(ui->r, f, buf, x, y, rc.x + rc.w - x - 10, th->accent);
        return;
    }
    if (a->hover.valid) {
        char val[32];
        if (!a->hover.own && (a->hover.stage == ST_SRC_TOKENS || a->hover.stage == ST_TGT_TOKENS)) /* a token id */
            snprintf(val, sizeof val, "%d", (int)a->hover.value);
        else if (isinf(a->hover.value))
            snprintf(val, sizeof val, a->hover.value < 0 ? "−∞" : "+∞");
        else
            snprintf(val, sizeof val, "%.9g", a->hover.value);
        snprintf(buf, sizeof buf, "%s = %s", a->hover.where, val);
        ui_text_fit(ui->r, f, buf, x, y, rc.x + rc.w - x - 10, th->select);
    } else if (a->ses.n_unk) {
        snprintf(buf, sizeof buf, a->ses.n_unk == 1 ? _("1 unknown word shown as <unk>")
                                                    : _("%d unknown words shown as <unk>"), a->ses.n_unk);
        ren_text(ui->r, f, buf, x, y, th->warn);
    } else { /* the keys of the tab shown (cmd_table.c) */
        ui_text_fit(ui->r, f, cmd_status_hint(app_current_view(a), buf, sizeof buf), x, y, rc.x + rc.w - x - 10,
                    th->dim);
    }
}

/* ---- the `?` overlay: every key that works in the tab shown, from the
 * command table (cmd_table.c): the tab's own keys, then those that work
 * everywhere and the tab leaves alone, the Experiments panel's, and a
 * lesson's or the lesson list's while one is open. The lines are packed
 * into as few columns as fit the window, in the bigger font when it fits;
 * a help text too long for its column wraps (only presenter text on a
 * small screen cuts texts, and never a key). ---- */

#define HELP_MAX_LINES 128
#define HELP_MAX_COLS 4
#define HELP_PAD 12 /* between the keys and their text; the box's margin */
#define HELP_GAP 20 /* between columns */

/* A line of the overlay: a section title (keys NULL) or a key line. */
typedef struct HelpItem {
    const char *keys;
    const char *text; /* translated */
} HelpItem;

typedef struct HelpList {
    HelpItem it[HELP_MAX_LINES];
    char titles[CS_COUNT][128];
    CmdLine lines[HELP_MAX_LINES];
    int n, nl;
} HelpList;

static void add_scope(HelpList *h, CmdScope scope, ViewId tab)
{
    int room = HELP_MAX_LINES - h->nl;
    int n = cmd_help_lines(scope, tab, h->lines + h->nl, room);
    if (n == 0 || h->n + n + 1 > HELP_MAX_LINES)
        return;
    h->it[h->n++] = (HelpItem){NULL, cmd_scope_title(scope, tab, h->titles[scope], sizeof h->titles[scope])};
    for (int i = 0; i < n; i++, h->nl++)
        h->it[h->n++] = (HelpItem){h->lines[h->nl].keys, _(h->lines[h->nl].help)};
}

/* The sections of the tab shown, in the order the keys are looked up in
 * (the lists first while they are open). */
static void help_list(HelpList *h, const App *a, ViewId tab)
{
    h->n = h->nl = 0;
    if (lesson_ui_list_open(a))
        add_scope(h, CS_LESSON_LIST, VIEW_AUTO);
    if (lesson_ui_active(a) && !lesson_ui_list_open(a))
        add_scope(h, CS_LESSON, VIEW_AUTO);
    add_scope(h, CS_TAB, tab);
    add_scope(h, CS_GLOBAL, tab);
    add_scope(h, CS_EXP, tab);
}

/* A way to lay the list out: a font, its line step, columns and their
 * widths (key column kw, text column tw); the items that fit (all but a
 * window too small for them) and where each column starts. */
typedef struct HelpFit {
    RenFont *f;
    int step, cols, kw, tw, col_h, shown;
    int cut; /* texts on one line each, cut with an ellipsis */
    int starts[HELP_MAX_COLS + 1];
} HelpFit;

static int item_lines(const HelpFit *fit, const HelpItem *it)
{
    return it->keys && !fit->cut ? ren_text_wrap(fit->f, it->text, fit->tw, NULL, 0) : 1;
}

/* Pack the items into fit->cols columns no taller than room; a title
 * never ends a column. Sets fit->shown to the items placed (all of them
 * when they fit), the columns used and the tallest one. */
static void pack(HelpFit *fit, const HelpList *h, int room)
{
    int col = 0, y = 0, i = 0;
    fit->starts[0] = 0;
    fit->col_h = 0;
    for (; i < h->n; i++) {
        int title = !h->it[i].keys, lines = item_lines(fit, &h->it[i]) * fit->step;
        int above = title && y > 0 ? fit->step / 2 : 0; /* space before a section */
        int need = above + lines + (title && i + 1 < h->n ? item_lines(fit, &h->it[i + 1]) * fit->step : 0);
        if (y + need > room && (y > 0 || col + 1 < fit->cols)) {
            if (col + 1 >= fit->cols)
                break;
            fit->starts[++col] = i;
            y = above = 0;
        }
        y += above + lines;
        fit->col_h = y > fit->col_h ? y : fit->col_h;
    }
    fit->shown = i;
    fit->cols = col + 1;
    for (int c = col + 1; c <= HELP_MAX_COLS; c++)
        fit->starts[c] = i;
}

/* Font f with line gap, in cols columns of a W-wide window: 0 when the
 * text column would be too narrow to read. */
static int measure(HelpFit *fit, const HelpList *h, RenFont *f, int gap, int cols, int W)
{
    fit->f = f;
    fit->cut = 0;
    fit->step = ren_font_height(f) + gap;
    fit->cols = cols;
    fit->kw = fit->tw = 0;
    for (int i = 0; i < h->n; i++) {
        int k = h->it[i].keys ? ren_text_width(f, h->it[i].keys) : 0, t = ren_text_width(f, h->it[i].text);
        fit->kw = k > fit->kw ? k : fit->kw;
        fit->tw = t > fit->tw ? t : fit->tw;
    }
    int col_w = (W - 4 * HELP_PAD - (cols - 1) * HELP_GAP) / cols;
    if (fit->kw + HELP_PAD + fit->tw > col_w)
        fit->tw = col_w - fit->kw - HELP_PAD;
    return fit->tw >= 6 * ren_font_height(f);
}

/* The first layout that shows every line in W x H: the ui font with roomy
 * lines, then tighter, then the small font; one column, then more. On a
 * window too small for that (presenter text on a small screen), the small
 * font with each text on one line, cut where it is too long; smaller still,
 * as many lines as fit and a last line that says so. */
static HelpFit help_fit(UiCtx *ui, const HelpList *h, int W, int H)
{
    RenFont *fonts[3] = {ui->g->ui, ui->g->small, ui->g->small};
    int room = H - 20 - 2 * HELP_PAD - ren_font_height(ui->g->title) - 8;
    HelpFit fit, best = {0};
    for (int fi = 0; fi < 3; fi++)
        for (int gap = 4; gap >= 1; gap -= 3)
            for (int cols = 1; cols <= HELP_MAX_COLS; cols++) {
                if (!measure(&fit, h, fonts[fi], gap, cols, W))
                    continue;
                fit.cut = fi == 2;
                pack(&fit, h, room);
                if (fit.shown == h->n)
                    return fit;
                if (fit.cut && fit.shown > best.shown)
                    best = fit;
            }
    if (!best.f) { /* not even one readable column: one, cut */
        measure(&best, h, ui->g->small, 1, 1, W);
        best.cut = 1;
    }
    pack(&best, h, room - best.step); /* room for the note */
    return best;
}

static void draw_help(UiCtx *ui, const App *a, int W, int H)
{
    static HelpList h; /* the window's one overlay: too big for the stack */
    const Theme *th = ui->th;
    help_list(&h, a, app_current_view(a));
    HelpFit fit = help_fit(ui, &h, W, H);
    const char *tag = ren_text_tag("help"); /* for the tests of what it shows */
    int col_w = fit.kw + HELP_PAD + fit.tw, more = fit.shown < h.n;
    int w = fit.cols * col_w + (fit.cols - 1) * HELP_GAP + 2 * HELP_PAD;
    int h_box = fit.col_h + (more ? fit.step : 0) + ren_font_height(ui->g->title) + 2 * HELP_PAD + 8;
    Rect box = ui_overlay(ui->r, ui->th, W, H, w < W - 20 ? w : W - 20, h_box < H - 20 ? h_box : H - 20);
    int y0 = box.y + HELP_PAD;
    ren_text(ui->r, ui->g->title, _("Keys"), box.x + HELP_PAD, y0, th->accent);
    y0 += ren_font_height(ui->g->title) + 8;
    for (int c = 0; c < fit.cols; c++) {
        int x = box.x + HELP_PAD + c * (col_w + HELP_GAP), y = y0;
        for (int i = fit.starts[c]; i < fit.starts[c + 1]; i++) {
            const HelpItem *it = &h.it[i];
            if (!it->keys) {
                if (y > y0)
                    y += fit.step / 2;
                ren_text(ui->r, fit.f, it->text, x, y, th->accent);
                y += fit.step;
                continue;
            }
            ren_text(ui->r, fit.f, it->keys, x, y, th->select);
            if (fit.cut)
                ui_text_fit(ui->r, fit.f, it->text, x + fit.kw + HELP_PAD, y, fit.tw, th->text);
            else
                ui_paragraph(ui->r, fit.f, it->text, x + fit.kw + HELP_PAD, y, fit.tw, th->text);
            y += item_lines(&fit, it) * fit.step;
        }
    }
    if (more)
        ui_text_fit(ui->r, fit.f, _("… and more keys than this window can show: stepformer keys lists them all"),
                    box.x + HELP_PAD, y0 + fit.col_h, box.w - 2 * HELP_PAD, th->warn);
    ren_text_tag(tag);
    ren_clip_pop(ui->r);
}

/* How far the main view has eased in after a stage change: 0..1. */
static float anim_of(const App *a)
{
    double dt = a->now - a->anim_start;
    return dt >= 0.25 ? 1.0f : (float)(dt / 0.25);
}

/* What D shows while an experiment is on, for the banner. */
static const char *const CMP_SHOWN[CMP_COUNT] = {
    N_("showing the experiment's pass"), N_("showing the normal pass (D: difference)"),
    N_("showing the difference experiment − normal"),
};

/* The band over the view while an experiment is on: which one (in the
 * window's numbering) and what D shows, on one line when both fit, else the
 * experiment wrapped (three lines at most) over what D shows; h 0 with none. */
typedef struct Banner {
    char text[800];
    const char *shown;
    int one_line, text_lines, h;
} Banner;

static void banner_make(const UiCtx *ui, const App *a, int w, Banner *b)
{
    b->h = 0;
    if (!session_has_exp(&a->ses))
        return;
    RenFont *f = ui->g->small;
    int fh = ren_font_height(f), room = w - 16;
    char words[512];
    app_exp_words(&a->ses, a->look.lang, words, sizeof words);
    snprintf(b->text, sizeof b->text, _("EXPERIMENT: %s"), words);
    b->shown = _(CMP_SHOWN[a->cmp >= 0 && a->cmp < CMP_COUNT ? a->cmp : 0]);
    b->one_line = ren_text_width(f, b->text) + ren_text_width(f, b->shown) + 24 <= room;
    b->text_lines = b->one_line ? 1 : ren_text_wrap(f, b->text, room, NULL, 0);
    if (b->text_lines > 3)
        b->text_lines = 3;
    b->h = (b->one_line ? 1 : b->text_lines + 1) * fh + 10;
}

static void draw_banner(UiCtx *ui, const Banner *b, Rect rc)
{
    const Theme *th = ui->th;
    RenFont *f = ui->g->small;
    int fh = ren_font_height(f);
    Color band = th->warn;
    band.a = 48;
    ren_rect(ui->r, rc, th->bg);
    ren_rect(ui->r, rc, band);
    ren_rect_line(ui->r, rc, 1, th->warn);
    const char *tag = ren_text_tag("banner"); /* for the tests of what it says */
    int y = rc.y + 5, sw = ren_text_width(f, b->shown);
    if (b->one_line) {
        ren_text(ui->r, f, b->shown, rc.x + rc.w - 8 - sw, y, th->text);
        ren_text(ui->r, f, b->text, rc.x + 8, y, th->warn);
    } else {
        ren_clip_push(ui->r, (Rect){rc.x + 8, y, rc.w - 16, b->text_lines * fh});
        ui_paragraph(ui->r, f, b->text, rc.x + 8, y, rc.w - 16, th->warn);
        ren_clip_pop(ui->r);
        ui_text_fit(ui->r, f, b->shown, rc.x + 8, y + b->text_lines * fh, rc.w - 16, th->text);
    }
    ren_text_tag(tag);
}

static void draw_main(UiCtx *ui, App *a, Rect area)
{
    const Theme *th = ui->th;
    a->view_rect = area;
    a->drawn.what = DRAWN_NOTHING;
    if (area.w < 20 || area.h < 20)
        return;
    Banner b;
    banner_make(ui, a, area.w, &b);
    if (b.h && area.h > 3 * b.h) { /* on every view, the decode and train tabs too */
        draw_banner(ui, &b, (Rect){area.x, area.y, area.w, b.h});
        area.y += b.h + 4;
        area.h -= b.h + 4;
    }
    ViewId view = app_current_view(a);
    if (a->ses.input_error[0] && view != VIEW_TRAIN) {
        /* what this input is (the × cleared it, say): the error, not a
         * view of the pass before, nor the cue of one being computed */
        ui_paragraph(ui->r, ui->g->title, a->ses.input_error, area.x + 20, area.y + 40,
                     area.w - 40, th->warn);
        a->drawn.what = DRAWN_ERROR;
        a->drawn.version = a->ses.version;
        a->drawn.computing = 0;
        return;
    }
    ren_clip_push(ui->r, area);
    ViewCtx v = {NULL, NULL, NULL, a->pz, ui, ui->r, ui->g, ui->th, area, &ui->in, anim_of(a)};
    app_draw_view(a, &v, view);
    ren_clip_pop(ui->r);
    /* ease in after a stage change: a veil that fades out */
    float t = v.anim;
    if (t < 1.0f) {
        Color veil = th->bg;
        veil.a = (uint8_t)lroundf(200 * (1.0f - glm_ease_cubic_inout(t)));
        ren_rect(ui->r, area, veil);
    }
}

void app_draw_view_alone(App *a, Ren *r)
{
    app_update(a);
    ui_set_lang(a->look.lang);
    Gfx *g = app_gfx(a, r);
    const Theme *th = theme_get(a->look.theme);
    if (g)
        gfx_fonts(g, a->look.text_scale * a->look.pixel_scale, NULL);
    ren_begin(r, th->bg);
    if (!g || !g->ui)
        return;
    UiCtx *ui = &a->ui;
    UiInput keep = ui->in;
    Hover hover = a->hover;
    HeatGeo heat = a->heat;
    ui->in.mx = ui->in.my = -1; /* no cell outlined under the mouse */
    ui->in.pressed = ui->in.released = ui->in.rpressed = ui->in.wheel = 0;
    ui_bind(ui, r, g, th, a->now);
    draw_main(ui, a, a->view_rect);
    ui->in = keep;
    a->hover = hover;
    a->heat = heat;
}

void app_frame(App *a, Ren *r)
{
    app_draw(a, r);
    ren_end(r);
}

int app_next_wake_ms(const App *a)
{
    double wait = -1;
    if (a->redraw_soon)
        return 1;
    if (a->now - a->anim_start < 0.3)
        wait = 0.016;
    double caret = ui_caret_wait(&a->ui); /* the blinking cursor's next change, if any */
    if (caret >= 0)
        wait = wait < 0 || wait > caret + 0.002 ? caret + 0.002 : wait;
    if (a->notice[0] && a->now < a->notice_until) {
        double left = a->notice_until - a->now + 0.01;
        wait = wait < 0 || wait > left ? left : wait;
    }
    if (a->wake_at > 0) {
        double left = a->wake_at - a->now;
        if (left < 0.001)
            left = 0.001;
        wait = wait < 0 || wait > left ? left : wait;
    }
    if (a->play.on) {
        double left = a->play.next - a->now;
        if (left < 0.001)
            left = 0.001;
        wait = wait < 0 || wait > left ? left : wait;
    }
    return wait < 0 ? -1 : (int)(wait * 1000) + 1;
}

/* The bands of the window in the order Tab goes through them: the top
 * bar, the stage strip and the tabs, the input lines, the navigator, the
 * view, the Experiments panel, the explanation or lesson panel, the
 * status line, and what opens over them. */
enum TabBand { TAB_TOP = 1, TAB_TABS, TAB_SOURCE, TAB_TARGET, TAB_NAV, TAB_VIEW, TAB_EXP, TAB_PANEL, TAB_STATUS, TAB_OVER };

void app_draw(App *a, Ren *r)
{
    if (a->play.on && a->now >= a->play.next) {
        if (a->ses.at + 1 >= a->ses.n_walk)
            a->play.on = 0;
        else
            app_step(a, 1);
        a->play.next = a->now + 1.6;
    }
    app_update(a);
    ui_set_lang(a->look.lang);
    Gfx *g = app_gfx(a, r);
    const Theme *th = theme_get(a->look.theme);
    int W, H;
    ren_output_size(r, &W, &H);
    a->win.w = W;
    a->win.h = H;
    a->look.pixel_scale = ren_pixel_scale(r);
    if (g)
        gfx_fonts(g, a->look.text_scale * a->look.pixel_scale, NULL);
    ren_begin(r, th->bg);
    if (!g || !g->ui)
        return;
    if (model_ui_click(a)) /* a tag picked in the open list: the click is used */
        a->ui.in.pressed = 0;
    TabWish tabs = {VIEW_COUNT, -1};
    tabs_more_click(a, &tabs); /* a tab picked in the list of those that do not fit */
    a->hover.valid = 0;
    a->heat.valid = 0;
    a->wake_at = 0;
    a->redraw_soon = 0;
    UiCtx *ui = &a->ui;
    UiId focus = ui->focus;
    /* a click or the wheel changes state while the frame is built, after
     * some of it was drawn: the next frame shows it (no wait for a move) */
    int had_input = ui->in.pressed || ui->in.released || ui->in.rpressed || ui->in.wheel;
    ui_begin(ui, r, g, th, a->now);
    Layout L = layout(g, W, H);
    ren_rect(r, L.nav, th->panel);
    ren_rect(r, L.panel, th->panel);
    /* the Experiments panel docks at the top of the right panel, or beside
     * the view when there is none: never over the cells it changes */
    a->exp_rect = (Rect){0, 0, 0, 0};
    if (a->show_exp) {
        Rect *host = L.panel.w > 0 ? &L.panel : &L.main;
        int w = L.panel.w > 0 ? L.panel.w : (L.main.w / 2 < 300 ? L.main.w / 2 : 300);
        int h = app_exp_height(ui, w);
        if (h > host->h)
            h = host->h;
        if (L.panel.w > 0) {
            a->exp_rect = (Rect){host->x, host->y, w, h};
            host->y += h;
            host->h -= h;
        } else {
            a->exp_rect = (Rect){host->x + host->w - w, host->y, w, h};
            host->w -= w + 8;
        }
    }
    /* the parts are drawn in the order that keeps each above what it
     * overlaps; the keyboard's ring goes through their controls in
     * reading order (TabBand) */
    ui_tab_group(ui, TAB_VIEW);
    draw_main(ui, a, L.main);
    lesson_ui_overlay(ui, a, a->view_rect); /* a lesson's @predict hides what is to be predicted */
    ui_tab_group(ui, TAB_EXP);
    if (a->show_exp)
        app_exp_draw(ui, a, a->exp_rect);
    ui_tab_group(ui, TAB_TABS);
    ren_rect(r, L.steps, th->panel);
    steps_draw(ui, a, L.steps);
    draw_tabs(ui, a, L.tabs, &tabs);
    ui_tab_group(ui, TAB_NAV);
    if (L.nav.w > 0) {
        ren_clip_push(r, L.nav);
        nav_draw(ui, a, L.nav);
        ren_clip_pop(r);
    }
    ui_tab_group(ui, TAB_PANEL);
    if (L.panel.w > 0) {
        ren_clip_push(r, L.panel);
        if (lesson_ui_active(a))
            lesson_panel_draw(ui, a, L.panel);
        else
            explain_draw(ui, a, L.panel);
        ren_clip_pop(r);
    }
    ui_tab_group(ui, TAB_TOP);
    draw_top(ui, a, L.top);
    ui_tab_group(ui, TAB_SOURCE);
    draw_input(ui, a, L.src, APP_LINE_SRC);
    ui_tab_group(ui, TAB_TARGET);
    draw_input(ui, a, L.tgt, APP_LINE_TGT);
    ui_tab_group(ui, TAB_STATUS);
    draw_status(ui, a, L.status);
    ui_tab_group(ui, TAB_SOURCE); /* the >>lang<< tags: after their button, beside Source */
    model_ui_overlay(ui, a);
    ui_tab_group(ui, TAB_TABS); /* the tabs that did not fit: after the » button */
    draw_tabs_more(ui, a, W);
    ui_tab_group(ui, TAB_OVER);
    if (lesson_ui_list_open(a))
        lesson_list_draw(ui, a, W, H);
    if (a->show_help)
        draw_help(ui, a, W, H);
    app_scene_qr_draw(ui, a, W, H);
    /* a click outside a text field left it (ui_textbox); one not drawn
     * loses the keyboard here */
    ui_end(ui);
    if (had_input)
        a->redraw_soon = 1;
    if (ui->focus != focus)
        a->redraw_soon = 1; /* the field drawn before the focus moved shows it next frame */
    if (tabs.tab != VIEW_COUNT)
        app_pick_tab(a, tabs.tab);
    if (tabs.batch >= 0 && session_set_batch(&a->ses, tabs.batch))
        a->redraw_soon = 1;
}
