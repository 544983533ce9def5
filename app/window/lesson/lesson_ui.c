/* lesson_ui.c - lessons in the window (see lesson_ui.h): the lesson list,
 * opening a lesson and applying each step's view, stepping, quizzes, the
 * language switch. The learner's progress is lesson_progress.c, @predict
 * steps lesson_predict.c, the drawing lesson_panel.c; what they share of
 * the state is lesson_int.h. */
#include "lesson_int.h"
#include "lesson_ui.h"
#include "results.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic.h"
#include "file.h"
#include "paths.h"
#include "panels.h"

static const char *LANG_DIR[2] = {"en", "zh"};

/* ---- UI words in both languages ---- */

#define W_LESSONS LW_LESSONS
#define W_STEP LW_STEP
#define W_NEXT LW_NEXT
#define W_PREV LW_PREV
#define W_TRY LW_TRY
#define W_QUIZ LW_QUIZ
#define W_RIGHT LW_RIGHT
#define W_WRONG LW_WRONG
#define W_CLOSE LW_CLOSE
#define W_NONE LW_NONE
#define W_KEYS LW_KEYS
#define W_DONE LW_DONE
static const char *const WORDS[] = {
    [W_LESSONS] = N_("Lessons"),
    [W_STEP] = N_("Step %d of %d"),
    [W_NEXT] = N_("Next ›"),
    [W_PREV] = N_("‹ Back"),
    [W_TRY] = N_("Try it"),
    [W_QUIZ] = N_("Quiz"),
    [W_RIGHT] = N_("Right!"),
    [W_WRONG] = N_("Not quite. The answer is %d."),
    [W_CLOSE] = N_("close ✕"),
    [W_NONE] = N_("No lessons found in %s"),
    [W_KEYS] = N_("PgDn/PgUp: steps · L: lessons · Z: 中文"),
    [W_DONE] = N_("done"),
};

static const char *word(const App *a, int w) { return L(a->look.lang, WORDS[w]); }
const char *lesson_ui_word(const App *a, int w) { return word(a, w); }

/* A lesson opened afresh: nothing answered yet. */
static void reset_answers(LessonUi *u)
{
    memset(u->answered, 0xff, sizeof u->answered);
    memset(u->predicted, 0xff, sizeof u->predicted);
    memset(u->wrong, 0, sizeof u->wrong);
    memset(u->shown, 0, sizeof u->shown);
    u->summary = 0;
}

/* ---- loading and applying ---- */

static LessonUi *ui(App *a)
{
    if (!a->les) {
        a->les = calloc(1, sizeof *a->les);
        if (a->les) {
            a->les->cur = -1;
            a->les->lang_loaded = -1;
        }
    }
    return a->les;
}

static void collect_error(const char *msg, void *user)
{
    LessonUi *u = user;
    if (!u->load_errors[0])
        snprintf(u->load_errors, sizeof u->load_errors, "%s", msg);
}

static int load_lang(App *a, LessonUi *u)
{
    if (u->lang_loaded == a->look.lang)
        return 0;
    lessons_free(&u->set);
    char rel[64], dir[4096];
    snprintf(rel, sizeof rel, "lessons/%s", LANG_DIR[a->look.lang == 1]);
    if (a->lessons_dir[0])
        snprintf(dir, sizeof dir, "%s/%s", a->lessons_dir, LANG_DIR[a->look.lang == 1]);
    else
        paths_data(rel, dir, sizeof dir);
    u->load_errors[0] = 0;
    snprintf(u->dir, sizeof u->dir, "%s", dir);
    int bad = 0;
    lessons_load_dir(&u->set, dir, collect_error, u, &bad);
    u->lang_loaded = a->look.lang;
    if (bad == 1)
        app_notice(a, 1, _("1 lesson file could not be read: %s"), u->load_errors);
    else if (bad)
        app_notice(a, 1, _("%d lesson files could not be read: %s"), bad, u->load_errors);
    if (!u->prog_loaded)
        lesson_progress_load(u);
    return u->set.n ? 0 : -1;
}

/* The token with this text (source first, then target); none when absent. */
static Selection highlight(const App *a, const char *tok)
{
    const TfTrace *tr = &a->ses.trace;
    if (!tok || !tok[0])
        return (Selection){0, 0};
    for (int i = 0; i < tr->S; i++)
        if (strcmp(vocab_token(&a->ses.model.src_vocab, tr->src_ids[(size_t)a->ses.batch * tr->S + i]), tok) == 0)
            return (Selection){1, i};
    for (int i = 0; i < tr->T; i++)
        if (strcmp(vocab_token(&a->ses.model.tgt_vocab, tr->tgt_ids[(size_t)a->ses.batch * tr->T + i]), tok) == 0)
            return (Selection){2, i};
    return (Selection){0, 0};
}

/* ---- @experiment and @pane ---- */

static int lesson_has_exp(const Lesson *l)
{
    for (int i = 0; i < l->n_steps; i++)
        if (l->steps[i].view.has_exp)
            return 1;
    return 0;
}

/* The step's experiment, checked against the model and the input (the
 * checker says the same before a lesson ships; none, with a notice, when it
 * does not fit), as wishes in o: e holds it. A lesson without experiments
 * leaves the learner's own. */
static void lesson_exp(const App *a, const Lesson *l, const LessonView *v, TfExperiment *e, ViewOut *o)
{
    if (!lesson_has_exp(l))
        return;
    memset(e, 0, sizeof *e);
    const TfConfig *cfg = &a->ses.model.cfg;
    int ok = 1;
    if (v->has_exp) {
        *e = v->exp;
        for (int k = 0; k < e->n_ablate; k++)
            ok &= e->ablate[k].head < cfg->n_heads &&
                  e->ablate[k].layer < (e->ablate[k].kind == TF_ATTN_ENC ? cfg->n_enc : cfg->n_dec);
        for (int k = 0; k < e->n_no_ffn; k++)
            ok &= e->no_ffn[k].layer < (e->no_ffn[k].kind == TF_ATTN_ENC ? cfg->n_enc : cfg->n_dec);
        TfErr err;
        ok &= tf_exp_check_source(e, a->ses.pad.S, &err) == 0;
        if (!ok) {
            o->notice_set = o->notice_error = 1;
            snprintf(o->notice, sizeof o->notice, _("%s:%d: the @experiment does not fit this model or sentence"),
                     l->path, v->exp_line);
            memset(e, 0, sizeof *e);
        }
    }
    if (!tf_exp_equal(e, &a->ses.exp))
        o->set_exp = e; /* quietly: the panel says what the step does */
}

/* Leaving a lesson leaves its experiment too. */
static void clear_exp(App *a, LessonUi *u)
{
    if (!u->exp_set)
        return;
    TfExperiment none;
    memset(&none, 0, sizeof none);
    app_set_exp(a, &none);
    a->cmp = CMP_EXP;
    u->exp_set = 0;
}

static void apply_view(App *a, const Lesson *l, const LessonView *v)
{
    char rel[128], path[4096];
    snprintf(rel, sizeof rel, "assets/models/%s.safetensors", l->model);
    /* lessons kept elsewhere (--lessons DIR) bring their models along in
     * DIR/../assets/models; otherwise the bundled ones */
    if (!a->lessons_dir[0] || snprintf(path, sizeof path, "%s/../%s", a->lessons_dir, rel) <= 0 ||
        access(path, R_OK) != 0)
        paths_data(rel, path, sizeof path);
    if (strcmp(a->ses.model_path, path) != 0)
        app_load_model(a, path); /* keeps the old model, with a notice, on failure */
    /* the step's wishes go the way a view's do (host.c), in three steps:
     * the input; its experiment (checked against the padded input); where
     * to look (the highlight may name a target token of the whole pass) */
    ViewOut o;
    memset(&o, 0, sizeof o);
    const char *tgt = v->tgt ? v->tgt : "";
    o.set_src = v->src && strcmp(v->src, a->ses.src_line) != 0 ? v->src : NULL;
    o.set_tgt = strcmp(tgt, a->ses.tgt) != 0 ? tgt : NULL;
    ui_focus_clear(&a->ui); /* the step's line replaces what was typed */
    app_apply(a, &o);
    session_update(&a->ses, SES_NEED_STAGE); /* the padded input, for the experiment's positions */
    TfExperiment e;
    memset(&o, 0, sizeof o);
    lesson_exp(a, l, v, &e, &o);
    o.batch_set = 1;
    o.batch = v->batch >= 0 && v->batch < a->ses.n_src ? v->batch : 0;
    app_apply(a, &o);
    if (lesson_has_exp(l)) {
        a->cmp = session_has_exp(&a->ses) ? v->cmp : CMP_EXP;
        a->les->exp_set = session_has_exp(&a->ses);
    }
    app_compute_all(a);
    memset(&o, 0, sizeof o);
    int st = v->stage[0] ? stage_find(v->stage) : -1;
    if (st >= 0) {
        o.go_set = 1;
        o.go_stage = (StageId)st;
        o.go_layer = v->layer >= 0 ? v->layer : 0;
    }
    o.head_set = v->head != -2 || a->ses.head < 0;
    o.head = v->head != -2 ? v->head : 0;
    int vw = v->view[0] ? view_find(v->view) : -1;
    o.view_set = 1;
    o.view = vw >= 0 ? (ViewId)vw : VIEW_AUTO;
    o.sel_set = 1;
    o.sel = highlight(a, v->highlight);
    app_apply(a, &o);
    /* the settings the step's text assumes: the paper's beam 4 and α 0.6
     * unless it says otherwise, the default colour maps unless @colormap */
    if (vw == VIEW_DECODE)
        app_decode_setup(a, v->pane[0] ? v->pane : "gen", v->beam ? v->beam : 4, v->alpha >= 0 ? v->alpha : 0.6f);
    if (vw == VIEW_TRAIN && v->train_task[0]) /* the run the learner starts: task, heads */
        app_train_settings(a, v->train_task, v->train_heads);
    if (v->pe_panel[0]) { /* which panel a narrow PE view shows */
        ViewCall c;
        app_view_begin(a, VIEW_PE, &c);
        view_pe_panel(c.v.st, v->pe_panel);
        app_view_end(a, &c);
    }
    a->look.cmap_prob = CMAP_VIRIDIS;
    a->look.cmap_signed = CMAP_DIVERGING;
    if (v->cmap[0]) {
        CmapId m = strcmp(v->cmap, "cividis") == 0 ? CMAP_CIVIDIS
                   : strcmp(v->cmap, "viridis") == 0 ? CMAP_VIRIDIS
                                                     : CMAP_DIVERGING;
        StageKind k = st >= 0 ? stage_info((StageId)st)->kind : SK_SCORES;
        int prob = k == SK_WEIGHTS || k == SK_PROBS || k == SK_HIDDEN;
        *(prob ? &a->look.cmap_prob : &a->look.cmap_signed) = m;
    }
}

static void show_step(App *a, LessonUi *u, int step)
{
    const Lesson *l = &u->set.lessons[u->cur];
    if (step < 0)
        step = 0;
    if (step >= l->n_steps)
        step = l->n_steps - 1;
    u->step = step;
    u->shown_at = a->now;
    u->scroll = 0;
    u->summary = 0;
    apply_view(a, l, &l->steps[step].view);
    /* @force: the decode lab writes the token at that step (the next frame,
     * on the step's input); a step without one takes it back */
    const LessonStep *ls = &l->steps[step];
    int id = ls->force_step ? vocab_find(&a->ses.model.tgt_vocab, ls->force_token, (int)strlen(ls->force_token)) : -1;
    if (id >= 0) {
        a->dec_force.pending = 1;
        a->dec_force.step = ls->force_step - 1;
        a->dec_force.id = id;
        u->forced = 1;
    } else if (u->forced) {
        a->dec_force.pending = -1;
        u->forced = 0;
    }
    Progress *p = lesson_progress_of(u, l->id);
    if (p && step + 1 > p->reached) {
        p->reached = step + 1;
        lesson_progress_save(a, u);
    }
}

int lesson_ui_open(App *a, const char *id, int step)
{
    LessonUi *u = ui(a);
    if (!u)
        return -1;
    if (load_lang(a, u)) {
        /* the reason, FILE:LINE: ..., when a file or the folder failed */
        if (u->load_errors[0])
            app_notice(a, 1, "%s", u->load_errors);
        else
            app_notice(a, 1, word(a, W_NONE), u->dir);
        return -1;
    }
    int i = lessons_find(&u->set, id);
    if (i < 0) {
        app_notice(a, 1, _("no lesson '%s'"), id);
        return -1;
    }
    if (u->cur != i) {
        reset_answers(u);
        if (u->cur >= 0)
            clear_exp(a, u);
    }
    u->cur = i;
    u->list_open = 0;
    show_step(a, u, step);
    return 0;
}

void lesson_ui_close(App *a)
{
    if (a->les) {
        a->les->cur = -1;
        clear_exp(a, a->les);
        if (a->les->forced) /* the lesson's forced token goes with it */
            a->dec_force.pending = -1;
        a->les->forced = 0;
    }
}

int lesson_ui_active(const App *a) { return a->les && a->les->cur >= 0; }
int lesson_ui_list_open(const App *a) { return a->les && a->les->list_open; }

void lesson_ui_step(App *a, int delta)
{
    LessonUi *u = a->les;
    if (!u || u->cur < 0)
        return;
    const Lesson *l = &u->set.lessons[u->cur];
    int s = u->step + delta;
    if (u->summary && delta < 0) { /* back from the end screen to the last step */
        u->summary = 0;
        s = l->n_steps - 1;
    } else if (!u->summary && s >= l->n_steps && delta > 0) { /* the lesson-end screen first */
        u->summary = 1;
        u->scroll = 0;
        return;
    } else if (u->summary && delta > 0) {
        if (u->cur + 1 >= u->set.n)
            return;
        u->cur++; /* on to the next lesson */
        reset_answers(u);
        clear_exp(a, u);
        s = 0;
    }
    show_step(a, u, s);
}

void lesson_ui_set_lang(App *a, int lang)
{
    if (lang == a->look.lang)
        return;
    LessonUi *u = ui(a);
    char id[64] = "";
    int step = 0, open = u && u->cur >= 0;
    if (open) {
        snprintf(id, sizeof id, "%s", u->set.lessons[u->cur].id);
        step = u->step;
    }
    a->look.lang = lang;
    ui_set_lang(lang); /* the notices below speak the new language */
    if (!u)
        return;
    int saved[LESSON_MAX_STEPS], picked[LESSON_MAX_STEPS], shown[LESSON_MAX_STEPS], summary = u->summary;
    unsigned wrong[LESSON_MAX_STEPS];
    memcpy(saved, u->answered, sizeof saved);
    memcpy(picked, u->predicted, sizeof picked);
    memcpy(wrong, u->wrong, sizeof wrong);
    memcpy(shown, u->shown, sizeof shown);
    u->cur = -1;
    load_lang(a, u);
    if (open && lesson_ui_open(a, id, step) == 0) {
        memcpy(u->answered, saved, sizeof saved);
        memcpy(u->predicted, picked, sizeof picked);
        memcpy(u->wrong, wrong, sizeof wrong);
        memcpy(u->shown, shown, sizeof shown);
        u->summary = summary;
    }
}

void lesson_ui_toggle_list(App *a)
{
    LessonUi *u = ui(a);
    if (!u)
        return;
    u->list_open = !u->list_open;
    if (u->list_open) {
        load_lang(a, u);
        u->list_sel = u->cur >= 0 ? u->cur : 0;
    }
}

int lesson_ui_answer(App *a, int choice)
{
    LessonUi *u = a->les;
    if (!u || u->cur < 0)
        return -1;
    const Lesson *l = &u->set.lessons[u->cur];
    const LessonStep *s = &l->steps[u->step];
    if (!s->has_quiz || choice < 0 || choice >= s->quiz.n_choices || u->answered[u->step] >= 0 ||
        (u->wrong[u->step] >> choice & 1u))
        return -1;
    if (l->test[0]) { /* a pre/post-test: the first answer counts, kept for the teacher, nothing revealed */
        u->answered[u->step] = choice;
        char qid[96];
        snprintf(qid, sizeof qid, "%s", s->qid);
        if (!qid[0])
            snprintf(qid, sizeof qid, "%s-%d", l->id, u->step + 1);
        TfErr err;
        if (a->no_save)
            ;
        else if (results_record(l->test, l->id, qid, choice, choice == s->quiz.answer, a->now - u->shown_at, &err))
            app_notice(a, 1, _("the answer could not be recorded: %s"), err.msg);
        else {
            int done = 0, total = 0;
            lesson_ui_test_count(a, &done, &total);
            app_notice(a, 0, _("answer recorded (%d of %d)"), done, total);
        }
        return choice == s->quiz.answer;
    }
    if (choice != s->quiz.answer) { /* another try, the answer not given away */
        u->wrong[u->step] |= 1u << choice;
        if (__builtin_popcount(u->wrong[u->step]) >= s->quiz.n_choices - 1) { /* only the answer is left */
            u->answered[u->step] = s->quiz.answer;
            u->shown[u->step] = 1;
            u->scroll_to_end = 1;
        }
        return 0;
    }
    u->answered[u->step] = choice;
    u->scroll_to_end = 1;
    Progress *p = lesson_progress_of(u, l->id);
    if (p && !u->wrong[u->step]) { /* right at the first try */
        p->right |= 1ull << u->step; /* step < LESSON_MAX_STEPS = 64 */
        lesson_progress_save(a, u);
    }
    return 1;
}

void lesson_ui_show_answer(App *a)
{
    LessonUi *u = a->les;
    if (!u || u->cur < 0)
        return;
    const LessonStep *s = &u->set.lessons[u->cur].steps[u->step];
    if (!s->has_quiz || u->answered[u->step] >= 0)
        return;
    u->answered[u->step] = s->quiz.answer;
    u->shown[u->step] = 1;
    u->scroll_to_end = 1;
}

unsigned lesson_ui_quiz_wrong(const App *a, int *shown)
{
    const LessonUi *u = a->les;
    if (shown)
        *shown = u && u->cur >= 0 ? u->shown[u->step] : 0;
    return u && u->cur >= 0 ? u->wrong[u->step] : 0;
}

int lesson_ui_summary(const App *a, int *right, int *total)
{
    const LessonUi *u = a->les;
    if (!u || u->cur < 0 || !u->summary)
        return 0;
    const Lesson *l = &u->set.lessons[u->cur];
    *right = *total = 0;
    for (int i = 0; i < l->n_steps; i++) {
        const LessonStep *s = &l->steps[i];
        if (s->has_quiz) {
            (*total)++;
            *right += u->answered[i] == s->quiz.answer && !u->wrong[i] && !u->shown[i];
        } else if (s->predict.kind) {
            (*total)++;
            *right += u->predicted[i] >= 0 && u->predicted[i] == u->pred_answer[i];
        }
    }
    return 1;
}

int lesson_ui_test_count(const App *a, int *done, int *total)
{
    const LessonUi *u = a->les;
    if (!u || u->cur < 0 || !u->set.lessons[u->cur].test[0])
        return 0;
    const Lesson *l = &u->set.lessons[u->cur];
    *done = *total = 0;
    for (int i = 0; i < l->n_steps; i++)
        if (l->steps[i].has_quiz) {
            (*total)++;
            *done += u->answered[i] >= 0;
        }
    return 1;
}

int *lesson_ui_code(App *a)
{
    return a->les ? &a->les->show_code : NULL;
}

void lesson_ui_list_move(App *a, int delta)
{
    LessonUi *u = a->les;
    if (!u)
        return;
    int i = u->list_sel + delta;
    u->list_sel = i < 0 ? 0 : i < u->set.n ? i : u->list_sel;
}

/* The lesson selected in the list, where the learner left it (the step
 * after the last one reached, unless the lesson was finished). */
void lesson_ui_list_enter(App *a)
{
    LessonUi *u = a->les;
    if (!u || u->list_sel >= u->set.n)
        return;
    Progress *p = lesson_progress_of(u, u->set.lessons[u->list_sel].id);
    int resume = p && p->reached > 0 && p->reached < u->set.lessons[u->list_sel].n_steps ? p->reached - 1 : 0;
    lesson_ui_open(a, u->set.lessons[u->list_sel].id, resume);
}

int lesson_ui_quiz_key(App *a, int choice)
{
    LessonUi *u = a->les;
    if (!u || u->cur < 0)
        return 0;
    const LessonStep *s = &u->set.lessons[u->cur].steps[u->step];
    int choices = lesson_predict_has_choices(s->predict.kind);
    if ((!s->has_quiz && !choices) || choice < 0 || choice >= s->quiz.n_choices)
        return 0;
    int order[LESSON_MAX_CHOICES];
    lesson_ui_quiz_order(a, order);
    if (choices) /* a prediction with choices, by the same keys */
        return lesson_ui_predict(a, order[choice]) >= 0;
    if (u->answered[u->step] >= 0)
        return 0;
    lesson_ui_answer(a, order[choice]);
    return 1;
}

void lesson_ui_choice_drawn(App *a, int k, Rect rc)
{
    LessonUi *u = a->les;
    if (!u)
        return;
    if (k < 0)
        u->n_choice_rc = 0;
    else if (k < LESSON_MAX_CHOICES) {
        u->choice_rc[k] = rc;
        if (k + 1 > u->n_choice_rc)
            u->n_choice_rc = k + 1;
    }
}

void lesson_ui_choice_seen(App *a, Rect visible)
{
    if (a->les)
        a->les->choice_vis = visible;
}

int lesson_ui_choice_rects(const App *a, Rect *rects, Rect *visible)
{
    const LessonUi *u = a->les;
    if (!u)
        return 0;
    for (int k = 0; k < u->n_choice_rc; k++)
        rects[k] = u->choice_rc[k];
    *visible = u->choice_vis;
    return u->n_choice_rc;
}

const Lesson *lesson_ui_current(const App *a, int *step, int *answered)
{
    const LessonUi *u = a->les;
    if (!u || u->cur < 0)
        return NULL;
    if (step)
        *step = u->step;
    if (answered)
        *answered = u->answered[u->step];
    return &u->set.lessons[u->cur];
}

void lesson_ui_free(App *a)
{
    if (!a->les)
        return;
    lessons_free(&a->les->set);
    free(a->les);
    a->les = NULL;
}

const LessonSet *lesson_ui_set(App *a)
{
    LessonUi *u = ui(a);
    if (!u)
        return NULL;
    load_lang(a, u);
    return &u->set;
}

int lesson_ui_list_sel(const App *a) { return a->les ? a->les->list_sel : 0; }

void lesson_ui_list_select(App *a, int i)
{
    if (a->les && i >= 0 && i < a->les->set.n)
        a->les->list_sel = i;
}

void lesson_ui_progress(App *a, const char *id, int *reached, unsigned long long *right)
{
    LessonUi *u = ui(a);
    if (u && !u->prog_loaded)
        lesson_progress_load(u);
    Progress *p = u ? lesson_progress_of(u, id) : NULL;
    *reached = p ? p->reached : 0;
    *right = p ? p->right : 0;
}

int *lesson_ui_scroll(App *a, int *to_end)
{
    if (!a->les)
        return NULL;
    *to_end = a->les->scroll_to_end;
    a->les->scroll_to_end = 0;
    return &a->les->scroll;
}
const char *lesson_ui_dir(App *a)
{
    LessonUi *u = ui(a);
    return u && u->dir[0] ? u->dir : NULL;
}
