/* zip.h - the browser build has no libzip: pytorch_model.bin files (a zip)
 * are not opened there (core/io/pickle.c compiles against these, and
 * zip_open always fails, so pt_open reports the file as unreadable). */
#ifndef STEPFORMER_WEB_ZIP_H
#define STEPFORMER_WEB_ZIP_H

#include <stdint.h>

typedef uint64_t zip_uint64_t;
typedef int64_t zip_int64_t;
typedef struct zip zip_t;
typedef struct zip_file zip_file_t;
typedef struct zip_stat {
    zip_uint64_t valid, size;
} zip_stat_t;
#define ZIP_RDONLY 16
#define ZIP_STAT_SIZE 4u

static inline zip_t *zip_open(const char *path, int flags, int *err) { (void)path, (void)flags; *err = 19; return 0; }
static inline zip_int64_t zip_get_num_entries(zip_t *z, int f) { (void)z, (void)f; return 0; }
static inline const char *zip_get_name(zip_t *z, zip_uint64_t i, int f) { (void)z, (void)i, (void)f; return 0; }
static inline int zip_stat_index(zip_t *z, zip_uint64_t i, int f, zip_stat_t *st) { (void)z, (void)i, (void)f, (void)st; return -1; }
static inline int zip_stat(zip_t *z, const char *n, int f, zip_stat_t *st) { (void)z, (void)n, (void)f, (void)st; return -1; }
static inline zip_file_t *zip_fopen_index(zip_t *z, zip_uint64_t i, int f) { (void)z, (void)i, (void)f; return 0; }
static inline zip_file_t *zip_fopen(zip_t *z, const char *n, int f) { (void)z, (void)n, (void)f; return 0; }
static inline zip_int64_t zip_fread(zip_file_t *zf, void *b, zip_uint64_t n) { (void)zf, (void)b, (void)n; return -1; }
static inline int zip_fclose(zip_file_t *zf) { (void)zf; return 0; }
static inline void zip_discard(zip_t *z) { (void)z; }

#endif
