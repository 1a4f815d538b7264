// The journal's reader: scanning a segment's bytes frame by frame (resynchronising after a bad
// frame, for recovery on open), and reading one record back by its location.

#if canImport(Glibc)
import Glibc
#endif
import Synchronization

extension Journal {
    // MARK: Scanning a segment

    /// What a scan of a segment found besides its records.
    struct Scan {
        /// The end of the last valid frame: what follows it is a torn tail, or a zero tail.
        var goodEnd = 0
        /// True when valid frames were found after an invalid one (mid-segment corruption).
        var resynced = false
    }

    /// Hands each valid frame in `bytes` to `found` with its offset, in file order. After an
    /// incomplete or invalid frame it looks for the next offset that holds a valid one, past the
    /// damaged region: a frame whose header is sound (magic, a length within the bound, inside
    /// the bytes) but whose CRC or authentication fails is damaged as far as its length says, and
    /// no frame inside it is taken; a frame whose header is damaged is damaged up to the next
    /// valid frame. A zero tail (a preallocated segment's end) holds no frame and ends the scan.
    /// Frames begin at `start`; with `cipher`, a frame counts as valid only when it authenticates.
    static func scan(_ bytes: UnsafeRawBufferPointer, maxPayload: Int, start: Int = 0, cipher: RecordCipher? = nil, found: (JournalRecord, Int) throws -> Void) rethrows -> Scan {
        var scan = Scan()
        scan.goodEnd = min(start, bytes.count)
        var offset = start
        while offset < bytes.count {
            if let (record, size) = Frame.decode(bytes, at: offset, maxPayload: maxPayload, cipher: cipher) {
                try found(record, offset)
                offset += size
                scan.goodEnd = offset
                continue
            }
            // Resynchronise: the next valid frame after the damaged region.
            let damagedEnd = Frame.claimedSize(bytes, at: offset, maxPayload: maxPayload, sealed: cipher != nil).map { offset + $0 } ?? offset + 1
            guard let next = nextFrame(bytes, from: damagedEnd, maxPayload: maxPayload, cipher: cipher) else { break }
            scan.resynced = true
            offset = next
        }
        return scan
    }

    /// The first offset at or after `from` that holds a valid frame; nil when none does.
    private static func nextFrame(_ bytes: UnsafeRawBufferPointer, from: Int, maxPayload: Int, cipher: RecordCipher?) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        var probe = from
        // A frame starts with its magic's first byte (0x53): memchr skips a zero tail quickly.
        while probe + Frame.headerSize <= bytes.count {
            guard let hit = memchr(base + probe, 0x53, bytes.count - Frame.headerSize + 1 - probe) else { return nil }
            probe = base.distance(to: UnsafeRawPointer(hit))
            if Frame.decode(bytes, at: probe, maxPayload: maxPayload, cipher: cipher) != nil { return probe }
            probe += 1
        }
        return nil
    }

    /// Where the bytes after `start` stop being zeros: the offset after the last byte that is not
    /// zero, or `start` when they all are (a preallocated segment's unused tail).
    static func dataEnd(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        var end = bytes.count
        // Whole pages first (memcmp against a zero page): a preallocated tail is up to 64 MiB.
        if let base = bytes.baseAddress {
            let page = 4096
            withUnsafeTemporaryAllocation(byteCount: page, alignment: 8) { zeros in
                zeros.initializeMemory(as: UInt8.self, repeating: 0)
                while end - page >= start, memcmp(base + end - page, zeros.baseAddress!, page) == 0 { end -= page }
            }
        }
        while end - 8 >= start, bytes.loadUnaligned(fromByteOffset: end - 8, as: UInt64.self) == 0 { end -= 8 }
        while end > start, bytes[end - 1] == 0 { end -= 1 }
        return end
    }

    // MARK: Reading a record back

    /// Reads the record at `location` back from its segment, checking its CRC.
    /// Throws `StorageError` `.notFound` when the segment is gone or the frame there is not that
    /// record, `.ioFailed` when the segment cannot be read.
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
                do {
                    fd = try io.open(path, O_RDONLY)
                } catch {
                    throw StorageError(code: .notFound, message: "Journal record \(location.sequence) cannot be read: segment \(path) is missing.", cause: error as? SystemCallError)
                }
                if readers.count >= Journal.maxOpenReaders {
                    for other in readers.values { io.close(other) }
                    readers.removeAll(keepingCapacity: true)
                }
                readers[location.segment] = fd
            }
            return try readFrame(fd: fd, path: path, at: location, cipher: readCipher(location.segment))
        }
    }

    /// Reads and checks the frame at `location` from `fd`: one `pread` for a record of up to
    /// 4 KiB, a second for the rest of a larger one.
    /// With `cipher`, the payload is opened with it; a frame that does not authenticate is not
    /// the record.
    func readFrame(fd: Int32, path: String, at location: JournalLocation, cipher: RecordCipher?) throws -> JournalRecord {
        let maxPayload = options.maxPayloadSize
        func bad() -> StorageError {
            StorageError(code: .notFound, message: "Journal record \(location.sequence) is not at offset \(location.offset) of \(path); the segment changed underneath the journal.")
        }
        func readFully(into frame: inout [UInt8], from start: Int, count: Int, at offset: Int) throws -> Int {
            do {
                return try frame.withUnsafeMutableBytes { try io.readFully(fd, into: UnsafeMutableRawBufferPointer(rebasing: $0[start..<(start + count)]), at: offset) }
            } catch {
                throw StorageError(code: .ioFailed, message: "Journal record \(location.sequence) cannot be read from \(path); check the disk.", cause: error as? SystemCallError)
            }
        }
        guard location.offset >= 0 else { throw bad() }
        var frame = [UInt8](repeating: 0, count: 4096)
        let got = try readFully(into: &frame, from: 0, count: frame.count, at: location.offset)
        guard got >= Frame.headerSize else { throw bad() }
        let length = frame.withUnsafeBytes { Int(UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: 4, as: UInt32.self))) }
        guard length <= maxPayload + (cipher == nil ? 0 : RecordCipher.tagSize) else { throw bad() }
        let size = Frame.headerSize + length
        if size > got {
            if size > frame.count { frame += [UInt8](repeating: 0, count: size - frame.count) }
            guard try readFully(into: &frame, from: got, count: size - got, at: location.offset + got) == size - got else { throw bad() }
        }
        guard let (record, _) = frame.withUnsafeBytes({ Frame.decode(UnsafeRawBufferPointer(rebasing: $0[..<size]), at: 0, maxPayload: maxPayload, cipher: cipher, position: location.offset) }),
              record.sequence == location.sequence else { throw bad() }
        return record
    }
}

extension Journal {
    /// Every valid record now in the segment files, oldest first (a whole segment is read at a
    /// time: for an operator's occasional look, not for a hot path). Records appended meanwhile
    /// may or may not be included.
    public func allRecords() throws -> [JournalRecord] {
        var records: [JournalRecord] = []
        for segment in try segments() {
            let bytes: [UInt8]
            do {
                bytes = try io.readAll(directory + "/" + segment.name)
            } catch {
                continue  // removed since the listing
            }
            let kind = SegmentHeader.classify(bytes[...])
            if kind == .empty { continue }
            let cipher = readCipher(segment.name) ?? Journal.cipher(for: kind, segment: segment.name, keys: options.encryption)
            if case .encrypted = kind, cipher == nil { continue }  // not readable with these keys
            bytes.withUnsafeBytes { raw in
                _ = Journal.scan(raw, maxPayload: options.maxPayloadSize, start: cipher == nil ? 0 : SegmentHeader.size, cipher: cipher) { record, _ in records.append(record) }
            }
        }
        return records
    }
}
