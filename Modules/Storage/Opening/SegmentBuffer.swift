// One buffer for the segment files an opening reads, one after the other, a piece at a time. A
// fresh buffer for each 64 MiB segment costs its page faults and the zeroing of its pages, about
// as much as the copy from the page cache; reused, only the first segment pays it, and on huge
// pages where the kernel gives them (transparent huge pages "madvise" or "always"). Each piece is
// handed on while it is still in the cache (`FrameWalk`).

#if canImport(Glibc)
import Glibc
#endif

/// A buffer that holds one whole file at a time. Not for sharing between threads: the bytes `read`
/// returns stay valid until the next `read`, and the buffer is freed with its owner.
final class SegmentBuffer {
    private var storage: UnsafeMutableRawBufferPointer?
    /// The allocations' alignment and size unit: a huge page of x86-64 and arm64 (4 KiB pages).
    static let unit = 2 << 20

    init() {}

    deinit { storage?.deallocate() }

    /// Bytes read at a time: small enough to stay in a core's cache until `read`'s caller has looked at them.
    static let piece = 1 << 20

    /// Every byte of the file at `path`, valid until the next `read`. After each piece, `progress`
    /// gets the file's bytes read so far.
    func read(_ path: String, io: FileIO, progress: (UnsafeRawBufferPointer) -> Void = { _ in }) throws -> UnsafeRawBufferPointer {
        let fd = try io.open(path, O_RDONLY)
        defer { io.close(fd) }
        let size = try io.size(of: fd)
        let buffer = room(for: size)
        // A segment is only written under the journal's lock, so it does not grow meanwhile; a
        // short read (it shrank) ends the bytes there.
        var count = 0
        while count < size {
            let want = min(Self.piece, size - count)
            let got = try io.readFully(fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[count..<(count + want)]), at: count)
            count += got
            progress(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            if got < want { break }
        }
        return UnsafeRawBufferPointer(rebasing: buffer[..<count])
    }

    /// The buffer, grown to at least `size` bytes (a whole number of units).
    private func room(for size: Int) -> UnsafeMutableRawBufferPointer {
        if let storage, storage.count >= size { return storage }
        storage?.deallocate()
        let capacity = max(1, (size + Self.unit - 1) / Self.unit) * Self.unit
        let grown = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: Self.unit)
        // A hint only: where huge pages are off, the buffer simply uses small ones.
        _ = madvise(grown.baseAddress, capacity, MADV_HUGEPAGE)
        storage = grown
        return grown
    }
}
