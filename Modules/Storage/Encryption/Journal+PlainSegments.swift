// Which segments in the clear a keyed journal reads (PlainSegmentList.swift): checked at every
// keyed opening, after the lock is taken and before anything is replayed.

#if canImport(Glibc)
import Glibc
#endif
import Crypto
import Logging

extension Journal {
    /// With `keys`, keeps in `kinds` only the plain segments the journal's list accepts and sets the
    /// others aside (`<segment>.unlisted`), logging each one; writes the list when there is none
    /// (or rewrites it under the current key). Returns the names set aside.
    ///
    /// The first keyed opening of a directory that holds no encrypted segment lists every plain
    /// segment in it: they are the migration. A directory that already holds encrypted segments but
    /// no list was migrated by an earlier version, which kept none: its plain segments are listed as
    /// they are, once, and logged.
    static func setAsideUnlistedPlainSegments(directory: String, kinds: inout [String: SegmentKind], keys: JournalKeys, io: FileIO, logger: Logger) throws -> [String] {
        let plain = kinds.filter { $0.value == .plain }.map(\.key).sorted()
        let listPath = directory + "/" + PlainSegmentList.fileName
        let stored = (try? io.readAll(listPath)).flatMap { PlainSegmentList.decode($0, keys: keys) }
        let hasEncrypted = kinds.values.contains { if case .encrypted = $0 { true } else { false } }
        var accepted: [PlainSegmentList.Entry] = []
        var setAside: [String] = []
        if let stored {
            for name in plain {
                let path = directory + "/" + name
                if let entry = stored.list.entries.first(where: { $0.name == name }), io.size(at: path) == entry.size, try digest(of: path, io: io) == entry.digest {
                    accepted.append(entry)
                } else {
                    setAside.append(name)
                }
            }
        } else {
            if io.size(at: listPath) != nil {
                logger.error("the list of segments in the clear does not authenticate under any key given: every segment in the clear is set aside", metadata: ["file": "\(listPath)"])
                setAside = plain
            } else {
                if hasEncrypted, !plain.isEmpty {
                    logger.notice("segments in the clear beside encrypted ones and no list of them (a directory migrated by an earlier version): they are listed now and read", metadata: ["directory": "\(directory)", "segments": "\(plain.joined(separator: ", "))"])
                } else if !plain.isEmpty {
                    logger.notice("encryption turned on: the segments in the clear are listed and read, and compaction rewrites them under the key", metadata: ["directory": "\(directory)", "segments": "\(plain.count)"])
                }
                for name in plain {
                    let path = directory + "/" + name
                    accepted.append(.init(name: name, size: io.size(at: path) ?? 0, digest: try digest(of: path, io: io)))
                }
            }
        }
        for name in setAside {
            let path = directory + "/" + name
            do {
                try io.rename(path, path + ".unlisted")
            } catch {
                throw StorageError(code: .ioFailed, message: "Cannot set aside the segment \(path), which holds records in the clear that this journal did not list; move it out of \(directory) by hand.", cause: error as? SystemCallError)
            }
            kinds[name] = nil
            logger.error("a segment in the clear that this journal did not write or list (or that changed since) was set aside, unread: something else wrote to the state directory; inspect it, then delete it", metadata: ["segment": "\(path).unlisted"])
        }
        let list = PlainSegmentList(entries: accepted)
        // Rewritten when it changes, moves to the current key, or segments were set aside (the
        // replacement fsyncs the directory, which makes their renames durable).
        if stored?.list != list || stored?.under.id != keys.current.id || !setAside.isEmpty {
            do {
                try io.replaceFile(list.encoded(under: keys.current), at: listPath, temporary: listPath + ".new", directory: directory)
            } catch {
                throw StorageError(code: .ioFailed, message: "Cannot write \(listPath); check permissions and free space.", cause: error as? SystemCallError)
            }
        }
        return setAside
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
