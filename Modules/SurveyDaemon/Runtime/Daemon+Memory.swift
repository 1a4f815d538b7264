import Storage

extension Daemon {
    /// The process's allocator set up as the daemon needs it: one heap for every thread, so that
    /// the records replayed at start (decoded on every core) are given back to the system once let
    /// go (`Journal.useOneHeap()`). Call it first thing, before threads allocate.
    public static func prepareMemory() {
        Journal.useOneHeap()
    }
}
