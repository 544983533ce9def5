/* cmd_worksheet.c - `stepformer worksheet`: a lesson as printed worksheets,
 * one variant per student, and the answer key (worksheet.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "worksheet.h"

static const char *HELP =
    "usage: stepformer worksheet --lesson ID --students N [--seed S] [--lang en|zh]\n"
    "                            [--model FILE] [--lessons DIR] --out FILE.pdf\n"
    "\n"
    "Print a lesson as worksheets: for each student the lesson's quizzes and\n"
    "predictions (row, next, number, output, breaks) as questions on a\n"
    "sentence of their own (held-out pairs of the data the model trained on,\n"
    "else of the en2zh task, by --seed and the student's number, no two\n"
    "alike), with the pictures the engine draws for that sentence where they\n"
    "do not show an answer, and room to answer; then an answer key with every\n"
    "student's answers as the model computes them for that sentence. The\n"
    "model is --model, else the lesson's @model. No window, no key hints.\n";

int cmd_worksheet(int argc, char **argv)
{
    const char *C = "worksheet", *lang = "en";
    WorksheetOpts o = {0};
    int seed = 1;
    const CliOpt opts[] = {
        CLI_STR_OPT("lesson", &o.lesson),
        CLI_INT_OPT("students", &o.students, 1, WORKSHEET_MAX_STUDENTS),
        CLI_INT_OPT("seed", &seed, 0, 1000000000),
        CLI_STR_OPT("lang", &lang),
        CLI_STR_OPT("model", &o.model_path),
        CLI_STR_OPT("lessons", &o.lessons_dir),
        CLI_STR_OPT("out", &o.out),
    };
    int rc = cli_parse(argc, argv, opts, CLI_N(opts), NULL, NULL, C, HELP);
    if (rc || cli_lang(C, lang, &o.lang))
        return rc < 0 ? 0 : 1;
    if (!o.lesson || !o.students || !o.out)
        return cli_fail(C, "give --lesson ID, --students N and --out FILE.pdf");
    o.seed = (uint64_t)seed;
    TfErr err;
    int pages = 0;
    if (worksheet_pdf(&o, &pages, &err))
        return cli_fail(C, "%s", err.msg);
    printf("wrote %d pages for %d students into %s\n", pages, o.students, o.out);
    return 0;
}
