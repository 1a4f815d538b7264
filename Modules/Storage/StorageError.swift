/// An error from the Storage module: a stable `code`, a `message` saying what went wrong and what to do,
/// and an optional underlying `cause`.
public struct StorageError: Error, Sendable, CustomStringConvertible {
    /// Stable, machine-readable codes.
    public enum Code: String, Sendable {
        case locked, ioFailed, failedClosed, recordTooLarge, closed, undecodableEvent, notFound, journalFull, undecodableRecord
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
    public var description: String { "\(call) failed with errno \(errno)" }
}
