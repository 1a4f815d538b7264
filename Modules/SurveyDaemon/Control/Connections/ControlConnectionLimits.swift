/// The time limits of a control connection, and the cap on their number.
public struct ControlConnectionLimits: Sendable, Hashable {
    /// How long a request's head may take from its first byte (from the connection's start for
    /// its first request), and its body from the end of its head.
    public var readTimeout: Duration
    /// How long a connection may stay open with no request after its last response.
    public var idleTimeout: Duration
    /// The most control connections open at once; beyond it, the oldest without a request in
    /// progress is closed.
    public var maxConnections: Int

    public init(readTimeout: Duration = .seconds(10), idleTimeout: Duration = .seconds(60), maxConnections: Int = 256) {
        self.readTimeout = readTimeout
        self.idleTimeout = idleTimeout
        self.maxConnections = maxConnections
    }
}
