import ControlAPI
import Foundation
import Logging
import ServiceLifecycle
@testable import SurveyDaemon
import SurveyTesting
import Testing

/// A backend whose flush waits until the test opens the gate, so that a request stays in progress.
final class GatedBackend: ForwardingToFake {
    let fake = FakeBackend()
    let started: AsyncStream<Void>
    private let startedContinuation: AsyncStream<Void>.Continuation
    private let gate: AsyncStream<Void>
    private let gateContinuation: AsyncStream<Void>.Continuation

    init() {
        (started, startedContinuation) = AsyncStream<Void>.makeStream()
        (gate, gateContinuation) = AsyncStream<Void>.makeStream()
    }

    func open() { gateContinuation.finish() }

    func flush(_ request: FlushRequest) async throws -> FlushReply {
        startedContinuation.yield()
        for await _ in gate {}
        return try await fake.flush(request)
    }
}

/// Control connections are timed out while a request is read and while idle, and held to a cap
/// that closes the oldest connections without a request in progress.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ControlConnectionTests {
    static let short = ControlConnectionLimits(readTimeout: .milliseconds(300), idleTimeout: .milliseconds(500), maxConnections: 64)
    static let partialHead = Data("GET /v1/status HTTP/1.1\r\nHost: surveyd\r\nX-Half".utf8)

    static func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

    @Test func aPartialHeadGets408AndTheConnectionIsClosed() async throws {
        try await withControlServer(limits: Self.short) { path, _ in
            let held = try await HeldConnections.open(socket: path, count: 1, sending: Self.partialHead)
            #expect(try await held.waitUntilClosed(atLeast: 1, timeout: .seconds(20)) == 1)
            let reply = Self.text(held.received(at: 0))
            #expect(reply.hasPrefix("HTTP/1.1 408"), "\(reply)")
            #expect(reply.contains(#""code":"request_timeout""#), "\(reply)")
        }
    }

    @Test func aConnectionThatSendsNothingIsClosed() async throws {
        try await withControlServer(limits: Self.short) { path, _ in
            let held = try await HeldConnections.open(socket: path, count: 3, sending: Data())
            #expect(try await held.waitUntilClosed(atLeast: 3, timeout: .seconds(20)) == 3)
            #expect(held.received(at: 0).isEmpty)
        }
    }

    @Test func aStalledBodyGets408() async throws {
        // The idle timeout is how long the route has to reply before the connection is closed
        // without it: long, so that a loaded machine still sees the 408.
        let limits = ControlConnectionLimits(readTimeout: .milliseconds(300), idleTimeout: .seconds(20), maxConnections: 64)
        try await withControlServer(limits: limits) { path, backend in
            let raw = "POST /v1/answers HTTP/1.1\r\nHost: surveyd\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"values\":"
            let held = try await HeldConnections.open(socket: path, count: 1, sending: Data(raw.utf8))
            #expect(try await held.waitUntilClosed(atLeast: 1, timeout: .seconds(20)) == 1)
            let reply = try UnixHTTP.parse(held.received(at: 0))
            #expect(reply.status == 408, "\(reply.bodyText)")
            let error = try JSONDecoder().decode(ErrorReply.self, from: reply.body)
            #expect(error.error.code == "request_timeout")
            #expect(error.error.message.hasPrefix("the request body was not received within"), "\(error.error.message)")
            #expect(await backend.answers.isEmpty)
        }
    }

    @Test func anIdleKeptAliveConnectionIsClosedAfterItsReply() async throws {
        try await withControlServer(limits: Self.short) { path, _ in
            let held = try await HeldConnections.open(socket: path, count: 1, sending: Data("GET /v1/status HTTP/1.1\r\nHost: surveyd\r\n\r\n".utf8))
            #expect(try await held.waitUntilClosed(atLeast: 1, timeout: .seconds(20)) == 1)
            let reply = try UnixHTTP.parse(held.received(at: 0))
            #expect(reply.status == 200)
        }
    }

    @Test func aConnectionKeptOpenAfterAParseErrorIsClosed() async throws {
        // A long idle timeout: the close must come from the parse error.
        let limits = ControlConnectionLimits(readTimeout: .seconds(60), idleTimeout: .seconds(60), maxConnections: 64)
        try await withControlServer(limits: limits) { path, _ in
            let held = try await HeldConnections.open(socket: path, count: 1, sending: Data("\u{01}\u{02}NOT HTTP\r\n\r\n".utf8))
            #expect(try await held.waitUntilClosed(atLeast: 1, timeout: .seconds(20)) == 1)
            #expect(Self.text(held.received(at: 0)).hasPrefix("HTTP/1.1 400"), "\(Self.text(held.received(at: 0)))")
            // Not only the server's sending side: its descriptor is closed too.
            #expect(try await held.waitUntilServerGone(at: 0, timeout: .seconds(20)))
        }
    }

    /// At the cap the oldest connections without a request in progress are closed, so a normal
    /// request is served while many connections hang with half a head.
    @Test func atTheCapTheOldestIdleConnectionsAreClosedAndANormalRequestIsServed() async throws {
        // A long read timeout: every close here comes from the cap.
        let limits = ControlConnectionLimits(readTimeout: .seconds(60), idleTimeout: .seconds(60), maxConnections: 8)
        try await withControlServer(limits: limits) { path, _ in
            let held = try await HeldConnections.open(socket: path, count: 50, sending: Self.partialHead)
            #expect(try await held.waitUntilClosed(atLeast: 42, timeout: .seconds(20)) == 42)
            let closed = held.poll()
            #expect(closed.prefix(42).allSatisfy { $0 } && !closed.suffix(8).contains(true), "\(closed)")
            let reply = try await UnixHTTP.request(socket: path, method: "GET", target: "/v1/status")
            #expect(reply.status == 200)
            // The normal request's connection closed the oldest one left.
            #expect(try await held.waitUntilClosed(atLeast: 43, timeout: .seconds(20)) == 43)
            #expect(held.poll()[42])
        }
    }

    @Test func aRequestInProgressIsNotClosedAtTheCap() async throws {
        let limits = ControlConnectionLimits(readTimeout: .seconds(60), idleTimeout: .seconds(60), maxConnections: 2)
        let backend = GatedBackend()
        try await withControlServer(limits: limits, backend: backend) { path, _ in
            let flush = Task { try await UnixHTTP.request(socket: path, method: "POST", target: "/v1/flush") }
            var started = backend.started.makeAsyncIterator()
            _ = await started.next()
            // Two more: the second makes three, and the oldest without a request in progress goes.
            let held = try await HeldConnections.open(socket: path, count: 2, sending: Self.partialHead)
            #expect(try await held.waitUntilClosed(atLeast: 1, timeout: .seconds(20)) == 1)
            #expect(held.poll() == [true, false])
            backend.open()
            let reply = try await flush.value
            #expect(reply.status == 200, "\(reply.bodyText)")
        }
    }

    /// A graceful shutdown stops accepting, closes the connections between requests and lets a
    /// request in progress finish.
    @Test func aGracefulShutdownFinishesTheRequestInProgressAndClosesTheRest() async throws {
        let dir = try TemporaryDirectory(prefix: "gs")
        defer { dir.remove() }
        let path = dir.appending("d.sock").path
        let backend = GatedBackend()
        let server = ControlServer(socketPath: path, socketGroup: nil, maxRequestBytes: 4096, limits: .init(readTimeout: .seconds(60), idleTimeout: .seconds(60)), backend: backend, eventLoopGroup: controlTestLoop, logger: Logger(label: "t"))
        let claim = try server.prepareSocketPath()
        defer { claim.release() }
        let (ready, readyContinuation) = AsyncStream<Void>.makeStream()
        let group = ServiceGroup(services: [server.service(claim: claim) { readyContinuation.yield() }], gracefulShutdownSignals: [], logger: Logger(label: "t"))
        let running = Task { try await group.run() }
        var iterator = ready.makeAsyncIterator()
        await iterator.next()
        let flush = Task { try await UnixHTTP.request(socket: path, method: "POST", target: "/v1/flush") }
        var started = backend.started.makeAsyncIterator()
        _ = await started.next()
        let held = try await HeldConnections.open(socket: path, count: 2, sending: Self.partialHead)
        await group.triggerGracefulShutdown()
        #expect(try await held.waitUntilClosed(atLeast: 2, timeout: .seconds(20)) == 2)
        // No longer accepting.
        await #expect(throws: (any Error).self) { _ = try await HeldConnections.open(socket: path, count: 1, sending: Data(), timeout: 1) }
        backend.open()
        #expect(try await flush.value.status == 200)
        try await running.value
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
