/* nav.c - the stage navigator: the architecture drawn as in the paper's
 * Figure 1, encoder stack beside decoder stack, inputs at the bottom and the
 * output softmax at the top, one row per block. The current block is lit;
 * a click jumps to it; the tabs on each stack's frame open one of its N
 * layers. The step strip (steps_draw) shows the stages inside the current
 * block above the main view. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "explain_model.h"
#include "panels.h"


/* The most telling stage of a block, where a click lands. */
static int block_entry(const App *a, const NavBlock *b)
{
    for (int k = 0; k < b->count; k++) {
        StageKind kind = stage_info(a->ses.walk[b->first + k].stage)->kind;
        if (kind == SK_WEIGHTS || kind == SK_HIDDEN)
            return b->first + k;
    }
    return b->first;
}

/* The block's label in the current language, or a shorter form when the
 * column is narrow (each form measured as it will be drawn). */
static const char *short_label(RenFont *f, const NavBlock *b, int w)
{
    static const char *const forms[][4] = {
        {"Multi-Head Attention (encoder K, V)", N_("Cross-Attention"), N_("Cross"), N_("Cross")},
        {"Feed Forward", N_("Feed Fwd"), N_("FFN"), N_("FFN")},
        {"Add & Norm", N_("Add+Norm"), N_("A & N"), N_("A & N")},
        {"Masked Multi-Head Attention", N_("Masked Attention"), N_("Masked"), N_("Mask")},
        {"Multi-Head Attention", N_("Self-Attention"), N_("Self-Attn"), N_("Self")},
        {"⊕ Positional Encoding", N_("⊕ Positional Enc."), N_("⊕ Position"), N_("⊕ PE")},
        {"Input Embedding", N_("Embedding"), N_("Embed"), N_("Embed")},
        {"Output Embedding", N_("Embedding"), N_("Embed"), N_("Embed")},
        {"Outputs (shifted right)", N_("Outputs (shifted)"), N_("Outputs"), N_("Outputs")},
        {"LayerNorm (final)", N_("Final LN"), N_("LN"), N_("LN")},
        {"Add (residual)", N_("Add"), N_("Add"), N_("Add")},
    };
    const char *lab = _(b->label);
    if (ren_text_width(f, lab) <= w)
        return lab;
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        if (strcmp(forms[i][0], b->label) != 0)
            continue;
        for (int k = 1; k < 3; k++) /* the first shorter form that fits, else the shortest */
            if (ren_text_width(f, _(forms[i][k])) <= w)
                return _(forms[i][k]);
        return _(forms[i][3]);
    }
    return lab;
}

static void block_row(UiCtx *ui, App *a, const NavBlock *b, Rect rc, int current)
{
    const Theme *th = ui->th;
    int over = ui_over(&ui->in, rc);
    int attn = b->label[0] == 'M' || b->cross;
    Color base = attn ? ui_mix(th->panel2, th->accent2, 0.18f)
               : strncmp(b->label, "Feed", 4) == 0 ? ui_mix(th->panel2, th->accent, 0.15f)
                                                   : th->panel2;
    Color bg = current ? th->accent : over ? ui_mix(base, th->text, 0.12f) : base;
    ren_rect(ui->r, rc, bg);
    ren_rect_line(ui->r, rc, current ? 2 : 1, current ? th->select : th->border);
    RenFont *f = ui->g->small;
    int fh = ren_font_height(f);
    ren_clip_push(ui->r, rc);
    const char *lab = short_label(f, b, rc.w - 8);
    int w = ren_text_width(f, lab);
    int x = w > rc.w - 8 ? rc.x + 4 : rc.x + (rc.w - w) / 2;
    ui_text_fit(ui->r, f, lab, x, rc.y + (rc.h - fh) / 2, rc.w - 8, current ? th->bg : th->text);
    ren_clip_pop(ui->r);
    if (a->nav.n_hits < (int)(sizeof a->nav.hits / sizeof a->nav.hits[0]))
        a->nav.hits[a->nav.n_hits++] = (HitRect){rc, block_entry(a, b)};
    if (ui_hit(ui, rc, b->label)) { /* that stage's main view, leaving Train or Decode (Tab, Enter too) */
        StagePos p = a->ses.walk[block_entry(a, b)];
        app_show_stage(a, p.stage, p.layer);
    }
}

typedef struct ColumnGeo {
    int frame_top, frame_bottom; /* y extent of the layer frame, -1 if none */
    int cross_y;                 /* centre of the cross-attention row */
    Rect frame;                  /* the layer frame (its tabs hang on its left) */
} ColumnGeo;

/* A tab per layer down the left of a column's layer frame; a click opens
 * that layer. Drawn after the encoder-to-decoder connector, so the line
 * passes behind the decoder's tabs and never over their numbers. */
static void draw_layer_tabs(UiCtx *ui, App *a, Rect col, Rect fr, int decoder, const NavBlock *bl, int nb)
{
    const Theme *th = ui->th;
    const TfConfig *c = &a->ses.model.cfg;
    int nl = decoder ? c->n_dec : c->n_enc, layer = a->nav.layer[decoder];
    int fh = ren_font_height(ui->g->small), tab = fh + 4;
    char lab[32];
    for (int l = 0; l < nl; l++) {
        Rect t = {col.x - 6, fr.y + 4 + l * (tab + 2), tab, tab};
        if (t.y + t.h > fr.y + fr.h)
            break;
        snprintf(lab, sizeof lab, "%d", l + 1);
        int on = l == layer;
        ren_rect(ui->r, t, on ? th->accent : th->panel2);
        ren_rect_line(ui->r, t, 1, th->border);
        ui_text_center(ui->r, ui->g->small, lab, t, on ? th->bg : th->text);
        if (ui_hit(ui, t, "layer tab")) {
            a->nav.layer[decoder] = l;
            StagePos p = app_pos(a);
            const StageInfo *si = stage_info(p.stage);
            if (((si->flags & SF_DECODER) != 0) == decoder && (si->flags & SF_LAYER))
                app_goto(a, p.stage, l);
            else /* open that layer at its first attention block */
                for (int k = 0; k < nb; k++)
                    if (bl[k].decoder == decoder && bl[k].layer == l) {
                        StagePos q = a->ses.walk[block_entry(a, &bl[k])];
                        app_goto(a, q.stage, q.layer);
                        break;
                    }
        }
    }
}

static ColumnGeo draw_column(UiCtx *ui, App *a, Rect col, int decoder, const NavBlock *bl, int nb,
                             int cur, int rh, int gap)
{
    const Theme *th = ui->th;
    const TfConfig *c = &a->ses.model.cfg;
    int layer = a->nav.layer[decoder];
    ColumnGeo g = {-1, -1, -1, {0, 0, 0, 0}};
    int y = col.y + col.h - gap;
    int fh = ren_font_height(ui->g->small);
    for (int k = 0; k < nb; k++) {
        const NavBlock *b = &bl[k];
        int stage_dec = b->decoder || (a->ses.walk[b->first].stage == ST_OUT_LOGITS);
        if (stage_dec != decoder || (b->layer >= 0 && b->layer != layer))
            continue;
        int in_stack = b->layer >= 0;
        if (in_stack && g.frame_bottom < 0) {
            g.frame_bottom = y;
            y -= gap + 4;
        }
        if (!in_stack && g.frame_bottom >= 0 && g.frame_top < 0) {
            g.frame_top = y;
            y -= gap + fh + 4;
        }
        Rect rc = {col.x + 10, y - rh, col.w - 16, rh};
        /* rows inside the layer frame clear its layer tabs (col.x - 6, fh + 4
         * wide), so a wide label (larger text, Chinese) is not drawn under them */
        int tab_right = col.x - 6 + fh + 4 + 3;
        if (in_stack && rc.x < tab_right) {
            rc.w -= tab_right - rc.x;
            rc.x = tab_right;
        }
        int current = cur == k;
        block_row(ui, a, b, rc, current);
        if (b->cross)
            g.cross_y = rc.y + rc.h / 2;
        y -= rh + gap;
    }
    if (g.frame_bottom >= 0 && g.frame_top < 0)
        g.frame_top = y;
    if (g.frame_bottom < 0)
        return g;
    /* the N x frame, with a tab per layer */
    Rect fr = {col.x + 4, g.frame_top, col.w - 4, g.frame_bottom - g.frame_top};
    ren_rect_line(ui->r, fr, 1, th->dim);
    int nl = decoder ? c->n_dec : c->n_enc;
    char lab[32];
    snprintf(lab, sizeof lab, _("%d× layer"), nl);
    ren_text(ui->r, ui->g->small, lab, fr.x + fr.w - ren_text_width(ui->g->small, lab) - 4, fr.y - fh - 2, th->dim);
    g.frame = fr;
    return g;
}

/* Rows a column needs, to size the rows to the panel. */
static int column_rows(const App *a, const NavBlock *bl, int nb, int decoder)
{
    int n = 0, layer = a->nav.layer[decoder];
    for (int k = 0; k < nb; k++) {
        int d = bl[k].decoder || a->ses.walk[bl[k].first].stage == ST_OUT_LOGITS;
        if (d == decoder && (bl[k].layer < 0 || bl[k].layer == layer))
            n++;
    }
    return n;
}

void nav_draw(UiCtx *ui, App *a, Rect area)
{
    const Theme *th = ui->th;
    Rect rc = area;
    StagePos p = app_pos(a);
    const StageInfo *si = stage_info(p.stage);
    if (si->flags & SF_LAYER)
        a->nav.layer[(si->flags & SF_DECODER) ? 1 : 0] = p.layer;
    int nb;
    const NavBlock *bl = blocks_of(a, &nb);
    int cur = blocks_current(bl, nb, a->ses.at);
    int fh = ren_font_height(ui->g->small);
    int head_h = fh + 12;
    a->nav.n_hits = 0;
    int rows = column_rows(a, bl, nb, 1);
    int re = column_rows(a, bl, nb, 0);
    if (re > rows)
        rows = re;
    int avail = rc.h - head_h - 3 * (fh + 8);
    int rh = fh + 14, gap = 7;
    if (rows * (rh + gap) > avail && rows > 0) {
        rh = avail / rows - 3;
        gap = 3;
        if (rh < fh + 2)
            rh = fh + 2;
    }
    /* centre the diagram vertically when there is room to spare */
    int used = rows * (rh + gap) + 3 * (fh + 8);
    int spare = rc.h - head_h - used;
    if (spare > 0)
        head_h += spare / 3;
    int half = rc.w / 2;
    Rect enc = {rc.x + 8, rc.y + head_h, half - 10, rc.h - head_h - 6};
    Rect dec = {rc.x + half + 4, rc.y + head_h, half - 10, rc.h - head_h - 6};
    enc.h = dec.h = rc.y + rc.h - enc.y - (spare > 0 ? spare / 3 : 6);
    int lab_y = enc.y + enc.h - used - 4;
    if (lab_y < rc.y + 4)
        lab_y = rc.y + 4;
    /* the column titles, in the small font when the columns are narrow */
    RenFont *tf = ren_text_width(ui->g->ui, _("Encoder")) > enc.w - 4 || ren_text_width(ui->g->ui, _("Decoder")) > dec.w - 4
                      ? ui->g->small : ui->g->ui;
    ui_text_center(ui->r, tf, _("Encoder"), (Rect){enc.x, lab_y, enc.w, fh + 8}, th->dim);
    ui_text_center(ui->r, tf, _("Decoder"), (Rect){dec.x, lab_y, dec.w, fh + 8}, th->dim);
    ColumnGeo ge = draw_column(ui, a, enc, 0, bl, nb, cur, rh, gap);
    ColumnGeo gd = draw_column(ui, a, dec, 1, bl, nb, cur, rh, gap);
    /* the encoder output feeds the decoder's cross-attention (K and V) */
    if (ge.frame_top >= 0 && gd.cross_y >= 0) {
        float x0 = (float)(enc.x + enc.w / 2 + 2), y0 = (float)ge.frame_top;
        float ytop = y0 - (float)fh - 10;
        if (ytop > gd.cross_y - 12)
            ytop = (float)gd.cross_y - 12;
        float xm = (float)(dec.x + 2);
        float pts[10] = {x0, y0, x0, ytop, xm, ytop, xm, (float)gd.cross_y, xm + 8, (float)gd.cross_y};
        ren_polyline(ui->r, pts, 5, 2.0f, th->accent2);
        float ah[6] = {xm + 8, (float)gd.cross_y - 4, xm + 14, (float)gd.cross_y, xm + 8, (float)gd.cross_y + 4};
        Color c3[3] = {th->accent2, th->accent2, th->accent2};
        ren_triangles(ui->r, ah, c3, 3);
    }
    if (ge.frame_bottom >= 0)
        draw_layer_tabs(ui, a, enc, ge.frame, 0, bl, nb);
    if (gd.frame_bottom >= 0)
        draw_layer_tabs(ui, a, dec, gd.frame, 1, bl, nb);
}

void steps_draw(UiCtx *ui, App *a, Rect area)
{
    const Theme *th = ui->th;
    Rect rc = area;
    if (rc.h <= 0 || rc.w <= 0)
        return;
    int nb;
    const NavBlock *bl = blocks_of(a, &nb);
    int cur = blocks_current(bl, nb, a->ses.at);
    const NavBlock *b = &bl[cur];
    RenFont *f = ui->g->small;
    int fh = ren_font_height(f);
    char lab[160];
    int x = rc.x + 8;
    if (b->layer >= 0)
        snprintf(lab, sizeof lab, _("%s · layer %d"), _(b->label), b->layer + 1);
    else
        snprintf(lab, sizeof lab, "%s", _(b->label));
    int need = 0;
    for (int k = 0; k < b->count; k++)
        need += ren_text_width(f, explain_step_label(a, a->ses.walk[b->first + k].stage, _(step_label(a->ses.walk[b->first + k].stage)))) + 16 + 12;
    int room = rc.w - need - 16;
    if (room < ren_text_width(f, lab) && b->layer >= 0)
        snprintf(lab, sizeof lab, _("layer %d"), b->layer + 1);
    if (room > 30)
        x += ui_text_fit(ui->r, f, lab, x, rc.y + (rc.h - fh) / 2, room, th->dim) + 10;
    for (int k = 0; k < b->count; k++) {
        int i = b->first + k;
        const char *s = explain_step_label(a, a->ses.walk[i].stage, _(step_label(a->ses.walk[i].stage)));
        int w = ren_text_width(f, s) + 16;
        if (x + w > rc.x + rc.w - 4)
            break;
        Rect c = {x, rc.y + 3, w, rc.h - 6};
        int on = i == a->ses.at;
        ren_rect(ui->r, c, on ? th->accent : ui_over(&ui->in, c) ? th->panel2 : th->bg);
        ren_rect_line(ui->r, c, 1, on ? th->select : th->border);
        ui_text_center(ui->r, f, s, c, on ? th->bg : th->text);
        if (ui_hit(ui, c, "stage step"))
            app_show_stage(a, a->ses.walk[i].stage, a->ses.walk[i].layer);
        x += w;
        if (k + 1 < b->count) {
            ui_text_center(ui->r, f, "›", (Rect){x, rc.y, 12, rc.h}, th->dim);
            x += 12;
        }
    }
}
