import CRC32CInstruction

/// CRC32C (Castagnoli, reflected polynomial 0x82F63B78), written for the journal frame.
///
/// `update` uses the processor's CRC32C instruction where it has one (SSE 4.2, the ARMv8 CRC
/// extension; `CRC32CInstruction`), several times faster again than `softwareUpdate`'s
/// slicing-by-8 (eight 256-entry tables, eight bytes a step), which it uses elsewhere.
/// `bytewiseUpdate` is the plain one-table form, kept as the reference the tests compare both with.
public enum CRC32C {
    /// Whether `update` uses the processor's instruction.
    public static let usesInstruction = crc32c_instruction_available() != 0

    /// `tables[k][i]`: the CRC of byte `i` followed by `k` zero bytes.
    static let tables: [[UInt32]] = {
        var first = [UInt32](repeating: 0, count: 256)
        for i in 0..<256 {
            var c = UInt32(i)
            for _ in 0..<8 { c = (c & 1) != 0 ? (c >> 1) ^ 0x82F6_3B78 : c >> 1 }
            first[i] = c
        }
        var all = [first]
        for k in 1..<8 {
            all.append((0..<256).map { i in (all[k - 1][i] >> 8) ^ first[Int(all[k - 1][i] & 0xFF)] })
        }
        return all
    }()

    /// The eight tables one after the other, for a single bounds-free buffer in the hot loop.
    static let flat: [UInt32] = tables.flatMap { $0 }

    /// Continues a CRC32C over `bytes`; start with `crc: 0`.
    public static func update(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        guard usesInstruction else { return softwareUpdate(crc, bytes) }
        guard let base = bytes.baseAddress else { return crc }
        return crc32c_instruction_update(crc, base, bytes.count)
    }

    /// The same CRC, slicing-by-8 in Swift.
    public static func softwareUpdate(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var c = ~crc
        let count = bytes.count
        guard let base = bytes.baseAddress else { return crc }
        flat.withUnsafeBufferPointer { t in
            var i = 0
            while i + 8 <= count {
                let lo = c ^ UInt32(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt32.self))
                let hi = UInt32(littleEndian: base.loadUnaligned(fromByteOffset: i + 4, as: UInt32.self))
                c = t[7 * 256 + Int(lo & 0xFF)] ^ t[6 * 256 + Int((lo >> 8) & 0xFF)]
                    ^ t[5 * 256 + Int((lo >> 16) & 0xFF)] ^ t[4 * 256 + Int(lo >> 24)]
                    ^ t[3 * 256 + Int(hi & 0xFF)] ^ t[2 * 256 + Int((hi >> 8) & 0xFF)]
                    ^ t[1 * 256 + Int((hi >> 16) & 0xFF)] ^ t[Int(hi >> 24)]
                i += 8
            }
            while i < count {
                c = t[Int((c ^ UInt32(base.load(fromByteOffset: i, as: UInt8.self))) & 0xFF)] ^ (c >> 8)
                i += 1
            }
        }
        return ~c
    }

    /// The same CRC, one table lookup a byte.
    public static func bytewiseUpdate(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var c = ~crc
        let table = tables[0]
        for b in bytes { c = table[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return ~c
    }

    /// CRC32C of `bytes`.
    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        let a = Array(bytes)
        return a.withUnsafeBytes { update(0, $0) }
    }
}
