#ifndef C_FAKE_FRONTMAIL_SYSTEM_H
#define C_FAKE_FRONTMAIL_SYSTEM_H

// System headers the Swift Glibc module does not expose (epoll, eventfd), for the fake server's
// event loop. On other platforms the loop falls back to poll(2).
#if defined(__linux__)
#include <sys/epoll.h>
#include <sys/eventfd.h>
#define CFM_HAVE_EPOLL 1
#endif
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>

/// 1 on Linux (epoll available), 0 elsewhere.
int cfm_have_epoll(void);

/// accept(2) that returns a non-blocking, close-on-exec socket (accept4 on Linux).
int cfm_accept_nonblocking(int listener);

/// Sets O_NONBLOCK; returns -1 on failure.
int cfm_set_nonblocking(int fd);

/// The calling thread's name into `buffer` (NUL-terminated); returns 0 on success.
int cfm_thread_name(char *buffer, unsigned long size);

/// Names the calling thread (at most 15 bytes on Linux); returns 0 on success.
int cfm_set_thread_name(const char *name);

#endif
