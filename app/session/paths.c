/* paths.c - finding the bundled files (see paths.h for the order). */
#include "paths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The running program's folder, or "" when /proc/self/exe cannot tell. */
static void exe_dir(char *dir, size_t cap)
{
    ssize_t n = readlink("/proc/self/exe", dir, cap - 1);
    dir[n > 0 ? n : 0] = 0;
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = 0;
    else
        dir[0] = 0;
}

/* Drop the last component of dir; 0 when none is left to drop. */
static int dir_up(char *dir)
{
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return 0;
    *slash = 0;
    return 1;
}

static void add(PathsDir *out, int max, int *n, const char *what, const char *dir,
                const char *suffix)
{
    if (*n >= max)
        return;
    out[*n].what = what;
    snprintf(out[*n].dir, sizeof out[*n].dir, "%.*s%s", (int)(sizeof out[*n].dir - 32), dir,
             suffix);
    (*n)++;
}

int paths_data_dirs(PathsDir *out, int max)
{
    int n = 0;
    char exe[PATH_MAX - 64], up[PATH_MAX - 64];
    exe_dir(exe, sizeof exe);
    const char *env = getenv("STEPFORMER_DATADIR");
    if (env && env[0])
        add(out, max, &n, "$STEPFORMER_DATADIR", env, "");
    snprintf(up, sizeof up, "%s", exe);
    if (exe[0] && dir_up(up))
        add(out, max, &n, "beside the program", up, "/share/stepformer");
#ifdef STEPFORMER_DATADIR
    add(out, max, &n, "installed prefix", STEPFORMER_DATADIR, "");
#endif
    for (int k = 0; exe[0] && k < 3; k++) {
        add(out, max, &n, "source tree", exe, "");
        if (!dir_up(exe))
            break;
    }
    add(out, max, &n, "current folder", ".", "");
    return n;
}

const char *paths_data(const char *rel, char *buf, size_t cap)
{
    PathsDir d[PATHS_MAX_DIRS];
    int n = paths_data_dirs(d, PATHS_MAX_DIRS);
    for (int i = 0; i < n; i++) {
        snprintf(buf, cap, "%s/%s", d[i].dir, rel);
        if (access(buf, R_OK) == 0)
            return buf;
    }
    snprintf(buf, cap, "%s", rel);
    return buf;
}

const char *paths_locale(char *buf, size_t cap)
{
    static const char *const REL[] = {"locale", "build/locale", "../locale"};
    PathsDir d[PATHS_MAX_DIRS];
    int n = paths_data_dirs(d, PATHS_MAX_DIRS);
    for (int i = 0; i < n; i++)
        for (size_t k = 0; k < sizeof REL / sizeof REL[0]; k++) {
            char mo[PATH_MAX];
            snprintf(mo, sizeof mo, "%s/%s/zh_CN/LC_MESSAGES/stepformer.mo", d[i].dir, REL[k]);
            if (access(mo, R_OK) != 0)
                continue;
            snprintf(buf, cap, "%s/%s", d[i].dir, REL[k]);
            char *real = realpath(buf, NULL);
            if (real) {
                snprintf(buf, cap, "%s", real);
                free(real);
            }
            return buf;
        }
    if (cap)
        buf[0] = 0;
    return NULL;
}

/* XDG_<what>_DIR="$HOME/..." (PICTURES, DOCUMENTS) from user-dirs.dirs,
 * $HOME expanded; 0 when the file does not say. */
static int user_dirs(const char *home, const char *what, char *buf, size_t cap)
{
    char path[PATH_MAX];
    const char *cfg = getenv("XDG_CONFIG_HOME");
    if (cfg && cfg[0])
        snprintf(path, sizeof path, "%s/user-dirs.dirs", cfg);
    else
        snprintf(path, sizeof path, "%s/.config/user-dirs.dirs", home);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[PATH_MAX];
    int found = 0;
    char key[64];
    snprintf(key, sizeof key, "XDG_%s_DIR=\"", what);
    while (!found && fgets(line, sizeof line, f)) {
        if (strncmp(line, key, strlen(key)) != 0)
            continue;
        char *v = line + strlen(key), *end = strchr(v, '"');
        if (!end || end == v)
            continue;
        *end = 0;
        if (strncmp(v, "$HOME", 5) == 0)
            snprintf(buf, cap, "%s%s", home, v + 5);
        else if (v[0] == '/')
            snprintf(buf, cap, "%s", v);
        else
            continue;
        found = strcmp(buf, home) != 0; /* "$HOME" itself means none */
    }
    fclose(f);
    return found;
}

/* The XDG folder what (else ~/fallback) and Stepformer in it. */
static const char *user_folder(const char *what, const char *fallback, char *buf, size_t cap)
{
    const char *home = getenv("HOME");
    if (cap)
        buf[0] = 0;
    if (!home || !home[0])
        return NULL;
    char dir[PATH_MAX - 16];
    if (!user_dirs(home, what, dir, sizeof dir))
        snprintf(dir, sizeof dir, "%s/%s", home, fallback);
    snprintf(buf, cap, "%s/Stepformer", dir);
    return buf;
}

const char *paths_pictures(char *buf, size_t cap)
{
    return user_folder("PICTURES", "Pictures", buf, cap);
}

const char *paths_documents(char *buf, size_t cap)
{
    return user_folder("DOCUMENTS", "Documents", buf, cap);
}
