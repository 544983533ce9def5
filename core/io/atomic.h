/* atomic.h - the one way the program writes a file: into a temporary file
 * beside the target, flushed and fsync'd, then renamed over it, so that a
 * crash, a full disk or a signal never leaves a half-written file under the
 * target's name. Checkpoints, pictures, CSV/JSON exports and lesson progress
 * all go through it.
 *
 *     TfAtomic w;
 *     if (tf_atomic_open(&w, path, 0644, err) < 0) return -1;
 *     fwrite(..., w.f);                 // or write(w.fd, ...)
 *     return tf_atomic_commit(&w, err); // or tf_atomic_discard(&w)
 *
 * The temporary file is an unnamed file (O_TMPFILE) in the target's folder,
 * so a process killed while writing leaves nothing; commit names it
 * "NAME.tmp-XXXXXX" (linkat) and renames that over the target. Where the
 * file system has no O_TMPFILE it is a named "NAME.tmp-XXXXXX" from the
 * start. Opening first removes stale temporaries of the same target left by
 * a process that was killed while saving (they are recognised by that exact
 * pattern), so that every later save cleans up after an earlier crash. */
#ifndef TF_ATOMIC_H
#define TF_ATOMIC_H

#include <stdio.h>
#include <sys/types.h>

#include "err.h"

#define TF_ATOMIC_PATH 4096

typedef struct TfAtomic {
    FILE *f;                        /* buffered stream on the temporary file */
    int fd;                         /* its descriptor (fileno(f)) */
    mode_t mode;                    /* permissions the target gets (less umask) */
    char path[TF_ATOMIC_PATH];      /* the target */
    char tmp[TF_ATOMIC_PATH + 16];  /* the temporary file's name (once it has one) */
    int unnamed;                    /* 1: an O_TMPFILE, named only by commit */
} TfAtomic;

/* Create the temporary file beside path. mode is what the finished file
 * gets, less the umask (0644 or 0666 as fopen would give). Errors name the
 * path and the reason (missing folder, read-only, not a usable path). */
int tf_atomic_open(TfAtomic *w, const char *path, mode_t mode, TfErr *err);
/* Flush, fsync, close and rename over the target, then fsync its folder.
 * On failure the temporary file is removed and the target is untouched. */
int tf_atomic_commit(TfAtomic *w, TfErr *err);
/* Give up: close and remove the temporary file (safe to call twice). */
void tf_atomic_discard(TfAtomic *w);
/* Check that path could be written (folder exists and is writable) by
 * creating and removing a temporary file; used before long work. */
int tf_atomic_probe(const char *path, TfErr *err);
/* Check that path's folder has room for a file of `bytes` (statvfs: the
 * blocks an unprivileged user may take; the old file stays until the new
 * one is complete, so it is not counted). 0 when it fits or cannot be
 * known, else -1 with the two figures. */
int tf_atomic_room(const char *path, unsigned long long bytes, TfErr *err);

#endif
