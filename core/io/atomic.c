/* atomic.c - temporary file, fsync, rename (see atomic.h). */
#include "atomic.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

/* Split path into its folder ("." when none) and base name. */
static int split_path(const char *path, char *dir, size_t dcap, const char **base)
{
    const char *slash = strrchr(path, '/');
    *base = slash ? slash + 1 : path;
    if (!**base)
        return -1;
    int n;
    if (!slash)
        n = snprintf(dir, dcap, ".");
    else if (slash == path)
        n = snprintf(dir, dcap, "/");
    else
        n = snprintf(dir, dcap, "%.*s", (int)(slash - path), path);
    return n < 0 || (size_t)n >= dcap ? -1 : 0;
}

/* Is name exactly BASE ".tmp-" and six characters of mkstemp's alphabet? */
static int is_stale_temp(const char *name, const char *base)
{
    size_t bl = strlen(base);
    if (strncmp(name, base, bl) != 0 || strncmp(name + bl, ".tmp-", 5) != 0)
        return 0;
    const char *x = name + bl + 5;
    if (strlen(x) != 6)
        return 0;
    for (int i = 0; i < 6; i++) {
        char c = x[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
            return 0;
    }
    return 1;
}

/* Remove temporaries of the same target that a killed save left behind.
 * Only regular files owned by us are removed. */
static void remove_stale(const char *dir, const char *base)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    int dfd = dirfd(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!is_stale_temp(e->d_name, base))
            continue;
        struct stat st;
        if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
            st.st_uid == geteuid())
            unlinkat(dfd, e->d_name, 0);
    }
    closedir(d);
}

int tf_atomic_open(TfAtomic *w, const char *path, mode_t mode, TfErr *err)
{
    memset(w, 0, sizeof *w);
    w->fd = -1;
    char dir[TF_ATOMIC_PATH];
    const char *base;
    if (!path || strlen(path) >= TF_ATOMIC_PATH || split_path(path, dir, sizeof dir, &base) < 0)
        return tf_fail(err, "%s: not a usable file path", path ? path : "(null)");
    struct stat st;
    if (stat(dir, &st) != 0)
        return tf_fail(err, "%s: folder %s: %s", path, dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return tf_fail(err, "%s: %s is not a folder", path, dir);
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return tf_fail(err, "%s: exists and is not a regular file", path);
    remove_stale(dir, base);
    snprintf(w->path, sizeof w->path, "%s", path);
#ifdef O_TMPFILE
    /* an unnamed file in the folder: a process killed while writing leaves
     * nothing behind; it gets a name only when complete (commit) */
    if (access("/proc/self/fd", X_OK) == 0) /* how commit names it, unprivileged */
        w->fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
    w->unnamed = w->fd >= 0;
#endif
    if (w->fd < 0) { /* a file system without O_TMPFILE: a named temporary */
        snprintf(w->tmp, sizeof w->tmp, "%s.tmp-XXXXXX", path);
        w->fd = mkstemp(w->tmp);
    }
    if (w->fd < 0)
        return tf_fail(err, "%s: cannot create a file in %s: %s", path, dir, strerror(errno));
    w->f = fdopen(w->fd, "wb");
    if (!w->f) {
        int e = errno;
        close(w->fd);
        if (!w->unnamed)
            unlink(w->tmp);
        w->fd = -1;
        return tf_fail(err, "%s: %s", path, strerror(e));
    }
    mode_t mask = umask(0);
    umask(mask);
    w->mode = mode & ~mask;
    return 0;
}

void tf_atomic_discard(TfAtomic *w)
{
    if (w->f) {
        fclose(w->f);
        if (!w->unnamed)
            unlink(w->tmp);
    }
    w->f = NULL;
    w->fd = -1;
}

/* Give the finished unnamed file the name NAME.tmp-XXXXXX (a free one),
 * to be renamed over the target: linkat through /proc/self/fd, which
 * needs no privilege, else AT_EMPTY_PATH. 0, or -1 with errno. */
static int name_unnamed(TfAtomic *w)
{
    static const char ALNUM[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", w->fd);
    uint64_t x = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20) ^ (uint64_t)(uintptr_t)w;
    for (int attempt = 0; attempt < 100; attempt++) {
        char suffix[7];
        for (int i = 0; i < 6; i++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            suffix[i] = ALNUM[(x >> 33) % (sizeof ALNUM - 1)];
        }
        suffix[6] = 0;
        snprintf(w->tmp, sizeof w->tmp, "%s.tmp-%s", w->path, suffix);
        int rc = linkat(AT_FDCWD, proc, AT_FDCWD, w->tmp, AT_SYMLINK_FOLLOW);
#ifdef AT_EMPTY_PATH
        if (rc != 0 && errno != EEXIST)
            rc = linkat(w->fd, "", AT_FDCWD, w->tmp, AT_EMPTY_PATH);
#endif
        if (rc == 0 || errno != EEXIST)
            return rc;
    }
    return -1;
}

int tf_atomic_commit(TfAtomic *w, TfErr *err)
{
    if (!w->f)
        return tf_fail(err, "%s: nothing to save", w->path);
    errno = 0;
    int bad = ferror(w->f) || fflush(w->f) != 0 || fsync(w->fd) != 0;
    int e = errno ? errno : EIO;
    if (!bad)
        fchmod(w->fd, w->mode);
    if (!bad && w->unnamed && name_unnamed(w) != 0) {
        bad = 1;
        e = errno ? errno : EIO;
        w->tmp[0] = 0; /* nothing named to remove */
    }
    if (fclose(w->f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    w->f = NULL;
    w->fd = -1;
    if (bad) {
        if (w->tmp[0])
            unlink(w->tmp);
        return tf_fail(err, "%s: write failed: %s", w->path, strerror(e));
    }
    if (rename(w->tmp, w->path) != 0) {
        e = errno;
        unlink(w->tmp);
        return tf_fail(err, "%s: cannot replace the file: %s", w->path, strerror(e));
    }
    char dir[TF_ATOMIC_PATH];
    const char *base;
    if (split_path(w->path, dir, sizeof dir, &base) == 0) {
        int dfd = open(dir, O_RDONLY | O_DIRECTORY);
        if (dfd >= 0) {
            fsync(dfd);
            close(dfd);
        }
    }
    return 0;
}

int tf_atomic_probe(const char *path, TfErr *err)
{
    TfAtomic w;
    if (tf_atomic_open(&w, path, 0644, err) < 0)
        return -1;
    tf_atomic_discard(&w);
    return 0;
}

int tf_atomic_room(const char *path, unsigned long long bytes, TfErr *err)
{
    char dir[TF_ATOMIC_PATH];
    const char *base;
    struct statvfs vs;
    if (!path || strlen(path) >= TF_ATOMIC_PATH || split_path(path, dir, sizeof dir, &base) < 0)
        return tf_fail(err, "%s: not a usable file path", path ? path : "(null)");
    if (statvfs(dir, &vs) != 0)
        return 0; /* nothing known: the save itself will tell */
    unsigned long long avail = (unsigned long long)vs.f_bavail * vs.f_frsize;
    if (avail >= bytes)
        return 0;
    double mib = 1024.0 * 1024.0;
    return tf_fail(err, "%s: the file needs %.1f MiB and its folder %s has %.1f MiB free", path,
                   (double)bytes / mib, dir, (double)avail / mib);
}
