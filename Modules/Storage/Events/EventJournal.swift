#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A typed layer over `Journal`: the daemon journals its own `Codable` events (session started,
/// answer accepted, …) and rebuilds its state on start by replaying them. Events are stored as
/// JSON payloads under record type `EventJournal.recordType`.
///
/// The journal is kept small by snapshots: `compact(keeping:)` writes the events that still
/// matter as one record (type `snapshotType`) at the start of a new segment and removes every
/// older segment. Replay starts at the newest snapshot, so a crash before the old segments are
/// gone changes nothing.
public struct EventJournal<Event: Codable & Sendable>: Sendable {
    /// The record type used for events.
    public static var recordType: UInt8 { 1 }
    /// The record type of a snapshot: a JSON array of events that replaces everything before it.
    public static var snapshotType: UInt8 { 2 }
    /// The underlying journal.
    public let journal: Journal

    public init(journal: Journal) { self.journal = journal }

    /// Appends `event` durably and returns its sequence number.
    public func append(_ event: Event) async throws -> UInt64 {
        try await append(encoded: [UInt8](try JSONEncoder().encode(event)))
    }

    /// Appends an event its owner encoded itself, durably, and returns its sequence number:
    /// `json` must be what `JSONEncoder` gives for an `Event` (`replay()` decodes it with
    /// `JSONDecoder`). The daemon's session journal writes its events this way, at a fraction of
    /// the encoder's CPU (`StoredSessionJournal.record`).
    public func append(encoded json: [UInt8]) async throws -> UInt64 {
        try await journal.append(type: Self.recordType, payload: json)
    }

    /// The events recovered when the journal was opened, in order: those of the newest snapshot
    /// (each with the snapshot's sequence number), then every event appended after it. Throws
    /// `StorageError` with code `.undecodableEvent` naming the sequence number when a record
    /// does not decode.
    ///
    /// The journal's recovered records are taken (``Journal/takeRecovered()``): once replayed they
    /// are let go and their memory given back, so a second call replays nothing.
    public func replay() throws -> [(sequence: UInt64, event: Event)] {
        defer { Journal.releaseFreedMemory() }
        return try replay(journal.takeRecovered())
    }

    private func replay(_ records: [JournalRecord]) throws -> [(sequence: UInt64, event: Event)] {
        let snapshot = records.lastIndex { $0.type == Self.snapshotType }
        var events: [(sequence: UInt64, event: Event)] = []
        if let snapshot {
            let record = records[snapshot]
            events = try decode([Event].self, record).map { (record.sequence, $0) }
        }
        for record in records[(snapshot.map { $0 + 1 } ?? 0)...] where record.type == Self.recordType {
            events.append((record.sequence, try decode(Event.self, record)))
        }
        return events
    }

    /// Replaces everything journaled so far with `live`: writes them as one durable snapshot
    /// record at the start of a new segment, then removes every older segment (through the
    /// journal's removal checkpoint). Returns how many segments were removed.
    ///
    /// The caller must not append while this runs: an event appended meanwhile could land before
    /// the snapshot and be replaced by it.
    @discardableResult
    public func compact(keeping live: [Event]) async throws -> Int {
        let bytes = try JSONEncoder().encode(live)
        let location = try await journal.appendLocated(type: Self.snapshotType, payload: [UInt8](bytes), kind: .snapshot)
        let older = try journal.segments().map(\.name).filter { $0 < location.segment }
        try journal.removeSegments(older)
        return older.count
    }

    /// Finishes a compaction that a crash interrupted after its snapshot was durable but before
    /// the older segments were removed: removes every segment older than the one the newest
    /// recovered snapshot starts (a snapshot always starts its segment). Replay already ignores
    /// those segments; removing them takes what they hold, erased sessions' answers included, off
    /// the disk. Returns how many segments were removed.
    @discardableResult
    public func removeSegmentsBeforeSnapshot() throws -> Int {
        guard let snapshot = journal.recovered.last(where: { $0.type == Self.snapshotType }) else { return 0 }
        let first = Journal.segmentName(snapshot.sequence)
        let older = try journal.segments().map(\.name).filter { $0 < first }
        try journal.removeSegments(older)
        return older.count
    }

    private func decode<T: Decodable>(_ type: T.Type, _ record: JournalRecord) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(record.payload))
        } catch {
            throw StorageError(code: .undecodableEvent, message: "Journal record \(record.sequence) in \(journal.directory) does not decode as \(T.self); the event type changed incompatibly.", cause: error)
        }
    }
}
