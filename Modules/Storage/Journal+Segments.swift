// The journal's segment files: their names, creating one (and fsyncing the directory), rotating
// to a new one, opening the last one for appending, listing them, and removing settled ones
// through the removal checkpoint.

#if canImport(Glibc)
import Glibc
#endif

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

    /// The segment files, oldest first; the last one is the active segment.
    public func segments() throws -> [JournalSegment] {
        let active = state.withLock { $0.activeSegment }
        return try Journal.segmentNames(directory, io: io).map { name in
            // A segment removed since the listing holds nothing.
            JournalSegment(name: name, bytes: io.size(at: directory + "/" + name) ?? 0, isActive: name == active, protection: segmentInfo.withLock { $0[name]?.protection })
        }
    }

    // MARK: The active segment

    /// Creates a segment (0600) and fsyncs the directory; when that fails, the new file is
    /// removed again.
    static func createSegment(directory: String, firstSequence: UInt64, io: FileIO) throws -> Int32 {
        let path = directory + "/" + segmentName(firstSequence)
        let fd: Int32
        do {
            fd = try io.open(path, O_WRONLY | O_CREAT | O_APPEND, mode: 0o600)
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
            fd = try io.open(directory + "/" + name, O_WRONLY | O_APPEND, mode: 0o600)
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

    /// Closes the active segment (everything in it is durable) and starts a new one.
    func startSegment() throws {
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
        syncedBytes = recordStart
        state.withLock { [recordStart] in $0.diskBytes += recordStart - replaced }
        lastAcknowledged = nil
        state.withLock { [segmentName] in $0.activeSegment = segmentName }
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
