// The records recovered on open, handed over once, so that what they hold (decrypted answers
// among it) does not stay in memory after its owner replayed it.

import SystemMemory

extension Journal {
    /// The records recovered on open, handed over once: the journal keeps none of them after this
    /// call (``recovered`` is empty), and gives the freed heap back to the system once the caller
    /// lets go of them (``releaseFreedMemory()``).
    public func takeRecovered() -> [JournalRecord] {
        recoveredRecords.withLock { records in
            defer { records = [] }
            return records
        }
    }

    /// Gives freed heap memory back to the system (glibc's `malloc_trim`), e.g. after the records
    /// ``takeRecovered()`` handed over were replayed and let go. Returns whether some was released.
    @discardableResult
    public static func releaseFreedMemory() -> Bool {
        system_memory_trim() == 1
    }
}
