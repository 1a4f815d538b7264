// The journal's segment files: their names, creating one (and fsyncing the directory), rotating
// to a new one, opening the last one for appending, preallocating the active one, listing them,
// and removing settled ones through the removal checkpoint.

#if canImport(Glibc)
import Glibc
#endif
import Logging
import Synchronization

extension Journal {
    // MARK: Names and listing

    static func segmentName(_ firstSequence: UInt64) -> String {
        let hex = String(firstSequence, radix: 16)
        return "segment-" + String(repeating: "0", count: 16 - hex.count) + hex + ".log"
    }

    /// The segment files in `directory`, oldest first.
    static func segmentNames(_ directory: String, io: FileIO) throws -> [String] {
        do {
            return try io.list(directory)
                .filter { $0.hasPrefix("segment-") && $0.hasSuffix(".log") }
                .sorted()
        } catch {
            throw StorageError(code: .ioFailed, message: "Cannot list the journal directory \(directory); check its permissions.", cause: error as? SystemCallError)
        }
    }

    /// The segment files, oldest first; the last one is the active segment. Each one's `bytes`
    /// are its records' (a sealed segment's size; the active one's preallocated tail is
    /// `preallocatedBytes`).
    public func segments() throws -> [JournalSegment] {
        let (active, activeBytes) = state.withLock { ($0.activeSegment, $0.activeBytes) }
        return try Journal.segmentNames(directory, io: io).map { name in
            // A segment removed since the listing holds nothing.
            JournalSegment(name: name, bytes: name == active ? activeBytes : io.size(at: directory + "/" + name) ?? 0, isActive: name == active, protection: segmentInfo.withLock { $0[name]?.protection })
        }
    }

    // MARK: The active segment

    /// Creates a segment (0600) and fsyncs the directory; when that fails, the new file is
    /// removed again.
    static func createSegment(directory: String, firstSequence: UInt64, io: FileIO) throws -> Int32 {
        let path = directory + "/" + segmentName(firstSequence)
        let fd: Int32
        do {
            fd = try io.open(path, O_WRONLY | O_CREAT, mode: 0o600)
        } catch {
            throw StorageError(code: .ioFailed, message: "Cannot create \(path); check permissions and free space.", cause: error as? SystemCallError)
        }
        do {
            try io.fsyncDirectory(directory)
        } catch {
            io.close(fd)
            // Best effort: an empty segment left behind is removed by the restore that follows a
            // failed rotation, and holds nothing a later open would read.
            if io.size(at: path) == 0 { _ = try? io.unlinkIfPresent(path) }
            throw error
        }
        return fd
    }

    /// Opens the last segment for appending and makes what a previous run wrote to it durable
    /// before the journal relies on it. Returns the descriptor and the segment's size.
    static func openActiveSegment(_ name: String, directory: String, io: FileIO) throws -> (fd: Int32, bytes: Int) {
        let fd: Int32
        do {
            fd = try io.open(directory + "/" + name, O_WRONLY, mode: 0o600)
        } catch {
            throw StorageError(code: .ioFailed, message: "Cannot open segment \(name) in \(directory).", cause: error as? SystemCallError)
        }
        do {
            try io.fsync(fd)
            return (fd, try io.size(of: fd))
        } catch {
            io.close(fd)
            throw StorageError(code: .ioFailed, message: "Cannot fsync segment \(name) in \(directory); check the disk.", cause: error as? SystemCallError)
        }
    }

    /// Closes the active segment (everything in it is durable; its preallocated tail is cut off)
    /// and starts a new one, preallocated.
    func startSegment() throws {
        try cutReservation()
        io.close(segmentFD)
        segmentFD = -1
        // If this throws, the restore that follows reopens the old segment (`segmentName`).
        let name = Journal.segmentName(nextSequence)
        if let keys = options.encryption {
            // Under a fresh salt, replacing the active segment when it holds no record yet.
            let (fd, cipher) = try Journal.createEncryptedSegment(name, directory: directory, keys: keys, io: io)
            segmentFD = fd
            segmentCipher = cipher
            segmentInfo.withLock { $0[name] = SegmentInfo(cipher: cipher, protection: .currentKey) }
            rekeyBeforeWrite = false
        } else {
            segmentFD = try Journal.createSegment(directory: directory, firstSequence: nextSequence, io: io)
        }
        let replaced = name == segmentName ? segmentBytes : 0
        segmentName = name
        segmentBytes = recordStart
        segmentAllocated = recordStart
        syncedBytes = recordStart
        lastAcknowledged = nil
        state.withLock { [recordStart, segmentName] in
            $0.diskBytes += recordStart - replaced
            $0.activeSegment = segmentName
            $0.activeBytes = recordStart
        }
        try prepareActive()
    }

    // MARK: Preallocation

    /// Preallocates the active segment (best effort) and positions its descriptor at the end of
    /// its records, where the next write goes.
    func prepareActive() throws {
        let records = state.withLock { $0.diskBytes }
        let target = Journal.preallocationTarget(segmentLimit: segmentLimit, diskCap: options.diskCap, recordBytes: records, segmentBytes: segmentBytes)
        segmentAllocated = try Journal.prepare(fd: segmentFD, segment: segmentName, end: segmentBytes, target: target, io: io, logger: logger)
        state.withLock { [reserved = reservedBytes] in $0.reserved = reserved }
    }

    /// The preallocated bytes of the active segment past its records.
    var reservedBytes: Int { max(0, segmentAllocated - segmentBytes) }

    /// Cuts the active segment's preallocated tail off (at rotation and close): a sealed segment
    /// ends with its last record.
    func cutReservation() throws {
        guard segmentFD >= 0, segmentAllocated > segmentBytes else { return }
        try io.truncate(segmentFD, to: segmentBytes)
        segmentAllocated = segmentBytes
        state.withLock { $0.reserved = 0 }
    }

    /// How long the active segment is made: the segment limit, or with a disk cap no more than
    /// the cap leaves beside the other segments' records, so that what the files take on disk
    /// stays within the cap.
    static func preallocationTarget(segmentLimit: Int, diskCap: Int?, recordBytes: Int, segmentBytes: Int) -> Int {
        guard let cap = diskCap else { return segmentLimit }
        return min(segmentLimit, cap - (recordBytes - segmentBytes))
    }

    /// Extends the segment open as `fd` to `target` bytes (`fallocate`, or zeros where it is
    /// refused) and positions `fd` at `end`. A preallocation that fails is not an error: the
    /// segment then grows with each write, as a file does. Returns the file's size.
    static func prepare(fd: Int32, segment name: String, end: Int, target: Int, io: FileIO, logger: Logger) throws -> Int {
        var size = end
        if target > end {
            do {
                _ = try io.preallocate(fd, from: end, to: target)
                size = target
            } catch {
                logger.warning("cannot preallocate the journal segment; it grows with each write instead", metadata: ["segment": "\(name)", "bytes": "\(target)", "cause": "\(error)"])
                // A failed preallocation may have extended the file part of the way.
                size = max(end, (try? io.size(of: fd)) ?? end)
            }
        }
        try io.seek(fd, to: end)
        return size
    }

    // MARK: Removing settled segments

    /// Removes sealed segments whose records are all settled. The names are first written to a
    /// removal checkpoint (temporary file, fsync, rename, directory fsync), then each file is
    /// unlinked and the directory fsync'd; a restart in between finishes the removal on open
    /// without reading those segments. The active segment is never removed.
    public func removeSegments(_ names: [String]) throws {
        let active = state.withLock { $0.activeSegment }
        let doomed = names.filter { $0 != active && $0.hasPrefix("segment-") && !$0.contains("/") }
        guard !doomed.isEmpty else { return }
        let checkpoint = directory + "/" + Journal.removalCheckpoint
        do {
            try io.replaceFile(Array(doomed.joined(separator: "\n").utf8), at: checkpoint, temporary: checkpoint + ".tmp", directory: directory)
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError(code: .ioFailed, message: "Cannot write the removal checkpoint in \(directory); check free space. No segment was removed.", cause: error as? SystemCallError)
        }
        let freed = doomed.reduce(0) { $0 + (io.size(at: directory + "/" + $1) ?? 0) }
        // Descriptors are closed after the unlink: a read in between uses the one it has, and
        // none can be opened again on a removed file.
        defer {
            readers.withLock { readers in
                for name in doomed {
                    if let fd = readers.removeValue(forKey: name) { io.close(fd) }
                }
            }
        }
        try Journal.finishRemoval(directory: directory, io: io)
        state.withLock { $0.diskBytes = max(0, $0.diskBytes - freed) }
        segmentInfo.withLock { infos in
            for name in doomed { infos.removeValue(forKey: name) }
        }
    }

    static let removalCheckpoint = "checkpoint"

    /// Completes a removal recorded in the checkpoint: unlinks the segments it names, fsyncs the
    /// directory, then deletes the checkpoint and fsyncs the directory again.
    static func finishRemoval(directory: String, io: FileIO) throws {
        let checkpoint = directory + "/" + removalCheckpoint
        guard io.lstat(checkpoint) != nil else { return }
        let text: [UInt8]
        do {
            text = try io.readAll(checkpoint)
        } catch {
            throw StorageError(code: .ioFailed, message: "Cannot read the removal checkpoint \(checkpoint); check its permissions.", cause: error as? SystemCallError)
        }
        for name in String(decoding: text, as: UTF8.self).split(separator: "\n") where name.hasPrefix("segment-") && !name.contains("/") {
            do {
                try io.unlinkIfPresent(directory + "/" + name)
            } catch {
                throw StorageError(code: .ioFailed, message: "Cannot remove settled segment \(name) in \(directory); check permissions.", cause: error as? SystemCallError)
            }
        }
        try io.fsyncDirectory(directory)
        do {
            try io.unlinkIfPresent(checkpoint)
        } catch {
            throw StorageError(code: .ioFailed, message: "Cannot remove the removal checkpoint \(checkpoint); check permissions.", cause: error as? SystemCallError)
        }
        try io.fsyncDirectory(directory)
    }
}
