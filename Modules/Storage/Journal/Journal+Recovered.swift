// The records recovered on open, handed over once, so that what they hold (decrypted answers
// among it) does not stay in memory after its owner replayed it.

import Synchronization
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

    /// Has every thread allocate from one heap (glibc's main arena), so that what any thread
    /// allocated and freed (the records an opening decodes on every core) can be given back by
    /// ``releaseFreedMemory()``: the top of another thread's arena never is. Call it at the start of
    /// the process, before threads allocate. Measured: a sessions journal of 1,000,000 events
    /// replayed and let go leaves 2 MB above an empty process with it, 33 to 47 MB without
    /// (doc/benchmarks.md).
    public static func useOneHeap() {
        _ = system_memory_single_arena()
    }
}
