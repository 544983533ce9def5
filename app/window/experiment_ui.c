/* experiment_ui.c - the Experiments panel (E, or its button): a toggle per
 * intervention of the Session's experiment, and D cycling what every view
 * shows while one is on: the experiment, the normal pass, or (in the
 * heatmap) their difference on a diverging scale centred at 0. */
#include <stdarg.h>
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

/* One part of the experiment, translated, after a " · " when buf holds some. */
static void add_part(char *buf, size_t cap, size_t *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void add_part(char *buf, size_t cap, size_t *n, const char *fmt, ...)
{
    if (*n + 1 >= cap)
        return;
    if (*n) {
        int k = snprintf(buf + *n, cap - *n, " · ");
        *n = k > 0 && (size_t)k < cap - *n ? *n + (size_t)k : cap - 1;
    }
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(buf + *n, cap - *n, fmt, ap);
    va_end(ap);
    *n = k > 0 && (size_t)k < cap - *n ? *n + (size_t)k : cap - 1;
}

static const char *const KIND_WORD[3] = {N_("enc"), N_("dec"), N_("cross")};

void app_exp_words(const Session *s, int lang, char *buf, size_t cap)
{
    const TfExperiment *e = &s->exp;
    size_t n = 0;
    if (cap == 0)
        return;
    buf[0] = 0;
    if (tf_exp_is_none(e)) {
        snprintf(buf, cap, "%s", L(lang, N_("none")));
        return;
    }
    if (e->no_scale)
        add_part(buf, cap, &n, "%s", L(lang, N_("no 1/√d_k")));
    if (e->no_pe)
        add_part(buf, cap, &n, "%s", L(lang, N_("no positional encoding")));
    if (e->no_causal)
        add_part(buf, cap, &n, "%s", L(lang, N_("no causal mask")));
    for (int i = 0; i < e->n_ablate; i++) {
        const TfHeadRef *h = &e->ablate[i];
        const char *kind = h->kind >= 0 && h->kind < 3 ? L(lang, KIND_WORD[h->kind]) : "?";
        add_part(buf, cap, &n, L(lang, N_("ablate %s L%d H%d")), kind, h->layer + 1, h->head + 1);
    }
    int b = s->batch >= 0 && s->batch < s->n_src ? s->batch : 0;
    for (int i = 0; i < e->n_hide; i++) {
        int pos = e->hide_src[i];
        if (pos >= 0 && pos < s->src_n[b] && s->have_model) {
            char tok[128];
            ui_token(vocab_token(&s->model.src_vocab, s->src_ids[b][pos]), tok, sizeof tok);
            add_part(buf, cap, &n, L(lang, N_("hide source token %d «%s»")), pos + 1, tok);
        } else {
            add_part(buf, cap, &n, L(lang, N_("hide source token %d")), pos + 1);
        }
    }
    if (e->no_residual)
        add_part(buf, cap, &n, "%s", L(lang, N_("no residual connections")));
    for (int i = 0; i < e->n_no_ffn; i++) {
        const TfLayerRef *r = &e->no_ffn[i];
        add_part(buf, cap, &n, L(lang, N_("no FFN %s L%d")), r->kind == TF_ATTN_DEC ? L(lang, KIND_WORD[1]) : L(lang, KIND_WORD[0]),
                 r->layer + 1);
    }
}

void app_set_exp(App *a, const TfExperiment *e)
{
    app_put_exp(a, e);
    char d[512];
    app_exp_words(&a->ses, a->look.lang, d, sizeof d);
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

/* The feed-forward network of the layer shown: the encoder's or the
 * decoder's (by the stage's side), of its layer (layer 1 off the layers). */
static void ffn_here(const App *a, TfAttnKind *kind, int *layer)
{
    StagePos p = session_pos(&a->ses);
    const StageInfo *si = stage_info(p.stage);
    *kind = si && (si->flags & SF_DECODER) ? TF_ATTN_DEC : TF_ATTN_ENC;
    *layer = si && (si->flags & SF_LAYER) ? p.layer : 0;
}

void app_exp_change(App *a, int what)
{
    TfExperiment e = a->ses.exp;
    TfAttnKind kind;
    int layer;
    switch (what) {
    case EXP_NO_SCALE: e.no_scale = !e.no_scale; break;
    case EXP_NO_PE: e.no_pe = !e.no_pe; break;
    case EXP_NO_CAUSAL: e.no_causal = !e.no_causal; break;
    case EXP_NO_RESIDUAL: e.no_residual = !e.no_residual; break;
    case EXP_NO_FFN:
        ffn_here(a, &kind, &layer);
        if (tf_exp_toggle_ffn(&e, kind, layer) < 0) {
            app_notice(a, 1, _("at most %d feed-forward networks can be off"), TF_EXP_MAX_FFN);
            return;
        }
        break;
    default: memset(&e, 0, sizeof e); break;
    }
    app_set_exp(a, &e);
}

static const char *panel_hint(void)
{
    return _("Alt+click a head in All heads to ablate it, a source token to hide it; "
             "D: experiment, normal, difference");
}

int app_exp_height(UiCtx *ui, int w)
{
    RenFont *f = ui->g->small;
    int fh = ren_font_height(f), bh = fh + 8, pad = 8;
    int hint_h = ren_text_wrap(f, panel_hint(), w - 2 * pad, NULL, 0) * fh + 4;
    return pad * 2 + 7 * (bh + 4) + fh + 6 + hint_h; /* title, 5 toggles, clear and D */
}

/* The panel, filling area (the frame docks it). */
void app_exp_draw(UiCtx *ui, App *a, Rect area)
{
    RenFont *f = ui->g->small;
    int fh = ren_font_height(f), bh = fh + 8, w = area.w, pad = 8;
    if (area.w < 40 || area.h < bh)
        return;
    const char *hint = panel_hint();
    Rect box = area;
    ren_clip_push(ui->r, box);
    ren_rect(ui->r, box, ui->th->panel);
    ren_rect_line(ui->r, box, 1, ui->th->accent);
    int x = box.x + pad, y = box.y + pad, bw = w - 2 * pad;
    char key[32], buf[160]; /* the buttons name their keys (cmd_table.c) */
    snprintf(buf, sizeof buf, "%s (%s)", _("Experiments"), cmd_key_of("exp.panel", key, sizeof key));
    ren_text(ui->r, ui->g->ui, buf, x, y, ui->th->text);
    y += bh + 4;
    TfExperiment e = a->ses.exp;
    struct { const char *cmd, *label; int *flag; } t[4] = {
        {"exp.no_scale", N_("no 1/√d_k scaling"), &e.no_scale},
        {"exp.no_pe", N_("no positional encoding"), &e.no_pe},
        {"exp.no_causal", N_("no causal mask"), &e.no_causal},
        {"exp.no_residual", N_("no residual connections"), &e.no_residual},
    };
    for (int i = 0; i < 4; i++, y += bh + 4) {
        snprintf(buf, sizeof buf, "%s  %s", cmd_key_of(t[i].cmd, key, sizeof key), _(t[i].label));
        if (ui_button(ui, (Rect){x, y, bw, bh}, buf, *t[i].flag)) {
            *t[i].flag = !*t[i].flag;
            app_set_exp(a, &e);
        }
    }
    /* the FFN of the layer shown, encoder's or decoder's */
    TfAttnKind fk;
    int fl;
    ffn_here(a, &fk, &fl);
    char what[96];
    snprintf(what, sizeof what, fk == TF_ATTN_DEC ? _("no FFN in decoder layer %d") : _("no FFN in encoder layer %d"),
             fl + 1);
    snprintf(buf, sizeof buf, "%s  %s", cmd_key_of("exp.no_ffn", key, sizeof key), what);
    if (ui_button(ui, (Rect){x, y, bw, bh}, buf, tf_exp_ffn_off(&e, fk, fl)))
        app_exp_change(a, EXP_NO_FFN);
    y += bh + 4;
    snprintf(buf, sizeof buf, "%s  %s", cmd_key_of("exp.clear", key, sizeof key), _("clear"));
    if (ui_button(ui, (Rect){x, y, bw / 2 - 4, bh}, buf, 0)) {
        memset(&e, 0, sizeof e);
        app_set_exp(a, &e);
    }
    snprintf(buf, sizeof buf, "%s  %s", cmd_key_of("exp.compare", key, sizeof key), app_cmp_name(a->cmp));
    if (ui_button(ui, (Rect){x + bw / 2, y, bw / 2, bh}, buf, a->cmp != CMP_EXP))
        app_exp_compare(a); /* as the key: says why when there is nothing to compare */
    y += bh + 4;
    char d[512];
    app_exp_words(&a->ses, a->look.lang, d, sizeof d);
    ui_text_fit(ui->r, f, session_has_exp(&a->ses) ? d : _("no experiment: the normal pass"), x, y + 2,
                bw, session_has_exp(&a->ses) ? ui->th->warn : ui->th->dim);
    y += fh + 6;
    ui_paragraph(ui->r, f, hint, x, y, bw, ui->th->dim);
    ren_clip_pop(ui->r);
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
