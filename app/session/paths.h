/* paths.h - where the bundled files are (lessons/, assets/models/), so that
 * an installed copy, a copied tree and the source tree all find theirs:
 *
 *   1. $STEPFORMER_DATADIR, when set;
 *   2. ../share/stepformer beside the program (/proc/self/exe), where
 *      `make install` and the Debian package put it, wherever the tree is;
 *   3. the compiled-in prefix (STEPFORMER_DATADIR at build time);
 *   4. the source tree: the program's folder and the two above it
 *      (build/stepformer, build/san/stepformer);
 *   5. the current folder.
 *
 * `stepformer info --paths` prints this list and what each place holds. */
#ifndef APP_PATHS_H
#define APP_PATHS_H

#include <limits.h>
#include <stddef.h>

enum { PATHS_MAX_DIRS = 8 };

typedef struct PathsDir {
    const char *what;          /* "$STEPFORMER_DATADIR", "beside the program", ... */
    char dir[PATH_MAX - 64];   /* room left for a relative path after it */
} PathsDir;

/* The places above, in order (those that apply: no variable, no entry).
 * Returns how many were written (at most max). */
int paths_data_dirs(PathsDir *out, int max);

/* The path of rel (e.g. "assets/models/en2zh.safetensors") written into
 * buf: the first of the places above where it can be read, else rel
 * itself. Returns buf. */
const char *paths_data(const char *rel, char *buf, size_t cap);

/* The folder holding the compiled catalogs (LANG/LC_MESSAGES/stepformer.mo,
 * made from po/ by the build): for each place above, in order, its
 * "locale" (build/locale beside build/stepformer), "build/locale" (the
 * source tree) and "../locale" (share/locale beside share/stepformer).
 * Writes it into buf and returns buf; NULL (buf "") when none has
 * zh_CN's catalog. */
const char *paths_locale(char *buf, size_t cap);

/* Where the window saves figures: the XDG pictures folder (XDG_PICTURES_DIR
 * in $XDG_CONFIG_HOME/user-dirs.dirs, else ~/Pictures) and Stepformer in
 * it, into buf (not made here). NULL (buf "") when HOME is not set. */
const char *paths_pictures(char *buf, size_t cap);
/* Where the window writes documents (the test answers for the teacher):
 * the XDG documents folder (XDG_DOCUMENTS_DIR, else ~/Documents) and
 * Stepformer in it, as paths_pictures. */
const char *paths_documents(char *buf, size_t cap);

#endif
