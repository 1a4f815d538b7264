// Opening a segment's records on every core while a journal is opened (doc/journal-format.md,
// "Recovery on open"). Checking a frame (its CRC32C, and with a key its authentication and
// decryption) is most of the work of an opening; the frames of a segment are checked in chunks by
// helper threads and by the opening thread, and handed to the owner in file order on the opening
// thread, as `Journal.scan` hands them.
//
// Only the run of valid frames at the start of a segment is taken here: from the first frame that
// does not check, the serial `Journal.scan` goes on, with its resynchronisation and its rules for
// a torn tail. So what an opening finds does not depend on how the work was shared.

import Foundation

extension Journal {
    /// Frames checked and decoded together, as one piece of work.
    static let openChunk = 1024
    /// Checked chunks that may wait to be handed over (bounds the memory of an opening).
    static let openWindow = 8

    /// Hands the valid frames that follow one another from `start` on to `found` (record and
    /// offset, in file order, on the calling thread), as `scan` would, and returns where they end:
    /// the offset of the first frame that does not check, or the end of the last one. `scan`
    /// goes on from there.
    ///
    /// With `cipher`, a frame counts as valid only when it authenticates. The frames are checked
    /// on up to `threads` threads (the calling one included), `chunk` frames at a time.
    static func openLeadingFrames(
        _ bytes: UnsafeRawBufferPointer, maxPayload: Int, start: Int, cipher: RecordCipher?,
        threads: Int = ProcessInfo.processInfo.activeProcessorCount, chunk: Int = openChunk,
        found: (JournalRecord, Int) throws -> Void
    ) rethrows -> Int {
        let offsets = frameOffsets(bytes, limit: maxPayload + (cipher == nil ? 0 : RecordCipher.tagSize), start: start)
        let frames = offsets.count - 1
        let work = FrameWork(bytes: bytes, offsets: offsets, maxPayload: maxPayload, cipher: cipher, chunk: max(1, chunk))
        let helpers = min(max(0, threads - 1), work.chunks - 1, 3)
        guard helpers > 0 else {
            for index in 0..<frames {
                guard let (record, _) = Frame.decode(bytes, at: offsets[index], maxPayload: maxPayload, cipher: cipher) else { return offsets[index] }
                try found(record, offsets[index])
            }
            return offsets[frames]
        }
        work.startHelpers(helpers)
        defer { work.finish() }
        for index in 0..<work.chunks {
            let checked = work.take(index)
            let first = index * work.chunk
            for (i, record) in checked.records.enumerated() { try found(record, offsets[first + i]) }
            if checked.records.count < work.frames(in: index).count { return offsets[first + checked.records.count] }
        }
        return offsets[frames]
    }

    /// The offsets of the frames that follow one another from `start`, judged by their headers
    /// alone (magic, a length within `limit`, inside `bytes`), and the end of the last one.
    static func frameOffsets(_ bytes: UnsafeRawBufferPointer, limit: Int, start: Int) -> [Int] {
        var offsets: [Int] = []
        var offset = start
        while offset + Frame.headerSize <= bytes.count,
              UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) == Frame.magic {
            let length = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)))
            guard length <= limit, length <= bytes.count - offset - Frame.headerSize else { break }
            offsets.append(offset)
            offset += Frame.headerSize + length
        }
        offsets.append(offset)
        return offsets
    }
}

/// The chunks of one segment's opening, shared by the opening thread and its helpers. Helpers
/// take the next chunk while fewer than `Journal.openWindow` wait; the opening thread takes the
/// chunks in order, and checks one itself when the one it needs is not ready yet.
private final class FrameWork: @unchecked Sendable {
    // The segment's bytes outlive the helpers: `finish()` waits for them before
    // `openLeadingFrames` returns. Everything else mutable is guarded by `condition`.
    let bytes: UnsafeRawBufferPointer
    let offsets: [Int]
    let maxPayload: Int
    let cipher: RecordCipher?
    let chunk: Int
    let chunks: Int
    private let condition = NSCondition()
    private var checked: [Int: Checked] = [:]
    private var next = 0
    private var taken = 0
    private var stopping = false
    private let done = DispatchGroup()

    /// A chunk's valid frames, in order; fewer than the chunk's frames when one did not check.
    struct Checked {
        var records: [JournalRecord]
    }

    init(bytes: UnsafeRawBufferPointer, offsets: [Int], maxPayload: Int, cipher: RecordCipher?, chunk: Int) {
        self.bytes = bytes
        self.offsets = offsets
        self.maxPayload = maxPayload
        self.cipher = cipher
        self.chunk = chunk
        chunks = (offsets.count - 1 + chunk - 1) / chunk
    }

    func frames(in index: Int) -> Range<Int> {
        (index * chunk)..<min((index + 1) * chunk, offsets.count - 1)
    }

    /// Checks and decodes the frames of chunk `index`, up to the first that does not check.
    func check(_ index: Int) -> Checked {
        var records: [JournalRecord] = []
        let range = frames(in: index)
        records.reserveCapacity(range.count)
        for frame in range {
            guard let (record, _) = Frame.decode(bytes, at: offsets[frame], maxPayload: maxPayload, cipher: cipher) else { break }
            records.append(record)
        }
        return Checked(records: records)
    }

    func startHelpers(_ count: Int) {
        for _ in 0..<count {
            done.enter()
            let thread = Thread { [self] in
                helperLoop()
                done.leave()
            }
            thread.name = "journal-open"
            thread.start()
        }
    }

    private func helperLoop() {
        condition.lock()
        defer { condition.unlock() }
        while true {
            while !stopping && next < chunks && next >= taken + Journal.openWindow { condition.wait() }
            guard !stopping, next < chunks else { return }
            checkNext()
        }
    }

    /// Claims the next chunk and checks it outside the lock; called and returns with it held.
    private func checkNext() {
        let index = next
        next += 1
        condition.unlock()
        let result = check(index)
        condition.lock()
        checked[index] = result
        condition.broadcast()
    }

    /// Chunk `index` once checked, by a helper or by this thread; chunks are taken in order.
    func take(_ index: Int) -> Checked {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let result = checked.removeValue(forKey: index) {
                taken = index + 1
                if result.records.count < frames(in: index).count { stopping = true }
                condition.broadcast()
                return result
            }
            if next < chunks && next < taken + Journal.openWindow {
                checkNext()
            } else {
                condition.wait()
            }
        }
    }

    /// Stops the helpers and waits until none is left.
    func finish() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
        done.wait()
    }
}
