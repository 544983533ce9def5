/* lesson_ui.c - lessons in the window (see lesson_ui.h). */
#include "lesson_ui.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic.h"
#include "file.h"
#include "cli.h"
#include "panels.h"

#define MAX_LESSONS 64

typedef struct Progress {
    char id[64];
    int reached;     /* highest step seen, 1-based; 0 none */
    unsigned right;  /* bit k: quiz of step k answered right */
} Progress;

typedef struct LessonUi {
    LessonSet set;
    int lang_loaded;          /* language of set, -1 none */
    int cur;                  /* index in set, -1 no lesson open */
    int step;
    int answered[LESSON_MAX_STEPS];
    int list_open;
    int list_sel;
    int scroll;               /* lesson panel scroll offset, pixels */
    int scroll_to_end;        /* show the quiz explanation after answering */
    Progress prog[MAX_LESSONS];
    int n_prog;
    int prog_loaded;
    int save_warned;          /* the learner was told progress cannot be kept */
    char load_errors[512];
    char dir[4096];             /* the folder the lessons were read from */
} LessonUi;

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

static const char *word(const App *a, int w) { return L(a->lang, WORDS[w]); }
const char *lesson_ui_word(const App *a, int w) { return word(a, w); }

/* ---- progress in $XDG_DATA_HOME/stepformer/progress.txt ---- */

static int progress_path(char *buf, size_t cap)
{
    const char *x = getenv("XDG_DATA_HOME");
    const char *home = getenv("HOME");
    if (x && x[0])
        snprintf(buf, cap, "%s/stepformer", x);
    else if (home && home[0])
        snprintf(buf, cap, "%s/.local/share/stepformer", home);
    else
        return -1;
    return 0;
}

static Progress *progress_of(LessonUi *u, const char *id)
{
    for (int i = 0; i < u->n_prog; i++)
        if (strcmp(u->prog[i].id, id) == 0)
            return &u->prog[i];
    if (u->n_prog >= MAX_LESSONS)
        return NULL;
    Progress *p = &u->prog[u->n_prog++];
    memset(p, 0, sizeof *p);
    snprintf(p->id, sizeof p->id, "%s", id);
    return p;
}

static void progress_load(LessonUi *u)
{
    u->prog_loaded = 1;
    char dir[1024], path[1100];
    if (progress_path(dir, sizeof dir))
        return;
    snprintf(path, sizeof path, "%s/progress.txt", dir);
    TfErr err;
    FILE *f = tf_fopen_regular(path, NULL, &err); /* a FIFO there must not hang */
    if (!f)
        return;
    char id[64];
    int reached;
    unsigned right;
    while (fscanf(f, "%63s %d %u", id, &reached, &right) == 3) {
        Progress *p = progress_of(u, id);
        if (p) {
            p->reached = reached < 0 ? 0 : reached > LESSON_MAX_STEPS ? LESSON_MAX_STEPS : reached;
            p->right = right;
        }
    }
    fclose(f);
}

/* Progress cannot be kept: say so once (it is a comfort, not an error). */
static void save_failed(App *a, LessonUi *u, const char *why)
{
    if (u->save_warned)
        return;
    u->save_warned = 1;
    app_notice(a, 1, _("lesson progress is not saved: %s"), why);
}

/* Write progress atomically; a failure is told once. */
static void progress_save(App *a, LessonUi *u)
{
    if (a->no_save)
        return;
    char dir[1024], path[1100];
    if (progress_path(dir, sizeof dir)) {
        save_failed(a, u, _("neither XDG_DATA_HOME nor HOME is set"));
        return;
    }
    char parent[1024];
    snprintf(parent, sizeof parent, "%s", dir);
    char *slash = strrchr(parent, '/');
    if (slash) {
        *slash = 0;
        mkdir(parent, 0755);
    }
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        char why[1200];
        snprintf(why, sizeof why, _("cannot make %s: %s"), dir, strerror(errno));
        save_failed(a, u, why);
        return;
    }
    snprintf(path, sizeof path, "%s/progress.txt", dir);
    TfAtomic w;
    TfErr err;
    if (tf_atomic_open(&w, path, 0644, &err)) {
        save_failed(a, u, err.msg);
        return;
    }
    for (int i = 0; i < u->n_prog; i++)
        fprintf(w.f, "%s %d %u\n", u->prog[i].id, u->prog[i].reached, u->prog[i].right);
    if (tf_atomic_commit(&w, &err))
        save_failed(a, u, err.msg);
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
    if (u->lang_loaded == a->lang)
        return 0;
    lessons_free(&u->set);
    char rel[64], dir[4096];
    snprintf(rel, sizeof rel, "lessons/%s", LANG_DIR[a->lang == 1]);
    if (a->lessons_dir[0])
        snprintf(dir, sizeof dir, "%s/%s", a->lessons_dir, LANG_DIR[a->lang == 1]);
    else
        cli_data_path(rel, dir, sizeof dir);
    u->load_errors[0] = 0;
    snprintf(u->dir, sizeof u->dir, "%s", dir);
    int bad = 0;
    lessons_load_dir(&u->set, dir, collect_error, u, &bad);
    u->lang_loaded = a->lang;
    if (bad == 1)
        app_notice(a, 1, _("1 lesson file could not be read: %s"), u->load_errors);
    else if (bad)
        app_notice(a, 1, _("%d lesson files could not be read: %s"), bad, u->load_errors);
    if (!u->prog_loaded)
        progress_load(u);
    return u->set.n ? 0 : -1;
}

/* Select the token with this text (source first, then target). */
static void highlight(App *a, const char *tok)
{
    const TfTrace *tr = &a->ses.trace;
    a->sel.side = 0;
    if (!tok || !tok[0])
        return;
    for (int i = 0; i < tr->S; i++)
        if (strcmp(vocab_token(&a->ses.model.src_vocab, tr->src_ids[(size_t)a->ses.batch * tr->S + i]), tok) == 0) {
            a->sel = (Selection){1, i};
            return;
        }
    for (int i = 0; i < tr->T; i++)
        if (strcmp(vocab_token(&a->ses.model.tgt_vocab, tr->tgt_ids[(size_t)a->ses.batch * tr->T + i]), tok) == 0) {
            a->sel = (Selection){2, i};
            return;
        }
}

static void apply_view(App *a, const Lesson *l, const LessonView *v)
{
    char rel[128], path[4096];
    snprintf(rel, sizeof rel, "assets/models/%s.safetensors", l->model);
    /* lessons kept elsewhere (--lessons DIR) bring their models along in
     * DIR/../assets/models; otherwise the bundled ones */
    if (!a->lessons_dir[0] || snprintf(path, sizeof path, "%s/../%s", a->lessons_dir, rel) <= 0 ||
        access(path, R_OK) != 0)
        cli_data_path(rel, path, sizeof path);
    if (strcmp(a->ses.model_path, path) != 0)
        app_load_model(a, path); /* keeps the old model, with a notice, on failure */
    if (v->src && strcmp(v->src, a->ses.src_line) != 0)
        app_set_text(a, FOCUS_SRC, v->src);
    const char *tgt = v->tgt ? v->tgt : "";
    if (strcmp(tgt, a->ses.tgt) != 0)
        app_set_text(a, FOCUS_TGT, tgt);
    a->focus = FOCUS_NONE;
    app_compute_all(a); /* the highlight may name a target token */
    int st = v->stage[0] ? stage_find(v->stage) : -1;
    if (st >= 0)
        app_goto(a, st, v->layer >= 0 ? v->layer : 0);
    if (v->head != -2)
        app_set_head(a, v->head);
    else if (a->ses.head < 0)
        a->ses.head = 0;
    int vw = v->view[0] ? view_find(v->view) : -1;
    a->view = vw >= 0 ? (ViewId)vw : VIEW_AUTO;
    a->ses.batch = v->batch >= 0 && v->batch < a->ses.n_src ? v->batch : 0;
    highlight(a, v->highlight);
    a->anim_start = a->now;
}

static void show_step(App *a, LessonUi *u, int step)
{
    const Lesson *l = &u->set.lessons[u->cur];
    if (step < 0)
        step = 0;
    if (step >= l->n_steps)
        step = l->n_steps - 1;
    u->step = step;
    u->scroll = 0;
    apply_view(a, l, &l->steps[step].view);
    Progress *p = progress_of(u, l->id);
    if (p && step + 1 > p->reached) {
        p->reached = step + 1;
        progress_save(a, u);
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
    if (u->cur != i)
        memset(u->answered, 0xff, sizeof u->answered);
    u->cur = i;
    u->list_open = 0;
    show_step(a, u, step);
    return 0;
}

void lesson_ui_close(App *a)
{
    if (a->les)
        a->les->cur = -1;
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
    if (s >= l->n_steps && u->cur + 1 < u->set.n) { /* on to the next lesson */
        u->cur++;
        memset(u->answered, 0xff, sizeof u->answered);
        s = 0;
    }
    show_step(a, u, s);
}

void lesson_ui_set_lang(App *a, int lang)
{
    if (lang == a->lang)
        return;
    LessonUi *u = ui(a);
    char id[64] = "";
    int step = 0, open = u && u->cur >= 0;
    if (open) {
        snprintf(id, sizeof id, "%s", u->set.lessons[u->cur].id);
        step = u->step;
    }
    a->lang = lang;
    ui_set_lang(lang); /* the notices below speak the new language */
    if (!u)
        return;
    int saved[LESSON_MAX_STEPS];
    memcpy(saved, u->answered, sizeof saved);
    u->cur = -1;
    load_lang(a, u);
    if (open && lesson_ui_open(a, id, step) == 0)
        memcpy(u->answered, saved, sizeof saved);
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
    if (!s->has_quiz || choice < 0 || choice >= s->quiz.n_choices || u->answered[u->step] >= 0)
        return -1;
    u->answered[u->step] = choice;
    u->scroll_to_end = 1;
    Progress *p = progress_of(u, l->id);
    if (p && choice == s->quiz.answer) {
        p->right |= 1u << (u->step & 31);
        progress_save(a, u);
    }
    return choice == s->quiz.answer;
}

int lesson_ui_key(App *a, Key key)
{
    int sym = (int)key;
    LessonUi *u = a->les;
    if (sym == 'l') {
        lesson_ui_toggle_list(a);
        return 1;
    }
    if (sym == 'z') {
        lesson_ui_set_lang(a, !a->lang);
        app_notice(a, 0, "%s", _("language: English"));
        return 1;
    }
    if (!u)
        return 0;
    if (u->list_open) {
        if (sym == KEY_RIGHT || sym == KEY_DOWN)
            u->list_sel = u->list_sel + 1 < u->set.n ? u->list_sel + 1 : u->list_sel;
        else if (sym == KEY_LEFT || sym == KEY_UP)
            u->list_sel = u->list_sel > 0 ? u->list_sel - 1 : 0;
        else if (sym == KEY_RETURN && u->list_sel < u->set.n) {
            Progress *p = progress_of(u, u->set.lessons[u->list_sel].id);
            int resume = p && p->reached > 0 && p->reached < u->set.lessons[u->list_sel].n_steps ? p->reached - 1 : 0;
            lesson_ui_open(a, u->set.lessons[u->list_sel].id, resume);
        } else if (sym == KEY_ESCAPE)
            u->list_open = 0;
        else
            return 0;
        return 1;
    }
    if (u->cur < 0)
        return 0;
    if (sym == KEY_ESCAPE) { /* Esc leaves the lesson (a second Esc quits) */
        lesson_ui_close(a);
        return 1;
    }
    if (sym == KEY_PAGEDOWN) {
        lesson_ui_step(a, 1);
        return 1;
    }
    if (sym == KEY_PAGEUP) {
        lesson_ui_step(a, -1);
        return 1;
    }
    const LessonStep *s = &u->set.lessons[u->cur].steps[u->step];
    if (s->has_quiz && u->answered[u->step] < 0 && sym >= '1' && sym < '1' + s->quiz.n_choices) {
        lesson_ui_answer(a, sym - '1');
        return 1;
    }
    return 0;
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

void lesson_ui_progress(App *a, const char *id, int *reached, unsigned *right)
{
    LessonUi *u = ui(a);
    if (u && !u->prog_loaded)
        progress_load(u);
    Progress *p = u ? progress_of(u, id) : NULL;
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
