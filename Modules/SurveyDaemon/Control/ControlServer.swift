#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ControlAPI
import Entities
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle
import Synchronization

/// The request context of the control API: it keeps the connection's channel so that the
/// peer's credentials can be checked.
public struct ControlRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}

/// The control API: HTTP/1.1 with JSON bodies on a Unix socket, paths under `/v1`.
/// `doc/control-api.md` documents every endpoint.
public struct ControlServer: Sendable {
    public var socketPath: String
    /// 0600 without a group, 0660 with one.
    public var socketGroup: (name: String, gid: UInt32)?
    public var maxRequestBytes: Int
    /// Read and idle timeouts of a connection, and the cap on open connections.
    public var limits: ControlConnectionLimits
    public var backend: any ControlBackend
    public var logger: Logger

    public init(socketPath: String, socketGroup: (name: String, gid: UInt32)?, maxRequestBytes: Int, limits: ControlConnectionLimits = .init(), backend: any ControlBackend, logger: Logger) {
        self.socketPath = socketPath
        self.socketGroup = socketGroup
        self.maxRequestBytes = maxRequestBytes
        self.limits = limits
        self.backend = backend
        self.logger = logger
    }

    /// The server as a `Service` for the daemon's `ServiceGroup`: it binds the socket, serves
    /// until a graceful shutdown, then removes the socket file when it is still the one it bound.
    /// `claim` is the one ``prepareSocketPath()`` gave; release it when the daemon exits.
    /// - Parameter onReady: called once the socket is bound, its mode set, and it accepts connections.
    public func service(claim: ControlSocketClaim, onReady: @escaping @Sendable () async -> Void = {}) -> some Service {
        let router = Router(context: ControlRequestContext.self)
        router.add(middleware: ControlErrorMiddleware())
        router.add(middleware: PeerCheckMiddleware(policy: PeerPolicy(ownerUID: geteuid(), groupID: socketGroup?.gid)))
        addRoutes(to: router)
        return ControlListener(
            claim: claim, socketGroup: socketGroup?.gid, responder: router.buildResponder(), limits: limits,
            eventLoopGroup: Self.controlLoops, logger: logger, onReady: onReady)
    }

    /// The control API's own event loop, for the life of the process: one thread serves every
    /// control connection (reads, HTTP parsing, writes), apart from the loops of the
    /// survey-server client. In alternated answers-benchmark runs this gave more answers per
    /// second than the shared loops in 3 of 4 pairs, by amounts the size of the noise
    /// (`doc/benchmarks.md`). Like NIO's singletons, its thread ends with the process.
    static let controlLoops = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    /// Makes the socket's directory (0700 when created), takes the socket's lock and refuses to
    /// start when another daemon holds it or answers on the socket; removes a stale socket file.
    /// Keep the claim until the daemon exits, then release it.
    public func prepareSocketPath() throws(ControlError) -> ControlSocketClaim {
        try ControlSocket.prepare(path: socketPath)
    }

    func addRoutes(to router: Router<ControlRequestContext>) {
        let backend = backend
        let limit = maxRequestBytes
        addHealthRoutes(to: router, backend: backend)
        let v1 = router.group("v1")
        v1.get("status") { _, _ in try Self.json(await backend.status()) }
        v1.get("sessions") { _, _ in try Self.json(await backend.openSessions()) }
        v1.post("sessions") { request, context in
            let body = try await Self.decode(StartSessionRequest.self, request, limit: limit, empty: StartSessionRequest())
            return try Self.json(await backend.startSession(body), status: .created)
        }
        v1.get("sessions/:id") { _, context in
            try Self.json(await backend.session(id: Self.pathParameter("id", context)))
        }
        v1.post("answers") { request, context in
            let body = try await Self.decode(AnswerRequest.self, request, limit: limit, empty: nil, simple: AnswerRequest.init(simpleJSON:))
            return try Self.json(await backend.answer(body))
        }
        v1.post("flush") { request, context in
            let body = try await Self.decode(FlushRequest.self, request, limit: limit, empty: FlushRequest())
            return try Self.json(await backend.flush(body))
        }
        v1.get("events") { _, _ in await Self.eventStream(backend) }
        v1.post("resume") { _, _ in try Self.json(await backend.resume()) }
        v1.get("dead") { _, _ in try await onPool { try Self.json(await backend.deadLetters()) } }
        v1.post("dead/:id/requeue") { request, context in
            let body = try await Self.decode(RequeueRequest.self, request, limit: limit, empty: RequeueRequest())
            return try Self.json(await backend.requeue(deadLetter: Self.pathParameter("id", context), body))
        }
        addQueueRoutes(to: v1, limit: limit)
        // `dead//requeue`: the router drops the empty segment; an empty id names no dead letter.
        v1.post("dead/requeue") { _, _ -> Response in
            throw ControlError.notFound("no_such_dead_letter", "no dead letter with an empty id; `surveyctl dead` lists them")
        }
    }

    /// `GET /v1/events`: newline-delimited JSON, a `hello` line first, then each event as it
    /// happens, until the client goes away or the daemon stops.
    static func eventStream(_ backend: any ControlBackend) async -> Response {
        let events = await backend.events()
        let hello = DaemonEvent(.hello, version: ProductVersion.current)
        let body = ResponseBody { writer in
            try await writer.write(line(hello))
            for await event in events {
                try await writer.write(line(event))
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: "application/x-ndjson", .cacheControl: "no-store"], body: body)
    }

    static func line(_ event: DaemonEvent) throws -> ByteBuffer {
        var buffer = ByteBuffer(bytes: try encoder.encode(event))
        buffer.writeInteger(UInt8(ascii: "\n"))
        return buffer
    }

    /// A path parameter, percent-decoded.
    static func pathParameter(_ name: String, _ context: ControlRequestContext) throws -> String {
        let raw = try context.parameters.require(name)
        return raw.removingPercentEncoding ?? raw
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        json(ByteBuffer(bytes: try encoder.encode(value)), status: status)
    }

    /// A body that writes itself (the replies sent on every answer): the same bytes as
    /// ``encoder`` gives, for less CPU.
    static func json(_ value: some Encodable & JSONOutputWritable, status: HTTPResponse.Status = .ok) throws -> Response {
        var out = JSONOutput(escapesSlashes: false)
        value.write(to: &out)
        return json(ByteBuffer(bytes: out.bytes), status: status)
    }

    static func json(_ body: ByteBuffer, status: HTTPResponse.Status) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: body))
    }

    /// Decodes a JSON body; an empty body gives `empty` when the endpoint allows it. `simple`,
    /// when given, reads the common shape of the body without `JSONDecoder` (nil for anything
    /// else, which `JSONDecoder` then decodes or names the error of; a `ByteBufferView` is
    /// contiguous, so the simple reader always gets to try).
    static func decode<T: Decodable>(_ type: T.Type, _ request: Request, limit: Int, empty: T?, simple: ((ByteBufferView) -> T?)? = nil) async throws -> T {
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: limit)
        } catch {
            throw bodyError(error, limit: limit)
        }
        if buffer.readableBytes == 0 {
            if let empty { return empty }
            throw ControlError.badRequest("body_missing", "this endpoint needs a JSON body; see doc/control-api.md")
        }
        if let simple, let value = simple(buffer.readableBytesView) { return value }
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer.readableBytesView))
        } catch let error as DecodingError {
            throw ControlError.badRequest("body_invalid", "the JSON body is not valid: \(error.locatedDescription); see doc/control-api.md")
        }
    }
}

extension ControlServer {
    /// Why a request body could not be read: too large (413), cut short or malformed (400), or not
    /// received within the read timeout (408).
    static func bodyError(_ error: any Error, limit: Int) -> ControlError {
        switch error {
        case is NIOTooManyBytesError:
            return ControlError(status: 413, code: "body_too_large", "the request body is larger than \(limit) bytes; send a smaller body")
        case HTTPParserError.invalidEOFState:
            return .badRequest("body_incomplete", "the request body is incomplete: the connection was closed before the whole body (its Content-Length, or its last chunk) was received; send the whole body")
        case let error as HTTPParserError:
            return .badRequest("body_malformed", "the request body is malformed (\(error)); send a body of exactly Content-Length bytes or valid chunks")
        case let error as ControlReadTimeout:
            return ControlError(status: 408, code: "request_timeout", "the request body was not received within \(error.timeout); send the whole request at once")
        default:
            return .badRequest("body_incomplete", "the request body is incomplete: it could not be read (\(error)); send the whole body")
        }
    }
}

/// Turns every error into a JSON error reply, so clients always get `{"error": {...}}`; a
/// session error gets the status and code its case maps to (`ControlError+SessionError.swift`).
struct ControlErrorMiddleware: RouterMiddleware {
    typealias Context = ControlRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as ControlError {
            return Self.reply(error)
        } catch let error as SessionError {
            return Self.reply(ControlError(error))
        } catch let error as HTTPError {
            if error.status == .notFound {
                return Self.reply(ControlError.notFound("no_such_endpoint", "\(request.method) \(request.uri.path) is not an endpoint of the control API; see doc/control-api.md"))
            }
            if error.status == .contentTooLarge {
                return Self.reply(ControlError(status: 413, code: "body_too_large", "the request body is too large; send a smaller body"))
            }
            return Self.reply(ControlError(status: Int(error.status.code), code: "http_error", error.body ?? error.status.reasonPhrase))
        } catch {
            context.logger.error("control request failed", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
            return Self.reply(ControlError(status: 500, code: "internal", "the daemon could not handle the request: \(error)"))
        }
    }

    static func reply(_ error: ControlError) -> Response {
        Response(
            status: HTTPResponse.Status(code: error.status),
            headers: [.contentType: "application/json"],
            body: .init(byteBuffer: body(error))
        )
    }

    /// `{"error": {"code": …, "message": …}}`, with the session as it stands when the error
    /// carries one.
    static func body(_ error: ControlError) -> ByteBuffer {
        ByteBuffer(bytes: (try? ControlServer.encoder.encode(ErrorReply(code: error.code, message: error.message, session: error.session))) ?? Data())
    }
}

/// Refuses peers that are not the daemon's user, root or a member of the socket's group. The
/// verdict is reached once per connection (the peer's credentials are those it connected with)
/// and kept until the connection closes.
struct PeerCheckMiddleware: RouterMiddleware {
    typealias Context = ControlRequestContext
    let policy: PeerPolicy
    let verdicts = PeerVerdicts()

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let verdict = try await verdicts.verdict(for: context.channel) { peer in
            policy.allows(peer, groups: peer.supplementaryGroups())
        }
        guard verdict.allowed else {
            let peer = verdict.peer
            context.logger.notice("control request refused", metadata: ["peer.uid": "\(peer.uid)", "peer.pid": "\(peer.pid)"])
            throw ControlError(status: 403, code: "forbidden", "uid \(peer.uid) may not use this daemon: only its own user, root, or members of its socket group may")
        }
        return try await next(request, context)
    }
}

/// The peer check's verdict of each open connection, so that later requests on a connection
/// neither read its credentials again (a hop to its event loop and back) nor the peer's groups.
/// Each entry holds its channel until the channel's close callback removes the entry, so no
/// other channel can be allocated at the same address (the key) while it is there, even when
/// the connection closed while its credentials were being read.
final class PeerVerdicts: Sendable {
    struct Verdict: Sendable {
        var peer: PeerCredentials
        var allowed: Bool
    }

    private struct Entry: Sendable {
        var channel: any Channel
        var verdict: Verdict
    }

    private let entries = Mutex<[ObjectIdentifier: Entry]>([:])

    /// Connections with a verdict whose close callback has not run yet.
    var count: Int { entries.withLock { $0.count } }

    /// The verdict of `channel`'s peer: the one kept, or `decide`'s on the credentials `read`
    /// gives (`SO_PEERCRED`; tests inject their own).
    func verdict(for channel: any Channel, read: (any Channel) async throws -> PeerCredentials = PeerCredentials.of, decide: (PeerCredentials) -> Bool) async throws -> Verdict {
        let key = ObjectIdentifier(channel)
        if let known = entries.withLock({ $0[key] }), known.channel === channel { return known.verdict }
        let peer = try await read(channel)
        let verdict = Verdict(peer: peer, allowed: decide(peer))
        entries.withLock { $0[key] = Entry(channel: channel, verdict: verdict) }
        // Runs on the channel's event loop once it has closed (soon after, when it already has).
        channel.closeFuture.whenComplete { _ in
            self.entries.withLock { entries in
                if entries[key]?.channel === channel { entries[key] = nil }
            }
        }
        return verdict
    }
}
