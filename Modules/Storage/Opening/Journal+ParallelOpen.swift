// Opening a segment's records on every core while a journal is opened (doc/journal-format.md,
// "Recovery on open"). Checking a frame (its CRC32C, and with a key its authentication and
// decryption) is most of the work of an opening; the frames a `FrameWalk` found are checked in
// chunks by helper threads and by the opening thread, and handed to the owner in file order on
// the opening thread, as `Journal.scan` hands them.
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
    /// `walk` is the walk of `bytes` from `start` (`SegmentBuffer.read` makes one while it reads);
    /// without it, the bytes are walked here. With `cipher`, a frame counts as valid only when it
    /// authenticates. The frames are checked on up to `threads` threads (the calling one
    /// included), `chunk` frames at a time.
    static func openLeadingFrames(
        _ bytes: UnsafeRawBufferPointer, maxPayload: Int, start: Int, cipher: RecordCipher?,
        threads: Int = ProcessInfo.processInfo.activeProcessorCount, chunk: Int = openChunk, walk: FrameWalk? = nil,
        found: (JournalRecord, Int) throws -> Void
    ) rethrows -> Int {
        let walk = walk ?? FrameWalk.whole(bytes, start: start, maxPayload: maxPayload, sealed: cipher != nil)
        precondition(walk.stopped, "openLeadingFrames needs the whole walk of the segment")
        let work = FrameWork(bytes: bytes, walk: walk, maxPayload: maxPayload, cipher: cipher, chunk: max(1, chunk))
        // Fewer than two chunks are not worth a thread.
        let helpers = walk.offsets.count > 2 * max(1, chunk) ? min(max(0, threads - 1), 3) : 0
        work.startHelpers(helpers)
        defer { work.finish() }
        for index in 0..<work.chunks {
            let checked = work.take(index)
            for (record, offset) in zip(checked.records, checked.offsets) { try found(record, offset) }
            if !checked.continues { return checked.end }
        }
        return walk.end
    }
}

/// The chunks of one segment's opening, shared by the opening thread and its helpers. Helpers take
/// the next chunk while fewer than `Journal.openWindow` wait to be handed over and check it outside
/// the lock; the opening thread hands them over in order, and checks one itself while the one it
/// needs is not ready.
private final class FrameWork: @unchecked Sendable {
    // The segment's bytes outlive the helpers: `finish()` waits for them before
    // `openLeadingFrames` returns. Everything else mutable is guarded by `condition`.
    let bytes: UnsafeRawBufferPointer
    let walk: FrameWalk
    let maxPayload: Int
    let cipher: RecordCipher?
    let chunk: Int
    let chunks: Int
    private let condition = NSCondition()
    private var checked: [Int: Checked] = [:]
    /// The next chunk to take, and the chunks handed over so far.
    private var next = 0
    private var taken = 0
    private var stopping = false
    private let done = DispatchGroup()

    /// A chunk's valid frames in order, and where they end; `continues` when every frame of a
    /// chunk that is not the last checked (so the next chunk follows).
    struct Checked {
        var records: [JournalRecord] = []
        var offsets: [Int] = []
        var end: Int
        var continues: Bool
    }

    init(bytes: UnsafeRawBufferPointer, walk: FrameWalk, maxPayload: Int, cipher: RecordCipher?, chunk: Int) {
        self.bytes = bytes
        self.walk = walk
        self.maxPayload = maxPayload
        self.cipher = cipher
        self.chunk = chunk
        chunks = (walk.offsets.count + chunk - 1) / chunk
    }

    /// Checks and decodes the frames of chunk `index`, up to the first that does not check.
    private func check(_ index: Int) -> Checked {
        let first = index * chunk
        let last = min(first + chunk, walk.offsets.count)
        let more = last < walk.offsets.count
        var result = Checked(end: more ? Int(walk.offsets[last]) : walk.end, continues: more)
        result.records.reserveCapacity(last - first)
        result.offsets.reserveCapacity(last - first)
        for i in first..<last {
            let offset = Int(walk.offsets[i])
            guard let (record, _) = Frame.decode(bytes, at: offset, maxPayload: maxPayload, cipher: cipher) else {
                result.end = offset
                result.continues = false
                break
            }
            result.records.append(record)
            result.offsets.append(offset)
        }
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
        while !stopping && next < chunks {
            if next < taken + Journal.openWindow {
                takeNext()
            } else {
                condition.wait()
            }
        }
    }

    /// Takes the next chunk and checks it; called, and returns, with the lock held.
    private func takeNext() {
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
                if !result.continues { stopping = true }
                condition.broadcast()
                return result
            }
            if next < chunks && next < taken + Journal.openWindow {
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
