/* paths.h - where the bundled files are: lessons/ and assets/models/ next
 * to the executable (build/stepformer -> ./), in the installed data
 * directory, or in the current directory. */
#ifndef APP_PATHS_H
#define APP_PATHS_H

#include <stddef.h>

/* The path of rel (e.g. "assets/models/en2zh.safetensors") written into
 * buf: the first of the places above where it can be read, else rel
 * itself. Returns buf. */
const char *paths_data(const char *rel, char *buf, size_t cap);

#endif
