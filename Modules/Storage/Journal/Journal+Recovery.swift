// Recovery on open: every segment is scanned (Journal+Reader.swift); a torn tail is kept aside
// and cut off, a preallocated segment's zero tail is cut off, a segment with mid-segment
// corruption is kept aside as a copy, and the files of the directory are made owner-only again.

#if canImport(Glibc)
import Glibc
#endif

extension Journal {
    /// What opening found in the segments.
    struct Recovered {
        /// Every record in sequence order (empty when the owner visits them instead).
        var records: [JournalRecord] = []
        var problems: [RecoveryProblem] = []
        var nextSequence: UInt64 = 1
        /// Bytes the segments hold after recovery.
        var bytes = 0
        /// The last segment, where appends continue; nil when there is none.
        var lastSegment: String?
        /// The offset and sequence number of the last record of `lastSegment`.
        var lastRecord: (offset: Int, sequence: UInt64)?
        /// Each segment's cipher and protection.
        var infos: [String: SegmentInfo] = [:]
    }

    /// Recovers every segment of `directory`, oldest first, handing each record to `visit` with
    /// its location (or keeping them all when there is no `visit`).
    /// `kinds` is what `inspect` found at the start of each segment; with `keys`, encrypted
    /// segments are opened with them and a segment that holds no header yet is left as it is.
    static func recoverSegments(directory: String, io: FileIO, maxPayload: Int, kinds: [String: SegmentKind], keys: JournalKeys?, visit: ((JournalRecord, JournalLocation) throws -> Void)?) throws -> Recovered {
        var records: [JournalRecord] = []
        var problems: [RecoveryProblem] = []
        var highest: UInt64 = 0
        var last: (offset: Int, sequence: UInt64)?
        var bytes = 0
        var infos: [String: SegmentInfo] = [:]
        let names = try segmentNames(directory, io: io)
        let buffer = SegmentBuffer()
        for name in names {
            last = nil
            let kind = kinds[name]
            if keys != nil, kind == .empty {
                // Nothing, or a header cut short: no record; an opening with a key replaces it.
                bytes += io.size(at: directory + "/" + name) ?? 0
                continue
            }
            let cipher = Journal.cipher(for: kind, segment: name, keys: keys)
            infos[name] = SegmentInfo(cipher: cipher, protection: cipher?.protection ?? .plain)
            let start = cipher == nil ? 0 : SegmentHeader.size
            bytes += try recover(segment: name, directory: directory, io: io, maxPayload: maxPayload, start: start, cipher: cipher, buffer: buffer, problems: &problems) { record, offset in
                highest = max(highest, record.sequence)
                last = (offset, record.sequence)
                if let visit {
                    try visit(record, JournalLocation(sequence: record.sequence, segment: name, offset: offset))
                } else {
                    records.append(record)
                }
            }
        }
        records.sort { $0.sequence < $1.sequence }
        return Recovered(records: records, problems: problems, nextSequence: highest + 1, bytes: bytes, lastSegment: names.last, lastRecord: last, infos: infos)
    }

    /// Reads one segment, cutting a torn or zero tail or keeping a corrupt segment aside, and hands each
    /// valid record to `found` with its offset. Returns the segment's size once recovered.
    /// Records begin at `start` (after the header of an encrypted segment) and are opened with
    /// `cipher`; a frame that does not authenticate counts as damaged. The segment is read into
    /// `buffer`, which the segments of one opening share.
    static func recover(segment name: String, directory: String, io: FileIO, maxPayload: Int, start: Int = 0, cipher: RecordCipher? = nil, buffer: SegmentBuffer, problems: inout [RecoveryProblem], found: (JournalRecord, Int) throws -> Void) throws -> Int {
        let path = directory + "/" + name
        let bytes: UnsafeRawBufferPointer
        // The frames' headers are walked as each piece is read, while they are in the cache.
        var walk = FrameWalk(start: start, maxPayload: maxPayload, sealed: cipher != nil)
        do {
            bytes = try buffer.read(path, io: io) { walk.advance($0, available: $0.count) }
        } catch {
            throw StorageError(code: .ioFailed, message: "Cannot read segment \(path); check permissions.", cause: error as? SystemCallError)
        }
        walk.advance(bytes, available: bytes.count, final: true)
        // The run of valid frames from the start is checked on every core (Journal+ParallelOpen.swift).
        let resume = try Journal.openLeadingFrames(bytes, maxPayload: maxPayload, start: start, cipher: cipher, walk: walk, found: found)
        let scan = try Journal.scan(bytes, maxPayload: maxPayload, start: resume, cipher: cipher, found: found)
        // Zeros at the end are a preallocated segment's unused tail: they hold nothing to keep.
        let dataEnd = Journal.dataEnd(bytes, from: scan.goodEnd)
        if scan.resynced {
            let kept = path + ".corrupt"
            if io.lstat(kept) == nil {
                try keep(UnsafeRawBufferPointer(rebasing: bytes[..<dataEnd]), at: kept, of: path, directory: directory, io: io)
            }
            problems.append(RecoveryProblem(kind: .corruptSegment, segment: name, offset: 0, keptAt: kept))
        }
        if scan.goodEnd < bytes.count {
            if dataEnd > scan.goodEnd {
                let kept = path + ".torn-\(scan.goodEnd)"
                // The copy is durable (file and directory entry) before the bytes are cut.
                try keep(UnsafeRawBufferPointer(rebasing: bytes[scan.goodEnd..<dataEnd]), at: kept, of: path, directory: directory, io: io)
                problems.append(RecoveryProblem(kind: .tornTail, segment: name, offset: scan.goodEnd, keptAt: kept))
            }
            do {
                let fd = try io.open(path, O_WRONLY)
                defer { io.close(fd) }
                try io.truncate(fd, to: scan.goodEnd)
                try io.fsync(fd)
            } catch {
                throw StorageError(code: .ioFailed, message: "Cannot cut the \(dataEnd > scan.goodEnd ? "torn" : "preallocated") tail of \(path) at \(scan.goodEnd); check permissions.", cause: error as? SystemCallError)
            }
        }
        // A torn or zero tail was cut back to goodEnd; otherwise the last good frame ends the file.
        return scan.goodEnd
    }

    /// Writes `bytes` of the segment at `path` to `kept` durably (file and directory entry).
    private static func keep(_ bytes: UnsafeRawBufferPointer, at kept: String, of path: String, directory: String, io: FileIO) throws {
        do {
            try io.writeFile(bytes, to: kept)
        } catch {
            throw StorageError(code: .ioFailed, message: "Cannot keep the damaged bytes of \(path) at \(kept); nothing was cut. Free space in \(directory) and open the journal again.", cause: error as? SystemCallError)
        }
        try io.fsyncDirectory(directory)
    }

    /// Sets every regular file in `directory` to 0600: segments, kept copies, the lock and the
    /// checkpoint, whoever loosened them. Throws when one cannot be set (owned by another user).
    static func tightenModes(_ directory: String, io: FileIO) throws {
        let names: [String]
        do {
            names = try io.list(directory)
        } catch {
            throw StorageError(code: .ioFailed, message: "Cannot list \(directory); check its permissions.", cause: error as? SystemCallError)
        }
        for name in names {
            let path = directory + "/" + name
            guard let st = io.lstat(path), st.st_mode & S_IFMT == S_IFREG, st.st_mode & 0o7777 != 0o600 else { continue }
            do {
                try io.chmod(path, 0o600)
            } catch {
                throw StorageError(code: .ioFailed, message: "Cannot make \(path) owner-only (mode 0600); give it to the user the daemon runs as, or remove it.", cause: error as? SystemCallError)
            }
        }
    }
}
