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
        let work = FrameWork(bytes: bytes, start: start, maxPayload: maxPayload, cipher: cipher, chunk: max(1, chunk))
        // A segment of less than two chunks is not worth a thread (a rough guess from its size).
        let helpers = bytes.count - start > 2 * chunk * 64 ? min(max(0, threads - 1), 3) : 0
        work.startHelpers(helpers)
        defer { work.finish() }
        var index = 0
        while true {
            let checked = work.take(index)
            for (record, offset) in zip(checked.records, checked.offsets) { try found(record, offset) }
            if !checked.continues { return checked.end }
            index += 1
        }
    }
}

/// The chunks of one segment's opening, shared by the opening thread and its helpers. Whoever
/// takes the next chunk first walks its frames' headers (the next chunk starts where they end),
/// then checks them outside the lock. Helpers take chunks while fewer than `Journal.openWindow`
/// wait; the opening thread hands them over in order, and takes one itself while the one it needs
/// is not ready.
private final class FrameWork: @unchecked Sendable {
    // The segment's bytes outlive the helpers: `finish()` waits for them before
    // `openLeadingFrames` returns. Everything else mutable is guarded by `condition`.
    let bytes: UnsafeRawBufferPointer
    let maxPayload: Int
    let cipher: RecordCipher?
    let chunk: Int
    private let condition = NSCondition()
    private var checked: [Int: Checked] = [:]
    /// The next chunk to take, where it starts (nil while its predecessor's headers are walked),
    /// and the number of chunks once the walk has found the last.
    private var next = 0
    private var nextStart: Int?
    private var chunks: Int?
    private var taken = 0
    private var stopping = false
    private let done = DispatchGroup()

    /// A chunk's valid frames in order, and where they end; `continues` when every frame of a
    /// full chunk checked (so the next chunk follows).
    struct Checked {
        var records: [JournalRecord] = []
        var offsets: [Int] = []
        var end: Int
        var continues: Bool
    }

    init(bytes: UnsafeRawBufferPointer, start: Int, maxPayload: Int, cipher: RecordCipher?, chunk: Int) {
        self.bytes = bytes
        self.maxPayload = maxPayload
        self.cipher = cipher
        self.chunk = chunk
        nextStart = start
    }

    /// The offsets of up to `chunk` frames that follow one another from `start`, judged by their
    /// headers alone (magic, a length within bounds, inside the bytes), and the end of the last.
    private func walk(from start: Int) -> (offsets: [Int], end: Int) {
        let limit = maxPayload + (cipher == nil ? 0 : RecordCipher.tagSize)
        var offsets: [Int] = []
        offsets.reserveCapacity(chunk)
        var offset = start
        while offsets.count < chunk, offset + Frame.headerSize <= bytes.count,
              UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) == Frame.magic {
            let length = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)))
            guard length <= limit, length <= bytes.count - offset - Frame.headerSize else { break }
            offsets.append(offset)
            offset += Frame.headerSize + length
        }
        return (offsets, offset)
    }

    /// Checks and decodes the frames at `offsets`, up to the first that does not check.
    private func check(_ offsets: [Int], end: Int, full: Bool) -> Checked {
        var result = Checked(end: end, continues: full)
        result.records.reserveCapacity(offsets.count)
        for offset in offsets {
            guard let (record, _) = Frame.decode(bytes, at: offset, maxPayload: maxPayload, cipher: cipher) else {
                result.end = offset
                result.continues = false
                break
            }
            result.records.append(record)
        }
        result.offsets = Array(offsets.prefix(result.records.count))
        return result
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
        while !stopping && (chunks.map { next < $0 } ?? true) {
            if nextStart != nil && next < taken + Journal.openWindow {
                takeNext()
            } else {
                condition.wait()
            }
        }
    }

    /// Takes the next chunk, walks its headers and checks it; called, and returns, with the lock held.
    private func takeNext() {
        let index = next
        let start = nextStart!
        next += 1
        nextStart = nil
        condition.unlock()
        let (offsets, end) = walk(from: start)
        let full = offsets.count == chunk
        condition.lock()
        if full { nextStart = end } else { chunks = index + 1 }
        condition.broadcast()
        condition.unlock()
        let result = check(offsets, end: end, full: full)
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
                if !result.continues { stopping = true }
                condition.broadcast()
                return result
            }
            if nextStart != nil && next < taken + Journal.openWindow {
                takeNext()
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
