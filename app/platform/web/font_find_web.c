/* font_find_web.c - the browser build's fonts: no fontconfig, the files are
 * in the page's data at fixed paths (tools/web/build.sh puts DejaVu Sans,
 * DejaVu Sans Mono and a subset of WenQuanYi Micro Hei there). */
#include "ren.h"
#include "ren_internal.h"

#include <stdio.h>
#include <sys/stat.h>

static const char *const FILES[REN_FACE_COUNT] = {
    [REN_SANS] = "/fonts/DejaVuSans.ttf",
    [REN_MONO] = "/fonts/DejaVuSansMono.ttf",
    [REN_CJK] = "/fonts/wqy-microhei-subset.ttf",
};

int ren_font_find(RenFace face, char *path, size_t cap, int *index, TfErr *err)
{
    if ((unsigned)face >= REN_FACE_COUNT)
        return tf_fail(err, "ren_font_find: no face %d", (int)face);
    struct stat st;
    if (stat(FILES[face], &st) != 0)
        return tf_fail(err, "%s is missing from the page's data (rebuild with make web)", FILES[face]);
    if ((size_t)snprintf(path, cap, "%s", FILES[face]) >= cap)
        return tf_fail(err, "font path too long");
    if (index)
        *index = 0;
    return 0;
}
