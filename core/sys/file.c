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

/* Skip the rest of a line that is too long, up to and past its '\n'. A
 * regular file is read in chunks (memchr, then a seek back to just after
 * the newline), so a 3 GiB file without newlines takes about a second, not
 * a minute; a pipe byte by byte. Returns 1 when a newline ended it, 0 at
 * the end of the file. */
static int skip_rest(FILE *f)
{
    size_t cap = (size_t)1 << 20;
    char *chunk = ftello(f) >= 0 ? malloc(cap) : NULL;
    if (chunk) {
        size_t n;
        int ended = 0;
        while (!ended && (n = fread(chunk, 1, cap, f)) > 0) {
            const char *nl = memchr(chunk, '\n', n);
            if (nl) { /* seek back to just after it (if that fails, the line ends here) */
                off_t back = (off_t)(n - (size_t)(nl - chunk) - 1);
                if (back > 0)
                    fseeko(f, -back, SEEK_CUR);
                ended = 1;
            }
        }
        free(chunk);
        return ended;
    }
    int c;
    while ((c = getc_unlocked(f)) != EOF)
        if (c == '\n')
            return 1;
    return 0;
}

int tf_path_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_regular(FILE *f)
{
    struct stat st;
    return fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode);
}

ssize_t tf_read_line(FILE *f, char **buf, size_t *cap, size_t limit)
{
    size_t n = 0;
    int c, any = 0;
    flockfile(f);
    while ((c = getc_unlocked(f)) != EOF) {
        any = 1;
        if (c == '\n')
            break;
        if (c == 0) {
            funlockfile(f);
            return TF_LINE_NUL;
        }
        if (n == limit) {
            /* a regular file ends; a stream may never send its newline */
            int regular = is_regular(f);
            if (regular)
                skip_rest(f);
            funlockfile(f);
            return regular ? TF_LINE_LONG : TF_LINE_ENDLESS;
        }
        if (n + 1 >= *cap) {
            size_t want = *cap ? *cap * 2 : 256;
            if (want > limit + 1)
                want = limit + 1;
            char *b = realloc(*buf, want);
            if (!b) {
                funlockfile(f);
                return TF_LINE_NOMEM;
            }
            *buf = b;
            *cap = want;
        }
        (*buf)[n++] = (char)c;
    }
    funlockfile(f);
    if (!any)
        return TF_LINE_EOF;
    if (n > 0 && (*buf)[n - 1] == '\r')
        n--;
    if (*cap == 0) {
        char *b = realloc(*buf, 1);
        if (!b)
            return TF_LINE_NOMEM;
        *buf = b;
        *cap = 1;
    }
    (*buf)[n] = 0;
    return (ssize_t)n;
}

const char *tf_line_error(ssize_t code, size_t limit, char *buf, size_t cap)
{
    switch (code) {
    case TF_LINE_LONG:
        snprintf(buf, cap, "line longer than %zu MiB", limit >> 20);
        break;
    case TF_LINE_ENDLESS:
        snprintf(buf, cap, "line longer than %zu MiB on a stream: reading stops", limit >> 20);
        break;
    case TF_LINE_NUL:
        snprintf(buf, cap, "a NUL byte: this is binary data, not text");
        break;
    case TF_LINE_NOMEM:
        snprintf(buf, cap, "out of memory reading the line");
        break;
    default:
        snprintf(buf, cap, "cannot read the line");
    }
    return buf;
}

int tf_mkdirs(const char *dir, unsigned mode)
{
    char buf[4096];
    size_t n = strlen(dir);
    if (n == 0 || n >= sizeof buf)
        return n ? ENAMETOOLONG : ENOENT;
    memcpy(buf, dir, n + 1);
    while (n > 1 && buf[n - 1] == '/') /* "a/b/" is "a/b" */
        buf[--n] = 0;
    for (char *p = buf + 1;; p++) { /* each parent, then dir itself */
        int last = *p == 0;
        if (*p != '/' && !last)
            continue;
        *p = 0;
        if (mkdir(buf, (mode_t)mode) != 0 && errno != EEXIST)
            return errno;
        if (!tf_path_is_dir(buf))
            return ENOTDIR;
        if (last)
            return 0;
        *p = '/';
    }
}
