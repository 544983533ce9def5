/* file.c - regular files only, lines with a limit (see file.h). */
#include "file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind_of(mode_t m)
{
    if (S_ISDIR(m))
        return "is a folder, not a file";
    if (S_ISFIFO(m))
        return "is a FIFO (named pipe), not a regular file";
    if (S_ISCHR(m) || S_ISBLK(m))
        return "is a device, not a regular file";
    if (S_ISSOCK(m))
        return "is a socket, not a regular file";
    return "is not a regular file";
}

FILE *tf_fopen_regular(const char *path, off_t *size, TfErr *err)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        tf_fail(err, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        tf_fail(err, "%s: cannot open: %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        tf_fail(err, "%s %s", path, kind_of(st.st_mode));
        close(fd);
        return NULL;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        tf_fail(err, "%s: cannot open: %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    if (size)
        *size = st.st_size;
    return f;
}

ssize_t tf_read_line(FILE *f, char **buf, size_t *cap, size_t limit)
{
    size_t n = 0;
    int c, too_long = 0, any = 0;
    while ((c = getc(f)) != EOF) {
        any = 1;
        if (c == '\n')
            break;
        if (too_long)
            continue;
        if (n == limit) {
            too_long = 1;
            continue;
        }
        if (n + 1 >= *cap) {
            size_t want = *cap ? *cap * 2 : 256;
            if (want > limit + 1)
                want = limit + 1;
            char *b = realloc(*buf, want);
            if (!b)
                return -3;
            *buf = b;
            *cap = want;
        }
        (*buf)[n++] = (char)c;
    }
    if (!any)
        return -1;
    if (too_long)
        return -2;
    if (n > 0 && (*buf)[n - 1] == '\r')
        n--;
    if (*cap == 0) {
        char *b = realloc(*buf, 1);
        if (!b)
            return -3;
        *buf = b;
        *cap = 1;
    }
    (*buf)[n] = 0;
    return (ssize_t)n;
}
