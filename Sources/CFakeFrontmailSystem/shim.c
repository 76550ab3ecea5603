#if defined(__linux__)
#define _GNU_SOURCE
#endif
#include "CFakeFrontmailSystem.h"

#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

int cfm_have_epoll(void) {
#if defined(CFM_HAVE_EPOLL)
    return 1;
#else
    return 0;
#endif
}

int cfm_accept_nonblocking(int listener) {
#if defined(__linux__)
    return accept4(listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
#else
    int fd = accept(listener, NULL, NULL);
    if (fd >= 0) {
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL, 0) | O_NONBLOCK);
        fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
    return fd;
#endif
}

int cfm_set_nonblocking(int fd) {
    int flags = fcntl(fd, F_GETFL, 0);
    if (flags < 0) return -1;
    return fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

int cfm_thread_name(char *buffer, unsigned long size) {
    if (size == 0) return -1;
    buffer[0] = 0;
#if defined(__linux__) || defined(__APPLE__)
    return pthread_getname_np(pthread_self(), buffer, size);
#else
    return -1;
#endif
}

int cfm_set_thread_name(const char *name) {
#if defined(__linux__)
    return pthread_setname_np(pthread_self(), name);
#elif defined(__APPLE__)
    return pthread_setname_np(name);
#else
    (void)name;
    return -1;
#endif
}
