/* cmd_results.c - `stepformer results`: the pre/post-test answers of this
 * account written out, and a class's files summed up (results.h). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "results.h"

static const char *HELP =
    "usage: stepformer results --export FILE.csv\n"
    "       stepformer results --summary [--csv] FILE.csv...\n"
    "\n"
    "A lesson marked as a test (@test pre or @test post: the pre-test and the\n"
    "post-test lessons) records each answer once, under a random learner id\n"
    "(no name), with the question, the answer, whether it was right and the\n"
    "seconds taken. --export writes this account's answers into FILE.csv for\n"
    "the teacher; --summary reads the class's files and prints, per question,\n"
    "the share of right answers in the pre-test, in the post-test and the\n"
    "change (--csv: as CSV).\n";

int cmd_results(int argc, char **argv)
{
    const char *C = "results", *export_to = NULL;
    int summary = 0, csv = 0;
    char *files[256];
    int n = 0;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int bad = 0;
        if (cli_flag(argv[i], "help")) {
            fputs(HELP, stdout);
            return 0;
        } else if (cli_flag(argv[i], "summary")) {
            summary = 1;
        } else if (cli_flag(argv[i], "csv")) {
            csv = 1;
        } else if (cli_opt(argv, argc, &i, "export", &v, C, &bad)) {
            if (bad)
                return 1;
            export_to = v;
        } else if (argv[i][0] == '-' && argv[i][1] == '-') {
            return cli_fail(C, "unknown option '%s' (see --help)", argv[i]);
        } else if (n < (int)(sizeof files / sizeof files[0])) {
            files[n++] = argv[i];
        } else {
            return cli_fail(C, "at most %d files", (int)(sizeof files / sizeof files[0]));
        }
    }
    TfErr err;
    if (export_to && !summary && !n) {
        int rows = 0;
        if (results_export(export_to, &rows, &err))
            return cli_fail(C, "%s", err.msg);
        printf("wrote %d answers into %s\n", rows, export_to);
        return 0;
    }
    if (summary && !export_to) {
        if (!n)
            return cli_fail(C, "--summary needs the class's CSV files");
        return results_summary(stdout, files, n, csv, &err) ? cli_fail(C, "%s", err.msg) : 0;
    }
    return cli_fail(C, "give --export FILE.csv, or --summary FILE.csv...");
}
