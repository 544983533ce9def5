/* cli_scene.c - a scene code as command-line flags (cli_scene.h). */
#include "cli_scene.h"

#include <stddef.h>
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

/* The link's fields as flags of shot, describe and the window: those a
 * link sets (has), in this order; the Decode tab's (decode) only where the
 * command has that tab. */
typedef enum { AS_TEXT, AS_INT, AS_NUM, AS_LANG } FlagKind;
typedef struct LinkFlag {
    unsigned bit;
    const char *flag;
    FlagKind kind;
    size_t off; /* the field in SceneLink */
    int decode;
} LinkFlag;

#define AT(field) offsetof(SceneLink, field)
static const LinkFlag FLAGS[] = {
    {LINK_SRC, "--src", AS_TEXT, AT(src), 0},       {LINK_TGT, "--tgt", AS_TEXT, AT(tgt), 0},
    {LINK_STAGE, "--stage", AS_TEXT, AT(stage), 0}, {LINK_LAYER, "--layer", AS_INT, AT(layer), 0},
    {LINK_HEAD, "--head", AS_INT, AT(head), 0},     {LINK_VIEW, "--view", AS_TEXT, AT(view), 0},
    {LINK_LANG, "--lang", AS_LANG, AT(lang), 0},    {LINK_LESSON, "--lesson", AS_TEXT, AT(lesson), 0},
    {LINK_STEP, "--step", AS_INT, AT(step), 0},     {LINK_BATCH, "--batch", AS_INT, AT(batch), 0},
    {LINK_PANE, "--decode-pane", AS_TEXT, AT(pane), 1}, {LINK_BEAM, "--beam", AS_INT, AT(beam), 1},
    {LINK_ALPHA, "--alpha", AS_NUM, AT(alpha), 1},
};
#undef AT

static int push_field(const SceneLink *l, const LinkFlag *f)
{
    const char *at = (const char *)l + f->off;
    switch (f->kind) {
    case AS_TEXT: return push2(f->flag, at);
    case AS_INT: return push_int(f->flag, *(const int *)(const void *)at);
    case AS_NUM: return push_num(f->flag, *(const float *)(const void *)at);
    case AS_LANG: return push2(f->flag, *(const int *)(const void *)at ? "zh" : "en");
    }
    return -1;
}

/* The fields of one part (decode 0: before the experiments, 1: the Decode
 * tab's, after them). */
static int push_fields(const SceneLink *l, int decode)
{
    int bad = 0;
    for (size_t k = 0; k < sizeof FLAGS / sizeof FLAGS[0]; k++)
        if (FLAGS[k].decode == decode && (l->has & FLAGS[k].bit))
            bad |= push_field(l, &FLAGS[k]);
    return bad;
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
    bad |= push_fields(l, 0);
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
    if (l->no_residual)
        bad |= push("--no-residual");
    for (int k = 0; k < l->n_ffn; k++)
        bad |= push2("--no-ffn", l->ffn[k]);
    if (decode && (l->has & LINK_CMP) && l->cmp == LINK_CMP_DIFF)
        bad |= push("--compare");
    if (decode && (l->has & LINK_ROLLOUT) && l->rollout)
        bad |= push("--rollout");
    if (decode)
        bad |= push_fields(l, 1);
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
