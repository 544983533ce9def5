/* sysmem.c - available memory, from /proc and the rlimit (see sysmem.h). */
#include "sysmem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static size_t meminfo_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (f) {
        char line[256];
        unsigned long long kb = 0;
        int found = 0;
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
                found = 1;
                break;
            }
        fclose(f);
        if (found)
            return (size_t)kb * 1024;
    }
    long pages = sysconf(_SC_AVPHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    return pages > 0 && psz > 0 ? (size_t)pages * (size_t)psz : (size_t)-1;
}

/* Address space the rlimit still allows, or SIZE_MAX without a limit. */
size_t tf_addr_space_left(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return (size_t)-1;
    unsigned long long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%llu", &pages) != 1)
            pages = 0;
        fclose(f);
    }
    size_t used = (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
    return used < rl.rlim_cur ? (size_t)rl.rlim_cur - used : 0;
}

size_t tf_mem_available(void)
{
    size_t a = meminfo_available(), r = tf_addr_space_left();
    size_t n = a < r ? a : r;
    const char *cap = getenv("STEPFORMER_MEM_LIMIT");
    if (cap && *cap) {
        char *end;
        unsigned long long v = strtoull(cap, &end, 10);
        if (*end == 0 && v < n)
            n = (size_t)v;
    }
    return n;
}

int tf_mem_check(size_t bytes, const char *what, TfErr *err)
{
    size_t avail = tf_mem_available();
    /* leave a tenth for everything else the program holds */
    if (avail == (size_t)-1 || bytes <= avail - avail / 10)
        return 0;
    double mib = 1024.0 * 1024.0;
    /* one decimal: rounded to whole MiB, "needs 54; 60 available, 54 may
     * be used" would read as a contradiction */
    return tf_fail(err, "%s needs %.1f MiB; %.1f MiB are available, of which %.1f may be used "
                   "(a tenth is kept for the rest of the program)", what, (double)bytes / mib,
                   (double)avail / mib, (double)(avail - avail / 10) / mib);
}

void *tf_regrow(void *old, size_t bytes, int *bad)
{
    void *p = realloc(old, bytes ? bytes : 1);
    if (p)
        return p;
    *bad = 1;
    return old;
}
