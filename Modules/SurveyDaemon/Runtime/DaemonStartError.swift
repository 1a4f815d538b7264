/// A failure to start the daemon, with what to do about it.
public struct DaemonStartError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
