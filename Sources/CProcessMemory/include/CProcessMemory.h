#ifndef C_PROCESS_MEMORY_H
#define C_PROCESS_MEMORY_H

#include <stdint.h>

/// Bytes the process's malloc holds for live allocations (glibc's mallinfo2: every arena's in-use
/// chunks plus mmapped blocks), or -1 where that is not available. Unlike the resident set, it falls
/// when memory is freed and rises when memory is held, whatever pages are already resident.
int64_t cpm_heap_in_use_bytes(void);

/// Caps the number of malloc arenas glibc creates for the threads of this process (mallopt
/// M_ARENA_MAX); 1 when set, 0 where that is not available or `arenas` is below 1. Each arena keeps
/// the memory freed in it, so a process that starts a thread per unit of work collects up to eight
/// arenas per core, each holding its own high-water mark.
int cpm_limit_arenas(int32_t arenas);

/// Returns the free memory malloc holds to the system (glibc's malloc_trim(0): the top of every
/// heap, and the free pages inside them); 1 when memory was released, 0 otherwise or where that is
/// not available.
int cpm_release_free_memory(void);

#endif
