#if canImport(Glibc)
import Glibc
#endif
import ControlAPI
import Foundation
import Logging
import SurveyTesting
import Testing
@testable import SurveyDaemon

/// Only a refused connection (or a missing file) makes a control socket stale; any other connect
/// error leaves it alone and stops the start with the path and the errno.
@Suite(.timeLimit(.minutes(5))) struct SocketProbeTests {
    @Test(arguments: [ECONNREFUSED, ENOENT])
    func refusedOrMissingIsStale(code: Int32) {
        #expect(UnixSocketProbe.classify(connectErrno: code) == .stale)
    }

    @Test(arguments: [EAGAIN, EACCES, EPERM, ETIMEDOUT, EINTR, ENOTSOCK, ENOMEM, ELOOP])
    func otherErrorsAreUnknownNotStale(code: Int32) {
        #expect(UnixSocketProbe.classify(connectErrno: code) == .unknown(errno: code))
    }

    @Test func errnoIsNamedForPeople() {
        #expect(UnixSocketProbe.describe(errno: EAGAIN) == "EAGAIN (Resource temporarily unavailable)")
        #expect(UnixSocketProbe.describe(errno: EACCES) == "EACCES (Permission denied)")
        #expect(UnixSocketProbe.describe(errno: 9999).hasPrefix("errno 9999"))
    }

    /// A socket file bound by this test, with `backlog` >= 0 listening (and never accepting), or not listening.
    func boundSocket(at path: String, listenBacklog: Int32?) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        try #require(bound == 0)
        if let listenBacklog { try #require(listen(fd, listenBacklog) == 0) }
        return fd
    }

    /// Connects without blocking; true when the connection was queued.
    func queueClient(to path: String) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let result = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        if result != 0 { close(fd); return -1 }
        return fd
    }

    @Test func aLiveDaemonWithAFullBacklogIsNeitherLiveNorStale() throws {
        let dir = try TemporaryDirectory(prefix: "bk")
        defer { dir.remove() }
        let path = dir.appending("d.sock").path
        let listener = try boundSocket(at: path, listenBacklog: 0)
        defer { close(listener) }
        // Fill the backlog: connections are queued until one is refused.
        var clients: [Int32] = []
        defer { for fd in clients { close(fd) } }
        while clients.count < 16 {
            let fd = queueClient(to: path)
            if fd < 0 { break }
            clients.append(fd)
        }
        try #require(clients.count < 16, "the backlog never filled")
        #expect(UnixSocketProbe.probe(path: path, timeout: .milliseconds(100)) == .unknown(errno: EAGAIN))
        let server = ControlServer(socketPath: path, socketGroup: nil, maxRequestBytes: 4096, backend: FakeBackend(), eventLoopGroup: controlTestLoop, logger: Logger(label: "t"))
        do throws(ControlError) {
            _ = try server.prepareSocketPath()
            Issue.record("started beside a live daemon")
        } catch {
            #expect(error.code == "socket_unusable")
            #expect(error.message.contains(path))
            #expect(error.message.contains("EAGAIN"))
        }
        var info = stat()
        #expect(lstat(path, &info) == 0, "the live daemon's socket was removed")
    }

    @Test(arguments: [EACCES, EPERM, EAGAIN])
    func aSocketThatCannotBeProbedIsNeverRemoved(code: Int32) throws {
        let dir = try TemporaryDirectory(prefix: "ac")
        defer { dir.remove() }
        let path = dir.appending("d.sock").path
        close(try boundSocket(at: path, listenBacklog: nil))
        do throws(ControlError) {
            _ = try ControlSocket.prepare(path: path, probe: { _ in .unknown(errno: code) })
            Issue.record("prepared a socket it could not probe")
        } catch {
            #expect(error.code == "socket_unusable")
            #expect(error.message.contains(path))
            #expect(error.message.contains(UnixSocketProbe.describe(errno: code)))
        }
        #expect(FileManager.default.fileExists(atPath: path))
        // The same file, really probed, is refused: stale, so it is removed.
        _ = try ControlSocket.prepare(path: path)
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
