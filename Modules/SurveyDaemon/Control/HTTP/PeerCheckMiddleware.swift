import Hummingbird
import Logging
import NIOPosix

/// Refuses peers that are not the daemon's user, root or a member of the socket's group. The
/// verdict is reached once per connection (the peer's credentials are those it connected with)
/// and kept until the connection closes. The peer's groups are read from `/proc` only when its
/// user and primary group do not decide, and then on NIO's blocking-I/O thread pool, never on
/// the connection's event loop.
struct PeerCheckMiddleware: RouterMiddleware {
    typealias Context = ControlRequestContext
    let policy: PeerPolicy
    let verdicts = PeerVerdicts()

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let verdict = try await verdicts.verdict(for: context.channel) { [policy] peer in
            guard policy.needsGroups(of: peer) else { return policy.allows(peer, groups: []) }
            let groups = try await NIOThreadPool.singleton.runIfActive { peer.supplementaryGroups() }
            return policy.allows(peer, groups: groups)
        }
        guard verdict.allowed else {
            let peer = verdict.peer
            context.logger.notice("control request refused", metadata: ["peer.uid": "\(peer.uid)", "peer.pid": "\(peer.pid)"])
            throw ControlError(status: 403, code: "forbidden", "uid \(peer.uid) may not use this daemon: only its own user, root, or members of its socket group may")
        }
        return try await next(request, context)
    }
}
