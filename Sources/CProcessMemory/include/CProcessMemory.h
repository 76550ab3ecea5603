#ifndef C_PROCESS_MEMORY_H
#define C_PROCESS_MEMORY_H

#include <stdint.h>

/// Bytes the process's malloc holds for live allocations (glibc's mallinfo2: every arena's in-use
/// chunks plus mmapped blocks), or -1 where that is not available. Unlike the resident set, it falls
/// when memory is freed and rises when memory is held, whatever pages are already resident.
int64_t cpm_heap_in_use_bytes(void);

#endif
