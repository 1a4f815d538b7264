// The journal's reader: scanning a segment's bytes frame by frame (resynchronising after a bad
// frame, for recovery on open), and reading one record back by its location.

#if canImport(Glibc)
import Glibc
#endif

extension Journal {
    // MARK: Scanning a segment

    /// What a scan of a segment found besides its records.
    struct Scan {
        /// The end of the last valid frame: what follows it is a torn tail.
        var goodEnd = 0
        /// True when valid frames were found after an invalid one (mid-segment corruption).
        var resynced = false
    }

    /// Hands each valid frame in `bytes` to `found` with its offset, in file order. After an
    /// incomplete or invalid frame it looks for the next offset that holds a valid one.
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
            // Resynchronise: look for the next valid frame after the bad one.
            var probe = offset + 1
            var next: Int?
            while probe + Frame.headerSize <= bytes.count {
                if bytes[probe] == 0x53, Frame.decode(bytes, at: probe, maxPayload: maxPayload, cipher: cipher) != nil { next = probe; break }
                probe += 1
            }
            guard let next else { break }
            scan.resynced = true
            offset = next
        }
        return scan
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
