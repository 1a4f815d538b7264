// SystemMemory: the allocator calls Swift's Glibc module does not export.
#ifndef SURVEYD_SYSTEM_MEMORY_H
#define SURVEYD_SYSTEM_MEMORY_H

#if defined(__GLIBC__)
#include <malloc.h>
#endif

/// Gives freed heap memory back to the system (glibc's malloc_trim); returns 1 when some was
/// released, 0 otherwise or where the C library has no such call.
static inline int system_memory_trim(void) {
#if defined(__GLIBC__)
    return malloc_trim(0);
#else
    return 0;
#endif
}

#endif
