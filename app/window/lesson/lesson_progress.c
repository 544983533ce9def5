/* lesson_progress.c - the learner's progress through the lessons: the
 * highest step reached and the checks right, per lesson, kept between runs
 * in $XDG_DATA_HOME/stepformer/progress.txt (the folder made with its
 * parents); and the learner's own order of quiz choices. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic.h"
#include "file.h"
#include "lesson_int.h"

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

Progress *lesson_progress_of(LessonUi *u, const char *id)
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

void lesson_progress_load(LessonUi *u)
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
    unsigned long long right;
    while (fscanf(f, "%63s %d %llu", id, &reached, &right) == 3) {
        Progress *p = lesson_progress_of(u, id);
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
void lesson_progress_save(App *a, LessonUi *u)
{
    if (a->no_save)
        return;
    char dir[1024], path[1100];
    if (progress_path(dir, sizeof dir)) {
        save_failed(a, u, _("neither XDG_DATA_HOME nor HOME is set"));
        return;
    }
    int e = tf_mkdirs(dir, 0755); /* with its parents: a fresh account has no ~/.local/share */
    if (e) {
        char why[1200];
        snprintf(why, sizeof why, _("cannot make %s: %s"), dir, ui_errno_text(e));
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
        fprintf(w.f, "%s %d %llu\n", u->prog[i].id, u->prog[i].reached, u->prog[i].right);
    if (tf_atomic_commit(&w, &err))
        save_failed(a, u, err.msg);
}

/* The learner's seed for the order of quiz choices: the account (each
 * student of a lab has one), so the order stays the same between runs;
 * STEPFORMER_QUIZ_SEED sets it (tests, handouts). */
static unsigned learner_seed(void)
{
    const char *e = getenv("STEPFORMER_QUIZ_SEED");
    if (e && e[0])
        return (unsigned)strtoul(e, NULL, 10);
    char key[128];
    const char *home = getenv("HOME");
    snprintf(key, sizeof key, "%u:%s", (unsigned)getuid(), home ? home : "");
    return lesson_predict_seed(key, 0);
}

void lesson_ui_quiz_order(const App *a, int *order)
{
    const LessonUi *u = a->les;
    for (int k = 0; k < LESSON_MAX_CHOICES; k++)
        order[k] = k;
    if (!u || u->cur < 0)
        return;
    const Lesson *l = &u->set.lessons[u->cur];
    lesson_quiz_order(l, u->step, learner_seed() ^ lesson_predict_seed(l->id, 0), order);
}
