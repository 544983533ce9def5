/* main.c - the stepformer program: the GUI by default, or a subcommand. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "cli_exp.h"
#include "gui.h"
#include "parallel.h"
#include "cli_scene.h"

typedef struct Command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *what;
} Command;

static const Command COMMANDS[] = {
    {"init", cmd_init, "write a randomly initialised model of a preset"},
    {"info", cmd_info, "configuration, parameter counts, FLOPs"},
    {"convert", cmd_convert, "a MarianMT / OPUS-MT folder into a Stepformer file"},
    {"dump", cmd_dump, "one stage of the forward pass as CSV or JSON"},
    {"translate", cmd_translate, "translate sentences (greedy or beam search)"},
    {"heads", cmd_heads, "what each attention head does, in numbers"},
    {"lessons", cmd_lessons, "list the lessons, or check them (--check)"},
    {"keys", cmd_keys, "the window's keys and what each does"},
    {"shot", cmd_shot, "render a stage or view into a PNG, SVG or PDF, no display needed"},
    {"describe", cmd_describe, "a view in words, as a screen reader would say it"},
    {"scene", cmd_scene, "the scene code and browser link of a view, for a class to open"},
    {"results", cmd_results, "pre/post-test answers: export them, or sum up a class's files"},
    {"worksheet", cmd_worksheet, "a lesson as printed worksheets, a variant per student, with an answer key"},
    {"train", cmd_train, "train a model on a task or your sentence pairs"},
    {"eval", cmd_eval, "held-out exact match, token accuracy and BLEU"},
    {"bench", cmd_bench, "performance figures as JSON lines"},
};
#define N_COMMANDS ((int)(sizeof COMMANDS / sizeof COMMANDS[0]))

static void usage(FILE *f)
{
    fputs("usage: stepformer [--model FILE] [--src TEXT]... [--tgt TEXT] [--stage NAME]\n"
          "                  [--layer L] [--head H] [--view NAME] [--theme T] [--lang en|zh]\n"
          "                  [--lesson ID [--step N]] [--lessons DIR] [--size WxH]\n"
          "                  " CLI_EXP_USAGE "\n"
          "       stepformer COMMAND [OPTIONS]\n"
          "\n"
          "Stepformer runs the Transformer of \"Attention Is All You Need\" and\n"
          "lets you step through every stage of it. With no command it opens the\n"
          "window on the bundled English->Chinese model with \"i love china\".\n"
          "--lang zh opens it in Chinese, --lesson ID on a lesson (stepformer lessons\n"
          "lists them) at step N (from 1), --size at W x H pixels (1280x800).\n"
          "Layers and heads count from 0 here, from 1 in the window.\n"
          "\n"
          "commands:\n", f);
    for (int i = 0; i < N_COMMANDS; i++)
        fprintf(f, "  %-10s %s\n", COMMANDS[i].name, COMMANDS[i].what);
    fputs("\nEvery command takes --help.\n", f);
}

/* OpenBLAS retries its work buffer forever when the address space is too
 * short for it (ulimit -v): say so in one line before any product. A
 * command's --help needs none. Under a limit the program first runs itself
 * again with OPENBLAS_NUM_THREADS=1, so that OpenBLAS starts no thread of
 * its own when it loads (that thread would take a third buffer, at a
 * moment of its own, and could hang even the exit). */
static int blas_room(int argc, char **argv)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && !getenv("OPENBLAS_NUM_THREADS")) {
        setenv("OPENBLAS_NUM_THREADS", "1", 1);
        execv("/proc/self/exe", argv); /* if it fails, go on as we are */
    }
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return 0;
    TfErr err;
    if (par_blas_room(&err) == 0)
        return 0;
    fprintf(stderr, "stepformer: %s\n", err.msg);
    return 1;
}

int main(int argc, char **argv)
{
    cli_log_to_stderr();
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
                      strcmp(argv[1], "help") == 0)) {
        usage(stdout);
        return 0;
    }
    if (blas_room(argc, argv))
        return 1;
    for (int i = 0; argc >= 2 && i < N_COMMANDS; i++)
        if (strcmp(argv[1], COMMANDS[i].name) == 0)
            return COMMANDS[i].run(argc - 1, argv + 1);
    if (argc < 2 || argv[1][0] == '-') { /* no command: the window */
        AppOpts o;
        if (cli_scene_expand(&argc, &argv, 0, "gui"))
            return 1;
        int rc = gui_parse_args(argc, argv, &o, "gui");
        if (rc)
            return rc;
        return gui_run(&o);
    }
    fprintf(stderr, "stepformer: unknown command '%s' (try: stepformer --help)\n", argv[1]);
    return 2;
}
