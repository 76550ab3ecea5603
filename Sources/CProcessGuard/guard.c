#if defined(__linux__)
#define _GNU_SOURCE
#endif

#include "CProcessGuard.h"

#include <errno.h>

#if defined(__linux__)
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

// Everything below runs in a process forked from a multithreaded one, so it calls only what is
// safe there: system calls, no allocation, no locks, no stdio.

static long monotonic_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

static void sleep_ms(long ms) {
    struct timespec wait = {ms / 1000, (ms % 1000) * 1000000};
    nanosleep(&wait, NULL);
}

static void close_from(int first) {
#if defined(SYS_close_range)
    if (syscall(SYS_close_range, (unsigned)first, ~0U, 0) == 0) return;
#endif
    struct rlimit limit;
    long last = 65536;
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < (1 << 20)) {
        last = (long)limit.rlim_cur;
    }
    for (long fd = first; fd < last; fd++) close((int)fd);
}

/// The parent of the process named by `name` (decimal digits), read from /proc/NAME/stat; -1 if
/// it cannot be read.
static pid_t parent_of(const char *name) {
    char path[64] = "/proc/";
    int at = 6;
    for (int i = 0; name[i] != 0 && at < 50; i++) path[at++] = name[i];
    const char *tail = "/stat";
    for (int i = 0; tail[i] != 0; i++) path[at++] = tail[i];
    path[at] = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    char text[512];
    ssize_t count = read(fd, text, sizeof text - 1);
    close(fd);
    if (count <= 0) return -1;
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ')'.
    ssize_t close_paren = -1;
    for (ssize_t i = 0; i < count; i++) {
        if (text[i] == ')') close_paren = i;
    }
    if (close_paren < 0 || close_paren + 4 >= count) return -1;
    ssize_t i = close_paren + 4;  // ") S " then the parent
    long parent = 0;
    while (i < count && text[i] >= '0' && text[i] <= '9') parent = parent * 10 + (text[i++] - '0');
    return (pid_t)parent;
}

struct dirent64_record {
    uint64_t inode;
    int64_t offset;
    unsigned short length;
    unsigned char type;
    char name[];
};

/// Sends `signal` to every process whose parent is this one (a subreaper's adopted orphans
/// included); returns how many there were.
static int signal_children(int signal) {
    int directory = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (directory < 0) return 0;
    pid_t me = getpid();
    int found = 0;
    char buffer[8192];
    for (;;) {
        long count = syscall(SYS_getdents64, directory, buffer, sizeof buffer);
        if (count <= 0) break;
        for (long offset = 0; offset < count;) {
            struct dirent64_record *record = (struct dirent64_record *)(buffer + offset);
            offset += record->length;
            const char *name = record->name;
            if (name[0] < '1' || name[0] > '9') continue;
            long pid = 0;
            int digits = 1;
            for (int i = 0; name[i] != 0; i++) {
                if (name[i] < '0' || name[i] > '9') {
                    digits = 0;
                    break;
                }
                pid = pid * 10 + (name[i] - '0');
            }
            if (!digits || parent_of(name) != me) continue;
            kill((pid_t)pid, signal);
            found++;
        }
    }
    close(directory);
    return found;
}

/// Reaps every child that has ended; records the command's status when it is among them.
static void reap(pid_t command, int *command_done, int *command_status) {
    int status;
    pid_t ended;
    while ((ended = waitpid(-1, &status, WNOHANG)) > 0) {
        if (ended == command) {
            *command_done = 1;
            *command_status = status;
        }
    }
}

static int caller_gone(pid_t caller, int lifeline_fd) {
    if (getppid() != caller) return 1;
    if (lifeline_fd < 0) return 0;
    struct pollfd line = {lifeline_fd, POLLIN, 0};
    if (poll(&line, 1, 0) > 0 && (line.revents & (POLLHUP | POLLERR | POLLIN))) {
        char byte;
        // The caller never writes: readable means its end closed (0 bytes) or a stray byte.
        if (read(lifeline_fd, &byte, 1) <= 0) return 1;
    }
    return 0;
}

static void guard(pid_t caller, pid_t command, int lifeline_fd, int grace_ms) {
    sigset_t waited;
    sigemptyset(&waited);
    sigaddset(&waited, SIGCHLD);
    sigaddset(&waited, SIGTERM);
    sigaddset(&waited, SIGINT);
    sigaddset(&waited, SIGHUP);
    int done = 0, status = 0, stopping = 0;
    long kill_at = 0;
    for (;;) {
        reap(command, &done, &status);
        if (done) break;
        int stop = caller_gone(caller, lifeline_fd);
        struct timespec tick = {0, 50 * 1000000};
        int signal = sigtimedwait(&waited, NULL, &tick);
        if (signal == SIGTERM || signal == SIGINT || signal == SIGHUP) stop = 1;
        if (stop && !stopping) {
            stopping = 1;
            kill(-command, SIGTERM);
            signal_children(SIGTERM);
            kill_at = monotonic_ms() + grace_ms;
        }
        if (stopping && monotonic_ms() >= kill_at) break;
    }
    // Whatever is left of the command's tree ends now: its group, then every process this guard
    // is the parent of (each one killed hands its own children to this subreaper), until none.
    for (int round = 0; round < 500; round++) {
        kill(-command, SIGKILL);
        int left = signal_children(SIGKILL);
        reap(command, &done, &status);
        if (left == 0) {
            int ignored;
            if (waitpid(-1, &ignored, WNOHANG) < 0 && errno == ECHILD) break;
        }
        sleep_ms(10);
    }
    if (!done) _exit(128 + SIGTERM);
    if (WIFSIGNALED(status)) _exit(128 + WTERMSIG(status));
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + SIGTERM);
}

pid_t cpg_spawn_guarded(
    const char *path, char *const argv[], char *const envp[], int in_fd, int out_fd, int lifeline_fd,
    int grace_ms) {
    pid_t caller = getpid();
    pid_t guard_pid = fork();
    if (guard_pid < 0) return -errno;
    if (guard_pid > 0) return guard_pid;

    // The guard: a group of its own (a terminal's ^C reaches the caller, which decides), the
    // signals it waits for at their default action and blocked, so sigtimedwait receives them.
    setpgid(0, 0);
    struct sigaction fallback = {0};
    fallback.sa_handler = SIG_DFL;
    for (int signal = 1; signal < NSIG; signal++) {
        if (signal != SIGKILL && signal != SIGSTOP) sigaction(signal, &fallback, NULL);
    }
    sigset_t blocked;
    sigfillset(&blocked);
    sigprocmask(SIG_SETMASK, &blocked, NULL);
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    if (getppid() != caller) _exit(128 + SIGTERM);

    pid_t command = fork();
    if (command == 0) {
        setpgid(0, 0);
        if (dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(out_fd, 2) < 0) _exit(127);
        close_from(3);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        execve(path, argv, envp);
        _exit(127);
    }
    if (command < 0) _exit(127);
    setpgid(command, command);
    // The guard keeps only the lifeline: every other descriptor of the caller is closed here
    // (a pipe the caller reads must end when the command's tree does).
    if (lifeline_fd >= 0 && lifeline_fd != 0) {
        if (dup2(lifeline_fd, 0) < 0) lifeline_fd = -1;
        else lifeline_fd = 0;
    }
    close_from(lifeline_fd == 0 ? 1 : 0);
    guard(caller, command, lifeline_fd, grace_ms);
    _exit(128 + SIGTERM);
}

#else

pid_t cpg_spawn_guarded(
    const char *path, char *const argv[], char *const envp[], int in_fd, int out_fd, int lifeline_fd,
    int grace_ms) {
    (void)path, (void)argv, (void)envp, (void)in_fd, (void)out_fd, (void)lifeline_fd, (void)grace_ms;
    return -ENOSYS;
}

#endif
