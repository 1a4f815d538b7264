import ControlAPI
import Entities
import Foundation
import HTTPTypes
import Logging
import Networking
import ServiceLifecycle
import Storage
@testable import SurveyDaemon
import SurveyTesting
import Synchronization
import Testing

/// A survey server that answers from a handler the test changes, and counts the requests.
final class ScriptedServer: HTTPTransport {
    typealias Handler = @Sendable (TransportRequest) async throws(NetworkError) -> TransportResponse
    private let handler: Mutex<Handler>
    private let count = Mutex(0)

    init(_ handler: @escaping Handler) { self.handler = Mutex(handler) }

    var requests: Int { count.withLock { $0 } }

    func answer(with handler: @escaping Handler) { self.handler.withLock { $0 = handler } }

    func send(_ request: TransportRequest, timeout: Duration) async throws(NetworkError) -> TransportResponse {
        count.withLock { $0 += 1 }
        let handler = handler.withLock { $0 }
        return try await handler(request)
    }

    static func ok(_ body: Data) -> TransportResponse { TransportResponse(status: 200, body: body) }
}

/// A response held back until the test lets it go: a server that hangs meanwhile.
final class Gate: Sendable {
    private struct State {
        var response: TransportResponse?
        var waiting: [CheckedContinuation<TransportResponse, Never>] = []
    }

    private let state = Mutex(State())

    var isOpen: Bool { state.withLock { $0.response != nil } }

    func wait() async -> TransportResponse {
        await withCheckedContinuation { continuation in
            let ready: TransportResponse? = state.withLock { state in
                if let response = state.response { return response }
                state.waiting.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    func open(with response: TransportResponse) {
        let waiting = state.withLock { state in
            guard state.response == nil else { return [CheckedContinuation<TransportResponse, Never>]() }
            state.response = response
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume(returning: response) }
    }
}

/// Runs `body` while the source's fetches run as in the daemon (their service in a service
/// group), then shuts the group down gracefully.
func withFetchesRunning(_ source: ServerDefinitionSource, _ body: () async throws -> Void) async throws {
    let group = ServiceGroup(services: [DefinitionFetchesService(source: source)], gracefulShutdownSignals: [], logger: Logger(label: "test"))
    async let run: Void = group.run()
    #expect(await eventually { await source.shared.fetches.isRunning })
    try await body()
    await group.triggerGracefulShutdown()
    try await run
}

struct AlwaysReachable: ConnectivityProbe {
    func isReachable() async -> Bool { true }
}

/// Questionnaire fetches through a scripted server: a short deadline when a copy is cached, one
/// fetch shared by concurrent starts, and a questionnaire with errors never replacing a good one.
@Suite(.timeLimit(.minutes(5))) struct DefinitionFetchTests {
    let dir: TemporaryDirectory
    let cache: DefinitionCache
    let clock = TestClock()
    let common: Data
    let commonChanged: Data

    init() throws {
        dir = try TemporaryDirectory(prefix: "defs")
        cache = try DefinitionCache(directory: dir.path + "/definitions")
        common = try Fixtures.data("questions/common.en.json")
        commonChanged = Data(String(decoding: common, as: UTF8.self).replacingOccurrences(of: "Please enter your name.", with: "Your full name, please.").utf8)
    }

    func source(_ server: ScriptedServer, deadline: Duration = .milliseconds(100)) -> ServerDefinitionSource {
        let client = SurveyClient(
            configuration: SurveyClientConfiguration(baseURL: URL(string: "http://survey.invalid")!),
            transport: server, connectivity: ConnectivityMonitor(probe: AlwaysReachable(), reuse: .seconds(3600)), logger: Logger(label: "test"))
        let clock = clock
        return ServerDefinitionSource(client: client, cache: cache, deadline: deadline, now: { clock.now() }, logger: Logger(label: "test"))
    }

    /// Fetches stage common (en) once, so that a copy is cached, then makes the server hang until
    /// the returned gate opens.
    func cacheThenHang(_ server: ScriptedServer, _ source: ServerDefinitionSource) async throws -> (first: LoadedDefinition, gate: Gate) {
        let first = try await source.definition(stage: "common", language: "en")
        await source.settleFetches()
        let gate = Gate()
        server.answer { _ in await gate.wait() }
        return (first, gate)
    }

    /// Lets a hanging server go after a long while, so that a start that waits for it (the
    /// behaviour this guards against) ends the test instead of hanging it.
    func watchdog(_ gate: Gate) -> Task<Void, Never> {
        Task {
            try? await Task.sleep(for: .seconds(20))
            gate.open(with: TransportResponse(status: 503))
        }
    }

    @Test func withACachedCopyAHangingServerDoesNotHoldUpStartsAndOneFetchIsShared() async throws {
        let server = ScriptedServer { [common] _ in ScriptedServer.ok(common) }
        let source = source(server)
        try await withFetchesRunning(source) {
            let (first, gate) = try await cacheThenHang(server, source)
            let watchdog = watchdog(gate)
            defer { watchdog.cancel() }

            let hashes = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0 ..< 5 {
                    group.addTask { try await source.definition(stage: "common", language: "en").hash }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(!gate.isOpen, "the starts returned while the server still hangs")
            #expect(hashes == Array(repeating: first.hash, count: 5), "from the cached copy")
            #expect(server.requests == 2, "the five starts shared one fetch")
            // Once the fetch has run past the deadline, a start does not wait at all, nor fetch again.
            #expect(try await source.definition(stage: "common", language: "en").hash == first.hash)
            #expect(server.requests == 2)

            // The fetch goes on in the background and refreshes the cache when the server answers.
            gate.open(with: ScriptedServer.ok(commonChanged))
            await source.settleFetches()
            let changed = DefinitionCache.hash([UInt8](commonChanged))
            #expect(try cache.current(typeID: "common", language: "en")?.hash == changed)
            let next = try await source.definition(stage: "common", language: "en")
            #expect(next.hash == changed && next.questionnaire.forms.first?.question == "Your full name, please.")
        }
        dir.remove()
    }

    @Test func withoutACachedCopyAStartWaitsForTheFetchAndATimeoutSaysSo() async throws {
        let server = ScriptedServer { [common] _ in
            try? await Task.sleep(for: .milliseconds(200))
            return ScriptedServer.ok(common)
        }
        // A deadline far below the server's delay: without a cached copy it does not apply.
        let source = source(server, deadline: .milliseconds(1))
        try await withFetchesRunning(source) {
            #expect(try await source.definition(stage: "common", language: "en").questionnaire.forms.count == 5)

            server.answer { _ throws(NetworkError) in throw NetworkError(.timeout, "No answer within 30 seconds") }
            do {
                _ = try await source.definition(stage: "2", language: "en")
                Issue.record("a stage never cached started while the server timed out")
            } catch let error as DefinitionSourceError {
                let reply = ControlError(SessionError(error))
                #expect(error.code == .unavailable && reply.status == 503 && reply.code == "definition_unavailable")
                #expect(error.message == "stage 2 (en) is not cached and the survey server did not send it within its read timeout (30 s); check the server, then start again")
            }
        }
        dir.remove()
    }

    @Test func aQuestionnaireWithErrorsKeepsTheLastGoodOneAndIsReported() async throws {
        let broken = try Fixtures.data("broken/duplicate-names.json")
        let server = ScriptedServer { [common] _ in ScriptedServer.ok(common) }
        // Not about the deadline: a long one, so that a loaded machine still sees every fetch end.
        let source = source(server, deadline: .seconds(20))
        try await withFetchesRunning(source) {
            let good = try await source.definition(stage: "common", language: "en")
            #expect(await source.problems().isEmpty)

            server.answer { _ in ScriptedServer.ok(broken) }
            let reported = clock.now()
            let kept = try await source.definition(stage: "common", language: "en")
            #expect(kept.hash == good.hash, "sessions keep starting from the last good copy")
            #expect(try cache.current(typeID: "common", language: "en")?.hash == good.hash, "the cache still names it")
            let problems = await source.problems()
            #expect(problems.map(\.stage) == ["common"] && problems.map(\.language) == ["en"])
            #expect(problems.first?.error.contains("name") == true, "\(problems)")
            #expect(problems.first?.since == reported)
            // Sent again, the same questionnaire is the same problem, since it was first seen.
            clock.advance(60)
            #expect(try await source.definition(stage: "common", language: "en").hash == good.hash)
            #expect(await source.problems().map(\.since) == [reported])
            // Without a good copy, nothing can start, and the problem is listed too.
            do {
                _ = try await source.definition(stage: "1", language: "ko")
                Issue.record("a questionnaire with errors was used")
            } catch let error as DefinitionSourceError {
                let reply = ControlError(SessionError(error))
                #expect(error.code == .invalid && reply.status == 503 && reply.code == "definition_invalid")
                #expect(error.message.contains("no earlier good copy is cached"))
            }
            #expect(await source.problems().map { "\($0.stage).\($0.language)" } == ["1.ko", "common.en"])

            // A good questionnaire from the server ends the problem.
            server.answer { [commonChanged] _ in ScriptedServer.ok(commonChanged) }
            let fixed = try await source.definition(stage: "common", language: "en")
            #expect(fixed.hash == DefinitionCache.hash([UInt8](commonChanged)))
            #expect(await source.problems().map(\.stage) == ["1"])
        }
        dir.remove()
    }

    /// The daemon's shutdown stops the fetches in flight: cancelled, they store nothing, the
    /// shutdown ends once they have ended, and later requests fetch in the caller's task.
    @Test func theShutdownStopsTheFetchesInFlight() async throws {
        let server = ScriptedServer { [common] _ in ScriptedServer.ok(common) }
        let source = source(server)
        let group = ServiceGroup(services: [DefinitionFetchesService(source: source)], gracefulShutdownSignals: [], logger: Logger(label: "test"))
        async let run: Void = group.run()
        #expect(await eventually { await source.shared.fetches.isRunning })
        let (first, gate) = try await cacheThenHang(server, source)
        let watchdog = watchdog(gate)
        defer { watchdog.cancel() }
        #expect(try await source.definition(stage: "common", language: "en").hash == first.hash)
        #expect(await source.shared.fetches.inFlight == 1)

        await group.triggerGracefulShutdown()
        #expect(await eventually { await source.shared.fetches.inFlight == 0 })
        #expect(await source.shared.fetches.unfinished == 1, "the stopped fetch still runs")

        // The stopped fetch gets its answer now: it must not cache it. The shutdown waited for it.
        gate.open(with: ScriptedServer.ok(commonChanged))
        try await run
        #expect(await source.shared.fetches.unfinished == 0, "the shutdown ended before the fetch it stopped")
        #expect(try cache.current(typeID: "common", language: "en")?.hash == first.hash)
        server.answer { [commonChanged] _ in ScriptedServer.ok(commonChanged) }
        // After the stop, a request fetches inline: it waits for the server and caches what came.
        let inline = try await source.definition(stage: "common", language: "en")
        #expect(inline.hash == DefinitionCache.hash([UInt8](commonChanged)))
        dir.remove()
    }

    /// The single-flight table on its own: a caller that gives up leaves the fetch running; a
    /// stop cancels it, and the fetch sees it.
    @Test func aStoppedFetchIsCancelled() async throws {
        let fetches = DefinitionFetches<Bool>()
        async let run: Void = fetches.run()
        #expect(await eventually { await fetches.isRunning })
        let key = DefinitionKey(stage: "common", language: "en")
        let gate = Gate()
        let watchdog = watchdog(gate)
        defer { watchdog.cancel() }
        let (cancelled, seen) = AsyncStream<Bool>.makeStream()
        let wait = await fetches.outcome(of: key, deadline: .milliseconds(10)) {
            _ = await gate.wait()
            seen.yield(Task.isCancelled)
            return Task.isCancelled
        }
        guard case .gaveUp = wait else { Issue.record("waited for a hanging fetch"); return }
        #expect(await fetches.inFlight == 1)
        await fetches.stop()
        #expect(await fetches.inFlight == 0)
        gate.open(with: TransportResponse(status: 200))
        var iterator = cancelled.makeAsyncIterator()
        #expect(await iterator.next() == true, "the fetch ran on, cancelled")
        await run
        #expect(await fetches.unfinished == 0, "run() returned before the fetch it cancelled ended")
        guard case .outcome(false) = await fetches.outcome(of: key, deadline: .zero, fetch: { Task.isCancelled }) else {
            Issue.record("after the stop a fetch is not run inline")
            return
        }
    }

    /// A caller's deadline is measured and slept on the injected clock: it gives up when that
    /// clock passes the deadline, not before, whatever the time elsewhere.
    @Test func aCallersDeadlineIsKeptOnTheInjectedClock() async throws {
        let clock = ManualClock()
        let fetches = DefinitionFetches<Bool>(clock: clock)
        async let run: Void = fetches.run()
        #expect(await eventually { await fetches.isRunning })
        let key = DefinitionKey(stage: "common", language: "en")
        let gate = Gate()
        let watchdog = watchdog(gate)
        defer { watchdog.cancel() }
        let waiting = Task { await fetches.outcome(of: key, deadline: .seconds(3)) { _ = await gate.wait(); return true } }
        #expect(await eventually { clock.sleeping == 1 })
        #expect(clock.deadlines == [.seconds(3)])
        clock.advance(by: .seconds(2))
        #expect(clock.sleeping == 1, "2 s of 3 passed: still waiting")
        clock.advance(by: .seconds(1))
        guard case .gaveUp = await waiting.value else { Issue.record("did not give up at its deadline"); return }
        gate.open(with: TransportResponse(status: 200))
        await fetches.stop()
        await run
    }
}
