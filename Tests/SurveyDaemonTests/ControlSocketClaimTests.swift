#if canImport(Glibc)
import Glibc
#endif
import ControlAPI
import Foundation
import Logging
import ServiceLifecycle
@testable import SurveyDaemon
import SurveyTesting
import Testing

/// One daemon per socket path: the path's lock is taken before the path is checked, and the
/// socket file is removed at shutdown only while it is the one the daemon bound.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ControlSocketClaimTests {
    func server(_ path: String) -> ControlServer {
        ControlServer(socketPath: path, socketGroup: nil, maxRequestBytes: 4096, backend: FakeBackend(), eventLoopGroup: controlTestLoop, logger: Logger(label: "t"))
    }

    @Test func aSecondDaemonIsRefusedWhileTheFirstHoldsThePathEvenBeforeItBinds() throws {
        let dir = try TemporaryDirectory(prefix: "cl")
        defer { dir.remove() }
        let path = dir.appending("d.sock").path
        let first = try server(path).prepareSocketPath()
        // Nothing is bound yet: only the lock tells the second one.
        #expect(!FileManager.default.fileExists(atPath: path))
        do throws(ControlError) {
            _ = try server(path).prepareSocketPath()
            Issue.record("a second daemon prepared a socket path another one holds")
        } catch {
            #expect(error.code == "already_running")
            #expect(error.message == "another surveyd is already serving \(path); stop it first (surveyctl --socket \(path) status shows it) or choose another --socket")
        }
        var info = stat()
        #expect(stat(first.lockPath, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        first.release()
        #expect(!first.isHeld)
        let second = try server(path).prepareSocketPath()
        #expect(second.isHeld)
        second.release()
    }

    /// Serves on `path` until `during` returns, then shuts down; returns the claim (released).
    func serve(_ path: String, during: () async throws -> Void) async throws -> ControlSocketClaim {
        let server = server(path)
        let claim = try server.prepareSocketPath()
        try await serving(server, claim: claim, during: during)
        // Still held until the daemon exits.
        #expect(claim.isHeld)
        claim.release()
        return claim
    }

    @Test func shutdownRemovesTheSocketItBound() async throws {
        let dir = try TemporaryDirectory(prefix: "cl")
        defer { dir.remove() }
        let path = dir.appending("d.sock").path
        _ = try await serve(path) {
            let status = try await ControlClient(socketPath: path).status()
            #expect(status.version == "test")
        }
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(FileManager.default.fileExists(atPath: path + ".lock"), "the lock file stays, so that every daemon locks the same file")
    }

    @Test func shutdownLeavesASocketFileItDidNotCreate() async throws {
        let dir = try TemporaryDirectory(prefix: "cl")
        defer { dir.remove() }
        let path = dir.appending("d.sock").path
        var other: Int32 = -1
        defer { if other >= 0 { close(other) } }
        _ = try await serve(path) {
            // Someone replaces the socket file while the daemon runs.
            unlink(path)
            other = try Self.bindSocket(at: path)
        }
        var info = stat()
        #expect(lstat(path, &info) == 0, "the daemon removed a socket file it did not create")
    }

    static func bindSocket(at path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        try #require(bound == 0)
        return fd
    }
}
