#ifndef C_PROCESS_GUARD_H
#define C_PROCESS_GUARD_H

#include <sys/types.h>

/// Starts `path` (with `argv` and `envp`, stdin from `in_fd`, stdout and stderr to `out_fd`, in a
/// process group of its own) under a guard: a process forked from the caller that waits for the
/// command and, whenever it stops, leaves nothing of it running.
///
/// The guard is a child subreaper, so whatever the command starts, double-forked or `setsid`,
/// stays in its tree. It stops the command (SIGTERM to its group and every descendant, SIGKILL
/// `grace_ms` later) on SIGTERM, SIGINT or SIGHUP, and when the caller is gone: its parent
/// process changed, or `lifeline_fd` (the read end of a pipe whose write end only the caller
/// holds; -1 for none) reached its end. When the command exits, anything it left running is
/// killed. The guard then exits with the command's status, 128 + the signal that ended it, or
/// 128 + SIGTERM when it was stopped. The caller waits for the returned pid as for the command.
///
/// Returns the guard's pid, or -errno. Linux only: elsewhere returns -ENOSYS.
pid_t cpg_spawn_guarded(
    const char *path, char *const argv[], char *const envp[], int in_fd, int out_fd, int lifeline_fd,
    int grace_ms);

#endif
