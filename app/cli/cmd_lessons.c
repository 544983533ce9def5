/* cmd_lessons.c - `stepformer lessons`: list the lessons, or check them. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "lesson_check.h"

static const char *HELP =
    "usage: stepformer lessons [--check] [--lang en|zh] [--dir DIR]\n"
    "\n"
    "List the lessons (title, steps) of a language, or with --check validate\n"
    "every lesson of every language: the format, the stages, layers and heads\n"
    "against each lesson's model, the same steps and view directives in both\n"
    "languages, one right answer per quiz, and a glyph for every character.\n"
    "Problems are printed as file:line: message; the exit status is 1 if any.\n"
    "The format is described in lessons/README.md.\n";

static void print_problem(const char *msg, void *user)
{
    (void)user;
    fprintf(stderr, "%s\n", msg);
}

int cmd_lessons(int argc, char **argv)
{
    const char *C = "lessons", *lang = "en", *dir = NULL;
    int check = 0;
    const CliOpt opts[] = {CLI_FLAG_OPT("check", &check), CLI_STR_OPT("lang", &lang), CLI_STR_OPT("dir", &dir)};
    int rc = cli_parse(argc, argv, opts, CLI_N(opts), NULL, NULL, C, HELP), zh;
    if (rc || cli_lang(C, lang, &zh))
        return rc < 0 ? 0 : 1;
    (void)zh; /* the folder is named by --lang itself */
    char root[4096];
    if (!dir)
        dir = cli_data_path("lessons", root, sizeof root);
    if (check) {
        int n = 0;
        int problems = lessons_check_all(dir, print_problem, NULL, &n);
        if (problems) {
            fprintf(stderr, "stepformer lessons: %d problem%s in %s\n", problems, problems == 1 ? "" : "s", dir);
            return 1;
        }
        printf("%d lessons checked in %s: no problems\n", n, dir);
        return 0;
    }
    LessonSet set;
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, lang);
    int n_bad = 0;
    if (lessons_load_dir(&set, path, print_problem, NULL, &n_bad))
        return 1;
    for (int i = 0; i < set.n; i++)
        printf("%2d  %-16s %2d steps  %s\n", set.lessons[i].order, set.lessons[i].id, set.lessons[i].n_steps,
               set.lessons[i].title);
    lessons_free(&set);
    return n_bad ? 1 : 0;
}
