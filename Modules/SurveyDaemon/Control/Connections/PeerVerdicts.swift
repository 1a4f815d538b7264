import NIOCore
import Synchronization

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
    func verdict(for channel: any Channel, read: (any Channel) async throws -> PeerCredentials = PeerCredentials.of, decide: (PeerCredentials) async throws -> Bool) async throws -> Verdict {
        let key = ObjectIdentifier(channel)
        if let known = entries.withLock({ $0[key] }), known.channel === channel { return known.verdict }
        let peer = try await read(channel)
        let verdict = Verdict(peer: peer, allowed: try await decide(peer))
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
