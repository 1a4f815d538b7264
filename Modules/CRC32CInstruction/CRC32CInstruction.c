// The CRC32C instruction, eight bytes a step, and the check for it. The instruction computes the
// reflected Castagnoli CRC without the final inversion, so the inversions are done here, as the
// Swift code does them. Each architecture names its instruction and how to detect it; the loop
// over the bytes is one.

#include "CRC32CInstruction.h"

#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>

#define CRC32C_TARGET __attribute__((target("sse4.2")))
#define CRC32C_WORD(crc, word) ((uint32_t)__builtin_ia32_crc32di((crc), (word)))
#define CRC32C_BYTE(crc, byte) __builtin_ia32_crc32qi((crc), (byte))

int crc32c_instruction_available(void) {
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    return (ecx & bit_SSE4_2) != 0;
}

#elif defined(__aarch64__) && defined(__linux__)
#include <arm_acle.h>
#include <asm/hwcap.h>
#include <sys/auxv.h>

#define CRC32C_TARGET __attribute__((target("crc")))
#define CRC32C_WORD(crc, word) __crc32cd((crc), (word))
#define CRC32C_BYTE(crc, byte) __crc32cb((crc), (byte))

int crc32c_instruction_available(void) {
    return (getauxval(AT_HWCAP) & HWCAP_CRC32) != 0;
}

#endif

#if defined(CRC32C_TARGET)

CRC32C_TARGET
uint32_t crc32c_instruction_update(uint32_t crc, const void *bytes, size_t count) {
    const unsigned char *p = bytes;
    uint32_t c = ~crc;
    while (count >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        c = CRC32C_WORD(c, word);
        p += 8;
        count -= 8;
    }
    while (count > 0) {
        c = CRC32C_BYTE(c, *p);
        p += 1;
        count -= 1;
    }
    return ~c;
}

#else

int crc32c_instruction_available(void) { return 0; }

uint32_t crc32c_instruction_update(uint32_t crc, const void *bytes, size_t count) {
    // No instruction to use: a caller that did not check `crc32c_instruction_available` stops here.
    (void)crc;
    (void)bytes;
    (void)count;
    __builtin_trap();
}

#endif
