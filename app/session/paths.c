/* paths.c - finding the bundled files (see paths.h). */
#include "paths.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

const char *paths_data(const char *rel, char *buf, size_t cap)
{
    /* 1. next to the executable: build/stepformer -> ../rel */
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = 0;
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = 0;
            for (int up = 0; up < 3; up++) {
                snprintf(buf, cap, "%s/%s", exe, rel);
                if (access(buf, R_OK) == 0)
                    return buf;
                slash = strrchr(exe, '/');
                if (!slash)
                    break;
                *slash = 0;
            }
        }
    }
    /* 2. the installed data directory */
#ifdef STEPFORMER_DATADIR
    snprintf(buf, cap, "%s/%s", STEPFORMER_DATADIR, rel);
    if (access(buf, R_OK) == 0)
        return buf;
#endif
    /* 3. the current directory */
    snprintf(buf, cap, "%s", rel);
    return buf;
}
