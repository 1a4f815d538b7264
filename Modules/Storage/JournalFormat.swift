// The journal's value types, settings and record frame (doc/journal-format.md).

#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// One record read back from the journal.
public struct JournalRecord: Sendable, Equatable {
    public var sequence: UInt64
    public var type: UInt8
    public var payload: [UInt8]
}

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

/// The file system calls the journal makes while it runs (writing, syncing, cutting back a failed
/// write, reopening, probing, creating segments and directories): the seam through which tests
/// inject failures (ENOSPC on write, EIO on fsync, short writes) and clear them again. Each
/// returns what the system call returns and leaves the error in `errno`.
public struct JournalFileOperations: Sendable {
    public var write: @Sendable (Int32, UnsafeRawBufferPointer) -> Int
    public var fdatasync: @Sendable (Int32) -> Int32
    public var fsync: @Sendable (Int32) -> Int32
    public var ftruncate: @Sendable (Int32, Int) -> Int32
    /// `open(path, flags, mode)`.
    public var open: @Sendable (String, Int32, mode_t) -> Int32

    public init(
        write: @escaping @Sendable (Int32, UnsafeRawBufferPointer) -> Int = { fd, buf in Glibc.write(fd, buf.baseAddress, buf.count) },
        fdatasync: @escaping @Sendable (Int32) -> Int32 = { Glibc.fdatasync($0) },
        fsync: @escaping @Sendable (Int32) -> Int32 = { Glibc.fsync($0) },
        ftruncate: @escaping @Sendable (Int32, Int) -> Int32 = { Glibc.ftruncate($0, off_t($1)) },
        open: @escaping @Sendable (String, Int32, mode_t) -> Int32 = { Glibc.open($0, $1, $2) }
    ) {
        self.write = write
        self.fdatasync = fdatasync
        self.fsync = fsync
        self.ftruncate = ftruncate
        self.open = open
    }
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
    /// again once segments are removed. Appends made with `mayExceedCap` (the records that let
    /// space be reclaimed: markers that settle records, a compaction's carried copies) go through.
    /// With a cap, segments are started at a quarter of it when that is below `segmentSize`, so
    /// that settled segments can be removed (the active one never is).
    public var diskCap: Int?
    /// In strict mode, the longest a record appended with `deferSync` waits for its fdatasync
    /// (any other append's fdatasync covers it sooner). Relaxed mode uses its own interval.
    public var deferredSyncInterval: Duration = .milliseconds(200)
    /// After a failed write or sync, how often the writer tries on its own whether writes
    /// succeed again (each append tries too); until one does, appends fail.
    public var retryInterval: Duration = .seconds(1)
    public var fileOperations = JournalFileOperations()
    public init() {}
}

/// Frame layout constants.
enum Frame {
    static let magic: UInt32 = 0x3153_5653  // "SVS1" little-endian
    static let headerSize = 21  // magic 4, length 4, crc 4, type 1, sequence 8

    static func encode(type: UInt8, sequence: UInt64, payload: [UInt8], into out: inout [UInt8]) {
        func put32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
        var body: [UInt8] = [type]
        withUnsafeBytes(of: sequence.littleEndian) { body.append(contentsOf: $0) }
        var crc = body.withUnsafeBytes { CRC32C.update(0, $0) }
        crc = payload.withUnsafeBytes { CRC32C.update(crc, $0) }
        put32(magic)
        put32(UInt32(payload.count))
        put32(crc)
        out.append(contentsOf: body)
        out.append(contentsOf: payload)
    }

    /// Parses one frame at `offset`; nil when it is incomplete or invalid. Never allocates more than the file holds.
    static func decode(_ bytes: UnsafeRawBufferPointer, at offset: Int, maxPayload: Int) -> (JournalRecord, Int)? {
        guard offset + headerSize <= bytes.count else { return nil }
        func u32(_ o: Int) -> UInt32 { UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + o, as: UInt32.self)) }
        guard u32(0) == magic else { return nil }
        let length = Int(u32(4))
        guard length <= maxPayload, offset + headerSize + length <= bytes.count else { return nil }
        let body = UnsafeRawBufferPointer(rebasing: bytes[(offset + 12)..<(offset + headerSize + length)])
        guard CRC32C.update(0, body) == u32(8) else { return nil }
        let type = bytes[offset + 12]
        let seq = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 13, as: UInt64.self))
        let payload = Array(bytes[(offset + headerSize)..<(offset + headerSize + length)])
        return (JournalRecord(sequence: seq, type: type, payload: payload), headerSize + length)
    }
}
