// Encryption at rest (doc/journal-format.md, "Encryption"): the check every opening makes before
// it changes anything, the keys of the segments, and new segments under a fresh salt.
//
// A segment's data key comes from the master key and a random salt in its header, and a record's
// nonce from its offset in the segment. An offset is written twice only after a crash (a torn tail
// cut) or a failed write (the segment cut back): so with a key, every opening starts a new segment
// (or gives the empty last one a new salt), and so does the first write after a segment was cut
// back. No offset is written twice under one salt.

#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

extension Journal {
    /// Checks, without changing anything, that the journal in `directory` can be opened with
    /// `keys`: every encrypted segment is under one of them, none is encrypted when there are
    /// none, and no segment header is damaged. Throws `StorageError` `.keyRefused` naming the
    /// segment and what is wrong. `Journal.init` makes this check first; an owner with several
    /// journals checks them all before it opens any.
    public static func checkKeys(directory: String, keys: JournalKeys?, operations: JournalFileOperations = JournalFileOperations()) throws {
        _ = try inspect(directory: directory, keys: keys, io: FileIO(operations))
    }

    /// What the start of each segment says, by name; throws as `checkKeys`.
    static func inspect(directory: String, keys: JournalKeys?, io: FileIO) throws -> [String: SegmentKind] {
        guard io.lstat(directory) != nil else { return [:] }
        var kinds: [String: SegmentKind] = [:]
        var firstEncrypted: String?
        for name in try segmentNames(directory, io: io) {
            let path = directory + "/" + name
            let kind = SegmentHeader.classify(try readStart(path, io: io)[...])
            kinds[name] = kind
            switch kind {
            case .empty:
                continue
            case .plain:
                if keys != nil, let firstEncrypted {
                    throw StorageError(code: .keyRefused, message: "Segment \(path) holds records in the clear after the encrypted segment \(firstEncrypted); the directory was changed by something else than this journal. Move \(path) out of \(directory) to open the journal without it; nothing was changed.")
                }
            case .damagedHeader:
                throw StorageError(code: .keyRefused, message: "The encryption header of segment \(path) is damaged (its check value does not match), so its records cannot be read with any key. Move \(path) out of \(directory) to open the journal without its records; nothing was changed.")
            case .encrypted(_, let id):
                firstEncrypted = firstEncrypted ?? path
                guard let keys else {
                    throw StorageError(code: .keyRefused, message: "Segment \(path) is encrypted (key fingerprint \(JournalKey.fingerprint(of: id))) but no encryption key was given; give the key it was written with. Nothing was changed.")
                }
                guard keys.key(id: id) != nil else {
                    let known = ([keys.current] + keys.old).map { "\($0.fingerprint)\($0.source.map { " from \($0)" } ?? "")" }.joined(separator: ", ")
                    throw StorageError(code: .keyRefused, message: "Segment \(path) was written under the key with fingerprint \(JournalKey.fingerprint(of: id)), which is none of the keys given (\(known)); give the key it was written with (an earlier key as an old key, to rotate). Nothing was changed.")
                }
            }
        }
        return kinds
    }

    /// The first `SegmentHeader.size` bytes of the file at `path` (fewer when it is shorter).
    private static func readStart(_ path: String, io: FileIO) throws -> [UInt8] {
        do {
            let fd = try io.open(path, O_RDONLY)
            defer { io.close(fd) }
            var bytes = [UInt8](repeating: 0, count: SegmentHeader.size)
            let got = try bytes.withUnsafeMutableBytes { try io.readFully(fd, into: $0, at: 0) }
            return Array(bytes[..<got])
        } catch {
            throw StorageError(code: .ioFailed, message: "Cannot read segment \(path); check permissions.", cause: error as? SystemCallError)
        }
    }

    /// The cipher of a segment whose start said `kind`, or nil for one in the clear or empty.
    static func cipher(for kind: SegmentKind?, segment name: String, keys: JournalKeys?) -> RecordCipher? {
        guard case .encrypted(let salt, let id)? = kind, let keys, let key = keys.key(id: id) else { return nil }
        return RecordCipher(key: SegmentHeader.dataKey(master: key, salt: salt, segment: name), protection: key.id == keys.current.id ? .currentKey : .oldKey)
    }

    /// Creates segment `name` under the current key with a fresh salt: the header is written to
    /// a temporary file, fsync'd and renamed into place (replacing an empty segment of that name),
    /// and the directory fsync'd; so a segment never exists without its whole header. Returns the
    /// descriptor (for writing at the offsets the writer tracks: not `O_APPEND`) and the segment's cipher.
    static func createEncryptedSegment(_ name: String, directory: String, keys: JournalKeys, io: FileIO) throws -> (fd: Int32, cipher: RecordCipher) {
        let path = directory + "/" + name
        let (header, salt) = SegmentHeader.make(key: keys.current)
        do {
            try io.replaceFile(header, at: path, temporary: path + ".new", directory: directory)
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError(code: .ioFailed, message: "Cannot create \(path); check permissions and free space.", cause: error as? SystemCallError)
        }
        let fd: Int32
        do {
            fd = try io.open(path, O_WRONLY, mode: 0o600)
        } catch {
            throw StorageError(code: .ioFailed, message: "Cannot open the new segment \(path); check permissions.", cause: error as? SystemCallError)
        }
        let cipher = RecordCipher(key: SegmentHeader.dataKey(master: keys.current, salt: salt, segment: name), protection: .currentKey)
        return (fd, cipher)
    }

    /// Where the records of a segment of this journal begin: after the header when encrypted.
    var recordStart: Int { options.encryption == nil ? 0 : SegmentHeader.size }

    /// The cipher of segment `name` for reading, nil when it is in the clear.
    func readCipher(_ name: String) -> RecordCipher? {
        segmentInfo.withLock { $0[name]?.cipher }
    }
}

/// What the journal knows of one segment's protection.
struct SegmentInfo: Sendable {
    var cipher: RecordCipher?
    var protection: SegmentProtection?
}
