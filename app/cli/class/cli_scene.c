/* cli_scene.c - a scene code as command-line flags (cli_scene.h). */
#include "cli_scene.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "scene_code.h"

static SceneLink last;
static int have_last;

const SceneLink *cli_scene_last(void)
{
    return have_last ? &last : NULL;
}

/* The new argv and the strings it points at, kept for the program's life. */
static struct {
    char *argv[96];
    int n;
    char text[8192];
    size_t used;
} A;

static int push(const char *s)
{
    size_t n = strlen(s) + 1;
    if (A.n >= (int)(sizeof A.argv / sizeof A.argv[0]) - 1 || A.used + n > sizeof A.text)
        return -1;
    memcpy(A.text + A.used, s, n);
    A.argv[A.n++] = A.text + A.used;
    A.used += n;
    return 0;
}

static int push2(const char *flag, const char *v) { return push(flag) || push(v); }

static int push_int(const char *flag, int v)
{
    char s[16];
    snprintf(s, sizeof s, "%d", v);
    return push2(flag, s);
}

static int push_num(const char *flag, float v)
{
    char s[32];
    snprintf(s, sizeof s, "%.9g", (double)v);
    return push2(flag, s);
}

static int flags_of(const SceneLink *l, int decode, const char *cmd)
{
    int bad = 0;
    if (l->has & LINK_MODEL) {
        char path[4096];
        TfErr err;
        if (scene_model_find(l->model, path, sizeof path, &err))
            return cli_fail(cmd, "%s", err.msg);
        bad |= push2("--model", path);
    }
    if (l->has & LINK_SRC)
        bad |= push2("--src", l->src);
    if (l->has & LINK_TGT)
        bad |= push2("--tgt", l->tgt);
    if (l->has & LINK_STAGE)
        bad |= push2("--stage", l->stage);
    if (l->has & LINK_LAYER)
        bad |= push_int("--layer", l->layer);
    if (l->has & LINK_HEAD)
        bad |= push_int("--head", l->head);
    if (l->has & LINK_VIEW)
        bad |= push2("--view", l->view);
    if (l->has & LINK_LANG)
        bad |= push2("--lang", l->lang ? "zh" : "en");
    if (l->has & LINK_LESSON)
        bad |= push2("--lesson", l->lesson);
    if (l->has & LINK_STEP)
        bad |= push_int("--step", l->step);
    if (l->has & LINK_BATCH)
        bad |= push_int("--batch", l->batch);
    if (l->no_scale)
        bad |= push("--no-scale");
    if (l->no_pe)
        bad |= push("--no-pe");
    if (l->no_causal)
        bad |= push("--no-causal");
    for (int k = 0; k < l->n_ablate; k++)
        bad |= push2("--ablate", l->ablate[k]);
    for (int k = 0; k < l->n_hide; k++)
        bad |= push_int("--hide-src", l->hide[k]);
    if (decode && (l->has & LINK_PANE))
        bad |= push2("--decode-pane", l->pane);
    if (decode && (l->has & LINK_BEAM))
        bad |= push_int("--beam", l->beam);
    if (decode && (l->has & LINK_ALPHA))
        bad |= push_num("--alpha", l->alpha);
    return bad ? cli_fail(cmd, "--scene: the scene is too long") : 0;
}

int cli_scene_expand(int *argc, char ***argv, int decode, const char *cmd)
{
    char **in = *argv;
    int n = *argc, at = -1;
    const char *code = NULL;
    for (int i = 1; i < n; i++) {
        if (strcmp(in[i], "--scene") == 0) {
            if (i + 1 >= n)
                return cli_fail(cmd, "--scene needs a code (stepformer scene prints one)");
            code = in[i + 1];
            at = i;
            break;
        }
        if (strncmp(in[i], "--scene=", 8) == 0) {
            code = in[i] + 8;
            at = i;
            break;
        }
    }
    if (at < 0)
        return 0;
    TfErr err;
    if (scene_code_read(code, &last, &err))
        return cli_fail(cmd, "%s", err.msg);
    have_last = 1;
    A.n = 0;
    A.used = 0;
    int skip = strcmp(in[at], "--scene") == 0 ? 2 : 1;
    if (push(in[0]) || flags_of(&last, decode, cmd))
        return 1;
    /* the other arguments after the scene's flags: given ones win */
    for (int i = 1; i < n; i++)
        if ((i < at || i >= at + skip) && push(in[i]))
            return cli_fail(cmd, "too many arguments with --scene");
    A.argv[A.n] = NULL;
    *argc = A.n;
    *argv = A.argv;
    return 0;
}
