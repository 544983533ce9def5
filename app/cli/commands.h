/* commands.h - the subcommands of the stepformer program. Each takes the
 * arguments after the subcommand name (argv[0] is the subcommand) and returns
 * the exit status. */
#ifndef APP_COMMANDS_H
#define APP_COMMANDS_H

int cmd_init(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_translate(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_train(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_heads(int argc, char **argv);
int cmd_convert(int argc, char **argv);

#endif
