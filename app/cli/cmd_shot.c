/* cmd_shot.c - `stepformer shot`: draw any stage or view into a PNG through
 * the software renderer, or into SVG/PDF through cairo (shot_vector.c),
 * with no display. Also the window's command line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <errno.h>
#include <sys/stat.h>

#include "cli.h"
#include "cli_exp.h"
#include "cli_scene.h"
#include "commands.h"
#include "scene.h"
#include "describe.h"
#include "gui.h"
#include "heads_host.h"
#include "lesson_check.h"
#include "lesson_ui.h"
#include "shot_vector.h"
#include "view_decode.h"
#include "app.h"
#include "ui.h"

static const char *SHOT_HELP =
    "usage: stepformer shot (--stage NAME [--layer L] [--head H] | --view NAME |\n"
    "                        --all [--format png|svg|pdf] | --walk | --lesson ID [--step N])\n"
    "                       [--model FILE] [--src TEXT]... [--tgt TEXT] [--batch B]\n"
    "                       [--lang en|zh] [--decode-pane gen|step|beam|sample --beam K --alpha A]\n"
    "                       [--size WxH] [--theme dark|light|contrast] [--scale S]\n"
    "                       " CLI_EXP_USAGE " [--compare]\n"
    "                       [--caption] [--keys] [--importance N] [--qk-data N] [--rollout]\n"
    "                       --out FILE_OR_DIR\n"
    "\n"
    "Render a stage (or a view: matrix, heads, lines, mask, pe, norm, ffn,\n"
    "output, decode, train, cost, scale, history, lens, qk-map, side: the normal\n"
    "pass beside the experiment's) exactly as the window shows it, into a PNG,\n"
    "through a software renderer: no display needed. An --out ending in\n"
    "\".svg\" or \".pdf\" gives a vector figure instead (text stays text, cells are\n"
    "rectangles). --caption stamps the model, sentence, stage, layer and head\n"
    "under the figure. --all renders every stage of the walk and the extra\n"
    "views into the directory --out (--format picks png, svg or pdf files).\n"
    "--walk --out FILE.pdf puts every stage of the walk on its own page, and\n"
    "--lesson ID --out FILE.pdf every step of a lesson (a handout). Layers and heads count\n"
    "from 0 here (the window shows them from 1); --head -1 shows all heads.\n"
    "--lesson renders step N (from 1) of a lesson with its panel, in --lang;\n"
    "--step N+1 after its last step renders the lesson-end screen.\n"
    "--task trains a new model on a built-in task (copy, reverse, sort, en2zh)\n"
    "or a TSV file for --train-steps steps (the train view's defaults: the\n"
    "classroom size, warm-up 800; deterministic) and renders the train view.\n"
    "--src may be repeated (a padded batch of up to 4 sentences). --scale\n"
    "enlarges the text as presenter mode does (+/- in the window).\n"
    "A bad input (invalid UTF-8, more than 4 sentences, a layer or head the\n"
    "model does not have) is refused with a message and exit status 1.\n"
    "--importance N measures every head's importance on N held-out pairs of the\n"
    "model's data first (the Heads table and the thumbnails' frames show it);\n"
    "--qk-data N puts N held-out pairs of the model's data into the Q/K map\n"
    "(--view qk-map on an attention stage), as its Data set button does;\n"
    "--rollout shows attention rollout on weights stages, as R does.\n"
    "With experiment flags the picture shows the experiment's pass; --compare\n"
    "draws the difference experiment - normal (a diverging map centred at 0),\n"
    "as D does in the window. --keys draws the ? overlay over the window: every\n"
    "key that works in the view shown (as `stepformer keys` lists them).\n"
    "\n" CLI_EXP_HELP;

/* Sentences of the batch the --src options make: '|' separates them and
 * blank ones are dropped (as the session does). */
static int count_sentences(const AppOpts *o)
{
    int n = 0;
    for (int i = 0; i < o->n_src; i++)
        for (const char *p = o->src[i];; p++) {
            const char *bar = strchr(p, '|');
            size_t len = bar ? (size_t)(bar - p) : strlen(p);
            size_t blank = 0;
            while (blank < len && (p[blank] == ' ' || p[blank] == '\t'))
                blank++;
            n += blank != len;
            if (!bar)
                break;
            p = bar;
        }
    return n;
}

/* The window's experiment flags, applied once its model is open (checked
 * against that model: out of range refuses to open, with one line). */
static CliExp gui_exp;

int gui_parse_args(int argc, char **argv, AppOpts *o, const char *cmd)
{
    memset(o, 0, sizeof *o);
    memset(&gui_exp, 0, sizeof gui_exp);
    o->head = -2;
    const char *v;
    int bad = 0;
    for (int i = 1; i < argc && !bad; i++) {
        if (cli_exp_more(argv, argc, &i, &gui_exp, cmd, &bad)) {
            if (cli_exp_any(&gui_exp)) {
                o->on_open = app_open_exp;
                o->on_open_ctx = &gui_exp;
            }
        } else if (cli_opt(argv, argc, &i, "model", &v, cmd, &bad)) {
            o->model_path = v;
        } else if (cli_opt(argv, argc, &i, "src", &v, cmd, &bad)) {
            if (v && o->n_src >= APP_MAX_SENT)
                return cli_fail(cmd, "at most %d source sentences", APP_MAX_SENT);
            if (v)
                o->src[o->n_src++] = v;
            if (v && count_sentences(o) > APP_MAX_SENT)
                return cli_fail(cmd, "--src '%.40s': at most %d sentences in a batch "
                                     "(separated by '|'), not %d",
                                v, APP_MAX_SENT, count_sentences(o));
        } else if (cli_opt(argv, argc, &i, "tgt", &v, cmd, &bad)) {
            o->tgt = v;
        } else if (cli_opt(argv, argc, &i, "stage", &v, cmd, &bad)) {
            if (v && stage_find(v) < 0)
                return cli_fail(cmd, "unknown stage '%s' (see stepformer dump --help)", v);
            o->stage = v;
        } else if (cli_opt(argv, argc, &i, "view", &v, cmd, &bad)) {
            if (v && view_find(v) < 0)
                return cli_fail(cmd, "unknown view '%s' (matrix, heads, lines, mask, pe, norm, ffn, output, decode, train, "
                                     "cost, scale, history, lens, qk-map, side)", v);
            o->view = v;
        } else if (cli_opt(argv, argc, &i, "theme", &v, cmd, &bad)) {
            if (v && strcmp(v, "dark") && strcmp(v, "light") && strcmp(v, "contrast"))
                return cli_fail(cmd, "--theme must be dark, light or contrast, not '%s'", v);
            o->theme = v;
        } else if (cli_opt(argv, argc, &i, "layer", &v, cmd, &bad)) {
            if (v && cli_int(v, 0, TF_MAX_LAYERS - 1, &o->layer))
                return cli_fail(cmd, "--layer must be a layer index from 0, not '%s'", v);
        } else if (cli_opt(argv, argc, &i, "head", &v, cmd, &bad)) {
            if (v && cli_int(v, -1, TF_MAX_HEADS - 1, &o->head))
                return cli_fail(cmd, "--head must be a head index from 0 (or -1 for all), not '%s'", v);
        } else if (cli_opt(argv, argc, &i, "lang", &v, cmd, &bad)) {
            if (v && cli_lang(cmd, v, &o->lang))
                return 1;
        } else if (cli_opt(argv, argc, &i, "lesson", &v, cmd, &bad)) {
            o->lesson = v;
        } else if (cli_opt(argv, argc, &i, "lessons", &v, cmd, &bad)) {
            o->lessons_dir = v;
        } else if (cli_opt(argv, argc, &i, "step", &v, cmd, &bad)) {
            if (v && cli_int(v, 1, LESSON_MAX_STEPS, &o->lesson_step))
                return cli_fail(cmd, "--step must be a step number from 1, not '%s'", v);
            o->lesson_step -= 1;
        } else if (cli_opt(argv, argc, &i, "size", &v, cmd, &bad)) { /* the window's (shot takes its own) */
            if (v && (sscanf(v, "%dx%d", &o->win_w, &o->win_h) != 2 || o->win_w < 320 || o->win_h < 240 ||
                      o->win_w > 8192 || o->win_h > 8192))
                return cli_fail(cmd, "--size must be WxH between 320x240 and 8192x8192, not '%s'", v);
        } else if (cli_opt(argv, argc, &i, "batch", &v, cmd, &bad)) {
            if (v && cli_int(v, 0, APP_MAX_SENT - 1, &o->batch))
                return cli_fail(cmd, "--batch must be in 0..%d", APP_MAX_SENT - 1);
        } else {
            return cli_fail(cmd, "unknown argument '%s' (see --help)", argv[i]);
        }
    }
    return bad ? 1 : 0;
}

typedef struct ShotArgs {
    int all, walk, caption, one_step, w, h;
    int keys;         /* the ? overlay over the window */
    const char *format; /* --all: png, svg or pdf */
    float scale;
    const char *out;
    const char *pane; /* decode view: gen, step or beam */
    int beam;
    float alpha;
    const char *task; /* train view: what to train on */
    int train_steps;
    CliExp x;         /* experiment flags */
    int compare;      /* the difference picture */
    int importance;   /* heads view: importance measured first, on this many pairs */
    int qk_data;      /* Q/K map: over this many pairs of the model's data too */
    int rollout;      /* R: attention rollout in the heatmap and lines */
} ShotArgs;

/* Take shot's own options out of argv, leaving the window's options. */
static int split_args(int argc, char **argv, ShotArgs *s, char **rest, int *nrest)
{
    const char *C = "shot", *v;
    int bad = 0;
    *nrest = 0;
    rest[(*nrest)++] = argv[0];
    s->w = 1280;
    s->h = 800;
    s->scale = 1.0f;
    s->alpha = -1;
    const CliOpt opts[] = {
        CLI_FLAG_OPT("all", &s->all),
        CLI_FLAG_OPT("walk", &s->walk),
        CLI_FLAG_OPT("caption", &s->caption),
        CLI_FLAG_OPT("keys", &s->keys),
        CLI_FLAG_OPT("compare", &s->compare),
        CLI_FLAG_OPT("rollout", &s->rollout),
        CLI_STR_OPT("out", &s->out),
        CLI_STR_OPT("task", &s->task),
        CLI_INT_OPT("beam", &s->beam, 1, 8),
        CLI_INT_OPT("train-steps", &s->train_steps, 0, 1000000),
        CLI_INT_OPT("importance", &s->importance, 1, 100000),
        CLI_INT_OPT("qk-data", &s->qk_data, 1, 100000),
        CLI_NUM_M("alpha", &s->alpha, 0, 10, "--alpha must be a number in 0..10, not '%s'"),
        CLI_NUM_M("scale", &s->scale, 0.5, 4, "--scale must be a number in 0.5..4, not '%s'"),
    };
    for (int i = 1; i < argc && !bad; i++) {
        if (cli_flag(argv[i], "help")) {
            fputs(SHOT_HELP, stdout);
            return 2;
        } else if (cli_match(argv, argc, &i, opts, CLI_N(opts), C, &bad)) {
            continue;
        } else if (cli_opt(argv, argc, &i, "format", &v, C, &bad)) {
            if (v && strcmp(v, "png") && strcmp(v, "svg") && strcmp(v, "pdf"))
                return cli_fail(C, "--format must be png, svg or pdf, not '%s'", v);
            s->format = v;
        } else if (cli_exp_more(argv, argc, &i, &s->x, C, &bad)) {
            continue;
        } else if (cli_opt(argv, argc, &i, "size", &v, C, &bad)) {
            if (v && (sscanf(v, "%dx%d", &s->w, &s->h) != 2 || s->w < 64 || s->h < 64 ||
                      s->w > 8192 || s->h > 8192))
                return cli_fail(C, "--size must be WxH between 64x64 and 8192x8192, not '%s'", v);
        } else if (cli_opt(argv, argc, &i, "decode-pane", &v, C, &bad)) {
            if (v && strcmp(v, "gen") && strcmp(v, "step") && strcmp(v, "beam") && strcmp(v, "sample"))
                return cli_fail(C, "--decode-pane must be gen, step, beam or sample, not '%s'", v);
            s->pane = v;
        } else {
            s->one_step |= strncmp(argv[i], "--step", 6) == 0; /* --lesson: one page */
            rest[(*nrest)++] = argv[i];
            /* keep an option's value with it */
            if (argv[i][0] == '-' && !strchr(argv[i], '=') && i + 1 < argc &&
                !(argv[i + 1][0] == '-' && argv[i + 1][1] == '-'))
                rest[(*nrest)++] = argv[++i];
        }
    }
    return bad ? 1 : 0;
}

static int render_to(App *a, Ren *r, const char *path, const ShotArgs *s)
{
    TfErr err;
    if (shot_save(a, r, path, s->caption, &err))
        return cli_fail("shot", "%s", err.msg);
    return 0;
}

static void warn_one(const char *msg, void *user)
{
    cli_warn((const char *)user, "%s", msg);
}

/* shot --lesson renders what it is given, but says every problem the
 * checker finds in the lesson, so a step that would not pass is not taken
 * for one that does. */
static void warn_lesson(App *a, Ren *r, const char *C)
{
    const Lesson *l = lesson_ui_current(a, NULL, NULL);
    TfErr err;
    RenFont *font = ren_font_open(r, REN_SANS, 16, &err);
    if (l)
        lesson_check_one(l, a->ses.model_path, &a->ses.model.cfg, font, warn_one, (void *)C);
    if (font)
        ren_font_close(font);
}

/* A handout: --walk, or --lesson into a .pdf. */
static int render_pages(App *a, Ren *r, const ShotArgs *s)
{
    TfErr err;
    int pages = 0;
    int rc = s->walk ? shot_walk_pdf(a, r, s->out, s->caption, &pages, &err)
                     : shot_lesson_pdf(a, r, s->out, s->caption, &pages, &err);
    if (rc)
        return cli_fail("shot", "%s", err.msg);
    printf("wrote %d pages into %s\n", pages, s->out);
    return 0;
}

static int render_all(App *a, Ren *r, const char *dir, const ShotArgs *s)
{
    const char *ext = s->format ? s->format : "png";
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return cli_fail("shot", "cannot create the directory %s: %s", dir, strerror(errno));
    char path[4096];
    int n = 0, rc = 0;
    for (int i = 0; i < a->ses.n_walk && !rc; i++) {
        StagePos p = a->ses.walk[i];
        const StageInfo *si = stage_info(p.stage);
        app_goto(a, p.stage, p.layer);
        a->view = VIEW_AUTO;
        session_set_head(&a->ses, 0);
        snprintf(path, sizeof path, "%s/%03d_%s_l%d.%s", dir, n++, si->name, p.layer, ext);
        rc = render_to(a, r, path, s);
        if (si->kind == SK_WEIGHTS && !rc) {
            a->view = VIEW_LINES;
            snprintf(path, sizeof path, "%s/%03d_%s_l%d_lines.%s", dir, n++, si->name, p.layer, ext);
            rc = render_to(a, r, path, s);
            a->view = VIEW_AUTO;
            session_set_head(&a->ses, -1);
            snprintf(path, sizeof path, "%s/%03d_%s_l%d_heads.%s", dir, n++, si->name, p.layer, ext);
            rc = rc ? rc : render_to(a, r, path, s);
            session_set_head(&a->ses, 0);
        }
    }
    a->view = VIEW_DECODE;
    snprintf(path, sizeof path, "%s/%03d_decode.%s", dir, n++, ext);
    if (!rc)
        rc = render_to(a, r, path, s);
    if (!rc)
        printf("wrote %d pictures into %s\n", n, dir);
    return rc;
}

/* After app_init: the experiment applied, the input computed, and a bad
 * input, layer or head refused (1 after a message) instead of drawn. */
static int shot_check(App *a, const AppOpts *o, const ShotArgs *s)
{
    const char *C = "shot";
    Session *ses = &a->ses;
    const TfConfig *cfg = &ses->model.cfg;
    TfExperiment e;
    if (cli_exp_build(&s->x, cfg, 0, &e, C))
        return 1;
    if (!tf_exp_is_none(&e)) {
        char notice[sizeof a->notice]; /* keep app_init's notice, not "experiment: ..." */
        memcpy(notice, a->notice, sizeof notice);
        app_set_exp(a, &e);
        memcpy(a->notice, notice, sizeof notice);
        a->cmp = s->compare ? CMP_DIFF : CMP_EXP;
    } else if (s->compare) {
        return cli_fail(C, "--compare needs an experiment (--no-scale, --no-pe, --no-causal, "
                           "--ablate or --hide-src)");
    }
    session_compute_all(ses);
    if (ses->input_error[0])
        return cli_fail(C, "%s", ses->input_error);
    TfErr err;
    if (tf_exp_check_source(&e, ses->pad.S, &err))
        return cli_fail(C, "%s", err.msg);
    int sid = o->stage ? stage_find(o->stage) : -1;
    if (sid >= 0) { /* the layer first (the head is checked below) */
        int h = o->head < 0 || o->head >= cfg->n_heads ? ((stage_info(sid)->flags & SF_HEAD) ? 0 : -1)
                                                       : o->head;
        TfView v;
        if (tf_view(&ses->trace, sid, o->layer, h, 0, &v, &err))
            return cli_fail(C, "%s", err.msg);
    }
    if (o->head >= cfg->n_heads)
        return cli_fail(C, "--head %d: the model has %d heads (0..%d)", o->head, cfg->n_heads,
                        cfg->n_heads - 1);
    return 0;
}

static int has_ext(const char *path, const char *ext)
{
    size_t n = strlen(path), e = strlen(ext);
    return n > e && strcasecmp(path + n - e, ext) == 0;
}


/* The App as shot draws it (and describe and scene read it): opened on the
 * options, checked, with the head, the decode pane and the text size the
 * flags ask for. 0, or 1 after a message (nothing to free). */
static int shot_open(App *a, AppOpts *o, const ShotArgs *s, const char *C)
{
    TfErr err;
    o->no_save = 1;
    if (app_init(a, o, &err))
        return cli_fail(C, "%s", err.msg);
    if (shot_check(a, o, s)) {
        app_free(a);
        return 1;
    }
    a->look.text_scale = s->scale;
    a->show_help = s->keys;
    if (a->notice[0])
        cli_warn(C, "%s", a->notice);
    a->notice[0] = 0;
    if (o->head != -2)
        app_set_head(a, o->head);
    if (s->pane || s->beam) {
        a->view = VIEW_DECODE;
        app_decode_setup(a, s->pane ? s->pane : (s->beam ? "beam" : "gen"), s->beam, s->alpha);
    }
    a->rollout = s->rollout;
    if ((s->importance && hhost_measure(a, s->importance)) || (s->qk_data && hhost_qk_data(a, NULL, s->qk_data))) {
        int rc = cli_fail(C, "%s", a->notice);
        app_free(a);
        return rc;
    }
    return 0;
}

/* The flags of a shot-like command (--scene expanded): 0, 1 after a
 * message, 2 after --help. */
static int shot_parse(int argc, char **argv, ShotArgs *s, AppOpts *o, const char *C)
{
    if (cli_scene_expand(&argc, &argv, 1, C))
        return 1;
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    if (!rest)
        return cli_fail(C, "out of memory");
    memset(s, 0, sizeof *s);
    int nrest, rc = split_args(argc, argv, s, rest, &nrest);
    if (rc == 0)
        rc = gui_parse_args(nrest, rest, o, C);
    free(rest);
    return rc;
}

int cmd_shot(int argc, char **argv)
{
    const char *C = "shot";
    ShotArgs s;
    AppOpts o;
    int rc = shot_parse(argc, argv, &s, &o, C);
    if (rc)
        return rc == 2 ? 0 : rc;
    if (!s.out)
        return cli_fail(C, "--out FILE is required");
    if (s.task || s.train_steps)
        o.view = "train";
    if (!s.all && !s.walk && !o.stage && !o.view && !o.lesson)
        return cli_fail(C, "give --stage NAME, --view NAME, --lesson ID, --walk or --all");
    /* one picture: its name says its format (a PNG named x.txt would be
     * a surprise); --all writes a folder of them */
    if (!s.all && ren_vector_format(s.out) == REN_VEC_NONE && !has_ext(s.out, ".png"))
        return cli_fail(C, "--out %s: the file name must end in .png, .svg or .pdf", s.out);
    int pages = s.walk || (o.lesson && ren_vector_format(s.out) == REN_VEC_PDF && !s.one_step);
    if (s.walk && ren_vector_format(s.out) != REN_VEC_PDF)
        return cli_fail(C, "--walk writes one PDF: give --out FILE.pdf");
    TfErr err;
    char warn[TF_ERR_MAX + 64];
    Ren *r = ren_open_headless(s.w, s.h, &err);
    if (r && ren_fonts_check(r, warn, sizeof warn, &err)) {
        ren_close(r);
        r = NULL;
    }
    if (!r)
        return cli_fail(C, "%s", err.msg);
    if (warn[0])
        cli_warn(C, "%s", warn);
    static App a;
    if (shot_open(&a, &o, &s, C)) {
        ren_close(r);
        return 1;
    }
    if (o.lesson) { /* what lessons --check would say of this lesson, as warnings */
        warn_lesson(&a, r, C);
        const Lesson *l = lesson_ui_current(&a, NULL, NULL);
        if (l && o.lesson_step == l->n_steps) /* the step after the last: the lesson-end screen */
            lesson_ui_step(&a, 1);
    }
    if (o.lang == 1 && !ui_i18n_dir()) /* as for a missing Chinese font */
        cli_warn(C, "--lang zh: no Chinese catalog (stepformer.mo) was found beside the program; the words "
                    "are drawn in English");
    const char *task = s.task ? s.task : "en2zh";
    int step = -1, heads = 0;
    const Lesson *les = o.lesson ? lesson_ui_current(&a, &step, NULL) : NULL;
    if (!s.task && les && step >= 0 && step < les->n_steps && les->steps[step].view.train_task[0]) {
        task = les->steps[step].view.train_task; /* the step's @train */
        heads = les->steps[step].view.train_heads;
    }
    if (a.view == VIEW_TRAIN && (app_train_settings(&a, task, heads) || app_train_setup(&a, task, s.train_steps))) {
        rc = cli_fail(C, "%s", a.notice[0] ? a.notice : "training failed");
        app_free(&a);
        ren_close(r);
        return rc;
    }
    rc = s.all ? render_all(&a, r, s.out, &s)
         : pages ? render_pages(&a, r, &s)
                 : render_to(&a, r, s.out, &s);
    app_free(&a);
    ren_close(r);
    return rc;
}

static const char *DESCRIBE_HELP =
    "usage: stepformer describe (--stage NAME [--layer L] [--head H] | --view NAME)\n"
    "                           [--model FILE] [--src TEXT]... [--tgt TEXT] [--batch B]\n"
    "                           [--lang en|zh] " CLI_EXP_USAGE "\n"
    "\n"
    "Print what a screen reader would say about a view: the stage, layer and\n"
    "head (counted from 1, as the window shows them), the model, the sentence\n"
    "and what the decoder reads, the experiment, the matrix's shape and what\n"
    "its rows and columns are, each row's three largest values with their\n"
    "tokens (3 decimals; by size for vectors, with the row's mean), and the\n"
    "masked cells. It takes the flags of `stepformer shot` (--layer and --head\n"
    "from 0, as there). Ctrl+D in the window copies the same text.\n"
    "\n" CLI_EXP_HELP;

int cmd_describe(int argc, char **argv)
{
    const char *C = "describe";
    for (int i = 1; i < argc; i++)
        if (cli_flag(argv[i], "help")) {
            fputs(DESCRIBE_HELP, stdout);
            return 0;
        }
    ShotArgs s;
    AppOpts o;
    int rc = shot_parse(argc, argv, &s, &o, C);
    if (rc)
        return rc == 2 ? 0 : rc;
    if (s.out || s.all || s.walk || s.task)
        return cli_fail(C, "--out, --all, --walk and --task are shot's: describe prints a stage");
    if (!o.stage && !o.view && !o.lesson)
        return cli_fail(C, "give --stage NAME, --view NAME or --scene CODE");
    static App a;
    if (shot_open(&a, &o, &s, C))
        return 1;
    static char text[1 << 16];
    ui_set_lang(a.look.lang); /* the catalog's language, as a frame would set it */
    rc = app_describe(&a, text, sizeof text) < 0;
    if (!rc)
        fputs(text, stdout);
    app_free(&a);
    return rc ? cli_fail(C, "the view could not be described") : 0;
}

static const char *SCENE_HELP =
    "usage: stepformer scene [the flags of shot: --model --src --tgt --stage --layer --head --view\n"
    "                        --lang --lesson --step --batch --decode-pane --beam --alpha, experiments,\n"
    "                        --compare --rollout]\n"
    "                        [--base URL]\n"
    "\n"
    "Print the scene code of a view (one line, SF1-...) and the browser link that\n"
    "opens the same view (--base: the page's address, default index.html or\n"
    "$STEPFORMER_WEB_URL). `stepformer --scene CODE`, `shot --scene CODE` and\n"
    "`describe --scene CODE` open it; so does a code pasted into the window's\n"
    "Source line or given with Ctrl+Shift+V. A model of this installation is\n"
    "named (en2zh); any other file by its name and SHA-256, and opening the\n"
    "code needs that file in the current folder. --size, --theme, --scale, --keys,\n"
    "--caption and --importance are each viewer's own, not part of a scene.\n";

int cmd_scene(int argc, char **argv)
{
    const char *C = "scene", *base = NULL;
    char **args = calloc((size_t)argc + 1, sizeof *args);
    if (!args)
        return cli_fail(C, "out of memory");
    int n = 0, bad = 0;
    for (int i = 0; i < argc; i++) {
        const char *v;
        if (i > 0 && cli_flag(argv[i], "help")) {
            fputs(SCENE_HELP, stdout);
            free(args);
            return 0;
        }
        if (i > 0 && cli_opt(argv, argc, &i, "base", &v, C, &bad)) {
            base = v;
            continue;
        }
        /* what each viewer sets for themselves: refused rather than dropped */
        static const char *const VIEWER[] = {"size", "theme", "scale", "keys", "caption", "importance"};
        const char *f = argv[i];
        size_t fl = strncmp(f, "--", 2) == 0 ? strcspn(f + 2, "=") : 0;
        for (size_t k = 0; i > 0 && fl && k < sizeof VIEWER / sizeof VIEWER[0]; k++)
            if (strlen(VIEWER[k]) == fl && strncmp(f + 2, VIEWER[k], fl) == 0) {
                free(args);
                return cli_fail(C, "--%s is not part of a scene: each viewer has their own (give it to shot --scene "
                                   "CODE)", VIEWER[k]);
            }
        args[n++] = argv[i];
    }
    ShotArgs s;
    AppOpts o;
    int rc = bad ? 1 : shot_parse(n, args, &s, &o, C);
    free(args);
    if (rc)
        return rc == 2 ? 0 : rc;
    if (s.out || s.all || s.walk || s.task)
        return cli_fail(C, "--out, --all, --walk and --task are shot's: a scene is one view");
    static App a;
    if (shot_open(&a, &o, &s, C))
        return 1;
    SceneLink l;
    TfErr err;
    char code[SCENE_CODE_MAX], link[SCENE_CODE_MAX + 512];
    if (app_scene_capture(&a, &l, &err))
        rc = cli_fail(C, "%s", err.msg);
    else if (scene_code_write(&l, code, sizeof code) < 0 ||
             scene_link_write(&l, base ? base : app_scene_base(), link, sizeof link) < 0)
        rc = cli_fail(C, "the scene is too long for a code");
    else
        printf("%s\n%s\n", code, link);
    app_free(&a);
    return rc;
}
