/* test_scene.c - scene codes: the code reads back to the same fields and
 * refuses other versions and broken text in one line; `shot --scene` draws
 * exactly what `shot` draws with the same flags (a stage under an
 * experiment, the Decode tab's beam pane, a lesson step); a model that is
 * not bundled is named by its hash and a missing one is named in the error;
 * in the window Ctrl+Shift+C copies the code and link, a code pasted into
 * the Source line opens the scene, and Q shows the QR code. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene.h"
#include "test_app_util.h"

#define MODEL "assets/models/en2zh.safetensors"

static int same_file(const char *a, const char *b)
{
    char cmd[512], out[64];
    snprintf(cmd, sizeof cmd, "cmp -s %s %s && echo same", a, b);
    tu_run_cmd(cmd, out, sizeof out);
    return strncmp(out, "same", 4) == 0;
}

static void test_code_round_trip(void **state)
{
    (void)state;
    const char *frag = "model=en2zh&src=i%20love%20china%7Cyou%20read&tgt=%E6%88%91&stage=dec.cross.weights"
                       "&layer=1&head=-1&lang=zh&lesson=attention&step=3&view=heads&batch=1"
                       "&exp=no-scale,ablate:cross:1:3,hide:2,no-residual,no-ffn:dec:1&pane=sample&beam=4&alpha=0.6"
                       "&temp=0.7&topk=5&topp=0.9&seed=42&cmp=diff&rollout=1";
    SceneLink l, back;
    TfErr err;
    expect_true(link_parse(frag, &l, &err) == 0, "%s", err.msg);
    char code[SCENE_CODE_MAX];
    expect_true(scene_code_write(&l, code, sizeof code) > 0 && strncmp(code, "SF1-", 4) == 0, "code: %s", code);
    expect_true(scene_code_like(code) && scene_code_like("  SF1-bW9kZWw9  "), "looks like a code");
    expect_true(!scene_code_like("i love china") && !scene_code_like("SF1 abc"), "sentences do not");
    expect_true(scene_code_read(code, &back, &err) == 0, "%s", err.msg);
    expect_true(memcmp(&l, &back, sizeof l) == 0, "the code reads back to the same scene");
    expect_true(back.temp == 0.7f && back.top_k == 5 && back.seed == 42 && !strcmp(back.pane, "sample") &&
                    !strcmp(back.model, "en2zh") && back.batch == 1 && back.head == -1 && back.no_residual &&
                    back.n_ffn == 1 && !strcmp(back.ffn[0], "dec:1") && back.cmp == LINK_CMP_DIFF && back.rollout == 1,
                "the fields: temp %g topk %d seed %d pane %s model %s", back.temp, back.top_k, back.seed,
                back.pane, back.model);
    char link[SCENE_CODE_MAX + 64];
    expect_true(scene_link_write(&l, "https://example.org/sf/index.html", link, sizeof link) > 0 &&
                    strncmp(link, "https://example.org/sf/index.html#model=en2zh&src=", 50) == 0,
                "the link: %s", link);
    static const TuPair BAD[] = {
        {"SF2-bW9kZWw9ZW4yemg", "version 2"},
        {"SF1-bW9k!!", "broken"},
        {"SF1-b", "broken"},
        {"hello", "not a scene code"},
        {"SF1-", "not a scene code"},
        {"SF1-c3RhZ2U9bm9wZQ", "unknown stage"}, /* stage=nope */
        {"SF1-AA", "NUL"},
    };
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        int rc = scene_code_read(BAD[i].in, &back, &err);
        expect_true(rc == -1 && strstr(err.msg, BAD[i].want) && !strchr(err.msg, '\n'), "'%s': want '%s', got '%s'",
                    BAD[i].in, BAD[i].want, err.msg);
    }
}

/* shot --scene CODE is shot with the flags the code was made from. */
static void check_same_picture(const char *flags)
{
    char cmd[2 * SCENE_CODE_MAX], out[8192], code[SCENE_CODE_MAX];
    snprintf(cmd, sizeof cmd, "build/stepformer scene %s 2>&1", flags);
    expect_true(tu_run_cmd(cmd, out, sizeof out) == 0, "scene %s:\n%s", flags, out);
    snprintf(code, sizeof code, "%.*s", (int)strcspn(out, "\n"), out);
    expect_true(scene_code_like(code), "a code: %s", code);
    snprintf(cmd, sizeof cmd, "build/stepformer shot %s --out build/scene-a.png 2>&1", flags);
    expect_true(tu_run_cmd(cmd, out, sizeof out) == 0, "shot %s:\n%s", flags, out);
    snprintf(cmd, sizeof cmd, "build/stepformer shot --scene %s --out build/scene-b.png 2>&1", code);
    expect_true(tu_run_cmd(cmd, out, sizeof out) == 0, "shot --scene:\n%s", out);
    expect_true(same_file("build/scene-a.png", "build/scene-b.png"), "the same picture for %s", flags);
    remove("build/scene-a.png");
    remove("build/scene-b.png");
}

static void test_shot_scene_is_shot(void **state)
{
    (void)state;
    check_same_picture("--stage dec.cross.weights --layer 1 --head 2 --src 'i love china|you read books' "
                       "--batch 1 --ablate cross:1:3 --no-scale");
    check_same_picture("--view decode --decode-pane beam --beam 4 --alpha 0.6 --src 'i read books at home today' "
                       "--no-pe");
    check_same_picture("--lesson attention --step 3 --lang zh --hide-src 1");
    /* every experiment flag, D's difference and R's rollout are in the code too */
    check_same_picture("--stage enc.norm1 --no-residual --no-ffn enc:0");
    check_same_picture("--stage dec.cross.weights --layer 1 --head 2 --no-ffn dec:1 --hide-src 2 --compare --lang zh");
    check_same_picture("--stage enc.self.weights --layer 1 --rollout");
}

/* What each viewer sets for themselves is refused by scene, not dropped. */
static void test_viewer_flags_refused(void **state)
{
    (void)state;
    static const char *const FLAGS[] = {"--size 800x600", "--theme light", "--scale 1.5", "--keys", "--caption",
                                        "--size=800x600"};
    for (size_t i = 0; i < sizeof FLAGS / sizeof FLAGS[0]; i++) {
        char cmd[512], out[2048];
        snprintf(cmd, sizeof cmd, "build/stepformer scene --stage enc.self.weights %s 2>&1", FLAGS[i]);
        int rc = tu_run_cmd(cmd, out, sizeof out);
        expect_true(rc != 0 && strstr(out, "not part of a scene") && strchr(out, '\n') == out + strlen(out) - 1,
                    "%s: one line: %s", FLAGS[i], out);
    }
}

/* A model file of the learner's own: named by its SHA-256; a code for a
 * file this machine lacks says which. */
static void test_model_by_hash(void **state)
{
    (void)state;
    char path[160], cmd[2 * SCENE_CODE_MAX], out[8192];
    tu_tmp(path, sizeof path, "scene-own.safetensors");
    expect_true(tu_small_model(path, 12, 16, 7) == 0, "a model");
    SceneLink l;
    TfErr err;
    char name[128];
    expect_true(scene_model_name(path, name, sizeof name, &err) == 0, "%s", err.msg);
    const char *own = strstr(name, "scene-own.safetensors~");
    expect_true(own && strlen(own) == 22 + 12 && !strchr(name, '/'), "name: %s", name);
    expect_true(scene_model_name(MODEL, name, sizeof name, &err) == 0 && strcmp(name, "en2zh") == 0,
                "the bundled model by name: %s", name);
    snprintf(cmd, sizeof cmd, "build/stepformer scene --model %s --stage enc.self.weights --src t5 2>&1", path);
    expect_true(tu_run_cmd(cmd, out, sizeof out) == 0, "%s", out);
    char code[SCENE_CODE_MAX];
    snprintf(code, sizeof code, "%.*s", (int)strcspn(out, "\n"), out);
    expect_true(scene_code_read(code, &l, &err) == 0 && strstr(l.model, "scene-own.safetensors~"),
                "the code names the file: %s", l.model);
    /* this folder (the tree) has no such file: the error names it */
    snprintf(cmd, sizeof cmd, "build/stepformer shot --scene %s --out build/x.png 2>&1", code);
    expect_true(tu_run_cmd(cmd, out, sizeof out) != 0 && strstr(out, "scene-own.safetensors") &&
                    strstr(out, "not in the current folder"),
                "a missing file is named: %s", out);
    remove(path);
}

static char clip[2 * SCENE_CODE_MAX + 600];
static void fake_copy(const char *t) { snprintf(clip, sizeof clip, "%s", t); }
static char *fake_paste(void) { return strdup(clip); }

static void test_window_copy_and_paste(void **state)
{
    (void)state;
    static App a, b;
    tu_open_src(&a, MODEL, "i love china", 100);
    a.ui.copy = fake_copy;
    app_goto(&a, ST_DEC_CROSS_WEIGHTS, 1);
    app_set_head(&a, 3);
    tu_exp_no_scale(&a);
    ev_key(&a, (Key)'c', MOD_CTRL | MOD_SHIFT);
    expect_true(strncmp(clip, "SF1-", 4) == 0 && strstr(clip, "\nindex.html#") != NULL, "code and link: %s", clip);
    expect_true(strstr(a.notice, "scene copied") != NULL, "notice: %s", a.notice);
    /* another window: the code pasted into the Source line opens it */
    tu_open_src(&b, MODEL, "you read books", 100);
    tu_frame(&b);
    char code[SCENE_CODE_MAX];
    snprintf(code, sizeof code, "%.*s", (int)strcspn(clip, "\n"), clip);
    app_focus_line(&b, APP_LINE_SRC);
    ev_key(&b, (Key)'u', MOD_CTRL); /* clear the line, then the paste */
    snprintf(clip, sizeof clip, "%s", code);
    b.ui.paste = fake_paste;
    ev_key(&b, (Key)'v', MOD_CTRL);
    app_compute_all(&b);
    StagePos p = session_pos(&b.ses);
    expect_true(p.stage == ST_DEC_CROSS_WEIGHTS && p.layer == 1 && b.ses.head == 3 && b.ses.exp.no_scale &&
                    strcmp(b.ses.src_line, "i love china") == 0,
                "the scene opened: stage %d layer %d head %d no-scale %d src '%s' (%s)", p.stage, p.layer,
                b.ses.head, b.ses.exp.no_scale, b.ses.src_line, b.notice);
    /* Ctrl+Shift+V with something else on the clipboard: a notice, nothing changes */
    snprintf(clip, sizeof clip, "just words");
    ev_key(&b, (Key)'v', MOD_CTRL | MOD_SHIFT);
    expect_true(b.notice_error && strstr(b.notice, "no scene code"), "%s", b.notice);
    /* Q: the QR code over the window, Esc closes it */
    ev_key(&b, (Key)'q', 0);
    expect_true(app_scene_qr_open(&b), "Q shows the QR code");
    tu_frame(&b);
    ev_key(&b, KEY_ESCAPE, 0);
    expect_true(!app_scene_qr_open(&b) && !b.win.want_quit, "Esc closes it (and does not quit)");
    app_free(&a);
    app_free(&b);
}

int main(void)
{
    TU_RUN_HEADLESS(NULL, NULL, cmocka_unit_test(test_code_round_trip), cmocka_unit_test(test_shot_scene_is_shot),
                    cmocka_unit_test(test_viewer_flags_refused), cmocka_unit_test(test_model_by_hash),
                    cmocka_unit_test(test_window_copy_and_paste));
}
