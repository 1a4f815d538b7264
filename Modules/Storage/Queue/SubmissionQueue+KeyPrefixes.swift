// The first four bytes of the queued keys, in a table of their own: the queue's quick answer to
// "is this key queued?", which most new keys get without a scan of the slots.

extension SubmissionQueue {
    /// A set of 32-bit key prefixes: open addressing with linear probing in a power-of-two table
    /// at most half full, the slot chosen by Fibonacci hashing (the prefixes of random keys need no
    /// more). Building it for a million slots on open costs a few milliseconds, where a `Set`
    /// hashes every prefix with SipHash. Prefixes only join it (`Index.tidy` rebuilds it).
    struct KeyPrefixes {
        /// 0 marks an empty place; the prefix 0 itself is `holdsZero`.
        private var table: [UInt32]
        private var shift: UInt32
        private var count = 0
        private var holdsZero = false

        init(minimumCapacity: Int = 0) {
            var size = 64
            while size < minimumCapacity * 2 { size *= 2 }
            table = [UInt32](repeating: 0, count: size)
            shift = UInt32(32 - size.trailingZeroBitCount)
        }

        private func place(_ prefix: UInt32) -> Int { Int((prefix &* 0x9E37_79B1) >> shift) }

        func contains(_ prefix: UInt32) -> Bool {
            if prefix == 0 { return holdsZero }
            let mask = table.count - 1
            var at = place(prefix)
            while true {
                let found = table[at]
                if found == prefix { return true }
                if found == 0 { return false }
                at = (at + 1) & mask
            }
        }

        mutating func insert(_ prefix: UInt32) {
            if prefix == 0 { holdsZero = true; return }
            if (count + 1) * 2 > table.count { grow() }
            let mask = table.count - 1
            var at = place(prefix)
            while true {
                let found = table[at]
                if found == prefix { return }
                if found == 0 { break }
                at = (at + 1) & mask
            }
            table[at] = prefix
            count += 1
        }

        private mutating func grow() {
            var larger = KeyPrefixes(minimumCapacity: table.count)
            larger.holdsZero = holdsZero
            for prefix in table where prefix != 0 { larger.insert(prefix) }
            self = larger
        }
    }
}
