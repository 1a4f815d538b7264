// SystemMemory: the allocator calls Swift's Glibc module does not export.
#ifndef SURVEYD_SYSTEM_MEMORY_H
#define SURVEYD_SYSTEM_MEMORY_H

// <stdlib.h> first: it defines __GLIBC__ (through <features.h>) where the C library is glibc;
// tested before any header, __GLIBC__ is never defined and the trim below would do nothing.
#include <stdlib.h>
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

/// Makes every thread allocate from glibc's main arena (M_ARENA_MAX 1), so that freed memory of
/// any thread can be given back by system_memory_trim (the top of another thread's arena is not);
/// returns 1 on success, 0 where the C library has no such setting.
static inline int system_memory_single_arena(void) {
#if defined(__GLIBC__)
    return mallopt(M_ARENA_MAX, 1);
#else
    return 0;
#endif
}

#endif
