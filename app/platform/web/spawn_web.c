/* spawn_web.c - a page cannot start programs: posix_spawnp (which the
 * window uses to hand a description to the speech dispatcher, spd-say) is
 * not in the browser's libc, and here it always fails with ENOSYS, so the
 * caller takes its "cannot speak" path. */
#include <errno.h>
#include <spawn.h>

int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa, const posix_spawnattr_t *attr,
                 char *const argv[], char *const envp[])
{
    (void)pid, (void)file, (void)fa, (void)attr, (void)argv, (void)envp;
    return ENOSYS;
}
