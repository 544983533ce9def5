/* gui.h - the interactive window (see gui.c) and its command line. */
#ifndef APP_GUI_H
#define APP_GUI_H

#include "app.h"

int gui_run(const AppOpts *o);
/* `stepformer [--model FILE] [--src TEXT]... [--tgt TEXT] [--stage NAME]
 *  [--layer L] [--head H] [--view NAME] [--theme T]`: parse into o.
 * Returns 0, 1 on bad input (message printed) or 2 after --help. */
int gui_parse_args(int argc, char **argv, AppOpts *o, const char *cmd);

#endif
