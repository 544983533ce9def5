/* lesson_predict.c - the @predict steps of a lesson: what the view hides
 * until the learner picks (a heatmap row, the next token, the view or the
 * translation for a prediction with choices), the pick, its reveal and its
 * score (lesson_ui.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lesson_int.h"
#include "lesson_ui.h"

int lesson_ui_predict_state(App *a, LessonPredictState *ps)
{
    memset(ps, 0, sizeof *ps);
    ps->row = ps->answer = ps->picked = -1;
    LessonUi *u = a->les;
    if (!u || u->cur < 0 || u->summary || a->ses.input_error[0]) /* the end screen hides nothing */
        return 0;
    const Lesson *l = &u->set.lessons[u->cur];
    const LessonStep *s = &l->steps[u->step];
    const LessonPredict *p = &s->predict;
    if (!p->kind)
        return 0;
    ps->kind = p->kind;
    ps->picked = u->predicted[u->step];
    if (lesson_predict_has_choices(p->kind)) { /* the author's answer, verified by lessons --check */
        ps->answer = s->quiz.answer;
        ps->stage = app_pos(a).stage;
        ps->row = 0;
        return ps->answer >= 0;
    }
    int decoder = 1, b = a->ses.batch;
    StagePos pos = app_pos(a);
    if (p->kind == LESSON_PREDICT_ROW) {
        ps->stage = pos.stage;
        if (!lesson_predict_stage_ok(pos.stage, &decoder))
            return 0;
    }
    const TfTrace *tr = app_shown_trace(a);
    const Vocab *voc = decoder ? &a->ses.model.tgt_vocab : &a->ses.model.src_vocab;
    ps->row = lesson_predict_row(p, tr, voc, decoder, b);
    if (ps->row < 0)
        return 0;
    ps->answer = lesson_predict_answer(tr, p->kind, pos.stage, pos.layer, a->ses.head, b, ps->row);
    if (ps->picked >= 0) /* the answer as it was when the learner picked */
        ps->answer = u->pred_answer[u->step];
    return ps->answer >= 0;
}

int lesson_ui_predict(App *a, int choice)
{
    LessonUi *u = a->les;
    LessonPredictState ps;
    if (!lesson_ui_predict_state(a, &ps) || ps.picked >= 0 || choice < 0)
        return -1;
    const Lesson *l = &u->set.lessons[u->cur];
    u->predicted[u->step] = choice;
    u->pred_answer[u->step] = ps.answer;
    u->scroll_to_end = 1;
    Progress *p = lesson_progress_of(u, l->id);
    if (p && choice == ps.answer) {
        p->right |= 1ull << u->step; /* step < LESSON_MAX_STEPS = 64 */
        lesson_progress_save(a, u);
    }
    return choice == ps.answer;
}

/* The tokens offered for @predict next: the most probable ones, in the
 * step's shuffled order (lesson_predict_candidates). */
int lesson_ui_predict_candidates(App *a, int *ids, Rect *rects)
{
    LessonUi *u = a->les;
    if (!u)
        return 0;
    for (int i = 0; i < u->n_cand; i++) {
        if (ids)
            ids[i] = u->cand[i];
        if (rects)
            rects[i] = u->cand_rect[i];
    }
    return u->n_cand;
}

static void find_candidates(App *a, LessonUi *u, int row)
{
    unsigned seed = lesson_predict_seed(u->set.lessons[u->cur].id, u->step);
    u->n_cand = lesson_predict_candidates(app_shown_trace(a), a->ses.batch, row, seed, u->cand, LESSON_PREDICT_CAND);
}

/* A row of the heatmap: its cells, clipped to the view. */
static Rect heat_row(const HeatGeo *h, int row, int col)
{
    Rect r = {h->grid.x + (int)lroundf(col < 0 ? 0 : col * h->cw), h->grid.y + (int)lroundf(row * h->ch),
              (int)lroundf(col < 0 ? h->cols * h->cw : h->cw), (int)lroundf(h->ch)};
    return r;
}

static void overlay_row(UiCtx *ui, App *a, Rect area, const LessonPredictState *ps)
{
    const Theme *th = ui->th;
    const HeatGeo *h = &a->heat;
    if (!h->valid || (int)h->stage != ps->stage || ps->row >= h->rows) {
        if (ps->picked < 0) { /* another view would give it away */
            ren_rect(ui->r, area, th->bg);
            a->hover.valid = 0;
            ui_paragraph(ui->r, ui->g->ui, _("Back to the heatmap to make your prediction (the lesson's view)."),
                         area.x + 20, area.y + 40, area.w - 40, th->warn);
        }
        return;
    }
    Rect row = heat_row(h, ps->row, -1);
    if (ps->picked >= 0) { /* revealed: the learner's pick and the answer */
        ren_rect_line(ui->r, heat_row(h, ps->row, ps->picked), 3, ps->picked == ps->answer ? th->good : th->bad);
        if (ps->picked != ps->answer)
            ren_rect_line(ui->r, heat_row(h, ps->row, ps->answer), 3, th->good);
        return;
    }
    ren_rect(ui->r, row, th->panel2);
    for (int c = 0; c < h->cols; c++) {
        Rect cell = heat_row(h, ps->row, c);
        int over = ui_over(&ui->in, cell);
        if (over)
            ren_rect(ui->r, cell, ui_mix(th->panel2, th->accent, 0.35f));
        if (cell.w >= ren_text_width(ui->g->ui, "?") + 4 && cell.h >= ren_font_height(ui->g->ui))
            ren_text(ui->r, ui->g->ui, "?", cell.x + (cell.w - ren_text_width(ui->g->ui, "?")) / 2,
                     cell.y + (cell.h - ren_font_height(ui->g->ui)) / 2, th->dim);
        if (ui_hit(ui, cell, "predict cell") && (ui_over(&ui->in, area) || !ui->in.pressed))
            lesson_ui_predict(a, c);
    }
    ren_rect_line(ui->r, row, 2, th->accent);
    if (a->hover.valid && a->hover.row == ps->row) /* the status line would tell */
        a->hover.valid = 0;
}

/* The decoder input up to row, as text: "<bos> 我". */
static void prefix_text(const App *a, int row, char *buf, size_t cap)
{
    const TfTrace *tr = app_shown_trace(a);
    buf[0] = 0;
    for (int i = 0; i <= row && strlen(buf) + 32 < cap; i++)
        snprintf(buf + strlen(buf), cap - strlen(buf), "%s%s", i ? " " : "",
                 vocab_token(&a->ses.model.tgt_vocab, tr->tgt_ids[(size_t)a->ses.batch * tr->T + i]));
}

static void overlay_next(UiCtx *ui, App *a, Rect area, LessonUi *u, const LessonPredictState *ps)
{
    if (ps->picked >= 0)
        return;
    const Theme *th = ui->th;
    Rect A = area;
    find_candidates(a, u, ps->row);
    ren_rect(ui->r, A, th->bg);
    a->hover.valid = 0; /* the status line would tell what is covered */
    int x = A.x + 20, y = A.y + 30, w = A.w - 40;
    ren_text(ui->r, ui->g->title, _("Predict"), x, y, th->accent2);
    y += ren_font_height(ui->g->title) + 10;
    char pre[512], buf[700];
    prefix_text(a, ps->row, pre, sizeof pre);
    snprintf(buf, sizeof buf, _("Which token will the model write after «%s»? Its probabilities are hidden until "
                                "you pick one."), pre);
    y += ui_paragraph(ui->r, ui->g->ui, buf, x, y, w, th->text) + 16;
    int bh = ren_font_height(ui->g->ui) + 16, bx = x;
    for (int i = 0; i < u->n_cand; i++) {
        const char *t = vocab_token(&a->ses.model.tgt_vocab, u->cand[i]);
        int bw = ren_text_width(ui->g->ui, t) + 36;
        if (bx + bw > x + w && bx > x) {
            bx = x;
            y += bh + 8;
        }
        u->cand_rect[i] = (Rect){bx, y, bw, bh};
        if (ui_button(ui, u->cand_rect[i], t, 0))
            lesson_ui_predict(a, u->cand[i]);
        bx += bw + 10;
    }
}

/* Before the pick the view would give the answer away: covered, with
 * what to do; a @predict number of one heatmap cell hides that cell only. */
static void overlay_choices(UiCtx *ui, App *a, Rect area, const LessonPredictState *ps)
{
    if (ps->picked >= 0)
        return;
    const Theme *th = ui->th;
    const LessonStep *s = &a->les->set.lessons[a->les->cur].steps[a->les->step];
    const LessonPredict *p = &s->predict;
    const HeatGeo *h = &a->heat;
    if (p->kind == LESSON_PREDICT_NUMBER && p->what == LESSON_NUM_CELL && h->valid && (int)h->stage == ps->stage) {
        int r, c;
        if (lesson_predict_cell(p, app_shown_trace(a), &a->ses.model.src_vocab, &a->ses.model.tgt_vocab, ps->stage,
                                a->ses.batch, h->rows, h->cols, &r, &c) == 0) {
            /* a row of weights sums to 1: its other cells would give the
             * hidden one away, so the whole row is covered */
            int row = stage_info((StageId)ps->stage)->kind == SK_WEIGHTS;
            for (int k = row ? 0 : c; k < (row ? h->cols : c + 1); k++) {
                Rect cell = heat_row(h, r, k);
                ren_rect(ui->r, cell, th->panel2);
                if (cell.w >= ren_text_width(ui->g->ui, "?") + 4 && cell.h >= ren_font_height(ui->g->ui))
                    ren_text(ui->r, ui->g->ui, "?", cell.x + (cell.w - ren_text_width(ui->g->ui, "?")) / 2,
                             cell.y + (cell.h - ren_font_height(ui->g->ui)) / 2, th->dim);
            }
            ren_rect_line(ui->r, heat_row(h, r, c), 2, th->accent);
            if (a->hover.valid && a->hover.row == r && (row || a->hover.col == c)) /* the status line would tell */
                a->hover.valid = 0;
            return;
        }
    }
    ren_rect(ui->r, area, th->bg);
    a->hover.valid = 0; /* the status line would tell what is covered */
    int x = area.x + 20, y = area.y + 30, w = area.w - 40;
    ren_text(ui->r, ui->g->title, _("Predict"), x, y, th->accent2);
    y += ren_font_height(ui->g->title) + 10;
    ui_paragraph(ui->r, ui->g->ui, _("The view is hidden until you pick your prediction in the lesson panel."), x, y,
                 w, th->text);
}

int lesson_ui_hides_output(const App *a)
{
    const LessonUi *u = a->les;
    if (!u || u->cur < 0 || u->summary)
        return 0;
    const LessonPredict *p = &u->set.lessons[u->cur].steps[u->step].predict;
    return (p->kind == LESSON_PREDICT_NEXT || p->kind == LESSON_PREDICT_OUTPUT || p->kind == LESSON_PREDICT_BREAKS) &&
           u->predicted[u->step] < 0;
}

void lesson_ui_overlay(UiCtx *ui, App *a, Rect area)
{
    LessonUi *u = a->les;
    if (u)
        u->n_cand = 0;
    LessonPredictState ps;
    if (!u || !lesson_ui_predict_state(a, &ps))
        return;
    ren_clip_push(ui->r, area);
    if (ps.kind == LESSON_PREDICT_ROW)
        overlay_row(ui, a, area, &ps);
    else if (ps.kind == LESSON_PREDICT_NEXT)
        overlay_next(ui, a, area, u, &ps);
    else
        overlay_choices(ui, a, area, &ps);
    ren_clip_pop(ui->r);
}

