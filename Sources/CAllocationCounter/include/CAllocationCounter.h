#ifndef C_ALLOCATION_COUNTER_H
#define C_ALLOCATION_COUNTER_H

#include <stdint.h>

/// 1 when jemalloc is the process's allocator (preloaded) and its allocation hook is installed, 0
/// otherwise (counts are n/a).
int frontmail_alloc_counter_start(void);

/// Allocations made by the calling thread since the hook was installed (exact: every malloc,
/// calloc, realloc that allocates, posix_memalign…). 0 when unavailable.
uint64_t frontmail_alloc_counter_thread_allocations(void);

/// Allocations made by every thread since the hook was installed.
uint64_t frontmail_alloc_counter_process_allocations(void);

/// Bytes allocated by the calling thread (jemalloc's thread.allocatedp). 0 when unavailable.
uint64_t frontmail_alloc_counter_thread_bytes(void);

#endif
