import Foundation

/// A typed layer over `Journal`: the daemon journals its own `Codable` events (session started,
/// answer accepted, …) and rebuilds its state on start by replaying them. Events are stored as
/// JSON payloads under record type `EventJournal.recordType`.
public struct EventJournal<Event: Codable & Sendable>: Sendable {
    /// The record type used for events.
    public static var recordType: UInt8 { 1 }
    /// The underlying journal.
    public let journal: Journal

    public init(journal: Journal) { self.journal = journal }

    /// Appends `event` durably and returns its sequence number.
    public func append(_ event: Event) async throws -> UInt64 {
        let bytes = try JSONEncoder().encode(event)
        return try await journal.append(type: Self.recordType, payload: [UInt8](bytes))
    }

    /// The events recovered when the journal was opened, in order. Throws `StorageError` with code
    /// `.undecodableEvent` naming the sequence number when a record does not decode.
    public func replay() throws -> [(sequence: UInt64, event: Event)] {
        try journal.recovered.filter { $0.type == Self.recordType }.map { record in
            do {
                return (record.sequence, try JSONDecoder().decode(Event.self, from: Data(record.payload)))
            } catch {
                throw StorageError(code: .undecodableEvent, message: "Journal record \(record.sequence) in \(journal.directory) does not decode as \(Event.self); the event type changed incompatibly.", cause: error)
            }
        }
    }
}
