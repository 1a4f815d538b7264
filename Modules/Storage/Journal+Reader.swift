// Reading records back by location, listing segments and removing settled ones.

#if canImport(Glibc)
import Glibc
#endif
import Foundation

extension Journal {
    // MARK: Reading back and removing settled segments

    /// Reads the record at `location` back from its segment, checking its CRC.
    /// Throws `StorageError` `.notFound` when the segment is gone or the frame there is not that record.
    public func read(at location: JournalLocation) throws -> JournalRecord {
        let path = directory + "/" + location.segment
        return try readers.withLock { readers in
            // After close, nothing may be opened again: close() has released the descriptors.
            if state.withLock({ $0.closing }) {
                throw StorageError(code: .closed, message: "The journal in \(directory) is closed; reopen it to read record \(location.sequence).")
            }
            let fd: Int32
            if let open = readers[location.segment] {
                fd = open
            } else {
                fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
                guard fd >= 0 else {
                    throw StorageError(code: .notFound, message: "Journal record \(location.sequence) cannot be read: segment \(path) is missing.", cause: SystemCallError(call: "open", errno: errno))
                }
                if readers.count >= Journal.maxOpenReaders {
                    for other in readers.values { Glibc.close(other) }
                    readers.removeAll(keepingCapacity: true)
                }
                readers[location.segment] = fd
            }
            return try Journal.readFrame(fd: fd, path: path, at: location, maxPayload: options.maxPayloadSize)
        }
    }

    /// Reads and checks the frame at `location` from `fd`: one `pread` for a record of up to
    /// 4 KiB, a second for the rest of a larger one.
    static func readFrame(fd: Int32, path: String, at location: JournalLocation, maxPayload: Int) throws -> JournalRecord {
        func readFully(into bytes: inout [UInt8], from start: Int, count: Int, at offset: Int) -> Int {
            var done = 0
            while done < count {
                let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + start + done, count - done, off_t(offset + done)) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                done += n
            }
            return done
        }
        let bad = StorageError(code: .notFound, message: "Journal record \(location.sequence) is not at offset \(location.offset) of \(path); the segment changed underneath the journal.")
        var frame = [UInt8](repeating: 0, count: 4096)
        let got = readFully(into: &frame, from: 0, count: frame.count, at: location.offset)
        guard got >= Frame.headerSize else { throw bad }
        let length = frame.withUnsafeBytes { Int(UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: 4, as: UInt32.self))) }
        guard length <= maxPayload else { throw bad }
        let size = Frame.headerSize + length
        if size > got {
            if size > frame.count { frame += [UInt8](repeating: 0, count: size - frame.count) }
            guard readFully(into: &frame, from: got, count: size - got, at: location.offset + got) == size - got else { throw bad }
        }
        guard let (record, _) = frame.withUnsafeBytes({ Frame.decode(UnsafeRawBufferPointer(rebasing: $0[..<size]), at: 0, maxPayload: maxPayload) }),
              record.sequence == location.sequence else { throw bad }
        return record
    }

    /// The segment files, oldest first; the last one is the active segment.
    public func segments() throws -> [JournalSegment] {
        let active = state.withLock { $0.activeSegment }
        return try Journal.segmentNames(directory).map { name in
            JournalSegment(name: name, bytes: Journal.fileSize(directory + "/" + name), isActive: name == active)
        }
    }

    /// Removes sealed segments whose records are all settled. The names are first written to a
    /// removal checkpoint (temporary file, fsync, rename, directory fsync), then each file is
    /// unlinked and the directory fsync'd; a restart in between finishes the removal on open
    /// without reading those segments. The active segment is never removed.
    public func removeSegments(_ names: [String]) throws {
        let active = state.withLock { $0.activeSegment }
        let doomed = names.filter { $0 != active && $0.hasPrefix("segment-") && !$0.contains("/") }
        guard !doomed.isEmpty else { return }
        let checkpoint = directory + "/" + Journal.removalCheckpoint
        let temporary = checkpoint + ".tmp"
        let fd = try Journal.createFile(temporary, flags: O_WRONLY | O_CREAT | O_TRUNC)
        let text = Array(doomed.joined(separator: "\n").utf8)
        let written = text.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd)
        Glibc.close(fd)
        guard written == text.count, synced == 0, rename(temporary, checkpoint) == 0 else {
            throw StorageError(code: .ioFailed, message: "Cannot write the removal checkpoint in \(directory); check free space.", cause: SystemCallError(call: "write", errno: errno))
        }
        try Journal.fsyncDirectory(directory)
        let freed = doomed.reduce(0) { $0 + Journal.fileSize(directory + "/" + $1) }
        // Descriptors are closed after the unlink: a read in between uses the one it has, and
        // none can be opened again on a removed file.
        defer {
            readers.withLock { readers in
                for name in doomed {
                    if let fd = readers.removeValue(forKey: name) { Glibc.close(fd) }
                }
            }
        }
        try Journal.finishRemoval(directory: directory)
        state.withLock { $0.diskBytes = max(0, $0.diskBytes - freed) }
    }

    static let removalCheckpoint = "checkpoint"

    /// Completes a removal recorded in the checkpoint: unlinks the segments it names, fsyncs the
    /// directory, then deletes the checkpoint.
    static func finishRemoval(directory: String) throws {
        let checkpoint = directory + "/" + removalCheckpoint
        guard let data = FileManager.default.contents(atPath: checkpoint) else { return }
        for name in String(decoding: data, as: UTF8.self).split(separator: "\n") where name.hasPrefix("segment-") && !name.contains("/") {
            if unlink(directory + "/" + name) != 0 && errno != ENOENT {
                throw StorageError(code: .ioFailed, message: "Cannot remove settled segment \(name) in \(directory); check permissions.", cause: SystemCallError(call: "unlink", errno: errno))
            }
        }
        try fsyncDirectory(directory)
        unlink(checkpoint)
        try fsyncDirectory(directory)
    }
}

