/* cli_scene.h - `--scene CODE` on the command line: the code's fields
 * written out as the flags they stand for (--model, --src, --stage, the
 * experiment flags, --decode-pane ...), so that `shot --scene CODE` is
 * `shot` with those flags, and `stepformer scene` prints the code of a set
 * of flags. */
#ifndef APP_CLI_SCENE_H
#define APP_CLI_SCENE_H

#include "link.h"

/* Replace `--scene CODE` (or --scene=CODE) in *argv by the flags of the
 * scene (decode: with --decode-pane, --beam and --alpha, for shot); the new
 * argv lives until the program ends. 0 (also when there is no --scene), or
 * 1 after a one-line error. */
int cli_scene_expand(int *argc, char ***argv, int decode, const char *cmd);
/* The scene the last expansion read, or NULL. */
const SceneLink *cli_scene_last(void);

#endif
