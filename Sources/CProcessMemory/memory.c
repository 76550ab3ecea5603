#include "CProcessMemory.h"

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#include <malloc.h>

int64_t cpm_heap_in_use_bytes(void) {
    struct mallinfo2 info = mallinfo2();
    return (int64_t)(info.uordblks + info.hblkhd);
}

int cpm_limit_arenas(int32_t arenas) {
    if (arenas < 1) return 0;
    return mallopt(M_ARENA_MAX, arenas) == 1;
}

int cpm_release_free_memory(void) { return malloc_trim(0); }

#else

int64_t cpm_heap_in_use_bytes(void) { return -1; }

int cpm_limit_arenas(int32_t arenas) {
    (void)arenas;
    return 0;
}

int cpm_release_free_memory(void) { return 0; }

#endif
