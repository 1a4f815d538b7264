// Which segments in the clear a keyed journal reads (PlainSegmentList.swift): checked at every
// keyed opening, after the lock is taken and before anything is replayed; listed after recovery,
// so that the list describes each segment as recovery left it (its preallocated or torn tail cut).

#if canImport(Glibc)
import Glibc
#endif
import Crypto
import Logging

extension Journal {
    /// What the check of the segments in the clear decided, before recovery.
    struct PlainSegmentCheck {
        /// The plain segments set aside (`<segment>.unlisted`) at this opening.
        var setAside: [String] = []
        /// The list as stored, when one authenticated, with the key it was under.
        var stored: (list: PlainSegmentList, under: JournalKey)?
        /// Entries of the stored list that matched a plain segment in the directory.
        var accepted: [PlainSegmentList.Entry] = []
        /// Plain segments found at the first keyed opening: listed once recovery is done.
        var toList: [String] = []
    }

    /// With `keys`, keeps in `kinds` only the plain segments the journal's list accepts and sets the
    /// others aside (`<segment>.unlisted`), logging each one. Call ``listPlainSegments(_:directory:keys:io:)``
    /// with the result once recovery has run, before any encrypted segment is created.
    ///
    /// - The first keyed opening (no encrypted segment and no list) accepts every plain segment in
    ///   the directory: they are the migration. They are listed after recovery.
    /// - With a list that authenticates, a plain segment is read only when it is listed with the
    ///   same size and digest.
    /// - With encrypted segments present and no list, or a list that does not authenticate under a
    ///   key given, no plain segment is read: each is set aside. This journal writes its list
    ///   before its first encrypted segment, so encrypted segments without a list mean the list
    ///   was removed by something else.
    static func checkPlainSegments(directory: String, kinds: inout [String: SegmentKind], keys: JournalKeys, io: FileIO, logger: Logger) throws -> PlainSegmentCheck {
        let plain = kinds.filter { $0.value == .plain }.map(\.key).sorted()
        let listPath = directory + "/" + PlainSegmentList.fileName
        var check = PlainSegmentCheck()
        check.stored = (try? io.readAll(listPath)).flatMap { PlainSegmentList.decode($0, keys: keys) }
        let hasEncrypted = kinds.values.contains { if case .encrypted = $0 { true } else { false } }
        if let stored = check.stored {
            for name in plain {
                let path = directory + "/" + name
                if let entry = stored.list.entries.first(where: { $0.name == name }), io.size(at: path) == entry.size, try digest(of: path, io: io) == entry.digest {
                    check.accepted.append(entry)
                } else {
                    check.setAside.append(name)
                }
            }
        } else if io.size(at: listPath) != nil {
            logger.error("the list of segments in the clear does not authenticate under any key given: every segment in the clear is set aside", metadata: ["file": "\(listPath)"])
            check.setAside = plain
        } else if hasEncrypted {
            if !plain.isEmpty {
                logger.error("segments in the clear beside encrypted ones and no list of them: the list was removed by something else than this journal, so none of them is read; every segment in the clear is set aside", metadata: ["directory": "\(directory)", "segments": "\(plain.joined(separator: ", "))"])
            }
            check.setAside = plain
        } else {
            if !plain.isEmpty {
                logger.notice("encryption turned on: the segments in the clear are listed and read, and compaction rewrites them under the key", metadata: ["directory": "\(directory)", "segments": "\(plain.count)"])
            }
            check.toList = plain
        }
        for name in check.setAside {
            let path = directory + "/" + name
            do {
                try io.rename(path, path + ".unlisted")
            } catch {
                throw StorageError(code: .ioFailed, message: "Cannot set aside the segment \(path), which holds records in the clear that this journal did not list; move it out of \(directory) by hand.", cause: error as? SystemCallError)
            }
            kinds[name] = nil
            logger.error("a segment in the clear that this journal did not write or list (or that changed since) was set aside, unread: something else wrote to the state directory; inspect it, then delete it", metadata: ["segment": "\(path).unlisted"])
        }
        return check
    }

    /// Writes the list of the plain segments `check` accepted, as they are now (after recovery cut
    /// their tails), when it differs from the stored one, moves to the current key, or segments
    /// were set aside (the replacement fsyncs the directory, which makes their renames durable).
    static func listPlainSegments(_ check: PlainSegmentCheck, directory: String, keys: JournalKeys, io: FileIO) throws {
        var entries = check.accepted
        for name in check.toList {
            let path = directory + "/" + name
            // A segment recovery found to hold nothing is gone or empty: nothing to list.
            guard let size = io.size(at: path), size > 0 else { continue }
            entries.append(.init(name: name, size: size, digest: try digest(of: path, io: io)))
        }
        let list = PlainSegmentList(entries: entries.sorted { $0.name < $1.name })
        let listPath = directory + "/" + PlainSegmentList.fileName
        guard check.stored?.list != list || check.stored?.under.id != keys.current.id || !check.setAside.isEmpty else { return }
        do {
            try io.replaceFile(list.encoded(under: keys.current), at: listPath, temporary: listPath + ".new", directory: directory)
        } catch {
            throw StorageError(code: .ioFailed, message: "Cannot write \(listPath); check permissions and free space.", cause: error as? SystemCallError)
        }
    }

    /// Without a key, a list of plain segments means nothing (it is read only with a key) and would
    /// wrongly set aside what this journal writes in the clear now, once a key is given again:
    /// a directory with no encrypted segment loses its stale list (logged).
    static func removeStaleList(directory: String, kinds: [String: SegmentKind], io: FileIO, logger: Logger) throws {
        let listPath = directory + "/" + PlainSegmentList.fileName
        let hasEncrypted = kinds.values.contains { if case .encrypted = $0 { true } else { false } }
        guard !hasEncrypted, io.size(at: listPath) != nil else { return }
        do {
            _ = try io.unlinkIfPresent(listPath)
            try io.fsyncDirectory(directory)
        } catch {
            throw StorageError(code: .ioFailed, message: "Cannot remove the stale list \(listPath); check permissions.", cause: error as? SystemCallError)
        }
        logger.notice("opened without a key: the list of segments in the clear from an earlier keyed start was removed; the next keyed start lists the segments in the clear again", metadata: ["file": "\(listPath)"])
    }

    /// The segments of `directory` set aside unread (`<segment>.unlisted`), by file name.
    static func setAsideSegmentNames(_ directory: String, io: FileIO) -> [String] {
        ((try? io.list(directory)) ?? []).filter { $0.hasPrefix("segment-") && $0.hasSuffix(".unlisted") }.sorted()
    }

    /// SHA-256 of the file at `path`, read in 1 MiB pieces.
    private static func digest(of path: String, io: FileIO) throws -> [UInt8] {
        do {
            let fd = try io.open(path, O_RDONLY)
            defer { io.close(fd) }
            var hasher = SHA256()
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            var offset = 0
            while true {
                let got = try buffer.withUnsafeMutableBytes { try io.readFully(fd, into: $0, at: offset) }
                if got == 0 { break }
                hasher.update(data: buffer[..<got])
                offset += got
                if got < buffer.count { break }
            }
            return Array(hasher.finalize())
        } catch {
            throw StorageError(code: .ioFailed, message: "Cannot read segment \(path); check permissions.", cause: error as? SystemCallError)
        }
    }
}
