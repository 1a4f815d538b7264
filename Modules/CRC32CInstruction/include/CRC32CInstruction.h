// CRC32CInstruction: the processor's own CRC32C instruction (SSE 4.2 `crc32` on x86-64, the ARMv8
// CRC extension's `crc32c` on arm64), for the journal's frame checks
// (Modules/Storage/Journal/CRC32C.swift). Swift has no portable way to reach these instructions;
// the Swift slicing-by-8 code stays the fallback on a processor without them.
#ifndef SURVEYD_CRC32C_INSTRUCTION_H
#define SURVEYD_CRC32C_INSTRUCTION_H

#include <stddef.h>
#include <stdint.h>

/// 1 when this processor has the instruction `crc32c_instruction_update` uses, 0 otherwise.
/// `crc32c_instruction_update` must not be called when this returns 0.
int crc32c_instruction_available(void);

/// Continues a CRC32C (Castagnoli, reflected) over `count` bytes at `bytes`: `crc` is the CRC of
/// what came before (0 to start), the result the CRC with these bytes added.
uint32_t crc32c_instruction_update(uint32_t crc, const void *bytes, size_t count);

#endif
