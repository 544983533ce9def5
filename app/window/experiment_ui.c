/* experiment_ui.c - the Experiments panel (E, or its button): a toggle per
 * intervention of the Session's experiment, and D cycling what every view
 * shows while one is on: the experiment, the normal pass, or (in the
 * heatmap) their difference on a diverging scale centred at 0. */
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "cmd_table.h"
#include "panels.h"

static const char *CMP_NAMES[CMP_COUNT] = {N_("experiment"), N_("normal"), N_("difference")};

const char *app_cmp_name(int cmp)
{
    return cmp >= 0 && cmp < CMP_COUNT ? _(CMP_NAMES[cmp]) : "?";
}

void app_put_exp(App *a, const TfExperiment *e)
{
    session_set_exp(&a->ses, e);
    if (!session_has_exp(&a->ses))
        a->cmp = CMP_EXP;
}

void app_set_exp(App *a, const TfExperiment *e)
{
    app_put_exp(a, e);
    char d[256];
    tf_exp_describe(e, d, sizeof d);
    app_notice(a, 0, _("experiment: %s"), d);
}

/* Alt+click on a source token: hide it as a key (or show it again). */
void app_exp_toggle_hide(App *a, int pos)
{
    if (pos < 0 || pos >= a->ses.pad.S) {
        app_notice(a, 1, _("source position %d is not in the sentence"), pos);
        return;
    }
    TfExperiment e = a->ses.exp;
    if (tf_exp_toggle_hide(&e, pos) < 0) {
        app_notice(a, 1, _("at most %d source positions can be hidden"), TF_EXP_MAX_HIDE);
        return;
    }
    app_set_exp(a, &e);
}

void app_exp_toggle_panel(App *a)
{
    a->show_exp = !a->show_exp;
}

void app_exp_compare(App *a)
{
    if (!session_has_exp(&a->ses)) {
        app_notice(a, 0, "%s", _("D compares an experiment with the normal pass: turn one on first (E)"));
        return;
    }
    a->cmp = (a->cmp + 1) % CMP_COUNT;
    app_notice(a, 0, _("showing: %s"), app_cmp_name(a->cmp));
}

void app_exp_change(App *a, int what)
{
    TfExperiment e = a->ses.exp;
    switch (what) {
    case EXP_NO_SCALE: e.no_scale = !e.no_scale; break;
    case EXP_NO_PE: e.no_pe = !e.no_pe; break;
    case EXP_NO_CAUSAL: e.no_causal = !e.no_causal; break;
    default: memset(&e, 0, sizeof e); break;
    }
    app_set_exp(a, &e);
}

/* The panel, over the top right of the main view. */
void app_exp_draw(UiCtx *ui, App *a, Rect area)
{
    RenFont *f = ui->g->small;
    int fh = ren_font_height(f), bh = fh + 8, w = 300, pad = 8;
    Rect A = area;
    const char *hint = _("Alt+click a head in All heads to ablate it, a source token to hide it; "
                         "D: experiment, normal, difference");
    int hint_h = ren_text_wrap(f, hint, w - 2 * pad, NULL, 0) * fh + 4;
    int h = pad * 2 + 5 * (bh + 4) + fh + 6 + hint_h;
    Rect box = {A.x + A.w - w - 8, A.y + 8, w, h};
    if (box.x < A.x)
        box.x = A.x;
    ren_rect(ui->r, box, ui->th->panel);
    ren_rect_line(ui->r, box, 1, ui->th->accent);
    int x = box.x + pad, y = box.y + pad, bw = w - 2 * pad;
    char key[32], buf[160]; /* the buttons name their keys (cmd_table.c) */
    snprintf(buf, sizeof buf, "%s (%s)", _("Experiments"), cmd_key_of("exp.panel", key, sizeof key));
    ren_text(ui->r, ui->g->ui, buf, x, y, ui->th->text);
    y += bh + 4;
    TfExperiment e = a->ses.exp;
    struct { const char *cmd, *label; int *flag; } t[3] = {
        {"exp.no_scale", N_("no 1/√d_k scaling"), &e.no_scale},
        {"exp.no_pe", N_("no positional encoding"), &e.no_pe},
        {"exp.no_causal", N_("no causal mask"), &e.no_causal},
    };
    for (int i = 0; i < 3; i++, y += bh + 4) {
        snprintf(buf, sizeof buf, "%s  %s", cmd_key_of(t[i].cmd, key, sizeof key), _(t[i].label));
        if (ui_button(ui, (Rect){x, y, bw, bh}, buf, *t[i].flag)) {
            *t[i].flag = !*t[i].flag;
            app_set_exp(a, &e);
        }
    }
    snprintf(buf, sizeof buf, "%s  %s", cmd_key_of("exp.clear", key, sizeof key), _("clear"));
    if (ui_button(ui, (Rect){x, y, bw / 2 - 4, bh}, buf, 0)) {
        memset(&e, 0, sizeof e);
        app_set_exp(a, &e);
    }
    snprintf(buf, sizeof buf, "%s  %s", cmd_key_of("exp.compare", key, sizeof key), app_cmp_name(a->cmp));
    if (ui_button(ui, (Rect){x + bw / 2, y, bw / 2, bh}, buf, a->cmp != CMP_EXP))
        app_exp_compare(a); /* as the key: says why when there is nothing to compare */
    y += bh + 4;
    char d[256];
    tf_exp_describe(&a->ses.exp, d, sizeof d);
    ui_text_fit(ui->r, f, session_has_exp(&a->ses) ? d : _("no experiment: the normal pass"), x, y + 2,
                bw, session_has_exp(&a->ses) ? ui->th->warn : ui->th->dim);
    y += fh + 6;
    ui_paragraph(ui->r, f, hint, x, y, bw, ui->th->dim);
}

/* The status line's words for an experiment: "mode · before → after". */
int app_exp_status(const App *a, char *buf, size_t cap)
{
    if (!session_has_exp(&a->ses))
        return 0;
    /* "…" for a translation still being made (a step a frame) */
    const char *before = a->ses.ext.base_translation[0] ? a->ses.ext.base_translation : "…";
    const char *after = session_exp_pending(&a->ses) ? "…" : a->ses.translation;
    snprintf(buf, cap, "[%s] %s → %s", app_cmp_name(a->cmp), before, after);
    return 1;
}
