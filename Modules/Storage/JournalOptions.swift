// The journal's settings and the values it hands out: where a record lies, the segments, the
// problems recovery met, and the kinds of append (doc/journal-format.md).

/// Where a record lies: its sequence number, the segment file and the byte offset of its frame.
/// `Journal.read(at:)` reads it back, so an owner can keep locations instead of payloads in memory.
public struct JournalLocation: Sendable, Hashable {
    public var sequence: UInt64
    public var segment: String
    public var offset: Int

    public init(sequence: UInt64, segment: String, offset: Int) {
        self.sequence = sequence
        self.segment = segment
        self.offset = offset
    }
}

/// A segment file of the journal.
public struct JournalSegment: Sendable, Hashable {
    public var name: String
    public var bytes: Int
    /// True for the segment appends go to; it is never removed.
    public var isActive: Bool
    /// How its records are stored: in the clear, under the current key or under an old one; nil
    /// for a segment that holds no record yet.
    public var protection: SegmentProtection?
}

/// A problem met during recovery, for the daemon status to show.
public struct RecoveryProblem: Sendable, Equatable {
    public enum Kind: String, Sendable { case tornTail, corruptSegment }
    public var kind: Kind
    public var segment: String
    public var offset: Int
    /// Where the cut bytes or the corrupt segment copy were kept.
    public var keptAt: String
}

/// When an append is acknowledged.
public enum JournalDurability: Sendable, Hashable {
    /// An append returns only after the `fdatasync` covering it returned (the default).
    case strict
    /// An append returns once its bytes are written to the kernel; the writer issues `fdatasync`
    /// at most `syncInterval` later. A crash of the process loses nothing, but a power loss or a
    /// kernel crash can lose what was acknowledged in the last `syncInterval`.
    case relaxed(syncInterval: Duration)
}

/// What an appended record is for. The kind decides whether the record counts against the disk
/// cap, when its append is acknowledged, and whether it starts a new segment; there is one kind
/// per use, so that contradictory combinations (a record both deferred and always durable) cannot
/// be asked for.
public enum JournalAppendKind: Sendable, Hashable {
    /// New data (the default): refused with `.journalFull` when it would take the journal over
    /// `JournalOptions.diskCap`; acknowledged as `JournalOptions.durability` says.
    case record
    /// A record that settles earlier ones (a queue's `dead` or `requeued` marker): written even
    /// over the disk cap, so that a full journal can still drain; acknowledged as
    /// `JournalOptions.durability` says.
    case marker
    /// A marker whose loss in a power cut only repeats work that is safe to repeat (a delivery
    /// marker: the upload is sent again with its idempotency key): written even over the disk cap,
    /// and acknowledged once written, as relaxed mode does, with its fdatasync at most
    /// `JournalOptions.deferredSyncInterval` later (sooner with the next append that waits for
    /// one). A crash of the process alone loses nothing written.
    case deferredMarker
    /// A live record carried forward by a compaction, which then deletes the old one on the
    /// strength of it: written even over the disk cap, and acknowledged only after its fdatasync,
    /// in either durability mode.
    case carriedCopy
    /// A record that replaces everything before it (an `EventJournal` snapshot): written at the
    /// start of a new segment (unless the active one is still empty), so that every older segment
    /// can be removed after it; written even over the disk cap; acknowledged only after its
    /// fdatasync, in either durability mode.
    case snapshot

    /// Whether the record is written even when it takes the journal over its disk cap.
    var mayExceedCap: Bool { self != .record }
    /// Whether the record goes to the start of a new segment.
    var startsSegment: Bool { self == .snapshot }
    /// Whether the append waits for its fdatasync even in relaxed mode.
    var alwaysDurable: Bool { self == .carriedCopy || self == .snapshot }
    /// Whether the append is acknowledged once written, even in strict mode.
    var defersSync: Bool { self == .deferredMarker }
}

/// Journal settings.
public struct JournalOptions: Sendable {
    /// A segment is closed and a new one started once it reaches this size.
    public var segmentSize: Int = 64 << 20
    /// Largest payload; a frame claiming more is treated as corruption.
    public var maxPayloadSize: Int = 16 << 20
    /// When appends are acknowledged; `.strict` unless a caller opts out.
    public var durability: JournalDurability = .strict
    /// The most bytes the segment files may hold together; nil for no cap. An append that would
    /// go over it fails with `StorageError` `.journalFull` and writes nothing; appends succeed
    /// again once segments are removed. Appends of every kind but `.record` (the records that let
    /// space be reclaimed: markers that settle records, a compaction's carried copies, snapshots)
    /// go through.
    /// With a cap, segments are started at a quarter of it when that is below `segmentSize`, so
    /// that settled segments can be removed (the active one never is).
    public var diskCap: Int?
    /// In strict mode, the longest a `.deferredMarker` record waits for its fdatasync
    /// (any other append's fdatasync covers it sooner). Relaxed mode uses its own interval.
    public var deferredSyncInterval: Duration = .milliseconds(200)
    /// After a failed write or sync, how often the writer tries on its own whether writes
    /// succeed again (each append tries too); until one does, appends fail.
    public var retryInterval: Duration = .seconds(1)
    /// The keys records are encrypted with (doc/journal-format.md, "Encryption"); nil writes
    /// them in the clear. With keys, segments in the clear and segments under `old` keys stay
    /// readable, and new records go to new segments under the current key.
    public var encryption: JournalKeys?
    /// The system calls the journal makes; tests replace some to inject failures.
    public var fileOperations = JournalFileOperations()
    /// Told of every write and every successful fdatasync, on the writer thread; nil for none.
    public var observer: (any JournalObserver)?
    public init() {}
}
