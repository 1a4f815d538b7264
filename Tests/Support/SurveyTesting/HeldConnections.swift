#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
public import Foundation

/// Unix-socket connections a test opens and keeps open, e.g. clients that send half a request
/// and then wait: it tells which ones the server has closed, and what each received.
public final class HeldConnections: @unchecked Sendable {
    private let lock = NSLock()
    private var descriptors: [Int32]
    private var received: [Data]
    private var closedByServer: [Bool]

    private init(descriptors: [Int32]) {
        self.descriptors = descriptors
        received = Array(repeating: Data(), count: descriptors.count)
        closedByServer = Array(repeating: false, count: descriptors.count)
    }

    deinit { closeAll() }

    /// Opens `count` connections to `path` one after another, each sending `bytes` (nothing when
    /// empty). Raises this process's open file limit first, as many connections need it.
    /// - Throws: when a connection cannot be made within `timeout`.
    public static func open(socket path: String, count: Int, sending bytes: Data, timeout: TimeInterval = 10) async throws -> HeldConnections {
        OpenFiles.raiseSoftLimit()
        return try await OwnThread.run {
            var opened: [Int32] = []
            do {
                for _ in 0..<count {
                    opened.append(try connectAndSend(path: path, bytes: bytes, timeout: timeout))
                }
                return HeldConnections(descriptors: opened)
            } catch {
                for fd in opened { Glibc.close(fd) }
                throw error
            }
        }
    }

    public var count: Int { lock.withLock { descriptors.count } }

    /// Reads what has arrived without waiting; returns, for each connection, whether the server
    /// has closed it (end of file or a reset).
    public func poll() -> [Bool] {
        lock.withLock {
            var chunk = [UInt8](repeating: 0, count: 4096)
            for index in descriptors.indices where !closedByServer[index] {
                while true {
                    let n = recv(descriptors[index], &chunk, chunk.count, Int32(MSG_DONTWAIT))
                    if n > 0 {
                        received[index].append(contentsOf: chunk[0..<n])
                        continue
                    }
                    if n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) { closedByServer[index] = true }
                    break
                }
            }
            return closedByServer
        }
    }

    /// How many the server has closed.
    public func closedCount() -> Int { poll().filter { $0 }.count }

    /// Polls until the server has closed at least `count` of them or `timeout` passes; returns
    /// how many it has closed.
    public func waitUntilClosed(atLeast count: Int, timeout: Duration) async throws -> Int {
        let clock = ContinuousClock()
        let end = clock.now.advanced(by: timeout)
        var closed = closedCount()
        while closed < count && clock.now < end {
            try await Task.sleep(for: .milliseconds(20))
            closed = closedCount()
        }
        return closed
    }

    /// Whether the server has closed connection `index` entirely, not only its sending side: a
    /// byte sent to it fails (`EPIPE`). Sends a space when it has not.
    public func serverGone(at index: Int) -> Bool {
        lock.withLock {
            var byte: UInt8 = 0x20
            return send(descriptors[index], &byte, 1, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) < 0 && (errno == EPIPE || errno == ECONNRESET)
        }
    }

    /// Polls ``serverGone(at:)`` until it holds or `timeout` passes.
    public func waitUntilServerGone(at index: Int, timeout: Duration) async throws -> Bool {
        let clock = ContinuousClock()
        let end = clock.now.advanced(by: timeout)
        while !serverGone(at: index) {
            guard clock.now < end else { return false }
            try await Task.sleep(for: .milliseconds(20))
        }
        return true
    }

    /// What connection `index` received so far.
    public func received(at index: Int) -> Data { lock.withLock { received[index] } }

    /// Closes every connection this side.
    public func closeAll() {
        lock.withLock {
            for fd in descriptors { Glibc.close(fd) }
            descriptors = []
            received = []
            closedByServer = []
        }
    }

    static func connectAndSend(path: String, bytes: Data, timeout: TimeInterval) throws -> Int32 {
        let fd = try RawSocket.connect(to: .unix(path: path), timeout: timeout)
        // The server may already have closed it (at its connection limit): that is for the test to see.
        if !bytes.isEmpty { _ = try? RawSocket.sendAll(fd, bytes) }
        return fd
    }
}

/// This process's open files.
public enum OpenFiles {
    /// Raises the soft limit of open files to the hard limit, for the whole test process: from
    /// then on descriptors above 1024 exist, which nothing in it may wait on with `select`
    /// (Foundation's `Process` did; `SuiteRulesTests` keeps it out).
    public static func raiseSoftLimit() {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    }

    /// The number of descriptors process `pid` has open (the entries of `/proc/PID/fd`), nil
    /// when they cannot be listed.
    public static func count(pid: Int32) -> Int? {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd"))?.count
    }
}
