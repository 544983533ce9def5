/* gui.h - the interactive window (see gui.c) and its command line. */
#ifndef APP_GUI_H
#define APP_GUI_H

#include "app.h"

int gui_run(const AppOpts *o);
/* `stepformer [--model FILE] [--src TEXT]... [--tgt TEXT] [--stage NAME]
 *  [--layer L] [--head H] [--view NAME] [--theme T]`: parse into o.
 * Returns 0, 1 on bad input (message printed) or 2 after --help. */
int gui_parse_args(int argc, char **argv, AppOpts *o, const char *cmd);
int cmd_shot(int argc, char **argv);
int cmd_describe(int argc, char **argv);
int cmd_scene(int argc, char **argv);
int cmd_worksheet(int argc, char **argv);
int cmd_results(int argc, char **argv);
int cmd_lessons(int argc, char **argv);
int cmd_keys(int argc, char **argv);

#endif
