/* linebreak.h - the browser build's stand-in for libunibreak's header (its
 * Debian source is not in the archive this machine reaches): the one call
 * ren_wrap.c makes, served by app/platform/web/linebreak_web.c. */
#ifndef STEPFORMER_WEB_LINEBREAK_H
#define STEPFORMER_WEB_LINEBREAK_H

#include <stddef.h>

typedef unsigned char utf8_t;
#define LINEBREAK_MUSTBREAK 0
#define LINEBREAK_ALLOWBREAK 1
#define LINEBREAK_NOBREAK 2
#define LINEBREAK_INSIDEACHAR 3

void init_linebreak(void);
void set_linebreaks_utf8(const utf8_t *s, size_t len, const char *lang, char *brks);

#endif
