/* explain_code.c - the explanation panel's tabs: "Explanation" (explain.c's
 * text) and "Code", the few lines of PyTorch that compute the stage shown
 * (expl_stage.c holds them with the rest of each stage's words). On the
 * cost view the panel says what is measured instead. explain_draw calls explain_code_draw first: it draws
 * the tabs, and the code when that tab is chosen (returning 1), or leaves
 * the area below the tabs to the explanation (returning 0). */
#include <stdio.h>
#include <string.h>

#include "expl_stage.h"
#include "panels.h"

const char *explain_code(StageId st, int pre)
{
    const StageText *t = expl_stage(st);
    return expl_pick(pre, t->code, t->code_pre);
}

/* The cost view: how the figures are made, and the same in PyTorch. */
static const char *COST_CODE =
    "x = torch.randn(n, d_model)\n"
    "t0 = time.perf_counter()\n"
    "q, k, v = W_q(x), W_k(x), W_v(x)   # n·d² each\n"
    "w = torch.softmax(q @ k.T / math.sqrt(d_k), -1)  # n²·d\n"
    "out = W_o(w @ v)                   # n²·d + n·d²\n"
    "t_attn = time.perf_counter() - t0\n"
    "ffn = W_2(torch.relu(W_1(x)))      # 2·n·d·d_ff";

static void draw_cost_text(UiCtx *ui, App *a, Rect rc)
{
    int x = rc.x + 14, w = rc.w - 24, y = rc.y + 8;
    y += ui_paragraph(ui->r, ui->g->title, _("What attention costs"), x, y, w, ui->th->text) + 8;
    ui_paragraph(ui->r, ui->g->ui,
                 _("Self-attention compares every token with every other: its scores and weights are n × n per "
                   "head, so doubling n makes them four times bigger, while the FFN works on each token alone and "
                   "only doubles. Both pay about n·d² for their linear layers, so at short n the FFN costs more. "
                   "Table 1 counts only the part that mixes positions: what self-attention wins over a recurrent "
                   "layer is O(1) sequential steps and path length instead of O(n)."),
                 x, y, w, ui->th->text);
}

int explain_code_draw(UiCtx *ui, App *a, Rect *area)
{
    const Theme *th = ui->th;
    Rect rc = *area;
    StagePos p = app_pos(a);
    ViewId view = app_current_view(a);
    int pre = a->ses.model.cfg.norm == TF_NORM_PRE;
    const char *code = view == VIEW_COST ? COST_CODE
                       : view == VIEW_DECODE || view == VIEW_TRAIN ? NULL
                                                                    : explain_code(p.stage, pre);
    if (!code) { /* nothing to show in code: the explanation alone */
        if (view == VIEW_COST)
            draw_cost_text(ui, a, rc);
        return view == VIEW_COST;
    }
    RenFont *f = ui->g->small;
    int bh = ren_font_height(f) + 8, x = rc.x + 14, y = rc.y + 8;
    const char *tabs[2] = {_("Explanation"), _("Code")};
    for (int i = 0; i < 2; i++) {
        int w = ren_text_width(f, tabs[i]) + 18;
        if (ui_button(ui, (Rect){x, y, w, bh}, tabs[i], a->expl.tab == i))
            a->expl.tab = i;
        x += w + 4;
    }
    Rect below = {rc.x, y + bh + 2, rc.w, rc.h - bh - 10};
    if (a->expl.tab != 1) {
        if (view == VIEW_COST) {
            draw_cost_text(ui, a, below);
            return 1;
        }
        *area = below; /* the explanation, under the tabs */
        return 0;
    }
    x = rc.x + 14;
    int w = rc.w - 24;
    y = below.y + 8;
    const char *title = view == VIEW_COST ? _("The cost, measured in PyTorch") : _("This stage in PyTorch");
    y += ui_paragraph(ui->r, ui->g->ui, title, x, y, w, th->text) + 4;
    y += ui_paragraph(ui->r, f, _("Our own sketch for one sentence; the program computes the same in C."), x, y, w,
                      th->dim) + 8;
    int ch = ui_paragraph_height(ui->g->mono, code, w - 16);
    ren_rect(ui->r, (Rect){x, y, w, ch + 16}, th->bg);
    ren_rect_line(ui->r, (Rect){x, y, w, ch + 16}, 1, th->border);
    ui_paragraph(ui->r, ui->g->mono, code, x + 8, y + 8, w - 16, th->accent);
    if (view != VIEW_COST)
        ren_text(ui->r, f, stage_info(p.stage)->name, x, y + ch + 24, th->dim);
    return 1;
}
