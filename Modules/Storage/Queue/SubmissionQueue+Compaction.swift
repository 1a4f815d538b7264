// Compaction of the submission queue: carrying the few live records of old segments forward and
// removing those segments, while changes wait.

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging

extension SubmissionQueue {
    /// What one compaction did.
    public struct CompactionReport: Sendable, Hashable {
        public var removedSegments: [String]
        public var carriedRecords: Int
    }

    /// Removes sealed segments, oldest first, while at most `carryShare` of each one's records are
    /// still live (with encryption, also every segment in the clear or under an old key); their
    /// live submissions are first written again (same ordinal, key and state) into the active
    /// segment, under the current key. Changes wait while it runs.
    public func compact() async throws -> CompactionReport {
        await gate.enterExclusive()
        defer { gate.leaveExclusive() }
        let sealed = try journal.segments().filter { !$0.isActive }
        guard !sealed.isEmpty else { return CompactionReport(removedSegments: [], carriedRecords: 0) }
        var live: [UInt32: [Int]] = [:]
        for position in index.head..<index.slots.count where index.slots[position].state != .removed {
            live[index.slots[position].segment, default: []].append(position)
        }
        var doomed: [String] = []
        var carry: [Int] = []
        for segment in sealed {
            let id = index.segmentIndex[segment.name]
            let holders = id.flatMap { live[$0] } ?? []
            let records = id.map { index.segmentRecords[Int($0)] } ?? 0
            // A segment in the clear or under an old key is rewritten under the current key,
            // however many of its records are live (a migration, a key rotation).
            let rewrite = journal.options.encryption != nil && segment.protection.map { $0 != .currentKey } == true
            if !rewrite && !holders.isEmpty && Double(holders.count) > Double(records) * options.carryShare { break }
            doomed.append(segment.name)
            carry += holders
        }
        guard !doomed.isEmpty else { return CompactionReport(removedSegments: [], carriedRecords: 0) }
        for position in carry.sorted() {
            try await carryForward(position, kind: .carriedCopy)
        }
        try journal.removeSegments(doomed)
        logger.info("queue compacted", metadata: ["removed": "\(doomed.count)", "carried": "\(carry.count)"])
        return CompactionReport(removedSegments: doomed, carriedRecords: carry.count)
    }
}
