/* file.h - reading the user's files safely: only regular files are opened
 * (a FIFO, a device or a folder named by mistake gets a one-line error
 * instead of a hang or a read of /dev/zero forever), and lines are read with
 * a limit, so that memory follows the limit and not the file. */
#ifndef TF_FILE_H
#define TF_FILE_H

#include <stdio.h>
#include <sys/types.h>

#include "err.h"

#define TF_LINE_MAX ((size_t)16 << 20) /* 16 MiB: the longest line read */

/* Open path for reading if it is a regular file. The open itself does not
 * block (O_NONBLOCK, cleared once the file is known to be regular). On
 * failure err names the path and the reason ("is a FIFO", "is a folder",
 * "No such file or directory"). *size (if not NULL) gets the file's size. */
FILE *tf_fopen_regular(const char *path, off_t *size, TfErr *err);

/* 1 when path names a directory. */
int tf_path_is_dir(const char *path);

/* What tf_read_line returns besides a length. After TF_LINE_NOMEM,
 * TF_LINE_NUL and TF_LINE_ENDLESS reading must stop: an endless stream
 * (/dev/zero, /dev/urandom, a FIFO that never sends a newline) ends there
 * at once instead of being read forever. */
enum {
    TF_LINE_EOF = -1,     /* the end of the input */
    TF_LINE_LONG = -2,    /* longer than limit, in a regular file: skipped up to
                           * the next newline, reading can go on */
    TF_LINE_NOMEM = -3,   /* out of memory */
    TF_LINE_NUL = -4,     /* a NUL byte: binary data, not text */
    TF_LINE_ENDLESS = -5, /* longer than limit on a stream (pipe, device): not skipped */
};

/* Make the folder dir and every missing parent (mkdir -p) with mode.
 * Returns 0 (also when it is there already), else the errno of the step
 * that failed (ENOTDIR when a part of it is a file), so that the caller
 * can say why in its own words and language. */
int tf_mkdirs(const char *dir, unsigned mode);

/* Read one line (without its '\n' or "\r\n") into *buf (grown as needed,
 * *cap its size, freed by the caller), reading at most limit bytes of it:
 * returns the line's length or one of the TF_LINE_ codes above. The buffer
 * never grows past limit + 1 bytes. */
ssize_t tf_read_line(FILE *f, char **buf, size_t *cap, size_t limit);

/* A one-line reason for a TF_LINE_ code ("line longer than 16 MiB", ...). */
const char *tf_line_error(ssize_t code, size_t limit, char *buf, size_t cap);

#endif
