// Finding where a segment's frames begin, from their headers alone, while the segment is read.
// A frame's header says where the next one begins, so the walk is a chain of dependent loads: on
// a segment already in memory, each one waits for a cache miss (frames are a few hundred bytes
// apart), and the walk over a million frames took longer than their CRC checks. Walked a piece at
// a time, right after the piece was read, the headers are still in the cache.

/// The offsets of the frames that follow one another from `start`, judged by their headers alone:
/// the magic, a length within the bound, the frame inside the bytes. Their CRC is not checked; the
/// walk stops at the first header that is not sound, or at the end of the bytes.
struct FrameWalk {
    /// Where the walked frames begin, in file order.
    private(set) var offsets: [UInt32] = []
    /// The end of the last frame walked (`start` when none was).
    private(set) var end: Int
    /// True once the walk has found its last frame.
    private(set) var stopped = false
    /// The largest length a sound header may claim.
    private let limit: Int

    /// A walk from `start`, for frames of at most `maxPayload` bytes (`sealed`: and a tag).
    init(start: Int, maxPayload: Int, sealed: Bool) {
        end = start
        limit = maxPayload + (sealed ? RecordCipher.tagSize : 0)
    }

    /// Walks on over the frames that lie wholly within the first `available` bytes of `bytes`.
    /// With `final`, `available` is all there is: a frame that does not fit ends the walk.
    mutating func advance(_ bytes: UnsafeRawBufferPointer, available: Int, final: Bool = false) {
        precondition(available <= bytes.count, "FrameWalk.advance past the bytes it was given")
        while !stopped {
            // Offsets are kept in 32 bits: the serial scan goes on past 4 GiB, if a segment is ever that large.
            guard end + Frame.headerSize <= available, end <= Int(UInt32.max) else { break }
            guard UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: end, as: UInt32.self)) == Frame.magic else {
                stopped = true
                break
            }
            let length = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: end + 4, as: UInt32.self)))
            guard length <= limit else {
                stopped = true
                break
            }
            guard length <= available - end - Frame.headerSize else { break }
            offsets.append(UInt32(end))
            end += Frame.headerSize + length
        }
        if final { stopped = true }
    }

    /// The walk over the whole of `bytes` at once.
    static func whole(_ bytes: UnsafeRawBufferPointer, start: Int, maxPayload: Int, sealed: Bool) -> FrameWalk {
        var walk = FrameWalk(start: start, maxPayload: maxPayload, sealed: sealed)
        walk.advance(bytes, available: bytes.count, final: true)
        return walk
    }
}
