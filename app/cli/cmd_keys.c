/* cmd_keys.c - `stepformer keys`: the window's keys, from its command
 * table (cmd_table.c), as a list to read or as the manual page's KEYS
 * section in roff (tools/make-man.sh puts it there). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cmd_table.h"
#include "commands.h"
#include "paths.h"
#include "ui.h"

static const char *HELP =
    "usage: stepformer keys [--lang en|zh] [--man]\n"
    "\n"
    "Print every key and mouse gesture of the window and what it does:\n"
    "those that work everywhere, then each tab's own, the lesson list's,\n"
    "a lesson's and the Experiments panel's. A tab's key shadows the one\n"
    "that works everywhere (in the Decode tab, Left and Right pick a token).\n"
    "--man prints the list as roff for the manual page (in English).\n";

int cmd_keys(int argc, char **argv)
{
    const char *C = "keys", *lang = "en";
    int man = 0, zh;
    const CliOpt opts[] = {CLI_FLAG_OPT("man", &man), CLI_STR_OPT("lang", &lang)};
    int rc = cli_parse(argc, argv, opts, CLI_N(opts), NULL, NULL, C, HELP);
    if (rc || cli_lang(C, lang, &zh))
        return rc < 0 ? 0 : 1;
    char buf[4096];
    zh = zh && !man;
    if (zh && !ui_i18n_init(paths_locale(buf, sizeof buf)))
        return cli_fail(C, "no Chinese catalog was found beside the program");
    ui_set_lang(zh);
    cmd_print(stdout, man);
    return 0;
}
