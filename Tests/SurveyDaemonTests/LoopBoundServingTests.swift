import Hummingbird
import HummingbirdCore
import HummingbirdTesting
import Logging
import NIOCore
import NIOPosix
import Storage
@testable import SurveyDaemon
import SurveyTesting
import Testing

/// A default actor: with a task executor preference, its jobs run on the preferred executor.
private actor Witness {
    func onLoop() -> Bool { MultiThreadedEventLoopGroup.currentEventLoop != nil }
}

@Suite(.timeLimit(.minutes(5))) struct LoopBoundServingTests {
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

    /// A request context that keeps the connection's channel, to ask whether the handler runs on
    /// that connection's own loop.
    struct ChannelContext: RequestContext {
        var coreContext: CoreRequestContextStorage
        let channel: any Channel
        init(source: ApplicationRequestContextSource) {
            coreContext = .init(source: source)
            channel = source.channel
        }
    }

    static func application(_ server: HTTPServerBuilder) -> some ApplicationProtocol {
        let router = Router(context: ChannelContext.self)
        router.get("where") { _, context in
            let inHandler = context.channel.eventLoop.inEventLoop
            let inActor = await Witness().onLoop() && context.channel.eventLoop.inEventLoop
            return inHandler && inActor ? "loop" : "pool"
        }
        // An event loop group of two threads: a handler on the wrong loop is told apart.
        return Application(router: router, server: server, configuration: .init(address: .hostname("127.0.0.1", port: 0)), eventLoopGroupProvider: .shared(Self.loops))
    }

    static let loops = MultiThreadedEventLoopGroup(numberOfThreads: 2)

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

    @Test func theQueueIsCalledOnThePoolFromATaskPreferringALoop() async throws {
        let dir = try TemporaryDirectory(prefix: "lb")
        defer { dir.remove() }
        let storage = try SubmissionQueue(directory: dir.path, logger: Logger(label: "test"))
        defer { storage.close(then: {}) }
        let queue = StoredSubmissionQueue(queue: storage, wakeup: DeliveryWakeup())
        let loop = Self.loops.next()
        let (beside, inside) = await withTaskExecutorPreference(EventLoopTaskExecutor(loop)) {
            (await Witness().onLoop(), await onPool { await Witness().onLoop() })
        }
        #expect(beside)
        #expect(!inside)
        #expect(try await queue.counts().pending == 0)
    }
}
