/* view_train_settings.c - what the next run of the train view will be:
 * the task (copy, reverse, sort, en2zh or a TSV file, split into words or
 * characters) and the size (a preset, or d_model, heads, layers and d_ff
 * one by one, with the warm-up and the learning-rate scale), as the choice
 * the window makes a run of, and their controls (chips, steppers, the file
 * path field). Every change is a wish that the settings changed: a run that
 * has not trained yet follows them once they settle, a trained one waits
 * for Reset (the window decides, train_host.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view_train.h"

static const char *const TASKS[TV_N_TASKS] = {N_("copy"), N_("reverse"), N_("sort"), "en2zh", "file"};

/* The choices of each setting. Powers of two keep d_model divisible by the
 * head count; the last learning-rate scales are there to watch training
 * diverge (1000) and break down into NaN (10^20). */
static const int CH_DMODEL[] = {16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192};
static const int CH_HEADS[] = {1, 2, 4, 8, 16, 32, 64, 128};
static const int CH_LAYERS[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64};
static const int CH_DFF[] = {32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536};
static const int CH_WARMUP[] = {50, 100, 200, 400, 800, 1600, 4000};
static const float CH_LR[] = {0.25f, 0.5f, 1.0f, 2.0f, 4.0f, 1000.0f, 1e20f};

#define COUNT(x) ((int)(sizeof x / sizeof x[0]))

typedef struct FieldDef {
    const char *name;
    const int *ints;
    const float *floats;
    int n;
} FieldDef;

static const FieldDef FIELDS[TVF_COUNT] = {
    {"d_model", CH_DMODEL, NULL, COUNT(CH_DMODEL)},
    {"n_heads", CH_HEADS, NULL, COUNT(CH_HEADS)},
    {"n_layers", CH_LAYERS, NULL, COUNT(CH_LAYERS)},
    {"d_ff", CH_DFF, NULL, COUNT(CH_DFF)},
    {N_("warm-up"), CH_WARMUP, NULL, COUNT(CH_WARMUP)},
    {N_("lr ×"), NULL, CH_LR, COUNT(CH_LR)},
};

/* classroom, base, big: d_model, heads, d_ff, layers (config.c) */
#define N_PRESETS 3
static const char *const PRESET_NAMES[N_PRESETS] = {N_("classroom"), N_("base"), N_("big")};
static const int PRESETS[N_PRESETS][4] = {{64, 4, 256, 2}, {512, 8, 2048, 6}, {1024, 16, 4096, 6}};

/* ---- small helpers ---- */

/* Choice i of setting f as a number. */
static double choice_of(TvField f, int i)
{
    return FIELDS[f].ints ? FIELDS[f].ints[i] : FIELDS[f].floats[i];
}

/* The index of setting f's choice nearest to x. */
static int index_of(TvField f, double x)
{
    int best = 0;
    for (int i = 0; i < FIELDS[f].n; i++)
        if (fabs(choice_of(f, i) - x) < fabs(choice_of(f, best) - x))
            best = i;
    return best;
}

/* The size fields at a preset's values. */
static void set_size(TrainUi *u, int p)
{
    u->val[TVF_DMODEL] = index_of(TVF_DMODEL, PRESETS[p][0]);
    u->val[TVF_HEADS] = index_of(TVF_HEADS, PRESETS[p][1]);
    u->val[TVF_DFF] = index_of(TVF_DFF, PRESETS[p][2]);
    u->val[TVF_LAYERS] = index_of(TVF_LAYERS, PRESETS[p][3]);
}

static int field_int(const TrainUi *u, TvField f)
{
    return FIELDS[f].ints ? FIELDS[f].ints[u->val[f]] : 0;
}

static float field_lr(const TrainUi *u)
{
    return CH_LR[u->val[TVF_LR]];
}

/* "0.25", "1000", "10²⁰" */
static void fmt_lr(char *buf, size_t cap, float x)
{
    if (x >= 1e6f)
        snprintf(buf, cap, "10²⁰");
    else
        snprintf(buf, cap, "%g", (double)x);
}

static void field_text(const TrainUi *u, TvField f, char *buf, size_t cap)
{
    if (f == TVF_LR)
        fmt_lr(buf, cap, field_lr(u));
    else
        snprintf(buf, cap, "%d", field_int(u, f));
}

/* The preset the size fields match, or -1 (custom). */
int tv_preset_of(const TrainUi *u)
{
    for (int p = 0; p < N_PRESETS; p++)
        if (field_int(u, TVF_DMODEL) == PRESETS[p][0] && field_int(u, TVF_HEADS) == PRESETS[p][1] &&
            field_int(u, TVF_DFF) == PRESETS[p][2] && field_int(u, TVF_LAYERS) == PRESETS[p][3])
            return p;
    return -1;
}

void tv_choice(const TrainUi *u, TrainChoice *c)
{
    memset(c, 0, sizeof *c);
    if (u->task == TV_TASK_FILE) {
        c->path = u->path;
        c->tokens_char = u->tokens_char;
    } else {
        snprintf(c->task, sizeof c->task, "%s", TASKS[u->task]);
    }
    c->d_model = field_int(u, TVF_DMODEL);
    c->n_heads = field_int(u, TVF_HEADS);
    c->n_layers = field_int(u, TVF_LAYERS);
    c->d_ff = field_int(u, TVF_DFF);
    c->warmup = field_int(u, TVF_WARMUP);
    c->lr_scale = field_lr(u);
}

int tv_typing(ViewCtx *v, const TrainUi *u)
{
    return ui_editing(v->ui, u->path);
}

void tv_set_task(TrainUi *u, int task)
{
    u->task = ((task % TV_N_TASKS) + TV_N_TASKS) % TV_N_TASKS;
    tv_wish(u, &u->wish.settings);
}

/* The keyboard to the path field (cursor at its end). */
static void tv_focus_field(ViewCtx *v, TrainUi *u)
{
    ui_focus_text(v->ui, ui_id_ptr(v->ui, u->path), u->path, (int)sizeof u->path);
}

/* Type in the file path field (the F key, or a click on "TSV file…"). */
void tv_focus_path(ViewCtx *v, TrainUi *u)
{
    u->task = TV_TASK_FILE;
    tv_focus_field(v, u);
    u->path_clicked = 1; /* this frame's click is not "outside" */
}

void tv_set_field(TrainUi *u, TvField f, int index)
{
    int n = FIELDS[f].n;
    u->val[f] = index < 0 ? 0 : index >= n ? n - 1 : index;
    tv_wish(u, &u->wish.settings);
}

int tv_set_heads(TrainUi *u, int heads)
{
    int i = index_of(TVF_HEADS, heads);
    if (CH_HEADS[i] != heads)
        return -1;
    tv_set_field(u, TVF_HEADS, i);
    return 0;
}

void tv_set_preset(TrainUi *u, int p)
{
    set_size(u, ((p % N_PRESETS) + N_PRESETS) % N_PRESETS);
    tv_wish(u, &u->wish.settings);
}

/* One setting: "d_model ◀ 64 ▶"; the selected one (X) is outlined. */
static void draw_stepper(UiFlow *f, TrainUi *u, TvField k)
{
    const Theme *th = f->ui->th;
    RenFont *sf = f->ui->g->small;
    char val[32];
    field_text(u, k, val, sizeof val);
    int bw = ren_text_width(sf, "◀") + ui_px(f->ui->g, 10);
    const char *name = _(FIELDS[k].name);
    int lw = ren_text_width(sf, name) + ui_px(f->ui->g, 6);
    int vw = ren_text_width(sf, "65536") + ui_px(f->ui->g, 8);
    Rect r = ui_flow_next(f, lw + 2 * bw + vw);
    if (u->field == (int)k)
        ren_rect_line(f->ui->r, (Rect){r.x - 4, r.y - 2, r.w + 6, r.h + 4}, 1, th->select);
    ren_text(f->ui->r, sf, name, r.x, r.y + (r.h - ren_font_height(sf)) / 2,
             u->field == (int)k ? th->select : th->dim);
    if (ui_button(f->ui, (Rect){r.x + lw, r.y, bw, r.h}, "◀", 0)) {
        u->field = k;
        tv_set_field(u, k, u->val[k] - 1);
    }
    ui_text_center(f->ui->r, sf, val, (Rect){r.x + lw + bw, r.y, vw, r.h}, th->text);
    if (ui_button(f->ui, (Rect){r.x + lw + bw + vw, r.y, bw, r.h}, "▶", 0)) {
        u->field = k;
        tv_set_field(u, k, u->val[k] + 1);
    }
}

/* The file path: a text field of the view (ui_textbox). */
static Rect draw_path_field(UiFlow *f, TrainUi *u)
{
    int w = f->rc.x + f->rc.w - f->x;
    if (w < ui_px(f->ui->g, 240))
        w = f->rc.w;
    Rect box = ui_flow_next(f, w);
    ui_textbox(f->ui, ui_id_ptr(f->ui, u->path), u->path, (int)sizeof u->path, box,
               _("path of a TSV file: one “source<TAB>target” pair a line, then Enter"), UI_SMALL);
    return box;
}

/* Task and size; the size fields and the file path when asked for. Returns
 * the path field's rectangle (w 0 when not drawn). */
Rect tv_settings_draw(ViewCtx *v, UiFlow *f, TrainUi *u)
{
    const Theme *th = f->ui->th;
    Rect path = {0, 0, 0, 0};
    ui_flow_text(f, _("task"), th->dim);
    for (int t = 0; t < TV_N_TASKS; t++)
        if (tv_control(f, t == TV_TASK_FILE ? _("TSV file…") : _(TASKS[t]), u->task == t, &u->hit.task[t])) {
            if (t == TV_TASK_FILE)
                tv_focus_path(v, u);
            else
                tv_set_task(u, t);
        }
    f->x += ui_px(f->ui->g, 10);
    ui_flow_text(f, _("size"), th->dim);
    int p = tv_preset_of(u);
    for (int k = 0; k < N_PRESETS; k++)
        if (ui_flow_button(f, _(PRESET_NAMES[k]), p == k))
            tv_set_preset(u, k);
    if (ui_flow_button(f, _("custom…"), p < 0 || u->custom))
        u->custom = !u->custom;
    if (u->custom) {
        ui_flow_break(f);
        for (int k = 0; k < TVF_COUNT; k++)
            draw_stepper(f, u, (TvField)k);
    }
    if (u->task == TV_TASK_FILE) {
        ui_flow_break(f);
        ui_flow_text(f, _("file"), th->dim);
        if (ui_flow_button(f, _("words"), !u->tokens_char)) {
            u->tokens_char = 0;
            tv_wish(u, &u->wish.settings);
        }
        if (ui_flow_button(f, _("characters"), u->tokens_char)) {
            u->tokens_char = 1;
            tv_wish(u, &u->wish.settings);
        }
        path = draw_path_field(f, u);
    }
    u->hit.path = path;
    return path;
}

void tv_settings_init(TrainUi *u)
{
    u->task = 3; /* en2zh: the language of the window's own model */
    set_size(u, 0); /* classroom */
    u->val[TVF_WARMUP] = index_of(TVF_WARMUP, 800);
    u->val[TVF_LR] = index_of(TVF_LR, 1.0);
}

void tv_settings_task(TrainUi *u, const char *task)
{
    u->task = TV_TASK_FILE;
    for (int i = 0; i < TV_TASK_FILE; i++)
        if (task && strcmp(task, TASKS[i]) == 0)
            u->task = i;
    if (u->task == TV_TASK_FILE)
        snprintf(u->path, sizeof u->path, "%s", task ? task : "");
}
