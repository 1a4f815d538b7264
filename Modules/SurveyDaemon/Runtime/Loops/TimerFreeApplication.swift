#if canImport(Glibc)
import Glibc
#endif
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import Synchronization

/// A Hummingbird application that sets no timer while no request comes: `Application` runs a
/// service that formats the `Date` header every second, which wakes an idle daemon for nothing.
/// This one formats it when a response needs it (once per second at most, ``HTTPDate``) and
/// otherwise runs the server as `Application` does, without a `Server` header unless named.
struct TimerFreeApplication<Responder: HTTPResponder>: ApplicationProtocol
where Responder.Context: InitializableFromSource<ApplicationRequestContextSource> {
    let responder: Responder
    let server: HTTPServerBuilder
    let configuration: ApplicationConfiguration
    let logger: Logger
    private let running: @Sendable (any Channel) async -> Void

    init<Builder: HTTPResponderBuilder>(
        router: Builder, server: HTTPServerBuilder = .http1(), configuration: ApplicationConfiguration, logger: Logger,
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) where Builder.Responder == Responder {
        self.responder = router.buildResponder()
        self.server = server
        self.configuration = configuration
        self.logger = logger
        self.running = onServerRunning
    }

    func onServerRunning(_ channel: any Channel) async {
        await running(channel)
    }

    /// Serves until the graceful shutdown, as `Application.run()` does but without its date timer.
    func run() async throws {
        let responder = responder
        let logger = logger
        let serverName = configuration.serverName
        let service = try server.buildServer(
            configuration: ServerConfiguration(
                address: configuration.address, serverName: serverName, backlog: configuration.backlog,
                reuseAddress: configuration.reuseAddress, availableConnectionsDelegate: configuration.availableConnectionsDelegate),
            eventLoopGroup: eventLoopGroup, logger: logger
        ) { (request, responseWriter: consuming ResponseWriter, channel) in
            let context = Responder.Context(source: .init(channel: channel, logger: logger))
            var response: Response
            do {
                response = try await responder.respond(to: request, context: context)
            } catch let error as HTTPParserError {
                throw error
            } catch {
                // The router turns every error it knows into a reply; any other is a 500.
                logger.error("a request failed with an error no handler answered; replied 500", metadata: ["error": "\(error)"])
                response = Response(status: .internalServerError, body: .init())
            }
            response.headers[.date] = HTTPDate.now()
            if let serverName { response.headers[.server] = serverName }
            do {
                try await responseWriter.write(response: response.head, body: response.body)
            } catch is HTTPParserError {
                // Not the parser's error: that would make the channel write another response.
                throw ResponseNotWritten()
            }
        } onServerRunning: { channel in
            await self.onServerRunning(channel)
        }
        try await service.run()
    }
}

/// The request could not be read while its response was written: the connection is closed.
struct ResponseNotWritten: Error {}

/// The `Date` header's value (RFC 9110 IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`), formatted
/// again only when the second changed since the last response.
enum HTTPDate {
    private static let cache = Mutex<(second: Int, text: String)>((-1, ""))
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func now() -> String {
        let second = time(nil)
        if let text = cache.withLock({ $0.second == second ? $0.text : nil }) { return text }
        let text = format(second)
        cache.withLock { $0 = (second, text) }
        return text
    }

    /// `seconds` since 1970 as IMF-fixdate.
    static func format(_ seconds: Int) -> String {
        var value = time_t(seconds)
        var parts = tm()
        gmtime_r(&value, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
