/// What a journal tells whoever watches it (the daemon's metrics): the records each write
/// appended and how long each fdatasync took. The journal's writer thread calls it, once per
/// write and once per sync, so an observer must be cheap and must not block.
public protocol JournalObserver: Sendable {
    /// `records` records of `bytes` bytes in all (with their frames) were written to a segment.
    func appended(records: Int, bytes: Int)
    /// An fdatasync of the active segment returned successfully after `duration`.
    func synced(after duration: Duration)
}
