// Exact allocation counts from jemalloc's experimental allocation hooks, when jemalloc is the
// process's allocator (loaded with LD_PRELOAD by the benchmarks' allocation pass). Nothing is linked
// at build time: `mallctl` is looked up in the running process, so a process on the system allocator
// (every timing pass) has no jemalloc in it at all, and installing jemalloc needs no rebuild.
//
// The hook layout below is jemalloc 5.x's `hooks_t` (include/jemalloc/internal/hook.h), which its
// public header does not declare. Counts live in C thread-locals.
#define _GNU_SOURCE
#include "CAllocationCounter.h"

#include <stdatomic.h>
#include <stddef.h>

#if defined(__linux__) || defined(__APPLE__)
#include <dlfcn.h>
#define FRONTMAIL_CAN_LOOK_UP 1
#endif

typedef void (*frontmail_hook_alloc)(void *extra, int type, void *result, uintptr_t result_raw, uintptr_t args_raw[3]);
typedef void (*frontmail_hook_dalloc)(void *extra, int type, void *address, uintptr_t args_raw[3]);
typedef void (*frontmail_hook_expand)(void *extra, int type, void *address, size_t old_usize, size_t new_usize,
                                      uintptr_t result_raw, uintptr_t args_raw[4]);

typedef struct {
    frontmail_hook_alloc alloc_hook;
    frontmail_hook_dalloc dalloc_hook;
    frontmail_hook_expand expand_hook;
    void *extra;
} frontmail_hooks_t;

typedef int (*frontmail_mallctl_fn)(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen);

static _Thread_local uint64_t thread_allocations = 0;
static _Atomic uint64_t process_allocations = 0;
static frontmail_mallctl_fn mallctl_fn = NULL;
static int installed = 0;

static void on_alloc(void *extra, int type, void *result, uintptr_t result_raw, uintptr_t args_raw[3]) {
    (void)extra; (void)type; (void)result_raw; (void)args_raw;
    if (result != NULL) {
        thread_allocations += 1;
        atomic_fetch_add_explicit(&process_allocations, 1, memory_order_relaxed);
    }
}

int frontmail_alloc_counter_start(void) {
    if (installed) return 1;
#if defined(FRONTMAIL_CAN_LOOK_UP)
    mallctl_fn = (frontmail_mallctl_fn)dlsym(RTLD_DEFAULT, "mallctl");
#endif
    if (mallctl_fn == NULL) return 0;
    static frontmail_hooks_t hooks = {on_alloc, NULL, NULL, NULL};
    void *handle = NULL;
    size_t size = sizeof(handle);
    if (mallctl_fn("experimental.hooks.install", &handle, &size, &hooks, sizeof(hooks)) != 0) return 0;
    installed = 1;
    return 1;
}

uint64_t frontmail_alloc_counter_thread_allocations(void) { return thread_allocations; }

uint64_t frontmail_alloc_counter_process_allocations(void) {
    return atomic_load_explicit(&process_allocations, memory_order_relaxed);
}

uint64_t frontmail_alloc_counter_thread_bytes(void) {
    if (!installed) return 0;
    uint64_t *allocated = NULL;
    size_t size = sizeof(allocated);
    if (mallctl_fn("thread.allocatedp", &allocated, &size, NULL, 0) != 0 || allocated == NULL) return 0;
    return *allocated;
}
