#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ControlAPI
import Entities
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Hummingbird
public import Logging
public import NIOCore
import NIOHTTP1
import NIOPosix
public import ServiceLifecycle
import Synchronization

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
    /// The loops connections are served on, each on one of them from accept to close; the
    /// caller owns them (the daemon gives a group of one thread of its own).
    public var eventLoopGroup: any EventLoopGroup
    public var logger: Logger

    public init(
        socketPath: String, socketGroup: (name: String, gid: UInt32)?, maxRequestBytes: Int, limits: ControlConnectionLimits = .init(),
        backend: any ControlBackend, eventLoopGroup: any EventLoopGroup, logger: Logger
    ) {
        self.eventLoopGroup = eventLoopGroup
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
            eventLoopGroup: eventLoopGroup, logger: logger, onReady: onReady)
    }

    /// Makes the socket's directory (0700 when created), takes the socket's lock and refuses to
    /// start when another daemon holds it or answers on the socket; removes a stale socket file.
    /// Keep the claim until the daemon exits, then release it.
    public func prepareSocketPath() throws(ControlError) -> ControlSocketClaim {
        try ControlSocket.prepare(path: socketPath)
    }

    func addRoutes(to router: Router<ControlRequestContext>) {
        let limit = maxRequestBytes
        addHealthRoutes(to: router, backend: backend)
        let v1 = router.group("v1")
        addSessionRoutes(to: v1, backend: backend, limit: limit)
        addDeliveryRoutes(to: v1, backend: backend, limit: limit)
        addQueueRoutes(to: v1, backend: backend, limit: limit)
        addKioskRoutes(to: v1, backend: backend, limit: limit)
        // `dead//requeue`: the router drops the empty segment; an empty id names no dead letter.
        v1.post("dead/requeue") { _, _ -> Response in
            throw ControlError.notFound("no_such_dead_letter", "no dead letter with an empty id; `surveyctl dead` lists them")
        }
    }

    /// `/v1/sessions` and `/v1/answers`.
    func addSessionRoutes(to v1: RouterGroup<ControlRequestContext>, backend: any ControlSessionBackend, limit: Int) {
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
    }

    /// Status, flush, events, resume and the dead letters.
    func addDeliveryRoutes(to v1: RouterGroup<ControlRequestContext>, backend: any ControlDeliveryBackend, limit: Int) {
        v1.get("status") { _, _ in try Self.json(await backend.status()) }
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
    }
}
