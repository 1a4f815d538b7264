import Hummingbird
import HummingbirdCore
import HummingbirdTesting
import NIOCore
import NIOPosix
@testable import SurveyDaemon
import Testing

/// A default actor: with a task executor preference, its jobs run on the preferred executor.
private actor Witness {
    func onLoop() -> Bool { MultiThreadedEventLoopGroup.currentEventLoop != nil }
}

@Suite struct LoopBoundServingTests {
    @Test func aTaskPreferringTheLoopRunsOnItAcrossSuspensionsActorsAndChildren() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let seen = await withTaskExecutorPreference(EventLoopTaskExecutor(loop)) {
            var seen = [loop.inEventLoop]
            try? await Task.sleep(for: .milliseconds(2))
            seen.append(loop.inEventLoop)
            seen.append(await Witness().onLoop())
            seen.append(await withTaskGroup(of: Bool.self) { children in
                children.addTask { loop.inEventLoop }
                return await children.next() ?? false
            })
            return seen
        }
        #expect(seen == [true, true, true, true])
        #expect(!loop.inEventLoop)
        try await group.shutdownGracefully()
    }

    @Test func theWitnessTellsThePoolFromALoop() async throws {
        // Without a preference the same actor runs on the task pool: the other tests can fail.
        #expect(await Witness().onLoop() == false)
    }

    static func application(_ server: HTTPServerBuilder) -> some ApplicationProtocol {
        let router = Router()
        router.get("where") { _, _ in await Witness().onLoop() ? "loop" : "pool" }
        return Application(router: router, server: server, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    @Test(arguments: [("loop bound", true), ("plain", false)])
    func requestsOfALoopBoundServerAreHandledOnTheirLoop(_ name: String, _ loopBound: Bool) async throws {
        let app = Self.application(loopBound ? .loopBoundHTTP1() : .http1())
        try await app.test(.live) { client in
            for _ in 0..<3 {
                try await client.execute(uri: "/where", method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(String(buffer: response.body) == (loopBound ? "loop" : "pool"))
                }
            }
        }
    }
}
