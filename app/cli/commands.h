/* commands.h - the subcommands of the stepformer program (main.c's table
 * lists them with their one-line help). */
#ifndef APP_COMMANDS_H
#define APP_COMMANDS_H

/* A subcommand: the arguments after its name (argv[0] is the subcommand's
 * name) in, the exit status out. */
typedef int CmdMain(int argc, char **argv);

/* the engine's: models, passes, translations, numbers */
CmdMain cmd_init, cmd_info, cmd_convert, cmd_dump, cmd_translate, cmd_heads, cmd_train, cmd_eval, cmd_bench;
/* the window's, headless: pictures, words, keys, lessons, the classroom kit */
CmdMain cmd_shot, cmd_describe, cmd_scene, cmd_lessons, cmd_keys, cmd_worksheet, cmd_results;

#endif
