#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension SubmissionQueue {
    /// One pending or dead submission as the operator looks at it: what the index knows, its dead
    /// letter when it is one, and from its own record on disk its session and, when asked, its body.
    public struct Entry: Sendable, Hashable {
        public var submission: QueuedSubmission
        /// Its session, from its stored record.
        public var session: UUID?
        public var deadLetter: DeadSubmission?
        /// The upload body, when asked for.
        public var body: [UInt8]?
        /// The headers it is sent with beside the contract's own, from its stored record.
        public var headers: [String: String] = [:]
    }

    /// The pending or dead submission with this id, reading its one record and no other; nil
    /// when there is none.
    public func entry(_ id: SubmissionID, withBody: Bool) throws -> Entry? {
        guard let position = index.position(of: id.ordinal) else { return nil }
        let (record, decoded) = try storedRecord(index.slots[position])
        return Entry(
            submission: index.submission(position), session: decoded.session, deadLetter: deadLetter(id),
            body: withBody ? Array(record.payload[decoded.bodyStart...]) : nil, headers: SubmissionMetadata.headers(fromText: decoded.headers))
    }

    /// The upload of several submissions as stored, their headers with their bodies, in the
    /// order of `ids` (a failure is that submission's alone): what a sender sends.
    public func uploads(of ids: [SubmissionID]) -> [Result<(headers: [String: String], body: ArraySlice<UInt8>), any Error>] {
        ids.map { id in
            Result {
                guard let position = index.position(of: id.ordinal) else { throw unknown(id.ordinal) }
                let (record, decoded) = try storedRecord(index.slots[position])
                return (SubmissionMetadata.headers(fromText: decoded.headers), record.payload[decoded.bodyStart...])
            }
        }
    }

}
