#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Whether this process may mount a tmpfs (root with the right to mount, outside a sandbox that
/// refuses it), found out once by mounting and unmounting a small one: tests of a real file
/// system that fills up run only where it may (`.enabled(if: Tmpfs.canMount, …)`), and show as
/// skipped elsewhere.
public enum Tmpfs {
    public static let canMount: Bool = {
        guard let dir = try? TemporaryDirectory(prefix: "tmpfs-probe") else { return false }
        defer { dir.remove() }
        guard "size=64k,mode=0700".withCString({ Glibc.mount("tmpfs", dir.path, "tmpfs", 0, $0) }) == 0 else { return false }
        umount2(dir.path, Int32(MNT_DETACH))
        return true
    }()

    /// Mounts a tmpfs of `size` (e.g. `2m`) at `path`; throws what the system said.
    public static func mount(size: String, at path: String) throws {
        let result = "size=\(size),mode=0700".withCString { Glibc.mount("tmpfs", path, "tmpfs", 0, $0) }
        guard result == 0 else { throw MountError(path: path, reason: String(cString: strerror(errno))) }
    }

    public struct MountError: Error, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "cannot mount a tmpfs at \(path): \(reason)" }
    }
}
