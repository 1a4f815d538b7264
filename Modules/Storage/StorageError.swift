#if canImport(Glibc)
import Glibc
#endif

/// An error from the Storage module: a stable `code`, a `message` saying what went wrong and what to do,
/// and an optional underlying `cause`.
public struct StorageError: Error, Sendable, CustomStringConvertible {
    /// Stable, machine-readable codes.
    public enum Code: String, Sendable {
        case locked, ioFailed, failedClosed, recordTooLarge, closed, undecodableEvent, notFound, journalFull, undecodableRecord
        /// The journal's key cannot be used, or the directory was written with another key or
        /// with encryption while none is given: nothing in the directory was changed.
        case keyRefused
    }
    public var code: Code
    public var message: String
    public var cause: (any Error & Sendable)?

    public init(code: Code, message: String, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    public var description: String { "StorageError.\(code.rawValue): \(message)" }
}

/// An errno captured from a failing system call.
public struct SystemCallError: Error, Sendable, CustomStringConvertible {
    public var call: String
    public var errno: Int32
    public var description: String { "\(call) failed with \(Self.name(of: errno)) (errno \(errno))" }

    /// The symbolic name of an errno the journal can meet (`ENOSPC`, `EIO`, …), else `errno N`.
    public static func name(of errno: Int32) -> String {
        let names: [Int32: String] = [
            EPERM: "EPERM", ENOENT: "ENOENT", EINTR: "EINTR", EIO: "EIO", EBADF: "EBADF", EAGAIN: "EAGAIN",
            ENOMEM: "ENOMEM", EACCES: "EACCES", EBUSY: "EBUSY", EEXIST: "EEXIST", ENOTDIR: "ENOTDIR",
            EISDIR: "EISDIR", EINVAL: "EINVAL", ENFILE: "ENFILE", EMFILE: "EMFILE", EFBIG: "EFBIG",
            ENOSPC: "ENOSPC", EROFS: "EROFS", EDQUOT: "EDQUOT", ESTALE: "ESTALE", ENODEV: "ENODEV",
            ENXIO: "ENXIO", EOPNOTSUPP: "EOPNOTSUPP",
        ]
        return names[errno] ?? "errno \(errno)"
    }
}
